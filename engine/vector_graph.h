// Approximate nearest-neighbour search over the large collections of vector
// indexes: one HNSW graph (hnswlib, Debian's libhnswlib-dev) per bucket of
// entries, kept in memory beside the vectors column family, which stays the
// truth. A bucket is the entries' key prefix that a search's range starts
// with: space id | XXH64(enc(h)) for an index with a HASH search attribute
// (the collection of h, and of any other value of the same 64-bit hash,
// which a search then drops), the space id alone without one.
//
// A graph only proposes candidates: SearchVectors reads each candidate's
// entry at its snapshot, applies the search condition to it and scores it
// exactly, so a graph that lags can lose recall but never returns an entry
// the index does not hold. It does not lag: every write changes the graphs
// of the entries it changes before it is acknowledged (while it holds its
// items' locks), and a graph being built records those changes and applies
// them once its scan is done.
#ifndef DYNAROCK_ENGINE_VECTOR_GRAPH_H_
#define DYNAROCK_ENGINE_VECTOR_GRAPH_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "format/vector.h"

namespace hnswlib {
template <typename T>
class HierarchicalNSW;
template <typename T>
class SpaceInterface;
}  // namespace hnswlib

namespace dynarock {

// HNSW's parameters (Options::vector_graph_*).
struct GraphParams {
  size_t m = 16;                 // links per node (twice that on the base layer)
  size_t ef_construction = 200;  // candidate list while inserting
  size_t ef_search = 200;        // candidate list while searching (at least TopK)
};

// One bucket's graph. Thread-safe: searches share it, changes take it alone.
class VectorGraph {
 public:
  VectorGraph(format::VectorDistance distance, uint32_t dimensions, GraphParams params);
  ~VectorGraph();
  VectorGraph(const VectorGraph&) = delete;
  VectorGraph& operator=(const VectorGraph&) = delete;

  // Fills the graph with keys.size() entries: keys[i] holds
  // vectors[i * dimensions ...]. One insertion at a time: hnswlib 0.6.2's
  // concurrent inserts each hold their own node's lock while they lock the
  // nodes they visit, so two can wait on each other (ThreadSanitizer
  // reports the inversion).
  void Build(std::vector<std::string> keys, const std::vector<float>& vectors);
  // The entry at `key` now holds `vector` (REQUIRES: `dimensions` floats).
  void Set(const std::string& key, const float* vector);
  // The entry at `key` is gone (nothing if the graph never had it).
  void Remove(const std::string& key);
  // The keys of up to `k` entries nearest `query`, nearest first.
  std::vector<std::string> Search(const float* query, size_t k) const;

  size_t size() const;
  // What it holds in memory: hnswlib's own, then this class's key maps.
  size_t hnsw_bytes() const;
  size_t key_bytes() const;

 private:
  void Prepare(const float* vector, std::vector<float>* out) const;

  const format::VectorDistance distance_;
  const uint32_t dimensions_;
  const GraphParams params_;
  mutable std::shared_mutex mu_;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> hnsw_;
  size_t capacity_ = 0;
  std::vector<std::string> keys_;                   // by label ("" once freed)
  std::unordered_map<std::string, size_t> labels_;  // by key
  std::vector<size_t> free_labels_;  // removed: their slots are reused by the next Set
};

// A change of one entry, as the write pipeline hands it over: the bucket it
// is in, its key, and its new vector (empty: removed).
struct VectorGraphChange {
  std::string bucket;
  std::string key;
  std::vector<float> vector;
};

// Work for the thread that builds graphs: one bucket's graph, or (with an
// empty bucket) the survey of every vector index at Open.
struct GraphJob {
  std::string bucket;
  uint32_t dimensions = 0;
  format::VectorDistance distance = format::VectorDistance::kCosine;
};

// Every graph of the database, by bucket, and their building.
class VectorGraphs {
 public:
  // A bucket is graphed once a search or the survey at Open finds more than
  // `exact_limit` entries in it.
  VectorGraphs(size_t exact_limit, GraphParams params);

  size_t exact_limit() const { return exact_limit_; }
  // Whether any graph exists or is being built: when not, writes need not
  // collect their changes.
  bool active() const { return active_.load(std::memory_order_acquire); }

  // The ready graph of `bucket`, or null (none, or still building).
  std::shared_ptr<VectorGraph> Ready(const std::string& bucket) const;
  // Registers `bucket` as being built (false if it already has a graph or
  // is being built). Changes applied meanwhile are recorded.
  bool StartBuild(const std::string& bucket);
  // Ends the build `StartBuild` began: applies the recorded changes to
  // `graph` and makes it the bucket's (or, with a null graph, forgets it).
  void FinishBuild(const std::string& bucket, std::shared_ptr<VectorGraph> graph);
  // Applies a write's changes to the graphs they concern.
  void Apply(const std::vector<VectorGraphChange>& changes);
  // Forgets every graph of an index (dropped with it), by its space id.
  void Drop(uint32_t space_id);

  // Calls `fn` on each ready graph.
  template <typename Fn>
  void ForEachGraph(Fn fn) const {
    std::lock_guard lock(mu_);
    for (const auto& [bucket, slot] : slots_) {
      if (slot.graph) fn(*slot.graph);
    }
  }
  const GraphParams& params() const { return params_; }
  // For tests and benchmarks: ready graphs, and buckets being built.
  size_t ready_count() const;
  size_t building_count() const;

 private:
  struct Slot {
    std::shared_ptr<VectorGraph> graph;      // null while building
    std::vector<VectorGraphChange> pending;  // changes during the build
  };
  const size_t exact_limit_;
  const GraphParams params_;
  mutable std::mutex mu_;
  std::map<std::string, Slot> slots_;
  std::atomic<bool> active_{false};
};

// The bucket of an entry key: its first 12 bytes (space id and HASH value's
// hash) if the index has a HASH attribute, else its first 4.
inline std::string_view VectorBucket(std::string_view entry_key, bool has_hash) {
  return entry_key.substr(0, has_hash ? 12 : 4);
}

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_VECTOR_GRAPH_H_
