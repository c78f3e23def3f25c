// PartiQL (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction):
// a statement corpus on the fleet table (S keys, an LSI, a GSI) and on N and
// B keyed tables, each checked against what the equivalent API operations
// return; DynamoDB's errors; paging; and randomized SELECTs checked against
// the Query or Scan they stand for (same items, same order).
#include <gtest/gtest.h>

#include <random>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::B;
using testing::DbTest;
using testing::N;
using testing::S;
using T = ScalarAttributeType;

constexpr int kVehicles = 6;
constexpr int kReadings = 12;

std::string Vehicle(int v) { return "VEH#V-" + std::to_string(7740 + v); }
std::string Depot(int v) { return v % 2 ? "DEP-LON-3" : "DEP-MAN-1"; }
std::string Ts(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "TS#2026-12-03T10:%02d", i);
  return buf;
}

class PartiqlTest : public DbTest {
 protected:
  void SetUp() override {
    DbTest::SetUp();
    CreateTableRequest t = testing::TableRequest("Telemetry", "PK", T::kS, "SK", T::kS);
    t.attribute_definitions.push_back({"depotCode", T::kS});
    t.attribute_definitions.push_back({"recordedAt", T::kN});
    t.attribute_definitions.push_back({"speed", T::kN});
    t.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
        {"ByDepot",
         {{"depotCode", KeyType::kHash}, {"recordedAt", KeyType::kRange}},
         {ProjectionType::kInclude, {"speed"}},
         std::nullopt}};
    t.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
        {"BySpeed", {{"PK", KeyType::kHash}, {"speed", KeyType::kRange}}, {}}};
    Create(t);
    for (int v = 0; v < kVehicles; ++v) {
      Put("Telemetry", {{"PK", S(Vehicle(v))},
                        {"SK", S("META")},
                        {"model", S(v % 3 ? "Transit" : "Sprinter")},
                        {"tags", AttributeValue::SS({"van", "depot-" + std::to_string(v % 2)})}});
      for (int i = 0; i < kReadings; ++i) {
        Put("Telemetry",
            {{"PK", S(Vehicle(v))},
             {"SK", S(Ts(i))},
             {"depotCode", S(Depot(v))},
             {"recordedAt", N(std::to_string(1000 * v + i))},
             {"speed", N(std::to_string((v * 37 + i * 11) % 120))},
             {"pos", AttributeValue::M({{"lat", N("51.5")},
                                        {"trail", AttributeValue::L({N(std::to_string(i)),
                                                                     S("x")})}})}});
      }
    }
    Create(testing::TableRequest("Counters", "id", T::kN, "seq", T::kN));
    Create(testing::TableRequest("Blobs", "k", T::kB));
  }

  Result<ExecuteStatementResponse> Run(std::string statement,
                                       std::vector<AttributeValue> parameters = {},
                                       std::optional<int32_t> limit = std::nullopt) {
    ExecuteStatementRequest r;
    r.statement = std::move(statement);
    if (!parameters.empty()) r.parameters = std::move(parameters);
    r.limit = limit;
    return db_->ExecuteStatement(r);
  }

  // Every page of a SELECT.
  std::vector<Item> All(const std::string& statement, std::vector<AttributeValue> parameters = {},
                        std::optional<int32_t> limit = std::nullopt, int* pages = nullptr) {
    ExecuteStatementRequest r;
    r.statement = statement;
    if (!parameters.empty()) r.parameters = std::move(parameters);
    r.limit = limit;
    std::vector<Item> out;
    for (int page = 1;; ++page) {
      auto done = db_->ExecuteStatement(r);
      EXPECT_OK(done);
      if (!done.ok()) break;
      out.insert(out.end(), done->items.begin(), done->items.end());
      if (pages) *pages = page;
      if (!done->next_token) break;
      r.next_token = done->next_token;
    }
    return out;
  }

  // Every page of a Query or Scan.
  std::vector<Item> AllQuery(QueryRequest q) {
    std::vector<Item> out;
    while (true) {
      auto done = db_->Query(q);
      EXPECT_OK(done);
      if (!done.ok()) break;
      out.insert(out.end(), done->items.begin(), done->items.end());
      if (!done->last_evaluated_key) break;
      q.exclusive_start_key = done->last_evaluated_key;
    }
    return out;
  }
  std::vector<Item> AllScan(ScanRequest s) {
    std::vector<Item> out;
    while (true) {
      auto done = db_->Scan(s);
      EXPECT_OK(done);
      if (!done.ok()) break;
      out.insert(out.end(), done->items.begin(), done->items.end());
      if (!done->last_evaluated_key) break;
      s.exclusive_start_key = done->last_evaluated_key;
    }
    return out;
  }

  std::optional<Item> Get(const std::string& table, Item key) {
    auto got = db_->GetItem({.table_name = table, .key = std::move(key)});
    EXPECT_OK(got);
    return got.ok() ? got->item : std::nullopt;
  }

  void ExpectError(const Result<ExecuteStatementResponse>& r, std::string_view name,
                   std::string_view message) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().ErrorName(), name) << r.status();
    EXPECT_EQ(r.status().message(), message);
  }
};

// ---- SELECT ----------------------------------------------------------------------------------

TEST_F(PartiqlTest, SelectOneCollectionIsItsQuery) {
  auto items = All("SELECT * FROM Telemetry WHERE PK = 'VEH#V-7741'");
  QueryRequest q{.table_name = "Telemetry",
                 .key_condition_expression = "PK = :v",
                 .expression_attribute_values = ExpressionAttributeValues{{":v", S(Vehicle(1))}}};
  auto expected = AllQuery(q);
  ASSERT_EQ(items.size(), 1u + kReadings);
  EXPECT_EQ(items, expected);
  // META sorts before the TS# readings: the profile, then its readings.
  EXPECT_EQ(items.front().at("SK"), S("META"));
  EXPECT_EQ(items.back().at("SK"), S(Ts(kReadings - 1)));
}

TEST_F(PartiqlTest, TenMinuteWindowNewestFirst) {
  auto items = All(
      "SELECT SK, speed FROM Telemetry WHERE PK = ? AND SK BETWEEN ? AND ? ORDER BY SK DESC",
      {S(Vehicle(2)), S(Ts(1)), S(Ts(10))});
  ASSERT_EQ(items.size(), 10u);
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(items[i].at("SK"), S(Ts(10 - static_cast<int>(i))));
    EXPECT_EQ(items[i].size(), 2u);  // the projection only
  }
}

TEST_F(PartiqlTest, ProjectionKeysNestedPathsByTheirLastSegment) {
  auto items = All("SELECT pos.trail[1], pos.lat, SK, nothing FROM Telemetry "
                   "WHERE PK = 'VEH#V-7740' AND SK = ?",
                   {S(Ts(3))});
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0], (Item{{"trail[1]", S("x")}, {"lat", N("51.5")}, {"SK", S(Ts(3))}}));
  ExpectError(Run("SELECT a.z, b.z FROM Telemetry"), "ValidationException",
              "Duplicate identifiers in select clause: z");
}

TEST_F(PartiqlTest, InListRunsOneQueryPerValueInKeyOrder) {
  auto items = All("SELECT PK, SK FROM Telemetry WHERE PK IN ['VEH#V-7743', 'VEH#V-7741'] "
                   "AND begins_with(SK, 'TS#') ORDER BY PK");
  ASSERT_EQ(items.size(), 2u * kReadings);
  EXPECT_EQ(items.front().at("PK"), S(Vehicle(1)));
  EXPECT_EQ(items.back().at("PK"), S(Vehicle(3)));
  // An OR of equalities is the same plan.
  auto ored = All("SELECT PK, SK FROM Telemetry WHERE (PK = 'VEH#V-7743' OR PK = 'VEH#V-7741') "
                  "AND begins_with(SK, 'TS#') ORDER BY PK");
  EXPECT_EQ(ored, items);
}

TEST_F(PartiqlTest, NonKeyWhereIsAScanWithTheSameItems) {
  auto items = All("SELECT * FROM Telemetry WHERE speed > 60 AND NOT contains(tags, 'van')");
  ScanRequest s{.table_name = "Telemetry",
                .filter_expression = "speed > :s",
                .expression_attribute_values = ExpressionAttributeValues{{":s", N("60")}}};
  auto expected = AllScan(s);
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items, expected);
}

TEST_F(PartiqlTest, MissingAndNullAndFunctions) {
  Put("Telemetry", {{"PK", S("VEH#X")}, {"SK", S("A")}, {"note", AttributeValue::Null()}});
  Put("Telemetry", {{"PK", S("VEH#X")}, {"SK", S("B")}, {"note", S("hello")}});
  Put("Telemetry", {{"PK", S("VEH#X")}, {"SK", S("C")}});
  auto sks = [&](const std::string& where) {
    std::vector<std::string> out;
    for (const auto& item : All("SELECT SK FROM Telemetry WHERE PK = 'VEH#X' AND " + where)) {
      out.push_back(item.at("SK").s());
    }
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(sks("note IS MISSING"), (V{"C"}));
  EXPECT_EQ(sks("note IS NOT MISSING"), (V{"A", "B"}));
  EXPECT_EQ(sks("note IS NULL"), (V{"A"}));
  EXPECT_EQ(sks("note IS NOT NULL"), (V{"B", "C"}));
  EXPECT_EQ(sks("attribute_type(note, 'S')"), (V{"B"}));
  EXPECT_EQ(sks("size(note) = 5"), (V{"B"}));
  EXPECT_EQ(sks("note IN ('hello', 'bye')"), (V{"B"}));
  EXPECT_EQ(sks("SK <> 'B' AND attribute_exists(note)"), (V{"A"}));
  EXPECT_EQ(sks("SK > 'A'"), (V{"B", "C"}));
  EXPECT_EQ(sks("'B' >= SK"), (V{"A", "B"}));
}

TEST_F(PartiqlTest, GlobalIndexNewestReadingsOfADepot) {
  auto items = All("SELECT recordedAt, speed FROM \"Telemetry\".\"ByDepot\" "
                   "WHERE depotCode = 'DEP-LON-3' AND recordedAt > 1000 ORDER BY recordedAt DESC");
  QueryRequest q{.table_name = "Telemetry",
                 .index_name = "ByDepot",
                 .key_condition_expression = "depotCode = :d AND recordedAt > :t",
                 .projection_expression = "recordedAt, speed",
                 .expression_attribute_values =
                     ExpressionAttributeValues{{":d", S("DEP-LON-3")}, {":t", N("1000")}},
                 .scan_index_forward = false};
  auto expected = AllQuery(q);
  ASSERT_EQ(items.size(), 3u * kReadings - 1);  // vehicles 1, 3, 5; not 1000 itself
  EXPECT_EQ(items, expected);

  ExpectError(Run("SELECT model FROM \"Telemetry\".\"ByDepot\" WHERE depotCode = 'x'"),
              "ValidationException",
              "One or more parameter values were invalid: Global secondary index ByDepot does "
              "not project [model]");
  ExpectError(Run("SELECT speed FROM \"Telemetry\".\"ByDepot\" WHERE depotCode = 'x' AND model "
                  "= 'y'"),
              "ValidationException",
              "One or more parameter values were invalid: Secondary index ByDepot does not "
              "project one or more filter attributes: [model]");
  ExecuteStatementRequest consistent{.statement =
                                         "SELECT * FROM \"Telemetry\".\"ByDepot\" WHERE "
                                         "depotCode = 'x'",
                                     .consistent_read = true};
  ExpectError(db_->ExecuteStatement(consistent), "ValidationException",
              "Strongly consistent read is not supported on Global Secondary Indexes");
  ExpectError(Run("SELECT * FROM \"Telemetry\".\"Nope\""), "ValidationException",
              "The table does not have the specified index");
  ExpectError(Run("SELECT * FROM \"Nope\".\"ByDepot\""), "ResourceNotFoundException",
              "Requested resource not found");
}

TEST_F(PartiqlTest, LocalIndexFetchesWhatItDoesNotProject) {
  // BySpeed projects keys only; `model` and `pos` come from the table.
  auto items = All("SELECT speed, pos.lat FROM \"Telemetry\".\"BySpeed\" "
                   "WHERE PK = 'VEH#V-7744' AND speed >= 100");
  ASSERT_FALSE(items.empty());
  std::optional<Number> previous;
  for (const auto& item : items) {
    EXPECT_EQ(item.at("lat"), N("51.5"));
    if (previous) {
      EXPECT_LE(*previous, item.at("speed").n());  // index order
    }
    previous = item.at("speed").n();
  }
}

TEST_F(PartiqlTest, PagesFollowLimitAndTokensAreTiedToTheStatement) {
  int pages = 0;
  auto paged = All("SELECT * FROM Telemetry WHERE PK = 'VEH#V-7745'", {}, 5, &pages);
  EXPECT_EQ(paged, All("SELECT * FROM Telemetry WHERE PK = 'VEH#V-7745'"));
  EXPECT_EQ(pages, 3);  // 5 + 5 + 3 items evaluated
  // Limit counts items evaluated, not returned.
  auto first = Run("SELECT * FROM Telemetry WHERE PK = 'VEH#V-7745' AND speed > 1000", {}, 5);
  ASSERT_OK(first);
  EXPECT_TRUE(first->items.empty());
  ASSERT_TRUE(first->next_token);
  // Several collections: the token moves from one query to the next.
  auto across = All("SELECT * FROM Telemetry WHERE PK IN ['VEH#V-7740', 'VEH#V-7741']", {}, 7);
  EXPECT_EQ(across.size(), 2u * (kReadings + 1));
  // A scan pages too.
  EXPECT_EQ(All("SELECT * FROM Telemetry", {}, 17).size(), kVehicles * (kReadings + 1u));

  ExecuteStatementRequest other{.statement = "SELECT * FROM Telemetry WHERE PK = 'VEH#V-7744'",
                                .next_token = first->next_token};
  ExpectError(db_->ExecuteStatement(other), "ValidationException",
              "NextToken does not match request");
  other.next_token = "bm90IGEgdG9rZW4=";
  ExpectError(db_->ExecuteStatement(other), "ValidationException", "Invalid NextToken");
  ExecuteStatementRequest write{.statement = "DELETE FROM Telemetry WHERE PK = 'a' AND SK = 'b'",
                                .next_token = first->next_token};
  ExpectError(db_->ExecuteStatement(write), "ValidationException",
              "NextToken is only valid on a SELECT statement");
}

TEST_F(PartiqlTest, NumberAndBinaryKeys) {
  ASSERT_OK(Run("INSERT INTO Counters VALUE {'id': 1, 'seq': 2.50, 'n': -1e2}"));
  auto items = All("SELECT * FROM Counters WHERE id = 1.0 AND seq = 2.5");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].at("n"), N("-100"));
  ASSERT_OK(Run("INSERT INTO Blobs VALUE {'k': ?, 'v': <<'a', 'b'>>}", {B(std::string("\0\1", 2))}));
  auto blob = All("SELECT v FROM Blobs WHERE k = ?", {B(std::string("\0\1", 2))});
  ASSERT_EQ(blob.size(), 1u);
  EXPECT_EQ(blob[0].at("v"), AttributeValue::SS({"a", "b"}));
  ExpectError(Run("SELECT * FROM Blobs WHERE k = ?"), "ValidationException",
              "Number of parameters in request and statement don't match.");
}

// ---- Writes ------------------------------------------------------------------------------------

TEST_F(PartiqlTest, InsertNeverOverwrites) {
  ASSERT_OK(Run("INSERT INTO Telemetry VALUE {'PK': 'VEH#NEW', 'SK': 'META', 'model': 'eVito', "
                "'ok': TRUE, 'none': NULL, 'l': [1, 'a', [2]], 'm': {'k': {'z': 'it''s'}}}"));
  auto item = Get("Telemetry", {{"PK", S("VEH#NEW")}, {"SK", S("META")}});
  ASSERT_TRUE(item);
  EXPECT_EQ(item->at("ok"), AttributeValue::Bool(true));
  EXPECT_EQ(item->at("none"), AttributeValue::Null());
  EXPECT_EQ(item->at("m"), AttributeValue::M({{"k", AttributeValue::M({{"z", S("it's")}})}}));
  ExpectError(Run("INSERT INTO Telemetry VALUE {'PK': 'VEH#NEW', 'SK': 'META', 'model': 'x'}"),
              "DuplicateItemException", "Duplicate primary key exists in table");
  EXPECT_EQ(Get("Telemetry", {{"PK", S("VEH#NEW")}, {"SK", S("META")}})->at("model"), S("eVito"));
  auto missing = Run("INSERT INTO Telemetry VALUE {'PK': 'VEH#NEW'}");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().ErrorName(), "ValidationException");
  ExpectError(Run("INSERT INTO Nope VALUE {'PK': 'a'}"), "ResourceNotFoundException",
              "Requested resource not found");
}

TEST_F(PartiqlTest, UpdateSetsRemovesAndNeverCreates) {
  const Item key{{"PK", S(Vehicle(0))}, {"SK", S("META")}};
  auto r = Run("UPDATE Telemetry SET mileage = 10 SET model = ? REMOVE model2 "
               "WHERE PK = 'VEH#V-7740' AND SK = 'META' RETURNING ALL NEW *",
               {S("Crafter")});
  ASSERT_OK(r);
  ASSERT_EQ(r->items.size(), 1u);
  EXPECT_EQ(r->items[0].at("model"), S("Crafter"));
  ASSERT_OK(Run("UPDATE Telemetry SET mileage = mileage + 5, tags = set_add(tags, <<'ev'>>) "
                "WHERE PK = 'VEH#V-7740' AND SK = 'META'"));
  ASSERT_OK(Run("UPDATE Telemetry SET hist = list_append([0], [1, 2]) "
                "WHERE PK = 'VEH#V-7740' AND SK = 'META'"));
  auto modified = Run("UPDATE Telemetry SET mileage = mileage - 1, tags = set_delete(tags, <<'van'>>) "
                      "REMOVE hist WHERE PK = 'VEH#V-7740' AND SK = 'META' RETURNING MODIFIED OLD *");
  ASSERT_OK(modified);
  ASSERT_EQ(modified->items.size(), 1u);
  EXPECT_EQ(modified->items[0].at("mileage"), N("15"));
  EXPECT_EQ(modified->items[0].count("model"), 0u);
  auto item = Get("Telemetry", key);
  EXPECT_EQ(item->at("mileage"), N("14"));
  EXPECT_EQ(item->at("tags"), AttributeValue::SS({"depot-0", "ev"}));
  EXPECT_EQ(item->count("hist"), 0u);

  // The rest of the WHERE is the condition; a missing item fails it.
  ExpectError(Run("UPDATE Telemetry SET x = 1 WHERE PK = 'VEH#V-7740' AND SK = 'META' AND "
                  "mileage > 100"),
              "ConditionalCheckFailedException", "The conditional request failed");
  ExpectError(Run("UPDATE Telemetry SET x = 1 WHERE PK = 'VEH#none' AND SK = 'META'"),
              "ConditionalCheckFailedException", "The conditional request failed");
  EXPECT_FALSE(Get("Telemetry", {{"PK", S("VEH#none")}, {"SK", S("META")}}));
  ExpectError(Run("UPDATE Telemetry SET x = 1 WHERE PK = 'VEH#V-7740'"), "ValidationException",
              "Where clause does not contain a mandatory equality on all key attributes");
  ExpectError(Run("UPDATE Telemetry SET x = 1 WHERE PK = 'VEH#V-7740' AND SK > 'A'"),
              "ValidationException",
              "Where clause does not contain a mandatory equality on all key attributes");
  // ReturnValuesOnConditionCheckFailure=ALL_OLD: the item in the error.
  ExecuteStatementRequest failing{
      .statement = "UPDATE Telemetry SET x = 1 WHERE PK = 'VEH#V-7740' AND SK = 'META' AND x = 9",
      .return_values_on_condition_check_failure = ReturnValuesOnConditionCheckFailure::kAllOld};
  auto failed = db_->ExecuteStatement(failing);
  ASSERT_FALSE(failed.ok());
  const auto* detail = failed.status().payload<ConditionalCheckFailedDetail>();
  ASSERT_NE(detail, nullptr);
  ASSERT_TRUE(detail->item);
  EXPECT_EQ(detail->item->at("mileage"), N("14"));
}

TEST_F(PartiqlTest, DeleteOfAMissingItemSucceeds) {
  auto gone = Run("DELETE FROM Telemetry WHERE PK = 'VEH#V-7741' AND SK = 'META' RETURNING ALL OLD *");
  ASSERT_OK(gone);
  ASSERT_EQ(gone->items.size(), 1u);
  EXPECT_EQ(gone->items[0].at("model"), S("Transit"));
  auto again = Run("DELETE FROM Telemetry WHERE PK = 'VEH#V-7741' AND SK = 'META' AND model = 'x' "
                   "RETURNING ALL OLD *");
  ASSERT_OK(again);
  EXPECT_TRUE(again->items.empty());
  ExpectError(Run("DELETE FROM Telemetry WHERE PK = 'VEH#V-7742' AND SK = 'META' AND model = 'x'"),
              "ConditionalCheckFailedException", "The conditional request failed");
  EXPECT_TRUE(Get("Telemetry", {{"PK", S(Vehicle(2))}, {"SK", S("META")}}));
  ExpectError(Run("DELETE FROM Telemetry WHERE PK = 'a' AND SK = 'b' RETURNING ALL NEW *"),
              "ValidationException",
              "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed "
              "in DELETE statements.");
}

TEST_F(PartiqlTest, WritesKeepIndexesAndStatisticsExact) {
  ASSERT_OK(Run("INSERT INTO Telemetry VALUE {'PK': 'VEH#V-7741', 'SK': 'TS#9', "
                "'depotCode': 'DEP-LON-3', 'recordedAt': 99999, 'speed': 7}"));
  auto newest = All("SELECT recordedAt FROM \"Telemetry\".\"ByDepot\" WHERE depotCode = "
                    "'DEP-LON-3' ORDER BY recordedAt DESC");
  ASSERT_FALSE(newest.empty());
  EXPECT_EQ(newest[0].at("recordedAt"), N("99999"));
  ASSERT_OK(Run("DELETE FROM Telemetry WHERE PK = 'VEH#V-7741' AND SK = 'TS#9'"));
  newest = All("SELECT recordedAt FROM \"Telemetry\".\"ByDepot\" WHERE depotCode = 'DEP-LON-3' "
               "ORDER BY recordedAt DESC");
  EXPECT_NE(newest[0].at("recordedAt"), N("99999"));
  auto stats = db_->RecountStatistics();
  ASSERT_OK(stats);
  EXPECT_EQ(stats->collections_corrected, 0);
  EXPECT_EQ(stats->table_totals_corrected, 0);
  EXPECT_EQ(stats->index_totals_corrected, 0);
}

// ---- Errors ------------------------------------------------------------------------------------

TEST_F(PartiqlTest, SyntaxAndUnsupportedConstructs) {
  const std::string malformed = "Statement wasn't well formed, can't be processed: ";
  struct Case {
    std::string statement;
    std::string message;  // exact, or the envelope when it ends with ": "
  };
  const std::vector<Case> cases = {
      {"", "1 validation error detected: Value '' at 'statement' failed to satisfy constraint: "
           "Member must have length greater than or equal to 1"},
      {" \n ", malformed},
      {"UPSERT INTO Telemetry VALUE {'PK': 'a'}", malformed + "Expected data manipulation"},
      {"SELECT * FROM Telemetry WHERE", malformed},
      {"SELECT * FROM Telemetry WHERE pad = 'x'", malformed},  // a reserved word, bare
      {"SELECT * FROM Telemetry WHERE `a` = 1", malformed},
      {"SELECT * FROM Telemetry WHERE a = 'unterminated", malformed},
      {"SELECT * FROM Telemetry LIMIT 5", "Unsupported clause: LIMIT"},
      {"SELECT COUNT(*) FROM Telemetry", "Unexpected path component at 1:8:5"},
      {"SELECT * FROM Telemetry WHERE a = <<>>", "Empty bags are not supported"},
      {"SELECT * FROM Telemetry WHERE a = <<1, 1>>", "Input collection contains duplicates"},
      {"SELECT * FROM Telemetry WHERE a = <<1, 'a'>>",
       "DynamoDB only supports either numbers or strings in bags"},
      {"SELECT * FROM Telemetry WHERE a = <<?>>", "Unsupported data type in Bag"},
      {"SELECT * FROM Telemetry WHERE a = DATE '2026-01-01'", "Unsupported data type: UNKNOWN"},
      {"SELECT * FROM Telemetry WHERE a < TRUE",
       "Incorrect operand type for operator or function; operator or function: <, operand type: "
       "BOOL"},
      {"SELECT * FROM \"a\".\"b\".\"c\"", "A path may contain at most 2 components in the FROM "
                                          "clause"},
      {"SELECT * FROM \"Telemetry\".\"\"", "Path component cannot be an empty string"},
      {"INSERT INTO \"Telemetry\".\"ByDepot\" VALUE {'PK': 'a'}",
       "FROM clause may only contain a single table name in data manipulation statements at "
       "1:13:21"},
      {"UPDATE \"Telemetry\".\"ByDepot\" SET a = 1 WHERE PK = 'a'",
       "This operation is not supported on an index"},
      {"DELETE FROM \"Telemetry\".\"ByDepot\" WHERE PK = 'a'",
       "This operation is not supported on an index"},
      {"SELECT * FROM Telemetry ORDER BY SK", "Must have WHERE clause in the statement when "
                                              "using ORDER BY clause."},
      {"SELECT * FROM Telemetry WHERE a = 1 ORDER BY SK", "Must have WHERE clause in the "
                                                         "statement when using ORDER BY clause."},
      {"SELECT * FROM Telemetry WHERE a = 1; SELECT 1", malformed},
      {"SELECT * FROM ? WHERE a = 1", malformed},
      {"SELECT * FROM Telemetry WHERE a = 123456789012345678901234567890123456789",
       "Attempting to store more than 38 significant digits in a Number"},
  };
  for (const auto& c : cases) {
    auto r = Run(c.statement, {});
    ASSERT_FALSE(r.ok()) << c.statement;
    EXPECT_EQ(r.status().ErrorName(), "ValidationException") << c.statement;
    if (c.message == malformed) {
      EXPECT_TRUE(r.status().message().starts_with(malformed))
          << c.statement << " -> " << r.status().message();
    } else {
      EXPECT_EQ(r.status().message(), c.message) << c.statement;
    }
  }
  // Comments, case-insensitive keywords and a trailing semicolon are fine.
  auto ok = Run("select * /* all */ from Telemetry where PK = 'VEH#V-7740' -- the profile\n"
                "and SK = 'META';");
  ASSERT_OK(ok);
  EXPECT_EQ(ok->items.size(), 1u);
  // A statement over 8192 characters.
  auto long_statement = Run("SELECT * FROM Telemetry WHERE a = '" + std::string(8200, 'x') + "'");
  ASSERT_FALSE(long_statement.ok());
  EXPECT_TRUE(long_statement.status().message().ends_with(
      "at 'statement' failed to satisfy constraint: Member must have length less than or equal "
      "to 8192"));
}

TEST_F(PartiqlTest, BadInputChangesNothing) {
  const std::vector<std::string> statements = {
      "INSERT INTO Telemetry VALUE {'PK': 'VEH#V-7740', 'SK': 'META'}",
      "UPDATE Telemetry SET PK = 'x' WHERE PK = 'VEH#V-7740' AND SK = 'META'",
      "UPDATE Telemetry SET a = b + 1 WHERE PK = 'VEH#V-7740' AND SK = 'META'",
      "UPDATE Telemetry SET model = model + 1 WHERE PK = 'VEH#V-7740' AND SK = 'META'",
      "DELETE FROM Telemetry WHERE PK = 'VEH#V-7740' AND SK = 'META' AND model = 'x'",
      "INSERT INTO Telemetry VALUE {'PK': 1, 'SK': 'a'}",
      "INSERT INTO Telemetry VALUE {'PK': 'a', 'SK': 'b', 'speed': 'fast'}",
  };
  auto before = All("SELECT * FROM Telemetry");
  for (const auto& s : statements) EXPECT_FALSE(Run(s).ok()) << s;
  EXPECT_EQ(All("SELECT * FROM Telemetry"), before);
}

// ---- BatchExecuteStatement ---------------------------------------------------------------------

TEST_F(PartiqlTest, BatchReadsByKeyWithPerStatementErrors) {
  BatchExecuteStatementRequest r;
  r.statements = {
      {.statement = "SELECT model FROM Telemetry WHERE PK = 'VEH#V-7740' AND SK = 'META'"},
      {.statement = "SELECT * FROM Telemetry WHERE PK = 'VEH#none' AND SK = 'META'"},
      {.statement = "SELECT * FROM Telemetry WHERE PK = 'VEH#V-7741'"},
      {.statement = "SELECT * FROM Nope WHERE PK = 'a' AND SK = 'b'"},
      {.statement = "SELEKT"},
  };
  r.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto out = db_->BatchExecuteStatement(r);
  ASSERT_OK(out);
  ASSERT_EQ(out->responses.size(), 5u);
  EXPECT_EQ(out->responses[0].item, (Item{{"model", S("Sprinter")}}));
  EXPECT_EQ(out->responses[0].table_name, "Telemetry");
  EXPECT_FALSE(out->responses[1].item);
  EXPECT_FALSE(out->responses[1].error);
  ASSERT_TRUE(out->responses[2].error);
  EXPECT_EQ(out->responses[2].error->code, "ValidationError");
  EXPECT_EQ(out->responses[2].error->message,
            "Select statements within BatchExecuteStatement must specify the primary key in the "
            "where clause.");
  EXPECT_FALSE(out->responses[2].table_name);
  EXPECT_EQ(out->responses[3].error->code, "ResourceNotFound");
  EXPECT_EQ(out->responses[4].error->code, "ValidationError");
  EXPECT_TRUE(out->responses[4].error->message.starts_with("Statement wasn't well formed"));
  ASSERT_EQ(out->consumed_capacity.size(), 1u);
  EXPECT_EQ(out->consumed_capacity[0].table_name, "Telemetry");
  EXPECT_GT(out->consumed_capacity[0].capacity_units, 0);
}

TEST_F(PartiqlTest, BatchWritesRunEachOnItsOwn) {
  BatchExecuteStatementRequest r;
  r.statements = {
      {.statement = "INSERT INTO Telemetry VALUE {'PK': 'VEH#B', 'SK': '1'}"},
      {.statement = "INSERT INTO Telemetry VALUE {'PK': 'VEH#V-7740', 'SK': 'META'}"},
      {.statement = "UPDATE Telemetry SET x = 1 WHERE PK = 'VEH#V-7741' AND SK = 'META' AND x = 2"},
      {.statement = "DELETE FROM Telemetry WHERE PK = 'VEH#V-7742' AND SK = 'META'"},
  };
  auto out = db_->BatchExecuteStatement(r);
  ASSERT_OK(out);
  EXPECT_FALSE(out->responses[0].error);
  EXPECT_EQ(out->responses[1].error->code, "DuplicateItem");
  EXPECT_EQ(out->responses[1].error->message, "Duplicate primary key exists in table");
  EXPECT_EQ(out->responses[1].table_name, "Telemetry");
  EXPECT_EQ(out->responses[2].error->code, "ConditionalCheckFailed");
  EXPECT_FALSE(out->responses[3].error);
  EXPECT_TRUE(Get("Telemetry", {{"PK", S("VEH#B")}, {"SK", S("1")}}));
  EXPECT_FALSE(Get("Telemetry", {{"PK", S(Vehicle(2))}, {"SK", S("META")}}));

  BatchExecuteStatementRequest mixed;
  mixed.statements = {{.statement = "SELECT * FROM Telemetry WHERE PK = 'a' AND SK = 'b'"},
                      {.statement = "DELETE FROM Telemetry WHERE PK = 'a' AND SK = 'b'"}};
  auto refused = db_->BatchExecuteStatement(mixed);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "Read and write requests together in the same batch is not supported.");
  BatchExecuteStatementRequest twice;
  twice.statements = {{.statement = "DELETE FROM Telemetry WHERE PK = 'a' AND SK = 'b'"},
                      {.statement = "UPDATE Telemetry SET x = 1 WHERE SK = 'b' AND PK = 'a'"}};
  refused = db_->BatchExecuteStatement(twice);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "Provided list of item keys contains duplicates");
  BatchExecuteStatementRequest none;
  refused = db_->BatchExecuteStatement(none);
  ASSERT_FALSE(refused.ok());
  // An empty list is given, as DynamoDB reads `"Statements": []`.
  EXPECT_EQ(refused.status().message(),
            "1 validation error detected: Value '[]' at 'statements' failed to satisfy "
            "constraint: Member must have length greater than or equal to 1");
}

// ---- ExecuteTransaction ------------------------------------------------------------------------

TEST_F(PartiqlTest, TransactionIsAllOrNothing) {
  ExecuteTransactionRequest r;
  r.transact_statements = {
      {.statement = "INSERT INTO Telemetry VALUE {'PK': 'VEH#T', 'SK': '1'}"},
      {.statement = "UPDATE Telemetry SET visits = 1 WHERE PK = 'VEH#V-7740' AND SK = 'META'"},
      {.statement = "INSERT INTO Telemetry VALUE {'PK': 'VEH#V-7741', 'SK': 'META'}"},
  };
  auto failed = db_->ExecuteTransaction(r);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().ErrorName(), "TransactionCanceledException");
  EXPECT_EQ(failed.status().message(),
            "Transaction cancelled, please refer cancellation reasons for specific reasons "
            "[None, None, DuplicateItem]");
  const auto* detail = failed.status().payload<TransactionCanceledDetail>();
  ASSERT_NE(detail, nullptr);
  EXPECT_EQ(detail->reasons[2].message, "Duplicate primary key exists in table");
  EXPECT_FALSE(Get("Telemetry", {{"PK", S("VEH#T")}, {"SK", S("1")}}));
  EXPECT_EQ(Get("Telemetry", {{"PK", S(Vehicle(0))}, {"SK", S("META")}})->count("visits"), 0u);

  r.transact_statements.pop_back();
  r.transact_statements.push_back(
      {.statement = "EXISTS(SELECT * FROM Telemetry WHERE PK = 'VEH#V-7741' AND SK = 'META' AND "
                    "model = 'Transit')"});
  r.client_request_token = "token-1";
  ASSERT_OK(db_->ExecuteTransaction(r));
  EXPECT_TRUE(Get("Telemetry", {{"PK", S("VEH#T")}, {"SK", S("1")}}));
  // The same token and statements: success again, nothing re-applied.
  ASSERT_OK(db_->ExecuteTransaction(r));
  r.transact_statements[0].statement = "INSERT INTO Telemetry VALUE {'PK': 'VEH#T', 'SK': '2'}";
  auto mismatch = db_->ExecuteTransaction(r);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().ErrorName(), "IdempotentParameterMismatchException");

  ExecuteTransactionRequest check;
  check.transact_statements = {
      {.statement = "EXISTS(SELECT * FROM Telemetry WHERE PK = 'VEH#V-7742' AND SK = 'META' AND "
                    "model = 'nope')"},
      {.statement = "DELETE FROM Telemetry WHERE PK = 'VEH#T' AND SK = '1'"}};
  failed = db_->ExecuteTransaction(check);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(),
            "Transaction cancelled, please refer cancellation reasons for specific reasons "
            "[ConditionalCheckFailed, None]");
}

TEST_F(PartiqlTest, TransactionReadsAndRefusals) {
  ExecuteTransactionRequest r;
  r.transact_statements = {
      {.statement = "SELECT model FROM Telemetry WHERE PK = 'VEH#V-7740' AND SK = 'META'"},
      {.statement = "SELECT nothing FROM Telemetry WHERE PK = 'VEH#V-7741' AND SK = 'META'"},
      {.statement = "SELECT * FROM Telemetry WHERE PK = 'VEH#none' AND SK = 'META'"}};
  auto out = db_->ExecuteTransaction(r);
  ASSERT_OK(out);
  ASSERT_EQ(out->responses.size(), 3u);
  EXPECT_EQ(out->responses[0], (Item{{"model", S("Sprinter")}}));
  EXPECT_EQ(out->responses[1], Item{});
  EXPECT_FALSE(out->responses[2]);

  auto refuse = [&](std::vector<std::string> statements, std::string_view message) {
    ExecuteTransactionRequest t;
    for (auto& s : statements) t.transact_statements.push_back({.statement = std::move(s)});
    auto done = db_->ExecuteTransaction(t);
    ASSERT_FALSE(done.ok());
    EXPECT_EQ(done.status().ErrorName(), "ValidationException");
    EXPECT_EQ(done.status().message(), message);
  };
  refuse({"SELECT * FROM Telemetry WHERE PK = 'a' AND SK = 'b'",
          "DELETE FROM Telemetry WHERE PK = 'a' AND SK = 'c'"},
         "ExecuteTransaction API does not support both read and write operations in the same "
         "request.");
  refuse({"DELETE FROM Telemetry WHERE PK = 'a' AND SK = 'b' RETURNING ALL OLD *"},
         "Validation failed in TransactStatements[0]: RETURNING clause is not supported in "
         "ExecuteTransaction.");
  refuse({"SELECT * FROM \"Telemetry\".\"ByDepot\" WHERE depotCode = 'a'"},
         "Validation failed in TransactStatements[0]: Reads on indices are not supported within "
         "transactions.");
  refuse({"DELETE FROM Telemetry WHERE PK = 'a' AND SK = 'b'",
          "UPDATE Telemetry SET x = 1 WHERE PK = 'a' AND SK = 'b'"},
         "Transaction request cannot include multiple operations on one item");
}

// ---- Randomized SELECTs against the Query or Scan they stand for --------------------------------

TEST_F(PartiqlTest, RandomSelectsEqualTheirQueryOrScan) {
  std::mt19937_64 rng(testing::TestSeed("PartiqlTest.RandomSelectsEqualTheirQueryOrScan"));
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* ops[] = {"=", "<", "<=", ">", ">="};
  for (int round = 0; round < 200; ++round) {
    std::string where;
    std::vector<AttributeValue> params;
    ExpressionAttributeValues values;
    std::string key_condition, filter;
    const bool keyed = pick(4) != 0;
    if (keyed) {
      const int v = pick(kVehicles + 1);  // one vehicle with no items
      where = "PK = ?";
      params.push_back(S(Vehicle(v)));
      values[":pk"] = S(Vehicle(v));
      key_condition = "PK = :pk";
      switch (pick(4)) {
        case 0:
          break;
        case 1: {
          const char* op = ops[pick(5)];
          where += std::string(" AND SK ") + op + " ?";
          params.push_back(S(Ts(pick(kReadings))));
          values[":sk"] = params.back();
          key_condition += std::string(" AND SK ") + op + " :sk";
          break;
        }
        case 2: {
          int a = pick(kReadings), b = pick(kReadings);
          if (a > b) std::swap(a, b);
          where += " AND SK BETWEEN ? AND ?";
          params.push_back(S(Ts(a)));
          params.push_back(S(Ts(b)));
          values[":a"] = S(Ts(a));
          values[":b"] = S(Ts(b));
          key_condition += " AND SK BETWEEN :a AND :b";
          break;
        }
        case 3:
          where += " AND begins_with(SK, 'TS#2026-12-03T10:0')";
          values[":p"] = S("TS#2026-12-03T10:0");
          key_condition += " AND begins_with(SK, :p)";
          break;
      }
    }
    if (pick(2)) {
      const char* op = ops[pick(5)];
      const std::string speed = std::to_string(pick(120));
      where += std::string(where.empty() ? "" : " AND ") + "speed " + op + " " + speed;
      values[":speed"] = N(speed);
      filter = std::string("speed ") + op + " :speed";
    }
    const bool reverse = keyed && pick(2);
    const std::optional<int32_t> limit =
        pick(3) ? std::nullopt : std::optional<int32_t>(1 + pick(20));
    std::string statement = "SELECT * FROM Telemetry";
    if (!where.empty()) statement += " WHERE " + where;
    if (reverse) statement += " ORDER BY SK DESC";
    SCOPED_TRACE(statement);
    auto got = All(statement, params, limit);

    std::vector<Item> expected;
    if (keyed) {
      QueryRequest q{.table_name = "Telemetry", .key_condition_expression = key_condition};
      if (!filter.empty()) q.filter_expression = filter;
      q.scan_index_forward = !reverse;
      q.limit = limit;
      for (const auto& [k, v] : values) {
        if (key_condition.find(k) != std::string::npos || filter.find(k) != std::string::npos) {
          if (!q.expression_attribute_values) q.expression_attribute_values.emplace();
          (*q.expression_attribute_values)[k] = v;
        }
      }
      expected = AllQuery(q);
    } else {
      ScanRequest s{.table_name = "Telemetry"};
      if (!filter.empty()) {
        s.filter_expression = filter;
        s.expression_attribute_values = ExpressionAttributeValues{{":speed", values[":speed"]}};
      }
      s.limit = limit;
      expected = AllScan(s);
    }
    ASSERT_EQ(got, expected);
  }
}

}  // namespace
}  // namespace dynarock
