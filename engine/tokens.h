// ClientRequestToken records (format/STORAGE_LAYOUT.md, "tokens"): what a
// committed TransactWriteItems leaves so that a retry with the same token,
// within DynamoDB's 10-minute window and across restarts, returns success
// without applying the transaction again.
//
// A record is written in the transaction's own WriteBatch, so it exists if
// and only if the transaction committed. It holds a 128-bit digest of the
// request, not the request: memory and disk per token stay fixed whatever
// the client sends, and nothing of it is kept in memory once the request
// ends. The expiry filter drops records past their window at compaction;
// readers ignore expired records that compaction has not reached yet.
#ifndef DYNAROCK_ENGINE_TOKENS_H_
#define DYNAROCK_ENGINE_TOKENS_H_

#include <rocksdb/compaction_filter.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace dynarock::tokens {

// DynamoDB's idempotency window for ClientRequestToken.
inline constexpr int64_t kLifetimeMs = int64_t{10} * 60 * 1000;

// A request's identity: XXH3-128 of its canonical rendering.
struct Digest {
  uint64_t low = 0, high = 0;
  bool operator==(const Digest&) const = default;
};
Digest DigestOf(std::string_view canonical_request);

struct Record {
  int64_t expires_ms = 0;
  Digest digest;
};
// 24 bytes: expiry (int64, little-endian), digest low, digest high (uint64,
// little-endian). The key is the token's bytes.
std::string EncodeRecord(const Record& r);
std::optional<Record> DecodeRecord(std::string_view bytes);

// The tokens column family's compaction filter: drops records whose expiry
// is past (and malformed ones).
class ExpiryFilter : public rocksdb::CompactionFilter {
 public:
  explicit ExpiryFilter(std::function<int64_t()> now_ms) : now_ms_(std::move(now_ms)) {}
  bool Filter(int level, const rocksdb::Slice& key, const rocksdb::Slice& value,
              std::string* new_value, bool* value_changed) const override;
  const char* Name() const override { return "dynarock.TokenExpiry"; }

 private:
  std::function<int64_t()> now_ms_;
};

}  // namespace dynarock::tokens

#endif  // DYNAROCK_ENGINE_TOKENS_H_
