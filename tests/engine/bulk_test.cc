// Dump and restore (Database::ExportTable / ImportTable, `dynarock dump` and
// `dynarock restore`): round trips with indexes and statistics, AWS's own
// layout built by hand, every kind of bad input, a dump under concurrent
// writes, a dump beside a running primary, and SIGKILL during a restore.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "dynarock/db.h"
#include "engine/bulk/external_sort.h"
#include "engine/catalog.h"
#include "format/attribute_names.h"
#include "format/data_file.h"
#include "format/export_format.h"
#include "format/item_codec.h"
#include "format/json.h"
#include "format/key_codec.h"
#include "tests/util/db_fixture.h"
#include "tests/util/item_v1.h"
#include "tests/util/raw_db.h"
#include "tests/util/seed.h"
#include "tools/server/table_definition.h"

extern char** environ;

namespace dynarock {
namespace {

namespace fs = std::filesystem;
using testing::N;
using testing::S;

// Fleet-shaped: a vehicle's profile and readings in one collection, an LSI
// by speed, a GSI by depot.
CreateTableRequest FleetTable(const std::string& name) {
  CreateTableRequest r = testing::TableRequest(name, "PK", ScalarAttributeType::kS, "SK");
  r.attribute_definitions.push_back({"speed", ScalarAttributeType::kN});
  r.attribute_definitions.push_back({"depot", ScalarAttributeType::kS});
  r.local_secondary_indexes.emplace();
  r.local_secondary_indexes->push_back({"BySpeed",
                                        {{"PK", KeyType::kHash}, {"speed", KeyType::kRange}},
                                        {ProjectionType::kKeysOnly, {}}});
  r.global_secondary_indexes.emplace();
  r.global_secondary_indexes->push_back({"ByDepot",
                                         {{"depot", KeyType::kHash}, {"SK", KeyType::kRange}},
                                         {ProjectionType::kInclude, {"speed"}},
                                         std::nullopt});
  return r;
}

Item Reading(int vehicle, int i) {
  Item item;
  item["PK"] = S("VEH#" + std::to_string(vehicle));
  item["SK"] = S(i == 0 ? "META" : "TS#" + std::to_string(100000 + i));
  if (i == 0) {
    item["model"] = S("eTruck");
    item["tags"] = AttributeValue::SS({"ev", "heavy"});
  } else {
    item["speed"] = N(std::to_string(i % 97) + "." + std::to_string(i % 10));
    item["raw"] = AttributeValue::B(std::string("\x00\x01\xfe", 3) + std::to_string(i));
    item["nested"] = AttributeValue::M(
        {{"l", AttributeValue::L({N("1"), AttributeValue::Null(), AttributeValue::Bool(i % 2)})}});
  }
  if (i % 3 != 1) item["depot"] = S("DEP-" + std::to_string(vehicle % 4));  // sparse GSI
  return item;
}

// Every item of a table or index, in scan order, as JSON.
std::vector<std::string> ScanAll(Database* db, const std::string& table,
                                 std::optional<std::string> index = std::nullopt) {
  std::vector<std::string> out;
  std::optional<Item> start;
  do {
    ScanRequest r;
    r.table_name = table;
    r.index_name = index;
    r.exclusive_start_key = start;
    auto page = db->Scan(r);
    EXPECT_OK(page);
    if (!page.ok()) break;
    for (const auto& item : page->items) out.push_back(format::ToJson(item));
    start = page->last_evaluated_key;
  } while (start);
  return out;
}

std::vector<std::string> QueryAll(Database* db, const std::string& table, const std::string& index,
                                  const std::string& pk_name, const AttributeValue& pk,
                                  bool forward) {
  std::vector<std::string> out;
  std::optional<Item> start;
  do {
    QueryRequest r;
    r.table_name = table;
    if (!index.empty()) r.index_name = index;
    r.key_condition_expression = "#p = :p";
    r.expression_attribute_names = ExpressionAttributeNames{{"#p", pk_name}};
    r.expression_attribute_values = ExpressionAttributeValues{{":p", pk}};
    r.scan_index_forward = forward;
    r.exclusive_start_key = start;
    auto page = db->Query(r);
    EXPECT_OK(page);
    if (!page.ok()) break;
    for (const auto& item : page->items) out.push_back(format::ToJson(item));
    start = page->last_evaluated_key;
  } while (start);
  return out;
}

class BulkTest : public testing::DbTest {
 protected:
  void SetUp() override {
    testing::DbTest::SetUp();
    out_ = testing::MakeTempDir();
  }
  void TearDown() override {
    testing::DbTest::TearDown();
    fs::remove_all(out_);
  }

  void LoadFleet(const std::string& table, int vehicles, int readings) {
    Create(FleetTable(table));
    for (int v = 0; v < vehicles; ++v) {
      for (int i = 0; i <= readings; ++i) Put(table, Reading(v, i));
    }
  }

  // One uncompressed file of export lines into a new fleet table.
  static ImportTableOptions FromPlainFile(const std::string& table, const std::string& path,
                                          const std::string& name = "") {
    ImportTableOptions o;
    o.table = FleetTable(table);
    o.files = {{path, name, std::nullopt, std::nullopt}};
    o.compression = ImportCompression::kNone;
    return o;
  }

  ImportTableOptions FromExport(const ExportTableResult& exported, const std::string& name) {
    auto manifest = ReadExportManifest(exported.export_dir);
    EXPECT_OK(manifest);
    ImportTableOptions o;
    o.table = FleetTable(name);
    o.files = manifest->files;
    o.format =
        manifest->format == ExportFormat::kIon ? ImportFormat::kIon : ImportFormat::kDynamoDbJson;
    return o;
  }

  // The restored table answers every read as the source does, and its
  // statistics are what a recount finds.
  void ExpectSameTable(const std::string& a, const std::string& b, int vehicles) {
    EXPECT_EQ(ScanAll(db_.get(), a), ScanAll(db_.get(), b));
    EXPECT_EQ(ScanAll(db_.get(), a, "ByDepot"), ScanAll(db_.get(), b, "ByDepot"));
    EXPECT_EQ(ScanAll(db_.get(), a, "BySpeed"), ScanAll(db_.get(), b, "BySpeed"));
    for (int v = 0; v < vehicles; ++v) {
      const AttributeValue pk = S("VEH#" + std::to_string(v));
      EXPECT_EQ(QueryAll(db_.get(), a, "", "PK", pk, false),
                QueryAll(db_.get(), b, "", "PK", pk, false));
      EXPECT_EQ(QueryAll(db_.get(), a, "BySpeed", "PK", pk, true),
                QueryAll(db_.get(), b, "BySpeed", "PK", pk, true));
    }
    for (int d = 0; d < 4; ++d) {
      const AttributeValue depot = S("DEP-" + std::to_string(d));
      auto qa = QueryAll(db_.get(), a, "ByDepot", "depot", depot, false);
      EXPECT_FALSE(qa.empty());
      EXPECT_EQ(qa, QueryAll(db_.get(), b, "ByDepot", "depot", depot, false));
    }
    auto da = db_->DescribeTable({.table_name = a});
    auto db = db_->DescribeTable({.table_name = b});
    ASSERT_OK(da);
    ASSERT_OK(db);
    EXPECT_EQ(da->table.item_count, db->table.item_count);
    EXPECT_EQ(da->table.table_size_bytes, db->table.table_size_bytes);
    for (size_t i = 0; i < 1; ++i) {
      EXPECT_EQ((*da->table.global_secondary_indexes)[i].item_count,
                (*db->table.global_secondary_indexes)[i].item_count);
      EXPECT_EQ((*da->table.global_secondary_indexes)[i].index_size_bytes,
                (*db->table.global_secondary_indexes)[i].index_size_bytes);
      EXPECT_EQ((*da->table.local_secondary_indexes)[i].index_size_bytes,
                (*db->table.local_secondary_indexes)[i].index_size_bytes);
    }
    auto la = db_->LargestCollections(a, 1000);
    auto lb = db_->LargestCollections(b, 1000);
    ASSERT_OK(la);
    ASSERT_OK(lb);
    ASSERT_EQ(la->size(), lb->size());
    for (size_t i = 0; i < la->size(); ++i) {
      EXPECT_EQ((*la)[i].item_count, (*lb)[i].item_count);
      EXPECT_EQ((*la)[i].size_bytes, (*lb)[i].size_bytes);
    }
    auto report = db_->RecountStatistics();
    ASSERT_OK(report);
    EXPECT_EQ(report->collections_corrected, 0);
    EXPECT_EQ(report->table_totals_corrected, 0);
    EXPECT_EQ(report->index_totals_corrected, 0);
  }

  std::string out_;
};

class BulkRoundTrip : public BulkTest, public ::testing::WithParamInterface<ExportFormat> {};

TEST_P(BulkRoundTrip, DumpThenRestoreIsTheSameTable) {
  LoadFleet("Fleet", 12, 40);
  ExportTableOptions e;
  e.table_name = "Fleet";
  e.bucket_dir = out_;
  e.s3_prefix = "daily/2026";
  e.format = GetParam();
  e.segments = 3;
  auto exported = db_->ExportTable(e);
  ASSERT_OK(exported);
  EXPECT_EQ(exported->item_count, 12 * 41);
  ASSERT_EQ(exported->files.size(), 3u);
  // AWS's layout: keys prefix-inclusive, the manifest's files, checksums.
  EXPECT_TRUE(exported->files[0].data_file_s3_key.starts_with("daily/2026/AWSDynamoDB/" +
                                                              exported->export_id + "/data/"));
  EXPECT_TRUE(fs::exists(fs::path(exported->export_dir) / "_started"));
  EXPECT_EQ(fs::file_size(fs::path(exported->export_dir) / "_started"), 0u);
  EXPECT_EQ(exported->export_dir,
            (fs::path(out_) / "daily/2026/AWSDynamoDB" / exported->export_id).string());

  auto o = FromExport(*exported, "Restored");
  int64_t files_read = 0;  // progress calls are serialized by the import
  o.progress = [&](const ImportProgress& p) {
    if (std::string_view(p.phase) == "reading") files_read = std::max(files_read, p.files_done);
  };
  auto restored = db_->ImportTable(o);
  ASSERT_OK(restored);
  EXPECT_EQ(files_read, 3);  // the reading progress counts each file as it ends
  EXPECT_EQ(restored->imported_items, 12 * 41);
  EXPECT_EQ(restored->error_count, 0);
  ExpectSameTable("Fleet", "Restored", 12);
  // It survives a reopen (the ingested files and catalog are durable).
  Reopen();
  ExpectSameTable("Fleet", "Restored", 12);
  // And takes writes like any table.
  Put("Restored", Reading(99, 1));
  EXPECT_EQ(QueryAll(db_.get(), "Restored", "", "PK", S("VEH#99"), true).size(), 1u);
}

// Progress moves within a file, not only at its end: a restore of one
// large file reports bytes read before the file is done, so its ETA means
// something. (Uncompressed, 1.5 MB: six of the reader's 256 KB reads.)
TEST_F(BulkTest, RestoreProgressMovesWithinAFile) {
  const std::string path = (fs::path(out_) / "large.json").string();
  constexpr int kItems = 20000;
  {
    std::ofstream f(path);
    for (int i = 0; i < kItems; ++i) {
      f << R"({"Item":{"PK":{"S":"VEH#)" << i % 50 << R"("},"SK":{"S":"TS#)" << 100000 + i
        << R"("},"speed":{"N":")" << i % 90 << R"("},"depot":{"S":"DEP-LON-3"}}})"
        << "\n";
    }
  }
  ImportTableOptions o = FromPlainFile("Large", path, "large.json");
  std::vector<int64_t> within;  // bytes reported while the file was being read
  int64_t total = 0;
  o.progress = [&](const ImportProgress& p) {
    total = p.total_bytes;
    if (std::string_view(p.phase) == "reading" && p.files_done == 0) {
      within.push_back(p.processed_bytes);
    }
  };
  auto restored = db_->ImportTable(o);
  ASSERT_OK(restored);
  EXPECT_EQ(restored->imported_items, kItems);
  EXPECT_EQ(total, static_cast<int64_t>(fs::file_size(path)));
  ASSERT_GE(within.size(), 4u);  // a report every 4,096 items
  EXPECT_GT(within.front(), 0);
  EXPECT_LT(within.front(), total);
  EXPECT_LT(within.back(), total);
  EXPECT_TRUE(std::is_sorted(within.begin(), within.end()));
  EXPECT_LT(within.front(), within.back());
}

INSTANTIATE_TEST_SUITE_P(Formats, BulkRoundTrip,
                         ::testing::Values(ExportFormat::kDynamoDbJson, ExportFormat::kIon));

TEST_F(BulkTest, SpillingSortsAndDuplicateKeysGiveTheSameTable) {
  LoadFleet("Fleet", 20, 150);
  ExportTableOptions e{.table_name = "Fleet", .bucket_dir = out_};
  auto exported = db_->ExportTable(e);
  ASSERT_OK(exported);
  auto o = FromExport(*exported, "Small");
  // A duplicate of every file, with changed items: the later lines win.
  ImportFile extra;
  extra.path = (fs::path(out_) / "dups.json").string();
  {
    std::ofstream f(extra.path);
    for (int i = 1; i <= 150; i += 7) {
      Item item = Reading(3, i);
      item["speed"] = N("1234");
      f << format::ItemLine(format::ExportFormat::kDynamoDbJson, item) << "\n";
    }
  }
  o.memory_budget_bytes = 64 << 10;  // the floor: many runs
  auto first = db_->ImportTable(o);
  ASSERT_OK(first);
  ExpectSameTable("Fleet", "Small", 20);

  // Apply the same changes to the source through the write path, and import
  // originals + changes: same table again.
  for (int i = 1; i <= 150; i += 7) {
    Item item = Reading(3, i);
    item["speed"] = N("1234");
    Put("Fleet", item);
  }
  auto again = FromExport(*exported, "WithDups");
  again.files.push_back(extra);
  again.files.back().md5_base64.reset();
  again.compression = ImportCompression::kGzip;
  // The extra file is plain: import it separately declared would be an
  // error, so write it gzip'd as the others are.
  {
    format::DataFileWriter w;
    ASSERT_OK(w.Open(extra.path + ".gz"));
    std::ifstream in(extra.path);
    for (std::string line; std::getline(in, line);) ASSERT_OK(w.AddLine(line));
    ASSERT_OK(w.Finish());
    again.files.back().path = extra.path + ".gz";
  }
  again.memory_budget_bytes = 64 << 10;
  auto with_dups = db_->ImportTable(again);
  ASSERT_OK(with_dups);
  EXPECT_EQ(with_dups->processed_items, 20 * 151 + 22);
  EXPECT_EQ(with_dups->imported_items, 20 * 151);
  ExpectSameTable("Fleet", "WithDups", 20);
}

// An export laid out by hand from EXPORT-FORMAT.md: a prefix, the guide's
// .checksum names, an empty 0-byte data file and an empty gzip one.
TEST_F(BulkTest, RestoresAnExportBuiltByHandFromAwsLayout) {
  const std::string id = "01604474914028-a1b2c3d4";
  const fs::path dir = fs::path(out_) / "2020-Nov/AWSDynamoDB" / id;
  fs::create_directories(dir / "data");
  std::ofstream(dir / "_started").flush();
  std::vector<format::ManifestFile> files;
  auto add_file = [&](const std::string& name, const std::vector<std::string>& lines,
                      bool empty_object) {
    const fs::path path = dir / "data" / name;
    std::string bytes;
    if (!empty_object) {
      format::DataFileWriter w;
      ASSERT_OK(w.Open(path.string()));
      for (const auto& l : lines) ASSERT_OK(w.AddLine(l));
      ASSERT_OK(w.Finish());
    } else {
      std::ofstream(path).flush();
    }
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    files.push_back({static_cast<int64_t>(lines.size()), format::Md5Base64(bytes),
                     format::MultipartEtag(format::Base64Decode(format::Md5Base64(bytes)).value()),
                     "2020-Nov/AWSDynamoDB/" + id + "/data/" + name});
  };
  // The 11 types of scylladb's test_export.py round trip, as AWS writes them.
  add_file(
      "bafybeiczss3yxay3o4abnabbb.json.gz",
      {R"({"Item":{"PK":{"S":"VEH#1"},"SK":{"S":"META"},"d01":{"S":"x"},"d02":{"N":"1.5"},)"
       R"("d03":{"B":"AAE="},"d04":{"SS":["a","b"]},"d05":{"NS":["1","2.5"]},"d06":{"BS":["AA=="]},)"
       R"("d07":{"M":{"n":{"N":"3"}}},"d08":{"M":{"m":{"M":{"s":{"S":"deep"}}}}},)"
       R"("d09":{"L":[{"N":"1"},{"S":"two"}]},"d10":{"NULL":true},"d11":{"BOOL":false}}})",
       R"({"Item":{"PK":{"S":"VEH#1"},"SK":{"S":"TS#1"},"speed":{"N":"50"},"depot":{"S":"DEP-0"}}})"},
      false);
  add_file("gkes5o3lnrhoznhnkyax3hxvya.json.gz", {}, true);   // a 0-byte object
  add_file("aaaaaaaaaaaaaaaaaaaaaaaaaa.json.gz", {}, false);  // an empty gzip stream
  add_file("bbbbbbbbbbbbbbbbbbbbbbbbbb.json.gz",
           {R"({"Item":{"PK":{"S":"VEH#2"},"SK":{"S":"TS#9"},"speed":{"N":"7"}}})"}, false);
  const std::string files_json = format::ManifestFilesJson(files);
  std::ofstream(dir / "manifest-files.json", std::ios::binary) << files_json;
  std::ofstream(dir / "manifest-files.checksum") << format::Md5Base64(files_json) << "\n";
  const std::string summary = R"({
   "version": "2020-06-30",
   "exportArn": "arn:aws:dynamodb:us-east-1:123456789012:table/ProductCatalog/export/)" +
                              id + R"(",
   "startTime": "2020-11-04T07:28:34.028Z",
   "endTime": "2020-11-04T07:33:43.897Z",
   "tableArn": "arn:aws:dynamodb:us-east-1:123456789012:table/ProductCatalog",
   "tableId": "12345a12-abcd-123a-ab12-1234abc12345",
   "exportTime": "2020-11-04T07:28:34.028Z",
   "s3Bucket": "ddb-productcatalog-export",
   "s3Prefix": "2020-Nov",
   "s3SseAlgorithm": "AES256",
   "s3SseKmsKeyId": null,
   "manifestFilesS3Key": "2020-Nov/AWSDynamoDB/)" +
                              id + R"(/manifest-files.json",
   "billedSizeBytes": 0,
   "itemCount": 3,
   "outputFormat": "DYNAMODB_JSON"
})";
  std::ofstream(dir / "manifest-summary.json", std::ios::binary) << summary;
  std::ofstream(dir / "manifest-summary.checksum") << format::Md5Base64(summary);

  auto manifest = ReadExportManifest(dir.string());
  ASSERT_OK(manifest);
  ASSERT_EQ(manifest->files.size(), 4u);
  ImportTableOptions o;
  o.table = FleetTable("FromAws");
  o.files = manifest->files;
  auto restored = db_->ImportTable(o);
  ASSERT_OK(restored);
  EXPECT_EQ(restored->imported_items, 3);
  auto got =
      db_->GetItem({.table_name = "FromAws", .key = {{"PK", S("VEH#1")}, {"SK", S("META")}}});
  ASSERT_OK(got);
  ASSERT_TRUE(got->item);
  EXPECT_EQ(got->item->at("d05"), AttributeValue::NS({testing::Num("1"), testing::Num("2.5")}));
  EXPECT_EQ(got->item->at("d08").m()[0].second.m()[0].second, S("deep"));
  EXPECT_EQ(QueryAll(db_.get(), "FromAws", "ByDepot", "depot", S("DEP-0"), true).size(), 1u);

  // A manifest whose checksum file disagrees is refused, naming the file.
  std::ofstream(dir / "manifest-files.checksum") << "AAAAAAAAAAAAAAAAAAAAAA==";
  auto bad = ReadExportManifest(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("manifest-files.json: checksum mismatch"),
            std::string::npos)
      << bad.status().ToString();
}

TEST_F(BulkTest, BadInputsGetClearErrorsAndChangeNothing) {
  LoadFleet("Fleet", 3, 10);
  auto exported = db_->ExportTable({.table_name = "Fleet", .bucket_dir = out_, .segments = 1});
  ASSERT_OK(exported);
  const std::string data = (fs::path(exported->export_dir) / "data" /
                            fs::path(exported->files[0].data_file_s3_key).filename())
                               .string();
  std::string original;
  {
    std::ifstream in(data, std::ios::binary);
    original.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  auto expect_no_table = [&](const std::string& name) {
    auto d = db_->DescribeTable({.table_name = name});
    EXPECT_EQ(d.status().code(), Status::Code::kResourceNotFound) << name;
  };

  // A corrupted byte: the data file's MD5 no longer matches the manifest.
  {
    std::string bytes = original;
    bytes[bytes.size() - 12] ^= 0x01;  // in the gzip trailer: decompresses, checksum differs
    std::ofstream(data, std::ios::binary) << bytes;
    auto r = db_->ImportTable(FromExport(*exported, "Corrupted"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    EXPECT_TRUE(r.status().message().find("checksum mismatch") != std::string::npos ||
                r.status().message().find("corrupt gzip") != std::string::npos)
        << r.status().ToString();
    EXPECT_NE(r.status().message().find(exported->files[0].data_file_s3_key), std::string::npos);
    expect_no_table("Corrupted");
  }
  // A truncated gzip.
  {
    std::ofstream(data, std::ios::binary) << original.substr(0, original.size() * 2 / 3);
    auto r = db_->ImportTable(FromExport(*exported, "Truncated"));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("truncated gzip"), std::string::npos)
        << r.status().ToString();
    expect_no_table("Truncated");
  }
  std::ofstream(data, std::ios::binary) << original;

  // A bad line and an item without its sort key, in a plain file: counted
  // and reported with file and line; the good items land.
  const std::string plain = (fs::path(out_) / "bad.json").string();
  {
    std::ofstream f(plain);
    f << format::ItemLine(format::ExportFormat::kDynamoDbJson, Reading(1, 1)) << "\n";
    f << "{\"Item\":{\"PK\":{\"S\":\"x\"},\"SK\":{\"S\":1}}}\n";  // line 2: wrong JSON type
    f << "\n";                                                    // blank: skipped
    f << R"({"Item":{"PK":{"S":"VEH#7"}}})"
      << "\n";  // line 4: no sort key
    f << R"({"Item":{"PK":{"S":"VEH#7"},"SK":{"S":"a"},"speed":{"S":"fast"}}})"
      << "\n";  // 5: LSI key type
    f << format::ItemLine(format::ExportFormat::kDynamoDbJson, Reading(1, 2)) << "\n";
  }
  ImportTableOptions o = FromPlainFile("Partial", plain);
  auto partial = db_->ImportTable(o);
  ASSERT_OK(partial);
  EXPECT_EQ(partial->processed_items, 5);
  EXPECT_EQ(partial->imported_items, 2);
  EXPECT_EQ(partial->error_count, 3);
  ASSERT_EQ(partial->errors.size(), 3u);
  EXPECT_EQ(partial->errors[0].file, plain);
  EXPECT_EQ(partial->errors[0].line, 2);
  EXPECT_EQ(partial->errors[1].line, 4);
  EXPECT_EQ(partial->errors[1].message,
            "One or more parameter values were invalid: Missing the key SK in the item");
  EXPECT_EQ(partial->errors[2].line, 5);
  EXPECT_NE(partial->errors[2].message.find("speed"), std::string::npos)
      << partial->errors[2].message;

  // --strict: the first bad item aborts, nothing is created.
  o.table.table_name = "Strict";
  o.strict = true;
  auto strict = db_->ImportTable(o);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().message().substr(0, plain.size() + 3), plain + ":2:");
  expect_no_table("Strict");

  // An existing name is CreateTable's error.
  o.strict = false;
  o.table.table_name = "Fleet";
  auto exists = db_->ImportTable(o);
  EXPECT_EQ(exists.status().code(), Status::Code::kResourceInUse);
  EXPECT_EQ(exists.status().message(), "Table already exists: Fleet");
  // Nothing was left behind in the database directory.
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_FALSE(entry.path().filename().string().starts_with("restore-scratch-"));
  }
}

TEST_F(BulkTest, CsvAndZstdInputs) {
  const std::string csv_text =
      "PK,SK,speed,note\n"
      "VEH#1,TS#1,12.50,\"quoted, with comma\"\n"
      "VEH#1,TS#2,7,\n"
      "VEH#2,META,,plain\n";
  std::string z(ZSTD_compressBound(csv_text.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), csv_text.data(), csv_text.size(), 3));
  const std::string path = (fs::path(out_) / "fleet.csv.zst").string();
  std::ofstream(path, std::ios::binary) << z;
  ImportTableOptions o;
  o.table = FleetTable("Csv");
  o.files = {{path, "", std::nullopt, std::nullopt}};
  o.format = ImportFormat::kCsv;
  o.compression = ImportCompression::kZstd;
  auto r = db_->ImportTable(o);
  ASSERT_OK(r);
  EXPECT_EQ(r->imported_items, 3);
  auto got = db_->GetItem({.table_name = "Csv", .key = {{"PK", S("VEH#1")}, {"SK", S("TS#1")}}});
  ASSERT_OK(got);
  ASSERT_TRUE(got->item);
  EXPECT_EQ(got->item->at("speed"), N("12.5"));               // a key attribute of the LSI: typed N
  EXPECT_EQ(got->item->at("note"), S("quoted, with comma"));  // everything else: S
  EXPECT_EQ(QueryAll(db_.get(), "Csv", "BySpeed", "PK", S("VEH#1"), true).size(), 2u);

  // A given header makes the first line data; another delimiter.
  const std::string semi = (fs::path(out_) / "fleet.csv").string();
  std::ofstream(semi) << "VEH#3;META;x\n";
  o.table.table_name = "Csv2";
  o.files = {{semi, "", std::nullopt, std::nullopt}};
  o.compression = ImportCompression::kNone;
  o.csv_delimiter = ';';
  o.csv_header = std::vector<std::string>{"PK", "SK", "model"};
  auto r2 = db_->ImportTable(o);
  ASSERT_OK(r2);
  EXPECT_EQ(r2->imported_items, 1);
}

// A restore holds a table with an LSI to the item collection size limit as
// PutItem does: the items that would take a collection past it are refused,
// counted and reported with their line (the rest land), and the counters
// are what a recount finds; `strict` refuses the whole restore.
class BulkLimitTest : public BulkTest {
 protected:
  void SetUp() override {
    options_.item_collection_size_limit_bytes = 2000;
    BulkTest::SetUp();
  }
};

TEST_F(BulkLimitTest, RestoreRefusesWhatPassesTheCollectionSizeLimit) {
  const std::string path = (fs::path(out_) / "limit.json").string();
  {
    std::ofstream f(path);
    for (int i = 0; i < 30; ++i) {
      f << R"({"Item":{"PK":{"S":"VEH#1"},"SK":{"S":"TS#)" << 100 + i << R"("},"speed":{"N":")" << i
        << R"("},"pad":{"S":")" << std::string(40, 'p') << R"("}}})"
        << "\n";
    }
    f << R"({"Item":{"PK":{"S":"VEH#2"},"SK":{"S":"META"},"speed":{"N":"1"}}})"
      << "\n";
  }
  ImportTableOptions o = FromPlainFile("Limited", path, "limit.json");
  auto r = db_->ImportTable(o);
  ASSERT_OK(r);
  EXPECT_EQ(r->processed_items, 31);
  EXPECT_GT(r->imported_items, 2);
  EXPECT_LT(r->imported_items, 31);
  EXPECT_EQ(r->error_count, 31 - r->imported_items);
  ASSERT_FALSE(r->errors.empty());
  EXPECT_EQ(r->errors[0].file, "limit.json");
  EXPECT_EQ(r->errors[0].line, r->imported_items);  // the first refused is the next line
  EXPECT_NE(r->errors[0].message.find("Item collection size limit exceeded"), std::string::npos);
  auto top = db_->LargestCollections("Limited", 5);
  ASSERT_OK(top);
  ASSERT_EQ(top->size(), 2u);
  EXPECT_EQ((*top)[0].item_count, r->imported_items - 1);
  EXPECT_LE((*top)[0].size_bytes, 2000);
  EXPECT_EQ(QueryAll(db_.get(), "Limited", "BySpeed", "PK", S("VEH#1"), true).size(),
            static_cast<size_t>(r->imported_items - 1));
  auto report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->collections_corrected, 0);
  EXPECT_EQ(report->table_totals_corrected, 0);
  EXPECT_EQ(report->index_totals_corrected, 0);

  o.table.table_name = "Strict";
  o.strict = true;
  auto strict = db_->ImportTable(o);
  EXPECT_EQ(strict.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(strict.status().message().find("Item collection size limit exceeded"),
            std::string::npos);
  EXPECT_EQ(db_->DescribeTable({.table_name = "Strict"}).status().code(),
            Status::Code::kResourceNotFound);
}

// Transactions keep a group of items (one per segment, on average) at one
// version; a dump that did not read from one snapshot would mix versions.
TEST_F(BulkTest, DumpWhileWritersRunIsOneSnapshot) {
  Create(testing::TableRequest("Group", "PK", ScalarAttributeType::kS));
  constexpr int kGroup = 16;
  auto write_version = [&](int v) {
    TransactWriteItemsRequest t;
    for (int i = 0; i < kGroup; ++i) {
      TransactPut p;
      p.table_name = "Group";
      p.item = {{"PK", S("item-" + std::to_string(i))}, {"v", N(std::to_string(v))}};
      t.transact_items.push_back({.put = p});
    }
    return db_->TransactWriteItems(t).status();
  };
  ASSERT_OK(write_version(0));
  std::atomic<bool> stop{false};
  std::atomic<int> versions{0};
  std::thread writer([&] {
    for (int v = 1; !stop; ++v) {
      if (!write_version(v).ok()) return;
      versions = v;
    }
  });
  int dumps = 0;
  while (dumps < 20 || versions < 50) {
    auto exported = db_->ExportTable({.table_name = "Group",
                                      .bucket_dir = out_,
                                      .segments = 8,
                                      .export_id = "dump-" + std::to_string(dumps)});
    ASSERT_OK(exported);
    std::set<std::string> seen;
    for (const auto& f : exported->files) {
      format::LineReader r;
      ASSERT_OK(
          r.Open((fs::path(exported->export_dir) / "data" / fs::path(f.data_file_s3_key).filename())
                     .string(),
                 format::Compression::kGzip));
      std::string line;
      while (r.Next(&line)) {
        auto item = format::ParseItemLine(format::ExportFormat::kDynamoDbJson, line);
        ASSERT_OK(item);
        seen.insert(item->at("v").n().ToString());
      }
    }
    EXPECT_EQ(seen.size(), 1u) << "dump " << dumps << " mixes versions";
    ++dumps;
    if (dumps > 2000) break;
  }
  stop = true;
  writer.join();
  EXPECT_GE(versions.load(), 50);
}

// A secondary opened while the primary's Open flushes what its log replay
// filled (in the background) sees every item: when the flush deletes the
// replayed log after the secondary read the MANIFEST but before it listed
// the logs, only catching up with the primary again finds the flushed file.
// Without that, one of the first few rounds here found no catalog at all
// ("holds no Dynarock database (no format record)") or missed items.
TEST_F(BulkTest, ReadOnlyInstanceOpenedDuringTheReplayFlushSeesEverything) {
  // Each round a new database whose catalog and items are only in its log
  // when it is reopened.
  for (int round = 0; round < 15; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string dir = testing::MakeTempDir();
    {
      auto db = Database::Open(dir, options_);
      ASSERT_OK(db);
      ASSERT_OK((*db)->CreateTable(FleetTable("Fleet")));
      for (int i = 0; i < 10; ++i) {
        ASSERT_OK((*db)->PutItem({.table_name = "Fleet", .item = Reading(0, i)}));
      }
    }
    auto primary = Database::Open(dir, options_);  // replays; flushes in the background
    ASSERT_OK(primary);
    Options ro;
    ro.read_only = true;
    auto secondary = Database::Open(dir, ro);
    ASSERT_OK(secondary);
    auto scan = (*secondary)->Scan({.table_name = "Fleet"});
    ASSERT_OK(scan);
    EXPECT_EQ(scan->count, 10);
    secondary->reset();
    primary->reset();
    fs::remove_all(dir);
  }
}

// `dump` opens the directory as a RocksDB secondary: it reads a database
// another instance has open for writing, as of its Open.
TEST_F(BulkTest, ReadOnlyInstanceDumpsBesideAnOpenPrimary) {
  LoadFleet("Fleet", 4, 20);
  Options ro;
  ro.read_only = true;
  auto secondary = Database::Open(dir_, ro);
  ASSERT_OK(secondary);
  auto exported = (*secondary)->ExportTable({.table_name = "Fleet", .bucket_dir = out_});
  ASSERT_OK(exported);
  EXPECT_EQ(exported->item_count, 4 * 21);
  auto write = (*secondary)->PutItem({.table_name = "Fleet", .item = Reading(1, 1)});
  EXPECT_FALSE(write.ok());
  auto import = (*secondary)->ImportTable(FromExport(*exported, "Refused"));
  EXPECT_EQ(import.status().code(), Status::Code::kNotSupported);
  // The primary is unaffected and restores the dump.
  auto restored = db_->ImportTable(FromExport(*exported, "Copy"));
  ASSERT_OK(restored);
  ExpectSameTable("Fleet", "Copy", 4);
}

// The sorter against a model: random short keys (zero bytes and keys
// shorter than its 8-byte integer prefix included), duplicates across spilled
// runs, from two threads (one adding record by record, the other in batches
// of 1 to 300 records); the highest sequence wins, every loser reported.
TEST(ExternalSorterTest, MatchesAModelInMemoryAndSpilled) {
  for (size_t budget : {size_t{64} << 20, size_t{64} << 10}) {
    std::mt19937_64 rng(testing::TestSeed("ExternalSorterTest.MatchesAModelInMemoryAndSpilled"));
    const std::string dir = testing::MakeTempDir();
    std::map<std::string, std::pair<uint64_t, std::string>> model;
    int64_t added = 0;
    {
      bulk::ExternalSorter sorter(dir, budget);
      std::vector<std::vector<std::tuple<std::string, uint64_t, std::string>>> work(2);
      for (uint64_t seq = 1; seq <= 40000; ++seq) {
        std::string key(rng() % 12, '\0');
        static constexpr char kAlphabet[] = {'\0', '\1', 'a', 'b', '\xff'};
        for (auto& c : key) c = kAlphabet[rng() % 5];
        std::string value = std::to_string(seq) + std::string(rng() % 40, 'v');
        auto& m = model[key];
        if (seq > m.first) m = {seq, value};
        work[seq % 2].emplace_back(key, seq, value);
      }
      std::vector<std::thread> threads;
      threads.emplace_back([&sorter, &w = work[0]] {
        for (const auto& [k, seq, v] : w) ASSERT_OK(sorter.Add(k, seq, v));
      });
      threads.emplace_back([&sorter, &w = work[1], batch_rng = rng]() mutable {
        bulk::ExternalSorter::Batch batch;
        size_t left = 0;
        for (const auto& [k, seq, v] : w) {
          if (left == 0) left = 1 + batch_rng() % 300;
          batch.Add(k, seq, v);
          if (--left == 0) ASSERT_OK(sorter.AddBatch(&batch));
        }
        ASSERT_OK(sorter.AddBatch(&batch));
        EXPECT_EQ(batch.bytes(), 0u);
      });
      for (auto& t : threads) t.join();
      added = sorter.records();
      if (budget < (1 << 20)) {
        EXPECT_GT(sorter.runs(), 10u);
      } else {
        EXPECT_EQ(sorter.runs(), 0u);
      }
      // Twice: a restore merges its index entries again when it must skip
      // some (the runs and the buffer kept in memory are read anew).
      for (int round = 0; round < 2; ++round) {
        auto it = model.begin();
        int64_t out = 0, dropped = 0;
        ASSERT_OK(sorter.Merge(
            [&](std::string_view k, uint64_t seq, std::string_view v) {
              EXPECT_NE(it, model.end());
              if (it == model.end()) return Status::Internal("too many");
              EXPECT_EQ(k, it->first);
              EXPECT_EQ(seq, it->second.first);
              EXPECT_EQ(v, it->second.second);
              ++it;
              ++out;
              return Status::OK();
            },
            [&](std::string_view k, uint64_t seq, std::string_view) {
              EXPECT_LT(seq, model.at(std::string(k)).first);
              ++dropped;
              return Status::OK();
            }));
        EXPECT_EQ(it, model.end());
        EXPECT_EQ(out, static_cast<int64_t>(model.size()));
        EXPECT_EQ(out + dropped, added);
      }
    }
    fs::remove_all(dir);
  }
}

// Runs are compressed chunks of about a megabyte: records larger than a
// chunk (a 400 KB item is far from it, but nothing bounds a record) come
// back whole, records straddling chunk boundaries too; a run cut short,
// inside a chunk or exactly between two, or with a damaged chunk, is an
// IOError naming it, not a silent end.
TEST(ExternalSorterTest, LargeRecordsAndTruncatedRuns) {
  const std::string dir = testing::MakeTempDir();
  std::map<std::string, std::string> model;
  {
    bulk::ExternalSorter sorter(dir, 4 << 20);  // a spill every 2 MB
    for (int i = 0; i < 40; ++i) {
      std::string key = "k" + std::to_string(1000 + i);
      std::string value(i % 7 == 0 ? (3 << 19) + i : 1000 + 997 * i,
                        static_cast<char>('a' + i % 26));
      ASSERT_OK(sorter.Add(key, static_cast<uint64_t>(i + 1), value));
      model[key] = value;
    }
    ASSERT_GT(sorter.runs(), 2u);
    auto it = model.begin();
    ASSERT_OK(sorter.Merge([&](std::string_view k, uint64_t, std::string_view v) {
      EXPECT_NE(it, model.end());
      if (it == model.end()) return Status::Internal("too many");
      EXPECT_EQ(k, it->first);
      EXPECT_EQ(v.size(), it->second.size());
      EXPECT_EQ(v, it->second);
      ++it;
      return Status::OK();
    }));
    EXPECT_EQ(it, model.end());

    auto merge = [&] {
      return sorter.Merge(
          [](std::string_view, uint64_t, std::string_view) { return Status::OK(); });
    };
    auto read = [](const fs::path& p) {
      std::ifstream in(p, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    auto write = [](const fs::path& p, const std::string& bytes) {
      std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
    };
    // A run's chunks: raw size, compressed size (uint32 big-endian), frame.
    auto chunk_starts = [](const std::string& bytes) {
      std::vector<size_t> starts;
      for (size_t at = 0; at + 8 <= bytes.size();) {
        starts.push_back(at);
        std::string_view header(bytes.data() + at + 4, 4);
        uint32_t packed = 0;
        format::GetFixed32BE(&header, &packed);
        at += 8 + packed;
      }
      return starts;
    };

    // A run of two chunks or more, cut between its last two.
    std::string name, whole;
    std::vector<size_t> starts;
    for (size_t i = 0; i < sorter.runs() && starts.size() < 2; ++i) {
      name = "run-" + std::to_string(i);
      whole = read(fs::path(dir) / name);
      starts = chunk_starts(whole);
    }
    ASSERT_GE(starts.size(), 2u);
    const fs::path run = fs::path(dir) / name;
    write(run, whole.substr(0, starts.back()));
    Status merged = merge();
    EXPECT_EQ(merged.code(), Status::Code::kIOError);
    EXPECT_NE(merged.message().find(name + ": a sort run is truncated"), std::string::npos)
        << merged.ToString();

    // Its last chunk's frame damaged.
    std::string damaged = whole;
    damaged[starts.back() + 8 + 4] ^= 0x5a;
    damaged[damaged.size() - 3] ^= 0x5a;
    write(run, damaged);
    merged = merge();
    EXPECT_EQ(merged.code(), Status::Code::kIOError);
    EXPECT_NE(merged.message().find(name + ": a sort run is damaged"), std::string::npos)
        << merged.ToString();

    // Its last chunk's header claiming 4 GB: damage, not an allocation.
    damaged = whole;
    for (size_t i = 0; i < 4; ++i) damaged[starts.back() + i] = '\xff';
    write(run, damaged);
    merged = merge();
    EXPECT_EQ(merged.code(), Status::Code::kIOError);
    EXPECT_NE(merged.message().find(name + ": a sort run is damaged"), std::string::npos)
        << merged.ToString();

    // Its last 10 bytes lost.
    write(run, whole.substr(0, whole.size() - 10));
    merged = merge();
    EXPECT_EQ(merged.code(), Status::Code::kIOError);
    EXPECT_NE(merged.message().find(name + ": a sort run is truncated"), std::string::npos)
        << merged.ToString();

    // Whole again, it merges again.
    write(run, whole);
    EXPECT_OK(merge());
  }
  fs::remove_all(dir);
}

// The dump's table definition is CreateTable's JSON and reads back as the
// same request.
TEST(TableDefinitionTest, RoundTripsThroughCreateTableJson) {
  const std::string dir = testing::MakeTempDir();
  {
    auto db = Database::Open(dir, {});
    ASSERT_OK(db);
    CreateTableRequest r = FleetTable("Fleet");
    r.tags = std::map<std::string, std::string>{{"team", "fleet"}};
    r.stream_specification = StreamSpecification{true, StreamViewType::kNewImage};
    r.table_class = TableClass::kStandardInfrequentAccess;
    ASSERT_OK((*db)->CreateTable(r));
    auto d = (*db)->DescribeTable({.table_name = "Fleet"});
    ASSERT_OK(d);
    const std::string json = wire::TableDefinitionJson(d->table, *r.tags, "expiresAt");
    auto back = wire::ParseTableDefinition(json);
    ASSERT_OK(back);
    EXPECT_EQ(back->ttl_attribute, "expiresAt");
    EXPECT_EQ(back->table.table_name, "Fleet");
    EXPECT_EQ(back->table.key_schema.size(), 2u);
    EXPECT_EQ(back->table.attribute_definitions.size(), 4u);
    EXPECT_EQ(back->table.billing_mode, BillingMode::kPayPerRequest);
    ASSERT_TRUE(back->table.global_secondary_indexes);
    EXPECT_EQ((*back->table.global_secondary_indexes)[0].projection.non_key_attributes,
              std::vector<std::string>{"speed"});
    ASSERT_TRUE(back->table.local_secondary_indexes);
    EXPECT_EQ(back->table.tags, r.tags);
    ASSERT_TRUE(back->table.stream_specification);
    EXPECT_EQ(back->table.stream_specification->stream_view_type, StreamViewType::kNewImage);
    EXPECT_EQ(back->table.table_class, TableClass::kStandardInfrequentAccess);  // kept by a dump
    // CreateTable's own checks apply to a hand-written definition.
    auto bad = wire::ParseTableDefinition(R"({"TableName":"x","KeySchema":"nope"})");
    EXPECT_FALSE(bad.ok());
  }
  fs::remove_all(dir);
}

// ---- The command line, and SIGKILL during a restore -------------------------------------

int RunTool(const std::vector<std::string>& args, pid_t* pid_out = nullptr) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  if (pid_out) {
    *pid_out = pid;
    return 0;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(BulkTest, CommandLineDumpAndRestore) {
  LoadFleet("Fleet", 5, 30);
  ASSERT_OK(
      db_->UpdateTimeToLive({.table_name = "Fleet", .time_to_live_specification = {true, "exp"}}));
  db_.reset();  // restore writes the directory: no other writer may hold it
  ASSERT_EQ(RunTool({DYNAROCK_PATH, "dump", dir_, "Fleet", out_, "--format", "ION"}), 0);
  ASSERT_EQ(RunTool({DYNAROCK_PATH, "restore", dir_, out_, "--table", "Back"}), 0);
  // Restoring again: the table exists, exit 1.
  EXPECT_EQ(RunTool({DYNAROCK_PATH, "restore", dir_, out_, "--table", "Back"}), 1);
  Reopen();
  ExpectSameTable("Fleet", "Back", 5);
  auto ttl = db_->DescribeTimeToLive({.table_name = "Back"});
  ASSERT_OK(ttl);
  EXPECT_TRUE(ttl->enabled);
  EXPECT_EQ(ttl->attribute_name, "exp");

  // ImportTable-style input: a tab-separated file, the delimiter given as \t.
  auto d = db_->DescribeTable({.table_name = "Fleet"});
  ASSERT_OK(d);
  const std::string definition = (fs::path(out_) / "def.json").string();
  std::ofstream(definition) << wire::TableDefinitionJson(d->table, {}, std::nullopt);
  const std::string tsv = (fs::path(out_) / "readings.tsv").string();
  std::ofstream(tsv) << "PK\tSK\tspeed\nVEH#1\tTS#1\t12\nVEH#1\tTS#2\t13\n";
  db_.reset();
  EXPECT_EQ(RunTool({DYNAROCK_PATH, "restore", dir_, tsv, "--table-definition", definition,
                     "--table", "Tsv", "--input-format", "CSV", "--csv-delimiter", "\\t"}),
            0);
  Reopen();
  EXPECT_EQ(QueryAll(db_.get(), "Tsv", "BySpeed", "PK", S("VEH#1"), true).size(), 2u);
}

// ---- The move to version 2 of the item encoding (storage format 10) ---------------------

// A table's interned names as its catalog holds them, loaded as Open loads
// them, for reading its items around the engine (it interns nothing new).
std::unique_ptr<format::NameDictionary> CatalogNames(const testing::RawDb& raw,
                                                     uint32_t space_id) {
  auto names = std::make_unique<format::NameDictionary>(
      [](uint32_t, std::string_view) { return Status::NotSupported("read only"); });
  const std::string prefix = InternedNamesPrefix(space_id);
  std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator({}, raw.cf("catalog")));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    const auto id = static_cast<uint32_t>(
        std::stoul(it->key().ToString().substr(prefix.size()), nullptr, 16));
    EXPECT_OK(names->Load(id, it->value().ToString()));
  }
  return names;
}

// The fleet table's key attributes (FleetTable, the database's first table:
// space id 1) and its interned names in `raw`'s catalog.
format::StoredKeySchema FleetKey(format::NameDictionary* names) {
  return {{"PK", ScalarAttributeType::kS},
          format::KeyAttributeRef{"SK", ScalarAttributeType::kS},
          names};
}

// How the value at `key` is stored: a table item of the fleet table, or
// (`index_entry`) an entry of the fleet table's index whose space id the key
// starts with, the index's key schema read from `raw`'s catalog.
format::StoredKeySchema SchemaAt(const testing::RawDb& raw, bool index_entry, std::string_view key,
                                 format::NameDictionary* names) {
  if (!index_entry) return FleetKey(names);
  std::string descriptor;
  EXPECT_OK(raw.db()->Get({}, raw.cf("catalog"), std::string(kCatalogTablePrefix) + "Fleet",
                          &descriptor));
  // Views into the descriptor: kept for the test's life.
  static std::deque<TableInfo> tables;
  tables.push_back(DecodeTableDescriptor(descriptor).value());
  uint32_t space_id = 0;
  EXPECT_TRUE(format::GetFixed32BE(&key, &space_id));
  for (const IndexInfo& index : tables.back().indexes) {
    if (index.space_id != space_id) continue;
    format::StoredKeySchema keys = tables.back().stored_key(index);
    keys.names = names;
    return keys;
  }
  ADD_FAILURE() << "no index with space id " << space_id;
  return FleetKey(names);
}

// Turns the database in `dir` into the one an older Dynarock left, with
// every column family flushed so that the old values sit in files as they
// would, and the format record at `version`:
//   9: every item and index entry in version 1 of the item encoding;
//   10: every item and index entry whole (with its key attributes), in version 2;
//   11: every item without its key attributes, names written out (03);
//       index entries whole;
//   12: items as now; index entries whole.
// Returns how many values were rewritten.
int64_t MakeOlderFormat(const std::string& dir, uint32_t version) {
  testing::RawDb raw(dir);
  const auto names = CatalogNames(raw, 1);
  int64_t n = 0;
  for (const char* cf : {"items", "indexes"}) {
    const bool items = std::string_view(cf) == "items";
    if (version == 12 && items) continue;  // items were stored as now
    rocksdb::WriteBatch batch;
    std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator({}, raw.cf(cf)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const format::StoredKeySchema keys =
          SchemaAt(raw, !items, it->key().ToStringView(), names.get());
      auto item = format::DecodeStoredItem(it->key().ToStringView(), it->value().ToStringView(), keys);
      EXPECT_OK(item);
      if (!item.ok()) continue;
      EXPECT_OK(batch.Put(raw.cf(cf), it->key(),
                          version == 9                 ? testing::EncodeItemV1(*item)
                          : version == 10 || !items    ? format::EncodeItem(*item)
                                                       : testing::EncodeTableItemFormat11(*item, keys)));
      ++n;
    }
    EXPECT_OK(raw.db()->Write({}, &batch));
    EXPECT_OK(raw.db()->Flush({}, raw.cf(cf)));
  }
  EXPECT_OK(raw.db()->Put({}, raw.cf("catalog"), "format", EncodeFormatRecord(version)));
  EXPECT_OK(raw.db()->Flush({}, raw.cf("catalog")));
  return n;
}

// Items and index entries, {in an older encoding, in the current one}: each
// as EncodeItemWithoutKey writes it now (without the attributes its key
// holds, names by reference). Every value must read, either way.
std::pair<int64_t, int64_t> CountEncodings(const std::string& dir) {
  testing::RawDb raw(dir);
  const auto names = CatalogNames(raw, 1);
  std::pair<int64_t, int64_t> counts;
  for (const char* cf : {"items", "indexes"}) {
    const bool items = std::string_view(cf) == "items";
    std::unique_ptr<rocksdb::Iterator> it(raw.db()->NewIterator({}, raw.cf(cf)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string key = it->key().ToString(), value = it->value().ToString();
      EXPECT_OK(format::DecodeStoredItem(key, value, SchemaAt(raw, !items, key, names.get())));
      ++(format::IsCurrentTableItem(value) ? counts.second : counts.first);
    }
  }
  return counts;
}

class ItemMoveTest : public BulkTest {
 protected:
  // Everything a reader can see of the fleet table, as JSON: the table,
  // both indexes, each collection newest first, each depot's GSI
  // collection, and the statistics.
  std::vector<std::string> Everything(int vehicles) {
    std::vector<std::string> out = ScanAll(db_.get(), "Fleet");
    for (const char* index : {"ByDepot", "BySpeed"}) {
      auto all = ScanAll(db_.get(), "Fleet", index);
      out.insert(out.end(), all.begin(), all.end());
    }
    for (int v = 0; v < vehicles; ++v) {
      auto c = QueryAll(db_.get(), "Fleet", "", "PK", S("VEH#" + std::to_string(v)), false);
      out.insert(out.end(), c.begin(), c.end());
    }
    for (int d = 0; d < 4; ++d) {
      auto c = QueryAll(db_.get(), "Fleet", "ByDepot", "depot", S("DEP-" + std::to_string(d)), false);
      out.insert(out.end(), c.begin(), c.end());
    }
    auto d = db_->DescribeTable({.table_name = "Fleet"});
    EXPECT_OK(d);
    if (d.ok()) {
      out.push_back(std::to_string(d->table.item_count) + " " +
                    std::to_string(d->table.table_size_bytes));
    }
    return out;
  }

  // A recount that finds nothing to correct and nothing unreadable.
  void ExpectExactStatistics() {
    auto report = db_->RecountStatistics();
    ASSERT_OK(report);
    EXPECT_EQ(report->collections_corrected, 0);
    EXPECT_EQ(report->table_totals_corrected, 0);
    EXPECT_EQ(report->index_totals_corrected, 0);
    EXPECT_EQ(report->unreadable_items, 0);
  }
};

// Databases of storage formats 9 (version 1 items), 10 (whole items), 11
// (table items with names written out) and 12 (whole index entries) open,
// answer every read at once from the old bytes, and `dynarock compact`
// moves every item and index entry to the current encoding without
// changing an answer or a counter.
class ItemMoveFromTest : public ItemMoveTest, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(ItemMoveFromTest, AnOlderDatabaseServesAtOnceAndMovesByCompaction) {
  constexpr int kVehicles = 12;
  LoadFleet("Fleet", kVehicles, 40);
  const std::vector<std::string> want = Everything(kVehicles);
  db_.reset();
  const int64_t values = MakeOlderFormat(dir_, GetParam());
  // Every item (and index entry); for 12, the index entries alone.
  ASSERT_GE(values, GetParam() == 12 ? kVehicles : kVehicles * 41);
  Reopen();
  EXPECT_EQ(Everything(kVehicles), want);
  // Stored pages hand out views of version 2 bytes even for version 1 items.
  QueryRequest q;
  q.table_name = "Fleet";
  q.key_condition_expression = "PK = :p";
  q.expression_attribute_values = ExpressionAttributeValues{{":p", S("VEH#3")}};
  q.item_encoding = ItemEncoding::kStored;
  auto page = db_->Query(q);
  ASSERT_OK(page);
  ASSERT_EQ(page->stored_items.size(), 41u);
  for (const ItemView& item : page->stored_items) {
    auto decoded = item.Decode();
    ASSERT_OK(decoded);
    EXPECT_EQ(decoded->at("PK"), S("VEH#3"));
  }
  ExpectExactStatistics();
  db_.reset();
  {
    testing::RawDb raw(dir_);
    std::string record;
    ASSERT_OK(raw.db()->Get({}, raw.cf("catalog"), "format", &record));
    EXPECT_EQ(record, EncodeFormatRecord(kStorageFormatVersion));
    EXPECT_EQ(kStorageFormatVersion, 19u);
  }
  const auto before = CountEncodings(dir_);
  EXPECT_GT(before.first, 0);  // nothing compacted them yet: the reads above read old bytes
  EXPECT_GE(before.first + before.second, values);

  ASSERT_EQ(RunTool({DYNAROCK_PATH, "compact", dir_}), 0);
  const auto after = CountEncodings(dir_);
  EXPECT_EQ(after.first, 0);
  EXPECT_EQ(after.second, before.first + before.second);
  Reopen();
  EXPECT_EQ(Everything(kVehicles), want);
  ExpectExactStatistics();
}

INSTANTIATE_TEST_SUITE_P(StorageFormats, ItemMoveFromTest, ::testing::Values(9u, 10u, 11u, 12u));

// SIGKILL in the middle of the move loses nothing: after each kill the
// database reopens with every item, index entry and counter as before, in
// whatever mix of versions the kill left; a last compaction completes it.
TEST_F(ItemMoveTest, SigkillDuringTheMoveLosesNothing) {
  std::mt19937_64 rng(testing::TestSeed("ItemMoveTest.SigkillDuringTheMoveLosesNothing"));
  constexpr int kVehicles = 40;
  LoadFleet("Fleet", kVehicles, 150);
  const std::vector<std::string> want = Everything(kVehicles);
  db_.reset();
  MakeOlderFormat(dir_, 9);
  const auto counted = CountEncodings(dir_);
  const int64_t values = counted.first + counted.second;
  // How long a whole move takes here, on a copy: kills land within it.
  const std::string copy = out_ + "/timing";
  fs::copy(dir_, copy, fs::copy_options::recursive);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(RunTool({DYNAROCK_PATH, "compact", copy}), 0);
  const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  fs::remove_all(copy);
  int killed_running = 0;
  for (int cycle = 0; cycle < 5; ++cycle) {
    pid_t pid = 0;
    RunTool({DYNAROCK_PATH, "compact", dir_}, &pid);
    std::this_thread::sleep_for(
        std::chrono::microseconds(static_cast<int64_t>(rng() % static_cast<uint64_t>(whole))));
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) ++killed_running;
    const auto counts = CountEncodings(dir_);
    EXPECT_EQ(counts.first + counts.second, values) << "cycle " << cycle;
    Reopen();
    EXPECT_EQ(Everything(kVehicles), want) << "cycle " << cycle;
    ExpectExactStatistics();
    db_.reset();
  }
  EXPECT_GT(killed_running, 0);  // at least one kill landed mid-move
  ASSERT_EQ(RunTool({DYNAROCK_PATH, "compact", dir_}), 0);
  EXPECT_EQ(CountEncodings(dir_), std::make_pair(int64_t{0}, values));
  Reopen();
  EXPECT_EQ(Everything(kVehicles), want);
}

// ---- What restore refuses: a destination that is not a database, a source that is
// not data. Each refusal exits 1 and creates nothing.

struct ToolRun {
  int rc = -1;
  std::string out, err;
};

// Runs the tool with its stdout and stderr captured (through files in
// `scratch`, which must be outside every folder a test compares).
ToolRun RunToolCaptured(const std::vector<std::string>& args, const std::string& scratch) {
  const std::string out_path = (fs::path(scratch) / "tool.stdout").string();
  const std::string err_path = (fs::path(scratch) / "tool.stderr").string();
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  waitpid(pid, &status, 0);
  ToolRun run;
  run.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  run.out = slurp(out_path);
  run.err = slurp(err_path);
  return run;
}

// Every entry under `dir`, by relative path: its kind, permissions, size and
// bytes. Equal snapshots: the folder is byte for byte as it was.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> entries;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const fs::file_status st = e.symlink_status();
    std::string v = std::to_string(static_cast<int>(st.type())) + " " +
                    std::to_string(static_cast<unsigned>(st.permissions()));
    if (fs::is_regular_file(st)) {
      std::ifstream in(e.path(), std::ios::binary);
      v += " " + std::to_string(fs::file_size(e.path())) + " " +
           std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    entries[fs::relative(e.path(), dir).string()] = v;
  }
  return entries;
}

// What the tool prints for a failed status.
// The CLI's one line for a failure: its message (tools/cli_text.h Explain).
std::string ErrorLine(const Status& s) { return "error: " + s.message() + "\n"; }

class RestoreRefusalTest : public BulkTest {
 protected:
  void SetUp() override {
    BulkTest::SetUp();
    Create(FleetTable("Fleet"));
    auto d = db_->DescribeTable({.table_name = "Fleet"});
    ASSERT_OK(d);
    definition_ = (fs::path(out_) / "def.json").string();
    std::ofstream(definition_) << wire::TableDefinitionJson(d->table, {}, std::nullopt);
    items_ = (fs::path(out_) / "items.json").string();
    std::ofstream f(items_);
    for (int i = 0; i <= 5; ++i) {
      f << format::ItemLine(format::ExportFormat::kDynamoDbJson, Reading(1, i)) << "\n";
    }
  }

  ToolRun Restore(const std::string& db, const std::string& source,
                  const std::string& input_format = "DYNAMODB_JSON") {
    return RunToolCaptured({DYNAROCK_PATH, "restore", db, source, "--table-definition", definition_,
                            "--table", "Restored", "--input-format", input_format},
                           out_);
  }

  // Restore into `folder`, a non-empty folder that is no database, is
  // refused as Open refuses it (dump and collection print the same) and
  // leaves it as it was.
  void ExpectRefusedAndUnchanged(const std::string& folder) {
    const auto before = Snapshot(folder);
    ASSERT_FALSE(before.empty());
    const ToolRun run = Restore(folder, items_);
    EXPECT_EQ(run.rc, 1) << run.err;
    const std::string expected =
        ErrorLine(Status::InvalidArgument(folder + " holds no Dynarock database"));
    EXPECT_EQ(run.err, expected);
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(Snapshot(folder), before);  // no LOCK, LOG, CURRENT, ... added or changed
    // The message of the check that `dynarock collections` (a read-only Open) makes.
    const ToolRun collections =
        RunToolCaptured({DYNAROCK_PATH, "collections", folder, "Restored"}, out_);
    EXPECT_EQ(collections.rc, 1);
    EXPECT_EQ(collections.err, expected);
    EXPECT_EQ(Snapshot(folder), before);
  }

  std::string definition_, items_;
};

TEST_F(RestoreRefusalTest, AFolderOfOtherFilesIsRefusedAndLeftAsItWas) {
  const std::string folder = (fs::path(out_) / "documents").string();
  fs::create_directories(fs::path(folder) / "drafts");
  std::ofstream(fs::path(folder) / "notes.txt") << "remember the milk\n";
  std::ofstream(fs::path(folder) / "drafts" / "letter.md") << "# Dear reader\n";
  std::ofstream(fs::path(folder) / "empty");
  ExpectRefusedAndUnchanged(folder);
  // Nor is a file a destination.
  const auto before = Snapshot(folder);
  const std::string file = (fs::path(folder) / "notes.txt").string();
  const ToolRun run = Restore(file, items_);
  EXPECT_EQ(run.rc, 1);
  EXPECT_EQ(run.err, ErrorLine(Status::InvalidArgument(file + " is not a directory")));
  EXPECT_EQ(Snapshot(folder), before);
}

TEST_F(RestoreRefusalTest, AFolderWithAStrayCurrentFileIsRefusedAndLeftAsItWas) {
  const std::string folder = (fs::path(out_) / "stray").string();
  fs::create_directories(folder);
  std::ofstream(fs::path(folder) / "CURRENT") << "MANIFEST-000001\n";
  ExpectRefusedAndUnchanged(folder);
  EXPECT_FALSE(fs::exists(fs::path(folder) / "LOCK"));
  EXPECT_FALSE(fs::exists(fs::path(folder) / "LOG"));
}

TEST_F(RestoreRefusalTest, ASourceThatIsNotAFileOrAFolderIsRefusedInEveryFormat) {
  const std::string fifo = (fs::path(out_) / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  db_.reset();  // the existing database is a destination too
  const std::string fresh = (fs::path(out_) / "fresh.db").string();
  const std::vector<std::pair<std::string, std::string>> sources = {
      {"/dev/zero", "a character device"},
      {"/dev/null", "a character device"},
      {fifo, "a FIFO"},
  };
  for (const auto& [source, kind] : sources) {
    for (const std::string input_format : {"DYNAMODB_JSON", "ION", "CSV"}) {
      SCOPED_TRACE(source + " " + input_format);
      const std::string expected =
          ErrorLine(Status::InvalidArgument(source + " is " + kind + ", not a file or a folder"));
      ToolRun run = Restore(fresh, source, input_format);
      EXPECT_EQ(run.rc, 1);
      EXPECT_EQ(run.err, expected);
      EXPECT_EQ(run.out, "");
      EXPECT_FALSE(fs::exists(fresh));  // not even the folder
      run = Restore(dir_, source, input_format);
      EXPECT_EQ(run.rc, 1);
      EXPECT_EQ(run.err, expected);
    }
  }
  Reopen();
  auto restored = db_->DescribeTable({.table_name = "Restored"});
  EXPECT_EQ(restored.status().code(), Status::Code::kResourceNotFound);  // no empty table
}

TEST_F(RestoreRefusalTest, WhatAFolderSourceHoldsIsDataOrAnError) {
  db_.reset();
  const std::string fresh = (fs::path(out_) / "fresh.db").string();
  int n = 0;
  // A folder holding a good data file and `plant`; the restore must fail
  // with `message` (about paths under the folder) and create nothing.
  auto expect_refused = [&](const std::function<void(const fs::path&)>& plant,
                            const std::function<Status(const fs::path&)>& message) {
    const fs::path folder = fs::path(out_) / ("in" + std::to_string(n++));
    fs::create_directories(folder / "sub");
    fs::copy_file(items_, folder / "sub" / "items.json");
    plant(folder);
    const ToolRun run = Restore(fresh, folder.string());
    EXPECT_EQ(run.rc, 1) << folder;
    EXPECT_EQ(run.err, ErrorLine(message(folder)));
    EXPECT_FALSE(fs::exists(fresh));
  };
  expect_refused([](const fs::path& f) { ASSERT_EQ(mkfifo((f / "z.fifo").c_str(), 0600), 0); },
                 [](const fs::path& f) {
                   return Status::InvalidArgument((f / "z.fifo").string() +
                                                  " is a FIFO, not a file or a folder");
                 });
  expect_refused([](const fs::path& f) { fs::create_symlink("gone.json", f / "sub" / "a.json"); },
                 [](const fs::path& f) {
                   return Status::InvalidArgument((f / "sub" / "a.json").string() +
                                                  " is a symbolic link to nothing");
                 });
  expect_refused([](const fs::path& f) { fs::create_symlink("..", f / "sub" / "up"); },
                 [](const fs::path& f) {
                   return Status::InvalidArgument(
                       (f / "sub" / "up").string() +
                       " leads back to a folder that holds it (a loop of symbolic links)");
                 });
}

TEST_F(RestoreRefusalTest, ASubfolderThatCannotBeListedIsAnError) {
  if (geteuid() == 0) GTEST_SKIP() << "root lists every folder";
  db_.reset();
  const std::string fresh = (fs::path(out_) / "fresh.db").string();
  const fs::path folder = fs::path(out_) / "in";
  fs::create_directories(folder / "locked");
  fs::copy_file(items_, folder / "items.json");
  fs::copy_file(items_, folder / "locked" / "more.json");
  fs::permissions(folder / "locked", fs::perms::none);
  const ToolRun run = Restore(fresh, folder.string());
  fs::permissions(folder / "locked", fs::perms::owner_all);  // for the clean-up
  EXPECT_EQ(run.rc, 1);
  EXPECT_EQ(run.err, ErrorLine(Status::IOError((folder / "locked").string() +
                                               " cannot be listed: Permission denied")));
  EXPECT_FALSE(fs::exists(fresh));
}

TEST_F(RestoreRefusalTest, RestoresIntoANewAndAnEmptyFolderStillWork) {
  db_.reset();
  // A new folder, from a symbolic link to a data file.
  const std::string link = (fs::path(out_) / "link.json").string();
  fs::create_symlink(items_, link);
  const std::string fresh = (fs::path(out_) / "fresh.db").string();
  ToolRun run = Restore(fresh, link);
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_TRUE(run.out.starts_with("restored Restored: 6 items (6 read, 0 skipped)")) << run.out;
  {
    auto db = Database::Open(fresh, {});
    ASSERT_OK(db);
    EXPECT_EQ(ScanAll(db->get(), "Restored").size(), 6u);
  }
  // An empty folder, from a folder whose subfolder is a symbolic link to
  // another folder of data files.
  const std::string empty = (fs::path(out_) / "empty.db").string();
  fs::create_directories(empty);
  const fs::path other = fs::path(out_) / "other";
  fs::create_directories(other);
  std::ofstream(other / "more.json")
      << format::ItemLine(format::ExportFormat::kDynamoDbJson, Reading(2, 0)) << "\n"
      << format::ItemLine(format::ExportFormat::kDynamoDbJson, Reading(2, 1)) << "\n";
  const fs::path in = fs::path(out_) / "in";
  fs::create_directories(in);
  fs::copy_file(items_, in / "items.json");
  fs::create_directory_symlink(other, in / "linked");
  run = Restore(empty, in.string());
  ASSERT_EQ(run.rc, 0) << run.err;
  EXPECT_TRUE(run.out.starts_with("restored Restored: 8 items (8 read, 0 skipped)")) << run.out;
  {
    auto db = Database::Open(empty, {});
    ASSERT_OK(db);
    EXPECT_EQ(ScanAll(db->get(), "Restored").size(), 8u);
  }
  // And again into that folder, now a database: the table exists, exit 1,
  // and the message names the way out.
  run = Restore(empty, in.string());
  EXPECT_EQ(run.rc, 1);
  EXPECT_EQ(run.err,
            "error: Table already exists: Restored; restore it under another name with "
            "--table NAME\n");
}

TEST_F(BulkTest, SigkillDuringRestoreLeavesTheTargetUnchanged) {
  std::mt19937_64 rng(testing::TestSeed("BulkTest.SigkillDuringRestoreLeavesTheTargetUnchanged"));
  // Input written directly: 60,000 items in one plain file.
  const std::string input = (fs::path(out_) / "items.json").string();
  {
    std::ofstream f(input);
    for (int v = 0; v < 300; ++v) {
      for (int i = 0; i < 200; ++i) {
        f << format::ItemLine(format::ExportFormat::kDynamoDbJson, Reading(v, i)) << "\n";
      }
    }
  }
  const std::string definition = (fs::path(out_) / "def.json").string();
  {
    Create(FleetTable("Fleet"));
    auto d = db_->DescribeTable({.table_name = "Fleet"});
    ASSERT_OK(d);
    std::ofstream(definition) << wire::TableDefinitionJson(d->table, {}, std::nullopt);
    Put("Fleet", Reading(1, 1));
  }
  db_.reset();
  // How long a whole restore takes here, into a scratch database.
  const std::string scratch = testing::MakeTempDir();
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(RunTool({DYNAROCK_PATH, "restore", scratch, input, "--table-definition", definition,
                     "--table", "Target", "--memory-mb", "16"}),
            0);
  const auto full =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  fs::remove_all(scratch);

  int absent = 0;
  for (int cycle = 0; cycle < 5; ++cycle) {
    pid_t pid = 0;
    RunTool({DYNAROCK_PATH, "restore", dir_, input, "--table-definition", definition, "--table",
             "Target", "--memory-mb", "16"},
            &pid);
    const auto delay =
        20 +
        static_cast<int64_t>(rng() % static_cast<uint64_t>(std::max<int64_t>(full * 9 / 10, 40)));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    Reopen();
    // The other table is untouched; the target is absent or whole.
    EXPECT_EQ(ScanAll(db_.get(), "Fleet").size(), 1u);
    auto d = db_->DescribeTable({.table_name = "Target"});
    if (!d.ok()) {
      EXPECT_EQ(d.status().code(), Status::Code::kResourceNotFound);
      ++absent;
    } else {
      EXPECT_EQ(d->table.item_count, 60000) << "cycle " << cycle << " after " << delay << " ms";
      EXPECT_EQ(ScanAll(db_.get(), "Target").size(), 60000u);
      auto report = db_->RecountStatistics();
      ASSERT_OK(report);
      EXPECT_EQ(report->collections_corrected + report->table_totals_corrected +
                    report->index_totals_corrected,
                0);
      ASSERT_OK(db_->DeleteTable({.table_name = "Target"}));
    }
    // Open removed the killed restore's scratch directory.
    for (const auto& entry : fs::directory_iterator(dir_)) {
      EXPECT_FALSE(entry.path().filename().string().starts_with("restore-scratch-"));
    }
    db_.reset();
  }
  EXPECT_GE(absent, 1) << "every kill came after the restore had finished (" << full << " ms)";
  Reopen();
}

}  // namespace
}  // namespace dynarock
