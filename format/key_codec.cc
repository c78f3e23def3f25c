#include "format/key_codec.h"

#include <xxhash.h>

#include <cstring>

namespace dynarock::format {

using uint128 = Number::uint128;

namespace {

using namespace number_tags;  // NOLINT: the class tags (key_codec.h)
constexpr int kMaxMantissaBytes = 20;  // 38 digits + 1 alignment digit, in pairs

// floor(a / 2) for any sign.
int FloorHalf(int a) { return a >= 0 ? a / 2 : -((-a + 1) / 2); }

Status Corrupt(const char* what) { return Status::Corruption(std::string("key codec: ") + what); }

}  // namespace

AttrType ToAttrType(ScalarAttributeType t) {
  switch (t) {
    case ScalarAttributeType::kS:
      return AttrType::kS;
    case ScalarAttributeType::kN:
      return AttrType::kN;
    case ScalarAttributeType::kB:
      return AttrType::kB;
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
  // Runs between zero bytes are copied whole; each zero is an escape.
  const char* p = in->data();
  const char* const end = p + in->size();
  while (true) {
    const auto* zero = static_cast<const char*>(std::memchr(p, 0, static_cast<size_t>(end - p)));
    if (zero == nullptr) return Corrupt("unterminated byte string");
    out->append(p, static_cast<size_t>(zero - p));
    if (zero + 1 == end) return Corrupt("truncated escape in byte string");
    if (zero[1] == '\xff') {
      out->push_back('\0');
      p = zero + 2;
    } else if (zero[1] == '\x01') {
      in->remove_prefix(static_cast<size_t>(zero + 2 - in->data()));
      return Status::OK();
    } else {
      return Corrupt("invalid escape in byte string");
    }
  }
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

  if ((tag == kNegLarge || tag == kPosLarge) && e <= 10) {
    return Corrupt("non-canonical number encoding");  // a medium exponent in the large class
  }

  // Mantissa: continuation bytes are odd (2X+1), the last is even (2X);
  // negatives are one's-complemented. The digits go straight into the
  // coefficient; the canonical form (what PutNumberComponent writes, so that
  // equal keys are equal bytes) has a nonzero first pair, a nonzero last pair
  // and the exponent in its own class (checked above).
  const uint8_t flip = neg ? 0xFF : 0x00;
  size_t pairs = 0;
  while (true) {
    if (pairs == p.size()) return Corrupt("truncated number mantissa");
    if (pairs == kMaxMantissaBytes) return Corrupt("number mantissa too long");
    const uint8_t m = static_cast<uint8_t>(p[pairs]) ^ flip;
    if ((m >> 1) > 99) return Corrupt("number digit out of range");
    ++pairs;
    if ((m & 1) == 0) break;
  }
  auto pair_at = [&](size_t i) { return (static_cast<uint8_t>(p[i]) ^ flip) >> 1; };
  const unsigned first = pair_at(0), last = pair_at(pairs - 1);
  if (first == 0) return Corrupt("number with a zero leading digit");
  if (last == 0) return Corrupt("non-canonical number encoding");
  const bool lead_zero = first < 10;  // the top digit is the low half of its pair
  const bool trail_zero = last % 10 == 0;
  const int sig = static_cast<int>(2 * pairs) - lead_zero - trail_zero;
  // Top digit position: 2e-1 if the first pair's high digit is set, else 2e-2.
  const int top = lead_zero ? 2 * e - 2 : 2 * e - 1;
  if (sig > Number::kMaxDigits || top > Number::kMaxTopPosition || top < Number::kMinTopPosition) {
    return Corrupt("number out of range");
  }
  // Whole pairs but the last, then the last without its padding zero: at most
  // 38 digits, so the coefficient never leaves 128 bits.
  uint128 c = 0;
  for (size_t i = 0; i + 1 < pairs; ++i) c = c * 100 + pair_at(i);
  c = trail_zero ? c * 10 + last / 10 : c * 100 + last;
  *out = Number::FromParts(neg, c, top - sig + 1);
  in->remove_prefix(in->size() - p.size() + pairs);
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

Status GetKeyComponent(std::string_view* in, ScalarAttributeType type, AttributeValue* out) {
  if (type == ScalarAttributeType::kN) {
    Number n;
    DYNAROCK_RETURN_IF_ERROR(GetNumberComponent(in, &n));
    *out = AttributeValue::N(n);
    return Status::OK();
  }
  std::string bytes;
  DYNAROCK_RETURN_IF_ERROR(GetBytesComponent(in, &bytes));
  *out = type == ScalarAttributeType::kS ? AttributeValue::S(std::move(bytes))
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

// space_id | hash | enc(h1)..enc(hn): the partition components are written
// in place and hashed there (no copy of them): this runs for every key the
// engine builds.
void PutCollectionPrefix(std::string* dst, uint32_t space_id, KeyValues partition) {
  PutFixed32BE(dst, space_id);
  const size_t hash_at = dst->size();
  dst->append(8, '\0');
  const size_t enc_at = dst->size();
  for (const AttributeValue* v : partition) {
    Status st = PutKeyComponent(dst, *v);
    assert(st.ok() && "partition key must be S, N or B");
    (void)st;  // Callers validate key types; the assert documents the contract.
  }
  const uint64_t hash = PartitionHash(std::string_view(*dst).substr(enc_at));
  for (int i = 0; i < 8; ++i) (*dst)[hash_at + i] = static_cast<char>(hash >> (56 - 8 * i));
}

void PutCollectionPrefix(std::string* dst, uint32_t space_id, const AttributeValue& pk) {
  const AttributeValue* one[] = {&pk};
  PutCollectionPrefix(dst, space_id, one);
}

void PutOptionalComponent(std::string* dst, const AttributeValue* v) {
  if (v == nullptr) return;
  Status st = PutKeyComponent(dst, *v);
  assert(st.ok() && "sort key must be S, N or B");
  (void)st;  // As above: a REQUIRES of the caller.
}

Status GetOptionalComponent(std::string_view* in, const std::optional<ScalarAttributeType>& type,
                            std::optional<AttributeValue>* out) {
  if (!type) return Status::OK();
  AttributeValue v;
  DYNAROCK_RETURN_IF_ERROR(GetKeyComponent(in, *type, &v));
  *out = std::move(v);
  return Status::OK();
}

Status GetMoreComponents(std::string_view* in, const MoreKeyTypes& types,
                         std::vector<AttributeValue>* out) {
  for (ScalarAttributeType t : types.view()) {
    DYNAROCK_RETURN_IF_ERROR(GetKeyComponent(in, t, &out->emplace_back()));
  }
  return Status::OK();
}

// Parses space_id | hash | pk.. [| sk..] from *in and checks the hash.
Status GetKeyHead(std::string_view* in, const KeySchemaTypes& schema, DecodedItemKey* out) {
  if (!GetFixed32BE(in, &out->space_id) || !GetFixed64BE(in, &out->hash)) {
    return Corrupt("key shorter than its prefix");
  }
  std::string_view pk_start = *in;
  DYNAROCK_RETURN_IF_ERROR(GetKeyComponent(in, schema.partition, &out->pk));
  DYNAROCK_RETURN_IF_ERROR(GetMoreComponents(in, schema.more_partition, &out->more_pk));
  std::string_view pk_bytes = pk_start.substr(0, pk_start.size() - in->size());
  if (PartitionHash(pk_bytes) != out->hash) return Corrupt("partition hash mismatch");
  DYNAROCK_RETURN_IF_ERROR(GetOptionalComponent(in, schema.sort, &out->sk));
  if (!schema.sort) return Status::OK();
  return GetMoreComponents(in, schema.more_sort, &out->more_sk);
}

}  // namespace

EncodedKey CollectionPrefix(uint32_t space_id, const AttributeValue& pk) {
  EncodedKey key;
  PutCollectionPrefix(key.mutable_bytes(), space_id, pk);
  return key;
}

EncodedKey CollectionPrefix(uint32_t space_id, KeyValues partition) {
  EncodedKey key;
  PutCollectionPrefix(key.mutable_bytes(), space_id, partition);
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

EncodedKey EncodeIndexKey(uint32_t index_id, KeyValues index_partition, KeyValues index_sort,
                          const AttributeValue& pk, const AttributeValue* sk) {
  EncodedKey key;
  PutCollectionPrefix(key.mutable_bytes(), index_id, index_partition);
  for (const AttributeValue* v : index_sort) PutOptionalComponent(key.mutable_bytes(), v);
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
