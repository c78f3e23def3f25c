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
#include <vector>

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
