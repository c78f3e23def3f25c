#include "engine/keys.h"

#include "engine/validation.h"

namespace dynarock {
namespace {

Result<const AttributeValue*> FindTyped(const Item& item, const KeyAttribute& attr) {
  auto it = item.find(attr.name);
  if (it == item.end()) return InvalidParameter("Missing the key " + attr.name + " in the item");
  AttrType want = format::ToAttrType(attr.type);
  if (!it->second.is(want)) {
    return InvalidParameter("Type mismatch for key " + attr.name + " expected: " +
                            std::string(AttrTypeName(want)) +
                            " actual: " + std::string(AttrTypeName(it->second.type())));
  }
  return &it->second;
}

}  // namespace

Status CheckKeyValue(const AttributeValue& v, const std::string& name, bool is_partition_key) {
  std::string_view bytes;
  if (v.is(AttrType::kS)) bytes = v.s();
  if (v.is(AttrType::kB)) bytes = v.b();
  if (!v.is(AttrType::kN) && bytes.empty()) {
    return Status::Validation(
        std::string("One or more parameter values are not valid. The AttributeValue for a key "
                    "attribute cannot contain an empty ") +
        (v.is(AttrType::kS) ? "string" : "binary") + " value. Key: " + name);
  }
  return CheckKeySize(bytes, is_partition_key);
}

Status CheckKeySize(std::string_view bytes, bool is_partition_key) {
  if (is_partition_key && bytes.size() > format::kMaxPartitionKeyBytes) {
    return InvalidParameter("Size of hashkey has exceeded the maximum size limit of2048 bytes");
  }
  if (!is_partition_key && bytes.size() > format::kMaxSortKeyBytes) {
    return InvalidParameter(
        "Aggregated size of all range keys has exceeded the size limit of 1024 bytes");
  }
  return Status::OK();
}

Result<PrimaryKey> ItemPrimaryKey(const TableInfo& table, const Item& item) {
  PrimaryKey key;
  DYNAROCK_ASSIGN_OR_RETURN(auto pk, FindTyped(item, table.partition_key));
  key.partition = pk;
  if (table.sort_key) {
    DYNAROCK_ASSIGN_OR_RETURN(auto sk, FindTyped(item, *table.sort_key));
    key.sort = sk;
  }
  DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(*key.partition, table.partition_key.name, true));
  if (key.sort) DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(*key.sort, table.sort_key->name, false));
  return key;
}

Result<PrimaryKey> KeyMapPrimaryKey(const TableInfo& table, const Item& key,
                                    std::string_view mismatch_message) {
  const size_t expected = table.sort_key ? 2 : 1;
  auto find = [&](const KeyAttribute& attr) -> const AttributeValue* {
    auto it = key.find(attr.name);
    if (it == key.end() || !it->second.is(format::ToAttrType(attr.type))) return nullptr;
    return &it->second;
  };
  PrimaryKey out;
  out.partition = find(table.partition_key);
  if (table.sort_key) out.sort = find(*table.sort_key);
  if (key.size() != expected || out.partition == nullptr || (table.sort_key && !out.sort)) {
    return Status::Validation(std::string(mismatch_message));
  }
  DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(*out.partition, table.partition_key.name, true));
  if (out.sort) DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(*out.sort, table.sort_key->name, false));
  return out;
}

Item KeyOf(const TableInfo& table, const Item& item) {
  Item key;
  key.emplace(table.partition_key.name, item.at(table.partition_key.name));
  if (table.sort_key) key.emplace(table.sort_key->name, item.at(table.sort_key->name));
  return key;
}

std::string SpaceBound(uint32_t space_id) {
  std::string out;
  format::PutFixed32BE(&out, space_id);
  return out;
}

// Hash range [lo, hi) of parallel Scan segment `segment` of `total`, as
// 128-bit values so the last segment's end (2^64) is representable.
void SegmentHashRange(uint32_t segment, uint32_t total, Number::uint128* lo, Number::uint128* hi) {
  const Number::uint128 space = static_cast<Number::uint128>(1) << 64;
  *lo = space * segment / total;
  *hi = space * (segment + 1) / total;
}

std::string HashBound(uint32_t space_id, Number::uint128 hash) {
  std::string out;
  if (hash >> 64) {  // 2^64: the end of the table's key space
    format::PutFixed32BE(&out, space_id + 1);
  } else {
    format::PutFixed32BE(&out, space_id);
    format::PutFixed64BE(&out, static_cast<uint64_t>(hash));
  }
  return out;
}

}  // namespace dynarock
