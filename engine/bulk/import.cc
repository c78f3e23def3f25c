// ImportTable: data files read into a new table by building SST files for
// its items, index entries, statistics and catalog entry, and ingesting them
// all in one IngestExternalFiles call (atomic across column families and
// crashes: rocksdb/db.h), so a restore lands whole or not at all.
//
//   1. check the table as CreateTable does; reserve its space ids;
//   2. read the files in parallel: validate every item as PutItem would (bad
//      ones are counted and skipped, or abort under `strict`), verify the
//      checksums, and sort the items and their index entries externally
//      (the last of equal keys in input order wins);
//   3. walk the sorted items: write the items' SSTs and, on a table with an
//      LSI, each collection's counter (collections are contiguous in key
//      order); meanwhile, on another thread,
//   4. write the index SSTs (again, skipping the entries of items that lost
//      to a duplicate, if any did), then the totals and the catalog entry;
//      ingest.
#include <rocksdb/sst_file_writer.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <unordered_set>

#include "engine/bulk/external_sort.h"
#include "engine/db_impl.h"
#include "engine/index.h"
#include "engine/vector_index.h"
#include "format/bucket_path.h"
#include "format/data_file.h"
#include "format/export_format.h"
#include "format/item_codec.h"
#include "format/item_size.h"
#include "format/json.h"

namespace dynarock {
namespace {

namespace fs = std::filesystem;

// SST files are cut at about RocksDB's default target file size.
constexpr uint64_t kSstTargetBytes = 64 << 20;

// SST files for one column family, written in key order and cut by size.
class SstSink {
 public:
  SstSink(rocksdb::Options options, rocksdb::ColumnFamilyHandle* cf, std::string path_stem)
      : options_(std::move(options)), cf_(cf), stem_(std::move(path_stem)) {}

  Status Put(std::string_view key, std::string_view value) {
    if (!writer_) {
      writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options_, cf_);
      files_.push_back(stem_ + "-" + std::to_string(files_.size()) + ".sst");
      DYNAROCK_RETURN_IF_ERROR(FromRocks(writer_->Open(files_.back())));
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(writer_->Put(key, value)));
    if (writer_->FileSize() >= kSstTargetBytes) return Close();
    return Status::OK();
  }
  Status Close() {
    if (!writer_) return Status::OK();
    rocksdb::Status s = writer_->Finish();
    writer_.reset();
    return FromRocks(s);
  }
  rocksdb::ColumnFamilyHandle* cf() const { return cf_; }
  const std::vector<std::string>& files() const { return files_; }

 private:
  static Status FromRocks(const rocksdb::Status& s) {
    if (s.ok()) return Status::OK();
    if (s.IsIOError()) return Status::IOError(s.ToString());
    return Status::Internal(s.ToString());
  }
  rocksdb::Options options_;
  rocksdb::ColumnFamilyHandle* cf_;
  std::string stem_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  std::vector<std::string> files_;
};

format::Compression ToCompression(ImportCompression c) {
  switch (c) {
    case ImportCompression::kGzip:
      return format::Compression::kGzip;
    case ImportCompression::kZstd:
      return format::Compression::kZstd;
    case ImportCompression::kNone:
      return format::Compression::kNone;
  }
  return format::Compression::kNone;
}

bool Blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// Removes the scratch directory on every way out.
struct ScratchDir {
  fs::path path;
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

// One restore, phase by phase (the steps above), over the state they share:
// the table, the scratch directory, the sorters, the progress and the result.
class Database::Impl::Importer {
 public:
  Importer(Database::Impl* db, const ImportTableOptions& options) : db_(*db), o_(options) {}

  Result<ImportTableResult> Run() {
    if (db_.options_.read_only) return Status::NotSupported("the database was opened read-only");
    DYNAROCK_RETURN_IF_ERROR(CheckAndReserveTable());
    DYNAROCK_RETURN_IF_ERROR(Prepare());
    DYNAROCK_RETURN_IF_ERROR(ReadFiles());
    DYNAROCK_RETURN_IF_ERROR(MergeItemsAndIndexes());
    DYNAROCK_RETURN_IF_ERROR(WriteTotals());
    DYNAROCK_RETURN_IF_ERROR(Ingest());
    return Finish();
  }

 private:
  // What reading one file came to; kept per file, so that errors come out
  // in input order whichever thread read it.
  struct FileOutcome {
    Status fatal;                         // the file's own error (checksum, decompression)
    std::vector<ImportItemError> errors;  // its bad items, in line order
    int64_t error_count = 0;
    int64_t items = 0;
    int64_t bytes = 0;  // uncompressed
  };
  class FileReader;
  // The index SSTs of the winning items (GSI and LSI entries, and vector
  // index entries in their own column family) and each index's totals.
  struct IndexOutput {
    std::unique_ptr<SstSink> ssts, vector_ssts;
    std::map<uint32_t, Counter> totals;
  };

  // 1. The table, checked as CreateTable checks it, and its space ids
  // reserved.
  Status CheckAndReserveTable() {
    DYNAROCK_ASSIGN_OR_RETURN(info_, db_.NewTable(o_.table));
    if (!o_.table_id.empty()) info_.uuid = o_.table_id;
    if (o_.ttl_attribute) {
      info_.ttl_attribute = *o_.ttl_attribute;
      info_.ttl_enabled = true;
    }
    // (ValidateCreateTable has checked the stream specification, so the
    // UpdateTable that enables it after the ingestion cannot refuse it.)
    if (o_.format == ImportFormat::kCsv &&
        std::string_view(",;:|\t ").find(o_.csv_delimiter) == std::string_view::npos) {
      return Status::Validation("The CSV delimiter must be one of , ; : | tab or space");
    }
    std::unique_lock lock(db_.catalog_mu_);
    if (db_.tables_.count(info_.name)) {
      return Status::ResourceInUse("Table already exists: " + info_.name);
    }
    // Reserved in memory only: until the ingestion records next_space_id,
    // nothing on disk uses them but the table's interned names (below), and
    // a crash forgets them: the next table may get the same ids, and with
    // them those names (harmless: an id never changes its name).
    info_.space_id = db_.next_space_id_++;
    for (auto& index : info_.indexes) index.space_id = db_.next_space_id_++;
    for (auto& index : info_.vector_indexes) {
      index.space_id = db_.next_space_id_++;
      vector_spaces_.insert(index.space_id);
    }
    return Status::OK();
  }

  // The stored key, the scratch directory, the bucket, the progress's
  // totals and the sorters.
  Status Prepare() {
    // Items are stored as writes store them: without their key attributes,
    // names interned in the table's dictionary (whose entries are durable
    // before use; a restore that fails leaves them to the space id's next
    // table, which a crash may hand the same id: ids never change names).
    db_.AddStoredKey(info_);
    stored_key_ = db_.StoredKey(info_);
    std::mt19937_64 rng(std::random_device{}());
    char name[40];
    std::snprintf(name, sizeof name, "%s%016llx", kRestoreScratchPrefix,
                  static_cast<unsigned long long>(rng()));
    scratch_.path = fs::path(db_.path_) / name;
    std::error_code ec;
    fs::create_directories(scratch_.path, ec);
    if (ec) return Status::IOError(scratch_.path.string() + ": cannot create: " + ec.message());
    // ImportTable's objects: keys below the bucket's folder, opened without
    // following a link.
    if (!o_.bucket_dir.empty()) {
      DYNAROCK_ASSIGN_OR_RETURN(auto folder, format::BucketFolder::Open(o_.bucket_dir, false));
      bucket_.emplace(std::move(folder));
    }
    progress_.files = static_cast<int64_t>(o_.files.size());
    for (const auto& f : o_.files) {
      const auto size = fs::file_size(bucket_ ? bucket_->PathOf(f.path) : f.path, ec);
      if (!ec) progress_.total_bytes += static_cast<int64_t>(size);
    }
    for (const auto& d : info_.attribute_definitions) {
      typed_.emplace_back(d.attribute_name, d.attribute_type);
    }
    // The sorters' two buffers each (one filling, one spilling) stay
    // resident between spills: they get three quarters of the budget, and
    // the readers, SST writers and RocksDB the rest.
    const size_t budget = o_.memory_budget_bytes / 4 * 3;
    const size_t index_share =
        info_.indexes.empty() && info_.vector_indexes.empty() ? 0 : budget / 3;
    fs::create_directories(scratch_.path / "item-runs");
    fs::create_directories(scratch_.path / "index-runs");
    sorted_items_.emplace((scratch_.path / "item-runs").string(), budget - index_share);
    index_entries_.emplace((scratch_.path / "index-runs").string(),
                           std::max<size_t>(index_share, 1));
    outcomes_.resize(o_.files.size());
    return Status::OK();
  }

  // 2. Read, validate and sort the items, files in parallel; then the
  // outcome of each, in input order: the first file's fatal error, or
  // (strict) the first bad item.
  Status ReadFiles();

  // 3. Items in key order: their SSTs and, on a table with an LSI, each
  // collection's counter (collections are contiguous in key order). 4. The
  // index entries of the winning items, and their totals. Which items lost
  // (duplicates, refusals) is known only once the items are merged, but
  // that is rare: the index merge runs beside the item merge on another
  // core, and is redone after it only if some item lost.
  Status MergeItemsAndIndexes() {
    item_ssts_.emplace(OptionsOf(db_.items_cf_), db_.items_cf_, (scratch_.path / "items").string());
    stats_ssts_.emplace(OptionsOf(db_.stats_cf_), db_.stats_cf_, (scratch_.path / "stats").string());
    Status optimistic;
    std::thread index_thread(
        [&] { optimistic = MergeIndexes("indexes-optimistic", nullptr); });
    Status items_merged = sorted_items_->Merge(
        [this](std::string_view key, uint64_t seq, std::string_view value) {
          return OnItem(key, seq, value);
        },
        [this](std::string_view, uint64_t seq, std::string_view) {
          dropped_.insert(seq);
          return Status::OK();
        });
    index_thread.join();
    DYNAROCK_RETURN_IF_ERROR(items_merged);
    DYNAROCK_RETURN_IF_ERROR(FlushCollection());
    result_.imported_items = table_total_.items;
    Report("indexing");
    if (!dropped_.empty()) return MergeIndexes("indexes", &dropped_);
    return optimistic;
  }

  // An item of the merge: counted, then written (or refused, on a table
  // with an LSI, if it would take its collection past the limit).
  Status OnItem(std::string_view key, uint64_t seq, std::string_view value) {
    std::string_view in = value;
    uint32_t prefix = 0;
    uint64_t size = 0, bytes = 0;
    if (!format::GetFixed32BE(&in, &prefix) || !format::GetFixed64BE(&in, &size) ||
        !format::GetFixed64BE(&in, &bytes) || prefix > key.size()) {
      return Status::Internal("restore: a damaged sort record");
    }
    // Only a table with an LSI keeps collection counters (STORAGE_LAYOUT.md)
    // and a collection size limit.
    if (info_.has_lsi()) {
      DYNAROCK_ASSIGN_OR_RETURN(bool counted, CountInCollection(key, prefix, seq, bytes));
      if (!counted) return Status::OK();
    }
    ++table_total_.items;
    table_total_.bytes += static_cast<int64_t>(size);
    if ((table_total_.items & 4095) == 0) Report("sorting");
    return item_ssts_->Put(key, in);
  }

  // The item's collection on a table with an LSI: its counter, and the
  // 10 GB limit. False if the item would take it past the limit (refused).
  Result<bool> CountInCollection(std::string_view key, uint32_t prefix, uint64_t seq,
                                 uint64_t bytes) {
    CollectionStatsKeyOfPrefix(key.substr(0, prefix), &ckey_);
    if (ckey_ != collection_key_) {
      DYNAROCK_RETURN_IF_ERROR(FlushCollection());
      collection_key_ = ckey_;
      collection_ = Counter();
    }
    const int64_t limit = db_.options_.item_collection_size_limit_bytes;
    if (collection_.bytes + static_cast<int64_t>(bytes) > limit) {
      dropped_.insert(seq);
      ++result_.error_count;
      const ImportFile& file = o_.files[seq >> 40];
      ImportItemError e{file.name.empty() ? file.path : file.name,
                        static_cast<int64_t>(seq & ((uint64_t{1} << 40) - 1)),
                        "Item collection size limit exceeded: the item would take its collection "
                        "past " +
                            std::to_string(limit) +
                            " bytes (ItemCollectionSizeLimitExceededException)"};
      if (o_.strict) {
        return Status::InvalidArgument(e.file + ":" + std::to_string(e.line) + ": " + e.message);
      }
      if (result_.errors.size() < o_.max_reported_errors) result_.errors.push_back(std::move(e));
      return false;
    }
    ++collection_.items;
    collection_.bytes += static_cast<int64_t>(bytes);
    return true;
  }

  Status FlushCollection() {
    if (collection_.items == 0) return Status::OK();
    return stats_ssts_->Put(collection_key_, EncodeCounter(collection_));
  }

  // The index entries, without those of the records in `skip`, into the
  // SSTs named `stem`, with each index's totals. One sorter holds every
  // index's entries: each key starts with its index's space id, so the
  // vector indexes' entries come out in key order too, for their own SSTs.
  Status MergeIndexes(const char* stem, const std::unordered_set<uint64_t>* skip) {
    indexes_.ssts = std::make_unique<SstSink>(OptionsOf(db_.indexes_cf_), db_.indexes_cf_,
                                              (scratch_.path / stem).string());
    indexes_.vector_ssts =
        std::make_unique<SstSink>(OptionsOf(db_.vectors_cf_), db_.vectors_cf_,
                                  (scratch_.path / (std::string(stem) + "-vectors")).string());
    indexes_.totals.clear();
    DYNAROCK_RETURN_IF_ERROR(index_entries_->Merge(
        [&](std::string_view key, uint64_t seq, std::string_view value) -> Status {
          if (skip && skip->count(seq)) return Status::OK();
          std::string_view in = value, id = key;
          uint64_t size = 0;
          uint32_t space = 0;
          if (!format::GetFixed64BE(&in, &size) || !format::GetFixed32BE(&id, &space)) {
            return Status::Internal("restore: a damaged sort record");
          }
          Counter& c = indexes_.totals[space];
          ++c.items;
          c.bytes += static_cast<int64_t>(size);
          SstSink& sink = vector_spaces_.count(space) ? *indexes_.vector_ssts : *indexes_.ssts;
          return sink.Put(key, in);
        }));
    DYNAROCK_RETURN_IF_ERROR(indexes_.vector_ssts->Close());
    return indexes_.ssts->Close();
  }

  // The table's and each index's totals; the item and statistics SSTs closed.
  Status WriteTotals() {
    if (table_total_.items > 0) {
      DYNAROCK_RETURN_IF_ERROR(
          stats_ssts_->Put(TableStatsKey(info_.space_id), EncodeCounter(table_total_)));
    }
    // Index space ids follow the table's: their keys sort after its own.
    for (const auto& [space, total] : indexes_.totals) {
      DYNAROCK_RETURN_IF_ERROR(stats_ssts_->Put(TableStatsKey(space), EncodeCounter(total)));
    }
    DYNAROCK_RETURN_IF_ERROR(item_ssts_->Close());
    return stats_ssts_->Close();
  }

  // The catalog entry, then every SST in one IngestExternalFiles call; the
  // table is live from here.
  Status Ingest() {
    Report("ingesting");
    std::unique_lock lock(db_.catalog_mu_);
    if (db_.tables_.count(info_.name)) {
      return Status::ResourceInUse("Table already exists: " + info_.name);
    }
    SstSink catalog_ssts(OptionsOf(db_.catalog_cf_), db_.catalog_cf_,
                         (scratch_.path / "catalog").string());
    std::string next;
    format::PutFixed32BE(&next, db_.next_space_id_);
    // "next_space_id" < "table/...": the catalog file's two keys in order.
    DYNAROCK_RETURN_IF_ERROR(catalog_ssts.Put(kCatalogNextSpaceIdKey, next));
    DYNAROCK_RETURN_IF_ERROR(
        catalog_ssts.Put(CatalogTableKey(info_.name), EncodeTableDescriptor(info_)));
    DYNAROCK_RETURN_IF_ERROR(catalog_ssts.Close());
    std::vector<rocksdb::IngestExternalFileArg> args;
    for (const SstSink* sink : {&catalog_ssts, &*item_ssts_, indexes_.ssts.get(),
                                indexes_.vector_ssts.get(), &*stats_ssts_}) {
      if (sink->files().empty()) continue;
      rocksdb::IngestExternalFileArg arg;
      arg.column_family = sink->cf();
      arg.external_files = sink->files();
      arg.options.move_files = true;  // hard links: the scratch directory is in the database's
      args.push_back(std::move(arg));
    }
    DYNAROCK_RETURN_IF_ERROR(db_.FromRocks(db_.db_->IngestExternalFiles(args)));
    std::string table_name = info_.name;
    db_.tables_.emplace(std::move(table_name), std::make_shared<TableState>(info_));
    return Status::OK();
  }

  // A stream starts after the data (restored items are not changes); the
  // table as DescribeTable gives it.
  Result<ImportTableResult> Finish() {
    if (o_.table.stream_specification && o_.table.stream_specification->stream_enabled) {
      UpdateTableRequest update;
      update.table_name = info_.name;
      update.stream_specification = o_.table.stream_specification;
      DYNAROCK_RETURN_IF_ERROR(db_.UpdateTable(update).status());
    }
    DYNAROCK_ASSIGN_OR_RETURN(auto described, db_.DescribeTable({.table_name = info_.name}));
    result_.table = std::move(described.table);
    return std::move(result_);
  }

  rocksdb::Options OptionsOf(rocksdb::ColumnFamilyHandle* cf) const {
    return rocksdb::Options(db_.db_->GetDBOptions(), db_.db_->GetOptions(cf));
  }
  void Report(const char* phase) {
    if (!o_.progress) return;
    progress_.phase = phase;
    progress_.processed_items = result_.processed_items;
    o_.progress(progress_);
  }
  void ReportReading() {
    if (!o_.progress) return;
    std::lock_guard lock(report_mu_);
    progress_.phase = "reading";
    progress_.processed_items = read_items_.load();
    progress_.processed_bytes = read_bytes_.load();
    progress_.files_done = files_done_.load();
    o_.progress(progress_);
  }

  Database::Impl& db_;
  const ImportTableOptions& o_;
  TableInfo info_;
  format::StoredKeySchema stored_key_;
  ScratchDir scratch_;
  std::optional<format::BucketFolder> bucket_;
  std::vector<std::pair<std::string, ScalarAttributeType>> typed_;  // CSV columns' types
  ImportTableResult result_;
  ImportProgress progress_;
  std::mutex report_mu_;

  // Reading (2). Each record is numbered (file << 40 | line) so that the
  // last duplicate in input order wins whichever thread read it. An item's
  // sort value carries what the later steps need without decoding it again:
  //   items:   collection prefix length (4) | item size (8) | collection bytes (8) | item
  //   indexes: projected size (8) | projected item
  std::optional<bulk::ExternalSorter> sorted_items_, index_entries_;
  std::vector<FileOutcome> outcomes_;
  std::atomic<size_t> next_file_{0};
  std::atomic<int64_t> read_items_{0}, read_bytes_{0}, files_done_{0};
  std::atomic<bool> abort_{false};  // strict mode hit a bad item, or a file failed

  // Merging (3, 4).
  std::optional<SstSink> item_ssts_, stats_ssts_;
  IndexOutput indexes_;
  Counter table_total_;
  std::string collection_key_, ckey_;
  Counter collection_;
  // Records that lost to a later duplicate, or were refused: their index
  // entries must not be written. Rare, so a set.
  std::unordered_set<uint64_t> dropped_;
  std::unordered_set<uint32_t> vector_spaces_;  // the vector indexes' space ids
};

// One file of the restore: read line by line (or record by record), each
// item validated as PutItem would, encoded with its index entries, and
// staged for the sorters.
class Database::Impl::Importer::FileReader {
 public:
  FileReader(Importer* importer, size_t file_index)
      : im_(*importer),
        file_index_(file_index),
        file_(im_.o_.files[file_index]),
        outcome_(im_.outcomes_[file_index]),
        name_(file_.name.empty() ? file_.path : file_.name) {}

  void Run() {
    const ImportTableOptions& o = im_.o_;
    format::LineReader reader;
    reader_ = &reader;
    if (im_.bucket_) {
      auto file = im_.bucket_->OpenFile(file_.path);
      outcome_.fatal = file.ok() ? reader.Open(std::move(*file), im_.bucket_->PathOf(file_.path),
                                               ToCompression(o.compression))
                                 : file.status();
    } else {
      outcome_.fatal = reader.Open(file_.path, ToCompression(o.compression));
    }
    if (!outcome_.fatal.ok()) return;
    if (o.format == ImportFormat::kCsv) {
      ReadCsv(&reader);
    } else {
      const format::ExportFormat line_format = o.format == ImportFormat::kIon
                                                   ? format::ExportFormat::kIon
                                                   : format::ExportFormat::kDynamoDbJson;
      std::string line;
      while (reader.Next(&line)) {
        if (Blank(line)) continue;
        // PlanPut validates the item as PutItem does.
        if (!Take(format::ParseItemLine(line_format, line, false), reader.line_number())) break;
      }
    }
    if (outcome_.fatal.ok() && !im_.abort_) outcome_.fatal = Flush();
    if (!outcome_.fatal.ok() || im_.abort_) {
      if (!outcome_.fatal.ok()) im_.abort_ = true;
      return;
    }
    CheckWhole(reader);
    if (!outcome_.fatal.ok()) im_.abort_ = true;
    outcome_.bytes = reader.uncompressed_bytes();
    CountBytes();
    ++im_.files_done_;
    im_.ReportReading();
  }

 private:
  void ReadCsv(format::LineReader* reader) {
    const ImportTableOptions& o = im_.o_;
    format::CsvReader csv(o.csv_delimiter);
    std::vector<std::string> header;
    if (o.csv_header) header = *o.csv_header;
    bool have_header = o.csv_header.has_value();
    std::vector<std::string> fields;
    while (csv.Next(reader, &fields)) {
      if (!have_header) {
        header = std::move(fields);
        have_header = true;
        continue;
      }
      if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
      if (!Take(format::CsvRowToItem(header, fields, im_.typed_), csv.record_number())) break;
    }
    if (!csv.status().ok() && outcome_.fatal.ok()) {
      outcome_.fatal = Status::InvalidArgument(name_ + ": " + csv.status().message());
    }
  }

  // The file read to its end: it decompressed cleanly, and its checksum
  // and item count are the manifest's.
  void CheckWhole(format::LineReader& reader) {
    if (!reader.status().ok()) {
      outcome_.fatal = Status::InvalidArgument(name_ + ": " + reader.status().message());
    } else if (file_.md5_base64 && reader.md5_base64() != *file_.md5_base64) {
      outcome_.fatal = Status::InvalidArgument(name_ + ": checksum mismatch: the manifest says " +
                                               *file_.md5_base64 + ", the file's MD5 is " +
                                               reader.md5_base64());
    } else if (file_.item_count && *file_.item_count != outcome_.items) {
      outcome_.fatal = Status::InvalidArgument(
          name_ + ": the manifest says " + std::to_string(*file_.item_count) +
          " items, the file holds " + std::to_string(outcome_.items));
    }
  }

  // One item read at `line`: refused (counted, reported) or staged with its
  // index entries. False to stop reading this file.
  bool Take(Result<Item> item, int64_t line) {
    // The bytes read so far count as they are read, so that progress (and
    // its ETA) moves within a large file, not only at its end.
    if ((++outcome_.items & 1023) == 0) CountBytes();
    if ((im_.read_items_.fetch_add(1) & 4095) == 4095) im_.ReportReading();
    Status bad = item.status();
    std::optional<write::Action> action;
    if (bad.ok()) {
      auto planned = write::PlanPut(im_.info_, *item);
      if (planned.ok()) {
        action = std::move(planned).value();
      } else {
        bad = planned.status();
      }
    }
    if (!bad.ok()) {
      ++outcome_.error_count;
      if (outcome_.errors.size() < im_.o_.max_reported_errors) {
        outcome_.errors.push_back({name_, line, bad.message()});
      }
      if (im_.o_.strict) im_.abort_ = true;
      return !im_.o_.strict;
    }
    Stage(*item, *action, (static_cast<uint64_t>(file_index_) << 40) | static_cast<uint64_t>(line));
    Status s;
    if (item_batch_.bytes() + index_batch_.bytes() >= kBatchBytes) s = Flush();
    if (!s.ok()) {
      outcome_.fatal = s;
      im_.abort_ = true;
      return false;
    }
    return !im_.abort_;
  }

  // The item and its index entries, each without the attributes its key
  // holds, into the batches under record number `seq`. Each projection is
  // made once, for its entry and for the collection's size
  // (CollectionBytes: LSI entries + 100).
  void Stage(const Item& item, const write::Action& action, uint64_t seq) {
    const TableInfo& info = im_.info_;
    const uint64_t item_size = format::ItemSize(item);
    uint64_t collection_bytes = item_size;
    format::EncodeItemWithoutKey(item, item_size, im_.stored_key_, &stored_);
    entries_.clear();
    for (const IndexInfo& index : info.indexes) {
      auto entry = EntryFor(info, index, item, static_cast<int64_t>(item_size),
                            im_.stored_key_.names, &encoded_);
      if (!entry) continue;
      std::string v;
      format::PutFixed64BE(&v, static_cast<uint64_t>(entry->size));
      v += encoded_;
      collection_bytes += static_cast<uint64_t>(CollectionShare(index, entry->size));
      entries_.emplace_back(std::move(*entry->key.mutable_bytes()), std::move(v));
    }
    // Vector index entries (PlanPut has checked the vectors as a write does).
    for (const VectorIndexInfo& index : info.vector_indexes) {
      auto entry = VectorEntryFor(info, index, item, &encoded_);
      if (!entry) continue;
      std::string v;
      format::PutFixed64BE(&v, static_cast<uint64_t>(entry->size));
      v += encoded_;
      entries_.emplace_back(std::move(*entry->key.mutable_bytes()), std::move(v));
    }
    value_.clear();
    format::PutFixed32BE(&value_, static_cast<uint32_t>(action.collection_bytes));  // its prefix
    format::PutFixed64BE(&value_, item_size);
    format::PutFixed64BE(&value_, collection_bytes);
    value_ += stored_;
    item_batch_.Add(action.key.bytes(), seq, value_);
    for (const auto& [ikey, ivalue] : entries_) index_batch_.Add(ikey, seq, ivalue);
  }

  // The staged records to the sorters.
  Status Flush() {
    DYNAROCK_RETURN_IF_ERROR(im_.sorted_items_->AddBatch(&item_batch_));
    return im_.index_entries_->AddBatch(&index_batch_);
  }

  // Adds what the reader has read (compressed) since the last count to the
  // import's bytes read.
  void CountBytes() {
    const int64_t now = reader_->compressed_bytes();
    im_.read_bytes_ += now - counted_bytes_;
    counted_bytes_ = now;
  }

  // Staged here, handed to the sorters a few hundred KB at a time.
  static constexpr size_t kBatchBytes = 256 << 10;
  Importer& im_;
  const size_t file_index_;
  const ImportFile& file_;
  FileOutcome& outcome_;
  const std::string& name_;
  format::LineReader* reader_ = nullptr;  // Run's, while it reads
  int64_t counted_bytes_ = 0;             // of reader_'s, added to im_.read_bytes_
  std::string encoded_, stored_, value_;  // reused per item
  std::vector<std::pair<std::string, std::string>> entries_;  // one item's index entries
  bulk::ExternalSorter::Batch item_batch_, index_batch_;
};

Status Database::Impl::Importer::ReadFiles() {
  const size_t threads =
      std::min<size_t>(o_.files.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> readers;
  for (size_t t = 0; t < threads; ++t) {
    readers.emplace_back([&] {
      for (size_t i; (i = next_file_++) < o_.files.size() && !abort_;) FileReader(this, i).Run();
    });
  }
  for (auto& t : readers) t.join();
  for (auto& outcome : outcomes_) {
    DYNAROCK_RETURN_IF_ERROR(outcome.fatal);
    if (o_.strict && !outcome.errors.empty()) {
      const ImportItemError& e = outcome.errors.front();
      return Status::InvalidArgument(e.file + ":" + std::to_string(e.line) + ": " + e.message);
    }
    result_.processed_items += outcome.items;
    result_.processed_bytes += outcome.bytes;
    result_.error_count += outcome.error_count;
    for (auto& e : outcome.errors) {
      if (result_.errors.size() < o_.max_reported_errors) result_.errors.push_back(std::move(e));
    }
  }
  progress_.files_done = progress_.files;
  progress_.processed_bytes = read_bytes_.load();
  Report("sorting");
  return Status::OK();
}

Result<ImportTableResult> Database::Impl::ImportTable(const ImportTableOptions& options) {
  return Importer(this, options).Run();
}

}  // namespace dynarock
