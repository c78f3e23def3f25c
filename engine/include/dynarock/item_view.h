// ItemView and ValueView: read-only views of an item stored in Dynarock's
// item encoding (format/ITEM_FORMAT.md), walked in place without decoding, so
// a projection or a filter touches only the attributes it names.
#ifndef DYNAROCK_ITEM_VIEW_H_
#define DYNAROCK_ITEM_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "dynarock/attribute_value.h"
#include "dynarock/status.h"

namespace dynarock {

namespace format {
class AttributeNames;  // format/item_codec.h: a table's interned names
}  // namespace format

// One step of a document path: a map key or a list index.
using PathElement = std::variant<std::string, size_t>;

// A read-only view of one encoded value. Valid while the buffer lives.
// Cheap to copy (two pointers and a name).
class ValueView {
 public:
  AttrType type() const;
  // S: UTF-8 bytes; B: raw bytes. REQUIRES: type() is kS or kB.
  std::string_view bytes() const;
  // N. REQUIRES: type() is kN. Corruption if the stored text is not a number.
  Result<Number> number() const;
  // N: the number as stored, DynamoDB's canonical decimal text (what
  // Number::ToString() gives), for writers that need no arithmetic.
  // REQUIRES: type() is kN.
  std::string_view number_text() const;
  // BOOL. REQUIRES: type() is kBool.
  bool boolean() const;
  // Entries of M, elements of L, members of SS/NS/BS; 0 otherwise.
  size_t size() const;
  // M: the value under `name`. L: the element at `index`. nullopt if absent or
  // if this value has another type.
  std::optional<ValueView> Find(std::string_view name) const;
  std::optional<ValueView> At(size_t index) const;
  // M: the i-th entry (sorted by name) and its name. REQUIRES: i < size().
  ValueView Entry(size_t i) const;
  // The name of a map entry or top-level attribute ("" for list elements).
  std::string_view name() const { return name_; }
  // SS/BS: the i-th member's bytes; NS: its canonical decimal text.
  // REQUIRES: i < size().
  std::string_view member(size_t i) const;
  // NS: the i-th member, parsed. REQUIRES: type() is kNS and i < size().
  Result<Number> number_member(size_t i) const;

  // Full decode; Corruption on anything malformed (only possible for bytes
  // opened with ItemView::OpenTrusted).
  Result<AttributeValue> Decode() const;

 private:
  friend class ItemView;
  friend struct ItemCodecAccess;  // format/item_codec.cc
  ValueView(const uint8_t* tag, std::string_view name) : tag_(tag), name_(name) {}
  const uint8_t* tag_;    // the value's tag byte, followed by its length and body
  std::string_view name_;
};

// A read-only view of an encoded item (format/ITEM_FORMAT.md), as Query and
// Scan hand them out with ItemEncoding::kStored. Valid while the bytes it
// reads live. Views read the current encoding (version 2) only: bytes an
// older Dynarock stored are rewritten first (format::OpenStoredItem).
//
// A base-table item is stored without its key attributes, which its
// RocksDB key holds, and names attributes by interned ids: its view
// (format::OpenStoredItem with the key) reads the stored entries in place,
// resolves names in the table's dictionary, and holds the key attributes
// beside them, so it shows the whole item without rewriting it. Cheap to
// copy (a few pointers).
class ItemView {
 public:
  // For bytes of unknown origin: verifies the FlatBuffers envelope, the
  // version byte and the whole payload (bounds, types, the offset index,
  // names strictly ascending, sets non-empty and ascending, numbers
  // canonical, nesting within limits, the stored size). Corruption if any
  // check fails; never reads out of bounds. Any alignment.
  static Result<ItemView> Open(std::string_view bytes);
  // For bytes that format::EncodeItem produced and storage checksummed: skips
  // the verification. Any alignment. REQUIRES: bytes came from EncodeItem.
  static ItemView OpenTrusted(std::string_view bytes);

  // Number of top-level attributes.
  size_t size() const { return count_ + key_count_; }
  // The item's DynamoDB size as its writer stored it (format/item_size.h;
  // Open checks it against the attributes).
  uint32_t stored_size() const { return stored_size_; }
  // The i-th top-level attribute, in ascending order of names.
  // REQUIRES: i < size().
  std::string_view name(size_t i) const { return value(i).name(); }
  ValueView value(size_t i) const;
  // The top-level attribute `name` (binary search), or nullopt.
  std::optional<ValueView> Find(std::string_view name) const;
  // The value at a document path (a.b[2].c), or nullopt if any step is absent.
  // REQUIRES: path is non-empty and starts with a name.
  std::optional<ValueView> FindPath(std::span<const PathElement> path) const;

  Result<Item> Decode() const;

  // For a page that keeps items after the buffers they were read from are
  // gone (StoredItems): the bytes this view reads (its attributes, and a
  // table item's key attributes with their names) copied into `out`, which
  // must hold ByteSize() bytes at any alignment, and a view of the copy. A
  // table item's interned names still resolve in its table's dictionary,
  // which lives as long as the Database.
  size_t ByteSize() const;
  ItemView CopyTo(char* out) const;

 private:
  friend struct ItemCodecAccess;
  ItemView() = default;
  // A key attribute held beside the stored entries: its name, its value
  // (tag, length, body, as an entry's value is encoded) and its place
  // among the item's attributes in name order.
  struct Beside {
    std::string_view name;
    const uint8_t* tag = nullptr;
    uint32_t position = 0;
  };
  ValueView Stored(size_t j) const;  // the j-th stored entry

  // The stored map: `count_` entries at `entries_`, the i-th at
  // entries_ + offset i of the index (`width_` bytes each, at `index_`);
  // its bytes end at `end_`.
  const uint8_t* index_ = nullptr;
  const uint8_t* entries_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint32_t count_ = 0;
  uint32_t width_ = 1;
  uint32_t stored_size_ = 0;
  // A table item: entry names are references (an interned id, resolved in
  // names_, or the name written out) when refs_, and its key attributes
  // are beside_[0, key_count_), in name order, their values together in
  // [key_values_, key_values_ + key_values_size_).
  bool refs_ = false;
  uint8_t key_count_ = 0;
  uint32_t key_values_size_ = 0;
  const uint8_t* key_values_ = nullptr;
  const format::AttributeNames* names_ = nullptr;
  Beside beside_[4];  // a table's two, or an index entry's up to four
};

}  // namespace dynarock

#endif  // DYNAROCK_ITEM_VIEW_H_
