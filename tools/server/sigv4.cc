#include "tools/server/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

namespace dynarock::server {
namespace {

std::string Hex(const unsigned char* data, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return Hex(digest, sizeof digest);
}

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

std::optional<std::string> Header(const SignedRequest& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (Lower(k) == name) return v;
  }
  return std::nullopt;
}

AuthError Error(const char* name, std::string message) {
  return {std::string("com.amazon.coral.service#") + name, std::move(message)};
}

}  // namespace

std::string SignatureV4(const SignedRequest& r, const std::string& secret,
                        const std::string& amz_date, const std::string& scope,
                        const std::vector<std::string>& signed_headers) {
  std::string canonical = r.method + "\n" + (r.path.empty() ? "/" : r.path) + "\n" + r.query + "\n";
  std::string names;
  for (const auto& h : signed_headers) {
    // Repeated headers join with commas; values are trimmed.
    std::string value;
    for (const auto& [k, v] : r.headers) {
      if (Lower(k) == h) value += (value.empty() ? "" : ",") + Trim(v);
    }
    canonical += h + ":" + value + "\n";
    names += (names.empty() ? "" : ";") + h;
  }
  auto payload = Header(r, "x-amz-content-sha256");
  canonical += "\n" + names + "\n" + (payload ? *payload : Sha256Hex(r.body));
  std::string to_sign =
      "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + Sha256Hex(canonical);
  // scope = date/region/service/aws4_request
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t slash; (slash = scope.find('/', start)) != std::string::npos; start = slash + 1) {
    parts.push_back(scope.substr(start, slash - start));
  }
  parts.push_back(scope.substr(start));
  std::string key = "AWS4" + secret;
  for (const auto& p : parts) key = Hmac(key, p);
  std::string sig = Hmac(key, to_sign);
  return Hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
}

std::optional<AuthError> VerifySigV4(const SignedRequest& r,
                                     const std::map<std::string, std::string>& keys) {
  auto auth = Header(r, "authorization");
  if (!auth)
    return Error("MissingAuthenticationTokenException", "Request is missing Authentication Token");
  const std::string prefix = "AWS4-HMAC-SHA256 ";
  if (auth->rfind(prefix, 0) != 0) {
    return Error("IncompleteSignatureException",
                 "Authorization header requires AWS4-HMAC-SHA256 signing");
  }
  std::map<std::string, std::string> fields;
  std::string_view rest(*auth);
  rest.remove_prefix(prefix.size());
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string part = Trim(rest.substr(0, comma));
    size_t eq = part.find('=');
    if (eq != std::string::npos) fields[part.substr(0, eq)] = part.substr(eq + 1);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (!fields.count("Credential") || !fields.count("SignedHeaders") || !fields.count("Signature")) {
    return Error(
        "IncompleteSignatureException",
        "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters");
  }
  const std::string& credential = fields["Credential"];
  size_t slash = credential.find('/');
  if (slash == std::string::npos)
    return Error("IncompleteSignatureException", "Malformed Credential");
  std::string access_key = credential.substr(0, slash), scope = credential.substr(slash + 1);
  auto secret = keys.find(access_key);
  if (secret == keys.end()) {
    return Error("UnrecognizedClientException",
                 "The security token included in the request is invalid.");
  }
  auto amz_date = Header(r, "x-amz-date");
  if (!amz_date) return Error("IncompleteSignatureException", "Missing X-Amz-Date");
  std::vector<std::string> signed_headers;
  std::string_view names(fields["SignedHeaders"]);
  size_t start = 0;
  for (size_t semi; (semi = names.find(';', start)) != std::string_view::npos; start = semi + 1) {
    signed_headers.emplace_back(names.substr(start, semi - start));
  }
  signed_headers.emplace_back(names.substr(start));
  std::string expected = SignatureV4(r, secret->second, *amz_date, scope, signed_headers);
  if (expected != fields["Signature"]) {
    return Error("InvalidSignatureException",
                 "The request signature we calculated does not match the signature you provided. "
                 "Check your AWS Secret Access Key and signing method. Consult the service "
                 "documentation for details.");
  }
  return std::nullopt;
}

}  // namespace dynarock::server
