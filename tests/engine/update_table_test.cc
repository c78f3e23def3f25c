// UpdateTable: adding a GSI to a populated table (backfilled in batches while
// writers keep writing) and deleting one; errors.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <set>
#include <thread>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::N;
using testing::S;
using T = ScalarAttributeType;

class UpdateTableTest : public DbTest {
 protected:
  void SetUp() override {
    DbTest::SetUp();
    Create(testing::TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS));
  }
  static Item Reading(int v, int i, const std::string& depot) {
    Item item{{"vehicleId", S("VEH#" + std::to_string(v))}, {"recordedAt", S("TS#" + std::to_string(10000 + i))}};
    if (!depot.empty()) item["depotCode"] = S(depot);
    return item;
  }
  UpdateTableRequest AddByDepot() {
    UpdateTableRequest u{.table_name = "Telemetry"};
    u.attribute_definitions = std::vector<AttributeDefinition>{{"depotCode", T::kS}};
    GlobalSecondaryIndexUpdate add;
    add.create = CreateGlobalSecondaryIndexAction{
        "ByDepot", {{"depotCode", KeyType::kHash}, {"recordedAt", KeyType::kRange}}, {ProjectionType::kKeysOnly, {}}, std::nullopt};
    u.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{add};
    return u;
  }
  // Every index entry, as "depot|vehicle|ts", straight from the index.
  std::multiset<std::string> IndexEntries() {
    std::multiset<std::string> out;
    ScanRequest s{.table_name = "Telemetry", .index_name = "ByDepot"};
    while (true) {
      auto r = db_->Scan(s);
      EXPECT_OK(r);
      if (!r.ok()) break;
      for (const auto& e : r->items) {
        out.insert(e.at("depotCode").s() + "|" + e.at("vehicleId").s() + "|" + e.at("recordedAt").s());
      }
      if (!r->last_evaluated_key) break;
      s.exclusive_start_key = r->last_evaluated_key;
    }
    return out;
  }
  std::multiset<std::string> ExpectedEntries() {
    std::multiset<std::string> out;
    ScanRequest s{.table_name = "Telemetry"};
    while (true) {
      auto r = db_->Scan(s);
      EXPECT_OK(r);
      if (!r.ok()) break;
      for (const auto& i : r->items) {
        if (i.count("depotCode")) {
          out.insert(i.at("depotCode").s() + "|" + i.at("vehicleId").s() + "|" + i.at("recordedAt").s());
        }
      }
      if (!r->last_evaluated_key) break;
      s.exclusive_start_key = r->last_evaluated_key;
    }
    return out;
  }
};

TEST_F(UpdateTableTest, AddGsiBackfillsWhileWritersWrite) {
  const char* depots[] = {"DEP-A", "DEP-B", "DEP-C", ""};
  for (int i = 0; i < 2500; ++i) Put("Telemetry", Reading(i % 50, i, depots[i % 4]));
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    std::mt19937_64 rng(7);
    for (; !stop; ++writes) {
      int i = static_cast<int>(rng() % 3000);
      if (rng() % 3 == 0) {
        Item key = Reading(i % 50, i, "");
        ASSERT_OK(db_->DeleteItem({.table_name = "Telemetry", .key = key}));
      } else {
        ASSERT_OK(db_->PutItem({.table_name = "Telemetry", .item = Reading(i % 50, i, depots[rng() % 4])}));
      }
    }
  });
  while (writes < 200) std::this_thread::yield();  // the writer is running
  auto r = db_->UpdateTable(AddByDepot());
  ASSERT_OK(r);
  // Returned at once, as DynamoDB does: the index CREATING and backfilling,
  // the table UPDATING; the backfill runs in the background while the
  // writer goes on.
  ASSERT_TRUE(r->table_description.global_secondary_indexes.has_value());
  EXPECT_EQ((*r->table_description.global_secondary_indexes)[0].index_status,
            IndexStatus::kCreating);
  EXPECT_EQ((*r->table_description.global_secondary_indexes)[0].backfilling, true);
  EXPECT_EQ(r->table_description.table_status, TableStatus::kUpdating);
  ASSERT_OK(db_->WaitForBackfills());
  stop = true;
  writer.join();
  auto after = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(after);
  EXPECT_EQ(after->table.table_status, TableStatus::kActive);
  EXPECT_EQ((*after->table.global_secondary_indexes)[0].index_status, IndexStatus::kActive);
  EXPECT_FALSE((*after->table.global_secondary_indexes)[0].backfilling);
  auto expected = ExpectedEntries();
  EXPECT_GT(expected.size(), 1000u);
  EXPECT_EQ(IndexEntries(), expected);
  auto d = db_->DescribeTable({"Telemetry"})->table;
  EXPECT_EQ((*d.global_secondary_indexes)[0].item_count, static_cast<int64_t>(expected.size()));
  // The new index is maintained by later writes, and survives reopen.
  Put("Telemetry", Reading(1, 99999, "DEP-Z"));
  Reopen();
  QueryRequest q{.table_name = "Telemetry", .index_name = "ByDepot"};
  q.key_condition_expression = "depotCode = :d";
  q.expression_attribute_values = ExpressionAttributeValues{{":d", S("DEP-Z")}};
  auto z = db_->Query(q);
  ASSERT_OK(z);
  EXPECT_EQ(z->count, 1);
}

TEST_F(UpdateTableTest, DeleteGsiAndErrors) {
  for (int i = 0; i < 10; ++i) Put("Telemetry", Reading(1, i, "DEP-A"));
  ASSERT_OK(db_->UpdateTable(AddByDepot()));
  ASSERT_OK(db_->WaitForBackfills());
  EXPECT_EQ(db_->UpdateTable(AddByDepot()).status(),
            Status::Validation("Attempting to create an index which already exists"));
  // DynamoDB: a new index's definitions may repeat an existing attribute's
  // (clients send the whole list) but not give it another type.
  UpdateTableRequest redefine = AddByDepot();
  (*redefine.global_secondary_index_updates)[0].create->index_name = "ByDepot3";
  redefine.attribute_definitions->push_back({"recordedAt", T::kN});
  EXPECT_EQ(db_->UpdateTable(redefine).status(),
            Status::Validation("One or more parameter values were invalid: Attributes cannot be "
                               "redefined: recordedAt is defined as S, not N"));
  redefine.attribute_definitions->back().attribute_type = T::kS;  // the same type is fine
  EXPECT_OK(db_->UpdateTable(redefine));
  ASSERT_OK(db_->WaitForBackfills());
  UpdateTableRequest drop3{.table_name = "Telemetry"};
  drop3.global_secondary_index_updates =
      std::vector<GlobalSecondaryIndexUpdate>{{.delete_index_name = "ByDepot3"}};
  ASSERT_OK(db_->UpdateTable(drop3));
  UpdateTableRequest two = AddByDepot();
  two.global_secondary_index_updates->push_back({.delete_index_name = "ByDepot"});
  EXPECT_EQ(db_->UpdateTable(two).status(),
            Status::Validation("One or more parameter values were invalid: Only one global "
                               "secondary index update per index is allowed simultaneously. "
                               "Index: ByDepot"));
  UpdateTableRequest create_and_delete = AddByDepot();
  (*create_and_delete.global_secondary_index_updates)[0].create->index_name = "ByDepot2";
  create_and_delete.global_secondary_index_updates->push_back({.delete_index_name = "ByDepot"});
  EXPECT_EQ(db_->UpdateTable(create_and_delete).status().code(), Status::Code::kLimitExceeded);

  UpdateTableRequest del{.table_name = "Telemetry"};
  del.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{{.delete_index_name = "ByDepot"}};
  ASSERT_OK(db_->UpdateTable(del));
  EXPECT_FALSE(db_->DescribeTable({"Telemetry"})->table.global_secondary_indexes.has_value());
  ScanRequest s{.table_name = "Telemetry", .index_name = "ByDepot"};
  EXPECT_EQ(db_->Scan(s).status(), Status::Validation("The table does not have the specified index: ByDepot"));
  EXPECT_EQ(db_->UpdateTable(del).status(),
            Status::ResourceNotFound("Requested resource not found: Index: ByDepot not found"));
  // Re-created under the same name, it starts from the table, not from the old entries.
  ASSERT_OK(db_->DeleteItem({.table_name = "Telemetry", .key = Reading(1, 0, "")}));
  ASSERT_OK(db_->UpdateTable(AddByDepot()));
  ASSERT_OK(db_->WaitForBackfills());
  EXPECT_EQ(IndexEntries().size(), 9u);
  EXPECT_EQ(db_->UpdateTable({.table_name = "Nope", .billing_mode = BillingMode::kPayPerRequest})
                .status()
                .code(),
            Status::Code::kResourceNotFound);
}

// UpdateTable's checks, in DynamoDB's order and words (VALIDATION.md 5.3).
TEST_F(UpdateTableTest, ValidationAsDynamoDB) {
  auto invalid = [](const std::string& m) {
    return Status::Validation("One or more parameter values were invalid: " + m);
  };
  EXPECT_EQ(db_->UpdateTable({.table_name = "Telemetry"}).status(),
            Status::Validation("At least one of ProvisionedThroughput, BillingMode, "
                               "UpdateStreamEnabled, GlobalSecondaryIndexUpdates or "
                               "SSESpecification or ReplicaUpdates is required"));
  // Checked before the table is looked up.
  EXPECT_EQ(
      db_->UpdateTable({.table_name = "Nope", .billing_mode = BillingMode::kProvisioned}).status(),
      invalid("ProvisionedThroughput must be specified when BillingMode is PROVISIONED"));
  UpdateTableRequest huge{.table_name = "Nope",
                          .provisioned_throughput = ProvisionedThroughput{1'000'000'000'001, 1}};
  EXPECT_EQ(db_->UpdateTable(huge).status(),
            Status::Validation("Given value 1000000000001 for ReadCapacityUnits is out of bounds"));
  UpdateTableRequest empty_update{.table_name = "Nope"};
  empty_update.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{{}};
  EXPECT_EQ(db_->UpdateTable(empty_update).status(),
            invalid("One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
                    "GlobalSecondaryIndexUpdate.Delete must not be null"));
  EXPECT_EQ(db_->UpdateTable({.table_name = "Nope", .billing_mode = BillingMode::kPayPerRequest})
                .status()
                .code(),
            Status::Code::kResourceNotFound);
  // Throughput on an on-demand table.
  UpdateTableRequest pt{.table_name = "Telemetry",
                        .provisioned_throughput = ProvisionedThroughput{5, 5}};
  EXPECT_EQ(db_->UpdateTable(pt).status(),
            invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
                    "BillingMode is PAY_PER_REQUEST"));
  // To PROVISIONED, every GSI needs its own throughput.
  ASSERT_OK(db_->UpdateTable(AddByDepot()));
  ASSERT_OK(db_->WaitForBackfills());
  UpdateTableRequest to_provisioned{.table_name = "Telemetry",
                                    .billing_mode = BillingMode::kProvisioned,
                                    .provisioned_throughput = ProvisionedThroughput{5, 5}};
  EXPECT_EQ(db_->UpdateTable(to_provisioned).status(),
            invalid("ProvisionedThroughput must be specified for index: ByDepot"));
  to_provisioned.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{
      {.update = UpdateGlobalSecondaryIndexAction{"ByDepot", ProvisionedThroughput{3, 4}}}};
  auto switched = db_->UpdateTable(to_provisioned);
  ASSERT_OK(switched);
  EXPECT_EQ(switched->table_description.billing_mode, BillingMode::kProvisioned);
  EXPECT_EQ((*switched->table_description.global_secondary_indexes)[0]
                .provisioned_throughput.write_capacity_units,
            4);
  // The same throughput again changes nothing: an error.
  UpdateTableRequest same{.table_name = "Telemetry",
                          .provisioned_throughput = ProvisionedThroughput{5, 5}};
  EXPECT_EQ(db_->UpdateTable(same).status(),
            Status::Validation(
                "The provisioned throughput for the table will not change. The requested value "
                "equals the current value. Current ReadCapacityUnits provisioned for the table: "
                "5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the "
                "table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer "
                "Guide for current limits and how to request higher limits."));
  same.provisioned_throughput = ProvisionedThroughput{6, 5};
  ASSERT_OK(db_->UpdateTable(same));
  UpdateTableRequest unknown{.table_name = "Telemetry"};
  unknown.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{
      {.update = UpdateGlobalSecondaryIndexAction{"NoSuch", ProvisionedThroughput{1, 1}}}};
  EXPECT_EQ(db_->UpdateTable(unknown).status(),
            Status::ResourceNotFound("Requested resource not found: Index: NoSuch not found"));
  Reopen();
  auto d = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(d);
  EXPECT_EQ(d->table.provisioned_throughput.read_capacity_units, 6);
  EXPECT_EQ((*d->table.global_secondary_indexes)[0].provisioned_throughput.read_capacity_units, 3);
}

// Items written before the index existed whose new index key DynamoDB
// could not store (an empty string, a value over the key size limit, or
// another type) are skipped by the backfill, which still completes.
TEST_F(UpdateTableTest, BackfillSkipsUnstorableIndexKeys) {
  Put("Telemetry", Reading(1, 1, "DEP-A"));
  Put("Telemetry", Reading(1, 2, ""));  // no depotCode: sparse
  Item empty = Reading(1, 3, "");
  empty["depotCode"] = S("");
  Put("Telemetry", empty);
  Item long_key = Reading(1, 4, "");
  long_key["depotCode"] = S(std::string(2049, 'd'));
  Put("Telemetry", long_key);
  Item number = Reading(1, 5, "");
  number["depotCode"] = N("7");
  Put("Telemetry", number);
  Item at_limit = Reading(1, 6, "");
  at_limit["depotCode"] = S(std::string(2048, 'e'));
  Put("Telemetry", at_limit);
  ASSERT_OK(db_->UpdateTable(AddByDepot()));
  ASSERT_OK(db_->WaitForBackfills());
  auto d = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(d);
  EXPECT_EQ((*d->table.global_secondary_indexes)[0].index_status, IndexStatus::kActive);
  auto entries = IndexEntries();
  EXPECT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries.count("DEP-A|VEH#1|TS#10001"), 1u);
}

// While the backfill runs, the table serves reads and writes, the new
// index refuses reads, and a second index change is refused; closing the
// database stops the backfill between steps, and the next Open resumes it
// at its saved cursor and completes it with exact entries and totals.
TEST_F(UpdateTableTest, BackfillRunsInTheBackgroundAndResumesAfterClose) {
  options_.backfill_batch_items = 7;  // many steps, so a close lands midway
  Reopen();
  for (int i = 0; i < 3000; ++i) Put("Telemetry", Reading(i % 40, i, i % 5 ? "DEP-A" : ""));
  auto r = db_->UpdateTable(AddByDepot());
  ASSERT_OK(r);
  EXPECT_EQ((*r->table_description.global_secondary_indexes)[0].index_status,
            IndexStatus::kCreating);
  // The table stays available.
  Put("Telemetry", Reading(3, 50000, "DEP-B"));
  EXPECT_OK(db_->GetItem({.table_name = "Telemetry", .key = Reading(3, 50000, "")}));
  ScanRequest s{.table_name = "Telemetry", .index_name = "ByDepot"};
  auto during = db_->Scan(s);
  auto state = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(state);
  if ((*state->table.global_secondary_indexes)[0].index_status == IndexStatus::kCreating) {
    // (Only if the backfill has not finished yet; at 7 items a step it rarely has.)
    EXPECT_EQ(during.status(),
              Status::Validation("Cannot read from backfilling global secondary index: ByDepot"));
    UpdateTableRequest del{.table_name = "Telemetry"};
    del.global_secondary_index_updates =
        std::vector<GlobalSecondaryIndexUpdate>{{.delete_index_name = "ByDepot"}};
    EXPECT_EQ(db_->UpdateTable(del).status().code(), Status::Code::kLimitExceeded);
  }
  Reopen();  // stops the backfill at its next step; Open resumes it
  Put("Telemetry", Reading(4, 50001, "DEP-C"));
  ASSERT_OK(db_->WaitForBackfills());
  auto expected = ExpectedEntries();
  EXPECT_EQ(expected.size(), 2402u);  // 4 of 5 of 3,000, plus the two written during the backfill
  EXPECT_EQ(IndexEntries(), expected);
  auto d = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(d);
  EXPECT_EQ(d->table.table_status, TableStatus::kActive);
  EXPECT_EQ((*d->table.global_secondary_indexes)[0].item_count,
            static_cast<int64_t>(expected.size()));
}

// DeleteTable during a backfill ends it; a table re-created under the name
// starts with no index and nothing left over.
TEST_F(UpdateTableTest, DeleteTableDuringBackfill) {
  options_.backfill_batch_items = 5;
  Reopen();
  for (int i = 0; i < 2000; ++i) Put("Telemetry", Reading(i % 40, i, "DEP-A"));
  ASSERT_OK(db_->UpdateTable(AddByDepot()));
  ASSERT_OK(db_->DeleteTable({"Telemetry"}));
  ASSERT_OK(db_->WaitForBackfills());
  Create(testing::TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS));
  auto d = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(d);
  EXPECT_FALSE(d->table.global_secondary_indexes.has_value());
  EXPECT_EQ(d->table.table_status, TableStatus::kActive);
  Reopen();
  ASSERT_OK(db_->WaitForBackfills());
  EXPECT_EQ(db_->DescribeTable({"Telemetry"})->table.item_count, 0);
}

}  // namespace
}  // namespace dynarock
