// Text shared by the dynarock subcommands: byte counts, aligned tables and
// a progress line.
#ifndef DYNAROCK_TOOLS_CLI_TEXT_H_
#define DYNAROCK_TOOLS_CLI_TEXT_H_

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::cli {

// Exit codes of every dynarock command (each --help repeats them).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;      // the one-line message says why and what to do
inline constexpr int kExitUsage = 2;       // a command line that does not parse
inline constexpr int kExitItemErrors = 3;  // restore: done, some items skipped
inline constexpr char kExitCodesHelp[] =
    "Exit status: 0 done; 1 failed (the message says why and what to do); 2 the command line "
    "is wrong; 3 restore skipped bad items (--strict makes it fail instead).";

// True when `s` is RocksDB refusing a directory another process (or this
// one) has open: it holds the directory's LOCK file.
inline bool IsHeldByAnotherProcess(const Status& s) {
  const std::string& m = s.message();
  return m.find("While lock file") != std::string::npos ||
         m.find("lock hold by current process") != std::string::npos;
}

// A failure in the CLI's own words, one line: what went wrong, and the fix
// when there is one. `db_dir`: the database the command opened.
inline std::string Explain(const Status& s, std::string_view db_dir = {}) {
  if (IsHeldByAnotherProcess(s)) {
    return fmt::format(
        "the database at {} is open in another process (dynarock serve?): stop it, or use the "
        "read-only commands (dynarock collections, collection, top)",
        db_dir.empty() ? "that directory" : db_dir);
  }
  std::string m = s.message().empty() ? s.ToString() : s.message();
  std::replace(m.begin(), m.end(), '\n', ' ');
  return m;
}

// A byte count for people, in decimal units as DescribeTable's byte counts
// read (1 MB = 1,000,000 bytes): "809 B", "31.1 kB", "6.03 MB".
inline std::string HumanBytes(double b) {
  if (b < 1000) return fmt::format("{:.0f} B", b);
  const char* units[] = {"kB", "MB", "GB", "TB"};
  int u = -1;
  while (b >= 999.5 && u < 3) {
    b /= 1000;
    ++u;
  }
  return fmt::format("{:.{}f} {}", b, b < 9.995 ? 2 : b < 99.95 ? 1 : 0, units[u]);
}

// Cells wider than this are cut, so that one long value does not push the
// other columns off the screen (--json gives everything).
inline constexpr size_t kMaxCell = 40;

// `s` cut to kMaxCell bytes with "..." (never inside a UTF-8 character).
inline std::string Fit(std::string s) {
  if (s.size() <= kMaxCell) return s;
  size_t cut = kMaxCell - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  return s + "...";
}

// Rows as aligned columns, a line each (trailing blanks trimmed); `right`
// marks the right-aligned columns. REQUIRES: every row has right.size() cells.
inline std::string FormatTable(const std::vector<std::vector<std::string>>& rows,
                               const std::vector<bool>& right, const std::string& indent = "") {
  std::vector<size_t> width(right.size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - row[i].size(), ' ');
      line += (i ? "  " : "") + (right[i] ? pad + row[i] : row[i] + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// A progress line on standard error when it is a terminal (redrawn in
// place, at most 10 times a second); nothing on a pipe, where a command
// prints only its result or summary.
class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  Progress() : tty_(::isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}
  void Show(const std::string& line) {
    if (!tty_) return;
    std::lock_guard lock(mu_);
    const auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    fmt::print(stderr, "\r\033[K{}", line);
    std::fflush(stderr);
  }
  // Clears the line (call before printing the result).
  void Done() {
    if (tty_) fmt::print(stderr, "\r\033[K");
  }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  const bool tty_;
  const Clock::time_point start_;
  std::mutex mu_;
  Clock::time_point last_{};
};

}  // namespace dynarock::cli

#endif  // DYNAROCK_TOOLS_CLI_TEXT_H_
