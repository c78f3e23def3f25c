#include "engine/tokens.h"

#include <xxhash.h>

namespace dynarock::tokens {
namespace {

void PutFixed64LE(std::string* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetFixed64LE(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

Digest DigestOf(std::string_view canonical_request) {
  XXH128_hash_t h = XXH3_128bits(canonical_request.data(), canonical_request.size());
  return {h.low64, h.high64};
}

std::string EncodeRecord(const Record& r) {
  std::string out;
  out.reserve(24);
  PutFixed64LE(&out, static_cast<uint64_t>(r.expires_ms));
  PutFixed64LE(&out, r.digest.low);
  PutFixed64LE(&out, r.digest.high);
  return out;
}

std::optional<Record> DecodeRecord(std::string_view bytes) {
  if (bytes.size() != 24) return std::nullopt;
  Record r;
  r.expires_ms = static_cast<int64_t>(GetFixed64LE(bytes.data()));
  r.digest.low = GetFixed64LE(bytes.data() + 8);
  r.digest.high = GetFixed64LE(bytes.data() + 16);
  return r;
}

bool ExpiryFilter::Filter(int /*level*/, const rocksdb::Slice& /*key*/, const rocksdb::Slice& value,
                          std::string* /*new_value*/, bool* /*value_changed*/) const {
  auto record = DecodeRecord(std::string_view(value.data(), value.size()));
  return !record || record->expires_ms <= now_ms_();
}

}  // namespace dynarock::tokens
