#include "tools/server/streams_wire.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <string>

#include "engine/model/streams_checks.h"
#include "format/json.h"
#include "tools/server/json_writers.h"
#include "tools/server/protocol/runtime.h"

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

struct Failure {
  Status status;
};
void Check(const Status& s) {
  if (!s.ok()) throw Failure{s};
}
template <typename T>
T Check(Result<T> r) {
  if (!r.ok()) throw Failure{r.status()};
  return std::move(r).value();
}

const char* StatusName(StreamStatus s) {
  switch (s) {
    case StreamStatus::kEnabling:
      return "ENABLING";
    case StreamStatus::kEnabled:
      return "ENABLED";
    case StreamStatus::kDisabling:
      return "DISABLING";
    case StreamStatus::kDisabled:
      return "DISABLED";
  }
  return "ENABLED";
}

const char* EventName(StreamEventName e) {
  switch (e) {
    case StreamEventName::kInsert:
      return "INSERT";
    case StreamEventName::kModify:
      return "MODIFY";
    case StreamEventName::kRemove:
      return "REMOVE";
  }
  return "INSERT";
}

void ListStreams(Database* db, Element json, Writer& w) {
  ListStreamsInput in;
  Check(ReadInput(json, "ListStreamsInput",
                  {{"TableName", &in.table_name},
                   {"Limit", nullptr, &in.limit},
                   {"ExclusiveStartStreamArn", &in.exclusive_start_stream_arn}}));
  Check(model::CheckListStreams(in));
  auto out = Check(db->ListStreams({in.table_name, in.limit, in.exclusive_start_stream_arn}));
  w.StartObject();
  w.Key("Streams");
  w.StartArray();
  for (const auto& s : out.streams) {
    w.StartObject();
    w.Key("StreamArn");
    Str(w, s.stream_arn);
    w.Key("TableName");
    Str(w, s.table_name);
    w.Key("StreamLabel");
    Str(w, s.stream_label);
    w.EndObject();
  }
  w.EndArray();
  if (out.last_evaluated_stream_arn) {
    w.Key("LastEvaluatedStreamArn");
    Str(w, *out.last_evaluated_stream_arn);
  }
  w.EndObject();
}

void DescribeStream(Database* db, Element json, Writer& w) {
  DescribeStreamInput in;
  Check(ReadInput(json, "DescribeStreamInput",
                  {{"StreamArn", &in.stream_arn},
                   {"Limit", nullptr, &in.limit},
                   {"ExclusiveStartShardId", &in.exclusive_start_shard_id}}));
  Check(model::CheckDescribeStream(in));
  auto out = Check(db->DescribeStream({*in.stream_arn, in.limit, in.exclusive_start_shard_id}));
  const StreamDescription& d = out.stream_description;
  w.StartObject();
  w.Key("StreamDescription");
  w.StartObject();
  w.Key("StreamArn");
  Str(w, d.stream_arn);
  w.Key("StreamLabel");
  Str(w, d.stream_label);
  w.Key("StreamStatus");
  w.String(StatusName(d.stream_status));
  w.Key("StreamViewType");
  w.String(StreamViewTypeName(d.stream_view_type));
  w.Key("CreationRequestDateTime");
  w.Double(d.creation_request_date_time);
  w.Key("TableName");
  Str(w, d.table_name);
  w.Key("KeySchema");
  WriteKeySchema(w, d.key_schema);
  w.Key("Shards");
  w.StartArray();
  for (const auto& s : d.shards) {
    w.StartObject();
    w.Key("ShardId");
    Str(w, s.shard_id);
    w.Key("SequenceNumberRange");
    w.StartObject();
    w.Key("StartingSequenceNumber");
    Str(w, s.sequence_number_range.starting_sequence_number);
    if (s.sequence_number_range.ending_sequence_number) {
      w.Key("EndingSequenceNumber");
      Str(w, *s.sequence_number_range.ending_sequence_number);
    }
    w.EndObject();
    if (s.parent_shard_id) {
      w.Key("ParentShardId");
      Str(w, *s.parent_shard_id);
    }
    w.EndObject();
  }
  w.EndArray();
  if (d.last_evaluated_shard_id) {
    w.Key("LastEvaluatedShardId");
    Str(w, *d.last_evaluated_shard_id);
  }
  w.EndObject();
  w.EndObject();
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
  auto out = Check(db->GetShardIterator(r));
  w.StartObject();
  w.Key("ShardIterator");
  Str(w, out.shard_iterator);
  w.EndObject();
}

void GetRecords(Database* db, Element json, Writer& w) {
  GetRecordsInput in;
  Check(ReadInput(json, "GetRecordsInput",
                  {{"ShardIterator", &in.shard_iterator}, {"Limit", nullptr, &in.limit}}));
  Check(model::CheckGetRecords(in));
  auto out = Check(db->GetRecords({*in.shard_iterator, in.limit}));
  w.StartObject();
  w.Key("Records");
  w.StartArray();
  for (const auto& r : out.records) {
    w.StartObject();
    w.Key("eventID");
    Str(w, r.event_id);
    w.Key("eventName");
    w.String(EventName(r.event_name));
    w.Key("eventVersion");
    w.String("1.1");
    w.Key("eventSource");
    w.String("aws:dynamodb");
    w.Key("awsRegion");
    Str(w, r.aws_region);
    w.Key("dynamodb");
    w.StartObject();
    w.Key("ApproximateCreationDateTime");
    w.Double(r.approximate_creation_date_time);
    w.Key("Keys");
    format::WriteJson(&w, r.keys);
    if (r.new_image) {
      w.Key("NewImage");
      format::WriteJson(&w, *r.new_image);
    }
    if (r.old_image) {
      w.Key("OldImage");
      format::WriteJson(&w, *r.old_image);
    }
    w.Key("SequenceNumber");
    Str(w, r.sequence_number);
    w.Key("SizeBytes");
    w.Int64(r.size_bytes);
    w.Key("StreamViewType");
    w.String(StreamViewTypeName(r.stream_view_type));
    w.EndObject();
    if (r.time_to_live_deletion) {
      // The Streams model's Identity shape capitalizes its members (Lambda's
      // event JSON does not).
      w.Key("userIdentity");
      w.StartObject();
      w.Key("PrincipalId");
      w.String("dynamodb.amazonaws.com");
      w.Key("Type");
      w.String("Service");
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
  if (out.next_shard_iterator) {
    w.Key("NextShardIterator");
    Str(w, *out.next_shard_iterator);
  }
  w.EndObject();
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

const char* StreamViewTypeName(StreamViewType type) {
  switch (type) {
    case StreamViewType::kKeysOnly:
      return "KEYS_ONLY";
    case StreamViewType::kNewImage:
      return "NEW_IMAGE";
    case StreamViewType::kOldImage:
      return "OLD_IMAGE";
    case StreamViewType::kNewAndOldImages:
      return "NEW_AND_OLD_IMAGES";
  }
  return "KEYS_ONLY";
}

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
