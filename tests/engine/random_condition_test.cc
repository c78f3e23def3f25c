// Randomized: random condition trees, rendered as FilterExpression text and
// evaluated by the engine (Scan with a filter over random items), against a
// direct evaluator written here from DynamoDB's documented semantics.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::N;
using testing::S;
using AV = AttributeValue;

struct Gen {
  std::mt19937_64 rng;
  ExpressionAttributeValues values;
  int next = 0;

  int Pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }

  AV RandomScalar() {
    switch (Pick(3)) {
      case 0: return N(std::to_string(Pick(7) - 3));
      case 1: return S(std::string(1, static_cast<char>('a' + Pick(4))) + (Pick(2) ? "x" : ""));
      default: return AV::Bool(Pick(2));
    }
  }

  std::string Value(const AV& v) {
    std::string name = ":v" + std::to_string(next++);
    values[name] = v;
    return name;
  }

  // Returns the expression text and fills `eval` with a direct evaluator.
  std::string Condition(int depth, std::function<bool(const Item&)>* eval) {
    const std::vector<std::string> attrs = {"a", "b", "c", "m.x", "l[0]"};
    auto get = [](const Item& item, const std::string& path) -> std::optional<AV> {
      if (path == "m.x") {
        auto it = item.find("m");
        if (it == item.end() || !it->second.is(AttrType::kM)) return std::nullopt;
        const AV* v = it->second.Find("x");
        return v ? std::optional(*v) : std::nullopt;
      }
      if (path == "l[0]") {
        auto it = item.find("l");
        if (it == item.end() || !it->second.is(AttrType::kL) || it->second.l().empty()) return std::nullopt;
        return it->second.l()[0];
      }
      auto it = item.find(path);
      return it == item.end() ? std::nullopt : std::optional(it->second);
    };
    auto order = [](const AV& x, const AV& y) -> std::optional<int> {
      if (x.type() != y.type()) return std::nullopt;
      if (x.is(AttrType::kN)) return x.n() < y.n() ? -1 : (y.n() < x.n() ? 1 : 0);
      if (x.is(AttrType::kS)) return x.s() < y.s() ? -1 : (y.s() < x.s() ? 1 : 0);
      return std::nullopt;
    };
    int kind = depth >= 3 ? Pick(6) : Pick(9);
    std::string path = attrs[Pick(static_cast<int>(attrs.size()))];
    switch (kind) {
      case 0: {  // comparison
        static const char* kOps[] = {"=", "<>", "<", "<=", ">", ">="};
        int op = Pick(6);
        AV v = RandomScalar();
        // An ordering takes S, N or B: another constant is refused up front.
        while (op >= 2 && !v.is(AttrType::kS) && !v.is(AttrType::kN)) v = RandomScalar();
        std::string text = path + " " + kOps[op] + " " + Value(v);
        *eval = [=](const Item& item) {
          auto a = get(item, path);
          if (op == 0) return a && *a == v;
          if (op == 1) return !(a && *a == v);
          if (!a) return false;
          auto c = order(*a, v);
          if (!c) return false;
          return op == 2 ? *c < 0 : op == 3 ? *c <= 0 : op == 4 ? *c > 0 : *c >= 0;
        };
        return text;
      }
      case 1: {  // BETWEEN with numbers
        int lo = Pick(5) - 3, hi = lo + Pick(4);
        std::string text = path + " BETWEEN " + Value(N(std::to_string(lo))) + " AND " +
                           Value(N(std::to_string(hi)));
        *eval = [=](const Item& item) {
          auto a = get(item, path);
          if (!a || !a->is(AttrType::kN)) return false;
          return !(a->n() < *Number::Parse(std::to_string(lo))) &&
                 !(*Number::Parse(std::to_string(hi)) < a->n());
        };
        return text;
      }
      case 2: {  // IN
        std::vector<AV> options;
        std::string text = path + " IN (";
        for (int i = 0, n = 1 + Pick(3); i < n; ++i) {
          options.push_back(RandomScalar());
          text += (i ? ", " : "") + Value(options.back());
        }
        text += ")";
        *eval = [=](const Item& item) {
          auto a = get(item, path);
          return a && std::find(options.begin(), options.end(), *a) != options.end();
        };
        return text;
      }
      case 3: {  // attribute_exists / attribute_not_exists
        bool exists = Pick(2);
        std::string text = std::string(exists ? "attribute_exists(" : "attribute_not_exists(") + path + ")";
        *eval = [=](const Item& item) { return get(item, path).has_value() == exists; };
        return text;
      }
      case 4: {  // begins_with on b
        std::string p(1, static_cast<char>('a' + Pick(4)));
        std::string text = "begins_with(b, " + Value(S(p)) + ")";
        *eval = [=](const Item& item) {
          auto b = get(item, "b");
          return b && b->is(AttrType::kS) && b->s().rfind(p, 0) == 0;
        };
        return text;
      }
      case 5: {  // contains on the set c, or size(b)
        if (Pick(2)) {
          std::string m(1, static_cast<char>('a' + Pick(4)));
          std::string text = "contains(c, " + Value(S(m)) + ")";
          *eval = [=](const Item& item) {
            auto c = get(item, "c");
            return c && c->is(AttrType::kSS) &&
                   std::find(c->ss().begin(), c->ss().end(), m) != c->ss().end();
          };
          return text;
        }
        int n = Pick(3);
        std::string text = "size(b) = " + Value(N(std::to_string(n)));
        *eval = [=](const Item& item) {
          auto b = get(item, "b");
          return b && b->is(AttrType::kS) && static_cast<int>(b->s().size()) == n;
        };
        return text;
      }
      case 6: {
        std::function<bool(const Item&)> inner;
        std::string text = "NOT " + Wrap(Condition(depth + 1, &inner));
        *eval = [=](const Item& item) { return !inner(item); };
        return text;
      }
      default: {  // AND / OR: rendered with parentheses around each side
        std::function<bool(const Item&)> l, r;
        bool is_and = kind == 7;
        std::string text = Wrap(Condition(depth + 1, &l)) + (is_and ? " AND " : " OR ") +
                           Wrap(Condition(depth + 1, &r));
        *eval = [=](const Item& item) { return is_and ? l(item) && r(item) : l(item) || r(item); };
        return text;
      }
    }
  }

  static std::string Wrap(const std::string& s) {
    // Parenthesize compound sides; never double up (redundant parentheses are an error).
    if (s.find(" AND ") == std::string::npos && s.find(" OR ") == std::string::npos &&
        s.rfind("NOT ", 0) != 0) {
      return s;
    }
    return "(" + s + ")";
  }

  Item RandomItem(int id) {
    Item item{{"id", N(std::to_string(id))}};
    if (Pick(4)) item["a"] = RandomScalar();
    if (Pick(4)) item["b"] = S(std::string(static_cast<size_t>(Pick(3)), static_cast<char>('a' + Pick(4))));
    if (Pick(2)) {
      std::set<std::string> members;
      for (int i = 0, n = 1 + Pick(3); i < n; ++i) members.insert(std::string(1, static_cast<char>('a' + Pick(4))));
      item["c"] = AV::SS({members.begin(), members.end()});
    }
    if (Pick(2)) item["m"] = Pick(4) ? AV::M({{"x", RandomScalar()}}) : AV::M({});
    if (Pick(2)) item["l"] = Pick(4) ? AV::L({RandomScalar(), RandomScalar()}) : AV::L({});
    return item;
  }
};

class RandomConditionTest : public DbTest {};

TEST_F(RandomConditionTest, EngineAgreesWithDirectEvaluator) {
  Gen g;
  g.rng.seed(testing::TestSeed("RandomConditionTest.EngineAgreesWithDirectEvaluator"));
  Create(testing::TableRequest("Items", "id", ScalarAttributeType::kN));
  std::vector<Item> items;
  for (int i = 0; i < 200; ++i) {
    items.push_back(g.RandomItem(i));
    Put("Items", items.back());
  }
  for (int round = 0; round < 300; ++round) {
    g.values.clear();
    g.next = 0;
    std::function<bool(const Item&)> eval;
    std::string text = g.Condition(0, &eval);
    ScanRequest s{.table_name = "Items"};
    s.filter_expression = text;
    if (!g.values.empty()) s.expression_attribute_values = g.values;
    auto r = db_->Scan(s);
    ASSERT_OK(r);
    std::set<std::string> got, want;
    for (const auto& item : r->items) got.insert(item.at("id").n().ToString());
    for (const auto& item : items) {
      if (eval(item)) want.insert(item.at("id").n().ToString());
    }
    ASSERT_EQ(got, want) << "filter: " << text;
    ASSERT_EQ(r->scanned_count, 200);
  }
}

}  // namespace
}  // namespace dynarock
