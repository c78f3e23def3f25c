// The moves of stored items to the current item encoding (format/ITEM_FORMAT.md,
// "Version 1 and the move"): without a dump and restore, by compaction.
#ifndef DYNAROCK_ENGINE_ITEM_UPGRADE_H_
#define DYNAROCK_ENGINE_ITEM_UPGRADE_H_

#include <rocksdb/compaction_filter.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "engine/catalog.h"
#include "format/attribute_names.h"

namespace dynarock {

// How every table's items and every index's entries are stored, by space
// id: the key attributes and the table's interned names. For the
// compaction filters, which run on RocksDB's compaction threads and so must
// not take the catalog's lock (a writer holding it may be waiting on a
// compaction), and for every read and write of a table's items. A table's
// key schema never changes and a live table's space id is never given to
// another (only a restore cut short by a crash hands its ids on, to a table
// that replaces its entry before any item of it exists), so an entry holds
// for as long as it is needed. Thread-safe.
class KeySchemas {
 public:
  // Adds a table and its indexes; its dictionary (made on first sight of
  // the space id, or by LoadName) persists new names with `persist`. An
  // index's entries use its table's dictionary.
  void Add(const TableInfo& table, format::NameDictionary::Persist persist);
  // An interned name read from the catalog at open (before any Add of its
  // table, or after).
  Status LoadName(uint32_t space_id, uint32_t id, std::string name,
                  format::NameDictionary::Persist persist);
  // The table's item schema with its dictionary (names null if the table was
  // never added); with `index`, that index's entries' schema.
  format::StoredKeySchema Of(const TableInfo& table, const IndexInfo* index = nullptr) const;

  // The key schema by space id alone (a table's or an index's), or nullopt
  // if no table with that space id, or with an index of it, was added.
  struct Owned {
    std::string partition_name;
    ScalarAttributeType partition_type;
    std::optional<std::pair<std::string, ScalarAttributeType>> sort;
    // An index's: its table's key attributes.
    std::optional<std::pair<std::string, ScalarAttributeType>> table_partition = std::nullopt;
    std::optional<std::pair<std::string, ScalarAttributeType>> table_sort = std::nullopt;
    // A multi-attribute GSI's further components (kept in the value).
    format::MoreKeyTypes more_partition = {};
    format::MoreKeyTypes more_sort = {};
    uint32_t names_space = 0;  // the table whose dictionary names the values
    const format::NameDictionary* names = nullptr;  // lives as long as the KeySchemas
    // Views of the strings above; `names` as given.
    format::StoredKeySchema view(format::AttributeNames* names) const;
  };
  std::optional<Owned> Find(uint32_t space_id) const;

 private:
  format::NameDictionary* Names(uint32_t space_id, format::NameDictionary::Persist persist);  // REQUIRES: mu_

  mutable std::mutex mu_;
  std::unordered_map<uint32_t, Owned> by_space_;
  std::unordered_map<uint32_t, std::unique_ptr<format::NameDictionary>> names_;
};

// The items and indexes column families' compaction filter: every value a
// compaction meets in an older encoding is written out in the current one,
// the same item (same attributes, so the same DynamoDB size: no counter
// changes, and a reader sees no difference, from a snapshot or not).
// Version 1 values, whole version 2 items (storage format 10, and index
// entries before format 13) and format 11's table items become what format
// 13 stores: the value without the attributes its key holds (a table
// item's key attributes; an index entry's, and its table's), each name an
// interned one's id if the table has already interned it (the filter
// interns no new name: it must not write to the catalog), else written
// out. A value of a table or index not (yet) in `schemas` passes unchanged.
// Values already current, merge operands (those families have none) and
// values that do not decode (kept as they are, for RecountStatistics to
// report) pass unchanged. Stateless but for `schemas`, so one instance
// serves every compaction thread (compaction_filter.h). Database::Compact
// finishes the move at once.
class ItemUpgradeFilter : public rocksdb::CompactionFilter {
 public:
  // For the items column family, or (`indexes`) the indexes one.
  // REQUIRES: `schemas` outlives the filter.
  ItemUpgradeFilter(const KeySchemas* schemas, bool indexes)
      : schemas_(schemas), indexes_(indexes) {}
  Decision FilterV2(int level, const rocksdb::Slice& key, ValueType value_type,
                    const rocksdb::Slice& existing_value, std::string* new_value,
                    std::string* skip_until) const override;
  const char* Name() const override {
    return indexes_ ? "dynarock.IndexEntryUpgrade" : "dynarock.ItemUpgrade";
  }
  // Off until Open has recorded the current storage format: a compaction
  // during Open must not rewrite values into an encoding that the format
  // record does not yet announce (an older build would then misread them).
  void Enable() { enabled_.store(true, std::memory_order_release); }

 private:
  const KeySchemas* schemas_;
  const bool indexes_;
  std::atomic<bool> enabled_{false};
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_ITEM_UPGRADE_H_
