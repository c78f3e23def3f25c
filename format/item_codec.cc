// The item encoding, version 2 (format/ITEM_FORMAT.md): a FlatBuffers
// PackedItem whose one field holds the packed payload
//
//   02 | varint(DynamoDB size) | map body
//
// where a map body (and a list body) is varint(count << 2 | w), an index of
// `count` little-endian offsets of 1 << w bytes each, then the entries (map:
// name and value; list: value). A value is a tag byte (type in the low four
// bits, its body length in the high four, 15 meaning "a varint follows")
// and its body. Version 1 (schemas/item.fbs) is read by item_codec_v1.cc.
#include "format/item_codec.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "format/item_codec_v1.h"
#include "format/item_size.h"
#include "schemas/packed_item_generated.h"

namespace dynarock {

// Views are built from buffers only here.
struct ItemCodecAccess {
  static ValueView Value(const uint8_t* tag, std::string_view name) {
    return ValueView(tag, name);
  }
  static ItemView Item(const uint8_t* index, const uint8_t* entries, const uint8_t* end,
                       uint32_t count, uint32_t width, uint32_t stored_size) {
    ItemView v;
    v.index_ = index;
    v.entries_ = entries;
    v.end_ = end;
    v.count_ = count;
    v.width_ = width;
    v.stored_size_ = stored_size;
    return v;
  }
  static Result<ItemView> TableItem(std::string_view payload, std::string_view key,
                                    const format::StoredKeySchema& keys, std::string* scratch);
};

namespace {

namespace fbs = flatbuffers;

// The payload's first byte: a whole item; a base item stored without its
// key attributes (which its RocksDB key holds), as storage format 11 wrote
// it; the same with its top-level names as references, which may name an
// interned name (storage format 12 on).
constexpr uint8_t kPayloadVersion = 2;
constexpr uint8_t kWithoutKeyVersion = 3;
constexpr uint8_t kInternedVersion = 4;

bool WithoutKey(std::string_view payload) {
  return !payload.empty() && (static_cast<uint8_t>(payload[0]) == kWithoutKeyVersion ||
                              static_cast<uint8_t>(payload[0]) == kInternedVersion);
}
// A tag's high nibble holds a body length below this; this value says a
// varint length follows the tag.
constexpr uint8_t kLongLength = 15;

Status Corrupt(const char* what) { return Status::Corruption(std::string("item: ") + what); }

// ---- Primitives ----------------------------------------------------------------------------

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// For bytes this file wrote.
[[gnu::always_inline]] inline uint64_t ReadVarint(const uint8_t** p) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

// For bytes of unknown origin: false past `end` or beyond 64 bits.
bool ReadVarintChecked(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p == end) return false;
    const uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) {
      *out = v;
      return true;
    }
  }
  return false;
}

[[gnu::always_inline]] inline uint32_t ReadOffset(const uint8_t* index, uint32_t width, size_t i) {
  const uint8_t* p = index + i * width;
  switch (width) {
    case 1: return p[0];
    case 2: return static_cast<uint32_t>(p[0] | p[1] << 8);
    default:
      return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
             static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
}

std::string_view Chars(const uint8_t* p, size_t n) {
  return {reinterpret_cast<const char*>(p), n};
}

AttrType TagType(uint8_t tag) { return static_cast<AttrType>(tag & 0x0f); }

bool HasBody(AttrType t) { return t != AttrType::kBool && t != AttrType::kNull; }

struct Body {
  const uint8_t* data;
  size_t size;
};

// The body of the value whose tag is at `tag` (trusted bytes).
[[gnu::always_inline]] inline Body BodyOf(const uint8_t* tag) {
  const uint8_t* p = tag + 1;
  if (!HasBody(TagType(*tag))) return {p, 0};
  size_t n = *tag >> 4;
  if (n == kLongLength) n = static_cast<size_t>(ReadVarint(&p));
  return {p, n};
}

// A map or list body, opened (trusted bytes).
struct Container {
  const uint8_t* index;
  const uint8_t* entries;
  uint32_t count;
  uint32_t width;

  const uint8_t* at(size_t i) const { return entries + ReadOffset(index, width, i); }
};

Container OpenContainer(const uint8_t* body) {
  const uint8_t* p = body;
  const uint64_t header = ReadVarint(&p);
  const uint32_t width = 1u << (header & 3);
  const auto count = static_cast<uint32_t>(header >> 2);
  return {p, p + static_cast<size_t>(count) * width, count, width};
}

// A map entry at `entry`: its name, and its value's tag in *tag.
[[gnu::always_inline]] inline std::string_view EntryName(const uint8_t* entry, const uint8_t** tag) {
  const uint8_t* p = entry;
  const auto n = static_cast<size_t>(ReadVarint(&p));
  *tag = p + n;
  return Chars(p, n);
}

ValueView EntryView(const uint8_t* entry) {
  const uint8_t* tag;
  std::string_view name = EntryName(entry, &tag);
  return ItemCodecAccess::Value(tag, name);
}

// Names in the order entries are sorted (bytewise), deciding on the first
// byte inline: attribute names mostly differ there, and a call to memcmp
// costs more than the comparison.
[[gnu::always_inline]] inline int CompareNames(std::string_view a, std::string_view b) {
  if (!a.empty() && !b.empty() && a[0] != b[0]) {
    return static_cast<unsigned char>(a[0]) < static_cast<unsigned char>(b[0]) ? -1 : 1;
  }
  return a.compare(b);
}

// The entry named `name` among `count` entries sorted by name, entry(i)
// giving the i-th as a ValueView (binary search), or nullopt.
template <typename Entry>
std::optional<ValueView> FindByName(size_t count, std::string_view name, Entry entry) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const ValueView at = entry(mid);
    const int c = CompareNames(at.name(), name);
    if (c == 0) return at;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return std::nullopt;
}

// The entry named `name` in a map, or nullopt.
std::optional<ValueView> FindEntry(const Container& map, std::string_view name) {
  return FindByName(map.count, name, [&](size_t i) { return EntryView(map.at(i)); });
}

// ---- Encoding ------------------------------------------------------------------------------

// Writes values into one string. A container's body is written first and its
// header (count, index) and tag inserted before it once its size is known:
// one memmove per container, no buffer per value.
class Packer {
 public:
  explicit Packer(std::string* out) : out_(out) {}

  void Value(const AttributeValue& v) {
    switch (v.type()) {
      case AttrType::kS: Scalar(v.type(), v.s()); return;
      case AttrType::kB: Scalar(v.type(), v.b()); return;
      case AttrType::kN: Scalar(v.type(), v.n().ToString()); return;
      case AttrType::kBool:
        out_->push_back(static_cast<char>(static_cast<uint8_t>(v.type()) | (v.boolean() << 4)));
        return;
      case AttrType::kNull: out_->push_back(static_cast<char>(v.type())); return;
      case AttrType::kM: Wrapped(v.type(), [&] { MapBody(v.m(), NoSkip); }); return;
      case AttrType::kL: Wrapped(v.type(), [&] { ListBody(v.l()); }); return;
      case AttrType::kSS: Wrapped(v.type(), [&] { Members(v.ss(), Plain); }); return;
      case AttrType::kBS: Wrapped(v.type(), [&] { Members(v.bs(), Plain); }); return;
      case AttrType::kNS: Wrapped(v.type(), [&] { Members(v.ns(), Text); }); return;
    }
  }

  // Named values in the (sorted, unique) order of `entries`: items and maps,
  // less those `skip` names.
  template <typename Entries, typename Skip>
  void MapBody(const Entries& entries, Skip skip) {
    const size_t start = out_->size();
    const size_t base = offsets_.size();
    for (const auto& [name, value] : entries) {
      if (skip(name)) continue;
      offsets_.push_back(out_->size() - start);
      PutVarint(out_, name.size());
      out_->append(name);
      Value(value);
    }
    InsertHeader(start, base);
  }

  static bool NoSkip(const std::string&) { return false; }

  // A table item's top-level entries (payload 04): the item less the key
  // attributes, each name as a reference, varint(2 * id + 1) for a name
  // `names` interns, else varint(2 * length) and its bytes.
  void TableItemBody(const Item& item, const format::StoredKeySchema& keys) {
    const size_t start = out_->size();
    const size_t base = offsets_.size();
    for (const auto& [name, value] : item) {
      if (keys.Holds(name)) continue;
      offsets_.push_back(out_->size() - start);
      const std::optional<uint32_t> id = keys.names ? keys.names->Intern(name) : std::nullopt;
      if (id) {
        PutVarint(out_, uint64_t{*id} * 2 + 1);
      } else {
        PutVarint(out_, uint64_t{name.size()} * 2);
        out_->append(name);
      }
      Value(value);
    }
    InsertHeader(start, base);
  }

 private:
  static std::string_view Plain(const std::string& s) { return s; }
  static std::string Text(const Number& n) { return n.ToString(); }

  void Scalar(AttrType type, std::string_view bytes) {
    PutTag(type, bytes.size());
    out_->append(bytes);
  }

  void PutTag(AttrType type, size_t length) {
    const auto t = static_cast<uint8_t>(type);
    if (length < kLongLength) {
      out_->push_back(static_cast<char>(t | length << 4));
    } else {
      out_->push_back(static_cast<char>(t | kLongLength << 4));
      PutVarint(out_, length);
    }
  }

  // A container value: its body, then its tag and length inserted before it.
  template <typename Fn>
  void Wrapped(AttrType type, Fn body) {
    const size_t start = out_->size();
    body();
    const size_t length = out_->size() - start;
    char tag[11];
    size_t n = 0;
    const auto t = static_cast<uint8_t>(type);
    if (length < kLongLength) {
      tag[n++] = static_cast<char>(t | length << 4);
    } else {
      tag[n++] = static_cast<char>(t | kLongLength << 4);
      for (uint64_t v = length; ; v >>= 7) {
        if (v < 0x80) {
          tag[n++] = static_cast<char>(v);
          break;
        }
        tag[n++] = static_cast<char>(v | 0x80);
      }
    }
    out_->insert(start, tag, n);
  }

  void ListBody(const AttributeValue::List& list) {
    const size_t start = out_->size();
    const size_t base = offsets_.size();
    for (const auto& value : list) {
      offsets_.push_back(out_->size() - start);
      Value(value);
    }
    InsertHeader(start, base);
  }

  template <typename T, typename Fn>
  void Members(const std::vector<T>& members, Fn bytes) {
    PutVarint(out_, members.size());
    for (const auto& m : members) {
      const auto b = bytes(m);
      PutVarint(out_, b.size());
      out_->append(b);
    }
  }

  // Inserts varint(count << 2 | w) and the index of offsets_[base..] before
  // the entries written from `start`; drops those offsets.
  void InsertHeader(size_t start, size_t base) {
    const size_t count = offsets_.size() - base;
    const size_t span = out_->size() - start;  // every offset is below it
    const uint32_t w = span <= 0xff ? 0 : span <= 0xffff ? 1 : 2;
    const size_t width = size_t{1} << w;
    header_.clear();
    PutVarint(&header_, count << 2 | w);
    for (size_t i = base; i < offsets_.size(); ++i) {
      const uint64_t o = offsets_[i];
      for (size_t b = 0; b < width; ++b) header_.push_back(static_cast<char>(o >> (8 * b)));
    }
    offsets_.resize(base);
    out_->insert(start, header_);
  }

  std::string* out_;
  std::vector<uint64_t> offsets_;  // a stack: each open container's entries
  std::string header_;
};

// ---- Verification (bytes of unknown origin) --------------------------------------------------

// Walks a payload with bounds checks, as ItemView::Open promises, adding up
// the DynamoDB size (format/item_size.h) on the way.
class Checker {
 public:
  // The body of a map or list in [p, end), which must be exactly its size.
  Status Container(const uint8_t* p, const uint8_t* end, bool is_map, int level, size_t* size) {
    uint64_t header;
    if (!ReadVarintChecked(&p, end, &header)) return Corrupt("truncated container header");
    const uint64_t w = header & 3;
    if (w == 3) return Corrupt("bad index width");
    const uint64_t width = uint64_t{1} << w;
    const uint64_t count = header >> 2;
    if (count > static_cast<uint64_t>(end - p) / width) return Corrupt("index past the end");
    const uint8_t* index = p;
    const uint8_t* entries = p + count * width;
    const uint8_t* q = entries;
    std::string_view prev;
    for (uint64_t i = 0; i < count; ++i) {
      if (ReadOffset(index, static_cast<uint32_t>(width), i) != static_cast<uint64_t>(q - entries)) {
        return Corrupt("index does not match the entries");
      }
      if (is_map) {
        uint64_t n;
        if (!ReadVarintChecked(&q, end, &n) || n > static_cast<uint64_t>(end - q)) {
          return Corrupt("truncated name");
        }
        const std::string_view name = Chars(q, n);
        if (i > 0 && !(prev < name)) return Corrupt("names out of order");
        prev = name;
        q += n;
        *size += 1 + name.size();  // M: 1 + key bytes per entry; items add their own
      } else {
        *size += 1;
      }
      DYNAROCK_RETURN_IF_ERROR(Value(&q, end, level, size));
    }
    if (q != end) return Corrupt("trailing bytes in a container");
    return Status::OK();
  }

  // One value at *p; advances past it.
  Status Value(const uint8_t** p, const uint8_t* end, int level, size_t* size) {
    if (level > kMaxNestingLevels) return Corrupt("nested too deep");
    if (*p == end) return Corrupt("truncated value");
    const uint8_t tag = *(*p)++;
    const AttrType type = TagType(tag);
    if ((tag & 0x0f) > static_cast<uint8_t>(AttrType::kBS)) return Corrupt("unknown value type");
    if (type == AttrType::kBool || type == AttrType::kNull) {
      if ((tag >> 4) > (type == AttrType::kBool ? 1 : 0)) return Corrupt("bad BOOL or NULL tag");
      *size += 1;
      return Status::OK();
    }
    uint64_t n = tag >> 4;
    if (n == kLongLength && !ReadVarintChecked(p, end, &n)) return Corrupt("truncated length");
    if (n > static_cast<uint64_t>(end - *p)) return Corrupt("value past the end");
    const uint8_t* body = *p;
    const uint8_t* body_end = body + n;
    *p = body_end;
    switch (type) {
      case AttrType::kS:
      case AttrType::kB: *size += n; return Status::OK();
      case AttrType::kN: return NumberText(Chars(body, n), size, nullptr);
      case AttrType::kM:
      case AttrType::kL: {
        size_t inner = 3;
        DYNAROCK_RETURN_IF_ERROR(Container(body, body_end, type == AttrType::kM, level + 1, &inner));
        *size += inner;
        return Status::OK();
      }
      default: return Set(type, body, body_end, size);
    }
  }

 private:
  // A canonical number's text; its parse in *out if asked.
  static Status NumberText(std::string_view text, size_t* size, Number* out) {
    auto n = Number::Parse(text);
    if (!n.ok() || n->ToString() != text) return Corrupt("number not in canonical form");
    *size += format::NumberSize(*n);
    if (out) *out = *n;
    return Status::OK();
  }

  static Status Set(AttrType type, const uint8_t* p, const uint8_t* end, size_t* size) {
    uint64_t count;
    if (!ReadVarintChecked(&p, end, &count)) return Corrupt("truncated set");
    if (count == 0) return Corrupt("empty set");
    std::string_view prev;
    Number prev_number, number;
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t n;
      if (!ReadVarintChecked(&p, end, &n) || n > static_cast<uint64_t>(end - p)) {
        return Corrupt("truncated set member");
      }
      const std::string_view member = Chars(p, n);
      p += n;
      if (type == AttrType::kNS) {
        DYNAROCK_RETURN_IF_ERROR(NumberText(member, size, &number));
        if (i > 0 && !(prev_number < number)) return Corrupt("set members out of order");
        prev_number = number;
      } else {
        if (i > 0 && !(prev < member)) return Corrupt("set members out of order");
        prev = member;
        *size += n;
      }
    }
    if (p != end) return Corrupt("trailing bytes in a set");
    return Status::OK();
  }
};

// ---- The FlatBuffers envelope --------------------------------------------------------------

// The payload of a PackedItem buffer at any alignment. FlatBuffers reads its
// offsets in place and so wants them aligned: a misaligned buffer's head
// (root offset, vtable, table, the vector's length, which the builder puts
// first: the payload vector is the last thing in the buffer) is located on
// an aligned copy and the payload then read from `bytes` itself.
std::string_view TrustedPayload(std::string_view bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  if (reinterpret_cast<uintptr_t>(data) % alignof(fbs::uoffset_t) == 0) {
    const auto* v = fbs::GetRoot<fb::PackedItem>(data)->data();
    return Chars(v->data(), v->size());
  }
  alignas(8) uint8_t head[64];
  const size_t n = std::min(bytes.size(), sizeof head);
  std::memcpy(head, data, n);
  const auto* v = fbs::GetRoot<fb::PackedItem>(head)->data();
  const auto at = static_cast<size_t>(reinterpret_cast<const uint8_t*>(v) - head);
  assert(at + sizeof(fbs::uoffset_t) <= n);  // so reading the length stays in `head`
  return bytes.substr(at + sizeof(fbs::uoffset_t), v->size());
}

// The FlatBuffers buffer around `payload`, in *out.
void Envelope(std::string_view payload, std::string* out) {
  thread_local fbs::FlatBufferBuilder b(512);
  b.Clear();
  uint8_t* dest;
  const auto vec = b.CreateUninitializedVector(payload.size(), &dest);
  std::memcpy(dest, payload.data(), payload.size());
  b.Finish(fb::CreatePackedItem(b, vec));
  out->assign(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

// The payload of a PackedItem buffer of unknown origin: the envelope is run
// through the FlatBuffers verifier on an aligned copy, the payload then
// located in `bytes` itself. Corruption if the envelope is not valid.
Result<std::string_view> VerifiedPayload(std::string_view bytes) {
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  if (!bytes.empty()) std::memcpy(aligned.data(), bytes.data(), bytes.size());
  const auto* copy = reinterpret_cast<const uint8_t*>(aligned.data());
  fbs::Verifier verifier(copy, bytes.size());
  if (!verifier.VerifyBuffer<fb::PackedItem>(nullptr)) return Corrupt("not a valid item buffer");
  const auto* v = fbs::GetRoot<fb::PackedItem>(copy)->data();
  if (v == nullptr) return Corrupt("no payload");
  const auto at = static_cast<size_t>(v->data() - copy);
  return bytes.substr(at, v->size());
}

ItemView ViewOfPayload(std::string_view payload) {
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data()) + 1;  // the version
  const auto size = static_cast<uint32_t>(ReadVarint(&p));
  const Container top = OpenContainer(p);
  const auto* end = reinterpret_cast<const uint8_t*>(payload.data()) + payload.size();
  return ItemCodecAccess::Item(top.index, top.entries, end, top.count, top.width, size);
}

}  // namespace

// ---- format:: ------------------------------------------------------------------------------

namespace {

// A table item's entry at `entry` whose name is a reference (payload 04):
// the name (an interned one looked up in `names`; nullopt for an id it
// does not hold), and its value's tag in *tag (trusted bytes).
[[gnu::always_inline]] inline std::optional<std::string_view> RefEntryName(const uint8_t* entry,
                                             const format::AttributeNames* names,
                                             const uint8_t** tag) {
  const uint8_t* p = entry;
  const uint64_t ref = ReadVarint(&p);
  if (ref % 2 == 0) {
    *tag = p + ref / 2;
    return Chars(p, static_cast<size_t>(ref / 2));
  }
  *tag = p;
  if (names == nullptr) return std::nullopt;
  return names->Name(static_cast<uint32_t>(ref / 2));
}

// A table item's entry at `entry` in a payload of `version` (03: a plain
// name; 04: a reference): its name, and its value's tag in *tag.
Status TableEntryName(uint8_t version, const uint8_t* entry, const format::AttributeNames* names,
                      std::string_view* name, const uint8_t** tag) {
  if (version == kWithoutKeyVersion) {
    *name = EntryName(entry, tag);
    return Status::OK();
  }
  const std::optional<std::string_view> found = RefEntryName(entry, names, tag);
  if (!found) return Corrupt("an interned name the table does not know");
  *name = *found;
  return Status::OK();
}

// A key's attributes in the order of its components (KEY_FORMAT.md), each
// marked if it repeats an earlier one (an index key holds the table's key
// after the index's own, and they may share an attribute) or is one the
// value keeps (a multi-attribute GSI's further components: no name here).
struct KeyComponents {
  format::KeyAttributeRef at[format::StoredKeySchema::kMaxKeyComponents];
  bool repeat[format::StoredKeySchema::kMaxKeyComponents];
  bool skip[format::StoredKeySchema::kMaxKeyComponents];
  size_t count = 0;

  explicit KeyComponents(const format::StoredKeySchema& keys) {
    Add(keys.partition);
    for (ScalarAttributeType t : keys.more_partition.view()) Skip(t);
    if (keys.sort) Add(*keys.sort);
    if (keys.sort) {
      for (ScalarAttributeType t : keys.more_sort.view()) Skip(t);
    }
    if (keys.table_partition) Add(*keys.table_partition);
    if (keys.table_sort) Add(*keys.table_sort);
  }

 private:
  void Add(const format::KeyAttributeRef& a) {
    repeat[count] = false;
    skip[count] = false;
    for (size_t i = 0; i < count; ++i) {
      repeat[count] = repeat[count] || (!skip[i] && at[i].name == a.name);
    }
    at[count++] = a;
  }
  void Skip(ScalarAttributeType t) {
    repeat[count] = false;
    skip[count] = true;
    at[count++] = format::KeyAttributeRef{std::string_view(), t};
  }
};

// The key attributes in `key` (an item key, or an index entry's), decoded
// and handed to fn(name, AttributeValue&&) each once, in the key's order
// (an attribute an index key holds twice must hold one value).
template <typename Fn>
Status ForEachKeyValue(std::string_view key, const format::StoredKeySchema& keys, Fn fn) {
  const format::KeySchemaTypes own{keys.partition.type,
                                   keys.sort ? std::optional(keys.sort->type) : std::nullopt,
                                   keys.more_partition, keys.more_sort};
  if (!keys.table_partition) {
    DYNAROCK_ASSIGN_OR_RETURN(format::DecodedItemKey d, format::DecodeItemKey(key, own));
    fn(keys.partition.name, std::move(d.pk));
    if (keys.sort && d.sk) fn(keys.sort->name, std::move(*d.sk));
    return Status::OK();
  }
  DYNAROCK_ASSIGN_OR_RETURN(
      format::DecodedIndexKey d,
      format::DecodeIndexKey(key, own,
                             {keys.table_partition->type,
                              keys.table_sort ? std::optional(keys.table_sort->type)
                                              : std::nullopt}));
  // In the key's order (KeyComponents'); a repeat is checked against the
  // first, then skipped, and so is a component the value keeps.
  AttributeValue* values[format::StoredKeySchema::kMaxKeyComponents];
  size_t n = 0;
  values[n++] = &d.index.pk;
  for (auto& v : d.index.more_pk) values[n++] = &v;
  if (d.index.sk) values[n++] = &*d.index.sk;
  for (auto& v : d.index.more_sk) values[n++] = &v;
  values[n++] = &d.pk;
  if (d.sk) values[n++] = &*d.sk;
  const KeyComponents components(keys);
  if (n != components.count) return Corrupt("the key does not match the key schema");
  for (size_t c = 0; c < n; ++c) {
    if (!components.repeat[c]) continue;
    for (size_t first = 0; first < c; ++first) {
      if (!components.skip[first] && components.at[first].name == components.at[c].name &&
          !(*values[first] == *values[c])) {
        return Corrupt("an index key holds one attribute with two values");
      }
    }
  }
  for (size_t c = 0; c < n; ++c) {
    if (!components.repeat[c] && !components.skip[c]) {
      fn(components.at[c].name, std::move(*values[c]));
    }
  }
  return Status::OK();
}

// The payload of bytes in the current encoding (trusted).
std::string_view CurrentPayload(std::string_view bytes) { return TrustedPayload(bytes); }

// One key component's value as a whole item stores it: S and B as a view
// of the key itself when they hold no zero byte (the usual case: no copy,
// no allocation), else unescaped into *owned; N as its canonical text, in
// *owned. Advances *rest past the component.
Status KeyComponentValue(std::string_view* rest, ScalarAttributeType type, std::string* owned,
                         std::string_view* value) {
  if (type == ScalarAttributeType::kN) {
    Number n;
    DYNAROCK_RETURN_IF_ERROR(format::GetNumberComponent(rest, &n));
    *owned = n.ToString();
    *value = *owned;
    return Status::OK();
  }
  const auto* zero = static_cast<const char*>(std::memchr(rest->data(), 0, rest->size()));
  if (zero != nullptr && zero + 1 < rest->data() + rest->size() && zero[1] == '\x01') {
    *value = rest->substr(0, static_cast<size_t>(zero - rest->data()));
    rest->remove_prefix(value->size() + 2);
    return Status::OK();
  }
  DYNAROCK_RETURN_IF_ERROR(format::GetBytesComponent(rest, owned));
  *value = *owned;
  return Status::OK();
}

AttrType KeyAttrType(ScalarAttributeType t) {
  return t == ScalarAttributeType::kS   ? AttrType::kS
         : t == ScalarAttributeType::kN ? AttrType::kN
                                        : AttrType::kB;
}

// A scalar value written into *out at `at` (tag, and length, then its
// bytes), growing *out if it is too short (never shrinking it: a reused
// buffer reaches its size once); returns where the value ends.
size_t PutScalarAt(std::string* out, size_t at, AttrType type, std::string_view bytes) {
  const size_t most = at + 11 + bytes.size();  // tag, a varint of at most 10 bytes
  if (out->size() < most) out->resize(most + 64);
  auto* p = reinterpret_cast<uint8_t*>(out->data() + at);
  const auto t = static_cast<uint8_t>(type);
  if (bytes.size() < kLongLength) {
    *p++ = static_cast<uint8_t>(t | bytes.size() << 4);
  } else {
    *p++ = static_cast<uint8_t>(t | kLongLength << 4);
    uint64_t v = bytes.size();
    for (; v >= 0x80; v >>= 7) *p++ = static_cast<uint8_t>(v | 0x80);
    *p++ = static_cast<uint8_t>(v);
  }
  if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
  return static_cast<size_t>(p + bytes.size() - reinterpret_cast<uint8_t*>(out->data()));
}

}  // namespace

// A view of a table item (payload 03 or 04): the stored entries where they
// lie; the key attributes decoded from `key` and encoded as values into
// *scratch, held beside them. One pass over the entries resolves every name
// (an id the dictionary lacks is Corruption, never a wrong name) and finds
// the key attributes' places in name order.
Result<ItemView> ItemCodecAccess::TableItem(std::string_view payload, std::string_view key,
                                            const format::StoredKeySchema& keys,
                                            std::string* scratch) {
  if (key.size() < format::kKeyPrefixBytes) return Corrupt("item key too short");
  std::string_view rest = key.substr(format::kKeyPrefixBytes);
  thread_local std::string owned;
  std::string_view value;
  // Each key attribute once, its value written into *scratch.
  const KeyComponents components(keys);
  size_t at[format::StoredKeySchema::kMaxKeyAttributes];
  std::string_view names[format::StoredKeySchema::kMaxKeyAttributes];
  size_t n = 0, used = 0;
  for (size_t c = 0; c < components.count; ++c) {
    const format::KeyAttributeRef& a = components.at[c];
    DYNAROCK_RETURN_IF_ERROR(KeyComponentValue(&rest, a.type, &owned, &value));
    if (components.repeat[c] || components.skip[c]) continue;
    at[n] = used;
    names[n++] = a.name;
    used = PutScalarAt(scratch, used, KeyAttrType(a.type), value);
  }
  if (!rest.empty()) return Corrupt("trailing bytes after the item key");

  ItemView view = ViewOfPayload(payload);
  view.refs_ = static_cast<uint8_t>(payload[0]) == kInternedVersion;
  view.names_ = keys.names;
  const auto* base = reinterpret_cast<const uint8_t*>(scratch->data());
  view.key_values_ = base;
  view.key_values_size_ = static_cast<uint32_t>(used);
  view.key_count_ = static_cast<uint8_t>(n);
  for (size_t k = 0; k < n; ++k) {  // in name order
    size_t j = k;
    for (; j > 0 && CompareNames(names[k], view.beside_[j - 1].name) < 0; --j) {
      view.beside_[j] = view.beside_[j - 1];
    }
    view.beside_[j] = {names[k], base + at[k], 0};
  }
  size_t k = 0;
  for (uint32_t i = 0; i < view.count_; ++i) {
    const uint8_t* entry = view.entries_ + ReadOffset(view.index_, view.width_, i);
    const uint8_t* tag;
    const std::optional<std::string_view> name =
        view.refs_ ? RefEntryName(entry, keys.names, &tag) : EntryName(entry, &tag);
    if (!name) return Corrupt("an interned name the table does not know");
    for (; k < view.key_count_ && CompareNames(view.beside_[k].name, *name) < 0; ++k) {
      view.beside_[k].position = static_cast<uint32_t>(i + k);
    }
  }
  for (; k < view.key_count_; ++k) view.beside_[k].position = static_cast<uint32_t>(view.count_ + k);
  return view;
}

void format::EncodeItem(const Item& item, size_t size, std::string* out) {
  assert(size == ItemSize(item));
  thread_local std::string payload;  // reused: a load encodes millions
  payload.clear();
  payload.push_back(static_cast<char>(kPayloadVersion));
  PutVarint(&payload, size);
  Packer(&payload).MapBody(item, Packer::NoSkip);
  Envelope(payload, out);
}

void format::EncodeItemWithoutKey(const Item& item, size_t size, const StoredKeySchema& keys,
                                  std::string* out) {
  assert(size == ItemSize(item));
  thread_local std::string payload;
  payload.clear();
  payload.push_back(static_cast<char>(kInternedVersion));
  PutVarint(&payload, size);
  Packer(&payload).TableItemBody(item, keys);
  Envelope(payload, out);
}

bool format::IsStoredWithoutKey(std::string_view bytes) {
  const std::string_view payload = CurrentPayload(bytes);
  return WithoutKey(payload);
}

bool format::IsCurrentTableItem(std::string_view bytes) {
  if (IsItemV1(bytes)) return false;
  const std::string_view payload = CurrentPayload(bytes);
  return !payload.empty() && static_cast<uint8_t>(payload[0]) == kInternedVersion;
}

namespace {

// A table item's payload (03 or 04) of unknown origin, walked with bounds
// checks as ItemView::Open walks a whole item's: the index, each name (a
// reference resolved in `keys.names`), names strictly ascending and none a
// key attribute, each value; and the stored size against the attributes'
// plus the key's.
Status CheckTableItem(std::string_view payload, std::string_view key,
                      const format::StoredKeySchema& keys) {
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const uint8_t* end = p + payload.size();
  const uint8_t version = *p++;
  uint64_t stored;
  if (!ReadVarintChecked(&p, end, &stored)) return Corrupt("bad size");
  uint64_t header;
  if (!ReadVarintChecked(&p, end, &header)) return Corrupt("truncated container header");
  if ((header & 3) == 3) return Corrupt("bad index width");
  const uint64_t width = uint64_t{1} << (header & 3);
  const uint64_t count = header >> 2;
  if (count > static_cast<uint64_t>(end - p) / width) return Corrupt("index past the end");
  const uint8_t* index = p;
  const uint8_t* entries = p + count * width;
  const uint8_t* q = entries;
  size_t size = 0;
  std::string_view prev;
  for (uint64_t i = 0; i < count; ++i) {
    if (ReadOffset(index, static_cast<uint32_t>(width), i) != static_cast<uint64_t>(q - entries)) {
      return Corrupt("index does not match the entries");
    }
    uint64_t ref;
    if (!ReadVarintChecked(&q, end, &ref)) return Corrupt("truncated name");
    std::string_view name;
    if (version == kWithoutKeyVersion || ref % 2 == 0) {
      const uint64_t n = version == kWithoutKeyVersion ? ref : ref / 2;
      if (n > static_cast<uint64_t>(end - q)) return Corrupt("truncated name");
      name = Chars(q, n);
      q += n;
    } else {
      const auto interned = keys.names && ref / 2 <= UINT32_MAX
                                ? keys.names->Name(static_cast<uint32_t>(ref / 2))
                                : std::nullopt;
      if (!interned) return Corrupt("an interned name the table does not know");
      name = *interned;
    }
    if (i > 0 && !(prev < name)) return Corrupt("names out of order");
    if (keys.Holds(name)) {
      return Corrupt("a key attribute stored in the value");
    }
    prev = name;
    size += name.size();
    DYNAROCK_RETURN_IF_ERROR(Checker().Value(&q, end, 2, &size));
  }
  if (q != end) return Corrupt("trailing bytes in a container");
  DYNAROCK_RETURN_IF_ERROR(
      ForEachKeyValue(key, keys, [&](std::string_view name, AttributeValue&& value) {
        size += name.size() + format::AttributeValueSize(value);
      }));
  if (stored != size) return Corrupt("stored size differs from the attributes' size");
  return Status::OK();
}

}  // namespace

Result<Item> format::VerifyStoredItem(std::string_view key, std::string_view value,
                                      const StoredKeySchema& keys) {
  if (IsItemV1(value)) return DecodeItemV1(value, /*verify=*/true);
  DYNAROCK_ASSIGN_OR_RETURN(const std::string_view payload, VerifiedPayload(value));
  if (!WithoutKey(payload)) return DecodeItem(value);
  DYNAROCK_RETURN_IF_ERROR(CheckTableItem(payload, key, keys));
  return DecodeStoredItem(key, value, keys);
}

Result<Item> format::DecodeStoredItem(std::string_view key, std::string_view value,
                                      const StoredKeySchema& keys) {
  if (IsItemV1(value)) return DecodeItemV1(value, /*verify=*/false);
  const std::string_view payload = CurrentPayload(value);
  if (!WithoutKey(payload)) return ViewOfPayload(payload).Decode();
  // Entries whose names may be interned, then the key's attributes.
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data()) + 1;
  ReadVarint(&p);  // the size
  const Container stored = OpenContainer(p);
  Item item;
  for (size_t i = 0; i < stored.count; ++i) {
    std::string_view name;
    const uint8_t* tag;
    DYNAROCK_RETURN_IF_ERROR(
        TableEntryName(static_cast<uint8_t>(payload[0]), stored.at(i), keys.names, &name, &tag));
    DYNAROCK_ASSIGN_OR_RETURN(auto v, ItemCodecAccess::Value(tag, name).Decode());
    item.emplace(std::string(name), std::move(v));
  }
  DYNAROCK_RETURN_IF_ERROR(
      ForEachKeyValue(key, keys, [&](std::string_view name, AttributeValue&& value) {
        item.insert_or_assign(std::string(name), std::move(value));
      }));
  return item;
}

Result<ItemView> format::OpenStoredItem(std::string_view key, std::string_view value,
                                        const StoredKeySchema& keys, std::string* scratch) {
  if (IsItemV1(value)) return OpenStoredItem(value, scratch);
  const std::string_view payload = CurrentPayload(value);
  if (!WithoutKey(payload)) return ViewOfPayload(payload);
  return ItemCodecAccess::TableItem(payload, key, keys, scratch);
}

Result<size_t> format::StoredItemSize(std::string_view bytes) {
  if (IsItemV1(bytes)) {
    DYNAROCK_ASSIGN_OR_RETURN(Item item, DecodeItemV1(bytes, /*verify=*/false));
    return ItemSize(item);
  }
  const auto* p = reinterpret_cast<const uint8_t*>(CurrentPayload(bytes).data()) + 1;
  return static_cast<size_t>(ReadVarint(&p));
}

Result<std::optional<std::string>> format::UpgradeStoredItem(std::string_view key,
                                                             std::string_view value,
                                                             const StoredKeySchema& keys) {
  std::string out;
  if (!IsItemV1(value)) {
    DYNAROCK_ASSIGN_OR_RETURN(const std::string_view payload, VerifiedPayload(value));
    if (!payload.empty() && static_cast<uint8_t>(payload[0]) == kInternedVersion) {
      return std::optional<std::string>();
    }
    if (WithoutKey(payload)) {
      // Without its key already (storage format 11), names written out:
      // the same entries, now as references.
      DYNAROCK_ASSIGN_OR_RETURN(Item item, VerifyStoredItem(key, value, keys));
      EncodeItemWithoutKey(item, ItemSize(item), keys, &out);
      return std::optional<std::string>(std::move(out));
    }
  }
  DYNAROCK_ASSIGN_OR_RETURN(Item item, DecodeItem(value));
  // The stored attributes must be the key's: the move drops them from the value.
  bool differs = false;
  DYNAROCK_RETURN_IF_ERROR(
      ForEachKeyValue(key, keys, [&](std::string_view name, AttributeValue&& value) {
        auto stored = item.find(std::string(name));
        differs = differs || stored == item.end() || !(stored->second == value);
      }));
  if (differs) return Corrupt("a stored key attribute differs from the key's");
  EncodeItemWithoutKey(item, ItemSize(item), keys, &out);
  return std::optional<std::string>(std::move(out));
}

void format::EncodeItem(const Item& item, std::string* out) {
  EncodeItem(item, ItemSize(item), out);
}

std::string format::EncodeItem(const Item& item) {
  std::string out;
  EncodeItem(item, &out);
  return out;
}

bool format::IsCurrentItemEncoding(std::string_view bytes) { return !IsItemV1(bytes); }

Result<ItemView> format::OpenStoredItem(std::string_view bytes, std::string* scratch) {
  if (!IsItemV1(bytes)) {
    if (IsStoredWithoutKey(bytes)) return Corrupt("an item stored without its key, read without it");
    return ItemView::OpenTrusted(bytes);
  }
  DYNAROCK_ASSIGN_OR_RETURN(Item item, DecodeItemV1(bytes, /*verify=*/false));
  EncodeItem(item, scratch);
  return ItemView::OpenTrusted(*scratch);
}

Result<std::optional<std::string>> format::UpgradeStoredItem(std::string_view bytes) {
  if (!IsItemV1(bytes)) return std::optional<std::string>();
  DYNAROCK_ASSIGN_OR_RETURN(Item item, DecodeItemV1(bytes, /*verify=*/true));
  return std::optional<std::string>(EncodeItem(item));
}

Result<Item> format::DecodeItem(std::string_view bytes) {
  if (IsItemV1(bytes)) return DecodeItemV1(bytes, /*verify=*/true);
  DYNAROCK_ASSIGN_OR_RETURN(auto view, ItemView::Open(bytes));
  return view.Decode();
}

Result<Item> format::DecodeTrustedItem(std::string_view bytes) {
  if (IsItemV1(bytes)) return DecodeItemV1(bytes, /*verify=*/false);
  if (IsStoredWithoutKey(bytes)) return Corrupt("an item stored without its key, read without it");
  return ItemView::OpenTrusted(bytes).Decode();
}

// ---- ItemView ------------------------------------------------------------------------------

Result<ItemView> ItemView::Open(std::string_view bytes) {
  if (format::IsItemV1(bytes)) return Corrupt("version 1 bytes (format::OpenStoredItem reads them)");
  DYNAROCK_ASSIGN_OR_RETURN(const std::string_view payload, VerifiedPayload(bytes));
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const uint8_t* end = p + payload.size();
  if (p == end) return Corrupt("empty payload");
  if (*p == kWithoutKeyVersion || *p == kInternedVersion) {
    return Corrupt("an item stored without its key (format::OpenStoredItem with its key reads it)");
  }
  if (*p != kPayloadVersion) {
    return Status::Corruption("item: unsupported format version " + std::to_string(*p));
  }
  ++p;
  uint64_t stored;
  if (!ReadVarintChecked(&p, end, &stored) || stored > UINT32_MAX) return Corrupt("bad size");
  size_t size = 0;
  DYNAROCK_RETURN_IF_ERROR(Checker().Container(p, end, /*is_map=*/true, 2, &size));
  // Top-level attributes count name + value, not the map's 1 + 3.
  const ItemView view = ViewOfPayload(payload);
  size -= view.size();
  if (stored != size) return Corrupt("stored size differs from the attributes' size");
  return view;
}

ItemView ItemView::OpenTrusted(std::string_view bytes) {
  return ViewOfPayload(TrustedPayload(bytes));
}

ValueView ItemView::Stored(size_t j) const {
  const uint8_t* entry = entries_ + ReadOffset(index_, width_, j);
  if (!refs_) return EntryView(entry);
  const uint8_t* tag;
  // Every id was found when the view was opened (TableItem).
  const std::optional<std::string_view> name = RefEntryName(entry, names_, &tag);
  return ItemCodecAccess::Value(tag, name.value_or(std::string_view()));
}

ValueView ItemView::value(size_t i) const {
  size_t j = i;
  for (size_t k = 0; k < key_count_; ++k) {
    if (beside_[k].position == i) return ItemCodecAccess::Value(beside_[k].tag, beside_[k].name);
    if (beside_[k].position < i) --j;
  }
  return Stored(j);
}

std::optional<ValueView> ItemView::Find(std::string_view name) const {
  for (size_t k = 0; k < key_count_; ++k) {
    if (beside_[k].name.size() == name.size() && CompareNames(beside_[k].name, name) == 0) {
      return ItemCodecAccess::Value(beside_[k].tag, beside_[k].name);
    }
  }
  return FindByName(count_, name, [this](size_t j) { return Stored(j); });
}

size_t ItemView::ByteSize() const {
  size_t n = static_cast<size_t>(end_ - index_) + key_values_size_;
  for (size_t k = 0; k < key_count_; ++k) n += beside_[k].name.size();
  return n;
}

ItemView ItemView::CopyTo(char* out) const {
  ItemView copy = *this;
  auto* at = reinterpret_cast<uint8_t*>(out);
  const auto n = static_cast<size_t>(end_ - index_);
  if (n != 0) std::memcpy(at, index_, n);
  copy.index_ = at;
  copy.entries_ = at + (entries_ - index_);
  copy.end_ = at + n;
  at += n;
  if (key_count_ == 0) return copy;
  std::memcpy(at, key_values_, key_values_size_);
  copy.key_values_ = at;
  for (size_t k = 0; k < key_count_; ++k) copy.beside_[k].tag = at + (beside_[k].tag - key_values_);
  at += key_values_size_;
  for (size_t k = 0; k < key_count_; ++k) {
    const std::string_view name = beside_[k].name;
    std::memcpy(at, name.data(), name.size());
    copy.beside_[k].name = Chars(at, name.size());
    at += name.size();
  }
  return copy;
}

std::optional<ValueView> ItemView::FindPath(std::span<const PathElement> path) const {
  if (path.empty() || !std::holds_alternative<std::string>(path[0])) return std::nullopt;
  std::optional<ValueView> v = Find(std::get<std::string>(path[0]));
  for (size_t i = 1; v && i < path.size(); ++i) {
    if (const auto* name = std::get_if<std::string>(&path[i])) {
      v = v->Find(*name);
    } else {
      v = v->At(std::get<size_t>(path[i]));
    }
  }
  return v;
}

Result<Item> ItemView::Decode() const {
  Item item;
  for (size_t i = 0; i < size(); ++i) {
    const ValueView v = value(i);
    DYNAROCK_ASSIGN_OR_RETURN(auto decoded, v.Decode());
    item.emplace_hint(item.end(), std::string(v.name()), std::move(decoded));
  }
  return item;
}

// ---- ValueView -----------------------------------------------------------------------------

AttrType ValueView::type() const { return TagType(*tag_); }

std::string_view ValueView::bytes() const {
  const Body b = BodyOf(tag_);
  return Chars(b.data, b.size);
}

std::string_view ValueView::number_text() const { return bytes(); }

Result<Number> ValueView::number() const {
  auto n = Number::Parse(bytes());
  if (!n.ok()) return Corrupt("stored number does not parse");
  return n;
}

bool ValueView::boolean() const { return (*tag_ >> 4) != 0; }

size_t ValueView::size() const {
  switch (type()) {
    case AttrType::kM:
    case AttrType::kL: return OpenContainer(BodyOf(tag_).data).count;
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: {
      const uint8_t* p = BodyOf(tag_).data;
      return static_cast<size_t>(ReadVarint(&p));
    }
    default: return 0;
  }
}

std::optional<ValueView> ValueView::Find(std::string_view name) const {
  if (type() != AttrType::kM) return std::nullopt;
  return FindEntry(OpenContainer(BodyOf(tag_).data), name);
}

std::optional<ValueView> ValueView::At(size_t index) const {
  if (type() != AttrType::kL) return std::nullopt;
  const Container list = OpenContainer(BodyOf(tag_).data);
  if (index >= list.count) return std::nullopt;
  return ValueView(list.at(index), {});
}

ValueView ValueView::Entry(size_t i) const {
  return EntryView(OpenContainer(BodyOf(tag_).data).at(i));
}

std::string_view ValueView::member(size_t i) const {
  const uint8_t* p = BodyOf(tag_).data;
  ReadVarint(&p);  // the count
  for (size_t k = 0;; ++k) {
    const auto n = static_cast<size_t>(ReadVarint(&p));
    if (k == i) return Chars(p, n);
    p += n;
  }
}

Result<Number> ValueView::number_member(size_t i) const {
  auto n = Number::Parse(member(i));
  if (!n.ok()) return Corrupt("stored number does not parse");
  return n;
}

namespace {

template <typename T, typename Fn>
Result<std::vector<T>> Members(const uint8_t* p, Fn make) {
  const auto count = static_cast<size_t>(ReadVarint(&p));
  std::vector<T> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const auto n = static_cast<size_t>(ReadVarint(&p));
    DYNAROCK_ASSIGN_OR_RETURN(T m, make(Chars(p, n)));
    out.push_back(std::move(m));
    p += n;
  }
  return out;
}

Result<std::string> PlainMember(std::string_view s) { return std::string(s); }

Result<Number> NumberMember(std::string_view s) {
  auto n = Number::Parse(s);
  if (!n.ok()) return Corrupt("stored number does not parse");
  return n;
}

}  // namespace

Result<AttributeValue> ValueView::Decode() const {
  const Body body = BodyOf(tag_);
  switch (type()) {
    case AttrType::kS: return AttributeValue::S(std::string(Chars(body.data, body.size)));
    case AttrType::kB: return AttributeValue::B(std::string(Chars(body.data, body.size)));
    case AttrType::kN: {
      DYNAROCK_ASSIGN_OR_RETURN(auto n, number());
      return AttributeValue::N(n);
    }
    case AttrType::kBool: return AttributeValue::Bool(boolean());
    case AttrType::kNull: return AttributeValue::Null();
    case AttrType::kM: {
      const Container map = OpenContainer(body.data);
      AttributeValue::Map entries;
      entries.reserve(map.count);
      for (size_t i = 0; i < map.count; ++i) {
        const ValueView e = EntryView(map.at(i));
        DYNAROCK_ASSIGN_OR_RETURN(auto v, e.Decode());
        entries.emplace_back(std::string(e.name()), std::move(v));
      }
      // Stored sorted and unique: M() keeps them as they are.
      return AttributeValue::M(std::move(entries));
    }
    case AttrType::kL: {
      const Container list = OpenContainer(body.data);
      AttributeValue::List elements;
      elements.reserve(list.count);
      for (size_t i = 0; i < list.count; ++i) {
        DYNAROCK_ASSIGN_OR_RETURN(auto v, ValueView(list.at(i), {}).Decode());
        elements.push_back(std::move(v));
      }
      return AttributeValue::L(std::move(elements));
    }
    case AttrType::kSS: {
      DYNAROCK_ASSIGN_OR_RETURN(auto m, Members<std::string>(body.data, PlainMember));
      return AttributeValue::SS(std::move(m));
    }
    case AttrType::kBS: {
      DYNAROCK_ASSIGN_OR_RETURN(auto m, Members<std::string>(body.data, PlainMember));
      return AttributeValue::BS(std::move(m));
    }
    case AttrType::kNS: {
      DYNAROCK_ASSIGN_OR_RETURN(auto m, Members<Number>(body.data, NumberMember));
      return AttributeValue::NS(std::move(m));
    }
  }
  return Corrupt("unknown value type");
}

}  // namespace dynarock
