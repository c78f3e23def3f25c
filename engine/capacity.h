// Consumed capacity, computed by DynamoDB's rules.
#ifndef DYNAROCK_ENGINE_CAPACITY_H_
#define DYNAROCK_ENGINE_CAPACITY_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/types.h"
#include "engine/catalog.h"

namespace dynarock {

// Units for reading `bytes` (rounded up to 4 KB, at least one unit): eventual
// reads cost half, transactional reads twice.
double ReadUnits(int64_t bytes, bool strongly_consistent, bool transactional = false);
// Units for one Scan page that read `bytes`: as a Query's, but at least one
// unit (half if eventual) for each partition the page touches. DynamoDB
// charges a Scan of a table holding one tiny item 4 units consistent, 2
// eventual: a table's Scan touches its kScanPartitions partitions, a
// segment of a parallel Scan its share of them (at least one).
inline constexpr int kScanPartitions = 4;
double ScanReadUnits(int64_t bytes, bool strongly_consistent, uint32_t total_segments);
// Units for writing `bytes` (rounded up to 1 KB, at least one unit);
// transactional writes cost twice.
double WriteUnits(int64_t bytes, bool transactional = false);

// The units one write spends on one index.
// Units fall on the collections of the entry's old and new index partition
// values (pointers into the items written): removing the old entry and
// adding the new one; an entry updated in place has only new_*.
struct IndexWriteUnits {
  const IndexInfo* index = nullptr;
  IndexPartition old_partition;  // empty: no old entry
  double old_units = 0;
  IndexPartition new_partition;  // empty: no new entry
  double new_units = 0;

  double units() const { return old_units + new_units; }
};

// Accumulates what an operation consumed, per table and index, and renders
// it as ReturnConsumedCapacity asks.
class CapacityMeter {
 public:
  explicit CapacityMeter(ReturnConsumedCapacity mode) : mode_(mode) {}

  // `index` null: the table itself.
  void Read(const std::string& table, const IndexInfo* index, double units);
  void Write(const std::string& table, const IndexInfo* index, double units);
  // Bytes a write spent on a vector index (VectorCapacity).
  void VectorWrite(const std::string& table, const std::string& index, int64_t bytes);

  // For single-table operations; nullopt when NONE was asked.
  std::optional<ConsumedCapacity> For(const std::string& table) const;
  // For multi-table operations: one entry per table touched.
  std::vector<ConsumedCapacity> All() const;

 private:
  struct Usage {
    Capacity table;
    std::map<std::string, Capacity> lsi, gsi;
    std::map<std::string, int64_t> vector_write_bytes;
  };
  static void Add(Capacity* c, double read, double write);

  ReturnConsumedCapacity mode_;
  std::map<std::string, Usage> usage_;
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_CAPACITY_H_
