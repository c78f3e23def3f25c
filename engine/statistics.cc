// Collection statistics: the largest collections of a table, and the
// recount that checks every counter against the data; ReadCounter.
#include <rocksdb/iostats_context.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <set>

#include "engine/db_impl.h"
#include "engine/model/checks.h"

namespace dynarock {

Result<std::vector<CollectionStatistics>> Database::Impl::LargestCollections(
    const std::string& table_name, size_t limit) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(DescribeTableRequest{table_name}));
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(table_name));
  const TableInfo& info = handle->info();
  const std::string lower = CollectionStatsPrefix(info.space_id);
  RangeIterator it(db_.get(), stats_cf_, lower, *format::PrefixSuccessor(lower));
  // A min-heap of the largest `limit` seen so far.
  auto smaller = [](const CollectionStatistics& a, const CollectionStatistics& b) {
    return a.size_bytes > b.size_bytes;
  };
  std::vector<CollectionStatistics> top;
  for (; it->Valid(); it->Next()) {
    Counter c;
    if (!DecodeCounter(std::string_view(it->value().data(), it->value().size()), &c)) {
      return Status::Corruption("stats: malformed collection counter");
    }
    if (c.items == 0) continue;  // emptied; the compaction filter drops these
    // Key: space_id | 'C' | hash | enc(pk): decode the partition key.
    std::string_view key(it->key().data(), it->key().size());
    key.remove_prefix(5 + 8);
    AttributeValue pk;
    DYNAROCK_RETURN_IF_ERROR(format::GetKeyComponent(&key, info.partition_key.type, &pk));
    top.push_back({{{info.partition_key.name, std::move(pk)}}, c.items, c.bytes});
    std::push_heap(top.begin(), top.end(), smaller);
    if (top.size() > limit) {
      std::pop_heap(top.begin(), top.end(), smaller);
      top.pop_back();
    }
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  std::sort_heap(top.begin(), top.end(), smaller);
  return top;
}

Result<StatisticsReport> Database::Impl::RecountStatistics() {
  // Every table exclusively (in name order, without the catalog lock held:
  // see LockTableExclusive), so no item operation runs during the recount.
  std::vector<std::shared_ptr<TableState>> states;
  {
    std::shared_lock catalog_lock(catalog_mu_);
    for (auto& [name, state] : tables_) states.push_back(state);
  }
  std::vector<std::unique_lock<std::shared_mutex>> table_locks;
  std::map<uint32_t, TableInfo> tables;
  for (auto& state : states) {
    table_locks.emplace_back(state->mu);
    // Dropped or changed while we waited: not part of this recount.
    if (!state->deleted && !state->replaced) tables.emplace(state->info.space_id, state->info);
  }
  auto recount = std::make_shared<Recount>();
  recount_factory_->Arm(recount, tables);
  rocksdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  rocksdb::Status s = db_->CompactRange(compact, items_cf_, nullptr, nullptr);
  recount_factory_->Disarm();
  DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
  if (!recount->complete) {
    // No compaction ran: only possible when there is no item data at all.
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), items_cf_));
    it->SeekToFirst();
    if (it->Valid()) return Status::Internal("statistics recount: no full compaction ran");
  }

  StatisticsReport report;
  report.unreadable_items = recount->unreadable;
  rocksdb::WriteBatch batch;
  for (const auto& [space_id, info] : tables) {
    // Collections with a counter: compare, correct, or drop if empty.
    const std::string lower = CollectionStatsPrefix(space_id);
    const std::string upper = *format::PrefixSuccessor(lower);
    RangeIterator it(db_.get(), stats_cf_, lower, upper);
    std::set<std::string> seen;
    for (; it->Valid(); it->Next()) {
      std::string key = it->key().ToString();
      seen.insert(key);
      ++report.collections_checked;
      Counter stored;
      bool readable =
          DecodeCounter(std::string_view(it->value().data(), it->value().size()), &stored);
      auto truth = recount->collections.find(key);
      Counter actual = truth == recount->collections.end() ? Counter{} : truth->second;
      if (readable && stored.items == 0 && stored.bytes == 0 && actual.items == 0) {
        batch.Delete(stats_cf_, key);
        ++report.empty_collections_dropped;
      } else if (!readable || stored.items != actual.items || stored.bytes != actual.bytes) {
        if (actual.items == 0) {
          batch.Delete(stats_cf_, key);
        } else {
          batch.Put(stats_cf_, key, EncodeCounter(actual));
        }
        ++report.collections_corrected;
      }
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    // Collections with data but no counter at all.
    for (auto c = recount->collections.lower_bound(lower);
         c != recount->collections.end() && c->first < upper; ++c) {
      if (seen.count(c->first)) continue;
      ++report.collections_checked;
      ++report.collections_corrected;
      batch.Put(stats_cf_, c->first, EncodeCounter(c->second));
    }
    Counter stored = ReadTableStats(space_id);
    auto truth = recount->tables.find(space_id);
    Counter actual = truth == recount->tables.end() ? Counter{} : truth->second;
    if (stored.items != actual.items || stored.bytes != actual.bytes) {
      batch.Put(stats_cf_, TableStatsKey(space_id), EncodeCounter(actual));
      ++report.table_totals_corrected;
    }
    // Each index's totals, counted from its entries (the table is locked).
    for (const auto& index : info.indexes) {
      if (index.backfilling) continue;  // its backfill sets exact totals when it completes
      DYNAROCK_ASSIGN_OR_RETURN(auto entries, CountIndexEntries(index.space_id));
      Counter stored_index = ReadTableStats(index.space_id);
      if (stored_index.items != entries.items || stored_index.bytes != entries.bytes) {
        batch.Put(stats_cf_, TableStatsKey(index.space_id), EncodeCounter(entries));
        ++report.index_totals_corrected;
      }
    }
  }
  rocksdb::WriteOptions sync;
  sync.sync = true;
  DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &batch)));
  return report;
}

// ---- ReadCounter ----------------------------------------------------------------------------

ReadCounter::ReadCounter() : previous_level_(static_cast<int>(rocksdb::GetPerfLevel())) {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
}

ReadCounter::~ReadCounter() {
  rocksdb::SetPerfLevel(static_cast<rocksdb::PerfLevel>(previous_level_));
}

uint64_t ReadCounter::keys_touched() const {
  const rocksdb::PerfContext* p = rocksdb::get_perf_context();
  // Every key an iterator moved over (Next/Prev skip the previous key; hidden
  // versions and tombstones count too), plus the key each seek landed on.
  return p->internal_key_skipped_count + p->internal_delete_skipped_count + seeks();
}

uint64_t ReadCounter::seeks() const {
  const rocksdb::PerfContext* p = rocksdb::get_perf_context();
  return p->seek_on_memtable_count + p->seek_child_seek_count;
}

}  // namespace dynarock
