// DynamoDB Streams storage (format/STORAGE_LAYOUT.md, "streams"): how stream
// records are keyed, numbered, encoded and trimmed, and what a shard
// iterator holds. The operations are in engine/streams/streams.cc; records
// are written by the write pipeline (engine/write/pipeline.cc), in the same
// WriteBatch as the item change they describe.
#ifndef DYNAROCK_ENGINE_STREAMS_RECORDS_H_
#define DYNAROCK_ENGINE_STREAMS_RECORDS_H_

#include <rocksdb/compaction_filter.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "dynarock/types.h"

namespace dynarock::streams {

// ---- Sequence numbers -------------------------------------------------------
//
// One counter per database, shared by every stream: (milliseconds since the
// epoch) << 20, plus one per record within a millisecond, and never less than
// the last one plus one. So numbers strictly increase, and each carries the
// time it was issued: retention needs no other state (a number is trimmed
// when its time is past retention), and neither does
// ApproximateCreationDateTime.
inline constexpr int kSequenceTimeShift = 20;
inline int64_t SequenceTimeMs(uint64_t sequence) {
  return static_cast<int64_t>(sequence >> kSequenceTimeShift);
}
inline uint64_t FirstSequenceAt(int64_t time_ms) {
  return static_cast<uint64_t>(time_ms) << kSequenceTimeShift;
}
// DynamoDB's shape: a decimal string (21 digits: "1" then the number
// zero-padded to 20), numerically ordered.
std::string SequenceString(uint64_t sequence);
// The number a SequenceString() names, or nullopt for any other string.
std::optional<uint64_t> ParseSequence(std::string_view text);

// Hands out sequence numbers to writers and tells readers how far every
// number is committed. A writer takes numbers (Assign) before its WriteBatch
// and returns them (Release) after it, committed or not; numbers are taken
// in order, but batches may commit out of order, so a reader only reads up
// to Visible(): below the oldest batch still in flight, where no record can
// appear any more. Thread-safe.
class Sequencer {
 public:
  // REQUIRES: no number is in flight. The next number is above `last`.
  void Reset(uint64_t last);
  // Takes `n` consecutive numbers (n >= 1) and returns the first.
  uint64_t Assign(int64_t now_ms, uint64_t n);
  void Release(uint64_t first);
  // Every number <= Visible() is either committed or never will be.
  uint64_t Visible() const;
  uint64_t Last() const;

 private:
  mutable std::mutex mu_;
  uint64_t last_ = 0;
  std::map<uint64_t, uint64_t> in_flight_;  // first -> count
};

// ---- Records ------------------------------------------------------------------

// Key of a record in the streams column family: stream id | sequence (BE).
std::string RecordKey(uint32_t stream_id, uint64_t sequence);
inline constexpr size_t kRecordKeyBytes = 12;
// REQUIRES: key.size() == kRecordKeyBytes.
uint32_t RecordStream(std::string_view key);
uint64_t RecordSequence(std::string_view key);

// A record as stored; images per the stream's view type (KeysOnly stores
// none). `old_image`/`new_image` may be null.
std::string EncodeRecord(StreamEventName event, bool ttl_deletion, const Item& keys,
                         const Item* old_image, const Item* new_image);
// Decodes a stored record into GetRecords' shape. Corruption if the bytes
// are not a record.
Result<StreamRecord> DecodeRecord(uint32_t stream_id, uint64_t sequence, std::string_view bytes,
                                  StreamViewType view);

// What a write to a streamed table records: INSERT / MODIFY / REMOVE, or
// nothing when the item did not change (DynamoDB writes no record then).
std::optional<StreamEventName> EventOf(const std::optional<Item>& before, const Item* after);

// ---- Retention -------------------------------------------------------------------

// Drops records whose sequence number is older than the retention period,
// whenever RocksDB compacts them (compaction_filter.h: stateless, so one
// filter serves every compaction, on any thread). `now_ms` is the
// database's clock.
class RetentionFilter : public rocksdb::CompactionFilter {
 public:
  RetentionFilter(std::function<int64_t()> now_ms, int64_t retention_ms)
      : now_ms_(std::move(now_ms)), retention_ms_(retention_ms) {}
  Decision FilterV2(int level, const rocksdb::Slice& key, ValueType value_type,
                    const rocksdb::Slice& existing_value, std::string* new_value,
                    std::string* skip_until) const override;
  const char* Name() const override { return "dynarock.StreamRetention"; }

 private:
  const std::function<int64_t()> now_ms_;
  const int64_t retention_ms_;
};

// ---- Shard iterators ----------------------------------------------------------------

// What a shard iterator stands for: the next record to read is the first
// with sequence >= `position` in the shard [shard_start, shard_end] of the
// stream. `horizon`: a TRIM_HORIZON iterator not yet used, which follows the
// trim point instead of failing when its position is trimmed.
struct IteratorState {
  uint32_t stream_id = 0;
  uint64_t shard_start = 0;
  uint64_t position = 0;
  bool horizon = false;
  int64_t issued_ms = 0;
};

// The key that signs a database's shard iterators: 32 random bytes made
// when the database is created (or upgraded to storage format 9), kept in
// the catalog (kCatalogIteratorSecretKey) and never changed. Clients hold
// iterators, so the signature is what stops one from making up an
// iterator: another stream's, another position, a later issue time.
inline constexpr size_t kIteratorSecretBytes = 32;
using IteratorSecret = std::array<uint8_t, kIteratorSecretBytes>;
// A fresh secret from OpenSSL's CSPRNG; Internal if it has no entropy.
Result<IteratorSecret> NewIteratorSecret();

// "<stream ARN>|1|<base64 of 62 bytes>", as AWS's look; ≤ 2048 characters
// for any ARN DynamoDB allows. The 62 bytes: version (2), stream id (4),
// shard start (8), position (8), horizon (1: 0 or 1), issue time (8: ms,
// two's complement), then HMAC-SHA256 under `secret` of the ARN, "|1|" and
// those 30 bytes (every integer big-endian). So the ARN and every field
// are signed.
std::string EncodeIterator(std::string_view stream_arn, const IteratorState& state,
                           const IteratorSecret& secret);
// An iterator as DecodeIterator found it: the ARN it names (a view into
// the decoded text) and what it stands for.
struct DecodedIterator {
  std::string_view stream_arn;
  IteratorState state;
};
// nullopt unless `text` is exactly what EncodeIterator made under `secret`
// (bad shape, non-canonical base64, another version, or a signature that
// differs, compared in constant time). The caller still checks that the
// ARN names the stream and that the issue time is neither past the
// iterator's lifetime nor in the future.
std::optional<DecodedIterator> DecodeIterator(std::string_view text, const IteratorSecret& secret);

// shardId-<20 digits: the shard's start time in ms>-<8 hex digits>.
std::string ShardId(uint32_t stream_id, uint64_t start);
// The stream label for a creation time: ISO-8601 UTC with ms, no zone.
std::string StreamLabel(int64_t time_ms);

}  // namespace dynarock::streams

#endif  // DYNAROCK_ENGINE_STREAMS_RECORDS_H_
