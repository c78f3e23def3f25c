#include "engine/item_upgrade.h"

#include "format/item_codec.h"
#include "format/key_codec.h"

namespace dynarock {

format::NameDictionary* KeySchemas::Names(uint32_t space_id, format::NameDictionary::Persist persist) {
  auto& names = names_[space_id];
  if (!names) names = std::make_unique<format::NameDictionary>(std::move(persist));
  return names.get();
}

void KeySchemas::Add(const TableInfo& table, format::NameDictionary::Persist persist) {
  Owned s{table.partition_key.name, table.partition_key.type, std::nullopt};
  if (table.sort_key) s.sort.emplace(table.sort_key->name, table.sort_key->type);
  s.names_space = table.space_id;
  std::lock_guard lock(mu_);
  for (const IndexInfo& index : table.indexes) {
    Owned e{index.partition_key.name, index.partition_key.type, std::nullopt};
    if (index.sort_key) e.sort.emplace(index.sort_key->name, index.sort_key->type);
    e.table_partition.emplace(s.partition_name, s.partition_type);
    e.table_sort = s.sort;
    const format::KeySchemaTypes types = index.key_types();
    e.more_partition = types.more_partition;
    e.more_sort = types.more_sort;
    e.names_space = table.space_id;
    by_space_.insert_or_assign(index.space_id, std::move(e));
  }
  by_space_.insert_or_assign(table.space_id, std::move(s));
  Names(table.space_id, std::move(persist));
}

Status KeySchemas::LoadName(uint32_t space_id, uint32_t id, std::string name,
                            format::NameDictionary::Persist persist) {
  std::lock_guard lock(mu_);
  return Names(space_id, std::move(persist))->Load(id, std::move(name));
}

format::StoredKeySchema KeySchemas::Of(const TableInfo& table, const IndexInfo* index) const {
  format::StoredKeySchema s = index ? table.stored_key(*index) : table.stored_key();
  std::lock_guard lock(mu_);
  auto it = names_.find(table.space_id);
  if (it != names_.end()) s.names = it->second.get();
  return s;
}

std::optional<KeySchemas::Owned> KeySchemas::Find(uint32_t space_id) const {
  std::lock_guard lock(mu_);
  auto it = by_space_.find(space_id);
  if (it == by_space_.end()) return std::nullopt;
  Owned found = it->second;
  auto names = names_.find(found.names_space);
  if (names != names_.end()) found.names = names->second.get();
  return found;
}

format::StoredKeySchema KeySchemas::Owned::view(format::AttributeNames* n) const {
  format::StoredKeySchema s{{partition_name, partition_type}, std::nullopt, n};
  if (sort) s.sort = format::KeyAttributeRef{sort->first, sort->second};
  if (table_partition) {
    s.table_partition = format::KeyAttributeRef{table_partition->first, table_partition->second};
  }
  if (table_sort) s.table_sort = format::KeyAttributeRef{table_sort->first, table_sort->second};
  s.more_partition = more_partition;
  s.more_sort = more_sort;
  return s;
}

namespace {

// A dictionary that interns nothing new: the names it holds are given by
// id, the rest stay inline.
class LookupOnly : public format::AttributeNames {
 public:
  explicit LookupOnly(const format::NameDictionary* d) : AttributeNames(d->ids()), d_(d) {}
  std::optional<uint32_t> Intern(std::string_view name) override { return d_->Find(name); }

 private:
  const format::NameDictionary* d_;
};

}  // namespace

rocksdb::CompactionFilter::Decision ItemUpgradeFilter::FilterV2(
    int /*level*/, const rocksdb::Slice& key, ValueType value_type,
    const rocksdb::Slice& existing_value, std::string* new_value,
    std::string* /*skip_until*/) const {
  if (value_type != ValueType::kValue || !enabled_.load(std::memory_order_acquire)) {
    return Decision::kKeep;
  }
  const std::string_view bytes(existing_value.data(), existing_value.size());
  const std::string_view k(key.data(), key.size());
  std::string_view rest = k;
  uint32_t space_id = 0;
  if (!format::GetFixed32BE(&rest, &space_id)) return Decision::kKeep;
  const auto schema = schemas_->Find(space_id);
  if (!schema || schema->names == nullptr) return Decision::kKeep;
  LookupOnly names(schema->names);
  auto upgraded = format::UpgradeStoredItem(k, bytes, schema->view(&names));
  if (!upgraded.ok() || !upgraded->has_value()) return Decision::kKeep;
  *new_value = std::move(**upgraded);
  return Decision::kChangeValue;
}

}  // namespace dynarock
