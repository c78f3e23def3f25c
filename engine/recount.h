// The statistics recount: a compaction filter on the items column family
// that, during a full manual compaction, counts every collection's items and
// size as it rewrites them (it never changes or drops an item). The engine
// then compares the recount with the merge-operator counters, reports and
// corrects any drift, and drops the counters of collections that became
// empty (deletes leave a zero counter behind; this is where it goes away).
#ifndef DYNAROCK_ENGINE_RECOUNT_H_
#define DYNAROCK_ENGINE_RECOUNT_H_

#include <rocksdb/compaction_filter.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engine/catalog.h"
#include "engine/stats.h"

namespace dynarock {

// What one recount observed: per collection-statistics key, the true counter;
// per table space id, the true totals. A full compaction sees every item, so
// the last full compaction to finish is a complete recount on its own (a
// CompactRange may run more than one: each replaces the previous result).
struct Recount {
  std::mutex mu;
  bool complete = false;
  std::map<std::string, Counter> collections;
  std::map<uint32_t, Counter> tables;
  int64_t unreadable = 0;  // items that did not decode (reported, not dropped)
};

// Installed on the items column family for the database's lifetime; it
// creates an observing filter only while a recount is armed and only for a
// full manual compaction, so ordinary compactions pay nothing.
class RecountFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  // Arms the next full manual compaction to count into `recount`, reading
  // keys with the given tables' schemas (by space id).
  void Arm(std::shared_ptr<Recount> recount, std::map<uint32_t, TableInfo> tables);
  void Disarm();

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override;
  const char* Name() const override { return "dynarock.RecountFilterFactory"; }

 private:
  std::mutex mu_;
  std::shared_ptr<Recount> recount_;
  std::shared_ptr<const std::map<uint32_t, TableInfo>> tables_;
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_RECOUNT_H_
