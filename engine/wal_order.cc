#include "engine/wal_order.h"

#include <atomic>
#include <vector>

namespace dynarock {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

IOStatus SyncDirectory(rocksdb::FileSystem* fs, const std::string& dir) {
  std::unique_ptr<rocksdb::FSDirectory> d;
  IOStatus s = fs->NewDirectory(dir, IOOptions(), &d, nullptr);
  if (!s.ok()) return s;
  s = d->Fsync(IOOptions(), nullptr);
  IOStatus closed = d->Close(IOOptions(), nullptr);
  return s.ok() ? closed : s;
}

// RocksDB's write-ahead log names: "<digits>.log".
bool IsWalFileName(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string_view name =
      std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
  if (!name.ends_with(".log") || name.size() == 4) return false;
  for (char c : name.substr(0, name.size() - 4)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

// Counts appends and the appends each successful sync covered; Close and the
// destructor take it out of the file system's set first, so a log never
// closes while SyncEarlierLogs syncs it.
class WalOrderFileSystem::LogFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  LogFile(WalOrderFileSystem* fs, std::unique_ptr<rocksdb::FSWritableFile> file)
      : FSWritableFileOwnerWrapper(std::move(file)), fs_(fs) {}
  ~LogFile() override { fs_->Forget(this); }

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    appends_.fetch_add(1);  // a failed append may have written part of its data
    return target()->Append(data, o, dbg);
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo& info,
                  IODebugContext* dbg) override {
    appends_.fetch_add(1);
    return target()->Append(data, o, info, dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            IODebugContext* dbg) override {
    appends_.fetch_add(1);
    return target()->PositionedAppend(data, offset, o, dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            const rocksdb::DataVerificationInfo& info,
                            IODebugContext* dbg) override {
    appends_.fetch_add(1);
    return target()->PositionedAppend(data, offset, o, info, dbg);
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override {
    const uint64_t covered = appends_.load();
    return NoteSynced(covered, target()->Sync(o, dbg));
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    const uint64_t covered = appends_.load();
    return NoteSynced(covered, target()->Fsync(o, dbg));
  }
  IOStatus Close(const IOOptions& o, IODebugContext* dbg) override {
    fs_->Forget(this);
    return target()->Close(o, dbg);
  }

  bool HasUnsyncedAppends() const { return synced_.load() < appends_.load(); }

 private:
  IOStatus NoteSynced(uint64_t covered, IOStatus s) {
    if (!s.ok()) return s;
    uint64_t seen = synced_.load();
    while (seen < covered && !synced_.compare_exchange_weak(seen, covered)) {
    }
    return s;
  }

  WalOrderFileSystem* const fs_;
  std::atomic<uint64_t> appends_{0};
  std::atomic<uint64_t> synced_{0};  // appends_ as of the last successful sync
};

IOStatus WalOrderFileSystem::NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                             std::unique_ptr<rocksdb::FSWritableFile>* r,
                                             IODebugContext* dbg) {
  if (!IsWalFileName(f)) return target()->NewWritableFile(f, o, r, dbg);
  IOStatus s = SyncEarlierLogs(f);
  if (s.ok()) s = target()->NewWritableFile(f, o, r, dbg);
  if (s.ok()) Register(r);
  return s;
}

IOStatus WalOrderFileSystem::ReuseWritableFile(const std::string& f, const std::string& old,
                                               const rocksdb::FileOptions& o,
                                               std::unique_ptr<rocksdb::FSWritableFile>* r,
                                               IODebugContext* dbg) {
  if (!IsWalFileName(f)) return target()->ReuseWritableFile(f, old, o, r, dbg);
  IOStatus s = SyncEarlierLogs(f);
  if (s.ok()) s = target()->ReuseWritableFile(f, old, o, r, dbg);
  if (s.ok()) Register(r);
  return s;
}

IOStatus WalOrderFileSystem::SyncEarlierLogs(const std::string& log) {
  std::lock_guard lock(mu_);
  bool synced = false;
  for (LogFile* earlier : open_) {
    if (!earlier->HasUnsyncedAppends()) continue;
    IOStatus s = earlier->Sync(IOOptions(), nullptr);
    if (!s.ok()) return s;
    synced = true;
  }
  // The synced logs' entries too: a log whose entry is lost is lost whole.
  return synced ? SyncDirectory(target(), DirectoryOf(log)) : IOStatus::OK();
}

void WalOrderFileSystem::Register(std::unique_ptr<rocksdb::FSWritableFile>* r) {
  auto log = std::make_unique<LogFile>(this, std::move(*r));
  {
    std::lock_guard lock(mu_);
    open_.insert(log.get());
  }
  *r = std::move(log);
}

void WalOrderFileSystem::Forget(LogFile* log) {
  std::lock_guard lock(mu_);
  open_.erase(log);
}

IOStatus SyncLogs(rocksdb::FileSystem* fs, const std::string& dir) {
  std::vector<std::string> children;
  IOStatus s = fs->GetChildren(dir, IOOptions(), &children, nullptr);
  if (s.IsNotFound()) return IOStatus::OK();
  if (!s.ok()) return s;
  bool synced = false;
  for (const std::string& name : children) {
    if (!IsWalFileName(name)) continue;
    std::unique_ptr<rocksdb::FSWritableFile> log;
    s = fs->ReopenWritableFile(dir + "/" + name, rocksdb::FileOptions(), &log, nullptr);
    if (s.ok()) s = log->Sync(IOOptions(), nullptr);
    if (s.ok()) s = log->Close(IOOptions(), nullptr);
    if (!s.ok()) return s;
    synced = true;
  }
  return synced ? SyncDirectory(fs, dir) : IOStatus::OK();
}

}  // namespace dynarock
