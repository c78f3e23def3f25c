#include <gtest/gtest.h>

#include <set>

#include "dynarock/db.h"
#include "format/item_size.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::N;
using testing::S;
using testing::TableRequest;
using T = ScalarAttributeType;
using Op = SortKeyOperator;

class QueryTest : public DbTest {
 protected:
  void SetUp() override {
    DbTest::SetUp();
    Create(TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS));
    Create(TableRequest("Series", "id", T::kS, "t", T::kN));
    // Three vehicles, ten readings each, one minute apart, plus META.
    for (const char* v : {"VEH#A", "VEH#B", "VEH#C"}) {
      Put("Telemetry", {{"vehicleId", S(v)}, {"recordedAt", S("META")}, {"model", S("eVan")}});
      for (int m = 0; m < 10; ++m) {
        Put("Telemetry", {{"vehicleId", S(v)}, {"recordedAt", S(Ts(m))}, {"speedKph", N(std::to_string(40 + m))}});
      }
    }
    for (int i = -5; i <= 5; ++i) Put("Series", {{"id", S("s")}, {"t", N(std::to_string(i) + ".5")}});
  }

  static std::string Ts(int minute) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "TS#2026-06-23T09:%02d:00Z", minute);
    return buf;
  }

  std::vector<std::string> SortKeys(const QueryResponse& r, const std::string& name = "recordedAt") {
    std::vector<std::string> out;
    for (const auto& item : r.items) {
      const auto& v = item.at(name);
      out.push_back(v.is(AttrType::kS) ? v.s() : v.n().ToString());
    }
    return out;
  }

  QueryRequest Q(const std::string& table, const std::string& pk_name, AttributeValue pk,
                 std::optional<SortKeyCondition> sort = std::nullopt) {
    QueryRequest q;
    q.table_name = table;
    q.key_condition = {pk_name, std::move(pk), std::move(sort)};
    return q;
  }
};

TEST_F(QueryTest, WholeCollectionInSortKeyOrder) {
  auto r = db_->Query(Q("Telemetry", "vehicleId", S("VEH#B")));
  ASSERT_OK(r);
  std::vector<std::string> expected;
  for (int m = 0; m < 10; ++m) expected.push_back(Ts(m));
  expected.push_back("META");  // "M" > "T"? no: 'M' (0x4D) < 'T' (0x54)
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(SortKeys(*r), expected);
  EXPECT_EQ(r->count, 11);
  EXPECT_EQ(r->scanned_count, 11);
  EXPECT_FALSE(r->last_evaluated_key.has_value());
  for (const auto& item : r->items) EXPECT_EQ(item.at("vehicleId"), S("VEH#B"));
}

TEST_F(QueryTest, SortKeyConditions) {
  struct Case {
    SortKeyCondition cond;
    std::vector<std::string> expected;  // of Series' t
  } cases[] = {
      {{"t", Op::kEq, N("0.5")}, {"0.5"}},
      {{"t", Op::kLt, N("-3.5")}, {"-5.5", "-4.5"}},
      {{"t", Op::kLe, N("-3.5")}, {"-5.5", "-4.5", "-3.5"}},
      {{"t", Op::kGt, N("3.5")}, {"4.5", "5.5"}},
      {{"t", Op::kGe, N("3.5")}, {"3.5", "4.5", "5.5"}},
      {{"t", Op::kBetween, N("-2"), N("1.5")}, {"-1.5", "0.5", "1.5"}},  // no -0.5: to_string(0)
      {{"t", Op::kBetween, N("6"), N("7")}, {}},
      {{"t", Op::kEq, N("0.25")}, {}},
  };
  for (const auto& c : cases) {
    auto r = db_->Query(Q("Series", "id", S("s"), c.cond));
    ASSERT_OK(r);
    EXPECT_EQ(SortKeys(*r, "t"), c.expected) << static_cast<int>(c.cond.op);
    // Backwards gives the reverse.
    auto q = Q("Series", "id", S("s"), c.cond);
    q.scan_index_forward = false;
    auto back = db_->Query(q);
    ASSERT_OK(back);
    std::vector<std::string> reversed(c.expected.rbegin(), c.expected.rend());
    EXPECT_EQ(SortKeys(*back, "t"), reversed);
  }
  auto r = db_->Query(Q("Telemetry", "vehicleId", S("VEH#A"), SortKeyCondition{"recordedAt", Op::kBeginsWith, S("TS#2026-06-23T09:0")}));
  ASSERT_OK(r);
  EXPECT_EQ(r->count, 10);
  r = db_->Query(Q("Telemetry", "vehicleId", S("VEH#A"), SortKeyCondition{"recordedAt", Op::kBeginsWith, S("M")}));
  EXPECT_EQ(SortKeys(*r), std::vector<std::string>{"META"});
}

TEST_F(QueryTest, TenMinuteWindowNewestFirst) {
  auto q = Q("Telemetry", "vehicleId", S("VEH#C"),
             SortKeyCondition{"recordedAt", Op::kBetween, S(Ts(2)), S(Ts(5))});
  q.scan_index_forward = false;
  auto r = db_->Query(q);
  ASSERT_OK(r);
  EXPECT_EQ(SortKeys(*r), (std::vector<std::string>{Ts(5), Ts(4), Ts(3), Ts(2)}));
}

TEST_F(QueryTest, PaginationReturnsEveryItemOnceInOrder) {
  for (bool forward : {true, false}) {
    for (int limit = 1; limit <= 12; ++limit) {
      auto q = Q("Telemetry", "vehicleId", S("VEH#A"));
      q.limit = limit;
      q.scan_index_forward = forward;
      std::vector<std::string> all;
      int pages = 0;
      while (true) {
        auto r = db_->Query(q);
        ASSERT_OK(r);
        EXPECT_LE(r->count, limit);
        auto keys = SortKeys(*r);
        all.insert(all.end(), keys.begin(), keys.end());
        ++pages;
        ASSERT_LT(pages, 30);
        if (!r->last_evaluated_key) break;
        q.exclusive_start_key = r->last_evaluated_key;
      }
      auto full = SortKeys(*db_->Query(Q("Telemetry", "vehicleId", S("VEH#A"))));
      if (!forward) std::reverse(full.begin(), full.end());
      EXPECT_EQ(all, full) << "limit " << limit << " forward " << forward;
    }
  }
}

TEST_F(QueryTest, PageSizeLimitEndsThePage) {
  options_.max_page_bytes = 200;  // a few readings per page
  Reopen();
  auto q = Q("Telemetry", "vehicleId", S("VEH#A"));
  auto r = db_->Query(q);
  ASSERT_OK(r);
  EXPECT_GT(r->count, 0);
  EXPECT_LT(r->count, 11);
  ASSERT_TRUE(r->last_evaluated_key.has_value());
  int total = r->count;
  while (r->last_evaluated_key) {
    q.exclusive_start_key = r->last_evaluated_key;
    r = db_->Query(q);
    ASSERT_OK(r);
    total += r->count;
  }
  EXPECT_EQ(total, 11);
}

// Newest-first pages, whether read backwards or (a small range) read oldest
// first and replayed: each page ends where DynamoDB's 1 MB rule (here
// max_page_bytes) says, counted from the newest item, and the pages together
// are the collection newest first. The page sizes straddle the replay buffer
// (twice the page, in stored bytes), so all three paths run: backward reads
// cut by the page size (VEH#A at 200 and 400), replays of a whole range that
// fits in a page (VEH#A at 100000), and replays cut by the page size
// (VEH#BIG, whose 1,000-byte notes make stored and counted sizes close, at
// 3000 on its last pages and at 7000 on its first).
TEST_F(QueryTest, NewestFirstPagesFollowThePageSizeRule) {
  for (int m = 0; m < 11; ++m) {
    Put("Telemetry", {{"vehicleId", S("VEH#BIG")},
                      {"recordedAt", S(Ts(m))},
                      {"speedKph", N(std::to_string(40 + m))},
                      {"note", S(std::string(1000, 'n'))}});
  }
  const std::pair<const char*, std::vector<size_t>> cases[] = {
      {"VEH#A", {200, 400, 1000, 100000}}, {"VEH#BIG", {3000, 6000, 7000, 100000}}};
  for (const auto& [vehicle, pages] : cases) {
    options_.max_page_bytes = 1 << 20;
    Reopen();
    auto all = db_->Query(Q("Telemetry", "vehicleId", S(vehicle)));  // one page
    ASSERT_OK(all);
    ASSERT_EQ(all->count, 11);
    const std::vector<Item> newest_first(all->items.rbegin(), all->items.rend());
    for (size_t page : pages) {
      for (bool filtered : {false, true}) {
        options_.max_page_bytes = page;
        Reopen();
        // The model: scanned items per page, from the newest.
        std::vector<int> expect_scanned;
        size_t bytes = 0;
        int scanned = 0;
        for (const Item& item : newest_first) {
          bytes += format::ItemSize(item);
          ++scanned;
          if (bytes >= page) {
            expect_scanned.push_back(scanned);
            bytes = 0;
            scanned = 0;
          }
        }
        if (scanned > 0 || expect_scanned.empty()) expect_scanned.push_back(scanned);
        std::vector<std::string> expect_keys;
        for (const Item& item : newest_first) {
          const auto speed = item.find("speedKph");
          if (!filtered || (speed != item.end() && speed->second.n() > *Number::Parse("44"))) {
            expect_keys.push_back(item.at("recordedAt").s());
          }
        }

        auto q = Q("Telemetry", "vehicleId", S(vehicle));
        q.scan_index_forward = false;
        if (filtered) {
          q.filter_expression = "speedKph > :s";
          q.expression_attribute_values = ExpressionAttributeValues{{":s", N("44")}};
        }
        std::vector<int> got_scanned;
        std::vector<std::string> got_keys;
        while (true) {
          auto r = db_->Query(q);
          ASSERT_OK(r);
          got_scanned.push_back(r->scanned_count);
          auto keys = SortKeys(*r);
          got_keys.insert(got_keys.end(), keys.begin(), keys.end());
          if (!r->last_evaluated_key) break;
          ASSERT_LT(got_scanned.size(), 30u);
          q.exclusive_start_key = r->last_evaluated_key;
        }
        // A page that ends exactly on the last item carries a LastEvaluatedKey
        // (no look-ahead): one more, empty page follows.
        if (got_scanned.size() == expect_scanned.size() + 1 && got_scanned.back() == 0) {
          expect_scanned.push_back(0);
        }
        EXPECT_EQ(got_scanned, expect_scanned)
            << vehicle << " page " << page << " filtered " << filtered;
        EXPECT_EQ(got_keys, expect_keys) << vehicle << " page " << page << " filtered " << filtered;
      }
    }
  }
}

TEST_F(QueryTest, SelectCount) {
  auto q = Q("Telemetry", "vehicleId", S("VEH#A"));
  q.select = Select::kCount;
  auto r = db_->Query(q);
  ASSERT_OK(r);
  EXPECT_EQ(r->count, 11);
  EXPECT_EQ(r->scanned_count, 11);
  EXPECT_TRUE(r->items.empty());
}

TEST_F(QueryTest, Errors) {
  struct Case {
    std::string name;
    QueryRequest q;
    std::string message;
  };
  std::vector<Case> cases = {
      {"wrong partition key", Q("Telemetry", "model", S("x")),
       "Query condition missed key schema element: vehicleId"},
      {"partition type", Q("Telemetry", "vehicleId", N("1")),
       "One or more parameter values were invalid: Condition parameter type does not match "
       "schema type"},
      {"sort on non-key", Q("Telemetry", "vehicleId", S("V"), SortKeyCondition{"model", Op::kEq, S("x")}),
       "Query condition missed key schema element: recordedAt"},
      {"two conditions on pk", Q("Telemetry", "vehicleId", S("V"), SortKeyCondition{"vehicleId", Op::kEq, S("x")}),
       "KeyConditionExpressions must only contain one condition per key"},
      {"sort type", Q("Series", "id", S("s"), SortKeyCondition{"t", Op::kEq, S("x")}),
       "One or more parameter values were invalid: Condition parameter type does not match "
       "schema type"},
      {"begins_with on N", Q("Series", "id", S("s"), SortKeyCondition{"t", Op::kBeginsWith, N("1")}),
       "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator "
       "or function: begins_with, operand type: N"},
      {"between reversed", Q("Series", "id", S("s"), SortKeyCondition{"t", Op::kBetween, N("2"), N("1")}),
       "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater "
       "than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound "
       "operand: AttributeValue: {N:1}"},
      {"empty partition value", Q("Telemetry", "vehicleId", S("")),
       "One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
       "contain an empty string value. Key: vehicleId"},
  };
  {
    auto q = Q("Telemetry", "vehicleId", S("V"));
    q.limit = 0;
    cases.push_back({"limit 0", q,
                     "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
                     "Member must have value greater than or equal to 1"});
  }
  {
    auto q = Q("Telemetry", "vehicleId", S("VEH#A"));
    q.exclusive_start_key = Item{{"vehicleId", S("VEH#B")}, {"recordedAt", S("META")}};
    cases.push_back({"esk other collection", q,
                     "The provided starting key is outside query boundaries based on provided "
                     "conditions"});
  }
  {
    auto q = Q("Telemetry", "vehicleId", S("VEH#A"), SortKeyCondition{"recordedAt", Op::kBeginsWith, S("TS#")});
    q.exclusive_start_key = Item{{"vehicleId", S("VEH#A")}, {"recordedAt", S("META")}};
    cases.push_back({"esk outside range", q,
                     "The provided starting key does not match the range key predicate"});
  }
  {
    auto q = Q("Telemetry", "vehicleId", S("VEH#A"));
    q.exclusive_start_key = Item{{"vehicleId", S("VEH#A")}};
    cases.push_back({"esk schema", q,
                     "The provided starting key is invalid: The provided key element does not "
                     "match the schema"});
  }
  {
    auto q = Q("Telemetry", "vehicleId", S("VEH#A"));
    q.select = Select::kAllProjectedAttributes;
    cases.push_back({"all projected without index", q,
                     "One or more parameter values were invalid: ALL_PROJECTED_ATTRIBUTES can be "
                     "used only when Querying using an IndexName"});
  }
  for (const auto& c : cases) {
    auto r = db_->Query(c.q);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status(), Status::Validation(c.message)) << c.name;
  }
  EXPECT_EQ(db_->Query(Q("Nope", "k", S("x"))).status().code(), Status::Code::kResourceNotFound);
}

// The typed KeyCondition, KeyConditionExpression and legacy KeyConditions
// meet one set of key-condition rules (engine/request_expr.h BindKeyTerms,
// then the Query's own checks), so each rule answers alike in all three.
TEST_F(QueryTest, KeyConditionFormsShareTheirRules) {
  auto expression = [](std::string text, ExpressionAttributeValues values) {
    QueryRequest q;
    q.table_name = "Telemetry";
    q.key_condition_expression = std::move(text);
    q.expression_attribute_values = std::move(values);
    return q;
  };
  auto legacy = [](std::map<std::string, LegacyCondition> conditions) {
    QueryRequest q;
    q.table_name = "Telemetry";
    q.key_conditions = std::move(conditions);
    return q;
  };
  using CO = ComparisonOperator;
  struct Case {
    std::string name;
    std::vector<QueryRequest> forms;
    std::string message;
  } cases[] = {
      {"no partition key",
       {Q("Telemetry", "model", S("x")), expression("model = :v", {{":v", S("x")}}),
        legacy({{"model", {CO::kEq, {S("x")}}}})},
       "Query condition missed key schema element: vehicleId"},
      {"sort condition on a non-key",
       {Q("Telemetry", "vehicleId", S("V"), SortKeyCondition{"model", Op::kEq, S("x")}),
        expression("vehicleId = :v AND model = :x", {{":v", S("V")}, {":x", S("x")}}),
        legacy({{"vehicleId", {CO::kEq, {S("V")}}}, {"model", {CO::kEq, {S("x")}}}})},
       "Query condition missed key schema element: recordedAt"},
      {"two conditions on the partition key",
       {Q("Telemetry", "vehicleId", S("V"), SortKeyCondition{"vehicleId", Op::kEq, S("x")}),
        expression("vehicleId = :v AND vehicleId = :x", {{":v", S("V")}, {":x", S("x")}})},
       "KeyConditionExpressions must only contain one condition per key"},
      {"partition key not compared for equality",
       {expression("vehicleId > :v", {{":v", S("V")}}), legacy({{"vehicleId", {CO::kGt, {S("V")}}}})},
       "Query key condition not supported"},
      {"sort operator that is not indexable",
       {legacy({{"vehicleId", {CO::kEq, {S("V")}}}, {"recordedAt", {CO::kNe, {S("x")}}}})},
       "Attempted conditional constraint is not an indexable operation"},
  };
  for (const auto& c : cases) {
    for (size_t i = 0; i < c.forms.size(); ++i) {
      EXPECT_EQ(db_->Query(c.forms[i]).status(), Status::Validation(c.message))
          << c.name << ", form " << i;
    }
  }
  // Unused placeholders are a check before the table lookup, the key schema
  // rules one after it (VALIDATION.md 5.5): the first wins.
  EXPECT_EQ(db_->Query(expression("model = :v", {{":v", S("x")}, {":u", S("y")}})).status(),
            Status::Validation(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"));
}

TEST_F(QueryTest, ScanPaginationAndSegments) {
  // Every item exactly once through pages of any size.
  for (int limit : {1, 3, 7, 100}) {
    ScanRequest s{.table_name = "Telemetry", .limit = limit};
    std::multiset<std::string> seen;
    while (true) {
      auto r = db_->Scan(s);
      ASSERT_OK(r);
      for (const auto& item : r->items) seen.insert(item.at("vehicleId").s() + item.at("recordedAt").s());
      if (!r->last_evaluated_key) break;
      s.exclusive_start_key = r->last_evaluated_key;
    }
    EXPECT_EQ(seen.size(), 33u);
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 33u);
  }
  // Segments partition the table; a collection is never split across segments.
  for (int total : {1, 2, 3, 7, 64}) {
    std::multiset<std::string> seen;
    for (int seg = 0; seg < total; ++seg) {
      std::set<std::string> vehicles;
      auto r = db_->Scan({.table_name = "Telemetry", .segment = seg, .total_segments = total});
      ASSERT_OK(r);
      EXPECT_FALSE(r->last_evaluated_key.has_value());
      for (const auto& item : r->items) {
        seen.insert(item.at("vehicleId").s() + item.at("recordedAt").s());
        vehicles.insert(item.at("vehicleId").s());
      }
      for (const auto& v : vehicles) {
        EXPECT_EQ(db_->Query(Q("Telemetry", "vehicleId", S(v)))->count,
                  static_cast<int>(std::count_if(r->items.begin(), r->items.end(),
                                                 [&](const Item& i) { return i.at("vehicleId").s() == v; })));
      }
    }
    EXPECT_EQ(seen.size(), 33u) << total;
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 33u);
  }
}

// FACTS.md 7: an ExclusiveStartKey must match the key schema exactly, on
// Query and Scan: a missing, extra or wrongly typed key attribute is
// "The provided starting key is invalid: The provided key element does not
// match the schema".
TEST_F(QueryTest, ExclusiveStartKeyMustMatchTheSchema) {
  const Status bad = Status::Validation(
      "The provided starting key is invalid: The provided key element does not match the schema");
  const Item keys[] = {
      {{"vehicleId", S("VEH#A")}},                                            // missing
      {{"vehicleId", S("VEH#A")}, {"recordedAt", S("TS#1")}, {"x", N("1")}},  // extra
      {{"vehicleId", S("VEH#A")}, {"recordedAt", N("1")}},                    // wrong type
      {{"vehicleId", S("VEH#A")}, {"other", S("TS#1")}},                      // another name
  };
  for (const Item& esk : keys) {
    auto q = Q("Telemetry", "vehicleId", S("VEH#A"));
    q.exclusive_start_key = esk;
    EXPECT_EQ(db_->Query(q).status(), bad) << DebugString(esk);
    ScanRequest s{.table_name = "Telemetry"};
    s.exclusive_start_key = esk;
    EXPECT_EQ(db_->Scan(s).status(), bad) << DebugString(esk);
  }
}

TEST_F(QueryTest, ScanErrors) {
  struct Case {
    ScanRequest s;
    std::string message;
  } cases[] = {
      {{.table_name = "Telemetry", .limit = 0},
       "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member "
       "must have value greater than or equal to 1"},
      {{.table_name = "Telemetry", .segment = 1},
       "The TotalSegments parameter is required but was not present in the request when Segment "
       "parameter is present"},
      {{.table_name = "Telemetry", .total_segments = 4},
       "The Segment parameter is required but was not present in the request when parameter "
       "TotalSegments is present"},
      {{.table_name = "Telemetry", .segment = 5, .total_segments = 5},
       "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
       "Segment: 5 is not less than TotalSegments: 5"},
      {{.table_name = "Telemetry", .segment = 0, .total_segments = 1000001},
       "1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy "
       "constraint: Member must have value less than or equal to 1000000"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(db_->Scan(c.s).status(), Status::Validation(c.message));
  }
  // An ExclusiveStartKey from another segment.
  for (int seg = 0; seg < 2; ++seg) {
    auto r = db_->Scan({.table_name = "Telemetry", .limit = 1, .segment = seg, .total_segments = 2});
    ASSERT_OK(r);
    if (!r->last_evaluated_key) continue;
    auto wrong = db_->Scan({.table_name = "Telemetry", .exclusive_start_key = r->last_evaluated_key,
                            .segment = 1 - seg, .total_segments = 2});
    EXPECT_EQ(wrong.status(),
              Status::Validation("The provided starting key is invalid: Invalid ExclusiveStartKey. "
                                 "Please use ExclusiveStartKey with correct Segment. "
                                 "TotalSegments: 2 Segment: " + std::to_string(1 - seg)));
  }
}

// A Query reads its collection and nothing else: with many vehicles in the
// table, RocksDB's own counters show it touching about as many keys as it
// returns, where a Scan touches them all.
class QueryCostTest : public DbTest {};

TEST_F(QueryCostTest, QueryTouchesOnlyItsCollection) {
  Create(TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS));
  constexpr int kVehicles = 300, kReadings = 40;
  for (int v = 0; v < kVehicles; ++v) {
    for (int r = 0; r < kReadings; ++r) {
      char ts[32];
      std::snprintf(ts, sizeof ts, "TS#%04d", r);
      Put("Telemetry", {{"vehicleId", S("VEH#" + std::to_string(v))}, {"recordedAt", S(ts)}});
    }
  }
  Reopen();  // data now in SST files after WAL recovery + flush on open
  for (bool forward : {true, false}) {
    ReadCounter counter;
    QueryRequest q;
    q.table_name = "Telemetry";
    q.key_condition = {"vehicleId", S("VEH#123"),
                       SortKeyCondition{"recordedAt", Op::kBetween, S("TS#0010"), S("TS#0019")}};
    q.scan_index_forward = forward;
    auto r = db_->Query(q);
    ASSERT_OK(r);
    ASSERT_EQ(r->count, 10);
    // One step per item returned plus the step off the end, and one seek per
    // sorted run (memtable and SST files) the range overlaps.
    std::cout << "keys touched " << counter.keys_touched() << " seeks " << counter.seeks() << "\n";
    EXPECT_LE(counter.keys_touched(), 10u + 4u) << "forward " << forward;
  }
  ReadCounter counter;
  auto scan = db_->Scan({.table_name = "Telemetry"});
  ASSERT_OK(scan);
  EXPECT_GE(counter.keys_touched(), static_cast<uint64_t>(kVehicles * kReadings) - 2);
}

}  // namespace
}  // namespace dynarock
