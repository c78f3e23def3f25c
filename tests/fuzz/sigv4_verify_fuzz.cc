// Fuzzes SigV4 verification with arbitrary request heads: the Authorization
// header, X-Amz-Date, the other headers and the query ("?..." line) come
// from the input, as an attacker sends them. Verification must answer (accept or an AuthError)
// and never misbehave; it must refuse everything but a real signature.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tools/server/sigv4.h"

using namespace dynarock::server;  // NOLINT: test code

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Lines "name: value" make the headers; an empty line starts the body.
  std::string_view in(reinterpret_cast<const char*>(data), size);
  SignedRequest r;
  r.method = "POST";
  r.path = "/";
  while (!in.empty()) {
    const size_t nl = in.find('\n');
    std::string_view line = in.substr(0, nl);
    in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
    if (line.empty()) break;
    if (line[0] == '?') {  // "?query": the request's query string
      r.query = std::string(line.substr(1));
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    r.headers.emplace_back(std::string(line.substr(0, colon)), std::string(line.substr(colon + 1)));
  }
  r.body = in;
  VerifyOptions options;
  options.now_s = 1'800'000'000;
  options.region = "us-east-1";
  const std::map<std::string, std::string> keys = {{"AKIDLOCAL", "s3cret"}};
  auto error = VerifySigV4(r, keys, options);
  // The canonical query is a fixed point: canonicalizing it again changes
  // nothing (a client that sends it canonical signs what the server checks).
  const std::string canonical = CanonicalQuery(r.query);
  if (CanonicalQuery(canonical) != canonical) std::abort();
  // An input that verifies must carry the signature a signer computes.
  if (!error) {
    bool has_auth = false;
    for (const auto& [k, v] : r.headers) {
      std::string lower = k;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      has_auth |= lower == "authorization";
    }
    if (!has_auth) std::abort();
  }
  return 0;
}
