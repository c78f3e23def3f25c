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
