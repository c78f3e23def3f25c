#include "dynarock/model/violations.h"

namespace dynarock::model {

size_t Utf16Length(std::string_view s) {
  // simdjson has validated the UTF-8: count lead bytes, and 4-byte
  // sequences twice (a surrogate pair in Java).
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
    if (c >= 0xF0) ++n;
  }
  return n;
}

namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsHexLower(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
template <typename Pred>
bool All(std::string_view s, Pred pred) {
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}

}  // namespace

bool MatchesPattern(std::string_view pattern, std::string_view s) {
  if (pattern == kNamePattern) {
    return !s.empty() &&
           All(s, [](char c) { return IsAlnum(c) || c == '_' || c == '.' || c == '-'; });
  }
  if (pattern == kClientTokenPattern) return !s.empty() && s.find('$') == std::string_view::npos;
  if (pattern == kS3BucketPattern) {
    // An alphanumeric first and last character, [.\-\w] between.
    return s.size() >= 2 && IsAlnum(s.front()) && IsAlnum(s.back()) &&
           All(s, [](char c) { return IsAlnum(c) || c == '_' || c == '.' || c == '-'; });
  }
  if (pattern == kS3BucketOwnerPattern) {
    return s.size() == 12 && All(s, [](char c) { return c >= '0' && c <= '9'; });
  }
  if (pattern == kCsvDelimiterPattern) {
    return s.size() == 1 && std::string_view(",;:|\t ").find(s[0]) != std::string_view::npos;
  }
  if (pattern == kCsvHeaderPattern) {
    return All(s, [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return u >= 0x20 && u <= 0x7E && u != 0x22 && u != 0x2C;
    });
  }
  if (pattern == kImportNextTokenPattern) {
    return !s.empty() && s.size() % 16 == 0 && All(s, IsHexLower);
  }
  return false;
}

std::string RenderBlob(std::string_view bytes) {
  const std::string n = std::to_string(bytes.size());
  return "java.nio.HeapByteBuffer[pos=0 lim=" + n + " cap=" + n + "]";
}

void Path::AppendTo(std::string* out) const {
  if (parent_ != nullptr) {
    parent_->AppendTo(out);
    if (!out->empty()) *out += '.';
  }
  if (kind_ == Kind::kPosition) {
    *out += std::to_string(position_);
  } else {
    *out += text_;
  }
  if (kind_ != Kind::kName) *out += ".member";
}

std::string Path::str() const {
  std::string out;
  AppendTo(&out);
  return out;
}

void Violations::NotNull(const Path& path) {
  Push(std::nullopt, path, Bound::kMin, "Member must not be null", false);
}

void Violations::Range(int64_t value, Bound bound, int64_t limit, const Path& path) {
  if (bound == Bound::kMin ? value >= limit : value <= limit) return;
  Push(std::to_string(value), path, bound,
       std::string("Member must have value ") + (bound == Bound::kMin ? "greater" : "less") +
           " than or equal to " + std::to_string(limit),
       true);
}

void Violations::Add(const std::string& rendered, const Path& at, std::string_view constraint) {
  Push(rendered, at, Bound::kMin, constraint, false);
}

void Violations::Override(std::string pattern, Bound bound, std::string text) {
  overrides_.push_back({std::move(pattern), bound, std::move(text)});
}

namespace {

// Matches `path` against a pattern where <k> stands for one map key;
// returns the key (or "" when the pattern has none).
std::optional<std::string> MatchPath(std::string_view pattern, std::string_view path) {
  size_t k = pattern.find("<k>");
  if (k == std::string_view::npos) {
    return pattern == path ? std::optional<std::string>("") : std::nullopt;
  }
  std::string_view head = pattern.substr(0, k), tail = pattern.substr(k + 3);
  if (path.size() < head.size() + tail.size() || path.substr(0, head.size()) != head ||
      path.substr(path.size() - tail.size()) != tail) {
    return std::nullopt;
  }
  return std::string(path.substr(head.size(), path.size() - head.size() - tail.size()));
}

}  // namespace

void Violations::Push(std::optional<std::string> rendered, const Path& at, Bound bound,
                      std::string_view constraint, bool bounded) {
  if (errors_.size() >= kMax) return;
  const std::string path = at.str();
  std::string e;
  for (const auto& o : overrides_) {
    if (!bounded || o.bound != bound) continue;
    if (auto key = MatchPath(o.pattern, path)) {
      e = o.text;
      if (size_t at = e.find("<k>"); at != std::string::npos) e.replace(at, 3, *key);
      break;
    }
  }
  if (e.empty()) {
    e = rendered ? "Value '" + *rendered + "' at '" + path + "'" : "Value null at '" + path + "'";
  }
  e += " failed to satisfy constraint: ";
  e += constraint;
  errors_.push_back(std::move(e));
}

Status Violations::ToStatus() const {
  if (errors_.empty()) return Status::OK();
  std::string msg = std::to_string(errors_.size()) +
                    (errors_.size() == 1 ? " validation error detected: "
                                         : " validation errors detected: ");
  for (size_t i = 0; i < errors_.size(); ++i) {
    if (i) msg += "; ";
    msg += errors_[i];
  }
  return Status::Validation(std::move(msg));
}

}  // namespace dynarock::model
