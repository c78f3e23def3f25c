#include "tools/server/http_server.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <zlib.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "tools/server/sigv4.h"
#include "tools/server/wire.h"

namespace dynarock::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string RequestId() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string id(52, 'A');
  for (char& c : id) c = kAlphabet[rng() % 36];
  return id;
}

}  // namespace

class Session;

struct Server::Impl {
  Database* db;
  ServerOptions options;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::atomic<bool> stopping{false};
  std::mutex mu;  // guards sessions
  std::set<std::weak_ptr<Session>, std::owner_less<std::weak_ptr<Session>>> sessions;

  void Accept();
  wire::WireResponse Respond(const http::request<http::string_body>& req);
};

namespace {

// The request's media type: Content-Type before any ';', trimmed
// (compared case-sensitively, as DynamoDB does).
std::string_view MediaType(const http::request<http::string_body>& req) {
  auto it = req.find(http::field::content_type);
  if (it == req.end()) return {};
  std::string_view v(it->value().data(), it->value().size());
  v = v.substr(0, v.find(';'));
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

}  // namespace

// One connection: read a request, answer it, repeat while keep-alive lasts.
// Handlers run on the server's fixed pool of threads.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Server::Impl* server) : stream_(std::move(socket)), server_(server) {}

  void Start() { Read(); }

  // Ends an idle wait for the next request (used by Stop).
  void Interrupt() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      beast::error_code ec;
      self->stream_.socket().shutdown(tcp::socket::shutdown_receive, ec);
    });
  }

 private:
  void Read() {
    parser_.emplace();
    parser_->body_limit(server_->options.max_body_bytes);
    parser_->header_limit(64 * 1024);
    stream_.expires_after(std::chrono::seconds(server_->options.idle_timeout_seconds));
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t) {
    if (ec == http::error::body_limit) {
      // VALIDATION.md 1a: 413 with an empty body.
      Write({413, ""}, 413, 11, /*keep_alive=*/false, "application/json");
      return;
    }
    if (ec) return Close();  // closed, timed out, or not HTTP: nothing more to answer
    const auto& req = parser_->get();
    stream_
        .expires_never();  // the engine may take its time; idle time only counts between requests
    wire::WireResponse r = server_->Respond(req);
    // VALIDATION.md 1b and 7: any request with an Origin may be read by the
    // page that sent it; the answer is typed as the request was.
    if (req.find(http::field::origin) != req.end()) {
      r.headers.emplace_back("Access-Control-Allow-Origin", "*");
    }
    const std::string_view media = MediaType(req);
    const char* type = media == "application/x-amz-json-1.0"   ? "application/x-amz-json-1.0"
                       : media == "application/x-amz-json-1.1" ? "application/x-amz-json-1.1"
                                                               : "application/json";
    Write(std::move(r), r.http_status, req.version(), req.keep_alive(), type);
  }

  void Write(wire::WireResponse r, int status, unsigned version, bool keep_alive,
             const char* content_type) {
    res_ = {static_cast<http::status>(status), version};
    res_.set(http::field::content_type, content_type);
    for (auto& [name, value] : r.headers) res_.set(name, value);
    res_.set("x-amzn-RequestId", RequestId());
    // The SDKs verify this CRC32 of the body.
    res_.set("x-amz-crc32", std::to_string(crc32(0L, reinterpret_cast<const Bytef*>(r.body.data()),
                                                 static_cast<uInt>(r.body.size()))));
    bool keep = keep_alive && !server_->stopping;
    res_.keep_alive(keep);
    res_.body() = std::move(r.body);
    res_.prepare_payload();
    http::async_write(stream_, res_,
                      [self = shared_from_this(), keep](beast::error_code ec, size_t) {
                        if (ec || !keep) return self->Close();
                        self->Read();
                      });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  Server::Impl* server_;
};

wire::WireResponse Server::Impl::Respond(const http::request<http::string_body>& req) {
  // VALIDATION.md 1b-1d, in order: CORS preflight, GET health, then any
  // other method or an unknown media type is an unknown operation (404).
  const bool cors = req.find(http::field::origin) != req.end();
  if (req.method() == http::verb::options && cors) {
    wire::WireResponse r{200, ""};
    r.headers.emplace_back("Access-Control-Max-Age", "172800");
    if (auto h = req.find("Access-Control-Request-Headers"); h != req.end()) {
      r.headers.emplace_back("Access-Control-Allow-Headers", std::string(h->value()));
    }
    if (auto m = req.find("Access-Control-Request-Method"); m != req.end()) {
      r.headers.emplace_back("Access-Control-Allow-Methods", std::string(m->value()));
    }
    return r;
  }
  if (req.method() == http::verb::get) {
    return {200, "healthy: dynamodb." + options.region + ".amazonaws.com "};
  }
  const std::string_view media = MediaType(req);
  if (req.method() != http::verb::post ||
      (!req.body().empty() && media != "application/json" &&
       media != "application/x-amz-json-1.0" && media != "application/x-amz-json-1.1")) {
    return {404, "<UnknownOperationException/>\n"};
  }
  wire::Authenticator authenticate;
  if (!options.credentials.empty()) {
    authenticate = [&]() -> std::optional<wire::WireResponse> {
      SignedRequest sr;
      sr.method = std::string(req.method_string());
      std::string target(req.target());
      size_t q = target.find('?');
      sr.path = target.substr(0, q);
      sr.query = q == std::string::npos ? "" : target.substr(q + 1);
      for (const auto& f : req)
        sr.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
      sr.body = req.body();
      VerifyOptions verify;
      verify.now_s = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
      verify.region = options.region;
      if (auto error = VerifySigV4(sr, options.credentials, verify)) {
        // Messages quote request bytes (the date, the scope): written by a
        // JSON writer, never pasted.
        rapidjson::StringBuffer buf;
        rapidjson::Writer<rapidjson::StringBuffer> w(buf);
        w.StartObject();
        w.Key("__type");
        w.String(error->type.c_str());
        w.Key("message");
        w.String(error->message.data(), static_cast<rapidjson::SizeType>(error->message.size()));
        w.EndObject();
        return wire::WireResponse{400, std::string(buf.GetString(), buf.GetSize())};
      }
      return std::nullopt;
    };
  }
  auto target = req["X-Amz-Target"];
  return wire::Handle(db, std::string_view(target.data(), target.size()), req.body(),
                      authenticate);
}

void Server::Impl::Accept() {
  acceptor.async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
    if (stopping || !acceptor.is_open()) return;
    if (!ec) {
      std::lock_guard lock(mu);
      for (auto it = sessions.begin(); it != sessions.end();) {
        it = it->expired() ? sessions.erase(it) : std::next(it);
      }
      if (sessions.size() >= options.max_connections) {
        // Bounded concurrency: refuse rather than queue without limit.
        socket.close(ec);
      } else {
        auto session = std::make_shared<Session>(std::move(socket), this);
        sessions.insert(session);
        session->Start();
      }
    }
    Accept();
  });
}

Server::Server(Database* db, ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->db = db;
  impl_->options = std::move(options);
}

Server::~Server() { Stop(); }

Status Server::Start() {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(impl_->options.host, ec);
  if (ec) return Status::IOError("bad address " + impl_->options.host + ": " + ec.message());
  tcp::endpoint endpoint(address, impl_->options.port);
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IOError("cannot listen on " + impl_->options.host + ":" +
                           std::to_string(impl_->options.port) + ": " + ec.message());
  }
  return Status::OK();
}

uint16_t Server::port() const { return impl_->acceptor.local_endpoint().port(); }

void Server::Run() {
  impl_->Accept();
  // A small fixed pool runs every connection's handlers.
  std::vector<std::thread> pool;
  for (size_t i = 1; i < impl_->options.threads; ++i)
    pool.emplace_back([this] { impl_->io.run(); });
  impl_->io.run();
  for (auto& t : pool) t.join();
}

void Server::Stop() {
  if (impl_->stopping.exchange(true)) return;
  // Stop accepting; connections waiting for their next request end now, and
  // those mid-request finish it (keep-alive off). io.run() returns when no
  // work is left.
  asio::post(impl_->io, [this] {
    boost::system::error_code ec;
    impl_->acceptor.close(ec);
    std::lock_guard lock(impl_->mu);
    for (const auto& weak : impl_->sessions) {
      if (auto s = weak.lock()) s->Interrupt();
    }
  });
}

}  // namespace dynarock::server
