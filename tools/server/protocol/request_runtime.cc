#include "tools/server/protocol/request_runtime.h"

#include <utility>

#include "format/attribute_value_rules.h"

namespace dynarock::protocol {
namespace {

// Where ToValueLenient() keeps the first AttributeValue error (ValueErrors).
thread_local Status* value_errors = nullptr;

}  // namespace

Result<dynarock::AttributeValue> ToValue(AttributeValue&& in, int level) {
  return format::ToAttributeValue(std::move(in), level);
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
