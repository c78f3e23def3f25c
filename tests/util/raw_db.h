// A Dynarock directory opened with RocksDB alone (every column family; the
// statistics merge operator, which replaying the WAL's counter merges
// needs), for tests that inspect or edit the bytes beneath the engine.
#ifndef DYNAROCK_TESTS_UTIL_RAW_DB_H_
#define DYNAROCK_TESTS_UTIL_RAW_DB_H_

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/counters.h"
#include "tests/util/status_matchers.h"

namespace dynarock::testing {

class RawDb {
 public:
  // REQUIRES: no Database has `dir` open.
  explicit RawDb(const std::string& dir, bool read_only = false) {
    EXPECT_OK(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir, &names_));
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const auto& n : names_) {
      rocksdb::ColumnFamilyOptions o;
      if (n == "stats") o.merge_operator = std::make_shared<CounterMergeOperator>();
      cfs.push_back({n, o});
    }
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s =
        read_only ? rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(), dir, cfs, &handles_, &raw)
                  : rocksdb::DB::Open(rocksdb::DBOptions(), dir, cfs, &handles_, &raw);
    EXPECT_OK(s);
    db_.reset(raw);
  }
  ~RawDb() {
    for (auto* h : handles_) EXPECT_OK(db_->DestroyColumnFamilyHandle(h));
  }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* cf(std::string_view name) const {
    for (size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) return handles_[i];
    }
    ADD_FAILURE() << "no column family " << name;
    return nullptr;
  }
  // The keys in column family `name`.
  size_t Count(std::string_view name) const {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf(name)));
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    return n;
  }

 private:
  std::vector<std::string> names_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_RAW_DB_H_
