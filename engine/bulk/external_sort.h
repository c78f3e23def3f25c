// An external sort of key/value records within a memory budget, for
// restores: records are kept in memory until the budget is reached, then
// sorted and spilled to a run file; the output merges the runs in key order.
//
// Equal keys: the record with the highest sequence number wins (a restore
// numbers records in input order, so ImportTable's "duplicate keys overwrite
// each other" is the last in input order, whatever thread read it), and
// only it is output: the output has strictly increasing keys, as
// rocksdb::SstFileWriter requires. The losers are reported to the caller.
#ifndef DYNAROCK_ENGINE_BULK_EXTERNAL_SORT_H_
#define DYNAROCK_ENGINE_BULK_EXTERNAL_SORT_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::bulk {

class ExternalSorter {
 public:
  // One buffered record: where its key and value are in the arena.
  struct Entry {
    uint64_t prefix;  // the key's first 8 bytes, big-endian, zero-padded
    uint64_t offset;
    uint32_t key_size, value_size;
    uint64_t seq;
  };

  // Records staged by one thread without the lock, then handed over with
  // one AddBatch: a restore's readers add a record and its index entries
  // per item, and a lock per record made two readers contend (a sixth of
  // the restore's CPU in futex waits).
  class Batch {
   public:
    void Add(std::string_view key, uint64_t seq, std::string_view value);
    size_t bytes() const { return arena_.size() + entries_.size() * sizeof(Entry); }

   private:
    friend class ExternalSorter;
    std::string arena_;
    std::vector<Entry> entries_;
  };

  // Run files go to `dir` (which must exist; the caller removes it).
  ExternalSorter(std::string dir, size_t memory_budget_bytes);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  // Thread-safe: a full buffer is sorted and spilled by the thread that
  // filled it, outside the lock, while others go on adding. IOError if a
  // spill fails. REQUIRES: `seq` differs from every other record's with the
  // same key.
  Status Add(std::string_view key, uint64_t seq, std::string_view value);
  // Adds every record of `batch` under one lock, as Add would one by one,
  // and empties it. Thread-safe; IOError if a spill fails.
  Status AddBatch(Batch* batch);

  using Output = std::function<Status(std::string_view key, uint64_t seq, std::string_view value)>;
  // Calls `out` for every distinct key in increasing bytewise order with its
  // winning record, and `dropped` (if set) for each record that lost to
  // another with the same key; stops at the first error either returns.
  // May be called again, with the same output (a restore redoes its index
  // merge when it must skip entries). REQUIRES: after the last Add.
  Status Merge(const Output& out, const Output& dropped = nullptr);

  size_t runs() const { return runs_.size(); }  // spilled so far
  int64_t records() const { return records_; }

 private:
  static uint64_t PrefixOf(std::string_view key);
  void Reserve();
  // Spills the filling buffer once it holds half the budget.
  Status MaybeSpill(std::unique_lock<std::mutex>& lock);
  // Sorts `entries` (of `arena`) and writes them to the run file `path`.
  static Status WriteRun(const std::string& path, const std::string& arena,
                         std::vector<Entry>* entries);
  static void SortEntries(const std::string& arena, std::vector<Entry>* entries);
  std::string_view KeyOf(const Entry& e) const { return {arena_.data() + e.offset, e.key_size}; }
  std::string_view ValueOf(const Entry& e) const {
    return {arena_.data() + e.offset + e.key_size, e.value_size};
  }

  const std::string dir_;
  const size_t budget_;
  std::mutex mu_;
  std::string arena_;
  std::vector<Entry> entries_;
  // The other buffer, empty between spills, its pages kept: a fresh
  // allocation per run faulted in (and zeroed) half the budget each time.
  std::string spare_arena_;
  std::vector<Entry> spare_entries_;
  // Each spilled run's file and its record count (a run cut short at a
  // chunk boundary would otherwise read as a shorter run).
  struct Run {
    std::string path;
    size_t records;
  };
  std::vector<Run> runs_;
  int64_t records_ = 0;
  int spilling_ = 0;  // runs being written outside the lock
  std::condition_variable spilled_;
};

}  // namespace dynarock::bulk

#endif  // DYNAROCK_ENGINE_BULK_EXTERNAL_SORT_H_
