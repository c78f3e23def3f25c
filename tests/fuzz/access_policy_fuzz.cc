// Which pages and Host names `dynarock serve` answers (tools/server/
// access_policy.h). The input is an Origin and a Host header, split at the
// first NUL; the first byte picks the policy. Properties:
//   - an allowed origin is answered with "*" or the origin itself, nothing
//     else, and "*" only where the policy lets every page in;
//   - with --auth and no --cors list, every origin is "*" and every Host is
//     served;
//   - a loopback Host (as HostName reads it) is never refused;
//   - a console write is refused only without --auth and --console-writes,
//     for a page of the server itself (Origin http://<Host>), and never for
//     a read (GetItem, Query, any Streams operation).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tools/server/access_policy.h"

using dynarock::server::AccessPolicy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 4096) return 0;
  const uint8_t selector = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t nul = rest.find('\0');
  const std::string_view origin = rest.substr(0, nul);
  const std::string_view host = nul == std::string_view::npos ? "" : rest.substr(nul + 1);

  AccessPolicy policy;
  policy.signed_requests = selector & 1;
  policy.bind_host = selector & 2 ? "127.0.0.1" : "0.0.0.0";
  if (selector & 4) policy.cors_origins = {"https://app.example"};
  if (selector & 8) policy.cors_origins.push_back("*");
  if (selector & 16) policy.allowed_hosts = {"devbox.internal"};
  policy.console_writes = selector & 32;

  const auto allowed = dynarock::server::AllowedOrigin(policy, origin, host);
  const bool every_page = (selector & 8) || (policy.signed_requests && !(selector & 4));
  if (allowed) {
    if (*allowed == "*" ? !every_page : *allowed != origin) std::abort();
  } else if (every_page) {
    std::abort();
  }
  const auto refused = dynarock::server::RefusedHost(policy, host);
  if (refused && (policy.signed_requests ||
                  dynarock::server::IsLoopbackHost(dynarock::server::HostName(host)))) {
    std::abort();
  }
  for (std::string_view target : {"DynamoDB_20120810.PutItem", "DynamoDB_20120810.Query",
                                  "DynamoDBStreams_20120810.GetRecords"}) {
    const auto write = dynarock::server::RefusedConsoleWrite(policy, origin, host, target);
    if (write && (policy.signed_requests || policy.console_writes ||
                  dynarock::server::IsReadOperation(target) ||
                  origin.size() != host.size() + 7)) {  // not "http://" + host
      std::abort();
    }
  }
  return 0;
}
