// Whole-table export and import (dump and restore) in DynamoDB's own export
// format: the types of Database::ExportTable and Database::ImportTable.
//
// An export is what DynamoDB's ExportTableToPointInTime writes to S3, with a
// directory standing for the bucket (format/export_format.h):
//
//   <bucket_dir>/[<prefix>/]AWSDynamoDB/<ExportId>/
//       _started
//       manifest-summary.json   manifest-summary.md5
//       manifest-files.json     manifest-files.md5
//       data/<26 base32 chars>.json.gz      (.ion.gz for ION), one per segment
//
// An import reads such data files (or ImportTable's inputs: DYNAMODB_JSON,
// ION or CSV; gzip, zstd or plain) into a new table, built as SST files and
// ingested in one step, so that it lands whole or not at all.
#ifndef DYNAROCK_BULK_H_
#define DYNAROCK_BULK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/types.h"

namespace dynarock {

enum class ExportFormat { kDynamoDbJson, kIon };

struct ExportTableOptions {
  std::string table_name{};
  // The directory standing for the S3 bucket. Created if missing.
  std::string bucket_dir{};
  // The bucket name written in manifest-summary.json; empty: the last
  // component of bucket_dir.
  std::string s3_bucket{};
  // S3Prefix: the export goes under <bucket_dir>/<prefix>/AWSDynamoDB/.
  std::optional<std::string> s3_prefix{};
  ExportFormat format = ExportFormat::kDynamoDbJson;
  // Parallel segments (hash ranges, as parallel Scan's), one data file and
  // one thread each. 0: one per core.
  uint32_t segments = 0;
  // The ExportId; empty: DynamoDB's form, %014d (start time, epoch ms) "-"
  // %08x (random).
  std::string export_id{};
  // The StartTime recorded (epoch ms; 0: now), e.g. when the export was asked for.
  int64_t start_time_ms = 0;
  // Called from the segment threads, now and then, with the running totals.
  std::function<void(int64_t items, int64_t bytes)> progress{};
};

struct ExportedFile {
  std::string data_file_s3_key{};  // bucket-relative, prefix included
  int64_t item_count = 0;
  int64_t bytes = 0;  // stored (compressed)
  std::string md5_base64{};
  std::string etag{};
};

struct ExportTableResult {
  std::string export_id{};
  std::string export_arn{};  // arn:aws:dynamodb:<region>:<account>:table/<T>/export/<ExportId>
  std::string table_arn{};
  std::string table_id{};
  std::string export_dir{};            // <bucket_dir>/[<prefix>/]AWSDynamoDB/<ExportId>
  std::string manifest_summary_key{};  // bucket-relative
  int64_t start_time_ms = 0, end_time_ms = 0;
  int64_t export_time_ms = 0;  // the snapshot's point
  int64_t item_count = 0;
  int64_t billed_size_bytes = 0;  // the table's size at the snapshot
  int64_t uncompressed_bytes = 0;
  std::vector<ExportedFile> files{};
};

enum class ImportFormat { kDynamoDbJson, kIon, kCsv };
enum class ImportCompression { kGzip, kZstd, kNone };

// One input object.
struct ImportFile {
  std::string path{};
  // How errors name it (the S3 key of an export's data file); empty: path.
  std::string name{};
  // From an export's manifest: verified after reading the file.
  std::optional<std::string> md5_base64{};
  std::optional<int64_t> item_count{};
};

struct ImportProgress {
  int64_t files_done = 0, files = 0;
  int64_t processed_items = 0;
  int64_t processed_bytes = 0;    // compressed bytes read
  int64_t total_bytes = 0;        // compressed size of every input
  const char* phase = "reading";  // "reading", "sorting", "indexing", "ingesting"
};

struct ImportTableOptions {
  // The table to create, as CreateTable takes it (its checks and errors
  // apply; an existing name is ResourceInUseException). A stream it asks for
  // is enabled once the data is in: restored items make no stream records.
  CreateTableRequest table{};
  // The new table's TableId (a UUID); empty: a new one. ImportTable's job
  // reports the TableId before the table exists.
  std::string table_id{};
  // TTL enabled on this attribute from the start (dumps record it).
  std::optional<std::string> ttl_attribute{};
  std::vector<ImportFile> files{};
  // If set, the folder standing for the S3 bucket the files come from: each
  // ImportFile::path is then an object key below it, opened without
  // following a symbolic link anywhere below the folder (ImportTable's
  // objects; a key with an empty, "." or ".." segment is InvalidArgument, a
  // link IOError). Empty: paths of the caller's choosing (restore).
  std::string bucket_dir{};
  ImportFormat format = ImportFormat::kDynamoDbJson;
  ImportCompression compression = ImportCompression::kGzip;
  // CSV: one of , ; : | \t and space; the header (else the first record).
  char csv_delimiter = ',';
  std::optional<std::vector<std::string>> csv_header{};
  // true: the first bad item aborts the import (InvalidArgument naming its
  // file and line) and nothing is written. false: bad items are skipped and
  // counted, as ImportTable does.
  bool strict = false;
  // The restore's memory: three quarters of it for sorting (what does not
  // fit is spilled to files in the database directory), the rest for
  // reading, writing SST files and RocksDB.
  size_t memory_budget_bytes = size_t{256} << 20;
  // How many item errors ImportTableResult::errors keeps (all are counted).
  size_t max_reported_errors = 100;
  std::function<void(const ImportProgress&)> progress{};
};

struct ImportItemError {
  std::string file{};
  int64_t line = 0;  // 1-based line (CSV: record) in the decompressed file; 0: none
  std::string message{};
};

struct ImportTableResult {
  int64_t processed_items = 0;  // lines that held an item, good or bad
  int64_t imported_items = 0;   // distinct keys written
  int64_t error_count = 0;
  int64_t processed_bytes = 0;  // uncompressed bytes read
  std::vector<ImportItemError> errors{};
  TableDescription table{};
};

// The data files of the export in `export_dir` (the directory holding
// manifest-summary.json), with their checksums and counts from the manifest,
// after checking both manifests against their .md5 (or .checksum) files.
// InvalidArgument naming the file for a missing or damaged manifest or a
// checksum that does not match.
struct ExportManifest {
  ExportFormat format = ExportFormat::kDynamoDbJson;
  int64_t item_count = 0;
  std::string table_arn{};
  std::vector<ImportFile> files{};
};
Result<ExportManifest> ReadExportManifest(const std::string& export_dir);

}  // namespace dynarock

#endif  // DYNAROCK_BULK_H_
