// Secondary indexes and collection statistics: CreateTable validation, GSI
// and LSI queries (ordering, pagination, projections, Select rules), sparse
// indexes, key changes, the LSI collection size limit and
// ItemCollectionMetrics, and a randomized check that every index and every
// collection counter equals what the table implies.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "dynarock/db.h"
#include "format/item_size.h"
#include "tests/util/db_fixture.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::N;
using testing::S;
using testing::TableRequest;
using T = ScalarAttributeType;

CreateTableRequest FleetTable(ProjectionType gsi_projection = ProjectionType::kAll,
                              std::vector<std::string> include = {}) {
  CreateTableRequest r = TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS);
  r.attribute_definitions.push_back({"depotCode", T::kS});
  r.attribute_definitions.push_back({"speedKph", T::kN});
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByDepot",
       {{"depotCode", KeyType::kHash}, {"recordedAt", KeyType::kRange}},
       {gsi_projection, include},
       std::nullopt}};
  r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"BySpeed",
       {{"vehicleId", KeyType::kHash}, {"speedKph", KeyType::kRange}},
       {ProjectionType::kKeysOnly, {}}}};
  return r;
}

Item Reading(int v, int minute, int speed, std::string depot = "DEP-LON-3") {
  char ts[40];
  std::snprintf(ts, sizeof ts, "TS#2026-06-23T09:%02d:00Z", minute);
  Item item{{"vehicleId", S("VEH#" + std::to_string(v))},
            {"recordedAt", S(ts)},
            {"speedKph", N(std::to_string(speed))},
            {"fuelPct", N("0.5")}};
  if (!depot.empty()) item["depotCode"] = S(depot);
  return item;
}

class IndexTest : public DbTest {
 protected:
  std::vector<std::string> SortKeys(const QueryResponse& r) {
    std::vector<std::string> out;
    for (const auto& i : r.items)
      out.push_back(i.at("vehicleId").s() + "/" + i.at("recordedAt").s());
    return out;
  }
  // Every index equals the index recomputed from a table scan, and every
  // collection counter equals a recount.
  void VerifyIndexesAndStatistics() {
    auto table = db_->Scan({.table_name = "Telemetry"});
    ASSERT_OK(table);
    std::multiset<std::string> gsi_expected, lsi_expected;
    std::map<std::string, std::pair<int64_t, int64_t>> collections;
    for (const auto& item : table->items) {
      std::string id = item.at("vehicleId").s() + "/" + item.at("recordedAt").s();
      int64_t bytes = static_cast<int64_t>(format::ItemSize(item));
      if (item.count("depotCode")) {
        gsi_expected.insert(item.at("depotCode").s() + "|" + id + "|" +
                            (item.count("fuelPct") ? item.at("fuelPct").n().ToString() : ""));
      }
      if (item.count("speedKph")) {
        lsi_expected.insert(item.at("speedKph").n().ToString() + "|" + id);
        Item entry{{"vehicleId", item.at("vehicleId")},
                   {"recordedAt", item.at("recordedAt")},
                   {"speedKph", item.at("speedKph")}};
        bytes += static_cast<int64_t>(format::ItemSize(entry)) + 100;
      }
      auto& c = collections[item.at("vehicleId").s()];
      c.first += 1;
      c.second += bytes;
    }
    std::multiset<std::string> gsi_got, lsi_got;
    auto gsi = db_->Scan({.table_name = "Telemetry", .index_name = "ByDepot"});
    ASSERT_OK(gsi);
    for (const auto& e : gsi->items) {
      gsi_got.insert(e.at("depotCode").s() + "|" + e.at("vehicleId").s() + "/" +
                     e.at("recordedAt").s() + "|" +
                     (e.count("fuelPct") ? e.at("fuelPct").n().ToString() : ""));
      EXPECT_FALSE(e.count("speedKph"));  // not projected
    }
    auto lsi = db_->Scan({.table_name = "Telemetry", .index_name = "BySpeed"});
    ASSERT_OK(lsi);
    for (const auto& e : lsi->items) {
      lsi_got.insert(e.at("speedKph").n().ToString() + "|" + e.at("vehicleId").s() + "/" +
                     e.at("recordedAt").s());
    }
    EXPECT_EQ(gsi_got, gsi_expected);
    EXPECT_EQ(lsi_got, lsi_expected);
    auto top = db_->LargestCollections("Telemetry", 100);
    ASSERT_OK(top);
    std::map<std::string, std::pair<int64_t, int64_t>> counted;
    for (const auto& c : *top) counted[c.key.at("vehicleId").s()] = {c.item_count, c.size_bytes};
    EXPECT_EQ(counted, collections);
    auto d = db_->DescribeTable({"Telemetry"})->table;
    EXPECT_EQ((*d.global_secondary_indexes)[0].item_count,
              static_cast<int64_t>(gsi_expected.size()));
    EXPECT_EQ((*d.local_secondary_indexes)[0].item_count,
              static_cast<int64_t>(lsi_expected.size()));
  }

  QueryRequest DepotQuery(const std::string& depot) {
    QueryRequest q{.table_name = "Telemetry", .index_name = "ByDepot"};
    q.key_condition_expression = "depotCode = :d";
    q.expression_attribute_values = ExpressionAttributeValues{{":d", S(depot)}};
    return q;
  }
};

TEST_F(IndexTest, CreateTableIndexErrors) {
  struct Case {
    std::string name;
    std::function<void(CreateTableRequest*)> edit;
    std::string message;
  } cases[] = {
      {"lsi without table range key",
       [](CreateTableRequest* r) {
         r->key_schema.pop_back();
         r->attribute_definitions.erase(r->attribute_definitions.begin() + 1);
         r->global_secondary_indexes.reset();
         r->attribute_definitions.erase(r->attribute_definitions.begin() + 1);
       },
       "One or more parameter values were invalid: Table KeySchema does not have a range key, "
       "which is required when specifying a LocalSecondaryIndex"},
      {"lsi with another hash key",
       [](CreateTableRequest* r) {
         (*r->local_secondary_indexes)[0].key_schema[0].attribute_name = "depotCode";
       },
       "One or more parameter values were invalid: Index KeySchema does not have the same leading "
       "hash key as table KeySchema for index: BySpeed. index hash key: depotCode, table hash "
       "key: vehicleId"},
      {"undefined index key", [](CreateTableRequest* r) { r->attribute_definitions.pop_back(); },
       "One or more parameter values were invalid: Some index key attributes are not defined in "
       "AttributeDefinitions. Keys: [vehicleId, speedKph], AttributeDefinitions: [vehicleId, "
       "recordedAt, depotCode]"},
      {"unused definition",
       [](CreateTableRequest* r) {
         r->attribute_definitions.push_back({"extra", T::kS});
       },
       "One or more parameter values were invalid: Number of attributes in KeySchema does not "
       "exactly match number of attributes defined in AttributeDefinitions"},
      {"duplicate index name",
       [](CreateTableRequest* r) { (*r->global_secondary_indexes)[0].index_name = "BySpeed"; },
       "One or more parameter values were invalid: Duplicate index name: BySpeed"},
      {"six lsis",
       [](CreateTableRequest* r) {
         for (int i = 0; i < 5; ++i) {
           auto l = (*r->local_secondary_indexes)[0];
           l.index_name = "L" + std::to_string(i) + "xx";
           r->local_secondary_indexes->push_back(l);
         }
       },
       "One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds "
       "per-table limit of 5"},
      {"twenty-one gsis",
       [](CreateTableRequest* r) {
         for (int i = 0; i < 20; ++i) {
           auto g = (*r->global_secondary_indexes)[0];
           g.index_name = "G" + std::to_string(i) + "xx";
           r->global_secondary_indexes->push_back(g);
         }
       },
       "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the "
       "per-table limit of 20"},
      {"include without attributes",
       [](CreateTableRequest* r) {
         (*r->global_secondary_indexes)[0].projection = {ProjectionType::kInclude, {}};
       },
       "One or more parameter values were invalid: ProjectionType is INCLUDE, but "
       "NonKeyAttributes is not specified"},
      {"short index name",
       [](CreateTableRequest* r) { (*r->global_secondary_indexes)[0].index_name = "G"; },
       "1 validation error detected: Value 'G' at 'globalSecondaryIndexes.1.member.indexName' "
       "failed to satisfy constraint: Member must have length greater than or equal to 3"},
      {"gsi throughput on demand",
       [](CreateTableRequest* r) {
         (*r->global_secondary_indexes)[0].provisioned_throughput = ProvisionedThroughput{1, 1};
       },
       "One or more parameter values were invalid: ProvisionedThroughput should not be specified "
       "for index: ByDepot when BillingMode is PAY_PER_REQUEST"},
  };
  for (const auto& c : cases) {
    CreateTableRequest r = FleetTable();
    c.edit(&r);
    EXPECT_EQ(db_->CreateTable(r).status(), Status::Validation(c.message)) << c.name;
  }
  EXPECT_TRUE(db_->ListTables({})->table_names.empty());
  Create(FleetTable());
  Reopen();  // index definitions persist
  auto d = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(d);
  ASSERT_TRUE(d->table.global_secondary_indexes.has_value());
  EXPECT_EQ((*d->table.global_secondary_indexes)[0].index_name, "ByDepot");
  EXPECT_EQ((*d->table.global_secondary_indexes)[0].index_status, IndexStatus::kActive);
  EXPECT_EQ((*d->table.global_secondary_indexes)[0].index_arn,
            "arn:aws:dynamodb:us-east-1:000000000000:table/Telemetry/index/ByDepot");
  ASSERT_TRUE(d->table.local_secondary_indexes.has_value());
  EXPECT_EQ((*d->table.local_secondary_indexes)[0].key_schema[1].attribute_name, "speedKph");
}

TEST_F(IndexTest, GsiQueryOrderingPaginationSparseAndKeyChanges) {
  Create(FleetTable());
  for (int v = 0; v < 4; ++v) {
    for (int m = 0; m < 5; ++m)
      Put("Telemetry", Reading(v, m, 40 + v + m, v % 2 ? "DEP-MAN-1" : "DEP-LON-3"));
  }
  Put("Telemetry", Reading(9, 0, 50, ""));  // no depotCode: absent from ByDepot (sparse)
  Reopen();
  // Newest readings of DEP-LON-3 (vehicles 0 and 2), ordered by recordedAt then table key.
  QueryRequest q = DepotQuery("DEP-LON-3");
  q.scan_index_forward = false;
  auto r = db_->Query(q);
  ASSERT_OK(r);
  ASSERT_EQ(r->count, 10);
  EXPECT_EQ(SortKeys(*r)[0], "VEH#2/TS#2026-06-23T09:04:00Z");
  EXPECT_EQ(SortKeys(*r)[1], "VEH#0/TS#2026-06-23T09:04:00Z");
  EXPECT_EQ(r->items[0], Reading(2, 4, 46));  // ALL projection: the whole item

  // Pagination: LastEvaluatedKey carries index and table keys.
  q.limit = 3;
  std::vector<std::string> all;
  while (true) {
    auto page = db_->Query(q);
    ASSERT_OK(page);
    auto keys = SortKeys(*page);
    all.insert(all.end(), keys.begin(), keys.end());
    if (!page->last_evaluated_key) break;
    EXPECT_EQ(page->last_evaluated_key->size(), 3u);  // depotCode, recordedAt, vehicleId
    q.exclusive_start_key = page->last_evaluated_key;
  }
  EXPECT_EQ(all, SortKeys(*r));

  // Changing the index key moves the entry; removing it takes it out.
  Put("Telemetry", Reading(0, 4, 44, "DEP-MAN-1"));
  UpdateItemRequest u{
      .table_name = "Telemetry",
      .key = {{"vehicleId", S("VEH#2")}, {"recordedAt", S("TS#2026-06-23T09:04:00Z")}}};
  u.update_expression = "REMOVE depotCode";
  ASSERT_OK(db_->UpdateItem(u));
  EXPECT_EQ(db_->Query(DepotQuery("DEP-LON-3"))->count, 8);
  EXPECT_EQ(db_->Query(DepotQuery("DEP-MAN-1"))->count, 11);
  ASSERT_TRUE(db_->DeleteItem({.table_name = "Telemetry",
                               .key = {{"vehicleId", S("VEH#1")},
                                       {"recordedAt", S("TS#2026-06-23T09:00:00Z")}}})
                  .ok());
  EXPECT_EQ(db_->Query(DepotQuery("DEP-MAN-1"))->count, 10);

  auto d = db_->DescribeTable({"Telemetry"})->table;
  EXPECT_EQ(d.item_count, 20);
  EXPECT_EQ((*d.global_secondary_indexes)[0].item_count, 18);  // 20 minus the two without depotCode
  EXPECT_EQ((*d.local_secondary_indexes)[0].item_count, 20);

  ScanRequest s{.table_name = "Telemetry", .index_name = "ByDepot"};
  auto scan = db_->Scan(s);
  ASSERT_OK(scan);
  EXPECT_EQ(scan->count, 18);
}

TEST_F(IndexTest, ProjectionsAndSelectRules) {
  Create(FleetTable(ProjectionType::kInclude, {"fuelPct"}));
  Put("Telemetry", Reading(1, 1, 70));
  auto gsi = db_->Query(DepotQuery("DEP-LON-3"));
  ASSERT_OK(gsi);
  ASSERT_EQ(gsi->items.size(), 1u);
  // INCLUDE: table keys, index keys and fuelPct, not speedKph.
  EXPECT_EQ(gsi->items[0], (Item{{"vehicleId", S("VEH#1")},
                                 {"recordedAt", S("TS#2026-06-23T09:01:00Z")},
                                 {"depotCode", S("DEP-LON-3")},
                                 {"fuelPct", N("0.5")}}));
  QueryRequest all = DepotQuery("DEP-LON-3");
  all.select = Select::kAllAttributes;
  EXPECT_EQ(db_->Query(all).status(),
            Status::Validation("One or more parameter values were invalid: Select type "
                               "ALL_ATTRIBUTES is not supported for global secondary index ByDepot "
                               "because its projection type is not ALL"));
  QueryRequest consistent = DepotQuery("DEP-LON-3");
  consistent.consistent_read = true;
  EXPECT_EQ(db_->Query(consistent).status(),
            Status::Validation("Consistent reads are not supported on global secondary indexes"));
  QueryRequest unknown = DepotQuery("DEP-LON-3");
  unknown.index_name = "Nope";
  EXPECT_EQ(db_->Query(unknown).status(),
            Status::Validation("The table does not have the specified index: Nope"));

  // The LSI is KEYS_ONLY; ALL_ATTRIBUTES fetches the rest from the table.
  QueryRequest lsi{.table_name = "Telemetry", .index_name = "BySpeed"};
  lsi.key_condition_expression = "vehicleId = :v AND speedKph > :s";
  lsi.expression_attribute_values = ExpressionAttributeValues{{":v", S("VEH#1")}, {":s", N("60")}};
  auto keys_only = db_->Query(lsi);
  ASSERT_OK(keys_only);
  EXPECT_EQ(keys_only->items[0], (Item{{"vehicleId", S("VEH#1")},
                                       {"recordedAt", S("TS#2026-06-23T09:01:00Z")},
                                       {"speedKph", N("70")}}));
  lsi.select = Select::kAllAttributes;
  auto fetched = db_->Query(lsi);
  ASSERT_OK(fetched);
  EXPECT_EQ(fetched->items[0], Reading(1, 1, 70));

  // A mistyped index key is an error; nothing is written.
  Item bad = Reading(2, 2, 10);
  bad["depotCode"] = N("7");
  EXPECT_EQ(db_->PutItem({.table_name = "Telemetry", .item = bad}).status(),
            Status::Validation("One or more parameter values were invalid: Type mismatch for Index "
                               "Key depotCode Expected: S Actual: N IndexName: ByDepot"));
  bad["depotCode"] = S("");
  EXPECT_EQ(db_->PutItem({.table_name = "Telemetry", .item = bad}).status().code(),
            Status::Code::kValidation);
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 1);
}

// BatchWriteItem commits its writes in one batch: a write that would take a
// collection past the limit fails the request and leaves nothing written,
// including the writes before it (they landed one by one before).
TEST_F(IndexTest, BatchWriteOverTheCollectionLimitWritesNothing) {
  options_.item_collection_size_limit_bytes = 4000;
  Reopen();
  Create(FleetTable());
  BatchWriteItemRequest batch;
  for (int m = 0; m < 25; ++m) {  // ~25 x 270 bytes: past 4,000 around the 15th
    batch.request_items["Telemetry"].push_back(
        {.put_request = PutRequest{Reading(m < 3 ? 2 : 1, m, 50)}});
  }
  EXPECT_EQ(db_->BatchWriteItem(batch).status().code(),
            Status::Code::kItemCollectionSizeLimitExceeded);
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 0);
  EXPECT_EQ(db_->Scan({.table_name = "Telemetry"})->count, 0);
  EXPECT_TRUE(db_->LargestCollections("Telemetry", 5)->empty());
  // Within the limit, the same kind of batch lands whole.
  batch.request_items["Telemetry"].resize(10);
  ASSERT_OK(db_->BatchWriteItem(batch));
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 10);
  auto top = db_->LargestCollections("Telemetry", 5);
  ASSERT_EQ(top->size(), 2u);
  EXPECT_EQ((*top)[0].item_count, 7);  // VEH#1: readings 3..9
  EXPECT_EQ((*top)[1].item_count, 3);
}

TEST_F(IndexTest, CollectionSizeLimitAndMetrics) {
  options_.item_collection_size_limit_bytes = 4000;
  Reopen();
  Create(FleetTable());
  // Each reading: item + one LSI entry (keys + 100 bytes overhead).
  const int64_t per_item =
      format::ItemSize(Reading(1, 0, 50)) +
      static_cast<int64_t>(format::ItemSize(Item{{"vehicleId", S("VEH#1")},
                                                 {"recordedAt", S("TS#2026-06-23T09:00:00Z")},
                                                 {"speedKph", N("50")}})) +
      100;
  int written = 0;
  Status last;
  for (int m = 0; m < 60; ++m) {
    PutItemRequest put{.table_name = "Telemetry", .item = Reading(1, m, 50)};
    put.return_item_collection_metrics = ReturnItemCollectionMetrics::kSize;
    auto r = db_->PutItem(put);
    if (!r.ok()) {
      last = r.status();
      break;
    }
    ++written;
    ASSERT_TRUE(r->item_collection_metrics.has_value());
    EXPECT_EQ(r->item_collection_metrics->item_collection_key, (Item{{"vehicleId", S("VEH#1")}}));
    EXPECT_EQ(r->item_collection_metrics->size_estimate_range_gb, (std::vector<double>{0.0, 1.0}));
  }
  EXPECT_EQ(written, static_cast<int>(4000 / per_item));
  EXPECT_EQ(last, Status::ItemCollectionSizeLimitExceeded(
                      "The total size of an item collection has exceeded the maximum limit of 10 "
                      "gigabytes."));
  auto top = db_->LargestCollections("Telemetry", 5);
  ASSERT_OK(top);
  ASSERT_EQ(top->size(), 1u);
  EXPECT_EQ((*top)[0].item_count, written);
  EXPECT_EQ((*top)[0].size_bytes, written * per_item);  // the failed write changed nothing
  // Another collection still takes writes; shrinking and deleting always work.
  Put("Telemetry", Reading(2, 0, 50));
  UpdateItemRequest shrink{
      .table_name = "Telemetry",
      .key = {{"vehicleId", S("VEH#1")}, {"recordedAt", S("TS#2026-06-23T09:00:00Z")}}};
  shrink.update_expression = "REMOVE fuelPct";
  EXPECT_OK(db_->UpdateItem(shrink));
  EXPECT_OK(db_->DeleteItem({.table_name = "Telemetry", .key = shrink.key}));
  // A table without an LSI reports no metrics and has no limit.
  Create(TableRequest("Plain", "k", T::kS));
  PutItemRequest plain{.table_name = "Plain",
                       .item = {{"k", S("x")}, {"pad", S(std::string(5000, 'p'))}}};
  plain.return_item_collection_metrics = ReturnItemCollectionMetrics::kSize;
  auto p = db_->PutItem(plain);
  ASSERT_OK(p);
  EXPECT_FALSE(p->item_collection_metrics.has_value());
}

// With LSIs, the item and its LSI entries together must fit in 400 KB.
TEST_F(IndexTest, ItemWithLocalIndexEntriesMustFitTheItemLimit) {
  CreateTableRequest r = TableRequest("Wide", "pk", T::kS, "sk", T::kS);
  r.attribute_definitions.push_back({"alt", T::kS});
  r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"ByAlt", {{"pk", KeyType::kHash}, {"alt", KeyType::kRange}}, {ProjectionType::kAll, {}}}};
  Create(r);
  Item item{{"pk", S("p")}, {"sk", S("s")}, {"blob", S(std::string(250000, 'x'))}};
  Put("Wide", item);  // no alt: no LSI entry, 250 KB fits
  item["alt"] = S("a");  // now the LSI entry doubles it
  EXPECT_EQ(db_->PutItem({.table_name = "Wide", .item = item}).status(),
            Status::Validation("Item size has exceeded the maximum allowed size"));
  UpdateItemRequest u{.table_name = "Wide", .key = {{"pk", S("p")}, {"sk", S("s")}}};
  u.update_expression = "SET alt = :a";
  u.expression_attribute_values = ExpressionAttributeValues{{":a", S("a")}};
  EXPECT_EQ(db_->UpdateItem(u).status(),
            Status::Validation("Item size to update has exceeded the maximum allowed size"));
}

// Random writes through every path; then each index must equal the index
// recomputed from a table scan, and each collection counter a recount.
TEST_F(IndexTest, IndexesAndStatisticsMatchTheTable) {
  std::mt19937_64 rng(testing::TestSeed("IndexTest.IndexesAndStatisticsMatchTheTable"));
  Create(FleetTable(ProjectionType::kInclude, {"fuelPct"}));
  const char* depots[] = {"DEP-A", "DEP-B", "DEP-C", ""};
  for (int step = 0; step < 1500; ++step) {
    int v = static_cast<int>(rng() % 6), m = static_cast<int>(rng() % 8);
    Item item = Reading(v, m, static_cast<int>(rng() % 100), depots[rng() % 4]);
    if (rng() % 5 == 0) item.erase("speedKph");  // sparse LSI too
    Item key{{"vehicleId", item.at("vehicleId")}, {"recordedAt", item.at("recordedAt")}};
    switch (rng() % 3) {
      case 0:
        Put("Telemetry", item);
        break;
      case 1:
        ASSERT_OK(db_->DeleteItem({.table_name = "Telemetry", .key = key}));
        break;
      default: {
        UpdateItemRequest u{.table_name = "Telemetry", .key = key};
        u.update_expression = rng() % 2 ? "SET depotCode = :d, speedKph = :s" : "REMOVE depotCode";
        if (u.update_expression->rfind("SET", 0) == 0) {
          u.expression_attribute_values = ExpressionAttributeValues{
              {":d", S(depots[rng() % 3])}, {":s", N(std::to_string(rng() % 100))}};
        }
        ASSERT_OK(db_->UpdateItem(u));
      }
    }
    if (step % 500 == 499) Reopen();
    if (step % 250 == 249) {
      ASSERT_NO_FATAL_FAILURE(VerifyIndexesAndStatistics()) << "step " << step;
    }
  }
  ASSERT_NO_FATAL_FAILURE(VerifyIndexesAndStatistics());
}

}  // namespace
}  // namespace dynarock
