// ItemEncoding::kStored: Query and Scan hand back a view of each item's
// stored bytes.
// Every read shape (table, GSI, LSI with fetched table items, projection,
// filter, Limit with pagination, COUNT) must return exactly the items the
// decoded form returns, in the same order, with the same counts and keys.
#include <gtest/gtest.h>

#include <memory>

#include "dynarock/db.h"
#include "format/item_codec.h"
#include "tests/util/db_fixture.h"
#include "tests/util/item_view_check.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::N;
using testing::S;
using T = ScalarAttributeType;

class StoredItemsTest : public DbTest {
 protected:
  void SetUp() override {
    DbTest::SetUp();
    CreateTableRequest r = testing::TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS);
    r.attribute_definitions.push_back({"depotCode", T::kS});
    r.attribute_definitions.push_back({"speedKph", T::kN});
    r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
        {"ByDepot",
         {{"depotCode", KeyType::kHash}, {"recordedAt", KeyType::kRange}},
         {ProjectionType::kAll, {}},
         std::nullopt}};
    // KEYS_ONLY: a Query for all attributes fetches each table item.
    r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
        {"BySpeed",
         {{"vehicleId", KeyType::kHash}, {"speedKph", KeyType::kRange}},
         {ProjectionType::kKeysOnly, {}}}};
    Create(r);
    for (int v = 0; v < 3; ++v) {
      for (int i = 0; i < 12; ++i) {
        Item item = {{"vehicleId", S("VEH#" + std::to_string(v))},
                     {"recordedAt", S("TS#" + std::to_string(10 + i))},
                     {"speedKph", N(std::to_string((i * 37) % 100))},
                     {"depotCode", S(i % 2 ? "DEP-A" : "DEP-B")},
                     {"tags", AttributeValue::SS({"x", "y" + std::to_string(i)})}};
        if (i % 3 == 0) item.erase("depotCode");  // sparse in the GSI
        Put("Telemetry", std::move(item));
      }
    }
  }

  // Runs `request` in both encodings, page after page, and checks that the
  // stored bytes decode to the decoded items. Returns the number of items.
  template <typename Request, typename Run>
  size_t ExpectSameResults(Request request, Run run) {
    size_t total = 0;
    Request stored = request;
    stored.item_encoding = ItemEncoding::kStored;
    for (int page = 0; page < 100; ++page) {
      auto decoded = run(request);
      auto raw = run(stored);
      EXPECT_OK(decoded);
      EXPECT_OK(raw);
      if (!decoded.ok() || !raw.ok()) return total;
      EXPECT_TRUE(raw->items.empty());
      EXPECT_TRUE(decoded->stored_items.empty());
      EXPECT_EQ(raw->count, decoded->count);
      EXPECT_EQ(raw->scanned_count, decoded->scanned_count);
      EXPECT_EQ(raw->last_evaluated_key, decoded->last_evaluated_key);
      EXPECT_EQ(raw->stored_items.size(), decoded->items.size());
      // Also in a copy of the page, the original gone.
      auto copy = std::make_unique<StoredItems>(raw->stored_items);
      raw->stored_items = StoredItems();
      for (size_t i = 0; i < copy->size() && i < decoded->items.size(); ++i) {
        EXPECT_TRUE(testing::ViewShows((*copy)[i], decoded->items[i]))
            << "item " << i << " of page " << page;
      }
      total += decoded->items.size();
      if (!decoded->last_evaluated_key) break;
      request.exclusive_start_key = decoded->last_evaluated_key;
      stored.exclusive_start_key = decoded->last_evaluated_key;
    }
    return total;
  }

  size_t SameQuery(QueryRequest q) {
    return ExpectSameResults(q, [this](const QueryRequest& r) { return db_->Query(r); });
  }
  size_t SameScan(ScanRequest s) {
    return ExpectSameResults(s, [this](const ScanRequest& r) { return db_->Scan(r); });
  }
};

TEST_F(StoredItemsTest, QueryShapesReturnTheSameItems) {
  QueryRequest table{.table_name = "Telemetry"};
  table.key_condition = {"vehicleId", S("VEH#1"), std::nullopt};
  table.scan_index_forward = false;
  EXPECT_EQ(SameQuery(table), 12u);

  QueryRequest paged = table;
  paged.limit = 5;  // three pages, with LastEvaluatedKey
  EXPECT_EQ(SameQuery(paged), 12u);

  QueryRequest filtered = table;
  filtered.filter_expression = "speedKph > :s";
  filtered.expression_attribute_values = ExpressionAttributeValues{{":s", N("40")}};
  size_t matched = SameQuery(filtered);
  EXPECT_GT(matched, 0u);
  EXPECT_LT(matched, 12u);

  QueryRequest projected = table;
  projected.projection_expression = "recordedAt, tags";
  EXPECT_EQ(SameQuery(projected), 12u);

  QueryRequest gsi{.table_name = "Telemetry", .index_name = "ByDepot"};
  gsi.key_condition = {"depotCode", S("DEP-A"), std::nullopt};
  EXPECT_EQ(SameQuery(gsi), 12u);  // i odd and not a multiple of 3: 4 per vehicle

  QueryRequest lsi{.table_name = "Telemetry", .index_name = "BySpeed"};
  lsi.key_condition = {"vehicleId", S("VEH#2"), std::nullopt};
  lsi.select = Select::kAllAttributes;  // fetched from the table: all five attributes
  EXPECT_EQ(SameQuery(lsi), 12u);
  lsi.select = std::nullopt;  // the index's own entries (keys only)
  EXPECT_EQ(SameQuery(lsi), 12u);

  QueryRequest count = table;
  count.select = Select::kCount;
  EXPECT_EQ(SameQuery(count), 0u);  // counts compared, no items either way
}

TEST_F(StoredItemsTest, ScanShapesReturnTheSameItems) {
  ScanRequest all{.table_name = "Telemetry"};
  EXPECT_EQ(SameScan(all), 36u);
  ScanRequest paged = all;
  paged.limit = 7;
  EXPECT_EQ(SameScan(paged), 36u);
  ScanRequest segment = all;
  segment.segment = 1;
  segment.total_segments = 2;
  size_t second_half = SameScan(segment);
  segment.segment = 0;
  EXPECT_EQ(SameScan(segment) + second_half, 36u);
  ScanRequest gsi{.table_name = "Telemetry", .index_name = "ByDepot"};
  gsi.filter_expression = "attribute_exists(tags)";
  gsi.projection_expression = "vehicleId, depotCode";
  EXPECT_EQ(SameScan(gsi), 24u);  // the sparse GSI holds 8 of each vehicle's 12
}

// GetItem as stored: the same item as decoded (whole, projected, or none),
// the same consumed capacity, and the view outlives the read.
TEST_F(StoredItemsTest, GetItemShapesReturnTheSameItem) {
  for (const char* vehicle : {"VEH#1", "VEH#9"}) {  // the second does not exist
    for (std::optional<std::string> projection :
         {std::optional<std::string>(), std::optional<std::string>("speedKph, tags"),
          std::optional<std::string>("noSuchAttribute")}) {
      GetItemRequest r{.table_name = "Telemetry",
                       .key = {{"vehicleId", S(vehicle)}, {"recordedAt", S("TS#13")}}};
      r.projection_expression = projection;
      r.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
      auto decoded = db_->GetItem(r);
      ASSERT_OK(decoded);
      r.item_encoding = ItemEncoding::kStored;
      auto stored = db_->GetItem(r);
      ASSERT_OK(stored);
      EXPECT_TRUE(decoded->stored_item.empty());
      EXPECT_FALSE(stored->item.has_value());
      const std::string shape = std::string(vehicle) + " " + projection.value_or("(all)");
      ASSERT_EQ(stored->stored_item.size(), decoded->item ? 1u : 0u) << shape;
      if (decoded->item) {
        const StoredItems kept = stored->stored_item;  // a copy; the original goes
        stored->stored_item = StoredItems();
        EXPECT_TRUE(testing::ViewShows(kept[0], *decoded->item)) << shape;
      }
      ASSERT_TRUE(stored->consumed_capacity.has_value());
      EXPECT_EQ(stored->consumed_capacity->capacity_units,
                decoded->consumed_capacity->capacity_units)
          << shape;
    }
  }
}

// The arena: contents, alignment across block boundaries and for copies
// larger than a block, and copies that stay put as the arena moves.
TEST(ByteArenaTest, KeepsCopiesAlignedAcrossBlocks) {
  ByteArena arena;
  std::vector<std::string> expected;
  std::vector<std::string_view> copies;
  for (int i = 0; i < 3000; ++i) {
    // Odd sizes force padding; every 500th is bigger than a 64 KB block.
    std::string bytes(i % 500 == 499 ? 70000 + i : 1 + (i * 37) % 301, static_cast<char>('a' + i % 26));
    copies.push_back(arena.Copy(bytes));
    expected.push_back(std::move(bytes));
  }
  ByteArena moved = std::move(arena);
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(copies[i], expected[i]) << i;
    EXPECT_NE(copies[i].data(), expected[i].data());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(copies[i].data()) % 8, 0u) << i;
  }
}

}  // namespace
}  // namespace dynarock
