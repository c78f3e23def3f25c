// ExportTable: a table, read from one RocksDB snapshot in parallel hash-range
// segments, written as DynamoDB's full export (format/export_format.h).

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "engine/db_impl.h"
#include "format/bucket_path.h"
#include "format/data_file.h"
#include "format/export_format.h"

namespace dynarock {
namespace {

namespace fs = std::filesystem;

format::ExportFormat ToFormat(ExportFormat f) {
  return f == ExportFormat::kIon ? format::ExportFormat::kIon : format::ExportFormat::kDynamoDbJson;
}

Result<std::string> ReadWholeFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(path.string() + ": cannot be read");
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::IOError(path.string() + ": read failed");
  return out;
}

// Data file names as AWS's look: 26 characters of base32's alphabet.
std::string DataFileName(std::mt19937_64& rng) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  for (int i = 0; i < 26; ++i) out.push_back(kAlphabet[rng() % 32]);
  return out;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

// Checks `<stem>.json` against `<stem>.md5` or (the guide's name)
// `<stem>.checksum`, and returns the manifest's text.
Result<std::string> ReadCheckedManifest(const fs::path& dir, const std::string& stem) {
  const fs::path json = dir / (stem + ".json");
  DYNAROCK_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(json));
  for (const char* ext : {".md5", ".checksum"}) {
    const fs::path sum = dir / (stem + ext);
    std::error_code ec;
    if (!fs::exists(sum, ec)) continue;
    DYNAROCK_ASSIGN_OR_RETURN(std::string expected, ReadWholeFile(sum));
    expected = Trimmed(std::move(expected));
    const std::string actual = format::Md5Base64(text);
    if (expected != actual) {
      return Status::InvalidArgument(json.string() + ": checksum mismatch: " + sum.string() +
                                     " says " + expected + ", the file's MD5 is " + actual);
    }
    return text;
  }
  return Status::InvalidArgument(json.string() + ": no " + stem + ".md5 or " + stem +
                                 ".checksum beside it");
}

}  // namespace

Result<ExportManifest> ReadExportManifest(const std::string& export_dir) {
  const fs::path dir(export_dir);
  DYNAROCK_ASSIGN_OR_RETURN(std::string summary_text, ReadCheckedManifest(dir, "manifest-summary"));
  DYNAROCK_ASSIGN_OR_RETURN(auto summary, format::ParseManifestSummary(summary_text));
  DYNAROCK_ASSIGN_OR_RETURN(std::string files_text, ReadCheckedManifest(dir, "manifest-files"));
  DYNAROCK_ASSIGN_OR_RETURN(auto files, format::ParseManifestFiles(files_text));
  ExportManifest out;
  out.format = summary.output_format == format::ExportFormat::kIon ? ExportFormat::kIon
                                                                   : ExportFormat::kDynamoDbJson;
  out.table_arn = summary.table_arn;
  int64_t total = 0;
  for (const auto& f : files) {
    // Data files sit in the export's data/ directory whatever the prefix
    // of their keys (the bucket-relative key names the same object).
    const fs::path name = fs::path(f.data_file_s3_key).filename();
    if (name.empty() || name == "." || name == "..") {
      return Status::InvalidArgument((dir / "manifest-files.json").string() +
                                     ": bad dataFileS3Key " + f.data_file_s3_key);
    }
    ImportFile file;
    file.path = (dir / "data" / name).string();
    file.name = f.data_file_s3_key;
    file.md5_base64 = f.md5_checksum;
    file.item_count = f.item_count;
    total += f.item_count;
    out.files.push_back(std::move(file));
  }
  if (summary.item_count != total) {
    return Status::InvalidArgument((dir / "manifest-summary.json").string() + ": itemCount " +
                                   std::to_string(summary.item_count) +
                                   " differs from the data files' total " + std::to_string(total));
  }
  out.item_count = total;
  return out;
}

Result<ExportTableResult> Database::Impl::ExportTable(const ExportTableOptions& o) {
  DYNAROCK_ASSIGN_OR_RETURN(auto state, FindTable(o.table_name, true));
  const TableInfo table = state->info;  // a copy: the export outlives no lock
  const format::ExportFormat fmt = ToFormat(o.format);

  ExportTableResult result;
  result.start_time_ms = o.start_time_ms != 0 ? o.start_time_ms : NowMs();
  std::mt19937_64 rng(std::random_device{}());
  result.export_id = o.export_id;
  if (result.export_id.empty()) {
    char id[32];
    std::snprintf(id, sizeof id, "%014lld-%08x", static_cast<long long>(result.start_time_ms),
                  static_cast<unsigned>(rng() & 0xffffffffu));
    result.export_id = id;
  }
  result.table_arn = TableArn(options_.region, options_.account_id, table.name);
  result.table_id = table.uuid;
  result.export_arn = result.table_arn + "/export/" + result.export_id;

  // Bucket-relative keys, and the folders that hold them: every key is
  // checked before anything is created, and resolved below the bucket's
  // folder without following a link (format::BucketFolder), so a prefix
  // such as "../x" or "/" fails the export instead of writing elsewhere. A
  // prefix's own trailing '/' is its separator.
  std::string key_root;
  if (o.s3_prefix && !o.s3_prefix->empty()) {
    key_root = *o.s3_prefix;
    if (key_root.back() != '/') key_root += '/';
  }
  key_root += "AWSDynamoDB/" + result.export_id;
  DYNAROCK_RETURN_IF_ERROR(format::CheckObjectKey(key_root + "/data"));
  DYNAROCK_ASSIGN_OR_RETURN(auto bucket, format::BucketFolder::Open(o.bucket_dir, true));
  DYNAROCK_ASSIGN_OR_RETURN(format::UniqueFd dir, bucket.OpenFolder(key_root, true));
  DYNAROCK_ASSIGN_OR_RETURN(format::UniqueFd data_dir, bucket.OpenFolder(key_root + "/data", true));
  result.export_dir = bucket.PathOf(key_root);
  key_root += "/";
  DYNAROCK_RETURN_IF_ERROR(
      format::WriteFileSyncedAt(dir.get(), "_started", "", bucket.PathOf(key_root + "_started")));

  // One snapshot for every segment: the export is the table at one point.
  // A read-only (secondary) instance has no snapshots and needs none: it
  // sees the primary as of Open and never catches up.
  const rocksdb::Snapshot* snapshot = options_.read_only ? nullptr : db_->GetSnapshot();
  struct Release {
    rocksdb::DB* db;
    const rocksdb::Snapshot* s;
    ~Release() {
      if (s) db->ReleaseSnapshot(s);
    }
  } release{db_.get(), snapshot};
  result.export_time_ms = NowMs();
  {
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot;
    std::string value;
    Counter c;
    if (db_->Get(ro, stats_cf_, TableStatsKey(table.space_id), &value).ok()) {
      DecodeCounter(value, &c);
    }
    result.billed_size_bytes = c.bytes;
  }

  const uint32_t segments =
      o.segments ? o.segments : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> names(segments);
  for (auto& n : names) n = DataFileName(rng);
  std::vector<Result<format::WrittenFile>> written(segments, Status::Internal("not run"));
  std::atomic<int64_t> items{0}, bytes{0};
  auto run_segment = [&](uint32_t s) -> Result<format::WrittenFile> {
    Number::uint128 lo = 0, hi = 0;
    SegmentHashRange(s, segments, &lo, &hi);
    format::DataFileWriter writer;
    const std::string key = key_root + "data/" + names[s] + format::DataFileExtension(fmt);
    DYNAROCK_ASSIGN_OR_RETURN(format::UniqueFd file, bucket.CreateFile(key));
    DYNAROCK_RETURN_IF_ERROR(writer.Open(std::move(file), bucket.PathOf(key)));
    RangeIterator it(db_.get(), items_cf_, HashBound(table.space_id, lo),
                     HashBound(table.space_id, hi), snapshot);
    std::string value, line;
    int64_t since_report = 0;
    for (; it->Valid(); it->Next()) {
      line.clear();
      DYNAROCK_ASSIGN_OR_RETURN(
          ItemView item,
          format::OpenStoredItem(std::string_view(it->key().data(), it->key().size()),
                                 std::string_view(it->value().data(), it->value().size()),
                                 StoredKey(table), &value));
      DYNAROCK_RETURN_IF_ERROR(format::AppendItemLine(fmt, item, &line));
      DYNAROCK_RETURN_IF_ERROR(writer.AddLine(line));
      ++items;
      bytes += static_cast<int64_t>(line.size() + 1);
      if (o.progress && ++since_report == 4096) {
        since_report = 0;
        o.progress(items.load(), bytes.load());
      }
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    return writer.Finish();
  };
  {
    std::vector<std::thread> threads;
    for (uint32_t s = 0; s < segments; ++s) {
      threads.emplace_back([&, s] { written[s] = run_segment(s); });
    }
    for (auto& t : threads) t.join();
  }
  if (o.progress) o.progress(items.load(), bytes.load());

  std::vector<format::ManifestFile> manifest;
  for (uint32_t s = 0; s < segments; ++s) {
    if (!written[s].ok()) return written[s].status();
    const format::WrittenFile& w = *written[s];
    ExportedFile f;
    f.data_file_s3_key = key_root + "data/" + names[s] + format::DataFileExtension(fmt);
    f.item_count = w.lines;
    f.bytes = w.bytes;
    f.md5_base64 = w.md5_base64;
    f.etag = w.etag;
    result.item_count += w.lines;
    result.uncompressed_bytes += w.uncompressed_bytes;
    manifest.push_back({w.lines, w.md5_base64, w.etag, f.data_file_s3_key});
    result.files.push_back(std::move(f));
  }
  DYNAROCK_RETURN_IF_ERROR(format::SyncFolder(data_dir.get(), bucket.PathOf(key_root + "data")));

  // Each manifest file, created in the export's folder and fsynced.
  auto write = [&](const std::string& name, std::string_view content) {
    return format::WriteFileSyncedAt(dir.get(), name, content, bucket.PathOf(key_root + name));
  };
  const std::string files_json = format::ManifestFilesJson(manifest);
  DYNAROCK_RETURN_IF_ERROR(write("manifest-files.json", files_json));
  DYNAROCK_RETURN_IF_ERROR(write("manifest-files.md5", format::Md5Base64(files_json)));

  result.end_time_ms = std::max(NowMs(), result.start_time_ms + 1);
  format::ManifestSummary summary;
  summary.export_arn = result.export_arn;
  summary.start_time = format::IsoTimestampMs(result.start_time_ms);
  summary.end_time = format::IsoTimestampMs(result.end_time_ms);
  summary.table_arn = result.table_arn;
  summary.table_id = result.table_id;
  summary.export_time = format::IsoTimestampMs(result.export_time_ms);
  const fs::path bucket_path = fs::path(o.bucket_dir).lexically_normal();
  summary.s3_bucket = o.s3_bucket.empty() ? bucket_path.filename().string() : o.s3_bucket;
  if (summary.s3_bucket.empty()) {  // "dir/" has an empty filename
    summary.s3_bucket = bucket_path.parent_path().filename().string();
  }
  if (o.s3_prefix && !o.s3_prefix->empty()) summary.s3_prefix = *o.s3_prefix;
  summary.manifest_files_s3_key = key_root + "manifest-files.json";
  summary.billed_size_bytes = result.billed_size_bytes;
  summary.item_count = result.item_count;
  summary.output_format = fmt;
  const std::string summary_json = format::ManifestSummaryJson(summary);
  DYNAROCK_RETURN_IF_ERROR(write("manifest-summary.json", summary_json));
  DYNAROCK_RETURN_IF_ERROR(write("manifest-summary.md5", format::Md5Base64(summary_json)));
  DYNAROCK_RETURN_IF_ERROR(format::SyncFolder(dir.get(), result.export_dir));
  result.manifest_summary_key = key_root + "manifest-summary.json";
  return result;
}

}  // namespace dynarock
