// AWS Signature Version 4 verification for `dynarock serve --auth`.
#ifndef DYNAROCK_TOOLS_SERVER_SIGV4_H_
#define DYNAROCK_TOOLS_SERVER_SIGV4_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dynarock::server {

// A request as signed: method, path, query, headers (any case), body.
struct SignedRequest {
  std::string method;
  std::string path;
  std::string query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;
};

// DynamoDB's answer to a request that fails authentication.
struct AuthError {
  std::string type;  // e.g. "com.amazon.coral.service#InvalidSignatureException"
  std::string message;
};

// What a signature must match besides the key.
struct VerifyOptions {
  int64_t now_s = 0;   // the server's clock, seconds since the epoch
  std::string region;  // the credential scope's region
  std::string service = "dynamodb";
  int64_t max_skew_s = 15 * 60;  // X-Amz-Date within this of now, either way
  // Only what the headers show (everything but the signature itself, which
  // covers the body): the server runs this before it reads a large body, so
  // an unauthenticated client cannot make it buffer one.
  bool headers_only = false;
};

// Checks the Authorization header against `keys` (access key id -> secret),
// as AWS does: the header's parts, the date's format and skew, the
// credential scope (date, region, service, terminator), that `host`,
// `x-amz-date` and `x-amz-target` (when sent) are signed, the key, and the
// signature over the body's own SHA-256 (a payload-hash header that does not
// match the body cannot make a replayed signature valid). Signatures are
// compared in constant time. nullopt when the request is authentic (or,
// with headers_only, may be).
std::optional<AuthError> VerifySigV4(const SignedRequest& request,
                                     const std::map<std::string, std::string>& keys,
                                     const VerifyOptions& options);

// The signature of a request (hex), for tests and clients.
std::string SignatureV4(const SignedRequest& request, const std::string& secret,
                        const std::string& amz_date, const std::string& scope,
                        const std::vector<std::string>& signed_headers);

// A query string in SigV4's canonical form: each name and value
// percent-decoded, then encoded again (RFC 3986: A-Z a-z 0-9 - _ . ~ kept,
// every other byte %XX in upper case), `name=value` pairs sorted by name,
// then value, joined with '&'. A name without '=' gets an empty value. So a
// client's `?table=Telemetry&limit=5` and `?limit=5&table=Telemetry` sign
// alike, as AWS's servers canonicalize them.
std::string CanonicalQuery(std::string_view query);

// %XX sequences decoded (a '%' not followed by two hex digits stays as it
// is; '+' stays '+'): how a query's names and values are read.
std::string PercentDecode(std::string_view s);
// RFC 3986 percent-encoding: A-Z a-z 0-9 - _ . ~ kept, every other byte
// %XX in upper case (the canonical query's encoding; safe in any URL part).
std::string UriEncode(std::string_view s);

// Signs a request as an AWS SDK does, for Dynarock's own clients (`dynarock
// top`): adds X-Amz-Date (from now_s) and Authorization, signing every
// header the request has (REQUIRES: a Host header among them).
void SignRequest(SignedRequest* request, const std::string& access_key_id,
                 const std::string& secret, const std::string& region, int64_t now_s,
                 const std::string& service = "dynamodb");

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_SIGV4_H_
