#include "engine/traffic.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <map>

#include <xxhash.h>

#include "dynarock/db.h"

namespace dynarock {

// ---- HeavyHitters ---------------------------------------------------------------

HeavyHitters::HeavyHitters(size_t capacity) : capacity_(capacity) { assert(capacity > 0); }

void HeavyHitters::Swap(size_t a, size_t b) {
  std::swap(heap_[a], heap_[b]);
  heap_pos_[heap_[a]] = a;
  heap_pos_[heap_[b]] = b;
}

// Units only grow, so a counter only ever moves down the min-heap.
void HeavyHitters::SiftDown(size_t pos) {
  for (;;) {
    size_t smallest = pos;
    for (size_t child : {2 * pos + 1, 2 * pos + 2}) {
      if (child < heap_.size() &&
          counters_[heap_[child]].units < counters_[heap_[smallest]].units) {
        smallest = child;
      }
    }
    if (smallest == pos) return;
    Swap(pos, smallest);
    pos = smallest;
  }
}

void HeavyHitters::Add(std::string_view key, double read_units, double write_units) {
  const double units = read_units + write_units;
  total_ += units;
  auto it = slot_.find(key);
  size_t i;
  if (it != slot_.end()) {
    i = it->second;
  } else if (counters_.size() < capacity_) {
    i = counters_.size();
    counters_.push_back({std::string(key), 0, 0, 0, 0});
    slot_.emplace(key, i);
    // A new counter at 0 is a smallest one: it goes up from the bottom.
    heap_.push_back(i);
    heap_pos_.push_back(heap_.size() - 1);
    for (size_t pos = heap_.size() - 1; pos > 0;) {
      const size_t parent = (pos - 1) / 2;
      if (counters_[heap_[parent]].units <= counters_[heap_[pos]].units) break;
      Swap(pos, parent);
      pos = parent;
    }
  } else {
    // Replace the smallest counter: the new key inherits its count as error.
    i = heap_[0];
    Counter& c = counters_[i];
    // The map's node is reused for the new key: no allocation per turnover.
    auto node = slot_.extract(c.key);
    node.key().assign(key);
    slot_.insert(std::move(node));
    c.key.assign(key);
    c.error = c.units;
    c.read_units = c.write_units = 0;
  }
  Counter& c = counters_[i];
  c.units += units;
  c.read_units += read_units;
  c.write_units += write_units;
  SiftDown(heap_pos_[i]);
}

void HeavyHitters::Clear() {
  total_ = 0;
  counters_.clear();
  slot_.clear();
  heap_.clear();
  heap_pos_.clear();
}

double HeavyHitters::min_units() const {
  if (counters_.size() < capacity_) return 0;
  return counters_[heap_[0]].units;
}

// ---- SlidingHeavyHitters --------------------------------------------------------

SlidingHeavyHitters::SlidingHeavyHitters(int64_t slice_ms, size_t slices, size_t capacity)
    : slice_ms_(slice_ms) {
  assert(slice_ms > 0 && slices > 0);
  slices_.reserve(slices);
  for (size_t i = 0; i < slices; ++i) slices_.push_back({-1, HeavyHitters(capacity)});
}

void SlidingHeavyHitters::Add(int64_t now_ms, std::string_view key, double read_units,
                              double write_units) {
  const int64_t number = now_ms / slice_ms_;
  Slice& slice = slices_[static_cast<size_t>(number) % slices_.size()];
  if (slice.number != number) {
    // A slice from a lap ago (or a clock that went back): reused.
    slice.summary.Clear();
    slice.number = number;
  }
  slice.summary.Add(key, read_units, write_units);
}

int64_t SlidingHeavyHitters::FirstSlice(int64_t now_ms, int64_t window_ms, int64_t slice_ms,
                                        size_t slices) {
  const int64_t wanted = std::max<int64_t>(1, (window_ms + slice_ms - 1) / slice_ms);
  return now_ms / slice_ms - std::min<int64_t>(wanted, static_cast<int64_t>(slices)) + 1;
}

std::vector<HotCollection> SlidingHeavyHitters::Top(int64_t now_ms, int64_t window_ms, size_t n,
                                                    int64_t* covered_ms) const {
  const int64_t last = now_ms / slice_ms_;
  const int64_t first = FirstSlice(now_ms, window_ms, slice_ms_, slices_.size());
  if (covered_ms) *covered_ms = CoveredMs(now_ms, window_ms, slice_ms_, slices_.size());

  struct Merged {
    HotCollection hot;
    double error = 0;        // summed errors of the slices monitoring it
    double present_min = 0;  // summed bounds of the slices monitoring it
  };
  std::vector<const HeavyHitters*> covered;
  for (const Slice& s : slices_) {
    if (s.number >= first && s.number <= last) covered.push_back(&s.summary);
  }
  std::map<std::string_view, Merged> merged;
  double all_min = 0;
  for (const HeavyHitters* s : covered) {
    const double min = s->min_units();
    all_min += min;
    for (const auto& c : s->counters()) {
      Merged& m = merged[c.key];
      m.hot.units += c.units;
      m.hot.read_units += c.read_units;
      m.hot.write_units += c.write_units;
      m.error += c.error;
      m.present_min += min;
    }
  }
  std::vector<HotCollection> out;
  out.reserve(merged.size());
  for (auto& [key, m] : merged) {
    // Below: the errors of the slices that monitor it; above: the slices
    // that do not, each of which saw at most its smallest counter of it.
    m.hot.key.assign(key);
    m.hot.error_bound = std::max(m.error, all_min - m.present_min);
    out.push_back(std::move(m.hot));
  }
  std::sort(out.begin(), out.end(), [](const HotCollection& a, const HotCollection& b) {
    if (a.units != b.units) return a.units > b.units;
    return a.key < b.key;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

// ---- TokenBuckets ---------------------------------------------------------------

TokenBuckets::TokenBuckets(double units_per_second, double burst_seconds)
    : rate_per_ms_(units_per_second / 1000),
      capacity_(units_per_second * std::max(1.0, burst_seconds)) {
  assert(units_per_second > 0);
}

TokenBuckets::Bucket* TokenBuckets::Refill(int64_t now_ms, std::string_view key) {
  auto it = buckets_.find(key);
  if (it == buckets_.end()) return nullptr;
  Bucket& b = it->second;
  if (now_ms > b.at_ms) {
    b.credit = std::min(capacity_, b.credit + rate_per_ms_ * static_cast<double>(now_ms - b.at_ms));
    b.at_ms = now_ms;
  }
  if (b.credit >= capacity_) {
    buckets_.erase(it);
    return nullptr;
  }
  return &b;
}

bool TokenBuckets::Admits(int64_t now_ms, std::string_view key) {
  const Bucket* b = Refill(now_ms, key);
  return b == nullptr || b->credit > 0;
}

void TokenBuckets::Charge(int64_t now_ms, std::string_view key, double units) {
  if (units <= 0) return;
  Bucket* b = Refill(now_ms, key);
  if (b == nullptr) {
    if (buckets_.size() >= sweep_at_) DropFull(now_ms);
    b = &buckets_.emplace(std::string(key), Bucket{capacity_, now_ms}).first->second;
  }
  b->credit -= units;
}

void TokenBuckets::DropFull(int64_t now_ms) {
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const double credit =
        it->second.credit + rate_per_ms_ * static_cast<double>(now_ms - it->second.at_ms);
    it = credit >= capacity_ ? buckets_.erase(it) : std::next(it);
  }
  // Sweep again once the map doubles from what is left: amortized O(1).
  sweep_at_ = std::max<size_t>(1024, 2 * buckets_.size());
}

// ---- Traffic ----------------------------------------------------------------------

struct Traffic::Stage {
  std::mutex mu;
  Batch batch;  // guarded by mu
};

namespace {
std::atomic<uint64_t> next_traffic_id{1};
}  // namespace

Traffic::Traffic(bool track, std::optional<Limits> limits)
    : track_(track), id_(next_traffic_id.fetch_add(1, std::memory_order_relaxed)) {
  if (limits) {
    reads_ = std::make_unique<TokenBuckets>(limits->read_units_per_second, limits->burst_seconds);
    writes_ = std::make_unique<TokenBuckets>(limits->write_units_per_second, limits->burst_seconds);
  }
  // Without limits, records are applied off the request path; the drainer
  // runs also while tracking is off, so SetTracking can turn it on.
  if (!limiting()) drainer_ = std::thread([this] { DrainLoop(); });
}

void Traffic::SetTracking(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  if (track_.exchange(on, std::memory_order_relaxed) == on) return;
  if (!on) {
    DrainLocked();  // drops what was pending (Apply counts nothing now)
    spaces_.clear();
  }
}

Traffic::~Traffic() {
  if (!drainer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    stop_ = true;
  }
  wake_.notify_one();
  drainer_.join();
}

bool Traffic::Admits(int64_t now_ms, std::string_view collection, bool write) {
  if (!limiting()) return true;
  std::lock_guard<std::mutex> lock(mu_);
  return (write ? writes_ : reads_)->Admits(now_ms, collection);
}

void Traffic::Apply(int64_t now_ms, uint32_t space_id, std::string_view collection,
                    double read_units, double write_units) {
  if (tracking()) {
    auto& space = spaces_[space_id];
    if (!space) {
      space =
          std::make_unique<SlidingHeavyHitters>(kTrafficSliceMs, kTrafficSlices, kTrafficCounters);
    }
    space->Add(now_ms, collection, read_units, write_units);
  }
  if (limiting()) {
    reads_->Charge(now_ms, collection, read_units);
    writes_->Charge(now_ms, collection, write_units);
  }
}

void Traffic::Record(int64_t now_ms, uint32_t space_id, std::string_view collection,
                     double read_units, double write_units) {
  if (!tracking() && !limiting()) return;
  if (!drainer_.joinable()) {
    std::lock_guard<std::mutex> lock(mu_);
    Apply(now_ms, space_id, collection, read_units, write_units);
    return;
  }
  Stage& stage = ThisThreadsStage();
  std::unique_lock<std::mutex> stage_lock(stage.mu);
  Batch& staged = stage.batch;
  staged.records.push_back(
      {now_ms, space_id, static_cast<uint32_t>(collection.size()), read_units, write_units});
  staged.keys.append(collection);
  if (staged.records.size() < kStageRecords) return;
  size_t pending;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    pending_.records.insert(pending_.records.end(), staged.records.begin(), staged.records.end());
    pending_.keys.append(staged.keys);
    pending = pending_.records.size();
  }
  staged.records.clear();
  staged.keys.clear();
  stage_lock.unlock();
  // Stages are handed over whole: wake the drainer as the batch fills.
  if (pending >= kBatchRecords && pending - kStageRecords < kBatchRecords) wake_.notify_one();
  if (pending >= kMaxPendingRecords) {  // the drainer fell behind: help it
    std::lock_guard<std::mutex> lock(mu_);
    DrainLocked();
  }
}

Traffic::Stage& Traffic::ThisThreadsStage() {
  // This thread's stage of each Traffic it records on, the last one used
  // first. An entry whose Traffic is gone (the thread holds its stage's
  // only reference) is dropped when the thread next registers a stage.
  struct Entry {
    uint64_t traffic_id;
    std::shared_ptr<Stage> stage;
  };
  thread_local std::vector<Entry> entries;
  thread_local uint64_t last_id = 0;
  thread_local Stage* last = nullptr;
  if (last_id == id_) return *last;
  auto it = std::find_if(entries.begin(), entries.end(),
                         [&](const Entry& e) { return e.traffic_id == id_; });
  if (it == entries.end()) {
    std::erase_if(entries, [](const Entry& e) { return e.stage.use_count() == 1; });
    auto stage = std::make_shared<Stage>();
    {
      std::lock_guard<std::mutex> lock(stages_mu_);
      stages_.push_back(stage);
    }
    it = entries.insert(entries.end(), {id_, std::move(stage)});
  }
  last_id = id_;
  last = it->stage.get();
  return *last;
}

void Traffic::DrainLocked() {
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    std::swap(draining_, pending_);
  }
  {
    std::lock_guard<std::mutex> lock(stages_mu_);
    std::erase_if(stages_, [this](const std::shared_ptr<Stage>& stage) {
      std::lock_guard<std::mutex> stage_lock(stage->mu);
      Batch& staged = stage->batch;
      draining_.records.insert(draining_.records.end(), staged.records.begin(),
                               staged.records.end());
      draining_.keys.append(staged.keys);
      staged.records.clear();
      staged.keys.clear();
      return stage.use_count() == 1;  // its thread has ended: nothing more will come
    });
  }
  if (draining_.records.empty()) return;
  // Add up each collection's records per slice, in an open-addressing
  // table over sums_, then apply each sum once, in first-seen order.
  const std::string_view keys(draining_.keys);
  size_t slots = 16;
  while (slots < 2 * draining_.records.size()) slots *= 2;
  sum_index_.assign(slots, UINT32_MAX);
  sums_.clear();
  size_t offset = 0;
  for (const Pending& p : draining_.records) {
    const std::string_view key = keys.substr(offset, p.key_size);
    const int64_t slice = p.now_ms / kTrafficSliceMs;
    const uint64_t hash = XXH3_64bits_withSeed(key.data(), key.size(),
                                               static_cast<uint64_t>(slice) * 31 + p.space_id);
    for (size_t i = hash & (slots - 1);; i = (i + 1) & (slots - 1)) {
      uint32_t& slot = sum_index_[i];
      if (slot == UINT32_MAX) {
        slot = static_cast<uint32_t>(sums_.size());
        sums_.push_back(
            {hash, p.now_ms, p.space_id, p.key_size, offset, p.read_units, p.write_units});
        break;
      }
      Sum& s = sums_[slot];
      if (s.hash == hash && s.space_id == p.space_id && s.now_ms / kTrafficSliceMs == slice &&
          keys.substr(s.key_offset, s.key_size) == key) {
        s.read_units += p.read_units;
        s.write_units += p.write_units;
        break;
      }
    }
    offset += p.key_size;
  }
  for (const Sum& s : sums_) {
    Apply(s.now_ms, s.space_id, keys.substr(s.key_offset, s.key_size), s.read_units, s.write_units);
  }
  draining_.records.clear();
  draining_.keys.clear();
}

void Traffic::DrainLoop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(pending_mu_);
      // Woken for a full batch; otherwise every 100 ms, so that memory and
      // the summaries' lag stay small under light traffic too, and staged
      // records reach the summaries within a slice.
      wake_.wait_for(lock, std::chrono::milliseconds(100),
                     [this] { return stop_ || pending_.records.size() >= kBatchRecords; });
      if (stop_) return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    DrainLocked();
  }
}

std::vector<HotCollection> Traffic::Top(uint32_t space_id, int64_t now_ms, int64_t window_ms,
                                        size_t n, int64_t* covered_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  DrainLocked();
  auto it = spaces_.find(space_id);
  if (it == spaces_.end()) {  // nothing counted yet
    if (covered_ms) {
      *covered_ms =
          SlidingHeavyHitters::CoveredMs(now_ms, window_ms, kTrafficSliceMs, kTrafficSlices);
    }
    return {};
  }
  return it->second->Top(now_ms, window_ms, n, covered_ms);
}

void Traffic::Forget(uint32_t space_id) {
  std::lock_guard<std::mutex> lock(mu_);
  DrainLocked();
  spaces_.erase(space_id);
}

MaxThroughput::Bucket& MaxThroughput::Refill(int64_t now_ms, uint64_t key,
                                             int64_t units_per_second) {
  const auto rate = static_cast<double>(units_per_second);
  auto [it, added] = buckets_.try_emplace(key, Bucket{rate, now_ms});
  Bucket& b = it->second;
  if (!added && now_ms > b.at_ms) {
    b.credit = std::min(rate, b.credit + rate * static_cast<double>(now_ms - b.at_ms) / 1000.0);
    b.at_ms = now_ms;
  }
  b.credit = std::min(b.credit, rate);  // a lowered maximum holds at once
  return b;
}

bool MaxThroughput::Admits(int64_t now_ms, uint32_t space_id, bool write,
                           int64_t units_per_second) {
  std::lock_guard lock(mu_);
  return Refill(now_ms, uint64_t{space_id} << 1 | write, units_per_second).credit > 0;
}

void MaxThroughput::Charge(int64_t now_ms, uint32_t space_id, bool write, int64_t units_per_second,
                           double units) {
  std::lock_guard lock(mu_);
  Refill(now_ms, uint64_t{space_id} << 1 | write, units_per_second).credit -= units;
}

void MaxThroughput::Forget(uint32_t space_id) {
  std::lock_guard lock(mu_);
  buckets_.erase(uint64_t{space_id} << 1);
  buckets_.erase(uint64_t{space_id} << 1 | 1);
}

}  // namespace dynarock
