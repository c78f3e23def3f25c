// The hand-written half of the request translation: what the generated
// translation (requests_gen.h/.cc, from tools/codegen/gen_requests.py) calls
// for an AttributeValue, whose rules the model cannot say (they are
// format/attribute_value_rules.h's), and the scope that defers their errors.
#ifndef DYNAROCK_TOOLS_SERVER_PROTOCOL_REQUEST_RUNTIME_H_
#define DYNAROCK_TOOLS_SERVER_PROTOCOL_REQUEST_RUNTIME_H_

#include "dynarock/attribute_value.h"
#include "dynarock/status.h"
#include "tools/server/protocol/model_gen.h"

namespace dynarock::protocol {

// One AttributeValue; `level` is its nesting level (2 for an attribute).
// Validation errors in DynamoDB's words.
Result<dynarock::AttributeValue> ToValue(AttributeValue&& in, int level = 2);

// Collects the first AttributeValue error of the translations made on this
// thread during its lifetime; those translations then take an invalid value
// as NULL instead of failing. DynamoDB reports such an error only after the
// request's parameter checks (a mixing of expression and legacy parameters
// wins), so the caller asks for those before reporting it. Scopes nest.
class ValueErrors {
 public:
  ValueErrors();
  ~ValueErrors();
  ValueErrors(const ValueErrors&) = delete;
  ValueErrors& operator=(const ValueErrors&) = delete;
  // OK when every value was valid.
  const Status& first() const { return first_; }

 private:
  Status first_;
  Status* outer_;
};

// ToValue() under the ValueErrors scope of this thread, if any.
Result<dynarock::AttributeValue> ToValueLenient(AttributeValue&& in);
// An item (or key) of such values; a repeated name keeps its last value.
Result<dynarock::Item> ToItemLenient(Map<AttributeValue>&& in);

}  // namespace dynarock::protocol

#endif  // DYNAROCK_TOOLS_SERVER_PROTOCOL_REQUEST_RUNTIME_H_
