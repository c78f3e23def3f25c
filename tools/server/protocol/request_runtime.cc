#include "tools/server/protocol/request_runtime.h"

#include <algorithm>
#include <string>
#include <vector>

#include "format/json.h"

namespace dynarock::protocol {
namespace {

using dynarock::Number;

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

// Java's List.toString() of set members, for duplicate messages.
std::string InputList(const std::vector<std::string>& members) {
  std::string out = "[";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i) out += ", ";
    out += members[i];
  }
  return out + "]";
}

template <typename T>
bool HasDuplicates(std::vector<T> members) {
  std::sort(members.begin(), members.end());
  return std::adjacent_find(members.begin(), members.end()) != members.end();
}

// Where ToValueLenient() keeps the first AttributeValue error (ValueErrors).
thread_local Status* value_errors = nullptr;

}  // namespace

Result<dynarock::AttributeValue> ToValue(AttributeValue&& in, int level) {
  if (level > kMaxNestingLevels) {
    return Status::Validation("Nesting Levels have exceeded supported limits");
  }
  const int tags = in.s.has_value() + in.n.has_value() + in.b.has_value() + in.ss.has_value() +
                   in.ns.has_value() + in.bs.has_value() + in.m.has_value() + in.l.has_value() +
                   in.null_.has_value() + in.bool_.has_value();
  if (tags == 0) {
    return Status::Validation(
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
  }
  // Each tag's own checks come before the "more than one" check
  // (VALIDATION.md 5.1, steps 2-7).
  std::optional<dynarock::AttributeValue> out;
  if (in.n) {
    DYNAROCK_ASSIGN_OR_RETURN(auto n, Number::Parse(*in.n));
    out = dynarock::AttributeValue::N(n);
  }
  if (in.null_ && !*in.null_) {
    return Status::Validation(std::string(kInvalid) +
                              "Null attribute value types must have the value of true");
  }
  if (in.ss) {
    if (in.ss->empty())
      return Status::Validation(std::string(kInvalid) + "An string set  may not be empty");
    if (HasDuplicates(*in.ss)) {
      return Status::Validation(std::string(kInvalid) + "Input collection " + InputList(*in.ss) +
                                " contains duplicates.");
    }
  }
  std::vector<Number> numbers;
  if (in.ns) {
    if (in.ns->empty())
      return Status::Validation(std::string(kInvalid) + "An number set  may not be empty");
    numbers.reserve(in.ns->size());
    for (const auto& text : *in.ns) {
      DYNAROCK_ASSIGN_OR_RETURN(auto n, Number::Parse(text));
      numbers.push_back(n);
    }
    if (HasDuplicates(numbers)) return Status::Validation("Input collection contains duplicates");
  }
  if (in.bs) {
    if (in.bs->empty())
      return Status::Validation(std::string(kInvalid) + "Binary sets should not be empty");
    if (HasDuplicates(*in.bs)) {
      std::vector<std::string> encoded;
      for (const auto& b : *in.bs) encoded.push_back(format::Base64Encode(b));
      return Status::Validation(std::string(kInvalid) + "Input collection " + InputList(encoded) +
                                "of type BS contains duplicates.");
    }
  }
  std::optional<dynarock::AttributeValue::Map> map;
  if (in.m) {
    map.emplace();
    map->reserve(in.m->size());
    for (auto& [name, v] : *in.m) {
      DYNAROCK_ASSIGN_OR_RETURN(auto value, ToValue(std::move(v), level + 1));
      map->emplace_back(std::move(name), std::move(value));
    }
  }
  std::optional<dynarock::AttributeValue::List> list;
  if (in.l) {
    list.emplace();
    list->reserve(in.l->size());
    for (auto& v : *in.l) {
      DYNAROCK_ASSIGN_OR_RETURN(auto value, ToValue(std::move(v), level + 1));
      list->push_back(std::move(value));
    }
  }
  if (tags > 1) {
    return Status::Validation(
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
        "the supported datatypes");
  }
  if (in.s) return dynarock::AttributeValue::S(std::move(*in.s));
  if (in.b) return dynarock::AttributeValue::B(std::move(*in.b));
  if (in.ss) return dynarock::AttributeValue::SS(std::move(*in.ss));
  if (in.ns) return dynarock::AttributeValue::NS(std::move(numbers));
  if (in.bs) return dynarock::AttributeValue::BS(std::move(*in.bs));
  if (map) return dynarock::AttributeValue::M(std::move(*map));
  if (list) return dynarock::AttributeValue::L(std::move(*list));
  if (in.null_) return dynarock::AttributeValue::Null();
  if (in.bool_) return dynarock::AttributeValue::Bool(*in.bool_);
  return std::move(*out);  // N
}

Result<dynarock::AttributeValue> ToValueLenient(AttributeValue&& in) {
  auto v = ToValue(std::move(in));
  if (v.ok() || value_errors == nullptr) return v;
  if (value_errors->ok()) *value_errors = v.status();
  return dynarock::AttributeValue::Null();
}

Result<dynarock::Item> ToItemLenient(Map<AttributeValue>&& in) {
  dynarock::Item item;
  for (auto& [name, value] : in) {
    DYNAROCK_ASSIGN_OR_RETURN(auto v, ToValueLenient(std::move(value)));
    item.insert_or_assign(std::move(name), std::move(v));
  }
  return item;
}

ValueErrors::ValueErrors() : outer_(value_errors) { value_errors = &first_; }
ValueErrors::~ValueErrors() { value_errors = outer_; }

}  // namespace dynarock::protocol
