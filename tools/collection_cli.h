// `dynarock collection`: one item collection of a table or an index,
// rendered in sort-key order, read through a secondary instance (so it works
// while `dynarock serve` has the database open).
//
//   dynarock collection DB TABLE PK [--index NAME] [--from SK] [--to SK]
//                       [--begins-with PREFIX] [--reverse] [--limit N]
//                       [--attributes a,b,...] [--json]
//   dynarock collections DB TABLE [--limit N] [--json]   the largest of the
//                       table and of each index
#ifndef DYNAROCK_TOOLS_COLLECTION_CLI_H_
#define DYNAROCK_TOOLS_COLLECTION_CLI_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace dynarock::cli {

// Adds the subcommand to `app`; *run is set when it is chosen. Exit codes:
// 0, or 1 with a message naming the table, the key and what to do.
void AddCollectionCommands(CLI::App* app, std::function<int()>* run);

}  // namespace dynarock::cli

#endif  // DYNAROCK_TOOLS_COLLECTION_CLI_H_
