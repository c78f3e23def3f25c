#include "engine/index.h"

#include "engine/validation.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

// One index key attribute of `item`: absent is fine (the item is absent
// from the index), present must be of the declared type, not empty, and
// within the key size limits.
Status CheckIndexKey(const IndexInfo& index, const KeyAttribute& k, bool is_partition,
                     const Item& item) {
  auto it = item.find(k.name);
  if (it == item.end()) return Status::OK();  // sparse: no entry in this index
  AttrType want = format::ToAttrType(k.type);
  if (!it->second.is(want)) {
    return InvalidParameter(
        "Type mismatch for Index Key " + k.name + " Expected: " + std::string(AttrTypeName(want)) +
        " Actual: " + std::string(AttrTypeName(it->second.type())) + " IndexName: " + index.name);
  }
  std::string_view bytes = want == AttrType::kS   ? std::string_view(it->second.s())
                           : want == AttrType::kB ? std::string_view(it->second.b())
                                                  : std::string_view("n");
  if (bytes.empty()) {
    return Status::Validation(
        "One or more parameter values are not valid. A value specified for a secondary index "
        "key is not supported. The AttributeValue for a key attribute cannot contain an "
        "empty " +
        std::string(want == AttrType::kS ? "string" : "binary") +
        " value. IndexName: " + index.name + ", IndexKey: " + k.name);
  }
  // An index key has the table key's limits: an item that breaks them is
  // refused, not written without its entry. Per component for a
  // multi-attribute GSI (DynamoDB does not say whether the limits apply to
  // each or to the sum: per component is the reading no value can exceed).
  return CheckKeySize(bytes, is_partition);
}

}  // namespace

Status CheckIndexKeys(const TableInfo& table, const Item& item) {
  for (const auto& index : table.indexes) {
    Status st;
    index.ForEachKeyAttribute([&](const KeyAttribute& k, bool is_partition) {
      if (st.ok()) st = CheckIndexKey(index, k, is_partition, item);
    });
    DYNAROCK_RETURN_IF_ERROR(st);
  }
  return Status::OK();
}

namespace {

// The attributes an entry of a KEYS_ONLY or INCLUDE index stores: the
// table's keys, the index's, and its NonKeyAttributes.
template <typename Fn>
void ForEachProjected(const TableInfo& table, const IndexInfo& index, Fn&& fn) {
  fn(table.partition_key.name);
  if (table.sort_key) fn(table.sort_key->name);
  index.ForEachKeyAttribute([&](const KeyAttribute& k, bool) { fn(k.name); });
  for (const auto& a : index.non_key_attributes) fn(a);
}

}  // namespace

Item ProjectForIndex(const TableInfo& table, const IndexInfo& index, const Item& item) {
  if (index.projection == ProjectionType::kAll) return item;
  Item out;
  ForEachProjected(table, index, [&](const std::string& name) {
    auto it = item.find(name);
    if (it != item.end()) out.insert(*it);
  });
  return out;
}

bool Projects(const TableInfo& table, const IndexInfo& index, std::string_view name) {
  if (index.projection == ProjectionType::kAll) return true;
  bool stored = false;
  ForEachProjected(table, index, [&](const std::string& a) { stored |= a == name; });
  return stored;
}

std::optional<format::EncodedKey> IndexKeyFor(const TableInfo& table, const IndexInfo& index,
                                              const Item& item) {
  // The sparse rule: an entry only if every key attribute is present with
  // its declared type (a write with a wrongly typed one was refused by
  // CheckIndexKeys; backfill skips such an item).
  const AttributeValue* partition[kMaxIndexPartitionKeys];
  const AttributeValue* sort[kMaxIndexSortKeys];
  size_t partitions = 0, sorts = 0;
  bool complete = true;
  index.ForEachKeyAttribute([&](const KeyAttribute& k, bool is_partition) {
    auto it = item.find(k.name);
    if (it == item.end() || !it->second.is(format::ToAttrType(k.type))) {
      complete = false;
      return;
    }
    (is_partition ? partition[partitions++] : sort[sorts++]) = &it->second;
  });
  if (!complete) return std::nullopt;
  const AttributeValue& pk = item.at(table.partition_key.name);
  const AttributeValue* sk = table.sort_key ? &item.at(table.sort_key->name) : nullptr;
  if (!index.multi_attribute()) {
    return format::EncodeIndexKey(index.space_id, *partition[0], sorts ? sort[0] : nullptr, pk, sk);
  }
  return format::EncodeIndexKey(index.space_id, std::span(partition, partitions),
                                std::span(sort, sorts), pk, sk);
}

std::optional<IndexEntry> EntryFor(const TableInfo& table, const IndexInfo& index, const Item& item,
                                   int64_t item_size, format::AttributeNames* names,
                                   std::string* value) {
  auto key = IndexKeyFor(table, index, item);
  if (!key) return std::nullopt;
  IndexEntry entry{std::move(*key), item_size};
  // Without the attributes the entry's key holds: an ALL projection's entry
  // is the item less those (neither copied nor sized again), another
  // projection's its projection.
  if (index.projection == ProjectionType::kAll) {
    if (value) EncodeIndexEntry(table, index, item, static_cast<size_t>(item_size), names, value);
    return entry;
  }
  const Item projected = ProjectForIndex(table, index, item);
  entry.size = static_cast<int64_t>(format::ItemSize(projected));
  if (value)
    EncodeIndexEntry(table, index, projected, static_cast<size_t>(entry.size), names, value);
  return entry;
}

int64_t ItemWithLocalIndexesBytes(const TableInfo& table, const Item& item) {
  const auto item_size = static_cast<int64_t>(format::ItemSize(item));
  int64_t bytes = item_size;
  for (const auto& index : table.indexes) {
    if (index.global) continue;
    if (auto entry = EntryFor(table, index, item, item_size)) bytes += entry->size;
  }
  return bytes;
}

int64_t CollectionBytes(const TableInfo& table, const Item& item) {
  const auto item_size = static_cast<int64_t>(format::ItemSize(item));
  int64_t bytes = item_size;
  for (const auto& index : table.indexes) {
    if (index.global) continue;  // in no collection: not even projected
    if (auto entry = EntryFor(table, index, item, item_size)) {
      bytes += CollectionShare(index, entry->size);
    }
  }
  return bytes;
}

void EncodeIndexEntry(const TableInfo& table, const IndexInfo& index, const Item& projected,
                      size_t size, format::AttributeNames* names, std::string* out) {
  format::StoredKeySchema keys = table.stored_key(index);
  keys.names = names;
  format::EncodeItemWithoutKey(projected, size, keys, out);
}

Counter AddIndexAndStatsChanges(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* indexes_cf,
                                TotalsDelta* totals, const TableInfo& table,
                                format::AttributeNames* names, const SizedItem& before_side,
                                const SizedItem& after_side,
                                std::vector<IndexWriteUnits>* index_writes) {
  const Item* before = before_side.item;
  const Item* after = after_side.item;
  // The collection's bytes of each side (CollectionBytes): the item, plus
  // its LSI entries, added up below as the entries are sized.
  int64_t before_bytes = before ? before_side.size : 0;
  int64_t after_bytes = after ? after_side.size : 0;
  std::string encoding;
  for (const auto& index : table.indexes) {
    std::optional<IndexEntry> old_entry, new_entry;
    if (before) old_entry = EntryFor(table, index, *before, before_side.size);
    if (after) new_entry = EntryFor(table, index, *after, after_side.size, names, &encoding);
    const format::EncodedKey* old_key = old_entry ? &old_entry->key : nullptr;
    const format::EncodedKey* new_key = new_entry ? &new_entry->key : nullptr;
    Counter delta;
    const int64_t old_size = old_entry ? old_entry->size : 0;
    const int64_t new_size = new_entry ? new_entry->size : 0;
    if (old_key) {
      --delta.items;
      delta.bytes -= old_size;
      before_bytes += CollectionShare(index, old_size);
      if (!new_key || !(*new_key == *old_key)) batch->Delete(indexes_cf, old_key->bytes());
    }
    if (new_key) {
      ++delta.items;
      delta.bytes += new_size;
      after_bytes += CollectionShare(index, new_size);
      batch->Put(indexes_cf, new_key->bytes(), encoding);
    }
    totals->Add(index.space_id, delta);
    if (index_writes && (old_key || new_key)) {
      IndexWriteUnits w;
      w.index = &index;
      if (old_key && new_key && *old_key == *new_key) {
        w.new_units = WriteUnits(std::max(old_size, new_size));  // updated in place
        w.new_partition = index.PartitionOf(*after);
      } else {
        if (old_key) {  // removed
          w.old_units = WriteUnits(old_size);
          w.old_partition = index.PartitionOf(*before);
        }
        if (new_key) {  // added
          w.new_units = WriteUnits(new_size);
          w.new_partition = index.PartitionOf(*after);
        }
      }
      index_writes->push_back(w);
    }
  }
  Counter collection;
  if (before) {
    --collection.items;
    collection.bytes -= before_bytes;
  }
  if (after) {
    ++collection.items;
    collection.bytes += after_bytes;
  }
  return collection;
}

}  // namespace dynarock
