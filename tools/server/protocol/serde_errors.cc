#include "tools/server/protocol/serde_errors.h"

#include <fmt/core.h>
#include <simdjson.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>

namespace dynarock::protocol {
namespace {

namespace od = simdjson::ondemand;

constexpr SerdeMember kSearchVectors[] = {
    {"TableName", SerdeType::kString, true},
    {"IndexName", SerdeType::kString, true},
    {"SearchVector", SerdeType::kSequence, true},
    {"TopK", SerdeType::kI32, true},
    {"ReturnConsumedCapacity", SerdeType::kString, false},
    {"ExpressionAttributeNames", SerdeType::kMap, false},
    {"ExpressionAttributeValues", SerdeType::kMap, false},
    {"ProjectionExpression", SerdeType::kString, false},
    {"SearchConditionExpression", SerdeType::kString, false},
};

// serde_json's " at line L column C" for a position `end` bytes into the
// body (the byte after the last one consumed).
std::string At(std::string_view body, size_t end) {
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < end && i < body.size(); ++i) {
    if (body[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format(" at line {} column {}", line, end - line_start);
}

std::string_view Expected(SerdeType type) {
  switch (type) {
    case SerdeType::kString:
      return "a string";
    case SerdeType::kI32:
      return "i32";
    case SerdeType::kSequence:
      return "a sequence";
    case SerdeType::kMap:
      return "a map";
  }
  return "";
}

// A float as serde's Unexpected::Float shows it: Rust's Display (shortest
// round trip, never an exponent) with ".0" when that has no point.
std::string RustFloat(double d) {
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed);
  std::string out = ec == std::errc() ? std::string(buf, end) : fmt::format("{}", d);
  if (out.find('.') == std::string::npos) out += ".0";
  return out;
}

// A string as Rust's {:?} quotes it.
std::string RustDebug(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\0':
        out += "\\0";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{{{:x}}}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A JSON number as serde_json reads it: an integer (no fraction, no
// exponent) that fits u64, or i64 when negative; anything else an f64.
struct JsonNumber {
  enum Kind { kUnsigned, kSigned, kFloat } kind;
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
};
JsonNumber ReadNumber(std::string_view token) {
  const bool integral = token.find_first_of(".eE") == std::string_view::npos;
  JsonNumber n{JsonNumber::kFloat};
  if (integral && token.starts_with('-')) {
    if (std::from_chars(token.data(), token.data() + token.size(), n.i).ec == std::errc()) {
      n.kind = JsonNumber::kSigned;
      return n;
    }
  } else if (integral) {
    if (std::from_chars(token.data(), token.data() + token.size(), n.u).ec == std::errc()) {
      n.kind = JsonNumber::kUnsigned;
      return n;
    }
  }
  n.f = std::strtod(std::string(token).c_str(), nullptr);
  return n;
}

}  // namespace

std::span<const SerdeMember> SearchVectorsMembers() { return kSearchVectors; }

Status SerdeCheck(std::string_view body, std::span<const SerdeMember> members) {
  const simdjson::padded_string padded(body);
  od::parser parser;
  od::document doc;
  od::object object;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS) return Status::OK();
  if (doc.get_object().get(object) != simdjson::SUCCESS) return Status::OK();
  auto offset = [&padded](const char* p) { return static_cast<size_t>(p - padded.data()); };
  std::set<std::string, std::less<>> seen;
  for (auto result : object) {
    od::field field;
    if (std::move(result).get(field) != simdjson::SUCCESS) return Status::OK();  // classic decides
    // The name's closing quote: where serde reads it and finds a duplicate.
    const char* name_start = field.key().raw();
    size_t name_end = offset(name_start);
    for (bool escaped = false; name_end < body.size(); ++name_end) {
      if (escaped) {
        escaped = false;
      } else if (body[name_end] == '\\') {
        escaped = true;
      } else if (body[name_end] == '"') {
        break;
      }
    }
    std::string_view name;
    if (field.unescaped_key().get(name) != simdjson::SUCCESS) return Status::OK();
    const SerdeMember* member = nullptr;
    for (const SerdeMember& m : members) {
      if (m.name == name) member = &m;
    }
    if (member == nullptr) continue;  // skipped, as serde skips unknown fields
    if (!seen.emplace(name).second) {
      return Status::Serialization(fmt::format("duplicate field `{}`", name) +
                                   At(body, name_end + 1));
    }
    od::value value = field.value();
    od::json_type type;
    if (value.type().get(type) != simdjson::SUCCESS) return Status::OK();
    std::string_view token = value.raw_json_token();
    while (!token.empty() &&
           std::string_view(" \t\r\n").find(token.back()) != std::string_view::npos) {
      token.remove_suffix(1);
    }
    const size_t start = offset(token.data());
    const size_t end = start + token.size();  // a scalar is consumed whole
    std::string unexpected;
    size_t at = end;
    switch (type) {
      case od::json_type::null:
        if (!member->required) continue;  // Option<T>: absent
        unexpected = "null";
        break;
      case od::json_type::boolean:
        unexpected = fmt::format("boolean `{}`", token);
        break;
      case od::json_type::string: {
        if (member->type == SerdeType::kString) continue;
        std::string_view text;
        if (value.get_string().get(text) != simdjson::SUCCESS) return Status::OK();
        unexpected = "string " + RustDebug(text);
        break;
      }
      case od::json_type::number: {
        const JsonNumber n = ReadNumber(token);
        if (member->type == SerdeType::kI32 && n.kind != JsonNumber::kFloat) {
          const bool fits = n.kind == JsonNumber::kUnsigned
                                ? n.u <= uint64_t{std::numeric_limits<int32_t>::max()}
                                : n.i >= std::numeric_limits<int32_t>::min();
          if (fits) continue;
          return Status::Serialization(fmt::format("invalid value: integer `{}`, expected i32",
                                                   n.kind == JsonNumber::kUnsigned
                                                       ? std::to_string(n.u)
                                                       : std::to_string(n.i)) +
                                       At(body, end));
        }
        unexpected = n.kind == JsonNumber::kUnsigned ? fmt::format("integer `{}`", n.u)
                     : n.kind == JsonNumber::kSigned
                         ? fmt::format("integer `{}`", n.i)
                         : fmt::format("floating point `{}`", RustFloat(n.f));
        break;
      }
      case od::json_type::array:
        if (member->type == SerdeType::kSequence) continue;
        unexpected = "sequence";
        at = start;  // peeked, not consumed
        break;
      case od::json_type::object:
        if (member->type == SerdeType::kMap) continue;
        unexpected = "map";
        at = start;
        break;
    }
    return Status::Serialization(
        fmt::format("invalid type: {}, expected {}", unexpected, Expected(member->type)) +
        At(body, at));
  }
  for (const SerdeMember& m : members) {
    if (m.required && !seen.contains(m.name)) {
      // Found once the object's closing brace is consumed.
      size_t close = body.find_last_not_of(" \t\r\n");
      return Status::Validation(fmt::format("missing field `{}`", m.name) + At(body, close + 1));
    }
  }
  return Status::OK();
}

}  // namespace dynarock::protocol
