// Read-only HTTP endpoints beside DynamoDB's API, for what only the engine
// knows and DynamoDB's API has no operation for: `GET /console/api/...`.
// `dynarock top` reads them; the web console (issue 18) will too.
//
//   GET /console/api/hottest[?table=T][&limit=N][&window=S]
//     The collections of table T (every table when absent), and of each of
//     its GSIs, that consumed the most capacity units over the last S
//     seconds (Database::HottestCollections). limit: 1-100, default 10;
//     window: 1-360 seconds, default 60. 200:
//       {"WindowSeconds": 60,             the time the counts cover
//        "Tables": [{"TableName": "Telemetry",
//                    "Collections": [{"IndexName": "ByDepot",   (GSIs only)
//                                     "Key": {"depotCode": {"S": "DEP-LON-3"}},
//                                     "ReadUnits": 12.5, "WriteUnits": 3,
//                                     "Units": 15.5, "ErrorBound": 0}, ...]}]}
//     Collections: the table's first, then each GSI's, each heaviest first.
//
// Errors are DynamoDB's JSON error bodies: 400 ValidationException for a
// bad or unknown parameter, 400 ResourceNotFoundException for an unknown
// table, 404 UnknownOperationException for an unknown path.
#ifndef DYNAROCK_TOOLS_SERVER_CONSOLE_API_H_
#define DYNAROCK_TOOLS_SERVER_CONSOLE_API_H_

#include <string_view>

#include "dynarock/db.h"
#include "tools/server/wire.h"

namespace dynarock::console {

inline constexpr std::string_view kApiPrefix = "/console/api/";

// The request's path (without the query) is under kApiPrefix.
bool IsApiPath(std::string_view path);

// Answers GET `path`?`query` (query: as sent, percent-encoded). REQUIRES:
// IsApiPath(path). Never throws; any bytes give one of the answers above.
wire::WireResponse HandleApi(Database* db, std::string_view path, std::string_view query);

}  // namespace dynarock::console

#endif  // DYNAROCK_TOOLS_SERVER_CONSOLE_API_H_
