// DynamoDB's rules for one AttributeValue as a client writes it, once its
// JSON types are checked: exactly one type tag; a number that parses; NULL
// true; string, number and binary sets non-empty and without duplicates;
// nesting at most kMaxNestingLevels. They are checked in DynamoDB's order
// (each tag's own checks first, then "more than one"), with its messages.
// The one validator of values from outside: requests
// (tools/server/protocol/request_runtime.cc) and JSON files and tokens
// (format/json.cc).
#ifndef DYNAROCK_FORMAT_ATTRIBUTE_VALUE_RULES_H_
#define DYNAROCK_FORMAT_ATTRIBUTE_VALUE_RULES_H_

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/status.h"

namespace dynarock::format {

namespace rules {

// DynamoDB's messages, in its words (the doubled spaces are its own).
Status NestingTooDeep();
Status NoType();
Status MoreThanOneType();
Status NullNotTrue();
Status EmptyStringSet();
Status EmptyNumberSet();
Status EmptyBinarySet();
Status DuplicateStrings(const std::vector<std::string>& members);
Status DuplicateNumbers();
Status DuplicateBinaries(const std::vector<std::string>& members);  // raw bytes

template <typename T>
bool HasDuplicates(std::vector<T> members) {
  std::sort(members.begin(), members.end());
  return std::adjacent_find(members.begin(), members.end()) != members.end();
}

}  // namespace rules

// The AttributeValue a client's tagged value stands for, or the first rule
// it breaks. `level` is its nesting level (2 for an attribute of an item).
// REQUIRES: `Tagged` has std::optional members s and n (text), b (bytes),
// ss and ns (texts), bs (bytes), m (a sequence of (name, Tagged) pairs),
// l (a sequence of Tagged), null_ and bool_ (bool), each present exactly
// when the client sent that tag with a non-null value of the right JSON type.
template <typename Tagged>
Result<AttributeValue> ToAttributeValue(Tagged&& in, int level = 2) {
  if (level > kMaxNestingLevels) return rules::NestingTooDeep();
  const int tags = in.s.has_value() + in.n.has_value() + in.b.has_value() + in.ss.has_value() +
                   in.ns.has_value() + in.bs.has_value() + in.m.has_value() + in.l.has_value() +
                   in.null_.has_value() + in.bool_.has_value();
  if (tags == 0) return rules::NoType();
  // Each tag's own checks come before the "more than one" check.
  std::optional<Number> number;
  if (in.n) {
    DYNAROCK_ASSIGN_OR_RETURN(number, Number::Parse(*in.n));
  }
  if (in.null_ && !*in.null_) return rules::NullNotTrue();
  if (in.ss) {
    if (in.ss->empty()) return rules::EmptyStringSet();
    if (rules::HasDuplicates(*in.ss)) return rules::DuplicateStrings(*in.ss);
  }
  std::vector<Number> numbers;
  if (in.ns) {
    if (in.ns->empty()) return rules::EmptyNumberSet();
    numbers.reserve(in.ns->size());
    for (const auto& text : *in.ns) {
      DYNAROCK_ASSIGN_OR_RETURN(auto n, Number::Parse(text));
      numbers.push_back(n);
    }
    if (rules::HasDuplicates(numbers)) return rules::DuplicateNumbers();
  }
  if (in.bs) {
    if (in.bs->empty()) return rules::EmptyBinarySet();
    if (rules::HasDuplicates(*in.bs)) return rules::DuplicateBinaries(*in.bs);
  }
  std::optional<AttributeValue::Map> map;
  if (in.m) {
    map.emplace();
    map->reserve(in.m->size());
    for (auto& [name, v] : *in.m) {
      DYNAROCK_ASSIGN_OR_RETURN(auto value, ToAttributeValue(std::move(v), level + 1));
      map->emplace_back(std::move(name), std::move(value));
    }
  }
  std::optional<AttributeValue::List> list;
  if (in.l) {
    list.emplace();
    list->reserve(in.l->size());
    for (auto& v : *in.l) {
      DYNAROCK_ASSIGN_OR_RETURN(auto value, ToAttributeValue(std::move(v), level + 1));
      list->push_back(std::move(value));
    }
  }
  if (tags > 1) return rules::MoreThanOneType();
  if (in.s) return AttributeValue::S(std::move(*in.s));
  if (in.b) return AttributeValue::B(std::move(*in.b));
  if (in.ss) return AttributeValue::SS(std::move(*in.ss));
  if (in.ns) return AttributeValue::NS(std::move(numbers));
  if (in.bs) return AttributeValue::BS(std::move(*in.bs));
  if (map) return AttributeValue::M(std::move(*map));
  if (list) return AttributeValue::L(std::move(*list));
  if (in.null_) return AttributeValue::Null();
  if (in.bool_) return AttributeValue::Bool(*in.bool_);
  return AttributeValue::N(*number);
}

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_ATTRIBUTE_VALUE_RULES_H_
