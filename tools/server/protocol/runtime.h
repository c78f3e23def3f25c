// The hand-written half of the wire's protocol layer: what the generated
// readers (model_gen.h/.cc, from tools/codegen/gen_protocol.py) call to read
// one JSON value of a model type, with coral's type errors in
// DynamoDB's own words. The constraint
// checks are shared with the engine: engine/model/.
//
// Every access to the JSON goes through simdjson's DOM, whose accessors
// return an error instead of asserting: a value of the wrong type can only
// produce a SerializationException, never undefined behaviour.
#ifndef DYNAROCK_TOOLS_SERVER_PROTOCOL_RUNTIME_H_
#define DYNAROCK_TOOLS_SERVER_PROTOCOL_RUNTIME_H_

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/model/violations.h"
#include "dynarock/status.h"

namespace dynarock::protocol {

using Element = simdjson::dom::element;

// A model map, in the order its entries came (repeated keys kept: the
// mapping onto engine types lets the last one win).
template <typename V>
using Map = std::vector<std::pair<std::string, V>>;

// Where a value sits: coral words some type errors differently for a
// structure member and for a list element or map value.
enum class Position { kMember, kElement };

// REQUIRES for all readers: `json` is not null (the generated code treats
// null as absent before calling them).
Status ReadString(Element json, Position pos, std::string* out);
Status ReadBlob(Element json, Position pos, std::string* out);  // base64-decoded
Status ReadInteger(Element json, Position pos, int32_t* out);
Status ReadLong(Element json, Position pos, int64_t* out);
Status ReadBoolean(Element json, Position pos, bool* out);
Status ReadTimestamp(Element json, Position pos, double* out);  // epoch seconds
// The checks a structure, list or map makes on the JSON value itself.
// `java_type` is the Java class coral names in its message.
Status ExpectObject(Element json, Position pos, std::string_view java_type);
Status ExpectArray(Element json, Position pos);
Status ExpectMap(Element json, Position pos, std::string_view value_java_type);

// REQUIRES: ExpectObject / ExpectArray succeeded on `json`.
simdjson::dom::object Object(Element json);
simdjson::dom::array Array(Element json);

}  // namespace dynarock::protocol

#endif  // DYNAROCK_TOOLS_SERVER_PROTOCOL_RUNTIME_H_
