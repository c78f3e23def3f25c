#include "engine/vector_graph.h"

#include <hnswlib/hnswlib.h>

#include <cmath>

namespace dynarock {

// The three distances as hnswlib's spaces: squared L2 orders as Euclidean
// distance does; 1 - dot product orders as DOT_PRODUCT (descending) does;
// cosine is 1 - dot product of unit vectors (a zero vector stays zero, at
// distance 1 from everything, as DynamoDB scores it).
VectorGraph::VectorGraph(format::VectorDistance distance, uint32_t dimensions, GraphParams params)
    : distance_(distance), dimensions_(dimensions), params_(params) {
  if (distance == format::VectorDistance::kEuclidean) {
    space_ = std::make_unique<hnswlib::L2Space>(dimensions);
  } else {
    space_ = std::make_unique<hnswlib::InnerProductSpace>(dimensions);
  }
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

std::vector<std::string> VectorGraph::Search(const float* query, size_t k) const {
  std::vector<float> prepared;
  Prepare(query, &prepared);
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  if (labels_.empty()) return out;
  // A search asking for more than ef looks at k candidates instead.
  auto found = hnsw_->searchKnn(prepared.data(), std::min(k, labels_.size()));
  out.resize(found.size());
  for (size_t i = found.size(); i-- > 0; found.pop()) out[i] = keys_[found.top().second];
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
