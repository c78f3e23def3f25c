#include "format/item_line_fast.h"

#include <simdjson.h>

#include <vector>

#include "dynarock/number.h"
#include "format/json.h"

namespace dynarock::format {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Text the RapidJSON path takes as it is. A 0xED byte may start the
// encoding of a lone surrogate escape, which that path refuses
// (json.cc CheckText): such text goes the slow way.
bool PlainText(std::string_view s) { return s.find('\xED') == std::string_view::npos; }

// One AttributeValue object, {"<type>": <value>}, at nesting `level`
// (AttributeValueFromJson's); nullopt for anything the RapidJSON path must
// decide.
std::optional<AttributeValue> Value(element json, int level) {
  if (level > kMaxNestingLevels) return std::nullopt;
  simdjson::dom::object object;
  if (json.get_object().get(object) != simdjson::SUCCESS || object.size() != 1) {
    return std::nullopt;
  }
  const auto [tag, v] = *object.begin();
  std::string_view text;
  if (tag == "S") {
    if (v.get_string().get(text) != simdjson::SUCCESS || !PlainText(text)) return std::nullopt;
    return AttributeValue::S(std::string(text));
  }
  if (tag == "N") {
    if (v.get_string().get(text) != simdjson::SUCCESS) return std::nullopt;
    auto n = Number::Parse(text);
    if (!n.ok()) return std::nullopt;
    return AttributeValue::N(*n);
  }
  if (tag == "B") {
    if (v.get_string().get(text) != simdjson::SUCCESS) return std::nullopt;
    auto bytes = Base64Decode(text);
    if (!bytes.ok()) return std::nullopt;
    return AttributeValue::B(std::move(bytes).value());
  }
  if (tag == "BOOL") {
    bool b = false;
    if (v.get_bool().get(b) != simdjson::SUCCESS) return std::nullopt;
    return AttributeValue::Bool(b);
  }
  if (tag == "NULL") {
    bool b = false;
    if (v.get_bool().get(b) != simdjson::SUCCESS || !b) return std::nullopt;
    return AttributeValue::Null();
  }
  if (tag == "L") {
    simdjson::dom::array array;
    if (v.get_array().get(array) != simdjson::SUCCESS) return std::nullopt;
    AttributeValue::List list;
    list.reserve(array.size());
    for (element e : array) {
      auto member = Value(e, level + 1);
      if (!member) return std::nullopt;
      list.push_back(std::move(*member));
    }
    return AttributeValue::L(std::move(list));
  }
  if (tag == "M") {
    simdjson::dom::object members;
    if (v.get_object().get(members) != simdjson::SUCCESS) return std::nullopt;
    AttributeValue::Map map;
    map.reserve(members.size());
    for (auto [name, e] : members) {
      if (!PlainText(name)) return std::nullopt;
      auto member = Value(e, level + 1);
      if (!member) return std::nullopt;
      map.emplace_back(std::string(name), std::move(*member));
    }
    return AttributeValue::M(std::move(map));
  }
  return std::nullopt;  // a set, or a member the RapidJSON path weighs
}

}  // namespace

std::optional<Item> ItemLineFast(std::string_view line) {
  // A byte order mark: RapidJSON refuses it, and some simdjson versions skip it.
  if (line.starts_with("\xEF\xBB\xBF")) return std::nullopt;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end: the line is
  // copied into a buffer that has them.
  thread_local simdjson::dom::parser parser;
  thread_local std::vector<char> padded;
  if (padded.size() < line.size() + simdjson::SIMDJSON_PADDING) {
    padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
  }
  std::copy(line.begin(), line.end(), padded.begin());
  element doc;
  if (parser.parse(padded.data(), line.size(), false).get(doc) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  simdjson::dom::object root, attributes;
  if (doc.get_object().get(root) != simdjson::SUCCESS || root.size() != 1) return std::nullopt;
  const auto [key, value] = *root.begin();
  if (key != "Item" || value.get_object().get(attributes) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  Item item;
  for (auto [name, json] : attributes) {
    if (!PlainText(name)) return std::nullopt;
    auto v = Value(json, 2);
    if (!v) return std::nullopt;
    // Exports list names in order: most go at the end without a search. A
    // repeated name: the last one wins, as in ItemFromJson.
    if (item.empty() || item.rbegin()->first < name) {
      item.emplace_hint(item.end(), std::string(name), std::move(*v));
    } else {
      item.insert_or_assign(std::string(name), std::move(*v));
    }
  }
  return item;
}

}  // namespace dynarock::format
