// The JSON `dynarock replicate` writes and reads: request bodies written
// with RapidJSON (answers' JSON spliced in as it came), and answers read with
// simdjson, every lookup checked (any endpoint may answer anything:
// tests/fuzz/replicate_answers_fuzz.cc).
#ifndef DYNAROCK_TOOLS_REPLICATE_JSON_H_
#define DYNAROCK_TOOLS_REPLICATE_JSON_H_

#include <simdjson.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/json.h"
#include "tools/replicate/endpoint.h"

namespace dynarock::replicate {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// A request body, written with RapidJSON; Raw() splices JSON taken from an
// answer as it came.
class Body {
 public:
  format::JsonWriter& w() { return writer_; }
  Body& Key(std::string_view k) {
    writer_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    return *this;
  }
  Body& String(std::string_view s) {
    writer_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return *this;
  }
  Body& Raw(std::string_view json) {
    writer_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
    return *this;
  }
  std::string str() const { return std::string(buffer_.GetString(), buffer_.GetSize()); }

 private:
  rapidjson::StringBuffer buffer_;
  format::JsonWriter writer_{buffer_};
};

// A looked-up value: an element, or the error of a lookup that failed (a
// member missing, or of another type). Never converted to an element
// unchecked: that throws on an error, and any answer may lack anything.
using Json = simdjson::simdjson_result<element>;

// The value as compact JSON; "null" when the lookup failed.
std::string Minify(Json e);
std::string Minify(element e);

// A member's string, or `fallback`.
std::string_view StringOr(Json e, std::string_view key, std::string_view fallback = "");
std::string_view StringOr(element e, std::string_view key, std::string_view fallback = "");

// A value, or `fallback` when it is absent or of another type.
int64_t IntOr(Json e, int64_t fallback);
double DoubleOr(Json e, double fallback);
bool BoolOr(Json e, bool fallback);

// An array member; IOError naming `what` when the answer lacks it.
Result<array> ArrayOf(Json e, const std::string& what);

// An error answer (or none), in words: what was being done, the error's
// name and message.
Status Failed(const std::string& what, const Result<Answer>& a);

// Parses an answer's body; the element lives as long as `parser`.
Result<element> Parse(simdjson::dom::parser& parser, const Answer& a, const std::string& what);

// Sends a request that must succeed (with the policy's retries): its parsed
// answer, or Failed's error.
Result<element> Must(Endpoint& e, simdjson::dom::parser& parser, std::string_view op,
                     const std::string& body, const std::string& what, const RetryPolicy& retry,
                     std::atomic<int64_t>* retries);

// The item's canonical JSON (attributes by name, sets sorted, numbers
// normalized), for checksums.
Result<std::string> Canonical(element item);

}  // namespace dynarock::replicate

#endif  // DYNAROCK_TOOLS_REPLICATE_JSON_H_
