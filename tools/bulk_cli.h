// `dynarock dump` and `dynarock restore`: the command-line side of
// Database::ExportTable / ImportTable (dynarock/bulk.h).
#ifndef DYNAROCK_TOOLS_BULK_CLI_H_
#define DYNAROCK_TOOLS_BULK_CLI_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace dynarock::cli {

// Exit codes of dump and restore.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;      // nothing was restored / the dump is incomplete
inline constexpr int kExitItemErrors = 3;  // restored, but some items were skipped

// Adds the two subcommands to `app`; *run is set to the one chosen.
void AddBulkCommands(CLI::App* app, std::function<int()>* run);

}  // namespace dynarock::cli

#endif  // DYNAROCK_TOOLS_BULK_CLI_H_
