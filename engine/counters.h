// Statistics column family: exact counters kept in the same WriteBatch as the
// writes they count, with a merge operator so writers never read-modify-write
// a counter (each write adds its delta; RocksDB folds them). The exception:
// the collection counters, kept by tables with an LSI only, which every
// write reads for the 10 GB limit under the collection's lock; those are
// written whole.
//
// Value and operand format (WRITTEN TO DISK): two little-endian int64s,
// item count then size in bytes (DynamoDB item sizes).
#ifndef DYNAROCK_ENGINE_COUNTERS_H_
#define DYNAROCK_ENGINE_COUNTERS_H_

#include <rocksdb/compaction_filter.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/write_batch.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/types.h"

namespace dynarock {

struct Counter {
  int64_t items = 0;
  int64_t bytes = 0;
};

std::string EncodeCounter(const Counter& c);
// False if `bytes` is not exactly one encoded counter.
bool DecodeCounter(std::string_view bytes, Counter* out);

// The changes one WriteBatch makes to table and index totals, summed per
// space id and merged once each when the batch is complete: a
// BatchWriteItem of 25 puts into a table with a GSI merged 50 operands into
// two keys, a fifth of the load's instructions (callgrind), where 2 do.
class TotalsDelta {
 public:
  void Add(uint32_t space_id, const Counter& delta);
  // One Merge per space id whose total changes.
  void MergeInto(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* stats_cf) const;

 private:
  std::vector<std::pair<uint32_t, Counter>> spaces_;  // few: a table and its indexes
};

// Key of a table's totals: space_id (4, big-endian) | 'T'. All of a table's
// statistics share its space_id prefix, so DeleteTable drops them with one
// range deletion.
std::string TableStatsKey(uint32_t space_id);

// The memtable insert hints of the stats family are per key prefix of this
// length (space id | tag); a range deletion there must begin at a shorter key.
inline constexpr size_t kStatsHintPrefixBytes = 5;

// Key of one collection's counter: space_id | 'C' | hash | enc(pk), the
// collection's items key prefix with the tag after the space id.
std::string CollectionStatsKey(uint32_t space_id, const AttributeValue& pk);
// The same from the collection's encoded item-key prefix (space_id | hash |
// enc(pk)), into `out` (reused: a restore builds one per item).
void CollectionStatsKeyOfPrefix(std::string_view collection_prefix, std::string* out);
inline constexpr char kCollectionStatsTag = 'C';
// space_id | 'C': the prefix every collection counter of a table shares.
std::string CollectionStatsPrefix(uint32_t space_id);

// Adds counters. Never throws (RocksDB is not exception-safe); a malformed
// operand makes Merge return false, which RocksDB reports as corruption.
class CounterMergeOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice& key, const rocksdb::Slice* existing_value,
             const rocksdb::Slice& value, std::string* new_value,
             rocksdb::Logger* logger) const override;
  const char* Name() const override { return "dynarock.CounterAdd.v1"; }
};

// The statistics column family's compaction filter: drops collection
// counters that are exactly zero (an emptied collection of a table without
// an LSI leaves one: its deletes are merge deltas). A missing counter reads
// as zero, so dropping one changes no answer, whatever merge operands newer
// than it lie in other files. RocksDB does not pass the result of a merge it
// computes during a compaction to the filter: a zero that a compaction
// folds from operands is dropped by the next one.
class EmptyCounterFilter : public rocksdb::CompactionFilter {
 public:
  bool Filter(int level, const rocksdb::Slice& key, const rocksdb::Slice& value,
              std::string* new_value, bool* value_changed) const override;
  const char* Name() const override { return "dynarock.EmptyCounters"; }
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_COUNTERS_H_
