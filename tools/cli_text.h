// Text shared by the dynarock subcommands.
#ifndef DYNAROCK_TOOLS_CLI_TEXT_H_
#define DYNAROCK_TOOLS_CLI_TEXT_H_

#include <fmt/core.h>

#include <string>

namespace dynarock::cli {

// A byte count for people: "809 B", "31.1 KB", "3.6 MB".
inline std::string HumanBytes(double b) {
  if (b < 1024) return fmt::format("{:.0f} B", b);
  const char* units[] = {"KB", "MB", "GB", "TB"};
  int u = -1;
  while (b >= 1024 && u < 3) {
    b /= 1024;
    ++u;
  }
  return fmt::format("{:.1f} {}", b, units[u]);
}

}  // namespace dynarock::cli

#endif  // DYNAROCK_TOOLS_CLI_TEXT_H_
