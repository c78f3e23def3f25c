// The C++ expression builder: what it renders, and that what it renders
// parses and means what was built (round trips through the engine).
#include "dynarock/expression_builder.h"

#include <gtest/gtest.h>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using namespace dynarock::expression;
using testing::DbTest;
using testing::TableRequest;
using T = ScalarAttributeType;

TEST(ExpressionBuilderTest, RendersPlaceholdersForEveryNameAndValue) {
  auto simple = Builder()
                    .WithCondition(Equal(Name("status"), Value(S("idle")))
                                       .And(Between(Name("speed"), Value(N(10)), Value(N(20)))
                                                .Or(In(Name("status"), {Value(S("a")), Value(S("b"))}))))
                    .WithProjection({Name("status"), Name("geo").Key("name").Index(0)})
                    .Build();
  EXPECT_EQ(*simple.condition, "#0 = :0 AND (#1 BETWEEN :1 AND :2 OR #0 IN (:3, :4))");
  EXPECT_EQ(*simple.projection, "#0, #2.#3[0]");
  EXPECT_EQ(*simple.names, (ExpressionAttributeNames{{"#0", "status"}, {"#1", "speed"},
                                                     {"#2", "geo"}, {"#3", "name"}}));
  EXPECT_EQ(simple.values->size(), 5u);
  EXPECT_EQ(simple.values->at(":0"), S("idle"));
  EXPECT_FALSE(simple.update.has_value());

  auto u = Builder()
               .WithUpdate(Update()
                               .Set(Name("count"), Plus(IfNotExists(Name("count"), Value(N(0))), Value(N(1))))
                               .Remove(Name("old").Index(1))
                               .Add(Name("tags"), AttributeValue::SS({"t"}))
                               .Delete(Name("gone"), AttributeValue::SS({"g"})))
               .Build();
  EXPECT_EQ(*u.update, "SET #0 = if_not_exists(#0, :0) + :1 REMOVE #1[1] ADD #2 :2 DELETE #3 :3");
}

class ExpressionBuilderDbTest : public DbTest {};

TEST_F(ExpressionBuilderDbTest, RoundTripsThroughTheEngine) {
  Create(TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS));
  for (int m = 0; m < 10; ++m) {
    Put("Telemetry", {{"vehicleId", S("VEH#V-7741")},
                      {"recordedAt", S("TS#0" + std::to_string(m))},
                      {"speedKph", N(40 + 10 * m)},
                      {"status", S(m % 2 ? "moving" : "idle")},  // "status" is a reserved word
                      {"name", S("reading")}});                   // so is "name"
  }
  // Query: one vehicle, a window, newest first, fast readings, two attributes.
  QueryRequest q{.table_name = "Telemetry"};
  q.scan_index_forward = false;
  Builder()
      .WithKeyCondition(Equal(Name("vehicleId"), Value(S("VEH#V-7741")))
                            .And(Between(Name("recordedAt"), Value(S("TS#02")), Value(S("TS#08")))))
      .WithFilter(GreaterThan(Name("speedKph"), Value(N(70))).And(Equal(Name("status"), Value(S("moving")))))
      .WithProjection({Name("recordedAt"), Name("name")})
      .Build()
      .ApplyTo(&q);
  auto r = db_->Query(q);
  ASSERT_OK(r);
  EXPECT_EQ(r->scanned_count, 7);
  std::vector<Item> expected = {{{"recordedAt", S("TS#07")}, {"name", S("reading")}},
                                {{"recordedAt", S("TS#05")}, {"name", S("reading")}}};
  EXPECT_EQ(r->items, expected);

  // Conditional update: increment only while idle, with functions and a list.
  UpdateItemRequest u{.table_name = "Telemetry",
                      .key = {{"vehicleId", S("VEH#V-7741")}, {"recordedAt", S("TS#00")}}};
  Builder()
      .WithCondition(Equal(Name("status"), Value(S("idle"))).And(AttributeExists(Name("speedKph"))))
      .WithUpdate(Update()
                      .Set(Name("visits"), Plus(IfNotExists(Name("visits"), Value(N(0))), Value(N(1))))
                      .Set(Name("log"), ListAppend(IfNotExists(Name("log"), Value(AttributeValue::L({}))),
                                                   Value(AttributeValue::L({S("seen")}))))
                      .Remove(Name("name"))
                      .Add(Name("tags"), AttributeValue::SS({"checked"})))
      .Build()
      .ApplyTo(&u);
  u.return_values = ReturnValue::kAllNew;
  for (int i = 0; i < 2; ++i) {
    auto up = db_->UpdateItem(u);
    ASSERT_OK(up);
  }
  auto got = db_->GetItem({.table_name = "Telemetry", .key = u.key});
  ASSERT_OK(got);
  EXPECT_EQ(got->item->at("visits"), N(2));
  EXPECT_EQ(got->item->at("log"), AttributeValue::L({S("seen"), S("seen")}));
  EXPECT_EQ(got->item->at("tags"), AttributeValue::SS({"checked"}));
  EXPECT_FALSE(got->item->count("name"));

  // A condition that is false leaves the item alone.
  PutItemRequest put{.table_name = "Telemetry", .item = {{"vehicleId", S("VEH#V-7741")}, {"recordedAt", S("TS#01")}}};
  Builder().WithCondition(Equal(Name("status"), Value(S("idle")))).Build().ApplyTo(&put);
  EXPECT_EQ(db_->PutItem(put).status().code(), Status::Code::kConditionalCheckFailed);
  // AttributeType and Contains and NOT.
  ScanRequest s{.table_name = "Telemetry"};
  Builder()
      .WithFilter(AttributeType(Name("tags"), AttrType::kSS)
                      .And(Contains(Name("tags"), Value(S("checked"))))
                      .And(BeginsWith(Name("recordedAt"), Value(S("TS#"))).Not().Not()))
      .Build()
      .ApplyTo(&s);
  auto scan = db_->Scan(s);
  ASSERT_OK(scan);
  EXPECT_EQ(scan->count, 1);
}

}  // namespace
}  // namespace dynarock
