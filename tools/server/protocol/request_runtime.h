// The hand-written half of the request translation: what the generated
// translation (requests_gen.h/.cc, from tools/codegen/gen_requests.py) calls
// for an AttributeValue, whose rules the model cannot say (they are
// format/attribute_value_rules.h's).
#ifndef DYNAROCK_TOOLS_SERVER_PROTOCOL_REQUEST_RUNTIME_H_
#define DYNAROCK_TOOLS_SERVER_PROTOCOL_REQUEST_RUNTIME_H_

#include "dynarock/attribute_value.h"
#include "dynarock/status.h"
#include "tools/server/protocol/model_gen.h"

namespace dynarock::protocol {

// The AttributeValue `in` stands for (format/attribute_value_rules.h).
// With `deferred`, an invalid value does not fail the translation: its error
// is kept in *deferred (the first one only) and NULL stands in. DynamoDB
// reports such an error only after the request's parameter checks (a mixing
// of expression and legacy parameters wins), so the caller asks for those
// before reporting it.
Result<dynarock::AttributeValue> ToValue(AttributeValue&& in, Status* deferred);
// An item (or key) of such values; a repeated name keeps its last value.
Result<dynarock::Item> ToItem(Map<AttributeValue>&& in, Status* deferred);

}  // namespace dynarock::protocol

#endif  // DYNAROCK_TOOLS_SERVER_PROTOCOL_REQUEST_RUNTIME_H_
