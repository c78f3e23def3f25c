#include "tools/server/protocol/request_runtime.h"

#include <utility>

#include "format/attribute_value_rules.h"

namespace dynarock::protocol {

Result<dynarock::AttributeValue> ToValue(AttributeValue&& in, Status* deferred) {
  auto v = format::ToAttributeValue(std::move(in));
  if (v.ok() || deferred == nullptr) return v;
  if (deferred->ok()) *deferred = v.status();
  return dynarock::AttributeValue::Null();
}

Result<dynarock::Item> ToItem(Map<AttributeValue>&& in, Status* deferred) {
  dynarock::Item item;
  for (auto& [name, value] : in) {
    DYNAROCK_ASSIGN_OR_RETURN(auto v, ToValue(std::move(value), deferred));
    item.insert_or_assign(std::move(name), std::move(v));
  }
  return item;
}

}  // namespace dynarock::protocol
