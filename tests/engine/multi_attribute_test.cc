// Multi-attribute GSI keys through the embedded API: CreateTable's rules, the
// typed KeyCondition and the expression builder, every Query rule with its
// error, sparse items, paging across component boundaries, a model test of
// random items and random legal key conditions against a brute-force filter
// of the table, the collections view, and a backfill on a populated table
// that a close interrupts.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "dynarock/db.h"
#include "dynarock/expression_builder.h"
#include "tests/util/db_fixture.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::S;
using T = ScalarAttributeType;

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

// The model's schema: components of every type. GSI "Mixed" keyed
// (h1 S, h2 N) / (r1 B, r2 N, r3 S) on a table keyed id.
CreateTableRequest MixedTable() {
  CreateTableRequest r = testing::TableRequest("Mixed", "id", T::kS);
  for (auto [name, type] :
       {std::pair{"h1", T::kS}, {"h2", T::kN}, {"r1", T::kB}, {"r2", T::kN}, {"r3", T::kS}}) {
    r.attribute_definitions.push_back({name, type});
  }
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{{"Mixed",
                                                                  {{"h1", KeyType::kHash},
                                                                   {"h2", KeyType::kHash},
                                                                   {"r1", KeyType::kRange},
                                                                   {"r2", KeyType::kRange},
                                                                   {"r3", KeyType::kRange}},
                                                                  {ProjectionType::kKeysOnly, {}},
                                                                  std::nullopt}};
  return r;
}

AttributeValue Num(int64_t v) { return AttributeValue::N(Number::FromInt64(v)); }

class MultiAttributeTest : public DbTest {
 protected:
  // A random item: few distinct values per component (so collections and
  // ties are common), each component missing one time in ten.
  Item RandomItem(std::mt19937_64& rng, int id) {
    Item item{{"id", S("i" + std::to_string(id))}, {"v", Num(id)}};
    auto maybe = [&](const char* name, AttributeValue v) {
      if (rng() % 10) item[name] = std::move(v);
    };
    maybe("h1", S(rng() % 2 ? "a" : "b"));
    maybe("h2", Num(static_cast<int64_t>(rng() % 2)));
    maybe("r1", AttributeValue::B(
                    std::string(1 + rng() % 2, static_cast<char>(rng() % 3 ? '\x01' : '\xff'))));
    maybe("r2", Num(static_cast<int64_t>(rng() % 5) - 2));
    maybe("r3", S(std::string(1, static_cast<char>('p' + rng() % 3)) + (rng() % 2 ? "q" : "")));
    return item;
  }

  // Every page of a Query, its items' ids in order.
  std::vector<std::string> QueryIds(QueryRequest q) {
    std::vector<std::string> ids;
    for (int pages = 0; pages < 1000; ++pages) {
      auto page = db_->Query(q);
      EXPECT_OK(page);
      if (!page.ok()) return ids;
      for (const auto& item : page->items) ids.push_back(item.at("id").s());
      if (!page->last_evaluated_key) return ids;
      q.exclusive_start_key = page->last_evaluated_key;
    }
    ADD_FAILURE() << "too many pages";
    return ids;
  }
};

TEST_F(MultiAttributeTest, CreateTableRulesAndDescribe) {
  Create(MixedTable());
  auto d = db_->DescribeTable({"Mixed"});
  ASSERT_OK(d);
  const auto& ks = (*d->table.global_secondary_indexes)[0].key_schema;
  ASSERT_EQ(ks.size(), 5u);
  EXPECT_EQ(ks[1].attribute_name, "h2");
  EXPECT_EQ(ks[1].key_type, KeyType::kHash);
  EXPECT_EQ(ks[4].attribute_name, "r3");
  EXPECT_EQ(ks[4].key_type, KeyType::kRange);
  // The schema survives a reopen (the descriptor's more_* fields).
  Reopen();
  auto again = db_->DescribeTable({"Mixed"});
  ASSERT_OK(again);
  const auto& reopened = (*again->table.global_secondary_indexes)[0].key_schema;
  ASSERT_EQ(reopened.size(), ks.size());
  for (size_t i = 0; i < ks.size(); ++i) {
    EXPECT_EQ(reopened[i].attribute_name, ks[i].attribute_name);
    EXPECT_EQ(reopened[i].key_type, ks[i].key_type);
  }

  auto refused = [&](std::vector<KeySchemaElement> keys) {
    CreateTableRequest r = MixedTable();
    r.table_name = "Other";
    // Exactly the attributes the keys use are defined.
    r.attribute_definitions = {{"id", T::kS}};
    for (const auto& k : keys) {
      bool defined = false;
      for (const auto& d : r.attribute_definitions) defined |= d.attribute_name == k.attribute_name;
      if (!defined) r.attribute_definitions.push_back({k.attribute_name, T::kS});
    }
    (*r.global_secondary_indexes)[0].key_schema = std::move(keys);
    return db_->CreateTable(r).status();
  };
  const KeySchemaElement h1{"h1", KeyType::kHash}, h2{"h2", KeyType::kHash},
      h3{"h3", KeyType::kHash}, h4{"h4", KeyType::kHash}, h5{"h5", KeyType::kHash},
      r1{"r1", KeyType::kRange}, r2{"r2", KeyType::kRange}, r3{"r3", KeyType::kRange},
      r4{"r4", KeyType::kRange}, r5{"r5", KeyType::kRange};
  EXPECT_EQ(refused({h1, h2, h3, h4, h5, r1, r2, r3, r4, r5}),
            Status::Validation(std::string(kInvalid) +
                               "The KeySchema exceeds the maximum allowed number of HASH key "
                               "attributes"));
  EXPECT_EQ(refused({h1, r1, r2, r3, r4, r5}),
            Status::Validation(std::string(kInvalid) +
                               "The KeySchema exceeds the maximum allowed number of RANGE key "
                               "attributes"));
  EXPECT_EQ(refused({h1, r1, h2, h3, h4, h5, r2, r3, r4, r5}).message(),
            std::string(kInvalid) +
                "The KeySchema exceeds the maximum allowed number of HASH key attributes");
  EXPECT_EQ(refused({h1, r1, h2}),
            Status::Validation(std::string(kInvalid) +
                               "All HASH key attributes must precede RANGE key attributes in "
                               "the KeySchema"));
  EXPECT_EQ(
      refused({r1, h1, h2}),
      Status::Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type"));
  EXPECT_EQ(
      refused({h1, h2, {"h1", KeyType::kRange}}),
      Status::Validation("The KeySchema contains multiple key attributes with the same name"));
  // Two elements keep the classic text.
  EXPECT_EQ(refused({h1, {"h1", KeyType::kRange}}),
            Status::Validation("Invalid KeySchema: Both the Hash Key and the Range Key element in "
                               "the KeySchema have the same name"));
  // The table's and an LSI's key schemas keep at most two elements.
  CreateTableRequest table = MixedTable();
  table.table_name = "Other";
  table.key_schema = {{"id", KeyType::kHash}, {"h1", KeyType::kRange}, {"h2", KeyType::kRange}};
  EXPECT_EQ(db_->CreateTable(table).status().code(), Status::Code::kValidation);
}

TEST_F(MultiAttributeTest, SparseItemsAndTypedComponents) {
  Create(MixedTable());
  std::mt19937_64 rng(1);
  Item full{{"id", S("x")}, {"h1", S("a")}, {"h2", Num(1)}, {"r1", AttributeValue::B("\x01")},
            {"r2", Num(0)}, {"r3", S("p")}};
  for (const char* missing : {"h1", "h2", "r1", "r2", "r3"}) {
    Item item = full;
    item.erase(missing);
    item["id"] = S(std::string("no-") + missing);
    Put("Mixed", item);
  }
  auto scan = db_->Scan({.table_name = "Mixed", .index_name = "Mixed"});
  ASSERT_OK(scan);
  EXPECT_EQ(scan->count, 0);
  for (const char* attr : {"h1", "h2", "r1", "r2", "r3"}) {
    Item bad = full;
    bad[attr] = AttributeValue::Bool(true);
    auto put = db_->PutItem({.table_name = "Mixed", .item = bad});
    EXPECT_EQ(put.status().code(), Status::Code::kValidation) << attr;
    EXPECT_NE(put.status().message().find(std::string("Type mismatch for Index Key ") + attr),
              std::string::npos)
        << put.status().message();
  }
  Item empty = full;
  empty["r3"] = S("");
  EXPECT_NE(db_->PutItem({.table_name = "Mixed", .item = empty}).status().message().find("empty"),
            std::string::npos);
  // Per component: a 1,024-byte sort component is fine, 1,025 is not.
  Item big = full;
  big["r3"] = S(std::string(1024, 'x'));
  Put("Mixed", big);
  big["r3"] = S(std::string(1025, 'x'));
  EXPECT_EQ(db_->PutItem({.table_name = "Mixed", .item = big}).status().code(),
            Status::Code::kValidation);
}

// The typed KeyCondition, the expression builder and KeyConditionExpression
// text select the same slice; the rules' errors for each illegal shape.
TEST_F(MultiAttributeTest, QueryRulesAndErrors) {
  Create(MixedTable());
  for (int i = 0; i < 30; ++i) {
    Put("Mixed", {{"id", S("i" + std::to_string(i))},
                  {"h1", S("a")},
                  {"h2", Num(i % 2)},
                  {"r1", AttributeValue::B(std::string(1, static_cast<char>(1 + i % 3)))},
                  {"r2", Num(i % 4)},
                  {"r3", S("s" + std::to_string(i))}});
  }
  QueryRequest typed{.table_name = "Mixed", .index_name = "Mixed"};
  typed.key_condition.partition_key_name = "h2";  // any HASH attribute first
  typed.key_condition.partition_key_value = Num(0);
  typed.key_condition.more_partition_keys = {{"h1", S("a")}};
  typed.key_condition.sort_equalities = {{"r1", AttributeValue::B("\x02")}};
  typed.key_condition.sort = SortKeyCondition{"r2", SortKeyOperator::kGe, Num(1), std::nullopt};
  const auto want = QueryIds(typed);
  // i even (h2 0), i % 3 == 1 (r1 2), i % 4 >= 1: 4, 10, 16, 22, 28 minus i%4==0 (4, 16, 28).
  EXPECT_EQ(want, (std::vector<std::string>{"i10", "i22"}));

  using namespace expression;
  QueryRequest built{.table_name = "Mixed", .index_name = "Mixed"};
  Builder()
      .WithKeyCondition(Equal(Name("r1"), Value(AttributeValue::B("\x02")))
                            .And(Equal(Name("h1"), Value(S("a"))))
                            .And(GreaterThanEqual(Name("r2"), Value(Num(1))))
                            .And(Equal(Name("h2"), Value(Num(0)))))
      .Build()
      .ApplyTo(&built);
  EXPECT_EQ(QueryIds(built), want);

  auto error = [&](std::string condition, ExpressionAttributeValues values) {
    QueryRequest q{.table_name = "Mixed", .index_name = "Mixed"};
    q.key_condition_expression = std::move(condition);
    q.expression_attribute_values = std::move(values);
    return db_->Query(q).status();
  };
  const AttributeValue a = S("a"), zero = Num(0), b = AttributeValue::B("\x02");
  EXPECT_EQ(error("h1 = :a", {{":a", a}}),
            Status::Validation("Query condition missed HASH key attribute h2: every HASH key "
                               "attribute must have an equality condition"));
  EXPECT_EQ(error("h1 = :a AND h2 > :z", {{":a", a}, {":z", zero}}),
            Status::Validation("Query key condition not supported: HASH key attribute h2 must "
                               "have an equality condition"));
  EXPECT_EQ(error("h1 = :a AND h2 = :z AND r2 = :z", {{":a", a}, {":z", zero}}),
            Status::Validation("RANGE key attributes r1 must have equality conditions specified "
                               "in the query because a condition is present on key attribute r2"));
  EXPECT_EQ(
      error("h1 = :a AND h2 = :z AND r1 = :b AND r3 = :a", {{":a", a}, {":z", zero}, {":b", b}}),
      Status::Validation("RANGE key attributes r2 must have equality conditions specified "
                         "in the query because a condition is present on key attribute r3"));
  EXPECT_EQ(
      error("h1 = :a AND h2 = :z AND r1 > :b AND r2 = :z", {{":a", a}, {":z", zero}, {":b", b}}),
      Status::Validation("RANGE key attributes r1 must have equality conditions specified "
                         "in the query because a condition is present on key attribute r2"));
  EXPECT_EQ(error("h1 = :a AND h2 = :z AND r1 = :z", {{":a", a}, {":z", zero}}),
            Status::Validation(std::string(kInvalid) +
                               "Condition parameter type does not match schema type"));
  EXPECT_EQ(error("h1 = :a AND h2 = :z AND r1 = :b AND begins_with(r2, :z)",
                  {{":a", a}, {":z", zero}, {":b", b}})
                .code(),
            Status::Code::kValidation);
  EXPECT_EQ(
      error("h1 = :a AND h2 = :z AND r1 = :b AND r1 = :b", {{":a", a}, {":z", zero}, {":b", b}}),
      Status::Validation("KeyConditionExpressions must only contain one condition per key"));
  EXPECT_EQ(error("h1 = :a AND h2 = :z AND v = :z", {{":a", a}, {":z", zero}}),
            Status::Validation("Query key condition not supported"));
  // A filter may not name any component.
  QueryRequest filtered = built;
  filtered.filter_expression = "#f = :f";
  (*filtered.expression_attribute_names)["#f"] = "r3";
  (*filtered.expression_attribute_values)[":f"] = S("x");
  EXPECT_EQ(db_->Query(filtered).status(),
            Status::Validation("Filter Expression can only contain non-primary key attributes: "
                               "Primary key attribute: r3"));
  // The typed form is checked as strictly: a gap in the sort equalities.
  QueryRequest gap = typed;
  gap.key_condition.sort_equalities.clear();
  EXPECT_EQ(db_->Query(gap).status().message(),
            "RANGE key attributes r1 must have equality conditions specified in the query "
            "because a condition is present on key attribute r2");
  QueryRequest short_hash = typed;
  short_hash.key_condition.more_partition_keys.clear();
  EXPECT_EQ(db_->Query(short_hash).status().message(),
            "Query condition missed HASH key attribute h1: every HASH key attribute must have an "
            "equality condition");
}

// Random items and random legal key conditions: each Query (forwards,
// backwards, in pages of random Limit) returns exactly the table's items
// that the condition selects, in index order.
TEST_F(MultiAttributeTest, QueriesMatchABruteForceFilter) {
  const uint64_t seed = testing::TestSeed("MultiAttributeTest.QueriesMatchABruteForceFilter");
  std::mt19937_64 rng(seed);
  Create(MixedTable());
  std::vector<Item> items;
  for (int i = 0; i < 400; ++i) {
    items.push_back(RandomItem(rng, i));
    Put("Mixed", items.back());
  }
  // Overwrites and deletes move and drop entries.
  for (int i = 0; i < 80; ++i) {
    const int id = static_cast<int>(rng() % items.size());
    if (rng() % 3 == 0) {
      ASSERT_OK(db_->DeleteItem({.table_name = "Mixed", .key = {{"id", items[id].at("id")}}}));
      items[id] = {{"id", items[id].at("id")}};  // absent from the index from now on
    } else {
      items[id] = RandomItem(rng, id);
      Put("Mixed", items[id]);
    }
  }
  const char* sort_names[] = {"r1", "r2", "r3"};
  auto compare = [](const AttributeValue& x, const AttributeValue& y) {
    if (x.is(AttrType::kN)) return x.n() <=> y.n();
    const std::string& p = x.is(AttrType::kS) ? x.s() : x.b();
    const std::string& q = x.is(AttrType::kS) ? y.s() : y.b();
    const int c = std::string_view(p).compare(q);
    return c < 0   ? std::strong_ordering::less
           : c > 0 ? std::strong_ordering::greater
                   : std::strong_ordering::equal;
  };
  int nonempty = 0;
  for (int round = 0; round < 300; ++round) {
    const Item& model = items[rng() % items.size()];  // values that exist, mostly
    if (!model.count("h1") || !model.count("h2")) continue;
    QueryRequest q{.table_name = "Mixed", .index_name = "Mixed"};
    q.key_condition.partition_key_name = "h1";
    q.key_condition.partition_key_value = model.at("h1");
    q.key_condition.more_partition_keys = {{"h2", model.at("h2")}};
    const size_t depth = rng() % 4;  // sort components conditioned
    bool usable = true;
    for (size_t c = 0; c < depth; ++c) usable = usable && model.count(sort_names[c]);
    if (!usable) continue;
    for (size_t c = 0; c + 1 < depth; ++c) {
      q.key_condition.sort_equalities.push_back({sort_names[c], model.at(sort_names[c])});
    }
    SortKeyCondition last;
    if (depth > 0) {
      last.attribute_name = sort_names[depth - 1];
      last.value = model.at(last.attribute_name);
      const bool numeric = last.value.is(AttrType::kN);
      last.op = static_cast<SortKeyOperator>(rng() % (numeric ? 6 : 7));
      if (last.op == SortKeyOperator::kBetween) last.upper = last.value;
      if (last.op == SortKeyOperator::kBetween && numeric) last.value = Num(-2);
      if (last.op == SortKeyOperator::kBeginsWith) {
        std::string p = last.value.is(AttrType::kS) ? last.value.s() : last.value.b();
        p.resize(1);
        last.value = last.value.is(AttrType::kS) ? S(p) : AttributeValue::B(p);
      }
      q.key_condition.sort = last;
    }
    std::vector<const Item*> want;
    for (const Item& item : items) {
      bool in = true;
      for (const char* k : {"h1", "h2", "r1", "r2", "r3"}) in = in && item.count(k);
      if (!in || !(item.at("h1") == model.at("h1")) || !(item.at("h2") == model.at("h2"))) continue;
      for (size_t c = 0; c + 1 < depth; ++c)
        in = in && item.at(sort_names[c]) == model.at(sort_names[c]);
      if (in && depth > 0) {
        const AttributeValue& v = item.at(last.attribute_name);
        switch (last.op) {
          case SortKeyOperator::kEq:
            in = compare(v, last.value) == 0;
            break;
          case SortKeyOperator::kLt:
            in = compare(v, last.value) < 0;
            break;
          case SortKeyOperator::kLe:
            in = compare(v, last.value) <= 0;
            break;
          case SortKeyOperator::kGt:
            in = compare(v, last.value) > 0;
            break;
          case SortKeyOperator::kGe:
            in = compare(v, last.value) >= 0;
            break;
          case SortKeyOperator::kBetween:
            in = compare(v, last.value) >= 0 && compare(v, *last.upper) <= 0;
            break;
          case SortKeyOperator::kBeginsWith: {
            const std::string& s = v.is(AttrType::kS) ? v.s() : v.b();
            const std::string& p = last.value.is(AttrType::kS) ? last.value.s() : last.value.b();
            in = s.starts_with(p);
            break;
          }
        }
      }
      if (in) want.push_back(&item);
    }
    // Index order: the sort tuple, then the table key.
    std::sort(want.begin(), want.end(), [&](const Item* x, const Item* y) {
      for (const char* k : sort_names) {
        if (auto c = compare(x->at(k), y->at(k)); c != 0) return c < 0;
      }
      return x->at("id").s() < y->at("id").s();
    });
    std::vector<std::string> ids;
    for (const Item* item : want) ids.push_back(item->at("id").s());
    nonempty += !ids.empty();
    q.scan_index_forward = rng() % 2;
    if (!q.scan_index_forward) std::reverse(ids.begin(), ids.end());
    if (rng() % 2) q.limit = static_cast<int32_t>(1 + rng() % 5);
    ASSERT_EQ(QueryIds(q), ids) << "seed " << seed << " round " << round << " depth " << depth;
  }
  EXPECT_GT(nonempty, 50) << "seed " << seed;
}

// The collections view names an index collection by all its partition
// values; LastEvaluatedKey carries every component.
TEST_F(MultiAttributeTest, CollectionsAndPageKeys) {
  Create(MixedTable());
  for (int i = 0; i < 12; ++i) {
    Put("Mixed", {{"id", S("i" + std::to_string(i))},
                  {"h1", S("a")},
                  {"h2", Num(i % 3)},
                  {"r1", AttributeValue::B("\x01")},
                  {"r2", Num(i)},
                  {"r3", S("s")}});
  }
  auto largest = db_->LargestIndexCollections("Mixed", "Mixed", 10);
  ASSERT_OK(largest);
  ASSERT_EQ(largest->size(), 3u);
  EXPECT_EQ((*largest)[0].key.size(), 2u);  // h1 and h2
  EXPECT_EQ((*largest)[0].item_count, 4);
  DescribeCollectionRequest one{
      .table_name = "Mixed", .index_name = "Mixed", .partition_key_value = S("a")};
  EXPECT_EQ(db_->DescribeCollection(one).status().code(), Status::Code::kValidation);
  one.more_partition_key_values = {Num(2)};
  EXPECT_OK(db_->DescribeCollection(one));

  QueryRequest q{.table_name = "Mixed", .index_name = "Mixed", .limit = 1};
  q.key_condition.partition_key_name = "h1";
  q.key_condition.partition_key_value = S("a");
  q.key_condition.more_partition_keys = {{"h2", Num(1)}};
  auto page = db_->Query(q);
  ASSERT_OK(page);
  ASSERT_TRUE(page->last_evaluated_key);
  EXPECT_EQ(page->last_evaluated_key->size(), 6u);  // five components and id
  // A start key of another index collection is outside the query.
  Item outside = *page->last_evaluated_key;
  outside["h2"] = Num(2);
  q.exclusive_start_key = outside;
  EXPECT_EQ(db_->Query(q).status(),
            Status::Validation("The provided starting key is outside query boundaries based on "
                               "provided conditions"));
}

// UpdateTable adds a multi-attribute GSI to a populated table; a close in
// the middle of its backfill stops it, the next Open resumes it, and it
// completes with exactly the entries the table implies.
TEST_F(MultiAttributeTest, BackfillOfAPopulatedTableResumesAfterClose) {
  options_.backfill_batch_items = 7;
  Reopen();
  CreateTableRequest bare = testing::TableRequest("Mixed", "id", T::kS);
  Create(bare);
  std::mt19937_64 rng(5);
  std::vector<Item> items;
  for (int i = 0; i < 1500; ++i) {
    items.push_back(RandomItem(rng, i));
    Put("Mixed", items.back());
  }
  CreateTableRequest full = MixedTable();
  UpdateTableRequest add{.table_name = "Mixed"};
  add.attribute_definitions = full.attribute_definitions;
  CreateGlobalSecondaryIndexAction create;
  create.index_name = "Mixed";
  create.key_schema = (*full.global_secondary_indexes)[0].key_schema;
  create.projection = {ProjectionType::kKeysOnly, {}};
  add.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{{.create = create}};
  ASSERT_OK(db_->UpdateTable(add));
  Reopen();  // mid-backfill, most likely
  Item late = RandomItem(rng, 5000);
  for (const char* k : {"h1", "h2", "r1", "r2", "r3"}) {
    if (!late.count(k))
      late[k] = k[0] == 'r' && k[1] == '1'   ? AttributeValue::B("\x01")
                : k[0] == 'h' && k[1] == '1' ? S("a")
                : k[1] == '3'                ? S("z")
                                             : Num(1);
  }
  items.push_back(late);
  Put("Mixed", late);
  ASSERT_OK(db_->WaitForBackfills());
  size_t expected = 0;
  for (const Item& item : items) {
    bool in = true;
    for (const char* k : {"h1", "h2", "r1", "r2", "r3"}) in = in && item.count(k);
    expected += in;
  }
  auto scan = db_->Scan({.table_name = "Mixed", .index_name = "Mixed"});
  ASSERT_OK(scan);
  EXPECT_EQ(static_cast<size_t>(scan->count), expected);
  EXPECT_GT(expected, 500u);
  auto d = db_->DescribeTable({"Mixed"});
  ASSERT_OK(d);
  EXPECT_EQ((*d->table.global_secondary_indexes)[0].item_count, static_cast<int64_t>(expected));
  auto recount = db_->RecountStatistics();
  ASSERT_OK(recount);
  EXPECT_EQ(recount->index_totals_corrected, 0);
}

}  // namespace
}  // namespace dynarock
