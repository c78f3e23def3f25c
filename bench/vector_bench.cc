// Vector indexes (SearchVectors) against their two ceilings, on the same
// vectors: brute force over an in-memory float array (the exact ceiling:
// recall 1.0 by definition) and hnswlib used directly (the ANN ceiling: the
// same library and graph parameters as the engine's defaults, without a
// database around it, and at other ef_search values).
//
// Data, generated here: DYNAROCK_BENCH_VECTORS (default 100,000) vectors of
// 128 dimensions, a Gaussian mixture of 100 clusters (centres N(0, 1) per
// dimension, points centre + N(0, 0.35)), or skewed: the clusters' weights
// Zipf(1.1), so a few hold most points. 200 queries from the same mixture.
// Truth: each query's exact top 100 by brute force (Euclidean distance).
//
// Rows (Google Benchmark counters):
//   BM_BruteForce        exact scan of the float array, TopK 10 and 100
//   BM_Hnswlib           hnswlib alone: build time, search p50/p99 and
//                        recall@10 at TopK 10 and 100, memory per vector;
//                        TopK 10 at ef_search 50 to 800
//   BM_Dynarock          the engine, embedded (sync_writes off: the WAL is
//                        written, not fsynced, before a write returns):
//                        PutItem throughput into a table with one vector
//                        index and into the same table without it, the
//                        graph build, SearchVectors p50/p99 and recall@10
//                        (TopK 10, 100; the whole index, one HASH
//                        partition of 10, that partition with an inline
//                        filter matching 1 in 4), graph memory per vector,
//                        and Open with the graph rebuilt.
// bench/run_vectors.sh runs it at 100k and 1M and writes the table in
// bench/RESULTS.md.
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "format/vector.h"

namespace {

using namespace dynarock;
using Clock = std::chrono::steady_clock;

constexpr int kDims = 128;
constexpr int kQueries = 200;
constexpr int kTenants = 10;

size_t VectorCount() {
  const char* n = std::getenv("DYNAROCK_BENCH_VECTORS");
  return n ? std::strtoull(n, nullptr, 10) : 100'000;
}

struct Dataset {
  size_t n = 0;
  std::vector<float> vectors;                       // n x kDims
  std::vector<int> tenant;                          // 0..kTenants-1, skewed toward 0
  std::vector<int> lang;                            // 0..3
  std::vector<float> queries;                       // kQueries x kDims
  std::vector<std::vector<uint32_t>> truth;         // exact top 100 of each query
  std::vector<std::vector<uint32_t>> tenant_truth;  // within tenant 0
  std::vector<std::vector<uint32_t>> filter_truth;  // tenant 0 and lang 0
};

// Exact top `k` of `query` among the ids `keep` accepts, nearest first.
template <typename Keep>
std::vector<uint32_t> TopExact(const Dataset& d, const float* query, size_t k, Keep keep) {
  format::TopVectors top(format::VectorDistance::kEuclidean, k);
  for (size_t i = 0; i < d.n; ++i) {
    if (!keep(i)) continue;
    top.Offer(format::VectorScore(format::VectorDistance::kEuclidean,
                                  std::span<const float>(query, kDims),
                                  std::span<const float>(&d.vectors[i * kDims], kDims)),
              i);
  }
  std::vector<uint32_t> out;
  for (const auto& hit : std::move(top).Take()) out.push_back(static_cast<uint32_t>(hit.id));
  return out;
}

const Dataset& Data(bool skewed) {
  static std::map<bool, Dataset> cache;
  auto [it, fresh] = cache.try_emplace(skewed);
  Dataset& d = it->second;
  if (!fresh) return d;
  d.n = VectorCount();
  std::mt19937_64 rng(skewed ? 7 : 3);
  std::normal_distribution<float> gauss;
  constexpr int kClusters = 100;
  std::vector<float> centres(kClusters * kDims);
  for (float& x : centres) x = gauss(rng);
  std::vector<double> weights(kClusters, 1.0);
  if (skewed) {
    for (int c = 0; c < kClusters; ++c) weights[c] = 1.0 / std::pow(c + 1, 1.1);
  }
  std::discrete_distribution<int> cluster(weights.begin(), weights.end());
  auto point = [&](float* out) {
    const float* c = &centres[static_cast<size_t>(cluster(rng)) * kDims];
    for (int j = 0; j < kDims; ++j) out[j] = c[j] + 0.35f * gauss(rng);
  };
  d.vectors.resize(d.n * kDims);
  std::discrete_distribution<int> tenant_of({30, 20, 10, 10, 6, 6, 6, 4, 4, 4});
  for (size_t i = 0; i < d.n; ++i) {
    point(&d.vectors[i * kDims]);
    d.tenant.push_back(tenant_of(rng));
    d.lang.push_back(static_cast<int>(rng() % 4));
  }
  d.queries.resize(kQueries * kDims);
  for (int q = 0; q < kQueries; ++q) point(&d.queries[static_cast<size_t>(q) * kDims]);
  // The truth, on every core.
  d.truth.resize(kQueries);
  d.tenant_truth.resize(kQueries);
  d.filter_truth.resize(kQueries);
  std::vector<std::thread> pool;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int q = static_cast<int>(t); q < kQueries; q += static_cast<int>(threads)) {
        const float* query = &d.queries[static_cast<size_t>(q) * kDims];
        d.truth[q] = TopExact(d, query, 100, [](size_t) { return true; });
        d.tenant_truth[q] = TopExact(d, query, 100, [&](size_t i) { return d.tenant[i] == 0; });
        d.filter_truth[q] =
            TopExact(d, query, 100, [&](size_t i) { return d.tenant[i] == 0 && d.lang[i] == 0; });
      }
    });
  }
  for (auto& t : pool) t.join();
  return d;
}

double Recall10(const std::vector<uint32_t>& got, const std::vector<uint32_t>& truth) {
  const size_t k = std::min<size_t>(10, truth.size());
  std::set<uint32_t> want(truth.begin(), truth.begin() + static_cast<long>(k));
  size_t hits = 0;
  for (size_t i = 0; i < std::min(k, got.size()); ++i) hits += want.count(got[i]);
  return k == 0 ? 1.0 : static_cast<double>(hits) / static_cast<double>(k);
}

// p50 and p99 of latencies in microseconds.
std::pair<double, double> Percentiles(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us[std::min(us.size() - 1, us.size() * 99 / 100)]};
}

void Report(benchmark::State& state, const char* prefix, std::vector<double> us, double recall) {
  auto [p50, p99] = Percentiles(std::move(us));
  state.counters[fmt::format("{}p50_us", prefix)] = p50;
  state.counters[fmt::format("{}p99_us", prefix)] = p99;
  if (recall >= 0) state.counters[fmt::format("{}recall10", prefix)] = recall;
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

void BM_BruteForce(benchmark::State& state) {
  const Dataset& d = Data(state.range(1) != 0);
  const size_t k = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    std::vector<double> us;
    for (int q = 0; q < kQueries; ++q) {
      const auto start = Clock::now();
      auto got =
          TopExact(d, &d.queries[static_cast<size_t>(q) * kDims], k, [](size_t) { return true; });
      benchmark::DoNotOptimize(got);
      us.push_back(Seconds(start) * 1e6);
    }
    Report(state, "", std::move(us), 1.0);
  }
  state.counters["vectors"] = static_cast<double>(d.n);
}

void BM_Hnswlib(benchmark::State& state) {
  const Dataset& d = Data(state.range(0) != 0);
  const Options engine;  // the engine's graph parameters
  for (auto _ : state) {
    hnswlib::L2Space space(kDims);
    hnswlib::HierarchicalNSW<float> index(&space, d.n, engine.vector_graph_m,
                                          engine.vector_graph_ef_construction);
    // One insertion at a time, as the engine builds (hnswlib 0.6.2's
    // concurrent inserts can wait on each other: engine/vector_graph.h).
    const auto build = Clock::now();
    for (size_t i = 0; i < d.n; ++i) index.addPoint(&d.vectors[i * kDims], i);
    state.counters["build_s"] = Seconds(build);
    auto search = [&](size_t ef, size_t k, const std::string& prefix) {
      index.setEf(ef);
      std::vector<double> us;
      double recall = 0;
      for (int q = 0; q < kQueries; ++q) {
        const auto start = Clock::now();
        auto found = index.searchKnn(&d.queries[static_cast<size_t>(q) * kDims], k);
        us.push_back(Seconds(start) * 1e6);
        std::vector<uint32_t> got(found.size());
        for (size_t i = found.size(); i-- > 0; found.pop()) {
          got[i] = static_cast<uint32_t>(found.top().second);
        }
        recall += Recall10(got, d.truth[q]);
      }
      Report(state, prefix.c_str(), std::move(us), recall / kQueries);
    };
    // At the engine's ef_search, then the sweep that chose it.
    state.counters["ef_search"] = static_cast<double>(engine.vector_graph_ef_search);
    search(engine.vector_graph_ef_search, 10, "k10_");
    search(engine.vector_graph_ef_search, 100, "k100_");
    for (size_t ef : {50, 100, 200, 400, 800}) search(ef, 10, fmt::format("ef{}_k10_", ef));
    // hnswlib's own allocations, counted as VectorGraph::hnsw_bytes counts them.
    size_t bytes =
        d.n * (index.size_data_per_element_ + sizeof(void*) + sizeof(int) + 2 * sizeof(std::mutex));
    for (size_t i = 0; i < index.cur_element_count; ++i) {
      if (index.element_levels_[i] > 0) {
        bytes += index.size_links_per_element_ * static_cast<size_t>(index.element_levels_[i]);
      }
    }
    bytes += index.label_lookup_.size() * (sizeof(size_t) + sizeof(unsigned) + 2 * sizeof(void*));
    state.counters["bytes_per_vector"] = static_cast<double>(bytes) / static_cast<double>(d.n);
  }
  state.counters["vectors"] = static_cast<double>(d.n);
}

AttributeValue Num(float x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", x);
  return AttributeValue::N(*Number::Parse(text));
}

Item ItemOf(const Dataset& d, size_t i, bool with_vector) {
  Item item{{"id", AttributeValue::S(fmt::format("v{:08}", i))},
            {"tenant", AttributeValue::S(fmt::format("t{}", d.tenant[i]))},
            {"lang", AttributeValue::S(fmt::format("l{}", d.lang[i]))}};
  if (with_vector) {
    std::vector<AttributeValue> v;
    v.reserve(kDims);
    for (int j = 0; j < kDims; ++j) v.push_back(Num(d.vectors[i * kDims + j]));
    item["embedding"] = AttributeValue::L(std::move(v));
  }
  return item;
}

// `indexes`: 0 none, 1 the whole-index one ("All"), 2 that and ByTenant.
CreateTableRequest TableOf(const std::string& name, int indexes) {
  CreateTableRequest r;
  r.table_name = name;
  r.key_schema = {{"id", KeyType::kHash}};
  r.attribute_definitions = {{"id", ScalarAttributeType::kS}};
  r.billing_mode = BillingMode::kPayPerRequest;
  if (indexes == 1) {
    r.vector_indexes = std::vector<VectorIndex>{{"All",
                                                 {"embedding"},
                                                 kDims,
                                                 DistanceFunction::kEuclidean,
                                                 {ProjectionType::kKeysOnly, {}},
                                                 std::nullopt}};
  } else if (indexes == 2) {
    r.attribute_definitions.push_back({"tenant", ScalarAttributeType::kS});
    r.attribute_definitions.push_back({"lang", ScalarAttributeType::kS});
    r.vector_indexes = std::vector<VectorIndex>{
        {"All",
         {"embedding"},
         kDims,
         DistanceFunction::kEuclidean,
         {ProjectionType::kKeysOnly, {}},
         std::nullopt},
        {"ByTenant",
         {"embedding"},
         kDims,
         DistanceFunction::kEuclidean,
         {ProjectionType::kKeysOnly, {}},
         std::vector<SearchSchemaElement>{{"tenant", SearchSchemaElementType::kHash},
                                          {"lang", SearchSchemaElementType::kInlineFilter}}}};
  }
  return r;
}

// Items per second through PutItem (one thread per core), every item with
// its 128-number vector (the table without the index stores it too).
double Load(Database* db, const std::string& table, const Dataset& d) {
  const auto start = Clock::now();
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) {
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < d.n;) {
        auto put = db->PutItem({.table_name = table, .item = ItemOf(d, i, true)});
        if (!put.ok()) std::abort();
      }
    });
  }
  for (auto& t : pool) t.join();
  return static_cast<double>(d.n) / Seconds(start);
}

std::unique_ptr<Database> OpenOrDie(const std::string& dir, const Options& options) {
  auto opened = Database::Open(dir, options);
  if (!opened.ok()) std::abort();
  return std::move(opened).value();
}

void BM_Dynarock(benchmark::State& state) {
  const Dataset& d = Data(state.range(0) != 0);
  const std::string dir =
      (std::filesystem::temp_directory_path() / fmt::format("dynarock-vector-bench-{}", getpid()))
          .string();
  std::filesystem::remove_all(dir);
  for (auto _ : state) {
    Options options;  // sync_writes off by default
    std::unique_ptr<Database> db = OpenOrDie(dir, options);
    // PutItem into a table without a vector index, then into one with one
    // (the searches read a third, with two).
    if (!db->CreateTable(TableOf("Plain", 0)).ok()) std::abort();
    if (!db->CreateTable(TableOf("One", 1)).ok()) std::abort();
    if (!db->CreateTable(TableOf("Docs", 2)).ok()) std::abort();
    state.counters["put_per_s_plain"] = Load(db.get(), "Plain", d);
    state.counters["put_per_s_indexed"] = Load(db.get(), "One", d);
    if (!db->DeleteTable({.table_name = "Plain"}).ok()) std::abort();
    if (!db->DeleteTable({.table_name = "One"}).ok()) std::abort();
    Load(db.get(), "Docs", d);

    auto request = [&](const char* index, int q, int top_k, int filter) {
      SearchVectorsRequest s{.table_name = "Docs", .index_name = index, .top_k = top_k};
      for (int j = 0; j < kDims; ++j) {
        s.search_vector.push_back(Num(d.queries[static_cast<size_t>(q) * kDims + j]));
      }
      if (filter > 0) {
        s.search_condition_expression = "tenant = :t";
        s.expression_attribute_values = ExpressionAttributeValues{{":t", AttributeValue::S("t0")}};
        if (filter > 1) {
          *s.search_condition_expression += " AND lang = :l";
          (*s.expression_attribute_values)[":l"] = AttributeValue::S("l0");
        }
      }
      return s;
    };
    // The first searches find the collections over the exact limit and
    // queue their graphs.
    for (const char* index : {"All", "ByTenant"}) {
      auto first = db->SearchVectors(request(index, 0, 10, std::string(index) == "All" ? 0 : 1));
      if (!first.ok()) std::abort();
    }
    const auto build = Clock::now();
    if (!db->WaitForVectorGraphs().ok()) std::abort();
    state.counters["graph_build_s"] = Seconds(build);
    auto search_rows = [&](const char* prefix_all) {
      for (int filter : {0, 1, 2}) {
        for (int top_k : {10, 100}) {
          std::vector<double> us;
          double recall = 0;
          for (int q = 0; q < kQueries; ++q) {
            auto s = request(filter == 0 ? "All" : "ByTenant", q, top_k, filter);
            const auto start = Clock::now();
            auto found = db->SearchVectors(s);
            us.push_back(Seconds(start) * 1e6);
            if (!found.ok()) std::abort();
            std::vector<uint32_t> got;
            for (const auto& r : found->search_results) {
              got.push_back(static_cast<uint32_t>(std::stoul(r.item.at("id").s().substr(1))));
            }
            const auto& truth = filter == 0   ? d.truth[q]
                                : filter == 1 ? d.tenant_truth[q]
                                              : d.filter_truth[q];
            recall += Recall10(got, truth);
          }
          const char* what = filter == 0 ? "all" : filter == 1 ? "hash" : "hash_filter";
          Report(state, fmt::format("{}{}_k{}_", prefix_all, what, top_k).c_str(), std::move(us),
                 recall / kQueries);
        }
      }
    };
    search_rows("");
    MemoryUsage memory = db->GetMemoryUsage();
    state.counters["graph_bytes_per_vector"] =
        static_cast<double>(memory.vector_graph_bytes + memory.vector_graph_key_bytes) /
        static_cast<double>(memory.vector_graph_nodes);
    state.counters["hnsw_bytes_per_vector"] = static_cast<double>(memory.vector_graph_bytes) /
                                              static_cast<double>(memory.vector_graph_nodes);
    state.counters["graph_nodes"] = static_cast<double>(memory.vector_graph_nodes);
    // Open, with the graphs rebuilt by the survey.
    db.reset();
    const auto open = Clock::now();
    db = OpenOrDie(dir, options);
    state.counters["open_s"] = Seconds(open);
    if (!db->WaitForVectorGraphs().ok()) std::abort();
    state.counters["open_with_graphs_s"] = Seconds(open);
  }
  std::filesystem::remove_all(dir);
  state.counters["vectors"] = static_cast<double>(d.n);
}

BENCHMARK(BM_BruteForce)->ArgsProduct({{10, 100}, {0, 1}})->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_Hnswlib)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_Dynarock)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
