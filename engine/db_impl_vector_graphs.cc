// The vector index graphs' background work, on Options::vector_graph_threads
// threads sharing one queue: at Open, a survey of every
// vector index that counts the entries of each bucket (engine/vector_graph.h)
// and queues a build for each bucket over Options::vector_exact_limit; a
// search that scans such a bucket exactly queues one too. A build reads the
// bucket at a snapshot and inserts its vectors, while the
// writes that change the bucket meanwhile are recorded and applied after.
#include <rocksdb/iterator.h>

#include <map>

#include "engine/db_impl.h"
#include "engine/vector_index.h"
#include "format/key_codec.h"

namespace dynarock {

void Database::Impl::StartVectorGraphs() {
  if (options_.vector_exact_limit == 0) return;
  {
    // Under the lock: the thread's own survey queues jobs at once, and
    // QueueGraphJob must not read graph_started_ while it is assigned.
    std::lock_guard lock(graph_mu_);
    graph_started_ = true;
    graph_queue_.push_back({});  // the survey
  }
  // One graph per thread at a time: the threads share the queue. (A graph
  // is built by one thread: hnswlib 0.6.2's concurrent inserts into one
  // graph can deadlock, engine/vector_graph.h.)
  const size_t threads = std::max<size_t>(1, options_.vector_graph_threads);
  for (size_t i = 0; i < threads; ++i) graph_threads_.emplace_back([this] { GraphLoop(); });
}

void Database::Impl::QueueGraphJob(GraphJob job) {
  {
    std::lock_guard lock(graph_mu_);
    if (!graph_started_ || graph_stopping_) return;  // read-only, or closing
    for (const auto& queued : graph_queue_) {
      if (queued.bucket == job.bucket) return;
    }
    graph_queue_.push_back(std::move(job));
  }
  graph_cv_.notify_all();
}

void Database::Impl::GraphLoop() {
  std::unique_lock lock(graph_mu_);
  while (true) {
    graph_cv_.wait(lock, [this] { return graph_stopping_ || !graph_queue_.empty(); });
    if (graph_stopping_) return;
    GraphJob job = std::move(graph_queue_.front());
    graph_queue_.erase(graph_queue_.begin());
    ++graph_running_;
    lock.unlock();
    Status s = job.bucket.empty() ? SurveyVectorIndexes() : BuildGraph(job);
    lock.lock();
    --graph_running_;
    // A failed build leaves its bucket exact; the next search over the
    // limit queues it again.
    if (!s.ok() && graph_error_.ok()) graph_error_ = s;
    graph_cv_.notify_all();
  }
}

Status Database::Impl::WaitForVectorGraphs() {
  std::unique_lock lock(graph_mu_);
  graph_cv_.wait(
      lock, [this] { return graph_stopping_ || (graph_queue_.empty() && graph_running_ == 0); });
  return graph_error_;
}

Status Database::Impl::SurveyVectorIndexes() {
  std::vector<VectorIndexInfo> indexes;
  {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, state] : tables_) {
      for (const auto& v : state->info.vector_indexes) {
        if (!v.backfilling) indexes.push_back(v);
      }
    }
  }
  for (const VectorIndexInfo& index : indexes) {
    {
      std::lock_guard lock(graph_mu_);
      if (graph_stopping_) return Status::OK();
    }
    // Entries per bucket, from the keys alone.
    std::map<std::string, size_t> counts;
    RangeIterator it(db_.get(), vectors_cf_, SpaceBound(index.space_id),
                     SpaceBound(index.space_id + 1));
    for (; it->Valid(); it->Next()) {
      const std::string_view key(it->key().data(), it->key().size());
      ++counts[std::string(VectorBucket(key, index.hash.has_value()))];
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    for (const auto& [bucket, count] : counts) {
      if (count > graphs_->exact_limit()) {
        QueueGraphJob({bucket, index.dimensions, ToVectorDistance(index.distance)});
      }
    }
  }
  return Status::OK();
}

Status Database::Impl::BuildGraph(const GraphJob& job) {
  if (!graphs_->StartBuild(job.bucket)) return Status::OK();  // built, or being built
  // Registered before the snapshot: a write committed after it is both
  // recorded and (maybe) in the snapshot, and applying it twice is setting
  // the same vector twice.
  auto graph = std::make_shared<VectorGraph>(job.distance, job.dimensions, graphs_->params());
  std::vector<std::string> keys;
  std::vector<float> vectors;
  {
    rocksdb::ManagedSnapshot snapshot(db_.get());
    RangeIterator it(db_.get(), vectors_cf_, job.bucket, *format::PrefixSuccessor(job.bucket),
                     snapshot.snapshot());
    const size_t vector_bytes = 4 * size_t{job.dimensions};
    std::vector<float> one;
    for (; it->Valid(); it->Next()) {
      const std::string_view value(it->value().data(), it->value().size());
      Status got = format::GetVector(value.substr(0, std::min(value.size(), vector_bytes)),
                                     job.dimensions, &one);
      if (!got.ok()) {
        graphs_->FinishBuild(job.bucket, nullptr);
        return got;
      }
      keys.emplace_back(it->key().data(), it->key().size());
      vectors.insert(vectors.end(), one.begin(), one.end());
    }
    if (!it->status().ok()) {
      graphs_->FinishBuild(job.bucket, nullptr);
      return FromRocks(it->status());
    }
  }
  graph->Build(std::move(keys), vectors);
  graphs_->FinishBuild(job.bucket, std::move(graph));
  return Status::OK();
}

}  // namespace dynarock
