// The order-preserving key codec: how DynamoDB key values become RocksDB keys.
// WRITTEN TO DISK: the byte layout is specified in format/KEY_FORMAT.md and
// pinned by golden tests; never change an encoding, add new ones beside it.
//
// Encoding helpers come in pairs: PutX appends to a string, GetX parses from
// the front of a string_view and advances it past what it consumed (anything
// after the component is left untouched).
#ifndef DYNAROCK_FORMAT_KEY_CODEC_H_
#define DYNAROCK_FORMAT_KEY_CODEC_H_

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/number.h"
#include "dynarock/status.h"

namespace dynarock::format {

// A key component's type is a ScalarAttributeType (S, N or B: the only
// types DynamoDB allows in table and index keys); the schema says which.
AttrType ToAttrType(ScalarAttributeType t);

inline constexpr size_t kMaxPartitionKeyBytes = 2048;
inline constexpr size_t kMaxSortKeyBytes = 1024;

// An encoded RocksDB key. Its own type so that nobody compares keys as text or
// mixes them up with values: comparison is unsigned bytewise, as RocksDB's.
class EncodedKey {
 public:
  EncodedKey() = default;
  explicit EncodedKey(std::string bytes) : bytes_(std::move(bytes)) {}
  const std::string& bytes() const { return bytes_; }
  std::string* mutable_bytes() { return &bytes_; }
  friend std::strong_ordering operator<=>(const EncodedKey& a, const EncodedKey& b) {
    int c = std::string_view(a.bytes_).compare(b.bytes_);  // memcmp: unsigned bytes
    return c < 0 ? std::strong_ordering::less
                 : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
  }
  friend bool operator==(const EncodedKey&, const EncodedKey&) = default;

 private:
  std::string bytes_;
};

// ---- Components -------------------------------------------------------------

// S and B: each 0x00 becomes 00 FF, then the terminator 00 01.
void PutBytesComponent(std::string* dst, std::string_view bytes);
// N: the decimal class/exponent/base-100 mantissa encoding (KEY_FORMAT.md).
// At most kMaxNumberComponentBytes bytes.
void PutNumberComponent(std::string* dst, const Number& n);
inline constexpr size_t kMaxNumberComponentBytes = 22;

// Appends v's encoding. REQUIRES: v is S, N or B (others: InvalidArgument as a
// ValidationException naming the type).
Status PutKeyComponent(std::string* dst, const AttributeValue& v);

// Number class tags; see KEY_FORMAT.md. Do not change: written to disk.
namespace number_tags {
inline constexpr uint8_t kNegLarge = 0x09;       // E >= 11: tag, ~E, ~mantissa
inline constexpr uint8_t kNegMediumBase = 0x14;  // 1 <= E <= 10: tag = 0x14 - E, ~mantissa
inline constexpr uint8_t kNegSmall = 0x14;       // E <= 0: tag, -E, ~mantissa
inline constexpr uint8_t kZero = 0x15;
inline constexpr uint8_t kPosSmall = 0x16;       // E <= 0: tag, ~(-E), mantissa
inline constexpr uint8_t kPosMediumBase = 0x16;  // 1 <= E <= 10: tag = 0x16 + E, mantissa
inline constexpr uint8_t kPosLarge = 0x21;       // E >= 11: tag, E, mantissa
}  // namespace number_tags

// Parse one component; Corruption if the bytes are not a valid encoding.
Status GetBytesComponent(std::string_view* in, std::string* out);
Status GetNumberComponent(std::string_view* in, Number* out);
Status GetKeyComponent(std::string_view* in, ScalarAttributeType type, AttributeValue* out);

// The escaped bytes of `prefix` without a terminator: every encoded S/B value
// that begins with `prefix` (as raw bytes) begins with this. Used with
// PrefixSuccessor for begins_with(sk, :p).
void PutBytesPrefix(std::string* dst, std::string_view prefix);

// The smallest byte string greater than every string that starts with
// `prefix`: the last byte that is not 0xFF is incremented and the rest dropped.
// nullopt when no such string exists (empty prefix or all 0xFF).
std::optional<std::string> PrefixSuccessor(std::string_view prefix);

// ---- Fixed-width integers (big-endian, so byte order is numeric order) -------

void PutFixed32BE(std::string* dst, uint32_t v);
void PutFixed64BE(std::string* dst, uint64_t v);
bool GetFixed32BE(std::string_view* in, uint32_t* v);
bool GetFixed64BE(std::string_view* in, uint64_t* v);

// ---- Whole keys ---------------------------------------------------------------

// Key values in KeySchema order (pointers to them): a multi-attribute GSI's
// partition or sort components.
using KeyValues = std::span<const AttributeValue* const>;

// xxHash64 (seed 0) of the encoded partition-key component. Hashing the
// canonical encoding makes equal DynamoDB values hash alike ("1" and "1.0").
uint64_t PartitionHash(std::string_view encoded_partition_key);

// Bytes before the partition key in every key: the 4-byte space id (table or
// index id) and the 8-byte hash. RocksDB's prefix extractor uses this length.
inline constexpr size_t kKeyPrefixBytes = 12;

// Base item key:  space_id(4) | hash(8) | enc(pk) [| enc(sk)].
// Index key:      space_id(4) | hash(8) | enc(ipk) [| enc(isk)] | enc(pk) [| enc(sk)].
// A multi-attribute GSI's key (up to four partition and four sort
// components) is the same with every component in KeySchema order:
//   space_id(4) | hash(8) | enc(h1)..enc(hn) | enc(r1)..enc(rm) | enc(pk) [| enc(sk)]
// where the hash is of enc(h1)..enc(hn) together, so one index collection
// (every item with the same partition values) is one contiguous range, and
// a one-component key is byte for byte the single-attribute encoding.
// REQUIRES: every value is a key type (S, N or B); callers validate first.
EncodedKey EncodeItemKey(uint32_t space_id, const AttributeValue& pk,
                         const AttributeValue* sk);
EncodedKey EncodeIndexKey(uint32_t index_id, const AttributeValue& index_pk,
                          const AttributeValue* index_sk, const AttributeValue& pk,
                          const AttributeValue* sk);
// REQUIRES: index_partition has 1 to 4 values, index_sort 0 to 4.
EncodedKey EncodeIndexKey(uint32_t index_id, KeyValues index_partition, KeyValues index_sort,
                          const AttributeValue& pk, const AttributeValue* sk);

// The prefix shared by every key of one collection: space_id | hash | enc(pk),
// or space_id | hash | enc(h1)..enc(hn) for several partition components.
EncodedKey CollectionPrefix(uint32_t space_id, const AttributeValue& pk);
EncodedKey CollectionPrefix(uint32_t space_id, KeyValues partition);

// The types of a multi-attribute key's components after the first
// partition component, or after the first sort component: at most three.
struct MoreKeyTypes {
  static constexpr size_t kMax = 3;
  std::array<ScalarAttributeType, kMax> types{};
  uint8_t count = 0;

  std::span<const ScalarAttributeType> view() const { return {types.data(), count}; }
  void push_back(ScalarAttributeType t) { types[count++] = t; }  // REQUIRES: count < kMax
};

// A key's schema: the types of its partition and (optional) sort key, and
// a multi-attribute GSI's further components (more_sort only with a sort).
struct KeySchemaTypes {
  ScalarAttributeType partition;
  std::optional<ScalarAttributeType> sort;
  MoreKeyTypes more_partition = {};
  MoreKeyTypes more_sort = {};
};

struct DecodedItemKey {
  uint32_t space_id = 0;
  uint64_t hash = 0;
  AttributeValue pk;
  std::optional<AttributeValue> sk;
  // A multi-attribute key's further components, in KeySchema order.
  std::vector<AttributeValue> more_pk;
  std::vector<AttributeValue> more_sk;
};

// Decodes a base item key; Corruption if the bytes do not match `schema`, the
// hash does not match the partition key, or bytes are left over.
Result<DecodedItemKey> DecodeItemKey(std::string_view key, const KeySchemaTypes& schema);

struct DecodedIndexKey {
  DecodedItemKey index;  // the index's own keys
  AttributeValue pk;     // the base table's primary key
  std::optional<AttributeValue> sk;
};
Result<DecodedIndexKey> DecodeIndexKey(std::string_view key, const KeySchemaTypes& index_schema,
                                       const KeySchemaTypes& table_schema);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_KEY_CODEC_H_
