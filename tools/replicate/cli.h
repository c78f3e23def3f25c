// `dynarock replicate`: the command-line side of tools/replicate/replicate.h.
#ifndef DYNAROCK_TOOLS_REPLICATE_CLI_H_
#define DYNAROCK_TOOLS_REPLICATE_CLI_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace dynarock::cli {

// Adds `replicate` (and `replicate status`) to `app`; *run is set to the
// one chosen. Exit codes: tools/cli_text.h (kExitFailed also when --verify
// finds the tables different).
void AddReplicateCommand(CLI::App* app, std::function<int()>* run);

}  // namespace dynarock::cli

#endif  // DYNAROCK_TOOLS_REPLICATE_CLI_H_
