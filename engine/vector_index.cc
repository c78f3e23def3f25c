#include "engine/vector_index.h"

#include "engine/keys.h"
#include "engine/validation.h"
#include "format/item_codec.h"
#include "format/item_size.h"
#include "format/vector.h"

namespace dynarock {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid. ";

// A search attribute present with the wrong type, or (a HASH) empty.
Status CheckSearchAttribute(const VectorIndexInfo& index, const KeyAttribute& k, bool is_hash,
                            const Item& item) {
  auto it = item.find(k.name);
  if (it == item.end()) return Status::OK();
  const AttrType want = format::ToAttrType(k.type);
  if (!it->second.is(want)) {
    return Status::Validation(std::string(kInvalid) + "Attribute '" + k.name +
                              "' type mismatch. Expected: " + std::string(AttrTypeName(want)) +
                              ", Actual: " + std::string(AttrTypeName(it->second.type())) +
                              ". IndexName: " + index.name);
  }
  if (is_hash && want != AttrType::kN &&
      (want == AttrType::kS ? it->second.s() : it->second.b()).empty()) {
    return Status::Validation(
        "One or more parameter values are not valid. A value specified for a secondary index key "
        "is not supported. The AttributeValue for a key attribute cannot contain an empty " +
        std::string(want == AttrType::kS ? "string" : "binary") +
        " value. IndexName: " + index.name + ", IndexKey: " + k.name);
  }
  if (is_hash) {
    return CheckKeySize(want == AttrType::kN   ? std::string_view()
                        : want == AttrType::kS ? std::string_view(it->second.s())
                                               : std::string_view(it->second.b()),
                        true);
  }
  return Status::OK();
}

// What an entry of `index` holds besides the vector: the table's keys, the
// search attributes, and the projection's (ALL: every attribute), never the
// vector attribute itself (its f32 values come first in the entry).
Item Projected(const TableInfo& table, const VectorIndexInfo& index, const Item& item) {
  Item out;
  if (index.projection == ProjectionType::kAll) {
    out = item;
    out.erase(index.vector_attribute);
    return out;
  }
  auto take = [&](const std::string& name) {
    if (name == index.vector_attribute) return;
    auto it = item.find(name);
    if (it != item.end()) out.insert(*it);
  };
  take(table.partition_key.name);
  if (table.sort_key) take(table.sort_key->name);
  if (index.hash) take(index.hash->name);
  for (const auto& f : index.inline_filters) take(f.name);
  for (const auto& a : index.non_key_attributes) take(a);
  return out;
}

// The stored value: the f32 vector, then the projected item.
void EncodeVectorValue(const std::vector<float>& vector, const Item& projected, int64_t size,
                       std::string* out) {
  out->clear();
  format::PutVector(out, vector);
  std::string encoded;
  format::EncodeItem(projected, static_cast<size_t>(size), &encoded);  // sized once
  out->append(encoded);
}

}  // namespace

Status CheckVectorValue(const VectorIndexInfo& index, const Item& item) {
  auto v = item.find(index.vector_attribute);
  if (v != item.end()) {
    std::vector<float> scratch;
    DYNAROCK_RETURN_IF_ERROR(format::ToVector(v->second, index.dimensions, index.vector_attribute,
                                              index.name, &scratch));
  }
  if (index.hash) DYNAROCK_RETURN_IF_ERROR(CheckSearchAttribute(index, *index.hash, true, item));
  for (const auto& f : index.inline_filters) {
    DYNAROCK_RETURN_IF_ERROR(CheckSearchAttribute(index, f, false, item));
  }
  return Status::OK();
}

Status CheckVectorValues(const TableInfo& table, const Item& item) {
  for (const VectorIndexInfo& index : table.vector_indexes) {
    DYNAROCK_RETURN_IF_ERROR(CheckVectorValue(index, item));
  }
  return Status::OK();
}

Result<int64_t> VectorEntrySize(const VectorIndexInfo& index, std::string_view value) {
  const size_t vector_bytes = size_t{4} * index.dimensions;
  if (value.size() < vector_bytes) {
    return Status::Corruption("vector index entry shorter than its vector");
  }
  DYNAROCK_ASSIGN_OR_RETURN(size_t size, format::StoredItemSize(value.substr(vector_bytes)));
  return static_cast<int64_t>(size);
}

std::optional<VectorEntry> VectorEntryFor(const TableInfo& table, const VectorIndexInfo& index,
                                          const Item& item, std::string* value) {
  auto v = item.find(index.vector_attribute);
  if (v == item.end()) return std::nullopt;
  const AttributeValue* hash = nullptr;
  if (index.hash) {
    auto h = item.find(index.hash->name);
    if (h == item.end() || !h->second.is(format::ToAttrType(index.hash->type))) return std::nullopt;
    hash = &h->second;
  }
  VectorEntry entry;
  if (!format::ToVector(v->second, index.dimensions, index.vector_attribute, index.name,
                        &entry.vector)
           .ok()) {
    return std::nullopt;  // a backfill skips what a write would refuse
  }
  const AttributeValue& pk = item.at(table.partition_key.name);
  const AttributeValue* sk = table.sort_key ? &item.at(table.sort_key->name) : nullptr;
  entry.key = hash ? format::EncodeIndexKey(index.space_id, *hash, nullptr, pk, sk)
                   : format::EncodeItemKey(index.space_id, pk, sk);
  const Item projected = Projected(table, index, item);
  // What the entry holds: the projected item, and the vector as f32.
  entry.size = static_cast<int64_t>(format::ItemSize(projected) + index.vector_attribute.size() +
                                    4 * size_t{index.dimensions});
  if (value) EncodeVectorValue(entry.vector, projected, entry.size, value);
  return entry;
}

void AddVectorChanges(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* vectors_cf,
                      TotalsDelta* totals, const TableInfo& table, const Item* before,
                      const Item* after, std::vector<VectorGraphChange>* graph_changes,
                      std::vector<VectorWriteBytes>* written) {
  for (const VectorIndexInfo& index : table.vector_indexes) {
    std::optional<VectorEntry> old_entry, new_entry;
    std::string old_value, value;
    if (before) old_entry = VectorEntryFor(table, index, *before, after ? &old_value : nullptr);
    if (after) new_entry = VectorEntryFor(table, index, *after, &value);
    if (!old_entry && !new_entry) continue;
    const bool moved = !old_entry || !new_entry || !(new_entry->key == old_entry->key);
    if (!moved && old_value == value) continue;  // the entry stays as it is
    Counter delta;
    if (old_entry) {
      --delta.items;
      delta.bytes -= old_entry->size;
      if (moved) {
        batch->Delete(vectors_cf, old_entry->key.bytes());
        if (graph_changes) {
          const std::string& k = old_entry->key.bytes();
          graph_changes->push_back({std::string(VectorBucket(k, index.hash.has_value())), k, {}});
        }
      }
    }
    if (new_entry) {
      ++delta.items;
      delta.bytes += new_entry->size;
      batch->Put(vectors_cf, new_entry->key.bytes(), value);
      // A graph needs the change only if the vector moved (a projection
      // change is read from the entry).
      if (graph_changes && (moved || new_entry->vector != old_entry->vector)) {
        const std::string& k = new_entry->key.bytes();
        graph_changes->push_back({std::string(VectorBucket(k, index.hash.has_value())), k,
                                  std::move(new_entry->vector)});
      }
    }
    totals->Add(index.space_id, delta);
    if (written) {
      const int64_t size =
          std::max(old_entry ? old_entry->size : 0, new_entry ? new_entry->size : 0);
      written->push_back({&index, std::max<int64_t>(size, 1024)});
    }
  }
}

std::pair<std::string, std::string> VectorSearchRange(const VectorIndexInfo& index,
                                                      const AttributeValue* hash) {
  if (hash == nullptr) return {SpaceBound(index.space_id), SpaceBound(index.space_id + 1)};
  std::string lower = format::CollectionPrefix(index.space_id, *hash).bytes();
  std::string upper = *format::PrefixSuccessor(lower);
  return {std::move(lower), std::move(upper)};
}

}  // namespace dynarock
