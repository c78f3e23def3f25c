// Primary keys of requests and items: extraction and DynamoDB's validation.
#ifndef DYNAROCK_ENGINE_KEYS_H_
#define DYNAROCK_ENGINE_KEYS_H_

#include "dynarock/types.h"
#include "engine/catalog.h"
#include "format/key_codec.h"

namespace dynarock {

// Pointers into the item or key map the key was taken from.
struct PrimaryKey {
  const AttributeValue* partition = nullptr;
  const AttributeValue* sort = nullptr;  // null for hash-only tables

  format::EncodedKey Encode(uint32_t space_id) const {
    return format::EncodeItemKey(space_id, *partition, sort);
  }
  // The same key, built as its collection prefix (space id | hash |
  // enc(pk), format::CollectionPrefix) followed by enc(sk); *prefix_bytes is
  // the prefix's length, so the caller has the collection too.
  format::EncodedKey Encode(uint32_t space_id, size_t* prefix_bytes) const {
    format::EncodedKey key = format::CollectionPrefix(space_id, *partition);
    *prefix_bytes = key.bytes().size();
    // A validated key's sort value is S, N or B: PutKeyComponent cannot fail.
    if (sort) (void)format::PutKeyComponent(key.mutable_bytes(), *sort);
    return key;
  }
};

// The key of an item to be written (PutItem): every key attribute present
// with its declared type, non-empty, within the size limits.
Result<PrimaryKey> ItemPrimaryKey(const TableInfo& table, const Item& item);

// A key map (GetItem, DeleteItem): exactly the table's key attributes.
// `mismatch_message` is what a map of the wrong shape gets: DynamoDB words it
// differently for a Key and for an ExclusiveStartKey.
Result<PrimaryKey> KeyMapPrimaryKey(
    const TableInfo& table, const Item& key,
    std::string_view mismatch_message = "The provided key element does not match the schema");

// Empty value and size checks for one key attribute value.
Status CheckKeyValue(const AttributeValue& v, const std::string& name, bool is_partition_key);
// The size part of it: a key value's bytes (S or B; N is always within) over
// 2,048 for a partition key or 1,024 for a sort key, a table's or an index's.
Status CheckKeySize(std::string_view bytes, bool is_partition_key);

// The key attributes of `item` as a key map (for LastEvaluatedKey).
Item KeyOf(const TableInfo& table, const Item& item);

// The first key of a space id's key range: [SpaceBound(id), SpaceBound(id + 1))
// holds every key of a table or index in its column family.
std::string SpaceBound(uint32_t space_id);

// Hash range [lo, hi) of parallel Scan segment `segment` of `total` (also
// an export's segments), as 128-bit values so the last segment's end (2^64)
// is representable.
void SegmentHashRange(uint32_t segment, uint32_t total, Number::uint128* lo, Number::uint128* hi);
// The first key of a space id's keys whose hash is `hash` (2^64: the end of
// the space).
std::string HashBound(uint32_t space_id, Number::uint128 hash);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_KEYS_H_
