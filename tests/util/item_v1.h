// Items as older storage formats wrote them, which nothing in the product
// writes any more: version 1 of the item encoding (schemas/item.fbs, formats
// 1-9: a FlatBuffers table per value; the writer is version 1's own, as it
// stood when version 2 replaced it) and format 11's table items. Tests use
// these to build databases of those formats and check that readers, the
// compaction filters and the upgrades take them.
#ifndef DYNAROCK_TESTS_UTIL_ITEM_V1_H_
#define DYNAROCK_TESTS_UTIL_ITEM_V1_H_

#include <flatbuffers/flatbuffers.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "dynarock/attribute_value.h"
#include "format/item_codec.h"
#include "format/item_size.h"
#include "format/key_codec.h"
#include "schemas/item_generated.h"

namespace dynarock::testing {

namespace item_v1 {

namespace fbs = flatbuffers;

inline fbs::Offset<fbs::Vector<uint8_t>> Bytes(fbs::FlatBufferBuilder& b, std::string_view s) {
  return b.CreateVector(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

inline std::string NumberBytes(const Number& n) {
  std::string out;
  format::PutNumberComponent(&out, n);
  return out;
}

inline fbs::Offset<fb::Value> EncodeValue(fbs::FlatBufferBuilder& b, const AttributeValue& v,
                                          std::optional<std::string_view> name = std::nullopt);

template <typename Entries>
fbs::Offset<fbs::Vector<fbs::Offset<fb::Value>>> EncodeEntries(fbs::FlatBufferBuilder& b,
                                                              const Entries& entries) {
  std::vector<fbs::Offset<fb::Value>> out;
  for (const auto& [name, value] : entries) out.push_back(EncodeValue(b, value, name));
  return b.CreateVector(out);
}

template <typename T, typename Fn>
fbs::Offset<fbs::Vector<fbs::Offset<fb::Blob>>> EncodeMembers(fbs::FlatBufferBuilder& b,
                                                             const std::vector<T>& members,
                                                             Fn to_bytes) {
  std::vector<fbs::Offset<fb::Blob>> out;
  for (const auto& m : members) out.push_back(fb::CreateBlob(b, Bytes(b, to_bytes(m))));
  return b.CreateVector(out);
}

inline fbs::Offset<fb::Value> EncodeValue(fbs::FlatBufferBuilder& b, const AttributeValue& v,
                                          std::optional<std::string_view> name) {
  fbs::Offset<fbs::String> name_offset;
  if (name) name_offset = b.CreateString(name->data(), name->size());
  fbs::Offset<fbs::Vector<uint8_t>> data;
  fbs::Offset<fbs::Vector<fbs::Offset<fb::Blob>>> members;
  fbs::Offset<fbs::Vector<fbs::Offset<fb::Value>>> entries, elements;
  bool flag = false;
  auto plain = [](const std::string& s) -> std::string_view { return s; };
  switch (v.type()) {
    case AttrType::kS: data = Bytes(b, v.s()); break;
    case AttrType::kB: data = Bytes(b, v.b()); break;
    case AttrType::kN: data = Bytes(b, NumberBytes(v.n())); break;
    case AttrType::kBool: flag = v.boolean(); break;
    case AttrType::kNull: break;
    case AttrType::kM: entries = EncodeEntries(b, v.m()); break;
    case AttrType::kL: {
      std::vector<fbs::Offset<fb::Value>> out;
      for (const auto& e : v.l()) out.push_back(EncodeValue(b, e));
      elements = b.CreateVector(out);
      break;
    }
    case AttrType::kSS: members = EncodeMembers(b, v.ss(), plain); break;
    case AttrType::kBS: members = EncodeMembers(b, v.bs(), plain); break;
    case AttrType::kNS: members = EncodeMembers(b, v.ns(), NumberBytes); break;
  }
  return fb::CreateValue(b, name_offset, static_cast<fb::ValueType>(v.type()), data, flag,
                         members, entries, elements);
}

}  // namespace item_v1

// `item` in version 1, with its DynamoDB size stored (storage formats 8 and
// 9) or without (`with_size` false: formats 7 and before).
inline std::string EncodeItemV1(const Item& item, bool with_size = true) {
  flatbuffers::FlatBufferBuilder b(256);
  auto attrs = item_v1::EncodeEntries(b, item);
  b.Finish(fb::CreateItem(b, /*format_version=*/1, attrs,
                          with_size ? static_cast<uint32_t>(format::ItemSize(item)) : 0),
           fb::ItemIdentifier());
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

// An item of string attributes (name -> value) as storage format 7 and
// before wrote it: version 1, no stored size.
inline std::string EncodeStringItemWithoutSize(const std::map<std::string, std::string>& item) {
  Item out;
  for (const auto& [name, value] : item) out.emplace(name, AttributeValue::S(value));
  return EncodeItemV1(out, /*with_size=*/false);
}

// A table item as storage format 11 stored it: version 2's payload with
// version byte 03, the key attributes left out and every name written out
// (varint length, bytes). Built from the whole encoding of the item less
// its key attributes, with the version and size bytes patched.
// REQUIRES: both sizes below 128 (one varint byte each), an item small
// enough that its envelope head is 24 bytes.
inline std::string EncodeTableItemFormat11(const Item& item,
                                           const format::StoredKeySchema& keys) {
  Item rest = item;
  rest.erase(std::string(keys.partition.name));
  if (keys.sort) rest.erase(std::string(keys.sort->name));
  std::string bytes = format::EncodeItem(rest);
  const size_t version_at = 24;
  EXPECT_EQ(bytes[version_at], 2);
  EXPECT_LT(format::ItemSize(item), 128u);
  EXPECT_EQ(static_cast<size_t>(static_cast<uint8_t>(bytes[version_at + 1])),
            format::ItemSize(rest));
  bytes[version_at] = 3;
  bytes[version_at + 1] = static_cast<char>(format::ItemSize(item));
  return bytes;
}

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_ITEM_V1_H_
