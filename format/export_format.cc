#include "format/export_format.h"

#include <openssl/evp.h>
#include <rapidjson/encodings.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <ctime>

#include "dynarock/number.h"
#include "format/item_line_fast.h"
#include "format/json.h"

namespace dynarock::format {
namespace {

// Deeper than any valid item (32 levels) with room for the {Item:...}
// wrapper; a bound on the parser's recursion.
constexpr int kMaxIonDepth = 40;

std::string_view Str(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

// The member `name` of an object, or null. (A loop, not FindMember: its
// iterators' comparison is ambiguous under C++20's reversed operators.)
const rapidjson::Value* Member(const rapidjson::Value& object, std::string_view name) {
  for (const auto& m : object.GetObject()) {
    if (Str(m.name) == name) return &m.value;
  }
  return nullptr;
}

// DynamoDB strings and names are UTF-8; RapidJSON's validator (the one its
// JSON parser uses) decides.
bool ValidUtf8(std::string_view s) {
  rapidjson::MemoryStream in(s.data(), s.size());
  struct Discard {
    void Put(char) {}
  } out;
  while (in.Tell() < s.size()) {
    if (!rapidjson::UTF8<>::Validate(in, out)) return false;
  }
  return true;
}

// ---- Ion writing ----

void AppendIonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20 || u == 0x7f) {
      out->append("\\x");
      out->push_back(kHex[u >> 4]);
      out->push_back(kHex[u & 15]);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

bool IsIonKeyword(std::string_view s) {
  return s == "true" || s == "false" || s == "null" || s == "nan";
}

// Unquoted where Ion allows an identifier, a string otherwise.
void AppendIonFieldName(std::string_view name, std::string* out) {
  bool identifier = !name.empty() && !IsIonKeyword(name) &&
                    (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  }
  if (identifier) {
    out->append(name);
  } else {
    AppendIonString(name, out);
  }
}

void AppendIonNumber(const Number& n, std::string* out) {
  if (n.is_zero()) {
    out->append("0.");
    return;
  }
  if (n.negative()) out->push_back('-');
  out->append(n.DigitString());
  if (n.exponent() == 0) {
    out->push_back('.');
  } else {
    out->push_back('d');
    out->append(std::to_string(n.exponent()));
  }
}

void AppendIonBlob(std::string_view bytes, std::string* out) {
  out->append("{{");
  out->append(Base64Encode(bytes));
  out->append("}}");
}

// ---- Ion reading: the text subset DynamoDB's ION exports and imports use ----

class IonReader {
 public:
  explicit IonReader(std::string_view text) : s_(text) {}

  Result<Item> Line() {
    SkipSpace();
    // The version marker may start the line.
    if (s_.substr(pos_).starts_with("$ion_1_0")) {
      pos_ += 8;
      SkipSpace();
    }
    if (!Eat('{')) return Error("expected a struct {Item:{...}}");
    std::optional<Item> item;
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      DYNAROCK_ASSIGN_OR_RETURN(std::string name, FieldName());
      SkipSpace();
      if (!Eat(':')) return Error("expected ':' after a field name");
      if (name == "Item") {
        SkipSpace();
        if (Peek() != '{') return Error("Item must be a struct");
        DYNAROCK_ASSIGN_OR_RETURN(AttributeValue v, Value(1));
        // `{{` also starts with `{`: a blob is not a struct.
        if (!v.is(AttrType::kM)) return Error("Item must be a struct");
        Item out;
        for (auto& [k, val] : v.m()) out.emplace(k, val);
        item = std::move(out);
      } else {
        DYNAROCK_ASSIGN_OR_RETURN(AttributeValue ignored, Value(1));
        (void)ignored;
      }
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return Error("expected ',' or '}' in a struct");
    }
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected text after the item");
    if (!item) return Error("the line has no Item field");
    return std::move(*item);
  }

 private:
  Status Error(std::string_view what) const {
    return Status::InvalidArgument("invalid Ion at column " + std::to_string(pos_ + 1) + ": " +
                                   std::string(what));
  }
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c || pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (s_.substr(pos_).starts_with("//")) {
        const size_t end = s_.find('\n', pos_);
        pos_ = end == std::string_view::npos ? s_.size() : end;
      } else if (s_.substr(pos_).starts_with("/*")) {
        const size_t end = s_.find("*/", pos_ + 2);
        pos_ = end == std::string_view::npos ? s_.size() : end + 2;
      } else {
        return;
      }
    }
  }
  static bool IdentStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
  }
  static bool IdentChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
  }
  std::string Identifier() {
    const size_t start = pos_;
    while (pos_ < s_.size() && IdentChar(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  // A quoted string or symbol body after its opening quote `q`, or (q 0)
  // the text up to `limit` (a long string's body).
  Result<std::string> Quoted(char q, size_t limit = std::string_view::npos) {
    std::string out;
    limit = std::min(limit, s_.size());
    while (true) {
      if (pos_ >= limit) {
        if (q == '\0') {
          if (!ValidUtf8(out)) return Error("a string is not valid UTF-8");
          return out;
        }
        return Error("unterminated string");
      }
      const char c = s_[pos_++];
      if (q != '\0' && c == q) {
        if (!ValidUtf8(out)) return Error("a string is not valid UTF-8");
        return out;
      }
      if (c == '\n' && q == '"') return Error("newline in a string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= limit) return Error("unterminated escape");
      const char e = s_[pos_++];
      // Ion's single-character escapes.
      static constexpr std::pair<char, char> kEscapes[] = {
          {'n', '\n'}, {'t', '\t'}, {'r', '\r'}, {'b', '\b'}, {'f', '\f'}, {'v', '\v'},
          {'a', '\a'}, {'0', '\0'}, {'"', '"'},   {'\'', '\''}, {'\\', '\\'}, {'/', '/'},
          {'?', '?'}};
      const auto* simple = std::find_if(std::begin(kEscapes), std::end(kEscapes),
                                        [e](const auto& p) { return p.first == e; });
      if (simple != std::end(kEscapes)) {
        out.push_back(simple->second);
        continue;
      }
      switch (e) {
        case '\n':
          break;  // line continuation
        case 'x':
        case 'u':
        case 'U': {
          const int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          if (pos_ + digits > limit) return Error("short escape");
          uint32_t cp = 0;
          for (int i = 0; i < digits; ++i) {
            const char h = s_[pos_++];
            if (!std::isxdigit(static_cast<unsigned char>(h))) return Error("bad hex escape");
            cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h))
                                                     ? h - '0'
                                                     : std::tolower(h) - 'a' + 10);
          }
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return Error("escape outside Unicode scalar values");
          }
          AppendUtf8(cp, &out);
          break;
        }
        default:
          return Error("unknown escape");
      }
    }
  }
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  // "short" strings and '''long''' ones (adjacent long strings concatenate).
  Result<std::string> String() {
    if (s_.substr(pos_).starts_with("'''")) {
      std::string out;
      while (s_.substr(pos_).starts_with("'''")) {
        pos_ += 3;
        const size_t end = s_.find("'''", pos_);
        if (end == std::string_view::npos) return Error("unterminated long string");
        // Escapes inside long strings are decoded like short ones.
        DYNAROCK_ASSIGN_OR_RETURN(std::string part, Quoted('\0', end));
        out += part;
        pos_ = end + 3;
        SkipSpace();
      }
      return out;
    }
    ++pos_;  // the opening "
    return Quoted('"');
  }
  Result<std::string> FieldName() {
    const char c = Peek();
    if (c == '"' || s_.substr(pos_).starts_with("'''")) return String();
    if (c == '\'') {
      ++pos_;
      return Quoted('\'');
    }
    if (IdentStart(c)) return Identifier();
    return Error("expected a field name");
  }

  Result<AttributeValue> Value(int depth) {
    if (depth > kMaxIonDepth) return Error("nesting too deep");
    SkipSpace();
    // Annotations: name:: before the value (DynamoDB's set markers).
    std::string annotation;
    while (true) {
      const size_t save = pos_;
      std::string name;
      if (IdentStart(Peek())) {
        name = Identifier();
      } else if (Peek() == '\'' && !s_.substr(pos_).starts_with("'''")) {
        ++pos_;
        DYNAROCK_ASSIGN_OR_RETURN(name, Quoted('\''));
      } else {
        break;
      }
      SkipSpace();
      if (s_.substr(pos_).starts_with("::")) {
        pos_ += 2;
        SkipSpace();
        annotation = name;
        continue;
      }
      pos_ = save;
      break;
    }
    const char c = Peek();
    AttributeValue v;
    if (s_.substr(pos_).starts_with("{{")) {
      DYNAROCK_ASSIGN_OR_RETURN(std::string bytes, Blob());
      v = AttributeValue::B(std::move(bytes));
    } else if (c == '{') {
      ++pos_;
      AttributeValue::Map entries;
      while (true) {
        SkipSpace();
        if (Eat('}')) break;
        DYNAROCK_ASSIGN_OR_RETURN(std::string name, FieldName());
        SkipSpace();
        if (!Eat(':')) return Error("expected ':' after a field name");
        DYNAROCK_ASSIGN_OR_RETURN(AttributeValue member, Value(depth + 1));
        entries.emplace_back(std::move(name), std::move(member));
        SkipSpace();
        if (Eat(',')) continue;
        if (Eat('}')) break;
        return Error("expected ',' or '}' in a struct");
      }
      std::sort(entries.begin(), entries.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 1; i < entries.size(); ++i) {
        if (entries[i].first == entries[i - 1].first) {
          return Error("duplicate field name " + entries[i].first);
        }
      }
      v = AttributeValue::M(std::move(entries));
    } else if (c == '[') {
      ++pos_;
      AttributeValue::List elements;
      while (true) {
        SkipSpace();
        if (Eat(']')) break;
        DYNAROCK_ASSIGN_OR_RETURN(AttributeValue e, Value(depth + 1));
        elements.push_back(std::move(e));
        SkipSpace();
        if (Eat(',')) continue;
        if (Eat(']')) break;
        return Error("expected ',' or ']' in a list");
      }
      if (annotation.starts_with("$dynamodb_")) return MakeSet(annotation, std::move(elements));
      v = AttributeValue::L(std::move(elements));
    } else if (c == '"' || s_.substr(pos_).starts_with("'''")) {
      DYNAROCK_ASSIGN_OR_RETURN(std::string s, String());
      v = AttributeValue::S(std::move(s));
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      DYNAROCK_ASSIGN_OR_RETURN(Number n, NumberValue());
      v = AttributeValue::N(n);
    } else if (IdentStart(c)) {
      const std::string word = Identifier();
      if (word == "true" || word == "false") {
        v = AttributeValue::Bool(word == "true");
      } else if (word == "null") {
        if (Eat('.')) Identifier();  // null.string and friends: a null all the same
        v = AttributeValue::Null();
      } else {
        return Error("a symbol is not a DynamoDB value: " + word);
      }
    } else {
      return Error("expected a value");
    }
    if (!annotation.empty()) return Error("unexpected annotation " + annotation);
    return v;
  }

  Result<AttributeValue> MakeSet(const std::string& annotation, AttributeValue::List elements) {
    if (annotation == "$dynamodb_SS" || annotation == "$dynamodb_BS") {
      const AttrType want = annotation == "$dynamodb_SS" ? AttrType::kS : AttrType::kB;
      std::vector<std::string> members;
      for (const auto& e : elements) {
        if (!e.is(want)) return Error(annotation + " holds a member of another type");
        members.push_back(want == AttrType::kS ? e.s() : e.b());
      }
      return want == AttrType::kS ? AttributeValue::SS(std::move(members))
                                  : AttributeValue::BS(std::move(members));
    }
    if (annotation == "$dynamodb_NS") {
      std::vector<Number> members;
      for (const auto& e : elements) {
        if (!e.is(AttrType::kN)) return Error("$dynamodb_NS holds a member that is not a number");
        members.push_back(e.n());
      }
      return AttributeValue::NS(std::move(members));
    }
    return Error("unknown annotation " + annotation);
  }

  Result<std::string> Blob() {
    pos_ += 2;
    std::string b64;
    while (pos_ < s_.size() && !s_.substr(pos_).starts_with("}}")) {
      const char c = s_[pos_++];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
      if (c == '"') return Error("clobs are not DynamoDB values");
      b64.push_back(c);
    }
    if (pos_ >= s_.size()) return Error("unterminated blob");
    pos_ += 2;
    auto bytes = Base64Decode(b64);
    if (!bytes.ok()) return Error("bad base64 in a blob");
    return bytes;
  }

  // Ion ints, decimals (d exponent) and floats (e exponent), as DynamoDB N.
  Result<Number> NumberValue() {
    std::string text;
    const size_t start = pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+') {
        text.push_back(c);
      } else if (c == 'd' || c == 'D' || c == 'e' || c == 'E') {
        text.push_back('e');
      } else if (c == '_') {
        // digit separator
      } else {
        break;
      }
      ++pos_;
    }
    if (text.starts_with("-0x") || text.starts_with("0x") || text.starts_with("0b")) {
      return Error("hexadecimal and binary ints are not supported");
    }
    auto n = Number::Parse(text);
    if (!n.ok()) {
      pos_ = start;
      return Error("bad number " + text + ": " + n.status().message());
    }
    return n;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

const char* ExportFormatName(ExportFormat f) {
  return f == ExportFormat::kIon ? "ION" : "DYNAMODB_JSON";
}

const char* DataFileExtension(ExportFormat f) {
  return f == ExportFormat::kIon ? ".ion.gz" : ".json.gz";
}

void AppendIon(const AttributeValue& v, std::string* out) {
  switch (v.type()) {
    case AttrType::kS:
      AppendIonString(v.s(), out);
      break;
    case AttrType::kN:
      AppendIonNumber(v.n(), out);
      break;
    case AttrType::kB:
      AppendIonBlob(v.b(), out);
      break;
    case AttrType::kBool:
      out->append(v.boolean() ? "true" : "false");
      break;
    case AttrType::kNull:
      out->append("null");
      break;
    case AttrType::kM: {
      out->push_back('{');
      bool first = true;
      for (const auto& [name, member] : v.m()) {
        if (!first) out->push_back(',');
        first = false;
        AppendIonFieldName(name, out);
        out->push_back(':');
        AppendIon(member, out);
      }
      out->push_back('}');
      break;
    }
    case AttrType::kL: {
      out->push_back('[');
      for (size_t i = 0; i < v.l().size(); ++i) {
        if (i) out->push_back(',');
        AppendIon(v.l()[i], out);
      }
      out->push_back(']');
      break;
    }
    case AttrType::kSS:
    case AttrType::kBS: {
      const bool ss = v.is(AttrType::kSS);
      out->append(ss ? "$dynamodb_SS::[" : "$dynamodb_BS::[");
      const auto& members = ss ? v.ss() : v.bs();
      for (size_t i = 0; i < members.size(); ++i) {
        if (i) out->push_back(',');
        if (ss) {
          AppendIonString(members[i], out);
        } else {
          AppendIonBlob(members[i], out);
        }
      }
      out->push_back(']');
      break;
    }
    case AttrType::kNS: {
      out->append("$dynamodb_NS::[");
      for (size_t i = 0; i < v.ns().size(); ++i) {
        if (i) out->push_back(',');
        AppendIonNumber(v.ns()[i], out);
      }
      out->push_back(']');
      break;
    }
  }
}

std::string ItemLine(ExportFormat f, const Item& item) {
  if (f == ExportFormat::kIon) {
    std::string out = "$ion_1_0 {Item:{";
    bool first = true;
    for (const auto& [name, value] : item) {
      if (!first) out.push_back(',');
      first = false;
      AppendIonFieldName(name, &out);
      out.push_back(':');
      AppendIon(value, &out);
    }
    out.append("}}");
    return out;
  }
  return "{\"Item\":" + ToJson(item) + "}";
}

Status AppendItemLine(ExportFormat f, const ItemView& item, std::string* out) {
  if (f == ExportFormat::kIon) {
    DYNAROCK_ASSIGN_OR_RETURN(Item decoded, item.Decode());
    out->append(ItemLine(f, decoded));
    return Status::OK();
  }
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  DYNAROCK_RETURN_IF_ERROR(WriteJson(&w, item));
  out->append("{\"Item\":");
  out->append(buffer.GetString(), buffer.GetSize());
  out->push_back('}');
  return Status::OK();
}

namespace {

Result<Item> Validated(Item item, bool validate) {
  if (!validate) return item;
  for (const auto& [name, value] : item) {
    if (name.empty()) return Status::Validation("An attribute name cannot be empty");
    DYNAROCK_RETURN_IF_ERROR(value.Validate());
  }
  return item;
}

}  // namespace

Result<Item> ParseItemLine(ExportFormat f, std::string_view line, bool validate) {
  if (f == ExportFormat::kIon) {
    IonReader reader(line);
    DYNAROCK_ASSIGN_OR_RETURN(Item item, reader.Line());
    return Validated(std::move(item), validate);
  }
  // Most lines: simdjson straight into the item. The rest, and every error,
  // go through RapidJSON (item_line_fast.h).
  if (line.find('\0') == std::string_view::npos) {
    if (auto item = ItemLineFast(line)) return Validated(std::move(*item), validate);
  }
  return ParseJsonItemLineWithRapidJson(line, validate);
}

Result<Item> ParseJsonItemLineWithRapidJson(std::string_view line, bool validate) {
  // RapidJSON takes a NUL byte for the end of its input.
  if (const size_t nul = line.find('\0'); nul != std::string_view::npos) {
    return Status::InvalidArgument("invalid JSON: a NUL byte at offset " + std::to_string(nul));
  }
  // The document lives in a buffer on the stack: most lines fit, and a
  // restore parses millions of them (the pool mallocs beyond it).
  char buffer[16 << 10];
  rapidjson::MemoryPoolAllocator<> pool(buffer, sizeof buffer);
  rapidjson::Document doc(&pool);
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(line.data(),
                                                                                    line.size());
  if (doc.HasParseError()) {
    return Status::InvalidArgument("invalid JSON: " +
                                   std::string(rapidjson::GetParseError_En(doc.GetParseError())) +
                                   " at offset " + std::to_string(doc.GetErrorOffset()));
  }
  if (!doc.IsObject()) return Status::InvalidArgument("a line must be a JSON object {\"Item\":{...}}");
  const rapidjson::Value* it = Member(doc, "Item");
  if (it == nullptr || !it->IsObject()) {
    return Status::InvalidArgument("the line has no \"Item\" object");
  }
  DYNAROCK_ASSIGN_OR_RETURN(Item item, ItemFromJson(*it));
  return Validated(std::move(item), validate);
}

// ---- Manifests ----

std::string ManifestFilesJson(const std::vector<ManifestFile>& files) {
  std::string out;
  for (const auto& f : files) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("itemCount");
    w.Int64(f.item_count);
    w.Key("md5Checksum");
    w.String(f.md5_checksum.data(), static_cast<rapidjson::SizeType>(f.md5_checksum.size()));
    w.Key("etag");
    w.String(f.etag.data(), static_cast<rapidjson::SizeType>(f.etag.size()));
    w.Key("dataFileS3Key");
    w.String(f.data_file_s3_key.data(),
             static_cast<rapidjson::SizeType>(f.data_file_s3_key.size()));
    w.EndObject();
    out.append(buffer.GetString(), buffer.GetSize());
    out.push_back('\n');
  }
  return out;
}

std::string ManifestSummaryJson(const ManifestSummary& s) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  auto str = [&](const char* key, const std::string& v) {
    w.Key(key);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  };
  auto opt = [&](const char* key, const std::optional<std::string>& v) {
    if (v) {
      str(key, *v);
    } else {
      w.Key(key);
      w.Null();
    }
  };
  w.StartObject();
  str("version", s.version);
  str("exportArn", s.export_arn);
  str("startTime", s.start_time);
  str("endTime", s.end_time);
  str("tableArn", s.table_arn);
  str("tableId", s.table_id);
  str("exportTime", s.export_time);
  str("s3Bucket", s.s3_bucket);
  opt("s3Prefix", s.s3_prefix);
  str("s3SseAlgorithm", s.s3_sse_algorithm);
  opt("s3SseKmsKeyId", s.s3_sse_kms_key_id);
  str("manifestFilesS3Key", s.manifest_files_s3_key);
  w.Key("billedSizeBytes");
  w.Int64(s.billed_size_bytes);
  w.Key("itemCount");
  w.Int64(s.item_count);
  str("outputFormat", ExportFormatName(s.output_format));
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

namespace {

Status MissingMember(const char* file, const char* member) {
  return Status::InvalidArgument(std::string(file) + ": member \"" + member +
                                 "\" is missing or has the wrong type");
}

}  // namespace

Result<std::vector<ManifestFile>> ParseManifestFiles(std::string_view text) {
  std::vector<ManifestFile> files;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) {
      line.remove_suffix(1);
    }
    if (line.empty()) continue;
    rapidjson::Document doc;
    Status parsed = ParseJson(line, &doc);
    if (!parsed.ok() || !doc.IsObject()) {
      return Status::InvalidArgument("manifest-files.json line " + std::to_string(line_no) +
                                     ": not a JSON object");
    }
    ManifestFile f;
    const rapidjson::Value* count = Member(doc, "itemCount");
    const rapidjson::Value* md5 = Member(doc, "md5Checksum");
    const rapidjson::Value* etag = Member(doc, "etag");
    const rapidjson::Value* key = Member(doc, "dataFileS3Key");
    if (count == nullptr || !count->IsInt64() || count->GetInt64() < 0) {
      return MissingMember("manifest-files.json", "itemCount");
    }
    if (md5 == nullptr || !md5->IsString()) {
      return MissingMember("manifest-files.json", "md5Checksum");
    }
    if (key == nullptr || !key->IsString()) {
      return MissingMember("manifest-files.json", "dataFileS3Key");
    }
    f.item_count = count->GetInt64();
    f.md5_checksum = std::string(Str(*md5));
    if (etag != nullptr && etag->IsString()) f.etag = std::string(Str(*etag));
    f.data_file_s3_key = std::string(Str(*key));
    files.push_back(std::move(f));
  }
  return files;
}

Result<ManifestSummary> ParseManifestSummary(std::string_view text) {
  rapidjson::Document doc;
  Status parsed = ParseJson(text, &doc);
  if (!parsed.ok() || !doc.IsObject()) {
    return Status::InvalidArgument("manifest-summary.json: not a JSON object");
  }
  ManifestSummary s;
  auto get = [&](const char* key, std::string* out, bool required) -> Status {
    const rapidjson::Value* it = Member(doc, key);
    if (it == nullptr || it->IsNull()) {
      return required ? MissingMember("manifest-summary.json", key) : Status::OK();
    }
    if (!it->IsString()) return MissingMember("manifest-summary.json", key);
    *out = std::string(Str(*it));
    return Status::OK();
  };
  DYNAROCK_RETURN_IF_ERROR(get("version", &s.version, false));
  DYNAROCK_RETURN_IF_ERROR(get("exportArn", &s.export_arn, false));
  DYNAROCK_RETURN_IF_ERROR(get("startTime", &s.start_time, false));
  DYNAROCK_RETURN_IF_ERROR(get("endTime", &s.end_time, false));
  DYNAROCK_RETURN_IF_ERROR(get("tableArn", &s.table_arn, false));
  DYNAROCK_RETURN_IF_ERROR(get("tableId", &s.table_id, false));
  DYNAROCK_RETURN_IF_ERROR(get("exportTime", &s.export_time, false));
  DYNAROCK_RETURN_IF_ERROR(get("s3Bucket", &s.s3_bucket, false));
  std::string prefix, kms;
  DYNAROCK_RETURN_IF_ERROR(get("s3Prefix", &prefix, false));
  if (!prefix.empty()) s.s3_prefix = prefix;
  DYNAROCK_RETURN_IF_ERROR(get("s3SseAlgorithm", &s.s3_sse_algorithm, false));
  DYNAROCK_RETURN_IF_ERROR(get("s3SseKmsKeyId", &kms, false));
  if (!kms.empty()) s.s3_sse_kms_key_id = kms;
  DYNAROCK_RETURN_IF_ERROR(get("manifestFilesS3Key", &s.manifest_files_s3_key, true));
  std::string format = "DYNAMODB_JSON";
  DYNAROCK_RETURN_IF_ERROR(get("outputFormat", &format, false));
  if (format == "ION") {
    s.output_format = ExportFormat::kIon;
  } else if (format != "DYNAMODB_JSON") {
    return Status::InvalidArgument("manifest-summary.json: outputFormat " + format +
                                   " is neither DYNAMODB_JSON nor ION");
  }
  const rapidjson::Value* count = Member(doc, "itemCount");
  if (count != nullptr && count->IsInt64()) s.item_count = count->GetInt64();
  const rapidjson::Value* billed = Member(doc, "billedSizeBytes");
  if (billed != nullptr && billed->IsInt64()) {
    s.billed_size_bytes = billed->GetInt64();
  }
  return s;
}

namespace {

std::array<unsigned char, 16> Md5Raw(std::string_view bytes) {
  std::array<unsigned char, 16> digest{};
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &len, EVP_md5(), nullptr);
  return digest;
}

std::string Hex(const unsigned char* p, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kHex[p[i] >> 4]);
    out.push_back(kHex[p[i] & 15]);
  }
  return out;
}

}  // namespace

std::string Md5Base64(std::string_view bytes) {
  auto d = Md5Raw(bytes);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
}

std::string Md5Hex(std::string_view bytes) {
  auto d = Md5Raw(bytes);
  return Hex(d.data(), d.size());
}

std::string MultipartEtag(std::string_view md5_raw) { return Md5Hex(md5_raw) + "-1"; }

std::string IsoTimestampMs(int64_t ms) {
  const time_t secs = static_cast<time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

Result<Item> CsvRowToItem(const std::vector<std::string>& header,
                          const std::vector<std::string>& fields,
                          const std::vector<std::pair<std::string, ScalarAttributeType>>& typed) {
  if (fields.size() > header.size()) {
    return Status::InvalidArgument("the row has " + std::to_string(fields.size()) +
                                   " fields but the header names " + std::to_string(header.size()) +
                                   " columns");
  }
  Item item;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& name = header[i];
    const std::string& field = fields[i];
    const ScalarAttributeType* type = nullptr;
    for (const auto& [n, t] : typed) {
      if (n == name) type = &t;
    }
    if (field.empty()) continue;
    if (type == nullptr || *type == ScalarAttributeType::kS) {
      item[name] = AttributeValue::S(field);
    } else if (*type == ScalarAttributeType::kN) {
      DYNAROCK_ASSIGN_OR_RETURN(Number n, Number::Parse(field));
      item[name] = AttributeValue::N(n);
    } else {
      auto bytes = Base64Decode(field);
      if (!bytes.ok()) {
        return Status::InvalidArgument("column " + name + " (B) is not base64: " + field);
      }
      item[name] = AttributeValue::B(std::move(bytes).value());
    }
  }
  return item;
}

}  // namespace dynarock::format
