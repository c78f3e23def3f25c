#include "engine/item_upgrade.h"

#include "format/item_codec.h"
#include "format/key_codec.h"

namespace dynarock {

void KeySchemas::Add(const TableInfo& table) {
  Owned s{table.partition_key.name, table.partition_key.type, std::nullopt};
  if (table.sort_key) s.sort.emplace(table.sort_key->name, table.sort_key->type);
  std::lock_guard lock(mu_);
  by_space_.insert_or_assign(table.space_id, std::move(s));
}

std::optional<KeySchemas::Owned> KeySchemas::Find(uint32_t space_id) const {
  std::lock_guard lock(mu_);
  auto it = by_space_.find(space_id);
  if (it == by_space_.end()) return std::nullopt;
  return it->second;
}

format::StoredKeySchema KeySchemas::Owned::view() const {
  format::StoredKeySchema s{{partition_name, partition_type}, std::nullopt};
  if (sort) s.sort = format::KeyAttributeRef{sort->first, sort->second};
  return s;
}

rocksdb::CompactionFilter::Decision ItemUpgradeFilter::FilterV2(
    int /*level*/, const rocksdb::Slice& key, ValueType value_type,
    const rocksdb::Slice& existing_value, std::string* new_value,
    std::string* /*skip_until*/) const {
  if (value_type != ValueType::kValue) return Decision::kKeep;
  const std::string_view bytes(existing_value.data(), existing_value.size());
  if (schemas_ == nullptr) {  // an index entry
    if (format::IsCurrentItemEncoding(bytes)) return Decision::kKeep;
    auto upgraded = format::UpgradeStoredItem(bytes);
    if (!upgraded.ok() || !upgraded->has_value()) return Decision::kKeep;
    *new_value = std::move(**upgraded);
    return Decision::kChangeValue;
  }
  if (format::IsCurrentItemEncoding(bytes) && format::IsStoredWithoutKey(bytes)) {
    return Decision::kKeep;
  }
  const std::string_view k(key.data(), key.size());
  std::string_view rest = k;
  uint32_t space_id = 0;
  if (!format::GetFixed32BE(&rest, &space_id)) return Decision::kKeep;
  const auto schema = schemas_->Find(space_id);
  if (!schema) return Decision::kKeep;
  auto upgraded = format::UpgradeStoredItem(k, bytes, schema->view());
  if (!upgraded.ok() || !upgraded->has_value()) return Decision::kKeep;
  *new_value = std::move(**upgraded);
  return Decision::kChangeValue;
}

}  // namespace dynarock
