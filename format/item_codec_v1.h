// Reading items in the item encoding's version 1 (schemas/item.fbs), which
// storage formats 1-9 wrote: a FlatBuffers table per value. Nothing writes it
// any more; the items column family's compaction filter rewrites what it
// meets in version 2 (format/ITEM_FORMAT.md, "Version 1 and the move").
#ifndef DYNAROCK_FORMAT_ITEM_CODEC_V1_H_
#define DYNAROCK_FORMAT_ITEM_CODEC_V1_H_

#include <string_view>

#include "dynarock/attribute_value.h"
#include "dynarock/status.h"

namespace dynarock::format {

// True if `bytes` carry version 1's file identifier "DRKI" at bytes 4-8,
// which version 2 buffers never do.
bool IsItemV1(std::string_view bytes);

// Decodes version 1 bytes (any alignment: they are copied when misaligned).
// With `verify`, the FlatBuffers structure, the version byte and the order
// of names and set members are checked first, and anything amiss is
// Corruption; without it, REQUIRES: bytes a version 1 writer produced and
// storage checksummed.
Result<Item> DecodeItemV1(std::string_view bytes, bool verify);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_ITEM_CODEC_V1_H_
