// Relaxed writes stay a prefix across a power cut (engine/README.md, "What
// survives a crash, a power cut and a failing disk").
//
// In relaxed durability (Options::sync_writes = false) RocksDB writes every
// write to its write-ahead log and leaves the log in the page cache. When a
// memtable fills it starts a new log, and syncs the old one only when the
// flush that follows begins (RocksDB 7.8, DBImpl::SyncClosedLogs). Between
// the two, writes go to the new log while the old one's tail may not be on
// the disk yet, and the kernel writes files back in any order: a power cut
// there can keep later writes and lose earlier ones, and the replay cannot
// tell (the old log just ends early). ReliabilityTest.ALogSwitchKeeps...
// shows the gap without this file.
//
// WalOrderFileSystem closes that window: before it creates a log, it syncs
// every log it opened earlier that has unsynced appends, then their
// directory, so no write reaches a log before every earlier write is
// durable. RocksDB creates a log with its writers held (SwitchMemtable), so
// no append races the sync. The cost is an fdatasync and a directory fsync
// per log switch, at most one per Options::write_buffer_bytes of writes.
//
// SyncLogs() does the same for the logs an earlier process left: their
// tails may still be in the page cache when the replay reads them and new
// writes follow, so Open syncs them first.
#ifndef DYNAROCK_ENGINE_WAL_ORDER_H_
#define DYNAROCK_ENGINE_WAL_ORDER_H_

#include <rocksdb/file_system.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace dynarock {

class WalOrderFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit WalOrderFileSystem(std::shared_ptr<rocksdb::FileSystem> target)
      : FileSystemWrapper(std::move(target)) {}
  const char* Name() const override { return "DynarockWalOrder"; }

  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old,
                                      const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* dbg) override;

  class LogFile;  // a log being written (wal_order.cc)

 private:
  friend class LogFile;
  // Syncs the logs in open_ that have unsynced appends, then the directory
  // of `log` if any was. An error is returned and no log is created.
  rocksdb::IOStatus SyncEarlierLogs(const std::string& log);
  void Register(std::unique_ptr<rocksdb::FSWritableFile>* r);  // wraps *r in a LogFile
  void Forget(LogFile* log);

  std::mutex mu_;            // held while open_'s logs sync, so none of them closes meanwhile
  std::set<LogFile*> open_;  // the logs being written
};

// Syncs every write-ahead log in `dir` and then `dir`. REQUIRES: no
// database has `dir` open (a log could be deleted under it). A missing
// directory is OK: there is nothing to sync.
rocksdb::IOStatus SyncLogs(rocksdb::FileSystem* fs, const std::string& dir);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_WAL_ORDER_H_
