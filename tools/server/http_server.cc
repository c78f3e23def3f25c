#include "tools/server/http_server.h"

#include <sys/socket.h>
#include <zlib.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <list>
#include <mutex>
#include <random>
#include <thread>

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

struct Server::Impl {
  Database* db;
  ServerOptions options;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::atomic<bool> stopping{false};
  std::mutex mu;  // guards connections
  struct Connection {
    tcp::socket socket;
    std::thread thread;
    std::atomic<bool> done{false};
    explicit Connection(tcp::socket s) : socket(std::move(s)) {}
  };
  std::list<std::unique_ptr<Connection>> connections;

  void Serve(Connection* c) {
    beast::flat_buffer buffer;
    beast::error_code ec;
    // Idle connections are closed after the timeout (the read fails).
    timeval tv{options.idle_timeout_seconds, 0};
    setsockopt(c->socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while (!stopping) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(options.max_body_bytes);
      parser.header_limit(64 * 1024);
      http::read(c->socket, buffer, parser, ec);
      if (ec == http::error::body_limit) {
        Reply(c, 11, false,
              wire::ErrorResponse(
                  Status::Serialization("Request body exceeds the maximum size of 16 MB")),
              413);
        break;
      }
      if (ec) break;  // closed, timed out, or not HTTP: nothing more to answer
      http::request<http::string_body>& req = parser.get();
      wire::WireResponse r;
      std::optional<AuthError> auth_error;
      if (!options.credentials.empty()) {
        SignedRequest sr;
        sr.method = std::string(req.method_string());
        std::string target(req.target());
        size_t q = target.find('?');
        sr.path = target.substr(0, q);
        sr.query = q == std::string::npos ? "" : target.substr(q + 1);
        for (const auto& f : req)
          sr.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
        sr.body = req.body();
        auth_error = VerifySigV4(sr, options.credentials);
      }
      if (auth_error) {
        std::string body =
            "{\"__type\":\"" + auth_error->type + "\",\"message\":\"" + auth_error->message + "\"}";
        r = {400, body};
      } else if (req.method() == http::verb::post) {
        auto target = req["X-Amz-Target"];
        r = wire::Handle(db, std::string_view(target.data(), target.size()), req.body());
      } else {
        r = {200, "healthy: dynarock"};
      }
      if (!Reply(c, req.version(), req.keep_alive(), r, r.http_status)) break;
      if (!req.keep_alive()) break;
    }
    c->socket.shutdown(tcp::socket::shutdown_both, ec);
    c->socket.close(ec);
    c->done = true;
  }

  bool Reply(Connection* c, unsigned version, bool keep_alive, const wire::WireResponse& r,
             int status) {
    http::response<http::string_body> res{static_cast<http::status>(status), version};
    res.set(http::field::content_type, "application/x-amz-json-1.0");
    res.set("x-amzn-RequestId", RequestId());
    // The SDKs verify this CRC32 of the body.
    res.set("x-amz-crc32", std::to_string(crc32(0L, reinterpret_cast<const Bytef*>(r.body.data()),
                                                static_cast<uInt>(r.body.size()))));
    res.keep_alive(keep_alive && !stopping);
    res.body() = r.body;
    res.prepare_payload();
    beast::error_code ec;
    http::write(c->socket, res, ec);
    return !ec;
  }

  void Reap(bool all) {
    std::lock_guard lock(mu);
    for (auto it = connections.begin(); it != connections.end();) {
      if (all || (*it)->done) {
        if ((*it)->thread.joinable()) (*it)->thread.join();
        it = connections.erase(it);
      } else {
        ++it;
      }
    }
  }
};

Server::Server(Database* db, ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->db = db;
  impl_->options = std::move(options);
}

Server::~Server() {
  Stop();
  impl_->Reap(true);
}

Status Server::Start() {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(impl_->options.host, ec);
  if (ec) return Status::IOError("bad address " + impl_->options.host + ": " + ec.message());
  tcp::endpoint endpoint(address, impl_->options.port);
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return Status::IOError("cannot listen on " + impl_->options.host + ":" +
                           std::to_string(impl_->options.port) + ": " + ec.message());
  return Status::OK();
}

uint16_t Server::port() const { return impl_->acceptor.local_endpoint().port(); }

void Server::Run() {
  while (!impl_->stopping) {
    boost::system::error_code ec;
    tcp::socket socket(impl_->io);
    impl_->acceptor.accept(socket, ec);
    if (ec) {
      if (impl_->stopping) break;
      continue;
    }
    impl_->Reap(false);
    std::lock_guard lock(impl_->mu);
    if (impl_->connections.size() >= impl_->options.max_connections) {
      socket.close(ec);  // bounded concurrency: refuse rather than queue unboundedly
      continue;
    }
    auto c = std::make_unique<Impl::Connection>(std::move(socket));
    Impl::Connection* raw = c.get();
    c->thread = std::thread([this, raw] { impl_->Serve(raw); });
    impl_->connections.push_back(std::move(c));
  }
  // In-flight requests finish; idle keep-alive connections are closed.
  {
    std::lock_guard lock(impl_->mu);
    for (auto& c : impl_->connections) {
      boost::system::error_code ec;
      c->socket.shutdown(tcp::socket::shutdown_receive, ec);
    }
  }
  impl_->Reap(true);
}

void Server::Stop() {
  if (impl_->stopping.exchange(true)) return;
  boost::system::error_code ec;
  // Unblocks accept() in Run().
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  impl_->acceptor.close(ec);
}

}  // namespace dynarock::server
