#include <gtest/gtest.h>

#include <thread>

#include "dynarock/db.h"
#include "format/item_size.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::B;
using testing::DbTest;
using testing::N;
using testing::S;
using testing::TableRequest;
using T = ScalarAttributeType;

class ItemTest : public DbTest {
 protected:
  void SetUp() override {
    DbTest::SetUp();
    Create(TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS));
    Create(TableRequest("Numbers", "n", T::kN));
    Create(TableRequest("Blobs", "b", T::kB, "s", T::kN));
  }
};

TEST_F(ItemTest, PutGetDeleteRoundTrip) {
  Item meta{{"vehicleId", S("VEH#V-7741")}, {"recordedAt", S("META")},
            {"model", S("eVan")}, {"tags", AttributeValue::SS({"ev", "fleet"})},
            {"spec", AttributeValue::M({{"kWh", N("75.5")}, {"seats", N("3")}})}};
  Put("Telemetry", meta);
  Item key{{"vehicleId", S("VEH#V-7741")}, {"recordedAt", S("META")}};
  auto got = db_->GetItem({.table_name = "Telemetry", .key = key});
  ASSERT_OK(got);
  ASSERT_TRUE(got->item.has_value());
  EXPECT_EQ(*got->item, meta);

  // Overwrite with ALL_OLD returns the previous item.
  Item updated = meta;
  updated["model"] = S("eVan 2");
  auto put = db_->PutItem({.table_name = "Telemetry", .item = updated,
                           .return_values = ReturnValue::kAllOld});
  ASSERT_OK(put);
  ASSERT_TRUE(put->attributes.has_value());
  EXPECT_EQ(*put->attributes, meta);

  auto del = db_->DeleteItem({.table_name = "Telemetry", .key = key,
                              .return_values = ReturnValue::kAllOld});
  ASSERT_OK(del);
  EXPECT_EQ(*del->attributes, updated);
  EXPECT_FALSE(db_->GetItem({.table_name = "Telemetry", .key = key})->item.has_value());
  // Deleting again is not an error and returns nothing.
  auto again = db_->DeleteItem({.table_name = "Telemetry", .key = key,
                                .return_values = ReturnValue::kAllOld});
  ASSERT_OK(again);
  EXPECT_FALSE(again->attributes.has_value());
}

TEST_F(ItemTest, NumberKeysAreCanonical) {
  Put("Numbers", {{"n", N("1000")}, {"v", S("a")}});
  auto got = db_->GetItem({.table_name = "Numbers", .key = {{"n", N("1e3")}}});
  ASSERT_OK(got);
  ASSERT_TRUE(got->item.has_value());
  EXPECT_EQ(got->item->at("n").n().ToString(), "1000");
  Put("Numbers", {{"n", N("1.0E3")}, {"v", S("b")}});  // same key: overwrites
  EXPECT_EQ(db_->DescribeTable({"Numbers"})->table.item_count, 1);
}

TEST_F(ItemTest, StatisticsFollowWrites) {
  Item a{{"vehicleId", S("V1")}, {"recordedAt", S("META")}, {"x", S("12345")}};
  Item b{{"vehicleId", S("V2")}, {"recordedAt", S("META")}};
  Put("Telemetry", a);
  Put("Telemetry", b);
  auto d = db_->DescribeTable({"Telemetry"})->table;
  EXPECT_EQ(d.item_count, 2);
  EXPECT_EQ(d.table_size_bytes, static_cast<int64_t>(format::ItemSize(a) + format::ItemSize(b)));
  a["x"] = S("1");  // shrink
  Put("Telemetry", a);
  ASSERT_TRUE(db_->DeleteItem({.table_name = "Telemetry",
                               .key = {{"vehicleId", S("V2")}, {"recordedAt", S("META")}}})
                  .ok());
  Reopen();
  d = db_->DescribeTable({"Telemetry"})->table;
  EXPECT_EQ(d.item_count, 1);
  EXPECT_EQ(d.table_size_bytes, static_cast<int64_t>(format::ItemSize(a)));
}

TEST_F(ItemTest, ValidationErrorsChangeNothing) {
  struct Case {
    std::string name;
    std::string table;
    Item item;
    std::string message;
  } cases[] = {
      {"missing sort key", "Telemetry", {{"vehicleId", S("V")}},
       "One or more parameter values were invalid: Missing the key recordedAt in the item"},
      {"missing partition key", "Telemetry", {{"recordedAt", S("x")}},
       "One or more parameter values were invalid: Missing the key vehicleId in the item"},
      {"wrong type", "Telemetry", {{"vehicleId", N("1")}, {"recordedAt", S("x")}},
       "One or more parameter values were invalid: Type mismatch for key vehicleId expected: S "
       "actual: N"},
      {"empty string key", "Telemetry", {{"vehicleId", S("")}, {"recordedAt", S("x")}},
       "One or more parameter values are not valid. The AttributeValue for a key attribute "
       "cannot contain an empty string value. Key: vehicleId"},
      {"empty binary key", "Blobs", {{"b", B("")}, {"s", N("1")}},
       "One or more parameter values are not valid. The AttributeValue for a key attribute "
       "cannot contain an empty binary value. Key: b"},
      {"partition key too long", "Telemetry",
       {{"vehicleId", S(std::string(2049, 'x'))}, {"recordedAt", S("x")}},
       "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size "
       "limit of2048 bytes"},
      {"sort key too long", "Telemetry",
       {{"vehicleId", S("V")}, {"recordedAt", S(std::string(1025, 'x'))}},
       "One or more parameter values were invalid: Aggregated size of all range keys has "
       "exceeded the size limit of 1024 bytes"},
      {"item too large", "Telemetry",
       {{"vehicleId", S("V")}, {"recordedAt", S("x")}, {"blob", B(std::string(409600, 'x'))}},
       "Item size has exceeded the maximum allowed size"},
      {"empty set", "Telemetry",
       {{"vehicleId", S("V")}, {"recordedAt", S("x")}, {"s", AttributeValue::SS({})}},
       "One or more parameter values were invalid: An string set  may not be empty"},
  };
  for (const auto& c : cases) {
    auto r = db_->PutItem({.table_name = c.table, .item = c.item});
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status(), Status::Validation(c.message)) << c.name;
  }
  EXPECT_EQ(db_->Scan({.table_name = "Telemetry"})->count, 0);
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 0);

  // The limits themselves are allowed.
  Put("Telemetry", {{"vehicleId", S(std::string(2048, 'x'))},
                    {"recordedAt", S(std::string(1024, 'y'))}});
  Item big{{"vehicleId", S("V")}, {"recordedAt", S("x")}};
  big["blob"] = B(std::string(format::kMaxItemBytes - format::ItemSize(big) - 4, 'z'));
  ASSERT_EQ(format::ItemSize(big), format::kMaxItemBytes);
  Put("Telemetry", big);
}

TEST_F(ItemTest, KeyMapErrors) {
  const std::string mismatch = "The provided key element does not match the schema";
  const Item bad_keys[] = {
      {},  // DynamoDB: an empty key is given, so the key-schema check answers it
      {{"vehicleId", S("V")}},                                             // missing sort key
      {{"vehicleId", S("V")}, {"recordedAt", N("1")}},                     // wrong type
      {{"vehicleId", S("V")}, {"recordedAt", S("x")}, {"extra", S("y")}},  // extra attribute
      {{"vehicle", S("V")}, {"recordedAt", S("x")}},                       // wrong name
  };
  for (const auto& key : bad_keys) {
    EXPECT_EQ(db_->GetItem({.table_name = "Telemetry", .key = key}).status(),
              Status::Validation(mismatch));
    EXPECT_EQ(db_->DeleteItem({.table_name = "Telemetry", .key = key}).status(),
              Status::Validation(mismatch));
  }
  EXPECT_EQ(
      db_->PutItem({.table_name = "Telemetry", .item = {}}).status(),
      Status::Validation(
          "One or more parameter values were invalid: Missing the key vehicleId in the item"));
  EXPECT_EQ(db_->PutItem({.table_name = "Telemetry",
                          .item = {{"vehicleId", S("V")}, {"recordedAt", S("x")}},
                          .return_values = ReturnValue::kAllNew})
                .status(),
            Status::Validation("Return values set to invalid value"));
}

TEST_F(ItemTest, ConcurrentWritersKeepStatisticsExact) {
  // Several threads overwrite and delete overlapping keys; the counters must
  // equal a recount at the end (per-item writes are atomic read-modify-writes).
  constexpr int kThreads = 4, kOps = 400, kKeys = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kOps; ++i) {
        std::string k = "k" + std::to_string((i * 7 + t) % kKeys);
        if ((i + t) % 5 == 0) {
          ASSERT_OK(db_->DeleteItem({.table_name = "Numbers", .key = {{"n", N(k.substr(1))}}}));
        } else {
          ASSERT_TRUE(db_->PutItem({.table_name = "Numbers",
                                    .item = {{"n", N(k.substr(1))},
                                             {"pad", S(std::string(i % 37, 'p'))}}})
                          .ok());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  auto scan = db_->Scan({.table_name = "Numbers"});
  ASSERT_OK(scan);
  int64_t bytes = 0;
  for (const auto& item : scan->items) bytes += static_cast<int64_t>(format::ItemSize(item));
  auto d = db_->DescribeTable({"Numbers"})->table;
  EXPECT_EQ(d.item_count, scan->count);
  EXPECT_EQ(d.table_size_bytes, bytes);
}

}  // namespace
}  // namespace dynarock
