// The hand-written half of the model checks: what the generated constraint
// checkers (constraints_gen.h, from tools/codegen/gen_protocol.py) call to
// report a violation, in DynamoDB's words (../shared/dynamodb/VALIDATION.md
// sections 3 and 4). Used by the engine for embedded callers and by the wire
// layer, so both get the same errors from one generated source.
#ifndef DYNAROCK_ENGINE_MODEL_VIOLATIONS_H_
#define DYNAROCK_ENGINE_MODEL_VIOLATIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::model {

// Presence of a member: the wire's model structs hold every member in a
// std::optional (absent and JSON null alike). The engine's plain members are
// present, except an empty list or map, which is how the engine's requests
// say "not given" (an empty string is a value).
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <typename T>
bool IsPresent(const T& v) {
  if constexpr (IsOptional<T>::value) {
    return v.has_value();
  } else if constexpr (!std::is_same_v<T, std::string> && requires { v.empty(); }) {
    return !v.empty();
  } else {
    return true;
  }
}
// REQUIRES: IsPresent(v).
template <typename T>
const auto& Get(const T& v) {
  if constexpr (IsOptional<T>::value) {
    return *v;
  } else {
    return v;
  }
}

// A string's length as Java counts it (UTF-16 code units), which is what the
// model's min/max mean. REQUIRES: valid UTF-8.
size_t Utf16Length(std::string_view s);
// The patterns the served operations' shapes use, each matched by a scan
// (not a backtracking regex over client input). The generator refuses a
// model whose served shapes use another.
inline constexpr std::string_view kNamePattern = "[a-zA-Z0-9_.-]+";  // TableName, IndexName
inline constexpr std::string_view kClientTokenPattern = "^[^\\$]+$";
inline constexpr std::string_view kS3BucketPattern = "^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$";
inline constexpr std::string_view kS3BucketOwnerPattern = "[0-9]{12}";
inline constexpr std::string_view kCsvDelimiterPattern = "[,;:|\\t ]";
inline constexpr std::string_view kCsvHeaderPattern = "[\\x20-\\x21\\x23-\\x2B\\x2D-\\x7E]*";
inline constexpr std::string_view kImportNextTokenPattern = "([0-9a-f]{16})+";
// Whole-string match of `pattern`, as Java's Pattern.matches. REQUIRES:
// `pattern` is one of the k*Pattern above (any other matches nothing).
bool MatchesPattern(std::string_view pattern, std::string_view s);
// A blob as Java prints a ByteBuffer: its size, never its bytes (which need
// not be UTF-8, and the message goes into a JSON string).
std::string RenderBlob(std::string_view bytes);
// "a" + "b" -> "a.b"; "" + "b" -> "b".
std::string Join(const std::string& path, std::string_view member);

// Phase 7: the TableName checks of table-level operations, thrown alone.
Status CheckTableNameHard(const std::optional<std::string>& name);
Status CheckTableNameHard(const std::string& name);

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
         std::string("Member must have length ") + (bound == Bound::kMin ? "greater" : "less") +
             " than or equal to " + std::to_string(limit),
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

}  // namespace dynarock::model

#endif  // DYNAROCK_ENGINE_MODEL_VIOLATIONS_H_
