// The fast path of a DYNAMODB_JSON export line, {"Item":{...}}: simdjson's
// DOM straight into an Item, for restores that parse millions of lines.
//
// It takes only what it can decide exactly as the RapidJSON path of
// ParseItemLine does (export_format.cc): a well-formed line whose values are
// S, N, B, BOOL, NULL, M or L, each AttributeValue object holding exactly
// its one type member. Anything else (sets, unknown or null members, wrong
// types, bad numbers or base64, JSON errors, nesting past the limit) is
// returned as nullopt, and the caller parses the line again with RapidJSON,
// which gives the item or DynamoDB's error for it. So errors keep their
// messages, and tests/fuzz/fuzz_export_parse checks that whenever this path
// returns an item, the RapidJSON path returns the same one.
#ifndef DYNAROCK_FORMAT_ITEM_LINE_FAST_H_
#define DYNAROCK_FORMAT_ITEM_LINE_FAST_H_

#include <optional>
#include <string_view>

#include "dynarock/attribute_value.h"

namespace dynarock::format {

// Thread-safe (one simdjson parser per thread). The item is not validated
// (ParseItemLine's `validate` is the caller's).
std::optional<Item> ItemLineFast(std::string_view line);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_ITEM_LINE_FAST_H_
