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
  asio::steady_timer accept_retry{io};  // after EMFILE and the like
  // Stop()'s grace period, handled on one strand (Stop and the last
  // session's end both touch it).
  asio::strand<asio::io_context::executor_type> control{io.get_executor()};
  asio::steady_timer grace{control};
  std::atomic<size_t> live{0};  // sessions not yet destroyed

  void Accept();
  // At the connection bound: ends the connection idle the longest (waiting
  // for its next request), so that a new client is served instead of reset.
  // False if every connection is busy. REQUIRES: mu held.
  bool EvictIdlest();
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
  Session(tcp::socket socket, Server::Impl* server) : stream_(std::move(socket)), server_(server) {
    ++server_->live;
  }
  // The last connection gone ends Stop()'s wait at once.
  ~Session() {
    if (--server_->live == 0 && server_->stopping) {
      Server::Impl* server = server_;
      asio::post(server->control, [server] { server->grace.cancel(); });
    }
  }

  void Start() { Read(); }

  // Ends an idle wait for the next request (used by Stop and eviction): a
  // request being read or answered finishes first.
  void Interrupt() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      // On the session's strand, so `idle_` cannot change meanwhile.
      if (self->idle_) self->Close();
    });
  }
  // Closes the connection whatever it is doing (Stop's grace period is over).
  void ForceClose() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
  }
  // Waiting for (or reading) its next request since idle_since_ms(); a
  // connection whose request the engine runs or whose answer is being
  // written is not idle.
  bool idle() const { return idle_; }
  int64_t idle_since_ms() const { return idle_since_ms_; }

 private:
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void Read() {
    idle_since_ms_ = NowMs();
    idle_ = true;
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
    idle_ = false;
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
    // A client that does not read its answer loses the connection after the
    // write deadline instead of holding it (and Stop) forever.
    stream_.expires_after(std::chrono::seconds(server_->options.write_timeout_seconds));
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

  std::atomic<bool> idle_{false};
  std::atomic<int64_t> idle_since_ms_{0};
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

bool Server::Impl::EvictIdlest() {
  std::shared_ptr<Session> idlest;
  for (const auto& weak : sessions) {
    auto s = weak.lock();
    if (s && s->idle() && (!idlest || s->idle_since_ms() < idlest->idle_since_ms())) {
      idlest = std::move(s);
    }
  }
  if (!idlest) return false;
  idlest->Interrupt();
  return true;
}

void Server::Impl::Accept() {
  acceptor.async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
    if (stopping || !acceptor.is_open()) return;
    if (ec) {
      // Out of file descriptors (or another transient failure): accepting
      // again at once would spin; try again shortly.
      accept_retry.expires_after(std::chrono::milliseconds(50));
      accept_retry.async_wait([this](beast::error_code) { Accept(); });
      return;
    }
    {
      std::lock_guard lock(mu);
      for (auto it = sessions.begin(); it != sessions.end();) {
        it = it->expired() ? sessions.erase(it) : std::next(it);
      }
      // At the bound, the longest-idle keep-alive connection makes room; a
      // new client is refused only when every connection is busy.
      if (sessions.size() >= options.max_connections && !EvictIdlest()) {
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
  // those mid-request finish it (keep-alive off) within the grace period,
  // after which every connection left is closed. io.run() returns when no
  // work is left.
  asio::post(impl_->control, [this] {
    boost::system::error_code ec;
    impl_->acceptor.close(ec);  // a pending accept retry then finds it closed
    {
      std::lock_guard lock(impl_->mu);
      for (const auto& weak : impl_->sessions) {
        if (auto s = weak.lock()) s->Interrupt();
      }
    }
    if (impl_->live == 0) return;
    impl_->grace.expires_after(std::chrono::seconds(impl_->options.shutdown_grace_seconds));
    impl_->grace.async_wait([this](beast::error_code cancelled) {
      if (cancelled) return;
      std::lock_guard lock(impl_->mu);
      for (const auto& weak : impl_->sessions) {
        if (auto s = weak.lock()) s->ForceClose();
      }
    });
  });
}

}  // namespace dynarock::server
