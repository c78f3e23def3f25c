// DynamoDB's wire JSON for values and items ({"S":"x"}, {"N":"1"},
// {"B":"<base64>"}, {"SS":[..]}, {"M":{..}}, {"L":[..]}, ...), with RapidJSON.
//
// Decoding rejects what DynamoDB rejects, with its error name and words:
//  - JSON of the wrong shape (a number where a string belongs, bad base64,
//    invalid UTF-8, malformed text): SerializationException;
//  - an AttributeValue with no type or more than one, an empty set, duplicate
//    set members, NULL false, bad numbers, nesting past 32 levels:
//    ValidationException.
// Members with a JSON null are treated as absent and unknown members are
// ignored, as DynamoDB's JSON layer does.
#ifndef DYNAROCK_FORMAT_JSON_H_
#define DYNAROCK_FORMAT_JSON_H_

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "dynarock/attribute_value.h"
#include "format/item_codec.h"
#include "dynarock/status.h"

namespace dynarock::format {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// `level` is the nesting level of the value (2 for a top-level attribute).
Result<AttributeValue> AttributeValueFromJson(const rapidjson::Value& json, int level = 2);
// An item is a JSON object mapping attribute names to AttributeValue JSON.
Result<Item> ItemFromJson(const rapidjson::Value& json);

// Parse text first (SerializationException if it is not JSON), then decode.
Result<AttributeValue> ParseAttributeValueJson(std::string_view text);
Result<Item> ParseItemJson(std::string_view text);

// Parses `text` into *doc with the flags every Dynarock JSON reader uses:
// iterative (hostile nesting cannot exhaust the stack) and UTF-8 validating.
Status ParseJson(std::string_view text, rapidjson::Document* doc);

void WriteJson(JsonWriter* w, const AttributeValue& v);
void WriteJson(JsonWriter* w, const Item& item);
std::string ToJson(const AttributeValue& v);
std::string ToJson(const Item& item);
// A stored item written straight from its FlatBuffers bytes, with no Item
// built: the same JSON as WriteJson of the decoded item. Corruption if a
// stored number is malformed (possible only for views opened trusted); *w
// then holds a partial document.
Status WriteJson(JsonWriter* w, const ItemView& item);

// Standard base64 (RFC 4648, with padding), as DynamoDB carries B values.
std::string Base64Encode(std::string_view bytes);
// Strict: length a multiple of 4, alphabet only, padding only at the end.
// SerializationException otherwise.
Result<std::string> Base64Decode(std::string_view text);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_JSON_H_
