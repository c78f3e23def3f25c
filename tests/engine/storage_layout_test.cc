// The storage layout of format/STORAGE_LAYOUT.md, pinned: the format record
// (and the iterator secret written with it) and what Open does with foreign,
// older and newer directories; golden bytes for catalog keys, descriptors,
// statistics keys and counters.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <filesystem>
#include <map>
#include <set>

#include "dynarock/db.h"
#include "engine/catalog.h"
#include "engine/counters.h"
#include "engine/tokens.h"
#include "format/attribute_names.h"
#include "format/item_codec.h"
#include "format/item_size.h"
#include "tests/util/db_fixture.h"
#include "tests/util/hex.h"
#include "tests/util/item_v1.h"
#include "tests/util/raw_db.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::MakeTempDir;
using testing::S;

using testing::Hex;
using testing::Unhex;

const std::vector<std::string> kColumnFamilies = {"default", "catalog", "items",  "stats",
                                                  "indexes", "streams", "tokens", "vectors"};

class StorageLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Opens the directory with RocksDB alone, with the given column families.
  std::unique_ptr<rocksdb::DB> RawOpen(const std::vector<std::string>& names,
                                       std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
    rocksdb::DBOptions options;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const auto& n : names) cfs.push_back({n, rocksdb::ColumnFamilyOptions()});
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, dir_, cfs, handles, &raw);
    EXPECT_OK(s);
    return std::unique_ptr<rocksdb::DB>(raw);
  }
  static void RawClose(std::unique_ptr<rocksdb::DB> db,
                       std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
    for (auto* h : *handles) EXPECT_OK(db->DestroyColumnFamilyHandle(h));
    handles->clear();
    EXPECT_OK(db->Close());
  }
  std::vector<std::string> ColumnFamilies() {
    std::vector<std::string> names;
    EXPECT_OK(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir_, &names));
    return names;
  }

  std::string dir_;
};

TEST_F(StorageLayoutTest, NewDatabaseGetsTheFormatRecord) {
  { ASSERT_OK(Database::Open(dir_, {})); }
  EXPECT_EQ(ColumnFamilies(), kColumnFamilies);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  auto raw = RawOpen(kColumnFamilies, &handles);
  std::string record;
  ASSERT_OK(raw->Get(rocksdb::ReadOptions(), handles[1], "format", &record));
  // "DYNAROCK" | version 19 (big-endian)
  EXPECT_EQ(Hex(record), "44 59 4E 41 52 4F 43 4B 00 00 00 13");
  // With the secret that signs shard iterators: 32 bytes, not all zero.
  std::string secret;
  ASSERT_OK(raw->Get(rocksdb::ReadOptions(), handles[1], "stream_iterator_secret", &secret));
  EXPECT_EQ(secret.size(), 32u);
  EXPECT_NE(secret, std::string(32, '\0'));
  RawClose(std::move(raw), &handles);
  // And it opens again.
  EXPECT_OK(Database::Open(dir_, {}));
}

TEST_F(StorageLayoutTest, ForeignRocksDbIsRefusedAndLeftUntouched) {
  for (const std::vector<std::string>& foreign :
       {std::vector<std::string>{"default"}, std::vector<std::string>{"default", "items"},
        std::vector<std::string>{"default", "catalog", "users"}}) {
    std::filesystem::remove_all(dir_);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    auto raw = RawOpen(foreign, &handles);
    ASSERT_OK(raw->Put(rocksdb::WriteOptions(), handles[0], "theirs", "data"));
    RawClose(std::move(raw), &handles);

    auto db = Database::Open(dir_, {});
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), Status::Code::kInvalidArgument) << db.status();
    EXPECT_NE(db.status().message().find("is not a Dynarock database"), std::string::npos)
        << db.status();
    EXPECT_EQ(ColumnFamilies(), foreign);  // no column family added
    raw = RawOpen(foreign, &handles);
    std::string value;
    EXPECT_OK(raw->Get(rocksdb::ReadOptions(), handles[0], "theirs", &value));
    EXPECT_EQ(value, "data");
    RawClose(std::move(raw), &handles);
  }
}

// Regression (a 20-cycle crash soak killed the writer during the first Open):
// RocksDB creates `default` before Dynarock's column families, so a crash
// there left a directory that every later Open refused as foreign. An
// empty `default` alone is a creation cut short: Open completes it.
TEST_F(StorageLayoutTest, ACreationCutShortBeforeTheColumnFamiliesIsCompleted) {
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  auto raw = RawOpen({"default"}, &handles);
  RawClose(std::move(raw), &handles);
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    CreateTableRequest r{.table_name = "Fresh"};
    r.attribute_definitions = {{"k", ScalarAttributeType::kS}};
    r.key_schema = {{"k", KeyType::kHash}};
    r.billing_mode = BillingMode::kPayPerRequest;
    ASSERT_OK((*db)->CreateTable(r));
  }
  EXPECT_EQ(ColumnFamilies(), kColumnFamilies);
  auto db = Database::Open(dir_, {});
  ASSERT_OK(db);
  EXPECT_OK((*db)->DescribeTable({"Fresh"}));
}

TEST_F(StorageLayoutTest, NewerFormatVersionIsRefusedAndLeftUntouched) {
  { ASSERT_OK(Database::Open(dir_, {})); }
  const std::string future = EncodeFormatRecord(kStorageFormatVersion + 1);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  auto raw = RawOpen(kColumnFamilies, &handles);
  ASSERT_OK(raw->Put(rocksdb::WriteOptions(), handles[1], "format", future));
  RawClose(std::move(raw), &handles);

  auto db = Database::Open(dir_, {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status(), Status::NotSupported(dir_ + " was written in storage format version 20; "
                                                     "this build reads versions up to 19. It was "
                                                     "left untouched"));
  raw = RawOpen(kColumnFamilies, &handles);
  std::string record;
  ASSERT_OK(raw->Get(rocksdb::ReadOptions(), handles[1], "format", &record));
  EXPECT_EQ(record, future);
  RawClose(std::move(raw), &handles);
}

// Version 1 had no streams column family and version 4 no tokens one: Open
// adds them, and the record says the current version (2 -> 3 and 3 -> 4 add
// only catalog key kinds and optional descriptor fields).
TEST_F(StorageLayoutTest, VersionOneIsUpgradedStepByStep) {
  const std::vector<std::string> v1 = {"default", "catalog", "items", "stats", "indexes"};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  auto raw = RawOpen(v1, &handles);
  ASSERT_OK(raw->Put(rocksdb::WriteOptions(), handles[1], "format", EncodeFormatRecord(1)));
  RawClose(std::move(raw), &handles);
  { ASSERT_OK(Database::Open(dir_, {})); }
  EXPECT_EQ(ColumnFamilies(), kColumnFamilies);
  raw = RawOpen(kColumnFamilies, &handles);
  std::string record;
  ASSERT_OK(raw->Get(rocksdb::ReadOptions(), handles[1], "format", &record));
  EXPECT_EQ(record, EncodeFormatRecord(kStorageFormatVersion));
  RawClose(std::move(raw), &handles);
}

TEST_F(StorageLayoutTest, CatalogWithoutFormatRecordIsCorruption) {
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  auto raw = RawOpen(kColumnFamilies, &handles);
  ASSERT_TRUE(
      raw->Put(rocksdb::WriteOptions(), handles[1], "next_space_id", std::string("\0\0\0\x05", 4))
          .ok());
  RawClose(std::move(raw), &handles);
  auto db = Database::Open(dir_, {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Status::Code::kCorruption) << db.status();

  // A record with another magic is not ours either.
  raw = RawOpen(kColumnFamilies, &handles);
  ASSERT_OK(raw->Put(rocksdb::WriteOptions(), handles[1], "format", "LEVELDB!\0\0\0\1"));
  RawClose(std::move(raw), &handles);
  db = Database::Open(dir_, {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Status::Code::kCorruption) << db.status();
}

TEST(StorageLayoutGoldenTest, CatalogKeys) {
  EXPECT_EQ(CatalogTableKey("Telemetry"), "table/Telemetry");
  EXPECT_EQ(kCatalogNextSpaceIdKey, "next_space_id");
  EXPECT_EQ(kCatalogFormatKey, "format");
  EXPECT_EQ(kCatalogIteratorSecretKey, "stream_iterator_secret");
  EXPECT_EQ(TtlCursorKey(0x2a), "ttl_cursor/0000002a");
  EXPECT_EQ(BackfillCursorKey(0x2a), "backfill_cursor/0000002a");
}

TEST(StorageLayoutGoldenTest, StatisticsKeysAndCounters) {
  EXPECT_EQ(Hex(TableStatsKey(7)), "00 00 00 07 54");  // space id | 'T'
  // space id | 'C' | XXH64(enc(pk)) | enc(pk): the collection's items prefix
  // with the tag after the space id.
  EXPECT_EQ(Hex(CollectionStatsKey(7, S("VEH#1"))),
            "00 00 00 07 43 E1 E2 F1 22 42 98 F0 88 56 45 48 23 31 00 01");
  EXPECT_EQ(Hex(CollectionStatsPrefix(7)), "00 00 00 07 43");
  // Two little-endian int64s: items, bytes.
  EXPECT_EQ(Hex(EncodeCounter({3, 300})), "03 00 00 00 00 00 00 00 2C 01 00 00 00 00 00 00");
  EXPECT_EQ(Hex(EncodeCounter({-1, -2})), "FF FF FF FF FF FF FF FF FE FF FF FF FF FF FF FF");
  Counter c;
  ASSERT_TRUE(DecodeCounter(Unhex("05 00 00 00 00 00 00 00 00 04 00 00 00 00 00 00"), &c));
  EXPECT_EQ(c.items, 5);
  EXPECT_EQ(c.bytes, 1024);
  EXPECT_FALSE(DecodeCounter(Unhex("05 00 00"), &c));
  // The merge operator's name is stored in every SST of the stats family.
  EXPECT_STREQ(CounterMergeOperator().Name(), "dynarock.CounterAdd.v1");
}

TableInfo GoldenTable() {
  TableInfo t;
  t.name = "Telemetry";
  t.space_id = 7;
  t.uuid = "5b0f3a9e-0c1d-4e2f-8a3b-4c5d6e7f8091";
  t.partition_key = {"vehicleId", ScalarAttributeType::kS};
  t.sort_key = KeyAttribute{"recordedAt", ScalarAttributeType::kS};
  t.attribute_definitions = {{"depotCode", ScalarAttributeType::kS},
                             {"recordedAt", ScalarAttributeType::kS},
                             {"vehicleId", ScalarAttributeType::kS}};
  t.billing_mode = BillingMode::kPayPerRequest;
  t.creation_time_ms = 1764547200000;
  IndexInfo gsi;
  gsi.name = "ByDepot";
  gsi.space_id = 8;
  gsi.global = true;
  gsi.partition_key = {"depotCode", ScalarAttributeType::kS};
  gsi.sort_key = KeyAttribute{"recordedAt", ScalarAttributeType::kS};
  gsi.projection = ProjectionType::kInclude;
  gsi.non_key_attributes = {"speedKph"};
  t.indexes.push_back(gsi);
  t.ttl_attribute = "expiresAt";
  t.ttl_enabled = true;
  t.tags = {{"team", "fleet"}};
  return t;
}

// The descriptor's bytes (schemas/catalog.fbs, FlatBuffers): what this
// build writes, and what any later build must still read.
// Offset 4 holds the file identifier "DRKC" (44 52 4B 43).
constexpr std::string_view kGoldenDescriptor =
    "2C 00 00 00 44 52 4B 43 00 00 22 00 3C 00 3B 00 34 00 30 00 2C 00 28 00 "
    "24 00 20 00 1F 00 00 00 00 00 14 00 10 00 0C 00 0B 00 04 00 22 00 00 00 "
    "94 00 00 00 00 00 00 01 C0 00 00 00 CC 00 00 00 00 84 35 D7 9A 01 00 00 "
    "00 00 00 01 3C 01 00 00 18 00 00 00 24 00 00 00 30 00 00 00 07 00 00 00 "
    "54 00 00 00 00 00 00 01 0A 00 00 00 72 65 63 6F 72 64 65 64 41 74 00 00 "
    "09 00 00 00 76 65 68 69 63 6C 65 49 64 00 00 00 24 00 00 00 35 62 30 66 "
    "33 61 39 65 2D 30 63 31 64 2D 34 65 32 66 2D 38 61 33 62 2D 34 63 35 64 "
    "36 65 37 66 38 30 39 31 00 00 00 00 09 00 00 00 54 65 6C 65 6D 65 74 72 "
    "79 00 00 00 01 00 00 00 0C 00 00 00 08 00 0C 00 04 00 08 00 08 00 00 00 "
    "14 00 00 00 04 00 00 00 05 00 00 00 66 6C 65 65 74 00 00 00 04 00 00 00 "
    "74 65 61 6D 00 00 00 00 09 00 00 00 65 78 70 69 72 65 73 41 74 00 00 00 "
    "01 00 00 00 18 00 00 00 00 00 12 00 20 00 1C 00 18 00 17 00 10 00 0C 00 "
    "0B 00 04 00 12 00 00 00 48 00 00 00 00 00 00 01 14 00 00 00 20 00 00 00 "
    "00 00 00 01 08 00 00 00 24 00 00 00 0A 00 00 00 72 65 63 6F 72 64 65 64 "
    "41 74 00 00 09 00 00 00 64 65 70 6F 74 43 6F 64 65 00 00 00 07 00 00 00 "
    "42 79 44 65 70 6F 74 00 01 00 00 00 04 00 00 00 08 00 00 00 73 70 65 65 "
    "64 4B 70 68 00 00 00 00 03 00 00 00 44 00 00 00 20 00 00 00 04 00 00 00 "
    "CE FF FF FF 04 00 00 00 09 00 00 00 76 65 68 69 63 6C 65 49 64 00 00 00 "
    "E6 FF FF FF 04 00 00 00 0A 00 00 00 72 65 63 6F 72 64 65 64 41 74 00 00 "
    "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 09 00 00 00 64 65 70 6F "
    "74 43 6F 64 65 00 00 00";

TEST(StorageLayoutGoldenTest, TableDescriptor) {
  EXPECT_EQ(Hex(EncodeTableDescriptor(GoldenTable())), kGoldenDescriptor);
  auto decoded = DecodeTableDescriptor(Unhex(kGoldenDescriptor));
  ASSERT_OK(decoded);
  const TableInfo want = GoldenTable();
  EXPECT_EQ(decoded->name, want.name);
  EXPECT_EQ(decoded->space_id, 7u);
  EXPECT_EQ(decoded->uuid, want.uuid);
  EXPECT_EQ(decoded->partition_key.name, "vehicleId");
  ASSERT_TRUE(decoded->sort_key.has_value());
  EXPECT_EQ(decoded->sort_key->name, "recordedAt");
  ASSERT_EQ(decoded->attribute_definitions.size(), 3u);
  EXPECT_EQ(decoded->attribute_definitions[0].attribute_name, "depotCode");
  EXPECT_EQ(decoded->billing_mode, BillingMode::kPayPerRequest);
  EXPECT_EQ(decoded->creation_time_ms, 1764547200000);
  ASSERT_EQ(decoded->indexes.size(), 1u);
  EXPECT_EQ(decoded->indexes[0].name, "ByDepot");
  EXPECT_EQ(decoded->indexes[0].space_id, 8u);
  EXPECT_TRUE(decoded->indexes[0].global);
  EXPECT_EQ(decoded->indexes[0].projection, ProjectionType::kInclude);
  EXPECT_EQ(decoded->indexes[0].non_key_attributes, std::vector<std::string>{"speedKph"});
  EXPECT_EQ(decoded->ttl_attribute, "expiresAt");
  EXPECT_TRUE(decoded->ttl_enabled);
  EXPECT_EQ(decoded->tags, want.tags);
}

}  // namespace
// 3 -> 4 adds service records and optional descriptor fields: only the
// record changes, and a version 3 descriptor reads with PITR off.
TEST_F(StorageLayoutTest, VersionThreeIsUpgradedAndServiceRecordsHaveTheirKeys) {
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->PutServiceRecord("export/01-ab", "{}"));
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  auto raw = RawOpen(kColumnFamilies, &handles);
  std::string value;
  ASSERT_OK(raw->Get(rocksdb::ReadOptions(), handles[1], "service/export/01-ab", &value));
  EXPECT_EQ(value, "{}");
  ASSERT_OK(raw->Put(rocksdb::WriteOptions(), handles[1], "format", EncodeFormatRecord(3)));
  RawClose(std::move(raw), &handles);
  { ASSERT_OK(Database::Open(dir_, {})); }
  raw = RawOpen(kColumnFamilies, &handles);
  ASSERT_OK(raw->Get(rocksdb::ReadOptions(), handles[1], "format", &value));
  EXPECT_EQ(value, EncodeFormatRecord(kStorageFormatVersion));
  RawClose(std::move(raw), &handles);
}

// Version 4 kept ClientRequestTokens in memory: its directory has no tokens
// column family. Open creates it (empty) and records the current version.
TEST_F(StorageLayoutTest, VersionFourGainsTheTokensColumnFamily) {
  const std::vector<std::string> v4(kColumnFamilies.begin(), kColumnFamilies.end() - 1);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  auto raw = RawOpen(v4, &handles);
  ASSERT_OK(raw->Put(rocksdb::WriteOptions(), handles[1], "format", EncodeFormatRecord(4)));
  RawClose(std::move(raw), &handles);
  { ASSERT_OK(Database::Open(dir_, {})); }
  EXPECT_EQ(ColumnFamilies(), kColumnFamilies);
  raw = RawOpen(kColumnFamilies, &handles);
  std::string value;
  ASSERT_OK(raw->Get(rocksdb::ReadOptions(), handles[1], "format", &value));
  EXPECT_EQ(value, EncodeFormatRecord(kStorageFormatVersion));
  RawClose(std::move(raw), &handles);
}

// 5 -> 6 adds the optional deletion_protection descriptor field: only the
// record changes, and a version 5 table reads unprotected (DeleteTable
// takes it), as DynamoDB's DeletionProtectionEnabled defaults.
TEST_F(StorageLayoutTest, VersionFiveIsUpgradedAndItsTablesAreUnprotected) {
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    CreateTableRequest r{.table_name = "Old"};
    r.attribute_definitions = {{"k", ScalarAttributeType::kS}};
    r.key_schema = {{"k", KeyType::kHash}};
    r.billing_mode = BillingMode::kPayPerRequest;
    ASSERT_OK((*db)->CreateTable(r));
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  auto raw = RawOpen(kColumnFamilies, &handles);
  ASSERT_OK(raw->Put(rocksdb::WriteOptions(), handles[1], "format", EncodeFormatRecord(5)));
  RawClose(std::move(raw), &handles);
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    auto described = (*db)->DescribeTable({"Old"});
    ASSERT_OK(described);
    EXPECT_FALSE(described->table.deletion_protection_enabled);
    EXPECT_OK((*db)->DeleteTable({"Old"}));
  }
  raw = RawOpen(kColumnFamilies, &handles);
  std::string value;
  ASSERT_OK(raw->Get(rocksdb::ReadOptions(), handles[1], "format", &value));
  EXPECT_EQ(value, EncodeFormatRecord(kStorageFormatVersion));
  RawClose(std::move(raw), &handles);
}

// 6 -> 7: only a table with an LSI keeps collection counters. A version 6
// database's counters of other tables are deleted by the upgrade (those of
// an LSI table stay), and both tables' largest collections stay exact.
TEST_F(StorageLayoutTest, VersionSixLosesTheCollectionCountersOfTablesWithoutAnLsi) {
  using T = ScalarAttributeType;
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->CreateTable(testing::TableRequest("Plain", "pk", T::kS, "sk", T::kS)));
    CreateTableRequest lsi = testing::TableRequest("Limited", "pk", T::kS, "sk", T::kS);
    lsi.attribute_definitions.push_back({"n", T::kN});
    lsi.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
        {"ByN", {{"pk", KeyType::kHash}, {"n", KeyType::kRange}}, {}}};
    ASSERT_OK((*db)->CreateTable(lsi));
    for (const char* table : {"Plain", "Limited"}) {
      for (int i = 0; i < 3; ++i) {
        ASSERT_OK((*db)->PutItem({.table_name = table,
                                  .item = {{"pk", S("V1")},
                                           {"sk", S("S" + std::to_string(i))},
                                           {"n", testing::N(std::to_string(i))}}}));
      }
    }
  }
  // Space ids: Plain 1, Limited 2 (its LSI 3). Version 6 kept Plain's
  // counters too: one for its collection, and a zero one left behind.
  {
    testing::RawDb raw(dir_);
    std::string value;
    EXPECT_TRUE(
        raw.db()->Get({}, raw.cf("stats"), CollectionStatsKey(1, S("V1")), &value).IsNotFound());
    ASSERT_OK(raw.db()->Get({}, raw.cf("stats"), CollectionStatsKey(2, S("V1")), &value));
    ASSERT_OK(raw.db()->Put({}, raw.cf("stats"), CollectionStatsKey(1, S("V1")),
                            EncodeCounter({3, 999})));
    ASSERT_OK(
        raw.db()->Put({}, raw.cf("stats"), CollectionStatsKey(1, S("V0")), EncodeCounter({0, 0})));
    ASSERT_OK(raw.db()->Put({}, raw.cf("catalog"), "format", EncodeFormatRecord(6)));
  }
  int64_t limited_bytes = 0;
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    auto plain = (*db)->LargestCollections("Plain", 5);
    ASSERT_OK(plain);
    ASSERT_EQ(plain->size(), 1u);
    EXPECT_EQ((*plain)[0].item_count, 3);
    EXPECT_NE((*plain)[0].size_bytes, 999);  // read from the items, not the old counter
    auto limited = (*db)->LargestCollections("Limited", 5);
    ASSERT_OK(limited);
    ASSERT_EQ(limited->size(), 1u);
    EXPECT_EQ((*limited)[0].item_count, 3);
    limited_bytes = (*limited)[0].size_bytes;
    // An LSI table's collection counts its LSI entries (plus 100 bytes each).
    EXPECT_GT(limited_bytes, (*plain)[0].size_bytes + 300);
    // The tables' totals ('T') are outside the deleted ranges.
    EXPECT_EQ((*db)->DescribeTable({"Plain"})->table.item_count, 3);
    EXPECT_EQ((*db)->DescribeTable({"Limited"})->table.item_count, 3);
    auto report = (*db)->RecountStatistics();
    ASSERT_OK(report);
    EXPECT_EQ(report->collections_checked, 1);  // Limited's only
    EXPECT_EQ(report->table_totals_corrected, 0);
    EXPECT_EQ(report->collections_corrected, 0);
  }
  testing::RawDb raw(dir_);
  std::string value;
  ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "format", &value));
  EXPECT_EQ(value, EncodeFormatRecord(kStorageFormatVersion));
  EXPECT_TRUE(
      raw.db()->Get({}, raw.cf("stats"), CollectionStatsKey(1, S("V1")), &value).IsNotFound());
  EXPECT_TRUE(
      raw.db()->Get({}, raw.cf("stats"), CollectionStatsKey(1, S("V0")), &value).IsNotFound());
  ASSERT_OK(raw.db()->Get({}, raw.cf("stats"), CollectionStatsKey(2, S("V1")), &value));
  Counter c;
  ASSERT_TRUE(DecodeCounter(value, &c));
  EXPECT_EQ(c.items, 3);
  EXPECT_EQ(c.bytes, limited_bytes);
}

// Version 7 stored no item sizes. The upgrade rewrites nothing: an item
// without one is sized from its attributes wherever a size is counted, and
// a write stores it again.
TEST_F(StorageLayoutTest, VersionSevenItemsWithoutAStoredSizeKeepTheirSizes) {
  using T = ScalarAttributeType;
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->CreateTable(testing::TableRequest("Plain", "pk", T::kS, "sk", T::kS)));
    ASSERT_OK((*db)->PutItem(
        {.table_name = "Plain", .item = {{"pk", S("V1")}, {"sk", S("A")}, {"v", S("xyz")}}}));
  }
  std::string key;
  {
    testing::RawDb raw(dir_);
    std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator({}, raw.cf("items")));
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    key = it->key().ToString();
    const std::string stored = it->value().ToString();  // aligned, as views require
    ASSERT_NE(*format::StoredItemSize(stored), 0u);
    ASSERT_OK(raw.db()->Put(
        {}, raw.cf("items"), key,
        testing::EncodeStringItemWithoutSize({{"pk", "V1"}, {"sk", "A"}, {"v", "xyz"}})));
    ASSERT_OK(raw.db()->Put({}, raw.cf("catalog"), "format", EncodeFormatRecord(7)));
  }
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ScanRequest scan{.table_name = "Plain"};
    auto page = (*db)->Scan(scan);
    ASSERT_OK(page);
    ASSERT_EQ(page->items.size(), 1u);
    EXPECT_EQ(page->items[0].at("v").s(), "xyz");
    auto report = (*db)->RecountStatistics();
    ASSERT_OK(report);
    EXPECT_EQ(report->table_totals_corrected, 0);  // the old item's size is the counted one
    // A write stores the size again.
    ASSERT_OK((*db)->PutItem(
        {.table_name = "Plain", .item = {{"pk", S("V1")}, {"sk", S("A")}, {"v", S("xy")}}}));
  }
  testing::RawDb raw(dir_);
  std::string value;
  ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "format", &value));
  EXPECT_EQ(value, EncodeFormatRecord(kStorageFormatVersion));
  std::string item;
  ASSERT_OK(raw.db()->Get({}, raw.cf("items"), key, &item));
  const Item rewritten{{"pk", S("V1")}, {"sk", S("A")}, {"v", S("xy")}};
  EXPECT_EQ(*format::StoredItemSize(item), format::ItemSize(rewritten));
}

// Version 8 signed no shard iterators (they carried an unkeyed checksum).
// The upgrade creates the database's secret with the record; a read-only
// Open before it is refused, and a version 9 catalog without a secret is
// corrupt.
TEST_F(StorageLayoutTest, VersionEightGainsTheIteratorSecret) {
  std::string first;
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
  }
  {
    testing::RawDb raw(dir_);
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "stream_iterator_secret", &first));
    ASSERT_EQ(first.size(), 32u);
    ASSERT_OK(raw.db()->Delete({}, raw.cf("catalog"), "stream_iterator_secret"));
    ASSERT_OK(raw.db()->Put({}, raw.cf("catalog"), "format", EncodeFormatRecord(8)));
  }
  Options read_only;
  read_only.read_only = true;
  auto refused = Database::Open(dir_, read_only);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kNotSupported) << refused.status();
  { ASSERT_OK(Database::Open(dir_, {})); }
  std::string secret;
  {
    testing::RawDb raw(dir_);
    std::string value;
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "format", &value));
    EXPECT_EQ(value, EncodeFormatRecord(kStorageFormatVersion));
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "stream_iterator_secret", &secret));
    EXPECT_EQ(secret.size(), 32u);
    EXPECT_NE(secret, first);  // a new random secret, not a fixed one
  }
  // Kept as it is by later Opens, read-only ones included.
  { ASSERT_OK(Database::Open(dir_, {})); }
  { ASSERT_OK(Database::Open(dir_, read_only)); }
  {
    testing::RawDb raw(dir_);
    std::string again;
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "stream_iterator_secret", &again));
    EXPECT_EQ(again, secret);
    ASSERT_OK(raw.db()->Put({}, raw.cf("catalog"), "stream_iterator_secret", "short"));
  }
  auto short_secret = Database::Open(dir_, {});
  ASSERT_FALSE(short_secret.ok());
  EXPECT_EQ(short_secret.status().code(), Status::Code::kCorruption) << short_secret.status();
  {
    testing::RawDb raw(dir_);
    ASSERT_OK(raw.db()->Delete({}, raw.cf("catalog"), "stream_iterator_secret"));
  }
  auto missing = Database::Open(dir_, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kCorruption) << missing.status();
}

// Interned attribute names live in the catalog under names/<8 hex space
// id>/<8 hex id>, written (synced) before the first item that uses them;
// the table's items then hold the ids, not the names; every Open reads them
// back; DeleteTable drops them with the table.
TEST_F(StorageLayoutTest, InternedNamesLiveInTheCatalog) {
  using T = ScalarAttributeType;
  auto names_in_catalog = [this] {
    testing::RawDb raw(dir_);
    std::map<std::string, std::string> names;
    std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator({}, raw.cf("catalog")));
    for (it->Seek("names/"); it->Valid() && it->key().starts_with("names/"); it->Next()) {
      names[it->key().ToString()] = it->value().ToString();
    }
    return names;
  };
  const Item reading{{"pk", S("V1")}, {"sk", S("A")}, {"speedKph", S("87")}, {"depotCode", S("D")}};
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->CreateTable(testing::TableRequest("Plain", "pk", T::kS, "sk", T::kS)));
    ASSERT_OK((*db)->PutItem({.table_name = "Plain", .item = reading}));
  }
  // Ids in the order the writes met the names (an item's attributes by name).
  const std::map<std::string, std::string> want = {{"names/00000001/00000000", "depotCode"},
                                                   {"names/00000001/00000001", "speedKph"}};
  EXPECT_EQ(names_in_catalog(), want);
  {
    testing::RawDb raw(dir_);
    std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator({}, raw.cf("items")));
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    const std::string value = it->value().ToString();
    EXPECT_EQ(value.find("speedKph"), std::string::npos);
    EXPECT_EQ(value.find("depotCode"), std::string::npos);
    EXPECT_NE(value.find("87"), std::string::npos);
  }
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    auto got = (*db)->GetItem({.table_name = "Plain", .key = {{"pk", S("V1")}, {"sk", S("A")}}});
    ASSERT_OK(got);
    ASSERT_TRUE(got->item.has_value());
    EXPECT_EQ(*got->item, reading);
    Item more = reading;
    more["sk"] = S("B");
    more["fuelPct"] = S("61");
    ASSERT_OK((*db)->PutItem({.table_name = "Plain", .item = more}));
    auto page = (*db)->Scan({.table_name = "Plain"});
    ASSERT_OK(page);
    ASSERT_EQ(page->items.size(), 2u);
    EXPECT_EQ(page->items[1], more);
  }
  auto after = names_in_catalog();
  EXPECT_EQ(after.size(), 3u);
  EXPECT_EQ(after["names/00000001/00000002"], "fuelPct");
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->DeleteTable({.table_name = "Plain"}));
  }
  EXPECT_TRUE(names_in_catalog().empty());
}

// Index entries (storage format 13) leave out every attribute their key
// holds (the index's key, then the table's) and name the others through
// the table's dictionary: an ALL entry holds the item's other attributes,
// an INCLUDE entry its included ones, a KEYS_ONLY entry nothing but the
// size; each reads back as the projected item from its key.
TEST_F(StorageLayoutTest, IndexEntriesLeaveOutTheirKey) {
  using T = ScalarAttributeType;
  CreateTableRequest r = testing::TableRequest("Fleet", "PK", T::kS, "SK", T::kS);
  r.attribute_definitions.push_back({"depotCode", T::kS});
  r.attribute_definitions.push_back({"speedKph", T::kN});
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByDepot", {{"depotCode", KeyType::kHash}, {"SK", KeyType::kRange}},
       {ProjectionType::kAll, {}}, std::nullopt},
      {"DepotNotes", {{"depotCode", KeyType::kHash}},
       {ProjectionType::kInclude, {"note"}}, std::nullopt}};
  r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"BySpeed", {{"PK", KeyType::kHash}, {"speedKph", KeyType::kRange}},
       {ProjectionType::kKeysOnly, {}}}};
  const Item reading{{"PK", S("VEH#1")},          {"SK", S("TS#1")},
                     {"depotCode", S("DEP-A")},   {"speedKph", testing::N("87.5")},
                     {"note", S("coolant low")}, {"fuelPct", testing::N("61")}};
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->CreateTable(r));
    ASSERT_OK((*db)->PutItem({.table_name = "Fleet", .item = reading}));
  }
  testing::RawDb raw(dir_);
  std::string descriptor;
  ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "table/Fleet", &descriptor));
  auto table = DecodeTableDescriptor(descriptor);
  ASSERT_OK(table);
  format::NameDictionary names(
      [](uint32_t, std::string_view) { return Status::NotSupported("read only"); });
  const std::string prefix = InternedNamesPrefix(table->space_id);
  std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator({}, raw.cf("catalog")));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    ASSERT_OK(names.Load(static_cast<uint32_t>(
                             std::stoul(it->key().ToString().substr(prefix.size()), nullptr, 16)),
                         it->value().ToString()));
  }
  const std::map<std::string, Item> want = {
      {"ByDepot", reading},
      {"DepotNotes",
       {{"PK", S("VEH#1")}, {"SK", S("TS#1")}, {"depotCode", S("DEP-A")}, {"note", S("coolant low")}}},
      {"BySpeed", {{"PK", S("VEH#1")}, {"SK", S("TS#1")}, {"speedKph", testing::N("87.5")}}}};
  std::set<std::string> seen;
  it.reset(raw.db()->NewIterator({}, raw.cf("indexes")));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string key = it->key().ToString(), value = it->value().ToString();
    const IndexInfo* index = nullptr;
    for (const IndexInfo& i : table->indexes) {
      if (key.compare(0, 4, std::string("\0\0\0", 3) + static_cast<char>(i.space_id)) == 0) {
        index = &i;
      }
    }
    ASSERT_NE(index, nullptr) << Hex(key);
    seen.insert(index->name);
    // No key attribute's value, no name written out.
    for (const char* absent : {"VEH#1", "TS#1", "DEP-A", "depotCode", "speedKph", "note", "fuelPct"}) {
      EXPECT_EQ(value.find(absent), std::string::npos) << index->name << " holds " << absent;
    }
    EXPECT_TRUE(format::IsCurrentTableItem(value)) << index->name;
    EXPECT_EQ(*format::StoredItemSize(value), format::ItemSize(want.at(index->name)));
    format::StoredKeySchema keys = table->stored_key(*index);
    keys.names = &names;
    auto decoded = format::DecodeStoredItem(key, value, keys);
    ASSERT_OK(decoded);
    EXPECT_EQ(*decoded, want.at(index->name)) << index->name;
    EXPECT_OK(format::VerifyStoredItem(key, value, keys));
    if (index->name == "ByDepot") {
      EXPECT_NE(value.find("coolant low"), std::string::npos);
    }
  }
  EXPECT_EQ(seen, (std::set<std::string>{"ByDepot", "DepotNotes", "BySpeed"}));
}

// A multi-attribute GSI (storage format 15): the descriptor lists its
// further HASH and RANGE attributes; an entry's key holds every component
// (KEY_FORMAT.md), and its value leaves out only the first partition and
// the first sort component (and the table's key): the further components
// stay in the value. A database of version 14 opens as 15 unchanged.
TEST_F(StorageLayoutTest, MultiAttributeIndexEntries) {
  using T = ScalarAttributeType;
  CreateTableRequest r = testing::TableRequest("Matches", "matchId", T::kS);
  for (auto [name, type] : {std::pair{"tournamentId", T::kS},
                            {"region", T::kS},
                            {"round", T::kN},
                            {"bracket", T::kS}}) {
    r.attribute_definitions.push_back({name, type});
  }
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{{"ByBracket",
                                                                  {{"tournamentId", KeyType::kHash},
                                                                   {"region", KeyType::kHash},
                                                                   {"round", KeyType::kRange},
                                                                   {"bracket", KeyType::kRange},
                                                                   {"matchId", KeyType::kRange}},
                                                                  {ProjectionType::kKeysOnly, {}},
                                                                  std::nullopt}};
  const Item match{{"matchId", S("m1")}, {"tournamentId", S("WINTER")},
                   {"region", S("EU")},  {"round", testing::N("2")},
                   {"bracket", S("UP")}, {"score", testing::N("3")}};
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->CreateTable(r));
    ASSERT_OK((*db)->PutItem({.table_name = "Matches", .item = match}));
  }
  {
    testing::RawDb raw(dir_);
    std::string descriptor;
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "table/Matches", &descriptor));
    auto table = DecodeTableDescriptor(descriptor);
    ASSERT_OK(table);
    const IndexInfo& index = table->indexes[0];
    ASSERT_EQ(index.more_partition_keys.size(), 1u);
    EXPECT_EQ(index.more_partition_keys[0].name, "region");
    ASSERT_EQ(index.more_sort_keys.size(), 2u);
    EXPECT_EQ(index.more_sort_keys[1].name, "matchId");
    std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator({}, raw.cf("indexes")));
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    std::string space;
    format::PutFixed32BE(&space, index.space_id);
    EXPECT_EQ(Hex(it->key().ToString()),
              Hex(space) +
                  " 61 D6 BC 1A ED 24 6A 94"              // XXH64("WINTER" 00 01 "EU" 00 01)
                  " 57 49 4E 54 45 52 00 01 45 55 00 01"  // WINTER, EU
                  " 17 04 55 50 00 01 6D 31 00 01"        // 2, UP, m1 (a component)
                  " 6D 31 00 01");                        // m1 (the table's key)
    const std::string value = it->value().ToString();
    for (const char* absent : {"WINTER", "score"}) {
      EXPECT_EQ(value.find(absent), std::string::npos) << absent;
    }
    EXPECT_NE(value.find("EU"), std::string::npos);  // region, a further component
    EXPECT_NE(value.find("UP"), std::string::npos);  // bracket
    EXPECT_EQ(*format::StoredItemSize(value), format::ItemSize(Item{{"matchId", S("m1")},
                                                                    {"tournamentId", S("WINTER")},
                                                                    {"region", S("EU")},
                                                                    {"round", testing::N("2")},
                                                                    {"bracket", S("UP")}}));
    it->Next();
    EXPECT_FALSE(it->Valid());
    // Back to version 14: nothing but the record changes on the way up.
    ASSERT_OK(raw.db()->Put({}, raw.cf("catalog"), "format", EncodeFormatRecord(14)));
  }
  auto db = Database::Open(dir_, {});
  ASSERT_OK(db);
  QueryRequest q{.table_name = "Matches", .index_name = "ByBracket"};
  q.key_condition.partition_key_name = "tournamentId";
  q.key_condition.partition_key_value = S("WINTER");
  q.key_condition.more_partition_keys = {{"region", S("EU")}};
  auto page = (*db)->Query(q);
  ASSERT_OK(page);
  ASSERT_EQ(page->count, 1);
  EXPECT_EQ(page->items[0].size(), 5u);  // KEYS_ONLY: every component, and the table's key
  EXPECT_EQ(page->items[0].at("region"), S("EU"));
}

// OnDemandThroughput maxima and WarmThroughput (storage format 16): in the
// table's and the GSI's descriptors, only when given; a database of
// version 15 opens as 16 unchanged.
TEST_F(StorageLayoutTest, ThroughputSettingsRoundTrip) {
  using T = ScalarAttributeType;
  CreateTableRequest r = testing::TableRequest("Capped", "k", T::kS);
  r.attribute_definitions.push_back({"g", T::kS});
  r.on_demand_throughput = OnDemandThroughput{.max_read_request_units = 40};
  r.warm_throughput =
      WarmThroughput{.read_units_per_second = 15000, .write_units_per_second = 6000};
  GlobalSecondaryIndex g{"ByG", {{"g", KeyType::kHash}}, {ProjectionType::kKeysOnly, {}}};
  g.on_demand_throughput = OnDemandThroughput{.max_write_request_units = 9};
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{g};
  CreateTableRequest plain = testing::TableRequest("Plain", "k", T::kS);
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->CreateTable(r));
    ASSERT_OK((*db)->CreateTable(plain));
  }
  {
    testing::RawDb raw(dir_);
    std::string descriptor;
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "table/Capped", &descriptor));
    auto table = DecodeTableDescriptor(descriptor);
    ASSERT_OK(table);
    EXPECT_EQ(table->settings.max_read_request_units, 40);
    EXPECT_EQ(table->settings.max_write_request_units, 0);
    EXPECT_EQ(table->settings.warm_read_units, 15000);
    EXPECT_EQ(table->settings.warm_write_units, 6000);
    EXPECT_EQ(table->indexes[0].settings.max_write_request_units, 9);
    // A table without them has none written: its descriptor is version 15's.
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "table/Plain", &descriptor));
    auto bare = DecodeTableDescriptor(descriptor);
    ASSERT_OK(bare);
    TableInfo without = *bare;
    without.settings = ThroughputSettings{1, 2, 3, 4};
    EXPECT_LT(descriptor.size(), EncodeTableDescriptor(without).size());
    ASSERT_OK(raw.db()->Put({}, raw.cf("catalog"), "format", EncodeFormatRecord(15)));
  }
  auto db = Database::Open(dir_, {});
  ASSERT_OK(db);
  auto d = (*db)->DescribeTable({"Capped"});
  ASSERT_OK(d);
  ASSERT_TRUE(d->table.on_demand_throughput);
  EXPECT_EQ(d->table.on_demand_throughput->max_read_request_units, 40);
  EXPECT_EQ(d->table.on_demand_throughput->max_write_request_units, -1);
  ASSERT_TRUE(d->table.warm_throughput);
  EXPECT_EQ(d->table.warm_throughput->read_units_per_second, 15000);
  const auto& index = (*d->table.global_secondary_indexes)[0];
  ASSERT_TRUE(index.on_demand_throughput);
  EXPECT_EQ(index.on_demand_throughput->max_write_request_units, 9);
  EXPECT_FALSE(index.warm_throughput);
}

// Resource-based policies (storage format 17): the table's and its latest
// stream's, with their revision ids, in the table's descriptor; a database
// of version 16 opens as 17 unchanged.
TEST_F(StorageLayoutTest, ResourcePoliciesPersist) {
  CreateTableRequest r = testing::TableRequest("Policed", "k", ScalarAttributeType::kS);
  r.resource_policy = R"({"Version":"2012-10-17","Statement":[]})";
  r.stream_specification = StreamSpecification{true, StreamViewType::kKeysOnly};
  std::string table_revision, stream_revision, stream_arn;
  {
    auto db = Database::Open(dir_, {});
    ASSERT_OK(db);
    auto created = (*db)->CreateTable(r);
    ASSERT_OK(created);
    stream_arn = *created->table_description.latest_stream_arn;
    auto got = (*db)->GetResourcePolicy({created->table_description.table_arn});
    ASSERT_OK(got);
    EXPECT_EQ(got->policy, r.resource_policy);
    table_revision = *got->revision_id;
    auto put = (*db)->PutResourcePolicy({.resource_arn = stream_arn, .policy = "{}"});
    ASSERT_OK(put);
    stream_revision = *put->revision_id;
    EXPECT_EQ(
        (*db)->PutResourcePolicy({.resource_arn = stream_arn, .policy = "[]"}).status().code(),
        Status::Code::kValidation);
  }
  {
    testing::RawDb raw(dir_);
    std::string descriptor;
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "table/Policed", &descriptor));
    auto table = DecodeTableDescriptor(descriptor);
    ASSERT_OK(table);
    ASSERT_TRUE(table->policy && table->stream_policy);
    EXPECT_EQ(table->policy->revision_id, table_revision);
    EXPECT_EQ(table->stream_policy->document, "{}");
    EXPECT_EQ(table->stream_policy->stream_label, table->stream->label);
    ASSERT_OK(raw.db()->Put({}, raw.cf("catalog"), "format", EncodeFormatRecord(16)));
  }
  auto db = Database::Open(dir_, {});
  ASSERT_OK(db);
  auto got = (*db)->GetResourcePolicy({stream_arn});
  ASSERT_OK(got);
  EXPECT_EQ(got->revision_id, stream_revision);
  // Deleting the table deletes its policies.
  ASSERT_OK((*db)->DeleteTable({.table_name = "Policed"}));
  EXPECT_EQ((*db)->GetResourcePolicy({stream_arn}).status().code(),
            Status::Code::kResourceNotFound);
}

TEST(StorageLayoutGoldenTest, TokenRecords) {
  // expiry ms (int64 LE) | digest low | digest high (uint64 LE)
  tokens::Record r{0x0102030405060708, {0x1112131415161718, 0x2122232425262728}};
  EXPECT_EQ(Hex(tokens::EncodeRecord(r)),
            "08 07 06 05 04 03 02 01 18 17 16 15 14 13 12 11 28 27 26 25 24 23 22 21");
  auto back = tokens::DecodeRecord(tokens::EncodeRecord(r));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->expires_ms, r.expires_ms);
  EXPECT_TRUE(back->digest == r.digest);
  EXPECT_FALSE(tokens::DecodeRecord("short").has_value());
  // The digest is XXH3-128 of the request's rendering: pinned, since stored.
  tokens::Digest d = tokens::DigestOf("abc");
  EXPECT_EQ(d.low, 0x78af5f94892f3950ULL);
  EXPECT_EQ(d.high, 0x06b05ab6733a6185ULL);
  // The expiry filter's name is stored in every SST of the tokens family.
  tokens::ExpiryFilter filter([] { return int64_t{1000}; });
  EXPECT_STREQ(filter.Name(), "dynarock.TokenExpiry");
  std::string unused;
  bool changed = false;
  EXPECT_TRUE(filter.Filter(0, "t", tokens::EncodeRecord({1000, {}}), &unused, &changed));
  EXPECT_FALSE(filter.Filter(0, "t", tokens::EncodeRecord({1001, {}}), &unused, &changed));
  EXPECT_TRUE(filter.Filter(0, "t", "malformed", &unused, &changed));
}

TEST_F(StorageLayoutTest, PointInTimeRecoveryFieldsRoundTrip) {
  TableInfo t;
  t.name = "Telemetry";
  t.partition_key = {"vehicleId", ScalarAttributeType::kS};
  t.attribute_definitions = {{"vehicleId", ScalarAttributeType::kS}};
  auto plain = DecodeTableDescriptor(EncodeTableDescriptor(t));
  ASSERT_OK(plain);
  EXPECT_FALSE(plain->pitr_enabled);
  EXPECT_EQ(plain->pitr_recovery_days, 35);
  t.pitr_enabled = true;
  t.pitr_enabled_ms = 1'796'171'131'326;
  t.pitr_recovery_days = 9;
  auto back = DecodeTableDescriptor(EncodeTableDescriptor(t));
  ASSERT_OK(back);
  EXPECT_TRUE(back->pitr_enabled);
  EXPECT_EQ(back->pitr_enabled_ms, 1'796'171'131'326);
  EXPECT_EQ(back->pitr_recovery_days, 9);
}

}  // namespace dynarock
