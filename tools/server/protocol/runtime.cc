#include "tools/server/protocol/runtime.h"

#include <cmath>
#include <limits>

#include "format/json.h"

namespace dynarock::protocol {
namespace {

using simdjson::dom::element_type;

Status Serialization(std::string message) { return Status::Serialization(std::move(message)); }

// Coral names the JSON token it met: TRUE_VALUE, NUMBER_VALUE, ...
std::string_view TokenName(Element json) {
  switch (json.type()) {
    case element_type::BOOL: return bool(json) ? "TRUE_VALUE" : "FALSE_VALUE";
    case element_type::DOUBLE: return "DECIMAL_VALUE";
    case element_type::INT64:
    case element_type::UINT64: return "NUMBER_VALUE";
    case element_type::STRING: return "STRING_VALUE";
    default: return "VALUE";
  }
}

// The checks every scalar shares: an array or an object where a scalar of
// `java_class` was expected.
Status NotCollection(Element json, std::string_view java_class) {
  if (json.is_array()) {
    return Serialization("Unrecognized collection type class " + std::string(java_class));
  }
  if (json.is_object()) return Serialization("Start of structure or map found where not expected");
  return Status::OK();
}

template <typename T>
Status ReadIntegral(Element json, std::string_view name, T* out) {
  DYNAROCK_RETURN_IF_ERROR(NotCollection(json, "java.lang." + std::string(name)));
  if (!json.is_number()) {
    return Serialization(std::string(TokenName(json)) + " cannot be converted to " +
                         std::string(name));
  }
  // A fractional number is truncated towards minus infinity (dynalite
  // floors); out-of-range values saturate.
  if (json.is_int64()) {
    int64_t v = int64_t(json);
    if (v < std::numeric_limits<T>::min()) v = std::numeric_limits<T>::min();
    if (v > std::numeric_limits<T>::max()) v = std::numeric_limits<T>::max();
    *out = static_cast<T>(v);
    return Status::OK();
  }
  if (json.is_uint64()) {
    *out = std::numeric_limits<T>::max();
    return Status::OK();
  }
  const double d = std::floor(double(json));
  if (!(d > static_cast<double>(std::numeric_limits<T>::min()))) {
    *out = std::numeric_limits<T>::min();
  } else if (!(d < static_cast<double>(std::numeric_limits<T>::max()))) {
    *out = std::numeric_limits<T>::max();
  } else {
    *out = static_cast<T>(d);
  }
  return Status::OK();
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  return c == '+' ? 62 : 63;
}

}  // namespace

Status ReadString(Element json, Position, std::string* out) {
  DYNAROCK_RETURN_IF_ERROR(NotCollection(json, "java.lang.String"));
  if (!json.is_string()) {
    return Serialization(std::string(TokenName(json)) + " cannot be converted to String");
  }
  *out = std::string(std::string_view(json));
  return Status::OK();
}

Status ReadBlob(Element json, Position, std::string* out) {
  DYNAROCK_RETURN_IF_ERROR(NotCollection(json, "java.nio.ByteBuffer"));
  if (!json.is_string()) {
    return Serialization("only base-64-encoded strings are convertible to bytes");
  }
  std::string_view text(json);
  auto bytes = format::Base64Decode(text);
  if (!bytes.ok()) {
    if (text.size() % 4 != 0) return bytes.status();
    return Serialization("Invalid last non-pad Base64 character dectected");
  }
  // Canonical encodings only: the bits a padded last character does not
  // carry must be zero (coral's message, typo included).
  size_t padding = text.empty() || text.back() != '=' ? 0 : text[text.size() - 2] == '=' ? 2 : 1;
  if (padding) {
    int last = Base64Value(text[text.size() - padding - 1]);
    if ((padding == 1 && (last & 0x3)) || (padding == 2 && (last & 0xF))) {
      return Serialization("Invalid last non-pad Base64 character dectected");
    }
  }
  *out = std::move(bytes).value();
  return Status::OK();
}

Status ReadInteger(Element json, Position, int32_t* out) {
  return ReadIntegral(json, "Integer", out);
}

Status ReadLong(Element json, Position, int64_t* out) { return ReadIntegral(json, "Long", out); }

Status ReadBoolean(Element json, Position, bool* out) {
  DYNAROCK_RETURN_IF_ERROR(NotCollection(json, "java.lang.Boolean"));
  if (json.is_bool()) {
    *out = bool(json);
    return Status::OK();
  }
  if (json.is_string()) {
    // Coral's parser takes these words, in any case, for a boolean.
    std::string_view s(json);
    for (std::string_view word : {"true", "1", "yes"}) {
      if (EqualsIgnoreCase(s, word)) {
        *out = true;
        return Status::OK();
      }
    }
    for (std::string_view word : {"false", "0", "no"}) {
      if (EqualsIgnoreCase(s, word)) {
        *out = false;
        return Status::OK();
      }
    }
    return Serialization("Unexpected token received from parser");
  }
  return Serialization(std::string(TokenName(json)) + " cannot be converted to Boolean");
}

Status ReadTimestamp(Element json, Position, double* out) {
  DYNAROCK_RETURN_IF_ERROR(NotCollection(json, "java.util.Date"));
  // The JSON protocol sends epoch seconds as a number (the SDKs, the CLI).
  // Coral's words for other tokens are UNVERIFIED; these follow its pattern.
  if (json.is_double() || json.is_int64() || json.is_uint64()) {
    *out = double(json);
    if (!std::isfinite(*out)) return Serialization("NUMBER_VALUE cannot be converted to Date");
    return Status::OK();
  }
  return Serialization(std::string(TokenName(json)) + " cannot be converted to Date");
}

Status ExpectObject(Element json, Position pos, std::string_view java_type) {
  if (json.is_object()) return Status::OK();
  if (json.is_array()) {
    return Serialization("Unrecognized collection type class " + std::string(java_type));
  }
  return Serialization(pos == Position::kMember ? "Unexpected field type"
                                                : "Unexpected value type in payload");
}

// A list or map inside a list or map, met as a scalar: coral's reflection
// fails on the generic type, and that failure is its message.
constexpr char kParameterizedType[] =
    "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class "
    "java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and "
    "java.lang.Class are in module java.base of loader 'bootstrap')";

Status ExpectArray(Element json, Position pos) {
  if (json.is_array()) return Status::OK();
  if (json.is_object()) return Serialization("Start of structure or map found where not expected");
  return Serialization(pos == Position::kMember ? "Unexpected field type" : kParameterizedType);
}

Status ExpectMap(Element json, Position pos, std::string_view value_java_type) {
  if (json.is_object()) return Status::OK();
  if (json.is_array()) {
    return Serialization("Unrecognized collection type java.util.Map<java.lang.String, " +
                         std::string(value_java_type) + ">");
  }
  return Serialization(pos == Position::kMember ? "Unexpected field type" : kParameterizedType);
}

simdjson::dom::object Object(Element json) { return simdjson::dom::object(json); }
simdjson::dom::array Array(Element json) { return simdjson::dom::array(json); }

}  // namespace dynarock::protocol
