// Dump and restore at fleet scale (DYNAROCK_BENCH_VEHICLES x
// DYNAROCK_BENCH_READINGS, default 2,000 x 500 = 1M items), one table with
// the fleet's GSI (depotCode, recordedAt), measured in one process run:
//
//   BM_BatchWriteLoad    the items loaded with BatchWriteItem (25 per call)
//                        through the engine: the baseline a restore must beat
//   BM_Dump              ExportTable of that table (DYNAMODB_JSON, gzip)
//   BM_RestoreAndBareWriter
//                        ImportTable of the dump into a new database, and a
//                        bare rocksdb::SstFileWriter writing the restored
//                        table's item and index entries (keys and values
//                        already sorted and encoded: its best case) and
//                        ingesting them into a raw RocksDB, in alternation,
//                        five of each (their medians, and the median of the
//                        five pairs' ratios); the bare writer runs twice per
//                        pair, with RocksDB's default options and with the
//                        engine's table options (the files a restore writes)
//
// The load and the dump run once (Iterations(1)); items_per_second is their
// figure. Durability: sync_writes=false for the load (written to the WAL,
// not fsynced per write); a restore's SST files are fsynced by RocksDB at
// ingestion.
// bench/run_bulk.sh runs it and a restore-only process under /usr/bin/time
// for the peak RSS.
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "bench/fleet_items.h"
#include "dynarock/db.h"

namespace {

using namespace dynarock;
namespace fs = std::filesystem;

using bench::EnvInt;
using bench::Reading;
const int kVehicles = EnvInt("DYNAROCK_BENCH_VEHICLES", 2000);
const int kReadings = EnvInt("DYNAROCK_BENCH_READINGS", 500);
const size_t kMemoryMb = static_cast<size_t>(EnvInt("DYNAROCK_BENCH_RESTORE_MB", 256));
CreateTableRequest Telemetry(const std::string& name) { return bench::TelemetryTable(name); }

void Check(const Status& s) {
  if (!s.ok()) {
    fmt::print(stderr, "bulk_bench: {}\n", s.ToString());
    std::exit(1);
  }
}

// Shared by the benchmarks, which run in order.
struct State {
  fs::path root = fs::temp_directory_path() / fmt::format("dynarock-bulk-bench-{}", getpid());
  std::unique_ptr<Database> source, target;
  std::string export_dir;
  // Called from main: databases must close before RocksDB's own statics
  // are destroyed at exit (closing them in a static destructor can hang).
  void Close() {
    source.reset();
    target.reset();
    fs::remove_all(root);
  }
};
State& S() {
  static State s;
  return s;
}

int64_t Items() { return int64_t{kVehicles} * kReadings; }

void BM_BatchWriteLoad(benchmark::State& state) {
  for (auto _ : state) {
    fs::create_directories(S().root);
    auto db = Database::Open((S().root / "source").string(), {});
    Check(db.status());
    S().source = std::move(db).value();
    Check(S().source->CreateTable(Telemetry("Telemetry")).status());
    BatchWriteItemRequest batch;
    auto flush = [&] {
      if (batch.request_items.empty()) return;
      Check(S().source->BatchWriteItem(batch).status());
      batch.request_items.clear();
    };
    int n = 0;
    for (int v = 0; v < kVehicles; ++v) {
      for (int i = 0; i < kReadings; ++i) {
        batch.request_items["Telemetry"].push_back({.put_request = PutRequest{Reading(v, i)}});
        if (++n % 25 == 0) flush();
      }
    }
    flush();
  }
  state.SetItemsProcessed(Items());
}

void BM_Dump(benchmark::State& state) {
  for (auto _ : state) {
    // DYNAROCK_BENCH_BUCKET: where the dump goes, kept after the run
    // (bench/run_bulk.sh restores it again in a process of its own).
    const char* keep = std::getenv("DYNAROCK_BENCH_BUCKET");
    auto exported = S().source->ExportTable(
        {.table_name = "Telemetry",
         .bucket_dir = keep ? std::string(keep) : (S().root / "bucket").string()});
    Check(exported.status());
    S().export_dir = exported->export_dir;
    state.counters["MB_compressed"] = [&] {
      double b = 0;
      for (const auto& f : exported->files) b += static_cast<double>(f.bytes);
      return b / 1e6;
    }();
  }
  state.SetItemsProcessed(Items());
}

// One restore of the dump into a new database ("target"): its seconds.
double Restore() {
  S().target.reset();
  fs::remove_all(S().root / "target");
  const auto start = std::chrono::steady_clock::now();
  auto db = Database::Open((S().root / "target").string(), {});
  Check(db.status());
  S().target = std::move(db).value();
  auto manifest = ReadExportManifest(S().export_dir);
  Check(manifest.status());
  ImportTableOptions o;
  o.table = Telemetry("Telemetry");
  o.files = manifest->files;
  o.memory_budget_bytes = kMemoryMb << 20;
  auto imported = S().target->ImportTable(o);
  Check(imported.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (imported->imported_items != Items()) {
    fmt::print(stderr, "restored {} of {} items\n", imported->imported_items, Items());
    std::exit(1);
  }
  return seconds;
}

// The restored table's item and index entries as stored, from a raw read of
// the target's items and indexes families, in key order.
std::vector<std::pair<std::string, std::string>> RestoredEntries() {
  S().target.reset();
  std::vector<std::pair<std::string, std::string>> kv;
  rocksdb::Options o;
  std::vector<std::string> names;
  Check(rocksdb::DB::ListColumnFamilies(o, (S().root / "target").string(), &names).ok()
            ? Status::OK()
            : Status::Internal("list column families"));
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  for (const auto& n : names) cfs.push_back({n, rocksdb::ColumnFamilyOptions()});
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  if (!rocksdb::DB::OpenForReadOnly(o, (S().root / "target").string(), cfs, &handles, &raw)
           .ok()) {
    Check(Status::Internal("open target read-only"));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != "items" && names[i] != "indexes") continue;
    std::unique_ptr<rocksdb::Iterator> it(raw->NewIterator(rocksdb::ReadOptions(), handles[i]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      kv.emplace_back(it->key().ToString(), it->value().ToString());
    }
  }
  for (auto* h : handles) raw->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  delete raw;
  std::sort(kv.begin(), kv.end());
  return kv;
}

// The same keys and values, straight into one SST file ingested into a
// raw RocksDB ("ceiling"): its seconds. With RocksDB's default options
// (Snappy, no filter: the least work per entry), or (`engine_files`) with
// the table options the engine's items and indexes use (engine/db_impl_open.cc: a
// 10-bit bloom filter of whole keys and of 12-byte prefixes, LZ4), so the
// files are the ones a restore must write.
double BareWriter(const std::vector<std::pair<std::string, std::string>>& kv,
                  bool engine_files = false) {
  fs::remove_all(S().root / "ceiling");
  const auto start = std::chrono::steady_clock::now();
  rocksdb::Options o;
  o.create_if_missing = true;
  if (engine_files) {
    rocksdb::BlockBasedTableOptions t;
    t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    t.whole_key_filtering = true;
    t.format_version = 5;
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    o.compression = rocksdb::kLZ4Compression;
    o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(12));
  }
  rocksdb::DB* raw = nullptr;
  const std::string dir = (S().root / "ceiling").string();
  Check(rocksdb::DB::Open(o, dir, &raw).ok() ? Status::OK() : Status::Internal("open"));
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), o);
  const std::string sst = (S().root / "ceiling.sst").string();
  Check(writer.Open(sst).ok() ? Status::OK() : Status::Internal("sst open"));
  for (const auto& [k, v] : kv) writer.Put(k, v).PermitUncheckedError();
  Check(writer.Finish().ok() ? Status::OK() : Status::Internal("sst finish"));
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;
  Check(raw->IngestExternalFile({sst}, ingest).ok() ? Status::OK() : Status::Internal("ingest"));
  delete raw;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Restores and bare writes in alternation, kPairs of each: on a shared
// machine whose speed drifts by a third within minutes, a pair run back to
// back sees the same machine. Counters: each side's median items/s, and
// the median of the pairs' ratios (restore / bare writer).
constexpr int kPairs = 5;
void BM_RestoreAndBareWriter(benchmark::State& state) {
  std::vector<double> restores, bare, ratios, engine_bare, engine_ratios;
  for (auto _ : state) {
    std::vector<std::pair<std::string, std::string>> kv;
    for (int i = 0; i < kPairs; ++i) {
      const double r = Restore();
      if (kv.empty()) kv = RestoredEntries();  // untimed
      const double b = BareWriter(kv);
      const double e = BareWriter(kv, /*engine_files=*/true);
      restores.push_back(static_cast<double>(Items()) / r);
      bare.push_back(static_cast<double>(Items()) / b);
      ratios.push_back(b / r);
      engine_bare.push_back(static_cast<double>(Items()) / e);
      engine_ratios.push_back(e / r);
    }
    state.counters["entries"] = static_cast<double>(kv.size());
  }
  state.counters["restore_items_per_second"] = Median(restores);
  state.counters["bare_items_per_second"] = Median(bare);
  state.counters["restore_over_bare"] = Median(ratios);
  state.counters["restore_over_bare_min"] = *std::min_element(ratios.begin(), ratios.end());
  state.counters["restore_over_bare_max"] = *std::max_element(ratios.begin(), ratios.end());
  state.counters["engine_bare_items_per_second"] = Median(engine_bare);
  state.counters["restore_over_engine_bare"] = Median(engine_ratios);
  state.counters["restore_over_engine_bare_min"] =
      *std::min_element(engine_ratios.begin(), engine_ratios.end());
  state.counters["restore_over_engine_bare_max"] =
      *std::max_element(engine_ratios.begin(), engine_ratios.end());
}

BENCHMARK(BM_BatchWriteLoad)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Dump)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_RestoreAndBareWriter)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  S().Close();
  return 0;
}
