#include "tools/server/wire_requests.h"

#include <algorithm>
#include <string_view>

#include "format/json.h"

namespace dynarock::wire {
namespace {

namespace p = protocol;

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

// An enum member the constraint pass has already checked, by its model
// name. `table` lists every value the model allows.
template <typename E, size_t N>
E EnumOf(const std::string& name, const std::pair<std::string_view, E> (&table)[N]) {
  for (const auto& [text, value] : table) {
    if (name == text) return value;
  }
  return table[0].second;  // unreachable after Check()
}
template <typename E, size_t N>
std::optional<E> EnumOf(const std::optional<std::string>& name,
                        const std::pair<std::string_view, E> (&table)[N]) {
  if (!name) return std::nullopt;
  return EnumOf(*name, table);
}

constexpr std::pair<std::string_view, ReturnConsumedCapacity> kConsumed[] = {
    {"INDEXES", ReturnConsumedCapacity::kIndexes},
    {"TOTAL", ReturnConsumedCapacity::kTotal},
    {"NONE", ReturnConsumedCapacity::kNone}};
constexpr std::pair<std::string_view, ReturnItemCollectionMetrics> kMetrics[] = {
    {"SIZE", ReturnItemCollectionMetrics::kSize}, {"NONE", ReturnItemCollectionMetrics::kNone}};
constexpr std::pair<std::string_view, ReturnValue> kReturnValues[] = {
    {"NONE", ReturnValue::kNone},         {"ALL_OLD", ReturnValue::kAllOld},
    {"UPDATED_OLD", ReturnValue::kUpdatedOld}, {"ALL_NEW", ReturnValue::kAllNew},
    {"UPDATED_NEW", ReturnValue::kUpdatedNew}};
constexpr std::pair<std::string_view, ReturnValuesOnConditionCheckFailure> kOnFailure[] = {
    {"NONE", ReturnValuesOnConditionCheckFailure::kNone},
    {"ALL_OLD", ReturnValuesOnConditionCheckFailure::kAllOld}};
constexpr std::pair<std::string_view, Select> kSelect[] = {
    {"ALL_ATTRIBUTES", Select::kAllAttributes},
    {"ALL_PROJECTED_ATTRIBUTES", Select::kAllProjectedAttributes},
    {"SPECIFIC_ATTRIBUTES", Select::kSpecificAttributes},
    {"COUNT", Select::kCount}};
constexpr std::pair<std::string_view, ConditionalOperator> kConditional[] = {
    {"AND", ConditionalOperator::kAnd}, {"OR", ConditionalOperator::kOr}};
constexpr std::pair<std::string_view, ComparisonOperator> kComparison[] = {
    {"EQ", ComparisonOperator::kEq},
    {"NE", ComparisonOperator::kNe},
    {"IN", ComparisonOperator::kIn},
    {"LE", ComparisonOperator::kLe},
    {"LT", ComparisonOperator::kLt},
    {"GE", ComparisonOperator::kGe},
    {"GT", ComparisonOperator::kGt},
    {"BETWEEN", ComparisonOperator::kBetween},
    {"NOT_NULL", ComparisonOperator::kNotNull},
    {"NULL", ComparisonOperator::kNull},
    {"CONTAINS", ComparisonOperator::kContains},
    {"NOT_CONTAINS", ComparisonOperator::kNotContains},
    {"BEGINS_WITH", ComparisonOperator::kBeginsWith}};
constexpr std::pair<std::string_view, KeyType> kKeyTypes[] = {{"HASH", KeyType::kHash},
                                                              {"RANGE", KeyType::kRange}};
constexpr std::pair<std::string_view, ScalarAttributeType> kAttributeTypes[] = {
    {"S", ScalarAttributeType::kS}, {"N", ScalarAttributeType::kN}, {"B", ScalarAttributeType::kB}};
constexpr std::pair<std::string_view, ProjectionType> kProjections[] = {
    {"KEYS_ONLY", ProjectionType::kKeysOnly},
    {"INCLUDE", ProjectionType::kInclude},
    {"ALL", ProjectionType::kAll}};
constexpr std::pair<std::string_view, BillingMode> kBilling[] = {
    {"PROVISIONED", BillingMode::kProvisioned}, {"PAY_PER_REQUEST", BillingMode::kPayPerRequest}};
constexpr std::pair<std::string_view, StreamViewType> kViewTypes[] = {
    {"KEYS_ONLY", StreamViewType::kKeysOnly},
    {"NEW_IMAGE", StreamViewType::kNewImage},
    {"OLD_IMAGE", StreamViewType::kOldImage},
    {"NEW_AND_OLD_IMAGES", StreamViewType::kNewAndOldImages}};
constexpr std::pair<std::string_view, AttributeAction> kActions[] = {
    {"PUT", AttributeAction::kPut}, {"ADD", AttributeAction::kAdd},
    {"DELETE", AttributeAction::kDelete}};

ReturnConsumedCapacity Consumed(const std::optional<std::string>& v) {
  return EnumOf(v, kConsumed).value_or(ReturnConsumedCapacity::kNone);
}
ReturnItemCollectionMetrics Metrics(const std::optional<std::string>& v) {
  return EnumOf(v, kMetrics).value_or(ReturnItemCollectionMetrics::kNone);
}
ReturnValue Returns(const std::optional<std::string>& v) {
  return EnumOf(v, kReturnValues).value_or(ReturnValue::kNone);
}
ReturnValuesOnConditionCheckFailure OnFailure(const std::optional<std::string>& v) {
  return EnumOf(v, kOnFailure).value_or(ReturnValuesOnConditionCheckFailure::kNone);
}

std::string Take(std::optional<std::string>& s) { return s ? std::move(*s) : std::string(); }

// Java's List.toString() of set members, for duplicate messages.
std::string InputList(const std::vector<std::string>& members) {
  std::string out = "[";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i) out += ", ";
    out += members[i];
  }
  return out + "]";
}

template <typename T>
bool HasDuplicates(std::vector<T> members) {
  std::sort(members.begin(), members.end());
  return std::adjacent_find(members.begin(), members.end()) != members.end();
}

// Where Lenient() keeps the first AttributeValue error (see ValueErrors).
thread_local Status* value_errors = nullptr;

// An AttributeValue as the translation needs it: a failure is recorded for
// the caller and NULL stands in, so that the request's parameter checks,
// which DynamoDB runs first, can still be asked for.
Result<AttributeValue> Lenient(p::AttributeValue&& in) {
  auto v = ToValue(std::move(in));
  if (v.ok() || value_errors == nullptr) return v;
  if (value_errors->ok()) *value_errors = v.status();
  return AttributeValue::Null();
}

Result<Item> ToItem(p::Map<p::AttributeValue>&& in) {
  Item item;
  for (auto& [name, value] : in) {
    DYNAROCK_ASSIGN_OR_RETURN(auto v, Lenient(std::move(value)));
    item.insert_or_assign(std::move(name), std::move(v));
  }
  return item;
}

Result<std::optional<Item>> ToItem(std::optional<p::Map<p::AttributeValue>>& in) {
  if (!in) return std::optional<Item>();
  DYNAROCK_ASSIGN_OR_RETURN(auto item, ToItem(std::move(*in)));
  return std::optional<Item>(std::move(item));
}

// A required Item or Key: Check() has already reported it absent.
Result<Item> ToRequiredItem(std::optional<p::Map<p::AttributeValue>>& in) {
  return ToItem(in ? std::move(*in) : p::Map<p::AttributeValue>());
}

std::optional<ExpressionAttributeNames> Names(std::optional<p::Map<std::string>>& in) {
  if (!in) return std::nullopt;
  ExpressionAttributeNames out;
  for (auto& [k, v] : *in) out.insert_or_assign(std::move(k), std::move(v));
  return out;
}

Result<std::optional<ExpressionAttributeValues>> Values(
    std::optional<p::Map<p::AttributeValue>>& in) {
  if (!in) return std::optional<ExpressionAttributeValues>();
  ExpressionAttributeValues out;
  for (auto& [k, v] : *in) {
    DYNAROCK_ASSIGN_OR_RETURN(auto value, Lenient(std::move(v)));
    out.insert_or_assign(std::move(k), std::move(value));
  }
  return std::optional<ExpressionAttributeValues>(std::move(out));
}

Result<std::vector<AttributeValue>> ValueList(std::optional<std::vector<p::AttributeValue>>& in) {
  std::vector<AttributeValue> out;
  if (!in) return out;
  out.reserve(in->size());
  for (auto& v : *in) {
    DYNAROCK_ASSIGN_OR_RETURN(auto value, Lenient(std::move(v)));
    out.push_back(std::move(value));
  }
  return out;
}

Result<std::optional<std::map<std::string, LegacyCondition>>> Conditions(
    std::optional<p::Map<p::Condition>>& in) {
  if (!in) return std::optional<std::map<std::string, LegacyCondition>>();
  std::map<std::string, LegacyCondition> out;
  for (auto& [name, c] : *in) {
    LegacyCondition lc;
    // The model requires ComparisonOperator; Check() reported it missing.
    lc.comparison_operator = EnumOf(c.comparison_operator, kComparison)
                                 .value_or(ComparisonOperator::kEq);
    DYNAROCK_ASSIGN_OR_RETURN(lc.attribute_value_list, ValueList(c.attribute_value_list));
    out.insert_or_assign(std::move(name), std::move(lc));
  }
  return std::optional<std::map<std::string, LegacyCondition>>(std::move(out));
}

Result<std::optional<std::map<std::string, ExpectedAttributeValue>>> Expected(
    std::optional<p::Map<p::ExpectedAttributeValue>>& in) {
  if (!in) return std::optional<std::map<std::string, ExpectedAttributeValue>>();
  std::map<std::string, ExpectedAttributeValue> out;
  for (auto& [name, e] : *in) {
    ExpectedAttributeValue x;
    if (e.value) {
      DYNAROCK_ASSIGN_OR_RETURN(x.value, Lenient(std::move(*e.value)));
    }
    x.exists = e.exists;
    x.comparison_operator = EnumOf(e.comparison_operator, kComparison);
    DYNAROCK_ASSIGN_OR_RETURN(x.attribute_value_list, ValueList(e.attribute_value_list));
    out.insert_or_assign(std::move(name), std::move(x));
  }
  return std::optional<std::map<std::string, ExpectedAttributeValue>>(std::move(out));
}

std::vector<KeySchemaElement> KeySchema(std::optional<std::vector<p::KeySchemaElement>>& in) {
  std::vector<KeySchemaElement> out;
  if (!in) return out;
  for (auto& k : *in) {
    out.push_back({Take(k.attribute_name),
                   EnumOf(k.key_type, kKeyTypes).value_or(KeyType::kHash)});
  }
  return out;
}

std::vector<AttributeDefinition> Definitions(std::vector<p::AttributeDefinition>& in) {
  std::vector<AttributeDefinition> out;
  for (auto& d : in) {
    out.push_back({Take(d.attribute_name),
                   EnumOf(d.attribute_type, kAttributeTypes).value_or(ScalarAttributeType::kS)});
  }
  return out;
}

std::optional<ProvisionedThroughput> Throughput(std::optional<p::ProvisionedThroughput>& in) {
  if (!in) return std::nullopt;
  return ProvisionedThroughput{in->read_capacity_units.value_or(0),
                               in->write_capacity_units.value_or(0)};
}

Projection ProjectionOf(std::optional<p::Projection>& in) {
  Projection out;
  if (!in) return out;
  out.projection_type =
      EnumOf(in->projection_type, kProjections).value_or(ProjectionType::kKeysOnly);
  if (in->non_key_attributes) out.non_key_attributes = std::move(*in->non_key_attributes);
  return out;
}

}  // namespace

Result<AttributeValue> ToValue(p::AttributeValue&& in, int level) {
  if (level > kMaxNestingLevels) {
    return Status::Validation("Nesting Levels have exceeded supported limits");
  }
  const int tags = in.s.has_value() + in.n.has_value() + in.b.has_value() + in.ss.has_value() +
                   in.ns.has_value() + in.bs.has_value() + in.m.has_value() + in.l.has_value() +
                   in.null_.has_value() + in.bool_.has_value();
  if (tags == 0) {
    return Status::Validation(
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
  }
  // Each tag's own checks come before the "more than one" check
  // (VALIDATION.md 5.1, steps 2-7).
  std::optional<AttributeValue> out;
  if (in.n) {
    DYNAROCK_ASSIGN_OR_RETURN(auto n, Number::Parse(*in.n));
    out = AttributeValue::N(n);
  }
  if (in.null_ && !*in.null_) {
    return Status::Validation(std::string(kInvalid) +
                              "Null attribute value types must have the value of true");
  }
  if (in.ss) {
    if (in.ss->empty()) return Status::Validation(std::string(kInvalid) + "An string set  may not be empty");
    if (HasDuplicates(*in.ss)) {
      return Status::Validation(std::string(kInvalid) + "Input collection " + InputList(*in.ss) +
                                " contains duplicates.");
    }
  }
  std::vector<Number> numbers;
  if (in.ns) {
    if (in.ns->empty()) return Status::Validation(std::string(kInvalid) + "An number set  may not be empty");
    numbers.reserve(in.ns->size());
    for (const auto& text : *in.ns) {
      DYNAROCK_ASSIGN_OR_RETURN(auto n, Number::Parse(text));
      numbers.push_back(n);
    }
    if (HasDuplicates(numbers)) return Status::Validation("Input collection contains duplicates");
  }
  if (in.bs) {
    if (in.bs->empty()) return Status::Validation(std::string(kInvalid) + "Binary sets should not be empty");
    if (HasDuplicates(*in.bs)) {
      std::vector<std::string> encoded;
      for (const auto& b : *in.bs) encoded.push_back(format::Base64Encode(b));
      return Status::Validation(std::string(kInvalid) + "Input collection " + InputList(encoded) +
                                "of type BS contains duplicates.");
    }
  }
  std::optional<AttributeValue::Map> map;
  if (in.m) {
    map.emplace();
    map->reserve(in.m->size());
    for (auto& [name, v] : *in.m) {
      DYNAROCK_ASSIGN_OR_RETURN(auto value, ToValue(std::move(v), level + 1));
      map->emplace_back(std::move(name), std::move(value));
    }
  }
  std::optional<AttributeValue::List> list;
  if (in.l) {
    list.emplace();
    list->reserve(in.l->size());
    for (auto& v : *in.l) {
      DYNAROCK_ASSIGN_OR_RETURN(auto value, ToValue(std::move(v), level + 1));
      list->push_back(std::move(value));
    }
  }
  if (tags > 1) {
    return Status::Validation(
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
        "the supported datatypes");
  }
  if (in.s) return AttributeValue::S(std::move(*in.s));
  if (in.b) return AttributeValue::B(std::move(*in.b));
  if (in.ss) return AttributeValue::SS(std::move(*in.ss));
  if (in.ns) return AttributeValue::NS(std::move(numbers));
  if (in.bs) return AttributeValue::BS(std::move(*in.bs));
  if (map) return AttributeValue::M(std::move(*map));
  if (list) return AttributeValue::L(std::move(*list));
  if (in.null_) return AttributeValue::Null();
  if (in.bool_) return AttributeValue::Bool(*in.bool_);
  return std::move(*out);  // N
}

// REQUIRES: the model check passed (StreamEnabled is present).
std::optional<StreamSpecification> StreamSpec(const std::optional<p::StreamSpecification>& in) {
  if (!in) return std::nullopt;
  return StreamSpecification{in->stream_enabled.value_or(false),
                             EnumOf(in->stream_view_type, kViewTypes)};
}

// What DynamoDB would accept and Dynarock cannot honour is refused, never
// half-served: KMS encryption at rest (Dynarock stores tables unencrypted;
// SSESpecification.Enabled=false, DynamoDB's default owned key, is the same
// table and is accepted at creation), the Infrequent Access table class,
// global-table replicas (scale out with DynamoDB or Alternator), and a
// maximum on-demand throughput (OnDemandThroughput: Dynarock does not
// throttle on-demand requests, so a maximum would be ignored).
// `replicas` is null for CreateTable.
Status RefuseUnsupported(const std::optional<p::SSESpecification>& sse,
                         const std::optional<std::string>& table_class,
                         const std::optional<std::vector<p::ReplicationGroupUpdate>>* replicas,
                         bool on_demand_throughput) {
  const bool update = replicas != nullptr;
  if (on_demand_throughput) {
    return Status::Validation(
        "Dynarock does not support OnDemandThroughput: on-demand tables and indexes have no "
        "maximum request rate here (leave OnDemandThroughput out)");
  }
  if (sse && (update || sse->enabled.value_or(false))) {
    return Status::Validation(
        "Dynarock does not support SSESpecification: tables are stored without KMS encryption "
        "(leave SSESpecification out, or set Enabled to false at CreateTable)");
  }
  if (table_class && (update || *table_class != "STANDARD")) {
    return Status::Validation("Dynarock does not support TableClass " + *table_class +
                              ": every table is STANDARD");
  }
  if (update && *replicas) {
    return Status::Validation(
        "Dynarock does not support ReplicaUpdates (global tables): replicate with DynamoDB or "
        "ScyllaDB Alternator, which speak the same protocol");
  }
  return Status::OK();
}

Result<CreateTableRequest> ToRequest(p::CreateTableInput&& in) {
  CreateTableRequest r;
  r.table_name = Take(in.table_name);
  if (in.attribute_definitions) r.attribute_definitions = Definitions(*in.attribute_definitions);
  r.key_schema = KeySchema(in.key_schema);
  r.billing_mode = EnumOf(in.billing_mode, kBilling);
  r.provisioned_throughput = Throughput(in.provisioned_throughput);
  if (in.local_secondary_indexes) {
    r.local_secondary_indexes.emplace();
    for (auto& l : *in.local_secondary_indexes) {
      r.local_secondary_indexes->push_back(
          {Take(l.index_name), KeySchema(l.key_schema), ProjectionOf(l.projection)});
    }
  }
  if (in.global_secondary_indexes) {
    r.global_secondary_indexes.emplace();
    for (auto& g : *in.global_secondary_indexes) {
      r.global_secondary_indexes->push_back({Take(g.index_name), KeySchema(g.key_schema),
                                             ProjectionOf(g.projection),
                                             Throughput(g.provisioned_throughput)});
    }
  }
  r.stream_specification = StreamSpec(in.stream_specification);
  if (in.tags) {
    r.tags.emplace();
    for (auto& t : *in.tags) r.tags->insert_or_assign(Take(t.key), Take(t.value));
  }
  r.deletion_protection_enabled = in.deletion_protection_enabled.value_or(false);
  bool on_demand = in.on_demand_throughput.has_value();
  if (in.global_secondary_indexes) {
    for (const auto& g : *in.global_secondary_indexes)
      on_demand |= g.on_demand_throughput.has_value();
  }
  DYNAROCK_RETURN_IF_ERROR(
      RefuseUnsupported(in.sse_specification, in.table_class, nullptr, on_demand));
  if (in.resource_policy) {
    return Status::Validation(
        "Dynarock does not support ResourcePolicy: it has no IAM policies to attach (create "
        "the table without one)");
  }
  return r;
}

Result<DescribeTableRequest> ToRequest(p::DescribeTableInput&& in) {
  return DescribeTableRequest{Take(in.table_name)};
}

Result<DeleteTableRequest> ToRequest(p::DeleteTableInput&& in) {
  return DeleteTableRequest{Take(in.table_name)};
}

Result<UpdateTableRequest> ToRequest(p::UpdateTableInput&& in) {
  UpdateTableRequest r;
  r.table_name = Take(in.table_name);
  if (in.attribute_definitions) r.attribute_definitions = Definitions(*in.attribute_definitions);
  r.billing_mode = EnumOf(in.billing_mode, kBilling);
  r.provisioned_throughput = Throughput(in.provisioned_throughput);
  if (in.global_secondary_index_updates) {
    r.global_secondary_index_updates.emplace();
    for (auto& u : *in.global_secondary_index_updates) {
      GlobalSecondaryIndexUpdate x;
      if (u.create) {
        x.create = CreateGlobalSecondaryIndexAction{
            Take(u.create->index_name), KeySchema(u.create->key_schema),
            ProjectionOf(u.create->projection), Throughput(u.create->provisioned_throughput)};
      }
      if (u.delete_) x.delete_index_name = Take(u.delete_->index_name);
      if (u.update) {
        x.update = UpdateGlobalSecondaryIndexAction{
            Take(u.update->index_name),
            Throughput(u.update->provisioned_throughput).value_or(ProvisionedThroughput{})};
      }
      r.global_secondary_index_updates->push_back(std::move(x));
    }
  }
  r.stream_specification = StreamSpec(in.stream_specification);
  r.deletion_protection_enabled = in.deletion_protection_enabled;
  bool on_demand = in.on_demand_throughput.has_value();
  if (in.global_secondary_index_updates) {
    for (const auto& u : *in.global_secondary_index_updates) {
      on_demand |= (u.create && u.create->on_demand_throughput) ||
                   (u.update && u.update->on_demand_throughput);
    }
  }
  DYNAROCK_RETURN_IF_ERROR(
      RefuseUnsupported(in.sse_specification, in.table_class, &in.replica_updates, on_demand));
  return r;
}

Result<ListTablesRequest> ToRequest(p::ListTablesInput&& in) {
  return ListTablesRequest{std::move(in.exclusive_start_table_name), in.limit};
}

namespace {

// The members PutItem, DeleteItem and UpdateItem share.
template <typename In, typename Out>
Status SingleWriteFields(In& in, Out* r) {
  r->table_name = Take(in.table_name);
  r->return_values = Returns(in.return_values);
  r->condition_expression = std::move(in.condition_expression);
  r->expression_attribute_names = Names(in.expression_attribute_names);
  DYNAROCK_ASSIGN_OR_RETURN(r->expression_attribute_values,
                            Values(in.expression_attribute_values));
  r->return_values_on_condition_check_failure =
      OnFailure(in.return_values_on_condition_check_failure);
  DYNAROCK_ASSIGN_OR_RETURN(r->expected, Expected(in.expected));
  r->conditional_operator = EnumOf(in.conditional_operator, kConditional);
  r->return_item_collection_metrics = Metrics(in.return_item_collection_metrics);
  r->return_consumed_capacity = Consumed(in.return_consumed_capacity);
  return Status::OK();
}

}  // namespace

Result<PutItemRequest> ToRequest(p::PutItemInput&& in) {
  PutItemRequest r;
  DYNAROCK_ASSIGN_OR_RETURN(r.item, ToRequiredItem(in.item));
  DYNAROCK_RETURN_IF_ERROR(SingleWriteFields(in, &r));
  return r;
}

Result<GetItemRequest> ToRequest(p::GetItemInput&& in) {
  GetItemRequest r;
  r.table_name = Take(in.table_name);
  DYNAROCK_ASSIGN_OR_RETURN(r.key, ToRequiredItem(in.key));
  r.consistent_read = in.consistent_read.value_or(false);
  r.projection_expression = std::move(in.projection_expression);
  r.expression_attribute_names = Names(in.expression_attribute_names);
  r.attributes_to_get = std::move(in.attributes_to_get);
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  r.item_encoding = ItemEncoding::kStored;
  return r;
}

Result<DeleteItemRequest> ToRequest(p::DeleteItemInput&& in) {
  DeleteItemRequest r;
  DYNAROCK_ASSIGN_OR_RETURN(r.key, ToRequiredItem(in.key));
  DYNAROCK_RETURN_IF_ERROR(SingleWriteFields(in, &r));
  return r;
}

Result<UpdateItemRequest> ToRequest(p::UpdateItemInput&& in) {
  UpdateItemRequest r;
  DYNAROCK_ASSIGN_OR_RETURN(r.key, ToRequiredItem(in.key));
  r.update_expression = std::move(in.update_expression);
  if (in.attribute_updates) {
    r.attribute_updates.emplace();
    for (auto& [name, u] : *in.attribute_updates) {
      AttributeValueUpdate x;
      if (u.value) {
        DYNAROCK_ASSIGN_OR_RETURN(x.value, Lenient(std::move(*u.value)));
      }
      x.action = EnumOf(u.action, kActions).value_or(AttributeAction::kPut);
      r.attribute_updates->insert_or_assign(std::move(name), std::move(x));
    }
  }
  DYNAROCK_RETURN_IF_ERROR(SingleWriteFields(in, &r));
  return r;
}

Result<QueryRequest> ToRequest(p::QueryInput&& in) {
  QueryRequest r;
  r.table_name = Take(in.table_name);
  r.index_name = std::move(in.index_name);
  r.key_condition_expression = std::move(in.key_condition_expression);
  DYNAROCK_ASSIGN_OR_RETURN(r.key_conditions, Conditions(in.key_conditions));
  r.filter_expression = std::move(in.filter_expression);
  r.projection_expression = std::move(in.projection_expression);
  r.expression_attribute_names = Names(in.expression_attribute_names);
  DYNAROCK_ASSIGN_OR_RETURN(r.expression_attribute_values, Values(in.expression_attribute_values));
  DYNAROCK_ASSIGN_OR_RETURN(r.query_filter, Conditions(in.query_filter));
  r.attributes_to_get = std::move(in.attributes_to_get);
  r.conditional_operator = EnumOf(in.conditional_operator, kConditional);
  r.scan_index_forward = in.scan_index_forward.value_or(true);
  r.limit = in.limit;
  DYNAROCK_ASSIGN_OR_RETURN(r.exclusive_start_key, ToItem(in.exclusive_start_key));
  r.select = EnumOf(in.select, kSelect);
  r.consistent_read = in.consistent_read.value_or(false);
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  r.item_encoding = ItemEncoding::kStored;
  return r;
}

Result<ScanRequest> ToRequest(p::ScanInput&& in) {
  ScanRequest r;
  r.table_name = Take(in.table_name);
  r.index_name = std::move(in.index_name);
  r.filter_expression = std::move(in.filter_expression);
  r.projection_expression = std::move(in.projection_expression);
  r.expression_attribute_names = Names(in.expression_attribute_names);
  DYNAROCK_ASSIGN_OR_RETURN(r.expression_attribute_values, Values(in.expression_attribute_values));
  DYNAROCK_ASSIGN_OR_RETURN(r.scan_filter, Conditions(in.scan_filter));
  r.attributes_to_get = std::move(in.attributes_to_get);
  r.conditional_operator = EnumOf(in.conditional_operator, kConditional);
  r.limit = in.limit;
  DYNAROCK_ASSIGN_OR_RETURN(r.exclusive_start_key, ToItem(in.exclusive_start_key));
  r.select = EnumOf(in.select, kSelect);
  r.segment = in.segment;
  r.total_segments = in.total_segments;
  r.consistent_read = in.consistent_read.value_or(false);
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  r.item_encoding = ItemEncoding::kStored;
  return r;
}

Result<BatchGetItemRequest> ToRequest(p::BatchGetItemInput&& in) {
  BatchGetItemRequest r;
  if (in.request_items) {
    for (auto& [table, ka] : *in.request_items) {
      KeysAndAttributes x;
      if (ka.keys) {
        for (auto& k : *ka.keys) {
          DYNAROCK_ASSIGN_OR_RETURN(auto key, ToItem(std::move(k)));
          x.keys.push_back(std::move(key));
        }
      }
      x.consistent_read = ka.consistent_read.value_or(false);
      x.projection_expression = std::move(ka.projection_expression);
      x.expression_attribute_names = Names(ka.expression_attribute_names);
      x.attributes_to_get = std::move(ka.attributes_to_get);
      r.request_items.insert_or_assign(table, std::move(x));
    }
  }
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  return r;
}

Result<BatchWriteItemRequest> ToRequest(p::BatchWriteItemInput&& in) {
  BatchWriteItemRequest r;
  if (in.request_items) {
    for (auto& [table, requests] : *in.request_items) {
      std::vector<WriteRequest> list;
      for (auto& w : requests) {
        WriteRequest x;
        if (w.put_request) {
          DYNAROCK_ASSIGN_OR_RETURN(auto item, ToRequiredItem(w.put_request->item));
          x.put_request = PutRequest{std::move(item)};
        }
        if (w.delete_request) {
          DYNAROCK_ASSIGN_OR_RETURN(auto key, ToRequiredItem(w.delete_request->key));
          x.delete_request = DeleteRequest{std::move(key)};
        }
        list.push_back(std::move(x));
      }
      r.request_items.insert_or_assign(table, std::move(list));
    }
  }
  r.return_item_collection_metrics = Metrics(in.return_item_collection_metrics);
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  return r;
}

namespace {

// The members every write action of a transaction has.
template <typename In, typename Out>
Status CommonTransactFields(In& in, Out* out) {
  out->table_name = Take(in.table_name);
  out->expression_attribute_names = Names(in.expression_attribute_names);
  DYNAROCK_ASSIGN_OR_RETURN(out->expression_attribute_values,
                            Values(in.expression_attribute_values));
  out->return_values_on_condition_check_failure =
      OnFailure(in.return_values_on_condition_check_failure);
  return Status::OK();
}

}  // namespace

Result<TransactWriteItemsRequest> ToRequest(p::TransactWriteItemsInput&& in) {
  TransactWriteItemsRequest r;
  if (in.transact_items) {
    for (auto& e : *in.transact_items) {
      TransactWriteItem t;
      if (e.condition_check) {
        TransactConditionCheck x;
        DYNAROCK_RETURN_IF_ERROR(CommonTransactFields(*e.condition_check, &x));
        DYNAROCK_ASSIGN_OR_RETURN(x.key, ToRequiredItem(e.condition_check->key));
        x.condition_expression = Take(e.condition_check->condition_expression);
        t.condition_check = std::move(x);
      }
      if (e.put) {
        TransactPut x;
        DYNAROCK_RETURN_IF_ERROR(CommonTransactFields(*e.put, &x));
        DYNAROCK_ASSIGN_OR_RETURN(x.item, ToRequiredItem(e.put->item));
        x.condition_expression = std::move(e.put->condition_expression);
        t.put = std::move(x);
      }
      if (e.delete_) {
        TransactDelete x;
        DYNAROCK_RETURN_IF_ERROR(CommonTransactFields(*e.delete_, &x));
        DYNAROCK_ASSIGN_OR_RETURN(x.key, ToRequiredItem(e.delete_->key));
        x.condition_expression = std::move(e.delete_->condition_expression);
        t.delete_item = std::move(x);
      }
      if (e.update) {
        TransactUpdate x;
        DYNAROCK_RETURN_IF_ERROR(CommonTransactFields(*e.update, &x));
        DYNAROCK_ASSIGN_OR_RETURN(x.key, ToRequiredItem(e.update->key));
        x.update_expression = Take(e.update->update_expression);
        x.condition_expression = std::move(e.update->condition_expression);
        t.update = std::move(x);
      }
      r.transact_items.push_back(std::move(t));
    }
  }
  r.client_request_token = std::move(in.client_request_token);
  r.return_item_collection_metrics = Metrics(in.return_item_collection_metrics);
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  return r;
}

Result<TransactGetItemsRequest> ToRequest(p::TransactGetItemsInput&& in) {
  TransactGetItemsRequest r;
  if (in.transact_items) {
    for (auto& e : *in.transact_items) {
      TransactGet g;
      if (e.get) {  // required by the model: Check() reported it absent
        g.table_name = Take(e.get->table_name);
        DYNAROCK_ASSIGN_OR_RETURN(g.key, ToRequiredItem(e.get->key));
        g.projection_expression = std::move(e.get->projection_expression);
        g.expression_attribute_names = Names(e.get->expression_attribute_names);
      }
      r.transact_items.push_back(std::move(g));
    }
  }
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  return r;
}

Result<UpdateTimeToLiveRequest> ToRequest(p::UpdateTimeToLiveInput&& in) {
  UpdateTimeToLiveRequest r;
  r.table_name = Take(in.table_name);
  if (in.time_to_live_specification) {
    r.time_to_live_specification = {in.time_to_live_specification->enabled.value_or(false),
                                    Take(in.time_to_live_specification->attribute_name)};
  }
  return r;
}

Result<DescribeTimeToLiveRequest> ToRequest(p::DescribeTimeToLiveInput&& in) {
  return DescribeTimeToLiveRequest{Take(in.table_name)};
}

Result<TagResourceRequest> ToRequest(p::TagResourceInput&& in) {
  TagResourceRequest r;
  r.resource_arn = Take(in.resource_arn);
  if (in.tags) {
    for (auto& t : *in.tags) r.tags.insert_or_assign(Take(t.key), Take(t.value));
  }
  return r;
}

Result<UntagResourceRequest> ToRequest(p::UntagResourceInput&& in) {
  UntagResourceRequest r;
  r.resource_arn = Take(in.resource_arn);
  if (in.tag_keys) r.tag_keys = std::move(*in.tag_keys);
  return r;
}

Result<ListTagsOfResourceRequest> ToRequest(p::ListTagsOfResourceInput&& in) {
  return ListTagsOfResourceRequest{Take(in.resource_arn)};
}

namespace {

Result<std::optional<std::vector<AttributeValue>>> Parameters(
    std::optional<std::vector<p::AttributeValue>>& in) {
  if (!in) return std::optional<std::vector<AttributeValue>>();
  std::vector<AttributeValue> out;
  out.reserve(in->size());
  for (auto& v : *in) {
    DYNAROCK_ASSIGN_OR_RETURN(auto value, Lenient(std::move(v)));
    out.push_back(std::move(value));
  }
  return std::optional(std::move(out));
}

}  // namespace

Result<ExecuteStatementRequest> ToRequest(p::ExecuteStatementInput&& in) {
  ExecuteStatementRequest r;
  r.statement = Take(in.statement);
  DYNAROCK_ASSIGN_OR_RETURN(r.parameters, Parameters(in.parameters));
  r.consistent_read = in.consistent_read.value_or(false);
  r.next_token = std::move(in.next_token);
  r.limit = in.limit;
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  r.return_values_on_condition_check_failure = OnFailure(in.return_values_on_condition_check_failure);
  return r;
}

Result<BatchExecuteStatementRequest> ToRequest(p::BatchExecuteStatementInput&& in) {
  BatchExecuteStatementRequest r;
  if (in.statements) {
    for (auto& s : *in.statements) {
      BatchStatementRequest b;
      b.statement = Take(s.statement);
      DYNAROCK_ASSIGN_OR_RETURN(b.parameters, Parameters(s.parameters));
      b.consistent_read = s.consistent_read.value_or(false);
      b.return_values_on_condition_check_failure =
          OnFailure(s.return_values_on_condition_check_failure);
      r.statements.push_back(std::move(b));
    }
  }
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  return r;
}

Result<ExecuteTransactionRequest> ToRequest(p::ExecuteTransactionInput&& in) {
  ExecuteTransactionRequest r;
  if (in.transact_statements) {
    for (auto& s : *in.transact_statements) {
      ParameterizedStatement t;
      t.statement = Take(s.statement);
      DYNAROCK_ASSIGN_OR_RETURN(t.parameters, Parameters(s.parameters));
      t.return_values_on_condition_check_failure =
          OnFailure(s.return_values_on_condition_check_failure);
      r.transact_statements.push_back(std::move(t));
    }
  }
  r.client_request_token = std::move(in.client_request_token);
  r.return_consumed_capacity = Consumed(in.return_consumed_capacity);
  return r;
}

ValueErrors::ValueErrors() : outer_(value_errors) { value_errors = &first_; }
ValueErrors::~ValueErrors() { value_errors = outer_; }

}  // namespace dynarock::wire
