// Secondary index entries and index totals for one item write, and the
// change to its collection's size (which a table with an LSI counts).
//
// The write pipeline (engine/write/) computes each item before and after a
// write, and AddIndexAndStatsChanges turns the pair into the index
// puts/deletes and statistics deltas that go into the same WriteBatch as the
// item itself, so indexes and statistics never disagree with the table, even
// after a crash.
#ifndef DYNAROCK_ENGINE_INDEX_H_
#define DYNAROCK_ENGINE_INDEX_H_

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <optional>
#include <string>

#include "engine/capacity.h"
#include "engine/catalog.h"
#include "engine/counters.h"
#include "engine/keys.h"
#include "format/key_codec.h"

namespace dynarock {

// DynamoDB counts this much per LSI entry beside its attributes.
inline constexpr int64_t kIndexEntryOverheadBytes = 100;

// Rejects an item whose index key attributes have the wrong type or are empty
// (an item merely lacking them is fine: it is absent from that index).
Status CheckIndexKeys(const TableInfo& table, const Item& item);

// The attributes an index stores for `item`: the table's keys, the index's
// keys, and the projected attributes.
Item ProjectForIndex(const TableInfo& table, const IndexInfo& index, const Item& item);
// Whether the index's entries store attribute `name` (ProjectForIndex keeps it).
bool Projects(const TableInfo& table, const IndexInfo& index, std::string_view name);

// The index's key for `item`, or nullopt when the item lacks an index key
// attribute (sparse index).
std::optional<format::EncodedKey> IndexKeyFor(const TableInfo& table, const IndexInfo& index,
                                              const Item& item);

// One index entry of an item: its key in the index, and the DynamoDB size of
// what it stores (the item as the index projects it).
struct IndexEntry {
  format::EncodedKey key;
  int64_t size = 0;
};

// The entry `index` holds for `item` (of DynamoDB size `item_size`), or
// nullopt when the item lacks an index key attribute (sparse index). With
// `value`, also the entry's stored value (EncodeIndexEntry), names interned
// in `names`. The one producer of index entries and of their sizes, which
// the counters add up: writes, the GSI backfill and the import.
std::optional<IndexEntry> EntryFor(const TableInfo& table, const IndexInfo& index, const Item& item,
                                   int64_t item_size, format::AttributeNames* names = nullptr,
                                   std::string* value = nullptr);

// What an index entry of DynamoDB size `size` adds to its item's collection
// (the 10 GB limit): an LSI entry counts its size plus DynamoDB's 100 bytes;
// a GSI entry is in no collection.
inline int64_t CollectionShare(const IndexInfo& index, int64_t size) {
  return index.global ? 0 : size + kIndexEntryOverheadBytes;
}

// An item plus its LSI entries: what must fit in DynamoDB's 400 KB.
int64_t ItemWithLocalIndexesBytes(const TableInfo& table, const Item& item);

// The collection's contribution of one item: the item, plus its LSI entries.
int64_t CollectionBytes(const TableInfo& table, const Item& item);

// One side of a write, with what the caller has already computed of it.
struct SizedItem {
  const Item* item = nullptr;  // null: absent
  int64_t size = 0;            // format::ItemSize(*item)
};

// Adds to `batch` everything that changes besides the item itself when a
// write turns `before` into `after` (either may be absent): index entries put
// and deleted; each index's change of total goes to `totals`. Returns the
// collection's delta (which only a table with an LSI keeps: the caller
// writes its counter).
// `index_writes` (if not null) receives the write units each index spent:
// one write per entry added or removed, two when the index key moved.
// Each item is projected and sized once per index (an ALL projection is the
// item itself: neither copied nor sized again).
// Entries name attributes through the table's dictionary `names` (null:
// every name written out).
Counter AddIndexAndStatsChanges(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* indexes_cf,
                                TotalsDelta* totals, const TableInfo& table,
                                format::AttributeNames* names, const SizedItem& before,
                                const SizedItem& after,
                                std::vector<IndexWriteUnits>* index_writes = nullptr);

// An index entry's stored value (format/ITEM_FORMAT.md): `projected` (the
// item as `index` projects it, of DynamoDB size `size`) without the
// attributes the entry's key holds (the index's key and the table's), names
// interned in the table's dictionary `names` (null: written out). The one
// encoder of index entries (through EntryFor).
void EncodeIndexEntry(const TableInfo& table, const IndexInfo& index, const Item& projected,
                      size_t size, format::AttributeNames* names, std::string* out);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_INDEX_H_
