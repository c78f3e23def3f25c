// DynamoDB's JSON protocol over the engine. A request goes through
// DynamoDB's phases, in DynamoDB's order: JSON parse,
// target, authentication, type deserialization and model constraints (both
// generated from DynamoDB's service model: protocol/model_gen.h), then the
// engine's typed request. Semantics live in the engine; this layer only
// translates requests and responses.
#ifndef DYNAROCK_TOOLS_SERVER_WIRE_H_
#define DYNAROCK_TOOLS_SERVER_WIRE_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/db.h"

namespace dynarock::jobs {
class JobManager;
}

namespace dynarock::wire {

struct WireResponse {
  int http_status = 200;
  std::string body;
  // Headers beyond the ones every answer carries (CORS preflight).
  std::vector<std::pair<std::string, std::string>> headers = {};
};

// Authentication, run by Handle() at its place in DynamoDB's order (after the
// JSON and the target are checked): nullopt admits the request, a response
// refuses it.
using Authenticator = std::function<std::optional<WireResponse>()>;

// Handles one request: `target` is the X-Amz-Target header
// ("DynamoDB_20120810.PutItem"), `body` the JSON. Any bytes are safe: every
// JSON value is type-checked by code generated from DynamoDB's model before
// use. Never throws. `jobs` serves the Export/Import operations (without
// one they answer InternalServerError); `host` is the request's Host header
// (DescribeEndpoints names it).
WireResponse Handle(Database* db, std::string_view target, std::string_view body,
                    const Authenticator& authenticate = {}, jobs::JobManager* jobs = nullptr,
                    std::string_view host = {});

// GET /: DynamoDB's health line ("healthy: <host> ", the Host header)
// while the database is healthy; 500 with the background error
// (Database::Health) once a flush or compaction failed.
WireResponse HealthResponse(Database* db, std::string_view host);

// An error body as DynamoDB sends it: {"__type": "<namespace>#<Name>", "message": ...}.
WireResponse ErrorResponse(const Status& status);

}  // namespace dynarock::wire

#endif  // DYNAROCK_TOOLS_SERVER_WIRE_H_
