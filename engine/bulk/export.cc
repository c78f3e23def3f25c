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

// ExportTable's work, one method per phase: name the export, make its
// folders, fix its point in time, write each segment's data file, then the
// manifests.
class Database::Impl::Exporter {
 public:
  Exporter(Impl* impl, const ExportTableOptions& o, TableInfo table)
      : impl_(impl), o_(o), table_(std::move(table)), fmt_(ToFormat(o.format)) {}
  ~Exporter() {
    if (snapshot_) impl_->db_->ReleaseSnapshot(snapshot_);
  }
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  Result<ExportTableResult> Run() {
    Name();
    DYNAROCK_RETURN_IF_ERROR(OpenFolders());
    TakeSnapshot();
    DYNAROCK_RETURN_IF_ERROR(WriteSegments());
    DYNAROCK_RETURN_IF_ERROR(WriteManifests());
    return std::move(result_);
  }

 private:
  // Its id (given, or the start time and a random number), and its ARNs.
  void Name() {
    result_.start_time_ms = o_.start_time_ms != 0 ? o_.start_time_ms : impl_->NowMs();
    result_.export_id = o_.export_id;
    if (result_.export_id.empty()) {
      char id[32];
      std::snprintf(id, sizeof id, "%014lld-%08x", static_cast<long long>(result_.start_time_ms),
                    static_cast<unsigned>(rng_() & 0xffffffffu));
      result_.export_id = id;
    }
    result_.table_arn = TableArn(impl_->options_.region, impl_->options_.account_id, table_.name);
    result_.table_id = table_.uuid;
    result_.export_arn = result_.table_arn + "/export/" + result_.export_id;
  }

  // Bucket-relative keys, and the folders that hold them: every key is
  // checked before anything is created, and resolved below the bucket's
  // folder without following a link (format::BucketFolder), so a prefix
  // such as "../x" or "/" fails the export instead of writing elsewhere. A
  // prefix's own trailing '/' is its separator.
  Status OpenFolders() {
    if (o_.s3_prefix && !o_.s3_prefix->empty()) {
      key_root_ = *o_.s3_prefix;
      if (key_root_.back() != '/') key_root_ += '/';
    }
    key_root_ += "AWSDynamoDB/" + result_.export_id;
    DYNAROCK_RETURN_IF_ERROR(format::CheckObjectKey(key_root_ + "/data"));
    DYNAROCK_ASSIGN_OR_RETURN(auto bucket, format::BucketFolder::Open(o_.bucket_dir, true));
    bucket_.emplace(std::move(bucket));
    DYNAROCK_ASSIGN_OR_RETURN(dir_, bucket_->OpenFolder(key_root_, true));
    DYNAROCK_ASSIGN_OR_RETURN(data_dir_, bucket_->OpenFolder(key_root_ + "/data", true));
    result_.export_dir = bucket_->PathOf(key_root_);
    key_root_ += "/";
    return format::WriteFileSyncedAt(dir_.get(), "_started", "",
                                     bucket_->PathOf(key_root_ + "_started"));
  }

  // One snapshot for every segment: the export is the table at one point.
  // A read-only (secondary) instance has no snapshots and needs none: it
  // sees the primary as of Open and never catches up.
  void TakeSnapshot() {
    snapshot_ = impl_->options_.read_only ? nullptr : impl_->db_->GetSnapshot();
    result_.export_time_ms = impl_->NowMs();
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot_;
    std::string value;
    Counter c;
    if (impl_->db_->Get(ro, impl_->stats_cf_, TableStatsKey(table_.space_id), &value).ok()) {
      DecodeCounter(value, &c);
    }
    result_.billed_size_bytes = c.bytes;
  }

  std::string DataFileKey(uint32_t segment) const {
    return key_root_ + "data/" + names_[segment] + format::DataFileExtension(fmt_);
  }

  // One hash range of the table, as one data file.
  Result<format::WrittenFile> WriteSegment(uint32_t s, uint32_t segments) {
    Number::uint128 lo = 0, hi = 0;
    SegmentHashRange(s, segments, &lo, &hi);
    format::DataFileWriter writer;
    const std::string key = DataFileKey(s);
    DYNAROCK_ASSIGN_OR_RETURN(format::UniqueFd file, bucket_->CreateFile(key));
    DYNAROCK_RETURN_IF_ERROR(writer.Open(std::move(file), bucket_->PathOf(key)));
    RangeIterator it(impl_->db_.get(), impl_->items_cf_, HashBound(table_.space_id, lo),
                     HashBound(table_.space_id, hi), snapshot_);
    std::string value, line;
    int64_t since_report = 0;
    for (; it->Valid(); it->Next()) {
      line.clear();
      DYNAROCK_ASSIGN_OR_RETURN(
          ItemView item,
          format::OpenStoredItem(std::string_view(it->key().data(), it->key().size()),
                                 std::string_view(it->value().data(), it->value().size()),
                                 impl_->StoredKey(table_), &value));
      DYNAROCK_RETURN_IF_ERROR(format::AppendItemLine(fmt_, item, &line));
      DYNAROCK_RETURN_IF_ERROR(writer.AddLine(line));
      ++items_;
      bytes_ += static_cast<int64_t>(line.size() + 1);
      if (o_.progress && ++since_report == 4096) {
        since_report = 0;
        o_.progress(items_.load(), bytes_.load());
      }
    }
    DYNAROCK_RETURN_IF_ERROR(impl_->FromRocks(it->status()));
    return writer.Finish();
  }

  // The segments in parallel, one thread each; then their files' entries.
  Status WriteSegments() {
    const uint32_t segments =
        o_.segments ? o_.segments : std::max(1u, std::thread::hardware_concurrency());
    names_.resize(segments);
    for (auto& n : names_) n = DataFileName(rng_);
    std::vector<Result<format::WrittenFile>> written(segments, Status::Internal("not run"));
    {
      std::vector<std::thread> threads;
      for (uint32_t s = 0; s < segments; ++s) {
        threads.emplace_back([&, s] { written[s] = WriteSegment(s, segments); });
      }
      for (auto& t : threads) t.join();
    }
    if (o_.progress) o_.progress(items_.load(), bytes_.load());
    for (uint32_t s = 0; s < segments; ++s) {
      if (!written[s].ok()) return written[s].status();
      const format::WrittenFile& w = *written[s];
      ExportedFile f;
      f.data_file_s3_key = DataFileKey(s);
      f.item_count = w.lines;
      f.bytes = w.bytes;
      f.md5_base64 = w.md5_base64;
      f.etag = w.etag;
      result_.item_count += w.lines;
      result_.uncompressed_bytes += w.uncompressed_bytes;
      manifest_.push_back({w.lines, w.md5_base64, w.etag, f.data_file_s3_key});
      result_.files.push_back(std::move(f));
    }
    return format::SyncFolder(data_dir_.get(), bucket_->PathOf(key_root_ + "data"));
  }

  // Each manifest file, created in the export's folder and fsynced; the
  // summary last, so that its presence means the export is complete.
  Status WriteManifests() {
    auto write = [&](const std::string& name, std::string_view content) {
      return format::WriteFileSyncedAt(dir_.get(), name, content,
                                       bucket_->PathOf(key_root_ + name));
    };
    const std::string files_json = format::ManifestFilesJson(manifest_);
    DYNAROCK_RETURN_IF_ERROR(write("manifest-files.json", files_json));
    DYNAROCK_RETURN_IF_ERROR(write("manifest-files.md5", format::Md5Base64(files_json)));

    result_.end_time_ms = std::max(impl_->NowMs(), result_.start_time_ms + 1);
    format::ManifestSummary summary;
    summary.export_arn = result_.export_arn;
    summary.start_time = format::IsoTimestampMs(result_.start_time_ms);
    summary.end_time = format::IsoTimestampMs(result_.end_time_ms);
    summary.table_arn = result_.table_arn;
    summary.table_id = result_.table_id;
    summary.export_time = format::IsoTimestampMs(result_.export_time_ms);
    const fs::path bucket_path = fs::path(o_.bucket_dir).lexically_normal();
    summary.s3_bucket = o_.s3_bucket.empty() ? bucket_path.filename().string() : o_.s3_bucket;
    if (summary.s3_bucket.empty()) {  // "dir/" has an empty filename
      summary.s3_bucket = bucket_path.parent_path().filename().string();
    }
    if (o_.s3_prefix && !o_.s3_prefix->empty()) summary.s3_prefix = *o_.s3_prefix;
    summary.manifest_files_s3_key = key_root_ + "manifest-files.json";
    summary.billed_size_bytes = result_.billed_size_bytes;
    summary.item_count = result_.item_count;
    summary.output_format = fmt_;
    const std::string summary_json = format::ManifestSummaryJson(summary);
    DYNAROCK_RETURN_IF_ERROR(write("manifest-summary.json", summary_json));
    DYNAROCK_RETURN_IF_ERROR(write("manifest-summary.md5", format::Md5Base64(summary_json)));
    DYNAROCK_RETURN_IF_ERROR(format::SyncFolder(dir_.get(), result_.export_dir));
    result_.manifest_summary_key = key_root_ + "manifest-summary.json";
    return Status::OK();
  }

  Impl* impl_;
  const ExportTableOptions& o_;
  const TableInfo table_;  // a copy: the export holds no lock
  const format::ExportFormat fmt_;
  ExportTableResult result_;
  std::mt19937_64 rng_{std::random_device{}()};
  std::string key_root_;  // "<prefix>/AWSDynamoDB/<id>/" once the folders exist
  std::optional<format::BucketFolder> bucket_;
  format::UniqueFd dir_, data_dir_;
  const rocksdb::Snapshot* snapshot_ = nullptr;
  std::vector<std::string> names_;  // each segment's data file
  std::vector<format::ManifestFile> manifest_;
  std::atomic<int64_t> items_{0}, bytes_{0};
};

Result<ExportTableResult> Database::Impl::ExportTable(const ExportTableOptions& o) {
  DYNAROCK_ASSIGN_OR_RETURN(auto state, FindTable(o.table_name, true));
  return Exporter(this, o, state->info).Run();
}

}  // namespace dynarock
