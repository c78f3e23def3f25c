// Model-based randomized test: thousands of random Put / Delete / Get / Query /
// Scan steps over tables with S, N and B keys, checked continuously against a
// plain in-memory model (ordered maps with DynamoDB's ordering written out
// independently of the key codec), with reopens in the middle.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::Num;
using T = ScalarAttributeType;
using Op = SortKeyOperator;

// DynamoDB's order for key values, from first principles: S and B by unsigned
// bytes, N numerically.
struct DynamoLess {
  bool operator()(const AttributeValue& a, const AttributeValue& b) const {
    if (a.is(AttrType::kNull)) return false;  // the one "sort key" of hash-only tables
    if (a.is(AttrType::kN)) return a.n() < b.n();
    const std::string& x = a.is(AttrType::kS) ? a.s() : a.b();
    const std::string& y = b.is(AttrType::kS) ? b.s() : b.b();
    return std::lexicographical_compare(
        x.begin(), x.end(), y.begin(), y.end(),
        [](char c, char d) { return static_cast<unsigned char>(c) < static_cast<unsigned char>(d); });
  }
};

struct ModelTable {
  std::string name;
  std::string pk, sk;  // sk empty: hash-only
  T pk_type, sk_type;
  std::map<AttributeValue, std::map<AttributeValue, Item, DynamoLess>, DynamoLess> items;
};

class ModelTest : public DbTest {
 protected:
  AttributeValue RandomKey(T type) {
    static const char* kStrings[] = {"a", "a\0", "a\0b", "ab", "b", "\xff", "VEH#1", "\x01"};
    static const size_t kStringLens[] = {1, 2, 3, 2, 1, 1, 5, 1};
    static const char* kNumbers[] = {"-1e10", "-1", "-0.5", "0", "1E-130", "1", "1.5", "10", "1e125", "99"};
    size_t i = rng_() % 8;
    switch (type) {
      case T::kS: return AttributeValue::S(std::string(kStrings[i], kStringLens[i]));
      case T::kB: return AttributeValue::B(std::string(kStrings[i], kStringLens[i]));
      case T::kN: return AttributeValue::N(Num(kNumbers[rng_() % 10]));
    }
    return {};
  }

  Item RandomItem(const ModelTable& t) {
    Item item;
    item[t.pk] = RandomKey(t.pk_type);
    if (!t.sk.empty()) item[t.sk] = RandomKey(t.sk_type);
    item["v"] = AttributeValue::N(Number::FromInt64(static_cast<int64_t>(rng_() % 1000)));
    if (rng_() % 2) item["pad"] = AttributeValue::S(std::string(rng_() % 50, 'x'));
    return item;
  }

  Item KeyOf(const ModelTable& t, const Item& item) {
    Item key{{t.pk, item.at(t.pk)}};
    if (!t.sk.empty()) key.emplace(t.sk, item.at(t.sk));
    return key;
  }

  static bool ModelMatches(const SortKeyCondition& c, const AttributeValue& v) {
    DynamoLess less;
    switch (c.op) {
      case Op::kEq: return !less(v, c.value) && !less(c.value, v);
      case Op::kLt: return less(v, c.value);
      case Op::kLe: return !less(c.value, v);
      case Op::kGt: return less(c.value, v);
      case Op::kGe: return !less(v, c.value);
      case Op::kBetween: return !less(v, c.value) && !less(*c.upper, v);
      case Op::kBeginsWith: {
        const std::string& s = v.is(AttrType::kS) ? v.s() : v.b();
        const std::string& p = c.value.is(AttrType::kS) ? c.value.s() : c.value.b();
        return s.compare(0, p.size(), p) == 0;
      }
    }
    return false;
  }

  void CheckQuery(ModelTable& t) {
    QueryRequest q;
    q.table_name = t.name;
    AttributeValue pk = RandomKey(t.pk_type);
    q.key_condition = {t.pk, pk, std::nullopt};
    if (!t.sk.empty() && rng_() % 4) {
      SortKeyCondition c;
      c.attribute_name = t.sk;
      c.op = static_cast<Op>(rng_() % 7);
      if (c.op == Op::kBeginsWith && t.sk_type == T::kN) c.op = Op::kGe;
      c.value = RandomKey(t.sk_type);
      if (c.op == Op::kBeginsWith && rng_() % 2) {
        // Prefixes that are not themselves stored values.
        std::string p = c.value.is(AttrType::kS) ? c.value.s() : c.value.b();
        p.resize(rng_() % (p.size() + 1));
        if (p.empty()) p = "a";
        c.value = t.sk_type == T::kS ? AttributeValue::S(p) : AttributeValue::B(p);
      }
      if (c.op == Op::kBetween) {
        AttributeValue hi = RandomKey(t.sk_type);
        if (DynamoLess()(hi, c.value)) std::swap(hi, c.value);
        c.upper = hi;
      }
      q.key_condition.sort = c;
    }
    q.scan_index_forward = rng_() % 2;
    if (rng_() % 2) q.limit = 1 + static_cast<int32_t>(rng_() % 4);

    std::vector<Item> expected;
    auto coll = t.items.find(pk);
    if (coll != t.items.end()) {
      for (const auto& [sk, item] : coll->second) {
        if (!q.key_condition.sort || ModelMatches(*q.key_condition.sort, sk)) expected.push_back(item);
      }
    }
    if (!q.scan_index_forward) std::reverse(expected.begin(), expected.end());

    std::vector<Item> got;
    for (int pages = 0;; ++pages) {
      ASSERT_LT(pages, 100);
      auto r = db_->Query(q);
      ASSERT_OK(r);
      got.insert(got.end(), r->items.begin(), r->items.end());
      if (!r->last_evaluated_key) break;
      q.exclusive_start_key = r->last_evaluated_key;
    }
    ASSERT_EQ(got, expected) << "query on " << t.name << " pk " << DebugString(pk);
  }

  void CheckScan(ModelTable& t) {
    std::map<std::string, Item> expected, got;
    for (const auto& [pk, coll] : t.items) {
      for (const auto& [sk, item] : coll) expected[DebugString(item)] = item;
    }
    int32_t total = 1 + static_cast<int32_t>(rng_() % 3);
    for (int32_t seg = 0; seg < total; ++seg) {
      ScanRequest s{.table_name = t.name};
      if (total > 1) {
        s.segment = seg;
        s.total_segments = total;
      }
      if (rng_() % 2) s.limit = 1 + static_cast<int32_t>(rng_() % 5);
      for (int pages = 0;; ++pages) {
        ASSERT_LT(pages, 1000);
        auto r = db_->Scan(s);
        ASSERT_OK(r);
        for (const auto& item : r->items) {
          ASSERT_TRUE(got.emplace(DebugString(item), item).second) << "scanned twice";
        }
        if (!r->last_evaluated_key) break;
        s.exclusive_start_key = r->last_evaluated_key;
      }
    }
    ASSERT_EQ(got, expected) << "scan of " << t.name;
    size_t count = expected.size();
    ASSERT_EQ(db_->DescribeTable({t.name})->table.item_count, static_cast<int64_t>(count));
  }

  std::mt19937_64 rng_;
};

TEST_F(ModelTest, RandomOperationsMatchTheModel) {
  rng_.seed(testing::TestSeed("ModelTest.RandomOperationsMatchTheModel"));
  std::vector<ModelTable> tables = {
      {"Strings", "pk", "sk", T::kS, T::kS, {}},
      {"Numbers", "id", "", T::kN, T::kS, {}},
      {"Mixed", "bin", "num", T::kB, T::kN, {}},
      {"Binary", "p", "s", T::kS, T::kB, {}},
  };
  for (const auto& t : tables) {
    Create(testing::TableRequest(t.name, t.pk, t.pk_type,
                                 t.sk.empty() ? std::nullopt : std::optional(t.sk), t.sk_type));
  }
  constexpr int kSteps = 4000;
  for (int step = 0; step < kSteps; ++step) {
    ModelTable& t = tables[rng_() % tables.size()];
    int op = static_cast<int>(rng_() % 100);
    if (op < 45) {
      Item item = RandomItem(t);
      auto r = db_->PutItem({.table_name = t.name, .item = item, .return_values = ReturnValue::kAllOld});
      ASSERT_OK(r);
      auto& coll = t.items[item.at(t.pk)];
      AttributeValue sk = t.sk.empty() ? AttributeValue::Null() : item.at(t.sk);
      auto old = coll.find(sk);
      ASSERT_EQ(r->attributes.has_value(), old != coll.end()) << "step " << step;
      if (old != coll.end()) {
        ASSERT_EQ(*r->attributes, old->second);
      }
      coll[sk] = item;
    } else if (op < 60) {
      Item key = KeyOf(t, RandomItem(t));
      auto r = db_->DeleteItem({.table_name = t.name, .key = key, .return_values = ReturnValue::kAllOld});
      ASSERT_OK(r);
      auto coll = t.items.find(key.at(t.pk));
      AttributeValue sk = t.sk.empty() ? AttributeValue::Null() : key.at(t.sk);
      bool present = coll != t.items.end() && coll->second.count(sk);
      ASSERT_EQ(r->attributes.has_value(), present) << "step " << step;
      if (present) {
        coll->second.erase(sk);
        if (coll->second.empty()) t.items.erase(coll);
      }
    } else if (op < 75) {
      Item key = KeyOf(t, RandomItem(t));
      auto r = db_->GetItem({.table_name = t.name, .key = key});
      ASSERT_OK(r);
      auto coll = t.items.find(key.at(t.pk));
      AttributeValue sk = t.sk.empty() ? AttributeValue::Null() : key.at(t.sk);
      if (coll == t.items.end() || !coll->second.count(sk)) {
        ASSERT_FALSE(r->item.has_value()) << "step " << step;
      } else {
        ASSERT_TRUE(r->item.has_value()) << "step " << step;
        ASSERT_EQ(*r->item, coll->second.at(sk));
      }
    } else if (op < 95) {
      ASSERT_NO_FATAL_FAILURE(CheckQuery(t)) << "step " << step;
    } else if (op < 99) {
      ASSERT_NO_FATAL_FAILURE(CheckScan(t)) << "step " << step;
    } else {
      Reopen();
    }
  }
  Reopen();
  for (auto& t : tables) ASSERT_NO_FATAL_FAILURE(CheckScan(t));
}

}  // namespace
}  // namespace dynarock

namespace dynarock {
namespace {

using testing::N;
using testing::S;

// The model test for everything a write can be: a table with a sparse GSI
// and a sparse LSI, written with PutItem, UpdateItem and DeleteItem (each
// sometimes conditional, with ReturnValues), BatchWriteItem and
// TransactWriteItems (conditions that cancel the whole transaction), and read
// back through the table, both indexes, DescribeTable's counts and a recount,
// all against a plain map.
class WriteModelTest : public DbTest {
 protected:
  using Model = std::map<std::pair<std::string, int>, Item>;  // (pk, sk) -> item

  static Item Key(const std::string& pk, int sk) {
    return {{"pk", S(pk)}, {"sk", N(std::to_string(sk))}};
  }
  std::pair<std::string, int> RandomKey() {
    return {"P" + std::to_string(rng_() % 6), static_cast<int>(rng_() % 10)};
  }
  Item RandomItem(const std::pair<std::string, int>& k) {
    Item item = Key(k.first, k.second);
    item["v"] = N(std::to_string(rng_() % 100));
    if (rng_() % 3) item["g"] = S("G" + std::to_string(rng_() % 3));  // GSI key, sparse
    if (rng_() % 3) item["l"] = N(std::to_string(rng_() % 20));       // LSI key, sparse
    return item;
  }
  const Item* Find(const std::pair<std::string, int>& k) const {
    auto it = model_.find(k);
    return it == model_.end() ? nullptr : &it->second;
  }

  // A random condition on the item at `k`, with what the model says of it.
  struct Condition {
    std::optional<std::string> expression;
    std::optional<ExpressionAttributeValues> values;
    bool holds = true;
  };
  Condition RandomCondition(const std::pair<std::string, int>& k) {
    const Item* old = Find(k);
    Condition c;
    switch (rng_() % 4) {
      case 0:
        break;  // none
      case 1:
        c.expression = "attribute_exists(pk)";
        c.holds = old != nullptr;
        break;
      case 2:
        c.expression = "attribute_not_exists(pk)";
        c.holds = old == nullptr;
        break;
      default: {
        int limit = static_cast<int>(rng_() % 100);
        c.expression = "v < :limit";
        c.values = ExpressionAttributeValues{{":limit", N(std::to_string(limit))}};
        c.holds = old != nullptr && std::stoi(old->at("v").n().ToString()) < limit;
      }
    }
    return c;
  }

  void Apply(const std::pair<std::string, int>& k, std::optional<Item> after) {
    if (after) {
      model_[k] = std::move(*after);
    } else {
      model_.erase(k);
    }
  }

  // UpdateItem's effect in the model: SET v = v + :d (or :d when absent),
  // SET or REMOVE the index keys.
  Item Updated(const std::pair<std::string, int>& k, int d, const std::optional<std::string>& g,
               bool remove_l) {
    const Item* old = Find(k);
    Item item = old ? *old : Key(k.first, k.second);
    int v = old && old->count("v") ? std::stoi(old->at("v").n().ToString()) : 0;
    item["v"] = N(std::to_string(v + d));
    if (g) {
      item["g"] = S(*g);
    } else {
      item.erase("g");
    }
    if (remove_l) item.erase("l");
    return item;
  }

  void CheckIndex(const std::string& index, const std::string& pk_attr, const AttributeValue& pk,
                  const std::string& order_attr) {
    std::vector<Item> expected;
    for (const auto& [k, item] : model_) {
      auto it = item.find(pk_attr);
      if (it != item.end() && it->second == pk && item.count(order_attr)) expected.push_back(item);
    }
    QueryRequest q{.table_name = "Fleet"};
    q.index_name = index;
    q.key_condition_expression = "#k = :k";
    q.expression_attribute_names = ExpressionAttributeNames{{"#k", pk_attr}};
    q.expression_attribute_values = ExpressionAttributeValues{{":k", pk}};
    q.scan_index_forward = rng_() % 2;
    if (rng_() % 2) q.limit = 1 + static_cast<int32_t>(rng_() % 3);
    std::vector<Item> got;
    for (int pages = 0;; ++pages) {
      ASSERT_LT(pages, 200);
      auto r = db_->Query(q);
      ASSERT_OK(r);
      got.insert(got.end(), r->items.begin(), r->items.end());
      if (!r->last_evaluated_key) break;
      q.exclusive_start_key = r->last_evaluated_key;
    }
    // In index key order (ties in any order), and exactly the model's items.
    for (size_t i = 1; i < got.size(); ++i) {
      const Number& a = got[i - 1].at(order_attr).n();
      const Number& b = got[i].at(order_attr).n();
      ASSERT_TRUE(q.scan_index_forward ? !(b < a) : !(a < b)) << index << " out of order";
    }
    auto by_text = [](std::vector<Item> v) {
      std::vector<std::string> out;
      for (const auto& i : v) out.push_back(DebugString(i));
      std::sort(out.begin(), out.end());
      return out;
    };
    ASSERT_EQ(by_text(got), by_text(expected)) << index << " " << DebugString(pk);
  }

  void CheckAll() {
    std::map<std::string, Item> scanned;
    ScanRequest s{.table_name = "Fleet"};
    for (int pages = 0;; ++pages) {
      ASSERT_LT(pages, 100);
      auto r = db_->Scan(s);
      ASSERT_OK(r);
      for (const auto& i : r->items) scanned[DebugString(i)] = i;
      if (!r->last_evaluated_key) break;
      s.exclusive_start_key = r->last_evaluated_key;
    }
    std::map<std::string, Item> expected;
    for (const auto& [k, i] : model_) expected[DebugString(i)] = i;
    ASSERT_EQ(scanned, expected);
    auto d = db_->DescribeTable({"Fleet"});
    ASSERT_OK(d);
    EXPECT_EQ(d->table.item_count, static_cast<int64_t>(model_.size()));
    int64_t in_gsi = 0, in_lsi = 0;
    for (const auto& [k, i] : model_) {
      in_gsi += i.count("g") > 0;
      in_lsi += i.count("l") > 0;
    }
    EXPECT_EQ((*d->table.global_secondary_indexes)[0].item_count, in_gsi);
    EXPECT_EQ((*d->table.local_secondary_indexes)[0].item_count, in_lsi);
  }

  Model model_;
  std::mt19937_64 rng_;
};

TEST_F(WriteModelTest, EveryKindOfWriteMatchesTheModel) {
  rng_.seed(testing::TestSeed("WriteModelTest.EveryKindOfWriteMatchesTheModel"));
  CreateTableRequest r = testing::TableRequest("Fleet", "pk", T::kS, "sk", T::kN);
  r.attribute_definitions.push_back({"g", T::kS});
  r.attribute_definitions.push_back({"l", T::kN});
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByG", {{"g", KeyType::kHash}, {"sk", KeyType::kRange}}, {ProjectionType::kAll, {}}}};
  r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"ByL", {{"pk", KeyType::kHash}, {"l", KeyType::kRange}}, {ProjectionType::kAll, {}}}};
  Create(r);
  int cancelled = 0, condition_failures = 0;
  for (int step = 0; step < 3000; ++step) {
    const int op = static_cast<int>(rng_() % 100);
    const auto k = RandomKey();
    if (op < 20) {  // PutItem
      Condition c = RandomCondition(k);
      Item item = RandomItem(k);
      PutItemRequest p{.table_name = "Fleet", .item = item, .return_values = ReturnValue::kAllOld};
      p.condition_expression = c.expression;
      p.expression_attribute_values = c.values;
      auto got = db_->PutItem(p);
      if (!c.holds) {
        ASSERT_EQ(got.status().code(), Status::Code::kConditionalCheckFailed) << step;
        ++condition_failures;
        continue;
      }
      ASSERT_OK(got);
      const Item* old = Find(k);
      ASSERT_EQ(got->attributes.has_value(), old != nullptr) << step;
      if (old) {
        ASSERT_EQ(*got->attributes, *old) << step;
      }
      Apply(k, item);
    } else if (op < 40) {  // UpdateItem
      Condition c = RandomCondition(k);
      const int d = static_cast<int>(rng_() % 10);
      std::optional<std::string> g;
      if (rng_() % 2) g = "G" + std::to_string(rng_() % 3);
      const bool remove_l = rng_() % 3 == 0;
      UpdateItemRequest u{.table_name = "Fleet", .key = Key(k.first, k.second)};
      std::string set = "SET v = if_not_exists(v, :zero) + :d";
      if (g) set += ", g = :g";
      std::string remove = g ? "" : "g";
      if (remove_l) remove += remove.empty() ? "l" : ", l";
      u.update_expression = set + (remove.empty() ? "" : " REMOVE " + remove);
      ExpressionAttributeValues values{{":zero", N("0")}, {":d", N(std::to_string(d))}};
      if (g) values[":g"] = S(*g);
      if (c.values) values.insert(c.values->begin(), c.values->end());
      u.expression_attribute_values = values;
      u.condition_expression = c.expression;
      u.return_values = ReturnValue::kAllNew;
      auto got = db_->UpdateItem(u);
      if (!c.holds) {
        ASSERT_EQ(got.status().code(), Status::Code::kConditionalCheckFailed) << step;
        ++condition_failures;
        continue;
      }
      ASSERT_OK(got);
      Item after = Updated(k, d, g, remove_l);
      ASSERT_TRUE(got->attributes.has_value()) << step;
      ASSERT_EQ(*got->attributes, after) << step;
      Apply(k, after);
    } else if (op < 50) {  // DeleteItem
      Condition c = RandomCondition(k);
      DeleteItemRequest del{.table_name = "Fleet", .key = Key(k.first, k.second)};
      del.condition_expression = c.expression;
      del.expression_attribute_values = c.values;
      auto got = db_->DeleteItem(del);
      if (!c.holds) {
        ASSERT_EQ(got.status().code(), Status::Code::kConditionalCheckFailed) << step;
        ++condition_failures;
        continue;
      }
      ASSERT_OK(got);
      Apply(k, std::nullopt);
    } else if (op < 60) {  // BatchWriteItem
      BatchWriteItemRequest b;
      std::map<std::pair<std::string, int>, std::optional<Item>> changes;
      for (int i = 0; i < 5; ++i) {
        auto key = RandomKey();
        if (changes.count(key)) continue;
        if (rng_() % 3 == 0) {
          changes[key] = std::nullopt;
          b.request_items["Fleet"].push_back(
              {.delete_request = DeleteRequest{Key(key.first, key.second)}});
        } else {
          Item item = RandomItem(key);
          changes[key] = item;
          b.request_items["Fleet"].push_back({.put_request = PutRequest{item}});
        }
      }
      ASSERT_OK(db_->BatchWriteItem(b));
      for (auto& [key, after] : changes) Apply(key, after);
    } else if (op < 72) {  // TransactWriteItems: all or nothing
      TransactWriteItemsRequest t;
      std::map<std::pair<std::string, int>, std::optional<Item>> changes;
      bool holds = true;
      for (int i = 0; i < 3; ++i) {
        auto key = RandomKey();
        if (changes.count(key)) continue;
        Condition c = RandomCondition(key);
        holds &= c.holds;
        TransactWriteItem w;
        switch (rng_() % 3) {
          case 0: {
            Item item = RandomItem(key);
            changes[key] = item;
            w.put = TransactPut{.table_name = "Fleet", .item = item};
            w.put->condition_expression = c.expression;
            w.put->expression_attribute_values = c.values;
            break;
          }
          case 1:
            changes[key] = std::nullopt;
            w.delete_item =
                TransactDelete{.table_name = "Fleet", .key = Key(key.first, key.second)};
            w.delete_item->condition_expression = c.expression;
            w.delete_item->expression_attribute_values = c.values;
            break;
          default:
            if (!c.expression) c = {"attribute_exists(pk)", std::nullopt, Find(key) != nullptr};
            holds &= c.holds;
            changes[key] = Find(key) ? std::optional<Item>(*Find(key)) : std::nullopt;
            w.condition_check = TransactConditionCheck{.table_name = "Fleet",
                                                       .key = Key(key.first, key.second),
                                                       .condition_expression = *c.expression};
            w.condition_check->expression_attribute_values = c.values;
        }
        t.transact_items.push_back(std::move(w));
      }
      auto got = db_->TransactWriteItems(t);
      if (!holds) {
        ASSERT_EQ(got.status().code(), Status::Code::kTransactionCanceled) << step;
        ++cancelled;
        continue;
      }
      ASSERT_OK(got);
      for (auto& [key, after] : changes) Apply(key, after);
    } else if (op < 80) {  // GetItem
      auto got = db_->GetItem({.table_name = "Fleet", .key = Key(k.first, k.second)});
      ASSERT_OK(got);
      const Item* expected = Find(k);
      ASSERT_EQ(got->item.has_value(), expected != nullptr) << step;
      if (expected) {
        ASSERT_EQ(*got->item, *expected) << step;
      }
    } else if (op < 88) {
      ASSERT_NO_FATAL_FAILURE(CheckIndex("ByG", "g", S("G" + std::to_string(rng_() % 3)), "sk"))
          << step;
    } else if (op < 96) {
      ASSERT_NO_FATAL_FAILURE(CheckIndex("ByL", "pk", S(k.first), "l")) << step;
    } else if (op < 99) {
      ASSERT_NO_FATAL_FAILURE(CheckAll()) << step;
    } else {
      Reopen();
    }
  }
  Reopen();
  ASSERT_NO_FATAL_FAILURE(CheckAll());
  auto report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->collections_corrected + report->table_totals_corrected +
                report->index_totals_corrected,
            0);
  EXPECT_GT(cancelled, 50);
  EXPECT_GT(condition_failures, 100);
}

}  // namespace
}  // namespace dynarock
