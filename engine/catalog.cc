#include "engine/catalog.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

#include "engine/validation.h"
#include "format/vector.h"

namespace dynarock {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  return out + "]";
}

// Provisioned tables give their throughput; on-demand ones do not.
Status CheckBilling(const CreateTableRequest& r, BillingMode billing) {
  if (billing == BillingMode::kProvisioned && !r.provisioned_throughput) {
    return InvalidParameter(
        "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is "
        "PROVISIONED");
  }
  if (billing == BillingMode::kPayPerRequest && r.provisioned_throughput) {
    return InvalidParameter(
        "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
        "PAY_PER_REQUEST");
  }
  return Status::OK();
}

// One KeySchema, the table's or an index's: a HASH key, then perhaps a
// RANGE key of another name.
Status CheckKeySchema(const std::vector<KeySchemaElement>& ks) {
  if (ks[0].key_type != KeyType::kHash) {
    return Status::Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  if (ks.size() == 2 && ks[1].key_type != KeyType::kRange) {
    return Status::Validation(
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
  }
  if (ks.size() == 2 && ks[0].attribute_name == ks[1].attribute_name) {
    return Status::Validation(
        "Invalid KeySchema: Both the Hash Key and the Range Key element in the KeySchema have "
        "the same name");
  }
  return Status::OK();
}

// A GSI's KeySchema: since November 2025 one to four HASH attributes, then
// up to four RANGE attributes, every name once. A two-element schema gets
// the classic messages, as a table's.
Status CheckGlobalKeySchema(const std::vector<KeySchemaElement>& ks) {
  if (ks.size() <= 2 && (ks.size() < 2 || ks[1].key_type == KeyType::kRange)) {
    return CheckKeySchema(ks);
  }
  if (ks[0].key_type != KeyType::kHash) {
    return Status::Validation(
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  size_t hash = 0, range = 0;
  for (const auto& k : ks) ++(k.key_type == KeyType::kHash ? hash : range);
  if (hash > kMaxIndexPartitionKeys) {
    return InvalidParameter(
        "The KeySchema exceeds the maximum allowed number of HASH key attributes");
  }
  if (range > kMaxIndexSortKeys) {
    return InvalidParameter(
        "The KeySchema exceeds the maximum allowed number of RANGE key attributes");
  }
  for (size_t i = 0; i < hash; ++i) {
    if (ks[i].key_type != KeyType::kHash) {
      return InvalidParameter(
          "All HASH key attributes must precede RANGE key attributes in the KeySchema");
    }
  }
  for (size_t i = 0; i < ks.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (ks[i].attribute_name == ks[j].attribute_name) {
        return Status::Validation(
            "The KeySchema contains multiple key attributes with the same name");
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckResourcePolicyDocument(const std::string& policy) {
  if (policy.size() > kMaxResourcePolicyBytes) {
    return Status::Validation("Resource-based policy document exceeds the maximum size of 20 KB (" +
                              std::to_string(kMaxResourcePolicyBytes) +
                              " bytes): " + std::to_string(policy.size()) + " bytes");
  }
  rapidjson::Document doc;
  doc.Parse(policy.data(), policy.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Status::Validation("Resource-based policy document is not a valid JSON object");
  }
  return Status::OK();
}

Status CheckOnDemandThroughput(const std::optional<OnDemandThroughput>& t) {
  if (!t) return Status::OK();
  if (!t->max_read_request_units && !t->max_write_request_units) {
    return InvalidParameter(
        "OnDemandThroughput must specify MaxReadRequestUnits, MaxWriteRequestUnits, or both");
  }
  for (auto [name, v] : {std::pair{"MaxReadRequestUnits", t->max_read_request_units},
                         {"MaxWriteRequestUnits", t->max_write_request_units}}) {
    if (v && *v < 1 && *v != -1) {
      return InvalidParameter(std::string(name) + " must be at least 1, or -1 to remove the " +
                              "maximum; given " + std::to_string(*v));
    }
  }
  return Status::OK();
}

Status CheckWarmThroughput(const std::optional<WarmThroughput>& t) {
  if (!t) return Status::OK();
  if (!t->read_units_per_second && !t->write_units_per_second) {
    return InvalidParameter(
        "WarmThroughput must specify ReadUnitsPerSecond, WriteUnitsPerSecond, or both");
  }
  for (auto [name, v] : {std::pair{"ReadUnitsPerSecond", t->read_units_per_second},
                         {"WriteUnitsPerSecond", t->write_units_per_second}}) {
    if (v && *v < 1) {
      return InvalidParameter(std::string(name) + " must be at least 1; given " +
                              std::to_string(*v));
    }
  }
  return Status::OK();
}

void ApplyThroughputSettings(const std::optional<OnDemandThroughput>& on_demand,
                             const std::optional<WarmThroughput>& warm,
                             ThroughputSettings* settings) {
  if (on_demand) {
    auto set = [](const std::optional<int64_t>& v, int64_t* out) {
      if (v) *out = *v == -1 ? 0 : *v;
    };
    set(on_demand->max_read_request_units, &settings->max_read_request_units);
    set(on_demand->max_write_request_units, &settings->max_write_request_units);
  }
  if (warm) {
    if (warm->read_units_per_second) {
      settings->warm_read_units = std::max(settings->warm_read_units, *warm->read_units_per_second);
    }
    if (warm->write_units_per_second) {
      settings->warm_write_units =
          std::max(settings->warm_write_units, *warm->write_units_per_second);
    }
  }
}

namespace {

// An index's projection: its type given, NonKeyAttributes with INCLUDE
// only, each named once.
Status CheckProjection(const Projection& p) {
  if (!p.projection_type) return InvalidParameter("Unknown ProjectionType: null");
  const std::vector<std::string>& names = p.non_key_attributes;
  if (*p.projection_type != ProjectionType::kInclude) {
    if (names.empty()) return Status::OK();
    return InvalidParameter(
        "ProjectionType is " +
        std::string(*p.projection_type == ProjectionType::kAll ? "ALL" : "KEYS_ONLY") +
        ", but NonKeyAttributes is specified");
  }
  if (names.empty()) {
    return InvalidParameter("ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (names[j] == names[i]) {
        return InvalidParameter("Duplicate attribute name in NonKeyAttributes: " + names[i]);
      }
    }
  }
  return Status::OK();
}

std::optional<ScalarAttributeType> DefinedType(const CreateTableRequest& r,
                                               const std::string& name) {
  for (const auto& d : r.attribute_definitions) {
    if (d.attribute_name == name) return d.attribute_type;
  }
  return std::nullopt;
}

// Every key attribute (of the table and its indexes) is defined once, and
// nothing else is.
Status CheckAttributeDefinitions(const CreateTableRequest& r) {
  std::vector<std::string> defined;
  for (const auto& d : r.attribute_definitions) {
    if (std::find(defined.begin(), defined.end(), d.attribute_name) != defined.end()) {
      return InvalidParameter("Duplicate AttributeName in AttributeDefinitions: " +
                              d.attribute_name);
    }
    defined.push_back(d.attribute_name);
  }
  std::vector<std::string> all_keys;
  auto check_defined = [&](const std::vector<KeySchemaElement>& ks) -> Status {
    std::vector<std::string> names;
    for (const auto& k : ks) names.push_back(k.attribute_name);
    for (const auto& n : names) {
      if (!DefinedType(r, n)) {
        return InvalidParameter(
            "Some index key attributes are not defined in AttributeDefinitions. Keys: " +
            JoinNames(names) + ", AttributeDefinitions: " + JoinNames(defined));
      }
      if (std::find(all_keys.begin(), all_keys.end(), n) == all_keys.end()) all_keys.push_back(n);
    }
    return Status::OK();
  };
  DYNAROCK_RETURN_IF_ERROR(check_defined(r.key_schema));
  if (r.local_secondary_indexes) {
    for (const auto& l : *r.local_secondary_indexes) {
      DYNAROCK_RETURN_IF_ERROR(check_defined(l.key_schema));
    }
  }
  if (r.global_secondary_indexes) {
    for (const auto& g : *r.global_secondary_indexes) {
      DYNAROCK_RETURN_IF_ERROR(check_defined(g.key_schema));
    }
  }
  // A vector index's search attributes are defined as key attributes are
  // (its vector attribute must not be: CheckVectorIndexes says so).
  if (r.vector_indexes) {
    for (const auto& v : *r.vector_indexes) {
      for (const auto& e : v.search_schema.value_or(std::vector<SearchSchemaElement>{})) {
        if (!DefinedType(r, e.attribute_name)) {
          return InvalidParameter(
              "One element in SearchSchema is not defined in attribute definitions");
        }
        if (std::find(all_keys.begin(), all_keys.end(), e.attribute_name) == all_keys.end()) {
          all_keys.push_back(e.attribute_name);
        }
      }
      const std::string& attr = v.vector_attribute.attribute_name;
      if (DefinedType(r, attr)) {
        return InvalidParameter("Conflicting attribute definition for '" + attr +
                                "'. An attribute cannot be defined in AttributeDefinitions when "
                                "used as a VectorAttribute.");
      }
    }
  }
  if (defined.size() != all_keys.size()) {
    return InvalidParameter(
        "Number of attributes in KeySchema does not exactly match number of attributes defined "
        "in AttributeDefinitions");
  }
  return Status::OK();
}

// A CreateTable's vector indexes (VectorIndexes), each checked against the
// table and the others; `names` holds the LSI and GSI names taken. The
// NonKeyAttributes budget counts the vector attribute and each
// INLINE_FILTER attribute once.
Result<std::vector<VectorIndexInfo>> CheckVectorIndexes(const CreateTableRequest& r,
                                                        BillingMode billing,
                                                        const std::vector<IndexInfo>& others) {
  std::vector<VectorIndexInfo> out;
  if (!r.vector_indexes || r.vector_indexes->empty()) return out;
  if (billing != BillingMode::kPayPerRequest) {
    return InvalidParameter("Vector indexes are only supported for PAY_PER_REQUEST tables");
  }
  if (r.vector_indexes->size() > kMaxVectorIndexes) {
    return InvalidParameter("VectorIndex count exceeds the per-table limit of 5");
  }
  size_t budget = 0;
  for (const auto& i : others) budget += i.non_key_attributes.size();
  for (const VectorIndex& v : *r.vector_indexes) {
    for (const auto& i : others) {
      if (i.name == v.index_name) return InvalidParameter("Duplicate index name: " + v.index_name);
    }
    for (const auto& i : out) {
      if (i.name == v.index_name) return InvalidParameter("Duplicate index name: " + v.index_name);
    }
    if (v.dimensions < 1 || v.dimensions > format::kMaxVectorDimensions) {
      return InvalidParameter("Number of dimensions must be between 1 and 4096 inclusive.");
    }
    const std::string& attr = v.vector_attribute.attribute_name;  // not defined: checked above
    for (const auto& i : out) {
      if (i.vector_attribute == attr && i.dimensions != static_cast<uint32_t>(v.dimensions)) {
        return InvalidParameter("Conflicting attribute definition for '" + attr +
                                "'. All VectorIndexes on the same vector attribute must use the "
                                "same dimensions.");
      }
    }
    DYNAROCK_RETURN_IF_ERROR(CheckProjection(v.projection));
    VectorIndexInfo info;
    info.name = v.index_name;
    info.vector_attribute = attr;
    info.dimensions = static_cast<uint32_t>(v.dimensions);
    info.distance = v.distance_function;
    info.projection = *v.projection.projection_type;
    info.non_key_attributes = v.projection.non_key_attributes;
    budget += info.non_key_attributes.size() + 1;  // the vector attribute counts once
    for (const auto& e : v.search_schema.value_or(std::vector<SearchSchemaElement>{})) {
      KeyAttribute k{e.attribute_name, *DefinedType(r, e.attribute_name)};
      const bool taken = (info.hash && info.hash->name == k.name) ||
                         std::any_of(info.inline_filters.begin(), info.inline_filters.end(),
                                     [&](const KeyAttribute& f) { return f.name == k.name; });
      if (taken) {
        return InvalidParameter("The SearchSchema contains multiple attributes with the same name");
      }
      if (e.search_schema_element_type == SearchSchemaElementType::kHash) {
        if (info.hash) {
          return InvalidParameter("The SearchSchema may contain at most one HASH attribute");
        }
        info.hash = std::move(k);
      } else {
        if (info.inline_filters.size() == kMaxInlineFilters) {
          return InvalidParameter(
              "The SearchSchema may contain at most 18 INLINE_FILTER "
              "attributes");
        }
        info.inline_filters.push_back(std::move(k));
        ++budget;
      }
    }
    out.push_back(std::move(info));
  }
  if (budget > 100) {
    return InvalidParameter(
        "The number of attributes in NonKeyAttributes, summed across all indexes, exceeds the "
        "maximum of 100");
  }
  return out;
}

// The indexes of a CreateTable, each checked, in the request's order (LSIs
// first); `include_total` counts their NonKeyAttributes.
class IndexesBuilder {
 public:
  explicit IndexesBuilder(const CreateTableRequest& r) : r_(r) {}

  Status Add(const std::string& name, const std::vector<KeySchemaElement>& ks,
             const Projection& projection, bool global) {
    for (const auto& existing : indexes_) {
      if (existing.name == name) return InvalidParameter("Duplicate index name: " + name);
    }
    DYNAROCK_RETURN_IF_ERROR(global ? CheckGlobalKeySchema(ks) : CheckKeySchema(ks));
    DYNAROCK_RETURN_IF_ERROR(CheckProjection(projection));
    if (projection.projection_type == ProjectionType::kInclude) {
      include_total_ += projection.non_key_attributes.size();
    }
    IndexInfo info;
    info.name = name;
    info.global = global;
    for (const auto& k : ks) {
      KeyAttribute a{k.attribute_name, *DefinedType(r_, k.attribute_name)};
      if (k.key_type == KeyType::kHash) {
        if (&k == &ks[0]) {
          info.partition_key = std::move(a);
        } else {
          info.more_partition_keys.push_back(std::move(a));
        }
      } else if (!info.sort_key) {
        info.sort_key = std::move(a);
      } else {
        info.more_sort_keys.push_back(std::move(a));
      }
    }
    info.projection = *projection.projection_type;
    info.non_key_attributes = projection.non_key_attributes;
    indexes_.push_back(std::move(info));
    return Status::OK();
  }

  Status AddLocal(const std::vector<LocalSecondaryIndex>& lsis) {
    const auto& table_keys = r_.key_schema;
    if (table_keys.size() < 2) {
      return InvalidParameter(
          "Table KeySchema does not have a range key, which is required when specifying a "
          "LocalSecondaryIndex");
    }
    if (lsis.size() > 5) {
      return InvalidParameter("Number of LocalSecondaryIndexes exceeds per-table limit of 5");
    }
    for (const auto& l : lsis) {
      if (l.key_schema.size() != 2 ||
          l.key_schema[0].attribute_name != table_keys[0].attribute_name) {
        return InvalidParameter(
            "Index KeySchema does not have the same leading hash key as table KeySchema for "
            "index: " +
            l.index_name + ". index hash key: " + l.key_schema[0].attribute_name +
            ", table hash key: " + table_keys[0].attribute_name);
      }
      DYNAROCK_RETURN_IF_ERROR(Add(l.index_name, l.key_schema, l.projection, false));
    }
    return Status::OK();
  }

  Status AddGlobal(const std::vector<GlobalSecondaryIndex>& gsis, BillingMode billing) {
    if (gsis.size() > 20) {
      return InvalidParameter("GlobalSecondaryIndex count exceeds the per-table limit of 20");
    }
    for (const auto& g : gsis) {
      if (billing == BillingMode::kProvisioned && !g.provisioned_throughput) {
        return InvalidParameter("ProvisionedThroughput must be specified for index: " +
                                g.index_name);
      }
      if (billing == BillingMode::kPayPerRequest && g.provisioned_throughput) {
        return InvalidParameter("ProvisionedThroughput should not be specified for index: " +
                                g.index_name + " when BillingMode is PAY_PER_REQUEST");
      }
      DYNAROCK_RETURN_IF_ERROR(CheckOnDemandThroughput(g.on_demand_throughput));
      DYNAROCK_RETURN_IF_ERROR(CheckWarmThroughput(g.warm_throughput));
      DYNAROCK_RETURN_IF_ERROR(Add(g.index_name, g.key_schema, g.projection, true));
      if (g.provisioned_throughput) indexes_.back().throughput = *g.provisioned_throughput;
      ApplyThroughputSettings(g.on_demand_throughput, g.warm_throughput, &indexes_.back().settings);
    }
    return Status::OK();
  }

  Result<std::vector<IndexInfo>> Finish() {
    if (include_total_ > 100) {
      return InvalidParameter(
          "The number of attributes in NonKeyAttributes, summed across all indexes, exceeds the "
          "maximum of 100");
    }
    return std::move(indexes_);
  }

 private:
  const CreateTableRequest& r_;
  std::vector<IndexInfo> indexes_;
  size_t include_total_ = 0;
};

Status CheckCreateStream(const std::optional<StreamSpecification>& spec) {
  if (!spec) return Status::OK();
  if (spec->stream_enabled && !spec->stream_view_type) {
    return InvalidParameter(
        "Table is being created with a stream enabled, UpdateViewType is required");
  }
  if (!spec->stream_enabled && spec->stream_view_type) {
    return InvalidParameter(
        "Table is being created with a stream disabled, UpdateViewType should not be "
        "specified");
  }
  return Status::OK();
}

}  // namespace

Result<TableInfo> ValidateCreateTable(const CreateTableRequest& r) {
  // The model's constraints were checked by the operation
  // (model::CheckModel): what follows are DynamoDB's semantic rules, in its order.
  const BillingMode billing = r.billing_mode.value_or(BillingMode::kProvisioned);
  DYNAROCK_RETURN_IF_ERROR(CheckBilling(r, billing));
  DYNAROCK_RETURN_IF_ERROR(CheckOnDemandThroughput(r.on_demand_throughput));
  DYNAROCK_RETURN_IF_ERROR(CheckWarmThroughput(r.warm_throughput));
  DYNAROCK_RETURN_IF_ERROR(CheckKeySchema(r.key_schema));
  DYNAROCK_RETURN_IF_ERROR(CheckAttributeDefinitions(r));
  IndexesBuilder indexes(r);
  if (r.local_secondary_indexes)
    DYNAROCK_RETURN_IF_ERROR(indexes.AddLocal(*r.local_secondary_indexes));
  if (r.global_secondary_indexes) {
    DYNAROCK_RETURN_IF_ERROR(indexes.AddGlobal(*r.global_secondary_indexes, billing));
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto built, indexes.Finish());
  DYNAROCK_ASSIGN_OR_RETURN(auto vectors, CheckVectorIndexes(r, billing, built));
  DYNAROCK_RETURN_IF_ERROR(CheckCreateStream(r.stream_specification));
  if (r.resource_policy) DYNAROCK_RETURN_IF_ERROR(CheckResourcePolicyDocument(*r.resource_policy));

  TableInfo t;
  t.name = r.table_name;
  const auto& ks = r.key_schema;
  t.partition_key = {ks[0].attribute_name, *DefinedType(r, ks[0].attribute_name)};
  if (ks.size() == 2)
    t.sort_key = KeyAttribute{ks[1].attribute_name, *DefinedType(r, ks[1].attribute_name)};
  t.attribute_definitions = r.attribute_definitions;
  t.indexes = std::move(built);
  t.vector_indexes = std::move(vectors);
  t.billing_mode = billing;
  if (r.provisioned_throughput) t.throughput = *r.provisioned_throughput;
  ApplyThroughputSettings(r.on_demand_throughput, r.warm_throughput, &t.settings);
  return t;
}

namespace {
std::string ScalarName(ScalarAttributeType t) { return std::string(1, "SNB"[static_cast<int>(t)]); }
}  // namespace

namespace {

// The CreateTable request that declares `table` as it is now, with
// `new_definitions` (an UpdateTable's AttributeDefinitions) merged into its
// attribute definitions: UpdateTable checks an index it adds as CreateTable
// would check this request with the index in it.
Result<CreateTableRequest> AsCreateRequest(
    const TableInfo& table,
    const std::optional<std::vector<AttributeDefinition>>& new_definitions) {
  CreateTableRequest r;
  r.table_name = table.name;
  r.key_schema.push_back({table.partition_key.name, KeyType::kHash});
  if (table.sort_key) r.key_schema.push_back({table.sort_key->name, KeyType::kRange});
  r.attribute_definitions = table.attribute_definitions;
  if (new_definitions) {
    for (const auto& d : *new_definitions) {
      auto known = table.DefinedType(d.attribute_name);
      if (known && *known != d.attribute_type) {
        return InvalidParameter("Attributes cannot be redefined: " + d.attribute_name +
                                " is defined as " + ScalarName(*known) + ", not " +
                                ScalarName(d.attribute_type));
      }
      if (!known) r.attribute_definitions.push_back(d);
    }
  }
  r.billing_mode = table.billing_mode;
  const bool provisioned = table.billing_mode == BillingMode::kProvisioned;
  if (provisioned) r.provisioned_throughput = table.throughput;
  for (const auto& i : table.indexes) {
    Projection projection{i.projection, i.non_key_attributes};
    if (i.global) {
      if (!r.global_secondary_indexes) r.global_secondary_indexes.emplace();
      r.global_secondary_indexes->push_back(
          {i.name, i.key_schema(), projection,
           provisioned ? std::optional(i.throughput) : std::nullopt});
    } else {
      if (!r.local_secondary_indexes) r.local_secondary_indexes.emplace();
      r.local_secondary_indexes->push_back({i.name, i.key_schema(), projection});
    }
  }
  for (const auto& v : table.vector_indexes) {
    if (!r.vector_indexes) r.vector_indexes.emplace();
    std::vector<SearchSchemaElement> schema = v.search_schema();
    r.vector_indexes->push_back({v.name,
                                 {v.vector_attribute},
                                 static_cast<int64_t>(v.dimensions),
                                 v.distance,
                                 Projection{v.projection, v.non_key_attributes},
                                 schema.empty() ? std::nullopt : std::optional(std::move(schema))});
  }
  return r;
}

// Keeps the attribute definitions a key schema or search schema of `r`
// names: an UpdateTable may define attributes no index uses.
void KeepUsedDefinitions(CreateTableRequest* r) {
  std::set<std::string> used;
  auto add = [&used](const std::vector<KeySchemaElement>& ks) {
    for (const auto& k : ks) used.insert(k.attribute_name);
  };
  add(r->key_schema);
  if (r->local_secondary_indexes) {
    for (const auto& l : *r->local_secondary_indexes) add(l.key_schema);
  }
  if (r->global_secondary_indexes) {
    for (const auto& g : *r->global_secondary_indexes) add(g.key_schema);
  }
  if (r->vector_indexes) {
    for (const auto& v : *r->vector_indexes) {
      for (const auto& e : v.search_schema.value_or(std::vector<SearchSchemaElement>{})) {
        used.insert(e.attribute_name);
      }
    }
  }
  std::erase_if(r->attribute_definitions,
                [&used](const AttributeDefinition& d) { return !used.count(d.attribute_name); });
}

}  // namespace

Result<NewGlobalIndex> ValidateNewGlobalIndex(
    const TableInfo& table, const CreateGlobalSecondaryIndexAction& create,
    const std::optional<std::vector<AttributeDefinition>>& new_definitions) {
  DYNAROCK_ASSIGN_OR_RETURN(CreateTableRequest check, AsCreateRequest(table, new_definitions));
  if (table.FindIndex(create.index_name) || table.FindVectorIndex(create.index_name)) {
    return Status::Validation("Attempting to create an index which already exists");
  }
  if (!check.global_secondary_indexes) check.global_secondary_indexes.emplace();
  check.global_secondary_indexes->push_back({create.index_name, create.key_schema,
                                             create.projection, create.provisioned_throughput,
                                             create.on_demand_throughput, create.warm_throughput});
  KeepUsedDefinitions(&check);
  DYNAROCK_ASSIGN_OR_RETURN(TableInfo validated, ValidateCreateTable(check));
  return NewGlobalIndex{*validated.FindIndex(create.index_name),
                        std::move(validated.attribute_definitions)};
}

Result<NewVectorIndex> ValidateNewVectorIndex(
    const TableInfo& table, const VectorIndex& create,
    const std::optional<std::vector<AttributeDefinition>>& new_definitions) {
  if (const VectorIndexInfo* v = table.FindVectorIndex(create.index_name); v && v->backfilling) {
    return Status::ResourceInUse(
        "Attempt to change a resource which is still in use: Index is being created.  Table: " +
        table.name + " Index: " + create.index_name);
  }
  if (table.FindIndex(create.index_name) || table.FindVectorIndex(create.index_name)) {
    return Status::Validation("Attempting to create an index which already exists");
  }
  if (table.vector_indexes.size() >= kMaxVectorIndexes) {
    return Status::LimitExceeded(
        "Subscriber limit exceeded: Number of vector secondary indexes exceeds per-table limit "
        "of 5");
  }
  // Its search attributes are defined in this request, as a new GSI's keys.
  for (const auto& e : create.search_schema.value_or(std::vector<SearchSchemaElement>{})) {
    const bool defined =
        new_definitions && std::any_of(new_definitions->begin(), new_definitions->end(),
                                       [&e](const AttributeDefinition& d) {
                                         return d.attribute_name == e.attribute_name;
                                       });
    if (!defined) {
      return InvalidParameter(
          "One element in SearchSchema is not defined in attribute definitions");
    }
  }
  DYNAROCK_ASSIGN_OR_RETURN(CreateTableRequest check, AsCreateRequest(table, new_definitions));
  if (!check.vector_indexes) check.vector_indexes.emplace();
  check.vector_indexes->push_back(create);
  // The vector attribute must not be defined (before the unused
  // definitions go, so the request's own definition of it is seen).
  const std::string& attr = create.vector_attribute.attribute_name;
  if (std::any_of(check.attribute_definitions.begin(), check.attribute_definitions.end(),
                  [&attr](const AttributeDefinition& d) { return d.attribute_name == attr; })) {
    return InvalidParameter("Conflicting attribute definition for '" + attr +
                            "'. An attribute cannot be defined in AttributeDefinitions when used "
                            "as a VectorAttribute.");
  }
  KeepUsedDefinitions(&check);
  DYNAROCK_ASSIGN_OR_RETURN(TableInfo validated, ValidateCreateTable(check));
  return NewVectorIndex{std::move(validated.vector_indexes.back()),
                        std::move(validated.attribute_definitions)};
}

std::optional<std::string_view> TableArnResource(std::string_view arn) {
  constexpr std::string_view kPrefix = "arn:aws:dynamodb:";
  if (!arn.starts_with(kPrefix)) return std::nullopt;
  arn.remove_prefix(kPrefix.size());
  const size_t region_end = arn.find(':');
  if (region_end == 0 || region_end == std::string_view::npos) return std::nullopt;
  arn.remove_prefix(region_end + 1);
  const size_t account_end = arn.find(':');
  if (account_end == 0 || account_end == std::string_view::npos) return std::nullopt;
  for (char c : arn.substr(0, account_end)) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  arn.remove_prefix(account_end + 1);
  constexpr std::string_view kTable = "table/";
  if (!arn.starts_with(kTable)) return std::nullopt;
  return arn.substr(kTable.size());
}

std::string TableArn(std::string_view region, std::string_view account_id,
                     std::string_view table_name) {
  std::string arn = "arn:aws:dynamodb:";
  arn.append(region).append(":").append(account_id).append(":table/").append(table_name);
  return arn;
}

namespace {

// Described once a maximum was set: the other one, if unset, as -1 (no
// maximum), as DynamoDB's API documents -1.
std::optional<OnDemandThroughput> DescribeOnDemand(const ThroughputSettings& s) {
  if (s.max_read_request_units == 0 && s.max_write_request_units == 0) return std::nullopt;
  auto value = [](int64_t v) { return v == 0 ? int64_t{-1} : v; };
  return OnDemandThroughput{value(s.max_read_request_units), value(s.max_write_request_units)};
}

// Described once given: the values given.
std::optional<WarmThroughput> DescribeWarm(const ThroughputSettings& s) {
  if (s.warm_read_units == 0 && s.warm_write_units == 0) return std::nullopt;
  WarmThroughput w;
  if (s.warm_read_units) w.read_units_per_second = s.warm_read_units;
  if (s.warm_write_units) w.write_units_per_second = s.warm_write_units;
  return w;
}

}  // namespace

TableDescription Describe(const TableInfo& t, std::string_view region,
                          std::string_view account_id) {
  TableDescription d;
  d.table_name = t.name;
  d.table_id = t.uuid;
  d.table_arn = TableArn(region, account_id, t.name);
  // A GSI being backfilled keeps the table UPDATING (and available).
  d.table_status = TableStatus::kActive;
  for (const auto& i : t.indexes) {
    if (i.backfilling) d.table_status = TableStatus::kUpdating;
  }
  // DynamoDB answers AttributeDefinitions sorted by name, whatever order
  // they were given in (a live probe of DescribeTable, 2026); KeySchemas
  // keep the order given.
  d.attribute_definitions = t.attribute_definitions;
  std::sort(d.attribute_definitions.begin(), d.attribute_definitions.end(),
            [](const AttributeDefinition& a, const AttributeDefinition& b) {
              return a.attribute_name < b.attribute_name;
            });
  d.key_schema.push_back({t.partition_key.name, KeyType::kHash});
  if (t.sort_key) d.key_schema.push_back({t.sort_key->name, KeyType::kRange});
  d.creation_date_time = static_cast<double>(t.creation_time_ms) / 1000.0;
  d.billing_mode = t.billing_mode;
  if (t.pay_per_request_since_ms != 0) {
    d.last_update_to_pay_per_request_date_time =
        static_cast<double>(t.pay_per_request_since_ms) / 1000.0;
  }
  d.provisioned_throughput = t.throughput;
  d.deletion_protection_enabled = t.deletion_protection;
  if (t.table_class_since_ms != 0) {
    d.table_class_summary =
        TableClassSummary{t.table_class, static_cast<double>(t.table_class_since_ms) / 1000.0};
  }
  d.on_demand_throughput = DescribeOnDemand(t.settings);
  if (auto warm = DescribeWarm(t.settings)) {
    d.warm_throughput =
        TableWarmThroughputDescription{warm->read_units_per_second, warm->write_units_per_second};
  }
  if (t.stream) {
    d.latest_stream_arn = d.table_arn + "/stream/" + t.stream->label;
    d.latest_stream_label = t.stream->label;
    if (t.stream->enabled) d.stream_specification = StreamSpecification{true, t.stream->view_type};
  }
  for (const auto& v : t.vector_indexes) {
    if (!d.vector_indexes) d.vector_indexes.emplace();
    VectorIndexDescription x;
    x.index_name = v.name;
    x.vector_attribute.attribute_name = v.vector_attribute;
    x.dimensions = v.dimensions;
    x.distance_function = v.distance;
    if (v.hash || !v.inline_filters.empty()) x.search_schema = v.search_schema();
    x.projection = {v.projection, v.non_key_attributes};
    x.index_status = v.backfilling ? IndexStatus::kCreating : IndexStatus::kActive;
    if (v.backfilling) {
      x.backfilling = true;
      d.table_status = TableStatus::kUpdating;
    }
    x.index_arn = d.table_arn + "/index/" + v.name;
    d.vector_indexes->push_back(std::move(x));
  }
  for (const auto& i : t.indexes) {
    std::vector<KeySchemaElement> ks = i.key_schema();
    Projection projection{i.projection, i.non_key_attributes};
    std::string arn = d.table_arn + "/index/" + i.name;
    if (i.global) {
      if (!d.global_secondary_indexes) d.global_secondary_indexes.emplace();
      GlobalSecondaryIndexDescription g;
      g.index_name = i.name;
      g.key_schema = std::move(ks);
      g.projection = std::move(projection);
      g.index_status = i.backfilling ? IndexStatus::kCreating : IndexStatus::kActive;
      g.backfilling = i.backfilling;
      g.provisioned_throughput = i.throughput;
      g.index_arn = std::move(arn);
      g.on_demand_throughput = DescribeOnDemand(i.settings);
      if (auto warm = DescribeWarm(i.settings)) {
        g.warm_throughput = GlobalSecondaryIndexWarmThroughputDescription{
            warm->read_units_per_second, warm->write_units_per_second};
      }
      d.global_secondary_indexes->push_back(std::move(g));
    } else {
      if (!d.local_secondary_indexes) d.local_secondary_indexes.emplace();
      LocalSecondaryIndexDescription l;
      l.index_name = i.name;
      l.key_schema = std::move(ks);
      l.projection = std::move(projection);
      l.index_arn = std::move(arn);
      d.local_secondary_indexes->push_back(std::move(l));
    }
  }
  return d;
}

std::string NewUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ull) | 0x4000ull;        // version 4
  lo = (lo & ~(3ull << 62)) | (2ull << 62);  // variant 10
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

}  // namespace dynarock
