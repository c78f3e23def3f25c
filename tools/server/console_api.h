// The web console of `dynarock serve` (GET /console/) and the read-only
// HTTP endpoints beside DynamoDB's API that it and `dynarock top` read, for
// what only the engine knows and DynamoDB's API has no operation for
// (GET /console/api/...). The console itself calls DynamoDB's JSON API
// like any client; its sources are tools/console/.
//
//   GET /console/api/hottest[?table=T][&limit=N][&window=S]
//     The collections of table T (every table when absent), and of each of
//     its GSIs, that consumed the most capacity units over the last S
//     seconds (Database::HottestCollections). limit: 1-100, default 10;
//     window: 1-360 seconds, default 60. 200:
//       {"WindowSeconds": 60,             the time the counts cover
//        "Tables": [{"TableName": "Telemetry",   (members in any order)
//                    "Collections": [{"IndexName": "ByDepot",   (GSIs only)
//                                     "Key": {"depotCode": {"S": "DEP-LON-3"}},
//                                     "ReadUnits": 12.5, "WriteUnits": 3,
//                                     "Units": 15.5, "ErrorBound": 0}, ...]}]}
//     Collections: the table's first, then each GSI's, each heaviest first.
//   GET /console/api/largest?table=T[&limit=N]
//     The N largest collections of the table (from its statistics) and of
//     each index (LSIs, then GSIs; read from the index's entries, so in
//     time proportional to the index): {"TableName": T, "Collections":
//     [{"IndexName"?, "Key", "ItemCount", "SizeBytes"}, ...]}.
//   GET /console/api/collection?table=T&key=<value>[&index=I]
//     One collection (key: its partition key value in DynamoDB JSON, e.g.
//     {"S":"VEH#V-7741"}), as Database::DescribeCollection: {"ItemCount"?,
//     "SizeBytes"? (table collections), "SizeLimited" (the table has an
//     LSI: 10 GB), "SstFiles", "Levels": [...]}.
//   GET /console/api/config
//     {"Region", "Auth" (requests must be signed), "Writes" (the console
//     may write: --console-writes or --auth; otherwise the server refuses
//     its pages' writes, access_policy.h)}.
//
// Errors are DynamoDB's JSON error bodies: 400 ValidationException for a
// bad, missing or unknown parameter, 400 ResourceNotFoundException for an
// unknown table, 404 UnknownOperationException for an unknown endpoint.
#ifndef DYNAROCK_TOOLS_SERVER_CONSOLE_API_H_
#define DYNAROCK_TOOLS_SERVER_CONSOLE_API_H_

#include <string>
#include <string_view>

#include "dynarock/db.h"
#include "tools/server/wire.h"

namespace dynarock::console {

inline constexpr std::string_view kApiPrefix = "/console/api/";

// What the console is told about the server (GET /console/api/config).
struct Settings {
  std::string region = "us-east-1";  // the region requests are signed for
  bool auth = false;                 // serve --auth: requests must be signed
  bool writes = false;               // serve --console-writes, or auth
};

// The request's path (without the query) is under kApiPrefix.
bool IsApiPath(std::string_view path);

// Answers GET `path`?`query` (query: as sent, percent-encoded). REQUIRES:
// IsApiPath(path). Any bytes give one of the answers above.
wire::WireResponse HandleApi(Database* db, const Settings& settings, std::string_view path,
                             std::string_view query);

// The path is the console's page or one of its files: /console, /console/...
// (but not the API).
bool IsConsolePath(std::string_view path);

// The console's files, compiled into the binary (tools/console/): 301 from
// /console to /console/, index.html at /console/, 404 for a name that is
// not one of them. Every page carries a Content-Security-Policy that lets
// only the console's own script and style run and connect only to this
// server. REQUIRES: IsConsolePath(path).
wire::WireResponse HandleConsole(std::string_view path);

// One file of the console (console_assets.cc, generated from
// tools/console/ at build time).
struct Asset {
  std::string_view content_type;
  std::string_view body;
};
// The file named `name` (e.g. "console.js"), or null.
const Asset* FindAsset(std::string_view name);

}  // namespace dynarock::console

#endif  // DYNAROCK_TOOLS_SERVER_CONSOLE_API_H_
