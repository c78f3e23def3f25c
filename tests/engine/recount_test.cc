// The statistics recount (a compaction filter observing a full manual
// compaction): it drops zero collection counters and corrects counters that
// drifted from the data.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <atomic>
#include <thread>

#include "dynarock/db.h"
#include "engine/counters.h"
#include "engine/index.h"
#include "format/item_size.h"
#include "tests/util/db_fixture.h"
#include "tests/util/raw_db.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::N;
using testing::S;
using T = ScalarAttributeType;

class RecountTest : public DbTest {
 protected:
  void SetUp() override {
    DbTest::SetUp();
    CreateTableRequest r = testing::TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS);
    r.attribute_definitions.push_back({"speedKph", T::kN});
    r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
        {"BySpeed", {{"vehicleId", KeyType::kHash}, {"speedKph", KeyType::kRange}}, {}}};
    Create(r);
    for (int v = 0; v < 3; ++v) {
      for (int i = 0; i < 5; ++i) {
        Put("Telemetry", {{"vehicleId", S("VEH#" + std::to_string(v))},
                          {"recordedAt", S("TS#" + std::to_string(i))},
                          {"speedKph", N(std::to_string(10 * i))}});
      }
    }
  }

  // Writes a bogus delta straight into the statistics column family, as a
  // bug or a torn external edit would, bypassing the engine.
  void CorruptCounter(const std::string& key, Counter delta) {
    db_.reset();
    {
      testing::RawDb raw(dir_);
      ASSERT_OK(raw.db()->Merge({}, raw.cf("stats"), key, EncodeCounter(delta)));
    }
    Reopen();
  }
};

TEST_F(RecountTest, KeepsCollectionCountersOnlyForLsiTables) {
  // A table without an LSI keeps no collection counters (STORAGE_LAYOUT.md,
  // version 7): its largest collections are read from the items. A table
  // with an LSI writes its counters whole and deletes an emptied one at once.
  Create(testing::TableRequest("Plain", "vehicleId", T::kS, "recordedAt", T::kS));
  for (int v = 0; v < 3; ++v) {
    for (int i = 0; i < 5; ++i) {
      Put("Plain", {{"vehicleId", S("VEH#" + std::to_string(v))},
                    {"recordedAt", S("TS#" + std::to_string(i))}});
    }
  }
  for (const char* table : {"Plain", "Telemetry"}) {
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(db_->DeleteItem({.table_name = table,
                                   .key = {{"vehicleId", S("VEH#1")}, {"recordedAt", S("TS#" + std::to_string(i))}}})
                      .ok());
    }
    auto top = db_->LargestCollections(table, 10);
    ASSERT_OK(top);
    ASSERT_EQ(top->size(), 2u);
    for (const auto& c : *top) EXPECT_EQ(c.item_count, 5);
  }
  auto report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->collections_checked, 2);  // Telemetry's VEH#0 and VEH#2
  EXPECT_EQ(report->empty_collections_dropped, 0);
  EXPECT_EQ(report->collections_corrected, 0);
  EXPECT_EQ(report->table_totals_corrected, 0);

  // A stray zero counter under Plain (Plain's space id is 3, after
  // Telemetry's 1 and its LSI's 2), as a version 6 database left one: the
  // recount drops it.
  CorruptCounter(CollectionStatsKey(3, S("VEH#1")), {0, 0});
  report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->collections_checked, 3);
  EXPECT_EQ(report->empty_collections_dropped, 1);
  EXPECT_EQ(report->collections_corrected, 0);
  auto again = db_->RecountStatistics();
  ASSERT_OK(again);
  EXPECT_EQ(again->collections_checked, 2);
  EXPECT_EQ(again->empty_collections_dropped, 0);
}

TEST_F(RecountTest, CorrectsDrift) {
  // Space id 1 is the first table.
  const std::string key = CollectionStatsKey(1, S("VEH#2"));
  CorruptCounter(key, {7, 12345});
  CorruptCounter(TableStatsKey(1), {-3, 0});
  auto before = db_->LargestCollections("Telemetry", 1);
  ASSERT_OK(before);
  EXPECT_EQ((*before)[0].item_count, 12);  // the drift is visible
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 12);

  auto report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->collections_corrected, 1);
  EXPECT_EQ(report->table_totals_corrected, 1);
  Reopen();
  auto after = db_->LargestCollections("Telemetry", 3);
  ASSERT_OK(after);
  ASSERT_EQ(after->size(), 3u);
  for (const auto& c : *after) EXPECT_EQ(c.item_count, 5);
  EXPECT_EQ((*after)[0].size_bytes, (*after)[2].size_bytes);
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 15);
  // Writes after the correction keep the counters exact.
  Put("Telemetry", {{"vehicleId", S("VEH#2")}, {"recordedAt", S("TS#9")}, {"speedKph", N("1")}});
  EXPECT_EQ(db_->RecountStatistics()->collections_corrected, 0);
}

TEST_F(RecountTest, CorrectsIndexTotals) {
  auto lsi = [this] { return (*db_->DescribeTable({"Telemetry"})->table.local_secondary_indexes)[0]; };
  const auto exact = lsi();
  EXPECT_EQ(exact.item_count, 15);
  // Space id 2: the first table's first index (ids go table, then its indexes).
  CorruptCounter(TableStatsKey(2), {4, 100});
  EXPECT_EQ(lsi().item_count, 19);  // the drift is visible
  auto report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->index_totals_corrected, 1);
  EXPECT_EQ(report->table_totals_corrected, 0);
  EXPECT_EQ(report->collections_corrected, 0);
  Reopen();
  EXPECT_EQ(lsi().item_count, exact.item_count);
  EXPECT_EQ(lsi().index_size_bytes, exact.index_size_bytes);
  auto again = db_->RecountStatistics();
  ASSERT_OK(again);
  EXPECT_EQ(again->index_totals_corrected, 0);
}

TEST_F(RecountTest, BatchedWritesKeepEveryTotalExact) {
  // A WriteBatch sums each table's and index's change and merges it once
  // (TotalsDelta). Two BatchWriteItems across two tables: puts with and
  // without the GSI key, overwrites that move or drop an entry, deletes.
  CreateTableRequest g = testing::TableRequest("Depots", "vehicleId", T::kS, "recordedAt", T::kS);
  g.attribute_definitions.push_back({"depotCode", T::kS});
  g.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByDepot", {{"depotCode", KeyType::kHash}}, {ProjectionType::kKeysOnly, {}}, std::nullopt}};
  Create(g);
  auto reading = [](int i, std::optional<std::string> depot) {
    Item item{{"vehicleId", S("VEH#" + std::to_string(i % 4))},
              {"recordedAt", S("TS#" + std::to_string(i))}};
    if (depot) item.emplace("depotCode", S(*depot));
    return item;
  };
  BatchWriteItemRequest first;
  for (int i = 0; i < 20; ++i) {  // 15 with a depot, 5 without
    first.request_items["Depots"].push_back(
        {.put_request = PutRequest{reading(i, i % 4 == 3 ? std::nullopt
                                                          : std::optional<std::string>("D1"))}});
  }
  for (int i = 0; i < 5; ++i) {  // overwrites of the fixture's items, one larger
    first.request_items["Telemetry"].push_back(
        {.put_request = PutRequest{{{"vehicleId", S("VEH#0")},
                                    {"recordedAt", S("TS#" + std::to_string(i))},
                                    {"speedKph", N(std::to_string(i))},
                                    {"note", S(std::string(10 * i, 'n'))}}}});
  }
  ASSERT_OK(db_->BatchWriteItem(first));
  BatchWriteItemRequest second;
  for (int i = 0; i < 5; ++i) {  // the entry moves to D2
    second.request_items["Depots"].push_back({.put_request = PutRequest{reading(i, "D2")}});
  }
  for (int i = 5; i < 10; ++i) {  // the entry goes (i == 7 had none)
    second.request_items["Depots"].push_back({.put_request = PutRequest{reading(i, std::nullopt)}});
  }
  for (int i = 10; i < 15; ++i) {  // deleted
    Item key = reading(i, std::nullopt);
    second.request_items["Depots"].push_back({.delete_request = DeleteRequest{key}});
  }
  for (int i = 0; i < 5; ++i) {  // VEH#1 deleted
    second.request_items["Telemetry"].push_back(
        {.delete_request = DeleteRequest{{{"vehicleId", S("VEH#1")},
                                          {"recordedAt", S("TS#" + std::to_string(i))}}}});
  }
  ASSERT_OK(db_->BatchWriteItem(second));

  auto depots = db_->DescribeTable({"Depots"});
  ASSERT_OK(depots);
  EXPECT_EQ(depots->table.item_count, 15);
  // With a depot: i = 0..4 (D2) and 16, 17, 18 (D1).
  EXPECT_EQ((*depots->table.global_secondary_indexes)[0].item_count, 8);
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 10);
  auto report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->table_totals_corrected, 0);
  EXPECT_EQ(report->index_totals_corrected, 0);
  EXPECT_EQ(report->collections_corrected, 0);
}

}  // namespace
}  // namespace dynarock

namespace dynarock {
namespace {

using testing::N;
using testing::S;
using T = ScalarAttributeType;

// The recount runs beside writers (it holds no table against item
// operations), corrects exactly the drift that was injected and nothing the
// writers did meanwhile, and works when RocksDB splits every compaction in
// many (a small max_compaction_bytes, as in a large database).
class RecountConcurrencyTest : public testing::DbTest {
 protected:
  void SetUp() override {
    options_.write_buffer_bytes = 32 << 10;
    options_.max_compaction_bytes = 16 << 10;
    testing::DbTest::SetUp();
    Create(testing::TableRequest("Plain", "vehicleId", T::kS, "recordedAt", T::kS));
    CreateTableRequest lsi =
        testing::TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS);
    lsi.attribute_definitions.push_back({"speedKph", T::kN});
    lsi.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
        {"BySpeed", {{"vehicleId", KeyType::kHash}, {"speedKph", KeyType::kRange}}, {}}};
    Create(lsi);
  }
  Item Reading(int vehicle, int i) {
    return {{"vehicleId", S("VEH#" + std::to_string(vehicle))},
            {"recordedAt", S("TS#" + std::to_string(i))},
            {"speedKph", N(std::to_string(i % 90))},
            {"pad", S(std::string(40 + i % 50, 'p'))}};
  }
};

TEST_F(RecountConcurrencyTest, RunsBesideWritersAndCorrectsOnlyTheDrift) {
  for (const char* table : {"Plain", "Telemetry"}) {
    for (int v = 0; v < 40; ++v) {
      for (int i = 0; i < 20; ++i) Put(table, Reading(v, i));
    }
  }
  // Collections 0-9 of Plain emptied (Plain keeps no collection counters:
  // nothing is left behind).
  for (int v = 0; v < 10; ++v) {
    for (int i = 0; i < 20; ++i) {
      ASSERT_OK(db_->DeleteItem({.table_name = "Plain",
                                 .key = {{"vehicleId", S("VEH#" + std::to_string(v))},
                                         {"recordedAt", S("TS#" + std::to_string(i))}}}));
    }
  }
  // Drift, written straight into the statistics family through the engine's
  // own merge: one collection of each table (on Plain, a stray counter: it
  // keeps none) and Plain's totals.
  {
    db_.reset();
    {
      testing::RawDb raw(dir_);
      // Space ids: Plain 1, Telemetry 2 (its LSI 3).
      for (const auto& [key, delta] : std::vector<std::pair<std::string, Counter>>{
               {CollectionStatsKey(1, S("VEH#20")), {3, 30}},
               {CollectionStatsKey(2, S("VEH#30")), {-2, -9}},
               {TableStatsKey(1), {5, 0}}}) {
        ASSERT_OK(raw.db()->Merge({}, raw.cf("stats"), key, EncodeCounter(delta)));
      }
    }
    Reopen();
  }

  // Writers on collections 10-39 of both tables while the recount runs.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> writes{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (int n = 0; !stop; ++n) {
        const char* table = w == 0 ? "Plain" : "Telemetry";
        int vehicle = 10 + n % 30;
        Item item = Reading(vehicle, 100 + n % 40);
        if (n % 3 == 2) {
          ASSERT_OK(db_->DeleteItem({.table_name = table,
                                     .key = {{"vehicleId", item.at("vehicleId")},
                                             {"recordedAt", item.at("recordedAt")}}}));
        } else {
          ASSERT_OK(db_->PutItem({.table_name = table, .item = item}));
        }
        ++writes;
      }
    });
  }
  while (writes < 50) std::this_thread::yield();
  const int64_t before = writes;
  auto report = db_->RecountStatistics();
  const int64_t during = writes - before;
  stop = true;
  for (auto& t : writers) t.join();
  ASSERT_OK(report);
  EXPECT_GT(during, 0) << "the writers were blocked while the recount ran";
  EXPECT_EQ(report->collections_corrected, 2);
  EXPECT_EQ(report->table_totals_corrected, 1);
  EXPECT_EQ(report->index_totals_corrected, 0);
  EXPECT_EQ(report->empty_collections_dropped, 0);

  // Now quiet: the counters are exact, and the zero counters are gone.
  auto again = db_->RecountStatistics();
  ASSERT_OK(again);
  EXPECT_EQ(again->collections_corrected, 0);
  EXPECT_EQ(again->table_totals_corrected, 0);
  EXPECT_EQ(again->empty_collections_dropped, 0);
  EXPECT_EQ(again->collections_checked, 40);  // Telemetry's; Plain's stray one is gone
  for (const char* table : {"Plain", "Telemetry"}) {
    int64_t scanned = 0;
    ScanRequest scan{.table_name = table};
    scan.select = Select::kCount;
    auto page = db_->Scan(scan);
    ASSERT_OK(page);
    scanned = page->count;
    EXPECT_EQ(db_->DescribeTable({table})->table.item_count, scanned) << table;
  }
  std::cout << during << " writes ran during the recount\n";
}

}  // namespace
}  // namespace dynarock
