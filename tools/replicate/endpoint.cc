#include "tools/replicate/endpoint.h"

#include <simdjson.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/property_tree/ini_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <regex>
#include <thread>

#include "tools/server/access_policy.h"
#include "tools/server/sigv4.h"
#include "tools/server/wire.h"

namespace dynarock::replicate {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// The error's short name and message from an error body.
void ReadError(Answer* a) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (parser.parse(a->body).get_object().get(o) != simdjson::SUCCESS) return;
  std::string_view type, message;
  if (o["__type"].get_string().get(type) == simdjson::SUCCESS) {
    a->error = std::string(type.substr(type.find('#') + 1));
  }
  if (o["message"].get_string().get(message) == simdjson::SUCCESS ||
      o["Message"].get_string().get(message) == simdjson::SUCCESS) {
    a->message = std::string(message);
  }
}

class Local : public Endpoint {
 public:
  Local(Database* db, std::string name) : db_(db), name_(std::move(name)) {}
  Result<Answer> Send(std::string_view target, const std::string& body) override {
    wire::WireResponse r = wire::Handle(db_, target, body);
    Answer a{r.http_status, std::move(r.body), "", ""};
    if (!a.ok()) ReadError(&a);
    return a;
  }
  Result<std::unique_ptr<Endpoint>> Clone() const override {
    return std::unique_ptr<Endpoint>(std::make_unique<Local>(db_, name_));
  }
  const std::string& name() const override { return name_; }

 private:
  Database* db_;
  std::string name_;
};

class Http : public Endpoint {
 public:
  Http(std::string url, bool tls, std::string host, std::string port, HttpOptions options)
      : url_(std::move(url)),
        tls_(tls),
        host_(std::move(host)),
        port_(std::move(port)),
        options_(std::move(options)) {}

  Result<Answer> Send(std::string_view target, const std::string& body) override {
    try {
      return Exchange(target, body);
    } catch (const std::exception& e) {
      Close();
      return Status::IOError("no answer from " + url_ + ": " + e.what());
    }
  }
  Result<std::unique_ptr<Endpoint>> Clone() const override {
    return std::unique_ptr<Endpoint>(std::make_unique<Http>(url_, tls_, host_, port_, options_));
  }
  const std::string& name() const override { return url_; }

 private:
  // The Host header: the port only when it is not the scheme's.
  std::string HostHeader() const {
    const bool default_port = port_ == (tls_ ? "443" : "80");
    const std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
    return default_port ? host : host + ":" + port_;
  }

  void Connect() {
    tcp::resolver resolver(io_);
    auto addresses = resolver.resolve(host_, port_);
    if (tls_) {
      if (!tls_context_) {
        tls_context_ = std::make_unique<ssl::context>(ssl::context::tls_client);
        tls_context_->set_default_verify_paths();
        tls_context_->set_verify_mode(ssl::verify_peer);
      }
      secure_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(io_, *tls_context_);
      // SNI, and the certificate must name the host.
      if (!SSL_set_tlsext_host_name(secure_->native_handle(), host_.c_str())) {
        throw std::runtime_error("cannot set the TLS server name");
      }
      secure_->set_verify_callback(ssl::host_name_verification(host_));
      beast::get_lowest_layer(*secure_).expires_after(options_.timeout);
      beast::get_lowest_layer(*secure_).connect(addresses);
      secure_->handshake(ssl::stream_base::client);
    } else {
      plain_ = std::make_unique<beast::tcp_stream>(io_);
      plain_->expires_after(options_.timeout);
      plain_->connect(addresses);
    }
  }

  void Close() {
    plain_.reset();
    secure_.reset();
  }

  Answer Exchange(std::string_view target, const std::string& body) {
    if (!plain_ && !secure_) Connect();
    http::request<http::string_body> req{http::verb::post, "/", 11};
    server::SignedRequest sr;
    sr.method = "POST";
    sr.path = "/";
    sr.headers = {{"Host", HostHeader()},
                  {"Content-Type", "application/x-amz-json-1.0"},
                  {"X-Amz-Target", std::string(target)}};
    sr.body = body;
    if (options_.credentials) {
      const Credentials& c = *options_.credentials;
      if (!c.session_token.empty())
        sr.headers.emplace_back("X-Amz-Security-Token", c.session_token);
      server::SignRequest(&sr, c.access_key_id, c.secret_access_key, options_.region,
                          std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
    }
    for (const auto& [name, value] : sr.headers) req.set(name, value);
    req.set(http::field::user_agent, "dynarock-replicate");
    req.keep_alive(true);
    req.body() = body;
    req.prepare_payload();
    http::response<http::string_body> res;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 << 20);
    if (secure_) {
      beast::get_lowest_layer(*secure_).expires_after(options_.timeout);
      http::write(*secure_, req);
      http::read(*secure_, buffer_, parser);
    } else {
      plain_->expires_after(options_.timeout);
      http::write(*plain_, req);
      http::read(*plain_, buffer_, parser);
    }
    res = parser.release();
    if (!res.keep_alive()) Close();
    Answer a{static_cast<int>(res.result_int()), std::move(res.body()), "", ""};
    if (!a.ok()) ReadError(&a);
    return a;
  }

  const std::string url_;
  const bool tls_;
  const std::string host_, port_;
  const HttpOptions options_;
  boost::asio::io_context io_;
  std::unique_ptr<ssl::context> tls_context_;
  std::unique_ptr<beast::tcp_stream> plain_;
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> secure_;
  beast::flat_buffer buffer_;
};

// A profile's section of a shared config or credentials file (INI), or an
// empty tree.
boost::property_tree::ptree Section(const std::string& path, const std::string& section) {
  boost::property_tree::ptree ini;
  try {
    boost::property_tree::ini_parser::read_ini(path, ini);
  } catch (const std::exception&) {
    return {};
  }
  return ini.get_child(section, {});
}

std::string Home(const char* file) {
  const std::string home = Getenv("HOME");
  return home.empty() ? "" : home + "/.aws/" + file;
}

std::string Profile() {
  const std::string p = Getenv("AWS_PROFILE");
  return p.empty() ? "default" : p;
}

}  // namespace

std::unique_ptr<Endpoint> LocalEndpoint(Database* db, std::string name) {
  return std::make_unique<Local>(db, std::move(name));
}

std::optional<Credentials> LoadCredentials() {
  Credentials c{Getenv("AWS_ACCESS_KEY_ID"), Getenv("AWS_SECRET_ACCESS_KEY"),
                Getenv("AWS_SESSION_TOKEN")};
  if (!c.access_key_id.empty() && !c.secret_access_key.empty()) return c;
  std::string path = Getenv("AWS_SHARED_CREDENTIALS_FILE");
  if (path.empty()) path = Home("credentials");
  if (path.empty()) return std::nullopt;
  const auto s = Section(path, Profile());
  c = {s.get<std::string>("aws_access_key_id", ""), s.get<std::string>("aws_secret_access_key", ""),
       s.get<std::string>("aws_session_token", "")};
  if (c.access_key_id.empty() || c.secret_access_key.empty()) return std::nullopt;
  return c;
}

std::string ResolveRegion(const std::string& url, const std::string& explicit_region) {
  if (!explicit_region.empty()) return explicit_region;
  static const std::regex kAws(R"(^https?://dynamodb\.([a-z0-9-]+)\.amazonaws\.com(:\d+)?/?$)");
  std::smatch m;
  if (std::regex_match(url, m, kAws)) return m[1];
  for (const char* name : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (std::string r = Getenv(name); !r.empty()) return r;
  }
  std::string path = Getenv("AWS_CONFIG_FILE");
  if (path.empty()) path = Home("config");
  if (!path.empty()) {
    const std::string profile = Profile();
    const auto s = Section(path, profile == "default" ? "default" : "profile " + profile);
    if (std::string r = s.get<std::string>("region", ""); !r.empty()) return r;
  }
  return "us-east-1";
}

Result<std::unique_ptr<Endpoint>> HttpEndpoint(const std::string& url, HttpOptions options) {
  static const std::regex kUrl(R"(^(https?)://(\[[0-9a-fA-F:.]+\]|[^/:\[\]]+)(:(\d{1,5}))?/?$)");
  std::smatch m;
  if (!std::regex_match(url, m, kUrl)) {
    return Status::InvalidArgument(url + ": give http://HOST:PORT or https://HOST[:PORT]");
  }
  const bool tls = m[1] == "https";
  std::string host = m[2];
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  const std::string port = m[4].matched ? std::string(m[4]) : tls ? "443" : "80";
  if (!tls && !options.allow_plain_http && !server::IsLoopbackHost(host)) {
    return Status::InvalidArgument(url + ": http:// is for loopback endpoints; use https://" +
                                   host + ", or --insecure-http to send the data unencrypted");
  }
  return std::unique_ptr<Endpoint>(
      std::make_unique<Http>(url, tls, std::move(host), port, std::move(options)));
}

void Backoff(const RetryPolicy& policy, int attempt) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  const int64_t ceiling =
      std::min<int64_t>(policy.cap.count(), policy.base.count() << std::min(attempt, 20));
  std::this_thread::sleep_for(std::chrono::milliseconds(
      std::uniform_int_distribution<int64_t>(ceiling / 4, ceiling)(random)));
}

bool Retryable(const Result<Answer>& answer) {
  if (!answer.ok()) return true;  // no answer
  const Answer& a = *answer;
  if (a.status >= 500) return true;
  return a.error == "ProvisionedThroughputExceededException" || a.error == "ThrottlingException" ||
         a.error == "RequestLimitExceeded";
}

Result<Answer> Call(Endpoint& endpoint, std::string_view operation, const std::string& body,
                    const RetryPolicy& policy, std::atomic<int64_t>* retries) {
  const std::string target = operation.find('.') == std::string_view::npos
                                 ? "DynamoDB_20120810." + std::string(operation)
                                 : std::string(operation);
  Result<Answer> answer = endpoint.Send(target, body);
  for (int attempt = 1; attempt < policy.attempts && Retryable(answer); ++attempt) {
    if (retries) ++*retries;
    Backoff(policy, attempt);
    answer = endpoint.Send(target, body);
  }
  return answer;
}

}  // namespace dynarock::replicate
