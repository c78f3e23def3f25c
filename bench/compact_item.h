// Raw RocksDB's own value encoding of an item, for the ceiling in bench/:
// what a store written for this one workload would keep, never Dynarock's
// bytes. The key attributes live in the key and are not repeated; the rest
// is
//   varint(count), then per attribute: varint(len) name, type byte,
//   varint(len) value
// with S and B as their bytes, N as its decimal text (what DynamoDB hands
// back), BOOL as one byte, NULL empty, and M, L and the sets nested in the
// same form (M: count, then named entries; L: count, then type byte and
// value; sets: count, then varint(len) members). Reading an attribute walks
// the list: there is no index, as in the plainest encoding a raw store
// would use.
#ifndef DYNAROCK_BENCH_COMPACT_ITEM_H_
#define DYNAROCK_BENCH_COMPACT_ITEM_H_

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"

namespace dynarock::bench {

inline void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// REQUIRES: *in starts with a varint (bytes this file wrote).
inline uint64_t GetVarint(std::string_view* in) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const auto b = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

inline std::string_view GetLengthPrefixed(std::string_view* in) {
  const size_t n = GetVarint(in);
  std::string_view out = in->substr(0, n);
  in->remove_prefix(n);
  return out;
}

inline void PutCompactValue(std::string* out, const AttributeValue& v);

inline void PutLengthPrefixed(std::string* out, std::string_view bytes) {
  PutVarint(out, bytes.size());
  out->append(bytes);
}

// The value bytes of `v` (without its length).
inline std::string CompactValueBytes(const AttributeValue& v) {
  std::string out;
  switch (v.type()) {
    case AttrType::kS:
      return v.s();
    case AttrType::kB:
      return v.b();
    case AttrType::kN:
      return v.n().ToString();
    case AttrType::kBool:
      return std::string(1, v.boolean() ? '\1' : '\0');
    case AttrType::kNull:
      return out;
    case AttrType::kM:
      PutVarint(&out, v.m().size());
      for (const auto& [name, value] : v.m()) {
        PutLengthPrefixed(&out, name);
        PutCompactValue(&out, value);
      }
      return out;
    case AttrType::kL:
      PutVarint(&out, v.l().size());
      for (const auto& value : v.l()) PutCompactValue(&out, value);
      return out;
    case AttrType::kSS:
    case AttrType::kBS: {
      const auto& members = v.type() == AttrType::kSS ? v.ss() : v.bs();
      PutVarint(&out, members.size());
      for (const auto& m : members) PutLengthPrefixed(&out, m);
      return out;
    }
    case AttrType::kNS:
      PutVarint(&out, v.ns().size());
      for (const auto& m : v.ns()) PutLengthPrefixed(&out, m.ToString());
      return out;
  }
  std::abort();
}

// Type byte, then the length-prefixed value bytes.
inline void PutCompactValue(std::string* out, const AttributeValue& v) {
  out->push_back(static_cast<char>(v.type()));
  PutLengthPrefixed(out, CompactValueBytes(v));
}

// The item without the attributes in `key_names`.
inline std::string CompactEncode(const Item& item,
                                 std::initializer_list<std::string_view> key_names) {
  auto is_key = [&](const std::string& name) {
    for (std::string_view k : key_names) {
      if (k == name) return true;
    }
    return false;
  };
  size_t count = 0;
  for (const auto& [name, value] : item) count += is_key(name) ? 0 : 1;
  std::string out;
  PutVarint(&out, count);
  for (const auto& [name, value] : item) {
    if (is_key(name)) continue;
    PutLengthPrefixed(&out, name);
    PutCompactValue(&out, value);
  }
  return out;
}

inline AttributeValue CompactDecodeValue(std::string_view* in);

// Decodes one value of type `type` from its bytes.
inline AttributeValue CompactDecodeBytes(AttrType type, std::string_view bytes) {
  switch (type) {
    case AttrType::kS:
      return AttributeValue::S(std::string(bytes));
    case AttrType::kB:
      return AttributeValue::B(std::string(bytes));
    case AttrType::kN:
      return AttributeValue::N(Number::Parse(bytes).value());
    case AttrType::kBool:
      return AttributeValue::Bool(bytes[0] != 0);
    case AttrType::kNull:
      return AttributeValue::Null();
    case AttrType::kM: {
      AttributeValue::Map m;
      for (uint64_t n = GetVarint(&bytes); n > 0; --n) {
        std::string name(GetLengthPrefixed(&bytes));
        m.emplace_back(std::move(name), CompactDecodeValue(&bytes));
      }
      return AttributeValue::M(std::move(m));
    }
    case AttrType::kL: {
      AttributeValue::List l;
      for (uint64_t n = GetVarint(&bytes); n > 0; --n) l.push_back(CompactDecodeValue(&bytes));
      return AttributeValue::L(std::move(l));
    }
    case AttrType::kSS:
    case AttrType::kBS: {
      std::vector<std::string> members;
      for (uint64_t n = GetVarint(&bytes); n > 0; --n) {
        members.emplace_back(GetLengthPrefixed(&bytes));
      }
      return type == AttrType::kSS ? AttributeValue::SS(std::move(members))
                                   : AttributeValue::BS(std::move(members));
    }
    case AttrType::kNS: {
      std::vector<Number> members;
      for (uint64_t n = GetVarint(&bytes); n > 0; --n) {
        members.push_back(Number::Parse(GetLengthPrefixed(&bytes)).value());
      }
      return AttributeValue::NS(std::move(members));
    }
  }
  std::abort();
}

inline AttributeValue CompactDecodeValue(std::string_view* in) {
  const auto type = static_cast<AttrType>(static_cast<uint8_t>(in->front()));
  in->remove_prefix(1);
  return CompactDecodeBytes(type, GetLengthPrefixed(in));
}

// Every attribute of the value into `item` (which holds the key's already).
inline void CompactDecode(std::string_view bytes, Item* item) {
  for (uint64_t n = GetVarint(&bytes); n > 0; --n) {
    std::string name(GetLengthPrefixed(&bytes));
    item->emplace(std::move(name), CompactDecodeValue(&bytes));
  }
}

// Calls fn(name, type, value bytes) for each top-level attribute, in
// stored order, without decoding any value.
template <typename Fn>
void ForEachCompactAttribute(std::string_view bytes, Fn fn) {
  for (uint64_t n = GetVarint(&bytes); n > 0; --n) {
    const std::string_view name = GetLengthPrefixed(&bytes);
    const auto type = static_cast<AttrType>(static_cast<uint8_t>(bytes.front()));
    bytes.remove_prefix(1);
    fn(name, type, GetLengthPrefixed(&bytes));
  }
}

}  // namespace dynarock::bench

#endif  // DYNAROCK_BENCH_COMPACT_ITEM_H_
