// JSON writers shared by the hand-written JSON of the server (the table
// definition a dump stores, the console's API, the export and import jobs;
// DynamoDB's answers are generated: protocol/writers_gen.h). Templates over
// the RapidJSON writer, compact or pretty.
#ifndef DYNAROCK_TOOLS_SERVER_JSON_WRITERS_H_
#define DYNAROCK_TOOLS_SERVER_JSON_WRITERS_H_

#include <rapidjson/rapidjson.h>

#include <string_view>
#include <vector>

#include "dynarock/types.h"

namespace dynarock::wire {

template <typename W>
void Str(W& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// [{"AttributeName": ..., "KeyType": "HASH"|"RANGE"}, ...]
template <typename W>
void WriteKeySchema(W& w, const std::vector<KeySchemaElement>& ks) {
  w.StartArray();
  for (const auto& k : ks) {
    w.StartObject();
    w.Key("AttributeName");
    Str(w, k.attribute_name);
    w.Key("KeyType");
    w.String(k.key_type == KeyType::kHash ? "HASH" : "RANGE");
    w.EndObject();
  }
  w.EndArray();
}

// {"ProjectionType": ..., "NonKeyAttributes": [...] when there are any}
template <typename W>
void WriteProjection(W& w, const Projection& p) {
  w.StartObject();
  w.Key("ProjectionType");
  w.String(p.projection_type == ProjectionType::kAll       ? "ALL"
           : p.projection_type == ProjectionType::kInclude ? "INCLUDE"
                                                           : "KEYS_ONLY");
  if (!p.non_key_attributes.empty()) {
    w.Key("NonKeyAttributes");
    w.StartArray();
    for (const auto& a : p.non_key_attributes) Str(w, a);
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace dynarock::wire

#endif  // DYNAROCK_TOOLS_SERVER_JSON_WRITERS_H_
