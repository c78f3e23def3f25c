// Vector index entries for one item write, and the exact search over them
// (SearchVectors). An entry lives in the vectors column family:
//   key   : space_id | XXH64(enc(h)) | enc(h) | enc(table pk) [| enc(table sk)]
//           with h the HASH search attribute's value, or without a HASH:
//           space_id | XXH64(enc(table pk)) | enc(table pk) [| enc(table sk)]
//   value : the f32 vector (4 bytes each, little-endian), then the projected
//           item as a whole item (format/ITEM_FORMAT.md)
// so every entry of one HASH value is one contiguous range, and an index
// without a HASH is one range: its key space.
#ifndef DYNAROCK_ENGINE_VECTOR_INDEX_H_
#define DYNAROCK_ENGINE_VECTOR_INDEX_H_

#include <rocksdb/write_batch.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/catalog.h"
#include "engine/counters.h"
#include "engine/vector_graph.h"
#include "format/key_codec.h"
#include "format/vector.h"

namespace dynarock {

// The engine's public enum and the format's name the same three functions.
inline format::VectorDistance ToVectorDistance(DistanceFunction d) {
  switch (d) {
    case DistanceFunction::kCosine:
      return format::VectorDistance::kCosine;
    case DistanceFunction::kEuclidean:
      return format::VectorDistance::kEuclidean;
    case DistanceFunction::kDotProduct:
      return format::VectorDistance::kDotProduct;
  }
  return format::VectorDistance::kCosine;
}

// Rejects an item whose vector attribute (when present) is not a valid
// vector for one of the table's vector indexes, or whose search attributes
// (when present) have the wrong type or are empty: DynamoDB's texts.
Status CheckVectorValues(const TableInfo& table, const Item& item);
// The same checks for one index (a backfill skips the items they refuse).
Status CheckVectorValue(const VectorIndexInfo& index, const Item& item);

// The size an entry's stored value says its projected item has (what the
// index counts for it).
Result<int64_t> VectorEntrySize(const VectorIndexInfo& index, std::string_view value);

struct VectorEntry {
  format::EncodedKey key;
  int64_t size = 0;  // what the index counts: the projected item's DynamoDB size
  std::vector<float> vector;  // the item's vector, as f32
};
// The entry `item` has in `index`, or nullopt (sparse: no vector attribute,
// or a HASH search attribute missing, or a vector a write would refuse).
// With `value`, its stored value too (an old entry needs only its key and
// size).
std::optional<VectorEntry> VectorEntryFor(const TableInfo& table, const VectorIndexInfo& index,
                                          const Item& item, std::string* value = nullptr);

// What one item write spent on one vector index (ConsumedCapacity's
// VectorWriteRequestBytes): the larger of its old and new entry's size, at
// least 1,024.
struct VectorWriteBytes {
  const VectorIndexInfo* index = nullptr;
  int64_t bytes = 0;
};

// Adds to `batch` the vector index entries a write that turns `before` into
// `after` changes (either may be absent), and each index's change of
// total to `totals`. An entry the write leaves as it was (same key, same
// vector and projection) is not rewritten, charged or sent to the graphs.
// With `graph_changes`, each changed entry for the graphs too
// (engine/vector_graph.h); with `written`, what each changed index costs.
void AddVectorChanges(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* vectors_cf,
                      TotalsDelta* totals, const TableInfo& table, const Item* before,
                      const Item* after, std::vector<VectorGraphChange>* graph_changes = nullptr,
                      std::vector<VectorWriteBytes>* written = nullptr);

// The first key of the entries a search reads, and the key past them: the
// HASH value's collection, or the whole index without a HASH.
// REQUIRES: hash given iff index.hash.
std::pair<std::string, std::string> VectorSearchRange(const VectorIndexInfo& index,
                                                      const AttributeValue* hash);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_VECTOR_INDEX_H_
