// AWS Signature Version 4 verification for `dynarock serve --auth`.
#ifndef DYNAROCK_TOOLS_SERVER_SIGV4_H_
#define DYNAROCK_TOOLS_SERVER_SIGV4_H_

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

// Checks the Authorization header against `keys` (access key id -> secret).
// nullopt when the signature is valid.
std::optional<AuthError> VerifySigV4(const SignedRequest& request,
                                     const std::map<std::string, std::string>& keys);

// The signature of a request (hex), for tests and clients.
std::string SignatureV4(const SignedRequest& request, const std::string& secret,
                        const std::string& amz_date, const std::string& scope,
                        const std::vector<std::string>& signed_headers);

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_SIGV4_H_
