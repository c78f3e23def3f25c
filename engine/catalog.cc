#include "engine/catalog.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

#include "engine/validation.h"
#include "format/vector.h"
#include "schemas/catalog_generated.h"

namespace dynarock {
namespace {

constexpr uint8_t kDescriptorVersion = 1;

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

Result<NewGlobalIndex> ValidateNewGlobalIndex(
    const TableInfo& table, const CreateGlobalSecondaryIndexAction& create,
    const std::optional<std::vector<AttributeDefinition>>& new_definitions) {
  // Validate the new index as CreateTable would, against the table's
  // keys and the merged attribute definitions.
  CreateTableRequest check;
  check.table_name = table.name;
  check.key_schema.push_back({table.partition_key.name, KeyType::kHash});
  if (table.sort_key) check.key_schema.push_back({table.sort_key->name, KeyType::kRange});
  check.attribute_definitions = table.attribute_definitions;
  if (new_definitions) {
    for (const auto& d : *new_definitions) {
      auto known = table.DefinedType(d.attribute_name);
      if (known && *known != d.attribute_type) {
        return InvalidParameter("Attributes cannot be redefined: " + d.attribute_name +
                                " is defined as " + ScalarName(*known) + ", not " +
                                ScalarName(d.attribute_type));
      }
      if (!known) check.attribute_definitions.push_back(d);
    }
  }
  check.billing_mode = table.billing_mode;
  if (table.billing_mode == BillingMode::kProvisioned)
    check.provisioned_throughput = table.throughput;
  check.global_secondary_indexes.emplace();
  for (const auto& existing : table.indexes) {
    if (existing.name == create.index_name) {
      return Status::Validation("Attempting to create an index which already exists");
    }
  }
  check.global_secondary_indexes->push_back({create.index_name, create.key_schema,
                                             create.projection, create.provisioned_throughput,
                                             create.on_demand_throughput, create.warm_throughput});
  // Only the key attributes of the table and its indexes may be defined.
  std::vector<AttributeDefinition> used;
  for (const auto& d : check.attribute_definitions) {
    bool is_key = d.attribute_name == table.partition_key.name ||
                  (table.sort_key && d.attribute_name == table.sort_key->name);
    for (const auto& k : create.key_schema) is_key |= k.attribute_name == d.attribute_name;
    for (const auto& i : table.indexes) is_key |= i.IsKeyAttribute(d.attribute_name);
    if (is_key) used.push_back(d);
  }
  check.attribute_definitions = used;
  // Existing LSIs/GSIs take part in the definitions count check.
  for (const auto& i : table.indexes) {
    std::vector<KeySchemaElement> ks = i.key_schema();
    if (i.global) {
      check.global_secondary_indexes->push_back(
          {i.name,
           ks,
           {i.projection, i.non_key_attributes},
           table.billing_mode == BillingMode::kProvisioned ? std::optional(i.throughput)
                                                          : std::nullopt});
    } else {
      if (!check.local_secondary_indexes) check.local_secondary_indexes.emplace();
      check.local_secondary_indexes->push_back(
          {i.name, ks, {i.projection, i.non_key_attributes}});
    }
  }
  DYNAROCK_ASSIGN_OR_RETURN(TableInfo validated, ValidateCreateTable(check));
  return NewGlobalIndex{*validated.FindIndex(create.index_name),
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

std::string EncodeFormatRecord(uint32_t version) {
  std::string out(kFormatMagic);
  format::PutFixed32BE(&out, version);
  return out;
}

Result<uint32_t> DecodeFormatRecord(std::string_view bytes) {
  uint32_t version = 0;
  if (bytes.size() != kFormatMagic.size() + 4 || !bytes.starts_with(kFormatMagic)) {
    return Status::Corruption("catalog: the format record is not Dynarock's");
  }
  bytes.remove_prefix(kFormatMagic.size());
  if (!format::GetFixed32BE(&bytes, &version)) {
    return Status::Corruption("catalog: the format record is not Dynarock's");
  }
  return version;
}

std::string CatalogTableKey(std::string_view table_name) {
  return std::string(kCatalogTablePrefix) + std::string(table_name);
}

// Enum values stored in descriptors (schemas/catalog.fbs) are on disk.
static_assert(static_cast<int>(fb::ScalarType::S) == static_cast<int>(ScalarAttributeType::kS) &&
              static_cast<int>(fb::ScalarType::N) == static_cast<int>(ScalarAttributeType::kN) &&
              static_cast<int>(fb::ScalarType::B) == static_cast<int>(ScalarAttributeType::kB));
static_assert(static_cast<int>(DistanceFunction::kCosine) == 0 &&
              static_cast<int>(DistanceFunction::kEuclidean) == 1 &&
              static_cast<int>(DistanceFunction::kDotProduct) == 2);  // VectorIndexDescriptor
static_assert(static_cast<int>(TableClass::kStandard) == 0 &&
              static_cast<int>(TableClass::kStandardInfrequentAccess) == 1);  // catalog.fbs
static_assert(static_cast<int>(ProjectionType::kKeysOnly) == 0 &&
              static_cast<int>(ProjectionType::kInclude) == 1 &&
              static_cast<int>(ProjectionType::kAll) == 2);  // catalog.fbs: IndexDescriptor.projection

namespace {

// Written only when set (storage format 16): a descriptor without them is
// byte for byte version 15's.
template <typename Builder>
void AddSettings(Builder& b, const ThroughputSettings& s) {
  if (s.max_read_request_units) b.add_max_read_request_units(s.max_read_request_units);
  if (s.max_write_request_units) b.add_max_write_request_units(s.max_write_request_units);
  if (s.warm_read_units) b.add_warm_read_units(s.warm_read_units);
  if (s.warm_write_units) b.add_warm_write_units(s.warm_write_units);
}

template <typename Descriptor>
Result<ThroughputSettings> SettingsOf(const Descriptor* d) {
  ThroughputSettings s{d->max_read_request_units(), d->max_write_request_units(),
                       d->warm_read_units(), d->warm_write_units()};
  if (s.max_read_request_units < 0 || s.max_write_request_units < 0 || s.warm_read_units < 0 ||
      s.warm_write_units < 0) {
    return Status::Corruption("catalog: negative throughput setting");
  }
  return s;
}

}  // namespace

std::string EncodeTableDescriptor(const TableInfo& t) {
  flatbuffers::FlatBufferBuilder b(256);
  std::vector<flatbuffers::Offset<fb::AttributeDefinition>> defs;
  for (const auto& d : t.attribute_definitions) {
    defs.push_back(fb::CreateAttributeDefinition(b, b.CreateString(d.attribute_name),
                                                 static_cast<fb::ScalarType>(d.attribute_type)));
  }
  auto defs_offset = b.CreateVector(defs);
  std::vector<flatbuffers::Offset<fb::IndexDescriptor>> index_offsets;
  for (const auto& i : t.indexes) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> nka;
    for (const auto& a : i.non_key_attributes) nka.push_back(b.CreateString(a));
    auto nka_offset = b.CreateVector(nka);
    auto iname = b.CreateString(i.name);
    auto ipk = b.CreateString(i.partition_key.name);
    flatbuffers::Offset<flatbuffers::String> isk;
    if (i.sort_key) isk = b.CreateString(i.sort_key->name);
    // Written only for a multi-attribute GSI (storage format 15).
    auto names_of = [&](const std::vector<KeyAttribute>& keys) {
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> out;
      if (keys.empty()) return out;
      std::vector<flatbuffers::Offset<flatbuffers::String>> names;
      for (const auto& k : keys) names.push_back(b.CreateString(k.name));
      return b.CreateVector(names);
    };
    auto more_pk = names_of(i.more_partition_keys);
    auto more_sk = names_of(i.more_sort_keys);
    fb::IndexDescriptorBuilder ib(b);
    ib.add_name(iname);
    ib.add_space_id(i.space_id);
    ib.add_global(i.global);
    ib.add_partition_key(ipk);
    if (i.sort_key) ib.add_sort_key(isk);
    if (!i.more_partition_keys.empty()) ib.add_more_partition_keys(more_pk);
    if (!i.more_sort_keys.empty()) ib.add_more_sort_keys(more_sk);
    ib.add_projection(static_cast<uint8_t>(i.projection));
    ib.add_non_key_attributes(nka_offset);
    ib.add_read_capacity_units(i.throughput.read_capacity_units);
    ib.add_write_capacity_units(i.throughput.write_capacity_units);
    ib.add_backfilling(i.backfilling);
    AddSettings(ib, i.settings);
    index_offsets.push_back(ib.Finish());
  }
  auto indexes_offset = b.CreateVector(index_offsets);
  std::vector<flatbuffers::Offset<fb::VectorIndexDescriptor>> vector_offsets;
  for (const auto& v : t.vector_indexes) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> filters, nka;
    for (const auto& f : v.inline_filters) filters.push_back(b.CreateString(f.name));
    for (const auto& a : v.non_key_attributes) nka.push_back(b.CreateString(a));
    auto filters_offset = b.CreateVector(filters);
    auto nka_offset = b.CreateVector(nka);
    auto vname = b.CreateString(v.name);
    auto vattr = b.CreateString(v.vector_attribute);
    flatbuffers::Offset<flatbuffers::String> hash;
    if (v.hash) hash = b.CreateString(v.hash->name);
    fb::VectorIndexDescriptorBuilder vb(b);
    vb.add_name(vname);
    vb.add_space_id(v.space_id);
    vb.add_vector_attribute(vattr);
    vb.add_dimensions(v.dimensions);
    vb.add_distance(static_cast<uint8_t>(v.distance));
    if (v.hash) vb.add_hash_attribute(hash);
    vb.add_inline_filters(filters_offset);
    vb.add_projection(static_cast<uint8_t>(v.projection));
    vb.add_non_key_attributes(nka_offset);
    vb.add_backfilling(v.backfilling);
    vector_offsets.push_back(vb.Finish());
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::VectorIndexDescriptor>>>
      vectors_offset;
  if (!vector_offsets.empty()) vectors_offset = b.CreateVector(vector_offsets);
  flatbuffers::Offset<flatbuffers::String> ttl;
  if (t.ttl_attribute) ttl = b.CreateString(*t.ttl_attribute);
  std::vector<flatbuffers::Offset<fb::Tag>> tag_offsets;
  for (const auto& [k, v] : t.tags) {
    // One statement each: the order of function arguments' evaluation is
    // unspecified (gcc and clang differ), and so would the bytes be.
    auto key = b.CreateString(k);
    auto value = b.CreateString(v);
    tag_offsets.push_back(fb::CreateTag(b, key, value));
  }
  auto tags_offset = b.CreateVector(tag_offsets);
  flatbuffers::Offset<flatbuffers::String> stream_label;
  if (t.stream) stream_label = b.CreateString(t.stream->label);
  auto name = b.CreateString(t.name);
  auto uuid = b.CreateString(t.uuid);
  auto pk = b.CreateString(t.partition_key.name);
  flatbuffers::Offset<flatbuffers::String> sk;
  if (t.sort_key) sk = b.CreateString(t.sort_key->name);
  auto policy_of = [&](const std::optional<AttachedPolicy>& p) {
    flatbuffers::Offset<fb::ResourcePolicy> out;
    if (!p) return out;
    auto document = b.CreateString(p->document);
    auto revision = b.CreateString(p->revision_id);
    auto label = p->stream_label.empty() ? 0 : b.CreateString(p->stream_label);
    return fb::CreateResourcePolicy(b, document, revision, label);
  };
  auto policy = policy_of(t.policy);
  auto stream_policy = policy_of(t.stream_policy);
  fb::TableDescriptorBuilder d(b);
  d.add_format_version(kDescriptorVersion);
  d.add_name(name);
  d.add_space_id(t.space_id);
  d.add_uuid(uuid);
  d.add_partition_key(pk);
  if (t.sort_key) d.add_sort_key(sk);
  d.add_attribute_definitions(defs_offset);
  d.add_billing(t.billing_mode == BillingMode::kPayPerRequest ? fb::Billing::PayPerRequest
                                                              : fb::Billing::Provisioned);
  d.add_read_capacity_units(t.throughput.read_capacity_units);
  d.add_write_capacity_units(t.throughput.write_capacity_units);
  d.add_creation_time_ms(t.creation_time_ms);
  d.add_indexes(indexes_offset);
  if (!t.vector_indexes.empty()) d.add_vector_indexes(vectors_offset);
  if (t.ttl_attribute) d.add_ttl_attribute(ttl);
  d.add_ttl_enabled(t.ttl_enabled);
  d.add_ttl_changed_ms(t.ttl_changed_ms);
  d.add_pay_per_request_since_ms(t.pay_per_request_since_ms);
  d.add_pitr_enabled(t.pitr_enabled);
  d.add_pitr_enabled_ms(t.pitr_enabled_ms);
  // 35, the default, is stored as 0 (absent), so older descriptors read the same.
  d.add_pitr_recovery_days(t.pitr_recovery_days == 35 ? 0 : t.pitr_recovery_days);
  d.add_deletion_protection(t.deletion_protection);
  if (policy.o != 0) d.add_policy(policy);
  if (stream_policy.o != 0) d.add_stream_policy(stream_policy);
  d.add_table_class(static_cast<uint8_t>(t.table_class));
  d.add_table_class_since_ms(t.table_class_since_ms);
  AddSettings(d, t.settings);
  d.add_tags(tags_offset);
  if (t.stream) {
    d.add_latest_stream_id(t.stream->id);
    d.add_stream_enabled(t.stream->enabled);
    d.add_stream_view_type(static_cast<uint8_t>(t.stream->view_type));
    d.add_stream_label(stream_label);
  }
  b.Finish(d.Finish(), fb::TableDescriptorIdentifier());
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

namespace {

// A copy of catalog bytes, aligned for FlatBuffers' verifier: the catalog is
// read once at open, the copy's cost is irrelevant.
struct AlignedCopy {
  explicit AlignedCopy(std::string_view bytes) : words((bytes.size() + 3) / 4), size(bytes.size()) {
    if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words.data()); }
  std::vector<uint32_t> words;
  size_t size;
};

}  // namespace

Result<TableInfo> DecodeTableDescriptor(std::string_view bytes) {
  const AlignedCopy aligned(bytes);
  const uint8_t* data = aligned.data();
  flatbuffers::Verifier verifier(data, aligned.size);
  if (!fb::VerifyTableDescriptorBuffer(verifier)) {
    return Status::Corruption("catalog: invalid table descriptor");
  }
  const fb::TableDescriptor* d = fb::GetTableDescriptor(data);
  if (d->format_version() != kDescriptorVersion) {
    return Status::Corruption("catalog: unsupported descriptor version " +
                              std::to_string(d->format_version()));
  }
  TableInfo t;
  t.name = d->name()->str();
  t.space_id = d->space_id();
  t.uuid = d->uuid() ? d->uuid()->str() : "";
  if (d->attribute_definitions()) {
    for (const auto* a : *d->attribute_definitions()) {
      if (static_cast<int>(a->type()) > 2) return Status::Corruption("catalog: bad attribute type");
      t.attribute_definitions.push_back(
          {a->name()->str(), static_cast<ScalarAttributeType>(a->type())});
    }
  }
  auto type_of = [&](const std::string& name) -> Result<ScalarAttributeType> {
    for (const auto& a : t.attribute_definitions) {
      if (a.attribute_name == name) return a.attribute_type;
    }
    return Status::Corruption("catalog: key attribute without definition: " + name);
  };
  DYNAROCK_ASSIGN_OR_RETURN(auto pk_type, type_of(d->partition_key()->str()));
  t.partition_key = {d->partition_key()->str(), pk_type};
  if (d->sort_key()) {
    DYNAROCK_ASSIGN_OR_RETURN(auto sk_type, type_of(d->sort_key()->str()));
    t.sort_key = KeyAttribute{d->sort_key()->str(), sk_type};
  }
  t.billing_mode = d->billing() == fb::Billing::PayPerRequest ? BillingMode::kPayPerRequest
                                                              : BillingMode::kProvisioned;
  t.throughput = {d->read_capacity_units(), d->write_capacity_units()};
  t.creation_time_ms = d->creation_time_ms();
  if (d->indexes()) {
    for (const auto* x : *d->indexes()) {
      IndexInfo i;
      i.name = x->name()->str();
      i.space_id = x->space_id();
      i.global = x->global();
      DYNAROCK_ASSIGN_OR_RETURN(auto ipk, type_of(x->partition_key()->str()));
      i.partition_key = {x->partition_key()->str(), ipk};
      if (x->sort_key()) {
        DYNAROCK_ASSIGN_OR_RETURN(auto isk, type_of(x->sort_key()->str()));
        i.sort_key = KeyAttribute{x->sort_key()->str(), isk};
      }
      auto more_of = [&](const auto* names, std::vector<KeyAttribute>* out) -> Status {
        if (names == nullptr) return Status::OK();
        if (names->size() + 1 > kMaxIndexPartitionKeys) {
          return Status::Corruption("catalog: too many index key attributes");
        }
        for (const auto* n : *names) {
          DYNAROCK_ASSIGN_OR_RETURN(auto type, type_of(n->str()));
          out->push_back({n->str(), type});
        }
        return Status::OK();
      };
      DYNAROCK_RETURN_IF_ERROR(more_of(x->more_partition_keys(), &i.more_partition_keys));
      DYNAROCK_RETURN_IF_ERROR(more_of(x->more_sort_keys(), &i.more_sort_keys));
      if (!i.sort_key && !i.more_sort_keys.empty()) {
        return Status::Corruption("catalog: index sort components without a sort key");
      }
      if (x->projection() > 2) return Status::Corruption("catalog: bad projection type");
      i.projection = static_cast<ProjectionType>(x->projection());
      if (x->non_key_attributes()) {
        for (const auto* a : *x->non_key_attributes()) i.non_key_attributes.push_back(a->str());
      }
      i.throughput = {x->read_capacity_units(), x->write_capacity_units()};
      i.backfilling = x->backfilling();
      DYNAROCK_ASSIGN_OR_RETURN(i.settings, SettingsOf(x));
      t.indexes.push_back(std::move(i));
    }
  }
  if (d->ttl_attribute()) t.ttl_attribute = d->ttl_attribute()->str();
  t.ttl_enabled = d->ttl_enabled();
  t.ttl_changed_ms = d->ttl_changed_ms();
  t.pay_per_request_since_ms = d->pay_per_request_since_ms();
  t.pitr_enabled = d->pitr_enabled();
  t.pitr_enabled_ms = d->pitr_enabled_ms();
  t.pitr_recovery_days = d->pitr_recovery_days() == 0 ? 35 : d->pitr_recovery_days();
  t.deletion_protection = d->deletion_protection();
  if (d->table_class() > static_cast<uint8_t>(TableClass::kStandardInfrequentAccess)) {
    return Status::Corruption("table descriptor: bad table class");
  }
  t.table_class = static_cast<TableClass>(d->table_class());
  t.table_class_since_ms = d->table_class_since_ms();
  DYNAROCK_ASSIGN_OR_RETURN(t.settings, SettingsOf(d));
  auto policy_from = [](const fb::ResourcePolicy* p) -> std::optional<AttachedPolicy> {
    if (p == nullptr) return std::nullopt;
    return AttachedPolicy{p->document()->str(), p->revision_id()->str(),
                          p->stream_label() ? p->stream_label()->str() : ""};
  };
  t.policy = policy_from(d->policy());
  t.stream_policy = policy_from(d->stream_policy());
  if (d->vector_indexes()) {
    for (const auto* x : *d->vector_indexes()) {
      VectorIndexInfo v;
      v.name = x->name()->str();
      v.space_id = x->space_id();
      v.vector_attribute = x->vector_attribute()->str();
      v.dimensions = x->dimensions();
      if (v.dimensions < 1 || v.dimensions > format::kMaxVectorDimensions || x->distance() > 2 ||
          x->projection() > 2) {
        return Status::Corruption("catalog: bad vector index " + v.name);
      }
      v.distance = static_cast<DistanceFunction>(x->distance());
      if (x->hash_attribute()) {
        DYNAROCK_ASSIGN_OR_RETURN(auto type, type_of(x->hash_attribute()->str()));
        v.hash = KeyAttribute{x->hash_attribute()->str(), type};
      }
      if (x->inline_filters()) {
        for (const auto* f : *x->inline_filters()) {
          DYNAROCK_ASSIGN_OR_RETURN(auto type, type_of(f->str()));
          v.inline_filters.push_back({f->str(), type});
        }
      }
      v.projection = static_cast<ProjectionType>(x->projection());
      if (x->non_key_attributes()) {
        for (const auto* a : *x->non_key_attributes()) v.non_key_attributes.push_back(a->str());
      }
      v.backfilling = x->backfilling();
      t.vector_indexes.push_back(std::move(v));
    }
  }
  if (t.pitr_recovery_days < 1 || t.pitr_recovery_days > 35) {
    return Status::Corruption("table descriptor: RecoveryPeriodInDays " +
                              std::to_string(t.pitr_recovery_days));
  }
  if (d->tags()) {
    for (const auto* tag : *d->tags()) t.tags[tag->key()->str()] = tag->value() ? tag->value()->str() : "";
  }
  if (d->latest_stream_id() != 0) {
    if (d->stream_view_type() > 3 || !d->stream_label()) {
      return Status::Corruption("catalog: bad stream of table " + t.name);
    }
    t.stream =
        TableInfo::Stream{d->latest_stream_id(), static_cast<StreamViewType>(d->stream_view_type()),
                          d->stream_label()->str(), d->stream_enabled()};
  }
  return t;
}

std::string TtlCursorKey(uint32_t space_id) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", space_id);
  return std::string("ttl_cursor/") + hex;
}

std::string BackfillCursorKey(uint32_t index_space_id) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", index_space_id);
  return std::string("backfill_cursor/") + hex;
}

std::string InternedNamesPrefix(uint32_t space_id) {
  char hex[10];
  std::snprintf(hex, sizeof hex, "%08x/", space_id);
  return std::string(kCatalogNamesPrefix) + hex;
}

std::string InternedNameKey(uint32_t space_id, uint32_t id) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", id);
  return InternedNamesPrefix(space_id) + hex;
}

std::string CatalogStreamKey(uint32_t stream_id) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", stream_id);
  return std::string(kCatalogStreamPrefix) + hex;
}

static_assert(static_cast<int>(StreamViewType::kKeysOnly) == 0 &&
              static_cast<int>(StreamViewType::kNewImage) == 1 &&
              static_cast<int>(StreamViewType::kOldImage) == 2 &&
              static_cast<int>(StreamViewType::kNewAndOldImages) == 3);  // catalog.fbs

std::string EncodeStreamDescriptor(const StreamInfo& s) {
  flatbuffers::FlatBufferBuilder b(256);
  std::vector<flatbuffers::Offset<fb::ShardDescriptor>> shards;
  for (const auto& shard : s.shards) {
    auto id = b.CreateString(shard.id);
    flatbuffers::Offset<flatbuffers::String> parent;
    if (!shard.parent_id.empty()) parent = b.CreateString(shard.parent_id);
    fb::ShardDescriptorBuilder sb(b);
    sb.add_id(id);
    if (!shard.parent_id.empty()) sb.add_parent_id(parent);
    sb.add_start(shard.start);
    sb.add_end(shard.end);
    shards.push_back(sb.Finish());
  }
  auto shards_offset = b.CreateVector(shards);
  auto table = b.CreateString(s.table_name);
  auto label = b.CreateString(s.label);
  auto pk = b.CreateString(s.partition_key.name);
  flatbuffers::Offset<flatbuffers::String> sk;
  if (s.sort_key) sk = b.CreateString(s.sort_key->name);
  fb::StreamDescriptorBuilder d(b);
  d.add_format_version(kDescriptorVersion);
  d.add_stream_id(s.id);
  d.add_table_name(table);
  d.add_label(label);
  d.add_view_type(static_cast<uint8_t>(s.view_type));
  d.add_partition_key(pk);
  if (s.sort_key) d.add_sort_key(sk);
  d.add_enabled(s.enabled);
  d.add_created_ms(s.created_ms);
  d.add_disabled_ms(s.disabled_ms);
  d.add_shards(shards_offset);
  b.Finish(d.Finish(), "DRKC");
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

Result<StreamInfo> DecodeStreamDescriptor(std::string_view bytes) {
  const AlignedCopy aligned(bytes);
  const uint8_t* data = aligned.data();
  flatbuffers::Verifier verifier(data, aligned.size);
  if (!verifier.VerifyBuffer<fb::StreamDescriptor>("DRKC")) {
    return Status::Corruption("catalog: invalid stream descriptor");
  }
  const auto* d = flatbuffers::GetRoot<fb::StreamDescriptor>(data);
  if (d->format_version() != kDescriptorVersion || d->view_type() > 3) {
    return Status::Corruption("catalog: unsupported stream descriptor");
  }
  StreamInfo s;
  s.id = d->stream_id();
  s.table_name = d->table_name()->str();
  s.label = d->label()->str();
  s.view_type = static_cast<StreamViewType>(d->view_type());
  // Key types are not needed: DescribeStream reports names and roles only.
  s.partition_key = {d->partition_key()->str(), ScalarAttributeType::kS};
  if (d->sort_key()) s.sort_key = KeyAttribute{d->sort_key()->str(), ScalarAttributeType::kS};
  s.enabled = d->enabled();
  s.created_ms = d->created_ms();
  s.disabled_ms = d->disabled_ms();
  if (d->shards()) {
    for (const auto* x : *d->shards()) {
      s.shards.push_back(
          {x->id()->str(), x->parent_id() ? x->parent_id()->str() : "", x->start(), x->end()});
    }
  }
  return s;
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
