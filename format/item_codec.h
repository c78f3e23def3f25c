// Items <-> FlatBuffers (schemas/item.fbs). WRITTEN TO DISK: see
// format/ITEM_FORMAT.md for the layout and the versioning rule.
//
// Reading does not require decoding: ItemView and ValueView
// (dynarock/item_view.h) walk the buffer in place.
#ifndef DYNAROCK_FORMAT_ITEM_CODEC_H_
#define DYNAROCK_FORMAT_ITEM_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "dynarock/attribute_value.h"
#include "dynarock/item_view.h"
#include "dynarock/status.h"

namespace dynarock::format {

inline constexpr uint8_t kItemFormatVersion = 1;

// Appends nothing: replaces *out with the encoding of `item`, which stores
// the item's size (ItemSize(item)).
// REQUIRES: ValidateItem(item).ok() (nesting within limits).
void EncodeItem(const Item& item, std::string* out);
std::string EncodeItem(const Item& item);
// The same for a caller that has the size already.
// REQUIRES: size == ItemSize(item).
void EncodeItem(const Item& item, size_t size, std::string* out);

// Verify-then-decode in one call; copies a misaligned buffer first.
Result<Item> DecodeItem(std::string_view bytes);
// Decode without the structural verification, for bytes EncodeItem wrote and
// storage returned checksummed (RocksDB checks every block it reads); copies
// a misaligned buffer first. Corruption only for what the decode itself
// meets. REQUIRES: bytes came from EncodeItem.
Result<Item> DecodeTrustedItem(std::string_view bytes);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_ITEM_CODEC_H_
