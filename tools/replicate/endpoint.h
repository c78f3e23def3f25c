// A DynamoDB-compatible endpoint as `dynarock replicate` talks to it: one
// operation at a time, DynamoDB's JSON protocol in and out (X-Amz-Target
// "DynamoDB_20120810.<Op>" or "DynamoDBStreams_20120810.<Op>"). The same
// code then reads and writes Amazon DynamoDB, ScyllaDB Alternator, dynalite,
// another `dynarock serve`, or a database opened in this process.
#ifndef DYNAROCK_TOOLS_REPLICATE_ENDPOINT_H_
#define DYNAROCK_TOOLS_REPLICATE_ENDPOINT_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "dynarock/db.h"

namespace dynarock::replicate {

// One answer: the HTTP status and body, and for an error its short name
// ("ThrottlingException", from __type) and message.
struct Answer {
  int status = 0;
  std::string body;
  std::string error;
  std::string message;
  bool ok() const { return status == 200; }
};

class Endpoint {
 public:
  virtual ~Endpoint() = default;
  // Sends one request. IOError when no answer came (the endpoint cannot be
  // reached, the connection broke, a timeout); an error answer is an
  // Answer. Not thread-safe: one Endpoint per thread.
  virtual Result<Answer> Send(std::string_view target, const std::string& body) = 0;
  // Another endpoint to the same place, for another thread.
  virtual Result<std::unique_ptr<Endpoint>> Clone() const = 0;
  // What it is, for messages: the URL, or the database's directory.
  virtual const std::string& name() const = 0;
};

// The engine in this process: requests go through the server's own request
// layer (wire::Handle), so they are read, checked and answered as `dynarock
// serve` would. `db` must outlive it.
std::unique_ptr<Endpoint> LocalEndpoint(Database* db, std::string name);

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // temporary credentials' X-Amz-Security-Token
};

// The standard AWS places, in the SDKs' order: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), else the shared
// credentials file (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials)
// at profile AWS_PROFILE (default "default"). nullopt: none anywhere.
std::optional<Credentials> LoadCredentials();

// The region requests are signed for: `explicit_region` if given, else the
// one in a dynamodb.<region>.amazonaws.com URL, else AWS_REGION,
// AWS_DEFAULT_REGION, the shared config file's (AWS_CONFIG_FILE, default
// ~/.aws/config) for the profile, else us-east-1.
std::string ResolveRegion(const std::string& url, const std::string& explicit_region);

struct HttpOptions {
  std::string region = "us-east-1";
  // Requests are signed (SigV4) with these; none: sent unsigned.
  std::optional<Credentials> credentials;
  std::chrono::milliseconds timeout{30000};  // per request: connect, write, read
  // http:// to a host that is not loopback (the data travels unencrypted).
  bool allow_plain_http = false;
};

// http://HOST[:PORT] (plain HTTP: a loopback HOST, unless
// options.allow_plain_http) or https://HOST[:PORT] (TLS, the peer's
// certificate checked against the system's CA store and its name).
// InvalidArgument for any other URL. The connection is kept alive between
// requests and made again after an error.
Result<std::unique_ptr<Endpoint>> HttpEndpoint(const std::string& url, HttpOptions options);

// How Call() retries: a throttled request (ProvisionedThroughputExceeded-
// Exception, ThrottlingException, RequestLimitExceeded), a 5xx, or no
// answer, is sent again after a jittered exponential backoff (a random
// wait between a quarter of and all of min(cap, base * 2^attempt)), up to
// `attempts` sends in all.
struct RetryPolicy {
  int attempts = 12;
  std::chrono::milliseconds base{50};
  std::chrono::milliseconds cap{10000};
};

// Sleeps before retry `attempt` (1, 2, ...): the policy's jittered backoff.
void Backoff(const RetryPolicy& policy, int attempt);

// Whether an answer (or its absence) is worth sending again.
bool Retryable(const Result<Answer>& answer);

// Sends `body` as `operation` ("PutItem", or a Streams operation
// "DynamoDBStreams_20120810.GetRecords") with the policy's retries; each
// retry is added to `retries`. The last answer (an error answer too), or
// IOError when the last try had none.
Result<Answer> Call(Endpoint& endpoint, std::string_view operation, const std::string& body,
                    const RetryPolicy& policy = {}, std::atomic<int64_t>* retries = nullptr);

}  // namespace dynarock::replicate

#endif  // DYNAROCK_TOOLS_REPLICATE_ENDPOINT_H_
