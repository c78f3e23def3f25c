#include "engine/index.h"

#include "engine/validation.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
Status CheckIndexKeys(const TableInfo& table, const Item& item) {
  for (const auto& index : table.indexes) {
    for (const KeyAttribute* k :
         {&index.partition_key, index.sort_key ? &*index.sort_key : nullptr}) {
      if (k == nullptr) continue;
      auto it = item.find(k->name);
      if (it == item.end()) continue;  // sparse: no entry in this index
      AttrType want = format::ToAttrType(k->type);
      if (!it->second.is(want)) {
        return InvalidParameter("Type mismatch for Index Key " + k->name +
                                " Expected: " + std::string(AttrTypeName(want)) +
                                " Actual: " + std::string(AttrTypeName(it->second.type())) +
                                " IndexName: " + index.name);
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
            " value. IndexName: " + index.name + ", IndexKey: " + k->name);
      }
    }
  }
  return Status::OK();
}

Item ProjectForIndex(const TableInfo& table, const IndexInfo& index, const Item& item) {
  if (index.projection == ProjectionType::kAll) return item;
  Item out;
  auto take = [&](const std::string& name) {
    auto it = item.find(name);
    if (it != item.end()) out.insert(*it);
  };
  take(table.partition_key.name);
  if (table.sort_key) take(table.sort_key->name);
  take(index.partition_key.name);
  if (index.sort_key) take(index.sort_key->name);
  for (const auto& a : index.non_key_attributes) take(a);
  return out;
}

std::optional<format::EncodedKey> IndexKeyFor(const TableInfo& table, const IndexInfo& index,
                                              const Item& item) {
  auto ipk = item.find(index.partition_key.name);
  if (ipk == item.end() || !ipk->second.is(format::ToAttrType(index.partition_key.type))) {
    return std::nullopt;
  }
  const AttributeValue* isk = nullptr;
  if (index.sort_key) {
    auto it = item.find(index.sort_key->name);
    if (it == item.end() || !it->second.is(format::ToAttrType(index.sort_key->type))) {
      return std::nullopt;
    }
    isk = &it->second;
  }
  const AttributeValue& pk = item.at(table.partition_key.name);
  const AttributeValue* sk = table.sort_key ? &item.at(table.sort_key->name) : nullptr;
  return format::EncodeIndexKey(index.space_id, ipk->second, isk, pk, sk);
}

int64_t ItemWithLocalIndexesBytes(const TableInfo& table, const Item& item) {
  int64_t bytes = static_cast<int64_t>(format::ItemSize(item));
  for (const auto& index : table.indexes) {
    if (index.global || !IndexKeyFor(table, index, item)) continue;
    bytes += static_cast<int64_t>(format::ItemSize(ProjectForIndex(table, index, item)));
  }
  return bytes;
}

int64_t CollectionBytes(const TableInfo& table, const Item& item) {
  int64_t bytes = static_cast<int64_t>(format::ItemSize(item));
  for (const auto& index : table.indexes) {
    if (index.global || !IndexKeyFor(table, index, item)) continue;
    bytes += static_cast<int64_t>(format::ItemSize(ProjectForIndex(table, index, item))) +
             kIndexEntryOverheadBytes;
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
    const bool all = index.projection == ProjectionType::kAll;
    std::optional<format::EncodedKey> old_key, new_key;
    if (before) old_key = IndexKeyFor(table, index, *before);
    if (after) new_key = IndexKeyFor(table, index, *after);
    Counter delta;
    int64_t old_size = 0, new_size = 0;
    if (old_key) {
      old_size = all ? before_side.size
                     : static_cast<int64_t>(format::ItemSize(ProjectForIndex(table, index, *before)));
      --delta.items;
      delta.bytes -= old_size;
      if (!index.global) before_bytes += old_size + kIndexEntryOverheadBytes;
      if (!new_key || !(*new_key == *old_key)) batch->Delete(indexes_cf, old_key->bytes());
    }
    if (new_key) {
      // Without the attributes the entry's key holds: an ALL projection's
      // entry is the item less those, another projection's its projection.
      if (all) {
        new_size = after_side.size;
        EncodeIndexEntry(table, index, *after, static_cast<size_t>(new_size), names, &encoding);
      } else {
        const Item projected = ProjectForIndex(table, index, *after);
        new_size = static_cast<int64_t>(format::ItemSize(projected));
        EncodeIndexEntry(table, index, projected, static_cast<size_t>(new_size), names, &encoding);
      }
      ++delta.items;
      delta.bytes += new_size;
      if (!index.global) after_bytes += new_size + kIndexEntryOverheadBytes;
      batch->Put(indexes_cf, new_key->bytes(), encoding);
    }
    totals->Add(index.space_id, delta);
    if (index_writes && (old_key || new_key)) {
      IndexWriteUnits w{&index};
      if (old_key && new_key && *old_key == *new_key) {
        w.new_units = WriteUnits(std::max(old_size, new_size));  // updated in place
        w.new_partition = &after->find(index.partition_key.name)->second;
      } else {
        if (old_key) {  // removed
          w.old_units = WriteUnits(old_size);
          w.old_partition = &before->find(index.partition_key.name)->second;
        }
        if (new_key) {  // added
          w.new_units = WriteUnits(new_size);
          w.new_partition = &after->find(index.partition_key.name)->second;
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
