#include "tools/server/wire.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <functional>
#include <map>

#include "format/json.h"

namespace dynarock::wire {
namespace {

using Json = rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Parsing failures unwind to Handle() as a Status. Exceptions stay inside
// this translation layer: they never reach the engine or RocksDB.
struct WireError {
  Status status;
};
[[noreturn]] void Fail(Status s) { throw WireError{std::move(s)}; }
template <typename T>
T Check(Result<T> r) {
  if (!r.ok()) Fail(r.status());
  return std::move(r).value();
}
void Check(const Status& s) {
  if (!s.ok()) Fail(s);
}

[[noreturn]] void WrongType(const char* name, const char* expected) {
  Fail(Status::Serialization(std::string("Unexpected value type for ") + name + ": expected " +
                             expected));
}

// A member, or nullptr when absent or JSON null (coral treats both alike).
const Json* Member(const Json& obj, const char* name) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

std::optional<std::string> OptString(const Json& obj, const char* name) {
  const Json* v = Member(obj, name);
  if (!v) return std::nullopt;
  if (!v->IsString()) WrongType(name, "string");
  return std::string(v->GetString(), v->GetStringLength());
}

std::string ReqString(const Json& obj, const char* name) {
  auto s = OptString(obj, name);
  if (!s) {
    Fail(Status::Validation(std::string("The parameter '") + name +
                            "' is required but was not present in the request"));
  }
  return *s;
}

std::optional<int64_t> OptInt(const Json& obj, const char* name) {
  const Json* v = Member(obj, name);
  if (!v) return std::nullopt;
  if (!v->IsInt64()) WrongType(name, "integer");
  return v->GetInt64();
}

std::optional<int32_t> OptInt32(const Json& obj, const char* name) {
  auto v = OptInt(obj, name);
  if (!v) return std::nullopt;
  return static_cast<int32_t>(std::clamp<int64_t>(*v, INT32_MIN, INT32_MAX));
}

bool OptBool(const Json& obj, const char* name) {
  const Json* v = Member(obj, name);
  if (!v) return false;
  if (!v->IsBool()) WrongType(name, "boolean");
  return v->GetBool();
}

const Json* OptObject(const Json& obj, const char* name) {
  const Json* v = Member(obj, name);
  if (v && !v->IsObject()) WrongType(name, "object");
  return v;
}

const Json* OptArray(const Json& obj, const char* name) {
  const Json* v = Member(obj, name);
  if (v && !v->IsArray()) WrongType(name, "array");
  return v;
}

// An enum member: DynamoDB's model check words a bad value this way.
template <typename E>
std::optional<E> OptEnum(const Json& obj, const char* name, const char* path,
                         std::initializer_list<std::pair<const char*, E>> values) {
  auto s = OptString(obj, name);
  if (!s) return std::nullopt;
  std::string set;
  for (const auto& [text, value] : values) {
    if (*s == text) return value;
    set += (set.empty() ? "" : ", ") + std::string(text);
  }
  Fail(Status::Validation("1 validation error detected: Value '" + *s + "' at '" + path +
                          "' failed to satisfy constraint: Member must satisfy enum value set: [" +
                          set + "]"));
}

Item ItemOf(const Json& v) { return Check(format::ItemFromJson(v)); }

std::optional<Item> OptItem(const Json& obj, const char* name) {
  const Json* v = OptObject(obj, name);
  if (!v) return std::nullopt;
  return ItemOf(*v);
}

std::optional<ExpressionAttributeNames> Names(const Json& obj) {
  const Json* v = OptObject(obj, "ExpressionAttributeNames");
  if (!v) return std::nullopt;
  ExpressionAttributeNames out;
  for (const auto& m : v->GetObject()) {
    if (!m.value.IsString()) WrongType("ExpressionAttributeNames", "string");
    out[std::string(m.name.GetString(), m.name.GetStringLength())] =
        std::string(m.value.GetString(), m.value.GetStringLength());
  }
  return out;
}

std::optional<ExpressionAttributeValues> Values(const Json& obj) {
  const Json* v = OptObject(obj, "ExpressionAttributeValues");
  if (!v) return std::nullopt;
  ExpressionAttributeValues out;
  for (const auto& m : v->GetObject()) {
    out[std::string(m.name.GetString(), m.name.GetStringLength())] =
        Check(format::AttributeValueFromJson(m.value));
  }
  return out;
}

ReturnConsumedCapacity ConsumedMode(const Json& obj) {
  return OptEnum<ReturnConsumedCapacity>(obj, "ReturnConsumedCapacity", "returnConsumedCapacity",
                                         {{"INDEXES", ReturnConsumedCapacity::kIndexes},
                                          {"TOTAL", ReturnConsumedCapacity::kTotal},
                                          {"NONE", ReturnConsumedCapacity::kNone}})
      .value_or(ReturnConsumedCapacity::kNone);
}

ReturnItemCollectionMetrics MetricsMode(const Json& obj) {
  return OptEnum<ReturnItemCollectionMetrics>(obj, "ReturnItemCollectionMetrics",
                                              "returnItemCollectionMetrics",
                                              {{"SIZE", ReturnItemCollectionMetrics::kSize},
                                               {"NONE", ReturnItemCollectionMetrics::kNone}})
      .value_or(ReturnItemCollectionMetrics::kNone);
}

ReturnValue ReturnValuesOf(const Json& obj) {
  return OptEnum<ReturnValue>(obj, "ReturnValues", "returnValues",
                              {{"NONE", ReturnValue::kNone},
                               {"ALL_OLD", ReturnValue::kAllOld},
                               {"UPDATED_OLD", ReturnValue::kUpdatedOld},
                               {"ALL_NEW", ReturnValue::kAllNew},
                               {"UPDATED_NEW", ReturnValue::kUpdatedNew}})
      .value_or(ReturnValue::kNone);
}

ReturnValuesOnConditionCheckFailure OnFailure(const Json& obj) {
  return OptEnum<ReturnValuesOnConditionCheckFailure>(
             obj, "ReturnValuesOnConditionCheckFailure", "returnValuesOnConditionCheckFailure",
             {{"ALL_OLD", ReturnValuesOnConditionCheckFailure::kAllOld},
              {"NONE", ReturnValuesOnConditionCheckFailure::kNone}})
      .value_or(ReturnValuesOnConditionCheckFailure::kNone);
}

std::optional<Select> SelectOf(const Json& obj) {
  return OptEnum<Select>(obj, "Select", "select",
                         {{"ALL_ATTRIBUTES", Select::kAllAttributes},
                          {"ALL_PROJECTED_ATTRIBUTES", Select::kAllProjectedAttributes},
                          {"SPECIFIC_ATTRIBUTES", Select::kSpecificAttributes},
                          {"COUNT", Select::kCount}});
}

std::optional<ConditionalOperator> ConditionalOperatorOf(const Json& obj) {
  return OptEnum<ConditionalOperator>(
      obj, "ConditionalOperator", "conditionalOperator",
      {{"AND", ConditionalOperator::kAnd}, {"OR", ConditionalOperator::kOr}});
}

std::optional<std::vector<std::string>> StringList(const Json& obj, const char* name) {
  const Json* v = OptArray(obj, name);
  if (!v) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& e : v->GetArray()) {
    if (!e.IsString()) WrongType(name, "string");
    out.emplace_back(e.GetString(), e.GetStringLength());
  }
  return out;
}

ComparisonOperator ComparisonOf(const Json& obj) {
  return *OptEnum<ComparisonOperator>(obj, "ComparisonOperator", "comparisonOperator",
                                      {{"EQ", ComparisonOperator::kEq},
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
                                       {"BEGINS_WITH", ComparisonOperator::kBeginsWith}});
}

std::vector<AttributeValue> ValueList(const Json& obj) {
  std::vector<AttributeValue> out;
  if (const Json* list = OptArray(obj, "AttributeValueList")) {
    for (const auto& e : list->GetArray()) out.push_back(Check(format::AttributeValueFromJson(e)));
  }
  return out;
}

std::optional<std::map<std::string, LegacyCondition>> Conditions(const Json& obj,
                                                                 const char* name) {
  const Json* v = OptObject(obj, name);
  if (!v) return std::nullopt;
  std::map<std::string, LegacyCondition> out;
  for (const auto& m : v->GetObject()) {
    if (!m.value.IsObject()) WrongType(name, "object");
    out[m.name.GetString()] = {ComparisonOf(m.value), ValueList(m.value)};
  }
  return out;
}

std::optional<std::map<std::string, ExpectedAttributeValue>> Expected(const Json& obj) {
  const Json* v = OptObject(obj, "Expected");
  if (!v) return std::nullopt;
  std::map<std::string, ExpectedAttributeValue> out;
  for (const auto& m : v->GetObject()) {
    if (!m.value.IsObject()) WrongType("Expected", "object");
    ExpectedAttributeValue e;
    if (const Json* value = OptObject(m.value, "Value"))
      e.value = Check(format::AttributeValueFromJson(*value));
    if (Member(m.value, "Exists")) e.exists = OptBool(m.value, "Exists");
    if (Member(m.value, "ComparisonOperator")) e.comparison_operator = ComparisonOf(m.value);
    e.attribute_value_list = ValueList(m.value);
    out[m.name.GetString()] = std::move(e);
  }
  return out;
}

// ---- Table shapes -------------------------------------------------------------------------

std::vector<KeySchemaElement> KeySchemaOf(const Json* v) {
  std::vector<KeySchemaElement> out;
  if (!v) return out;
  if (!v->IsArray()) WrongType("KeySchema", "array");
  for (const auto& e : v->GetArray()) {
    if (!e.IsObject()) WrongType("KeySchema", "object");
    KeySchemaElement k;
    k.attribute_name = OptString(e, "AttributeName").value_or("");
    k.key_type = OptEnum<KeyType>(e, "KeyType", "keySchema.member.keyType",
                                  {{"HASH", KeyType::kHash}, {"RANGE", KeyType::kRange}})
                     .value_or(KeyType::kHash);
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<AttributeDefinition> DefinitionsOf(const Json* v) {
  std::vector<AttributeDefinition> out;
  if (!v) return out;
  if (!v->IsArray()) WrongType("AttributeDefinitions", "array");
  for (const auto& e : v->GetArray()) {
    if (!e.IsObject()) WrongType("AttributeDefinitions", "object");
    AttributeDefinition d;
    d.attribute_name = OptString(e, "AttributeName").value_or("");
    d.attribute_type = OptEnum<ScalarAttributeType>(e, "AttributeType",
                                                    "attributeDefinitions.member.attributeType",
                                                    {{"B", ScalarAttributeType::kB},
                                                     {"N", ScalarAttributeType::kN},
                                                     {"S", ScalarAttributeType::kS}})
                           .value_or(ScalarAttributeType::kS);
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<ProvisionedThroughput> ThroughputOf(const Json& obj) {
  const Json* v = OptObject(obj, "ProvisionedThroughput");
  if (!v) return std::nullopt;
  return ProvisionedThroughput{OptInt(*v, "ReadCapacityUnits").value_or(0),
                               OptInt(*v, "WriteCapacityUnits").value_or(0)};
}

Projection ProjectionOf(const Json& obj) {
  Projection p;
  const Json* v = OptObject(obj, "Projection");
  if (!v) return p;
  p.projection_type = OptEnum<ProjectionType>(*v, "ProjectionType", "projection.projectionType",
                                              {{"ALL", ProjectionType::kAll},
                                               {"KEYS_ONLY", ProjectionType::kKeysOnly},
                                               {"INCLUDE", ProjectionType::kInclude}})
                          .value_or(ProjectionType::kKeysOnly);
  p.non_key_attributes = StringList(*v, "NonKeyAttributes").value_or(std::vector<std::string>{});
  return p;
}

std::optional<BillingMode> BillingOf(const Json& obj) {
  return OptEnum<BillingMode>(obj, "BillingMode", "billingMode",
                              {{"PROVISIONED", BillingMode::kProvisioned},
                               {"PAY_PER_REQUEST", BillingMode::kPayPerRequest}});
}

// ---- Writers --------------------------------------------------------------------------------

void Key(Writer& w, const char* k) { w.Key(k); }
void Str(Writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void WriteKeySchema(Writer& w, const std::vector<KeySchemaElement>& ks) {
  w.StartArray();
  for (const auto& k : ks) {
    w.StartObject();
    Key(w, "AttributeName");
    Str(w, k.attribute_name);
    Key(w, "KeyType");
    w.String(k.key_type == KeyType::kHash ? "HASH" : "RANGE");
    w.EndObject();
  }
  w.EndArray();
}

void WriteProjection(Writer& w, const Projection& p) {
  w.StartObject();
  Key(w, "ProjectionType");
  w.String(p.projection_type == ProjectionType::kAll       ? "ALL"
           : p.projection_type == ProjectionType::kInclude ? "INCLUDE"
                                                           : "KEYS_ONLY");
  if (!p.non_key_attributes.empty()) {
    Key(w, "NonKeyAttributes");
    w.StartArray();
    for (const auto& a : p.non_key_attributes) Str(w, a);
    w.EndArray();
  }
  w.EndObject();
}

void WriteThroughput(Writer& w, const ProvisionedThroughput& t) {
  w.StartObject();
  Key(w, "NumberOfDecreasesToday");
  w.Int(0);
  Key(w, "ReadCapacityUnits");
  w.Int64(t.read_capacity_units);
  Key(w, "WriteCapacityUnits");
  w.Int64(t.write_capacity_units);
  w.EndObject();
}

const char* TableStatusName(TableStatus s) {
  switch (s) {
    case TableStatus::kCreating:
      return "CREATING";
    case TableStatus::kActive:
      return "ACTIVE";
    case TableStatus::kDeleting:
      return "DELETING";
    case TableStatus::kUpdating:
      return "UPDATING";
  }
  return "ACTIVE";
}

void WriteTable(Writer& w, const TableDescription& d) {
  w.StartObject();
  Key(w, "AttributeDefinitions");
  w.StartArray();
  for (const auto& a : d.attribute_definitions) {
    w.StartObject();
    Key(w, "AttributeName");
    Str(w, a.attribute_name);
    Key(w, "AttributeType");
    Str(w, std::string(format::AttrTypeName(format::ToAttrType(a.attribute_type))));
    w.EndObject();
  }
  w.EndArray();
  Key(w, "TableName");
  Str(w, d.table_name);
  Key(w, "KeySchema");
  WriteKeySchema(w, d.key_schema);
  Key(w, "TableStatus");
  w.String(TableStatusName(d.table_status));
  Key(w, "CreationDateTime");
  w.Double(d.creation_date_time);
  Key(w, "ProvisionedThroughput");
  WriteThroughput(w, d.provisioned_throughput);
  Key(w, "TableSizeBytes");
  w.Int64(d.table_size_bytes);
  Key(w, "ItemCount");
  w.Int64(d.item_count);
  Key(w, "TableArn");
  Str(w, d.table_arn);
  Key(w, "TableId");
  Str(w, d.table_id);
  Key(w, "BillingModeSummary");
  w.StartObject();
  Key(w, "BillingMode");
  w.String(d.billing_mode == BillingMode::kPayPerRequest ? "PAY_PER_REQUEST" : "PROVISIONED");
  w.EndObject();
  if (d.local_secondary_indexes) {
    Key(w, "LocalSecondaryIndexes");
    w.StartArray();
    for (const auto& l : *d.local_secondary_indexes) {
      w.StartObject();
      Key(w, "IndexName");
      Str(w, l.index_name);
      Key(w, "KeySchema");
      WriteKeySchema(w, l.key_schema);
      Key(w, "Projection");
      WriteProjection(w, l.projection);
      Key(w, "IndexSizeBytes");
      w.Int64(l.index_size_bytes);
      Key(w, "ItemCount");
      w.Int64(l.item_count);
      Key(w, "IndexArn");
      Str(w, l.index_arn);
      w.EndObject();
    }
    w.EndArray();
  }
  if (d.global_secondary_indexes) {
    Key(w, "GlobalSecondaryIndexes");
    w.StartArray();
    for (const auto& g : *d.global_secondary_indexes) {
      w.StartObject();
      Key(w, "IndexName");
      Str(w, g.index_name);
      Key(w, "KeySchema");
      WriteKeySchema(w, g.key_schema);
      Key(w, "Projection");
      WriteProjection(w, g.projection);
      Key(w, "IndexStatus");
      w.String(g.index_status == IndexStatus::kActive ? "ACTIVE" : "CREATING");
      if (g.backfilling) {
        Key(w, "Backfilling");
        w.Bool(true);
      }
      Key(w, "ProvisionedThroughput");
      WriteThroughput(w, g.provisioned_throughput);
      Key(w, "IndexSizeBytes");
      w.Int64(g.index_size_bytes);
      Key(w, "ItemCount");
      w.Int64(g.item_count);
      Key(w, "IndexArn");
      Str(w, g.index_arn);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

void WriteItem(Writer& w, const Item& item) { format::WriteJson(&w, item); }

void WriteCapacityFields(Writer& w, const Capacity& c) {
  w.StartObject();
  Key(w, "CapacityUnits");
  w.Double(c.capacity_units);
  Key(w, "ReadCapacityUnits");
  w.Double(c.read_capacity_units);
  Key(w, "WriteCapacityUnits");
  w.Double(c.write_capacity_units);
  w.EndObject();
}

void WriteConsumed(Writer& w, const ConsumedCapacity& c) {
  w.StartObject();
  Key(w, "TableName");
  Str(w, c.table_name);
  Key(w, "CapacityUnits");
  w.Double(c.capacity_units);
  Key(w, "ReadCapacityUnits");
  w.Double(c.read_capacity_units);
  Key(w, "WriteCapacityUnits");
  w.Double(c.write_capacity_units);
  if (c.table) {
    Key(w, "Table");
    WriteCapacityFields(w, *c.table);
  }
  for (const auto& [name, indexes] :
       {std::pair{"LocalSecondaryIndexes", &c.local_secondary_indexes},
        std::pair{"GlobalSecondaryIndexes", &c.global_secondary_indexes}}) {
    if (!*indexes) continue;
    Key(w, name);
    w.StartObject();
    for (const auto& [index, cap] : **indexes) {
      Str(w, index);
      WriteCapacityFields(w, cap);
    }
    w.EndObject();
  }
  w.EndObject();
}

void WriteConsumedOpt(Writer& w, const std::optional<ConsumedCapacity>& c) {
  if (!c) return;
  Key(w, "ConsumedCapacity");
  WriteConsumed(w, *c);
}

void WriteConsumedList(Writer& w, const std::vector<ConsumedCapacity>& list) {
  if (list.empty()) return;
  Key(w, "ConsumedCapacity");
  w.StartArray();
  for (const auto& c : list) WriteConsumed(w, c);
  w.EndArray();
}

void WriteMetrics(Writer& w, const ItemCollectionMetrics& m) {
  w.StartObject();
  Key(w, "ItemCollectionKey");
  WriteItem(w, m.item_collection_key);
  Key(w, "SizeEstimateRangeGB");
  w.StartArray();
  for (double d : m.size_estimate_range_gb) w.Double(d);
  w.EndArray();
  w.EndObject();
}

void WriteMetricsOpt(Writer& w, const std::optional<ItemCollectionMetrics>& m) {
  if (!m) return;
  Key(w, "ItemCollectionMetrics");
  WriteMetrics(w, *m);
}

void WriteMetricsMap(Writer& w,
                     const std::map<std::string, std::vector<ItemCollectionMetrics>>& m) {
  if (m.empty()) return;
  Key(w, "ItemCollectionMetrics");
  w.StartObject();
  for (const auto& [table, list] : m) {
    Str(w, table);
    w.StartArray();
    for (const auto& x : list) WriteMetrics(w, x);
    w.EndArray();
  }
  w.EndObject();
}

void WriteAttributesOpt(Writer& w, const std::optional<Item>& item,
                        const char* name = "Attributes") {
  if (!item) return;
  Key(w, name);
  WriteItem(w, *item);
}

// ---- Operations ---------------------------------------------------------------------------------

using Op = std::function<void(Database*, const Json&, Writer&)>;

void CreateTable(Database* db, const Json& in, Writer& w) {
  CreateTableRequest r;
  r.table_name = ReqString(in, "TableName");
  r.attribute_definitions = DefinitionsOf(Member(in, "AttributeDefinitions"));
  r.key_schema = KeySchemaOf(Member(in, "KeySchema"));
  r.billing_mode = BillingOf(in);
  r.provisioned_throughput = ThroughputOf(in);
  if (const Json* lsis = OptArray(in, "LocalSecondaryIndexes")) {
    r.local_secondary_indexes.emplace();
    for (const auto& l : lsis->GetArray()) {
      r.local_secondary_indexes->push_back({OptString(l, "IndexName").value_or(""),
                                            KeySchemaOf(Member(l, "KeySchema")), ProjectionOf(l)});
    }
  }
  if (const Json* gsis = OptArray(in, "GlobalSecondaryIndexes")) {
    r.global_secondary_indexes.emplace();
    for (const auto& g : gsis->GetArray()) {
      r.global_secondary_indexes->push_back({OptString(g, "IndexName").value_or(""),
                                             KeySchemaOf(Member(g, "KeySchema")), ProjectionOf(g),
                                             ThroughputOf(g)});
    }
  }
  auto out = Check(db->CreateTable(r));
  w.StartObject();
  Key(w, "TableDescription");
  WriteTable(w, out.table_description);
  w.EndObject();
}

void DescribeTable(Database* db, const Json& in, Writer& w) {
  auto out = Check(db->DescribeTable({ReqString(in, "TableName")}));
  w.StartObject();
  Key(w, "Table");
  WriteTable(w, out.table);
  w.EndObject();
}

void DeleteTable(Database* db, const Json& in, Writer& w) {
  auto out = Check(db->DeleteTable({ReqString(in, "TableName")}));
  w.StartObject();
  Key(w, "TableDescription");
  WriteTable(w, out.table_description);
  w.EndObject();
}

void UpdateTable(Database* db, const Json& in, Writer& w) {
  UpdateTableRequest r;
  r.table_name = ReqString(in, "TableName");
  if (Member(in, "AttributeDefinitions"))
    r.attribute_definitions = DefinitionsOf(Member(in, "AttributeDefinitions"));
  r.billing_mode = BillingOf(in);
  r.provisioned_throughput = ThroughputOf(in);
  if (const Json* updates = OptArray(in, "GlobalSecondaryIndexUpdates")) {
    r.global_secondary_index_updates.emplace();
    for (const auto& u : updates->GetArray()) {
      GlobalSecondaryIndexUpdate x;
      if (const Json* c = OptObject(u, "Create")) {
        x.create = CreateGlobalSecondaryIndexAction{OptString(*c, "IndexName").value_or(""),
                                                    KeySchemaOf(Member(*c, "KeySchema")),
                                                    ProjectionOf(*c), ThroughputOf(*c)};
      }
      if (const Json* d = OptObject(u, "Delete")) x.delete_index_name = OptString(*d, "IndexName");
      r.global_secondary_index_updates->push_back(std::move(x));
    }
  }
  auto out = Check(db->UpdateTable(r));
  w.StartObject();
  Key(w, "TableDescription");
  WriteTable(w, out.table_description);
  w.EndObject();
}

void ListTables(Database* db, const Json& in, Writer& w) {
  ListTablesRequest r;
  r.exclusive_start_table_name = OptString(in, "ExclusiveStartTableName");
  r.limit = OptInt32(in, "Limit");
  auto out = Check(db->ListTables(r));
  w.StartObject();
  Key(w, "TableNames");
  w.StartArray();
  for (const auto& t : out.table_names) Str(w, t);
  w.EndArray();
  if (out.last_evaluated_table_name) {
    Key(w, "LastEvaluatedTableName");
    Str(w, *out.last_evaluated_table_name);
  }
  w.EndObject();
}

void PutItem(Database* db, const Json& in, Writer& w) {
  PutItemRequest r;
  r.table_name = ReqString(in, "TableName");
  auto item = OptItem(in, "Item");
  if (!item)
    Fail(Status::Validation("The parameter 'Item' is required but was not present in the request"));
  r.item = std::move(*item);
  r.return_values = ReturnValuesOf(in);
  r.condition_expression = OptString(in, "ConditionExpression");
  r.expression_attribute_names = Names(in);
  r.expression_attribute_values = Values(in);
  r.return_values_on_condition_check_failure = OnFailure(in);
  r.expected = Expected(in);
  r.conditional_operator = ConditionalOperatorOf(in);
  r.return_item_collection_metrics = MetricsMode(in);
  r.return_consumed_capacity = ConsumedMode(in);
  auto out = Check(db->PutItem(r));
  w.StartObject();
  WriteAttributesOpt(w, out.attributes);
  WriteConsumedOpt(w, out.consumed_capacity);
  WriteMetricsOpt(w, out.item_collection_metrics);
  w.EndObject();
}

Item RequiredKey(const Json& in) {
  auto key = OptItem(in, "Key");
  if (!key)
    Fail(Status::Validation("The parameter 'Key' is required but was not present in the request"));
  return std::move(*key);
}

Item RequiredItem(const Json& in) {
  auto item = OptItem(in, "Item");
  if (!item)
    Fail(Status::Validation("The parameter 'Item' is required but was not present in the request"));
  return std::move(*item);
}

void GetItem(Database* db, const Json& in, Writer& w) {
  GetItemRequest r;
  r.table_name = ReqString(in, "TableName");
  r.key = RequiredKey(in);
  r.consistent_read = OptBool(in, "ConsistentRead");
  r.projection_expression = OptString(in, "ProjectionExpression");
  r.expression_attribute_names = Names(in);
  r.attributes_to_get = StringList(in, "AttributesToGet");
  r.return_consumed_capacity = ConsumedMode(in);
  auto out = Check(db->GetItem(r));
  w.StartObject();
  WriteAttributesOpt(w, out.item, "Item");
  WriteConsumedOpt(w, out.consumed_capacity);
  w.EndObject();
}

void DeleteItem(Database* db, const Json& in, Writer& w) {
  DeleteItemRequest r;
  r.table_name = ReqString(in, "TableName");
  r.key = RequiredKey(in);
  r.return_values = ReturnValuesOf(in);
  r.condition_expression = OptString(in, "ConditionExpression");
  r.expression_attribute_names = Names(in);
  r.expression_attribute_values = Values(in);
  r.return_values_on_condition_check_failure = OnFailure(in);
  r.expected = Expected(in);
  r.conditional_operator = ConditionalOperatorOf(in);
  r.return_item_collection_metrics = MetricsMode(in);
  r.return_consumed_capacity = ConsumedMode(in);
  auto out = Check(db->DeleteItem(r));
  w.StartObject();
  WriteAttributesOpt(w, out.attributes);
  WriteConsumedOpt(w, out.consumed_capacity);
  WriteMetricsOpt(w, out.item_collection_metrics);
  w.EndObject();
}

void UpdateItem(Database* db, const Json& in, Writer& w) {
  UpdateItemRequest r;
  r.table_name = ReqString(in, "TableName");
  r.key = RequiredKey(in);
  r.update_expression = OptString(in, "UpdateExpression");
  r.condition_expression = OptString(in, "ConditionExpression");
  r.expression_attribute_names = Names(in);
  r.expression_attribute_values = Values(in);
  r.return_values = ReturnValuesOf(in);
  r.return_values_on_condition_check_failure = OnFailure(in);
  if (const Json* updates = OptObject(in, "AttributeUpdates")) {
    r.attribute_updates.emplace();
    for (const auto& m : updates->GetObject()) {
      AttributeValueUpdate u;
      if (const Json* v = OptObject(m.value, "Value"))
        u.value = Check(format::AttributeValueFromJson(*v));
      u.action = OptEnum<AttributeAction>(m.value, "Action", "attributeUpdates.member.action",
                                          {{"ADD", AttributeAction::kAdd},
                                           {"PUT", AttributeAction::kPut},
                                           {"DELETE", AttributeAction::kDelete}})
                     .value_or(AttributeAction::kPut);
      (*r.attribute_updates)[m.name.GetString()] = std::move(u);
    }
  }
  r.expected = Expected(in);
  r.conditional_operator = ConditionalOperatorOf(in);
  r.return_item_collection_metrics = MetricsMode(in);
  r.return_consumed_capacity = ConsumedMode(in);
  auto out = Check(db->UpdateItem(r));
  w.StartObject();
  WriteAttributesOpt(w, out.attributes);
  WriteConsumedOpt(w, out.consumed_capacity);
  WriteMetricsOpt(w, out.item_collection_metrics);
  w.EndObject();
}

// Select=COUNT pages carry no Items member, as in DynamoDB. The items come
// as stored (ItemEncoding::kStored): JSON is written from the bytes in place.
void WritePage(Writer& w, const QueryResponse& out, bool count_only) {
  w.StartObject();
  if (!count_only) {
    Key(w, "Items");
    w.StartArray();
    for (std::string_view bytes : out.stored_items) {
      Check(format::WriteJson(&w, format::ItemView::OpenTrusted(bytes)));
    }
    w.EndArray();
  }
  Key(w, "Count");
  w.Int(out.count);
  Key(w, "ScannedCount");
  w.Int(out.scanned_count);
  WriteAttributesOpt(w, out.last_evaluated_key, "LastEvaluatedKey");
  WriteConsumedOpt(w, out.consumed_capacity);
  w.EndObject();
}

void Query(Database* db, const Json& in, Writer& w) {
  QueryRequest r;
  r.table_name = ReqString(in, "TableName");
  r.index_name = OptString(in, "IndexName");
  r.key_condition_expression = OptString(in, "KeyConditionExpression");
  r.key_conditions = Conditions(in, "KeyConditions");
  if (!r.key_condition_expression && !r.key_conditions) {
    Fail(
        Status::Validation("Either the KeyConditions or KeyConditionExpression parameter must be "
                           "specified in the request."));
  }
  r.filter_expression = OptString(in, "FilterExpression");
  r.projection_expression = OptString(in, "ProjectionExpression");
  r.expression_attribute_names = Names(in);
  r.expression_attribute_values = Values(in);
  r.query_filter = Conditions(in, "QueryFilter");
  r.attributes_to_get = StringList(in, "AttributesToGet");
  r.conditional_operator = ConditionalOperatorOf(in);
  if (Member(in, "ScanIndexForward")) r.scan_index_forward = OptBool(in, "ScanIndexForward");
  r.limit = OptInt32(in, "Limit");
  r.exclusive_start_key = OptItem(in, "ExclusiveStartKey");
  r.select = SelectOf(in);
  r.consistent_read = OptBool(in, "ConsistentRead");
  r.return_consumed_capacity = ConsumedMode(in);
  r.item_encoding = ItemEncoding::kStored;
  WritePage(w, Check(db->Query(r)), r.select == Select::kCount);
}

void Scan(Database* db, const Json& in, Writer& w) {
  ScanRequest r;
  r.table_name = ReqString(in, "TableName");
  r.index_name = OptString(in, "IndexName");
  r.filter_expression = OptString(in, "FilterExpression");
  r.projection_expression = OptString(in, "ProjectionExpression");
  r.expression_attribute_names = Names(in);
  r.expression_attribute_values = Values(in);
  r.scan_filter = Conditions(in, "ScanFilter");
  r.attributes_to_get = StringList(in, "AttributesToGet");
  r.conditional_operator = ConditionalOperatorOf(in);
  r.limit = OptInt32(in, "Limit");
  r.exclusive_start_key = OptItem(in, "ExclusiveStartKey");
  r.select = SelectOf(in);
  r.segment = OptInt32(in, "Segment");
  r.total_segments = OptInt32(in, "TotalSegments");
  r.consistent_read = OptBool(in, "ConsistentRead");
  r.return_consumed_capacity = ConsumedMode(in);
  r.item_encoding = ItemEncoding::kStored;
  WritePage(w, Check(db->Scan(r)), r.select == Select::kCount);
}

KeysAndAttributes KeysAndAttributesOf(const Json& v) {
  KeysAndAttributes ka;
  if (const Json* keys = OptArray(v, "Keys")) {
    for (const auto& k : keys->GetArray()) ka.keys.push_back(ItemOf(k));
  }
  ka.consistent_read = OptBool(v, "ConsistentRead");
  ka.projection_expression = OptString(v, "ProjectionExpression");
  ka.expression_attribute_names = Names(v);
  ka.attributes_to_get = StringList(v, "AttributesToGet");
  return ka;
}

void WriteKeysAndAttributes(Writer& w, const KeysAndAttributes& ka) {
  w.StartObject();
  Key(w, "Keys");
  w.StartArray();
  for (const auto& k : ka.keys) WriteItem(w, k);
  w.EndArray();
  if (ka.consistent_read) {
    Key(w, "ConsistentRead");
    w.Bool(true);
  }
  if (ka.projection_expression) {
    Key(w, "ProjectionExpression");
    Str(w, *ka.projection_expression);
  }
  if (ka.expression_attribute_names) {
    Key(w, "ExpressionAttributeNames");
    w.StartObject();
    for (const auto& [k, v] : *ka.expression_attribute_names) {
      Str(w, k);
      Str(w, v);
    }
    w.EndObject();
  }
  w.EndObject();
}

void BatchGetItem(Database* db, const Json& in, Writer& w) {
  BatchGetItemRequest r;
  if (const Json* items = OptObject(in, "RequestItems")) {
    for (const auto& m : items->GetObject()) {
      if (!m.value.IsObject()) WrongType("RequestItems", "object");
      r.request_items[m.name.GetString()] = KeysAndAttributesOf(m.value);
    }
  }
  r.return_consumed_capacity = ConsumedMode(in);
  auto out = Check(db->BatchGetItem(r));
  w.StartObject();
  Key(w, "Responses");
  w.StartObject();
  for (const auto& [table, items] : out.responses) {
    Str(w, table);
    w.StartArray();
    for (const auto& i : items) WriteItem(w, i);
    w.EndArray();
  }
  w.EndObject();
  Key(w, "UnprocessedKeys");
  w.StartObject();
  for (const auto& [table, ka] : out.unprocessed_keys) {
    Str(w, table);
    WriteKeysAndAttributes(w, ka);
  }
  w.EndObject();
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

void BatchWriteItem(Database* db, const Json& in, Writer& w) {
  BatchWriteItemRequest r;
  if (const Json* items = OptObject(in, "RequestItems")) {
    for (const auto& m : items->GetObject()) {
      if (!m.value.IsArray()) WrongType("RequestItems", "array");
      auto& list = r.request_items[m.name.GetString()];
      for (const auto& e : m.value.GetArray()) {
        WriteRequest wr;
        if (const Json* p = OptObject(e, "PutRequest"))
          wr.put_request = PutRequest{RequiredItem(*p)};
        if (const Json* d = OptObject(e, "DeleteRequest"))
          wr.delete_request = DeleteRequest{RequiredKey(*d)};
        list.push_back(std::move(wr));
      }
    }
  }
  r.return_item_collection_metrics = MetricsMode(in);
  r.return_consumed_capacity = ConsumedMode(in);
  auto out = Check(db->BatchWriteItem(r));
  w.StartObject();
  Key(w, "UnprocessedItems");
  w.StartObject();
  w.EndObject();
  WriteMetricsMap(w, out.item_collection_metrics);
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

template <typename T>
void CommonTransactFields(const Json& v, T* t) {
  t->table_name = ReqString(v, "TableName");
  t->expression_attribute_names = Names(v);
  t->expression_attribute_values = Values(v);
  t->return_values_on_condition_check_failure = OnFailure(v);
}

void TransactWriteItems(Database* db, const Json& in, Writer& w) {
  TransactWriteItemsRequest r;
  if (const Json* items = OptArray(in, "TransactItems")) {
    for (const auto& e : items->GetArray()) {
      TransactWriteItem t;
      if (const Json* c = OptObject(e, "ConditionCheck")) {
        TransactConditionCheck x;
        CommonTransactFields(*c, &x);
        x.key = RequiredKey(*c);
        x.condition_expression = ReqString(*c, "ConditionExpression");
        t.condition_check = std::move(x);
      }
      if (const Json* p = OptObject(e, "Put")) {
        TransactPut x;
        CommonTransactFields(*p, &x);
        x.item = RequiredItem(*p);
        x.condition_expression = OptString(*p, "ConditionExpression");
        t.put = std::move(x);
      }
      if (const Json* d = OptObject(e, "Delete")) {
        TransactDelete x;
        CommonTransactFields(*d, &x);
        x.key = RequiredKey(*d);
        x.condition_expression = OptString(*d, "ConditionExpression");
        t.delete_item = std::move(x);
      }
      if (const Json* u = OptObject(e, "Update")) {
        TransactUpdate x;
        CommonTransactFields(*u, &x);
        x.key = RequiredKey(*u);
        x.update_expression = ReqString(*u, "UpdateExpression");
        x.condition_expression = OptString(*u, "ConditionExpression");
        t.update = std::move(x);
      }
      r.transact_items.push_back(std::move(t));
    }
  }
  r.client_request_token = OptString(in, "ClientRequestToken");
  r.return_item_collection_metrics = MetricsMode(in);
  r.return_consumed_capacity = ConsumedMode(in);
  auto out = Check(db->TransactWriteItems(r));
  w.StartObject();
  WriteMetricsMap(w, out.item_collection_metrics);
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

void TransactGetItems(Database* db, const Json& in, Writer& w) {
  TransactGetItemsRequest r;
  if (const Json* items = OptArray(in, "TransactItems")) {
    for (const auto& e : items->GetArray()) {
      const Json* g = OptObject(e, "Get");
      if (!g)
        Fail(Status::Validation(
            "The parameter 'Get' is required but was not present in the request"));
      r.transact_items.push_back({ReqString(*g, "TableName"), RequiredKey(*g),
                                  OptString(*g, "ProjectionExpression"), Names(*g)});
    }
  }
  r.return_consumed_capacity = ConsumedMode(in);
  auto out = Check(db->TransactGetItems(r));
  w.StartObject();
  Key(w, "Responses");
  w.StartArray();
  for (const auto& item : out.responses) {
    w.StartObject();
    if (item) {
      Key(w, "Item");
      WriteItem(w, *item);
    }
    w.EndObject();
  }
  w.EndArray();
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

void UpdateTimeToLive(Database* db, const Json& in, Writer& w) {
  UpdateTimeToLiveRequest r;
  r.table_name = ReqString(in, "TableName");
  const Json* spec = OptObject(in, "TimeToLiveSpecification");
  if (!spec) {
    Fail(Status::Validation(
        "The parameter 'TimeToLiveSpecification' is required but was not present in the request"));
  }
  r.time_to_live_specification = {OptBool(*spec, "Enabled"),
                                  OptString(*spec, "AttributeName").value_or("")};
  auto out = Check(db->UpdateTimeToLive(r));
  w.StartObject();
  Key(w, "TimeToLiveSpecification");
  w.StartObject();
  Key(w, "Enabled");
  w.Bool(out.time_to_live_specification.enabled);
  Key(w, "AttributeName");
  Str(w, out.time_to_live_specification.attribute_name);
  w.EndObject();
  w.EndObject();
}

void DescribeTimeToLive(Database* db, const Json& in, Writer& w) {
  auto out = Check(db->DescribeTimeToLive({ReqString(in, "TableName")}));
  w.StartObject();
  Key(w, "TimeToLiveDescription");
  w.StartObject();
  Key(w, "TimeToLiveStatus");
  w.String(out.enabled ? "ENABLED" : "DISABLED");
  if (out.attribute_name) {
    Key(w, "AttributeName");
    Str(w, *out.attribute_name);
  }
  w.EndObject();
  w.EndObject();
}

void TagResource(Database* db, const Json& in, Writer& w) {
  TagResourceRequest r;
  r.resource_arn = ReqString(in, "ResourceArn");
  if (const Json* tags = OptArray(in, "Tags")) {
    for (const auto& t : tags->GetArray())
      r.tags[ReqString(t, "Key")] = OptString(t, "Value").value_or("");
  }
  Status s = db->TagResource(r);
  if (!s.ok()) Fail(s);
  w.StartObject();
  w.EndObject();
}

void UntagResource(Database* db, const Json& in, Writer& w) {
  UntagResourceRequest r;
  r.resource_arn = ReqString(in, "ResourceArn");
  r.tag_keys = StringList(in, "TagKeys").value_or(std::vector<std::string>{});
  Status s = db->UntagResource(r);
  if (!s.ok()) Fail(s);
  w.StartObject();
  w.EndObject();
}

void ListTagsOfResource(Database* db, const Json& in, Writer& w) {
  auto out = Check(db->ListTagsOfResource({ReqString(in, "ResourceArn")}));
  w.StartObject();
  Key(w, "Tags");
  w.StartArray();
  for (const auto& [k, v] : out.tags) {
    w.StartObject();
    Key(w, "Key");
    Str(w, k);
    Key(w, "Value");
    Str(w, v);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void DescribeEndpoints(Database*, const Json&, Writer& w) {
  w.StartObject();
  Key(w, "Endpoints");
  w.StartArray();
  w.StartObject();
  Key(w, "Address");
  w.String("localhost");
  Key(w, "CachePeriodInMinutes");
  w.Int(1440);
  w.EndObject();
  w.EndArray();
  w.EndObject();
}

void DescribeLimits(Database*, const Json&, Writer& w) {
  w.StartObject();
  for (const char* k : {"AccountMaxReadCapacityUnits", "AccountMaxWriteCapacityUnits"}) {
    Key(w, k);
    w.Int(80000);
  }
  for (const char* k : {"TableMaxReadCapacityUnits", "TableMaxWriteCapacityUnits"}) {
    Key(w, k);
    w.Int(40000);
  }
  w.EndObject();
}

const std::map<std::string, Op, std::less<>>& Operations() {
  static const std::map<std::string, Op, std::less<>> ops = {
      {"CreateTable", CreateTable},
      {"DescribeTable", DescribeTable},
      {"DeleteTable", DeleteTable},
      {"UpdateTable", UpdateTable},
      {"ListTables", ListTables},
      {"PutItem", PutItem},
      {"GetItem", GetItem},
      {"DeleteItem", DeleteItem},
      {"UpdateItem", UpdateItem},
      {"Query", Query},
      {"Scan", Scan},
      {"BatchGetItem", BatchGetItem},
      {"BatchWriteItem", BatchWriteItem},
      {"TransactWriteItems", TransactWriteItems},
      {"TransactGetItems", TransactGetItems},
      {"DescribeLimits", DescribeLimits},
      {"DescribeEndpoints", DescribeEndpoints},
      {"UpdateTimeToLive", UpdateTimeToLive},
      {"DescribeTimeToLive", DescribeTimeToLive},
      {"TagResource", TagResource},
      {"UntagResource", UntagResource},
      {"ListTagsOfResource", ListTagsOfResource},
  };
  return ops;
}

std::string ErrorNamespace(const Status& s) {
  switch (s.code()) {
    case Status::Code::kValidation:
      return "com.amazon.coral.validate#";
    case Status::Code::kSerialization:
      return "com.amazon.coral.service#";
    default:
      return "com.amazonaws.dynamodb.v20120810#";
  }
}

// Extra error-body members DynamoDB sends: the old item of a failed
// condition, a transaction's cancellation reasons.
void WriteErrorDetail(Writer& w, const Status& s) {
  if (const auto* c = s.payload<ConditionalCheckFailedDetail>()) {
    if (c->item) {
      Key(w, "Item");
      WriteItem(w, *c->item);
    }
  }
  if (const auto* t = s.payload<TransactionCanceledDetail>()) {
    Key(w, "CancellationReasons");
    w.StartArray();
    for (const auto& r : t->reasons) {
      w.StartObject();
      Key(w, "Code");
      Str(w, r.code);
      if (r.message) {
        Key(w, "Message");
        Str(w, *r.message);
      }
      if (r.item) {
        Key(w, "Item");
        WriteItem(w, *r.item);
      }
      w.EndObject();
    }
    w.EndArray();
  }
}

}  // namespace

WireResponse ErrorResponse(const Status& status) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  Key(w, "__type");
  std::string type = ErrorNamespace(status) + std::string(status.ErrorName());
  if (status.code() == Status::Code::kInternal || status.code() == Status::Code::kCorruption ||
      status.code() == Status::Code::kIOError) {
    type = "com.amazonaws.dynamodb.v20120810#InternalServerError";
  }
  Str(w, type);
  Key(w, "message");
  Str(w, status.message());
  WriteErrorDetail(w, status);
  w.EndObject();
  bool internal = status.code() == Status::Code::kInternal ||
                  status.code() == Status::Code::kCorruption ||
                  status.code() == Status::Code::kIOError;
  return {internal ? 500 : 400, std::string(buf.GetString(), buf.GetSize())};
}

WireResponse Handle(Database* db, std::string_view target, std::string_view body) {
  constexpr std::string_view kPrefix = "DynamoDB_20120810.";
  auto unknown = [&] {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    Key(w, "__type");
    w.String("com.amazon.coral.service#UnknownOperationException");
    w.EndObject();
    return WireResponse{400, std::string(buf.GetString(), buf.GetSize())};
  };
  if (target.substr(0, kPrefix.size()) != kPrefix) return unknown();
  auto op = Operations().find(target.substr(kPrefix.size()));
  if (op == Operations().end()) return unknown();
  rapidjson::Document doc;
  Status parsed = format::ParseJson(body.empty() ? std::string_view("{}") : body, &doc);
  if (!parsed.ok()) return ErrorResponse(parsed);
  if (!doc.IsObject())
    return ErrorResponse(Status::Serialization("Request body must be a JSON object"));
  try {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    op->second(db, doc, w);
    return {200, std::string(buf.GetString(), buf.GetSize())};
  } catch (const WireError& e) {
    return ErrorResponse(e.status);
  } catch (const std::exception& e) {
    return ErrorResponse(Status::Internal(e.what()));
  }
}

}  // namespace dynarock::wire
