// The model's request shapes (protocol/*model_gen.h, already type-checked and
// constraint-checked) onto the engine's typed requests: the generated
// translation (protocol/requests_gen.h), after refusing what Dynarock
// cannot honour. The translation's only errors are AttributeValue ones
// (protocol/request_runtime.h), which the caller may defer.
#ifndef DYNAROCK_TOOLS_SERVER_WIRE_REQUESTS_H_
#define DYNAROCK_TOOLS_SERVER_WIRE_REQUESTS_H_

#include <utility>

#include "dynarock/types.h"
#include "tools/server/protocol/model_gen.h"
#include "tools/server/protocol/requests_gen.h"
#include "tools/server/protocol/streams_requests_gen.h"

namespace dynarock::wire {

// Members DynamoDB accepts and Dynarock cannot honour (KMS encryption, table
// classes, replicas, on-demand maximums, resource policies): a
// ValidationException that says so, never a request half served.
Status RefuseUnsupported(const protocol::CreateTableInput& in);
Status RefuseUnsupported(const protocol::UpdateTableInput& in);

// The engine's request for model input `in`; `deferred` as in
// protocol::ToValue (null: an invalid AttributeValue fails the translation).
template <typename Request, typename Input>
Result<Request> ToRequest(Input&& in, Status* deferred = nullptr) {
  if constexpr (requires { RefuseUnsupported(in); }) {
    DYNAROCK_RETURN_IF_ERROR(RefuseUnsupported(in));
  }
  Request out;
  // Found by argument: the generated translation of the input's service.
  DYNAROCK_RETURN_IF_ERROR(ToRequest(std::move(in), &out, deferred));
  return out;
}

}  // namespace dynarock::wire

#endif  // DYNAROCK_TOOLS_SERVER_WIRE_REQUESTS_H_
