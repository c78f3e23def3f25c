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

namespace dynarock::fb {
struct Value;
struct Item;
}  // namespace dynarock::fb

namespace dynarock {

// FlatBuffers reads scalars in place, so views need buffers aligned to this
// (std::string and malloc'd buffers are).
inline constexpr size_t kItemBufferAlignment = 4;

// One step of a document path: a map key or a list index.
using PathElement = std::variant<std::string, size_t>;

// A read-only view of one encoded value. Valid while the buffer lives.
class ValueView {
 public:
  AttrType type() const;
  // S: UTF-8 bytes; B: raw bytes. REQUIRES: type() is kS or kB.
  std::string_view bytes() const;
  // N. REQUIRES: type() is kN. Corruption if the stored encoding is invalid.
  Result<Number> number() const;
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
  std::string_view name() const;
  // SS/BS: the i-th member's bytes; NS: its key-codec encoding. REQUIRES: i < size().
  std::string_view member(size_t i) const;
  // NS: the i-th member, decoded. REQUIRES: type() is kNS and i < size().
  Result<Number> number_member(size_t i) const;

  // Full decode; Corruption on anything malformed (only possible for bytes
  // opened with ItemView::OpenTrusted).
  Result<AttributeValue> Decode() const;

 private:
  friend class ItemView;
  friend struct ItemCodecAccess;  // format/item_codec.cc
  explicit ValueView(const fb::Value* v) : v_(v) {}
  const fb::Value* v_;
};

// A read-only view of an encoded item (format/ITEM_FORMAT.md), as Query and
// Scan hand them out with ItemEncoding::kStored. Valid while the buffer lives.
class ItemView {
 public:
  // For bytes of unknown origin: verifies the FlatBuffers structure, the file
  // identifier, the format version and the order of top-level names first.
  // Corruption if any check fails (a misaligned buffer too); never reads out
  // of bounds. REQUIRES for success: bytes.data() aligned to kItemBufferAlignment.
  static Result<ItemView> Open(std::string_view bytes);
  // For bytes that EncodeItem produced and storage checksummed: skips the
  // structural verification. REQUIRES: bytes came from EncodeItem.
  static ItemView OpenTrusted(std::string_view bytes);

  size_t size() const;  // number of top-level attributes
  // The item's DynamoDB size as its writer stored it (format/item_size.h;
  // Open checks it against the attributes); 0 for items written before
  // storage format 8, which did not store it. format::ItemSize(view) uses it.
  uint32_t stored_size() const;
  std::string_view name(size_t i) const;
  ValueView value(size_t i) const;
  // The top-level attribute `name` (binary search), or nullopt.
  std::optional<ValueView> Find(std::string_view name) const;
  // The value at a document path (a.b[2].c), or nullopt if any step is absent.
  // REQUIRES: path is non-empty and starts with a name.
  std::optional<ValueView> FindPath(std::span<const PathElement> path) const;

  Result<Item> Decode() const;

 private:
  explicit ItemView(const fb::Item* item) : item_(item) {}
  const fb::Item* item_;
};

}  // namespace dynarock

#endif  // DYNAROCK_ITEM_VIEW_H_
