// `dynarock serve`: DynamoDB's HTTP JSON protocol on a loopback port.
// HTTP/1.1 with keep-alive (Boost.Beast, asynchronous). A few I/O threads
// read and write every connection; engine calls run on a separate worker
// pool, so a slow operation never stalls other connections or timers. A
// request's head is checked (size, Content-Encoding, and with --auth the
// signature's header-only parts) before its body is read, and bodies are
// read only within a memory budget. gzip/deflate request bodies (bounded
// after decoding too) and compressed answers; a high bound on connections
// past which the longest-idle one is closed; read and write deadlines; a
// stop that lets requests in flight finish within a grace period.
#ifndef DYNAROCK_TOOLS_SERVER_HTTP_SERVER_H_
#define DYNAROCK_TOOLS_SERVER_HTTP_SERVER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dynarock/db.h"

namespace dynarock::server {

// One I/O thread per core (at least 1).
size_t DefaultIoThreads();

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8000;   // 0: any free port (see Server::port())
  // Run every connection's reads, writes and timers, and the short
  // requests (see inline_short_requests): one per core by default.
  size_t io_threads = DefaultIoThreads();
  // Run the engine calls that may block or take long (sync commits waiting
  // on fsync, batches, transactions, scans, table changes, exports). Sized
  // for waiting beside CPU work: dynarock serve uses 8 per core, at least 32.
  size_t worker_threads = 8;
  // Short requests (GetItem, Query, one-item writes unless they wait for an
  // fsync, table descriptions) run on the I/O thread that read them: no
  // hand-off to a worker and back, which costs more than the request.
  bool inline_short_requests = true;
  // The database fsyncs each write (Options::sync_writes): its one-item
  // writes then wait on the disk, so they run on the workers.
  bool sync_writes = true;
  // Past this many connections, the longest-idle keep-alive connection is
  // closed to make room (a new client is refused only when every one is
  // busy). `dynarock serve` derives it from the file-descriptor limit.
  size_t max_connections = 10000;
  int idle_timeout_seconds = 60;     // to read a whole request, from its first wait
  int write_timeout_seconds = 60;    // to write an answer to a client that does not read
  int shutdown_grace_seconds = 10;   // Stop(): then the connections left are closed
  size_t max_body_bytes = 16 << 20;  // DynamoDB's request size cap (also after decoding)
  // The request line and headers together; past it: 400, connection closed.
  size_t max_header_bytes = 16 << 10;
  // The memory all request bodies being read or handled may hold, reserved
  // by declared length (chunked: max_body_bytes) before a body is read;
  // past it, uploads wait for memory instead of each pinning 16 MB.
  size_t max_buffered_bytes = 256 << 20;
  // Required in the credential scope of signed requests (--auth).
  std::string region = "us-east-1";
  // The account in the ARNs of export and import jobs (the database's).
  std::string account_id = "000000000000";
  // --auth: access key id -> secret. Empty: any signature is accepted, as
  // local DynamoDB implementations do. Otherwise every request must carry a
  // valid AWS Signature V4 from one of these keys.
  std::map<std::string, std::string> credentials;
  // --cors: the origins whose pages may call the server, or "*"; empty:
  // loopback pages and the server's own (any page with --auth). See
  // access_policy.h.
  std::vector<std::string> cors_origins;
  // --allowed-host: names, beyond loopback ones, the bind address and
  // DynamoDB's endpoint names, that a loopback server without --auth
  // answers to (access_policy.h: DNS rebinding).
  std::vector<std::string> allowed_hosts;
  // --s3-dir: the folder whose subfolders stand for S3 buckets, for
  // ExportTableToPointInTime and ImportTable (tools/server/jobs.h).
  std::string s3_dir;
  // Serve the web console (GET /console/) and its read-only API (GET
  // /console/api/..., console_api.h; `dynarock top` reads it too).
  // `dynarock serve` turns it on for loopback addresses, elsewhere only
  // with --console: it shows the data.
  bool console_api = true;
  // The console may write (create and delete tables, put and delete
  // items); off, and without --auth, the server refuses write operations
  // from its own pages (access_policy.h). Other clients write either way:
  // --auth is what guards the API.
  bool console_writes = false;
};

class Server {
 public:
  Server(Database* db, ServerOptions options);
  ~Server();

  // Binds and listens. IOError if the address is taken.
  Status Start();
  uint16_t port() const;
  // Serves until Stop() (runs the thread pool); in-flight requests finish first.
  void Run();
  // Safe from any thread (and a signal handler's thread).
  void Stop();

  struct Impl;  // public name, private definition (http_server.cc)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_HTTP_SERVER_H_
