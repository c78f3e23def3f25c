#include "engine/streams/records.h"

#include <flatbuffers/flatbuffers.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <ctime>

#include "format/item_codec.h"
#include "format/item_size.h"
#include "format/json.h"
#include "format/key_codec.h"
#include "schemas/stream_generated.h"

namespace dynarock::streams {

// ---- Sequence numbers -------------------------------------------------------

std::string SequenceString(uint64_t sequence) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "1%020llu", static_cast<unsigned long long>(sequence));
  return buf;
}

std::optional<uint64_t> ParseSequence(std::string_view text) {
  if (text.size() != 21 || text[0] != '1') return std::nullopt;
  uint64_t v = 0;
  for (char c : text.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

void Sequencer::Reset(uint64_t last) {
  std::lock_guard lock(mu_);
  last_ = last;
  in_flight_.clear();
}

uint64_t Sequencer::Assign(int64_t now_ms, uint64_t n) {
  std::lock_guard lock(mu_);
  const uint64_t first = std::max(last_ + 1, FirstSequenceAt(now_ms));
  last_ = first + n - 1;
  in_flight_.emplace(first, n);
  return first;
}

void Sequencer::Release(uint64_t first) {
  std::lock_guard lock(mu_);
  in_flight_.erase(first);
}

uint64_t Sequencer::Visible() const {
  std::lock_guard lock(mu_);
  return in_flight_.empty() ? last_ : in_flight_.begin()->first - 1;
}

uint64_t Sequencer::Last() const {
  std::lock_guard lock(mu_);
  return last_;
}

// ---- Records ------------------------------------------------------------------

std::string RecordKey(uint32_t stream_id, uint64_t sequence) {
  std::string key;
  key.reserve(kRecordKeyBytes);
  format::PutFixed32BE(&key, stream_id);
  format::PutFixed64BE(&key, sequence);
  return key;
}

uint32_t RecordStream(std::string_view key) {
  uint32_t id = 0;
  format::GetFixed32BE(&key, &id);
  return id;
}

uint64_t RecordSequence(std::string_view key) {
  key.remove_prefix(4);
  uint64_t seq = 0;
  format::GetFixed64BE(&key, &seq);
  return seq;
}

static_assert(
    static_cast<int>(fb::EventName::Insert) == static_cast<int>(StreamEventName::kInsert) &&
    static_cast<int>(fb::EventName::Modify) == static_cast<int>(StreamEventName::kModify) &&
    static_cast<int>(fb::EventName::Remove) == static_cast<int>(StreamEventName::kRemove));

std::string EncodeRecord(StreamEventName event, bool ttl_deletion, const Item& keys,
                         const Item* old_image, const Item* new_image) {
  flatbuffers::FlatBufferBuilder b(256);
  auto bytes = [&](const Item& item) {
    const std::string encoded = format::EncodeItem(item);
    return b.CreateVector(reinterpret_cast<const uint8_t*>(encoded.data()), encoded.size());
  };
  auto k = bytes(keys);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> o, n;
  if (old_image) o = bytes(*old_image);
  if (new_image) n = bytes(*new_image);
  fb::StreamRecordBuilder r(b);
  r.add_event(static_cast<fb::EventName>(event));
  r.add_ttl_deletion(ttl_deletion);
  r.add_keys(k);
  if (old_image) r.add_old_image(o);
  if (new_image) r.add_new_image(n);
  b.Finish(r.Finish(), fb::StreamRecordIdentifier());
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

namespace {

// 32 hex digits, unique per (stream, sequence).
std::string EventId(uint32_t stream_id, uint64_t sequence) {
  const std::string key = RecordKey(stream_id, sequence);
  const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

// A nested item (either item encoding: records written before storage
// format 10 hold version 1), verified; adds its size to *size.
Result<Item> NestedItem(const flatbuffers::Vector<uint8_t>* v, int64_t* size) {
  DYNAROCK_ASSIGN_OR_RETURN(
      Item item, format::DecodeItem(std::string_view(reinterpret_cast<const char*>(v->data()),
                                                     v->size())));
  *size += static_cast<int64_t>(format::ItemSize(item));
  return item;
}

}  // namespace

Result<StreamRecord> DecodeRecord(uint32_t stream_id, uint64_t sequence, std::string_view bytes,
                                  StreamViewType view) {
  const std::string aligned(bytes);
  const auto* data = reinterpret_cast<const uint8_t*>(aligned.data());
  flatbuffers::Verifier verifier(data, aligned.size());
  if (!fb::VerifyStreamRecordBuffer(verifier)) {
    return Status::Corruption("streams: invalid stream record");
  }
  const fb::StreamRecord* r = fb::GetStreamRecord(data);
  if (static_cast<int>(r->event()) > 2) return Status::Corruption("streams: bad event name");
  StreamRecord out;
  out.event_id = EventId(stream_id, sequence);
  out.event_name = static_cast<StreamEventName>(r->event());
  out.time_to_live_deletion = r->ttl_deletion();
  out.approximate_creation_date_time = static_cast<double>(SequenceTimeMs(sequence) / 1000);
  int64_t size = 0;
  DYNAROCK_ASSIGN_OR_RETURN(out.keys, NestedItem(r->keys(), &size));
  if (r->new_image()) {
    DYNAROCK_ASSIGN_OR_RETURN(out.new_image, NestedItem(r->new_image(), &size));
  }
  if (r->old_image()) {
    DYNAROCK_ASSIGN_OR_RETURN(out.old_image, NestedItem(r->old_image(), &size));
  }
  out.sequence_number = SequenceString(sequence);
  out.size_bytes = size;
  out.stream_view_type = view;
  return out;
}

std::optional<StreamEventName> EventOf(const std::optional<Item>& before, const Item* after) {
  if (after == nullptr) {
    if (!before) return std::nullopt;
    return StreamEventName::kRemove;
  }
  if (!before) return StreamEventName::kInsert;
  if (*before == *after) return std::nullopt;
  return StreamEventName::kModify;
}

// ---- Retention -------------------------------------------------------------------

rocksdb::CompactionFilter::Decision RetentionFilter::FilterV2(
    int /*level*/, const rocksdb::Slice& key, ValueType value_type,
    const rocksdb::Slice& /*existing_value*/, std::string* /*new_value*/,
    std::string* /*skip_until*/) const {
  if (value_type != ValueType::kValue || key.size() != kRecordKeyBytes) return Decision::kKeep;
  const uint64_t seq = RecordSequence(std::string_view(key.data(), key.size()));
  return SequenceTimeMs(seq) < now_ms_() - retention_ms_ ? Decision::kRemove : Decision::kKeep;
}

// ---- Shard iterators ----------------------------------------------------------------

namespace {

// Version 1 carried an unkeyed XXH3 checksum, which anyone could compute:
// such iterators are refused (they were valid for 15 minutes anyway).
constexpr uint8_t kIteratorVersion = 2;
constexpr std::string_view kIteratorSeparator = "|1|";
constexpr size_t kIteratorFields = 1 + 4 + 8 + 8 + 1 + 8;
constexpr size_t kIteratorMacBytes = 32;  // SHA-256
constexpr size_t kIteratorBody = kIteratorFields + kIteratorMacBytes;

using IteratorMac = std::array<unsigned char, kIteratorMacBytes>;

// HMAC-SHA256 of ARN | "|1|" | fields. The fields have a fixed size and
// come last, so no two (ARN, fields) pairs sign the same bytes. nullopt if
// OpenSSL fails (then nothing decodes: a zeroed MAC must never match).
std::optional<IteratorMac> SignIterator(std::string_view stream_arn, std::string_view fields,
                                        const IteratorSecret& secret) {
  std::string signed_bytes;
  signed_bytes.reserve(stream_arn.size() + kIteratorSeparator.size() + fields.size());
  signed_bytes.append(stream_arn).append(kIteratorSeparator).append(fields);
  IteratorMac mac{};
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
           reinterpret_cast<const unsigned char*>(signed_bytes.data()), signed_bytes.size(),
           mac.data(), &len) == nullptr ||
      len != mac.size()) {
    return std::nullopt;
  }
  return mac;
}

}  // namespace

Result<IteratorSecret> NewIteratorSecret() {
  IteratorSecret secret{};
  if (RAND_bytes(secret.data(), static_cast<int>(secret.size())) != 1) {
    return Status::Internal("streams: the system's random generator failed (OpenSSL RAND_bytes)");
  }
  return secret;
}

std::string EncodeIterator(std::string_view stream_arn, const IteratorState& s,
                           const IteratorSecret& secret) {
  std::string body;
  body.reserve(kIteratorBody);
  body.push_back(static_cast<char>(kIteratorVersion));
  format::PutFixed32BE(&body, s.stream_id);
  format::PutFixed64BE(&body, s.shard_start);
  format::PutFixed64BE(&body, s.position);
  body.push_back(s.horizon ? 1 : 0);
  format::PutFixed64BE(&body, static_cast<uint64_t>(s.issued_ms));
  // Without a MAC (OpenSSL failed) the iterator is written with zeros,
  // which DecodeIterator refuses.
  const IteratorMac mac = SignIterator(stream_arn, body, secret).value_or(IteratorMac{});
  body.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  std::string text(stream_arn);
  text.append(kIteratorSeparator).append(format::Base64Encode(body));
  return text;
}

std::optional<DecodedIterator> DecodeIterator(std::string_view text, const IteratorSecret& secret) {
  // The base64 holds no '|': the last one ends the separator.
  const size_t bar = text.rfind('|');
  if (bar == std::string_view::npos || bar + 1 < kIteratorSeparator.size() ||
      text.substr(bar + 1 - kIteratorSeparator.size(), kIteratorSeparator.size()) !=
          kIteratorSeparator) {
    return std::nullopt;
  }
  const std::string_view arn = text.substr(0, bar + 1 - kIteratorSeparator.size());
  const std::string_view encoded = text.substr(bar + 1);
  auto decoded = format::Base64Decode(encoded);
  if (!decoded.ok() || decoded->size() != kIteratorBody) return std::nullopt;
  // The decoder ignores the unused low bits of the last character: only the
  // encoder's own spelling is accepted, so that one iterator has one text.
  if (format::Base64Encode(*decoded) != encoded) return std::nullopt;
  const std::string_view body = *decoded;
  const std::string_view fields = body.substr(0, kIteratorFields);
  const std::optional<IteratorMac> mac = SignIterator(arn, fields, secret);
  if (!mac || CRYPTO_memcmp(mac->data(), body.data() + kIteratorFields, mac->size()) != 0) {
    return std::nullopt;
  }
  // Signed by this database, so EncodeIterator's bytes; the version and the
  // horizon byte are checked all the same, so that a later layout signed
  // with the same key is never read as this one.
  std::string_view in = fields;
  if (static_cast<uint8_t>(in[0]) != kIteratorVersion) return std::nullopt;
  in.remove_prefix(1);
  DecodedIterator out;
  out.stream_arn = arn;
  IteratorState& s = out.state;
  uint64_t issued = 0;
  format::GetFixed32BE(&in, &s.stream_id);
  format::GetFixed64BE(&in, &s.shard_start);
  format::GetFixed64BE(&in, &s.position);
  if (in[0] != 0 && in[0] != 1) return std::nullopt;
  s.horizon = in[0] == 1;
  in.remove_prefix(1);
  format::GetFixed64BE(&in, &issued);
  s.issued_ms = static_cast<int64_t>(issued);
  return out;
}

std::string ShardId(uint32_t stream_id, uint64_t start) {
  std::string key = RecordKey(stream_id, start);
  char buf[64];
  std::snprintf(buf, sizeof buf, "shardId-%020lld-%08x",
                static_cast<long long>(SequenceTimeMs(start)),
                static_cast<unsigned>(XXH32(key.data(), key.size(), 0)));
  return buf;
}

std::string StreamLabel(int64_t time_ms) {
  const std::time_t secs = static_cast<std::time_t>(time_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];  // room for any int fields, as gcc's format check wants
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(time_ms % 1000));
  return buf;
}

}  // namespace dynarock::streams
