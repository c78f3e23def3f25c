// The hand-written half of the protocol layer: what the generated code
// (model_gen.h/.cc, from tools/codegen/gen_protocol.py) calls to read one
// JSON value of a model type and to report a constraint violation. The
// texts are coral's, as ../shared/dynamodb/VALIDATION.md sections 2 and 4
// record them.
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

#include "format/status.h"

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
// The checks a structure, list or map makes on the JSON value itself.
// `java_type` is the Java class coral names in its message.
Status ExpectObject(Element json, Position pos, std::string_view java_type);
Status ExpectArray(Element json, Position pos);
Status ExpectMap(Element json, Position pos, std::string_view value_java_type);

// REQUIRES: ExpectObject / ExpectArray succeeded on `json`.
simdjson::dom::object Object(Element json);
simdjson::dom::array Array(Element json);

// Phase 7: the TableName checks of table-level operations, thrown alone.
Status CheckTableNameHard(const std::optional<std::string>& name);

// A string's length as Java counts it (UTF-16 code units), which is what
// the model's min/max mean.
size_t Utf16Length(std::string_view s);
// Whole-string match of one of the model's patterns.
bool MatchesPattern(std::string_view pattern, std::string_view s);

// Java's toString of a value, as coral prints it in a violation.
std::string Render(const std::string& v);
std::string Render(int32_t v);
std::string Render(int64_t v);
std::string Render(bool v);
// A blob as Java prints a ByteBuffer: its size, never its bytes (which need
// not be UTF-8, and the message goes into a JSON string).
std::string RenderBlob(const std::string& bytes);
std::string RenderBlobs(const std::vector<std::string>& blobs);
template <typename T>
std::string Render(const std::vector<T>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += Render(v[i]);
  }
  return out + "]";
}
template <typename V>
std::string Render(const Map<V>& v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += v[i].first + "=" + Render(v[i].second);
  }
  return out + "}";
}

// "a" + "b" -> "a.b"; "" + "b" -> "b".
std::string Join(const std::string& path, std::string_view member);

enum class Bound { kMin, kMax };

// Phase 8: the violations of one request, in visiting order, at most 10
// (DynamoDB stops collecting there).
class Violations {
 public:
  static constexpr size_t kMax = 10;

  void NotNull(const std::string& path);
  // Length (string chars, list items, map entries) against a bound;
  // `render` is called only for a violation.
  template <typename RenderFn>
  void Length(RenderFn&& render, size_t length, Bound bound, int64_t limit,
              const std::string& path) {
    const auto n = static_cast<int64_t>(length);
    if (bound == Bound::kMin ? n >= limit : n <= limit) return;
    Push(render(), path, bound,
         std::string("Member must have length ") +
             (bound == Bound::kMin ? "greater" : "less") + " than or equal to " +
             std::to_string(limit),
         true);
  }
  void Range(int64_t value, Bound bound, int64_t limit, const std::string& path);
  void Add(const std::string& rendered, const std::string& path, std::string_view constraint);
  // Rare texts DynamoDB uses for one path and bound ("Value at 'Limit'"):
  // `pattern` is the path with <k> standing for one map key, `text`
  // replaces "Value <v> at '<path>'" with <k> substituted.
  void Override(std::string pattern, Bound bound, std::string text);

  // OK when there is none, else "N validation error(s) detected: ...".
  Status ToStatus() const;

 private:
  void Push(std::optional<std::string> rendered, const std::string& path, Bound bound,
            std::string_view constraint, bool bounded);

  struct PathOverride {
    std::string pattern;
    Bound bound;
    std::string text;
  };
  std::vector<PathOverride> overrides_;
  std::vector<std::string> errors_;
};

}  // namespace dynarock::protocol

#endif  // DYNAROCK_TOOLS_SERVER_PROTOCOL_RUNTIME_H_
