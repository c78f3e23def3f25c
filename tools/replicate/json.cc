#include "tools/replicate/json.h"

#include <fmt/core.h>

namespace dynarock::replicate {

// The value as compact JSON; "null" when the lookup failed.
std::string Minify(Json e) {
  element v;
  return e.get(v) == simdjson::SUCCESS ? simdjson::minify(v) : "null";
}

std::string_view StringOr(Json e, std::string_view key, std::string_view fallback) {
  std::string_view s;
  return e[key].get_string().get(s) == simdjson::SUCCESS ? s : fallback;
}
std::string_view StringOr(element e, std::string_view key, std::string_view fallback) {
  return StringOr(Json(std::move(e)), key, fallback);
}
std::string Minify(element e) { return simdjson::minify(e); }

// A value, or `fallback` when it is absent or of another type.
int64_t IntOr(Json e, int64_t fallback) {
  int64_t v = 0;
  return e.get_int64().get(v) == simdjson::SUCCESS ? v : fallback;
}
double DoubleOr(Json e, double fallback) {
  double v = 0;
  return e.get_double().get(v) == simdjson::SUCCESS ? v : fallback;
}
bool BoolOr(Json e, bool fallback) {
  bool v = false;
  return e.get_bool().get(v) == simdjson::SUCCESS ? v : fallback;
}

// An array member; InvalidArgument naming `what` when the answer lacks it.
Result<array> ArrayOf(Json e, const std::string& what) {
  array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) {
    return Status::IOError(what + ": the answer has no list where one belongs");
  }
  return a;
}

// An error answer, in words: what was being done, the error's name and message.
Status Failed(const std::string& what, const Result<Answer>& a) {
  if (!a.ok()) return Status::IOError(what + ": " + a.status().message());
  return Status::IOError(
      fmt::format("{}: {}: {}", what,
                  a->error.empty() ? "HTTP " + std::to_string(a->status) : a->error, a->message));
}

// Parses an answer's body; the element lives as long as `parser`.
Result<element> Parse(simdjson::dom::parser& parser, const Answer& a, const std::string& what) {
  element e;
  if (parser.parse(a.body).get(e) != simdjson::SUCCESS) {
    return Status::IOError(what + ": the answer is not JSON: " + a.body.substr(0, 200));
  }
  return e;
}

// A sent request that must succeed: its parsed answer.
Result<element> Must(Endpoint& e, simdjson::dom::parser& parser, std::string_view op,
                     const std::string& body, const std::string& what, const RetryPolicy& retry,
                     std::atomic<int64_t>* retries) {
  auto a = Call(e, op, body, retry, retries);
  if (!a.ok() || !a->ok()) return Failed(what, a);
  return Parse(parser, *a, what);
}

// The item's canonical JSON (attributes by name, sets sorted, numbers
// normalized), for checksums.
Result<std::string> Canonical(element item) {
  auto parsed = format::ParseItemJson(Minify(item));
  if (!parsed.ok()) return parsed.status();
  return format::ToJson(*parsed);
}

}  // namespace dynarock::replicate
