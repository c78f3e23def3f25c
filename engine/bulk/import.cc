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

Result<ImportTableResult> Database::Impl::ImportTable(const ImportTableOptions& o) {
  if (options_.read_only) return Status::NotSupported("the database was opened read-only");
  // 1. The table, checked as CreateTable checks it.
  DYNAROCK_ASSIGN_OR_RETURN(TableInfo info, NewTable(o.table));
  if (!o.table_id.empty()) info.uuid = o.table_id;
  if (o.ttl_attribute) {
    info.ttl_attribute = *o.ttl_attribute;
    info.ttl_enabled = true;
  }
  // (ValidateCreateTable has checked the stream specification, so the
  // UpdateTable that enables it after the ingestion cannot refuse it.)
  if (o.format == ImportFormat::kCsv &&
      std::string_view(",;:|\t ").find(o.csv_delimiter) == std::string_view::npos) {
    return Status::Validation("The CSV delimiter must be one of , ; : | tab or space");
  }
  {
    std::unique_lock lock(catalog_mu_);
    if (tables_.count(info.name))
      return Status::ResourceInUse("Table already exists: " + info.name);
    // Reserved in memory only: until the ingestion records next_space_id,
    // nothing on disk uses them but the table's interned names (below), and
    // a crash forgets them: the next table may get the same ids, and with
    // them those names (harmless: an id never changes its name).
    info.space_id = next_space_id_++;
    for (auto& index : info.indexes) index.space_id = next_space_id_++;
  }
  // Items are stored as writes store them: without their key attributes,
  // names interned in the table's dictionary (whose entries are durable
  // before use; a restore that fails leaves them to the space id's next
  // table, which a crash may hand the same id: ids never change names).
  AddStoredKey(info);
  const format::StoredKeySchema stored_key = StoredKey(info);
  ScratchDir scratch;
  {
    std::mt19937_64 rng(std::random_device{}());
    char name[40];
    std::snprintf(name, sizeof name, "%s%016llx", kRestoreScratchPrefix,
                  static_cast<unsigned long long>(rng()));
    scratch.path = fs::path(path_) / name;
    std::error_code ec;
    fs::create_directories(scratch.path, ec);
    if (ec) return Status::IOError(scratch.path.string() + ": cannot create: " + ec.message());
  }

  // ImportTable's objects: keys below the bucket's folder, opened without
  // following a link.
  std::optional<format::BucketFolder> bucket;
  if (!o.bucket_dir.empty()) {
    DYNAROCK_ASSIGN_OR_RETURN(auto folder, format::BucketFolder::Open(o.bucket_dir, false));
    bucket.emplace(std::move(folder));
  }
  ImportTableResult result;
  ImportProgress progress;
  progress.files = static_cast<int64_t>(o.files.size());
  for (const auto& f : o.files) {
    std::error_code ec;
    const auto size = fs::file_size(bucket ? bucket->PathOf(f.path) : f.path, ec);
    if (!ec) progress.total_bytes += static_cast<int64_t>(size);
  }
  auto report = [&](const char* phase) {
    if (!o.progress) return;
    progress.phase = phase;
    progress.processed_items = result.processed_items;
    o.progress(progress);
  };

  // 2. Read, validate and sort the items, files in parallel. Each record is
  // numbered (file, line) so that the last duplicate in input order wins
  // whichever thread read it. An item's sort value carries what the later
  // steps need without decoding it again:
  //   items:   collection prefix length (4) | item size (8) | collection bytes (8) | item
  //   indexes: projected size (8) | projected item
  const format::ExportFormat line_format = o.format == ImportFormat::kIon
                                               ? format::ExportFormat::kIon
                                               : format::ExportFormat::kDynamoDbJson;
  std::vector<std::pair<std::string, ScalarAttributeType>> typed;
  for (const auto& d : info.attribute_definitions) {
    typed.emplace_back(d.attribute_name, d.attribute_type);
  }
  // The sorters' two buffers each (one filling, one spilling) stay
  // resident between spills: they get three quarters of the budget, and
  // the readers, SST writers and RocksDB the rest.
  const size_t budget = o.memory_budget_bytes / 4 * 3;
  const size_t index_share = info.indexes.empty() ? 0 : budget / 3;
  fs::create_directories(scratch.path / "item-runs");
  fs::create_directories(scratch.path / "index-runs");
  bulk::ExternalSorter sorted_items((scratch.path / "item-runs").string(), budget - index_share);
  bulk::ExternalSorter index_entries((scratch.path / "index-runs").string(),
                                     std::max<size_t>(index_share, 1));

  struct FileOutcome {
    Status fatal;                         // the file's own error (checksum, decompression)
    std::vector<ImportItemError> errors;  // its bad items, in line order
    int64_t error_count = 0;
    int64_t items = 0;
    int64_t bytes = 0;  // uncompressed
  };
  std::vector<FileOutcome> outcomes(o.files.size());
  std::atomic<size_t> next_file{0};
  std::atomic<int64_t> read_items{0}, read_bytes{0}, files_done{0};
  std::atomic<bool> abort{false};  // strict mode hit a bad item, or a file failed
  std::mutex report_mu;
  auto report_reading = [&] {
    if (!o.progress) return;
    std::lock_guard lock(report_mu);
    progress.phase = "reading";
    progress.processed_items = read_items.load();
    progress.processed_bytes = read_bytes.load();
    progress.files_done = files_done.load();
    o.progress(progress);
  };

  auto read_file = [&](size_t file_index) {
    const ImportFile& f = o.files[file_index];
    FileOutcome& outcome = outcomes[file_index];
    const std::string& name = f.name.empty() ? f.path : f.name;
    format::LineReader reader;
    if (bucket) {
      auto file = bucket->OpenFile(f.path);
      outcome.fatal = file.ok() ? reader.Open(std::move(*file), bucket->PathOf(f.path),
                                              ToCompression(o.compression))
                                : file.status();
    } else {
      outcome.fatal = reader.Open(f.path, ToCompression(o.compression));
    }
    if (!outcome.fatal.ok()) return;
    std::string encoded, stored, value;
    std::vector<std::pair<std::string, std::string>> entries;  // one item's index entries
    // Staged here, handed to the sorters a few hundred KB at a time.
    bulk::ExternalSorter::Batch item_batch, index_batch;
    constexpr size_t kBatchBytes = 256 << 10;
    auto flush = [&]() -> Status {
      DYNAROCK_RETURN_IF_ERROR(sorted_items.AddBatch(&item_batch));
      return index_entries.AddBatch(&index_batch);
    };
    // Returns false to stop reading this file.
    auto take = [&](Result<Item> item, int64_t line) -> bool {
      ++outcome.items;
      if ((read_items.fetch_add(1) & 4095) == 4095) report_reading();
      Status bad = item.status();
      std::optional<write::Action> action;
      if (bad.ok()) {
        auto planned = write::PlanPut(info, *item);
        if (planned.ok()) {
          action = std::move(planned).value();
        } else {
          bad = planned.status();
        }
      }
      if (!bad.ok()) {
        ++outcome.error_count;
        if (outcome.errors.size() < o.max_reported_errors) {
          outcome.errors.push_back({name, line, bad.message()});
        }
        if (o.strict) abort = true;
        return !o.strict;
      }
      const uint64_t seq = (static_cast<uint64_t>(file_index) << 40) | static_cast<uint64_t>(line);
      // Index entries first: each projection is made once, for its entry
      // and for the collection's size (CollectionBytes: LSI entries + 100).
      const uint64_t item_size = format::ItemSize(*item);
      uint64_t collection_bytes = item_size;
      // The item and its index entries, each without the attributes its
      // key holds.
      format::EncodeItemWithoutKey(*item, item_size, stored_key, &stored);
      entries.clear();
      for (const IndexInfo& index : info.indexes) {
        auto ikey = IndexKeyFor(info, index, *item);
        if (!ikey) continue;
        std::string v;
        uint64_t size = item_size;
        if (index.projection == ProjectionType::kAll) {
          EncodeIndexEntry(info, index, *item, item_size, stored_key.names, &encoded);
        } else {
          Item projected = ProjectForIndex(info, index, *item);
          size = format::ItemSize(projected);
          EncodeIndexEntry(info, index, projected, size, stored_key.names, &encoded);
        }
        format::PutFixed64BE(&v, size);
        v += encoded;
        if (!index.global) collection_bytes += size + kIndexEntryOverheadBytes;
        entries.emplace_back(std::move(*ikey.value().mutable_bytes()), std::move(v));
      }
      const std::string& key = action->key.bytes();
      const size_t prefix = action->collection_bytes;  // the key's collection prefix
      value.clear();
      format::PutFixed32BE(&value, static_cast<uint32_t>(prefix));
      format::PutFixed64BE(&value, item_size);
      format::PutFixed64BE(&value, collection_bytes);
      value += stored;
      item_batch.Add(key, seq, value);
      for (const auto& [ikey, ivalue] : entries) index_batch.Add(ikey, seq, ivalue);
      Status s;
      if (item_batch.bytes() + index_batch.bytes() >= kBatchBytes) s = flush();
      if (!s.ok()) {
        outcome.fatal = s;
        abort = true;
        return false;
      }
      return !abort;
    };
    if (o.format == ImportFormat::kCsv) {
      format::CsvReader csv(o.csv_delimiter);
      std::vector<std::string> header;
      if (o.csv_header) header = *o.csv_header;
      bool have_header = o.csv_header.has_value();
      std::vector<std::string> fields;
      while (csv.Next(&reader, &fields)) {
        if (!have_header) {
          header = std::move(fields);
          have_header = true;
          continue;
        }
        if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
        if (!take(format::CsvRowToItem(header, fields, typed), csv.record_number())) break;
      }
      if (!csv.status().ok() && outcome.fatal.ok()) {
        outcome.fatal = Status::InvalidArgument(name + ": " + csv.status().message());
      }
    } else {
      std::string line;
      while (reader.Next(&line)) {
        if (Blank(line)) continue;
        // PlanPut validates the item as PutItem does.
        if (!take(format::ParseItemLine(line_format, line, false), reader.line_number())) break;
      }
    }
    if (outcome.fatal.ok() && !abort) outcome.fatal = flush();
    if (!outcome.fatal.ok() || abort) {
      if (!outcome.fatal.ok()) abort = true;
      return;
    }
    if (!reader.status().ok()) {
      outcome.fatal = Status::InvalidArgument(name + ": " + reader.status().message());
    } else if (f.md5_base64 && reader.md5_base64() != *f.md5_base64) {
      outcome.fatal =
          Status::InvalidArgument(name + ": checksum mismatch: the manifest says " + *f.md5_base64 +
                                  ", the file's MD5 is " + reader.md5_base64());
    } else if (f.item_count && *f.item_count != outcome.items) {
      outcome.fatal =
          Status::InvalidArgument(name + ": the manifest says " + std::to_string(*f.item_count) +
                                  " items, the file holds " + std::to_string(outcome.items));
    }
    if (!outcome.fatal.ok()) abort = true;
    outcome.bytes = reader.uncompressed_bytes();
    read_bytes += reader.compressed_bytes();
    ++files_done;
    report_reading();
  };
  {
    const size_t threads =
        std::min<size_t>(o.files.size(), std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> readers;
    for (size_t t = 0; t < threads; ++t) {
      readers.emplace_back([&] {
        for (size_t i; (i = next_file++) < o.files.size() && !abort;) read_file(i);
      });
    }
    for (auto& t : readers) t.join();
  }
  // Errors in input order: the first file's fatal error, or (strict) the
  // first bad item.
  for (auto& outcome : outcomes) {
    DYNAROCK_RETURN_IF_ERROR(outcome.fatal);
    if (o.strict && !outcome.errors.empty()) {
      const ImportItemError& e = outcome.errors.front();
      return Status::InvalidArgument(e.file + ":" + std::to_string(e.line) + ": " + e.message);
    }
    result.processed_items += outcome.items;
    result.processed_bytes += outcome.bytes;
    result.error_count += outcome.error_count;
    for (auto& e : outcome.errors) {
      if (result.errors.size() < o.max_reported_errors) result.errors.push_back(std::move(e));
    }
  }
  progress.files_done = progress.files;
  progress.processed_bytes = read_bytes.load();
  report("sorting");

  // 3. Items in key order: their SSTs and each collection's counter
  // (collections are contiguous in key order).
  auto options_of = [this](rocksdb::ColumnFamilyHandle* cf) {
    return rocksdb::Options(db_->GetDBOptions(), db_->GetOptions(cf));
  };
  SstSink item_ssts(options_of(items_cf_), items_cf_, (scratch.path / "items").string());
  SstSink stats_ssts(options_of(stats_cf_), stats_cf_, (scratch.path / "stats").string());
  Counter table_total;
  std::string collection_key;
  Counter collection;
  // Only a table with an LSI keeps collection counters (STORAGE_LAYOUT.md)
  // and a collection size limit.
  const bool has_lsi = info.has_lsi();
  auto flush_collection = [&]() -> Status {
    if (collection.items == 0) return Status::OK();
    return stats_ssts.Put(collection_key, EncodeCounter(collection));
  };
  // Records that lost to a later duplicate, or were refused: their index
  // entries must not be written. Rare, so a set.
  std::unordered_set<uint64_t> dropped;
  std::string ckey;
  // The item's collection on a table with an LSI: its counter, and the
  // 10 GB limit. False if the item would take it past the limit (refused).
  auto count_in_collection = [&](std::string_view key, uint32_t prefix, uint64_t seq,
                                 uint64_t bytes) -> Result<bool> {
    CollectionStatsKeyOfPrefix(key.substr(0, prefix), &ckey);
    if (ckey != collection_key) {
      DYNAROCK_RETURN_IF_ERROR(flush_collection());
      collection_key = ckey;
      collection = Counter();
    }
    if (collection.bytes + static_cast<int64_t>(bytes) >
        options_.item_collection_size_limit_bytes) {
      dropped.insert(seq);
      ++result.error_count;
      const std::string& name =
          o.files[seq >> 40].name.empty() ? o.files[seq >> 40].path : o.files[seq >> 40].name;
      ImportItemError e{name, static_cast<int64_t>(seq & ((uint64_t{1} << 40) - 1)),
                        "Item collection size limit exceeded: the item would take its collection "
                        "past " +
                            std::to_string(options_.item_collection_size_limit_bytes) +
                            " bytes (ItemCollectionSizeLimitExceededException)"};
      if (o.strict)
        return Status::InvalidArgument(e.file + ":" + std::to_string(e.line) + ": " + e.message);
      if (result.errors.size() < o.max_reported_errors) result.errors.push_back(std::move(e));
      return false;
    }
    ++collection.items;
    collection.bytes += static_cast<int64_t>(bytes);
    return true;
  };
  auto on_item = [&](std::string_view key, uint64_t seq, std::string_view value) -> Status {
    std::string_view in = value;
    uint32_t prefix = 0;
    uint64_t size = 0, bytes = 0;
    if (!format::GetFixed32BE(&in, &prefix) || !format::GetFixed64BE(&in, &size) ||
        !format::GetFixed64BE(&in, &bytes) || prefix > key.size()) {
      return Status::Internal("restore: a damaged sort record");
    }
    if (has_lsi) {
      DYNAROCK_ASSIGN_OR_RETURN(bool counted, count_in_collection(key, prefix, seq, bytes));
      if (!counted) return Status::OK();
    }
    ++table_total.items;
    table_total.bytes += static_cast<int64_t>(size);
    if ((table_total.items & 4095) == 0) report("sorting");
    return item_ssts.Put(key, in);
  };
  // 4. The index entries of the winning items, and their totals. Which
  // items lost (duplicates, refusals) is known only once the items are
  // merged, but that is rare: the index merge runs beside the item merge on
  // another core, and is redone after it only if some item lost.
  struct IndexOutput {
    std::unique_ptr<SstSink> ssts;
    std::map<uint32_t, Counter> totals;
  };
  auto merge_indexes = [&](const char* stem, const std::unordered_set<uint64_t>* skip,
                           IndexOutput* output) -> Status {
    output->ssts = std::make_unique<SstSink>(options_of(indexes_cf_), indexes_cf_,
                                             (scratch.path / stem).string());
    output->totals.clear();
    DYNAROCK_RETURN_IF_ERROR(index_entries.Merge(
        [&](std::string_view key, uint64_t seq, std::string_view value) -> Status {
          if (skip && skip->count(seq)) return Status::OK();
          std::string_view in = value, id = key;
          uint64_t size = 0;
          uint32_t space = 0;
          if (!format::GetFixed64BE(&in, &size) || !format::GetFixed32BE(&id, &space)) {
            return Status::Internal("restore: a damaged sort record");
          }
          Counter& c = output->totals[space];
          ++c.items;
          c.bytes += static_cast<int64_t>(size);
          return output->ssts->Put(key, in);
        }));
    return output->ssts->Close();
  };
  IndexOutput indexes;
  Status optimistic;
  std::thread index_thread(
      [&] { optimistic = merge_indexes("indexes-optimistic", nullptr, &indexes); });
  Status items_merged =
      sorted_items.Merge(on_item, [&](std::string_view, uint64_t seq, std::string_view) {
        dropped.insert(seq);
        return Status::OK();
      });
  index_thread.join();
  DYNAROCK_RETURN_IF_ERROR(items_merged);
  DYNAROCK_RETURN_IF_ERROR(flush_collection());
  result.imported_items = table_total.items;
  report("indexing");
  if (!dropped.empty()) {
    DYNAROCK_RETURN_IF_ERROR(merge_indexes("indexes", &dropped, &indexes));
  } else {
    DYNAROCK_RETURN_IF_ERROR(optimistic);
  }

  if (table_total.items > 0) {
    DYNAROCK_RETURN_IF_ERROR(
        stats_ssts.Put(TableStatsKey(info.space_id), EncodeCounter(table_total)));
  }
  // Index space ids follow the table's: their keys sort after its own.
  for (const auto& [space, total] : indexes.totals) {
    DYNAROCK_RETURN_IF_ERROR(stats_ssts.Put(TableStatsKey(space), EncodeCounter(total)));
  }
  DYNAROCK_RETURN_IF_ERROR(item_ssts.Close());
  DYNAROCK_RETURN_IF_ERROR(stats_ssts.Close());

  report("ingesting");
  {
    std::unique_lock lock(catalog_mu_);
    if (tables_.count(info.name))
      return Status::ResourceInUse("Table already exists: " + info.name);
    SstSink catalog_ssts(options_of(catalog_cf_), catalog_cf_, (scratch.path / "catalog").string());
    std::string next;
    format::PutFixed32BE(&next, next_space_id_);
    // "next_space_id" < "table/...": the catalog file's two keys in order.
    DYNAROCK_RETURN_IF_ERROR(catalog_ssts.Put(kCatalogNextSpaceIdKey, next));
    DYNAROCK_RETURN_IF_ERROR(
        catalog_ssts.Put(CatalogTableKey(info.name), EncodeTableDescriptor(info)));
    DYNAROCK_RETURN_IF_ERROR(catalog_ssts.Close());
    std::vector<rocksdb::IngestExternalFileArg> args;
    for (const SstSink* sink : {&catalog_ssts, &item_ssts, indexes.ssts.get(), &stats_ssts}) {
      if (sink->files().empty()) continue;
      rocksdb::IngestExternalFileArg arg;
      arg.column_family = sink->cf();
      arg.external_files = sink->files();
      arg.options.move_files = true;  // hard links: the scratch directory is in the database's
      args.push_back(std::move(arg));
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->IngestExternalFiles(args)));
    std::string table_name = info.name;
    tables_.emplace(std::move(table_name), std::make_shared<TableState>(info));
  }

  // A stream starts after the data: restored items are not changes.
  if (o.table.stream_specification && o.table.stream_specification->stream_enabled) {
    UpdateTableRequest update;
    update.table_name = info.name;
    update.stream_specification = o.table.stream_specification;
    DYNAROCK_RETURN_IF_ERROR(UpdateTable(update).status());
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto described, DescribeTable({.table_name = info.name}));
  result.table = std::move(described.table);
  return result;
}

}  // namespace dynarock
