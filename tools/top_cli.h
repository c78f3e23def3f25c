// `dynarock top`: a live view of the hottest item collections of a running
// `dynarock serve` (what Contributor Insights shows as "most accessed
// keys"), read from its console API (GET /console/api/hottest).
//
//   dynarock top [--endpoint http://127.0.0.1:8000] [--table T] [--limit N]
//                [--window SECONDS] [--interval SECONDS] [--once] [--json]
//                [--region R]
//
// On a terminal it redraws every --interval seconds until interrupted; on
// a pipe it prints a view per interval; --once prints one and exits.
// Requests are signed (SigV4) with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
// when they are set, for a server started with --auth.
#ifndef DYNAROCK_TOOLS_TOP_CLI_H_
#define DYNAROCK_TOOLS_TOP_CLI_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "dynarock/status.h"

namespace dynarock::cli {

// Adds the subcommand to `app`; *run is set when it is chosen. Exit codes:
// 0; 1 when the server cannot be reached or answers with an error (the
// message names the endpoint, the table and what to do).
void AddTopCommand(CLI::App* app, std::function<int()>* run);

// The view of one answer of /console/api/hottest (its JSON body): a
// header, then for the table and each GSI an aligned table of its hottest
// collections with read and write units per second over the window, the
// units themselves and the error bound. `endpoint` is named in the header.
// InvalidArgument if `body` is not such an answer.
Result<std::string> RenderHottest(const std::string& endpoint, const std::string& body);

}  // namespace dynarock::cli

#endif  // DYNAROCK_TOOLS_TOP_CLI_H_
