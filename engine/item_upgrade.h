// The move from version 1 of the item encoding to version 2 (storage format
// 10, format/ITEM_FORMAT.md "Version 1 and the move"): without a dump and
// restore, by compaction.
#ifndef DYNAROCK_ENGINE_ITEM_UPGRADE_H_
#define DYNAROCK_ENGINE_ITEM_UPGRADE_H_

#include <rocksdb/compaction_filter.h>

namespace dynarock {

// The items and indexes column families' compaction filter: every value a
// compaction meets in version 1 is written out in version 2, the same item
// (same attributes, so the same DynamoDB size: no counter changes, and a
// reader sees no difference, from a snapshot or not). Version 2 values,
// merge operands (those families have none) and version 1 bytes that do not
// decode (kept as they are, for RecountStatistics to report) pass unchanged.
// Stateless, so one instance serves every compaction thread
// (compaction_filter.h). Database::Compact finishes the move at once.
class ItemUpgradeFilter : public rocksdb::CompactionFilter {
 public:
  Decision FilterV2(int level, const rocksdb::Slice& key, ValueType value_type,
                    const rocksdb::Slice& existing_value, std::string* new_value,
                    std::string* skip_until) const override;
  const char* Name() const override { return "dynarock.ItemUpgrade"; }
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_ITEM_UPGRADE_H_
