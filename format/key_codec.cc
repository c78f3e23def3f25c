#include "format/key_codec.h"

#include <xxhash.h>

namespace dynarock::format {

using uint128 = Number::uint128;

namespace {

// Number class tags; see KEY_FORMAT.md. Do not change: written to disk.
constexpr uint8_t kNegLarge = 0x09;       // E >= 11: tag, ~E, ~mantissa
constexpr uint8_t kNegMediumBase = 0x14;  // 1 <= E <= 10: tag = 0x14 - E, ~mantissa
constexpr uint8_t kNegSmall = 0x14;       // E <= 0: tag, -E, ~mantissa
constexpr uint8_t kZero = 0x15;
constexpr uint8_t kPosSmall = 0x16;       // E <= 0: tag, ~(-E), mantissa
constexpr uint8_t kPosMediumBase = 0x16;  // 1 <= E <= 10: tag = 0x16 + E, mantissa
constexpr uint8_t kPosLarge = 0x21;       // E >= 11: tag, E, mantissa
constexpr int kMaxMantissaBytes = 20;     // 38 digits + 1 alignment digit, in pairs

// floor(a / 2) for any sign.
int FloorHalf(int a) { return a >= 0 ? a / 2 : -((-a + 1) / 2); }

Status Corrupt(const char* what) { return Status::Corruption(std::string("key codec: ") + what); }

}  // namespace

AttrType ToAttrType(KeyType t) {
  switch (t) {
    case KeyType::kS: return AttrType::kS;
    case KeyType::kN: return AttrType::kN;
    case KeyType::kB: return AttrType::kB;
  }
  return AttrType::kS;
}

void PutBytesPrefix(std::string* dst, std::string_view prefix) {
  // Runs without a zero byte are copied whole; each zero becomes 00 FF.
  while (!prefix.empty()) {
    const size_t zero = prefix.find('\0');
    if (zero == std::string_view::npos) {
      dst->append(prefix);
      return;
    }
    dst->append(prefix.data(), zero + 1);
    dst->push_back('\xff');
    prefix.remove_prefix(zero + 1);
  }
}

void PutBytesComponent(std::string* dst, std::string_view bytes) {
  PutBytesPrefix(dst, bytes);
  dst->push_back('\0');
  dst->push_back('\x01');
}

Status GetBytesComponent(std::string_view* in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in->size(); ++i) {
    char c = (*in)[i];
    if (c != '\0') {
      out->push_back(c);
      continue;
    }
    if (i + 1 == in->size()) return Corrupt("truncated escape in byte string");
    char next = (*in)[i + 1];
    if (next == '\xff') {
      out->push_back('\0');
      ++i;
    } else if (next == '\x01') {
      in->remove_prefix(i + 2);
      return Status::OK();
    } else {
      return Corrupt("invalid escape in byte string");
    }
  }
  return Corrupt("unterminated byte string");
}

void PutNumberComponent(std::string* dst, const Number& n) {
  if (n.is_zero()) {
    dst->push_back(static_cast<char>(kZero));
    return;
  }
  const int top = n.top_position();
  const int e = FloorHalf(top) + 1;  // value = 0.d1 d2 ... x 100^e, d1 != 0
  // Align the digits to base-100 pairs: a top digit at an even position is
  // the low half of its pair, so the pair starts with a zero.
  std::string digits = n.DigitString();
  if ((top & 1) == 0) digits.insert(digits.begin(), '0');
  if (digits.size() & 1) digits.push_back('0');

  const bool neg = n.negative();
  if (e <= 0) {
    dst->push_back(static_cast<char>(neg ? kNegSmall : kPosSmall));
    dst->push_back(static_cast<char>(neg ? -e : 0xFF + e));
  } else if (e <= 10) {
    dst->push_back(static_cast<char>(neg ? kNegMediumBase - e : kPosMediumBase + e));
  } else {
    dst->push_back(static_cast<char>(neg ? kNegLarge : kPosLarge));
    dst->push_back(static_cast<char>(neg ? 0xFF - e : e));
  }
  for (size_t i = 0; i < digits.size(); i += 2) {
    int x = (digits[i] - '0') * 10 + (digits[i + 1] - '0');
    bool last = i + 2 == digits.size();
    uint8_t byte = static_cast<uint8_t>(last ? 2 * x : 2 * x + 1);
    dst->push_back(static_cast<char>(neg ? ~byte : byte));
  }
}

Status GetNumberComponent(std::string_view* in, Number* out) {
  std::string_view p = *in;
  if (p.empty()) return Corrupt("empty number");
  const uint8_t tag = static_cast<uint8_t>(p[0]);
  p.remove_prefix(1);
  if (tag == kZero) {
    *out = Number();
    *in = p;
    return Status::OK();
  }
  bool neg;
  int e;
  auto exponent_byte = [&](uint8_t* b) {
    if (p.empty()) return false;
    *b = static_cast<uint8_t>(p[0]);
    p.remove_prefix(1);
    return true;
  };
  uint8_t b = 0;
  if (tag == kNegLarge) {
    neg = true;
    if (!exponent_byte(&b)) return Corrupt("truncated number exponent");
    e = 0xFF - b;
  } else if (tag > kNegLarge && tag < kNegSmall) {
    neg = true;
    e = kNegMediumBase - tag;
  } else if (tag == kNegSmall) {
    neg = true;
    if (!exponent_byte(&b)) return Corrupt("truncated number exponent");
    e = -static_cast<int>(b);
  } else if (tag == kPosSmall) {
    neg = false;
    if (!exponent_byte(&b)) return Corrupt("truncated number exponent");
    e = static_cast<int>(b) - 0xFF;
  } else if (tag > kPosSmall && tag < kPosLarge) {
    neg = false;
    e = tag - kPosMediumBase;
  } else if (tag == kPosLarge) {
    neg = false;
    if (!exponent_byte(&b)) return Corrupt("truncated number exponent");
    e = b;
  } else {
    return Corrupt("not a number tag");
  }

  // Mantissa: continuation bytes are odd (2X+1), the last is even (2X);
  // negatives are one's-complemented.
  std::string digits;
  for (int i = 0;; ++i) {
    if (p.empty()) return Corrupt("truncated number mantissa");
    if (i == kMaxMantissaBytes) return Corrupt("number mantissa too long");
    uint8_t m = static_cast<uint8_t>(p[0]);
    if (neg) m = static_cast<uint8_t>(~m);
    p.remove_prefix(1);
    int x = m >> 1;
    if (x > 99) return Corrupt("number digit out of range");
    digits.push_back(static_cast<char>('0' + x / 10));
    digits.push_back(static_cast<char>('0' + x % 10));
    if ((m & 1) == 0) break;
  }
  // Top digit position: 2e-1 if the first pair's high digit is set, else 2e-2.
  int top = digits[0] != '0' ? 2 * e - 1 : 2 * e - 2;
  size_t first = digits.find_first_not_of('0');
  size_t last = digits.find_last_not_of('0');
  if (first == std::string::npos || first > 1) return Corrupt("number with a zero leading digit");
  std::string_view sig = std::string_view(digits).substr(first, last - first + 1);
  if (sig.size() > static_cast<size_t>(Number::kMaxDigits) || top > Number::kMaxTopPosition ||
      top < Number::kMinTopPosition) {
    return Corrupt("number out of range");
  }
  uint128 c = 0;
  for (char d : sig) c = c * 10 + static_cast<unsigned>(d - '0');
  Number n = Number::FromParts(neg, c, top - static_cast<int>(sig.size()) + 1);
  // Accept only the canonical encoding, so that decode(encode(x)) is a
  // bijection and equal keys are equal bytes.
  std::string canonical;
  PutNumberComponent(&canonical, n);
  if (std::string_view(canonical) != in->substr(0, in->size() - p.size())) {
    return Corrupt("non-canonical number encoding");
  }
  *out = n;
  *in = p;
  return Status::OK();
}

Status PutKeyComponent(std::string* dst, const AttributeValue& v) {
  switch (v.type()) {
    case AttrType::kS: PutBytesComponent(dst, v.s()); return Status::OK();
    case AttrType::kB: PutBytesComponent(dst, v.b()); return Status::OK();
    case AttrType::kN: PutNumberComponent(dst, v.n()); return Status::OK();
    default:
      return Status::Validation("Key attributes must be of type S, N or B, not " +
                                std::string(AttrTypeName(v.type())));
  }
}

Status GetKeyComponent(std::string_view* in, KeyType type, AttributeValue* out) {
  if (type == KeyType::kN) {
    Number n;
    DYNAROCK_RETURN_IF_ERROR(GetNumberComponent(in, &n));
    *out = AttributeValue::N(n);
    return Status::OK();
  }
  std::string bytes;
  DYNAROCK_RETURN_IF_ERROR(GetBytesComponent(in, &bytes));
  *out = type == KeyType::kS ? AttributeValue::S(std::move(bytes))
                             : AttributeValue::B(std::move(bytes));
  return Status::OK();
}

std::optional<std::string> PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    if (static_cast<uint8_t>(out.back()) != 0xFF) {
      out.back() = static_cast<char>(static_cast<uint8_t>(out.back()) + 1);
      return out;
    }
    out.pop_back();
  }
  return std::nullopt;
}

void PutFixed32BE(std::string* dst, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) dst->push_back(static_cast<char>(v >> shift));
}

void PutFixed64BE(std::string* dst, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) dst->push_back(static_cast<char>(v >> shift));
}

bool GetFixed32BE(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  *v = 0;
  for (int i = 0; i < 4; ++i) *v = (*v << 8) | static_cast<uint8_t>((*in)[i]);
  in->remove_prefix(4);
  return true;
}

bool GetFixed64BE(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  *v = 0;
  for (int i = 0; i < 8; ++i) *v = (*v << 8) | static_cast<uint8_t>((*in)[i]);
  in->remove_prefix(8);
  return true;
}

uint64_t PartitionHash(std::string_view encoded_partition_key) {
  return XXH64(encoded_partition_key.data(), encoded_partition_key.size(), 0);
}

namespace {

// space_id | hash | enc(pk)
void PutCollectionPrefix(std::string* dst, uint32_t space_id, const AttributeValue& pk) {
  std::string enc;
  Status st = PutKeyComponent(&enc, pk);
  assert(st.ok() && "partition key must be S, N or B");
  (void)st;  // Callers validate key types; the assert documents the contract.
  PutFixed32BE(dst, space_id);
  PutFixed64BE(dst, PartitionHash(enc));
  dst->append(enc);
}

void PutOptionalComponent(std::string* dst, const AttributeValue* v) {
  if (v == nullptr) return;
  Status st = PutKeyComponent(dst, *v);
  assert(st.ok() && "sort key must be S, N or B");
  (void)st;  // As above: a REQUIRES of the caller.
}

Status GetOptionalComponent(std::string_view* in, const std::optional<KeyType>& type,
                            std::optional<AttributeValue>* out) {
  if (!type) return Status::OK();
  AttributeValue v;
  DYNAROCK_RETURN_IF_ERROR(GetKeyComponent(in, *type, &v));
  *out = std::move(v);
  return Status::OK();
}

// Parses space_id | hash | pk [| sk] from *in and checks the hash.
Status GetKeyHead(std::string_view* in, const KeySchemaTypes& schema, DecodedItemKey* out) {
  if (!GetFixed32BE(in, &out->space_id) || !GetFixed64BE(in, &out->hash)) {
    return Corrupt("key shorter than its prefix");
  }
  std::string_view pk_start = *in;
  DYNAROCK_RETURN_IF_ERROR(GetKeyComponent(in, schema.partition, &out->pk));
  std::string_view pk_bytes = pk_start.substr(0, pk_start.size() - in->size());
  if (PartitionHash(pk_bytes) != out->hash) return Corrupt("partition hash mismatch");
  return GetOptionalComponent(in, schema.sort, &out->sk);
}

}  // namespace

EncodedKey CollectionPrefix(uint32_t space_id, const AttributeValue& pk) {
  EncodedKey key;
  PutCollectionPrefix(key.mutable_bytes(), space_id, pk);
  return key;
}

EncodedKey EncodeItemKey(uint32_t space_id, const AttributeValue& pk, const AttributeValue* sk) {
  EncodedKey key;
  PutCollectionPrefix(key.mutable_bytes(), space_id, pk);
  PutOptionalComponent(key.mutable_bytes(), sk);
  return key;
}

EncodedKey EncodeIndexKey(uint32_t index_id, const AttributeValue& index_pk,
                          const AttributeValue* index_sk, const AttributeValue& pk,
                          const AttributeValue* sk) {
  EncodedKey key;
  PutCollectionPrefix(key.mutable_bytes(), index_id, index_pk);
  PutOptionalComponent(key.mutable_bytes(), index_sk);
  PutOptionalComponent(key.mutable_bytes(), &pk);
  PutOptionalComponent(key.mutable_bytes(), sk);
  return key;
}

Result<DecodedItemKey> DecodeItemKey(std::string_view key, const KeySchemaTypes& schema) {
  DecodedItemKey out;
  DYNAROCK_RETURN_IF_ERROR(GetKeyHead(&key, schema, &out));
  if (!key.empty()) return Corrupt("trailing bytes after item key");
  return out;
}

Result<DecodedIndexKey> DecodeIndexKey(std::string_view key, const KeySchemaTypes& index_schema,
                                       const KeySchemaTypes& table_schema) {
  DecodedIndexKey out;
  DYNAROCK_RETURN_IF_ERROR(GetKeyHead(&key, index_schema, &out.index));
  DYNAROCK_RETURN_IF_ERROR(GetKeyComponent(&key, table_schema.partition, &out.pk));
  DYNAROCK_RETURN_IF_ERROR(GetOptionalComponent(&key, table_schema.sort, &out.sk));
  if (!key.empty()) return Corrupt("trailing bytes after index key");
  return out;
}

}  // namespace dynarock::format
