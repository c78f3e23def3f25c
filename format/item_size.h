// Item size exactly as DynamoDB counts it (Developer Guide, "Item size and
// format"): used for the 400 KB item limit, capacity units and collection sizes.
#ifndef DYNAROCK_FORMAT_ITEM_SIZE_H_
#define DYNAROCK_FORMAT_ITEM_SIZE_H_

#include <cstddef>

#include "dynarock/attribute_value.h"
#include "format/item_codec.h"
#include "dynarock/number.h"

namespace dynarock::format {

inline constexpr size_t kMaxItemBytes = 409600;  // 400 KB

// A number's size: 1 byte of exponent plus its base-100 digit pairs, plus 1
// for negatives; zero is 1 byte. (The docs' "1 byte per two significant digits
// + 1", made exact the way DynamoDB stores numbers, as dynalite models it.)
size_t NumberSize(const Number& n);

// A value's size: S UTF-8 bytes, B raw bytes, BOOL/NULL 1, sets the sum of
// their members, L and M 3 + sum of (1 + element size) where a map element
// counts its key's bytes too.
size_t AttributeValueSize(const AttributeValue& v);

// Sum over attributes of (name bytes + value size).
size_t ItemSize(const Item& item);
// The same for an encoded item: the size it stores (ItemView::stored_size).
size_t ItemSize(const ItemView& item);
// The size from the attributes, read in place (no decoding), whatever the
// item stores; a number whose encoding is corrupt counts as 1 byte.
size_t ComputeItemSize(const ItemView& item);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_ITEM_SIZE_H_
