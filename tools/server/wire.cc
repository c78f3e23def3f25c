#include "tools/server/wire.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "tools/server/jobs.h"
#include "tools/server/json_writers.h"
#include "tools/server/protocol/model_gen.h"
#include "tools/server/protocol/serde_errors.h"
#include "tools/server/protocol/streams_model_gen.h"
#include "tools/server/protocol/streams_requests_gen.h"
#include "tools/server/protocol/writers_gen.h"
#include "tools/server/wire_requests.h"

namespace dynarock::wire {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// What an operation may use: the engine, the server's export and import
// jobs (null outside a server), and the Host header the client used.
struct Context {
  Database* db;
  jobs::JobManager* jobs;
  std::string_view host;
  std::string_view body;  // the request's JSON, as it came
};

// ---- Operations answered without an engine response ------------------------------------------

// The endpoint is the one the client reached (its Host header, port
// included), so an SDK that discovers endpoints keeps calling this server.
void DescribeEndpoints(const Context& c, const protocol::DescribeEndpointsRequest&, Writer& w) {
  w.StartObject();
  w.Key("Endpoints");
  w.StartArray();
  w.StartObject();
  w.Key("Address");
  const std::string_view address = c.host.empty() ? "localhost" : c.host;
  w.String(address.data(), static_cast<rapidjson::SizeType>(address.size()));
  w.Key("CachePeriodInMinutes");
  w.Int(1440);
  w.EndObject();
  w.EndArray();
  w.EndObject();
}

void DescribeLimits(const Context&, const protocol::DescribeLimitsInput&, Writer& w) {
  w.StartObject();
  for (const char* k : {"AccountMaxReadCapacityUnits", "AccountMaxWriteCapacityUnits"}) {
    w.Key(k);
    w.Int(80000);
  }
  for (const char* k : {"TableMaxReadCapacityUnits", "TableMaxWriteCapacityUnits"}) {
    w.Key(k);
    w.Int(40000);
  }
  w.EndObject();
}

using Op = std::function<void(const Context&, protocol::Element, Writer&)>;

// The engine's typed request from the JSON: the generated phases 6 and 8
// (types, then model constraints), then the translation.
// Read() and Check() are found by argument: the generated ones of the
// input's service (protocol:: or protocol::streams::).
template <typename Input, typename Request>
Request ReadRequest(protocol::Element json) {
  Input in;
  Check(Read(json, &in));
  Check(Check(in));
  Status invalid_value;
  Request request = Check(ToRequest<Request>(std::move(in), &invalid_value));
  if (!invalid_value.ok()) {
    // An invalid AttributeValue loses to the mixing check (5.1).
    if constexpr (requires { CheckParameters(request); }) Check(CheckParameters(request));
    Check(invalid_value);
  }
  // Items are answered from their stored bytes (writers_gen.h).
  if constexpr (requires { request.item_encoding; }) request.item_encoding = ItemEncoding::kStored;
  return request;
}

// One operation served by the engine: the request read, the engine, and
// the generated answer (protocol/writers_gen.h).
template <typename Input, typename Request, typename Response>
Op Serve(Result<Response> (Database::*run)(const Request&)) {
  return [run](const Context& c, protocol::Element json, Writer& w) {
    const Request request = ReadRequest<Input, Request>(json);
    using protocol::WriteOutput, protocol::streams::WriteOutput;  // one per request type
    WriteOutput(w, request, Check((c.db->*run)(request)));
  };
}
// SearchVectors: its front end's serde errors first
// (protocol/serde_errors.h), then as any operation.
Op ServeSearchVectors() {
  return [serve = Serve<protocol::SearchVectorsInput>(&Database::SearchVectors)](
             const Context& c, protocol::Element json, Writer& w) {
    Check(protocol::SerdeCheck(c.body, protocol::SearchVectorsMembers()));
    serve(c, json, w);
  };
}
// An operation whose output has no members (TagResource, UntagResource):
// DynamoDB answers it with an empty body.
template <typename Input, typename Request>
Op Serve(Status (Database::*run)(const Request&)) {
  return [run](const Context& c, protocol::Element json, Writer&) {
    Check((c.db->*run)(ReadRequest<Input, Request>(json)));
  };
}
// An operation answered here from its model input (no engine request).
template <typename Input>
Op Serve(void (*run)(const Context&, const Input&, Writer&)) {
  return [run](const Context& c, protocol::Element json, Writer& w) {
    Input in;
    Check(protocol::Read(json, &in));
    Check(protocol::Check(in));
    run(c, in, w);
  };
}

// An export or import operation: its JobManager method answers the JSON.
template <typename Input>
Op ServeJob(Result<std::string> (jobs::JobManager::*run)(const Input&)) {
  return [run](const Context& c, protocol::Element json, Writer& w) {
    Input in;
    Check(protocol::Read(json, &in));
    Check(protocol::Check(in));
    if (c.jobs == nullptr) Fail(Status::Internal("this server runs no export or import jobs"));
    std::string out = Check((c.jobs->*run)(in));
    w.RawValue(out.data(), out.size(), rapidjson::kObjectType);
  };
}

const std::map<std::string, Op, std::less<>>& Operations() {
  static const std::map<std::string, Op, std::less<>> ops = {
      {"CreateTable", Serve<protocol::CreateTableInput>(&Database::CreateTable)},
      {"DescribeTable", Serve<protocol::DescribeTableInput>(&Database::DescribeTable)},
      {"DeleteTable", Serve<protocol::DeleteTableInput>(&Database::DeleteTable)},
      {"UpdateTable", Serve<protocol::UpdateTableInput>(&Database::UpdateTable)},
      {"ListTables", Serve<protocol::ListTablesInput>(&Database::ListTables)},
      {"PutItem", Serve<protocol::PutItemInput>(&Database::PutItem)},
      {"GetItem", Serve<protocol::GetItemInput>(&Database::GetItem)},
      {"DeleteItem", Serve<protocol::DeleteItemInput>(&Database::DeleteItem)},
      {"UpdateItem", Serve<protocol::UpdateItemInput>(&Database::UpdateItem)},
      {"Query", Serve<protocol::QueryInput>(&Database::Query)},
      {"Scan", Serve<protocol::ScanInput>(&Database::Scan)},
      {"BatchGetItem", Serve<protocol::BatchGetItemInput>(&Database::BatchGetItem)},
      {"BatchWriteItem", Serve<protocol::BatchWriteItemInput>(&Database::BatchWriteItem)},
      {"TransactWriteItems",
       Serve<protocol::TransactWriteItemsInput>(&Database::TransactWriteItems)},
      {"TransactGetItems", Serve<protocol::TransactGetItemsInput>(&Database::TransactGetItems)},
      {"UpdateTimeToLive", Serve<protocol::UpdateTimeToLiveInput>(&Database::UpdateTimeToLive)},
      {"DescribeTimeToLive",
       Serve<protocol::DescribeTimeToLiveInput>(&Database::DescribeTimeToLive)},
      {"TagResource", Serve<protocol::TagResourceInput>(&Database::TagResource)},
      {"UntagResource", Serve<protocol::UntagResourceInput>(&Database::UntagResource)},
      {"ListTagsOfResource",
       Serve<protocol::ListTagsOfResourceInput>(&Database::ListTagsOfResource)},
      {"DescribeLimits", Serve<protocol::DescribeLimitsInput>(DescribeLimits)},
      {"DescribeEndpoints", Serve<protocol::DescribeEndpointsRequest>(DescribeEndpoints)},
      {"UpdateContinuousBackups",
       Serve<protocol::UpdateContinuousBackupsInput>(&Database::UpdateContinuousBackups)},
      {"DescribeContinuousBackups",
       Serve<protocol::DescribeContinuousBackupsInput>(&Database::DescribeContinuousBackups)},
      {"ExportTableToPointInTime", ServeJob(&jobs::JobManager::ExportTableToPointInTime)},
      {"DescribeExport", ServeJob(&jobs::JobManager::DescribeExport)},
      {"ListExports", ServeJob(&jobs::JobManager::ListExports)},
      {"ImportTable", ServeJob(&jobs::JobManager::ImportTable)},
      {"DescribeImport", ServeJob(&jobs::JobManager::DescribeImport)},
      {"ListImports", ServeJob(&jobs::JobManager::ListImports)},
      {"PutResourcePolicy", Serve<protocol::PutResourcePolicyInput>(&Database::PutResourcePolicy)},
      {"GetResourcePolicy", Serve<protocol::GetResourcePolicyInput>(&Database::GetResourcePolicy)},
      {"DeleteResourcePolicy",
       Serve<protocol::DeleteResourcePolicyInput>(&Database::DeleteResourcePolicy)},
      {"SearchVectors", ServeSearchVectors()},
      {"ExecuteStatement", Serve<protocol::ExecuteStatementInput>(&Database::ExecuteStatement)},
      {"BatchExecuteStatement",
       Serve<protocol::BatchExecuteStatementInput>(&Database::BatchExecuteStatement)},
      {"ExecuteTransaction",
       Serve<protocol::ExecuteTransactionInput>(&Database::ExecuteTransaction)},
  };
  return ops;
}

// DynamoDB Streams (X-Amz-Target DynamoDBStreams_20120810.<Op>), on the
// same port: its own service model, the engine's stream operations.
constexpr std::string_view kStreamsPrefix = "DynamoDBStreams_20120810.";
const std::map<std::string, Op, std::less<>>& StreamsOperations() {
  namespace s = protocol::streams;
  static const std::map<std::string, Op, std::less<>> ops = {
      {"ListStreams", Serve<s::ListStreamsInput>(&Database::ListStreams)},
      {"DescribeStream", Serve<s::DescribeStreamInput>(&Database::DescribeStream)},
      {"GetShardIterator", Serve<s::GetShardIteratorInput>(&Database::GetShardIterator)},
      {"GetRecords", Serve<s::GetRecordsInput>(&Database::GetRecords)},
  };
  return ops;
}

std::string ErrorNamespace(const Status& s) {
  switch (s.code()) {
    case Status::Code::kValidation:
      return "com.amazon.coral.validate#";
    case Status::Code::kSerialization:
    case Status::Code::kAccessDenied:
      return "com.amazon.coral.service#";
    default:
      return "com.amazonaws.dynamodb.v20120810#";
  }
}

// Extra error-body members DynamoDB sends: the old item of a failed
// condition, a transaction's cancellation reasons, why a request was
// throttled (generated: protocol/writers_gen.h).
void WriteErrorDetail(Writer& w, const Status& s) {
  if (const auto* c = s.payload<ConditionalCheckFailedDetail>()) {
    protocol::WriteConditionalCheckFailedException(w, *c);
  }
  if (const auto* t = s.payload<ThrottlingDetail>()) {
    if (s.code() == Status::Code::kThrottling) {
      protocol::WriteThrottlingException(w, *t);
    } else {
      protocol::WriteProvisionedThroughputExceededException(w, *t);
    }
  }
  if (const auto* t = s.payload<TransactionCanceledDetail>()) {
    protocol::WriteTransactionCanceledException(w, *t);
  }
}

}  // namespace

WireResponse HealthResponse(Database* db, std::string_view host) {
  Status health = db->Health();
  if (!health.ok()) return {500, "unhealthy: " + health.message() + "\n"};
  // DynamoDB names the host it was reached by (dynamodb.<region>.amazonaws.com).
  return {200, "healthy: " + std::string(host) + " "};
}

WireResponse ErrorResponse(const Status& status) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("__type");
  // Every internal condition (corruption, I/O, ...) is DynamoDB's InternalServerError.
  const bool internal = status.ErrorName() == "InternalServerError";
  std::string type = ErrorNamespace(status) + std::string(status.ErrorName());
  if (internal) type = "com.amazonaws.dynamodb.v20120810#InternalServerError";
  Str(w, type);
  // VALIDATION.md 7: coral's type errors and a few others say "Message".
  const std::string_view name = status.ErrorName();
  const bool capital = status.code() == Status::Code::kSerialization ||
                       name == "TransactionCanceledException" ||
                       name == "IdempotentParameterMismatchException" ||
                       name == "TransactionInProgressException" ||
                       name == "AccessDeniedException";
  w.Key(capital ? "Message" : "message");
  Str(w, status.message());
  WriteErrorDetail(w, status);
  w.EndObject();
  return {internal ? 500 : 400, std::string(buf.GetString(), buf.GetSize())};
}

namespace {

WireResponse BareError(std::string_view name) {
  return {400, "{\"__type\":\"com.amazon.coral.service#" + std::string(name) + "\"}"};
}

// DynamoDB operations Dynarock does not serve, and what to use instead. They
// get DynamoDB's answer to an unknown target, UnknownOperationException, so
// clients that probe for an operation see it missing, with a Message that
// says so (a name DynamoDB does not have gets the bare error).
std::optional<std::string> NotServed(std::string_view op) {
  static constexpr std::string_view kBackups =
      "on-demand backups and restores into a new table are not implemented: use "
      "ExportTableToPointInTime and ImportTable, or `dynarock dump` and `dynarock restore`";
  static constexpr std::string_view kGlobal =
      "global tables are not implemented: replicate with DynamoDB or ScyllaDB Alternator, which "
      "speak the same protocol";
  static constexpr std::string_view kKinesis =
      "Kinesis streaming destinations are not implemented: read changes from DynamoDB Streams, "
      "served on this endpoint";
  static constexpr std::string_view kInsights =
      "Contributor Insights is not implemented: `dynarock top` (or GET "
      "/console/api/hottest) shows the most accessed item collections of a table and its GSIs";
  static const std::map<std::string_view, std::string_view> reasons = {
      {"CreateBackup", kBackups},
      {"DeleteBackup", kBackups},
      {"DescribeBackup", kBackups},
      {"ListBackups", kBackups},
      {"RestoreTableFromBackup", kBackups},
      {"RestoreTableToPointInTime", kBackups},
      {"CreateGlobalTable", kGlobal},
      {"DescribeGlobalTable", kGlobal},
      {"DescribeGlobalTableSettings", kGlobal},
      {"ListGlobalTables", kGlobal},
      {"UpdateGlobalTable", kGlobal},
      {"UpdateGlobalTableSettings", kGlobal},
      {"DescribeTableReplicaAutoScaling", kGlobal},
      {"UpdateTableReplicaAutoScaling", kGlobal},
      {"DescribeKinesisStreamingDestination", kKinesis},
      {"EnableKinesisStreamingDestination", kKinesis},
      {"DisableKinesisStreamingDestination", kKinesis},
      {"UpdateKinesisStreamingDestination", kKinesis},
      {"DescribeContributorInsights", kInsights},
      {"ListContributorInsights", kInsights},
      {"UpdateContributorInsights", kInsights},
  };
  auto it = reasons.find(op);
  if (it == reasons.end()) return std::nullopt;
  return "Dynarock does not serve " + std::string(op) + ": " + std::string(it->second);
}

WireResponse UnknownOperation(std::string_view op) {
  auto why = NotServed(op);
  if (!why) return BareError("UnknownOperationException");
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("__type");
  w.String("com.amazon.coral.service#UnknownOperationException");
  w.Key("Message");
  Str(w, *why);
  w.EndObject();
  return {400, std::string(buf.GetString(), buf.GetSize())};
}

// Deeper than any request DynamoDB accepts: an AttributeValue nests 32
// levels, two JSON levels each, inside a few levels of request.
constexpr size_t kMaxJsonDepth = 96;
// Parsers keep their buffers between requests; a larger body gets a parser
// of its own, so that one 16 MB request does not pin 16 MB per thread.
constexpr size_t kReusedParserBytes = 1 << 20;

}  // namespace

WireResponse Handle(Database* db, std::string_view target, std::string_view body,
                    const Authenticator& authenticate, jobs::JobManager* job_manager,
                    std::string_view host) {
  // VALIDATION.md 0: JSON, then the target, then authentication, then an
  // empty body; the first failure wins.
  auto make_parser = [](size_t max_bytes) {
    simdjson::dom::parser p(max_bytes);
    // Sets the depth bound once; parse() grows the buffers and keeps it.
    // Deliberately ignored failure: parse() then allocates by itself, with
    // simdjson's default bound (1024 levels), still far below the stack.
    [[maybe_unused]] const auto ignored =
        p.allocate(std::min<size_t>(max_bytes, 64 << 10), kMaxJsonDepth);
    return p;
  };
  thread_local simdjson::dom::parser reused = make_parser(kReusedParserBytes);
  std::optional<simdjson::dom::parser> own;
  simdjson::dom::parser* parser = &reused;
  if (body.size() > kReusedParserBytes) parser = &own.emplace(make_parser(body.size()));
  protocol::Element root;
  // A document nested past the parser's bound is valid JSON to DynamoDB,
  // which refuses its nesting later, in words that say so.
  bool too_deep = false;
  if (!body.empty()) {
    const auto error = parser->parse(body.data(), body.size()).get(root);
    too_deep = error == simdjson::DEPTH_ERROR;
    if (error != simdjson::SUCCESS && !too_deep) return BareError("SerializationException");
  }
  // Both services on one port, told apart by the target's prefix.
  constexpr std::string_view kPrefix = "DynamoDB_20120810.";
  const Op* op = nullptr;
  if (target.starts_with(kStreamsPrefix)) {
    auto found = StreamsOperations().find(target.substr(kStreamsPrefix.size()));
    if (found == StreamsOperations().end()) return BareError("UnknownOperationException");
    op = &found->second;
  } else {
    if (!target.starts_with(kPrefix)) return BareError("UnknownOperationException");
    auto found = Operations().find(target.substr(kPrefix.size()));
    if (found == Operations().end()) return UnknownOperation(target.substr(kPrefix.size()));
    op = &found->second;
  }
  if (authenticate) {
    if (auto denied = authenticate()) return std::move(*denied);
  }
  if (body.empty()) return BareError("SerializationException");
  if (too_deep) {
    return ErrorResponse(Status::Validation("Nesting Levels have exceeded supported limits"));
  }
  try {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    (*op)(Context{db, job_manager, host, body}, root, w);
    return {200, std::string(buf.GetString(), buf.GetSize())};
  } catch (const Failure& e) {
    return ErrorResponse(e.status);
  } catch (const std::exception& e) {
    return ErrorResponse(Status::Internal(e.what()));
  }
}

}  // namespace dynarock::wire
