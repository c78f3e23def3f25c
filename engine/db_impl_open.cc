// Opening and closing a database: RocksDB's options for each column
// family, loading the catalog, resuming interrupted index backfills; and
// the storage access every operation shares (ReadItem, Write, counters).
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "engine/db_impl.h"
#include "engine/wal_order.h"
#include "format/item_codec.h"

namespace dynarock {
namespace {

constexpr char kCatalogCf[] = "catalog";
constexpr char kItemsCf[] = "items";
constexpr char kStatsCf[] = "stats";
constexpr char kIndexesCf[] = "indexes";
constexpr char kStreamsCf[] = "streams";
constexpr char kTokensCf[] = "tokens";
constexpr char kVectorsCf[] = "vectors";

// REQUIRES: `existing` lists the column families of a RocksDB database in
// `path`. Ours has exactly `ours` (a database whose creation was cut short
// may lack some), the catalog among them.
Status CheckColumnFamilies(const std::string& path, const std::vector<std::string>& existing,
                           const std::vector<rocksdb::ColumnFamilyDescriptor>& ours) {
  bool has_catalog = false;
  std::string names;
  bool foreign = false;
  for (const auto& name : existing) {
    names += (names.empty() ? "" : ", ") + name;
    has_catalog |= name == kCatalogCf;
    foreign |=
        std::none_of(ours.begin(), ours.end(), [&](const auto& cf) { return cf.name == name; });
  }
  if (foreign || !has_catalog) {
    return Status::InvalidArgument(path +
                                   " holds a RocksDB database that is not a Dynarock "
                                   "database (its column families: " +
                                   names + "); it was left untouched");
  }
  return Status::OK();
}

// RocksDB creates a database with its default column family first and adds
// the others one by one: a crash during the first Open of a new directory
// can leave only `default`, empty (Dynarock never writes it). That is a
// creation cut short, not another program's database.
bool IsCutShortCreation(const rocksdb::DBOptions& options, const std::string& path,
                        const std::vector<std::string>& existing) {
  if (existing != std::vector<std::string>{rocksdb::kDefaultColumnFamilyName}) return false;
  rocksdb::DB* raw = nullptr;
  if (!rocksdb::DB::OpenForReadOnly(rocksdb::Options(options, rocksdb::ColumnFamilyOptions()), path,
                                    &raw)
           .ok()) {
    return false;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  it->SeekToFirst();
  return it->status().ok() && !it->Valid();
}

rocksdb::Slice IteratorSecretSlice(const streams::IteratorSecret& secret) {
  return rocksdb::Slice(reinterpret_cast<const char*>(secret.data()), secret.size());
}

// Scratch directories of restores a crash interrupted: nothing in them was
// ingested (ingestion is the last step and atomic).
void RemoveRestoreScratch(const std::string& path) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    if (entry.path().filename().string().starts_with(kRestoreScratchPrefix)) {
      std::error_code ignored;  // a leftover that cannot go now goes at the next Open
      std::filesystem::remove_all(entry.path(), ignored);
    }
  }
}

}  // namespace

Status Database::Impl::WriteFormatRecordWithNewSecret(uint32_t version) {
  DYNAROCK_ASSIGN_OR_RETURN(const streams::IteratorSecret secret, streams::NewIteratorSecret());
  rocksdb::WriteBatch batch;
  DYNAROCK_RETURN_IF_ERROR(FromRocks(
      batch.Put(catalog_cf_, std::string(kCatalogIteratorSecretKey), IteratorSecretSlice(secret))));
  DYNAROCK_RETURN_IF_ERROR(FromRocks(
      batch.Put(catalog_cf_, std::string(kCatalogFormatKey), EncodeFormatRecord(version))));
  rocksdb::WriteOptions sync;
  sync.sync = true;
  return FromRocks(db_->Write(sync, &batch));
}

Status Database::Impl::CheckFormatRecord(const std::string& path) {
  std::string record;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), catalog_cf_, std::string(kCatalogFormatKey), &record);
  if (s.IsNotFound() && options_.read_only) {
    return Status::InvalidArgument(path + " holds no Dynarock database (no format record)");
  }
  if (s.IsNotFound()) {
    // A new database, or one whose creation was cut short before the record
    // was written: then the catalog holds nothing else either.
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
    it->SeekToFirst();
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    if (it->Valid()) {
      return Status::Corruption(path + ": the catalog has no format record");
    }
    return WriteFormatRecordWithNewSecret(kStorageFormatVersion);
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
  DYNAROCK_ASSIGN_OR_RETURN(uint32_t version, DecodeFormatRecord(record));
  if (version > kStorageFormatVersion) {
    return Status::NotSupported(path + " was written in storage format version " +
                                std::to_string(version) + "; this build reads versions up to " +
                                std::to_string(kStorageFormatVersion) + ". It was left untouched");
  }
  if (version < 1) return Status::Corruption(path + ": storage format version 0");
  if (options_.read_only && version < kStorageFormatVersion) {
    return Status::NotSupported(path + " is in storage format version " + std::to_string(version) +
                                "; open it read-write once to upgrade it to version " +
                                std::to_string(kStorageFormatVersion));
  }
  return UpgradeFormat(version);
}

Status Database::Impl::UpgradeFormat(uint32_t version) {
  // Older versions are upgraded here, one step per version; each step ends
  // by recording the version it reached (fsynced).
  auto reached = [this, &version](uint32_t v) {
    rocksdb::WriteOptions sync;
    sync.sync = true;
    version = v;
    return FromRocks(
        db_->Put(sync, catalog_cf_, std::string(kCatalogFormatKey), EncodeFormatRecord(v)));
  };
  // 1 -> 2: the streams column family, which Open has just created (an
  // empty one: no stream existed before version 2).
  if (version == 1) DYNAROCK_RETURN_IF_ERROR(reached(2));
  // 2 -> 3: GSI backfills save a cursor (backfill_cursor/<id>). A version 2
  // backfill has none and starts from the first key, as version 2 did.
  if (version == 2) DYNAROCK_RETURN_IF_ERROR(reached(3));
  // 3 -> 4: new catalog keys (service/<name>) and optional descriptor fields
  // (point-in-time recovery, off when absent): nothing to rewrite.
  if (version == 3) DYNAROCK_RETURN_IF_ERROR(reached(4));
  // 4 -> 5: the tokens column family, which Open has just created (empty:
  // version 4 kept ClientRequestTokens in memory only).
  if (version == 4) DYNAROCK_RETURN_IF_ERROR(reached(5));
  // 5 -> 6: an optional descriptor field (deletion protection, off when
  // absent): nothing to rewrite.
  if (version == 5) DYNAROCK_RETURN_IF_ERROR(reached(6));
  // 6 -> 7: only a table with an LSI keeps collection counters; the other
  // tables' (space id | 'C' | ...) are deleted, in one batch with the record.
  // The range is [space id, space id | 'D'): the same keys ('T' is 54, past
  // 'D'), from a 4-byte begin key, which the stats family's memtable insert
  // hints do not apply to (see kStatsHintPrefixBytes).
  if (version == 6) {
    rocksdb::WriteBatch batch;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
    const std::string tables(kCatalogTablePrefix);
    for (it->Seek(tables); it->Valid() && it->key().starts_with(tables); it->Next()) {
      DYNAROCK_ASSIGN_OR_RETURN(TableInfo table, DecodeTableDescriptor(std::string_view(
                                                     it->value().data(), it->value().size())));
      if (table.has_lsi()) continue;
      const std::string upper = *format::PrefixSuccessor(CollectionStatsPrefix(table.space_id));
      DYNAROCK_RETURN_IF_ERROR(
          FromRocks(batch.DeleteRange(stats_cf_, SpaceBound(table.space_id), upper)));
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    DYNAROCK_RETURN_IF_ERROR(
        FromRocks(batch.Put(catalog_cf_, std::string(kCatalogFormatKey), EncodeFormatRecord(7))));
    rocksdb::WriteOptions sync;
    sync.sync = true;
    DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &batch)));
    version = 7;
  }
  // 7 -> 8: items gain their stored size (an optional field; absent, a
  // reader computes it): nothing to rewrite.
  if (version == 7) DYNAROCK_RETURN_IF_ERROR(reached(8));
  // 8 -> 9: shard iterators are signed (HMAC-SHA256) with a per-database
  // secret, created here in one batch with the record. The iterators
  // version 8 issued carried a checksum anyone could compute; they are
  // refused from now on (they expired within 15 minutes anyway).
  if (version == 8) {
    DYNAROCK_RETURN_IF_ERROR(WriteFormatRecordWithNewSecret(9));
    version = 9;
  }
  // 9 -> 10: items are written in version 2 of the item encoding. Readers
  // take both, and the items' and indexes' compaction filters
  // (ItemUpgradeFilter) rewrite version 1 as compactions meet it, so the
  // step rewrites nothing; Database::Compact finishes the move at once.
  if (version == 9) DYNAROCK_RETURN_IF_ERROR(reached(10));
  // 10 -> 11: table items are stored without their key attributes (the key
  // holds them). Readers take whole items too, and the items' compaction
  // filter rewrites them as compactions meet them: nothing is rewritten here.
  if (version == 10) DYNAROCK_RETURN_IF_ERROR(reached(11));
  // 11 -> 12: tables intern attribute names (names/<space id>/<id> catalog
  // keys, none yet), and table items name their attributes by reference.
  // Readers take format 11's items too, and the items' filter rewrites them.
  if (version == 11) DYNAROCK_RETURN_IF_ERROR(reached(12));
  // 12 -> 13: index entries, like table items, leave out the attributes
  // their key holds and name attributes by reference (the table's
  // dictionary). Readers take whole entries too, and the indexes'
  // compaction filter rewrites them: nothing is rewritten here.
  if (version == 12) DYNAROCK_RETURN_IF_ERROR(reached(13));
  // 13 -> 14: none but the record: table descriptors gain the optional
  // table_class and table_class_since_ms (absent: STANDARD, never given).
  if (version == 13) DYNAROCK_RETURN_IF_ERROR(reached(14));
  // 14 -> 15: none but the record: index descriptors gain the optional
  // more_partition_keys and more_sort_keys of a multi-attribute GSI, whose
  // entries' keys hold every component (KEY_FORMAT.md); version 14 has none.
  if (version == 14) DYNAROCK_RETURN_IF_ERROR(reached(15));
  // 15 -> 16: none but the record: table and index descriptors gain the
  // optional OnDemandThroughput maxima and WarmThroughput (absent: none).
  if (version == 15) DYNAROCK_RETURN_IF_ERROR(reached(16));
  // 16 -> 17: none but the record: table descriptors gain the optional
  // resource-based policies of the table and of its latest stream.
  if (version == 16) DYNAROCK_RETURN_IF_ERROR(reached(17));
  // 17 -> 18: the vectors column family, which Open has just created
  // (empty), and the table descriptors' optional vector_indexes.
  if (version == 17) DYNAROCK_RETURN_IF_ERROR(reached(18));
  // 18 -> 19: none but the record: vector index entries leave the vector
  // attribute out of their projected item (a search rebuilds it from the
  // f32 values). Readers take version 18's entries, each counted at the
  // size it stored; writes rewrite them.
  if (version == 18) DYNAROCK_RETURN_IF_ERROR(reached(19));
  return Status::OK();
}

Status Database::Impl::LoadIteratorSecret(const std::string& path) {
  std::string secret;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), catalog_cf_,
                               std::string(kCatalogIteratorSecretKey), &secret);
  if (s.IsNotFound()) {
    return Status::Corruption(path + ": the catalog has no stream iterator secret");
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
  if (secret.size() != iterator_secret_.size()) {
    return Status::Corruption(path + ": a stream iterator secret of " +
                              std::to_string(secret.size()) + " bytes (32 expected)");
  }
  std::memcpy(iterator_secret_.data(), secret.data(), secret.size());
  return Status::OK();
}

Status Database::Impl::FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsCorruption()) return Status::Corruption(s.ToString());
  if (s.IsIOError()) return Status::IOError(s.ToString());
  if (s.IsInvalidArgument()) return Status::InvalidArgument(s.ToString());
  if (s.IsNotSupported()) return Status::NotSupported(s.ToString());
  return Status::Internal(s.ToString());
}

namespace {

// Open leaves what the log replayed in the memtables (avoid_flush_during_
// recovery: Open does not wait for the writes), but a skip list is slow to
// walk backwards: each of RocksDB's Prev steps searches it again from the
// top. A newest-first Query with a Limit over a 100k-item table reopened
// that way took 3x raw RocksDB's time, whose Open had flushed. So Open notes
// the column families the replay filled, right after RocksDB opened them
// (before Open's own writes: a new database's format record, a stream's
// shard roll), and flushes those in the background as it returns.
std::vector<rocksdb::ColumnFamilyHandle*> ReplayedColumnFamilies(
    rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  std::vector<rocksdb::ColumnFamilyHandle*> replayed;
  for (auto* cf : handles) {
    uint64_t entries = 0;
    if (db->GetIntProperty(cf, "rocksdb.num-entries-active-mem-table", &entries) && entries > 0) {
      replayed.push_back(cf);
    }
  }
  return replayed;
}

void FlushInBackground(rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& cfs) {
  if (cfs.empty()) return;
  rocksdb::FlushOptions flush;
  flush.wait = false;
  flush.allow_write_stall = true;
  // A failure here is a background error like any other flush's: the
  // listener records it and writes report it.
  db->Flush(flush, cfs).PermitUncheckedError();
}

}  // namespace

// The database-wide options: background jobs, syncs, the log's bound, the
// listener, and the file system (wrapped so relaxed writes stay a prefix).
rocksdb::DBOptions Database::Impl::DbOptions(
    const std::shared_ptr<rocksdb::FileSystem>& file_system) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options_.create_if_missing;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.bytes_per_sync = 1 << 20;
  // The log too: the kernel starts writing it back every MiB, so the sync
  // of the old log at a log switch (engine/wal_order.h) finds little left
  // to write. (sync_file_range makes nothing durable by itself.)
  db_options.wal_bytes_per_sync = 1 << 20;
  // A log file is released only once every column family with data in it has
  // flushed. The small ones (stats, catalog, tokens) fill too slowly to flush
  // on their own, so without a bound the log of a long load is kept whole
  // (RocksDB's default: 4 x the sum of the write buffers) and replayed at the
  // next Open. Past this size RocksDB flushes the column families that hold
  // the oldest log back; bench/fleet_bench's Load row reports the disk used
  // and the reopen time right after a load.
  db_options.max_total_wal_size = options_.write_buffer_bytes;
  // Open replays the log into memtables and leaves them there, as if the
  // process had not stopped, instead of writing them out as small L0 files
  // first; the logs stay until those memtables flush, so nothing is less
  // durable. A reopen after a 1M-item load: 0.91-0.96 s -> 0.56-0.60 s.
  db_options.avoid_flush_during_recovery = true;
  db_options.listeners.push_back(background_errors_);
  // Every column family's memtables together stay within
  // Options::MemtableBudget().
  db_options.write_buffer_manager =
      std::make_shared<rocksdb::WriteBufferManager>(options_.MemtableBudget());
  // Relaxed writes stay a prefix across a log switch (engine/wal_order.h).
  env_ = rocksdb::NewCompositeEnv(std::make_shared<WalOrderFileSystem>(file_system));
  db_options.env = env_.get();

  return db_options;
}

// The table format every column family shares: bloom filters, and the
// block cache (with the index and filter blocks, when asked).
std::shared_ptr<rocksdb::TableFactory> Database::Impl::TableFactory() {
  rocksdb::BlockBasedTableOptions table_options;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table_options.whole_key_filtering = true;  // GetItem by full key
  table_options.format_version = 5;
  // Memory. With Options::cache_index_and_filter_blocks, index and filter
  // blocks live in the block cache with the data blocks, so the cache's
  // capacity bounds them however large the database grows (a 10M-item fleet
  // peaked at 466 MiB without, 251 MiB with, against 320 MiB configured).
  // They are then partitioned, so a read loads the partitions it needs
  // rather than a file's whole index and filter; the top levels and level
  // 0's blocks stay pinned, and index and filter blocks go to the cache's
  // high-priority pool; the memtables have a budget of their own
  // (DbOptions). (Charging the memtables to the cache
  // as well, with the cache given the whole budget, peaked at 539 MiB: the
  // blocks took the memtables' share between loads, and the heap kept both.)
  if (options_.block_cache_bytes > 0) {
    block_cache_ = rocksdb::NewLRUCache(options_.block_cache_bytes);
    table_options.block_cache = block_cache_;
    if (options_.cache_index_and_filter_blocks) {
      table_options.cache_index_and_filter_blocks = true;
      table_options.cache_index_and_filter_blocks_with_high_priority = true;
      table_options.pin_l0_filter_and_index_blocks_in_cache = true;
      table_options.pin_top_level_index_and_filter = true;
      table_options.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
      table_options.partition_filters = true;
    }
  } else {
    table_options.no_block_cache = true;  // every read reaches the files
  }
  return std::shared_ptr<rocksdb::TableFactory>(rocksdb::NewBlockBasedTableFactory(table_options));
}

// Each column family's options (compression, filters, merge operator,
// compaction filters).
std::vector<rocksdb::ColumnFamilyDescriptor> Database::Impl::ColumnFamilies() {
  const std::shared_ptr<rocksdb::TableFactory> table_factory = TableFactory();
  auto compression = rocksdb::kNoCompression;
  for (auto c : rocksdb::GetSupportedCompressions()) {
    if (c == rocksdb::kLZ4Compression) compression = c;
  }

  rocksdb::ColumnFamilyOptions items;
  items.table_factory = table_factory;
  items.write_buffer_size = options_.write_buffer_bytes;
  items.compression = compression;
  // table id | hash: Query and GetItem stay inside one prefix, so its bloom
  // filter lets them skip files that hold no key of the collection.
  items.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(format::kKeyPrefixBytes));
  items.memtable_prefix_bloom_size_ratio = 0.02;
  // Whole keys in the memtable's bloom too: every write first reads the old
  // item, and for a new key the filter answers without a skip-list search.
  items.memtable_whole_key_filtering = true;
  // Items an older Dynarock stored (version 1 of the item encoding, or whole
  // items of storage format 10) are rewritten without their key attributes
  // as compactions meet them.
  items.compaction_filter = &item_upgrade_filter_;

  // Index keys have the same shape as item keys: space id | hash | ...; their
  // values are whole items, rewritten from version 1 likewise.
  rocksdb::ColumnFamilyOptions indexes = items;
  indexes.compaction_filter = &index_entry_upgrade_filter_;

  rocksdb::ColumnFamilyOptions stats;
  stats.table_factory = table_factory;
  stats.merge_operator = std::make_shared<CounterMergeOperator>();
  stats.compaction_filter = &empty_counter_filter_;
  // Every write merges into its table's counter (space id | 'T'): with a hint
  // per 5-byte prefix, the memtable inserts the next operand where it put the
  // last one instead of searching the skip list (about 250 bytes per prefix;
  // RocksDB ignores hints for writes it applies concurrently).
  // RocksDB 7.8's MemTable::Add keeps one hint per prefix for the point
  // entries and the range deletions alike, two different skip lists: a
  // DeleteRange on this family must begin at a key shorter than the prefix
  // (a space id), or it takes a point entry's splice into the other list
  // and corrupts it (StorageLayoutTest.VersionSixLoses... hit that assert).
  stats.memtable_insert_with_hint_prefix_extractor.reset(
      rocksdb::NewFixedPrefixTransform(kStatsHintPrefixBytes));

  rocksdb::ColumnFamilyOptions catalog;
  catalog.table_factory = table_factory;

  // Stream records: appended in sequence order per stream, read in order,
  // dropped by the retention filter; every file is compacted at least once
  // per retention period, so the filter sees it.
  rocksdb::ColumnFamilyOptions streams_cf;
  streams_cf.table_factory = table_factory;
  streams_cf.compression = compression;
  retention_filter_ = std::make_unique<streams::RetentionFilter>([this] { return NowMs(); },
                                                                 options_.stream_retention_ms);
  streams_cf.compaction_filter = retention_filter_.get();
  streams_cf.periodic_compaction_seconds =
      static_cast<uint64_t>(std::max<int64_t>(options_.stream_retention_ms / 1000, 1));

  // ClientRequestToken records: small, short-lived, dropped by the expiry
  // filter; periodic compaction makes sure every file meets it.
  rocksdb::ColumnFamilyOptions tokens_cf;
  tokens_cf.table_factory = table_factory;
  tokens_cf.write_buffer_size = 4 << 20;
  token_filter_ = std::make_unique<tokens::ExpiryFilter>([this] { return NowMs(); });
  tokens_cf.compaction_filter = token_filter_.get();
  tokens_cf.periodic_compaction_seconds = 2 * tokens::kLifetimeMs / 1000;

  // Vector index entries: keys shaped as item keys (space id | hash of the
  // HASH search value | ...), values the f32 vector then the projected item.
  rocksdb::ColumnFamilyOptions vectors = items;
  vectors.compaction_filter = nullptr;  // entries are written in one encoding only

  if (options_.max_compaction_bytes > 0) {
    for (auto* cf : {&items, &indexes, &stats, &catalog, &streams_cf, &tokens_cf, &vectors}) {
      cf->max_compaction_bytes = options_.max_compaction_bytes;
    }
  }

  return {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {kCatalogCf, catalog},
      {kItemsCf, items},
      {kStatsCf, stats},
      {kIndexesCf, indexes},
      {kStreamsCf, streams_cf},
      {kTokensCf, tokens_cf},
      {kVectorsCf, vectors},
  };
}

// Opens RocksDB at `path` (a secondary instance when read-only), after
// checking that a database already there is ours.
Status Database::Impl::OpenRocks(const std::string& path, const rocksdb::DBOptions& db_options_in,
                                 const std::vector<rocksdb::ColumnFamilyDescriptor>& cfs,
                                 rocksdb::FileSystem* file_system) {
  rocksdb::DBOptions db_options = db_options_in;
  // A RocksDB database already in the directory must be ours before
  // anything is opened for writing: opening another program's database would
  // add six column families to it.
  std::vector<std::string> existing;
  if (rocksdb::DB::ListColumnFamilies(db_options, path, &existing).ok()) {
    if (options_.read_only || !IsCutShortCreation(db_options, path, existing)) {
      DYNAROCK_RETURN_IF_ERROR(CheckColumnFamilies(path, existing, cfs));
    }
  } else if (options_.read_only) {
    return Status::InvalidArgument(path + " holds no Dynarock database");
  }
  path_ = path;
  rocksdb::DB* raw = nullptr;
  if (options_.read_only) {
    // A secondary instance keeps its own info log and MANIFEST reader state
    // in a directory of its own; it never writes the primary's files.
    std::string templ =
        (std::filesystem::temp_directory_path() / "dynarock-secondary-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) {
      return Status::IOError("cannot create a directory for the secondary instance");
    }
    secondary_dir_ = templ;
    db_options.max_open_files = -1;  // RocksDB requires it of secondaries
    DYNAROCK_RETURN_IF_ERROR(FromRocks(
        rocksdb::DB::OpenAsSecondary(db_options, path, secondary_dir_, cfs, &handles_, &raw)));
  } else {
    // The logs an earlier process left may still be in the page cache; the
    // writes that follow the replay must not be durable before them.
    DYNAROCK_RETURN_IF_ERROR(FromRocks(SyncLogs(file_system, path)));
    DYNAROCK_RETURN_IF_ERROR(FromRocks(rocksdb::DB::Open(db_options, path, cfs, &handles_, &raw)));
    RemoveRestoreScratch(path);
  }
  db_.reset(raw);
  if (options_.read_only) {
    // A secondary reads the MANIFEST, then the logs. A flush of the primary
    // (the one its own Open starts after a log replay, say) can delete a log
    // between the two, after the MANIFEST records it read, so that the
    // flushed data is in neither. One catch-up reads the newer records,
    // which name the flushed file (RocksDB writes them before it deletes
    // the log).
    DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->TryCatchUpWithPrimary()));
  }
  return Status::OK();
}

// The catalog: the next space id, every table's descriptor, and every
// table's interned names.
Status Database::Impl::LoadCatalog() {
  std::string next;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), catalog_cf_, std::string(kCatalogNextSpaceIdKey), &next);
  if (s.ok()) {
    std::string_view in = next;
    if (!format::GetFixed32BE(&in, &next_space_id_)) {
      return Status::Corruption("catalog: bad next_space_id");
    }
  } else if (!s.IsNotFound()) {
    return FromRocks(s);
  }
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  for (it->Seek(std::string(kCatalogTablePrefix));
       it->Valid() && it->key().starts_with(std::string(kCatalogTablePrefix)); it->Next()) {
    DYNAROCK_ASSIGN_OR_RETURN(auto table, DecodeTableDescriptor(std::string_view(
                                              it->value().data(), it->value().size())));
    std::string name = table.name;
    AddStoredKey(table);
    tables_.emplace(std::move(name), std::make_shared<TableState>(std::move(table)));
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  // Every table's interned names: names/<8 hex space id>/<8 hex id>.
  const std::string names(kCatalogNamesPrefix);
  for (it->Seek(names); it->Valid() && it->key().starts_with(names); it->Next()) {
    const std::string_view key(it->key().data(), it->key().size());
    uint32_t space_id = 0, id = 0;
    const bool parsed = key.size() == names.size() + 17 && key[names.size() + 8] == '/' &&
                        std::from_chars(key.data() + names.size(), key.data() + names.size() + 8,
                                        space_id, 16)
                                .ptr == key.data() + names.size() + 8 &&
                        std::from_chars(key.data() + names.size() + 9, key.data() + key.size(),
                                        id, 16)
                                .ptr == key.data() + key.size();
    if (!parsed) return Status::Corruption("catalog: malformed key " + std::string(key));
    DYNAROCK_RETURN_IF_ERROR(key_schemas_.LoadName(space_id, id, it->value().ToString(),
                                                   NamePersister(space_id)));
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  return Status::OK();
}

Status Database::Impl::Open(const std::string& path) {
  const std::shared_ptr<rocksdb::FileSystem> file_system =
      options_.file_system ? options_.file_system : rocksdb::FileSystem::Default();
  const rocksdb::DBOptions db_options = DbOptions(file_system);
  const std::vector<rocksdb::ColumnFamilyDescriptor> cfs = ColumnFamilies();
  DYNAROCK_RETURN_IF_ERROR(OpenRocks(path, db_options, cfs, file_system.get()));
  const std::vector<rocksdb::ColumnFamilyHandle*> replayed =
      options_.read_only ? std::vector<rocksdb::ColumnFamilyHandle*>()
                         : ReplayedColumnFamilies(db_.get(), handles_);
  catalog_cf_ = handles_[1];
  items_cf_ = handles_[2];
  stats_cf_ = handles_[3];
  indexes_cf_ = handles_[4];
  streams_cf_ = handles_[5];
  tokens_cf_ = handles_[6];
  vectors_cf_ = handles_[7];
  write_options_.sync = options_.sync_writes;
  DYNAROCK_RETURN_IF_ERROR(CheckFormatRecord(path));
  DYNAROCK_RETURN_IF_ERROR(LoadIteratorSecret(path));

  DYNAROCK_RETURN_IF_ERROR(LoadCatalog());
  // The format record is current and every table's schema and names are
  // known: compactions may move old items now.
  item_upgrade_filter_.Enable();
  index_entry_upgrade_filter_.Enable();
  DYNAROCK_RETURN_IF_ERROR(LoadStreams());
  FlushInBackground(db_.get(), replayed);
  return Status::OK();
}

MemoryUsage Database::Impl::GetMemoryUsage() {
  MemoryUsage usage;
  if (block_cache_) {
    usage.cache_capacity_bytes = block_cache_->GetCapacity();
    usage.cache_usage_bytes = block_cache_->GetUsage();
  }
  for (auto* cf : handles_) {
    uint64_t n = 0;
    if (db_->GetIntProperty(cf, "rocksdb.cur-size-all-mem-tables", &n)) usage.memtable_bytes += n;
    if (db_->GetIntProperty(cf, "rocksdb.estimate-table-readers-mem", &n)) {
      usage.table_reader_bytes += n;
    }
  }
  if (graphs_) {
    graphs_->ForEachGraph([&usage](const VectorGraph& g) {
      usage.vector_graph_bytes += g.hnsw_bytes();
      usage.vector_graph_key_bytes += g.key_bytes();
      usage.vector_graph_nodes += g.size();
    });
  }
  return usage;
}

int64_t Database::Impl::NowMs() const {
  if (options_.clock_ms) return options_.clock_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status Database::Impl::Compact() {
  rocksdb::CompactRangeOptions o;
  o.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (auto* cf : handles_) {
    DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->CompactRange(o, cf, nullptr, nullptr)));
  }
  return Status::OK();
}

void Database::Impl::StartBackfills() {
  {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, state] : tables_) {
      for (const auto& i : state->info.indexes) {
        if (i.backfilling) backfill_queue_.emplace_back(name, i.name);
      }
      for (const auto& v : state->info.vector_indexes) {
        if (v.backfilling) backfill_queue_.emplace_back(name, v.name);
      }
    }
  }
  backfill_thread_ = std::thread([this] { BackfillLoop(); });
}

Database::Impl::~Impl() {
  {
    std::lock_guard lock(ttl_mu_);
    stopping_ = true;
  }
  ttl_cv_.notify_all();
  if (ttl_thread_.joinable()) ttl_thread_.join();
  {
    std::lock_guard lock(backfill_mu_);
    backfill_stopping_ = true;
  }
  backfill_cv_.notify_all();
  if (backfill_thread_.joinable()) backfill_thread_.join();
  {
    std::lock_guard lock(graph_mu_);
    graph_stopping_ = true;
  }
  graph_cv_.notify_all();
  for (auto& t : graph_threads_) t.join();
  graph_threads_.clear();
  if (!db_) return;
  if (!options_.read_only) {
    // A clean close leaves nothing in the log to replay: the memtables are
    // flushed now (work a later flush would do anyway), so the next Open
    // reads no log. Ignoring a failure: the log still holds every write,
    // and the next Open replays it.
    rocksdb::FlushOptions flush;
    flush.allow_write_stall = true;
    db_->Flush(flush, handles_).PermitUncheckedError();
  }
  for (auto* h : handles_) {
    // Ignoring: a failure to free a handle at shutdown leaves nothing to do.
    db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();  // Ignoring: the WAL already holds every write.
  if (!secondary_dir_.empty()) {
    std::error_code ignored;  // a temporary directory: the system cleans up what is left
    std::filesystem::remove_all(secondary_dir_, ignored);
  }
}

Result<std::unique_ptr<Database>> Database::Open(const std::string& path, const Options& options) {
  auto impl = std::make_unique<Impl>(options);
  DYNAROCK_RETURN_IF_ERROR(impl->Open(path));
  if (!options.read_only) {
    impl->StartBackfills();
    impl->StartTtlSweeper();
    impl->StartVectorGraphs();
  }
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

Status Database::Impl::WaitForCompactions() {
  // RocksDB 7 has no call that waits for background work: poll its counters.
  auto busy = [this] {
    uint64_t n = 0;
    for (const char* p : {"rocksdb.num-running-compactions", "rocksdb.num-running-flushes"}) {
      if (db_->GetIntProperty(p, &n) && n > 0) return true;
    }
    for (auto* cf : handles_) {
      for (const char* p : {"rocksdb.compaction-pending", "rocksdb.mem-table-flush-pending"}) {
        if (db_->GetIntProperty(cf, p, &n) && n > 0) return true;
      }
    }
    return false;
  };
  // After a background error RocksDB stops its work with some of it still
  // pending, so the counters would never reach zero.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(options_.wait_for_compactions_timeout_ms);
  while (busy()) {
    DYNAROCK_RETURN_IF_ERROR(Health());
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::Internal("flushes and compactions still running after " +
                              std::to_string(options_.wait_for_compactions_timeout_ms) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Health();
}

// ---- Background errors --------------------------------------------------------------------

void BackgroundErrors::OnBackgroundError(rocksdb::BackgroundErrorReason /*reason*/,
                                         rocksdb::Status* error) {
  if (error == nullptr || error->ok()) return;
  std::string text = "a background flush or compaction failed: " + error->ToString();
  std::lock_guard lock(mu_);
  if (failed_) return;  // the first error is the cause
  error_ = error->IsCorruption() ? Status::Corruption(std::move(text))
                                 : Status::IOError(std::move(text));
  failed_ = true;
}

void BackgroundErrors::OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) {
  if (!info.new_bg_error.ok()) return;
  std::lock_guard lock(mu_);
  error_ = Status::OK();
  failed_ = false;
}

void BackgroundErrors::OnErrorRecoveryCompleted(rocksdb::Status old_error) {
  old_error.PermitUncheckedError();
  std::lock_guard lock(mu_);
  error_ = Status::OK();
  failed_ = false;
}

Status BackgroundErrors::Current() const {
  if (!failed_.load(std::memory_order_acquire)) return Status::OK();
  std::lock_guard lock(mu_);
  return error_;
}

// ---- Storage access ----------------------------------------------------------------------

Result<Counter> Database::Impl::ReadTableStats(uint32_t space_id,
                                               const rocksdb::Snapshot* snapshot) {
  return ReadStatsCounter(TableStatsKey(space_id), snapshot);
}

Result<Counter> Database::Impl::ReadStatsCounter(const std::string& stats_key,
                                                 const rocksdb::Snapshot* snapshot) {
  std::string value;
  Counter c;
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  rocksdb::Status s = db_->Get(ro, stats_cf_, stats_key, &value);
  if (s.IsNotFound()) return c;  // no item was ever counted there
  DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
  if (!DecodeCounter(value, &c)) {
    return Status::Corruption("a statistics counter of " + std::to_string(value.size()) +
                              " bytes (16 expected)");
  }
  return c;
}

format::NameDictionary::Persist Database::Impl::NamePersister(uint32_t space_id) {
  return [this, space_id](uint32_t id, std::string_view name) -> Status {
    if (options_.read_only) return Status::NotSupported("a read-only instance interns no name");
    rocksdb::WriteOptions sync;
    sync.sync = true;
    return FromRocks(db_->Put(sync, catalog_cf_, InternedNameKey(space_id, id),
                              rocksdb::Slice(name.data(), name.size())));
  };
}

void Database::Impl::AddStoredKey(const TableInfo& table) {
  key_schemas_.Add(table, NamePersister(table.space_id));
}

Result<std::optional<Item>> Database::Impl::ReadItem(const TableInfo& table,
                                                     const format::EncodedKey& key,
                                                     const rocksdb::Snapshot* snapshot) {
  rocksdb::PinnableSlice value;
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  rocksdb::Status s = db_->Get(ro, items_cf_, key.bytes(), &value);
  if (s.IsNotFound()) return std::optional<Item>();
  DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
  // Our own bytes, checksummed by RocksDB on the way: no structural check.
  DYNAROCK_ASSIGN_OR_RETURN(
      auto item, format::DecodeStoredItem(key.bytes(), std::string_view(value.data(), value.size()),
                                          StoredKey(table)));
  return std::optional<Item>(std::move(item));
}

Status Database::Impl::Write(rocksdb::WriteBatch* batch) {
  DYNAROCK_RETURN_IF_ERROR(Health());
  return FromRocks(db_->Write(write_options_, batch));
}

}  // namespace dynarock
