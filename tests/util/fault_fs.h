// A file system for tests that injects faults under a real database: a
// rocksdb::FileSystemWrapper given to Database::Open through
// Options::file_system.
//
// Power cuts. The wrapper tracks, for every file written through it, how
// many bytes were made durable (Sync/Fsync) and whether its directory entry
// was (a Fsync of the directory after the file was created). CutPower()
// makes every later write and sync fail, as a machine that lost power does
// nothing more; once the database is closed, DropUnsynced() does to the
// files what the power cut did: a file whose entry was never made durable
// is deleted, and a file loses what it appended since its last sync. With
// an rng, it is meaner, as page-cache writeback can be: a random part of
// the unsynced tail survives, and a file whose entry was not synced
// survives half of the time (with a random prefix of its unsynced data).
// Renames are atomic (the target's entry stays durable if it was); deletes
// are durable at once. DropUnsyncedKeepingWhole() is the page cache's worst
// order: one named file was written back whole, every other file lost what
// it appended since its last sync.
//
// Errors. FailAt() makes the Nth matching call from now fail (and every one
// after it when sticky: a full disk stays full); FailWithProbability() makes
// each matching call fail with probability p. A rule matches an operation
// kind and, optionally, paths containing a substring. injected() counts the
// errors returned.
//
// Thread-safe: RocksDB calls it from its background threads.
#ifndef DYNAROCK_TESTS_UTIL_FAULT_FS_H_
#define DYNAROCK_TESTS_UTIL_FAULT_FS_H_

#include <rocksdb/file_system.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace dynarock::testing {

class FaultFs : public rocksdb::FileSystemWrapper {
 public:
  enum class Op { kAppend, kSync, kRead };

  explicit FaultFs(std::shared_ptr<rocksdb::FileSystem> base = rocksdb::FileSystem::Default());
  const char* Name() const override { return "FaultFs"; }

  // The `nth` matching call from now (1: the next one) fails with `error`;
  // sticky: so does every matching call after it.
  void FailAt(Op op, uint64_t nth, rocksdb::IOStatus error, bool sticky = false,
              std::string path_part = "");
  void FailWithProbability(Op op, double p, rocksdb::IOStatus error, uint64_t seed,
                           std::string path_part = "");
  void ClearFaults();
  // Every Sync/Fsync of a file whose path contains `path_part` first waits
  // `delay` (then fails if the power went off meanwhile): widens the window
  // between a write and the sync that RocksDB makes of it in the background.
  void DelaySyncs(std::chrono::milliseconds delay, std::string path_part);
  uint64_t injected() const { return injected_.load(); }

  void CutPower();
  // REQUIRES: CutPower() was called and no database has files of this file
  // system open. Applies the power cut to the files (see above), then
  // restores power and forgets every file (all that is left is durable).
  rocksdb::IOStatus DropUnsynced(std::mt19937_64* rng = nullptr);
  // The same, but `whole` (a path) keeps its entry and everything written to
  // it; every other file keeps exactly what was synced.
  rocksdb::IOStatus DropUnsyncedKeepingWhole(const std::string& whole);

  // Called by the file wrappers (fault_fs.cc).
  rocksdb::IOStatus Check(Op op, const std::string& path);
  void WaitBeforeSync(const std::string& path);
  void Synced(const std::string& path, uint64_t size);
  void DirSynced(const std::string& dir);

  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                        rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewSequentialFile(const std::string& f, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& o,
                                 std::unique_ptr<rocksdb::FSDirectory>* r,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& dst,
                               const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& dst,
                             const rocksdb::IOOptions& o, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& f, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;

 private:
  struct Rule {
    Op op;
    std::string path_part;
    rocksdb::IOStatus error;
    uint64_t remaining = 0;  // FailAt: calls until the failing one
    bool sticky = false;
    bool fired = false;
    double probability = 0;  // FailWithProbability when > 0
  };
  struct FileState {
    uint64_t synced = 0;         // bytes made durable
    bool entry_durable = false;  // the directory entry was synced
  };
  bool Exists(const std::string& path);
  // What DropUnsynced* keep of each file: its entry, and how many bytes.
  rocksdb::IOStatus Drop(
      const std::function<std::pair<bool, uint64_t>(const std::string& path, const FileState& state,
                                                    uint64_t size)>& keep);
  void Track(const std::string& path, bool keep_durable_entry);

  std::mutex mu_;
  std::vector<Rule> rules_;
  std::mt19937_64 rng_;
  bool powered_ = true;
  std::map<std::string, FileState> files_;  // files written since the last DropUnsynced
  std::chrono::milliseconds sync_delay_{0};
  std::string sync_delay_path_;
  std::atomic<uint64_t> injected_{0};
};

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_FAULT_FS_H_
