// TTL expiry: which items expire (DynamoDB's rule), that deletions go
// through the write path (indexes, statistics and the stream stay exact),
// that a live item is never deleted, and the background sweep.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::N;
using testing::S;

constexpr int64_t kNowS = 1'800'000'000;

class TtlTest : public testing::DbTest {
 protected:
  void SetUp() override {
    options_.clock_ms = [now = now_] { return *now; };
    options_.ttl_sweep_interval_ms = 0;  // ExpireItems() sweeps, deterministically
    testing::DbTest::SetUp();
  }
  // Fleet readings keyed (vehicleId, ts), a GSI by depot, a stream with
  // old images, TTL on expiresAt.
  void CreateFleet() {
    auto r = testing::TableRequest("Fleet", "vehicleId", ScalarAttributeType::kS, "ts",
                                   ScalarAttributeType::kN);
    r.attribute_definitions.push_back({"depotCode", ScalarAttributeType::kS});
    r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
        {"ByDepot", {{"depotCode", KeyType::kHash}}, {ProjectionType::kAll, {}}, std::nullopt}};
    r.stream_specification = StreamSpecification{true, StreamViewType::kNewAndOldImages};
    Create(r);
    ASSERT_OK(db_->UpdateTimeToLive({"Fleet", {true, "expiresAt"}}));
  }
  void PutReading(int ts, std::optional<AttributeValue> expires) {
    Item item{
        {"vehicleId", S("V-7741")}, {"ts", N(std::to_string(ts))}, {"depotCode", S("DEP-LON-3")}};
    if (expires) item["expiresAt"] = *expires;
    Put("Fleet", item);
  }
  std::set<int> Remaining() {
    auto scan = db_->Scan({.table_name = "Fleet"});
    EXPECT_OK(scan);
    std::set<int> out;
    for (const auto& i : scan->items) out.insert(std::stoi(i.at("ts").n().ToString()));
    return out;
  }
  std::shared_ptr<int64_t> now_ = std::make_shared<int64_t>(kNowS * 1000);
};

AttributeValue Seconds(int64_t s) { return AttributeValue::N(Number::FromInt64(s)); }

TEST_F(TtlTest, DeletesExactlyTheExpiredItems) {
  CreateFleet();
  PutReading(1, Seconds(kNowS - 10));                   // expired
  PutReading(2, Seconds(kNowS));                        // expires now: expired
  PutReading(3, Seconds(kNowS + 10));                   // live
  PutReading(4, Seconds(kNowS - 6 * 365 * 24 * 3600));  // more than 5 years old: never
  PutReading(5, Seconds(kNowS * 1000));                 // milliseconds: far future, never
  PutReading(6, S(std::to_string(kNowS - 10)));         // a string: ignored
  PutReading(7, std::nullopt);                          // no attribute
  PutReading(8, N(std::to_string(kNowS) + ".9"));       // fraction truncated: expired
  PutReading(9, Seconds(0));                            // <= 0: older than 5 years, never
  Item nested{{"vehicleId", S("V-7741")},
              {"ts", N("10")},
              {"meta", AttributeValue::M({{"expiresAt", Seconds(kNowS - 10)}})}};
  Put("Fleet", nested);  // not at the top level: never
  const size_t records_before =
      db_->ReadStream(*db_->DescribeTable({"Fleet"})->table.latest_stream_arn, "", 1000)->size();

  auto deleted = db_->ExpireItems();
  ASSERT_OK(deleted);
  EXPECT_EQ(*deleted, 3);
  EXPECT_EQ(Remaining(), (std::set<int>{3, 4, 5, 6, 7, 9, 10}));
  EXPECT_EQ(*db_->ExpireItems(), 0);  // idempotent

  // Statistics and the GSI agree with the table.
  auto d = db_->DescribeTable({"Fleet"});
  ASSERT_OK(d);
  EXPECT_EQ(d->table.item_count, 7);
  EXPECT_EQ((*d->table.global_secondary_indexes)[0].item_count, 6);  // item 10 has no depot
  auto by_depot = db_->Query(
      {.table_name = "Fleet",
       .index_name = "ByDepot",
       .key_condition_expression = "depotCode = :d",
       .expression_attribute_values = ExpressionAttributeValues{{":d", S("DEP-LON-3")}}});
  ASSERT_OK(by_depot);
  EXPECT_EQ(by_depot->count, 6);

  // Each deletion has its REMOVE record, marked as a TTL deletion.
  auto records = db_->ReadStream(*d->table.latest_stream_arn, "", 1000);
  ASSERT_OK(records);
  ASSERT_EQ(records->size(), records_before + 3);
  for (size_t i = records_before; i < records->size(); ++i) {
    const StreamRecord& r = (*records)[i];
    EXPECT_EQ(r.event_name, StreamEventName::kRemove);
    EXPECT_TRUE(r.time_to_live_deletion);
    ASSERT_TRUE(r.old_image);
    EXPECT_TRUE(r.old_image->count("expiresAt"));
    EXPECT_FALSE(r.new_image);
  }
  for (size_t i = 0; i < records_before; ++i) EXPECT_FALSE((*records)[i].time_to_live_deletion);
}

TEST_F(TtlTest, UpdatedItemsAndDisabledTablesAreKept) {
  CreateFleet();
  PutReading(1, Seconds(kNowS - 10));
  PutReading(2, Seconds(kNowS - 10));
  // Extending the TTL, or removing it, saves the item.
  UpdateItemRequest extend{.table_name = "Fleet",
                           .key = {{"vehicleId", S("V-7741")}, {"ts", N("1")}},
                           .update_expression = "SET expiresAt = :t"};
  extend.expression_attribute_values = ExpressionAttributeValues{{":t", Seconds(kNowS + 100)}};
  ASSERT_OK(db_->UpdateItem(extend));
  UpdateItemRequest remove{.table_name = "Fleet",
                           .key = {{"vehicleId", S("V-7741")}, {"ts", N("2")}},
                           .update_expression = "REMOVE expiresAt"};
  ASSERT_OK(db_->UpdateItem(remove));
  EXPECT_EQ(*db_->ExpireItems(), 0);
  EXPECT_EQ(Remaining(), (std::set<int>{1, 2}));
  // Time passes: item 1 expires now.
  *now_ += 101 * 1000;
  EXPECT_EQ(*db_->ExpireItems(), 1);
  EXPECT_EQ(Remaining(), (std::set<int>{2}));

  // With TTL disabled nothing expires.
  PutReading(3, Seconds(kNowS - 10));
  *now_ += options_.ttl_change_cooldown_ms;
  ASSERT_OK(db_->UpdateTimeToLive({"Fleet", {false, "expiresAt"}}));
  EXPECT_EQ(*db_->ExpireItems(), 0);
  EXPECT_EQ(Remaining(), (std::set<int>{2, 3}));
}

TEST_F(TtlTest, BackgroundSweepIsIncrementalAndResumes) {
  options_.ttl_sweep_interval_ms = 5;
  options_.ttl_sweep_batch_items = 3;  // many rounds for one table
  Reopen();
  CreateFleet();
  for (int i = 0; i < 20; ++i) PutReading(i, Seconds(i % 2 ? kNowS + 1000 : kNowS - 1));
  // Restarts in the middle do not lose the sweep's place or its work.
  for (int round = 0; round < 200 && Remaining().size() > 10; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (round % 3 == 0) Reopen();
  }
  std::set<int> odd;
  for (int i = 1; i < 20; i += 2) odd.insert(i);
  EXPECT_EQ(Remaining(), odd);
  EXPECT_EQ(db_->DescribeTable({"Fleet"})->table.item_count, 10);
}

}  // namespace
}  // namespace dynarock
