// Collection statistics: the largest collections of a table, and the
// recount that checks every counter against the data; ReadCounter.
#include <rocksdb/iostats_context.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "engine/db_impl.h"
#include "engine/index.h"
#include "engine/keys.h"
#include "engine/model/checks.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {

namespace {

// Keeps the `limit` largest collections offered, by size.
class Largest {
 public:
  explicit Largest(size_t limit) : limit_(limit) {}
  void Offer(CollectionStatistics c) {
    if (c.item_count == 0) return;
    top_.push_back(std::move(c));
    std::push_heap(top_.begin(), top_.end(), Smaller);
    if (top_.size() > limit_) {
      std::pop_heap(top_.begin(), top_.end(), Smaller);
      top_.pop_back();
    }
  }
  // Largest first.
  std::vector<CollectionStatistics> Take() {
    std::sort_heap(top_.begin(), top_.end(), Smaller);
    return std::move(top_);
  }

 private:
  // A min-heap on size: its top is the smallest kept.
  static bool Smaller(const CollectionStatistics& a, const CollectionStatistics& b) {
    return a.size_bytes > b.size_bytes;
  }
  const size_t limit_;
  std::vector<CollectionStatistics> top_;
};

}  // namespace

// The largest collections of one key space (a table's items, or an
// index's entries) by reading it: keys are space id | hash | enc(pk) | ...,
// so one collection's keys are contiguous and end where that prefix
// changes; each value is an encoded item, sized as DynamoDB sizes items.
Result<std::vector<CollectionStatistics>> Database::Impl::ScanLargestCollections(
    rocksdb::ColumnFamilyHandle* cf, uint32_t space_id, const std::vector<KeyAttribute>& partition,
    size_t limit, const std::function<void(int64_t)>& progress, size_t value_offset) {
  RangeIterator it(db_.get(), cf, SpaceBound(space_id), SpaceBound(space_id + 1));
  Largest top(limit);
  std::string prefix;
  CollectionStatistics current;
  int64_t read = 0;
  for (; it->Valid(); it->Next()) {
    if (progress && ++read % 16384 == 0) progress(read);
    std::string_view key(it->key().data(), it->key().size());
    if (prefix.empty() || !key.starts_with(prefix)) {
      top.Offer(std::move(current));
      current = {};
      std::string_view rest = key.substr(std::min<size_t>(key.size(), 4 + 8));
      for (const KeyAttribute& k : partition) {  // every component names it
        AttributeValue v;
        DYNAROCK_RETURN_IF_ERROR(format::GetKeyComponent(&rest, k.type, &v));
        current.key.insert_or_assign(k.name, std::move(v));
      }
      prefix.assign(key.substr(0, key.size() - rest.size()));
    }
    ++current.item_count;
    const std::string_view value(it->value().data(), it->value().size());
    if (value.size() < value_offset) return Status::Corruption("a value shorter than its prefix");
    DYNAROCK_ASSIGN_OR_RETURN(size_t size, format::StoredItemSize(value.substr(value_offset)));
    current.size_bytes += static_cast<int64_t>(size);
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  top.Offer(std::move(current));
  return top.Take();
}

Result<std::vector<CollectionStatistics>> Database::Impl::LargestCollections(
    const std::string& table_name, size_t limit,
    const std::function<void(int64_t)>& progress) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(DescribeTableRequest{table_name}));
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(table_name));
  const TableInfo& info = handle->info();
  // Only a table with an LSI keeps collection counters (STORAGE_LAYOUT.md).
  if (!info.has_lsi()) {
    return ScanLargestCollections(items_cf_, info.space_id, {info.partition_key}, limit, progress);
  }
  const std::string lower = CollectionStatsPrefix(info.space_id);
  RangeIterator it(db_.get(), stats_cf_, lower, *format::PrefixSuccessor(lower));
  Largest top(limit);
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
    top.Offer({{{info.partition_key.name, std::move(pk)}}, c.items, c.bytes});
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  return top.Take();
}

Result<std::vector<CollectionStatistics>> Database::Impl::LargestIndexCollections(
    const std::string& table_name, const std::string& index_name, size_t limit,
    const std::function<void(int64_t)>& progress) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(DescribeTableRequest{table_name}));
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(table_name));
  const TableInfo& info = handle->info();
  // A vector index's collections are its HASH values' (an entry's value
  // starts with the vector); without a HASH it is one collection: its totals.
  if (const VectorIndexInfo* v = info.FindVectorIndex(index_name)) {
    if (!v->hash) {
      DYNAROCK_ASSIGN_OR_RETURN(Counter total, ReadTableStats(v->space_id));
      if (total.items == 0 || limit == 0) return std::vector<CollectionStatistics>{};
      return std::vector<CollectionStatistics>{{Item{}, total.items, total.bytes}};
    }
    return ScanLargestCollections(vectors_cf_, v->space_id, {*v->hash}, limit, progress,
                                  4 * size_t{v->dimensions});
  }
  auto index = std::find_if(info.indexes.begin(), info.indexes.end(),
                            [&](const IndexInfo& i) { return i.name == index_name; });
  if (index == info.indexes.end()) {
    return Status::Validation("The table does not have the specified index: " + index_name);
  }
  return ScanLargestCollections(indexes_cf_, index->space_id, index->partition_keys(), limit,
                                progress);
}

Result<DescribeCollectionResponse> Database::Impl::DescribeCollection(
    const DescribeCollectionRequest& r) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(DescribeTableRequest{r.table_name}));
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(r.table_name));
  const TableInfo& info = handle->info();
  uint32_t space = info.space_id;
  std::vector<KeyAttribute> keys{info.partition_key};
  if (r.index_name) {
    auto index = std::find_if(info.indexes.begin(), info.indexes.end(),
                              [&](const IndexInfo& i) { return i.name == *r.index_name; });
    if (index == info.indexes.end()) {
      return Status::Validation("The table does not have the specified index: " + *r.index_name);
    }
    space = index->space_id;
    keys = index->partition_keys();
  }
  // One value for each partition component, each of its type.
  if (r.more_partition_key_values.size() + 1 != keys.size()) {
    return Status::Validation("The collection is named by " + std::to_string(keys.size()) +
                              " partition key values, not " +
                              std::to_string(r.more_partition_key_values.size() + 1));
  }
  std::vector<const AttributeValue*> values{&r.partition_key_value};
  for (const auto& v : r.more_partition_key_values) values.push_back(&v);
  for (size_t i = 0; i < keys.size(); ++i) {
    const KeyAttribute& key = keys[i];
    if (static_cast<int>(values[i]->type()) != static_cast<int>(key.type)) {
      return Status::Validation("The partition key " + key.name + " is of type " +
                                std::string(1, "SNB"[static_cast<int>(key.type)]) + ", not " +
                                std::string(AttrTypeName(values[i]->type())));
    }
  }
  const KeyAttribute& key = keys[0];
  DescribeCollectionResponse out;
  for (const auto& i : info.indexes) out.size_limited |= !i.global;
  const std::string lower = format::CollectionPrefix(space, values).bytes();
  const std::string upper = *format::PrefixSuccessor(lower);
  if (!r.index_name && out.size_limited) {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), stats_cf_,
                                 CollectionStatsKey(space, r.partition_key_value), &value);
    Counter c;
    if (s.ok() && !DecodeCounter(value, &c)) {
      return Status::Corruption("stats: malformed collection counter");
    }
    if (!s.ok() && !s.IsNotFound()) return FromRocks(s);
    out.statistics = CollectionStatistics{{{key.name, r.partition_key_value}}, c.items, c.bytes};
  } else if (!r.index_name) {
    // Without an LSI there is no counter: the collection's items are read.
    Counter c;
    RangeIterator it(db_.get(), items_cf_, lower, upper);
    for (; it->Valid(); it->Next()) {
      ++c.items;
      DYNAROCK_ASSIGN_OR_RETURN(
          size_t size,
          format::StoredItemSize(std::string_view(it->value().data(), it->value().size())));
      c.bytes += static_cast<int64_t>(size);
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    out.statistics = CollectionStatistics{{{key.name, r.partition_key_value}}, c.items, c.bytes};
  }
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  std::set<int> levels;
  const std::string family = (r.index_name ? indexes_cf_ : items_cf_)->GetName();
  for (const auto& f : files) {
    if (f.column_family_name != family) continue;
    if (f.largestkey < lower || f.smallestkey >= upper) continue;
    ++out.sst_files;
    levels.insert(f.level);
  }
  out.levels.assign(levels.begin(), levels.end());
  return out;
}

// ---- RecountStatistics ------------------------------------------------------------------
//
// Each table in turn, held only against DeleteTable (item operations go on):
// its items are read from one snapshot, collection by collection in key
// order, beside its collection counters (a table with an LSI is the only
// one that has them) read from the same snapshot (a counter's key is its
// collection's item-key prefix with a tag, so both walks are in the same
// order and memory stays one collection's worth). Every write changes items
// and counters in one batch, so a difference seen at the snapshot is drift,
// and stays the same difference however many writes follow: it is corrected
// by merging it in as a delta. The writers read and rewrite a collection's
// counter under the collection's lock, so the delta goes in under that lock
// too. The table's and its indexes' totals are checked the same way.

Result<StatisticsReport> Database::Impl::RecountStatistics() {
  std::vector<std::string> names;
  {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, state] : tables_) names.push_back(name);
  }
  StatisticsReport report;
  for (const auto& name : names) {
    auto handle = AcquireTable(name);
    if (!handle.ok()) {
      if (handle.status().code() == Status::Code::kResourceNotFound) continue;  // deleted meanwhile
      return handle.status();
    }
    DYNAROCK_RETURN_IF_ERROR(RecountTable((*handle)->info(), &report));
  }
  // Zero counters go through the stats family's filter (EmptyCounterFilter):
  // the first compaction folds a collection's merge operands into a zero,
  // the second drops it.
  rocksdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (int pass = 0; pass < 2; ++pass) {
    DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->CompactRange(compact, stats_cf_, nullptr, nullptr)));
  }
  return report;
}

Status Database::Impl::RecountTable(const TableInfo& table, StatisticsReport* report) {
  const uint32_t id = table.space_id;
  rocksdb::ManagedSnapshot snapshot(db_.get());
  const rocksdb::Snapshot* at = snapshot.snapshot();
  RangeIterator items(db_.get(), items_cf_, SpaceBound(id), SpaceBound(id + 1), at);
  const std::string lower = CollectionStatsPrefix(id);
  const std::string upper = *format::PrefixSuccessor(lower);
  RangeIterator stored(db_.get(), stats_cf_, lower, upper, at);

  rocksdb::WriteBatch corrections;  // deltas of the totals
  std::vector<std::pair<std::string, Counter>> locked_corrections;  // (collection key, delta)
  auto correct = [&](const std::string& key, const Counter& actual, const Counter& was) {
    locked_corrections.emplace_back(key, Counter{actual.items - was.items, actual.bytes - was.bytes});
    ++report->collections_corrected;
  };
  const bool counters = table.has_lsi();
  // Compares the counters before `key` (collections without items) and the
  // one at `key` (if `actual`) with the truth.
  auto check_until = [&](std::string_view key, const Counter* actual) -> Status {
    for (; stored->Valid(); stored->Next()) {
      std::string_view k(stored->key().data(), stored->key().size());
      if (k > key) break;
      Counter was;
      if (!DecodeCounter(std::string_view(stored->value().data(), stored->value().size()), &was)) {
        return Status::Corruption("stats: a malformed collection counter in table " + table.name +
                                  "; rewrite it with RecountStatistics after "
                                  "deleting it");
      }
      ++report->collections_checked;
      const bool here = k == key && actual != nullptr;
      const Counter truth = here ? *actual : Counter{};
      if (!here && was.items == 0 && was.bytes == 0) {
        ++report->empty_collections_dropped;  // the filter drops it below
      } else if (was.items != truth.items || was.bytes != truth.bytes) {
        correct(std::string(k), truth, was);
      }
      if (here) {
        stored->Next();
        return Status::OK();
      }
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(stored->status()));
    if (actual != nullptr) {  // a collection with items and no counter at all
      ++report->collections_checked;
      correct(std::string(key), *actual, Counter{});
    }
    return Status::OK();
  };

  Counter total;
  const format::StoredKeySchema stored_key = StoredKey(table);
  std::string collection;  // the current collection's stats key
  Counter counted;
  for (; items->Valid(); items->Next()) {
    std::string_view key(items->key().data(), items->key().size());
    std::string_view value(items->value().data(), items->value().size());
    auto decoded = format::DecodeItemKey(key, table.key_types());
    // Verified as bytes of unknown origin: the recount is where unreadable
    // items are found.
    auto item = format::VerifyStoredItem(key, value, stored_key);
    if (!decoded.ok() || !item.ok()) {
      ++report->unreadable_items;
      continue;
    }
    ++total.items;
    total.bytes += static_cast<int64_t>(format::ItemSize(*item));
    if (!counters) continue;
    std::string stats_key = CollectionStatsKey(id, decoded->pk);
    if (stats_key != collection) {
      if (!collection.empty()) DYNAROCK_RETURN_IF_ERROR(check_until(collection, &counted));
      collection = std::move(stats_key);
      counted = Counter{};
    }
    ++counted.items;
    counted.bytes += CollectionBytes(table, *item);
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(items->status()));
  if (!collection.empty()) DYNAROCK_RETURN_IF_ERROR(check_until(collection, &counted));
  // Counters after the last collection (on a table without an LSI, any at
  // all: stray ones, which the upgrade to format version 7 removed).
  DYNAROCK_RETURN_IF_ERROR(check_until(upper, nullptr));

  // The table's totals, and each index's, counted from its entries.
  auto check_total = [&](uint32_t space_id, const Counter& truth, int64_t* corrected) -> Status {
    Result<Counter> was = ReadTableStats(space_id, at);
    if (!was.ok() && was.status().code() != Status::Code::kCorruption) return was.status();
    if (!was.ok()) {
      corrections.Put(stats_cf_, TableStatsKey(space_id), EncodeCounter(truth));
    } else if (was->items != truth.items || was->bytes != truth.bytes) {
      Counter delta{truth.items - was->items, truth.bytes - was->bytes};
      corrections.Merge(stats_cf_, TableStatsKey(space_id), EncodeCounter(delta));
    } else {
      return Status::OK();
    }
    ++*corrected;
    return Status::OK();
  };
  DYNAROCK_RETURN_IF_ERROR(check_total(id, total, &report->table_totals_corrected));
  for (const auto& index : table.indexes) {
    if (index.backfilling) continue;  // its backfill sets exact totals when it completes
    DYNAROCK_ASSIGN_OR_RETURN(Counter entries, CountIndexEntries(table, index, at));
    DYNAROCK_RETURN_IF_ERROR(check_total(index.space_id, entries, &report->index_totals_corrected));
  }
  for (const auto& index : table.vector_indexes) {
    if (index.backfilling) continue;
    DYNAROCK_ASSIGN_OR_RETURN(Counter entries, CountVectorEntries(index, at));
    DYNAROCK_RETURN_IF_ERROR(check_total(index.space_id, entries, &report->index_totals_corrected));
  }

  rocksdb::WriteOptions sync;
  sync.sync = true;
  for (const auto& [key, delta] : locked_corrections) {
    // key = space id | 'C' | hash | enc(pk): without the tag it is the
    // collection's item-key prefix, whose stripe is the collection's lock
    // (WriteLock).
    std::lock_guard lock(StripeFor(format::EncodedKey(key.substr(0, 4) + key.substr(5))));
    rocksdb::WriteBatch one;
    one.Merge(stats_cf_, key, EncodeCounter(delta));
    DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &one)));
  }
  if (corrections.Count() > 0) DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &corrections)));
  return Status::OK();
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
