// `dynarock dump` and `dynarock restore`: the command-line side of
// Database::ExportTable / ImportTable (dynarock/bulk.h).
#ifndef DYNAROCK_TOOLS_BULK_CLI_H_
#define DYNAROCK_TOOLS_BULK_CLI_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace dynarock::cli {

// Exit codes: tools/cli_text.h (kExitFailed: nothing was restored, or
// the dump is incomplete; kExitItemErrors: restored, some items skipped).

// Adds the two subcommands to `app`; *run is set to the one chosen.
void AddBulkCommands(CLI::App* app, std::function<int()>* run);

}  // namespace dynarock::cli

#endif  // DYNAROCK_TOOLS_BULK_CLI_H_
