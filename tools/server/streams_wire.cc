#include "tools/server/streams_wire.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <string>

#include "engine/model/streams_checks.h"
#include "tools/server/protocol/runtime.h"
#include "tools/server/protocol/writers_gen.h"

namespace dynarock::wire::streams_wire {
namespace {

using protocol::Element;
using protocol::Position;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// The requests as the JSON carries them: every member optional (absent and
// null alike), read in model order; unknown members are dropped.
struct ListStreamsInput {
  std::optional<std::string> table_name;
  std::optional<int32_t> limit;
  std::optional<std::string> exclusive_start_stream_arn;
};
struct DescribeStreamInput {
  std::optional<std::string> stream_arn;
  std::optional<int32_t> limit;
  std::optional<std::string> exclusive_start_shard_id;
};
struct GetShardIteratorInput {
  std::optional<std::string> stream_arn;
  std::optional<std::string> shard_id;
  std::optional<std::string> shard_iterator_type;
  std::optional<std::string> sequence_number;
};
struct GetRecordsInput {
  std::optional<std::string> shard_iterator;
  std::optional<int32_t> limit;
};

constexpr char kJavaPackage[] = "com.amazonaws.dynamodb.v20120810.";

// Reads the members of an object into `fields`, by name.
struct Member {
  std::string_view name;
  std::optional<std::string>* text = nullptr;
  std::optional<int32_t>* integer = nullptr;
};
Status ReadInput(Element json, std::string_view shape, std::initializer_list<Member> members) {
  DYNAROCK_RETURN_IF_ERROR(protocol::ExpectObject(json, Position::kMember,
                                                  std::string(kJavaPackage) + std::string(shape)));
  for (const Member& m : members) {
    Element value;
    if (protocol::Object(json)[m.name].get(value) != simdjson::SUCCESS || value.is_null()) {
      continue;
    }
    if (m.text) {
      DYNAROCK_RETURN_IF_ERROR(protocol::ReadString(value, Position::kMember, &m.text->emplace()));
    } else {
      DYNAROCK_RETURN_IF_ERROR(
          protocol::ReadInteger(value, Position::kMember, &m.integer->emplace()));
    }
  }
  return Status::OK();
}

void ListStreams(Database* db, Element json, Writer& w) {
  ListStreamsInput in;
  Check(ReadInput(json, "ListStreamsInput",
                  {{"TableName", &in.table_name},
                   {"Limit", nullptr, &in.limit},
                   {"ExclusiveStartStreamArn", &in.exclusive_start_stream_arn}}));
  Check(model::CheckListStreams(in));
  const ListStreamsRequest r{in.table_name, in.limit, in.exclusive_start_stream_arn};
  protocol::streams::WriteOutput(w, r, Check(db->ListStreams(r)));
}

void DescribeStream(Database* db, Element json, Writer& w) {
  DescribeStreamInput in;
  Check(ReadInput(json, "DescribeStreamInput",
                  {{"StreamArn", &in.stream_arn},
                   {"Limit", nullptr, &in.limit},
                   {"ExclusiveStartShardId", &in.exclusive_start_shard_id}}));
  Check(model::CheckDescribeStream(in));
  const DescribeStreamRequest r{*in.stream_arn, in.limit, in.exclusive_start_shard_id};
  protocol::streams::WriteOutput(w, r, Check(db->DescribeStream(r)));
}

void GetShardIterator(Database* db, Element json, Writer& w) {
  GetShardIteratorInput in;
  Check(ReadInput(json, "GetShardIteratorInput",
                  {{"StreamArn", &in.stream_arn},
                   {"ShardId", &in.shard_id},
                   {"ShardIteratorType", &in.shard_iterator_type},
                   {"SequenceNumber", &in.sequence_number}}));
  Check(model::CheckGetShardIterator(in));
  GetShardIteratorRequest r;
  r.stream_arn = *in.stream_arn;
  r.shard_id = *in.shard_id;
  const std::string& type = *in.shard_iterator_type;
  r.shard_iterator_type = type == "TRIM_HORIZON"         ? ShardIteratorType::kTrimHorizon
                          : type == "LATEST"             ? ShardIteratorType::kLatest
                          : type == "AT_SEQUENCE_NUMBER" ? ShardIteratorType::kAtSequenceNumber
                                                         : ShardIteratorType::kAfterSequenceNumber;
  r.sequence_number = in.sequence_number;
  protocol::streams::WriteOutput(w, r, Check(db->GetShardIterator(r)));
}

void GetRecords(Database* db, Element json, Writer& w) {
  GetRecordsInput in;
  Check(ReadInput(json, "GetRecordsInput",
                  {{"ShardIterator", &in.shard_iterator}, {"Limit", nullptr, &in.limit}}));
  Check(model::CheckGetRecords(in));
  const GetRecordsRequest r{*in.shard_iterator, in.limit};
  protocol::streams::WriteOutput(w, r, Check(db->GetRecords(r)));
}

using Op = void (*)(Database*, Element, Writer&);
Op Find(std::string_view op) {
  if (op == "ListStreams") return ListStreams;
  if (op == "DescribeStream") return DescribeStream;
  if (op == "GetShardIterator") return GetShardIterator;
  if (op == "GetRecords") return GetRecords;
  return nullptr;
}

}  // namespace

bool IsOperation(std::string_view op) { return Find(op) != nullptr; }

WireResponse Serve(Database* db, std::string_view op, Element json) {
  try {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    Find(op)(db, json, w);
    return {200, std::string(buf.GetString(), buf.GetSize())};
  } catch (const Failure& f) {
    return ErrorResponse(f.status);
  } catch (const std::exception& e) {
    return ErrorResponse(Status::Internal(e.what()));
  }
}

}  // namespace dynarock::wire::streams_wire
