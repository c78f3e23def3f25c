#include "tests/util/fault_fs.h"

#include <filesystem>
#include <thread>

namespace dynarock::testing {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

std::string Normalize(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : Normalize(path.substr(0, slash + 1));
}

// A file being written: fails appends and syncs as the rules say, and
// reports each sync's size as durable.
class TrackedFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  TrackedFile(FaultFs* fs, std::string path, uint64_t size,
              std::unique_ptr<rocksdb::FSWritableFile> file)
      : FSWritableFileOwnerWrapper(std::move(file)), fs_(fs), path_(std::move(path)), size_(size) {}

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kAppend, path_);
    if (!s.ok()) return s;
    s = target()->Append(data, o, dbg);
    if (s.ok()) size_ += data.size();
    return s;
  }
  IOStatus Append(const Slice& data, const IOOptions& o,
                  const rocksdb::DataVerificationInfo& /*info*/, IODebugContext* dbg) override {
    return Append(data, o, dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kAppend, path_);
    if (!s.ok()) return s;
    s = target()->PositionedAppend(data, offset, o, dbg);
    if (s.ok()) size_ = std::max<uint64_t>(size_, offset + data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            const rocksdb::DataVerificationInfo& /*info*/,
                            IODebugContext* dbg) override {
    return PositionedAppend(data, offset, o, dbg);
  }
  IOStatus Truncate(uint64_t size, const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kAppend, path_);
    if (!s.ok()) return s;
    s = target()->Truncate(size, o, dbg);
    if (s.ok()) size_ = size;
    return s;
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override { return DoSync(o, dbg, false); }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override { return DoSync(o, dbg, true); }
  // sync_file_range: starts writeback, makes nothing durable.
  IOStatus RangeSync(uint64_t offset, uint64_t n, const IOOptions& o,
                     IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kSync, path_);
    return s.ok() ? target()->RangeSync(offset, n, o, dbg) : s;
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kAppend, path_);
    return s.ok() ? target()->Flush(o, dbg) : s;
  }

 private:
  IOStatus DoSync(const IOOptions& o, IODebugContext* dbg, bool full) {
    fs_->WaitBeforeSync(path_);
    IOStatus s = fs_->Check(FaultFs::Op::kSync, path_);
    if (!s.ok()) return s;
    s = full ? target()->Fsync(o, dbg) : target()->Sync(o, dbg);
    if (s.ok()) fs_->Synced(path_, size_);
    return s;
  }

  FaultFs* const fs_;
  const std::string path_;
  uint64_t size_;
};

class ReadFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  ReadFile(FaultFs* fs, std::string path, std::unique_ptr<rocksdb::FSRandomAccessFile> file)
      : FSRandomAccessFileOwnerWrapper(std::move(file)), fs_(fs), path_(std::move(path)) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    IOStatus s = fs_->Check(FaultFs::Op::kRead, path_);
    return s.ok() ? target()->Read(offset, n, o, result, scratch, dbg) : s;
  }
  IOStatus MultiRead(rocksdb::FSReadRequest* reqs, size_t num, const IOOptions& o,
                     IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kRead, path_);
    if (s.ok()) return target()->MultiRead(reqs, num, o, dbg);
    for (size_t i = 0; i < num; ++i) reqs[i].status = s;
    return s;
  }
  // No asynchronous reads: RocksDB then reads through Read().
  IOStatus ReadAsync(rocksdb::FSReadRequest& /*req*/, const IOOptions& /*o*/,
                     std::function<void(const rocksdb::FSReadRequest&, void*)> /*cb*/,
                     void* /*cb_arg*/, void** /*handle*/, rocksdb::IOHandleDeleter* /*del*/,
                     IODebugContext* /*dbg*/) override {
    return IOStatus::NotSupported("FaultFs: no asynchronous reads");
  }

 private:
  FaultFs* const fs_;
  const std::string path_;
};

class SequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  SequentialFile(FaultFs* fs, std::string path, std::unique_ptr<rocksdb::FSSequentialFile> file)
      : FSSequentialFileOwnerWrapper(std::move(file)), fs_(fs), path_(std::move(path)) {}
  IOStatus Read(size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kRead, path_);
    return s.ok() ? target()->Read(n, o, result, scratch, dbg) : s;
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions& o, Slice* result,
                          char* scratch, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kRead, path_);
    return s.ok() ? target()->PositionedRead(offset, n, o, result, scratch, dbg) : s;
  }

 private:
  FaultFs* const fs_;
  const std::string path_;
};

class Directory : public rocksdb::FSDirectoryWrapper {
 public:
  Directory(FaultFs* fs, std::string path, std::unique_ptr<rocksdb::FSDirectory> dir)
      : FSDirectoryWrapper(std::move(dir)), fs_(fs), path_(std::move(path)) {}
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    IOStatus s = fs_->Check(FaultFs::Op::kSync, path_);
    if (!s.ok()) return s;
    s = FSDirectoryWrapper::Fsync(o, dbg);
    if (s.ok()) fs_->DirSynced(path_);
    return s;
  }
  IOStatus FsyncWithDirOptions(const IOOptions& o, IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& d) override {
    IOStatus s = fs_->Check(FaultFs::Op::kSync, path_);
    if (!s.ok()) return s;
    s = FSDirectoryWrapper::FsyncWithDirOptions(o, dbg, d);
    if (s.ok()) fs_->DirSynced(path_);
    return s;
  }

 private:
  FaultFs* const fs_;
  const std::string path_;
};

}  // namespace

FaultFs::FaultFs(std::shared_ptr<rocksdb::FileSystem> base) : FileSystemWrapper(std::move(base)) {}

void FaultFs::FailAt(Op op, uint64_t nth, IOStatus error, bool sticky, std::string path_part) {
  std::lock_guard lock(mu_);
  Rule r{op, std::move(path_part), std::move(error)};
  r.remaining = nth;
  r.sticky = sticky;
  rules_.push_back(std::move(r));
}

void FaultFs::FailWithProbability(Op op, double p, IOStatus error, uint64_t seed,
                                  std::string path_part) {
  std::lock_guard lock(mu_);
  Rule r{op, std::move(path_part), std::move(error)};
  r.probability = p;
  rules_.push_back(std::move(r));
  rng_.seed(seed);
}

void FaultFs::ClearFaults() {
  std::lock_guard lock(mu_);
  rules_.clear();
  sync_delay_ = std::chrono::milliseconds(0);
}

void FaultFs::DelaySyncs(std::chrono::milliseconds delay, std::string path_part) {
  std::lock_guard lock(mu_);
  sync_delay_ = delay;
  sync_delay_path_ = std::move(path_part);
}

void FaultFs::WaitBeforeSync(const std::string& path) {
  std::chrono::milliseconds delay{0};
  {
    std::lock_guard lock(mu_);
    if (path.find(sync_delay_path_) != std::string::npos) delay = sync_delay_;
  }
  if (delay.count() > 0) std::this_thread::sleep_for(delay);
}

IOStatus FaultFs::Check(Op op, const std::string& path) {
  std::lock_guard lock(mu_);
  if (!powered_ && op != Op::kRead) {
    ++injected_;
    return IOStatus::IOError("FaultFs: the power is off");
  }
  for (Rule& r : rules_) {
    if (r.op != op || (!r.path_part.empty() && path.find(r.path_part) == std::string::npos)) {
      continue;
    }
    bool fail = false;
    if (r.probability > 0) {
      fail = std::uniform_real_distribution<double>(0, 1)(rng_) < r.probability;
    } else if (r.fired) {
      fail = r.sticky;
    } else if (--r.remaining == 0) {
      fail = r.fired = true;
    }
    if (fail) {
      ++injected_;
      IOStatus s = r.error;
      s.SetRetryable(false);
      return s;
    }
  }
  return IOStatus::OK();
}

bool FaultFs::Exists(const std::string& path) {
  return target()->FileExists(path, IOOptions(), nullptr).ok();
}

void FaultFs::Track(const std::string& path, bool keep_durable_entry) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  // A file that was there before this FaultFs saw it is durable; a new one
  // is not until its directory is synced.
  bool durable = keep_durable_entry && (it == files_.end() || it->second.entry_durable);
  files_[path] = FileState{0, durable};
}

// A sync that passed Check() before the cut and returned OK completed: it
// counts even if the cut came while it ran (the caller was told it did).
void FaultFs::Synced(const std::string& path, uint64_t size) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it != files_.end()) it->second.synced = std::max(it->second.synced, size);
}

void FaultFs::DirSynced(const std::string& dir) {
  std::lock_guard lock(mu_);
  for (auto& [path, state] : files_) {
    if (Parent(path) == dir) state.entry_durable = true;
  }
}

void FaultFs::CutPower() {
  std::lock_guard lock(mu_);
  powered_ = false;
}

IOStatus FaultFs::DropUnsynced(std::mt19937_64* rng) {
  return Drop([rng](const std::string& /*path*/, const FileState& state, uint64_t size) {
    bool entry = state.entry_durable || (rng != nullptr && (*rng)() % 2 == 0);
    uint64_t kept = std::min(state.synced, size);
    if (rng != nullptr && size > kept) kept += (*rng)() % (size - kept + 1);
    return std::make_pair(entry, kept);
  });
}

IOStatus FaultFs::DropUnsyncedKeepingWhole(const std::string& whole) {
  const std::string keep_whole = Normalize(whole);
  return Drop([&](const std::string& path, const FileState& state, uint64_t size) {
    if (path == keep_whole) return std::make_pair(true, size);
    return std::make_pair(state.entry_durable, std::min(state.synced, size));
  });
}

IOStatus FaultFs::Drop(const std::function<std::pair<bool, uint64_t>(
                           const std::string& path, const FileState& state, uint64_t size)>& keep) {
  std::lock_guard lock(mu_);
  for (const auto& [path, state] : files_) {
    if (!Exists(path)) continue;
    uint64_t size = 0;
    IOStatus s = target()->GetFileSize(path, IOOptions(), &size, nullptr);
    if (!s.ok()) return s;
    const auto [entry, kept] = keep(path, state, size);
    if (!entry) {
      s = target()->DeleteFile(path, IOOptions(), nullptr);
      if (!s.ok()) return s;
      continue;
    }
    if (kept < size) {
      std::error_code ec;
      std::filesystem::resize_file(path, kept, ec);
      if (ec) return IOStatus::IOError("FaultFs: truncating " + path + ": " + ec.message());
    }
  }
  files_.clear();
  powered_ = true;
  return IOStatus::OK();
}

IOStatus FaultFs::NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                  std::unique_ptr<rocksdb::FSWritableFile>* r,
                                  IODebugContext* dbg) {
  IOStatus s = Check(Op::kAppend, f);
  if (!s.ok()) return s;
  const std::string path = Normalize(f);
  const bool existed = Exists(path);
  s = target()->NewWritableFile(f, o, r, dbg);
  if (!s.ok()) return s;
  Track(path, existed);
  *r = std::make_unique<TrackedFile>(this, path, 0, std::move(*r));
  return s;
}

IOStatus FaultFs::ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                     std::unique_ptr<rocksdb::FSWritableFile>* r,
                                     IODebugContext* dbg) {
  IOStatus s = Check(Op::kAppend, f);
  if (!s.ok()) return s;
  const std::string path = Normalize(f);
  const bool existed = Exists(path);
  uint64_t size = 0;
  if (existed) {
    s = target()->GetFileSize(path, IOOptions(), &size, dbg);
    if (!s.ok()) return s;
  }
  s = target()->ReopenWritableFile(f, o, r, dbg);
  if (!s.ok()) return s;
  {
    std::lock_guard lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) files_[path] = FileState{size, existed};  // all of it was durable
  }
  *r = std::make_unique<TrackedFile>(this, path, size, std::move(*r));
  return s;
}

IOStatus FaultFs::NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                      IODebugContext* dbg) {
  IOStatus s = target()->NewRandomAccessFile(f, o, r, dbg);
  if (s.ok()) *r = std::make_unique<ReadFile>(this, Normalize(f), std::move(*r));
  return s;
}

IOStatus FaultFs::NewSequentialFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                    IODebugContext* dbg) {
  IOStatus s = target()->NewSequentialFile(f, o, r, dbg);
  if (s.ok()) *r = std::make_unique<SequentialFile>(this, Normalize(f), std::move(*r));
  return s;
}

IOStatus FaultFs::NewDirectory(const std::string& name, const IOOptions& o,
                               std::unique_ptr<rocksdb::FSDirectory>* r, IODebugContext* dbg) {
  IOStatus s = target()->NewDirectory(name, o, r, dbg);
  if (s.ok()) *r = std::make_unique<Directory>(this, Normalize(name), std::move(*r));
  return s;
}

IOStatus FaultFs::RenameFile(const std::string& src, const std::string& dst, const IOOptions& o,
                             IODebugContext* dbg) {
  IOStatus s = Check(Op::kAppend, dst);
  if (!s.ok()) return s;
  const std::string from = Normalize(src), to = Normalize(dst);
  const bool replaced = Exists(to);
  s = target()->RenameFile(src, dst, o, dbg);
  if (!s.ok()) return s;
  std::lock_guard lock(mu_);
  auto it = files_.find(from);
  auto old = files_.find(to);
  // The target name was durable if it existed durably (rename is atomic).
  const bool to_durable = replaced && (old == files_.end() || old->second.entry_durable);
  if (it == files_.end()) {
    files_.erase(to);  // an untracked file: durable as it is
    return s;
  }
  FileState moved = it->second;
  files_.erase(it);
  moved.entry_durable = moved.entry_durable || to_durable;
  files_[to] = moved;
  return s;
}

IOStatus FaultFs::LinkFile(const std::string& src, const std::string& dst, const IOOptions& o,
                           IODebugContext* dbg) {
  IOStatus s = Check(Op::kAppend, dst);
  if (!s.ok()) return s;
  s = target()->LinkFile(src, dst, o, dbg);
  if (!s.ok()) return s;
  uint64_t size = 0;
  s = target()->GetFileSize(dst, IOOptions(), &size, dbg);
  if (!s.ok()) return s;
  std::lock_guard lock(mu_);
  auto it = files_.find(Normalize(src));
  // The link shares the source's data (durable as far as the source's is)
  // and is a new entry of its directory.
  files_[Normalize(dst)] = FileState{it == files_.end() ? size : it->second.synced, false};
  return s;
}

IOStatus FaultFs::DeleteFile(const std::string& f, const IOOptions& o, IODebugContext* dbg) {
  IOStatus s = Check(Op::kAppend, f);
  if (!s.ok()) return s;
  s = target()->DeleteFile(f, o, dbg);
  if (s.ok()) {
    std::lock_guard lock(mu_);
    files_.erase(Normalize(f));
  }
  return s;
}

}  // namespace dynarock::testing
