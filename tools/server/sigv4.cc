#include "tools/server/sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <ctime>

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

// ISO-8601 basic format, as X-Amz-Date carries it: 20261201T160000Z.
std::optional<int64_t> ParseAmzDate(std::string_view d) {
  if (d.size() != 16 || d[8] != 'T' || d[15] != 'Z') return std::nullopt;
  for (size_t i = 0; i < 15; ++i) {
    if (i != 8 && !std::isdigit(static_cast<unsigned char>(d[i]))) return std::nullopt;
  }
  auto num = [&](size_t at, size_t n) { return std::stoi(std::string(d.substr(at, n))); };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(4, 2) - 1;
  tm.tm_mday = num(6, 2);
  tm.tm_hour = num(9, 2);
  tm.tm_min = num(11, 2);
  tm.tm_sec = num(13, 2);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60) {
    return std::nullopt;
  }
  return static_cast<int64_t>(timegm(&tm));
}

std::string FormatAmzDate(int64_t t) {
  const std::time_t secs = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = s.find(sep, start)) != std::string_view::npos; start = at + 1) {
    parts.emplace_back(s.substr(start, at - start));
  }
  parts.emplace_back(s.substr(start));
  return parts;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 && HexDigit(s[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string UriEncode(std::string_view s) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
  }
  return out;
}

std::string CanonicalQuery(std::string_view query) {
  if (query.empty()) return "";
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& part : Split(query, '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    pairs.emplace_back(UriEncode(PercentDecode(std::string_view(part).substr(0, eq))),
                       eq == std::string::npos
                           ? ""
                           : UriEncode(PercentDecode(std::string_view(part).substr(eq + 1))));
  }
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& [name, value] : pairs) out += (out.empty() ? "" : "&") + name + "=" + value;
  return out;
}

void SignRequest(SignedRequest* r, const std::string& access_key_id, const std::string& secret,
                 const std::string& region, int64_t now_s, const std::string& service) {
  const std::string amz_date = FormatAmzDate(now_s);
  r->headers.emplace_back("X-Amz-Date", amz_date);
  std::vector<std::string> names;
  for (const auto& [name, value] : r->headers) names.push_back(Lower(name));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  const std::string scope = amz_date.substr(0, 8) + "/" + region + "/" + service + "/aws4_request";
  std::string signed_names;
  for (const auto& n : names) signed_names += (signed_names.empty() ? "" : ";") + n;
  r->headers.emplace_back("Authorization",
                          "AWS4-HMAC-SHA256 Credential=" + access_key_id + "/" + scope +
                              ", SignedHeaders=" + signed_names +
                              ", Signature=" + SignatureV4(*r, secret, amz_date, scope, names));
}

std::string SignatureV4(const SignedRequest& r, const std::string& secret,
                        const std::string& amz_date, const std::string& scope,
                        const std::vector<std::string>& signed_headers) {
  std::string canonical =
      r.method + "\n" + (r.path.empty() ? "/" : r.path) + "\n" + CanonicalQuery(r.query) + "\n";
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
  // The body's own hash, whatever x-amz-content-sha256 claims: a captured
  // signature cannot be replayed with another body.
  canonical += "\n" + names + "\n" + Sha256Hex(r.body);
  std::string to_sign =
      "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + Sha256Hex(canonical);
  // scope = date/region/service/aws4_request
  std::string key = "AWS4" + secret;
  for (const auto& p : Split(scope, '/')) key = Hmac(key, p);
  std::string sig = Hmac(key, to_sign);
  return Hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
}

std::optional<AuthError> VerifySigV4(const SignedRequest& r,
                                     const std::map<std::string, std::string>& keys,
                                     const VerifyOptions& options) {
  auto auth = Header(r, "authorization");
  // DynamoDB's order: no header, or one of another scheme, is a missing
  // token; then every missing part is named in one message.
  if (!auth || Trim(*auth).rfind("AWS4-", 0) != 0) {
    return Error("MissingAuthenticationTokenException", "Request is missing Authentication Token");
  }
  const std::string prefix = "AWS4-HMAC-SHA256 ";
  std::map<std::string, std::string> fields;
  std::string_view rest(*auth);
  rest.remove_prefix(std::min(rest.find(' '), rest.size()));
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string part = Trim(rest.substr(0, comma));
    size_t eq = part.find('=');
    if (eq != std::string::npos) fields[part.substr(0, eq)] = part.substr(eq + 1);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::string missing;
  for (const char* p : {"Credential", "Signature", "SignedHeaders"}) {
    if (fields[p].empty())
      missing += "Authorization header requires '" + std::string(p) + "' parameter. ";
  }
  if (!Header(r, "x-amz-date") && !Header(r, "date")) {
    missing +=
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ";
  }
  if (!missing.empty())
    return Error("IncompleteSignatureException", missing + "Authorization=" + *auth);
  if (auth->rfind(prefix, 0) != 0) {
    return Error("IncompleteSignatureException",
                 "Authorization header requires AWS4-HMAC-SHA256 signing");
  }
  auto amz_date = Header(r, "x-amz-date");
  if (!amz_date) return Error("IncompleteSignatureException", "Missing X-Amz-Date");

  // The date: its format, then the skew window.
  const auto signed_at = ParseAmzDate(*amz_date);
  if (!signed_at) {
    return Error("IncompleteSignatureException",
                 "Date must be in ISO-8601 'basic format'. Got '" + *amz_date +
                     "'. See http://en.wikipedia.org/wiki/ISO_8601");
  }
  if (*signed_at < options.now_s - options.max_skew_s) {
    return Error("InvalidSignatureException",
                 "Signature expired: " + *amz_date + " is now earlier than " +
                     FormatAmzDate(options.now_s - options.max_skew_s) + " (" +
                     FormatAmzDate(options.now_s) + " - 15 min.)");
  }
  if (*signed_at > options.now_s + options.max_skew_s) {
    return Error("InvalidSignatureException",
                 "Signature not yet current: " + *amz_date + " is still later than " +
                     FormatAmzDate(options.now_s + options.max_skew_s) + " (" +
                     FormatAmzDate(options.now_s) + " + 15 min.)");
  }

  // What must be signed.
  const std::vector<std::string> signed_headers = Split(fields["SignedHeaders"], ';');
  auto is_signed = [&](std::string_view h) {
    return std::find(signed_headers.begin(), signed_headers.end(), h) != signed_headers.end();
  };
  if (!is_signed("host")) {
    return Error("InvalidSignatureException",
                 "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.");
  }
  if (!is_signed("x-amz-date")) {
    return Error("InvalidSignatureException",
                 "'X-Amz-Date' must be a 'SignedHeader' in the AWS Authorization.");
  }
  if (Header(r, "x-amz-target") && !is_signed("x-amz-target")) {
    return Error("InvalidSignatureException",
                 "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization.");
  }

  // The credential: key/date/region/service/aws4_request.
  const std::vector<std::string> credential = Split(fields["Credential"], '/');
  if (credential.size() != 5) {
    return Error("IncompleteSignatureException",
                 "Credential must have exactly 5 slash-delimited elements, e.g. "
                 "keyid/date/region/service/term, got '" +
                     fields["Credential"] + "'");
  }
  const std::string& access_key = credential[0];
  if (credential[1] != amz_date->substr(0, 8)) {
    return Error("InvalidSignatureException",
                 "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date "
                 "from HTTP: '" +
                     credential[1] + "' != '" + amz_date->substr(0, 8) + "', from '" + *amz_date +
                     "'.");
  }
  if (credential[2] != options.region) {
    return Error("InvalidSignatureException",
                 "Credential should be scoped to a valid region, not '" + credential[2] + "'. ");
  }
  if (credential[3] != options.service) {
    return Error("InvalidSignatureException",
                 "Credential should be scoped to correct service: '" + options.service + "'. ");
  }
  if (credential[4] != "aws4_request") {
    return Error("InvalidSignatureException",
                 "Credential should be scoped with a valid terminator: 'aws4_request', not '" +
                     credential[4] + "'. ");
  }
  auto secret = keys.find(access_key);
  if (secret == keys.end()) {
    return Error("UnrecognizedClientException",
                 "The security token included in the request is invalid.");
  }
  if (options.headers_only) return std::nullopt;
  const std::string scope =
      credential[1] + "/" + credential[2] + "/" + credential[3] + "/" + credential[4];
  const std::string expected = SignatureV4(r, secret->second, *amz_date, scope, signed_headers);
  const std::string& given = fields["Signature"];
  // Constant time: the comparison leaks nothing about how much matched.
  if (given.size() != expected.size() ||
      CRYPTO_memcmp(given.data(), expected.data(), expected.size()) != 0) {
    return Error("InvalidSignatureException",
                 "The request signature we calculated does not match the signature you provided. "
                 "Check your AWS Secret Access Key and signing method. Consult the service "
                 "documentation for details.");
  }
  return std::nullopt;
}

}  // namespace dynarock::server
