#include "tools/server/table_definition.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "tools/server/json_writers.h"
#include "tools/server/protocol/model_gen.h"
#include "tools/server/protocol/writers_gen.h"
#include "tools/server/wire_requests.h"

namespace dynarock::wire {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void Throughput(Writer& w, const ProvisionedThroughput& t) {
  w.StartObject();
  w.Key("ReadCapacityUnits");
  w.Int64(t.read_capacity_units);
  w.Key("WriteCapacityUnits");
  w.Int64(t.write_capacity_units);
  w.EndObject();
}

// OnDemandThroughput and WarmThroughput as CreateTable takes them: the
// members set (a maximum of -1, none, is left out).
void WriteThroughputSettings(Writer& w, const std::optional<OnDemandThroughput>& on_demand,
                             std::optional<int64_t> warm_read, std::optional<int64_t> warm_write) {
  if (on_demand) {
    w.Key("OnDemandThroughput");
    w.StartObject();
    for (auto [name, v] : {std::pair{"MaxReadRequestUnits", on_demand->max_read_request_units},
                           {"MaxWriteRequestUnits", on_demand->max_write_request_units}}) {
      if (v && *v > 0) {
        w.Key(name);
        w.Int64(*v);
      }
    }
    w.EndObject();
  }
  if (warm_read || warm_write) {
    w.Key("WarmThroughput");
    w.StartObject();
    if (warm_read) {
      w.Key("ReadUnitsPerSecond");
      w.Int64(*warm_read);
    }
    if (warm_write) {
      w.Key("WriteUnitsPerSecond");
      w.Int64(*warm_write);
    }
    w.EndObject();
  }
}

// [{"AttributeName": ..., "KeyType": "HASH"|"RANGE"}, ...]
void WriteKeySchema(Writer& w, const std::vector<KeySchemaElement>& ks) {
  w.StartArray();
  for (const auto& k : ks) {
    w.StartObject();
    w.Key("AttributeName");
    Str(w, k.attribute_name);
    w.Key("KeyType");
    w.String(protocol::Name(k.key_type));
    w.EndObject();
  }
  w.EndArray();
}

// {"ProjectionType": ..., "NonKeyAttributes": [...] when there are any}
void WriteProjection(Writer& w, const Projection& p) {
  w.StartObject();
  w.Key("ProjectionType");
  w.String(protocol::Name(p.projection_type.value_or(ProjectionType::kKeysOnly)));
  if (!p.non_key_attributes.empty()) {
    w.Key("NonKeyAttributes");
    w.StartArray();
    for (const auto& a : p.non_key_attributes) Str(w, a);
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace

std::string TableDefinitionJson(const TableDescription& d,
                                const std::map<std::string, std::string>& tags,
                                const std::optional<std::string>& ttl_attribute,
                                const std::optional<std::string>& resource_policy) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 2);
  const bool provisioned = d.billing_mode == BillingMode::kProvisioned;
  w.StartObject();
  w.Key("TableName");
  Str(w, d.table_name);
  w.Key("KeySchema");
  WriteKeySchema(w, d.key_schema);
  w.Key("AttributeDefinitions");
  w.StartArray();
  for (const auto& a : d.attribute_definitions) {
    w.StartObject();
    w.Key("AttributeName");
    Str(w, a.attribute_name);
    w.Key("AttributeType");
    w.String(protocol::Name(a.attribute_type));
    w.EndObject();
  }
  w.EndArray();
  w.Key("BillingMode");
  w.String(protocol::Name(d.billing_mode));
  if (provisioned) {
    w.Key("ProvisionedThroughput");
    Throughput(w, d.provisioned_throughput);
  }
  // LSIs and GSIs share their shape; a GSI of a provisioned table has its
  // own throughput.
  auto indexes = [&](const char* key, const auto& list, auto extra) {
    if (!list || list->empty()) return;
    w.Key(key);
    w.StartArray();
    for (const auto& i : *list) {
      w.StartObject();
      w.Key("IndexName");
      Str(w, i.index_name);
      w.Key("KeySchema");
      WriteKeySchema(w, i.key_schema);
      w.Key("Projection");
      WriteProjection(w, i.projection);
      extra(i);
      w.EndObject();
    }
    w.EndArray();
  };
  indexes("LocalSecondaryIndexes", d.local_secondary_indexes, [](const auto&) {});
  indexes("GlobalSecondaryIndexes", d.global_secondary_indexes, [&](const auto& i) {
    if (provisioned) {
      w.Key("ProvisionedThroughput");
      Throughput(w, i.provisioned_throughput);
    }
    WriteThroughputSettings(
        w, i.on_demand_throughput,
        i.warm_throughput ? i.warm_throughput->read_units_per_second : std::nullopt,
        i.warm_throughput ? i.warm_throughput->write_units_per_second : std::nullopt);
  });
  if (d.vector_indexes && !d.vector_indexes->empty()) {
    w.Key("VectorIndexes");
    w.StartArray();
    for (const auto& v : *d.vector_indexes) {
      w.StartObject();
      w.Key("IndexName");
      Str(w, v.index_name);
      w.Key("VectorAttribute");
      w.StartObject();
      w.Key("AttributeName");
      Str(w, v.vector_attribute.attribute_name);
      w.EndObject();
      w.Key("Dimensions");
      w.Int64(v.dimensions);
      w.Key("DistanceFunction");
      w.String(protocol::Name(v.distance_function));
      w.Key("Projection");
      WriteProjection(w, v.projection);
      if (v.search_schema) {
        w.Key("SearchSchema");
        w.StartArray();
        for (const auto& e : *v.search_schema) {
          w.StartObject();
          w.Key("AttributeName");
          Str(w, e.attribute_name);
          w.Key("SearchSchemaElementType");
          w.String(protocol::Name(e.search_schema_element_type));
          w.EndObject();
        }
        w.EndArray();
      }
      w.EndObject();
    }
    w.EndArray();
  }
  if (d.stream_specification && d.stream_specification->stream_enabled) {
    w.Key("StreamSpecification");
    w.StartObject();
    w.Key("StreamEnabled");
    w.Bool(true);
    if (d.stream_specification->stream_view_type) {
      w.Key("StreamViewType");
      w.String(protocol::Name(*d.stream_specification->stream_view_type));
    }
    w.EndObject();
  }
  WriteThroughputSettings(
      w, d.on_demand_throughput,
      d.warm_throughput ? d.warm_throughput->read_units_per_second : std::nullopt,
      d.warm_throughput ? d.warm_throughput->write_units_per_second : std::nullopt);
  if (d.table_class_summary) {  // a class was given: a restore gives it again
    w.Key("TableClass");
    w.String(protocol::Name(d.table_class_summary->table_class));
  }
  if (!tags.empty()) {
    w.Key("Tags");
    w.StartArray();
    for (const auto& [k, v] : tags) {
      w.StartObject();
      w.Key("Key");
      Str(w, k);
      w.Key("Value");
      Str(w, v);
      w.EndObject();
    }
    w.EndArray();
  }
  if (resource_policy) {
    w.Key("ResourcePolicy");
    Str(w, *resource_policy);
  }
  if (ttl_attribute) {
    w.Key("TimeToLiveSpecification");
    w.StartObject();
    w.Key("AttributeName");
    Str(w, *ttl_attribute);
    w.Key("Enabled");
    w.Bool(true);
    w.EndObject();
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

Result<TableDefinition> ParseTableDefinition(std::string_view json) {
  simdjson::dom::parser parser;
  protocol::Element root;
  if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS) {
    return Status::Serialization("the table definition is not JSON");
  }
  protocol::CreateTableInput in;
  DYNAROCK_RETURN_IF_ERROR(protocol::Read(root, &in));
  DYNAROCK_RETURN_IF_ERROR(protocol::Check(in));
  TableDefinition out;
  { DYNAROCK_ASSIGN_OR_RETURN(out.table, ToRequest<CreateTableRequest>(std::move(in))); }
  simdjson::dom::element ttl;
  if (root.at_key("TimeToLiveSpecification").get(ttl) == simdjson::SUCCESS && !ttl.is_null()) {
    std::string_view name;
    bool enabled = false;
    if (ttl["AttributeName"].get(name) != simdjson::SUCCESS || name.empty() ||
        ttl["Enabled"].get(enabled) != simdjson::SUCCESS) {
      return Status::Validation(
          "TimeToLiveSpecification needs an AttributeName (string) and Enabled (boolean)");
    }
    if (enabled) out.ttl_attribute = std::string(name);
  }
  return out;
}

}  // namespace dynarock::wire
