#include "engine/vector_graph.h"

#include <hnswlib/hnswlib.h>

#include <cmath>
#include <queue>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace dynarock {
namespace {

// The graph's distances, in hnswlib's calling convention (two vectors and
// a pointer to the dimension count). hnswlib's own SIMD kernels are off in
// this file (see engine/CMakeLists.txt); these take their place, in eight
// independent lanes so that the sums do not wait on each other, and with
// AVX2 and FMA where the CPU has them. A graph only ranks candidates (every
// candidate is scored again exactly), so their f32 rounding is harmless.
float L2Plain(const void* a, const void* b, const void* param) {
  const auto* x = static_cast<const float*>(a);
  const auto* y = static_cast<const float*>(b);
  const size_t n = *static_cast<const size_t*>(param);
  float lanes[8] = {};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t j = 0; j < 8; ++j) {
      const float d = x[i + j] - y[i + j];
      lanes[j] += d * d;
    }
  }
  float sum = 0;
  for (; i < n; ++i) sum += (x[i] - y[i]) * (x[i] - y[i]);
  for (float lane : lanes) sum += lane;
  return sum;
}

// 1 - dot product: hnswlib's inner-product distance.
float IpPlain(const void* a, const void* b, const void* param) {
  const auto* x = static_cast<const float*>(a);
  const auto* y = static_cast<const float*>(b);
  const size_t n = *static_cast<const size_t*>(param);
  float lanes[8] = {};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t j = 0; j < 8; ++j) lanes[j] += x[i + j] * y[i + j];
  }
  float dot = 0;
  for (; i < n; ++i) dot += x[i] * y[i];
  for (float lane : lanes) dot += lane;
  return 1.0f - dot;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float HorizontalSum(__m256 v) {
  __m128 sum = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  sum = _mm_hadd_ps(sum, sum);
  sum = _mm_hadd_ps(sum, sum);
  return _mm_cvtss_f32(sum);
}

__attribute__((target("avx2,fma"))) float L2Avx2(const void* a, const void* b, const void* param) {
  const auto* x = static_cast<const float*>(a);
  const auto* y = static_cast<const float*>(b);
  const size_t n = *static_cast<const size_t*>(param);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i));
    const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i));
    s0 = _mm256_fmadd_ps(d, d, s0);
  }
  float sum = HorizontalSum(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) sum += (x[i] - y[i]) * (x[i] - y[i]);
  return sum;
}

__attribute__((target("avx2,fma"))) float IpAvx2(const void* a, const void* b, const void* param) {
  const auto* x = static_cast<const float*>(a);
  const auto* y = static_cast<const float*>(b);
  const size_t n = *static_cast<const size_t*>(param);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), s1);
  }
  for (; i + 8 <= n; i += 8) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), s0);
  }
  float dot = HorizontalSum(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) dot += x[i] * y[i];
  return 1.0f - dot;
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

// A space: squared L2 (orders as Euclidean distance does) or 1 - dot
// product (orders as DOT_PRODUCT, descending, does; COSINE on unit vectors).
class GraphSpace final : public hnswlib::SpaceInterface<float> {
 public:
  GraphSpace(bool euclidean, size_t dimensions) : dimensions_(dimensions) {
    distance_ = euclidean ? L2Plain : IpPlain;
#if defined(__x86_64__)
    if (HasAvx2()) distance_ = euclidean ? L2Avx2 : IpAvx2;
#endif
  }
  size_t get_data_size() override { return dimensions_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return distance_; }
  void* get_dist_func_param() override { return &dimensions_; }

 private:
  size_t dimensions_;
  hnswlib::DISTFUNC<float> distance_;
};

}  // namespace

// Cosine is 1 - dot product of unit vectors (a zero vector stays zero, at
// distance 1 from everything, as DynamoDB scores it).
VectorGraph::VectorGraph(format::VectorDistance distance, uint32_t dimensions, GraphParams params)
    : distance_(distance), dimensions_(dimensions), params_(params) {
  space_ = std::make_unique<GraphSpace>(distance == format::VectorDistance::kEuclidean, dimensions);
  capacity_ = 1024;
  hnsw_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(space_.get(), capacity_, params.m,
                                                            params.ef_construction);
  hnsw_->setEf(params.ef_search);
}

VectorGraph::~VectorGraph() = default;

void VectorGraph::Prepare(const float* vector, std::vector<float>* out) const {
  out->assign(vector, vector + dimensions_);
  if (distance_ != format::VectorDistance::kCosine) return;
  double norm = 0;
  for (float x : *out) norm += static_cast<double>(x) * x;
  if (norm == 0) return;
  const double scale = 1.0 / std::sqrt(norm);
  for (float& x : *out) x = static_cast<float>(x * scale);
}

void VectorGraph::Build(std::vector<std::string> keys, const std::vector<float>& vectors) {
  std::unique_lock lock(mu_);
  const size_t count = keys.size();
  if (count > capacity_) {
    capacity_ = std::max(count, capacity_ * 2);
    hnsw_->resizeIndex(capacity_);
  }
  const size_t first = keys_.size();
  for (size_t i = 0; i < count; ++i) labels_.emplace(keys[i], first + i);
  keys_.insert(keys_.end(), std::make_move_iterator(keys.begin()),
               std::make_move_iterator(keys.end()));
  std::vector<float> prepared;
  for (size_t i = 0; i < count; ++i) {
    Prepare(vectors.data() + i * dimensions_, &prepared);
    hnsw_->addPoint(prepared.data(), first + i);
  }
}

void VectorGraph::Set(const std::string& key, const float* vector) {
  std::vector<float> prepared;
  Prepare(vector, &prepared);
  std::unique_lock lock(mu_);
  size_t label;
  if (auto it = labels_.find(key); it != labels_.end()) {
    label = it->second;  // moved: hnswlib updates the point and its links
  } else if (!free_labels_.empty()) {
    // A removed entry's slot (hnswlib unmarks and updates it in place).
    label = free_labels_.back();
    free_labels_.pop_back();
    keys_[label] = key;
    labels_.emplace(key, label);
  } else {
    label = keys_.size();
    if (label == capacity_) {
      capacity_ *= 2;
      hnsw_->resizeIndex(capacity_);
    }
    keys_.push_back(key);
    labels_.emplace(key, label);
  }
  hnsw_->addPoint(prepared.data(), label);
}

void VectorGraph::Remove(const std::string& key) {
  std::unique_lock lock(mu_);
  auto it = labels_.find(key);
  if (it == labels_.end()) return;
  hnsw_->markDelete(it->second);
  free_labels_.push_back(it->second);
  keys_[it->second].clear();
  labels_.erase(it);
}

// hnswlib's searchKnn, over its own structures: a greedy descent through
// the upper layers, then a best-first search of the base layer keeping the
// ef nearest. Rewritten here for what 0.6.2 does not do: prefetch the next
// neighbour's vector while scoring this one, without reading past a link
// list (its SSE build does; engine/CMakeLists.txt), and count nothing (its
// search bumps shared counters).
std::vector<std::string> VectorGraph::Search(const float* query, size_t k) const {
  std::vector<float> prepared;
  Prepare(query, &prepared);
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  if (labels_.empty()) return out;
  using Id = hnswlib::tableint;
  const hnswlib::HierarchicalNSW<float>& h = *hnsw_;
  const hnswlib::DISTFUNC<float> distance = h.fstdistfunc_;
  const void* param = h.dist_func_param_;
  const float* q = prepared.data();
  auto vector_of = [&h](Id id) { return h.getDataByInternalId(id); };

  Id current = h.enterpoint_node_;
  float current_distance = distance(q, vector_of(current), param);
  for (int level = h.maxlevel_; level > 0; --level) {
    for (bool changed = true; changed;) {
      changed = false;
      hnswlib::linklistsizeint* list = h.get_linklist(current, level);
      const size_t size = h.getListCount(list);
      const Id* links = list + 1;
      for (size_t i = 0; i < size; ++i) {
        if (i + 1 < size) __builtin_prefetch(vector_of(links[i + 1]));
        const float d = distance(q, vector_of(links[i]), param);
        if (d < current_distance) {
          current_distance = d;
          current = links[i];
          changed = true;
        }
      }
    }
  }

  // Base layer. `nearest` holds the ef best found (worst on top), `frontier`
  // the nodes still to expand (nearest on top). A deleted node is walked
  // through but never kept.
  const size_t ef = std::max(params_.ef_search, k);
  const bool deletions = h.num_deleted_ != 0;
  using Scored = std::pair<float, Id>;
  std::priority_queue<Scored> nearest;
  std::priority_queue<Scored, std::vector<Scored>, std::greater<Scored>> frontier;
  hnswlib::VisitedList* visited = h.visited_list_pool_->getFreeVisitedList();
  hnswlib::vl_type* seen = visited->mass;
  const hnswlib::vl_type tag = visited->curV;
  float bound = std::numeric_limits<float>::max();
  if (!deletions || !h.isMarkedDeleted(current)) {
    bound = current_distance;
    nearest.emplace(current_distance, current);
  }
  frontier.emplace(current_distance, current);
  seen[current] = tag;
  while (!frontier.empty()) {
    const auto [d, node] = frontier.top();
    if (d > bound && (nearest.size() == ef || !deletions)) break;
    frontier.pop();
    hnswlib::linklistsizeint* list = h.get_linklist0(node);
    const size_t size = h.getListCount(list);
    const Id* links = list + 1;
    if (size > 0) __builtin_prefetch(vector_of(links[0]));
    for (size_t i = 0; i < size; ++i) {
      if (i + 1 < size) {
        __builtin_prefetch(seen + links[i + 1]);
        __builtin_prefetch(vector_of(links[i + 1]));
      }
      const Id next = links[i];
      if (seen[next] == tag) continue;
      seen[next] = tag;
      const float dn = distance(q, vector_of(next), param);
      if (nearest.size() < ef || dn < bound) {
        frontier.emplace(dn, next);
        __builtin_prefetch(h.get_linklist0(frontier.top().second));
        if (!deletions || !h.isMarkedDeleted(next)) nearest.emplace(dn, next);
        if (nearest.size() > ef) nearest.pop();
        if (!nearest.empty()) bound = nearest.top().first;
      }
    }
  }
  h.visited_list_pool_->releaseVisitedList(visited);

  while (nearest.size() > k) nearest.pop();
  out.resize(nearest.size());
  for (size_t i = nearest.size(); i-- > 0; nearest.pop()) {
    out[i] = keys_[h.getExternalLabel(nearest.top().second)];
  }
  return out;
}

size_t VectorGraph::size() const {
  std::shared_lock lock(mu_);
  return labels_.size();
}

size_t VectorGraph::hnsw_bytes() const {
  std::shared_lock lock(mu_);
  // hnswlib's allocations: the base layer (links, vector, label per slot),
  // the upper layers' link lists, its label map and per-slot locks.
  size_t bytes = capacity_ * (hnsw_->size_data_per_element_ + sizeof(void*) + sizeof(int) +
                              2 * sizeof(std::mutex));
  for (size_t i = 0; i < hnsw_->cur_element_count; ++i) {
    if (hnsw_->element_levels_[i] > 0) {
      bytes += hnsw_->size_links_per_element_ * static_cast<size_t>(hnsw_->element_levels_[i]);
    }
  }
  bytes += hnsw_->label_lookup_.size() * (sizeof(size_t) + sizeof(unsigned) + 2 * sizeof(void*));
  return bytes;
}

size_t VectorGraph::key_bytes() const {
  std::shared_lock lock(mu_);
  size_t bytes = keys_.capacity() * sizeof(std::string) + free_labels_.capacity() * sizeof(size_t);
  for (const auto& k : keys_) bytes += k.capacity() > 15 ? k.capacity() + 1 : 0;
  // Each map node: the key (as above), the label, the bucket link.
  for (const auto& [k, label] : labels_) {
    bytes += sizeof(std::string) + sizeof(size_t) + 2 * sizeof(void*) +
             (k.capacity() > 15 ? k.capacity() + 1 : 0);
  }
  bytes += labels_.bucket_count() * sizeof(void*);
  return bytes;
}

VectorGraphs::VectorGraphs(size_t exact_limit, GraphParams params)
    : exact_limit_(exact_limit), params_(params) {}

std::shared_ptr<VectorGraph> VectorGraphs::Ready(const std::string& bucket) const {
  std::lock_guard lock(mu_);
  auto it = slots_.find(bucket);
  return it == slots_.end() ? nullptr : it->second.graph;
}

bool VectorGraphs::StartBuild(const std::string& bucket) {
  std::lock_guard lock(mu_);
  if (!slots_.emplace(bucket, Slot{}).second) return false;
  active_.store(true, std::memory_order_release);
  return true;
}

void VectorGraphs::FinishBuild(const std::string& bucket, std::shared_ptr<VectorGraph> graph) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(bucket);
  if (it == slots_.end()) return;  // dropped meanwhile
  if (!graph) {
    slots_.erase(it);
  } else {
    for (const auto& c : it->second.pending) {
      if (c.vector.empty()) {
        graph->Remove(c.key);
      } else {
        graph->Set(c.key, c.vector.data());
      }
    }
    it->second.pending.clear();
    it->second.pending.shrink_to_fit();
    it->second.graph = std::move(graph);
  }
  active_.store(!slots_.empty(), std::memory_order_release);
}

void VectorGraphs::Apply(const std::vector<VectorGraphChange>& changes) {
  for (const auto& c : changes) {
    std::shared_ptr<VectorGraph> graph;
    {
      std::lock_guard lock(mu_);
      auto it = slots_.find(c.bucket);
      if (it == slots_.end()) continue;
      if (!it->second.graph) {
        it->second.pending.push_back(c);
        continue;
      }
      graph = it->second.graph;
    }
    // Outside the map's lock (the item's lock orders changes of one key).
    if (c.vector.empty()) {
      graph->Remove(c.key);
    } else {
      graph->Set(c.key, c.vector.data());
    }
  }
}

void VectorGraphs::Drop(uint32_t space_id) {
  std::string prefix(4, '\0');
  for (int i = 0; i < 4; ++i) prefix[i] = static_cast<char>(space_id >> (24 - 8 * i));
  std::lock_guard lock(mu_);
  for (auto it = slots_.lower_bound(prefix); it != slots_.end() && it->first.starts_with(prefix);) {
    it = slots_.erase(it);
  }
  active_.store(!slots_.empty(), std::memory_order_release);
}

size_t VectorGraphs::ready_count() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [bucket, slot] : slots_) n += slot.graph != nullptr;
  return n;
}

size_t VectorGraphs::building_count() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [bucket, slot] : slots_) n += slot.graph == nullptr;
  return n;
}

}  // namespace dynarock
