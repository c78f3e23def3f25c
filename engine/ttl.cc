// The TTL sweep: walks each TTL-enabled table in key order, a bounded batch
// at a time, and deletes expired items through the write pipeline (so
// indexes, statistics and the stream stay exact). Its position is kept in
// the catalog ("ttl_cursor/<space id>"), so a restart resumes it.
#include "engine/ttl.h"

#include <rocksdb/write_batch.h>

#include "dynarock/item_view.h"
#include "engine/db_impl.h"
#include "engine/keys.h"

namespace dynarock {

bool ttl::Expired(const Item& item, std::string_view attribute, int64_t now_s) {
  auto it = item.find(attribute);
  return it != item.end() && it->second.type() == AttrType::kN && Expired(it->second.n(), now_s);
}

bool ttl::Expired(const Number& v, int64_t now_s) {
  // trunc(v) <= now  <=>  v < now + 1;  trunc(v) > now - 5y  <=>  v >= now - 5y + 1.
  return v < Number::FromInt64(now_s + 1) && v >= Number::FromInt64(now_s - kMaxAgeSeconds + 1);
}

namespace {
constexpr size_t kDeletesPerBatch = 25;
}  // namespace

Result<bool> Database::Impl::SweepTable(const std::string& table_name, size_t budget,
                                        std::string* cursor, int64_t* deleted) {
  auto handle = AcquireTable(table_name);
  if (!handle.ok()) return true;  // deleted meanwhile: nothing to sweep
  const TableInfo& table = (*handle)->info();
  if (!table.ttl_enabled || !table.ttl_attribute) return true;
  const int64_t now_s = NowMs() / 1000;

  // Collect the expired keys of the next `budget` items.
  std::vector<Item> expired_keys;
  bool at_end = true;
  {
    std::string lower = cursor->empty() ? SpaceBound(table.space_id) : *cursor + '\0';
    RangeIterator it(db_.get(), items_cf_, lower, SpaceBound(table.space_id + 1));
    size_t examined = 0;
    std::string bytes;  // reused
    for (; it->Valid(); it->Next()) {
      if (examined == budget) {
        at_end = false;
        break;
      }
      ++examined;
      cursor->assign(it->key().data(), it->key().size());
      // Only the TTL attribute is read, in place (as db_impl_query.cc reads: our own
      // bytes, checksummed by RocksDB); an expired item is decoded for its
      // key. Unreadable items are RecountStatistics' to report.
      auto opened = format::OpenStoredItem(std::string_view(it->key().data(), it->key().size()),
                                           std::string_view(it->value().data(), it->value().size()),
                                           StoredKey(table), &bytes);
      if (!opened.ok()) continue;
      const ItemView view = *opened;
      auto value = view.Find(*table.ttl_attribute);
      if (!value || value->type() != AttrType::kN) continue;
      auto number = value->number();
      if (!number.ok() || !ttl::Expired(*number, now_s)) continue;
      auto item = view.Decode();
      if (!item.ok()) continue;
      expired_keys.push_back(KeyOf(table, *item));
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  }

  // Delete them, each re-checked under its lock (Action::ttl_expired_at_s).
  for (size_t i = 0; i < expired_keys.size(); i += kDeletesPerBatch) {
    std::vector<write::Action> actions;
    for (size_t j = i; j < std::min(expired_keys.size(), i + kDeletesPerBatch); ++j) {
      DYNAROCK_ASSIGN_OR_RETURN(auto action,
                                write::PlanKeyed(write::Kind::kDelete, table, expired_keys[j]));
      action.ttl_expired_at_s = now_s;
      actions.push_back(std::move(action));
    }
    // No capacity is consumed: TTL deletions are free in DynamoDB.
    DYNAROCK_ASSIGN_OR_RETURN(auto outcomes, RunWrites(actions, {}));
    for (const auto& o : outcomes) *deleted += o.skipped ? 0 : 1;
  }
  if (at_end) cursor->clear();
  return at_end;
}

Result<int64_t> Database::Impl::ExpireItems() {
  std::vector<std::string> names;
  {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, state] : tables_) {
      if (state->info.ttl_enabled) names.push_back(name);
    }
  }
  int64_t deleted = 0;
  for (const auto& name : names) {
    std::string cursor;  // a complete pass, independent of the background one
    while (true) {
      DYNAROCK_ASSIGN_OR_RETURN(bool done, SweepTable(name, 10000, &cursor, &deleted));
      if (done) break;
    }
  }
  return deleted;
}

void Database::Impl::StartTtlSweeper() {
  if (options_.ttl_sweep_interval_ms <= 0) return;
  ttl_thread_ = std::thread([this] { TtlSweeperLoop(); });
}

void Database::Impl::TtlSweeperLoop() {
  std::unique_lock lock(ttl_mu_);
  while (!stopping_) {
    ttl_cv_.wait_for(lock, std::chrono::milliseconds(options_.ttl_sweep_interval_ms),
                     [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    std::vector<std::pair<std::string, uint32_t>> tables;
    {
      std::shared_lock catalog(catalog_mu_);
      for (const auto& [name, state] : tables_) {
        if (state->info.ttl_enabled) tables.emplace_back(name, state->info.space_id);
      }
    }
    for (const auto& [name, space_id] : tables) {
      // The cursor survives restarts; errors wait for the next round.
      std::string cursor;
      const std::string key = TtlCursorKey(space_id);
      if (!db_->Get(rocksdb::ReadOptions(), catalog_cf_, key, &cursor).ok()) cursor.clear();
      int64_t deleted = 0;
      auto done = SweepTable(name, options_.ttl_sweep_batch_items, &cursor, &deleted);
      if (!done.ok()) continue;
      rocksdb::Status s = *done ? db_->Delete(rocksdb::WriteOptions(), catalog_cf_, key)
                                : db_->Put(rocksdb::WriteOptions(), catalog_cf_, key, cursor);
      s.PermitUncheckedError();  // Ignoring: a lost cursor only repeats some work.
    }
    lock.lock();
  }
}

}  // namespace dynarock
