#include "format/json.h"

#include <openssl/evp.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <array>

#include "dynarock/number.h"
#include "format/attribute_value_rules.h"

namespace dynarock::format {
namespace {

// Coral's wording for a JSON token of the wrong kind.
Status WrongJsonType(const rapidjson::Value& v, const char* expected) {
  if (v.IsObject()) return Status::Serialization("Start of structure or map found where not expected.");
  if (v.IsArray()) return Status::Serialization("Start of list found where not expected.");
  const char* token = v.IsNumber() ? "NUMBER_VALUE"
                      : v.IsTrue() ? "TRUE_VALUE"
                      : v.IsFalse() ? "FALSE_VALUE"
                                    : "STRING_VALUE";
  return Status::Serialization(std::string(token) + " cannot be converted to " + expected);
}

std::string_view Str(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

// RapidJSON 1.1.0 validates raw UTF-8 but decodes a lone surrogate escape
// (\uDC00-\uDFFF) into ED B0..BF xx: not UTF-8, and JSON nobody could read
// back. Raw surrogate bytes (ED A0..BF) cannot get here: the parser rejects them.
Status CheckText(std::string_view s) {
  for (size_t i = s.find('\xED'); i != std::string_view::npos; i = s.find('\xED', i + 1)) {
    if (i + 1 < s.size() && static_cast<uint8_t>(s[i + 1]) >= 0xA0) {
      return Status::Serialization("Invalid UTF-8 in string: unpaired surrogate escape");
    }
  }
  return Status::OK();
}

Result<std::string_view> Text(const rapidjson::Value& v) {
  DYNAROCK_RETURN_IF_ERROR(CheckText(Str(v)));
  return Str(v);
}

// A value's tags as the JSON carries them, type-checked and decoded
// (ToAttributeValue's `Tagged`).
struct JsonTagged {
  JsonTagged();
  JsonTagged(JsonTagged&&) noexcept;
  ~JsonTagged();
  std::optional<std::string> s, n, b;
  std::optional<std::vector<std::string>> ss, ns, bs;
  std::optional<std::vector<std::pair<std::string, JsonTagged>>> m;
  std::optional<std::vector<JsonTagged>> l;
  std::optional<bool> null_, bool_;
};
JsonTagged::JsonTagged() = default;
JsonTagged::JsonTagged(JsonTagged&&) noexcept = default;
JsonTagged::~JsonTagged() = default;

// A set's members in input order; `decode` turns one JSON string into a member.
template <typename Fn>
Result<std::vector<std::string>> SetFromJson(const rapidjson::Value& json, Fn decode) {
  if (!json.IsArray()) return WrongJsonType(json, "List");
  std::vector<std::string> out;
  out.reserve(json.Size());
  for (const auto& m : json.GetArray()) {
    if (!m.IsString()) return WrongJsonType(m, "String");
  }
  for (const auto& m : json.GetArray()) {
    DYNAROCK_ASSIGN_OR_RETURN(auto v, decode(Str(m)));
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::string> ValidText(std::string_view s) {
  DYNAROCK_RETURN_IF_ERROR(CheckText(s));
  return std::string(s);
}
Result<std::string> AnyText(std::string_view s) { return std::string(s); }

// The JSON's part: each tag's JSON type, strings' UTF-8 and base64. Deeper
// than DynamoDB's nesting limit fails here, so hostile nesting cannot
// exhaust the stack.
Status TaggedFromJson(const rapidjson::Value& json, int level, JsonTagged* out) {
  if (level > kMaxNestingLevels) return rules::NestingTooDeep();
  if (!json.IsObject()) return WrongJsonType(json, "AttributeValue");
  for (const auto& member : json.GetObject()) {
    const rapidjson::Value& v = member.value;
    if (v.IsNull()) continue;  // an explicit null is an absent member
    const std::string_view tag = Str(member.name);
    if (tag == "S") {
      if (!v.IsString()) return WrongJsonType(v, "String");
      DYNAROCK_ASSIGN_OR_RETURN(out->s, ValidText(Str(v)));
    } else if (tag == "N") {
      if (!v.IsString()) return WrongJsonType(v, "String");
      out->n = std::string(Str(v));
    } else if (tag == "B") {
      if (!v.IsString()) return WrongJsonType(v, "Blob");
      DYNAROCK_ASSIGN_OR_RETURN(out->b, Base64Decode(Str(v)));
    } else if (tag == "BOOL" || tag == "NULL") {
      if (!v.IsBool()) return WrongJsonType(v, "Boolean");
      (tag == "BOOL" ? out->bool_ : out->null_) = v.GetBool();
    } else if (tag == "SS") {
      DYNAROCK_ASSIGN_OR_RETURN(out->ss, SetFromJson(v, ValidText));
    } else if (tag == "NS") {
      DYNAROCK_ASSIGN_OR_RETURN(out->ns, SetFromJson(v, AnyText));
    } else if (tag == "BS") {
      DYNAROCK_ASSIGN_OR_RETURN(out->bs, SetFromJson(v, Base64Decode));
    } else if (tag == "L") {
      if (!v.IsArray()) return WrongJsonType(v, "List");
      auto& list = out->l.emplace();
      list.reserve(v.Size());
      for (const auto& e : v.GetArray()) {
        DYNAROCK_RETURN_IF_ERROR(TaggedFromJson(e, level + 1, &list.emplace_back()));
      }
    } else if (tag == "M") {
      if (!v.IsObject()) return WrongJsonType(v, "Map");
      auto& map = out->m.emplace();
      map.reserve(v.MemberCount());
      for (const auto& e : v.GetObject()) {
        DYNAROCK_ASSIGN_OR_RETURN(auto name, ValidText(Str(e.name)));
        auto& [key, value] = map.emplace_back(std::move(name), JsonTagged());
        DYNAROCK_RETURN_IF_ERROR(TaggedFromJson(e.value, level + 1, &value));
      }
    }  // unknown members are ignored
  }
  return Status::OK();
}

}  // namespace

Result<AttributeValue> AttributeValueFromJson(const rapidjson::Value& json, int level) {
  JsonTagged tagged;
  DYNAROCK_RETURN_IF_ERROR(TaggedFromJson(json, level, &tagged));
  return ToAttributeValue(std::move(tagged), level);
}

Result<Item> ItemFromJson(const rapidjson::Value& json) {
  if (!json.IsObject()) return WrongJsonType(json, "Map");
  Item item;
  for (const auto& m : json.GetObject()) {
    DYNAROCK_ASSIGN_OR_RETURN(auto name, Text(m.name));
    DYNAROCK_ASSIGN_OR_RETURN(auto v, AttributeValueFromJson(m.value, 2));
    // A repeated name: the last one wins, as in DynamoDB's JSON layer.
    item.insert_or_assign(std::string(name), std::move(v));
  }
  return item;
}

Status ParseJson(std::string_view text, rapidjson::Document* doc) {
  doc->Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
      text.data(), text.size());
  if (doc->HasParseError()) {
    return Status::Serialization(std::string(rapidjson::GetParseError_En(doc->GetParseError())) +
                                 " at offset " + std::to_string(doc->GetErrorOffset()));
  }
  return Status::OK();
}

Result<AttributeValue> ParseAttributeValueJson(std::string_view text) {
  rapidjson::Document doc;
  DYNAROCK_RETURN_IF_ERROR(ParseJson(text, &doc));
  return AttributeValueFromJson(doc, 2);
}

Result<Item> ParseItemJson(std::string_view text) {
  rapidjson::Document doc;
  DYNAROCK_RETURN_IF_ERROR(ParseJson(text, &doc));
  return ItemFromJson(doc);
}

void WriteJson(JsonWriter* w, const AttributeValue& v) {
  auto str = [w](std::string_view s) { w->String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
  w->StartObject();
  str(AttrTypeName(v.type()));
  switch (v.type()) {
    case AttrType::kS: str(v.s()); break;
    case AttrType::kN: str(v.n().ToString()); break;
    case AttrType::kB: str(Base64Encode(v.b())); break;
    case AttrType::kBool: w->Bool(v.boolean()); break;
    case AttrType::kNull: w->Bool(true); break;
    case AttrType::kM:
      w->StartObject();
      for (const auto& [name, e] : v.m()) {
        str(name);
        WriteJson(w, e);
      }
      w->EndObject();
      break;
    case AttrType::kL:
      w->StartArray();
      for (const auto& e : v.l()) WriteJson(w, e);
      w->EndArray();
      break;
    case AttrType::kSS:
      w->StartArray();
      for (const auto& s : v.ss()) str(s);
      w->EndArray();
      break;
    case AttrType::kNS:
      w->StartArray();
      for (const auto& n : v.ns()) str(n.ToString());
      w->EndArray();
      break;
    case AttrType::kBS:
      w->StartArray();
      for (const auto& b : v.bs()) str(Base64Encode(b));
      w->EndArray();
      break;
  }
  w->EndObject();
}

void WriteJson(JsonWriter* w, const Item& item) {
  w->StartObject();
  for (const auto& [name, v] : item) {
    w->String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    WriteJson(w, v);
  }
  w->EndObject();
}

namespace {

Status WriteViewJson(JsonWriter* w, const ValueView& v) {
  auto str = [w](std::string_view s) { w->String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
  w->StartObject();
  str(AttrTypeName(v.type()));
  switch (v.type()) {
    case AttrType::kS: str(v.bytes()); break;
    case AttrType::kN: str(v.number_text()); break;  // stored as DynamoDB returns it
    case AttrType::kB: str(Base64Encode(v.bytes())); break;
    case AttrType::kBool: w->Bool(v.boolean()); break;
    case AttrType::kNull: w->Bool(true); break;
    case AttrType::kM:
      w->StartObject();
      for (size_t i = 0; i < v.size(); ++i) {
        ValueView e = v.Entry(i);
        str(e.name());
        DYNAROCK_RETURN_IF_ERROR(WriteViewJson(w, e));
      }
      w->EndObject();
      break;
    case AttrType::kL:
      w->StartArray();
      for (size_t i = 0; i < v.size(); ++i) {
        DYNAROCK_RETURN_IF_ERROR(WriteViewJson(w, *v.At(i)));
      }
      w->EndArray();
      break;
    case AttrType::kSS:
    case AttrType::kBS:
      w->StartArray();
      for (size_t i = 0; i < v.size(); ++i) {
        v.type() == AttrType::kSS ? str(v.member(i)) : str(Base64Encode(v.member(i)));
      }
      w->EndArray();
      break;
    case AttrType::kNS:
      w->StartArray();
      for (size_t i = 0; i < v.size(); ++i) str(v.member(i));
      w->EndArray();
      break;
  }
  w->EndObject();
  return Status::OK();
}

}  // namespace

Status WriteJson(JsonWriter* w, const ItemView& item) {
  w->StartObject();
  for (size_t i = 0; i < item.size(); ++i) {
    std::string_view name = item.name(i);
    w->String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    DYNAROCK_RETURN_IF_ERROR(WriteViewJson(w, item.value(i)));
  }
  w->EndObject();
  return Status::OK();
}

std::string ToJson(const AttributeValue& v) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  WriteJson(&w, v);
  return {buf.GetString(), buf.GetSize()};
}

std::string ToJson(const Item& item) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  WriteJson(&w, item);
  return {buf.GetString(), buf.GetSize()};
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  if (bytes.empty()) return out;
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::Serialization("Base64 encoded length is expected a multiple of 4 bytes but found: " +
                                 std::to_string(text.size()));
  }
  // OpenSSL's decoder is lenient (whitespace, padding anywhere): check strictly first.
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  for (size_t i = 0; i < text.size() - padding; ++i) {
    char c = text[i];
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '/';
    if (!ok) return Status::Serialization("Invalid Base64 character in: " + std::string(text));
  }
  std::string out(text.size() / 4 * 3, '\0');
  if (text.empty()) return out;
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return Status::Serialization("Invalid Base64 encoding: " + std::string(text));
  out.resize(static_cast<size_t>(n) - padding);  // EVP_DecodeBlock counts padding as zeros
  return out;
}

}  // namespace dynarock::format
