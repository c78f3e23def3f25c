#include "engine/bulk/external_sort.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <queue>

#include <zstd.h>

#include "format/key_codec.h"

namespace dynarock::bulk {
namespace {

// Run file records, in key order (equal keys: highest seq first):
// key size, value size (uint32 big-endian), seq (uint64 big-endian), key, value.
constexpr size_t kHeaderBytes = 16;

// A run file is a sequence of chunks, each about a megabyte of records
// (a record is never split, so a chunk may be larger), compressed alone:
//   raw size, compressed size (uint32 big-endian), zstd frame (with its
//   checksum: a damaged run is an error, not wrong records).
// Compressed as Spark compresses its spills: a restore's runs are as large
// as its input, and a 1M-item fleet restore wrote and read back 460 MB of
// them; at zstd's level 1 they are a fraction of that, at ~0.8 GB/s.
constexpr size_t kChunkBytes = 1 << 20;
constexpr size_t kChunkHeaderBytes = 8;
// A chunk holds records up to a megabyte and then the one that crosses it:
// a record of a gigabyte (nothing a restore writes comes near: an item is at
// most 400 KB) is refused on the way in, and a header claiming more is
// damage, not a reason to allocate it.
constexpr size_t kMaxChunkBytes = size_t{1} << 30;
constexpr int kRunCompressionLevel = 1;

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};
using File = std::unique_ptr<FILE, FileCloser>;

Status IoError(const std::string& path, const char* what) {
  return Status::IOError(path + ": " + what + ": " + std::strerror(errno));
}

// One sorted input of the merge: a run file, or the buffer still in memory.
class Source {
 public:
  virtual ~Source() = default;
  // False at the end; status() tells an error from the end.
  virtual bool Next() = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual uint64_t seq() const = 0;
  virtual const Status& status() const = 0;
};

// Reads a run a chunk at a time; a record is a view into the buffer, valid
// until the next Next (three freads per record, into strings resized and
// zeroed each time, cost a restore's merge a tenth of its time).
class RunReader final : public Source {
 public:
  RunReader(std::string path, size_t records) : path_(std::move(path)), records_(records) {}
  Status Open() {
    file_.reset(std::fopen(path_.c_str(), "rb"));
    if (!file_) return IoError(path_, "cannot open a sort run");
    if (!context_) return Status::Internal("cannot allocate a zstd context");
    std::error_code ec;
    left_ = std::filesystem::file_size(path_, ec);
    if (ec) return Status::IOError(path_ + ": cannot size a sort run: " + ec.message());
    buffer_.resize(2 * kChunkBytes);
    return Status::OK();
  }
  bool Next() override {
    pos_ += current_;  // the previous record is consumed
    current_ = 0;
    if (!Fill(kHeaderBytes)) {
      // The end, between chunks, after every record written.
      if (end_ == pos_ && status_.ok() && read_ == records_) return false;
      return Fail();
    }
    std::string_view in(buffer_.data() + pos_, kHeaderBytes);
    uint32_t k = 0, v = 0;
    format::GetFixed32BE(&in, &k);
    format::GetFixed32BE(&in, &v);
    format::GetFixed64BE(&in, &seq_);
    const size_t size = kHeaderBytes + size_t{k} + v;
    if (!Fill(size)) return Fail();
    key_ = {buffer_.data() + pos_ + kHeaderBytes, k};
    value_ = {buffer_.data() + pos_ + kHeaderBytes + k, v};
    current_ = size;
    ++read_;
    return true;
  }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  uint64_t seq() const override { return seq_; }
  const Status& status() const override { return status_; }

 private:
  // Makes `n` bytes available at pos_, decompressing more chunks of the
  // file as needed. False if the file ends first, a read fails or a chunk
  // is damaged (status_ says which).
  bool Fill(size_t n) {
    while (end_ - pos_ < n) {
      char header[kChunkHeaderBytes];
      const size_t got = std::fread(header, 1, sizeof header, file_.get());
      if (got != sizeof header) {
        if (std::ferror(file_.get())) status_ = IoError(path_, "cannot read a sort run");
        if (got != 0) Fail();
        return false;  // the end (between chunks), or a truncated run
      }
      std::string_view in(header, sizeof header);
      uint32_t raw = 0, packed = 0;
      format::GetFixed32BE(&in, &raw);
      format::GetFixed32BE(&in, &packed);
      if (raw > kMaxChunkBytes || packed > ZSTD_compressBound(raw)) {
        status_ = Status::IOError(path_ + ": a sort run is damaged");
        return false;
      }
      if (packed > left_ - got) return Fail();  // the file ends inside the chunk
      left_ -= got + packed;
      compressed_.resize(packed);
      if (std::fread(compressed_.data(), 1, packed, file_.get()) != packed) {
        if (std::ferror(file_.get())) status_ = IoError(path_, "cannot read a sort run");
        return Fail();
      }
      // The unread bytes move to the front; the chunk goes after them.
      std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
      if (buffer_.size() < end_ + raw) buffer_.resize(std::max<size_t>(end_ + raw, 2 * buffer_.size()));
      const size_t out = ZSTD_decompressDCtx(context_.get(), buffer_.data() + end_, raw,
                                             compressed_.data(), packed);
      if (ZSTD_isError(out) || out != raw) {
        status_ = Status::IOError(path_ + ": a sort run is damaged");
        return false;
      }
      end_ += raw;
    }
    return true;
  }
  bool Fail() {
    if (status_.ok()) status_ = Status::IOError(path_ + ": a sort run is truncated");
    return false;
  }
  struct FreeContext {
    void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
  };
  std::string path_;
  const size_t records_;  // in the run, as written
  size_t read_ = 0;
  uintmax_t left_ = 0;  // bytes of the file not yet read
  File file_;
  std::unique_ptr<ZSTD_DCtx, FreeContext> context_{ZSTD_createDCtx()};
  std::string compressed_;  // the chunk being read
  std::string buffer_;
  size_t pos_ = 0, end_ = 0;  // the unread bytes are buffer_[pos_, end_)
  size_t current_ = 0;        // the current record's size, from pos_
  std::string_view key_, value_;
  uint64_t seq_ = 0;
  Status status_;
};

// The last buffer, sorted in memory: merged as it is instead of being
// written to a run and read back.
class BufferSource final : public Source {
 public:
  BufferSource(const std::string& arena, const std::vector<ExternalSorter::Entry>& entries)
      : arena_(arena), entries_(entries) {}
  bool Next() override { return ++next_ <= entries_.size(); }
  std::string_view key() const override {
    const auto& e = entries_[next_ - 1];
    return {arena_.data() + e.offset, e.key_size};
  }
  std::string_view value() const override {
    const auto& e = entries_[next_ - 1];
    return {arena_.data() + e.offset + e.key_size, e.value_size};
  }
  uint64_t seq() const override { return entries_[next_ - 1].seq; }
  const Status& status() const override { return status_; }

 private:
  const std::string& arena_;
  const std::vector<ExternalSorter::Entry>& entries_;
  size_t next_ = 0;  // 1-based position of the current record
  Status status_;
};

}  // namespace

ExternalSorter::ExternalSorter(std::string dir, size_t memory_budget_bytes)
    : dir_(std::move(dir)), budget_(std::max<size_t>(memory_budget_bytes, 1 << 16)) {}

ExternalSorter::~ExternalSorter() {
  for (const auto& run : runs_) std::remove(run.path.c_str());
}

uint64_t ExternalSorter::PrefixOf(std::string_view key) {
  uint64_t prefix = 0;
  for (size_t i = 0; i < 8; ++i) {
    prefix = prefix << 8 | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0);
  }
  return prefix;
}

void ExternalSorter::Batch::Add(std::string_view key, uint64_t seq, std::string_view value) {
  entries_.push_back({PrefixOf(key), arena_.size(), static_cast<uint32_t>(key.size()),
                      static_cast<uint32_t>(value.size()), seq});
  arena_.append(key);
  arena_.append(value);
}

void ExternalSorter::Reserve() {
  if (arena_.empty() && arena_.capacity() < budget_ / 2) {
    // A buffer is allocated once, at its full size: growing it by doubling
    // would copy it and fault in fresh pages again and again. Reserved
    // pages that are never written cost no memory.
    arena_.reserve(budget_ / 2 + (1 << 16));
    entries_.reserve(budget_ / 2 / (sizeof(Entry) + 256));
  }
}

Status ExternalSorter::Add(std::string_view key, uint64_t seq, std::string_view value) {
  std::unique_lock lock(mu_);
  Reserve();
  entries_.push_back({PrefixOf(key), arena_.size(), static_cast<uint32_t>(key.size()),
                      static_cast<uint32_t>(value.size()), seq});
  arena_.append(key);
  arena_.append(value);
  ++records_;
  return MaybeSpill(lock);
}

Status ExternalSorter::AddBatch(Batch* batch) {
  std::unique_lock lock(mu_);
  Reserve();
  const uint64_t base = arena_.size();
  for (Entry e : batch->entries_) {
    e.offset += base;
    entries_.push_back(e);
  }
  arena_.append(batch->arena_);
  records_ += static_cast<int64_t>(batch->entries_.size());
  batch->entries_.clear();
  batch->arena_.clear();
  return MaybeSpill(lock);
}

Status ExternalSorter::MaybeSpill(std::unique_lock<std::mutex>& lock) {
  // Half the budget per buffer: a full one is sorted and written outside
  // the lock while the other fills.
  if (arena_.size() + entries_.size() * sizeof(Entry) < budget_ / 2) return Status::OK();
  // At most one buffer being spilled and one filling: the budget holds.
  spilled_.wait(lock, [this] { return spilling_ == 0; });
  // Another thread may have spilled it meanwhile.
  if (arena_.size() + entries_.size() * sizeof(Entry) < budget_ / 2) return Status::OK();
  std::string arena;
  std::vector<Entry> entries;
  arena.swap(arena_);
  entries.swap(entries_);
  arena_.swap(spare_arena_);  // fill the other buffer meanwhile
  entries_.swap(spare_entries_);
  const std::string path = dir_ + "/run-" + std::to_string(runs_.size());
  runs_.push_back({path, entries.size()});
  ++spilling_;
  lock.unlock();
  Status s = WriteRun(path, arena, &entries);
  arena.clear();
  entries.clear();
  lock.lock();
  spare_arena_.swap(arena);
  spare_entries_.swap(entries);
  --spilling_;
  spilled_.notify_all();
  return s;
}

void ExternalSorter::SortEntries(const std::string& arena, std::vector<Entry>* entries) {
  auto key = [&arena](const Entry& e) {
    return std::string_view(arena.data() + e.offset, e.key_size);
  };
  // Most pairs differ in their first 8 bytes (space id and hash): compared
  // as integers, without touching the arena. Equal prefixes fall back to
  // the bytes (a shorter key's zero padding then cannot mislead).
  std::sort(entries->begin(), entries->end(), [&key](const Entry& a, const Entry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    const int c = key(a).compare(key(b));
    return c != 0 ? c < 0 : a.seq > b.seq;
  });
}

Status ExternalSorter::WriteRun(const std::string& path, const std::string& arena,
                                std::vector<Entry>* entries) {
  SortEntries(arena, entries);
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) return IoError(path, "cannot create a sort run");
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!context ||
      ZSTD_isError(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel,
                                          kRunCompressionLevel)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_checksumFlag, 1))) {
    return Status::Internal("cannot set up a zstd context");
  }
  // Records are gathered into a chunk, which is compressed and written
  // whole: two fwrite calls per record (each taking the FILE's lock) were
  // an eighth of a restore's reading phase.
  std::string out, packed;
  out.reserve(kChunkBytes + (1 << 16));
  auto write = [&]() -> Status {
    if (out.empty()) return Status::OK();
    if (out.size() > kMaxChunkBytes) {
      return Status::InvalidArgument(path + ": a sort record over a gigabyte");
    }
    packed.resize(kChunkHeaderBytes + ZSTD_compressBound(out.size()));
    const size_t size = ZSTD_compress2(context.get(), packed.data() + kChunkHeaderBytes,
                                       packed.size() - kChunkHeaderBytes, out.data(), out.size());
    if (ZSTD_isError(size)) {
      return Status::Internal(path + ": cannot compress a sort run: " + ZSTD_getErrorName(size));
    }
    std::string header;
    format::PutFixed32BE(&header, static_cast<uint32_t>(out.size()));
    format::PutFixed32BE(&header, static_cast<uint32_t>(size));
    std::memcpy(packed.data(), header.data(), kChunkHeaderBytes);
    const size_t total = kChunkHeaderBytes + size;
    if (std::fwrite(packed.data(), 1, total, f.get()) != total) {
      return IoError(path, "cannot write a sort run");
    }
    out.clear();
    return Status::OK();
  };
  for (const Entry& e : *entries) {
    format::PutFixed32BE(&out, e.key_size);
    format::PutFixed32BE(&out, e.value_size);
    format::PutFixed64BE(&out, e.seq);
    out.append(arena.data() + e.offset, e.key_size + e.value_size);
    if (out.size() >= kChunkBytes) DYNAROCK_RETURN_IF_ERROR(write());
  }
  DYNAROCK_RETURN_IF_ERROR(write());
  if (std::fclose(f.release()) != 0) return IoError(path, "cannot close a sort run");
  return Status::OK();
}

Status ExternalSorter::Merge(const Output& out, const Output& dropped) {
  std::unique_lock lock(mu_);
  spilled_.wait(lock, [this] { return spilling_ == 0; });
  // The spare buffer's memory goes back for the merge's readers.
  std::string().swap(spare_arena_);
  std::vector<Entry>().swap(spare_entries_);
  if (runs_.empty()) {
    // Everything fit in memory: no file at all.
    SortEntries(arena_, &entries_);
    for (size_t i = 0; i < entries_.size(); ++i) {
      const Entry& e = entries_[i];
      const bool loser = i > 0 && KeyOf(entries_[i - 1]) == KeyOf(e);
      const Output& to = loser ? dropped : out;
      if (to) DYNAROCK_RETURN_IF_ERROR(to(KeyOf(e), e.seq, ValueOf(e)));
    }
    return Status::OK();
  }
  std::vector<std::unique_ptr<Source>> readers;
  for (const auto& run : runs_) {
    auto reader = std::make_unique<RunReader>(run.path, run.records);
    DYNAROCK_RETURN_IF_ERROR(reader->Open());
    readers.push_back(std::move(reader));
  }
  // The buffer being filled joins the merge from memory (sorting it again
  // on a second Merge is a no-op on sorted entries).
  SortEntries(arena_, &entries_);
  readers.push_back(std::make_unique<BufferSource>(arena_, entries_));
  // Min-heap on key, then highest seq: the first record of a key is its
  // winner, the rest of that key lose.
  auto lower_priority = [&](size_t a, size_t b) {
    const int c = readers[a]->key().compare(readers[b]->key());
    return c != 0 ? c > 0 : readers[a]->seq() < readers[b]->seq();
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(lower_priority)> heap(lower_priority);
  for (size_t i = 0; i < readers.size(); ++i) {
    if (readers[i]->Next()) {
      heap.push(i);
    } else {
      DYNAROCK_RETURN_IF_ERROR(readers[i]->status());
    }
  }
  std::string last;
  bool have_last = false;
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    Source& r = *readers[i];
    if (!have_last || r.key() != last) {
      DYNAROCK_RETURN_IF_ERROR(out(r.key(), r.seq(), r.value()));
      last = r.key();
      have_last = true;
    } else if (dropped) {
      DYNAROCK_RETURN_IF_ERROR(dropped(r.key(), r.seq(), r.value()));
    }
    if (r.Next()) {
      heap.push(i);
    } else {
      DYNAROCK_RETURN_IF_ERROR(r.status());
    }
  }
  return Status::OK();
}

}  // namespace dynarock::bulk
