// Which web pages, and which Host names, may drive `dynarock serve`.
//
// Without --auth the server executes any request it gets, so it must not be
// reachable from a web page the user happens to visit:
//   - CORS: a page's requests (they carry an Origin) are served, and their
//     answers readable, only from loopback pages (http[s]://localhost,
//     127.x.x.x or [::1], any port), the server's own pages (an Origin equal
//     to the Host: the console), and the origins given with --cors. Any
//     other Origin gets 403, its preflight too, so the browser never sends
//     the request itself (DynamoDB's requests are never "simple": they carry
//     X-Amz-Target). `--cors '*'` lets every page in, as DynamoDB Local's
//     -cors does.
//   - DNS rebinding: a page whose own name is made to resolve to 127.0.0.1
//     is same-origin with the server, so a server bound to loopback serves
//     only requests whose Host is a loopback name or address, the bind
//     address, DynamoDB's own endpoint names (dynamodb.<region>.amazonaws.com
//     and streams.dynamodb.<region>.amazonaws.com, which SDK set-ups that map
//     them to 127.0.0.1 send), or a name given with --allowed-host.
// With --auth every request must be signed with a secret a page does not
// have, so both checks step aside: every origin may call (CORS "*", unless
// --cors names a list) and every Host is served.
//
// The console's writes: the server's own pages (the console) may only read
// unless --console-writes or --auth. This is a guard for the person at the
// console, not against programs: any client that is not a page of the
// server (an SDK, a loopback page, a --cors origin) writes as before.
#ifndef DYNAROCK_TOOLS_SERVER_ACCESS_POLICY_H_
#define DYNAROCK_TOOLS_SERVER_ACCESS_POLICY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dynarock::server {

struct AccessPolicy {
  bool signed_requests = false;  // --auth
  std::string bind_host;         // --host
  // --cors: origins ("http://host:port", as browsers send them) or "*".
  std::vector<std::string> cors_origins;
  // --allowed-host: further names (without port) a loopback server answers to.
  std::vector<std::string> allowed_hosts;
  // --console-writes: the server's own pages may write too.
  bool console_writes = false;
};

// True for the names and addresses only this machine reaches: localhost,
// 127.0.0.0/8 and ::1 (bracketed or not).
bool IsLoopbackHost(std::string_view host);

// The host of a Host header value: lowercased, without its port, brackets
// or a final dot. Empty if it is malformed.
std::string HostName(std::string_view host_header);

// The Access-Control-Allow-Origin value for a request from `origin` (its
// Origin header) to a server addressed as `host_header`: "*" or the origin
// itself; nullopt if that page may not call the server.
std::optional<std::string> AllowedOrigin(const AccessPolicy& policy, std::string_view origin,
                                         std::string_view host_header);

// Why a request addressed as `host_header` (nullopt: no Host header) must
// be refused, or nullopt if it may be served.
std::optional<std::string> RefusedHost(const AccessPolicy& policy,
                                       std::optional<std::string_view> host_header);

// True for a DynamoDB or DynamoDB Streams operation that only reads
// (`target`: the X-Amz-Target header, "DynamoDB_20120810.GetItem"). PartiQL
// statements count as writes: whether one reads is in its text.
bool IsReadOperation(std::string_view target);

// Why a request from the page at `origin` (its Origin header; nullopt: none,
// so no page's), addressed as `host_header`, for operation `target`, must
// be refused as a write by the server's own console, or nullopt if it may
// be served.
std::optional<std::string> RefusedConsoleWrite(const AccessPolicy& policy,
                                               std::optional<std::string_view> origin,
                                               std::string_view host_header,
                                               std::string_view target);

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_ACCESS_POLICY_H_
