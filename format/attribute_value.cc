#include "dynarock/attribute_value.h"

#include <algorithm>
#include <ostream>

namespace dynarock {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

// Java's List.toString(), which DynamoDB uses to name the offending set.
template <typename T, typename Fn>
std::string JoinForMessage(const std::vector<T>& members, Fn render) {
  std::string out = "[";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i) out += ", ";
    out += render(members[i]);
  }
  return out + "]";
}

template <typename T, typename Fn>
Status CheckSet(const std::vector<T>& members, const char* empty_msg, Fn render) {
  if (members.empty()) return Status::Validation(std::string(kInvalid) + empty_msg);
  // Members are kept sorted, so duplicates are adjacent.
  if (std::adjacent_find(members.begin(), members.end()) != members.end()) {
    return Status::Validation(std::string(kInvalid) + "Input collection " +
                              JoinForMessage(members, render) + " contains duplicates.");
  }
  return Status::OK();
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

std::string_view AttrTypeName(AttrType t) {
  switch (t) {
    case AttrType::kS: return "S";
    case AttrType::kN: return "N";
    case AttrType::kB: return "B";
    case AttrType::kBool: return "BOOL";
    case AttrType::kNull: return "NULL";
    case AttrType::kM: return "M";
    case AttrType::kL: return "L";
    case AttrType::kSS: return "SS";
    case AttrType::kNS: return "NS";
    case AttrType::kBS: return "BS";
  }
  return "?";
}

AttributeValue AttributeValue::S(std::string s) { return Make<kSIndex>(std::move(s)); }
AttributeValue AttributeValue::N(Number n) { return Make<kNIndex>(std::move(n)); }
AttributeValue AttributeValue::B(std::string bytes) { return Make<kBIndex>(std::move(bytes)); }
AttributeValue AttributeValue::Bool(bool b) { return Make<kBoolIndex>(b); }
AttributeValue AttributeValue::Null() { return AttributeValue(); }
AttributeValue AttributeValue::L(List elements) { return Make<kLIndex>(std::move(elements)); }

AttributeValue AttributeValue::M(Map entries) {
  // Stable sort keeps repeated names in input order; keep the last of each run.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Map unique;
  unique.reserve(entries.size());
  for (auto& e : entries) {
    if (!unique.empty() && unique.back().first == e.first) {
      unique.back().second = std::move(e.second);
    } else {
      unique.push_back(std::move(e));
    }
  }
  return Make<kMIndex>(std::move(unique));
}

AttributeValue AttributeValue::SS(std::vector<std::string> members) {
  std::sort(members.begin(), members.end());
  return Make<kSSIndex>(std::move(members));
}
AttributeValue AttributeValue::NS(std::vector<Number> members) {
  std::sort(members.begin(), members.end());
  return Make<kNSIndex>(std::move(members));
}
AttributeValue AttributeValue::BS(std::vector<std::string> members) {
  std::sort(members.begin(), members.end());
  return Make<kBSIndex>(std::move(members));
}

const AttributeValue* AttributeValue::Find(std::string_view name) const {
  const Map& map = m();
  auto it = std::lower_bound(map.begin(), map.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  return it != map.end() && it->first == name ? &it->second : nullptr;
}

void AttributeValue::Set(std::string name, AttributeValue value) {
  Map& map = std::get<kMIndex>(v_);
  auto it = std::lower_bound(map.begin(), map.end(), name,
                             [](const auto& e, const std::string& n) { return e.first < n; });
  if (it != map.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    map.emplace(it, std::move(name), std::move(value));
  }
}

bool AttributeValue::Erase(std::string_view name) {
  Map& map = std::get<kMIndex>(v_);
  auto it = std::lower_bound(map.begin(), map.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  if (it == map.end() || it->first != name) return false;
  map.erase(it);
  return true;
}

Status AttributeValue::Validate(int level) const {
  if (level > kMaxNestingLevels) {
    return Status::Validation("Nesting Levels have exceeded supported limits");
  }
  auto plain = [](const std::string& s) { return s; };
  switch (type()) {
    case AttrType::kSS: return CheckSet(ss(), "An string set  may not be empty", plain);
    case AttrType::kNS:
      return CheckSet(ns(), "An number set  may not be empty",
                      [](const Number& n) { return n.ToString(); });
    case AttrType::kBS: return CheckSet(bs(), "Binary sets should not be empty", Hex);
    case AttrType::kM:
      for (const auto& [name, value] : m()) DYNAROCK_RETURN_IF_ERROR(value.Validate(level + 1));
      return Status::OK();
    case AttrType::kL:
      for (const auto& value : l()) DYNAROCK_RETURN_IF_ERROR(value.Validate(level + 1));
      return Status::OK();
    default: return Status::OK();
  }
}

Status ValidateItem(const Item& item) {
  for (const auto& [name, value] : item) {
    if (name.empty() || name.size() > 65535) {
      return Status::Validation(std::string(kInvalid) +
                                "An attribute name must be between 1 and 65535 bytes long");
    }
    DYNAROCK_RETURN_IF_ERROR(value.Validate(2));
  }
  return Status::OK();
}

std::string DebugString(const AttributeValue& v) {
  std::string tag = "{\"" + std::string(AttrTypeName(v.type())) + "\":";
  switch (v.type()) {
    case AttrType::kS: return tag + Quoted(v.s()) + "}";
    case AttrType::kN: return tag + Quoted(v.n().ToString()) + "}";
    case AttrType::kB: return tag + Quoted(Hex(v.b())) + "}";
    case AttrType::kBool: return tag + (v.boolean() ? "true" : "false") + "}";
    case AttrType::kNull: return tag + "true}";
    case AttrType::kSS: return tag + JoinForMessage(v.ss(), Quoted) + "}";
    case AttrType::kNS:
      return tag + JoinForMessage(v.ns(), [](const Number& n) { return Quoted(n.ToString()); }) +
             "}";
    case AttrType::kBS:
      return tag + JoinForMessage(v.bs(), [](const std::string& b) { return Quoted(Hex(b)); }) +
             "}";
    case AttrType::kL: return tag + JoinForMessage(v.l(), [](const AttributeValue& e) {
                                return DebugString(e);
                              }) + "}";
    case AttrType::kM: {
      std::string out = tag + "{";
      for (size_t i = 0; i < v.m().size(); ++i) {
        if (i) out += ",";
        out += Quoted(v.m()[i].first) + ":" + DebugString(v.m()[i].second);
      }
      return out + "}}";
    }
  }
  return tag + "?}";
}

std::ostream& operator<<(std::ostream& os, const AttributeValue& v) { return os << DebugString(v); }

std::string DebugString(const Item& item) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, value] : item) {
    if (!first) out += ",";
    first = false;
    out += Quoted(name) + ":" + DebugString(value);
  }
  return out + "}";
}

}  // namespace dynarock
