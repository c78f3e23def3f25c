#include "tools/server/http_server.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <zlib.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <ctime>
#include <functional>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "tools/server/access_policy.h"
#include "tools/server/console_api.h"
#include "tools/server/content_coding.h"
#include "tools/server/jobs.h"
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

std::vector<std::unique_ptr<asio::io_context>> MakeIoContexts(size_t n) {
  std::vector<std::unique_ptr<asio::io_context>> ios;
  for (size_t i = 0; i < std::max<size_t>(1, n); ++i) {
    ios.push_back(std::make_unique<asio::io_context>(1));  // one thread runs it
  }
  return ios;
}

struct Server::Impl {
  explicit Impl(ServerOptions o) : options(std::move(o)) {}
  Database* db = nullptr;
  ServerOptions options;
  AccessPolicy policy;                     // from options: which pages and Host names are served
  std::unique_ptr<jobs::JobManager> jobs;  // the Export/Import APIs' jobs
  // One io_context per I/O thread, each run by that thread alone (so its
  // handlers need no strand and wake no other thread); a connection lives
  // on one of them. The first also runs the acceptor and the control work.
  std::vector<std::unique_ptr<asio::io_context>> ios = MakeIoContexts(options.io_threads);
  asio::io_context& io = *ios[0];
  // Keep every io_context running until Stop() has nothing left to wait for.
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  std::atomic<size_t> next_io{0};
  // Engine calls that may block run here, never on the I/O threads (Run()
  // sizes it).
  std::unique_ptr<asio::thread_pool> workers;
  tcp::acceptor acceptor{io};
  std::atomic<bool> stopping{false};
  std::mutex mu;  // guards sessions
  std::set<std::weak_ptr<Session>, std::owner_less<std::weak_ptr<Session>>> sessions;
  asio::steady_timer accept_retry{io};  // after EMFILE and the like
  asio::steady_timer sweep{io};         // closes connections past their deadline, each second
  // Stop()'s grace period, handled on one strand (Stop and the last
  // session's end both touch it).
  asio::strand<asio::io_context::executor_type> control{io.get_executor()};
  asio::steady_timer grace{control};
  std::atomic<size_t> live{0};  // sessions not yet destroyed

  // The memory that request bodies being read or handled may take
  // (options.max_buffered_bytes): a body is read only once its declared size
  // is reserved, so many large uploads wait instead of exhausting memory.
  std::mutex budget_mu;
  size_t budget_used = 0;  // guarded by budget_mu
  struct BudgetWaiter {
    size_t bytes;
    std::function<void()> grant;
  };
  std::list<BudgetWaiter> budget_waiters;  // guarded by budget_mu
  // Runs `grant` (posted to the io_context) once `bytes` are reserved.
  void Reserve(size_t bytes, std::function<void()> grant);
  // Reserves `bytes` if they fit now (and no one waits); false otherwise.
  bool TryReserve(size_t bytes);
  // Whether `bytes` more fit the budget. REQUIRES: budget_mu held.
  bool Fits(size_t bytes) const;
  void Release(size_t bytes);

  void Accept();
  // Every second: the connections whose read or write is late are closed.
  void Sweep();
  // Lets the io_contexts end once no connection is left (on `control`).
  void EndWhenIdle();
  // At the connection bound: ends the connection idle the longest (waiting
  // for its next request), so that a new client is served instead of reset.
  // False if every connection is busy. REQUIRES: mu held.
  bool EvictIdlest();
  // The answer to a whole request (decoding its body first). Runs on a
  // worker thread for POST and the console API, on the I/O thread for
  // anything else.
  wire::WireResponse Respond(const http::request<http::string_body>& req);
  // Whether a POST runs on the I/O thread that read it (see
  // ServerOptions::inline_short_requests).
  bool RunsInline(const http::request<http::string_body>& req) const;
  // GET /console/api/...: off unless options.console_api; signed like any
  // request when --auth is set.
  wire::WireResponse ConsoleApi(const http::request<http::string_body>& req);
  // Header-only checks before a large body is read: a Content-Encoding we
  // cannot decode, and (with --auth) a request that cannot be authentic.
  // `length`: the declared Content-Length, if any; `chunked`: a body of
  // unknown size follows.
  std::optional<wire::WireResponse> CheckBeforeBody(const http::request<http::string_body>& req,
                                                    std::optional<uint64_t> length, bool chunked);
  std::optional<AuthError> Authenticate(const http::request<http::string_body>& req,
                                        bool headers_only) const;
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

std::string_view HeaderValue(const http::request<http::string_body>& req, http::field f) {
  auto it = req.find(f);
  if (it == req.end()) return {};
  return {it->value().data(), it->value().size()};
}

// A GET of the console API (console_api.h): answered by a worker, as POSTs
// are, since it reads the engine.
bool IsConsoleApi(const http::request<http::string_body>& req) {
  if (req.method() != http::verb::get) return false;
  std::string_view target(req.target().data(), req.target().size());
  return console::IsApiPath(target.substr(0, target.find('?')));
}

// A body larger than this is not read before the header-only
// authentication checks pass. Smaller ones keep DynamoDB's order (JSON and
// target errors before authentication errors).
constexpr size_t kUnauthenticatedBodyBytes = 64 * 1024;

std::string JsonError(std::string_view type, std::string_view message) {
  // Messages quote request bytes (the date, the scope): written by a JSON
  // writer, never pasted.
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("__type");
  w.String(type.data(), static_cast<rapidjson::SizeType>(type.size()));
  if (!message.empty()) {
    w.Key("message");
    w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// A body whose Content-Encoding cannot be undone is a body that cannot be
// deserialized: SerializationException, as for bad JSON.
wire::WireResponse BadEncoding(std::string_view message) {
  return {400, JsonError("com.amazon.coral.service#SerializationException", message)};
}

// The Date header's IMF-fixdate (RFC 9110 5.6.7), as DynamoDB sends it.
std::string HttpDate() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf, n);
}

// A monotonic clock in milliseconds: idle times and deadlines.
int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr size_t kMinCompressedBytes = 1024;
// Past this, a request's parsing alone is long enough for a worker.
constexpr size_t kInlineBodyBytes = 64 << 10;

// An answer ready to write: typed as the request was, compressed if the
// client accepts it, with the CRC32 the SDKs check (of the bytes sent).
struct Prepared {
  unsigned status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// `allow_origin`: the Access-Control-Allow-Origin for the page that sent
// the request (access_policy.h), or empty.
Prepared Prepare(wire::WireResponse r, std::string_view media, std::string_view accept_encoding,
                 std::string_view allow_origin) {
  Prepared p;
  p.status = static_cast<unsigned>(r.http_status);
  p.headers = std::move(r.headers);
  // The page that sent it may read the answer if it may call at all; an
  // answer that names the origin varies with it. The answer is typed as
  // the request was.
  if (!allow_origin.empty()) {
    p.headers.emplace_back("Access-Control-Allow-Origin", allow_origin);
    // What an SDK in the page reads besides the body.
    p.headers.emplace_back("Access-Control-Expose-Headers",
                           "x-amzn-RequestId, x-amz-crc32, x-amz-id-2, Date");
    if (allow_origin != "*") p.headers.emplace_back("Vary", "Origin");
  }
  const char* type = media == "application/x-amz-json-1.0"   ? "application/x-amz-json-1.0"
                     : media == "application/x-amz-json-1.1" ? "application/x-amz-json-1.1"
                                                             : "application/json";
  // (The console's pages bring their own.)
  if (std::none_of(p.headers.begin(), p.headers.end(),
                   [](const auto& h) { return h.first == "Content-Type"; })) {
    p.headers.emplace_back("Content-Type", type);
  }
  p.body = std::move(r.body);
  // Small answers go as they are, as DynamoDB sends them: compression
  // gains nothing there, and some clients read a small answer as JSON
  // whatever its Content-Encoding.
  if (p.body.size() >= kMinCompressedBytes) {
    if (Coding c = ChooseResponseCoding(accept_encoding); c != Coding::kIdentity) {
      p.body = Compress(c, p.body);
      p.headers.emplace_back("Content-Encoding", CodingName(c));
    }
  }
  // The SDKs verify this CRC32 of the body as sent (compressed, if it is).
  p.headers.emplace_back("x-amz-crc32",
                         std::to_string(crc32(0L, reinterpret_cast<const Bytef*>(p.body.data()),
                                              static_cast<uInt>(p.body.size()))));
  return p;
}

Prepared Prepare(wire::WireResponse r, const http::request<http::string_body>& req,
                 const AccessPolicy& policy) {
  std::string allow;
  if (req.find(http::field::origin) != req.end()) {
    allow = AllowedOrigin(policy, HeaderValue(req, http::field::origin),
                          HeaderValue(req, http::field::host))
                .value_or("");
  }
  return Prepare(std::move(r), MediaType(req), HeaderValue(req, http::field::accept_encoding),
                 allow);
}

}  // namespace

// One connection: read a request's head, check it, reserve its body's
// memory, read the body, hand the request to a worker, write the answer,
// repeat while keep-alive lasts. Everything but engine work on a worker
// runs on the one I/O thread of the session's io_context.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Server::Impl* server) : stream_(std::move(socket)), server_(server) {
    ++server_->live;
  }
  // The last connection gone ends Stop()'s wait at once.
  ~Session() {
    ReleaseBudget();
    if (--server_->live == 0 && server_->stopping) {
      Server::Impl* server = server_;
      asio::post(server->control, [server] {
        server->grace.cancel();
        server->EndWhenIdle();
      });
    }
  }

  void Start() { Read(); }

  // Ends an idle wait for the next request (used by Stop and eviction): a
  // request being read or answered finishes first.
  void Interrupt() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      // On the session's thread, so `idle_` cannot change meanwhile.
      if (self->idle_) self->Close();
    });
  }
  // Closes the connection whatever it is doing (Stop's grace period is over).
  void ForceClose() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
  }
  // Closes the connection if its read or write has outlived its deadline
  // (the server's once-a-second sweep: a timer per operation would cost
  // two system calls per request).
  void CloseIfLate(int64_t now_ms) {
    if (now_ms < deadline_ms_) return;
    asio::post(stream_.get_executor(), [self = shared_from_this(), now_ms] {
      if (now_ms >= self->deadline_ms_) self->Close();  // not renewed meanwhile
    });
  }
  // Waiting for the head of its next request since idle_since_ms(); a
  // connection whose request is being read, run or answered is not idle.
  bool idle() const { return idle_; }
  int64_t idle_since_ms() const { return idle_since_ms_; }

 private:
  void Read() {
    idle_since_ms_ = NowMs();
    idle_ = true;
    parser_.emplace();
    parser_->body_limit(server_->options.max_body_bytes);
    parser_->header_limit(static_cast<uint32_t>(server_->options.max_header_bytes));
    Deadline(server_->options.idle_timeout_seconds);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, size_t) {
    if (ec == http::error::body_limit) return TooLarge();  // a declared length past 16 MB
    if (ec == http::error::header_limit) {
      // A request line and headers past the limit: 400, and the connection
      // closes (the rest of the request is never read).
      return WriteAndClose(Prepare({400, ""}, "", "", ""), 11);
    }
    if (ec) {
      // Bytes that are not an HTTP request get a 400 before the close;
      // a closed or timed-out connection gets nothing.
      if (ec != http::error::end_of_stream && ec != beast::error::timeout &&
          ec != asio::error::eof && ec != asio::error::operation_aborted && buffer_.size() > 0) {
        return WriteAndClose(Prepare({400, ""}, "", "", ""), 11);
      }
      return Close();
    }
    idle_ = false;
    const auto& req = parser_->get();
    std::optional<uint64_t> declared;
    if (auto length = parser_->content_length()) declared = *length;
    if (auto refused = server_->CheckBeforeBody(req, declared, parser_->chunked())) {
      return WriteAndClose(Prepare(std::move(*refused), req, server_->policy), req.version());
    }
    size_t bytes = 0;
    if (auto length = parser_->content_length()) {
      bytes = static_cast<size_t>(std::min<uint64_t>(*length, server_->options.max_body_bytes));
    } else if (parser_->chunked()) {
      bytes = server_->options.max_body_bytes;  // unknown until read: the most it may be
    }
    if (bytes == 0) return ReadBody();
    // Memory at hand (the common case) is taken here, on this thread.
    if (server_->TryReserve(bytes)) {
      reserved_ = bytes;
      return ContinueAndReadBody();
    }
    // The grant runs on the first I/O thread: back onto this session's,
    // where Interrupt and ForceClose also run, before touching the socket.
    server_->Reserve(bytes, [self = shared_from_this(), bytes] {
      self->reserved_ = bytes;
      asio::post(self->stream_.get_executor(), [self] { self->ContinueAndReadBody(); });
    });
  }

  void ContinueAndReadBody() {
    // curl and others wait for "100 Continue" before sending a large body;
    // it is sent only once the head passed its checks.
    auto expect = parser_->get().find(http::field::expect);
    if (expect != parser_->get().end() && beast::iequals(expect->value(), "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      Deadline(server_->options.write_timeout_seconds);
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = shared_from_this()](beast::error_code ec, size_t) {
                          if (ec) return self->Close();
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    // Beast reads at most the buffer's free capacity (at least 512 bytes,
    // at most 64 KB) per call: room for 64 KB makes a 16 MB body 256 reads
    // instead of thousands (Write gives the room back).
    if (reserved_ > 4096) buffer_.reserve(64 << 10);
    // A small request's body usually came with its head: parsed from the
    // buffer here, with no trip through the scheduler.
    if (buffer_.size() > 0) {
      beast::error_code ec;
      buffer_.consume(parser_->put(buffer_.data(), ec));
      if (ec != http::error::need_more && (ec || parser_->is_done())) return OnRead(ec, 0);
    }
    // The body gets its own deadline (its wait for memory did not count).
    Deadline(server_->options.idle_timeout_seconds);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t) {
    if (ec == http::error::body_limit) return TooLarge();
    if (ec) return Close();  // closed, timed out, or not HTTP: nothing more to answer
    // The engine may take its time: idle time only counts between requests.
    NoDeadline();
    const auto& req = parser_->get();
    if (req.method() != http::verb::post && !IsConsoleApi(req)) {
      // Health checks, CORS preflights, unknown methods: answered here, so
      // they stay quick however busy the workers are.
      Prepared p = Prepare(server_->Respond(req), req, server_->policy);
      ReleaseBudget();
      return Write(std::move(p), req.version(), req.keep_alive());
    }
    if (server_->RunsInline(req)) {
      Answer a = Run();
      return Write(std::move(a.prepared), a.version, a.keep_alive);
    }
    // Other engine work runs on a worker; the work guard keeps io.run() (and
    // so Stop's wait) alive until the answer is back on this session's thread.
    asio::post(*server_->workers,
               [self = shared_from_this(),
                guard = asio::make_work_guard(stream_.get_executor())]() mutable {
                 Answer a = self->Run();
                 asio::post(self->stream_.get_executor(),
                            [self, a = std::move(a), guard = std::move(guard)]() mutable {
                              self->Write(std::move(a.prepared), a.version, a.keep_alive);
                            });
               });
  }

  // The answer to the request read, on whichever thread runs it; the body's
  // memory goes back as soon as it is answered.
  struct Answer {
    Prepared prepared;
    unsigned version;
    bool keep_alive;
  };
  Answer Run() {
    auto& request = parser_->get();
    Answer a{Prepare(server_->Respond(request), request, server_->policy), request.version(),
             request.keep_alive()};
    std::string().swap(request.body());
    ReleaseBudget();
    return a;
  }

  // VALIDATION.md 1a: 413 with an empty body, and the connection closes
  // (the rest of the body is not read).
  void TooLarge() { WriteAndClose(Prepare({413, ""}, parser_->get(), server_->policy), 11); }

  void WriteAndClose(Prepared p, unsigned version) {
    idle_ = false;
    ReleaseBudget();
    Write(std::move(p), version, /*keep_alive=*/false);
  }

  void Write(Prepared p, unsigned version, bool keep_alive) {
    res_ = {static_cast<http::status>(p.status), version};
    for (auto& [name, value] : p.headers) res_.set(name, value);
    res_.set(http::field::server, "Server");
    res_.set(http::field::date, HttpDate());
    res_.set("x-amzn-RequestId", RequestId());
    bool keep = keep_alive && !server_->stopping;
    res_.keep_alive(keep);
    res_.body() = std::move(p.body);
    res_.prepare_payload();
    if (buffer_.size() == 0) buffer_.shrink_to_fit();  // idle connections stay small
    // A client that does not read its answer loses the connection after the
    // write deadline instead of holding it (and Stop) forever.
    Deadline(server_->options.write_timeout_seconds);
    http::async_write(stream_, res_,
                      [self = shared_from_this(), keep](beast::error_code ec, size_t) {
                        if (ec || !keep) return self->Close();
                        self->Read();
                      });
  }

  void ReleaseBudget() {
    if (size_t bytes = reserved_.exchange(0)) server_->Release(bytes);
  }

  // The read or write now started must end within `seconds`.
  void Deadline(int seconds) { deadline_ms_ = NowMs() + int64_t{seconds} * 1000; }
  void NoDeadline() { deadline_ms_ = std::numeric_limits<int64_t>::max(); }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  std::atomic<bool> idle_{false};
  std::atomic<int64_t> idle_since_ms_{0};
  std::atomic<size_t> reserved_{0};  // of the body budget, for the request being read or run
  std::atomic<int64_t> deadline_ms_{std::numeric_limits<int64_t>::max()};
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  Server::Impl* server_;
};

bool Server::Impl::Fits(size_t bytes) const {
  // One body larger than the whole budget runs alone.
  return budget_used + bytes <= options.max_buffered_bytes || budget_used == 0;
}

void Server::Impl::Reserve(size_t bytes, std::function<void()> grant) {
  {
    std::lock_guard lock(budget_mu);
    if (!Fits(bytes)) {
      budget_waiters.push_back({bytes, std::move(grant)});
      return;
    }
    budget_used += bytes;
  }
  asio::post(io, std::move(grant));
}

bool Server::Impl::TryReserve(size_t bytes) {
  std::lock_guard lock(budget_mu);
  if (!budget_waiters.empty() || !Fits(bytes)) return false;
  budget_used += bytes;
  return true;
}

bool Server::Impl::RunsInline(const http::request<http::string_body>& req) const {
  if (!options.inline_short_requests || req.method() != http::verb::post ||
      req.body().size() > kInlineBodyBytes) {
    return false;
  }
  auto it = req.find("X-Amz-Target");
  if (it == req.end()) return true;  // answered at once: an unknown operation
  std::string_view target(it->value().data(), it->value().size());
  constexpr std::string_view kPrefix = "DynamoDB_20120810.";
  constexpr std::string_view kStreams = "DynamoDBStreams_20120810.";
  if (target.starts_with(kStreams)) {
    // Reading records is a bounded page; DescribeStream may roll a shard
    // (an fsynced write).
    target.remove_prefix(kStreams.size());
    return target == "GetRecords" || target == "GetShardIterator";
  }
  if (!target.starts_with(kPrefix)) return true;  // an unknown target: answered at once
  target.remove_prefix(kPrefix.size());
  // Reads of one item or one bounded page, and descriptions.
  for (std::string_view op :
       {"GetItem", "Query", "DescribeTable", "ListTables", "DescribeTimeToLive",
        "ListTagsOfResource", "DescribeLimits", "DescribeEndpoints", "DescribeContinuousBackups"}) {
    if (target == op) return true;
  }
  // One-item writes, unless each waits for an fsync.
  if (!options.sync_writes) {
    for (std::string_view op : {"PutItem", "DeleteItem", "UpdateItem"}) {
      if (target == op) return true;
    }
  }
  return false;
}

void Server::Impl::Release(size_t bytes) {
  std::vector<std::function<void()>> granted;
  {
    std::lock_guard lock(budget_mu);
    budget_used -= bytes;
    // Every waiter that now fits, oldest first; a large one does not hold
    // up small ones behind it.
    for (auto it = budget_waiters.begin(); it != budget_waiters.end();) {
      if (Fits(it->bytes)) {
        budget_used += it->bytes;
        granted.push_back(std::move(it->grant));
        it = budget_waiters.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& g : granted) asio::post(io, std::move(g));
}

std::optional<AuthError> Server::Impl::Authenticate(const http::request<http::string_body>& req,
                                                    bool headers_only) const {
  SignedRequest sr;
  sr.method = std::string(req.method_string());
  std::string target(req.target());
  size_t q = target.find('?');
  sr.path = target.substr(0, q);
  sr.query = q == std::string::npos ? "" : target.substr(q + 1);
  for (const auto& f : req)
    sr.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
  sr.body = req.body();  // as sent (compressed, if it is): what was signed
  VerifyOptions verify;
  verify.now_s = std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
  verify.region = options.region;
  verify.headers_only = headers_only;
  return VerifySigV4(sr, options.credentials, verify);
}

std::optional<wire::WireResponse> Server::Impl::CheckBeforeBody(
    const http::request<http::string_body>& req, std::optional<uint64_t> length, bool chunked) {
  // First of all: whether this client may be served at all (access_policy.h).
  auto host = req.find(http::field::host);
  if (auto why = RefusedHost(policy, host == req.end()
                                         ? std::nullopt
                                         : std::optional(HeaderValue(req, http::field::host)))) {
    return wire::WireResponse{403,
                              JsonError("com.amazon.coral.service#AccessDeniedException", *why)};
  }
  if (auto origin = req.find(http::field::origin); origin != req.end()) {
    const std::string_view value = HeaderValue(req, http::field::origin);
    if (!AllowedOrigin(policy, value, HeaderValue(req, http::field::host))) {
      return wire::WireResponse{
          403, JsonError("com.amazon.coral.service#AccessDeniedException",
                         "Requests from the page at " + std::string(value) +
                             " are refused: without --auth, only loopback pages, the server's "
                             "own console and the origins given with --cors may call it.")};
    }
  }
  if (!SupportedContentEncoding(HeaderValue(req, http::field::content_encoding))) {
    return BadEncoding("Unsupported Content-Encoding: " +
                       std::string(HeaderValue(req, http::field::content_encoding)));
  }
  if (options.credentials.empty() || req.method() != http::verb::post) return std::nullopt;
  const bool large = chunked || (length && *length > kUnauthenticatedBodyBytes);
  if (!large) return std::nullopt;
  if (auto error = Authenticate(req, /*headers_only=*/true)) {
    return wire::WireResponse{400, JsonError(error->type, error->message)};
  }
  return std::nullopt;
}

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
  if (IsConsoleApi(req)) return ConsoleApi(req);
  if (req.method() == http::verb::get) {
    std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (options.console_api && console::IsConsolePath(path)) return console::HandleConsole(path);
    // The health check lives at /; other paths are unknown.
    if (path != "/") return {404, "<UnknownOperationException/>\n"};
    return wire::HealthResponse(db, HeaderValue(req, http::field::host));
  }
  // The body as the client meant it: decoded, and bounded by the same
  // 16 MB after decoding (a small gzip body cannot inflate past it).
  std::string decoded;
  std::string_view body = req.body();
  if (std::string_view coding = HeaderValue(req, http::field::content_encoding); !coding.empty()) {
    switch (DecodeBody(coding, req.body(), options.max_body_bytes, &decoded)) {
      case DecodeResult::kOk:
        body = decoded;
        break;
      case DecodeResult::kTooLarge:
        return {413, ""};
      case DecodeResult::kUnsupported:
        return BadEncoding("Unsupported Content-Encoding: " + std::string(coding));
      case DecodeResult::kCorrupt:
        // A body that does not decode fails where DynamoDB fails it, as an
        // internal error (500), not as a client's serialization error.
        return {500, JsonError("com.amazonaws.dynamodb.v20120810#InternalServerError",
                               "The request body is not valid " + std::string(coding) + " data")};
    }
  }
  const std::string_view media = MediaType(req);
  if (req.method() != http::verb::post ||
      (!body.empty() && media != "application/json" && media != "application/x-amz-json-1.0" &&
       media != "application/x-amz-json-1.1")) {
    return {404, "<UnknownOperationException/>\n"};
  }
  wire::Authenticator authenticate;
  if (!options.credentials.empty()) {
    authenticate = [&]() -> std::optional<wire::WireResponse> {
      if (auto error = Authenticate(req, /*headers_only=*/false)) {
        return wire::WireResponse{400, JsonError(error->type, error->message)};
      }
      return std::nullopt;
    };
  }
  auto target = req["X-Amz-Target"];
  const std::string_view target_text(target.data(), target.size());
  if (req.find(http::field::origin) != req.end()) {
    if (auto why = RefusedConsoleWrite(policy, HeaderValue(req, http::field::origin),
                                       HeaderValue(req, http::field::host), target_text)) {
      return {403, JsonError("com.amazon.coral.service#AccessDeniedException", *why)};
    }
  }
  return wire::Handle(db, target_text, body, authenticate, jobs.get(),
                      HeaderValue(req, http::field::host));
}

wire::WireResponse Server::Impl::ConsoleApi(const http::request<http::string_body>& req) {
  if (!options.console_api) {
    return {404, JsonError("com.amazon.coral.service#UnknownOperationException",
                           "The console is off: dynarock serve serves it on loopback "
                           "addresses, and elsewhere with --console")};
  }
  std::string_view target(req.target().data(), req.target().size());
  const size_t q = target.find('?');
  // config tells the console whether to sign and for which region, so it
  // is answered unsigned (it holds nothing else).
  if (!options.credentials.empty() && target.substr(0, q) != "/console/api/config") {
    if (auto error = Authenticate(req, /*headers_only=*/false)) {
      return {400, JsonError(error->type, error->message)};
    }
  }
  const console::Settings settings{
      .region = options.region,
      .auth = !options.credentials.empty(),
      .writes = options.console_writes || !options.credentials.empty()};
  return console::HandleApi(db, settings, target.substr(0, q),
                            q == std::string_view::npos ? "" : target.substr(q + 1));
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
  // Connections are dealt to the io_contexts in turn.
  asio::io_context& home = *ios[next_io++ % ios.size()];
  acceptor.async_accept(home, [this](beast::error_code ec, tcp::socket socket) {
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

void Server::Impl::EndWhenIdle() {
  if (stopping && live == 0) {
    keep_running.clear();
    sweep.cancel();  // `control` runs on `io`'s one thread, the timer's
  }
}

void Server::Impl::Sweep() {
  sweep.expires_after(std::chrono::seconds(1));
  sweep.async_wait([this](beast::error_code cancelled) {
    if (cancelled || (stopping && live == 0)) return;
    const int64_t now = NowMs();
    {
      std::lock_guard lock(mu);
      for (const auto& weak : sessions) {
        if (auto s = weak.lock()) s->CloseIfLate(now);
      }
    }
    Sweep();
  });
}

Server::Server(Database* db, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->db = db;
  impl_->policy = {.signed_requests = !impl_->options.credentials.empty(),
                   .bind_host = impl_->options.host,
                   .cors_origins = impl_->options.cors_origins,
                   .allowed_hosts = impl_->options.allowed_hosts,
                   .console_writes = impl_->options.console_writes};
}

Server::~Server() { Stop(); }

Status Server::Start() {
  auto jobs = jobs::JobManager::Open(impl_->db, {.s3_dir = impl_->options.s3_dir,
                                                 .region = impl_->options.region,
                                                 .account_id = impl_->options.account_id});
  if (!jobs.ok()) return jobs.status();
  impl_->jobs = std::move(jobs).value();
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

size_t DefaultIoThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

uint16_t Server::port() const { return impl_->acceptor.local_endpoint().port(); }

void Server::Run() {
  // Engine calls that may block run on the workers; one I/O thread per
  // io_context runs its connections' reads, writes, timers and short
  // requests.
  impl_->workers =
      std::make_unique<asio::thread_pool>(std::max<size_t>(1, impl_->options.worker_threads));
  for (auto& io : impl_->ios) impl_->keep_running.push_back(asio::make_work_guard(*io));
  impl_->Accept();
  impl_->Sweep();
  std::vector<std::thread> pool;
  for (size_t i = 1; i < impl_->ios.size(); ++i) {
    pool.emplace_back([this, i] { impl_->ios[i]->run(); });
  }
  impl_->io.run();
  for (auto& t : pool) t.join();
  impl_->workers->join();  // idle by now: every request's guard is gone
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
    if (impl_->live == 0) return impl_->EndWhenIdle();
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
