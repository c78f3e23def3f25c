// The fleet workload on Dynarock, side by side with raw RocksDB (the same key
// layout; `_RocksDB` is the ceiling: the best configuration found, storing
// its own compact encoding of each item's non-key attributes
// (bench/compact_item.h) and decoding its numbers as the engine does;
// `_RawEngineBytes` is the same configuration storing Dynarock's own value
// bytes, to show what the item format costs) and SQLite (WITHOUT ROWID table keyed
// (vehicleId, recordedAt), an index on (depotCode, recordedAt), WAL mode,
// synchronous=NORMAL). Durability on all sides: writes reach the log before
// they return, without an fsync per write (Dynarock sync_writes=false,
// RocksDB WriteOptions::sync=false, SQLite synchronous=NORMAL in WAL mode).
//
// Scale: DYNAROCK_BENCH_VEHICLES x DYNAROCK_BENCH_READINGS (default 2,000 x
// 500 = 1M items), readings 5 s apart, so a ten-minute window is 120 items.
// Each system is loaded in a temporary directory: once for the benchmarks that
// read and write it, and again for each further repetition of its Load. After
// a load (and outside its timing) each settles: the RocksDB sides wait for
// their flushes and compactions, SQLite checkpoints its WAL.
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/compact_item.h"
#include "bench/fleet_items.h"
#include "dynarock/db.h"
#include "format/attribute_names.h"
#include "format/item_codec.h"
#include "format/item_size.h"
#include "format/key_codec.h"

namespace {

using namespace dynarock;

// How Dynarock stores a reading (format::EncodeItemWithoutKey): its key
// attributes live in the key alone, and its other names are interned, here
// in a dictionary of the process's own (the engine keeps the table's in its
// catalog).
format::NameDictionary bench_names([](uint32_t, std::string_view) { return Status::OK(); });
const format::StoredKeySchema kTelemetryKey{
    {"vehicleId", ScalarAttributeType::kS},
    format::KeyAttributeRef{"recordedAt", ScalarAttributeType::kS},
    &bench_names};
std::string EngineValue(const Item& item) {
  std::string out;
  format::EncodeItemWithoutKey(item, format::ItemSize(item), kTelemetryKey, &out);
  return out;
}


using bench::Depot;
using bench::EnvInt;
using bench::Reading;
using bench::Ts;
using bench::VehicleId;
const int kVehicles = EnvInt("DYNAROCK_BENCH_VEHICLES", 2000);
const int kReadings = EnvInt("DYNAROCK_BENCH_READINGS", 500);
constexpr int kWindow = 120;  // ten minutes of 5-second readings

// A private directory under the system's temp directory, removed with its
// contents when the owner is destroyed (a 1M-item run leaves ~1 GB otherwise).
// Declare it before the database that lives in it, so the database closes first.
class ScratchDir {
 public:
  explicit ScratchDir(const char* name)
      : path_(std::filesystem::temp_directory_path() /
              fmt::format("dynarock-bench-{}-{}-{}", name, getpid(), next_id_++)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string str() const { return path_.string(); }

 private:
  static inline int next_id_ = 0;  // a second system of a kind gets its own directory
  std::filesystem::path path_;
};

// Bytes of every file under `dir`: the disk a system uses. A file that
// background work deletes while it is listed (a released log) counts nothing.
uint64_t DirBytes(const std::string& dir) {
  uint64_t bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    std::error_code gone;
    const uint64_t size = std::filesystem::file_size(e.path(), gone);
    if (!gone && e.is_regular_file(gone)) bytes += size;
  }
  return bytes;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- The three systems ---------------------------------------------------------------------

// Every side loads the same readings in the same order (vehicle by vehicle),
// in batches of kLoadBatch: a BatchWriteItem of 25 (its limit), a
// WriteBatch of 25, a SQLite transaction of 25 rows. Calls `batch(first,
// end)` for each batch of reading numbers n = v * kReadings + i.
constexpr int kLoadBatch = 25;
template <typename Batch>
void ForEachLoadBatch(Batch batch) {
  const int total = kVehicles * kReadings;
  for (int first = 0; first < total; first += kLoadBatch) {
    batch(first, std::min(first + kLoadBatch, total));
  }
}

// The mean stored value of a reading in an encoding, over 1,000 readings.
template <typename Encode>
double MeanValueBytes(Encode encode) {
  double total = 0;
  for (int n = 0; n < 1000; ++n) total += static_cast<double>(encode(Reading(n % 97, n)).size());
  return total / 1000;
}

struct DynarockSystem {
  ScratchDir dir{"dynarock"};
  std::unique_ptr<Database> db;
  double load_seconds = 0;
  uint64_t disk_bytes = 0;          // right after the load, before anything settles
  uint64_t settled_disk_bytes = 0;  // after the flushes and compactions
  double close_seconds = 0;  // the close before that reopen
  double reopen_seconds = 0;
  // The value each reading is stored as (the item's FlatBuffers bytes,
  // without its key attributes).
  const double value_bytes = MeanValueBytes(EngineValue);
  // `gsi`: the table has the ByDepot GSI (every row but the like-for-like
  // load against raw RocksDB without an index).
  explicit DynarockSystem(Options options = {}, bool gsi = true) {
    db = std::move(Database::Open(dir.str(), options).value());
    CreateTableRequest table = bench::TelemetryTable();
    if (!gsi) {
      table.global_secondary_indexes.reset();
      std::erase_if(table.attribute_definitions,
                    [](const AttributeDefinition& d) { return d.attribute_name == "depotCode"; });
    }
    (void)db->CreateTable(table).value();
    auto start = std::chrono::steady_clock::now();
    ForEachLoadBatch([&](int first, int end) {
      BatchWriteItemRequest batch;
      auto& puts = batch.request_items["Telemetry"];
      for (int n = first; n < end; ++n) {
        puts.push_back({.put_request = PutRequest{Reading(n / kReadings, n % kReadings)}});
      }
      if (!db->BatchWriteItem(batch).value().unprocessed_items.empty()) std::abort();
    });
    load_seconds = SecondsSince(start);
    disk_bytes = DirBytes(dir.str());
    // A restart right after the load: Open replays what the log still holds.
    start = std::chrono::steady_clock::now();
    db.reset();
    close_seconds = SecondsSince(start);
    start = std::chrono::steady_clock::now();
    db = std::move(Database::Open(dir.str(), options).value());
    reopen_seconds = SecondsSince(start);
    if (!db->WaitForCompactions().ok()) std::abort();  // reads meet the settled tree
    settled_disk_bytes = DirBytes(dir.str());
  }
};

// How a raw RocksDB side is configured.
enum class RawConfig {
  // The ceiling: RocksDB's defaults, a 10-bit whole-key bloom filter (in the
  // SST files and the memtable: a Get of an old reading then skips the
  // memtable's skip list), the same block cache budget as the engine and LZ4
  // (at least as fast as the default Snappy here). No prefix extractor: for
  // these bounded range reads it only adds prefix checks. The best
  // configuration found for this workload.
  kBest,
  // kBest's options, storing Dynarock's item bytes (format::EncodeItem, key
  // attributes included) instead of the compact encoding: the old ceiling,
  // kept beside the real one to show what the item format alone costs.
  kEngineBytes,
};

rocksdb::Options RawOptions() {
  const Options defaults;
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::BlockBasedTableOptions t;
  t.block_cache = rocksdb::NewLRUCache(defaults.block_cache_bytes);
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  t.whole_key_filtering = true;
  t.format_version = 5;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  options.compression = rocksdb::kLZ4Compression;
  options.memtable_prefix_bloom_size_ratio = 0.02;
  options.memtable_whole_key_filtering = true;
  return options;
}

// A reading's raw key (table id 1, or 2 for a table of its own) and value:
// raw's compact encoding, or with `engine_bytes` Dynarock's.
std::pair<std::string, std::string> RawReading(int v, int i, uint32_t table_id = 1,
                                               bool engine_bytes = false) {
  Item item = Reading(v, i);
  return {format::EncodeItemKey(table_id, item.at("vehicleId"), &item.at("recordedAt")).bytes(),
          engine_bytes ? EngineValue(item)
                       : bench::CompactEncode(item, {"vehicleId", "recordedAt"})};
}
// The raw side that keeps the ByDepot index as the engine does (ALL
// projection): next to each item, in the same WriteBatch, an entry keyed as
// the engine keys its index entries (index id | hash | depot | recordedAt |
// vehicleId | recordedAt) whose value is the item's bytes. Index id 3 for
// the fleet table; table 4 with index 5 for the PutItem rows.
constexpr uint32_t kRawIndexId = 3, kRawGsiPutTable = 4, kRawGsiPutIndex = 5;
std::string RawIndexKey(uint32_t index_id, std::string_view depot, std::string_view recorded,
                        std::string_view vehicle) {
  const AttributeValue d = AttributeValue::S(std::string(depot)),
                       ts = AttributeValue::S(std::string(recorded)),
                       id = AttributeValue::S(std::string(vehicle));
  return format::EncodeIndexKey(index_id, d, &ts, id, &ts).bytes();
}

struct RocksSystem {
  ScratchDir dir{"rocksdb"};
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Options options;
  const bool with_index;    // the ByDepot index entries too (RawIndexKey)
  const bool engine_bytes;  // RawConfig::kEngineBytes
  double load_seconds = 0;
  uint64_t disk_bytes = 0;
  uint64_t settled_disk_bytes = 0;
  double close_seconds = 0;
  double reopen_seconds = 0;
  double value_bytes = 0;
  explicit RocksSystem(RawConfig config, bool index = false)
      : options(RawOptions()), with_index(index), engine_bytes(config == RawConfig::kEngineBytes) {
    rocksdb::DB* raw = nullptr;
    if (!rocksdb::DB::Open(options, dir.str(), &raw).ok()) std::abort();
    db.reset(raw);
    auto start = std::chrono::steady_clock::now();
    // Each batch reads the items it replaces first (one MultiGet), as a
    // DynamoDB engine must to keep its indexes and statistics exact.
    ForEachLoadBatch([&](int first, int end) {
      rocksdb::WriteBatch batch;
      std::vector<std::pair<std::string, std::string>> entries;
      for (int n = first; n < end; ++n) {
        entries.push_back(RawReading(n / kReadings, n % kReadings, 1, engine_bytes));
      }
      std::vector<rocksdb::Slice> keys;
      for (const auto& e : entries) keys.emplace_back(e.first);
      std::vector<rocksdb::PinnableSlice> old(keys.size());
      std::vector<rocksdb::Status> statuses(keys.size());
      db->MultiGet({}, db->DefaultColumnFamily(), keys.size(), keys.data(), old.data(),
                   statuses.data());
      for (const auto& st : statuses) {
        if (!st.ok() && !st.IsNotFound()) std::abort();
      }
      for (int n = first; n < end; ++n) {
        const int v = n / kReadings, i = n % kReadings;
        const auto& [key, value] = entries[static_cast<size_t>(n - first)];
        batch.Put(key, value);
        if (with_index) batch.Put(RawIndexKey(kRawIndexId, Depot(v), Ts(i), VehicleId(v)), value);
      }
      if (!db->Write({}, &batch).ok()) std::abort();
    });
    load_seconds = SecondsSince(start);
    disk_bytes = DirBytes(dir.str());
    start = std::chrono::steady_clock::now();
    db.reset();
    close_seconds = SecondsSince(start);
    start = std::chrono::steady_clock::now();
    if (!rocksdb::DB::Open(options, dir.str(), &raw).ok()) std::abort();
    db.reset(raw);
    reopen_seconds = SecondsSince(start);
    WaitForCompactions();
    settled_disk_bytes = DirBytes(dir.str());
    value_bytes = MeanValueBytes([&](const Item& item) {
      return engine_bytes ? EngineValue(item)
                          : bench::CompactEncode(item, {"vehicleId", "recordedAt"});
    });
  }
  // As Database::WaitForCompactions: poll until no flush or compaction runs or waits.
  void WaitForCompactions() {
    auto busy = [this] {
      uint64_t n = 0;
      for (const char* p : {"rocksdb.num-running-compactions", "rocksdb.num-running-flushes",
                            "rocksdb.compaction-pending", "rocksdb.mem-table-flush-pending"}) {
        if (db->GetIntProperty(p, &n) && n > 0) return true;
      }
      return false;
    };
    while (busy()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // A blind put, or with `read_first` the old value read first, as the
  // engine does to keep its indexes and statistics exact. The read-first puts
  // go to a table of their own (id 2), so the fleet table (id 1) that Get,
  // Query and Scan read holds what Dynarock's does: the load and BM_Put's
  // readings.
  void Put(int v, int i, bool read_first = false) {
    PutRaw(db.get(), {}, v, i, read_first, engine_bytes);
  }
  [[gnu::noinline]] static void PutRaw(rocksdb::DB* db, const rocksdb::WriteOptions& w, int v,
                                       int i, bool read_first, bool engine_bytes = false) {
    const auto [key, value] = RawReading(v, i, read_first ? 2 : 1, engine_bytes);
    if (read_first) {
      rocksdb::PinnableSlice old;
      const auto s = db->Get({}, db->DefaultColumnFamily(), key, &old);
      if (!s.ok() && !s.IsNotFound()) std::abort();
    }
    if (!db->Put(w, key, value).ok()) std::abort();
  }
  // A new reading in table kRawGsiPutTable with its index entry, the old
  // value read first and, if there was one, its index entry deleted in the
  // same WriteBatch: what keeping a GSI exact takes on raw RocksDB.
  [[gnu::noinline]] static void PutRawIndexed(rocksdb::DB* db, int v, int i) {
    const auto [key, value] = RawReading(v, i, kRawGsiPutTable);
    rocksdb::PinnableSlice old;
    const auto s = db->Get({}, db->DefaultColumnFamily(), key, &old);
    if (!s.ok() && !s.IsNotFound()) std::abort();
    rocksdb::WriteBatch batch;
    if (s.ok()) {  // the old entry's depot from the old value; the rest is the key's
      std::string_view depot;
      bench::ForEachCompactAttribute(old.ToStringView(),
                                     [&](std::string_view name, AttrType, std::string_view b) {
                                       if (name == "depotCode") depot = b;
                                     });
      batch.Delete(RawIndexKey(kRawGsiPutIndex, depot, Ts(i), VehicleId(v)));
    }
    batch.Put(key, value);
    batch.Put(RawIndexKey(kRawGsiPutIndex, Depot(v), Ts(i), VehicleId(v)), value);
    if (!db->Write({}, &batch).ok()) std::abort();
  }
};

// The readings table and its depot index, as every SQLite side has them.
constexpr const char* kSqliteSchema =
    "CREATE TABLE readings(vehicleId TEXT, recordedAt TEXT, speedKph REAL, coolantC REAL, "
    "fuelPct REAL, depotCode TEXT, PRIMARY KEY(vehicleId, recordedAt)) WITHOUT ROWID;"
    "CREATE INDEX by_depot ON readings(depotCode, recordedAt);";

struct SqliteSystem {
  ScratchDir dir{"sqlite"};
  sqlite3* db = nullptr;
  double load_seconds = 0;
  uint64_t disk_bytes = 0;
  uint64_t settled_disk_bytes = 0;  // after the checkpoint
  double close_seconds = 0;         // not measured
  double reopen_seconds = 0;        // not measured: SQLite has no log to replay after a clean close
  double value_bytes = 0;           // not measured: a row's record is SQLite's own
  // `empty`: the schema alone, no load.
  explicit SqliteSystem(const char* synchronous = "NORMAL", bool empty = false) {
    if (sqlite3_open((dir.str() + "/fleet.db").c_str(), &db) != SQLITE_OK) std::abort();
    Exec("PRAGMA journal_mode=WAL;");
    Exec(fmt::format("PRAGMA synchronous={};", synchronous).c_str());
    Exec(kSqliteSchema);
    if (empty) return;
    auto start = std::chrono::steady_clock::now();
    sqlite3_stmt* put = Prepare("INSERT OR REPLACE INTO readings VALUES(?,?,?,?,?,?)");
    ForEachLoadBatch([&](int first, int end) {
      Exec("BEGIN");
      for (int n = first; n < end; ++n) Put(put, n / kReadings, n % kReadings);
      Exec("COMMIT");
    });
    sqlite3_finalize(put);
    load_seconds = SecondsSince(start);
    disk_bytes = DirBytes(dir.str());
    Exec("PRAGMA wal_checkpoint(TRUNCATE);");  // the WAL folded into the database file
    settled_disk_bytes = DirBytes(dir.str());
  }
  ~SqliteSystem() { sqlite3_close(db); }
  SqliteSystem(const SqliteSystem&) = delete;
  SqliteSystem& operator=(const SqliteSystem&) = delete;
  void Exec(const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) std::abort();
  }
  sqlite3_stmt* Prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) std::abort();
    return s;
  }
  static void Put(sqlite3_stmt* s, int v, int i) {
    std::string id = VehicleId(v), ts = Ts(i);
    sqlite3_bind_text(s, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, ts.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 3, (300 + (v * 7 + i) % 700) / 10.0);
    sqlite3_bind_double(s, 4, 80 + (v + i) % 25);
    sqlite3_bind_double(s, 5, (99 - i % 90) / 100.0);
    sqlite3_bind_text(s, 6, Depot(v), -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_DONE) std::abort();
    sqlite3_reset(s);
  }
};

// What counting each collection's capacity units costs
// (Options::track_collection_traffic): the same load, GetItem and PutItem
// with it on and off, each in a process of its own (bench/run.sh runs
// `_TrafficOn$` and `_TrafficOff$` apart), so neither meets the other's
// background work.
Options Tracking(bool on) {
  Options options;
  options.track_collection_traffic = on;
  return options;
}
// Each is compacted fully after its load, so both read the same LSM shape:
// how a load's flushes and compactions happened to fall otherwise changes
// GetItem's time by more than the option does.
DynarockSystem& Compacted(DynarockSystem& s) {
  if (!s.db->Compact().ok()) std::abort();
  return s;
}
DynarockSystem& DynTrafficOn() {
  static DynarockSystem s(Tracking(true));
  static DynarockSystem& compacted = Compacted(s);
  return compacted;
}
DynarockSystem& DynTrafficOff() {
  static DynarockSystem s(Tracking(false));
  static DynarockSystem& compacted = Compacted(s);
  return compacted;
}
// DYNAROCK_BENCH_CACHE_INDEX=1: Options::cache_index_and_filter_blocks
// (bench/run_10m.sh measures both ways).
DynarockSystem& Dyn() {
  static DynarockSystem s([] {
    Options o;
    o.cache_index_and_filter_blocks = EnvInt("DYNAROCK_BENCH_CACHE_INDEX", 0) != 0;
    return o;
  }());
  return s;
}
RocksSystem& Rocks() {
  static RocksSystem s(RawConfig::kBest);
  return s;
}
RocksSystem& RawEngineBytes() {
  static RocksSystem s(RawConfig::kEngineBytes);
  return s;
}
RocksSystem& RocksGsi() {
  static RocksSystem s(RawConfig::kBest, /*index=*/true);
  return s;
}
SqliteSystem& Sql() {
  static SqliteSystem s;
  return s;
}

// A SQLite row read into memory, as the other two hand back decoded items.
struct Row {
  std::string vehicle, recorded, depot;
  double speed, coolant, fuel;
};
Row ReadRow(sqlite3_stmt* s) {
  return {reinterpret_cast<const char*>(sqlite3_column_text(s, 0)),
          reinterpret_cast<const char*>(sqlite3_column_text(s, 1)),
          reinterpret_cast<const char*>(sqlite3_column_text(s, 5)),
          sqlite3_column_double(s, 2),
          sqlite3_column_double(s, 3),
          sqlite3_column_double(s, 4)};
}

// Steps a bound statement through its rows, reading each into a Row, and
// resets it: the number of rows.
int64_t ReadRows(sqlite3_stmt* s) {
  int64_t n = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    benchmark::DoNotOptimize(ReadRow(s));
    ++n;
  }
  sqlite3_reset(s);
  return n;
}

// A reading read out of a stored item (ItemView, no Item built),
// field by field, as ReadRow reads a SQLite row: what an application of
// Query and Scan pays per item. Numbers stay DynamoDB numbers (decimal).
struct ItemRow {
  std::string vehicle, recorded, depot;
  Number speed, coolant, fuel;
};
ItemRow ReadItemRow(ItemView v) {
  auto str = [&](const char* name) { return std::string(v.Find(name)->bytes()); };
  auto num = [&](const char* name) { return v.Find(name)->number().value(); };
  return {str("vehicleId"), str("recordedAt"), str("depotCode"),
          num("speedKph"),  num("coolantC"),   num("fuelPct")};
}

// The same reading out of raw RocksDB's own bytes: the keys out of the
// RocksDB key (after `skip` components: an index key's own), the rest out of
// the compact value, numbers parsed from their text into DynamoDB numbers as
// ReadItemRow decodes the engine's. No copy: the value is read in place.
[[gnu::noinline]] ItemRow ReadCompactRow(std::string_view key, std::string_view value,
                                         int skip = 0) {
  std::string_view in = key.substr(format::kKeyPrefixBytes);
  ItemRow row;
  std::string ignored;
  for (int k = 0; k < skip; ++k) {
    if (!format::GetBytesComponent(&in, &ignored).ok()) std::abort();
  }
  if (!format::GetBytesComponent(&in, &row.vehicle).ok() ||
      !format::GetBytesComponent(&in, &row.recorded).ok()) {
    std::abort();
  }
  bench::ForEachCompactAttribute(value,
                                 [&](std::string_view name, AttrType, std::string_view bytes) {
                                   if (name == "depotCode") {
                                     row.depot = bytes;
                                   } else if (name == "speedKph") {
                                     row.speed = Number::Parse(bytes).value();
                                   } else if (name == "coolantC") {
                                     row.coolant = Number::Parse(bytes).value();
                                   } else if (name == "fuelPct") {
                                     row.fuel = Number::Parse(bytes).value();
                                   }
                                 });
  return row;
}

// A raw side's reading: compact, or (RawConfig::kEngineBytes) through
// ItemView, the key attributes held beside the stored entries as the engine
// reads them.
ItemRow ReadRawRow(bool engine_bytes, std::string_view key, std::string_view value,
                   std::string* scratch) {
  if (!engine_bytes) return ReadCompactRow(key, value);
  return ReadItemRow(format::OpenStoredItem(key, value, kTelemetryKey, scratch).value());
}

// ---- Load ------------------------------------------------------------------------------------

// A load's throughput, and the disk it used right after (nothing settled)
// and the time to reopen it then (for the RocksDB sides: log replay).
template <typename System>
void ReportLoad(benchmark::State& state, const System& system) {
  for (auto _ : state) {
  }
  state.counters["items_per_second"] =
      static_cast<double>(kVehicles) * kReadings / system.load_seconds;
  state.counters["load_seconds"] = system.load_seconds;
  state.counters["disk_mb"] = static_cast<double>(system.disk_bytes) / (1 << 20);
  state.counters["close_seconds"] = system.close_seconds;
  state.counters["reopen_seconds"] = system.reopen_seconds;
  // Bytes per item: the stored value, and the whole directory once settled
  // (compressed, the keys, indexes and filters included).
  state.counters["value_bytes_per_item"] = system.value_bytes;
  state.counters["settled_bytes_per_item"] =
      static_cast<double>(system.settled_disk_bytes) / (static_cast<double>(kVehicles) * kReadings);
}
// The first run reports the load of the system every other benchmark then
// reads; each repetition after it loads a fresh one, so a median of three
// loads takes three loads.
void BM_Load_Dynarock(benchmark::State& s) {
  static bool first = true;
  if (std::exchange(first, false)) return ReportLoad(s, Dyn());
  ReportLoad(s, DynarockSystem());
}
// Like for like with BM_Load_RocksDB: a table without the GSI (three
// fresh loads; no other row reads it).
void BM_LoadNoIndex_Dynarock(benchmark::State& s) { ReportLoad(s, DynarockSystem({}, false)); }
void BM_Load_RocksDB(benchmark::State& s) {
  static bool first = true;
  if (std::exchange(first, false)) return ReportLoad(s, Rocks());
  ReportLoad(s, RocksSystem(RawConfig::kBest));
}
void BM_Load_RawEngineBytes(benchmark::State& s) {
  static bool first = true;
  if (std::exchange(first, false)) return ReportLoad(s, RawEngineBytes());
  ReportLoad(s, RocksSystem(RawConfig::kEngineBytes));
}
void BM_Load_RocksDBGsi(benchmark::State& s) {
  static bool first = true;
  if (std::exchange(first, false)) return ReportLoad(s, RocksGsi());
  ReportLoad(s, RocksSystem(RawConfig::kBest, /*index=*/true));
}
void BM_Load_SQLite(benchmark::State& s) {
  static bool first = true;
  if (std::exchange(first, false)) return ReportLoad(s, Sql());
  ReportLoad(s, SqliteSystem());
}
BENCHMARK(BM_Load_Dynarock)->Iterations(1);
BENCHMARK(BM_LoadNoIndex_Dynarock)->Iterations(1);
BENCHMARK(BM_Load_RocksDB)->Iterations(1);
BENCHMARK(BM_Load_RawEngineBytes)->Iterations(1);
BENCHMARK(BM_Load_RocksDBGsi)->Iterations(1);
BENCHMARK(BM_Load_SQLite)->Iterations(1);

// ---- PutItem (new readings)
// ----------------------------------------------------------------------

// New readings of random vehicles, on the loaded systems below and on the
// sync-durability ones (empty tables of their own).
void PutDynarock(benchmark::State& state, Database& db) {
  int i = kReadings;
  std::mt19937 rng(1);
  for (auto _ : state)
    (void)db
        .PutItem(
            {.table_name = "Telemetry", .item = Reading(static_cast<int>(rng() % kVehicles), i++)})
        .value();
}
void BM_Put_Dynarock(benchmark::State& s) { PutDynarock(s, *Dyn().db); }
void BM_Put_TrafficOn(benchmark::State& s) { PutDynarock(s, *DynTrafficOn().db); }
void BM_Put_TrafficOff(benchmark::State& s) { PutDynarock(s, *DynTrafficOff().db); }
void PutRaw(benchmark::State& state, rocksdb::DB* db, bool read_first,
            const rocksdb::WriteOptions& w = {}, bool engine_bytes = false) {
  int i = kReadings;
  std::mt19937 rng(1);
  for (auto _ : state) {
    RocksSystem::PutRaw(db, w, static_cast<int>(rng() % kVehicles), i++, read_first, engine_bytes);
  }
}
void BM_Put_RocksDB(benchmark::State& s) { PutRaw(s, Rocks().db.get(), false); }
void BM_PutReadFirst_RocksDB(benchmark::State& s) { PutRaw(s, Rocks().db.get(), true); }
void BM_Put_RawEngineBytes(benchmark::State& s) {
  PutRaw(s, RawEngineBytes().db.get(), false, {}, /*engine_bytes=*/true);
}
void PutSqlite(benchmark::State& state, SqliteSystem& q) {
  sqlite3_stmt* put = q.Prepare("INSERT OR REPLACE INTO readings VALUES(?,?,?,?,?,?)");
  int i = kReadings;
  std::mt19937 rng(1);
  for (auto _ : state) SqliteSystem::Put(put, static_cast<int>(rng() % kVehicles), i++);
  sqlite3_finalize(put);
}
void BM_Put_SQLite(benchmark::State& s) { PutSqlite(s, Sql()); }

[[gnu::noinline]] void PutOneDynarock(Database& db, const std::string& table, int v, int i) {
  (void)db.PutItem({.table_name = table, .item = Reading(v, i)}).value();
}

// PutItem by table shape: no index, the ByDepot GSI, a BySpeed LSI (which
// also locks and checks the collection size), a stream (NEW_AND_OLD_IMAGES:
// the largest record). Each in its own table.
void PutVariant(benchmark::State& state, const std::string& table, bool gsi, bool lsi,
                bool stream = false) {
  auto& d = Dyn();
  CreateTableRequest t{.table_name = table};
  t.key_schema = {{"vehicleId", KeyType::kHash}, {"recordedAt", KeyType::kRange}};
  t.attribute_definitions = {{"vehicleId", ScalarAttributeType::kS},
                             {"recordedAt", ScalarAttributeType::kS}};
  t.billing_mode = BillingMode::kPayPerRequest;
  if (gsi) {
    t.attribute_definitions.push_back({"depotCode", ScalarAttributeType::kS});
    t.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
        {"ByDepot",
         {{"depotCode", KeyType::kHash}, {"recordedAt", KeyType::kRange}},
         {ProjectionType::kAll, {}},
         std::nullopt}};
  }
  if (lsi) {
    t.attribute_definitions.push_back({"speedKph", ScalarAttributeType::kN});
    t.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
        {"BySpeed",
         {{"vehicleId", KeyType::kHash}, {"speedKph", KeyType::kRange}},
         {ProjectionType::kKeysOnly, {}}}};
  }
  if (stream) {
    t.stream_specification = StreamSpecification{true, StreamViewType::kNewAndOldImages};
  }
  (void)d.db->CreateTable(t);  // ResourceInUse on repetitions: the table is reused
  int i = 0;
  std::mt19937 rng(5);
  for (auto _ : state) PutOneDynarock(*d.db, table, static_cast<int>(rng() % kVehicles), i++);
}
void BM_PutNoIndex_Dynarock(benchmark::State& s) { PutVariant(s, "PlainTable", false, false); }
void BM_PutGsi_Dynarock(benchmark::State& s) { PutVariant(s, "GsiTable", true, false); }
void BM_PutLsi_Dynarock(benchmark::State& s) { PutVariant(s, "LsiTable", false, true); }
// The GSI row's raw counterpart: the same readings (seed and order) into an
// empty table of their own, keeping the index as the engine does.
void BM_PutGsi_RocksDBGsi(benchmark::State& state) {
  auto& r = RocksGsi();
  int i = 0;
  std::mt19937 rng(5);
  for (auto _ : state) {
    RocksSystem::PutRawIndexed(r.db.get(), static_cast<int>(rng() % kVehicles), i++);
  }
}
void BM_PutStream_Dynarock(benchmark::State& s) {
  PutVariant(s, "StreamTable", false, false, true);
}

// ---- GetItem ------------------------------------------------------------------------------------

// One GetItem of vehicle v's eighth reading.
[[gnu::noinline]] void GetOneDynarock(Database& db, int v) {
  auto r = db.GetItem({.table_name = "Telemetry",
                       .key = {{"vehicleId", AttributeValue::S(VehicleId(v))},
                               {"recordedAt", AttributeValue::S(Ts(7))}}});
  benchmark::DoNotOptimize(r);
}
void GetDynarock(benchmark::State& state, DynarockSystem& d) {
  std::mt19937 rng(2);
  for (auto _ : state) GetOneDynarock(*d.db, static_cast<int>(rng() % kVehicles));
  // RocksDB's memory after the reads (Database::GetMemoryUsage), in MiB.
  const MemoryUsage m = d.db->GetMemoryUsage();
  state.counters["cache_MiB"] = static_cast<double>(m.cache_usage_bytes) / (1 << 20);
  state.counters["memtables_MiB"] = static_cast<double>(m.memtable_bytes) / (1 << 20);
  state.counters["readers_MiB"] = static_cast<double>(m.table_reader_bytes) / (1 << 20);
}
void BM_Get_Dynarock(benchmark::State& s) { GetDynarock(s, Dyn()); }
void BM_Get_TrafficOn(benchmark::State& s) { GetDynarock(s, DynTrafficOn()); }
void BM_Get_TrafficOff(benchmark::State& s) { GetDynarock(s, DynTrafficOff()); }

// The cost of collection traffic tracking measured A/B on one open database
// in one process: tracking is switched on and off
// (Database::SetCollectionTrafficTracking) in alternating rounds, in pairs
// whose order alternates (on-off, off-on, ...), each round a short warm-up
// and then kAbOps timed operations. Separate processes on separate copies
// differ by more than the option costs (their LSM shapes and page-cache
// placement differ); reopening between rounds (as this harness once did)
// left each round a cold cache and a different flush state. Here only the
// switch differs, rounds are short enough for many pairs, and the median
// of the pairs' ratios resists this machine's drifts and bursts.
// Counters: the median round time per operation with and without, and
// throughput with / without (the median pair ratio).
// DYNAROCK_BENCH_AB_SAME=1 runs both sides without tracking: what the
// harness itself shows (an A/A test).
const int kAbPairs = EnvInt("DYNAROCK_BENCH_AB_PAIRS", 200);
const int kAbOps = EnvInt("DYNAROCK_BENCH_AB_OPS", 2000);
const bool kAbSame = EnvInt("DYNAROCK_BENCH_AB_SAME", 0) != 0;
void TrafficAB(benchmark::State& state, bool put) {
  DynarockSystem& d = DynTrafficOff();
  std::mt19937 rng(3);
  int next_reading = kReadings + 1000000;
  auto op = [&] {
    const int v = static_cast<int>(rng() % kVehicles);
    if (put) {
      (void)d.db->PutItem({.table_name = "Telemetry", .item = Reading(v, next_reading++)}).value();
    } else {
      auto r = d.db->GetItem({.table_name = "Telemetry",
                              .key = {{"vehicleId", AttributeValue::S(VehicleId(v))},
                                      {"recordedAt", AttributeValue::S(Ts(7))}}});
      benchmark::DoNotOptimize(r);
    }
  };
  // Start from a settled tree and a warm cache.
  if (!d.db->WaitForCompactions().ok()) std::abort();
  for (int i = 0; i < 4 * kAbOps; ++i) op();
  auto round = [&](bool on) {
    d.db->SetCollectionTrafficTracking(on && !kAbSame);
    for (int i = 0; i < kAbOps / 4; ++i) op();  // the summaries fill again
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kAbOps; ++i) op();
    return SecondsSince(start) * 1e9 / kAbOps;
  };
  std::vector<double> on_ns, off_ns, ratios;
  for (auto _ : state) {
    for (int pair = 0; pair < kAbPairs; ++pair) {
      double on, off;
      if (pair % 2 == 0) {
        on = round(true);
        off = round(false);
      } else {
        off = round(false);
        on = round(true);
      }
      on_ns.push_back(on);
      off_ns.push_back(off);
      ratios.push_back(off / on);
    }
    state.SetIterationTime(1);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  state.counters["on_ns"] = median(on_ns);
  state.counters["off_ns"] = median(off_ns);
  state.counters["ratio"] = median(ratios);
}
void BM_Get_TrafficAB(benchmark::State& s) { TrafficAB(s, false); }
void BM_Put_TrafficAB(benchmark::State& s) { TrafficAB(s, true); }
[[gnu::noinline]] void GetOneRaw(rocksdb::DB* db, int v, bool engine_bytes) {
  AttributeValue pk = AttributeValue::S(VehicleId(v)), sk = AttributeValue::S(Ts(7));
  rocksdb::PinnableSlice value;  // the block's bytes, not a copy
  const std::string key = format::EncodeItemKey(1, pk, &sk).bytes();
  db->Get({}, db->DefaultColumnFamily(), key, &value);
  // Both sides hand back a decoded item, without the verifier (as ReadItem);
  // raw's keys come from its key.
  if (engine_bytes) {
    auto item = format::DecodeStoredItem(key, value.ToStringView(), kTelemetryKey);
    benchmark::DoNotOptimize(item);
    return;
  }
  Item item{{"vehicleId", std::move(pk)}, {"recordedAt", std::move(sk)}};
  bench::CompactDecode(value.ToStringView(), &item);
  benchmark::DoNotOptimize(item);
}
void GetRaw(benchmark::State& state, RocksSystem& r) {
  std::mt19937 rng(2);
  for (auto _ : state) GetOneRaw(r.db.get(), static_cast<int>(rng() % kVehicles), r.engine_bytes);
}
void BM_Get_RocksDB(benchmark::State& s) { GetRaw(s, Rocks()); }
void BM_Get_RawEngineBytes(benchmark::State& s) { GetRaw(s, RawEngineBytes()); }
void BM_Get_SQLite(benchmark::State& state) {
  auto& q = Sql();
  sqlite3_stmt* s = q.Prepare("SELECT * FROM readings WHERE vehicleId=? AND recordedAt=?");
  std::mt19937 rng(2);
  for (auto _ : state) {
    std::string id = VehicleId(static_cast<int>(rng() % kVehicles)), ts = Ts(7);
    sqlite3_bind_text(s, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, ts.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) benchmark::DoNotOptimize(ReadRow(s));
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
}
BENCHMARK(BM_Get_Dynarock);
// A fixed number of operations, so that the two processes do the same work
// and `valgrind --tool=callgrind --toggle-collect='*GetDynarock*'` (or
// PutDynarock) counts comparable instructions.
const int kTrafficIterations = EnvInt("DYNAROCK_BENCH_TRAFFIC_ITERATIONS", 200000);
BENCHMARK(BM_Get_TrafficOn)->Iterations(kTrafficIterations);
BENCHMARK(BM_Get_TrafficOff)->Iterations(kTrafficIterations);
BENCHMARK(BM_Get_TrafficAB)->Iterations(1)->UseManualTime();
BENCHMARK(BM_Get_RocksDB);
BENCHMARK(BM_Get_RawEngineBytes);
BENCHMARK(BM_Get_SQLite);

// ---- Query: one vehicle, a ten-minute window, newest first ---------------------------------

// Each item read into an ItemRow from its stored bytes (ItemEncoding::kStored),
// or, with `decoded`, handed back as an Item (the convenient form).
// Runs a Query and reads each stored item into an ItemRow: the count, or -1
// if the Query failed.
[[gnu::noinline]] int QueryRows(Database& db, const QueryRequest& q) {
  auto r = db.Query(q);
  if (!r.ok()) return -1;
  for (const ItemView& item : r->stored_items) benchmark::DoNotOptimize(ReadItemRow(item));
  return r->count;
}
void QueryWindowDynarock(benchmark::State& state, bool decoded, bool forward = false) {
  auto& d = Dyn();
  std::mt19937 rng(3);
  for (auto _ : state) {
    int v = static_cast<int>(rng() % kVehicles),
        from = static_cast<int>(rng() % (kReadings - kWindow));
    QueryRequest q{.table_name = "Telemetry"};
    q.key_condition = {
        "vehicleId", AttributeValue::S(VehicleId(v)),
        SortKeyCondition{"recordedAt", SortKeyOperator::kBetween, AttributeValue::S(Ts(from)),
                         AttributeValue::S(Ts(from + kWindow - 1))}};
    q.scan_index_forward = forward;
    if (!decoded) q.item_encoding = ItemEncoding::kStored;
    if (QueryRows(*d.db, q) != kWindow) state.SkipWithError("wrong count");
  }
  state.SetItemsProcessed(state.iterations() * kWindow);
}
void BM_QueryWindow_Dynarock(benchmark::State& s) { QueryWindowDynarock(s, false); }
void BM_QueryWindowItems_Dynarock(benchmark::State& s) { QueryWindowDynarock(s, true); }
// The same windows oldest first: what walking backwards costs.
void BM_QueryWindowForward_Dynarock(benchmark::State& s) { QueryWindowDynarock(s, false, true); }
// Newest first, either with RocksDB's Prev or (`replay`) read oldest first
// into a buffer and walked backwards, which is faster for a bounded window:
// the ceiling takes the faster.
// Vehicle v's window of kWindow readings from reading `from`, newest first;
// returns the number of items read.
[[gnu::noinline]] int ReadWindowRaw(rocksdb::DB* db, int v, int from, bool replay,
                                    bool engine_bytes) {
  AttributeValue pk = AttributeValue::S(VehicleId(v)), lo = AttributeValue::S(Ts(from)),
                 hi = AttributeValue::S(Ts(from + kWindow - 1));
  std::string lower = format::EncodeItemKey(1, pk, &lo).bytes();
  std::string upper = format::EncodeItemKey(1, pk, &hi).bytes() + '\0';
  rocksdb::Slice l(lower), u(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &l;
  ro.iterate_upper_bound = &u;
  ro.auto_prefix_mode = true;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
  int n = 0;
  if (replay) {
    ByteArena arena;  // no allocation per entry
    std::vector<std::string_view> keys, values;
    std::string scratch;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      keys.push_back(arena.Copy(it->key().ToStringView()));
      values.push_back(arena.Copy(it->value().ToStringView()));
    }
    for (size_t i = values.size(); i > 0; --i, ++n) {
      benchmark::DoNotOptimize(ReadRawRow(engine_bytes, keys[i - 1], values[i - 1], &scratch));
    }
  } else {
    std::string aligned;
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++n) {
      benchmark::DoNotOptimize(
          ReadRawRow(engine_bytes, it->key().ToStringView(), it->value().ToStringView(), &aligned));
    }
  }
  return n;
}
void QueryWindowRaw(benchmark::State& state, RocksSystem& r, bool replay) {
  std::mt19937 rng(3);
  for (auto _ : state) {
    int v = static_cast<int>(rng() % kVehicles),
        from = static_cast<int>(rng() % (kReadings - kWindow));
    if (ReadWindowRaw(r.db.get(), v, from, replay, r.engine_bytes) != kWindow) {
      state.SkipWithError("wrong count");
    }
  }
  state.SetItemsProcessed(state.iterations() * kWindow);
}
void BM_QueryWindow_RocksDB(benchmark::State& s) { QueryWindowRaw(s, Rocks(), true); }
void BM_QueryWindowPrev_RocksDB(benchmark::State& s) { QueryWindowRaw(s, Rocks(), false); }
void BM_QueryWindow_RawEngineBytes(benchmark::State& s) {
  QueryWindowRaw(s, RawEngineBytes(), true);
}
void BM_QueryWindow_SQLite(benchmark::State& state) {
  auto& q = Sql();
  sqlite3_stmt* s = q.Prepare(
      "SELECT * FROM readings WHERE vehicleId=? AND recordedAt BETWEEN ? AND ? "
      "ORDER BY recordedAt DESC");
  std::mt19937 rng(3);
  for (auto _ : state) {
    int v = static_cast<int>(rng() % kVehicles),
        from = static_cast<int>(rng() % (kReadings - kWindow));
    std::string id = VehicleId(v), a = Ts(from), b = Ts(from + kWindow - 1);
    sqlite3_bind_text(s, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, a.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, b.c_str(), -1, SQLITE_TRANSIENT);
    if (ReadRows(s) != kWindow) state.SkipWithError("wrong count");
  }
  sqlite3_finalize(s);
  state.SetItemsProcessed(state.iterations() * kWindow);
}
BENCHMARK(BM_QueryWindow_Dynarock);
BENCHMARK(BM_QueryWindowItems_Dynarock);
BENCHMARK(BM_QueryWindowForward_Dynarock);
BENCHMARK(BM_QueryWindow_RocksDB);
BENCHMARK(BM_QueryWindowPrev_RocksDB);
BENCHMARK(BM_QueryWindow_RawEngineBytes);
BENCHMARK(BM_QueryWindow_SQLite);

// ---- Fresh and flushed: the newest windows, just written and after a flush ------------------
// Each side is loaded and flushed and compacted (SQLite: checkpointed); then
// kFreshVehicles vehicles each receive a new ten-minute window of readings,
// which stay in the memtables (the RocksDB sides; about 5 MB of items and as
// much of GSI entries against 64 MiB write buffers) or in the WAL (SQLite,
// up to its automatic checkpoint). `_Memtable` reads those newest windows
// newest first; `_Flushed` then flushes and compacts everything (SQLite:
// checkpoints) and reads the same windows again. One process per side
// (bench/run.sh runs `_FreshDynarock$`, `_FreshRocksDB$`, `_FreshSQLite$`).
const int kFreshVehicles = std::min(kVehicles, 200);

// The reading index of the k-th reading of the fresh window.
int FreshReading(int k) { return kReadings + k; }

template <typename System, typename Append, typename Settle>
System& Freshened(System& s, Append append, Settle settle) {
  settle(s);
  for (int v = 0; v < kFreshVehicles; ++v) {
    for (int k = 0; k < kWindow; ++k) append(s, v, FreshReading(k));
  }
  return s;
}
void SettleDynarock(DynarockSystem& s) {
  if (!s.db->Compact().ok() || !s.db->WaitForCompactions().ok()) std::abort();
}
void SettleRocks(RocksSystem& s) {
  if (!s.db->CompactRange({}, nullptr, nullptr).ok()) std::abort();
  s.WaitForCompactions();
}
void SettleSqlite(SqliteSystem& s) { s.Exec("PRAGMA wal_checkpoint(TRUNCATE);"); }

// The side with its fresh windows written; with `flushed`, settled again
// (once, before the first read of the _Flushed benchmark).
DynarockSystem& FreshDynarock(bool flushed) {
  static DynarockSystem s;
  static DynarockSystem& fresh = Freshened(
      s,
      [](DynarockSystem& d, int v, int i) {
        (void)d.db->PutItem({.table_name = "Telemetry", .item = Reading(v, i)}).value();
      },
      SettleDynarock);
  static bool settled = false;
  if (flushed && !std::exchange(settled, true)) SettleDynarock(fresh);
  return fresh;
}
RocksSystem& FreshRocks(bool flushed) {
  static RocksSystem s(RawConfig::kBest);
  static RocksSystem& fresh = Freshened(
      s, [](RocksSystem& r, int v, int i) { r.Put(v, i); }, SettleRocks);
  static bool settled = false;
  if (flushed && !std::exchange(settled, true)) SettleRocks(fresh);
  return fresh;
}
SqliteSystem& FreshSqlite(bool flushed) {
  static SqliteSystem s;
  static SqliteSystem& fresh = Freshened(
      s,
      [](SqliteSystem& q, int v, int i) {
        sqlite3_stmt* put = q.Prepare("INSERT OR REPLACE INTO readings VALUES(?,?,?,?,?,?)");
        SqliteSystem::Put(put, v, i);
        sqlite3_finalize(put);
      },
      SettleSqlite);
  static bool settled = false;
  if (flushed && !std::exchange(settled, true)) SettleSqlite(fresh);
  return fresh;
}

// A random fresh vehicle's newest window, newest first.
void QueryFreshDynarock(benchmark::State& state, bool flushed) {
  auto& d = FreshDynarock(flushed);
  std::mt19937 rng(5);
  for (auto _ : state) {
    int v = static_cast<int>(rng() % kFreshVehicles);
    QueryRequest q{.table_name = "Telemetry",
                   .scan_index_forward = false,
                   .item_encoding = ItemEncoding::kStored};
    q.key_condition = {"vehicleId", AttributeValue::S(VehicleId(v)),
                       SortKeyCondition{"recordedAt", SortKeyOperator::kGe,
                                        AttributeValue::S(Ts(FreshReading(0))), std::nullopt}};
    if (QueryRows(*d.db, q) != kWindow) state.SkipWithError("wrong count");
  }
  state.SetItemsProcessed(state.iterations() * kWindow);
}
// Read oldest first into a buffer and walked backwards (the faster of the
// two ways in BM_QueryWindow_RocksDB).
void QueryFreshRocks(benchmark::State& state, bool flushed) {
  auto& r = FreshRocks(flushed);
  std::mt19937 rng(5);
  for (auto _ : state) {
    const int v = static_cast<int>(rng() % kFreshVehicles);
    if (ReadWindowRaw(r.db.get(), v, FreshReading(0), true, r.engine_bytes) != kWindow) {
      state.SkipWithError("wrong count");
    }
  }
  state.SetItemsProcessed(state.iterations() * kWindow);
}
void QueryFreshSqlite(benchmark::State& state, bool flushed) {
  auto& q = FreshSqlite(flushed);
  sqlite3_stmt* s = q.Prepare(
      "SELECT * FROM readings WHERE vehicleId=? AND recordedAt >= ? ORDER BY recordedAt DESC");
  std::mt19937 rng(5);
  const std::string from = Ts(FreshReading(0));
  for (auto _ : state) {
    std::string id = VehicleId(static_cast<int>(rng() % kFreshVehicles));
    sqlite3_bind_text(s, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, from.c_str(), -1, SQLITE_STATIC);
    if (ReadRows(s) != kWindow) state.SkipWithError("wrong count");
  }
  sqlite3_finalize(s);
  state.SetItemsProcessed(state.iterations() * kWindow);
}
void BM_QueryMemtable_FreshDynarock(benchmark::State& s) { QueryFreshDynarock(s, false); }
void BM_QueryFlushed_FreshDynarock(benchmark::State& s) { QueryFreshDynarock(s, true); }
void BM_QueryMemtable_FreshRocksDB(benchmark::State& s) { QueryFreshRocks(s, false); }
void BM_QueryFlushed_FreshRocksDB(benchmark::State& s) { QueryFreshRocks(s, true); }
void BM_QueryMemtable_FreshSQLite(benchmark::State& s) { QueryFreshSqlite(s, false); }
void BM_QueryFlushed_FreshSQLite(benchmark::State& s) { QueryFreshSqlite(s, true); }
// Registered in this order: every repetition of _Memtable runs before the flush.
BENCHMARK(BM_QueryMemtable_FreshDynarock);
BENCHMARK(BM_QueryFlushed_FreshDynarock);
BENCHMARK(BM_QueryMemtable_FreshRocksDB);
BENCHMARK(BM_QueryFlushed_FreshRocksDB);
BENCHMARK(BM_QueryMemtable_FreshSQLite);
BENCHMARK(BM_QueryFlushed_FreshSQLite);

// The same question through the ByDepot GSI: newest 100 readings of a depot.
void BM_QueryDepotGsi_Dynarock(benchmark::State& state) {
  auto& d = Dyn();
  std::mt19937 rng(4);
  for (auto _ : state) {
    QueryRequest q{.table_name = "Telemetry", .index_name = "ByDepot"};
    q.key_condition = {"depotCode", AttributeValue::S(Depot(static_cast<int>(rng() % 50))),
                       std::nullopt};
    q.scan_index_forward = false;
    q.limit = 100;
    q.item_encoding = ItemEncoding::kStored;
    if (QueryRows(*d.db, q) != 100) state.SkipWithError("wrong count");
  }
  state.SetItemsProcessed(state.iterations() * 100);
}
// Raw RocksDB's index range of the depot, newest first (Prev from its end:
// a depot holds a fiftieth of the readings, too many to read forward and
// replay).
// The newest `limit` entries of a depot, each read into an ItemRow: the count.
[[gnu::noinline]] int ReadDepotRaw(rocksdb::DB* db, int d, int limit) {
  const AttributeValue depot = AttributeValue::S(Depot(d));
  const std::string lower = format::CollectionPrefix(kRawIndexId, depot).bytes();
  const std::string upper = *format::PrefixSuccessor(lower);
  const rocksdb::Slice l(lower), u(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &l;
  ro.iterate_upper_bound = &u;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
  int n = 0;
  for (it->SeekToLast(); it->Valid() && n < limit; it->Prev(), ++n) {
    // The index key holds the depot and recordedAt first, then the table's keys.
    benchmark::DoNotOptimize(
        ReadCompactRow(it->key().ToStringView(), it->value().ToStringView(), /*skip=*/2));
  }
  return n;
}
void BM_QueryDepotGsi_RocksDBGsi(benchmark::State& state) {
  auto& r = RocksGsi();
  std::mt19937 rng(4);
  for (auto _ : state) {
    if (ReadDepotRaw(r.db.get(), static_cast<int>(rng() % 50), 100) != 100) {
      state.SkipWithError("wrong count");
    }
  }
  state.SetItemsProcessed(state.iterations() * 100);
}
void BM_QueryDepotGsi_SQLite(benchmark::State& state) {
  auto& q = Sql();
  sqlite3_stmt* s =
      q.Prepare("SELECT * FROM readings WHERE depotCode=? ORDER BY recordedAt DESC LIMIT 100");
  std::mt19937 rng(4);
  for (auto _ : state) {
    sqlite3_bind_text(s, 1, Depot(static_cast<int>(rng() % 50)), -1, SQLITE_STATIC);
    if (ReadRows(s) != 100) state.SkipWithError("wrong count");
  }
  sqlite3_finalize(s);
  state.SetItemsProcessed(state.iterations() * 100);
}
BENCHMARK(BM_QueryDepotGsi_Dynarock);
BENCHMARK(BM_QueryDepotGsi_RocksDBGsi);
BENCHMARK(BM_QueryDepotGsi_SQLite);

// ---- Scan
// ------------------------------------------------------------------------------------------

// One whole Scan, page by page, each item read into an ItemRow: the items.
// (A function of its own, never inlined, as each measured operation here:
// callgrind counts its calls and instructions.)
[[gnu::noinline]] int64_t ScanDynarock(Database& db) {
  int64_t items = 0;
  ScanRequest s{.table_name = "Telemetry", .item_encoding = ItemEncoding::kStored};
  while (true) {
    auto r = db.Scan(s);
    items += r->count;
    for (const ItemView& item : r->stored_items) benchmark::DoNotOptimize(ReadItemRow(item));
    if (!r->last_evaluated_key) break;
    s.exclusive_start_key = r->last_evaluated_key;
  }
  return items;
}
void BM_Scan_Dynarock(benchmark::State& state) {
  auto& d = Dyn();
  int64_t items = 0;
  for (auto _ : state) items += ScanDynarock(*d.db);
  state.SetItemsProcessed(items);
}
[[gnu::noinline]] int64_t ScanRawOnce(rocksdb::DB* db, bool engine_bytes) {
  int64_t items = 0;
  std::string aligned;
  rocksdb::ReadOptions ro;
  ro.total_order_seek = true;
  const std::string end("\0\0\0\x02", 4);  // the fleet table's keys only (id 1)
  const rocksdb::Slice upper(end);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++items) {
    benchmark::DoNotOptimize(
        ReadRawRow(engine_bytes, it->key().ToStringView(), it->value().ToStringView(), &aligned));
  }
  return items;
}
void ScanRaw(benchmark::State& state, RocksSystem& r) {
  int64_t items = 0;
  for (auto _ : state) items += ScanRawOnce(r.db.get(), r.engine_bytes);
  state.SetItemsProcessed(items);
}
void BM_Scan_RocksDB(benchmark::State& s) { ScanRaw(s, Rocks()); }
void BM_Scan_RawEngineBytes(benchmark::State& s) { ScanRaw(s, RawEngineBytes()); }
void BM_Scan_SQLite(benchmark::State& state) {
  auto& q = Sql();
  sqlite3_stmt* s = q.Prepare("SELECT * FROM readings");
  int64_t items = 0;
  for (auto _ : state) {
    items += ReadRows(s);
  }
  sqlite3_finalize(s);
  state.SetItemsProcessed(items);
}
BENCHMARK(BM_Scan_Dynarock)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Scan_RocksDB)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Scan_RawEngineBytes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Scan_SQLite)->Unit(benchmark::kMillisecond);

// The window question answered by Scan + FilterExpression: the seed's ratio.
void BM_ScanFilterWindow_Dynarock(benchmark::State& state) {
  auto& d = Dyn();
  for (auto _ : state) {
    ScanRequest s{.table_name = "Telemetry"};
    s.filter_expression = "vehicleId = :v AND recordedAt BETWEEN :a AND :b";
    s.expression_attribute_values =
        ExpressionAttributeValues{{":v", AttributeValue::S(VehicleId(kVehicles / 2))},
                                  {":a", AttributeValue::S(Ts(kReadings - kWindow))},
                                  {":b", AttributeValue::S(Ts(kReadings - 1))}};
    int64_t matched = 0;
    while (true) {
      auto r = d.db->Scan(s);
      matched += r->count;
      if (!r->last_evaluated_key) break;
      s.exclusive_start_key = r->last_evaluated_key;
    }
    if (matched != kWindow) state.SkipWithError("wrong count");
  }
}
BENCHMARK(BM_ScanFilterWindow_Dynarock)->Unit(benchmark::kMillisecond);

// The writes run last, so every read above meets the same settled tree on
// each system (a write benchmark adds as many readings as fit in its time,
// which differs from system to system).
BENCHMARK(BM_Put_Dynarock);
BENCHMARK(BM_Put_TrafficOn)->Iterations(kTrafficIterations);
BENCHMARK(BM_Put_TrafficOff)->Iterations(kTrafficIterations);
BENCHMARK(BM_Put_TrafficAB)->Iterations(1)->UseManualTime();
BENCHMARK(BM_Put_RocksDB);
BENCHMARK(BM_PutReadFirst_RocksDB);
BENCHMARK(BM_Put_RawEngineBytes);
BENCHMARK(BM_Put_SQLite);
BENCHMARK(BM_PutNoIndex_Dynarock);
BENCHMARK(BM_PutStream_Dynarock);
BENCHMARK(BM_PutGsi_Dynarock);
BENCHMARK(BM_PutGsi_RocksDBGsi);
BENCHMARK(BM_PutLsi_Dynarock);

// ---- Sync durability ------------------------------------------------------------------------
// PutItem and a BatchWriteItem load with each acknowledged write on disk
// before it returns: Dynarock sync_writes=true, RocksDB WriteOptions::sync
// (the best raw configuration, reading the old value first for PutItem as
// the engine does), SQLite WAL + synchronous=FULL. One thread, so no group
// commit to share an fsync; a load's batch of 25 shares one. Each side
// starts from an empty table in a directory of its own (an fsync costs the
// same on a big table), and runs kSyncOps writes.
const int kSyncOps = EnvInt("DYNAROCK_BENCH_SYNC_OPS", 1000);
constexpr int kSyncBatch = 25;

std::unique_ptr<Database> SyncDynarock(const ScratchDir& dir) {
  Options options;
  options.sync_writes = true;
  auto db = std::move(Database::Open(dir.str(), options).value());
  (void)db->CreateTable(bench::TelemetryTable()).value();
  return db;
}
std::unique_ptr<rocksdb::DB> SyncRocks(const ScratchDir& dir) {
  rocksdb::DB* raw = nullptr;
  if (!rocksdb::DB::Open(RawOptions(), dir.str(), &raw).ok()) std::abort();
  return std::unique_ptr<rocksdb::DB>(raw);
}
rocksdb::WriteOptions Synced() {
  rocksdb::WriteOptions w;
  w.sync = true;
  return w;
}

void BM_PutDynarock_Sync(benchmark::State& state) {
  ScratchDir dir("sync-dynarock");
  PutDynarock(state, *SyncDynarock(dir));
}
void BM_PutRocksDB_Sync(benchmark::State& state) {
  ScratchDir dir("sync-rocksdb");
  PutRaw(state, SyncRocks(dir).get(), /*read_first=*/true, Synced());
}
void BM_PutSQLite_Sync(benchmark::State& state) {
  SqliteSystem q("FULL", /*empty=*/true);
  PutSqlite(state, q);
}

// Each iteration writes one batch of kSyncBatch readings.
void BM_LoadDynarock_Sync(benchmark::State& state) {
  ScratchDir dir("sync-dynarock");
  auto db = SyncDynarock(dir);
  int n = 0;
  for (auto _ : state) {
    BatchWriteItemRequest batch;
    auto& puts = batch.request_items["Telemetry"];
    for (int k = 0; k < kSyncBatch; ++k, ++n) {
      puts.push_back({.put_request = PutRequest{Reading(n % kVehicles, n / kVehicles)}});
    }
    auto r = db->BatchWriteItem(batch).value();
    if (!r.unprocessed_items.empty()) std::abort();
  }
  state.SetItemsProcessed(n);
}
void BM_LoadRocksDB_Sync(benchmark::State& state) {
  ScratchDir dir("sync-rocksdb");
  auto db = SyncRocks(dir);
  int n = 0;
  for (auto _ : state) {
    rocksdb::WriteBatch batch;
    for (int k = 0; k < kSyncBatch; ++k, ++n) {
      const auto [key, value] = RawReading(n % kVehicles, n / kVehicles);
      batch.Put(key, value);
    }
    if (!db->Write(Synced(), &batch).ok()) std::abort();
  }
  state.SetItemsProcessed(n);
}
void BM_LoadSQLite_Sync(benchmark::State& state) {
  SqliteSystem q("FULL", /*empty=*/true);
  sqlite3_stmt* put = q.Prepare("INSERT OR REPLACE INTO readings VALUES(?,?,?,?,?,?)");
  int n = 0;
  for (auto _ : state) {
    q.Exec("BEGIN");
    for (int k = 0; k < kSyncBatch; ++k, ++n) SqliteSystem::Put(put, n % kVehicles, n / kVehicles);
    q.Exec("COMMIT");
  }
  sqlite3_finalize(put);
  state.SetItemsProcessed(n);
}
BENCHMARK(BM_PutDynarock_Sync)->Iterations(kSyncOps);
BENCHMARK(BM_PutRocksDB_Sync)->Iterations(kSyncOps);
BENCHMARK(BM_PutSQLite_Sync)->Iterations(kSyncOps);
BENCHMARK(BM_LoadDynarock_Sync)->Iterations(kSyncOps / 2);
BENCHMARK(BM_LoadRocksDB_Sync)->Iterations(kSyncOps / 2);
BENCHMARK(BM_LoadSQLite_Sync)->Iterations(kSyncOps / 2);

}  // namespace

BENCHMARK_MAIN();
