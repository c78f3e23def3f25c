// Filling an index that UpdateTable added (a GSI or a vector index) from
// the table's items, in the background and resumable, and counting an
// index's entries.
#include <rocksdb/write_batch.h>

#include <algorithm>

#include "engine/db_impl.h"
#include "engine/index.h"
#include "engine/vector_index.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

// DynamoDB's backfill skips items whose new index key it could not store:
// an empty string or binary, or a value over the key size limits (2,048
// bytes for a partition key, 1,024 for a sort key). Writes refuse those;
// items written before the index existed may hold them.
bool StorableIndexKey(const IndexInfo& index, const Item& item) {
  auto fits = [&item](const KeyAttribute& a, size_t limit) {
    const AttributeValue& v = item.at(a.name);
    if (v.is(AttrType::kS)) return !v.s().empty() && v.s().size() <= limit;
    if (v.is(AttrType::kB)) return !v.b().empty() && v.b().size() <= limit;
    return true;  // numbers are bounded by their own rules
  };
  bool storable = true;
  index.ForEachKeyAttribute([&](const KeyAttribute& k, bool is_partition) {
    storable = storable && fits(k, is_partition ? 2048 : 1024);
  });
  return storable;
}

}  // namespace

void Database::Impl::QueueBackfill(std::string table_name, std::string index_name) {
  {
    std::lock_guard lock(backfill_mu_);
    backfill_queue_.emplace_back(std::move(table_name), std::move(index_name));
  }
  backfill_cv_.notify_all();
}

void Database::Impl::BackfillLoop() {
  std::unique_lock lock(backfill_mu_);
  while (true) {
    backfill_cv_.wait(lock, [this] { return backfill_stopping_ || !backfill_queue_.empty(); });
    if (backfill_stopping_) return;
    auto [table, index] = std::move(backfill_queue_.front());
    backfill_queue_.erase(backfill_queue_.begin());
    backfill_running_ = true;
    lock.unlock();
    Status s = BackfillIndex(table, index);
    lock.lock();
    backfill_running_ = false;
    // A failed backfill stays CREATING; the next Open retries it from its
    // cursor. Other tables' backfills go on.
    if (!s.ok() && backfill_error_.ok()) backfill_error_ = s;
    backfill_cv_.notify_all();
  }
}

Status Database::Impl::WaitForBackfills() {
  std::unique_lock lock(backfill_mu_);
  backfill_cv_.wait(lock, [this] {
    return backfill_stopping_ || (backfill_queue_.empty() && !backfill_running_);
  });
  return backfill_error_;
}

Status Database::Impl::BackfillIndex(const std::string& table_name, const std::string& index_name) {
  // Steps of items, each item read and indexed under its write lock, so a
  // concurrent write of the same item (which maintains the new index itself)
  // can never be overwritten by a stale entry. Entries are written without
  // fsync; the cursor after each step is fsynced, and the WAL is ordered, so
  // a durable cursor implies durable entries before it.
  const size_t step_items = std::max<size_t>(1, options_.backfill_batch_items);
  rocksdb::WriteOptions relaxed;
  rocksdb::WriteOptions sync;
  sync.sync = true;
  std::string start;
  std::optional<uint32_t> first_space_id;
  uint32_t space_id = 0;
  uint32_t index_space_id = 0;
  while (true) {
    {
      std::lock_guard lock(backfill_mu_);
      if (backfill_stopping_) return Status::OK();  // the next Open resumes at the cursor
    }
    auto handle_or = AcquireTable(table_name);
    if (!handle_or.ok()) {
      // Dropped meanwhile (DeleteTable removed the cursor with the table).
      return handle_or.status().code() == Status::Code::kResourceNotFound ? Status::OK()
                                                                          : handle_or.status();
    }
    const TableInfo& info = (*handle_or)->info();
    const IndexInfo* index = info.FindIndex(index_name);
    const VectorIndexInfo* vector = info.FindVectorIndex(index_name);
    // A table dropped and re-created under the same name is another table.
    if (!first_space_id) first_space_id = info.space_id;
    const bool backfilling = index ? index->backfilling : vector && vector->backfilling;
    if (!backfilling || info.space_id != *first_space_id) return Status::OK();
    space_id = info.space_id;
    if (index_space_id == 0) {
      index_space_id = index ? index->space_id : vector->space_id;
      rocksdb::Status got =
          db_->Get(rocksdb::ReadOptions(), catalog_cf_, BackfillCursorKey(index_space_id), &start);
      if (got.IsNotFound())
        start.clear();
      else
        DYNAROCK_RETURN_IF_ERROR(FromRocks(got));
    }
    RangeIterator it(db_.get(), items_cf_, start.empty() ? SpaceBound(info.space_id) : start,
                     SpaceBound(info.space_id + 1));
    std::vector<std::string> keys;
    for (; it->Valid() && keys.size() < step_items; it->Next()) {
      keys.push_back(it->key().ToString());
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    const bool done = !it->Valid();
    for (const auto& k : keys) {
      format::EncodedKey key(k);
      DYNAROCK_ASSIGN_OR_RETURN(auto decoded, format::DecodeItemKey(k, info.key_types()));
      std::lock_guard lock(WriteLock(info, key, decoded.pk));
      DYNAROCK_ASSIGN_OR_RETURN(auto item, ReadItem(info, key));
      if (!item) continue;  // deleted meanwhile
      std::string value;
      rocksdb::WriteBatch one;
      if (index) {
        auto entry = EntryFor(info, *index, *item, static_cast<int64_t>(format::ItemSize(*item)),
                              StoredKey(info).names, &value);
        // Sparse (or the key attribute has another type), or a key too long.
        if (!entry || !StorableIndexKey(*index, *item)) continue;
        one.Put(indexes_cf_, entry->key.bytes(), value);
      } else {
        // Sparse, or a vector or search attribute a write would refuse.
        if (!CheckVectorValue(*vector, *item).ok()) continue;
        auto entry = VectorEntryFor(info, *vector, *item, &value);
        if (!entry) continue;
        one.Put(vectors_cf_, entry->key.bytes(), value);
      }
      DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(relaxed, &one)));
    }
    if (done) break;
    start = keys.back() + std::string(1, '\0');
    DYNAROCK_RETURN_IF_ERROR(
        FromRocks(db_->Put(sync, catalog_cf_, BackfillCursorKey(index_space_id), start)));
  }
  // Complete: recount the index exactly and make it readable, with no write
  // running meanwhile.
  auto locked = LockTableExclusive(table_name);
  if (!locked.ok())
    return locked.status().code() == Status::Code::kResourceNotFound ? Status::OK()
                                                                     : locked.status();
  std::shared_ptr<TableState> state = locked->state;
  TableInfo info = state->info;
  if (info.space_id != space_id) return Status::OK();  // dropped and re-created meanwhile
  IndexInfo* index = nullptr;
  for (auto& i : info.indexes) {
    if (i.name == index_name && i.space_id == index_space_id) index = &i;
  }
  VectorIndexInfo* vector = nullptr;
  for (auto& v : info.vector_indexes) {
    if (v.name == index_name && v.space_id == index_space_id) vector = &v;
  }
  Counter total;
  if (index) {
    DYNAROCK_ASSIGN_OR_RETURN(total, CountIndexEntries(info, *index));
    index->backfilling = false;
  } else if (vector) {
    DYNAROCK_ASSIGN_OR_RETURN(total, CountVectorEntries(*vector));
    vector->backfilling = false;
  } else {
    return Status::OK();  // deleted meanwhile
  }
  rocksdb::WriteBatch batch;
  batch.Put(stats_cf_, TableStatsKey(index_space_id), EncodeCounter(total));
  batch.Delete(catalog_cf_, BackfillCursorKey(index_space_id));
  return ReplaceTable(state, std::move(info), &batch);
}

Result<Counter> Database::Impl::CountIndexEntries(const TableInfo& table, const IndexInfo& index,
                                                  const rocksdb::Snapshot* snapshot) {
  Counter total;
  RangeIterator scan(db_.get(), indexes_cf_, SpaceBound(index.space_id),
                     SpaceBound(index.space_id + 1), snapshot);
  const format::StoredKeySchema keys = StoredKey(table, &index);
  std::string scratch;
  for (; scan->Valid(); scan->Next()) {
    ++total.items;
    // From the attributes, not the stored size: RecountStatistics checks the
    // sizes the writers stored against this.
    DYNAROCK_ASSIGN_OR_RETURN(
        ItemView entry,
        format::OpenStoredItem(std::string_view(scan->key().data(), scan->key().size()),
                               std::string_view(scan->value().data(), scan->value().size()),
                               keys, &scratch));
    total.bytes += static_cast<int64_t>(format::ComputeItemSize(entry));
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(scan->status()));
  return total;
}

Result<Counter> Database::Impl::CountVectorEntries(const VectorIndexInfo& index,
                                                   const rocksdb::Snapshot* snapshot) {
  Counter total;
  RangeIterator scan(db_.get(), vectors_cf_, SpaceBound(index.space_id),
                     SpaceBound(index.space_id + 1), snapshot);
  for (; scan->Valid(); scan->Next()) {
    ++total.items;
    DYNAROCK_ASSIGN_OR_RETURN(
        int64_t size,
        VectorEntrySize(index, std::string_view(scan->value().data(), scan->value().size())));
    total.bytes += size;
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(scan->status()));
  return total;
}

}  // namespace dynarock
