// The write pipeline: the one path every item write takes (see
// engine/write/action.h for the steps and who calls it).
#include <xxhash.h>

#include <algorithm>

#include "engine/db_impl.h"
#include "engine/index.h"
#include "engine/ttl.h"
#include "engine/vector_index.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

// Locks each mutex once, in address order: two runs over overlapping items
// take the shared locks in the same order, so they serialize and cannot
// deadlock.
std::vector<std::unique_lock<std::mutex>> LockInAddressOrder(std::vector<std::mutex*> locks) {
  std::sort(locks.begin(), locks.end());
  locks.erase(std::unique(locks.begin(), locks.end()), locks.end());
  std::vector<std::unique_lock<std::mutex>> held;
  held.reserve(locks.size());
  for (std::mutex* m : locks) held.emplace_back(*m);
  return held;
}

// ConditionalCheckFailedException, carrying the old item when asked to.
Status ConditionFailed(const std::optional<Item>& old, ReturnValuesOnConditionCheckFailure rv) {
  Status failed = Status::ConditionalCheckFailed();
  if (rv == ReturnValuesOnConditionCheckFailure::kAllOld) {
    auto detail = std::make_shared<ConditionalCheckFailedDetail>();
    detail->item = old;
    return std::move(failed).WithPayload(std::move(detail));
  }
  return failed;
}

bool ConditionHolds(const std::optional<expr::Condition>& condition,
                    const std::optional<Item>& old) {
  if (!condition) return true;
  expr::ItemDocument doc(old ? &*old : nullptr);
  return expr::Evaluate(*condition, doc);
}

// Whether the action changes the items column family.
bool Writes(const write::Action& action, const write::Outcome& outcome) {
  if (outcome.skipped || outcome.throttled) return false;
  switch (action.kind) {
    case write::Kind::kPut:
      return true;
    case write::Kind::kUpdate:
      return outcome.updated.has_value();  // a removal from an absent item writes nothing
    case write::Kind::kDelete:
      return outcome.before.has_value();  // deleting nothing writes nothing
    case write::Kind::kConditionCheck:
      return false;
  }
  return false;
}

}  // namespace

std::mutex& Database::Impl::StripeFor(const format::EncodedKey& key) {
  return stripes_[XXH3_64bits(key.bytes().data(), key.bytes().size()) % kLockStripes];
}

std::mutex& Database::Impl::WriteLock(const TableInfo& table, const format::EncodedKey& item_key,
                                      const AttributeValue& pk) {
  if (table.has_lsi()) return StripeFor(format::CollectionPrefix(table.space_id, pk));
  return StripeFor(item_key);
}

Result<std::vector<write::Outcome>> Database::Impl::RunWrites(
    const std::vector<write::Action>& actions, const write::RunOptions& options) {
  // 1. Lock every item (or collection, on LSI tables).
  std::vector<std::mutex*> locks;
  for (const auto& a : actions) locks.push_back(&WriteLock(*a.table, a.key, *a.partition));
  auto held = LockInAddressOrder(std::move(locks));
  std::vector<write::Outcome> outcomes(actions.size());

  // Partition budgets (Options::partition_limits): an action on a collection
  // whose budget is spent is throttled before it is read or evaluated; a
  // transaction with one is cancelled.
  if (AdmitWrites(actions, &outcomes) && options.transactional) return outcomes;
  // 2-5. Read, evaluate, compute and validate, for every action.
  DYNAROCK_ASSIGN_OR_RETURN(const bool failed, ReadAndEvaluate(actions, options, &outcomes));
  if (failed) return outcomes;
  // A GSI collection's budget is known only now (the new item has its key).
  if (AdmitIndexWrites(actions, &outcomes) && options.transactional) return outcomes;

  // 6. Index entries and statistics, in the same batch as the items.
  PendingWrite pending;
  std::vector<WritesEnd> ends(actions.size());
  for (size_t i = 0; i < actions.size(); ++i) {
    const write::Action& a = actions[i];
    write::Outcome& o = outcomes[i];
    if (Writes(a, o)) {
      auto metrics = PrepareItemWrite(&pending, *a.table, a.key, o.before, o.after(),
                                      options.return_item_collection_metrics, &o.item_bytes);
      if (!metrics.ok()) {
        if (metrics.status().code() != Status::Code::kItemCollectionSizeLimitExceeded) {
          return metrics.status();
        }
        o.failure = metrics.status();
        return outcomes;
      }
      o.item_collection_metrics = std::move(metrics).value();
    }
    ends[i] = {pending.index_writes.size(), pending.vector_writes.size()};
  }
  // 7-8. Stream records, and one WriteBatch.
  DYNAROCK_RETURN_IF_ERROR(CommitWrites(actions, outcomes, options, &pending));
  // The graphs change before the write is acknowledged, under its locks.
  if (!pending.graph_changes.empty()) graphs_->Apply(pending.graph_changes);
  // 9. Capacity.
  if (options.meter != nullptr || TracksTraffic() || AnyMaxima(actions)) {
    ChargeWrites(actions, outcomes, options, pending, ends);
  }
  return outcomes;
}

bool Database::Impl::AnyMaxima(const std::vector<write::Action>& actions) {
  for (const write::Action& a : actions) {
    if (a.table->has_maxima()) return true;
  }
  return false;
}

bool Database::Impl::AdmitWrites(const std::vector<write::Action>& actions,
                                 std::vector<write::Outcome>* outcomes) {
  const bool limiting = traffic_.limiting();
  if (!limiting && !AnyMaxima(actions)) return false;
  bool throttled = false;
  for (size_t i = 0; i < actions.size(); ++i) {
    const write::Action& a = actions[i];
    if (a.ttl_expired_at_s) continue;  // TTL's own deletions: free, as DynamoDB's
    if (!limiting && !a.table->has_maxima()) continue;
    Status admitted =
        AdmitCollection(*a.table, nullptr, *a.partition, a.kind != write::Kind::kConditionCheck);
    if (!admitted.ok()) {
      (*outcomes)[i].failure = std::move(admitted);
      (*outcomes)[i].throttled = throttled = true;
    }
  }
  return throttled;
}

Result<bool> Database::Impl::ReadAndEvaluate(const std::vector<write::Action>& actions,
                                             const write::RunOptions& options,
                                             std::vector<write::Outcome>* outcomes) {
  bool failed = false;
  for (size_t i = 0; i < actions.size() && (options.transactional || !failed); ++i) {
    const write::Action& a = actions[i];
    write::Outcome& o = (*outcomes)[i];
    if (o.throttled) continue;
    DYNAROCK_ASSIGN_OR_RETURN(o.before, ReadItem(*a.table, a.key));
    if (a.ttl_expired_at_s &&
        (!o.before || !a.table->ttl_attribute ||
         !ttl::Expired(*o.before, *a.table->ttl_attribute, *a.ttl_expired_at_s))) {
      o.skipped = true;
      continue;
    }
    if (!ConditionHolds(a.condition, o.before)) {
      o.failure = ConditionFailed(o.before, a.on_condition_failure);
      failed = true;
      continue;
    }
    if (a.kind == write::Kind::kPut) {
      o.put = a.item;  // written as given
    } else if (a.kind == write::Kind::kUpdate) {
      auto updated = write::UpdatedItem(a, o.before);
      if (!updated.ok()) {
        o.failure = updated.status();
        failed = true;
        continue;
      }
      o.updated = std::move(updated).value();
    }
  }
  return failed;
}

bool Database::Impl::AdmitIndexWrites(const std::vector<write::Action>& actions,
                                      std::vector<write::Outcome>* outcomes) {
  const bool limiting = traffic_.limiting();
  if (!limiting && !AnyMaxima(actions)) return false;
  bool throttled = false;
  for (size_t i = 0; i < actions.size(); ++i) {
    const write::Action& a = actions[i];
    write::Outcome& o = (*outcomes)[i];
    if (!Writes(a, o) || a.ttl_expired_at_s) continue;
    if (!limiting && !a.table->has_maxima()) continue;
    // The entry's old and new collections of each GSI it is in.
    const Item* before = o.before ? &*o.before : nullptr;
    for (const Item* item : {before, o.after()}) {
      for (const IndexInfo& index : a.table->indexes) {
        if (!index.global || item == nullptr || o.throttled) continue;
        const IndexPartition partition = index.PartitionOf(*item);
        if (partition.empty()) continue;
        Status admitted = AdmitCollection(*a.table, &index, partition.view(), /*write=*/true);
        if (!admitted.ok()) {
          o.failure = std::move(admitted);
          o.throttled = throttled = true;
        }
      }
    }
  }
  return throttled;
}

Status Database::Impl::CommitWrites(const std::vector<write::Action>& actions,
                                    const std::vector<write::Outcome>& outcomes,
                                    const write::RunOptions& options, PendingWrite* pending) {
  // 7. Stream records (tables with an enabled stream): one per item change,
  // numbered under the item locks, so an item's records are in the order
  // of its changes.
  std::vector<std::pair<uint32_t, std::string>> records;
  for (size_t i = 0; i < actions.size(); ++i) {
    const write::Action& a = actions[i];
    const write::Outcome& o = outcomes[i];
    const TableInfo::Stream* stream = a.table->enabled_stream();
    if (stream == nullptr || !Writes(a, o)) continue;
    const Item* after = o.after();
    auto event = streams::EventOf(o.before, after);
    if (!event) continue;  // nothing changed: DynamoDB writes no record
    const Item keys = KeyOf(*a.table, after ? *after : *o.before);
    const bool new_image = stream->view_type == StreamViewType::kNewImage ||
                           stream->view_type == StreamViewType::kNewAndOldImages;
    const bool old_image = stream->view_type == StreamViewType::kOldImage ||
                           stream->view_type == StreamViewType::kNewAndOldImages;
    records.emplace_back(stream->id,
                         streams::EncodeRecord(*event, a.ttl_expired_at_s.has_value(), keys,
                                               old_image && o.before ? &*o.before : nullptr,
                                               new_image ? after : nullptr));
  }

  // 8. One WriteBatch: every item, index entry, counter and stream record,
  // or none.
  pending->totals.MergeInto(&pending->batch, stats_cf_);
  if (options.commit_also) options.commit_also(&pending->batch);
  if (!records.empty()) {
    const uint64_t first = sequencer_.Assign(NowMs(), records.size());
    for (size_t j = 0; j < records.size(); ++j) {
      pending->batch.Put(streams_cf_, streams::RecordKey(records[j].first, first + j),
                         records[j].second);
    }
    // Released committed or not: readers wait only for batches in flight.
    Status written = Write(&pending->batch);
    sequencer_.Release(first);
    return written;
  }
  if (pending->batch.Count() > 0) return Write(&pending->batch);
  return Status::OK();
}

void Database::Impl::ChargeWrites(const std::vector<write::Action>& actions,
                                  const std::vector<write::Outcome>& outcomes,
                                  const write::RunOptions& options, const PendingWrite& pending,
                                  const std::vector<WritesEnd>& ends) {
  // 9. Capacity: a write costs the larger of the old and new item (a delete
  // of nothing still one unit), a condition check a read of the old item,
  // and each index its own units; transactions twice as much. The same
  // units count on the collections they fall on (an LSI's on the table's).
  const double factor = options.transactional ? 2 : 1;
  size_t index_write = 0, vector_write = 0;
  for (size_t i = 0; i < actions.size(); ++i) {
    const write::Action& a = actions[i];
    const write::Outcome& o = outcomes[i];
    if (o.throttled) continue;  // DynamoDB charges nothing for a throttled request
    // Nor does TTL's deletions count on their collections.
    const bool counted = !a.ttl_expired_at_s;
    // A write's sizes were counted for the statistics already.
    const int64_t size =
        o.item_bytes >= 0 ? o.item_bytes
                          : std::max<int64_t>(o.before ? format::ItemSize(*o.before) : 0,
                                              o.after() ? format::ItemSize(*o.after()) : 0);
    double read = 0, write = 0;
    if (a.kind == write::Kind::kConditionCheck) {
      read = ReadUnits(size, true, true);
      if (options.meter) options.meter->Read(a.table->name, nullptr, read);
    } else {
      write = WriteUnits(size, options.transactional);
      if (options.meter) options.meter->Write(a.table->name, nullptr, write);
    }
    for (; index_write < ends[i].index; ++index_write) {
      const IndexWriteUnits& w = pending.index_writes[index_write];
      if (options.meter) options.meter->Write(a.table->name, w.index, factor * w.units());
      if (!w.index->global) {
        write += factor * w.units();
      } else if (counted) {
        if (!w.old_partition.empty())
          RecordCollection(*a.table, w.index, w.old_partition.view(), 0, factor * w.old_units);
        if (!w.new_partition.empty())
          RecordCollection(*a.table, w.index, w.new_partition.view(), 0, factor * w.new_units);
      }
    }
    for (; vector_write < ends[i].vector; ++vector_write) {
      const VectorWriteBytes& w = pending.vector_writes[vector_write];
      if (options.meter) options.meter->VectorWrite(a.table->name, w.index->name, w.bytes);
    }
    if (counted && a.collection_bytes > 0) {  // the prefix of the key already built
      RecordTableCollection(*a.table,
                            std::string_view(a.key.bytes()).substr(0, a.collection_bytes), read,
                            write);
    } else if (counted) {
      RecordCollection(*a.table, nullptr, *a.partition, read, write);
    }
  }
}

Result<write::Outcome> Database::Impl::RunWrite(write::Action action,
                                                ReturnItemCollectionMetrics metrics,
                                                CapacityMeter* meter) {
  std::vector<write::Action> actions;
  actions.push_back(std::move(action));
  write::RunOptions run;
  run.return_item_collection_metrics = metrics;
  run.meter = meter;
  DYNAROCK_ASSIGN_OR_RETURN(auto outcomes, RunWrites(actions, run));
  if (!outcomes[0].failure.ok()) return outcomes[0].failure;
  return std::move(outcomes[0]);
}

Result<std::optional<ItemCollectionMetrics>> Database::Impl::PrepareItemWrite(
    PendingWrite* pending, const TableInfo& table, const format::EncodedKey& key,
    const std::optional<Item>& before, const Item* after, ReturnItemCollectionMetrics metrics,
    int64_t* item_bytes) {
  rocksdb::WriteBatch& batch = pending->batch;
  Counter delta;
  *item_bytes = 0;
  SizedItem before_side, after_side;
  std::string encoded;
  const format::StoredKeySchema stored_key = StoredKey(table);
  if (before) {
    --delta.items;
    const auto size = static_cast<int64_t>(format::ItemSize(*before));
    delta.bytes -= size;
    *item_bytes = size;
    before_side = {&*before, size};
  }
  if (after) {
    ++delta.items;
    const auto size = static_cast<int64_t>(format::ItemSize(*after));
    delta.bytes += size;
    *item_bytes = std::max(*item_bytes, size);
    // Without the key attributes, which the key holds (index entries too,
    // encoded by AddIndexAndStatsChanges).
    format::EncodeItemWithoutKey(*after, static_cast<size_t>(size), stored_key, &encoded);
    batch.Put(items_cf_, key.bytes(), encoded);
    after_side = {after, size};
  } else {
    batch.Delete(items_cf_, key.bytes());
  }
  pending->totals.Add(table.space_id, delta);
  // Only a table with an LSI keeps collection counters (the 10 GB limit and
  // ItemCollectionMetrics): it reads and rewrites its collection's below.
  Counter collection =
      AddIndexAndStatsChanges(&batch, indexes_cf_, &pending->totals, table, stored_key.names,
                              before_side, after_side, &pending->index_writes);
  if (!table.vector_indexes.empty()) {
    AddVectorChanges(&batch, vectors_cf_, &pending->totals, table, before_side.item,
                     after_side.item, graphs_->active() ? &pending->graph_changes : nullptr,
                     &pending->vector_writes);
  }
  std::optional<ItemCollectionMetrics> result;
  if (table.has_lsi()) {
    const AttributeValue& pk = (after ? *after : *before).at(table.partition_key.name);
    const std::string stats_key = CollectionStatsKey(table.space_id, pk);
    // Earlier writes to the same collection in this batch count too.
    auto [pending_counter, first] = pending->collections.try_emplace(stats_key);
    if (first) {
      // A counter that cannot be read fails the write: a zero stored back
      // would reset the collection's size and lift its limit.
      DYNAROCK_ASSIGN_OR_RETURN(pending_counter->second, ReadStatsCounter(stats_key));
    }
    Counter& counter = pending_counter->second;
    const int64_t size = counter.bytes + collection.bytes;
    // Writes that shrink a collection always succeed.
    if (collection.bytes > 0 && size > options_.item_collection_size_limit_bytes) {
      return Status::ItemCollectionSizeLimitExceeded(
          "The total size of an item collection has exceeded the maximum limit of 10 gigabytes.");
    }
    counter.items += collection.items;
    counter.bytes += collection.bytes;
    // The caller holds the collection's lock (WriteLock), so the counter is
    // written whole: the next write reads one value instead of folding a
    // chain of merge operands. An emptied collection's counter goes.
    if (counter.items == 0 && counter.bytes == 0) {
      batch.Delete(stats_cf_, stats_key);
    } else {
      batch.Put(stats_cf_, stats_key, EncodeCounter(counter));
    }
    if (metrics == ReturnItemCollectionMetrics::kSize) {
      double gb = static_cast<double>(size) / static_cast<double>(int64_t{1} << 30);
      double lower = static_cast<double>(static_cast<int64_t>(gb));
      result = ItemCollectionMetrics{{{table.partition_key.name, pk}}, {lower, lower + 1.0}};
    }
  }
  return result;
}

}  // namespace dynarock
