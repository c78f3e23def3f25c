// Items <-> FlatBuffers (schemas/item.fbs). WRITTEN TO DISK: see
// format/ITEM_FORMAT.md for the layout and the versioning rule.
//
// Reading does not require decoding: ItemView and ValueView
// (dynarock/item_view.h) walk the buffer in place. Version 1 of the encoding
// is read by item_codec_v1.h.
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

// Replaces *out with the encoding of `item` (version 2, format/ITEM_FORMAT.md),
// which stores the item's size (ItemSize(item)).
// REQUIRES: ValidateItem(item).ok() (nesting within limits).
void EncodeItem(const Item& item, std::string* out);
std::string EncodeItem(const Item& item);
// The same for a caller that has the size already.
// REQUIRES: size == ItemSize(item).
void EncodeItem(const Item& item, size_t size, std::string* out);

// Verify-then-decode in one call, for bytes of unknown origin in either
// encoding (version 1 as storage formats 1-9 wrote it, or version 2).
// Corruption for anything else.
Result<Item> DecodeItem(std::string_view bytes);
// Decode without the structural verification, for bytes an encoder wrote
// (either version) and storage returned checksummed (RocksDB checks every
// block it reads). Corruption only for what the decode itself meets.
Result<Item> DecodeTrustedItem(std::string_view bytes);

// Stored bytes in either encoding, as a view: version 2 in place; version 1
// (until compaction has rewritten it) decoded and re-encoded into *scratch,
// which the view then reads. Corruption if version 1 bytes do not decode.
// REQUIRES: bytes an encoder wrote and storage checksummed.
Result<ItemView> OpenStoredItem(std::string_view bytes, std::string* scratch);

// True for bytes in the current encoding (version 2), false for version 1.
bool IsCurrentItemEncoding(std::string_view bytes);

// The move to version 2 (the items' compaction filter, ITEM_FORMAT.md): the
// version 2 encoding of version 1 bytes (verified first: Corruption if they
// are not a valid version 1 item), or nullopt for bytes already version 2.
Result<std::optional<std::string>> UpgradeStoredItem(std::string_view bytes);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_ITEM_CODEC_H_
