// The hand-written half of the model checks: what the generated constraint
// checkers (constraints_gen.h, from tools/codegen/gen_protocol.py) call to
// report a violation, in DynamoDB's words ("N validation errors
// detected: ..."). Used by the engine for embedded callers and by the wire
// layer, so both get the same errors from one generated source.
#ifndef DYNAROCK_MODEL_VIOLATIONS_H_
#define DYNAROCK_MODEL_VIOLATIONS_H_

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
// Presence of a required member. DynamoDB treats an empty map or list as
// given (`"Key": {}` goes on to the key-schema check), so the engine's plain
// members, which cannot be absent, are always given; only the wire's
// optional members can be missing.
template <typename T>
bool IsGiven(const T& v) {
  if constexpr (IsOptional<T>::value) {
    return v.has_value();
  } else {
    return true;
  }
}
// REQUIRES: IsPresent(v) or IsGiven(v).
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
// A member's path as DynamoDB prints it ("item.readings.member.2.member"):
// a chain of segments, each on the stack of the check that visits it,
// rendered only when a violation is reported. Visiting a member costs no
// allocation. A Path refers to its parent and to the name or key it was
// made from: it must not outlive them (the generated checks pass each one
// down a call and drop it).
class Path {
 public:
  // A root path ("" for the request itself).
  Path(const char* root) : text_(root) {}  // NOLINT: implicit, as the literal it stands for
  // `name` under `parent`: "parent.name", or "name" under the empty path.
  Path(const Path& parent, std::string_view name) : parent_(&parent), text_(name) {}
  // A map's value ("parent.<key>.member") and a list's element by its
  // 1-based position ("parent.<i>.member").
  static Path Member(const Path& parent, std::string_view key) {
    return Path(parent, key, Kind::kKey, 0);
  }
  static Path Member(const Path& parent, size_t position) {
    return Path(parent, {}, Kind::kPosition, position);
  }

  std::string str() const;

 private:
  enum class Kind { kName, kKey, kPosition };  // keys and positions are followed by ".member"
  Path(const Path& parent, std::string_view key, Kind kind, size_t position)
      : parent_(&parent), text_(key), kind_(kind), position_(position) {}
  void AppendTo(std::string* out) const;

  const Path* parent_ = nullptr;
  std::string_view text_;
  Kind kind_ = Kind::kName;
  size_t position_ = 0;
};

// Phase 7: a table-level operation without a TableName is refused alone
// ("The parameter 'TableName' is required ..."). The engine's requests
// always carry one.
template <typename T>
Status CheckTableNameHard(const T& name) {
  if (IsGiven(name)) return Status::OK();
  return Status::Validation(
      "The parameter 'TableName' is required but was not present in the request");
}

enum class Bound { kMin, kMax };

// Phase 8: the violations of one request, in visiting order, at most 10
// (DynamoDB stops collecting there).
class Violations {
 public:
  static constexpr size_t kMax = 10;

  void NotNull(const Path& path);
  // Length (string chars, list items, map entries) against a bound;
  // `render` is called only for a violation.
  template <typename RenderFn>
  void Length(RenderFn&& render, size_t length, Bound bound, int64_t limit, const Path& path) {
    const auto n = static_cast<int64_t>(length);
    if (bound == Bound::kMin ? n >= limit : n <= limit) return;
    Push(render(), path, bound,
         std::string("Member must have length ") + (bound == Bound::kMin ? "greater" : "less") +
             " than or equal to " + std::to_string(limit),
         true);
  }
  void Range(int64_t value, Bound bound, int64_t limit, const Path& path);
  void Add(const std::string& rendered, const Path& path, std::string_view constraint);
  // Rare texts DynamoDB uses for one path and bound ("Value at 'Limit'"):
  // `pattern` is the path with <k> standing for one map key, `text`
  // replaces "Value <v> at '<path>'" with <k> substituted.
  void Override(std::string pattern, Bound bound, std::string text);

  // OK when there is none, else "N validation error(s) detected: ...".
  Status ToStatus() const;

 private:
  void Push(std::optional<std::string> rendered, const Path& path, Bound bound,
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

#endif  // DYNAROCK_MODEL_VIOLATIONS_H_
