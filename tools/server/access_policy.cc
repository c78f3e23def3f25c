#include "tools/server/access_policy.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

namespace dynarock::server {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return s == value; });
}

// DynamoDB's endpoint names, which SDK set-ups map to a local server.
bool IsDynamoDbEndpoint(const std::string& host) {
  static const std::regex kEndpoint(R"((streams\.)?dynamodb\.[a-z0-9-]+\.amazonaws\.com)");
  return std::regex_match(host, kEndpoint);
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  const std::string h = HostName(host);
  if (h == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  if (inet_pton(AF_INET6, h.c_str(), &v6) == 1) {
    if (std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0) return true;
    // ::ffff:127.x.x.x, IPv4's loopback mapped.
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

std::string HostName(std::string_view host_header) {
  std::string h = Lower(host_header);
  if (!h.empty() && h.front() == '[') {
    const size_t close = h.find(']');
    if (close == std::string::npos) return "";
    const std::string rest = h.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return "";
    return h.substr(1, close - 1);
  }
  const size_t colon = h.find(':');
  // Two or more colons: an IPv6 address without brackets (a bind address).
  if (colon != std::string::npos && h.find(':', colon + 1) == std::string::npos) {
    h.resize(colon);
  }
  if (!h.empty() && h.back() == '.') h.pop_back();
  return h;
}

std::optional<std::string> AllowedOrigin(const AccessPolicy& policy, std::string_view origin,
                                         std::string_view host_header) {
  if (Contains(policy.cors_origins, "*")) return "*";
  if (policy.signed_requests && policy.cors_origins.empty()) return "*";
  const std::string o = Lower(origin);
  if (std::any_of(policy.cors_origins.begin(), policy.cors_origins.end(),
                  [&](const std::string& allowed) { return Lower(allowed) == o; })) {
    return std::string(origin);
  }
  // "scheme://authority", nothing after it (browsers send no path).
  const size_t sep = o.find("://");
  if (sep == std::string::npos) return std::nullopt;  // "null", say: a sandboxed page
  const std::string scheme = o.substr(0, sep), authority = o.substr(sep + 3);
  if ((scheme != "http" && scheme != "https") || authority.empty() ||
      authority.find_first_of("/?#@") != std::string::npos) {
    return std::nullopt;
  }
  if (IsLoopbackHost(authority)) return std::string(origin);
  // The server's own pages (the console), wherever it is bound.
  if (scheme == "http" && authority == Lower(host_header)) return std::string(origin);
  return std::nullopt;
}

std::optional<std::string> RefusedHost(const AccessPolicy& policy,
                                       std::optional<std::string_view> host_header) {
  // A browser always sends Host: a request without one is no page's.
  if (policy.signed_requests || !host_header || !IsLoopbackHost(policy.bind_host)) {
    return std::nullopt;
  }
  const std::string host = HostName(*host_header);
  if (IsLoopbackHost(host) || host == HostName(policy.bind_host) || IsDynamoDbEndpoint(host) ||
      std::any_of(policy.allowed_hosts.begin(), policy.allowed_hosts.end(),
                  [&](const std::string& name) { return HostName(name) == host; })) {
    return std::nullopt;
  }
  return "The Host header names \"" + std::string(*host_header) +
         "\", which this server does not answer to: it is bound to a loopback address without "
         "--auth, so it serves only loopback names, its bind address and DynamoDB's endpoint "
         "names (a page on another name could reach it through DNS rebinding). Add the name "
         "with --allowed-host, or require signatures with --auth.";
}

bool IsReadOperation(std::string_view target) {
  if (target.starts_with("DynamoDBStreams_20120810.")) return true;
  constexpr std::string_view kPrefix = "DynamoDB_20120810.";
  if (!target.starts_with(kPrefix)) return false;
  const std::string_view op = target.substr(kPrefix.size());
  for (std::string_view read : {"Get", "Describe", "List"}) {
    if (op.starts_with(read)) return true;
  }
  for (std::string_view read :
       {"BatchGetItem", "Query", "Scan", "TransactGetItems", "SearchVectors"}) {
    if (op == read) return true;
  }
  return false;
}

std::optional<std::string> RefusedConsoleWrite(const AccessPolicy& policy,
                                               std::optional<std::string_view> origin,
                                               std::string_view host_header,
                                               std::string_view target) {
  if (policy.signed_requests || policy.console_writes || !origin) return std::nullopt;
  // The server's own pages: an Origin of http://<the Host header>.
  const std::string o = Lower(*origin);
  if (!o.starts_with("http://") || o.substr(7) != Lower(host_header)) return std::nullopt;
  if (IsReadOperation(target)) return std::nullopt;
  return "The console is read-only: start dynarock serve with --console-writes (or --auth) to "
         "write from it.";
}

}  // namespace dynarock::server
