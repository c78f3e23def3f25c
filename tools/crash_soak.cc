// The crash soak's driver (tools/crash_soak.sh runs it), in the style of
// RocksDB's db_crashtest: `run` writes until it is killed with SIGKILL;
// `verify` reopens the database and checks it against the expected state
// that `run` kept on disk.
//
// The expected state (DIR/expected.state, mmap'd, so it survives the kill
// of the writer) holds one slot per key: its acknowledged value, and the
// value of the operation in flight on it, if any. Each writer thread owns
// its keys, so a key has at most one operation in flight. Values are
// versions, unique per write; 0 is "no item".
//
// `run`: writer threads mix PutItem, UpdateItem (some conditional),
// DeleteItem, BatchWriteItem and TransactWriteItems on a table with an LSI,
// a GSI and a stream; a catalog thread adds and deletes a second GSI
// (backfilled in the background), creates, fills and deletes a scratch
// table, runs RecountStatistics, and dumps the table and restores it as
// another, so kills land mid-backfill, mid-recount and mid-restore. Write buffers are 64 KB:
// flushes and compactions run.
//
// `verify`: every key's item equals its acknowledged value or the value in
// flight; the keys of an operation in flight all moved or none did (no torn
// batch or transaction); every index entry matches its item and each index
// holds exactly the items it should; a recount corrects nothing; and each
// key's last stream record since the previous verify shows the item as it
// is; a restored table is whole (as many items as its export) or absent,
// with no scratch directory left. It then makes the state it found the new acknowledged state,
// prints one summary line and exits 0, or prints what is wrong and exits 1.
#include <fcntl.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/mman.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "format/json.h"

namespace dynarock::soak {
namespace {

constexpr char kTable[] = "Soak";
constexpr int kKeysPerThread = 96;
constexpr int kMaxThreads = 8;
constexpr int kKeys = kKeysPerThread * kMaxThreads;
constexpr uint32_t kNoPending = 0xffffffff;

struct Slot {
  uint32_t acked;         // 0: no item
  uint32_t pending;       // kNoPending, or the value of the write in flight (0: a delete)
  uint64_t op;            // the operation in flight (its keys share it)
  uint32_t stream_value;  // the value the key's last stream record showed
  uint32_t unused;
};

struct Header {
  uint64_t magic;
  uint64_t next_version;   // versions are unique across runs
  uint64_t acknowledged;   // writes acknowledged, all runs
  uint64_t cycles;         // verifies passed
  char last_sequence[32];  // stream position the last verify read up to
  int64_t restore_expected;  // items of the export the last restore started from
};

struct State {
  Header header;
  Slot slots[kKeys];
};

State* MapState(const std::string& dir) {
  const std::string path = dir + "/expected.state";
  int fd = open(path.c_str(), O_RDWR | O_CREAT, 0644);
  if (fd < 0 || ftruncate(fd, sizeof(State)) != 0) {
    perror(path.c_str());
    exit(2);
  }
  void* p = mmap(nullptr, sizeof(State), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  auto* state = static_cast<State*>(p);
  if (state->header.magic != 0x4b414f53594e5245ULL) {  // a new state: no items
    *state = State{};
    state->header.magic = 0x4b414f53594e5245ULL;
    state->header.next_version = 1;
    for (auto& s : state->slots) s.pending = kNoPending;
  }
  return state;
}

std::string Pk(int key) { return "P#" + std::to_string(key / 8); }
std::string Sk(int key) { return "S#" + std::to_string(key % 8); }
Item KeyOf(int key) {
  return {{"p", AttributeValue::S(Pk(key))}, {"s", AttributeValue::S(Sk(key))}};
}
AttributeValue Num(uint64_t v) { return AttributeValue::N(*Number::Parse(std::to_string(v))); }
Item ItemOf(int key, uint32_t version) {
  Item item = KeyOf(key);
  item["ver"] = Num(version);
  item["grp"] = AttributeValue::S("G" + std::to_string(version % 5));
  item["grp2"] = AttributeValue::S("H" + std::to_string(version % 3));
  item["rank"] = Num(version % 100);
  item["pad"] = AttributeValue::S(std::string(20 + version % 200, 'x'));
  return item;
}
uint32_t VersionOf(const Item& item) {
  return static_cast<uint32_t>(std::stoul(item.at("ver").n().ToString()));
}
int KeyIndex(const Item& item) {
  return std::stoi(item.at("p").s().substr(2)) * 8 + std::stoi(item.at("s").s().substr(2));
}

CreateTableRequest SoakTable() {
  CreateTableRequest r;
  r.table_name = kTable;
  r.key_schema = {{"p", KeyType::kHash}, {"s", KeyType::kRange}};
  r.attribute_definitions = {{"p", ScalarAttributeType::kS},
                             {"s", ScalarAttributeType::kS},
                             {"grp", ScalarAttributeType::kS},
                             {"rank", ScalarAttributeType::kN}};
  r.billing_mode = BillingMode::kPayPerRequest;
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByGroup", {{"grp", KeyType::kHash}, {"s", KeyType::kRange}}, {ProjectionType::kAll, {}}}};
  r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"ByRank", {{"p", KeyType::kHash}, {"rank", KeyType::kRange}}, {ProjectionType::kAll, {}}}};
  r.stream_specification = StreamSpecification{true, StreamViewType::kNewAndOldImages};
  return r;
}

Options SoakOptions(bool sync) {
  Options o;
  o.sync_writes = sync;
  o.write_buffer_bytes = 64 << 10;
  o.backfill_batch_items = 50;
  o.ttl_sweep_interval_ms = 0;
  return o;
}

std::unique_ptr<Database> OpenOrDie(const std::string& dir, bool sync) {
  auto db = Database::Open(dir + "/db", SoakOptions(sync));
  if (!db.ok()) {
    fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    exit(2);
  }
  return std::move(db).value();
}

// ---- targets: the embedded engine, or `dynarock serve` over HTTP ----------------------------

// What a writer does to the database. Only success, and which error, matter.
class Target {
 public:
  virtual ~Target() = default;
  virtual Status PutItem(const PutItemRequest& r) = 0;
  virtual Status UpdateItem(const UpdateItemRequest& r) = 0;
  virtual Status DeleteItem(const DeleteItemRequest& r) = 0;
  virtual Status BatchWriteItem(const BatchWriteItemRequest& r) = 0;
  virtual Status TransactWriteItems(const TransactWriteItemsRequest& r) = 0;
};

class Embedded : public Target {
 public:
  explicit Embedded(Database* db) : db_(db) {}
  Status PutItem(const PutItemRequest& r) override { return db_->PutItem(r).status(); }
  Status UpdateItem(const UpdateItemRequest& r) override { return db_->UpdateItem(r).status(); }
  Status DeleteItem(const DeleteItemRequest& r) override { return db_->DeleteItem(r).status(); }
  Status BatchWriteItem(const BatchWriteItemRequest& r) override {
    auto result = db_->BatchWriteItem(r);
    if (result.ok() && !result->unprocessed_items.empty()) {
      return Status::Internal("unprocessed items");
    }
    return result.status();
  }
  Status TransactWriteItems(const TransactWriteItemsRequest& r) override {
    return db_->TransactWriteItems(r).status();
  }

 private:
  Database* db_;
};

// DynamoDB's JSON protocol over one keep-alive connection per writer. An
// answer's __type maps back to the Status codes the writer tells apart; a
// lost connection is IOError (the server was killed: the writer stops).
class Http : public Target {
 public:
  Http(std::string host, std::string port) : host_(std::move(host)), port_(std::move(port)) {}

  Status PutItem(const PutItemRequest& r) override {
    return Call("PutItem", "{\"TableName\":\"" + r.table_name + "\",\"Item\":" +
                               format::ToJson(r.item) + Conditional(r.condition_expression) + "}");
  }
  Status UpdateItem(const UpdateItemRequest& r) override {
    std::string body = "{\"TableName\":\"" + r.table_name + "\",\"Key\":" + format::ToJson(r.key) +
                       ",\"UpdateExpression\":" + Quote(*r.update_expression) +
                       Conditional(r.condition_expression);
    if (r.expression_attribute_names) {
      body += ",\"ExpressionAttributeNames\":{";
      for (const auto& [k, v] : *r.expression_attribute_names) {
        body += (body.back() == '{' ? "" : ",") + Quote(k) + ":" + Quote(v);
      }
      body += "}";
    }
    if (r.expression_attribute_values) {
      const Item values(r.expression_attribute_values->begin(),
                        r.expression_attribute_values->end());
      body += ",\"ExpressionAttributeValues\":" + format::ToJson(values);
    }
    return Call("UpdateItem", body + "}");
  }
  Status DeleteItem(const DeleteItemRequest& r) override {
    return Call("DeleteItem",
                "{\"TableName\":\"" + r.table_name + "\",\"Key\":" + format::ToJson(r.key) + "}");
  }
  Status BatchWriteItem(const BatchWriteItemRequest& r) override {
    std::string body = "{\"RequestItems\":{";
    for (const auto& [table, writes] : r.request_items) {
      body += Quote(table) + ":[";
      for (const auto& w : writes) {
        if (body.back() != '[') body += ",";
        body += w.put_request
                    ? "{\"PutRequest\":{\"Item\":" + format::ToJson(w.put_request->item) + "}}"
                    : "{\"DeleteRequest\":{\"Key\":" + format::ToJson(w.delete_request->key) + "}}";
      }
      body += "]";
    }
    return Call("BatchWriteItem", body + "}}");
  }
  Status TransactWriteItems(const TransactWriteItemsRequest& r) override {
    std::string body = "{\"TransactItems\":[";
    for (const auto& t : r.transact_items) {
      if (body.back() != '[') body += ",";
      if (t.put) {
        body += "{\"Put\":{\"TableName\":" + Quote(t.put->table_name) +
                ",\"Item\":" + format::ToJson(t.put->item) +
                Conditional(t.put->condition_expression) + "}}";
      } else {
        body += "{\"Delete\":{\"TableName\":" + Quote(t.delete_item->table_name) +
                ",\"Key\":" + format::ToJson(t.delete_item->key) + "}}";
      }
    }
    return Call("TransactWriteItems", body + "]}");
  }

 private:
  static std::string Quote(const std::string& s) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return std::string(buffer.GetString(), buffer.GetSize());
  }
  static std::string Conditional(const std::optional<std::string>& c) {
    return c ? ",\"ConditionExpression\":" + Quote(*c) : "";
  }

  Status Call(const std::string& op, const std::string& body) {
    namespace http = boost::beast::http;
    try {
      if (!stream_) {
        stream_ = std::make_unique<boost::beast::tcp_stream>(io_);
        boost::asio::ip::tcp::resolver resolver(io_);
        stream_->connect(resolver.resolve(host_, port_));
      }
      http::request<http::string_body> req{http::verb::post, "/", 11};
      req.set(http::field::host, host_);
      req.set(http::field::content_type, "application/x-amz-json-1.0");
      req.set("X-Amz-Target", "DynamoDB_20120810." + op);
      req.body() = body;
      req.prepare_payload();
      http::write(*stream_, req);
      boost::beast::flat_buffer buffer;
      http::response<http::string_body> res;
      http::read(*stream_, buffer, res);
      if (res.result_int() == 200) return Status::OK();
      const std::string& text = res.body();
      if (text.find("#ConditionalCheckFailedException") != std::string::npos) {
        return Status::ConditionalCheckFailed();
      }
      if (text.find("#TransactionCanceledException") != std::string::npos) {
        return Status::TransactionCanceled(text);
      }
      return Status::Internal("HTTP " + std::to_string(res.result_int()) + ": " + text);
    } catch (const std::exception& e) {
      stream_.reset();
      return Status::IOError(std::string("the server is gone: ") + e.what());
    }
  }

  const std::string host_, port_;
  boost::asio::io_context io_;
  std::unique_ptr<boost::beast::tcp_stream> stream_;
};

// ---- run ----------------------------------------------------------------------------------

class Writer {
 public:
  Writer(Target* db, State* state, int thread, uint64_t seed)
      : db_(db), state_(state), first_(thread * kKeysPerThread), rng_(seed) {}

  void Loop() {
    for (uint64_t serial = 1;; ++serial) {
      std::map<int, uint32_t> changes;  // key -> new value (0: delete)
      Status s = RunOne(serial, &changes);
      // The server was killed: whether the write in flight landed is for
      // verify to find out, so it stays pending.
      if (s.code() == Status::Code::kIOError) return;
      for (const auto& [k, v] : changes) {
        Slot& slot = state_->slots[k];
        if (s.ok()) slot.acked = v;
        slot.pending = kNoPending;
      }
      if (s.ok()) {
        __atomic_add_fetch(&state_->header.acknowledged, changes.size(), __ATOMIC_RELAXED);
      } else if (s.code() != Status::Code::kConditionalCheckFailed &&
                 s.code() != Status::Code::kTransactionCanceled) {
        fprintf(stderr, "write failed: %s\n", s.ToString().c_str());
        exit(2);
      }
    }
  }

 private:
  int Pick() { return first_ + static_cast<int>(rng_() % kKeysPerThread); }
  uint32_t NewVersion() {
    return static_cast<uint32_t>(
        __atomic_fetch_add(&state_->header.next_version, 1, __ATOMIC_RELAXED));
  }
  // Records the write in flight on `key` before it is sent.
  void Pending(int key, uint32_t value, uint64_t op, std::map<int, uint32_t>* changes) {
    Slot& slot = state_->slots[key];
    slot.op = op;
    slot.pending = value;
    (*changes)[key] = value;
  }

  Status RunOne(uint64_t serial, std::map<int, uint32_t>* changes) {
    const uint64_t op = (static_cast<uint64_t>(first_) << 40) | serial;
    switch (rng_() % 6) {
      case 0:
      case 1: {
        int k = Pick();
        uint32_t v = NewVersion();
        Pending(k, v, op, changes);
        return db_->PutItem({.table_name = kTable, .item = ItemOf(k, v)});
      }
      case 2: {
        int k = Pick();
        uint32_t v = NewVersion();
        Item item = ItemOf(k, v);
        UpdateItemRequest u{.table_name = kTable, .key = KeyOf(k)};
        u.update_expression = "SET ver = :v, grp = :g, grp2 = :h, #r = :r, #p = :p";
        u.expression_attribute_names =
            std::map<std::string, std::string>{{"#r", "rank"}, {"#p", "pad"}};
        u.expression_attribute_values =
            std::map<std::string, AttributeValue>{{":v", item.at("ver")},
                                                  {":g", item.at("grp")},
                                                  {":h", item.at("grp2")},
                                                  {":r", item.at("rank")},
                                                  {":p", item.at("pad")}};
        if (rng_() % 2) u.condition_expression = "attribute_exists(p)";
        Pending(k, v, op, changes);
        return db_->UpdateItem(u);
      }
      case 3: {
        int k = Pick();
        Pending(k, 0, op, changes);
        return db_->DeleteItem({.table_name = kTable, .key = KeyOf(k)});
      }
      case 4: {
        BatchWriteItemRequest b;
        auto& writes = b.request_items[kTable];
        for (int i = 0; i < 6; ++i) {
          int k = Pick();
          if (changes->count(k)) continue;
          if (rng_() % 4 == 0) {
            Pending(k, 0, op, changes);
            writes.push_back({.delete_request = DeleteRequest{KeyOf(k)}});
          } else {
            uint32_t v = NewVersion();
            Pending(k, v, op, changes);
            writes.push_back({.put_request = PutRequest{ItemOf(k, v)}});
          }
        }
        return db_->BatchWriteItem(b);
      }
      default: {
        TransactWriteItemsRequest t;
        for (int i = 0; i < 3; ++i) {
          int k = Pick();
          if (changes->count(k)) continue;
          TransactWriteItem w;
          if (i == 2 && rng_() % 2) {
            Pending(k, 0, op, changes);
            w.delete_item = TransactDelete{.table_name = kTable, .key = KeyOf(k)};
          } else {
            uint32_t v = NewVersion();
            Pending(k, v, op, changes);
            w.put = TransactPut{.table_name = kTable, .item = ItemOf(k, v)};
            // Sometimes conditional: a cancellation must change nothing.
            if (rng_() % 4 == 0) w.put->condition_expression = "attribute_not_exists(p)";
          }
          t.transact_items.push_back(std::move(w));
        }
        return db_->TransactWriteItems(t);
      }
    }
  }

  Target* db_;
  State* state_;
  const int first_;
  std::mt19937_64 rng_;
};

// A dump of the soak table restored as "Restored": the old copy is
// deleted first, so a "Restored" that verify finds came from the export
// recorded here, and must be whole.
void DumpAndRestore(Database* db, State* state, const std::string& dir) {
  if (Status s = db->DeleteTable({"Restored"}).status();
      !s.ok() && s.code() != Status::Code::kResourceNotFound) {
    return;
  }
  const std::string exports = dir + "/exports";
  std::error_code ignored;
  std::filesystem::remove_all(exports, ignored);
  ExportTableOptions e;
  e.table_name = kTable;
  e.bucket_dir = exports;
  e.segments = 2;
  auto exported = db->ExportTable(e);
  if (!exported.ok()) return;
  auto manifest = ReadExportManifest(exported->export_dir);
  if (!manifest.ok()) {
    fprintf(stderr, "manifest: %s\n", manifest.status().ToString().c_str());
    exit(2);
  }
  state->header.restore_expected = exported->item_count;
  ImportTableOptions i;
  i.table = SoakTable();
  i.table.table_name = "Restored";
  i.table.stream_specification.reset();
  i.files = manifest->files;
  i.memory_budget_bytes = 1 << 20;
  auto imported = db->ImportTable(i);
  if (!imported.ok() || imported->imported_items != exported->item_count) {
    fprintf(stderr, "restore: %s\n",
            imported.ok() ? "item count differs" : imported.status().ToString().c_str());
    exit(2);
  }
}

// Catalog churn and background work for kills to land in.
void CatalogLoop(Database* db, State* state, const std::string& dir, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int round = 0;; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 150));
    auto described = db->DescribeTable({kTable});
    if (!described.ok()) continue;
    bool has_churn = false;
    for (const auto& g : described->table.global_secondary_indexes.value_or(
             std::vector<GlobalSecondaryIndexDescription>{})) {
      has_churn |= g.index_name == "Churn";
    }
    switch (rng() % 5) {
      case 4:
        DumpAndRestore(db, state, dir);
        break;
      case 0: {
        UpdateTableRequest u{.table_name = kTable};
        u.attribute_definitions =
            std::vector<AttributeDefinition>{{"p", ScalarAttributeType::kS},
                                             {"s", ScalarAttributeType::kS},
                                             {"grp", ScalarAttributeType::kS},
                                             {"rank", ScalarAttributeType::kN},
                                             {"grp2", ScalarAttributeType::kS}};
        GlobalSecondaryIndexUpdate g;
        if (has_churn) {
          g.delete_index_name = "Churn";
        } else {
          g.create =
              CreateGlobalSecondaryIndexAction{"Churn",
                                               {{"grp2", KeyType::kHash}, {"p", KeyType::kRange}},
                                               {ProjectionType::kKeysOnly, {}}};
        }
        u.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{g};
        (void)db->UpdateTable(u);  // may be refused while a backfill runs: that is fine
        break;
      }
      case 1: {
        CreateTableRequest r;
        r.table_name = "Scratch";
        r.key_schema = {{"k", KeyType::kHash}};
        r.attribute_definitions = {{"k", ScalarAttributeType::kS}};
        r.billing_mode = BillingMode::kPayPerRequest;
        if (db->CreateTable(r).ok()) {
          for (int i = 0; i < 20; ++i) {
            (void)db->PutItem(
                {.table_name = "Scratch", .item = {{"k", AttributeValue::S(std::to_string(i))}}});
          }
        }
        break;
      }
      case 2:
        (void)db->DeleteTable({"Scratch"});
        break;
      default:
        if (round % 3 == 0) {
          auto report = db->RecountStatistics();
          if (report.ok() && (report->collections_corrected || report->table_totals_corrected ||
                              report->index_totals_corrected)) {
            fprintf(stderr, "recount during the run corrected drift\n");
            exit(2);
          }
        }
    }
  }
}

// Against `dynarock serve` (endpoint "host:port", serving DIR/db, the soak
// table created by the script's first verify... or here, over the engine
// before the server starts): writers only, until the server is killed.
int RunHttp(const std::string& dir, const std::string& endpoint, uint64_t seed, int threads) {
  State* state = MapState(dir);
  const size_t colon = endpoint.rfind(':');
  std::vector<std::thread> all;
  for (int t = 0; t < threads; ++t) {
    all.emplace_back([&, t] {
      Http target(endpoint.substr(0, colon), endpoint.substr(colon + 1));
      Writer(&target, state, t, seed + t).Loop();
    });
  }
  for (auto& t : all) t.join();
  return 0;
}

// Creates the soak table (before a server opens the database).
int Prepare(const std::string& dir) {
  MapState(dir);
  auto db = OpenOrDie(dir, true);
  if (!db->DescribeTable({kTable}).ok() && !db->CreateTable(SoakTable()).ok()) return 2;
  return 0;
}

int Run(const std::string& dir, uint64_t seed, int threads, bool sync) {
  State* state = MapState(dir);
  auto db = OpenOrDie(dir, sync);
  if (!db->DescribeTable({kTable}).ok()) {
    auto created = db->CreateTable(SoakTable());
    if (!created.ok()) {
      fprintf(stderr, "create: %s\n", created.status().ToString().c_str());
      return 2;
    }
  }
  printf("running\n");
  fflush(stdout);
  std::vector<std::thread> all;
  for (int t = 0; t < threads; ++t) {
    all.emplace_back([&, t] {
      Embedded target(db.get());
      Writer(&target, state, t, seed + t).Loop();
    });
  }
  all.emplace_back([&] { CatalogLoop(db.get(), state, dir, seed ^ 0x5eed); });
  for (auto& t : all) t.join();  // never: the script kills us
  return 0;
}

// ---- verify -------------------------------------------------------------------------------

// One verification after a kill: each check adds what it finds to the
// problems and to the counts the report line prints.
class Verifier {
 public:
  Verifier(const std::string& dir, State* state, Database* db)
      : dir_(dir), state_(state), db_(db), actual_(kKeys, 0) {}

  int Run() {
    if (!db_->DescribeTable({kTable}).ok()) {  // killed before the table existed
      for (const auto& s : state_->slots) {
        if (s.acked != 0) Problem("the table is gone but items were acknowledged");
      }
      return problems_ ? 1 : 0;
    }
    if (!ReadItems()) return 1;
    CheckAcknowledged();
    if (Status s = db_->WaitForBackfills(); !s.ok()) Problem("backfill: " + s.ToString());
    described_ = *db_->DescribeTable({kTable});
    if (!CheckIndexes()) return 1;
    CheckStatistics();
    CheckRestore();
    CheckStream();
    return Report();
  }

 private:
  void Problem(const std::string& what) {
    if (++problems_ <= 20) fprintf(stderr, "verify: %s\n", what.c_str());
  }

  // Every item's version.
  bool ReadItems() {
    ScanRequest scan{.table_name = kTable};
    scan.consistent_read = true;
    while (true) {
      auto page = db_->Scan(scan);
      if (!page.ok()) {
        Problem("scan: " + page.status().ToString());
        return false;
      }
      for (const auto& item : page->items) actual_[KeyIndex(item)] = VersionOf(item);
      if (!page->last_evaluated_key) break;
      scan.exclusive_start_key = page->last_evaluated_key;
    }
    for (uint32_t v : actual_) present_ += v != 0;
    return true;
  }

  // Each key holds its acknowledged version, or its in-flight one; an
  // operation in flight is applied whole or not at all.
  void CheckAcknowledged() {
    std::map<uint64_t, std::pair<int, int>> ops;  // op -> (keys moved, keys not)
    for (int k = 0; k < kKeys; ++k) {
      const Slot& s = state_->slots[k];
      const bool in_flight = s.pending != kNoPending && s.pending != s.acked;
      if (actual_[k] == s.acked) {
        if (in_flight) ++ops[s.op].second;
        continue;
      }
      if (in_flight && actual_[k] == s.pending) {
        ++ops[s.op].first;
        continue;
      }
      ++lost_;
      Problem("key " + std::to_string(k) + ": found version " + std::to_string(actual_[k]) +
              ", acknowledged " + std::to_string(s.acked) + ", in flight " +
              (s.pending == kNoPending ? std::string("none") : std::to_string(s.pending)));
    }
    for (const auto& [op, moved] : ops) {
      if (moved.first > 0 && moved.second > 0) {
        ++torn_;
        Problem("operation " + std::to_string(op) + " torn: " + std::to_string(moved.first) +
                " keys applied, " + std::to_string(moved.second) + " not");
      }
      in_flight_applied_ += moved.first > 0;
    }
  }

  // Every index entry against its item; each index holds what it should.
  bool CheckIndexes() {
    std::vector<std::string> indexes = {"ByGroup", "ByRank"};
    for (const auto& g : described_.table.global_secondary_indexes.value_or(
             std::vector<GlobalSecondaryIndexDescription>{})) {
      if (g.index_name == "Churn") indexes.push_back("Churn");
    }
    for (const auto& index : indexes) {
      ScanRequest is{.table_name = kTable};
      is.index_name = index;
      int64_t entries = 0;
      while (true) {
        auto page = db_->Scan(is);
        if (!page.ok()) {
          Problem("index scan " + index + ": " + page.status().ToString());
          return false;
        }
        for (const auto& e : page->items) {
          ++entries;
          const int k = KeyIndex(e);
          const uint32_t v = actual_[k];
          bool ok = v != 0;
          if (ok && e.count("ver")) ok = VersionOf(e) == v;
          if (ok && index == "Churn") ok = e.at("grp2").s() == "H" + std::to_string(v % 3);
          if (!ok) {
            ++index_mismatches_;
            Problem(index + ": an entry for key " + std::to_string(k) + " disagrees with its item");
          }
        }
        if (!page->last_evaluated_key) break;
        is.exclusive_start_key = page->last_evaluated_key;
      }
      if (entries != present_) {
        ++index_mismatches_;
        Problem(index + ": " + std::to_string(entries) + " entries for " +
                std::to_string(present_) + " items");
      }
    }
    return true;
  }

  // The statistics agree with the items: nothing for a recount to correct.
  void CheckStatistics() {
    if (described_.table.item_count != present_) {
      Problem("ItemCount " + std::to_string(described_.table.item_count) + " for " +
              std::to_string(present_) + " items");
    }
    auto report = db_->RecountStatistics();
    if (!report.ok()) {
      Problem("recount: " + report.status().ToString());
      return;
    }
    stat_corrections_ = report->collections_corrected + report->table_totals_corrected +
                        report->index_totals_corrected;
    if (stat_corrections_) Problem("the recount corrected " + std::to_string(stat_corrections_));
  }

  // A restore is whole or absent, and no scratch directory is left.
  void CheckRestore() {
    if (auto restored = db_->DescribeTable({"Restored"}); restored.ok()) {
      ScanRequest rs{.table_name = "Restored"};
      rs.select = Select::kCount;
      int64_t n = 0;
      while (true) {
        auto page = db_->Scan(rs);
        if (!page.ok()) break;
        n += page->count;
        if (!page->last_evaluated_key) break;
        rs.exclusive_start_key = page->last_evaluated_key;
      }
      restored_items_ = n;
      if (n != state_->header.restore_expected || restored->table.item_count != n) {
        ++restore_problems_;
        Problem("Restored holds " + std::to_string(n) + " items (ItemCount " +
                std::to_string(restored->table.item_count) + "), its export " +
                std::to_string(state_->header.restore_expected));
      }
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir_ + "/db")) {
      if (entry.path().filename().string().starts_with("restore-scratch-")) {
        ++restore_problems_;
        Problem("a restore's scratch directory is left: " + entry.path().string());
      }
    }
  }

  // Each key's last stream record since the last verify shows its item.
  void CheckStream() {
    streamed_.resize(kKeys);
    for (int k = 0; k < kKeys; ++k) streamed_[k] = state_->slots[k].stream_value;
    after_ = state_->header.last_sequence;
    const std::string arn = described_.table.latest_stream_arn.value_or("");
    while (!arn.empty()) {
      auto batch = db_->ReadStream(arn, after_, 1000);
      if (!batch.ok()) {
        Problem("stream: " + batch.status().ToString());
        break;
      }
      if (batch->empty()) break;
      for (const auto& r : *batch) {
        ++records_;
        const int k = KeyIndex(r.keys);
        streamed_[k] = r.new_image ? VersionOf(*r.new_image) : 0;
        after_ = r.sequence_number;
      }
    }
    for (int k = 0; k < kKeys; ++k) {
      if (streamed_[k] != actual_[k]) {
        ++stream_mismatches_;
        Problem("key " + std::to_string(k) + ": its last stream record shows version " +
                std::to_string(streamed_[k]) + ", the item is " + std::to_string(actual_[k]));
      }
    }
  }

  // The report line; a pass makes what was found the acknowledged state.
  int Report() {
    const bool passed = problems_ == 0;
    if (passed) {
      for (int k = 0; k < kKeys; ++k) {
        Slot& s = state_->slots[k];
        s.acked = actual_[k];
        s.pending = kNoPending;
        s.stream_value = streamed_[k];
      }
      snprintf(state_->header.last_sequence, sizeof(state_->header.last_sequence), "%s",
               after_.c_str());
      ++state_->header.cycles;
    }
    printf(
        "verify %s: cycle %llu, %lld items, %llu writes acknowledged in all, lost %d, torn %d, "
        "in flight applied %d, index mismatches %d, recount corrections %lld, stream records "
        "read %lld, stream mismatches %d, restored items %lld, restore problems %d\n",
        passed ? "passed" : "FAILED", static_cast<unsigned long long>(state_->header.cycles),
        static_cast<long long>(present_),
        static_cast<unsigned long long>(state_->header.acknowledged), lost_, torn_,
        in_flight_applied_, index_mismatches_, static_cast<long long>(stat_corrections_),
        static_cast<long long>(records_), stream_mismatches_,
        static_cast<long long>(restored_items_), restore_problems_);
    return passed ? 0 : 1;
  }

  const std::string dir_;
  State* state_;
  Database* db_;
  DescribeTableResponse described_;
  std::vector<uint32_t> actual_, streamed_;
  std::string after_;
  int problems_ = 0, lost_ = 0, torn_ = 0, in_flight_applied_ = 0, index_mismatches_ = 0;
  int restore_problems_ = 0, stream_mismatches_ = 0;
  int64_t present_ = 0, stat_corrections_ = 0, records_ = 0;
  int64_t restored_items_ = -1;  // no restored table
};

int Verify(const std::string& dir) {
  State* state = MapState(dir);
  auto db = OpenOrDie(dir, false);
  return Verifier(dir, state, db.get()).Run();
}

}  // namespace
}  // namespace dynarock::soak

int main(int argc, char** argv) {
  CLI::App app{"Dynarock crash soak driver (see tools/crash_soak.sh)"};
  app.require_subcommand(1);
  std::string dir;
  uint64_t seed = 1;
  int threads = 4;
  bool sync = false;
  auto* run = app.add_subcommand("run", "write until killed");
  run->add_option("dir", dir, "soak directory")->required();
  run->add_option("--seed", seed);
  run->add_option("--threads", threads)->check(CLI::Range(1, dynarock::soak::kMaxThreads));
  run->add_flag("--sync", sync, "fsync every write");
  std::string endpoint;
  run->add_option("--endpoint", endpoint,
                  "host:port of a `dynarock serve` on DIR/db: write over HTTP");
  auto* prepare =
      app.add_subcommand("prepare", "create the soak table (before a server opens DIR/db)");
  prepare->add_option("dir", dir, "soak directory")->required();
  auto* verify = app.add_subcommand("verify", "check the database against the expected state");
  verify->add_option("dir", dir, "soak directory")->required();
  CLI11_PARSE(app, argc, argv);
  if (run->parsed() && !endpoint.empty()) {
    return dynarock::soak::RunHttp(dir, endpoint, seed, threads);
  }
  if (run->parsed()) return dynarock::soak::Run(dir, seed, threads, sync);
  if (prepare->parsed()) return dynarock::soak::Prepare(dir);
  return dynarock::soak::Verify(dir);
}
