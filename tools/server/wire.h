// DynamoDB's JSON protocol over the engine: one function per operation that
// maps the request JSON onto the engine's typed request and the typed
// response back to JSON. Semantics live in the engine; this layer only
// translates (and checks the request's JSON shape, as DynamoDB's front end
// does before any semantic check).
#ifndef DYNAROCK_TOOLS_SERVER_WIRE_H_
#define DYNAROCK_TOOLS_SERVER_WIRE_H_

#include <string>
#include <string_view>

#include "dynarock/db.h"

namespace dynarock::wire {

struct WireResponse {
  int http_status = 200;
  std::string body;
};

// Handles one request: `target` is the X-Amz-Target header
// ("DynamoDB_20120810.PutItem"), `body` the JSON. Never throws.
WireResponse Handle(Database* db, std::string_view target, std::string_view body);

// An error body as DynamoDB sends it: {"__type": "<namespace>#<Name>", "message": ...}.
WireResponse ErrorResponse(const Status& status);

}  // namespace dynarock::wire

#endif  // DYNAROCK_TOOLS_SERVER_WIRE_H_
