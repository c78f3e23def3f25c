// `dynarock replicate`: copies a table into any DynamoDB-compatible endpoint
// (Amazon DynamoDB, ScyllaDB Alternator, another `dynarock serve`,
// dynalite) and keeps it in sync, so that an application moves to a
// distributed engine without stopping.
//
// Three phases, each resumable:
//   1. Set-up. The source table is described; its stream must be enabled
//      (it is what carries the writes made during and after the copy). The
//      target table is created from the source's definition (keys, GSIs,
//      LSIs where the target takes them, billing, TTL), or an existing one
//      is checked for the same keys and indexes. The stream's position is
//      taken: every shard read to its end, nothing applied. Nothing is
//      written to the target before every check passed.
//   2. Copy. A parallel Scan (segments) of the source, written with
//      BatchWriteItem; UnprocessedItems are sent again with backoff, and
//      throttling and 5xx answers retried (RetryPolicy); --max-wcu bounds
//      the write rate. Each segment's position is saved after its page was
//      written.
//   3. Tail. From the position taken before the copy, every stream record
//      is applied in order, shard after shard in lineage order (a child
//      after its parent): INSERT and MODIFY as a put of the new image (read
//      from the source when the stream does not carry it), REMOVE as a
//      delete. Consecutive records of different items go in one
//      BatchWriteItem; a record of an item already in the batch starts the
//      next. Applying is idempotent, so records applied again after a crash
//      converge to the same table.
// The checkpoint (phase, segments, and each shard's last applied sequence
// number) is saved after the target acknowledged what it covers: in the
// source database (a service record) when replicate opened it, else in a
// local state file. A killed replicate resumes where it saved.
#ifndef DYNAROCK_TOOLS_REPLICATE_REPLICATE_H_
#define DYNAROCK_TOOLS_REPLICATE_REPLICATE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "dynarock/db.h"
#include "tools/replicate/checkpoint.h"
#include "tools/replicate/endpoint.h"

namespace dynarock::replicate {

struct Progress {
  const char* phase = "";  // "set-up", "copy", "tail"
  int64_t copied_items = 0;
  int64_t source_items = 0;  // DescribeTable's ItemCount at the start (an estimate)
  int64_t applied_records = 0;
  // The tail: seconds between now and the last applied change (0 once
  // caught up), and whether every shard has been read to its end.
  double lag_seconds = 0;
  bool caught_up = false;
  int64_t retries = 0;  // requests sent again (throttling, 5xx, no answer)
};

struct ReplicateOptions {
  std::string table;                     // the source table
  std::string to_table;                  // the target table; empty: the same name
  int threads = 4;                       // copy: parallel Scan segments, one writer each
  double max_wcu = 0;                    // copy: write units per second at most; 0: no bound
  bool until_caught_up = false;          // return once the tail has no lag
  std::chrono::milliseconds poll{1000};  // the tail's wait when caught up
  RetryPolicy retry;
  // Called now and then (from one thread at a time).
  std::function<void(const Progress&)> progress;
  // Set (by a signal handler) to stop at the next checkpoint.
  const std::atomic<bool>* stop = nullptr;
};

struct VerifyResult {
  int64_t source_items = 0, target_items = 0;
  uint64_t source_checksum = 0, target_checksum = 0;
  bool equal() const { return source_items == target_items && source_checksum == target_checksum; }
};

struct Lag {
  std::string phase;  // "none" (no checkpoint), "copy", "tail"
  int64_t copied_items = 0, applied_records = 0;
  int64_t pending_records = 0;  // in the stream after the checkpoint
  double lag_seconds = 0;       // since the oldest pending change; 0 if none
};

// Runs (or resumes) set-up, copy and tail. Returns once caught up with
// options.until_caught_up, or when *options.stop is set; an error says what
// failed, in words. InvalidArgument when a check of the set-up failed
// (nothing was written to the target).
Status Run(Endpoint& source, Endpoint& target, CheckpointStore& store,
           const ReplicateOptions& options);

// Counts and checksums both tables with parallel Scans: the checksum is the
// sum of a hash (XXH3) of each item in a canonical form (attributes by
// name, sets sorted, numbers normalized), so it does not depend on the
// order either side returns items in.
Result<VerifyResult> Verify(Endpoint& source, Endpoint& target, const ReplicateOptions& options);

// The checkpoint's phase, and what the stream holds after it.
Result<Lag> ReadLag(Endpoint& source, CheckpointStore& store, const ReplicateOptions& options);

}  // namespace dynarock::replicate

#endif  // DYNAROCK_TOOLS_REPLICATE_REPLICATE_H_
