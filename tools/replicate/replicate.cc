#include "tools/replicate/replicate.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <simdjson.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "format/item_size.h"
#include "tools/replicate/json.h"

namespace dynarock::replicate {
namespace {

constexpr char kStreams[] = "DynamoDBStreams_20120810.";
// The copy's Scan pages: 10 BatchWriteItems each, a checkpoint after each
// page, so a killed copy loses at most that much per segment.
constexpr int kCopyPage = 250;
// Empty GetRecords pages in a row a pass follows a shard through: a closed
// shard's end is known (no NextShardIterator), so it is followed far; an
// open one's newest record is not, so a few, then the next pass goes on.
constexpr int kMaxEmptyPages = 100;
constexpr int kOpenEmptyPages = 3;

// ---- Rate limit ------------------------------------------------------------------------------

// Write units per second, shared by the copy's writers: a token bucket
// holding at most one second's worth.
class RateLimiter {
 public:
  explicit RateLimiter(double per_second) : rate_(per_second), tokens_(per_second) {}
  void Take(double units) {
    if (rate_ <= 0) return;
    std::unique_lock lock(mu_);
    Refill();
    tokens_ -= units;
    if (tokens_ < 0) {
      const auto wait = std::chrono::duration<double>(-tokens_ / rate_);
      lock.unlock();
      std::this_thread::sleep_for(wait);
    }
  }

 private:
  void Refill() {
    const auto now = std::chrono::steady_clock::now();
    tokens_ = std::min(rate_, tokens_ + rate_ * std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  const double rate_;
  double tokens_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::mutex mu_;
};

// ---- The replicator ---------------------------------------------------------------------------

// One write of a BatchWriteItem: a put of an item or a delete of a key
// (JSON as the source gave it).
struct Write {
  bool put = true;
  std::string json;
};

class Replicator {
 public:
  // `store` may be null for Verify; ReadLag reads no target (`target` is
  // then the source, unused).
  Replicator(Endpoint& source, Endpoint& target, CheckpointStore* store, const ReplicateOptions& o)
      : source_(source),
        target_(target),
        store_(store),
        o_(o),
        to_table_(o.to_table.empty() ? o.table : o.to_table),
        limiter_(o.max_wcu) {}

  Status Run() {
    progress_.phase = "set-up";
    DYNAROCK_ASSIGN_OR_RETURN(auto saved, store_->Load());
    if (saved) {
      DYNAROCK_ASSIGN_OR_RETURN(checkpoint_, Checkpoint::FromJson(*saved));
      if (checkpoint_.table != o_.table || checkpoint_.to_table != to_table_ ||
          checkpoint_.target != target_.name()) {
        return Status::InvalidArgument(fmt::format(
            "the checkpoint replicates {} into {} at {}, not {} into {} at {}: give that, or "
            "--restart to start over",
            checkpoint_.table, checkpoint_.to_table, checkpoint_.target, o_.table, to_table_,
            target_.name()));
      }
      DYNAROCK_RETURN_IF_ERROR(DescribeSource());
    } else {
      DYNAROCK_RETURN_IF_ERROR(SetUp());
    }
    if (checkpoint_.phase == "copy") {
      DYNAROCK_RETURN_IF_ERROR(Copy());
      if (Stopped()) return Status::OK();
      checkpoint_.phase = "tail";
      DYNAROCK_RETURN_IF_ERROR(Save());
    }
    return Tail();
  }

  Result<Lag> ReadLag() {
    Lag lag;
    DYNAROCK_ASSIGN_OR_RETURN(auto saved, store_->Load());
    if (!saved) {
      lag.phase = "none";
      return lag;
    }
    DYNAROCK_ASSIGN_OR_RETURN(checkpoint_, Checkpoint::FromJson(*saved));
    lag.phase = checkpoint_.phase;
    lag.copied_items = checkpoint_.copied();
    lag.applied_records = checkpoint_.applied_records;
    DYNAROCK_ASSIGN_OR_RETURN(auto shards, DescribeStream());
    double oldest = 0;
    for (const Shard& shard : shards) {
      if (checkpoint_.shards[shard.id].done) continue;
      DYNAROCK_RETURN_IF_ERROR(ReadShard(shard, /*apply=*/false, [&](element record) {
        ++lag.pending_records;
        double t = 0;
        if (record["dynamodb"]["ApproximateCreationDateTime"].get_double().get(t) ==
                simdjson::SUCCESS &&
            (oldest == 0 || t < oldest)) {
          oldest = t;
        }
      }));
    }
    if (oldest > 0) lag.lag_seconds = std::max(0.0, NowSeconds() - oldest);
    return lag;
  }

  Result<VerifyResult> Verify() {
    VerifyResult r;
    DYNAROCK_RETURN_IF_ERROR(Checksum(source_, o_.table, &r.source_items, &r.source_checksum));
    DYNAROCK_RETURN_IF_ERROR(Checksum(target_, to_table_, &r.target_items, &r.target_checksum));
    return r;
  }

 private:
  struct Shard {
    std::string id, parent;
    bool closed = false;
  };

  static double NowSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  bool Stopped() const { return o_.stop && o_.stop->load(); }
  Status Save() { return store_->Save(checkpoint_.ToJson()); }
  void Report() {
    progress_.retries = retries_.load();
    if (o_.progress) o_.progress(progress_);
  }

  Result<element> Source(simdjson::dom::parser& p, std::string_view op, const std::string& body,
                         const std::string& what) {
    return Must(source_, p, op, body, what, o_.retry, &retries_);
  }
  Result<element> Target(simdjson::dom::parser& p, std::string_view op, const std::string& body,
                         const std::string& what) {
    return Must(target_, p, op, body, what, o_.retry, &retries_);
  }

  // One page of a parallel Scan's segment: the copy's pages are kCopyPage
  // items (`verify`: as large as the endpoint makes them, read consistently).
  static std::string ScanBody(std::string_view table, int segment, int total,
                              const std::string& next, bool verify) {
    Body b;
    b.w().StartObject();
    b.Key("TableName").String(table);
    b.Key("Segment");
    b.w().Int(segment);
    b.Key("TotalSegments");
    b.w().Int(total);
    if (verify) {
      b.Key("ConsistentRead");
      b.w().Bool(true);
    } else {
      b.Key("Limit");
      b.w().Int(kCopyPage);
    }
    if (!next.empty()) b.Key("ExclusiveStartKey").Raw(next);
    b.w().EndObject();
    return b.str();
  }

  static std::string TableBody(std::string_view table) {
    Body b;
    b.w().StartObject();
    b.Key("TableName").String(table);
    b.w().EndObject();
    return b.str();
  }

  // The source table: its stream, and DescribeTable's item count.
  Status DescribeSource() {
    simdjson::dom::parser p;
    auto a = Call(source_, "DescribeTable", TableBody(o_.table), o_.retry, &retries_);
    if (!a.ok())
      return Status::InvalidArgument("cannot reach the source, " + source_.name() + ": " +
                                     a.status().message());
    if (!a->ok()) {
      return Status::InvalidArgument(fmt::format("the source table {} at {}: {}: {}", o_.table,
                                                 source_.name(), a->error, a->message));
    }
    DYNAROCK_ASSIGN_OR_RETURN(element d, Parse(p, *a, "DescribeTable"));
    simdjson::dom::object table;
    if (d["Table"].get_object().get(table) != simdjson::SUCCESS) {
      return Status::InvalidArgument("the source's DescribeTable answer has no Table: " +
                                     a->body.substr(0, 200));
    }
    source_table_ = Minify(d["Table"]);
    int64_t items = 0;
    if (d["Table"]["ItemCount"].get_int64().get(items) == simdjson::SUCCESS) {
      progress_.source_items = items;
    }
    const bool enabled = BoolOr(d["Table"]["StreamSpecification"]["StreamEnabled"], false);
    const std::string arn(StringOr(d["Table"], "LatestStreamArn"));
    if (!enabled || arn.empty()) {
      return Status::InvalidArgument(fmt::format(
          "the source table {} has no stream enabled: replicate follows the writes made during "
          "and after the copy through it. Turn it on (UpdateTable StreamSpecification "
          "StreamEnabled=true, StreamViewType=NEW_AND_OLD_IMAGES) and run again; nothing was "
          "written to the target",
          o_.table));
    }
    if (!checkpoint_.stream_arn.empty() && checkpoint_.stream_arn != arn) {
      return Status::InvalidArgument(
          "the source table's stream changed since the checkpoint (it was turned off and on): "
          "records may be lost in between; start over with --restart");
    }
    checkpoint_.stream_arn = arn;
    return Status::OK();
  }

  // The CreateTable request for the target, from the source's description.
  // Without `with_lsis` (or `with_vectors`), the source's LSIs (vector
  // indexes) are left out, for a target that refuses them.
  std::string CreateTableBody(bool with_lsis, bool with_vectors) {
    simdjson::dom::parser p;
    Json t = p.parse(source_table_);
    std::string_view billing = StringOr(t["BillingModeSummary"], "BillingMode");
    const int64_t rcu = IntOr(t["ProvisionedThroughput"]["ReadCapacityUnits"], 0);
    if (billing.empty()) billing = rcu > 0 ? "PROVISIONED" : "PAY_PER_REQUEST";
    const bool provisioned = billing == "PROVISIONED";
    auto throughput = [&](Body& b, Json of) {
      const int64_t r = IntOr(of["ProvisionedThroughput"]["ReadCapacityUnits"], 1);
      const int64_t w = IntOr(of["ProvisionedThroughput"]["WriteCapacityUnits"], 1);
      b.Key("ProvisionedThroughput");
      b.w().StartObject();
      b.Key("ReadCapacityUnits");
      b.w().Int64(std::max<int64_t>(r, 1));
      b.Key("WriteCapacityUnits");
      b.w().Int64(std::max<int64_t>(w, 1));
      b.w().EndObject();
    };
    Body b;
    auto& w = b.w();
    w.StartObject();
    b.Key("TableName").String(to_table_);
    b.Key("KeySchema").Raw(Minify(t["KeySchema"]));
    b.Key("AttributeDefinitions").Raw(Minify(t["AttributeDefinitions"]));
    b.Key("BillingMode").String(billing);
    if (provisioned) throughput(b, t);
    auto indexes = [&](const char* name, bool global) {
      array list;
      if (t[name].get_array().get(list) != simdjson::SUCCESS || list.size() == 0) return;
      b.Key(name);
      w.StartArray();
      for (element i : list) {
        w.StartObject();
        b.Key("IndexName").String(StringOr(i, "IndexName"));
        b.Key("KeySchema").Raw(Minify(i["KeySchema"]));
        b.Key("Projection").Raw(Minify(i["Projection"]));
        if (global && provisioned) throughput(b, Json(element(i)));
        w.EndObject();
      }
      w.EndArray();
    };
    if (with_lsis) indexes("LocalSecondaryIndexes", false);
    indexes("GlobalSecondaryIndexes", true);
    array vectors;
    if (with_vectors && t["VectorIndexes"].get_array().get(vectors) == simdjson::SUCCESS &&
        vectors.size() > 0) {
      // CreateTable's members of each (DescribeTable adds status and counts).
      b.Key("VectorIndexes");
      w.StartArray();
      for (element v : vectors) {
        w.StartObject();
        for (const char* member : {"IndexName", "VectorAttribute", "Dimensions", "DistanceFunction",
                                   "Projection", "SearchSchema"}) {
          element value;
          if (v[member].get(value) == simdjson::SUCCESS) b.Key(member).Raw(Minify(value));
        }
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
    return b.str();
  }

  // Key schemas by index name ("" for the table), with their attributes'
  // types: what must match for a target table to receive the source's items.
  static std::map<std::string, std::string> Schemas(Json t, bool lsis) {
    std::map<std::string, std::string> types;
    array defs;
    if (t["AttributeDefinitions"].get_array().get(defs) == simdjson::SUCCESS) {
      for (element d : defs) {
        types[std::string(StringOr(d, "AttributeName"))] = StringOr(d, "AttributeType");
      }
    }
    auto text = [&](Json schema) {
      std::string s;
      array keys;
      if (schema.get_array().get(keys) != simdjson::SUCCESS) return s;
      for (element k : keys) {
        const std::string name(StringOr(k, "AttributeName"));
        s += fmt::format("{}{} {} ({})", s.empty() ? "" : ", ", name, StringOr(k, "KeyType"),
                         types[name]);
      }
      return s;
    };
    std::map<std::string, std::string> schemas{{"", text(t["KeySchema"])}};
    for (const char* list_name : {"GlobalSecondaryIndexes", "LocalSecondaryIndexes"}) {
      if (!lsis && std::string_view(list_name) == "LocalSecondaryIndexes") continue;
      array list;
      if (t[list_name].get_array().get(list) != simdjson::SUCCESS) continue;
      for (element i : list) schemas[std::string(StringOr(i, "IndexName"))] = text(i["KeySchema"]);
    }
    return schemas;
  }

  // Checks an existing target table against the source: the same keys, and
  // every GSI (and LSI, if the target has any) with the same keys.
  Status CheckTarget(Json target_table) {
    simdjson::dom::parser p;
    Json source = p.parse(source_table_);
    array lsis;
    const bool target_lsis =
        target_table["LocalSecondaryIndexes"].get_array().get(lsis) == simdjson::SUCCESS &&
        lsis.size() > 0;
    auto want = Schemas(source, target_lsis);
    auto have = Schemas(target_table, true);
    std::vector<std::string> differences;
    for (const auto& [index, schema] : want) {
      auto it = have.find(index);
      const std::string what = index.empty() ? "the table's key" : "index " + index;
      if (it == have.end()) {
        differences.push_back(what + " is missing");
      } else if (it->second != schema) {
        differences.push_back(fmt::format("{} is {} there, {} here", what, it->second, schema));
      }
    }
    if (differences.empty()) return Status::OK();
    std::string list;
    for (const auto& d : differences) list += (list.empty() ? "" : "; ") + d;
    return Status::InvalidArgument(fmt::format(
        "the target table {} at {} exists with another schema ({}): give another --to-table, "
        "or delete it; nothing was written to it",
        to_table_, target_.name(), list));
  }

  // Waits until the target table and its GSIs are ACTIVE.
  Status WaitActive() {
    simdjson::dom::parser p;
    for (int i = 0; i < 600; ++i) {  // 5 min at the default poll
      DYNAROCK_ASSIGN_OR_RETURN(element d, Target(p, "DescribeTable", TableBody(to_table_),
                                                  "DescribeTable of the target"));
      bool active = StringOr(d["Table"], "TableStatus") == "ACTIVE";
      array gsis;
      if (d["Table"]["GlobalSecondaryIndexes"].get_array().get(gsis) == simdjson::SUCCESS) {
        for (element g : gsis) {
          std::string_view s = StringOr(g, "IndexStatus", "ACTIVE");
          active = active && s == "ACTIVE";
        }
      }
      if (active) return Status::OK();
      std::this_thread::sleep_for(o_.poll / 2);
    }
    return Status::IOError("the target table " + to_table_ + " did not become ACTIVE in 5 min");
  }

  Status SetUp() {
    checkpoint_ = {};
    checkpoint_.source = source_.name();
    checkpoint_.table = o_.table;
    checkpoint_.target = target_.name();
    checkpoint_.to_table = to_table_;
    DYNAROCK_RETURN_IF_ERROR(DescribeSource());

    // The target: reachable, the credentials taken, and the table absent or
    // compatible. Nothing is written before these pass.
    simdjson::dom::parser p;
    RetryPolicy probe = o_.retry;
    probe.attempts = std::min(probe.attempts, 4);
    auto a = Call(target_, "DescribeTable", TableBody(to_table_), probe, &retries_);
    if (!a.ok()) {
      return Status::InvalidArgument("cannot reach the target, " + target_.name() + ": " +
                                     a.status().message() + "; nothing was written to it");
    }
    if (a->ok()) {
      DYNAROCK_ASSIGN_OR_RETURN(element d, Parse(p, *a, "DescribeTable of the target"));
      DYNAROCK_RETURN_IF_ERROR(CheckTarget(d["Table"]));
    } else if (a->error == "ResourceNotFoundException") {
      DYNAROCK_RETURN_IF_ERROR(CreateTarget());
    } else {
      return Status::InvalidArgument(
          fmt::format("the target, {}, refused DescribeTable: {}: {}{}; nothing was written to it",
                      target_.name(), a->error, a->message,
                      a->error.find("Signature") != std::string::npos ||
                              a->error.find("UnrecognizedClient") != std::string::npos ||
                              a->error.find("MissingAuthentication") != std::string::npos
                          ? " (the credentials: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or "
                            "~/.aws/credentials, and --region)"
                          : ""));
    }
    DYNAROCK_RETURN_IF_ERROR(WaitActive());
    DYNAROCK_RETURN_IF_ERROR(CopyTtl());

    // The stream's position before the copy: each shard read to its end.
    DYNAROCK_ASSIGN_OR_RETURN(auto shards, DescribeStream());
    for (const Shard& shard : shards) {
      DYNAROCK_RETURN_IF_ERROR(ReadShard(shard, /*apply=*/false, {}));
    }
    checkpoint_.segments.assign(std::max(1, o_.threads), Segment{});
    checkpoint_.phase = "copy";
    return Save();
  }

  Status CreateTarget() {
    bool lsis = true, vectors = true;
    for (;;) {
      auto a = Call(target_, "CreateTable", CreateTableBody(lsis, vectors), o_.retry, &retries_);
      if (!a.ok() || a->ok() || a->error != "ValidationException") {
        if (!a.ok() || !a->ok()) return Failed("CreateTable " + to_table_ + " at the target", a);
        return Status::OK();
      }
      // A target without LSIs (Alternator's older releases) or vector
      // indexes: the table without them, and said so (queries by those
      // indexes must be rewritten there).
      const char* dropped = nullptr;
      if (lsis && a->message.find("LocalSecondaryIndex") != std::string::npos) {
        lsis = false;
        dropped = "LSIs";
      } else if (vectors && a->message.find("Vector") != std::string::npos) {
        vectors = false;
        dropped = "vector indexes";
      } else {
        return Failed("CreateTable " + to_table_ + " at the target", a);
      }
      fmt::print(stderr,
                 "replicate: the target refused the {} ({}); creating the table without "
                 "them\n",
                 dropped, a->message);
    }
  }

  // TTL, when the source has it on: the same attribute on the target. A
  // target without TTL (dynalite) is told, not failed.
  Status CopyTtl() {
    simdjson::dom::parser p;
    auto ttl = Call(source_, "DescribeTimeToLive", TableBody(o_.table), o_.retry, &retries_);
    if (!ttl.ok() || !ttl->ok()) return Status::OK();
    DYNAROCK_ASSIGN_OR_RETURN(element d, Parse(p, *ttl, "DescribeTimeToLive"));
    const std::string_view status = StringOr(d["TimeToLiveDescription"], "TimeToLiveStatus");
    const std::string attribute(StringOr(d["TimeToLiveDescription"], "AttributeName"));
    if ((status != "ENABLED" && status != "ENABLING") || attribute.empty()) return Status::OK();
    Body b;
    b.w().StartObject();
    b.Key("TableName").String(to_table_);
    b.Key("TimeToLiveSpecification");
    b.w().StartObject();
    b.Key("Enabled");
    b.w().Bool(true);
    b.Key("AttributeName").String(attribute);
    b.w().EndObject();
    b.w().EndObject();
    auto a = Call(target_, "UpdateTimeToLive", b.str(), o_.retry, &retries_);
    if (!a.ok() || (!a->ok() && a->message.find("already enabled") == std::string::npos &&
                    a->message.find("multiple times") == std::string::npos)) {
      fmt::print(stderr, "replicate: TTL on {} not set on the target: {}\n", attribute,
                 a.ok() ? a->error + ": " + a->message : a.status().message());
    }
    return Status::OK();
  }

  // ---- Streams -----------------------------------------------------------------------------

  // The stream's shards, parents before their children.
  Result<std::vector<Shard>> DescribeStream() {
    simdjson::dom::parser p;
    std::vector<Shard> all;
    std::string start;
    do {
      Body b;
      b.w().StartObject();
      b.Key("StreamArn").String(checkpoint_.stream_arn);
      if (!start.empty()) b.Key("ExclusiveStartShardId").String(start);
      b.w().EndObject();
      DYNAROCK_ASSIGN_OR_RETURN(element d, Source(p, std::string(kStreams) + "DescribeStream",
                                                  b.str(), "DescribeStream"));
      array shards;
      if (d["StreamDescription"]["Shards"].get_array().get(shards) == simdjson::SUCCESS) {
        for (element s : shards) {
          Shard shard{std::string(StringOr(s, "ShardId")),
                      std::string(StringOr(s, "ParentShardId")),
                      !StringOr(s["SequenceNumberRange"], "EndingSequenceNumber").empty()};
          all.push_back(std::move(shard));
        }
      }
      start = StringOr(d["StreamDescription"], "LastEvaluatedShardId");
    } while (!start.empty());
    // Lineage order: a shard after its parent (when the parent is listed).
    std::set<std::string> ids;
    for (const Shard& s : all) ids.insert(s.id);
    std::vector<Shard> ordered;
    std::set<std::string> placed;
    while (ordered.size() < all.size()) {
      const size_t before = ordered.size();
      for (const Shard& s : all) {
        if (placed.count(s.id)) continue;
        if (s.parent.empty() || !ids.count(s.parent) || placed.count(s.parent)) {
          ordered.push_back(s);
          placed.insert(s.id);
        }
      }
      if (ordered.size() == before) break;  // a cycle: cannot happen
    }
    return ordered;
  }

  // Reads `shard` from the checkpoint's position to its end (a closed
  // shard) or to the newest record (an open one), calling `each` with every
  // record, or applying them to the target (`apply`), and moving the
  // checkpoint past them (saved after each applied page).
  Status ReadShard(const Shard& shard, bool apply, const std::function<void(element)>& each) {
    ShardState& state = checkpoint_.shards[shard.id];
    if (state.done) return Status::OK();
    simdjson::dom::parser p, records_parser;
    auto iterator = [&]() -> Result<std::string> {
      Body b;
      b.w().StartObject();
      b.Key("StreamArn").String(checkpoint_.stream_arn);
      b.Key("ShardId").String(shard.id);
      if (state.after.empty()) {
        b.Key("ShardIteratorType").String("TRIM_HORIZON");
      } else {
        b.Key("ShardIteratorType").String("AFTER_SEQUENCE_NUMBER");
        b.Key("SequenceNumber").String(state.after);
      }
      b.w().EndObject();
      DYNAROCK_ASSIGN_OR_RETURN(element d, Source(p, std::string(kStreams) + "GetShardIterator",
                                                  b.str(), "GetShardIterator " + shard.id));
      return std::string(StringOr(d, "ShardIterator"));
    };
    std::string it;
    if (auto kept = kept_iterators_.find(shard.id); kept != kept_iterators_.end()) {
      it = std::move(kept->second);
      kept_iterators_.erase(kept);
    } else {
      DYNAROCK_ASSIGN_OR_RETURN(it, iterator());
    }
    int empty_pages = 0;
    while (!it.empty()) {
      if (Stopped()) return Status::OK();
      Body b;
      b.w().StartObject();
      b.Key("ShardIterator").String(it);
      b.Key("Limit");
      b.w().Int(1000);
      b.w().EndObject();
      auto a = Call(source_, std::string(kStreams) + "GetRecords", b.str(), o_.retry, &retries_);
      if (a.ok() && a->error == "ExpiredIteratorException") {
        DYNAROCK_ASSIGN_OR_RETURN(it, iterator());
        continue;
      }
      if (a.ok() && a->error == "TrimmedDataAccessException") {
        return Status::IOError(
            "the source stream dropped records before they were applied (older than its 24 "
            "hours): the target may have missed changes; start over with --restart");
      }
      if (!a.ok() || !a->ok()) return Failed("GetRecords " + shard.id, a);
      DYNAROCK_ASSIGN_OR_RETURN(element d, Parse(records_parser, *a, "GetRecords"));
      DYNAROCK_ASSIGN_OR_RETURN(array records, ArrayOf(d["Records"], "GetRecords"));
      std::string last;
      double newest = 0;
      std::vector<element> page;
      for (element r : records) {
        last = StringOr(r["dynamodb"], "SequenceNumber");
        newest = DoubleOr(r["dynamodb"]["ApproximateCreationDateTime"], newest);
        if (each) each(r);
        page.push_back(r);
      }
      if (apply && !page.empty()) {
        DYNAROCK_RETURN_IF_ERROR(Apply(page));
        checkpoint_.applied_records += static_cast<int64_t>(page.size());
        progress_.applied_records = checkpoint_.applied_records;
        progress_.lag_seconds = std::max(0.0, NowSeconds() - newest);
      }
      if (!last.empty()) state.after = last;
      const std::string_view next = StringOr(d, "NextShardIterator");
      if (next.empty()) state.done = true;  // a closed shard, read to its end
      if (apply && (!page.empty() || state.done)) {
        DYNAROCK_RETURN_IF_ERROR(Save());
        Report();
      }
      if (state.done) return Status::OK();  // a closed shard, read to its end
      it = std::string(next);
      // An empty page is not the end: DynamoDB may take several calls to
      // get past an empty region of a shard. A shard is followed on through
      // kMaxEmptyPages (closed) or kOpenEmptyPages (open) empty pages in a
      // row; then its iterator is kept for the next pass (a fresh one from
      // `after` would walk the same empty region again).
      if (!page.empty()) {
        empty_pages = 0;
      } else if (++empty_pages == (shard.closed ? kMaxEmptyPages : kOpenEmptyPages)) {
        kept_iterators_[shard.id] = std::move(it);
        return Status::OK();
      }
    }
    return Status::OK();
  }

  // Applies a page of records in order: a batch holds writes to distinct
  // items; a record of an item already in it starts the next batch.
  Status Apply(const std::vector<element>& records) {
    std::vector<Write> batch;
    std::set<std::string> keys;
    simdjson::dom::parser p;
    for (element r : records) {
      Json d = r["dynamodb"];
      const std::string key = Minify(d["Keys"]);
      if (keys.count(key) || batch.size() == 25) {
        DYNAROCK_RETURN_IF_ERROR(WriteBatch(batch));
        batch.clear();
        keys.clear();
      }
      keys.insert(key);
      if (StringOr(r, "eventName") == "REMOVE") {
        batch.push_back({false, key});
        continue;
      }
      element image;
      if (d["NewImage"].get(image) == simdjson::SUCCESS) {
        batch.push_back({true, Minify(image)});
        continue;
      }
      // The stream does not carry the new image: the item as it is now
      // (a later record, if any, brings it to the same state anyway).
      Body b;
      b.w().StartObject();
      b.Key("TableName").String(o_.table);
      b.Key("Key").Raw(key);
      b.Key("ConsistentRead");
      b.w().Bool(true);
      b.w().EndObject();
      DYNAROCK_ASSIGN_OR_RETURN(element got, Source(p, "GetItem", b.str(), "GetItem (source)"));
      element item;
      if (got["Item"].get(item) == simdjson::SUCCESS) {
        batch.push_back({true, Minify(item)});
      } else {
        batch.push_back({false, key});
      }
    }
    return WriteBatch(batch);
  }

  // One BatchWriteItem to the target, with its UnprocessedItems sent again
  // (backoff) until none is left.
  Status WriteBatch(const std::vector<Write>& writes, Endpoint* target = nullptr) {
    if (writes.empty()) return Status::OK();
    Endpoint& to = target ? *target : target_;
    Body b;
    auto& w = b.w();
    w.StartObject();
    b.Key("RequestItems");
    w.StartObject();
    b.Key(to_table_);
    w.StartArray();
    for (const Write& write : writes) {
      w.StartObject();
      b.Key(write.put ? "PutRequest" : "DeleteRequest");
      w.StartObject();
      b.Key(write.put ? "Item" : "Key").Raw(write.json);
      w.EndObject();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.EndObject();
    std::string body = b.str();
    simdjson::dom::parser p;
    for (int round = 0;; ++round) {
      DYNAROCK_ASSIGN_OR_RETURN(element d, Must(to, p, "BatchWriteItem", body,
                                                "BatchWriteItem (target)", o_.retry, &retries_));
      array left;
      if (d["UnprocessedItems"][to_table_].get_array().get(left) != simdjson::SUCCESS ||
          left.size() == 0) {
        return Status::OK();
      }
      if (round == 50) {
        return Status::IOError(
            "the target left items unprocessed 50 times over: it is "
            "overloaded; try a lower --max-wcu");
      }
      ++retries_;
      Backoff(o_.retry, round + 1);
      Body again;
      again.w().StartObject();
      again.Key("RequestItems");
      again.w().StartObject();
      again.Key(to_table_).Raw(simdjson::minify(left));
      again.w().EndObject();
      again.w().EndObject();
      body = again.str();
    }
  }

  // ---- Copy --------------------------------------------------------------------------------

  Status Copy() {
    progress_.phase = "copy";
    progress_.copied_items = checkpoint_.copied();
    Report();
    const int total = static_cast<int>(checkpoint_.segments.size());
    std::vector<std::thread> threads;
    std::vector<Status> results(total);
    for (int s = 0; s < total; ++s) {
      threads.emplace_back([this, s, total, &results] { results[s] = CopySegment(s, total); });
    }
    for (auto& t : threads) t.join();
    for (const Status& s : results) DYNAROCK_RETURN_IF_ERROR(s);
    return Status::OK();
  }

  Status CopySegment(int segment, int total) {
    DYNAROCK_ASSIGN_OR_RETURN(auto source, source_.Clone());
    DYNAROCK_ASSIGN_OR_RETURN(auto target, target_.Clone());
    simdjson::dom::parser p;
    std::string next;
    {
      std::lock_guard lock(mu_);
      if (checkpoint_.segments[segment].done) return Status::OK();
      next = checkpoint_.segments[segment].next;
    }
    for (;;) {
      if (Stopped()) return Status::OK();
      // Pages of kCopyPage items: the checkpoint moves every few batches.
      DYNAROCK_ASSIGN_OR_RETURN(
          element d, Must(*source, p, "Scan", ScanBody(o_.table, segment, total, next, false),
                          "Scan (source)", o_.retry, &retries_));
      DYNAROCK_ASSIGN_OR_RETURN(array items, ArrayOf(d["Items"], "Scan (source)"));
      std::vector<Write> batch;
      double units = 0;
      int64_t count = 0;
      for (element item : items) {
        std::string json = Minify(item);
        // Each item's write units, for --max-wcu only (its size as DynamoDB
        // counts it takes decoding the item).
        if (o_.max_wcu > 0) {
          auto parsed = format::ParseItemJson(json);
          const size_t size = parsed.ok() ? format::ItemSize(*parsed) : json.size();
          units += std::max<double>(1, std::ceil(static_cast<double>(size) / 1024));
        }
        batch.push_back({true, std::move(json)});
        ++count;
        if (batch.size() == 25) {
          limiter_.Take(units);
          units = 0;
          DYNAROCK_RETURN_IF_ERROR(WriteBatch(batch, target.get()));
          batch.clear();
        }
      }
      limiter_.Take(units);
      DYNAROCK_RETURN_IF_ERROR(WriteBatch(batch, target.get()));
      element last;
      next = d["LastEvaluatedKey"].get(last) == simdjson::SUCCESS ? Minify(last) : "";
      std::lock_guard lock(mu_);
      Segment& seg = checkpoint_.segments[segment];
      seg.items += count;
      seg.next = next;
      seg.done = next.empty();
      progress_.copied_items = checkpoint_.copied();
      DYNAROCK_RETURN_IF_ERROR(Save());
      Report();
      if (seg.done) return Status::OK();
    }
  }

  // ---- Tail --------------------------------------------------------------------------------

  Status Tail() {
    progress_.phase = "tail";
    progress_.copied_items = checkpoint_.copied();
    progress_.applied_records = checkpoint_.applied_records;
    Report();
    int quiet_passes = 0;
    for (;;) {
      if (Stopped()) return Status::OK();
      DYNAROCK_ASSIGN_OR_RETURN(auto shards, DescribeStream());
      const int64_t before = checkpoint_.applied_records;
      for (const Shard& shard : shards) {
        // A child waits for its parent to be read to its end.
        if (!shard.parent.empty() && checkpoint_.shards.count(shard.parent) &&
            !checkpoint_.shards[shard.parent].done) {
          continue;
        }
        DYNAROCK_RETURN_IF_ERROR(ReadShard(shard, /*apply=*/true, {}));
        if (Stopped()) return Status::OK();
      }
      // Caught up: two passes in a row found nothing new. One is not
      // enough: an open shard's pass ends at an empty page, which on
      // DynamoDB may be an empty region with records after it (the second
      // pass goes on from the kept iterator, at once).
      quiet_passes = checkpoint_.applied_records == before ? quiet_passes + 1 : 0;
      const bool caught_up = quiet_passes >= 2;
      progress_.caught_up = caught_up;
      if (caught_up) progress_.lag_seconds = 0;
      Report();
      if (caught_up && o_.until_caught_up) return Status::OK();
      if (caught_up) std::this_thread::sleep_for(o_.poll);
    }
  }

  // ---- Verify ------------------------------------------------------------------------------

  Status Checksum(Endpoint& endpoint, const std::string& table, int64_t* items, uint64_t* sum) {
    const int total = std::max(1, o_.threads);
    std::vector<std::thread> threads;
    std::vector<Status> results(total);
    std::atomic<int64_t> count{0};
    std::atomic<uint64_t> checksum{0};
    for (int s = 0; s < total; ++s) {
      threads.emplace_back([&, s] {
        results[s] = [&]() -> Status {
          DYNAROCK_ASSIGN_OR_RETURN(auto e, endpoint.Clone());
          simdjson::dom::parser p;
          std::string next;
          do {
            DYNAROCK_ASSIGN_OR_RETURN(
                element d, Must(*e, p, "Scan", ScanBody(table, s, total, next, true),
                                "Scan of " + table + " at " + e->name(), o_.retry, &retries_));
            DYNAROCK_ASSIGN_OR_RETURN(array list, ArrayOf(d["Items"], "Scan of " + table));
            for (element item : list) {
              DYNAROCK_ASSIGN_OR_RETURN(std::string canonical, Canonical(item));
              checksum += XXH3_64bits(canonical.data(), canonical.size());
              ++count;
            }
            element last;
            next = d["LastEvaluatedKey"].get(last) == simdjson::SUCCESS ? Minify(last) : "";
          } while (!next.empty());
          return Status::OK();
        }();
      });
    }
    for (auto& t : threads) t.join();
    for (const Status& s : results) DYNAROCK_RETURN_IF_ERROR(s);
    *items = count;
    *sum = checksum;
    return Status::OK();
  }

  Endpoint& source_;
  Endpoint& target_;
  CheckpointStore* store_;
  const ReplicateOptions& o_;
  const std::string to_table_;
  RateLimiter limiter_;
  Checkpoint checkpoint_;
  std::string source_table_;  // DescribeTable's Table (JSON)
  Progress progress_;
  // Each shard's iterator past the empty pages it ended on, kept between
  // passes in this process (iterators live 15 minutes; not saved).
  std::map<std::string, std::string> kept_iterators_;
  std::atomic<int64_t> retries_{0};
  std::mutex mu_;  // the checkpoint's segments, during the copy
};

}  // namespace

Status Run(Endpoint& source, Endpoint& target, CheckpointStore& store,
           const ReplicateOptions& options) {
  return Replicator(source, target, &store, options).Run();
}

Result<VerifyResult> Verify(Endpoint& source, Endpoint& target, const ReplicateOptions& options) {
  return Replicator(source, target, nullptr, options).Verify();
}

Result<Lag> ReadLag(Endpoint& source, CheckpointStore& store, const ReplicateOptions& options) {
  return Replicator(source, source, &store, options).ReadLag();
}

}  // namespace dynarock::replicate
