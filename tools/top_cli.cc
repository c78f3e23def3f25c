#include "tools/top_cli.h"

#include <fmt/core.h>
#include <simdjson.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <thread>
#include <vector>

#include "tools/cli_text.h"
#include "tools/replicate/endpoint.h"
#include "tools/server/sigv4.h"

namespace dynarock::cli {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

struct TopArgs {
  std::string endpoint = "http://127.0.0.1:8000", table, region;
  int limit = 10;
  int window = 60;
  double interval = 2;
  bool once = false, json = false;
};

struct Endpoint {
  std::string host, port;
};

// http://host[:port][/]: the server's address (no TLS: `dynarock serve`
// speaks plain HTTP).
Result<Endpoint> ParseEndpoint(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  if (url.rfind(kScheme, 0) != 0) {
    return Status::InvalidArgument("--endpoint " + url +
                                   ": give http://HOST:PORT, as dynarock serve prints it");
  }
  std::string rest = url.substr(kScheme.size());
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find('/') != std::string::npos) {
    return Status::InvalidArgument("--endpoint " + url + ": give http://HOST:PORT");
  }
  Endpoint e{rest, "80"};
  // [v6]:port, host:port, or a host alone.
  if (rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string::npos) return Status::InvalidArgument("--endpoint " + url);
    e.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') e.port = rest.substr(close + 2);
  } else if (size_t colon = rest.rfind(':'); colon != std::string::npos) {
    e.host = rest.substr(0, colon);
    e.port = rest.substr(colon + 1);
  }
  return e;
}

// One GET, signed when credentials are in the environment. Returns the
// status and body; IOError when the server cannot be reached.
Result<std::pair<int, std::string>> Get(const TopArgs& a, const Endpoint& e,
                                        const std::string& target) {
  try {
    boost::asio::io_context io;
    beast::tcp_stream stream(io);
    stream.expires_after(std::chrono::seconds(10));
    tcp::resolver resolver(io);
    stream.connect(resolver.resolve(e.host, e.port));
    http::request<http::string_body> req{http::verb::get, target, 11};
    const std::string host = e.host + ":" + e.port;
    req.set(http::field::host, host);
    req.set(http::field::user_agent, "dynarock-top");
    // Signed when credentials are found where AWS tools look
    // (replicate/endpoint.h: the environment, then the shared files).
    if (const auto credentials = replicate::LoadCredentials()) {
      server::SignedRequest signed_request;
      signed_request.method = "GET";
      const size_t q = target.find('?');
      signed_request.path = target.substr(0, q);
      signed_request.query = q == std::string::npos ? "" : target.substr(q + 1);
      signed_request.headers = {{"Host", host}};
      if (!credentials->session_token.empty()) {
        signed_request.headers.emplace_back("X-Amz-Security-Token", credentials->session_token);
      }
      server::SignRequest(&signed_request, credentials->access_key_id,
                          credentials->secret_access_key,
                          replicate::ResolveRegion(a.endpoint, a.region),
                          std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
      for (const auto& [name, value] : signed_request.headers) {
        if (name != "Host") req.set(name, value);
      }
    }
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    return std::pair<int, std::string>(static_cast<int>(res.result_int()), res.body());
  } catch (const std::exception& ex) {
    return Status::IOError("cannot reach " + a.endpoint + " (" + ex.what() +
                           "): is dynarock serve running there?");
  }
}

// A key value as shown: S and N as they are, B in base64 (as sent).
std::string KeyText(simdjson::dom::object key, std::string* name) {
  for (auto [attribute, typed] : key) {
    *name = std::string(attribute);
    simdjson::dom::object value;
    if (typed.get_object().get(value) != simdjson::SUCCESS) return "?";
    for (auto [type, text] : value) {
      std::string_view s;
      if (text.get_string().get(s) == simdjson::SUCCESS) return Fit(std::string(s));
      return "?";
    }
  }
  return "?";
}

std::string Units(double u) { return fmt::format("{:.1f}", u); }

int Fail(const std::string& message) {
  fmt::print(stderr, "error: {}\n", message);
  return 1;
}

// The message of a DynamoDB-style error body, or the body itself.
std::string ErrorText(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body).get(root) != simdjson::SUCCESS) return body;
  std::string_view type, message;
  if (root["__type"].get_string().get(type) != simdjson::SUCCESS) return body;
  if (root["message"].get_string().get(message) != simdjson::SUCCESS) message = "";
  const size_t hash = type.rfind('#');
  if (hash != std::string_view::npos) type.remove_prefix(hash + 1);
  return std::string(type) + ": " + std::string(message);
}

int RunTop(const TopArgs& a) {
  auto endpoint = ParseEndpoint(a.endpoint);
  if (!endpoint.ok()) return Fail(endpoint.status().message());
  std::string target = fmt::format("/console/api/hottest?limit={}&window={}", a.limit, a.window);
  // Encoded as it is signed: the server says if the name is bad.
  if (!a.table.empty()) target += "&table=" + server::UriEncode(a.table);
  const bool tty = ::isatty(STDOUT_FILENO) == 1;
  for (bool first = true;; first = false) {
    if (!first) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(static_cast<int64_t>(a.interval * 1000)));
    }
    auto answer = Get(a, *endpoint, target);
    if (!answer.ok()) return Fail(answer.status().message());
    const auto& [status, body] = *answer;
    if (status != 200) {
      std::string hint;
      if (body.find("ResourceNotFoundException") != std::string::npos) {
        hint = " (--table " + a.table + ": the tables are those ListTables names)";
      } else if (body.find("MissingAuthenticationToken") != std::string::npos ||
                 body.find("UnrecognizedClient") != std::string::npos ||
                 body.find("InvalidSignature") != std::string::npos) {
        hint =
            " (the server checks signatures: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
            "to one of its --auth keys)";
      }
      return Fail(fmt::format("{} answered {}: {}{}", a.endpoint, status, ErrorText(body), hint));
    }
    if (a.json) {
      fmt::print("{}\n", body);
    } else {
      auto view = RenderHottest(a.endpoint, body);
      if (!view.ok()) return Fail(view.status().message());
      // A terminal is redrawn in place; a pipe gets one view after another.
      fmt::print("{}{}{}", tty && !a.once ? "\033[H\033[2J" : "", first || tty ? "" : "\n", *view);
    }
    std::fflush(stdout);
    if (a.once) return 0;
  }
}

}  // namespace

Result<std::string> RenderHottest(const std::string& endpoint, const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::dom::array tables;
  double window_s = 0;
  if (parser.parse(body).get(root) != simdjson::SUCCESS ||
      root["WindowSeconds"].get_double().get(window_s) != simdjson::SUCCESS ||
      root["Tables"].get_array().get(tables) != simdjson::SUCCESS) {
    return Status::InvalidArgument(endpoint + " did not answer with the hottest collections");
  }
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char clock[16];
  std::strftime(clock, sizeof clock, "%H:%M:%S", &local);
  std::string out = fmt::format("hottest item collections at {}, the last {:.0f} s, at {}\n",
                                endpoint, window_s, clock);
  if (tables.size() == 0) out += "\n(no tables)\n";
  for (simdjson::dom::element table : tables) {
    std::string_view table_name;
    simdjson::dom::array collections;
    if (table["TableName"].get_string().get(table_name) != simdjson::SUCCESS ||
        table["Collections"].get_array().get(collections) != simdjson::SUCCESS) {
      return Status::InvalidArgument(endpoint + " answered a table without its collections");
    }
    // The table's collections, then each GSI's: one aligned block each.
    std::vector<std::string> order;
    std::vector<std::vector<std::vector<std::string>>> blocks;
    for (simdjson::dom::element c : collections) {
      std::string_view index;
      if (c["IndexName"].get_string().get(index) != simdjson::SUCCESS) index = "";
      const std::string label =
          std::string(table_name) + (index.empty() ? "" : "." + std::string(index));
      simdjson::dom::object key;
      double read = 0, write = 0, error = 0;
      if (c["Key"].get_object().get(key) != simdjson::SUCCESS ||
          c["ReadUnits"].get_double().get(read) != simdjson::SUCCESS ||
          c["WriteUnits"].get_double().get(write) != simdjson::SUCCESS ||
          c["ErrorBound"].get_double().get(error) != simdjson::SUCCESS) {
        return Status::InvalidArgument(endpoint + " answered a collection without its units");
      }
      std::string key_name;
      std::string key_text = KeyText(key, &key_name);
      if (order.empty() || order.back() != label) {
        order.push_back(label);
        blocks.push_back({{key_name, "RCU/s", "WCU/s", "read units", "write units", "error"}});
      }
      const double seconds = window_s > 0 ? window_s : 1;
      blocks.back().push_back({key_text, Units(read / seconds), Units(write / seconds), Units(read),
                               Units(write), Units(error)});
    }
    out += fmt::format("\n{}\n", table_name);
    if (order.empty()) out += "  (no traffic in the window)\n";
    for (size_t b = 0; b < order.size(); ++b) {
      if (order[b] != table_name) out += fmt::format("{}\n", order[b]);
      out += FormatTable(blocks[b], {false, true, true, true, true, true}, "  ");
    }
  }
  return out;
}

void AddTopCommand(CLI::App* app, std::function<int()>* run) {
  auto args = std::make_shared<TopArgs>();
  CLI::App* top = app->add_subcommand(
      "top", "the hottest item collections of a running server, refreshed live");
  top->add_option("--endpoint", args->endpoint,
                  "the server, as dynarock serve prints it (default http://127.0.0.1:8000)");
  top->add_option("--table", args->table, "only this table (default: every table)");
  top->add_option("--limit", args->limit, "collections per table and per GSI (1-100, default 10)")
      ->check(CLI::Range(1, 100));
  top->add_option("--window", args->window,
                  "the last this many seconds (1-360, default 60): units per second are over it")
      ->check(CLI::Range(1, 360));
  top->add_option("--interval", args->interval, "seconds between refreshes (default 2)")
      ->check(CLI::Range(0.1, 3600.0));
  top->add_flag("--once", args->once, "print one view and exit");
  top->add_flag("--json", args->json, "the server's JSON answer instead of the view");
  top->add_option("--region", args->region,
                  "the region requests are signed for (default: AWS_REGION, AWS_DEFAULT_REGION, "
                  "~/.aws/config, us-east-1)");
  top->callback([run, args] { *run = [args] { return RunTop(*args); }; });
}

}  // namespace dynarock::cli
