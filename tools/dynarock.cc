// The `dynarock` command.
//
//   dynarock serve [--host 127.0.0.1] [--port 8000] (--data-dir DIR | --in-memory)
//                  [--cors ORIGIN,...] [--allowed-host NAME,...]
//                  [--durability sync|relaxed] [--region R] [--auth KEY:SECRET ...]
//                  [--workers N] [--max-connections N] [--max-buffered-mb N] [--s3-dir DIR]
//                  [--partition-limits [--partition-read-limit RCU] [--partition-write-limit WCU]
//                   [--partition-burst-seconds S]] [--console]
//   dynarock dump DB TABLE OUT [--format DYNAMODB_JSON|ION] [--prefix P] [--segments N]
//   dynarock restore DB SOURCE [--table-definition FILE] [--table NAME] [--strict] ...
//   dynarock collection DB TABLE PK [--index I] [--from SK] [--to SK] [--begins-with P]
//                       [--reverse] [--limit N] [--attributes a,b] [--json]
//   dynarock collections DB TABLE [--limit N] [--json]
//   dynarock top [--endpoint URL] [--table T] [--limit N] [--window S] [--once] [--json]
//
// serve speaks DynamoDB's HTTP JSON protocol, so any AWS SDK or the AWS CLI
// works against it with --endpoint-url http://127.0.0.1:8000.
#include <fmt/core.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "dynarock/db.h"
#include "tools/bulk_cli.h"
#include "tools/cli_text.h"
#include "tools/collection_cli.h"
#include "tools/server/http_server.h"
#include "tools/replicate/cli.h"
#include "tools/top_cli.h"

namespace {

// Raises the soft limit on open files to the hard one, and returns how many
// connections that leaves room for beside RocksDB's files.
size_t ConnectionBound() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return 1024;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  constexpr rlim_t kReserved = 1024;  // RocksDB's table files, the WAL, logs
  return lim.rlim_cur > 2 * kReserved ? static_cast<size_t>(lim.rlim_cur - kReserved)
                                      : static_cast<size_t>(lim.rlim_cur / 2);
}

// True for the addresses only this machine reaches.
bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

int Serve(dynarock::server::ServerOptions server_options, std::string data_dir, bool in_memory,
          bool sync, std::optional<dynarock::Options::PartitionLimits> partition_limits) {
  std::filesystem::path temp;
  if (in_memory) {
    // A throw-away database: a private directory removed at exit.
    std::string templ = (std::filesystem::temp_directory_path() / "dynarock-serve-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) {
      fmt::print(stderr, "error: cannot create a temporary directory\n");
      return 1;
    }
    temp = templ;
    data_dir = templ;
  }
  int rc = 0;
  {
    dynarock::Options options;
    options.region = server_options.region;  // in every ARN the server hands out
    options.partition_limits = partition_limits;
    // sync: every acknowledged write is fsynced; concurrent writers share
    // an fsync (RocksDB commits them as one group).
    options.sync_writes = sync;
    auto db = dynarock::Database::Open(data_dir, options);
    if (!db.ok()) {
      fmt::print(stderr, "error: {}\n", dynarock::cli::Explain(db.status(), data_dir));
      return dynarock::cli::kExitFailed;
    }
    server_options.account_id = options.account_id;
    dynarock::server::Server server(db->get(), server_options);
    dynarock::Status started = server.Start();
    if (!started.ok()) {
      if (started.message().find("Address already in use") != std::string::npos) {
        fmt::print(stderr, "error: port {} is in use (another dynarock serve?); use --port\n",
                   server_options.port);
      } else {
        fmt::print(stderr, "error: {}\n", dynarock::cli::Explain(started));
      }
      rc = dynarock::cli::kExitFailed;
    } else {
      // SIGINT/SIGTERM: stop accepting, let in-flight requests finish, close.
      boost::asio::io_context signals_io;
      boost::asio::signal_set signals(signals_io, SIGINT, SIGTERM);
      // The first signal stops gracefully; a second one exits at once.
      signals.async_wait([&](const boost::system::error_code&, int) {
        server.Stop();
        signals.async_wait([](const boost::system::error_code&, int) { std::_Exit(130); });
      });
      std::thread signal_thread([&] { signals_io.run(); });
      std::string limits;
      if (partition_limits) {
        limits = fmt::format(", partition limits: {:g} RCU and {:g} WCU per collection",
                             partition_limits->read_units_per_second,
                             partition_limits->write_units_per_second);
      }
      fmt::print(
          "dynarock serving DynamoDB on http://{}:{} (data: {}, durability: {}, "
          "up to {} connections{})\n",
          server_options.host, server.port(), in_memory ? "in memory" : data_dir,
          sync ? "sync" : "relaxed", server_options.max_connections, limits);
      if (server_options.console_api) {
        fmt::print("console: http://{}:{}/console/{}\n", server_options.host, server.port(),
                   server_options.console_writes || !server_options.credentials.empty()
                       ? " (writes allowed)"
                       : " (read-only: --console-writes lets it write)");
      }
      std::fflush(stdout);
      server.Run();
      signals_io.stop();
      signal_thread.join();
    }
  }  // the database closes here, after the last request
  if (!temp.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp, ec);
  }
  return rc;
}

// What `dynarock serve` is told on its command line.
struct ServeFlags {
  std::string host = "127.0.0.1", data_dir, s3_dir, durability = "sync", region = "us-east-1";
  uint16_t port = 8000;
  // The engine calls that may block: mostly waiting (an fsynced write waits
  // for the disk, and writers waiting together share one fsync), so many.
  size_t workers = std::max<size_t>(32, 8 * std::max(1u, std::thread::hardware_concurrency()));
  bool in_memory = false, partition_limits = false, console = false, console_writes = false;
  size_t max_connections = 0, max_buffered_mb = 256;
  std::vector<std::string> auth, cors, allowed_hosts;
  std::string auth_file;
  dynarock::Options::PartitionLimits limits;
};

// Where the data lives, how durable it is, and what the server may use.
void AddStorageOptions(CLI::App* serve, ServeFlags* f) {
  serve->add_option("--host", f->host, "address to listen on (loopback by default)");
  serve->add_option("--port", f->port, "port (0: any free port)");
  serve
      ->add_option("--workers", f->workers,
                   "threads that run the engine calls that may block or take long (fsynced "
                   "writes, batches, transactions, scans, table changes; default: 8 per core, at "
                   "least 32, as fsynced writes waiting together share one fsync); short requests "
                   "(GetItem, Query, one-item writes in relaxed "
                   "durability) run on the I/O threads, one per core")
      ->check(CLI::Range(1, 1024));
  auto* dir = serve->add_option("--data-dir", f->data_dir, "database directory");
  auto* mem =
      serve->add_flag("--in-memory", f->in_memory, "a throw-away database, removed at exit");
  dir->excludes(mem);
  serve
      ->add_option("--durability", f->durability,
                   "sync (default): each acknowledged write is fsynced, surviving power loss; "
                   "relaxed: written to the log but not fsynced, surviving a crash of this "
                   "process only (--in-memory implies it)")
      ->check(CLI::IsMember({"sync", "relaxed"}));
  serve->add_option("--max-connections", f->max_connections,
                    "past this many connections the longest-idle one is closed (default: from "
                    "the open-file limit, raised to its maximum)");
  serve
      ->add_option("--max-buffered-mb", f->max_buffered_mb,
                   "memory for request bodies being read or handled; past it, uploads wait "
                   "(default 256)")
      ->check(CLI::Range(16, 1 << 20));
  serve->add_option("--region", f->region,
                    "the region in ARNs, the health answer and signed requests' scope "
                    "(default us-east-1)");
  serve
      ->add_option("--s3-dir", f->s3_dir,
                   "folder standing for S3 in ExportTableToPointInTime and ImportTable: "
                   "bucket B is the folder DIR/B")
      ->check(CLI::ExistingDirectory);
}

// Who may call the server: signatures, web pages, Host names, the console.
void AddAccessOptions(CLI::App* serve, ServeFlags* f) {
  serve->add_option("--auth", f->auth,
                    "verify AWS Signature V4 with these ACCESS_KEY_ID:SECRET pairs (repeatable; "
                    "visible in ps: prefer --auth-file or DYNAROCK_AUTH); without any, every "
                    "signature is accepted");
  serve
      ->add_option("--auth-file", f->auth_file,
                   "read ACCESS_KEY_ID:SECRET pairs from this file, one per line")
      ->check(CLI::ExistingFile);
  serve->add_flag("--console", f->console,
                  "serve the web console (/console/) and its API (used by dynarock top) on a "
                  "non-loopback --host too; it shows the data");
  serve
      ->add_option("--cors", f->cors,
                   "origins (http://host:port) whose web pages may call the server, or '*' for "
                   "any (comma-separated). Default: without --auth, loopback pages and the "
                   "server's own console only; with --auth, any (every request is signed)")
      ->delimiter(',');
  serve
      ->add_option("--allowed-host", f->allowed_hosts,
                   "further Host names a loopback server without --auth answers to (repeatable "
                   "or comma-separated); it refuses others against DNS rebinding")
      ->delimiter(',');
  serve->add_flag("--console-writes", f->console_writes,
                  "let the web console write: create and delete tables, put, edit and delete "
                  "items, turn on TTL and streams (each with a confirmation). Without it (and "
                  "without --auth) the server refuses its own pages' writes");
}

// Per-partition throttling (Options::partition_limits), off by default.
void AddPartitionLimitOptions(CLI::App* serve, ServeFlags* f) {
  serve->add_flag("--partition-limits", f->partition_limits,
                  "throttle each item collection at DynamoDB's per-partition ceilings (3,000 RCU "
                  "and 1,000 WCU per second, with up to 300 s of unused capacity as burst): a key "
                  "design that would throttle in DynamoDB throttles here");
  auto* read_limit =
      serve
          ->add_option("--partition-read-limit", f->limits.read_units_per_second,
                       "with --partition-limits: read units per second per collection")
          ->check(CLI::PositiveNumber);
  auto* write_limit =
      serve
          ->add_option("--partition-write-limit", f->limits.write_units_per_second,
                       "with --partition-limits: write units per second per collection")
          ->check(CLI::PositiveNumber);
  auto* burst =
      serve
          ->add_option("--partition-burst-seconds", f->limits.burst_seconds,
                       "with --partition-limits: seconds of unused capacity a collection keeps "
                       "for bursts (at least 1)")
          ->check(CLI::Range(1.0, 3600.0));
  for (auto* o : {read_limit, write_limit, burst}) o->needs("--partition-limits");
}

// The signing keys from the flag, the file and the environment
// (DYNAROCK_AUTH, pairs separated by commas), so secrets need not appear on
// a command line; nullopt (after saying why) for a malformed pair.
std::optional<std::map<std::string, std::string>> Credentials(const ServeFlags& f) {
  std::vector<std::string> pairs = f.auth;
  if (!f.auth_file.empty()) {
    std::ifstream in(f.auth_file);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line[0] != '#') pairs.push_back(line);
    }
  }
  if (const char* env = std::getenv("DYNAROCK_AUTH"); env != nullptr && *env != '\0') {
    std::string all(env);
    for (size_t start = 0, comma;; start = comma + 1) {
      comma = all.find(',', start);
      pairs.push_back(all.substr(start, comma - start));
      if (comma == std::string::npos) break;
    }
  }
  std::map<std::string, std::string> credentials;
  for (const auto& pair : pairs) {
    size_t colon = pair.find(':');
    if (colon == std::string::npos || colon == 0) {
      fmt::print(stderr, "error: --auth takes ACCESS_KEY_ID:SECRET\n");
      return std::nullopt;
    }
    credentials[pair.substr(0, colon)] = pair.substr(colon + 1);
  }
  return credentials;
}

int RunServe(ServeFlags f) {
  if (!f.in_memory && f.data_dir.empty()) {
    fmt::print(stderr, "error: give --data-dir DIR or --in-memory\n");
    return dynarock::cli::kExitUsage;
  }
  auto credentials = Credentials(f);
  if (!credentials) return dynarock::cli::kExitUsage;
  const size_t bound = ConnectionBound();
  if (f.max_connections == 0 || f.max_connections > bound) f.max_connections = bound;
  return Serve({.host = f.host,
                .port = f.port,
                .worker_threads = f.workers,
                .sync_writes = f.durability == "sync" && !f.in_memory,
                .max_connections = f.max_connections,
                .max_buffered_bytes = f.max_buffered_mb << 20,
                .region = f.region,
                .credentials = *credentials,
                .cors_origins = f.cors,
                .allowed_hosts = f.allowed_hosts,
                .s3_dir = f.s3_dir,
                .console_api = f.console || IsLoopback(f.host),
                .console_writes = f.console_writes},
               f.data_dir, f.in_memory, f.durability == "sync" && !f.in_memory,
               f.partition_limits ? std::optional(f.limits) : std::nullopt);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Dynarock: DynamoDB's data model on RocksDB"};
  app.require_subcommand(1);
  const dynarock::BuildInfo build = dynarock::GetBuildInfo();
  app.set_version_flag("--version",
                       fmt::format("dynarock {} (storage format {}, RocksDB {})", build.version,
                                   build.storage_format, build.rocksdb_version));
  app.footer(dynarock::cli::kExitCodesHelp);
  ServeFlags flags;
  CLI::App* serve = app.add_subcommand("serve", "serve DynamoDB's HTTP JSON protocol");
  AddStorageOptions(serve, &flags);
  AddAccessOptions(serve, &flags);
  AddPartitionLimitOptions(serve, &flags);
  std::function<int()> tool;  // the subcommand chosen, other than serve
  dynarock::cli::AddBulkCommands(&app, &tool);
  dynarock::cli::AddCollectionCommands(&app, &tool);
  dynarock::cli::AddTopCommand(&app, &tool);
  dynarock::cli::AddReplicateCommand(&app, &tool);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->footer(dynarock::cli::kExitCodesHelp);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that exit 0; the rest print why.
    return app.exit(e) == 0 ? dynarock::cli::kExitOk : dynarock::cli::kExitUsage;
  }
  if (tool) return tool();
  if (serve->parsed()) return RunServe(std::move(flags));
  return dynarock::cli::kExitUsage;
}
