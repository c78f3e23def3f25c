// Traffic per item collection: the capacity units each collection consumes,
// in bounded memory (Database::HottestCollections, `dynarock top`), and the
// per-partition ceilings DynamoDB enforces (`serve --partition-limits`).
#ifndef DYNAROCK_ENGINE_TRAFFIC_H_
#define DYNAROCK_ENGINE_TRAFFIC_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace dynarock {

// Lets the maps below be searched with a string_view: no allocation on the
// request path for a key already there.
struct TransparentStringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, TransparentStringHash, std::equal_to<>>;

// Weighted Space-Saving (Metwally, Agrawal, El Abbadi 2005): the heaviest
// keys of a stream in `capacity` counters. A key that is not monitored takes
// over the smallest counter and inherits its count as its error. For every
// monitored key, exact <= units <= exact + error; a key that is not
// monitored has exact <= min_units(); and min_units() <= total / capacity, so
// every key heavier than total / capacity is monitored. Not thread-safe.
class HeavyHitters {
 public:
  struct Counter {
    std::string key;
    double units = 0;  // an upper bound of the key's exact total
    double error = 0;  // units - error is a lower bound
    // What was added while the key was monitored (so lower bounds too).
    double read_units = 0, write_units = 0;
  };

  // REQUIRES: capacity > 0.
  explicit HeavyHitters(size_t capacity);

  // Adds read + write units to `key`. REQUIRES: both >= 0.
  void Add(std::string_view key, double read_units, double write_units);
  void Clear();

  // Unordered.
  const std::vector<Counter>& counters() const { return counters_; }
  double total() const { return total_; }
  // The bound on any unmonitored key's total: the smallest counter once
  // every counter is taken, 0 before (every key seen is then monitored).
  double min_units() const;
  size_t capacity() const { return capacity_; }

 private:
  void SiftDown(size_t heap_pos);
  void Swap(size_t a, size_t b);

  size_t capacity_;
  double total_ = 0;
  std::vector<Counter> counters_;
  StringMap<size_t> slot_;  // key -> index in counters_
  // A min-heap of indexes into counters_ by units, and each counter's place in it.
  std::vector<size_t> heap_, heap_pos_;
};

// One collection in a window's merged summary.
struct HotCollection {
  std::string key;  // as given to Add
  double units = 0, read_units = 0, write_units = 0;
  // |units - exact total over the window| <= error_bound.
  double error_bound = 0;
};

// Space-Saving summaries of consecutive time slices (a ring), so the hottest
// keys of the last `window` are the merge of the slices it covers: a key's
// units sum over the slices that monitor it. Memory: slices * capacity
// counters. Not thread-safe.
class SlidingHeavyHitters {
 public:
  // REQUIRES: slice_ms > 0, slices > 0, capacity > 0.
  SlidingHeavyHitters(int64_t slice_ms, size_t slices, size_t capacity);

  void Add(int64_t now_ms, std::string_view key, double read_units, double write_units);

  // The `n` heaviest keys over the slices that overlap [now - window, now]
  // (the window is rounded out to whole slices, and limited to the ring),
  // heaviest first. `covered_ms` (if not null) receives the time those
  // slices span up to now, for rates.
  std::vector<HotCollection> Top(int64_t now_ms, int64_t window_ms, size_t n,
                                 int64_t* covered_ms) const;

  int64_t max_window_ms() const { return slice_ms_ * static_cast<int64_t>(slices_.size()); }

  // The number of the oldest slice Top(now_ms, window_ms) covers, and the
  // time from its start to now.
  static int64_t FirstSlice(int64_t now_ms, int64_t window_ms, int64_t slice_ms, size_t slices);
  static int64_t CoveredMs(int64_t now_ms, int64_t window_ms, int64_t slice_ms, size_t slices) {
    return now_ms - FirstSlice(now_ms, window_ms, slice_ms, slices) * slice_ms + 1;
  }

 private:
  struct Slice {
    int64_t number = -1;  // now_ms / slice_ms of its period; -1: unused
    HeavyHitters summary;
  };
  int64_t slice_ms_;
  std::vector<Slice> slices_;
};

// A token bucket per collection, as DynamoDB's partitions have: each refills
// at `units_per_second` and holds up to `burst_seconds` of unused capacity
// (at least one second's). A request is admitted while its collection's
// bucket is above zero, and then charged what it consumed, so one large
// request may take the bucket below zero and the next ones wait for it to
// refill. A collection not seen before starts full; buckets that refilled to
// full are dropped (a full bucket and no bucket behave alike), so memory
// stays in proportion to the collections active within the burst period.
// Not thread-safe.
class TokenBuckets {
 public:
  // REQUIRES: units_per_second > 0, burst_seconds >= 0.
  TokenBuckets(double units_per_second, double burst_seconds);

  bool Admits(int64_t now_ms, std::string_view key);
  void Charge(int64_t now_ms, std::string_view key, double units);
  size_t size() const { return buckets_.size(); }

 private:
  struct Bucket {
    double credit;
    int64_t at_ms;
  };
  // The bucket refilled to now; nullptr if it would be full (none kept).
  Bucket* Refill(int64_t now_ms, std::string_view key);
  void DropFull(int64_t now_ms);

  double rate_per_ms_, capacity_;
  StringMap<Bucket> buckets_;
  size_t sweep_at_ = 1024;  // size at which full buckets are next swept
};

// OnDemandThroughput's maxima: for each table or GSI (by space id) that has
// one, a read and a write bucket refilled at the maximum per second and
// holding at most one second's units. A request is admitted while its
// bucket is above zero, then charged what it consumed (as TokenBuckets).
// Only spaces with a maximum have buckets. Thread-safe.
class MaxThroughput {
 public:
  // REQUIRES: units_per_second > 0.
  bool Admits(int64_t now_ms, uint32_t space_id, bool write, int64_t units_per_second);
  void Charge(int64_t now_ms, uint32_t space_id, bool write, int64_t units_per_second,
              double units);
  // A deleted table's or index's buckets.
  void Forget(uint32_t space_id);

 private:
  struct Bucket {
    double credit;
    int64_t at_ms;
  };
  // Refilled to now (a new one starts full). REQUIRES: mu_ held.
  Bucket& Refill(int64_t now_ms, uint64_t key, int64_t units_per_second);

  std::mutex mu_;
  std::unordered_map<uint64_t, Bucket> buckets_;  // space id << 1 | write
};

// The database's traffic: a SlidingHeavyHitters per space (table or GSI)
// and, with limits, read and write TokenBuckets per collection. Collections
// are named by their key prefix (format::CollectionPrefix: space id, hash,
// partition key), so one set of buckets serves every space. Thread-safe.
//
// Without limits, counting is taken off the request path. Record appends
// the record to its thread's stage for this Traffic (a lock no other thread
// takes but to collect it, and a copy of the key, in a few kilobytes that
// stay in the thread's cache), and hands a full stage over to a pending
// batch. A drainer thread applies the pending batch and every stage to the
// summaries (woken for a full batch, and every 100 ms), each collection's
// records of a time slice added up first (one summary update per
// collection and slice: Space-Saving's bounds hold for any order and
// grouping of a slice's updates). Top and Forget collect everything
// pending and staged first, so they see every Record that returned before
// them, from any thread, including threads that have ended. With limits,
// Record applies and charges at once (Admits must see every earlier charge).
class Traffic {
 public:
  struct Limits {
    double read_units_per_second, write_units_per_second, burst_seconds;
  };
  Traffic(bool track, std::optional<Limits> limits);
  ~Traffic();
  Traffic(const Traffic&) = delete;
  Traffic& operator=(const Traffic&) = delete;

  bool tracking() const { return track_.load(std::memory_order_relaxed); }
  // Turns counting on or off. Off discards every count made (and pending):
  // counting on again starts from nothing. Limits are not affected.
  void SetTracking(bool on);
  bool limiting() const { return reads_ != nullptr; }

  // Whether the collection's read (or write) budget admits a request now.
  // Always true without limits.
  bool Admits(int64_t now_ms, std::string_view collection, bool write);
  // Counts what a request consumed on a collection of `space_id`, and
  // charges it to the collection's budgets.
  void Record(int64_t now_ms, uint32_t space_id, std::string_view collection, double read_units,
              double write_units);
  std::vector<HotCollection> Top(uint32_t space_id, int64_t now_ms, int64_t window_ms, size_t n,
                                 int64_t* covered_ms);
  // A deleted table's or index's counts.
  void Forget(uint32_t space_id);

  // Records a thread stages before it hands them over to the pending batch.
  static constexpr size_t kStageRecords = 256;
  // Records a pending batch holds before the drainer is woken for it, and
  // before Record applies it itself (the drainer fell behind).
  static constexpr size_t kBatchRecords = 16384;
  static constexpr size_t kMaxPendingRecords = 4 * kBatchRecords;

 private:
  struct Pending {
    int64_t now_ms;
    uint32_t space_id;
    uint32_t key_size;
    double read_units, write_units;
  };
  struct Batch {
    std::vector<Pending> records;
    std::string keys;  // the records' keys, back to back
  };
  // One collection's records of a batch within one time slice, added up.
  struct Sum {
    uint64_t hash;
    int64_t now_ms;  // the first record's (its slice is everyone's)
    uint32_t space_id;
    uint32_t key_size;
    size_t key_offset;  // into draining_.keys
    double read_units, write_units;
  };
  // One thread's records for this Traffic, not handed over yet (traffic.cc).
  struct Stage;
  // The calling thread's stage, made and registered on its first Record.
  Stage& ThisThreadsStage();
  // REQUIRES: mu_ held.
  void Apply(int64_t now_ms, uint32_t space_id, std::string_view collection, double read_units,
             double write_units);
  // Applies every pending and staged record. REQUIRES: mu_ held.
  void DrainLocked();
  void DrainLoop();

  // Read without a lock on every request: a Record racing with
  // SetTracking(false) may land in the summaries just cleared (one
  // request's units, gone at the next switch off or out of the window).
  std::atomic<bool> track_;
  // Guards the summaries and the buckets; taken before pending_mu_.
  std::mutex mu_;
  std::unordered_map<uint32_t, std::unique_ptr<SlidingHeavyHitters>> spaces_;
  std::unique_ptr<TokenBuckets> reads_, writes_;
  // Guarded by mu_: the batch being applied and its sums (buffers reused).
  Batch draining_;
  std::vector<Sum> sums_;
  std::vector<uint32_t> sum_index_;  // open addressing over sums_; UINT32_MAX: free

  // Names this Traffic in the threads' caches of their stages: unique for
  // the process's lifetime (an address may be reused by a later Traffic).
  const uint64_t id_;
  // Every thread's stage; a stage whose thread has ended is dropped once
  // collected. Taken after mu_, before a stage's own lock.
  std::mutex stages_mu_;
  std::vector<std::shared_ptr<Stage>> stages_;  // guarded by stages_mu_

  std::mutex pending_mu_;  // taken after a stage's lock
  std::condition_variable wake_;
  Batch pending_;      // guarded by pending_mu_
  bool stop_ = false;  // guarded by pending_mu_
  std::thread drainer_;
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_TRAFFIC_H_
