#include "engine/recount.h"

#include <cstring>
#include <vector>

#include "engine/index.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

class RecountFilter : public rocksdb::CompactionFilter {
 public:
  RecountFilter(std::shared_ptr<Recount> recount,
                std::shared_ptr<const std::map<uint32_t, TableInfo>> tables)
      : recount_(std::move(recount)), tables_(std::move(tables)) {}

  // Publishes this compaction's counts when RocksDB is done with the filter.
  ~RecountFilter() override {
    std::lock_guard lock(recount_->mu);
    recount_->collections = std::move(collections_);
    recount_->tables = std::move(tables_seen_);
    recount_->unreadable = unreadable_;
    recount_->complete = true;
  }

  Decision FilterV2(int /*level*/, const rocksdb::Slice& key, ValueType type,
                    const rocksdb::Slice& value, std::string* /*new_value*/,
                    std::string* /*skip_until*/) const override {
    if (type != ValueType::kValue) return Decision::kKeep;
    // Never lets an exception reach RocksDB: counting is best-effort and an
    // allocation failure only makes the recount incomplete.
    try {
      Count(std::string_view(key.data(), key.size()), std::string_view(value.data(), value.size()));
    } catch (...) {
      ++unreadable_;
    }
    return Decision::kKeep;  // an observer: items are never changed or dropped
  }

  const char* Name() const override { return "dynarock.RecountFilter"; }

 private:
  void Count(std::string_view key, std::string_view value) const {
    std::string_view in = key;
    uint32_t space_id;
    if (!format::GetFixed32BE(&in, &space_id)) return;
    auto table = tables_->find(space_id);
    if (table == tables_->end()) return;  // a deleted table's leftovers
    auto decoded = format::DecodeItemKey(key, table->second.key_types());
    std::vector<uint32_t> aligned((value.size() + 3) / 4);
    if (!value.empty()) std::memcpy(aligned.data(), value.data(), value.size());
    auto item = format::DecodeItem(std::string_view(reinterpret_cast<const char*>(aligned.data()), value.size()));
    if (!decoded.ok() || !item.ok()) {
      ++unreadable_;
      return;
    }
    Counter& c = collections_[CollectionStatsKey(space_id, decoded->pk)];
    ++c.items;
    c.bytes += CollectionBytes(table->second, *item);
    Counter& t = tables_seen_[space_id];
    ++t.items;
    t.bytes += static_cast<int64_t>(format::ItemSize(*item));
  }

  std::shared_ptr<Recount> recount_;
  std::shared_ptr<const std::map<uint32_t, TableInfo>> tables_;
  // Filters from a factory are used by one thread: no locking until the end.
  mutable std::map<std::string, Counter> collections_;
  mutable std::map<uint32_t, Counter> tables_seen_;
  mutable int64_t unreadable_ = 0;
};

}  // namespace

void RecountFilterFactory::Arm(std::shared_ptr<Recount> recount,
                               std::map<uint32_t, TableInfo> tables) {
  std::lock_guard lock(mu_);
  recount_ = std::move(recount);
  tables_ = std::make_shared<const std::map<uint32_t, TableInfo>>(std::move(tables));
}

void RecountFilterFactory::Disarm() {
  std::lock_guard lock(mu_);
  recount_.reset();
  tables_.reset();
}

std::unique_ptr<rocksdb::CompactionFilter> RecountFilterFactory::CreateCompactionFilter(
    const rocksdb::CompactionFilter::Context& context) {
  std::lock_guard lock(mu_);
  if (!recount_ || !context.is_full_compaction || !context.is_manual_compaction) return nullptr;
  return std::make_unique<RecountFilter>(recount_, tables_);
}

}  // namespace dynarock
