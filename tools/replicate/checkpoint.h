// Where `dynarock replicate` stands, and where that is kept: the phase, each
// copy segment's position, each stream shard's last applied sequence number
// (replicate.h says when it is saved).
#ifndef DYNAROCK_TOOLS_REPLICATE_CHECKPOINT_H_
#define DYNAROCK_TOOLS_REPLICATE_CHECKPOINT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/db.h"

namespace dynarock::replicate {

// Where the checkpoint is kept.
class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;
  // The checkpoint saved last, or nullopt if none.
  virtual Result<std::optional<std::string>> Load() = 0;
  // Durable on return (fsynced).
  virtual Status Save(const std::string& checkpoint) = 0;
  // Forgets it (a finished verification leaves it; `--restart` drops it).
  virtual Status Clear() = 0;
};

// In the source database, as the service record "replicate/<key>".
std::unique_ptr<CheckpointStore> ServiceRecordStore(Database* db, std::string key);
// A JSON file, replaced atomically (written beside, fsynced, renamed).
std::unique_ptr<CheckpointStore> FileStore(std::string path);

// One copy segment (a parallel Scan's): where it resumes.
struct Segment {
  bool done = false;
  std::string next;  // the ExclusiveStartKey to resume from (JSON), or empty
  int64_t items = 0;
};

// One stream shard: how far the tail has applied it.
struct ShardState {
  std::string after;  // the last sequence number applied (or passed before the copy)
  bool done = false;  // a closed shard read to its end
};

// What is saved: whose replication it is (source, table, target,
// to_table, the stream followed), the phase, and the positions.
struct Checkpoint {
  std::string source, table, target, to_table, stream_arn;
  std::string phase = "copy";  // "copy", then "tail"
  std::vector<Segment> segments;
  std::map<std::string, ShardState> shards;
  int64_t applied_records = 0;

  int64_t copied() const {
    int64_t n = 0;
    for (const Segment& s : segments) n += s.items;
    return n;
  }

  // The checkpoint as saved (JSON), and read back: Corruption if `text` is
  // not JSON; members missing or of another type read as their defaults.
  std::string ToJson() const;
  static Result<Checkpoint> FromJson(const std::string& text);
};

}  // namespace dynarock::replicate

#endif  // DYNAROCK_TOOLS_REPLICATE_CHECKPOINT_H_
