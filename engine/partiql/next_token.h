// A PartiQL SELECT's NextToken: which of its queries the next page starts
// in (0 for a scan) and the last key read there, tied to the request (its
// statement and parameters) by a digest, base64 of a small JSON document.
#ifndef DYNAROCK_ENGINE_PARTIQL_NEXT_TOKEN_H_
#define DYNAROCK_ENGINE_PARTIQL_NEXT_TOKEN_H_

#include <optional>
#include <string>

#include "dynarock/types.h"

namespace dynarock::partiql {

struct Position {
  size_t query = 0;
  std::optional<Item> last_key;
};

std::string EncodeNextToken(const ExecuteStatementRequest& r, const Position& p);
// ValidationException "Invalid NextToken" for a token this code did not
// write, "NextToken does not match request" for another request's.
Result<Position> DecodeNextToken(const ExecuteStatementRequest& r, const std::string& token);

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_NEXT_TOKEN_H_
