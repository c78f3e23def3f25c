#include <gtest/gtest.h>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::S;
using testing::TableRequest;
using T = ScalarAttributeType;

class TableTest : public DbTest {};

TEST_F(TableTest, CreateDescribeListDeleteAndReopen) {
  // Answered CREATING, as DynamoDB answers; ACTIVE when described.
  CreateTableRequest telemetry = TableRequest("Telemetry", "vehicleId", T::kS, "recordedAt", T::kS);
  telemetry.attribute_definitions.push_back({"depotCode", T::kS});
  telemetry.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByDepot", {{"depotCode", KeyType::kHash}}, {ProjectionType::kKeysOnly, {}}, std::nullopt}};
  auto created = db_->CreateTable(telemetry);
  ASSERT_OK(created);
  EXPECT_EQ(created->table_description.table_status, TableStatus::kCreating);
  EXPECT_EQ(created->table_description.global_secondary_indexes->at(0).index_status,
            IndexStatus::kCreating);
  Create(TableRequest("Accounts", "id", T::kN));
  auto described = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(described);
  const TableDescription& d = described->table;
  EXPECT_EQ(d.table_name, "Telemetry");
  EXPECT_EQ(d.table_status, TableStatus::kActive);
  EXPECT_EQ(d.table_arn, "arn:aws:dynamodb:us-east-1:000000000000:table/Telemetry");
  ASSERT_EQ(d.key_schema.size(), 2u);
  EXPECT_EQ(d.key_schema[0].attribute_name, "vehicleId");
  EXPECT_EQ(d.key_schema[0].key_type, KeyType::kHash);
  EXPECT_EQ(d.key_schema[1].attribute_name, "recordedAt");
  EXPECT_EQ(d.key_schema[1].key_type, KeyType::kRange);
  EXPECT_EQ(d.billing_mode, BillingMode::kPayPerRequest);
  EXPECT_EQ(d.table_id.size(), 36u);
  EXPECT_GT(d.creation_date_time, 1.7e9);
  EXPECT_EQ(d.item_count, 0);

  Reopen();  // descriptors live in the catalog column family
  auto again = db_->DescribeTable({"Telemetry"});
  ASSERT_OK(again);
  EXPECT_EQ(again->table.table_id, d.table_id);
  EXPECT_EQ(again->table.creation_date_time, d.creation_date_time);
  EXPECT_EQ(again->table.key_schema[1].attribute_name, "recordedAt");

  auto list = db_->ListTables({});
  ASSERT_OK(list);
  EXPECT_EQ(list->table_names, (std::vector<std::string>{"Accounts", "Telemetry"}));
  EXPECT_FALSE(list->last_evaluated_table_name.has_value());

  auto deleted = db_->DeleteTable({"Accounts"});
  ASSERT_OK(deleted);
  // DynamoDB: DELETING with TableId, TableArn and the billing summary, no
  // CreationDateTime, KeySchema or AttributeDefinitions, zero throughput
  // for an on-demand table.
  const TableDescription& gone = deleted->table_description;
  EXPECT_EQ(gone.table_status, TableStatus::kDeleting);
  EXPECT_EQ(gone.table_id.size(), 36u);
  EXPECT_EQ(gone.table_arn, "arn:aws:dynamodb:us-east-1:000000000000:table/Accounts");
  EXPECT_EQ(gone.creation_date_time, 0);
  EXPECT_TRUE(gone.key_schema.empty());
  EXPECT_TRUE(gone.attribute_definitions.empty());
  EXPECT_EQ(gone.billing_mode, BillingMode::kPayPerRequest);
  EXPECT_TRUE(gone.last_update_to_pay_per_request_date_time.has_value());
  EXPECT_EQ(gone.provisioned_throughput.read_capacity_units, 0);
  EXPECT_EQ(gone.provisioned_throughput.write_capacity_units, 0);
  Reopen();
  EXPECT_EQ(db_->ListTables({})->table_names, std::vector<std::string>{"Telemetry"});
}

// DynamoDB: an on-demand table's BillingModeSummary carries
// LastUpdateToPayPerRequestDateTime, equal to CreationDateTime when it was
// created on-demand, and the time of the switch after an UpdateTable; a
// table that was always provisioned has none.
TEST_F(TableTest, LastUpdateToPayPerRequestDateTime) {
  int64_t now_ms = 1'800'000'000'000;
  options_.clock_ms = [&now_ms] { return now_ms; };
  Reopen();
  Create(TableRequest("OnDemand", "k", T::kS));
  auto d = db_->DescribeTable({"OnDemand"})->table;
  ASSERT_TRUE(d.last_update_to_pay_per_request_date_time.has_value());
  EXPECT_EQ(*d.last_update_to_pay_per_request_date_time, d.creation_date_time);

  CreateTableRequest provisioned = TableRequest("Provisioned", "k", T::kS);
  provisioned.billing_mode = BillingMode::kProvisioned;
  provisioned.provisioned_throughput = ProvisionedThroughput{5, 5};
  Create(provisioned);
  EXPECT_FALSE(db_->DescribeTable({"Provisioned"})->table.last_update_to_pay_per_request_date_time);
  now_ms += 60'000;
  UpdateTableRequest u{.table_name = "Provisioned"};
  u.billing_mode = BillingMode::kPayPerRequest;
  ASSERT_OK(db_->UpdateTable(u));
  Reopen();  // kept in the descriptor
  d = db_->DescribeTable({"Provisioned"})->table;
  EXPECT_EQ(d.billing_mode, BillingMode::kPayPerRequest);
  ASSERT_TRUE(d.last_update_to_pay_per_request_date_time.has_value());
  EXPECT_EQ(*d.last_update_to_pay_per_request_date_time, 1'800'000'060.0);
  EXPECT_EQ(d.provisioned_throughput.read_capacity_units, 0);
}

// DynamoDB's DeletionProtectionEnabled: while set, DeleteTable is a
// ValidationException and the table and its items stay; UpdateTable sets
// and clears it, alone or with other changes; it survives a reopen.
TEST_F(TableTest, DeletionProtectionRefusesDeleteTableUntilCleared) {
  const std::string refused =
      "Resource cannot be deleted as it is currently protected against deletion. Disable "
      "deletion protection first.";
  CreateTableRequest r = TableRequest("Guarded", "k", T::kS);
  r.deletion_protection_enabled = true;
  Create(r);
  ASSERT_OK(db_->PutItem({.table_name = "Guarded", .item = {{"k", S("a")}}}));
  EXPECT_TRUE(db_->DescribeTable({"Guarded"})->table.deletion_protection_enabled);
  EXPECT_EQ(db_->DeleteTable({"Guarded"}).status(), Status::Validation(refused));
  Reopen();
  EXPECT_EQ(db_->DeleteTable({"Guarded"}).status(), Status::Validation(refused));
  EXPECT_EQ(db_->DescribeTable({"Guarded"})->table.item_count, 1);

  UpdateTableRequest off{.table_name = "Guarded", .deletion_protection_enabled = false};
  auto updated = db_->UpdateTable(off);  // the only change: no "nothing to update" error
  ASSERT_OK(updated);
  EXPECT_FALSE(updated->table_description.deletion_protection_enabled);
  EXPECT_OK(db_->UpdateTable(off));  // as it is already: accepted, nothing changes

  // On again, together with a billing change; then off, and the table goes.
  UpdateTableRequest on{.table_name = "Guarded", .deletion_protection_enabled = true};
  on.billing_mode = BillingMode::kProvisioned;
  on.provisioned_throughput = ProvisionedThroughput{5, 5};
  ASSERT_OK(db_->UpdateTable(on));
  Reopen();
  auto d = db_->DescribeTable({"Guarded"})->table;
  EXPECT_TRUE(d.deletion_protection_enabled);
  EXPECT_EQ(d.billing_mode, BillingMode::kProvisioned);
  EXPECT_EQ(db_->DeleteTable({"Guarded"}).status(), Status::Validation(refused));
  ASSERT_OK(db_->UpdateTable(off));
  auto gone = db_->DeleteTable({"Guarded"});
  ASSERT_OK(gone);
  EXPECT_FALSE(gone->table_description.deletion_protection_enabled);
  EXPECT_EQ(db_->DescribeTable({"Guarded"}).status().code(), Status::Code::kResourceNotFound);
  // Unprotected by default.
  Create(TableRequest("Plain", "k", T::kS));
  EXPECT_FALSE(db_->DescribeTable({"Plain"})->table.deletion_protection_enabled);
  EXPECT_OK(db_->DeleteTable({"Plain"}));
}

// DescribeCollection: a table collection's exact statistics (with its LSI
// entries), the SST files and levels its key range spans (none while in
// memtables, some after a compaction), an index collection without
// statistics, and DynamoDB-style errors.
TEST_F(TableTest, DescribeCollectionCountsAndLocatesOneCollection) {
  CreateTableRequest r = TableRequest("Fleet", "v", T::kS, "t", T::kS);
  r.attribute_definitions.push_back({"d", T::kS});
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByD", {{"d", KeyType::kHash}}, {ProjectionType::kKeysOnly, {}}, std::nullopt}};
  Create(r);
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(
        db_->PutItem({.table_name = "Fleet",
                      .item = {{"v", S("V1")}, {"t", S("T" + std::to_string(i))}, {"d", S("D")}}}));
  }
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = {{"v", S("V2")}, {"t", S("T0")}}}));
  auto one = db_->DescribeCollection({.table_name = "Fleet", .partition_key_value = S("V1")});
  ASSERT_OK(one);
  ASSERT_TRUE(one->statistics.has_value());
  EXPECT_EQ(one->statistics->item_count, 3);
  EXPECT_EQ(one->statistics->size_bytes, 3 * (1 + 2 + 1 + 2 + 1 + 1));  // v V1 t Ti d D
  EXPECT_FALSE(one->size_limited);                                      // no LSI
  EXPECT_EQ(one->sst_files, 0);                                         // still in the memtable
  ASSERT_OK(db_->Compact());
  one = db_->DescribeCollection({.table_name = "Fleet", .partition_key_value = S("V1")});
  ASSERT_OK(one);
  EXPECT_EQ(one->sst_files, 1);
  ASSERT_EQ(one->levels.size(), 1u);
  auto absent = db_->DescribeCollection({.table_name = "Fleet", .partition_key_value = S("V9")});
  ASSERT_OK(absent);
  EXPECT_EQ(absent->statistics->item_count, 0);
  // The largest index collections, counted from the entries: D (3), E (1).
  ASSERT_OK(db_->PutItem(
      {.table_name = "Fleet", .item = {{"v", S("V3")}, {"t", S("T0")}, {"d", S("E")}}}));
  auto by_d = db_->LargestIndexCollections("Fleet", "ByD", 10);
  ASSERT_OK(by_d);
  ASSERT_EQ(by_d->size(), 2u);
  EXPECT_EQ((*by_d)[0].key, (Item{{"d", S("D")}}));
  EXPECT_EQ((*by_d)[0].item_count, 3);
  EXPECT_EQ((*by_d)[0].size_bytes, 3 * (1 + 2 + 1 + 2 + 1 + 1));  // KEYS_ONLY: v, t and d
  EXPECT_EQ((*by_d)[1].key, (Item{{"d", S("E")}}));
  EXPECT_EQ((*by_d)[1].item_count, 1);
  EXPECT_EQ(db_->LargestIndexCollections("Fleet", "ByD", 1)->size(), 1u);
  EXPECT_EQ(db_->LargestIndexCollections("Fleet", "Nope", 1).status().code(),
            Status::Code::kValidation);
  auto index = db_->DescribeCollection(
      {.table_name = "Fleet", .index_name = "ByD", .partition_key_value = S("D")});
  ASSERT_OK(index);
  EXPECT_FALSE(index->statistics.has_value());
  EXPECT_EQ(index->sst_files, 1);
  EXPECT_EQ(db_->DescribeCollection(
                   {.table_name = "Fleet", .index_name = "Nope", .partition_key_value = S("D")})
                .status(),
            Status::Validation("The table does not have the specified index: Nope"));
  EXPECT_EQ(db_->DescribeCollection(
                   {.table_name = "Fleet", .partition_key_value = AttributeValue::Bool(true)})
                .status()
                .code(),
            Status::Code::kValidation);
  EXPECT_EQ(db_->DescribeCollection({.table_name = "Nope", .partition_key_value = S("V1")})
                .status()
                .code(),
            Status::Code::kResourceNotFound);
}

// CreateTable's Tags tag the table (they were dropped); more than 50 is
// TagResource's LimitExceededException.
TEST_F(TableTest, CreateTableWithTags) {
  CreateTableRequest r = TableRequest("Tagged", "k", T::kS);
  r.tags = std::map<std::string, std::string>{{"team", "fleet"}, {"env", "dev"}};
  Create(r);
  const std::string arn = db_->DescribeTable({"Tagged"})->table.table_arn;
  Reopen();
  EXPECT_EQ(db_->ListTagsOfResource({arn})->tags, *r.tags);
  CreateTableRequest many = TableRequest("Many", "k", T::kS);
  many.tags.emplace();
  for (int i = 0; i < 51; ++i) (*many.tags)["k" + std::to_string(i)] = "v";
  EXPECT_EQ(db_->CreateTable(many).status(),
            Status::LimitExceeded("The number of tags exceeds the limit of 50"));
  EXPECT_EQ(db_->DescribeTable({"Many"}).status().code(), Status::Code::kResourceNotFound);
}

TEST_F(TableTest, ListTablesPagination) {
  for (const char* name : {"aaa", "bbb", "ccc", "ddd", "eee"}) Create(TableRequest(name, "k", T::kS));
  std::vector<std::string> seen;
  ListTablesRequest req;
  req.limit = 2;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = db_->ListTables(req);
    ASSERT_OK(page);
    seen.insert(seen.end(), page->table_names.begin(), page->table_names.end());
    if (!page->last_evaluated_table_name) break;
    req.exclusive_start_table_name = page->last_evaluated_table_name;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"aaa", "bbb", "ccc", "ddd", "eee"}));
  ListTablesRequest bad;
  bad.limit = 0;
  EXPECT_EQ(db_->ListTables(bad).status().message(),
            "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1");
  bad.limit = 101;
  EXPECT_FALSE(db_->ListTables(bad).ok());
}

TEST_F(TableTest, DeleteTableDropsItemsCheaplyAndNameCanBeReused) {
  Create(TableRequest("tbl1", "k", T::kS));
  for (int i = 0; i < 100; ++i) Put("tbl1", {{"k", testing::S("item" + std::to_string(i))}});
  ASSERT_OK(db_->DeleteTable({"tbl1"}));
  EXPECT_EQ(db_->PutItem({.table_name = "tbl1", .item = {{"k", testing::S("x")}}}).status().code(),
            Status::Code::kResourceNotFound);
  Create(TableRequest("tbl1", "k", T::kS));
  auto scan = db_->Scan({.table_name = "tbl1"});
  ASSERT_OK(scan);
  EXPECT_EQ(scan->count, 0);  // the old items are gone, not inherited
  EXPECT_EQ(db_->DescribeTable({"tbl1"})->table.item_count, 0);
}

TEST_F(TableTest, CreateTableErrors) {
  struct Case {
    std::string name;
    CreateTableRequest request;
    Status::Code code;
    std::string message;
  };
  auto base = [] { return TableRequest("Good", "pk", T::kS, "sk", T::kN); };
  std::vector<Case> cases;
  {
    auto r = base();
    r.table_name = "ab";
    // DynamoDB words a short table name as a model constraint, for table
    // operations too (older emulators threw "TableName must be at least 3
    // characters long ..." alone).
    cases.push_back({"short name", r, Status::Code::kValidation,
                     "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy "
                     "constraint: Member must have length greater than or equal to 3"});
  }
  {
    auto r = base();
    r.table_name = "a b!";
    cases.push_back({"bad chars", r, Status::Code::kValidation,
                     "1 validation error detected: Value 'a b!' at 'tableName' failed to satisfy "
                     "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"});
  }
  {
    auto r = base();
    r.table_name = "a b";
    r.key_schema.clear();  // given, and empty, as DynamoDB reads `[]`
    cases.push_back({"two errors", r, Status::Code::kValidation,
                     "2 validation errors detected: Value 'a b' at 'tableName' failed to satisfy "
                     "constraint: Member must satisfy regular expression pattern: "
                     "[a-zA-Z0-9_.-]+; Value '[]' at 'keySchema' failed to satisfy constraint: "
                     "Member must have length greater than or equal to 1"});
  }
  // An index's projection: its type is required, NonKeyAttributes go with
  // INCLUDE only, once each.
  for (auto [projection, message] : std::vector<std::pair<Projection, std::string>>{
           {Projection{std::nullopt, {}}, "Unknown ProjectionType: null"},
           {Projection{ProjectionType::kInclude, {"a", "a"}},
            "Duplicate attribute name in NonKeyAttributes: a"},
           {Projection{ProjectionType::kKeysOnly, {"a"}},
            "ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"}}) {
    auto r = base();
    r.attribute_definitions.push_back({"d", T::kS});
    r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
        {"ByD", {{"d", KeyType::kHash}}, projection, std::nullopt}};
    cases.push_back({message, r, Status::Code::kValidation,
                     "One or more parameter values were invalid: " + message});
  }
  {
    auto r = base();
    r.billing_mode = BillingMode::kProvisioned;
    cases.push_back({"provisioned without throughput", r, Status::Code::kValidation,
                     "One or more parameter values were invalid: ReadCapacityUnits and "
                     "WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"});
  }
  {
    auto r = base();
    r.provisioned_throughput = ProvisionedThroughput{5, 5};
    cases.push_back({"on demand with throughput", r, Status::Code::kValidation,
                     "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
                     "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"});
  }
  {
    auto r = base();
    r.billing_mode.reset();
    r.provisioned_throughput = ProvisionedThroughput{0, 5};
    cases.push_back({"zero capacity", r, Status::Code::kValidation,
                     "1 validation error detected: Value '0' at "
                     "'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: "
                     "Member must have value greater than or equal to 1"});
  }
  {
    auto r = base();
    std::swap(r.key_schema[0].key_type, r.key_schema[1].key_type);
    cases.push_back({"range first", r, Status::Code::kValidation,
                     "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"});
  }
  {
    auto r = base();
    r.key_schema[1].key_type = KeyType::kHash;
    cases.push_back({"two hash", r, Status::Code::kValidation,
                     "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"});
  }
  {
    auto r = base();
    r.key_schema[1].attribute_name = "pk";
    cases.push_back({"same names", r, Status::Code::kValidation,
                     "Invalid KeySchema: Both the Hash Key and the Range Key element in the "
                     "KeySchema have the same name"});
  }
  {
    auto r = base();
    r.attribute_definitions.pop_back();
    cases.push_back({"undefined key", r, Status::Code::kValidation,
                     "One or more parameter values were invalid: Some index key attributes are not "
                     "defined in AttributeDefinitions. Keys: [pk, sk], AttributeDefinitions: [pk]"});
  }
  {
    auto r = base();
    r.attribute_definitions.push_back({"extra", T::kS});
    cases.push_back({"extra definition", r, Status::Code::kValidation,
                     "One or more parameter values were invalid: Number of attributes in KeySchema "
                     "does not exactly match number of attributes defined in AttributeDefinitions"});
  }
  {
    auto r = base();
    r.key_schema.push_back({"third", KeyType::kRange});
    cases.push_back({"three keys", r, Status::Code::kValidation,
                     "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, "
                     "keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), "
                     "KeySchemaElement(attributeName=third, keyType=RANGE)]' at 'keySchema' failed "
                     "to satisfy constraint: Member must have length less than or equal to 2"});
  }
  Create(TableRequest("Exists", "pk", T::kS));
  cases.push_back({"exists", TableRequest("Exists", "pk", T::kS), Status::Code::kResourceInUse,
                   "Table already exists: Exists"});

  for (const auto& c : cases) {
    auto r = db_->CreateTable(c.request);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.status().code(), c.code) << c.name;
    EXPECT_EQ(r.status().message(), c.message) << c.name;
  }
  // Nothing was created by the failures.
  EXPECT_EQ(db_->ListTables({})->table_names, std::vector<std::string>{"Exists"});
}

TEST_F(TableTest, UnknownTables) {
  EXPECT_EQ(db_->DescribeTable({"Nope"}).status(),
            Status::ResourceNotFound("Requested resource not found: Table: Nope not found"));
  EXPECT_EQ(db_->DeleteTable({"Nope"}).status(),
            Status::ResourceNotFound("Requested resource not found: Table: Nope not found"));
  EXPECT_EQ(db_->GetItem({.table_name = "Nope", .key = {{"k", testing::S("x")}}}).status(),
            Status::ResourceNotFound("Requested resource not found"));
  EXPECT_EQ(db_->DescribeTable({"no"}).status().code(), Status::Code::kValidation);
}

}  // namespace
}  // namespace dynarock

namespace dynarock {
namespace {

TEST_F(TableTest, TimeToLiveAndTagsPersistWithTheTable) {
  auto now_ms = std::make_shared<int64_t>(1'800'000'000'000);
  options_.clock_ms = [now_ms] { return *now_ms; };
  Reopen();
  Create(testing::TableRequest("Telemetry", "vehicleId", ScalarAttributeType::kS));
  const std::string arn = db_->DescribeTable({"Telemetry"})->table.table_arn;
  ASSERT_OK(db_->UpdateTimeToLive({"Telemetry", {true, "expiresAt"}}));
  EXPECT_EQ(db_->UpdateTimeToLive({"Telemetry", {true, "expiresAt"}}).status(),
            Status::Validation("TimeToLive is already enabled"));
  ASSERT_OK(db_->TagResource({arn, {{"team", "fleet"}, {"env", "dev"}}}));
  ASSERT_OK(db_->UntagResource({arn, {"env"}}));
  // VALIDATION.md 5.8, and DynamoDB's answer for a well-formed ARN of a
  // table that does not exist: AccessDeniedException, not ResourceNotFound.
  auto denied = [](const std::string& op, const std::string& a) {
    return Status::AccessDenied(
        "User: arn:aws:iam::000000000000:root is not authorized to "
        "perform: dynamodb:" +
        op + " on resource: " + a);
  };
  EXPECT_EQ(db_->TagResource({arn + "x", {{"a", "b"}}}), denied("TagResource", arn + "x"));
  EXPECT_EQ(db_->ListTagsOfResource({arn + "x"}).status(), denied("ListTagsOfResource", arn + "x"));
  // A malformed ARN is a ValidationException (DynamoDB today; dynalite
  // answered AccessDeniedException), and an empty list is given, not missing.
  EXPECT_EQ(
      db_->UntagResource({"not-an-arn", {"a"}}),
      Status::Validation("Invalid TableArn: Invalid ResourceArn provided as input not-an-arn"));
  EXPECT_EQ(db_->TagResource({arn, {}}),
            Status::Validation("Atleast one Tag needs to be provided as Input."));
  EXPECT_EQ(db_->UntagResource({arn, {}}),
            Status::Validation("Atleast one Tag Key needs to be provided as Input."));
  const std::string other_region = "arn:aws:dynamodb:eu-west-9:000000000000:table/Telemetry";
  EXPECT_EQ(db_->TagResource({other_region, {{"a", "b"}}}), denied("TagResource", other_region));
  for (const std::string& bad :
       {arn + "/index/ByDepot", std::string("arn:aws:dynamodb:us-east-1:000000000000:table/ab"),
        std::string("arn:aws:dynamodb:us-east-1:12x:table/Telemetry"),
        std::string("arn:aws:s3:local:000000000000:bucket/Telemetry")}) {
    EXPECT_EQ(db_->TagResource({bad, {{"a", "b"}}}),
              Status::Validation("Invalid TableArn: Invalid ResourceArn provided as input " + bad))
        << bad;
  }
  EXPECT_EQ(db_->ListTagsOfResource({""}).status().code(), Status::Code::kValidation);
  Reopen();
  auto ttl = db_->DescribeTimeToLive({"Telemetry"});
  ASSERT_OK(ttl);
  EXPECT_TRUE(ttl->enabled);
  EXPECT_EQ(ttl->attribute_name, "expiresAt");
  EXPECT_EQ(db_->ListTagsOfResource({arn})->tags, (std::map<std::string, std::string>{{"team", "fleet"}}));
  // STREAMS.md 6: content checks first, then one change per cooldown, which
  // survives a restart.
  EXPECT_EQ(db_->UpdateTimeToLive({"Telemetry", {true, "other"}}).status(),
            Status::Validation("TimeToLive is active on a different AttributeName: current "
                               "AttributeName is expiresAt"));
  EXPECT_EQ(
      db_->UpdateTimeToLive({"Telemetry", {false, "expiresAt"}}).status(),
      Status::Validation("Time to live has been modified multiple times within a fixed interval"));
  *now_ms += options_.ttl_change_cooldown_ms;
  ASSERT_OK(db_->UpdateTimeToLive({"Telemetry", {false, "expiresAt"}}));
  EXPECT_FALSE(db_->DescribeTimeToLive({"Telemetry"})->enabled);
  EXPECT_EQ(db_->UpdateTimeToLive({"Telemetry", {false, "expiresAt"}}).status(),
            Status::Validation("TimeToLive is already disabled"));
}

}  // namespace
// IMPORT-EXPORT-API.md 1: point-in-time recovery is a stored table setting;
// an enable starts the window, a re-enable keeps it, a disable then an
// enable restarts it with the period back at 35 days.
TEST_F(TableTest, TableClassIsStoredDescribedAndChanged) {
  auto now_ms = std::make_shared<int64_t>(1'800'000'000'000);
  options_.clock_ms = [now_ms] { return *now_ms; };
  Reopen();
  Create(testing::TableRequest("Telemetry", "vehicleId", ScalarAttributeType::kS));
  // Never given: no summary, as DynamoDB describes such a table.
  EXPECT_FALSE(db_->DescribeTable({"Telemetry"})->table.table_class_summary);
  auto ia = testing::TableRequest("Archive", "vehicleId", ScalarAttributeType::kS);
  ia.table_class = TableClass::kStandardInfrequentAccess;
  Create(ia);
  *now_ms += 60'000;
  UpdateTableRequest update{.table_name = "Telemetry"};
  update.table_class = TableClass::kStandardInfrequentAccess;
  ASSERT_OK(db_->UpdateTable(update));
  Reopen();
  auto archive = db_->DescribeTable({"Archive"})->table.table_class_summary;
  ASSERT_TRUE(archive);
  EXPECT_EQ(archive->table_class, TableClass::kStandardInfrequentAccess);
  EXPECT_EQ(archive->last_update_date_time, 1'800'000'000.0);
  auto telemetry = db_->DescribeTable({"Telemetry"})->table.table_class_summary;
  ASSERT_TRUE(telemetry);
  EXPECT_EQ(telemetry->table_class, TableClass::kStandardInfrequentAccess);
  EXPECT_EQ(telemetry->last_update_date_time, 1'800'000'060.0);
}

TEST_F(TableTest, ContinuousBackupsAreStoredWithTheTable) {
  Create(TableRequest("Telemetry", "vehicleId", T::kS));
  auto d = db_->DescribeContinuousBackups({"Telemetry"});
  ASSERT_OK(d);
  EXPECT_FALSE(d->point_in_time_recovery_enabled);
  auto on = db_->UpdateContinuousBackups({"Telemetry", true, 7});
  ASSERT_OK(on);
  EXPECT_TRUE(on->point_in_time_recovery_enabled);
  EXPECT_EQ(on->recovery_period_in_days, 7);
  EXPECT_GT(on->earliest_restorable_ms, 0);
  EXPECT_EQ(on->earliest_restorable_ms, on->latest_restorable_ms);
  Reopen();
  d = db_->DescribeContinuousBackups({"Telemetry"});
  ASSERT_OK(d);
  EXPECT_TRUE(d->point_in_time_recovery_enabled);
  EXPECT_EQ(d->recovery_period_in_days, 7);
  EXPECT_GE(d->earliest_restorable_ms, on->earliest_restorable_ms);
  EXPECT_GE(d->latest_restorable_ms, d->earliest_restorable_ms);

  EXPECT_EQ(db_->UpdateContinuousBackups({"Telemetry", false, 3}).status(),
            Status::Validation("Invalid Request: Cannot specify RecoveryPeriodInDays when "
                               "disabling point-in-time recovery."));
  EXPECT_EQ(db_->UpdateContinuousBackups({"Telemetry", true, 0}).status().code(),
            Status::Code::kValidation);
  ASSERT_OK(db_->UpdateContinuousBackups({"Telemetry", false, std::nullopt}));
  auto again = db_->UpdateContinuousBackups({"Telemetry", true, std::nullopt});
  ASSERT_OK(again);
  EXPECT_EQ(again->recovery_period_in_days, 35);
  EXPECT_EQ(db_->DescribeContinuousBackups({"Nope"}).status(),
            Status::TableNotFound("Table not found: Nope"));
  EXPECT_EQ(db_->UpdateContinuousBackups({"Nope", true, std::nullopt}).status().code(),
            Status::Code::kTableNotFound);
}

// Service records: durable, listed by prefix in name order, kept across
// DeleteTable and reopen.
TEST_F(TableTest, ServiceRecordsPersist) {
  Create(TableRequest("Telemetry", "vehicleId", T::kS));
  ASSERT_OK(db_->PutServiceRecord("export/2", "second"));
  ASSERT_OK(db_->PutServiceRecord("export/1", "first"));
  ASSERT_OK(db_->PutServiceRecord("import/1", "other"));
  ASSERT_OK(db_->PutServiceRecord("export/1", "first, rewritten"));
  ASSERT_OK(db_->DeleteTable({"Telemetry"}));
  Reopen();
  auto records = db_->ServiceRecords("export/");
  ASSERT_OK(records);
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(*records, (std::vector<P>{{"export/1", "first, rewritten"}, {"export/2", "second"}}));
  EXPECT_EQ(db_->ServiceRecords("")->size(), 3u);
  EXPECT_TRUE(db_->ServiceRecords("zzz")->empty());
}

// ImportTable's synchronous check: CreateTable's errors, nothing created.
TEST_F(TableTest, CheckCreateTableCreatesNothing) {
  Create(TableRequest("Telemetry", "vehicleId", T::kS));
  EXPECT_EQ(db_->CheckCreateTable(TableRequest("Telemetry", "vehicleId", T::kS)),
            Status::ResourceInUse("Table already exists: Telemetry"));
  EXPECT_OK(db_->CheckCreateTable(TableRequest("Other", "id", T::kN)));
  EXPECT_EQ(db_->DescribeTable({"Other"}).status().code(), Status::Code::kResourceNotFound);
  CreateTableRequest bad = TableRequest("Bad", "id", T::kN);
  bad.attribute_definitions.clear();
  EXPECT_EQ(db_->CheckCreateTable(bad).code(), Status::Code::kValidation);
}

}  // namespace dynarock
