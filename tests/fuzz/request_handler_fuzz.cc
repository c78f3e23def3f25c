// Fuzzes the request handler of `dynarock serve` for every served operation:
// the first input byte picks the operation, the rest is the request body.
// Whatever the bytes, the answer is a 200 or a 400 whose body is JSON, and
// nothing reaches undefined behaviour (ASan/UBSan). A 500 aborts: it means an
// engine invariant broke on input that should have been refused.
//
// The database is real (RocksDB in a temporary directory) and holds a table
// with a sort key, an LSI, a GSI and a multi-attribute GSI (two HASH and two
// RANGE attributes), and a table with vector indexes, so that item
// operations and SearchVectors reach the
// engine; it is recreated every few thousand inputs to bound its size. Export
// and import jobs run for real, in the background, against an S3 folder
// with one bucket, "b".
#include <simdjson.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "tools/server/jobs.h"
#include "tools/server/wire.h"

namespace {

constexpr std::string_view kOperations[] = {
    "BatchGetItem", "BatchWriteItem", "CreateTable", "DeleteItem", "DeleteTable",
    "DescribeEndpoints", "DescribeLimits", "DescribeTable", "DescribeTimeToLive", "GetItem",
    "ListTables", "ListTagsOfResource", "PutItem", "Query", "Scan", "TagResource",
    "TransactGetItems", "TransactWriteItems", "UntagResource", "UpdateItem", "UpdateTable",
    "UpdateTimeToLive",
    // DynamoDB Streams (same handler, its own target prefix).
    "ListStreams", "DescribeStream", "GetShardIterator", "GetRecords",
    // Continuous backups and the Export/Import jobs (appended: the corpus's
    // first bytes keep naming the operations above).
    "UpdateContinuousBackups", "DescribeContinuousBackups", "ExportTableToPointInTime",
    "DescribeExport", "ListExports", "ImportTable", "DescribeImport", "ListImports",
    // PartiQL.
    "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction",
    // Resource-based policies.
    "PutResourcePolicy", "GetResourcePolicy", "DeleteResourcePolicy",
    // Vector indexes.
    "SearchVectors"};
constexpr size_t kFirstStreamsOperation = 22, kEndStreamsOperation = 26;

constexpr char kFleetTable[] = R"({"TableName":"fleet","BillingMode":"PAY_PER_REQUEST",
 "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
 "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},
  {"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"depot","AttributeType":"S"},
  {"AttributeName":"speed","AttributeType":"N"}],
 "LocalSecondaryIndexes":[{"IndexName":"BySpeed","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},
  {"AttributeName":"speed","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],
 "GlobalSecondaryIndexes":[{"IndexName":"ByDepot","KeySchema":[{"AttributeName":"depot","KeyType":"HASH"},
  {"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
  {"IndexName":"ByDepotSpeed","KeySchema":[{"AttributeName":"depot","KeyType":"HASH"},
  {"AttributeName":"speed","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"},
  {"AttributeName":"pk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],
 "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}})";

// A table with two vector indexes: one with a HASH and an INLINE_FILTER
// search attribute, one with neither, on the same 3-dimension vector.
constexpr char kDocsTable[] = R"({"TableName":"docs","BillingMode":"PAY_PER_REQUEST",
 "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
 "AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"},
  {"AttributeName":"tenant","AttributeType":"S"},{"AttributeName":"lang","AttributeType":"S"}],
 "VectorIndexes":[{"IndexName":"ByTenant","VectorAttribute":{"AttributeName":"v"},"Dimensions":3,
  "DistanceFunction":"COSINE","Projection":{"ProjectionType":"ALL"},
  "SearchSchema":[{"AttributeName":"tenant","SearchSchemaElementType":"HASH"},
   {"AttributeName":"lang","SearchSchemaElementType":"INLINE_FILTER"}]},
  {"IndexName":"Everything","VectorAttribute":{"AttributeName":"v"},"Dimensions":3,
  "DistanceFunction":"DOT_PRODUCT","Projection":{"ProjectionType":"KEYS_ONLY"}}]})";

struct Fixture {
  std::string dir;
  std::unique_ptr<dynarock::Database> db;
  std::unique_ptr<dynarock::jobs::JobManager> jobs;
  size_t runs = 0;

  void Reset() {
    jobs.reset();  // waits for running jobs
    db.reset();
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(dir + "-s3");
    std::filesystem::create_directories(dir + "-s3/b");
    dynarock::Options options;
    auto opened = dynarock::Database::Open(dir, options);
    if (!opened.ok()) std::abort();
    db = std::move(*opened);
    auto manager = dynarock::jobs::JobManager::Open(db.get(), {.s3_dir = dir + "-s3"});
    if (!manager.ok()) std::abort();
    jobs = std::move(*manager);
    for (const char* table : {kFleetTable, kDocsTable}) {
      if (dynarock::wire::Handle(db.get(), "DynamoDB_20120810.CreateTable", table).http_status !=
          200) {
        std::abort();
      }
    }
  }
};

Fixture& TheFixture() {
  static Fixture* f = [] {
    auto* fixture = new Fixture;
    fixture->dir = std::filesystem::temp_directory_path() /
                   ("dynarock-request-fuzz-" + std::to_string(getpid()));
    fixture->Reset();
    return fixture;
  }();
  return *f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Fixture& f = TheFixture();
  if (++f.runs % 5000 == 0) f.Reset();
  const size_t op = data[0] % std::size(kOperations);
  std::string target = op >= kFirstStreamsOperation && op < kEndStreamsOperation
                           ? "DynamoDBStreams_20120810."
                           : "DynamoDB_20120810.";
  target += kOperations[op];
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto response = dynarock::wire::Handle(f.db.get(), target, body, {}, f.jobs.get());
  if (response.http_status != 200 && response.http_status != 400) std::abort();
  // TagResource and UntagResource answer with an empty body, as DynamoDB.
  if (response.http_status == 200 && response.body.empty()) return 0;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(response.body).get(root) != simdjson::SUCCESS || !root.is_object()) {
    std::abort();
  }
  return 0;
}
