// Consumed capacity by DynamoDB's rules, case by case with items of known
// sizes: 4 KB read units (eventual half), 1 KB write units, the larger of old
// and new item for writes, per-index write costs, Query/Scan rounding once,
// batches per item, transactions doubled.
#include <gtest/gtest.h>

#include "dynarock/db.h"
#include "format/item_size.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::N;
using testing::S;
using T = ScalarAttributeType;
constexpr auto kTotal = ReturnConsumedCapacity::kTotal;
constexpr auto kIndexes = ReturnConsumedCapacity::kIndexes;

class CapacityTest : public DbTest {
 protected:
  void SetUp() override {
    DbTest::SetUp();
    CreateTableRequest r = testing::TableRequest("Items", "pk", T::kS, "sk", T::kS);
    r.attribute_definitions.push_back({"g", T::kS});
    r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
        {"ByG", {{"g", KeyType::kHash}}, {ProjectionType::kKeysOnly, {}}, std::nullopt}};
    Create(r);
  }
  // An item of exactly `bytes` bytes as DynamoDB counts them.
  static Item Sized(const std::string& sk, size_t bytes,
                    std::optional<std::string> g = std::nullopt) {
    Item item{{"pk", S("k")}, {"sk", S(sk)}};
    if (g) item["g"] = S(*g);
    size_t base = format::ItemSize(item) + 1;  // + the name "p"
    item["p"] = S(std::string(bytes - base, 'x'));
    EXPECT_EQ(format::ItemSize(item), bytes);
    return item;
  }
  static Item Key(const std::string& sk) { return {{"pk", S("k")}, {"sk", S(sk)}}; }

  // The units a response reports; -1 (failing the comparison) if there are none.
  template <typename R>
  static double Units(const Result<R>& r) {
    EXPECT_OK(r);
    if (!r.ok()) return -1;
    if constexpr (std::is_same_v<decltype(r->consumed_capacity), std::optional<ConsumedCapacity>>) {
      return r->consumed_capacity ? r->consumed_capacity->capacity_units : -1;
    } else {
      return r->consumed_capacity.size() == 1 ? r->consumed_capacity[0].capacity_units : -1;
    }
  }
};

TEST_F(CapacityTest, SingleItemOperations) {
  struct Case {
    std::string name;
    std::function<std::optional<ConsumedCapacity>()> run;
    double expected;
  } cases[] = {
      {"put 500 B",
       [&] {
         return db_
             ->PutItem({.table_name = "Items",
                        .item = Sized("a", 500),
                        .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       1},
      {"put 1024 B",
       [&] {
         return db_
             ->PutItem({.table_name = "Items",
                        .item = Sized("b", 1024),
                        .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       1},
      {"put 1025 B",
       [&] {
         return db_
             ->PutItem({.table_name = "Items",
                        .item = Sized("c", 1025),
                        .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       2},
      {"put 3000 B",
       [&] {
         return db_
             ->PutItem({.table_name = "Items",
                        .item = Sized("d", 3000),
                        .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       3},
      // Overwriting charges the larger of the old and the new item.
      {"overwrite 3000 B with 200 B",
       [&] {
         return db_
             ->PutItem({.table_name = "Items",
                        .item = Sized("d", 200),
                        .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       3},
      {"get 1025 B strong",
       [&] {
         return db_
             ->GetItem({.table_name = "Items",
                        .key = Key("c"),
                        .consistent_read = true,
                        .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       1},
      {"get 3000 B eventual",
       [&] {
         db_->PutItem({.table_name = "Items", .item = Sized("e", 5000)}).value();
         return db_
             ->GetItem({.table_name = "Items", .key = Key("e"), .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       1},
      {"get 5000 B strong",
       [&] {
         return db_
             ->GetItem({.table_name = "Items",
                        .key = Key("e"),
                        .consistent_read = true,
                        .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       2},
      {"get missing strong",
       [&] {
         return db_
             ->GetItem({.table_name = "Items",
                        .key = Key("zz"),
                        .consistent_read = true,
                        .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       1},
      {"get missing eventual",
       [&] {
         return db_
             ->GetItem(
                 {.table_name = "Items", .key = Key("zz"), .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       0.5},
      {"delete 1025 B",
       [&] {
         return db_
             ->DeleteItem(
                 {.table_name = "Items", .key = Key("c"), .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       2},
      {"delete missing",
       [&] {
         return db_
             ->DeleteItem(
                 {.table_name = "Items", .key = Key("c"), .return_consumed_capacity = kTotal})
             ->consumed_capacity;
       },
       1},
      {"update 5000 B item",
       [&] {
         UpdateItemRequest u{
             .table_name = "Items", .key = Key("e"), .update_expression = "SET n = :one"};
         u.expression_attribute_values = ExpressionAttributeValues{{":one", N("1")}};
         u.return_consumed_capacity = kTotal;
         return db_->UpdateItem(u)->consumed_capacity;
       },
       5},
  };
  for (const auto& c : cases) {
    auto cc = c.run();
    ASSERT_TRUE(cc.has_value()) << c.name;
    EXPECT_EQ(cc->table_name, "Items");
    EXPECT_DOUBLE_EQ(cc->capacity_units, c.expected) << c.name;
    EXPECT_FALSE(cc->table.has_value()) << c.name;  // TOTAL: no breakdown
  }
  EXPECT_FALSE(db_->PutItem({.table_name = "Items", .item = Sized("f", 100)})
                   ->consumed_capacity.has_value());
}

TEST_F(CapacityTest, IndexWritesAreChargedPerIndex) {
  auto put = db_->PutItem(
      {.table_name = "Items", .item = Sized("a", 300, "g1"), .return_consumed_capacity = kIndexes});
  ASSERT_OK(put);
  const ConsumedCapacity& c = *put->consumed_capacity;
  EXPECT_DOUBLE_EQ(c.capacity_units, 2);  // the item, and one new index entry
  EXPECT_DOUBLE_EQ(c.write_capacity_units, 2);
  EXPECT_DOUBLE_EQ(c.table->capacity_units, 1);
  EXPECT_DOUBLE_EQ(c.global_secondary_indexes->at("ByG").capacity_units, 1);
  // Moving the index key: the old entry removed and a new one added.
  auto moved = db_->PutItem(
      {.table_name = "Items", .item = Sized("a", 300, "g2"), .return_consumed_capacity = kIndexes});
  EXPECT_DOUBLE_EQ(moved->consumed_capacity->global_secondary_indexes->at("ByG").capacity_units, 2);
  // Not touching the index key: one write for the entry updated in place.
  auto same = db_->PutItem(
      {.table_name = "Items", .item = Sized("a", 400, "g2"), .return_consumed_capacity = kIndexes});
  EXPECT_DOUBLE_EQ(same->consumed_capacity->global_secondary_indexes->at("ByG").capacity_units, 1);
  // No index key: the index costs nothing beyond removing the old entry.
  auto gone = db_->PutItem(
      {.table_name = "Items", .item = Sized("a", 400), .return_consumed_capacity = kIndexes});
  EXPECT_DOUBLE_EQ(gone->consumed_capacity->capacity_units, 2);
}

// An LSI Query or Scan that asks for attributes the index does not project
// fetches each item from the table: the index entries are charged to the
// index as read (rounded up once), each fetched item to the table as a read
// of its own (its size rounded up to 4 KB), both halved when eventual.
TEST_F(CapacityTest, LsiFetchesAreChargedToTheTablePerItem) {
  CreateTableRequest r = testing::TableRequest("Local", "pk", T::kS, "sk", T::kS);
  r.attribute_definitions.push_back({"l", T::kN});
  r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"ByL", {{"pk", KeyType::kHash}, {"l", KeyType::kRange}}, {ProjectionType::kKeysOnly, {}}}};
  Create(r);
  for (int i = 1; i <= 3; ++i) {
    Item item = Sized("s" + std::to_string(i), 5000);  // 2 read units each
    item["l"] = N(std::to_string(i));
    Put("Local", item);
  }
  QueryRequest q{.table_name = "Local", .index_name = "ByL"};
  q.key_condition_expression = "pk = :k";
  q.expression_attribute_values = ExpressionAttributeValues{{":k", S("k")}};
  q.return_consumed_capacity = kIndexes;
  q.consistent_read = true;
  q.select = Select::kAllAttributes;
  auto fetched = db_->Query(q);
  ASSERT_OK(fetched);
  ASSERT_EQ(fetched->count, 3);
  const ConsumedCapacity& c = *fetched->consumed_capacity;
  EXPECT_DOUBLE_EQ(c.local_secondary_indexes->at("ByL").capacity_units, 1);  // 3 small entries
  EXPECT_DOUBLE_EQ(c.table->capacity_units, 6);                              // 3 x 2
  EXPECT_DOUBLE_EQ(c.capacity_units, 7);
  q.consistent_read = false;
  EXPECT_DOUBLE_EQ(Units(db_->Query(q)), 3.5);
  q.select = Select::kAllProjectedAttributes;  // no fetch: the index alone
  EXPECT_DOUBLE_EQ(Units(db_->Query(q)), 0.5);

  ScanRequest s{.table_name = "Local", .index_name = "ByL", .return_consumed_capacity = kTotal};
  s.select = Select::kAllAttributes;
  s.consistent_read = true;
  EXPECT_DOUBLE_EQ(Units(db_->Scan(s)), 4 + 6);  // the Scan minimum, and the fetches
}

// DynamoDB: a Scan of a table holding one tiny item costs 4 units with
// ConsistentRead and 2 without (a unit, or half, per partition of a new
// table's 4); an empty table's Scan the same; a Query of an empty range the
// minimum of one partition, 1 or 0.5; a parallel Scan's segment its share.
TEST_F(CapacityTest, ScanAndQueryMinimums) {
  ScanRequest s{.table_name = "Items", .return_consumed_capacity = kTotal};
  s.consistent_read = true;
  EXPECT_DOUBLE_EQ(Units(db_->Scan(s)), 4);  // empty table
  s.consistent_read = false;
  EXPECT_DOUBLE_EQ(Units(db_->Scan(s)), 2);
  Put("Items", Sized("tiny", 10));
  s.consistent_read = true;
  EXPECT_DOUBLE_EQ(Units(db_->Scan(s)), 4);
  s.consistent_read = false;
  EXPECT_DOUBLE_EQ(Units(db_->Scan(s)), 2);
  s.total_segments = 4;
  s.segment = 1;
  EXPECT_DOUBLE_EQ(Units(db_->Scan(s)), 0.5);
  s.total_segments = 2;
  s.consistent_read = true;
  EXPECT_DOUBLE_EQ(Units(db_->Scan(s)), 2);

  QueryRequest q{.table_name = "Items"};
  q.key_condition_expression = "pk = :k";
  q.expression_attribute_values = ExpressionAttributeValues{{":k", S("nobody")}};
  q.return_consumed_capacity = kTotal;
  EXPECT_DOUBLE_EQ(Units(db_->Query(q)), 0.5);
  q.consistent_read = true;
  EXPECT_DOUBLE_EQ(Units(db_->Query(q)), 1);
}

TEST_F(CapacityTest, QueryAndScanRoundOnceBatchesPerItemTransactionsDouble) {
  for (int i = 0; i < 10; ++i) Put("Items", Sized("s" + std::to_string(i), 1000));  // 10,000 bytes
  QueryRequest q{.table_name = "Items"};
  q.key_condition_expression = "pk = :k";
  q.expression_attribute_values = ExpressionAttributeValues{{":k", S("k")}};
  q.return_consumed_capacity = kTotal;
  q.consistent_read = true;
  EXPECT_DOUBLE_EQ(Units(db_->Query(q)), 3);  // ceil(10000 / 4096)
  q.consistent_read = false;
  q.filter_expression = "attribute_exists(absent)";  // filters do not lower the cost
  EXPECT_DOUBLE_EQ(Units(db_->Query(q)), 1.5);
  ScanRequest s{.table_name = "Items", .return_consumed_capacity = kTotal};
  EXPECT_DOUBLE_EQ(Units(db_->Scan(s)), 2);  // 4 partitions at least, eventual

  BatchGetItemRequest bg;
  bg.request_items["Items"].keys = {Key("s0"), Key("s1"), Key("s2")};
  bg.request_items["Items"].consistent_read = true;
  bg.return_consumed_capacity = kTotal;
  auto batch = db_->BatchGetItem(bg);
  ASSERT_OK(batch);
  ASSERT_EQ(batch->consumed_capacity.size(), 1u);
  EXPECT_DOUBLE_EQ(batch->consumed_capacity[0].capacity_units, 3);  // each item rounded on its own

  BatchWriteItemRequest bw;
  bw.request_items["Items"] = {{.put_request = PutRequest{Sized("w1", 1500)}},
                               {.delete_request = DeleteRequest{Key("s9")}}};
  bw.return_consumed_capacity = kTotal;
  EXPECT_DOUBLE_EQ(Units(db_->BatchWriteItem(bw)), 2 + 1);

  TransactWriteItemsRequest tw;
  tw.transact_items = {{.put = TransactPut{.table_name = "Items", .item = Sized("t1", 500)}},
                       {.put = TransactPut{.table_name = "Items", .item = Sized("t2", 2000)}}};
  tw.return_consumed_capacity = kTotal;
  auto t = db_->TransactWriteItems(tw);
  ASSERT_OK(t);
  EXPECT_DOUBLE_EQ(t->consumed_capacity[0].capacity_units, 2 * 1 + 2 * 2);

  TransactGetItemsRequest tg;
  tg.transact_items = {{"Items", Key("t1")}, {"Items", Key("t2")}, {"Items", Key("missing")}};
  tg.return_consumed_capacity = kTotal;
  EXPECT_DOUBLE_EQ(Units(db_->TransactGetItems(tg)), 2 + 2 + 2);
}

}  // namespace
}  // namespace dynarock
