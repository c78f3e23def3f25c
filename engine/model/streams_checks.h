// The model constraints of the four DynamoDB Streams requests (botocore's
// dynamodbstreams/2012-08-10 model), for the engine's typed requests and the
// wire's JSON structs alike (members found by name, as constraints_gen.h
// does): the constraint phase (tools/server/wire.h), every violation
// collected in member order.
#ifndef DYNAROCK_ENGINE_MODEL_STREAMS_CHECKS_H_
#define DYNAROCK_ENGINE_MODEL_STREAMS_CHECKS_H_

#include <string>

#include "engine/model/violations.h"

namespace dynarock::model {
namespace streams_detail {

template <typename S>
void CheckString(const S& s, const Path& path, int64_t min, int64_t max, Violations* out) {
  const std::string v(s);
  out->Length([&] { return v; }, Utf16Length(v), Bound::kMin, min, path);
  out->Length([&] { return v; }, Utf16Length(v), Bound::kMax, max, path);
}

template <typename M>
void Required(const M& m, const char* path, Violations* out) {
  if (!IsPresent(m)) out->NotNull(path);
}

template <typename M>
void Limit(const M& m, Violations* out) {
  if (IsPresent(m)) out->Range(static_cast<int64_t>(Get(m)), Bound::kMin, 1, "limit");
}

}  // namespace streams_detail

template <typename V>
Status CheckListStreams(const V& in) {
  using namespace streams_detail;
  Violations out;
  if (IsPresent(in.table_name)) {
    const std::string name(Get(in.table_name));
    CheckString(name, "tableName", 3, 255, &out);
    if (!MatchesPattern(kNamePattern, name)) {
      out.Add(name, "tableName",
              "Member must satisfy regular expression pattern: " + std::string(kNamePattern));
    }
  }
  Limit(in.limit, &out);
  if (IsPresent(in.exclusive_start_stream_arn)) {
    CheckString(Get(in.exclusive_start_stream_arn), "exclusiveStartStreamArn", 37, 1024, &out);
  }
  return out.ToStatus();
}

template <typename V>
Status CheckDescribeStream(const V& in) {
  using namespace streams_detail;
  Violations out;
  Required(in.stream_arn, "streamArn", &out);
  if (IsPresent(in.stream_arn)) CheckString(Get(in.stream_arn), "streamArn", 37, 1024, &out);
  Limit(in.limit, &out);
  if (IsPresent(in.exclusive_start_shard_id)) {
    CheckString(Get(in.exclusive_start_shard_id), "exclusiveStartShardId", 28, 65, &out);
  }
  return out.ToStatus();
}

// The iterator type is typed in the engine's request; the wire checks its
// enum before converting.
template <typename V>
Status CheckGetShardIterator(const V& in) {
  using namespace streams_detail;
  Violations out;
  Required(in.stream_arn, "streamArn", &out);
  if (IsPresent(in.stream_arn)) CheckString(Get(in.stream_arn), "streamArn", 37, 1024, &out);
  Required(in.shard_id, "shardId", &out);
  if (IsPresent(in.shard_id)) CheckString(Get(in.shard_id), "shardId", 28, 65, &out);
  if constexpr (requires { in.shard_iterator_type.has_value(); }) {
    Required(in.shard_iterator_type, "shardIteratorType", &out);
    if (IsPresent(in.shard_iterator_type)) {
      const std::string& t = Get(in.shard_iterator_type);
      if (t != "TRIM_HORIZON" && t != "LATEST" && t != "AT_SEQUENCE_NUMBER" &&
          t != "AFTER_SEQUENCE_NUMBER") {
        out.Add(t, "shardIteratorType",
                "Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, TRIM_HORIZON, "
                "AT_SEQUENCE_NUMBER, LATEST]");
      }
    }
  }
  if (IsPresent(in.sequence_number)) {
    CheckString(Get(in.sequence_number), "sequenceNumber", 21, 40, &out);
  }
  return out.ToStatus();
}

template <typename V>
Status CheckGetRecords(const V& in) {
  using namespace streams_detail;
  Violations out;
  Required(in.shard_iterator, "shardIterator", &out);
  if (IsPresent(in.shard_iterator)) {
    CheckString(Get(in.shard_iterator), "shardIterator", 1, 2048, &out);
  }
  Limit(in.limit, &out);
  return out.ToStatus();
}

}  // namespace dynarock::model

#endif  // DYNAROCK_ENGINE_MODEL_STREAMS_CHECKS_H_
