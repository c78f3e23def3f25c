// Expressions through the engine: conditional writes, UpdateItem and its
// ReturnValues, GetItem projections, Query/Scan filters and key condition
// expressions, legacy parameters, and atomicity under concurrent writers.
#include <gtest/gtest.h>

#include <thread>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::N;
using testing::S;
using testing::TableRequest;
using T = ScalarAttributeType;
using AV = AttributeValue;

class WriteExpressionTest : public DbTest {
 protected:
  void SetUp() override {
    DbTest::SetUp();
    Create(TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS));
    Put("Telemetry", Reading("VEH#1", "META", 0));
  }
  static Item Reading(const std::string& v, const std::string& ts, int speed) {
    return {{"vehicleId", S(v)}, {"recordedAt", S(ts)}, {"speedKph", N(std::to_string(speed))},
            {"depotCode", S("DEP-LON-3")}};
  }
  static Item Key(const std::string& v, const std::string& ts) {
    return {{"vehicleId", S(v)}, {"recordedAt", S(ts)}};
  }
  Item Get(const Item& key) {
    auto r = db_->GetItem({.table_name = "Telemetry", .key = key});
    EXPECT_OK(r);
    return r.ok() && r->item ? *r->item : Item{};
  }
};

TEST_F(WriteExpressionTest, ConditionalPutAndDelete) {
  PutItemRequest put{.table_name = "Telemetry", .item = Reading("VEH#1", "META", 5)};
  put.condition_expression = "attribute_not_exists(vehicleId)";
  put.return_values_on_condition_check_failure = ReturnValuesOnConditionCheckFailure::kAllOld;
  auto r = db_->PutItem(put);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status(), Status::ConditionalCheckFailed("The conditional request failed"));
  const auto* detail = r.status().payload<ConditionalCheckFailedDetail>();
  ASSERT_NE(detail, nullptr);
  ASSERT_TRUE(detail->item.has_value());
  EXPECT_EQ(*detail->item, Reading("VEH#1", "META", 0));
  EXPECT_EQ(Get(Key("VEH#1", "META")), Reading("VEH#1", "META", 0));  // unchanged

  // Without ALL_OLD the failure carries no item.
  put.return_values_on_condition_check_failure = ReturnValuesOnConditionCheckFailure::kNone;
  EXPECT_EQ(db_->PutItem(put).status().payload<ConditionalCheckFailedDetail>(), nullptr);

  put.item = Reading("VEH#2", "META", 5);  // a new item: the condition holds
  ASSERT_OK(db_->PutItem(put));

  DeleteItemRequest del{.table_name = "Telemetry", .key = Key("VEH#2", "META")};
  del.condition_expression = "speedKph > :limit";
  del.expression_attribute_values = ExpressionAttributeValues{{":limit", N("10")}};
  EXPECT_EQ(db_->DeleteItem(del).status().code(), Status::Code::kConditionalCheckFailed);
  del.expression_attribute_values = ExpressionAttributeValues{{":limit", N("1")}};
  ASSERT_OK(db_->DeleteItem(del));
  EXPECT_EQ(Get(Key("VEH#2", "META")), Item{});
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 1);
}

TEST_F(WriteExpressionTest, UpdateItemReturnValues) {
  UpdateItemRequest u{.table_name = "Telemetry", .key = Key("VEH#1", "META")};
  u.update_expression = "SET speedKph = speedKph + :d, #s = :s REMOVE depotCode";
  u.expression_attribute_names = ExpressionAttributeNames{{"#s", "status"}};
  u.expression_attribute_values = ExpressionAttributeValues{{":d", N("7")}, {":s", S("moving")}};
  struct Case {
    ReturnValue rv;
    std::optional<Item> expected;
  } cases[] = {
      {ReturnValue::kNone, std::nullopt},
      {ReturnValue::kUpdatedOld, Item{{"speedKph", N("7")}, {"depotCode", S("DEP-LON-3")}}},
      {ReturnValue::kUpdatedNew, Item{{"speedKph", N("14")}, {"status", S("moving")}}},
      {ReturnValue::kAllNew, Item{{"vehicleId", S("VEH#1")}, {"recordedAt", S("META")},
                                  {"speedKph", N("14")}, {"status", S("moving")}}},
  };
  for (const auto& c : cases) {
    Put("Telemetry", Reading("VEH#1", "META", 7));  // each case starts from the same item
    u.return_values = c.rv;
    auto r = db_->UpdateItem(u);
    ASSERT_OK(r);
    EXPECT_EQ(r->attributes, c.expected) << static_cast<int>(c.rv);
  }
  u.return_values = ReturnValue::kAllOld;
  auto r = db_->UpdateItem(u);
  ASSERT_OK(r);
  EXPECT_EQ(r->attributes->at("speedKph"), N("14"));  // the item before this update
}

TEST_F(WriteExpressionTest, UpdateItemCreatesAndValidates) {
  UpdateItemRequest u{.table_name = "Telemetry", .key = Key("VEH#9", "TS#1")};
  u.update_expression = "ADD visits :one";
  u.expression_attribute_values = ExpressionAttributeValues{{":one", N("1")}};
  ASSERT_OK(db_->UpdateItem(u));
  EXPECT_EQ(Get(Key("VEH#9", "TS#1")),
            (Item{{"vehicleId", S("VEH#9")}, {"recordedAt", S("TS#1")}, {"visits", N("1")}}));
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 2);

  struct Case {
    std::string expr;
    std::string message;
  } cases[] = {
      {"SET vehicleId = :one",
       "One or more parameter values were invalid: Cannot update attribute vehicleId. This "
       "attribute is part of the key"},
      {"SET recordedAt.x = :one",
       "Key attributes must be scalars; list random access '[]' and map lookup '.' are not "
       "allowed: Key: recordedAt"},
  };
  for (const auto& c : cases) {
    u.update_expression = c.expr;
    EXPECT_EQ(db_->UpdateItem(u).status(), Status::Validation(c.message)) << c.expr;
  }
  // A failing runtime update changes nothing.
  u.update_expression = "SET visits = visits + :one, missingAttr = nope + :one";
  EXPECT_FALSE(db_->UpdateItem(u).ok());
  EXPECT_EQ(Get(Key("VEH#9", "TS#1")).at("visits"), N("1"));
  // Growing past 400 KB fails with UpdateItem's own message.
  u.update_expression = "SET big = :big";
  u.expression_attribute_values = ExpressionAttributeValues{{":big", AV::B(std::string(409600, 'x'))}};
  EXPECT_EQ(db_->UpdateItem(u).status(),
            Status::Validation("Item size to update has exceeded the maximum allowed size"));
}

// DynamoDB: an UpdateItem of an absent item creates it for SET and ADD,
// and with an empty update creates the key alone; an update that only
// removes (REMOVE, DELETE from a set, legacy AttributeUpdates DELETE)
// creates nothing, and ALL_NEW / UPDATED_NEW then return no Attributes.
TEST_F(WriteExpressionTest, UpdateOfAbsentItemThatOnlyRemovesCreatesNothing) {
  const int64_t count = db_->DescribeTable({"Telemetry"})->table.item_count;
  struct Case {
    std::string expr;
    ExpressionAttributeValues values;
  } removals[] = {{"REMOVE speedKph", {}},
                  {"REMOVE speedKph, depotCode", {}},
                  {"DELETE tags :t", {{":t", AV::SS({"a"})}}},
                  {"REMOVE speedKph DELETE tags :t", {{":t", AV::SS({"a"})}}}};
  int n = 0;
  for (const auto& c : removals) {
    for (ReturnValue rv : {ReturnValue::kAllNew, ReturnValue::kUpdatedNew, ReturnValue::kAllOld}) {
      const Item key = Key("VEH#absent" + std::to_string(n++), "TS#1");
      UpdateItemRequest u{.table_name = "Telemetry", .key = key};
      u.update_expression = c.expr;
      if (!c.values.empty()) u.expression_attribute_values = c.values;
      u.return_values = rv;
      auto r = db_->UpdateItem(u);
      ASSERT_OK(r);
      EXPECT_FALSE(r->attributes.has_value()) << c.expr;
      EXPECT_FALSE(db_->GetItem({.table_name = "Telemetry", .key = key})->item.has_value()) << c.expr;
    }
  }
  {
    const Item key = Key("VEH#absent-legacy", "TS#1");
    UpdateItemRequest u{.table_name = "Telemetry", .key = key};
    u.attribute_updates = std::map<std::string, AttributeValueUpdate>{
        {"depotCode", {.action = AttributeAction::kDelete}}};
    u.return_values = ReturnValue::kAllNew;
    auto r = db_->UpdateItem(u);
    ASSERT_OK(r);
    EXPECT_FALSE(r->attributes.has_value());
    EXPECT_FALSE(db_->GetItem({.table_name = "Telemetry", .key = key})->item.has_value());
  }
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, count);
  // An empty update creates the key alone; SET and ADD create the item.
  UpdateItemRequest empty{.table_name = "Telemetry", .key = Key("VEH#new", "TS#0")};
  empty.return_values = ReturnValue::kAllNew;
  auto created = db_->UpdateItem(empty);
  ASSERT_OK(created);
  EXPECT_EQ(created->attributes, Key("VEH#new", "TS#0"));
  UpdateItemRequest set{.table_name = "Telemetry", .key = Key("VEH#new", "TS#1")};
  set.update_expression = "SET depotCode = :d REMOVE speedKph";
  set.expression_attribute_values = ExpressionAttributeValues{{":d", S("DEP-LON-3")}};
  ASSERT_OK(db_->UpdateItem(set));
  EXPECT_EQ(Get(Key("VEH#new", "TS#1")).at("depotCode"), S("DEP-LON-3"));
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, count + 2);
}

// DynamoDB: SET of list elements past the end appends them, in the order
// of their indexes, not the order written.
TEST_F(WriteExpressionTest, ListElementsSetPastTheEndAppendInIndexOrder) {
  const Item key = Key("VEH#list", "TS#1");
  Item item = key;
  item["a"] = AV::L({S("x"), S("y")});
  ASSERT_OK(db_->PutItem({.table_name = "Telemetry", .item = item}));
  UpdateItemRequest u{.table_name = "Telemetry", .key = key};
  u.update_expression = "SET a[84] = :1, a[37] = :2, a[17] = :3";
  u.expression_attribute_values =
      ExpressionAttributeValues{{":1", S("one")}, {":2", S("two")}, {":3", S("three")}};
  ASSERT_OK(db_->UpdateItem(u));
  EXPECT_EQ(Get(key).at("a"), AV::L({S("x"), S("y"), S("three"), S("two"), S("one")}));
  // In-range elements are replaced in place beside appends.
  u.update_expression = "SET a[9] = :1, a[0] = :2";
  u.expression_attribute_values = ExpressionAttributeValues{{":1", S("one")}, {":2", S("two")}};
  ASSERT_OK(db_->UpdateItem(u));
  EXPECT_EQ(Get(key).at("a"), AV::L({S("two"), S("y"), S("three"), S("two"), S("one"), S("one")}));
}

// VALIDATION.md 5.1: AttributesToGet with a name twice is a
// ValidationException; names are 1..65535 bytes, as in items.
TEST_F(WriteExpressionTest, AttributesToGetDuplicatesAndNameLength) {
  GetItemRequest g{.table_name = "Telemetry", .key = Key("VEH#1", "META")};
  g.attributes_to_get = std::vector<std::string>{"speedKph", "depotCode", "speedKph"};
  EXPECT_EQ(db_->GetItem(g).status(),
            Status::Validation("One or more parameter values were invalid: Duplicate value in "
                               "attribute name: speedKph"));
  ScanRequest s{.table_name = "Telemetry"};
  s.attributes_to_get = std::vector<std::string>{"a", std::string(65536, 'n')};
  EXPECT_EQ(db_->Scan(s).status(),
            Status::Validation("One or more parameter values were invalid: An attribute name must "
                               "be between 1 and 65535 bytes long"));
  s.attributes_to_get = std::vector<std::string>{std::string(65535, 'n')};
  EXPECT_OK(db_->Scan(s));
}

TEST_F(WriteExpressionTest, RequestLevelPlaceholderRules) {
  PutItemRequest put{.table_name = "Telemetry", .item = Reading("VEH#3", "META", 1)};
  put.expression_attribute_values = ExpressionAttributeValues{{":v", N("1")}};
  EXPECT_EQ(db_->PutItem(put).status(),
            Status::Validation("ExpressionAttributeValues can only be specified when using "
                               "expressions: ConditionExpression is null"));
  put.condition_expression = "attribute_not_exists(vehicleId)";
  EXPECT_EQ(db_->PutItem(put).status(),
            Status::Validation("Value provided in ExpressionAttributeValues unused in expressions: "
                               "keys: {:v}"));
  put.expression_attribute_values.reset();
  put.expected = std::map<std::string, ExpectedAttributeValue>{{"vehicleId", {.exists = false}}};
  EXPECT_EQ(db_->PutItem(put).status(),
            Status::Validation("Can not use both expression and non-expression parameters in the "
                               "same request: Non-expression parameters: {Expected} Expression "
                               "parameters: {ConditionExpression}"));
  EXPECT_EQ(Get(Key("VEH#3", "META")), Item{});
}

TEST_F(WriteExpressionTest, LegacyParameters) {
  // Expected: Exists=false, then Value equality, then a ComparisonOperator.
  PutItemRequest put{.table_name = "Telemetry", .item = Reading("VEH#1", "META", 50)};
  put.expected = std::map<std::string, ExpectedAttributeValue>{{"vehicleId", {.exists = false}}};
  EXPECT_EQ(db_->PutItem(put).status().code(), Status::Code::kConditionalCheckFailed);
  put.expected = std::map<std::string, ExpectedAttributeValue>{{"speedKph", {.value = N("0")}}};
  ASSERT_OK(db_->PutItem(put));
  put.expected = std::map<std::string, ExpectedAttributeValue>{
      {"speedKph", {.comparison_operator = ComparisonOperator::kGt, .attribute_value_list = {N("60")}}},
      {"depotCode", {.comparison_operator = ComparisonOperator::kBeginsWith, .attribute_value_list = {S("DEP")}}}};
  put.conditional_operator = ConditionalOperator::kOr;
  ASSERT_OK(db_->PutItem(put));  // speed is 50, but the depot matches
  put.conditional_operator = ConditionalOperator::kAnd;
  EXPECT_EQ(db_->PutItem(put).status().code(), Status::Code::kConditionalCheckFailed);

  // AttributeUpdates.
  UpdateItemRequest u{.table_name = "Telemetry", .key = Key("VEH#1", "META")};
  u.attribute_updates = std::map<std::string, AttributeValueUpdate>{
      {"speedKph", {.value = N("5"), .action = AttributeAction::kAdd}},
      {"depotCode", {.action = AttributeAction::kDelete}},
      {"model", {.value = S("eVan"), .action = AttributeAction::kPut}}};
  ASSERT_OK(db_->UpdateItem(u));
  EXPECT_EQ(Get(Key("VEH#1", "META")), (Item{{"vehicleId", S("VEH#1")}, {"recordedAt", S("META")},
                                           {"speedKph", N("55")}, {"model", S("eVan")}}));

  // AttributesToGet.
  auto g = db_->GetItem({.table_name = "Telemetry", .key = Key("VEH#1", "META"),
                         .attributes_to_get = std::vector<std::string>{"model", "nope"}});
  ASSERT_OK(g);
  EXPECT_EQ(*g->item, (Item{{"model", S("eVan")}}));

  // KeyConditions + QueryFilter.
  for (int i = 0; i < 5; ++i) Put("Telemetry", Reading("VEH#1", "TS#" + std::to_string(i), i * 10));
  QueryRequest q{.table_name = "Telemetry"};
  q.key_conditions = std::map<std::string, LegacyCondition>{
      {"vehicleId", {ComparisonOperator::kEq, {S("VEH#1")}}},
      {"recordedAt", {ComparisonOperator::kBeginsWith, {S("TS#")}}}};
  q.query_filter = std::map<std::string, LegacyCondition>{{"speedKph", {ComparisonOperator::kGe, {N("20")}}}};
  auto r = db_->Query(q);
  ASSERT_OK(r);
  EXPECT_EQ(r->count, 3);
  EXPECT_EQ(r->scanned_count, 5);
}

// VALIDATION.md 5.1: legacy conditions are checked in their own words,
// naming the legacy operator: value, arity, one type, the operator's types
// (filters and key conditions), BETWEEN's bounds.
TEST_F(WriteExpressionTest, LegacyConditionErrorsNameTheLegacyOperator) {
  using CO = ComparisonOperator;
  struct Case {
    CO op;
    std::vector<AttributeValue> values;
    std::string message;
  } cases[] = {
      {CO::kBeginsWith,
       {N("1")},
       "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for "
       "N AttributeValue type"},
      {CO::kLt,
       {AV::SS({"a"})},
       "One or more parameter values were invalid: ComparisonOperator LT is not valid for SS "
       "AttributeValue type"},
      {CO::kContains,
       {AV::Bool(true)},
       "One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for "
       "BOOL AttributeValue type"},
      {CO::kBetween,
       {N("1"), S("2")},
       "One or more parameter values were invalid: AttributeValues inside AttributeValueList must "
       "be of same type"},
      {CO::kIn,
       {S("a"), N("2")},
       "One or more parameter values were invalid: AttributeValues inside AttributeValueList must "
       "be of same type"},
      {CO::kBetween,
       {N("9"), N("2")},
       "The BETWEEN condition was provided a range where the lower bound is greater than the upper "
       "bound"},
      {CO::kBetween,
       {N("1")},
       "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN "
       "ComparisonOperator"},
  };
  for (const auto& c : cases) {
    ScanRequest s{.table_name = "Telemetry"};
    s.scan_filter = std::map<std::string, LegacyCondition>{{"speedKph", {c.op, c.values}}};
    EXPECT_EQ(db_->Scan(s).status(), Status::Validation(c.message)) << c.message;
  }
  // Key conditions: the same checks.
  QueryRequest q{.table_name = "Telemetry"};
  q.key_conditions = std::map<std::string, LegacyCondition>{
      {"vehicleId", {CO::kEq, {S("VEH#1")}}},
      {"recordedAt", {CO::kBetween, {S("TS#9"), S("TS#1")}}}};
  EXPECT_EQ(db_->Query(q).status(),
            Status::Validation("The BETWEEN condition was provided a range where the lower bound "
                               "is greater than the upper bound"));
  // Expected has no per-operator type rule, but one type and the bounds.
  PutItemRequest put{.table_name = "Telemetry", .item = Reading("VEH#1", "META", 50)};
  put.expected = std::map<std::string, ExpectedAttributeValue>{
      {"speedKph",
       {.comparison_operator = CO::kBetween, .attribute_value_list = {N("9"), N("2")}}}};
  EXPECT_EQ(db_->PutItem(put).status(),
            Status::Validation("The BETWEEN condition was provided a range where the lower bound "
                               "is greater than the upper bound"));
}

// AttributeUpdates words a type clash its own way: ADD or DELETE of a
// value whose type differs from the attribute's is "Type mismatch for
// attribute to update", not the update expression's wording.
TEST_F(WriteExpressionTest, LegacyAddAndDeleteTypeMismatch) {
  Put("Telemetry", Reading("VEH#1", "META", 50));  // speedKph N, depotCode S
  const std::pair<std::string, AttributeValueUpdate> cases[] = {
      {"speedKph", {.value = AV::SS({"x"}), .action = AttributeAction::kAdd}},
      {"depotCode", {.value = N("1"), .action = AttributeAction::kAdd}},
      {"speedKph", {.value = AV::NS({*Number::Parse("1")}), .action = AttributeAction::kDelete}},
      {"depotCode", {.value = AV::L({N("1")}), .action = AttributeAction::kAdd}},
  };
  for (const auto& [name, update] : cases) {
    UpdateItemRequest u{.table_name = "Telemetry", .key = Key("VEH#1", "META")};
    u.attribute_updates = std::map<std::string, AttributeValueUpdate>{{name, update}};
    EXPECT_EQ(db_->UpdateItem(u).status(),
              Status::Validation("Type mismatch for attribute to update"))
        << name;
  }
  EXPECT_EQ(Get(Key("VEH#1", "META")).at("speedKph"), N("50"));
}

TEST_F(WriteExpressionTest, QueryWithExpressionsAndScanFilter) {
  for (int i = 0; i < 10; ++i) Put("Telemetry", Reading("VEH#1", "TS#0" + std::to_string(i), i * 10));
  QueryRequest q{.table_name = "Telemetry"};
  q.key_condition_expression = "vehicleId = :v AND recordedAt BETWEEN :a AND :b";
  q.filter_expression = "speedKph >= :min";
  q.projection_expression = "recordedAt, #sp";
  q.expression_attribute_names = ExpressionAttributeNames{{"#sp", "speedKph"}};
  q.expression_attribute_values = ExpressionAttributeValues{
      {":v", S("VEH#1")}, {":a", S("TS#02")}, {":b", S("TS#07")}, {":min", N("50")}};
  q.scan_index_forward = false;
  auto r = db_->Query(q);
  ASSERT_OK(r);
  EXPECT_EQ(r->scanned_count, 6);  // TS#02..TS#07 read
  EXPECT_EQ(r->count, 3);          // 50, 60, 70 pass the filter
  ASSERT_EQ(r->items.size(), 3u);
  EXPECT_EQ(r->items[0], (Item{{"recordedAt", S("TS#07")}, {"speedKph", N("70")}}));

  struct Case {
    std::string key_condition;
    std::string filter;
    std::string message;
  } cases[] = {
      {"vehicleId = :v OR recordedAt = :a", "", "Invalid operator used in KeyConditionExpression: OR"},
      {"vehicleId <> :v", "", "Invalid operator used in KeyConditionExpression: <>"},
      {"vehicleId = :v AND vehicleId = :a", "",
       "KeyConditionExpressions must only contain one condition per key"},
      {"recordedAt = :a", "", "Query condition missed key schema element: vehicleId"},
      {"vehicleId > :v", "", "Query key condition not supported"},
      {"", "", "Invalid KeyConditionExpression: The expression can not be empty;"},
      {"vehicleId = :v", "recordedAt = :a",
       "Filter Expression can only contain non-primary key attributes: Primary key attribute: "
       "recordedAt"},
  };
  for (const auto& c : cases) {
    QueryRequest bad{.table_name = "Telemetry"};
    bad.key_condition_expression = c.key_condition;
    if (!c.filter.empty()) bad.filter_expression = c.filter;
    ExpressionAttributeValues values{{":v", S("VEH#1")}, {":a", S("TS#02")}};
    // Only the placeholders the expressions use.
    ExpressionAttributeValues used;
    for (const auto& [k, v] : values) {
      if ((c.key_condition + " " + c.filter).find(k) != std::string::npos) used[k] = v;
    }
    if (!used.empty()) bad.expression_attribute_values = used;
    EXPECT_EQ(db_->Query(bad).status(), Status::Validation(c.message)) << c.key_condition;
  }

  ScanRequest s{.table_name = "Telemetry"};
  s.filter_expression = "speedKph BETWEEN :lo AND :hi AND begins_with(recordedAt, :ts)";
  s.expression_attribute_values = ExpressionAttributeValues{{":lo", N("20")}, {":hi", N("40")}, {":ts", S("TS#")}};
  s.select = Select::kCount;
  auto scan = db_->Scan(s);
  ASSERT_OK(scan);
  EXPECT_EQ(scan->count, 3);  // Scan filters may use key attributes
  EXPECT_EQ(scan->scanned_count, 11);
  EXPECT_TRUE(scan->items.empty());
}

// Several threads increment one counter with a conditional update; another
// set uses optimistic locking on a version attribute. No update may be lost.
TEST_F(WriteExpressionTest, ConcurrentConditionalIncrements) {
  constexpr int kThreads = 4, kIncrements = 150;
  Put("Telemetry", {{"vehicleId", S("COUNTER")}, {"recordedAt", S("X")}, {"n", N("0")},
                    {"version", N("0")}, {"total", N("0")}});
  std::vector<std::thread> threads;
  std::atomic<int> conflicts{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        UpdateItemRequest u{.table_name = "Telemetry", .key = Key("COUNTER", "X")};
        u.update_expression = "SET n = n + :one";
        u.condition_expression = "attribute_exists(n) AND n < :max";
        u.expression_attribute_values = ExpressionAttributeValues{{":one", N("1")}, {":max", N("1000000")}};
        ASSERT_OK(db_->UpdateItem(u));
        // Optimistic lock: read version, write version+1 only if unchanged.
        while (true) {
          auto got = db_->GetItem({.table_name = "Telemetry", .key = Key("COUNTER", "X")});
          ASSERT_OK(got);
          const Number version = got->item->at("version").n();
          const Number total = got->item->at("total").n();
          UpdateItemRequest v{.table_name = "Telemetry", .key = Key("COUNTER", "X")};
          v.update_expression = "SET version = :next, #t = :total";
          v.condition_expression = "version = :seen";
          v.expression_attribute_names = ExpressionAttributeNames{{"#t", "total"}};
          v.expression_attribute_values = ExpressionAttributeValues{
              {":seen", AV::N(version)},
              {":next", AV::N(*Number::Add(version, *Number::Parse("1")))},
              {":total", AV::N(*Number::Add(total, *Number::Parse("2")))}};
          auto r = db_->UpdateItem(v);
          if (r.ok()) break;
          ASSERT_EQ(r.status().code(), Status::Code::kConditionalCheckFailed);
          ++conflicts;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  Item final_item = Get(Key("COUNTER", "X"));
  EXPECT_EQ(final_item.at("n"), N(std::to_string(kThreads * kIncrements)));
  EXPECT_EQ(final_item.at("version"), N(std::to_string(kThreads * kIncrements)));
  EXPECT_EQ(final_item.at("total"), N(std::to_string(2 * kThreads * kIncrements)));
  std::cout << "optimistic-lock retries: " << conflicts.load() << "\n";
}

}  // namespace
}  // namespace dynarock
