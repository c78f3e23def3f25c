// Filling a GSI that UpdateTable added from the table's items, and counting
// an index's entries.
#include <rocksdb/write_batch.h>

#include "engine/db_impl.h"
#include "engine/index.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {

Status Database::Impl::BackfillIndex(const std::string& table_name, const std::string& index_name) {
  // Batches of items, each item read and indexed under its write lock, so a
  // concurrent write of the same item (which maintains the new index itself)
  // can never be overwritten by a stale entry.
  constexpr size_t kBatchItems = 1000;
  std::string start;
  std::optional<uint32_t> first_space_id;
  uint32_t space_id = 0;
  while (true) {
    DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(table_name));
    const TableInfo& info = handle->info();
    const IndexInfo* index = info.FindIndex(index_name);
    if (index == nullptr) return Status::OK();  // deleted meanwhile
    // A table dropped and re-created under the same name is another table.
    if (!first_space_id) first_space_id = info.space_id;
    if (info.space_id != *first_space_id) return Status::OK();
    space_id = info.space_id;
    RangeIterator it(db_.get(), items_cf_, start.empty() ? SpaceBound(info.space_id) : start,
                     SpaceBound(info.space_id + 1));
    std::vector<std::string> keys;
    for (; it->Valid() && keys.size() < kBatchItems; it->Next()) {
      keys.push_back(it->key().ToString());
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    bool done = !it->Valid();
    rocksdb::WriteBatch batch;
    for (const auto& k : keys) {
      format::EncodedKey key(k);
      DYNAROCK_ASSIGN_OR_RETURN(auto decoded, format::DecodeItemKey(k, info.key_types()));
      std::lock_guard lock(WriteLock(info, key, decoded.pk));
      DYNAROCK_ASSIGN_OR_RETURN(auto item, ReadItem(key));
      if (!item) continue;  // deleted meanwhile
      auto index_key = IndexKeyFor(info, *index, *item);
      if (!index_key) continue;  // sparse
      rocksdb::WriteBatch one;
      one.Put(indexes_cf_, index_key->bytes(),
              format::EncodeItem(ProjectForIndex(info, *index, *item)));
      DYNAROCK_RETURN_IF_ERROR(Write(&one));
    }
    if (done) break;
    start = keys.back() + std::string(1, '\0');
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
    if (i.name == index_name) index = &i;
  }
  if (index == nullptr) return Status::OK();
  DYNAROCK_ASSIGN_OR_RETURN(auto total, CountIndexEntries(index->space_id));
  index->backfilling = false;
  rocksdb::WriteBatch batch;
  batch.Put(stats_cf_, TableStatsKey(index->space_id), EncodeCounter(total));
  return ReplaceTable(state, std::move(info), &batch);
}

Result<Counter> Database::Impl::CountIndexEntries(uint32_t index_space_id) {
  Counter total;
  RangeIterator scan(db_.get(), indexes_cf_, SpaceBound(index_space_id),
                     SpaceBound(index_space_id + 1));
  std::string value;
  for (; scan->Valid(); scan->Next()) {
    value.assign(scan->value().data(), scan->value().size());
    ++total.items;
    total.bytes += static_cast<int64_t>(format::ItemSize(ItemView::OpenTrusted(value)));
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(scan->status()));
  return total;
}

}  // namespace dynarock
