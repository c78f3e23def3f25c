// `dynarock replicate` and `dynarock replicate status` (replicate.h).
#include "tools/replicate/cli.h"

#include <fmt/core.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <memory>

#include "dynarock/db.h"
#include "tools/cli_text.h"
#include "tools/replicate/endpoint.h"
#include "tools/replicate/replicate.h"

namespace dynarock::cli {
namespace {

using replicate::Endpoint;

struct ReplicateArgs {
  std::string from, table, to, to_table, region, state;
  int threads = 4;
  double max_wcu = 0;
  double log_interval = 10;
  bool until_caught_up = false, verify = false, restart = false, insecure_http = false;
};

std::atomic<bool> stop_requested{false};

bool IsUrl(const std::string& s) { return s.starts_with("http://") || s.starts_with("https://"); }

int Fail(const Status& s, std::string_view db_dir = {}) {
  fmt::print(stderr, "error: {}\n", Explain(s, db_dir));
  return kExitFailed;
}

// The two ends, and where the checkpoint lives: in the source database
// when it is a directory (opened here), else in a state file.
struct Ends {
  std::unique_ptr<Database> db;
  std::unique_ptr<Endpoint> source, target;
  std::unique_ptr<replicate::CheckpointStore> store;
};

Result<Ends> Open(const ReplicateArgs& a, bool need_target) {
  Ends ends;
  const auto credentials = replicate::LoadCredentials();
  if (IsUrl(a.from)) {
    DYNAROCK_ASSIGN_OR_RETURN(
        ends.source,
        replicate::HttpEndpoint(a.from, {.region = replicate::ResolveRegion(a.from, a.region),
                                         .credentials = credentials,
                                         .allow_plain_http = a.insecure_http}));
  } else {
    auto db = Database::Open(a.from, {});
    if (!db.ok() && IsHeldByAnotherProcess(db.status())) {
      return Status::InvalidArgument(
          "the database at " + a.from +
          " is open in another process (dynarock serve?): replicate from the server instead, "
          "--from http://HOST:PORT, which keeps serving while the table moves");
    }
    if (!db.ok()) return db.status();
    ends.db = std::move(*db);
    ends.source = replicate::LocalEndpoint(ends.db.get(), a.from);
  }
  if (need_target || !a.to.empty()) {
    DYNAROCK_ASSIGN_OR_RETURN(
        ends.target,
        replicate::HttpEndpoint(a.to, {.region = replicate::ResolveRegion(a.to, a.region),
                                       .credentials = credentials,
                                       .allow_plain_http = a.insecure_http}));
  }
  const std::string to_table = a.to_table.empty() ? a.table : a.to_table;
  if (!a.state.empty()) {
    ends.store = replicate::FileStore(a.state);
  } else if (ends.db) {
    ends.store =
        replicate::ServiceRecordStore(ends.db.get(), a.table + " -> " + a.to + " " + to_table);
  } else {
    ends.store = replicate::FileStore(fmt::format("replicate-{}-to-{}.json", a.table, to_table));
  }
  return ends;
}

replicate::ReplicateOptions Options(const ReplicateArgs& a) {
  replicate::ReplicateOptions o;
  o.table = a.table;
  o.to_table = a.to_table;
  o.threads = a.threads;
  o.max_wcu = a.max_wcu;
  o.until_caught_up = a.until_caught_up || a.verify;
  o.stop = &stop_requested;
  return o;
}

int RunReplicate(const ReplicateArgs& a) {
  if (a.to.empty()) {
    fmt::print(stderr, "error: --to is required: the target's URL\n");
    return kExitUsage;
  }
  auto ends = Open(a, /*need_target=*/true);
  if (!ends.ok()) return Fail(ends.status(), a.from);
  if (a.restart) {
    if (Status s = ends->store->Clear(); !s.ok()) return Fail(s);
  }
  std::signal(SIGINT, [](int) { stop_requested = true; });
  std::signal(SIGTERM, [](int) { stop_requested = true; });
  Progress line;
  replicate::ReplicateOptions o = Options(a);
  bool was_caught_up = false;
  const char* last_phase = "";
  // The copy's own clock and count (a resumed copy starts from its checkpoint).
  double copy_start = -1;
  int64_t copy_start_items = 0;
  // Off a terminal (a service's log), the progress line every --log-interval.
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  double last_log = 0;
  auto show = [&](const std::string& text, double now) {
    line.Show(text);
    if (!tty && a.log_interval > 0 && now - last_log >= a.log_interval) {
      fmt::print(stderr, "{}\n", text);
      last_log = now;
    }
  };
  o.progress = [&](const replicate::Progress& p) {
    const double now = line.elapsed();
    if (std::string_view(p.phase) == "copy") {
      if (copy_start < 0) {
        copy_start = now;
        copy_start_items = p.copied_items;
      }
      const double rate =
          static_cast<double>(p.copied_items - copy_start_items) / std::max(now - copy_start, 1e-3);
      const double left =
          static_cast<double>(std::max<int64_t>(p.source_items - p.copied_items, 0));
      show(fmt::format("replicate {}: copy {} / ~{} items  {:.0f} items/s  ETA {:.0f} s  "
                       "retries {}",
                       a.table, p.copied_items, p.source_items, rate, rate > 0 ? left / rate : 0,
                       p.retries),
           now);
    } else if (std::string_view(p.phase) == "tail") {
      if (std::string_view(last_phase) == "copy") {
        line.Done();
        fmt::print("copied {} items{} in {:.2f} s; following the stream\n",
                   p.copied_items - copy_start_items, copy_start_items ? " more" : "",
                   now - copy_start);
      }
      show(fmt::format("replicate {}: tail  {} records applied  lag {:.1f} s{}  retries {}",
                       a.table, p.applied_records, p.lag_seconds, p.caught_up ? " (caught up)" : "",
                       p.retries),
           now);
      if (p.caught_up && !was_caught_up) {
        line.Done();
        fmt::print("caught up: {} records applied, lag 0\n", p.applied_records);
      }
      was_caught_up = p.caught_up;
    }
    last_phase = p.phase;
    std::fflush(stdout);
  };
  Status s = replicate::Run(*ends->source, *ends->target, *ends->store, o);
  line.Done();
  if (!s.ok()) return Fail(s, a.from);
  if (stop_requested) {
    fmt::print("stopped at a checkpoint: run the same command to resume\n");
    return kExitOk;
  }
  if (!a.verify) return kExitOk;
  auto v = replicate::Verify(*ends->source, *ends->target, o);
  if (!v.ok()) return Fail(v.status());
  const std::string to_table = a.to_table.empty() ? a.table : a.to_table;
  fmt::print(
      "verify: source {}: {} items, checksum {:016x}; target {}: {} items, checksum "
      "{:016x}: {}\n",
      a.table, v->source_items, v->source_checksum, to_table, v->target_items, v->target_checksum,
      v->equal() ? "equal" : "DIFFERENT");
  return v->equal() ? kExitOk : kExitFailed;
}

int RunStatus(const ReplicateArgs& a) {
  auto ends = Open(a, /*need_target=*/false);
  if (!ends.ok()) return Fail(ends.status(), a.from);
  auto lag = replicate::ReadLag(*ends->source, *ends->store, Options(a));
  if (!lag.ok()) return Fail(lag.status());
  if (lag->phase == "none") {
    fmt::print("replicate {}: no checkpoint (not started)\n", a.table);
    return kExitOk;
  }
  fmt::print(
      "replicate {}: phase {}; {} items copied, {} records applied; lag {} records, "
      "{:.1f} s\n",
      a.table, lag->phase, lag->copied_items, lag->applied_records, lag->pending_records,
      lag->lag_seconds);
  return kExitOk;
}

}  // namespace

void AddReplicateCommand(CLI::App* app, std::function<int()>* run) {
  auto args = std::make_shared<ReplicateArgs>();
  CLI::App* r = app->add_subcommand(
      "replicate",
      "copy a table into a DynamoDB-compatible endpoint (DynamoDB, ScyllaDB Alternator, another "
      "dynarock serve) and keep it in sync from the table's stream; resumes where it stopped");
  // --from, --table, --to, --to-table, --region, --insecure-http and
  // --state are `replicate status`'s too (it falls through to them).
  r->add_option("--from", args->from,
                "the source: a database directory (opened here: stop its server), or the URL of "
                "a running server (http://127.0.0.1:8000)")
      ->required();
  r->add_option("--table", args->table, "the table to replicate")->required();
  r->add_option("--to", args->to,
                "the target: http://HOST:PORT (loopback) or https://HOST, e.g. "
                "https://dynamodb.eu-west-1.amazonaws.com");
  r->add_option("--to-table", args->to_table, "the target table's name (default: the same)");
  r->add_option("--region", args->region,
                "the region requests are signed for (default: from the URL, AWS_REGION, "
                "AWS_DEFAULT_REGION, ~/.aws/config, us-east-1)");
  r->add_flag("--insecure-http", args->insecure_http,
              "allow http:// to a host that is not loopback (the data travels unencrypted; "
              "https:// is the default expectation)");
  r->add_option("--state", args->state,
                "the checkpoint file (default: in the source database; for a URL source, "
                "replicate-TABLE-to-TO_TABLE.json here)");
  r->add_option("--threads", args->threads, "parallel Scan segments for the copy (default 4)")
      ->check(CLI::Range(1, 64));
  r->add_option("--max-wcu", args->max_wcu, "write units per second at most during the copy")
      ->check(CLI::PositiveNumber);
  r->add_flag("--until-caught-up", args->until_caught_up,
              "exit once the target has every change (lag 0), e.g. before a cut-over");
  r->add_flag("--verify", args->verify,
              "after catching up, compare item counts and a checksum of both tables (stop the "
              "writes first: the cut-over)");
  r->add_flag("--restart", args->restart, "forget the checkpoint and start over");
  r->add_option("--log-interval", args->log_interval,
                "off a terminal, print the progress line every this many seconds (default 10; "
                "0: never)")
      ->check(CLI::NonNegativeNumber);
  r->footer(kExitCodesHelp);
  // `replicate status --from ... --table ...`: the options are replicate's.
  CLI::App* status =
      r->add_subcommand("status",
                        "where a replicate stands: its phase, and its lag in records and seconds "
                        "(the same --from, --table, --to and --to-table, or --state)");
  status->fallthrough();
  status->footer(kExitCodesHelp);
  r->require_subcommand(0, 1);
  r->callback([run, args, status] {
    if (status->parsed()) {
      *run = [args] { return RunStatus(*args); };
    } else {
      *run = [args] { return RunReplicate(*args); };
    }
  });
}

}  // namespace dynarock::cli
