// Reliability under a failing disk (tests/util/fault_fs.h): power cuts in
// both durability modes, I/O errors on reads, appends and syncs, a full disk
// during a flush; and ClientRequestToken records that outlive a restart.
//
// What each test holds the engine to: an acknowledged write is never lost
// where the mode promises it, what survives is never a mix of a write's
// parts, an injected error reaches the caller as an error (never as a wrong
// answer), and once the fault is gone the database reopens with its items,
// indexes and statistics in agreement (a recount corrects nothing).
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "dynarock/db.h"
#include "engine/counters.h"
#include "engine/tokens.h"
#include "simdjson.h"
#include "tests/util/db_fixture.h"
#include "tests/util/fault_fs.h"
#include "tests/util/raw_db.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"
#include "tools/server/wire.h"

namespace dynarock {
namespace {

using testing::FaultFs;
using testing::N;
using testing::S;
using T = ScalarAttributeType;

constexpr char kTable[] = "Fleet";

// The fleet table: (vehicleId, recordedAt), a GSI on (depotCode,
// recordedAt) and an LSI on speedKph, so every write touches items, both
// kinds of index entries, table totals and a collection counter that the
// 10 GB limit reads.
CreateTableRequest FleetTable() {
  CreateTableRequest r = testing::TableRequest(kTable, "vehicleId", T::kS, "recordedAt", T::kS);
  r.attribute_definitions.push_back({"depotCode", T::kS});
  r.attribute_definitions.push_back({"speedKph", T::kN});
  r.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByDepot", {{"depotCode", KeyType::kHash}, {"recordedAt", KeyType::kRange}}, {}}};
  r.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"BySpeed", {{"vehicleId", KeyType::kHash}, {"speedKph", KeyType::kRange}}, {}}};
  return r;
}

// Keys are "<vehicle>/<reading>"; a value is the item's `v` attribute.
struct Key {
  std::string vehicle, reading;
  auto operator<=>(const Key&) const = default;
};
using State = std::map<Key, std::string>;  // absent: no item

Item KeyItem(const Key& k) { return {{"vehicleId", S(k.vehicle)}, {"recordedAt", S(k.reading)}}; }
Item FullItem(const Key& k, const std::string& v) {
  Item item = KeyItem(k);
  item["depotCode"] = S("DEP-" + std::to_string(v.size() % 3));
  item["speedKph"] = N(std::to_string(v.size()));
  item["v"] = S(v);
  return item;
}

// Every item of the table, by key.
State ReadAll(Database* db) {
  State out;
  ScanRequest scan{.table_name = kTable};
  while (true) {
    auto page = db->Scan(scan);
    EXPECT_OK(page);
    if (!page.ok()) return out;
    for (const auto& item : page->items) {
      out[{item.at("vehicleId").s(), item.at("recordedAt").s()}] = item.at("v").s();
    }
    if (!page->last_evaluated_key) return out;
    scan.exclusive_start_key = page->last_evaluated_key;
  }
}

// The readings PutReading wrote that `items` holds.
std::set<int> ReadingNumbers(const State& items) {
  std::set<int> out;
  for (const auto& [k, v] : items) out.insert(std::stoi(k.reading.substr(3)));
  return out;
}

int64_t CountIndex(Database* db, const std::string& index) {
  int64_t n = 0;
  ScanRequest scan{.table_name = kTable};
  scan.index_name = index;
  while (true) {
    auto page = db->Scan(scan);
    EXPECT_OK(page);
    if (!page.ok()) return -1;
    n += page->count;
    if (!page->last_evaluated_key) return n;
    scan.exclusive_start_key = page->last_evaluated_key;
  }
}

// Items, both indexes, the table totals and every counter agree.
void ExpectConsistent(Database* db, const State& items) {
  EXPECT_EQ(CountIndex(db, "ByDepot"), static_cast<int64_t>(items.size()));
  EXPECT_EQ(CountIndex(db, "BySpeed"), static_cast<int64_t>(items.size()));
  auto described = db->DescribeTable({kTable});
  ASSERT_OK(described);
  EXPECT_EQ(described->table.item_count, static_cast<int64_t>(items.size()));
  auto report = db->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->collections_corrected, 0);
  EXPECT_EQ(report->table_totals_corrected, 0);
  EXPECT_EQ(report->index_totals_corrected, 0);
  EXPECT_EQ(report->unreadable_items, 0);
}

class ReliabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    fs_ = std::make_shared<FaultFs>();
    options_.file_system = fs_;
    options_.write_buffer_bytes = 64 << 10;  // flushes and compactions run during the tests
    options_.block_cache_bytes = 256 << 10;
    options_.ttl_sweep_interval_ms = 0;
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    db_.reset();
    auto db = Database::Open(dir_, options_);
    ASSERT_OK(db);
    db_ = std::move(db).value();
  }
  // Reading i of the relaxed-prefix tests: a new item of vehicle i % 5 at
  // TS#<i> (ReadingNumbers gives the i back).
  Status PutReading(int i) {
    char reading[16];
    snprintf(reading, sizeof(reading), "TS#%06d", i);
    Key k{"VEH#" + std::to_string(i % 5), reading};
    return db_->PutItem({.table_name = kTable, .item = FullItem(k, "r" + std::to_string(i))})
        .status();
  }
  // The rest of a power cut, after fs_->CutPower() (and the clients have
  // seen their writes fail): the process "dies" (the database is dropped),
  // and the files lose what was not durable.
  void AfterPowerCut(std::mt19937_64* rng) {
    db_.reset();
    ASSERT_TRUE(fs_->DropUnsynced(rng).ok());
  }

  std::string dir_;
  std::shared_ptr<FaultFs> fs_;
  Options options_;
  std::unique_ptr<Database> db_;
};

// One client's operation: the keys it changes and their values after it
// (nullopt: deleted); all of them change or none does.
struct Op {
  std::map<Key, std::optional<std::string>> changes;
};

// Runs one random operation of every kind the engine has (PutItem,
// UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems) on `keys`.
Status RunRandomOp(Database* db, std::mt19937_64& rng, const std::vector<Key>& keys, int serial,
                   Op* op) {
  auto pick = [&] { return keys[rng() % keys.size()]; };
  const std::string value = "v" + std::to_string(serial) + std::string(rng() % 40, 'x');
  switch (rng() % 5) {
    case 0: {
      Key k = pick();
      op->changes[k] = value;
      return db->PutItem({.table_name = kTable, .item = FullItem(k, value)}).status();
    }
    case 1: {
      Key k = pick();
      // An update of an absent item creates it: with every index attribute.
      Item full = FullItem(k, value);
      op->changes[k] = value;
      UpdateItemRequest u{.table_name = kTable, .key = KeyItem(k)};
      u.update_expression = "SET v = :v, depotCode = :d, speedKph = :s";
      u.expression_attribute_values = std::map<std::string, AttributeValue>{
          {":v", full.at("v")}, {":d", full.at("depotCode")}, {":s", full.at("speedKph")}};
      return db->UpdateItem(u).status();
    }
    case 2: {
      Key k = pick();
      op->changes[k] = std::nullopt;
      return db->DeleteItem({.table_name = kTable, .key = KeyItem(k)}).status();
    }
    case 3: {
      BatchWriteItemRequest b;
      auto& writes = b.request_items[kTable];
      for (int i = 0; i < 4; ++i) {
        Key k = pick();
        if (op->changes.count(k)) continue;  // one request per key
        if (rng() % 3 == 0) {
          op->changes[k] = std::nullopt;
          writes.push_back({.delete_request = DeleteRequest{KeyItem(k)}});
        } else {
          std::string v = value + "b" + std::to_string(i);
          op->changes[k] = v;
          writes.push_back({.put_request = PutRequest{FullItem(k, v)}});
        }
      }
      return db->BatchWriteItem(b).status();
    }
    default: {
      TransactWriteItemsRequest t;
      Key a = pick(), b = pick();
      if (b.vehicle == a.vehicle && b.reading == a.reading) b.reading += "t";
      op->changes[a] = value;
      op->changes[b] = std::nullopt;
      TransactWriteItem put, del;
      put.put = TransactPut{.table_name = kTable, .item = FullItem(a, value)};
      del.delete_item = TransactDelete{.table_name = kTable, .key = KeyItem(b)};
      t.transact_items = {put, del};
      return db->TransactWriteItems(t).status();
    }
  }
}

// The keys where `found` differs from what was acknowledged (and from that
// plus the op in flight).
std::string Diff(const State& found, const State& acked, const State& whole) {
  std::set<Key> keys;
  for (const State* s : {&found, &acked, &whole}) {
    for (const auto& [k, v] : *s) keys.insert(k);
  }
  auto at = [](const State& s, const Key& k) {
    auto it = s.find(k);
    return it == s.end() ? std::string("(none)") : it->second.substr(0, 12);
  };
  std::string out;
  for (const Key& k : keys) {
    if (at(found, k) == at(acked, k) && at(found, k) == at(whole, k)) continue;
    out += k.vehicle + "/" + k.reading + ": found " + at(found, k) + ", acknowledged " +
           at(acked, k) + ", with the op in flight " + at(whole, k) + "\n";
  }
  return out;
}

std::string Ops(const std::vector<Op>& h, const Op& f) {
  std::string out;
  auto render = [&](const Op& op) {
    for (const auto& [k, v] : op.changes)
      out += " " + k.vehicle + "/" + k.reading + "=" + (v ? v->substr(0, 8) : "DEL");
    out += "\n";
  };
  for (size_t i = h.size() > 8 ? h.size() - 8 : 0; i < h.size(); ++i) render(h[i]);
  out += "in flight:";
  render(f);
  return out;
}

// Applies an acknowledged op to a state.
void Apply(const Op& op, State* state) {
  for (const auto& [k, v] : op.changes) {
    if (v) {
      (*state)[k] = *v;
    } else {
      state->erase(k);
    }
  }
}

// With sync durability every acknowledged write survives a power cut; the
// operation in flight when the power went is there whole or not at all.
// Two clients on disjoint keys, three cuts at random moments, each cycle
// recovering what the previous one left.
TEST_F(ReliabilityTest, SyncWritesSurvivePowerCuts) {
  options_.sync_writes = true;
  std::mt19937_64 rng(testing::TestSeed("ReliabilityTest.SyncWritesSurvivePowerCuts"));
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  State acknowledged;  // what the last cycle left
  int64_t acked_ops = 0;
  constexpr int kClients = 2;
  auto owner = [](const Key& k) { return k.vehicle[4] - '0'; };  // "VEH#<client>-..."
  for (int cycle = 0; cycle < 3; ++cycle) {
    // Each client's keys: the state it starts from, then each acknowledged
    // op applied; and the op the power cut caught.
    std::vector<State> mine(kClients);
    for (const auto& [k, v] : acknowledged) mine[owner(k)][k] = v;
    std::vector<Op> in_flight(kClients);
    std::vector<std::vector<Op>> history(kClients);
    std::atomic<int64_t> acked_now{0};
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c, seed = rng()] {
        std::mt19937_64 r(seed);
        std::vector<Key> keys;
        for (int v = 0; v < 3; ++v) {
          for (int i = 0; i < 12; ++i) {
            keys.push_back(
                {"VEH#" + std::to_string(c) + "-" + std::to_string(v), "TS#" + std::to_string(i)});
          }
        }
        for (int serial = 0;; ++serial) {
          Op op;
          Status s = RunRandomOp(db_.get(), r, keys, serial, &op);
          if (!s.ok()) {
            ASSERT_EQ(s.code(), Status::Code::kIOError) << s;
            in_flight[c] = std::move(op);
            return;  // the power is off
          }
          Apply(op, &mine[c]);
          history[c].push_back(op);
          ++acked_now;
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 300));
    fs_->CutPower();
    for (auto& t : clients) t.join();
    AfterPowerCut(&rng);
    acked_ops += acked_now;
    Open();
    const State after = ReadAll(db_.get());
    std::vector<State> found(kClients);
    for (const auto& [k, v] : after) found[owner(k)][k] = v;
    for (int c = 0; c < kClients; ++c) {
      State whole = mine[c];
      Apply(in_flight[c], &whole);
      EXPECT_TRUE(found[c] == mine[c] || found[c] == whole)
          << "cycle " << cycle << ", client " << c << ": " << found[c].size()
          << " items after the cut, " << mine[c].size() << " acknowledged\n"
          << Diff(found[c], mine[c], whole) << Ops(history[c], in_flight[c]);
    }
    ExpectConsistent(db_.get(), after);
    acknowledged = after;
  }
  EXPECT_GT(acked_ops, 30);
  EXPECT_GT(fs_->injected(), 0u);
  std::cout << acked_ops << " operations acknowledged across 3 power cuts, none lost\n";
}

}  // namespace
}  // namespace dynarock

namespace dynarock {
namespace {

// With relaxed durability a power cut may lose the last writes, but what
// survives is a prefix of the acknowledged writes: never a later write
// without an earlier one. One client writes readings 0, 1, 2, ... (each a
// new item, its index entries and counters); after the cut the readings
// present must be 0..k-1 for some k, and consistent.
TEST_F(ReliabilityTest, RelaxedWritesSurvivePowerCutsAsAPrefix) {
  options_.sync_writes = false;
  std::mt19937_64 rng(testing::TestSeed("ReliabilityTest.RelaxedWritesSurvivePowerCutsAsAPrefix"));
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  int next = 0;  // the first reading not yet known to be there
  int64_t lost = 0;
  for (int cycle = 0; cycle < 3; ++cycle) {
    std::atomic<int> acknowledged{next};
    std::thread client([&] {
      for (int i = next;; ++i) {
        Status s = PutReading(i);
        if (!s.ok()) {
          ASSERT_EQ(s.code(), Status::Code::kIOError) << s;
          return;
        }
        acknowledged = i + 1;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 300));
    fs_->CutPower();
    client.join();
    AfterPowerCut(&rng);
    Open();
    const State after = ReadAll(db_.get());
    const std::set<int> present = ReadingNumbers(after);
    const int survivors = static_cast<int>(present.size());
    ASSERT_GE(survivors, 1);
    // A prefix: 0 .. survivors-1, nothing after a gap.
    EXPECT_EQ(*present.begin(), 0);
    EXPECT_EQ(*present.rbegin(), survivors - 1) << "cycle " << cycle << ": a gap";
    EXPECT_LE(survivors, acknowledged.load() + 1);  // at most the write in flight beyond
    EXPECT_GE(survivors, next) << "writes that survived an earlier cut were lost";
    lost += acknowledged.load() - std::min(survivors, acknowledged.load());
    ExpectConsistent(db_.get(), after);
    next = survivors;
  }
  std::cout << next << " readings survived 3 power cuts as a prefix; " << lost
            << " acknowledged relaxed writes were lost to the cuts\n";
}

// The newest write-ahead log of the database in `dir` (RocksDB numbers them).
std::string NewestLog(const std::string& dir) {
  std::string newest;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".log") && name > std::filesystem::path(newest).filename().string()) {
      newest = entry.path().string();
    }
  }
  return newest;
}

// Under relaxed durability RocksDB starts a new log when a memtable fills,
// and syncs the old one only when the flush that follows begins. The page
// cache may write the files back in any order, so a power cut in between can
// keep the new log's writes and lose the old one's tail: later writes
// without earlier ones. (The CI run of RelaxedWritesSurvivePowerCutsAsAPrefix
// on a loaded machine saw exactly such a gap.) Here the background sync is
// slowed, so the cut always falls in that window, and the cut keeps the new
// log whole.
TEST_F(ReliabilityTest, ALogSwitchKeepsRelaxedWritesAPrefix) {
  options_.sync_writes = false;
  fs_->DelaySyncs(std::chrono::milliseconds(500), ".log");
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  const std::string first_log = NewestLog(dir_);
  int written = 0;
  while (NewestLog(dir_) == first_log) {
    ASSERT_LT(written, 100000) << "no new log";
    ASSERT_OK(PutReading(written++));
  }
  const int before_switch = written;
  for (int i = 0; i < 3; ++i) ASSERT_OK(PutReading(written++));
  const std::string new_log = NewestLog(dir_);
  fs_->CutPower();
  db_.reset();
  ASSERT_TRUE(fs_->DropUnsyncedKeepingWhole(new_log).ok());
  fs_->ClearFaults();
  Open();
  const State after = ReadAll(db_.get());
  const std::set<int> present = ReadingNumbers(after);
  ASSERT_FALSE(present.empty());
  EXPECT_EQ(*present.begin(), 0) << before_switch << " writes before the new log, " << written
                                 << " in all; " << present.size() << " survived";
  EXPECT_EQ(*present.rbegin(), static_cast<int>(present.size()) - 1) << "a gap";
  // The earlier log was synced before the new one took a write, and the cut
  // kept the new one whole: nothing is lost.
  EXPECT_EQ(static_cast<int>(present.size()), written);
  ExpectConsistent(db_.get(), after);
}

// The same order across a restart: a process that stopped without a clean
// close (here: closed while no table file can be written, so the close's
// flush fails; its relaxed writes are still in the page cache) leaves a log
// that the next Open replays; the writes after the Open go to a new log,
// and a power cut must not keep those and lose the replayed ones.
TEST_F(ReliabilityTest, WritesAfterAReopenNeverOutliveTheReplayedOnes) {
  options_.sync_writes = false;
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  int written = 0;
  for (; written < 20; ++written) ASSERT_OK(PutReading(written));
  // The process stops and starts again; the power stays on.
  fs_->FailAt(FaultFs::Op::kAppend, 1, rocksdb::IOStatus::IOError("no space"), /*sticky=*/true,
              ".sst");
  db_.reset();
  ASSERT_GT(fs_->injected(), 0u) << "the close flushed: nothing left to replay";
  fs_->ClearFaults();
  Open();
  const std::string new_log = NewestLog(dir_);
  for (int i = 0; i < 3; ++i) ASSERT_OK(PutReading(written++));
  ASSERT_EQ(NewestLog(dir_), new_log);
  fs_->CutPower();
  db_.reset();
  ASSERT_TRUE(fs_->DropUnsyncedKeepingWhole(new_log).ok());
  Open();
  const State after = ReadAll(db_.get());
  const std::set<int> present = ReadingNumbers(after);
  ASSERT_FALSE(present.empty());
  EXPECT_EQ(*present.begin(), 0) << present.size() << " of " << written << " survived";
  EXPECT_EQ(*present.rbegin(), static_cast<int>(present.size()) - 1) << "a gap";
  EXPECT_EQ(static_cast<int>(present.size()), written);
  ExpectConsistent(db_.get(), after);
}

// A clean close flushes what the log holds, so the next Open has no log to
// replay (bench/: a reopen right after a load), and loses nothing.
TEST_F(ReliabilityTest, ACleanCloseLeavesNoLogToReplay) {
  options_.sync_writes = false;
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  for (int i = 0; i < 200; ++i) ASSERT_OK(PutReading(i));
  db_.reset();
  uint64_t log_bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    if (entry.path().extension() == ".log") log_bytes += entry.file_size();
  }
  EXPECT_EQ(log_bytes, 0u);
  Open();
  const std::set<int> present = ReadingNumbers(ReadAll(db_.get()));
  EXPECT_EQ(present.size(), 200u);
}

// Reads failing at random: every call either answers exactly what the model
// holds or returns IOError; a write that fails changes nothing. The table
// is on disk (compacted) and the cache tiny, so reads reach the files.
TEST_F(ReliabilityTest, ReadErrorsSurfaceAndNeverGiveAWrongAnswer) {
  std::mt19937_64 rng(
      testing::TestSeed("ReliabilityTest.ReadErrorsSurfaceAndNeverGiveAWrongAnswer"));
  options_.block_cache_bytes = 0;
  // No flush or compaction while reads fail: a compaction that meets an
  // injected read error is a background error, which stops writes until a
  // restart (FullDiskDuringFlushIsReportedAndLosesNothing covers that). Here the
  // foreground reads are under test, so memtables large enough to take the
  // faulty phase's writes.
  options_.write_buffer_bytes = 64 << 20;
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  State model;
  for (int i = 0; i < 300; ++i) {
    Key k{"VEH#" + std::to_string(i % 6), "TS#" + std::to_string(i)};
    std::string v = "v" + std::to_string(i) + std::string(i % 50, 'x');
    ASSERT_OK(db_->PutItem({.table_name = kTable, .item = FullItem(k, v)}));
    model[k] = v;
  }
  ASSERT_OK(db_->Compact());
  Open();  // empty memtables: everything is read from SST files
  fs_->FailWithProbability(FaultFs::Op::kRead, 0.15, rocksdb::IOStatus::IOError("injected EIO"),
                           rng(), ".sst");
  int errors = 0, answers = 0, failed_writes = 0;
  for (int round = 0; round < 400; ++round) {
    auto it = model.begin();
    std::advance(it, static_cast<long>(rng() % model.size()));
    const Key k = it->first;
    switch (rng() % 4) {
      case 0: {
        auto got = db_->GetItem({.table_name = kTable, .key = KeyItem(k)});
        if (!got.ok()) {
          ASSERT_EQ(got.status().code(), Status::Code::kIOError) << got.status();
          ++errors;
          break;
        }
        ASSERT_TRUE(got->item.has_value());
        EXPECT_EQ(got->item->at("v").s(), model.at(k));
        ++answers;
        break;
      }
      case 1: {
        QueryRequest q{.table_name = kTable};
        q.key_condition_expression = "vehicleId = :v";
        q.expression_attribute_values = std::map<std::string, AttributeValue>{{":v", S(k.vehicle)}};
        auto got = db_->Query(q);
        if (!got.ok()) {
          ASSERT_EQ(got.status().code(), Status::Code::kIOError) << got.status();
          ++errors;
          break;
        }
        size_t expected = 0;
        for (const auto& [mk, mv] : model) expected += mk.vehicle == k.vehicle;
        EXPECT_EQ(got->items.size(), expected);
        for (const auto& item : got->items) {
          EXPECT_EQ(item.at("v").s(),
                    model.at({item.at("vehicleId").s(), item.at("recordedAt").s()}));
        }
        ++answers;
        break;
      }
      case 2: {
        auto got = db_->DescribeTable({kTable});
        if (!got.ok()) {
          ASSERT_EQ(got.status().code(), Status::Code::kIOError) << got.status();
          ++errors;
          break;
        }
        EXPECT_EQ(got->table.item_count, static_cast<int64_t>(model.size()));
        ++answers;
        break;
      }
      default: {
        // A new reading in an existing collection: the write reads the old
        // item (absent) and, on this LSI table, the collection's counter.
        Key fresh{k.vehicle, "NEW#" + std::to_string(round)};
        std::string v = "n" + std::to_string(round);
        auto put = db_->PutItem({.table_name = kTable, .item = FullItem(fresh, v)});
        if (!put.ok()) {
          ASSERT_EQ(put.status().code(), Status::Code::kIOError) << put.status();
          ++failed_writes;
          break;
        }
        model[fresh] = v;
        ++answers;
      }
    }
  }
  fs_->ClearFaults();
  EXPECT_GT(errors + failed_writes, 20);
  EXPECT_GT(answers, 100);
  EXPECT_EQ(ReadAll(db_.get()), model);  // failed writes changed nothing
  ExpectConsistent(db_.get(), model);
  Open();
  EXPECT_EQ(ReadAll(db_.get()), model);
  std::cout << answers << " right answers, " << errors << " read errors and " << failed_writes
            << " failed writes; no wrong answer\n";
}

// Regression (review of issue 19): a collection counter that could not be
// read was taken as zero, and on an LSI table written back as the
// collection's whole counter, resetting its size under the 10 GB limit. The
// new item's own key is absent (its bloom filter answers without a read), so
// the only file read of the write is the counter's.
TEST_F(ReliabilityTest, UnreadableCollectionCounterFailsTheWrite) {
  options_.block_cache_bytes = 0;
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(db_->PutItem(
        {.table_name = kTable, .item = FullItem({"VEH#1", "TS#" + std::to_string(i)}, "v")}));
  }
  ASSERT_OK(db_->Compact());
  Open();
  auto before = db_->LargestCollections(kTable, 1);
  ASSERT_OK(before);
  ASSERT_EQ(before->size(), 1u);
  ASSERT_EQ((*before)[0].item_count, 50);

  fs_->FailAt(FaultFs::Op::kRead, 1, rocksdb::IOStatus::IOError("injected EIO"), /*sticky=*/true,
              ".sst");
  auto put = db_->PutItem({.table_name = kTable, .item = FullItem({"VEH#1", "TS#new"}, "v")});
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.status().code(), Status::Code::kIOError) << put.status();
  fs_->ClearFaults();

  auto after = db_->LargestCollections(kTable, 1);
  ASSERT_OK(after);
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].item_count, 50);
  EXPECT_EQ((*after)[0].size_bytes, (*before)[0].size_bytes);
  State model;
  for (int i = 0; i < 50; ++i) model[{"VEH#1", "TS#" + std::to_string(i)}] = "v";
  ExpectConsistent(db_.get(), model);
}

// A full disk during a flush: the background error is caught and reported
// (Health, GET / with 500), every later write fails without changing
// anything, WaitForCompactions returns the error instead of waiting forever,
// and after the disk has room again a reopen finds every acknowledged write.
TEST_F(ReliabilityTest, FullDiskDuringFlushIsReportedAndLosesNothing) {
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  EXPECT_OK(db_->Health());
  EXPECT_EQ(wire::HealthResponse(db_.get(), "localhost:8000").http_status, 200);
  fs_->FailAt(FaultFs::Op::kAppend, 1, rocksdb::IOStatus::NoSpace("injected ENOSPC"),
              /*sticky=*/true, ".sst");
  State model;
  Status failed;
  for (int i = 0; i < 5000 && failed.ok(); ++i) {
    Key k{"VEH#" + std::to_string(i % 7), "TS#" + std::to_string(i)};
    std::string v = "v" + std::to_string(i) + std::string(100, 'x');
    failed = db_->PutItem({.table_name = kTable, .item = FullItem(k, v)}).status();
    if (failed.ok()) model[k] = v;
    // The flush runs in the background: give it a moment to fail.
    if (i % 500 == 499) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(failed.ok()) << "no write failed although every flush does";
  EXPECT_EQ(failed.code(), Status::Code::kIOError) << failed;
  Status health = db_->Health();
  EXPECT_EQ(health.code(), Status::Code::kIOError) << health;
  EXPECT_NE(health.message().find("injected ENOSPC"), std::string::npos) << health;
  auto page = wire::HealthResponse(db_.get(), "localhost:8000");
  EXPECT_EQ(page.http_status, 500);
  EXPECT_NE(page.body.find("injected ENOSPC"), std::string::npos) << page.body;
  // Later writes are refused, over the wire as InternalServerError (500).
  auto more = db_->PutItem({.table_name = kTable, .item = FullItem({"VEH#9", "TS#x"}, "x")});
  EXPECT_FALSE(more.ok());
  auto response = wire::Handle(
      db_.get(), "DynamoDB_20120810.PutItem",
      R"({"TableName":"Fleet","Item":{"vehicleId":{"S":"VEH#9"},"recordedAt":{"S":"TS#y"}}})");
  EXPECT_EQ(response.http_status, 500) << response.body;
  EXPECT_NE(response.body.find("InternalServerError"), std::string::npos) << response.body;
  const auto started = std::chrono::steady_clock::now();
  Status waited = db_->WaitForCompactions();
  EXPECT_FALSE(waited.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  // Reads still answer.
  EXPECT_EQ(ReadAll(db_.get()), model);

  fs_->ClearFaults();
  Open();
  EXPECT_OK(db_->Health());
  EXPECT_EQ(ReadAll(db_.get()), model);
  ExpectConsistent(db_.get(), model);
  EXPECT_EQ(wire::HealthResponse(db_.get(), "localhost:8000").http_status, 200);
}

// Reads failing over the wire: InternalServerError with HTTP 500, never an
// empty answer.
TEST_F(ReliabilityTest, ReadErrorIsAnInternalServerErrorOnTheWire) {
  options_.block_cache_bytes = 0;
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  ASSERT_OK(db_->PutItem({.table_name = kTable, .item = FullItem({"VEH#1", "TS#1"}, "v")}));
  ASSERT_OK(db_->Compact());
  Open();
  fs_->FailAt(FaultFs::Op::kRead, 1, rocksdb::IOStatus::IOError("injected EIO"), true, ".sst");
  auto r = wire::Handle(db_.get(), "DynamoDB_20120810.GetItem",
                        R"({"TableName":"Fleet","Key":{"vehicleId":{"S":"VEH#1"},)"
                        R"("recordedAt":{"S":"TS#1"}}})");
  EXPECT_EQ(r.http_status, 500) << r.body;
  EXPECT_NE(r.body.find("com.amazonaws.dynamodb.v20120810#InternalServerError"), std::string::npos)
      << r.body;
  EXPECT_EQ(r.body.find("\"Item\""), std::string::npos) << r.body;
  fs_->ClearFaults();
  r = wire::Handle(db_.get(), "DynamoDB_20120810.GetItem",
                   R"({"TableName":"Fleet","Key":{"vehicleId":{"S":"VEH#1"},)"
                   R"("recordedAt":{"S":"TS#1"}}})");
  EXPECT_EQ(r.http_status, 200) << r.body;
  EXPECT_NE(r.body.find("\"Item\""), std::string::npos) << r.body;
}

}  // namespace
}  // namespace dynarock

namespace dynarock {
namespace {

// ClientRequestToken records persist with the transaction: a retry after a
// restart returns success without applying it again (even though the item
// changed since), another request with the token is a mismatch, and after
// DynamoDB's 10 minutes the token is free again and its record is dropped
// by compaction.
class TokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    options_.clock_ms = [this] { return now_ms_.load(); };
    options_.ttl_sweep_interval_ms = 0;
    Open();
    ASSERT_OK(db_->CreateTable(FleetTable()));
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    db_.reset();
    auto db = Database::Open(dir_, options_);
    ASSERT_OK(db);
    db_ = std::move(db).value();
  }
  TransactWriteItemsRequest Transaction(const std::string& v) {
    TransactWriteItemsRequest t;
    TransactWriteItem put;
    put.put = TransactPut{.table_name = kTable, .item = FullItem({"VEH#1", "TS#1"}, v)};
    t.transact_items = {put};
    t.client_request_token = "retry-me";
    return t;
  }
  std::string Value() {
    auto got = db_->GetItem({.table_name = kTable, .key = KeyItem({"VEH#1", "TS#1"})});
    EXPECT_OK(got);
    return got.ok() && got->item ? got->item->at("v").s() : "(none)";
  }
  // The records in the tokens column family, read with RocksDB alone.
  size_t TokenRecords() {
    db_.reset();
    size_t n = testing::RawDb(dir_, /*read_only=*/true).Count("tokens");
    Open();
    return n;
  }

  std::string dir_;
  Options options_;
  std::atomic<int64_t> now_ms_{1'800'000'000'000};
  std::unique_ptr<Database> db_;
};

TEST_F(TokenTest, ARetryAfterARestartIsNotAppliedAgain) {
  ASSERT_OK(db_->TransactWriteItems(Transaction("first")));
  EXPECT_EQ(Value(), "first");
  ASSERT_OK(db_->PutItem({.table_name = kTable, .item = FullItem({"VEH#1", "TS#1"}, "later")}));
  Open();  // a restart: nothing of the token is left in memory
  auto retry = Transaction("first");
  retry.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto replayed = db_->TransactWriteItems(retry);
  ASSERT_OK(replayed);
  EXPECT_EQ(Value(), "later");  // not applied a second time
  // As DynamoDB documents it: the retry reports reading the item, not writing it.
  ASSERT_EQ(replayed->consumed_capacity.size(), 1u);
  EXPECT_EQ(replayed->consumed_capacity[0].capacity_units, 1.0);
  EXPECT_EQ(TokenRecords(), 1u);

  auto other = db_->TransactWriteItems(Transaction("other"));
  EXPECT_EQ(other.status().code(), Status::Code::kIdempotentParameterMismatch) << other.status();
  EXPECT_EQ(Value(), "later");

  // Ten minutes on, the token is free: the same request applies again.
  now_ms_ += tokens::kLifetimeMs;
  ASSERT_OK(db_->TransactWriteItems(Transaction("first")));
  EXPECT_EQ(Value(), "first");
  // Its new record expires too, and compaction drops both.
  now_ms_ += tokens::kLifetimeMs;
  ASSERT_OK(db_->Compact());
  EXPECT_EQ(TokenRecords(), 0u);
}

// A cancelled transaction leaves no record: the client may retry it (with
// the same token) once the condition holds.
TEST_F(TokenTest, ACancelledTransactionDoesNotTakeTheToken) {
  auto t = Transaction("first");
  t.transact_items[0].put->condition_expression = "attribute_exists(v)";
  auto cancelled = db_->TransactWriteItems(t);
  EXPECT_EQ(cancelled.status().code(), Status::Code::kTransactionCanceled) << cancelled.status();
  EXPECT_EQ(TokenRecords(), 0u);
  ASSERT_OK(db_->PutItem({.table_name = kTable, .item = FullItem({"VEH#1", "TS#1"}, "seed")}));
  ASSERT_OK(db_->TransactWriteItems(t));
  EXPECT_EQ(Value(), "first");
  EXPECT_EQ(TokenRecords(), 1u);
}

}  // namespace
}  // namespace dynarock

namespace dynarock {
namespace {

// A GSI backfill that hits a read error fails that index only: the table
// keeps serving, the index stays CREATING, WaitForBackfills reports the
// error, and a reopen resumes the backfill from its saved cursor and it
// completes exactly.
TEST_F(ReliabilityTest, AFailedBackfillFailsOnlyItsIndex) {
  options_.block_cache_bytes = 0;
  options_.backfill_batch_items = 20;
  Open();
  ASSERT_OK(db_->CreateTable(FleetTable()));
  State model;
  for (int i = 0; i < 400; ++i) {
    Key k{"VEH#" + std::to_string(i % 9), "TS#" + std::to_string(i)};
    model[k] = "v" + std::to_string(i);
    ASSERT_OK(db_->PutItem({.table_name = kTable, .item = FullItem(k, model[k])}));
  }
  ASSERT_OK(db_->Compact());
  Open();
  UpdateTableRequest u{.table_name = kTable};
  u.attribute_definitions = std::vector<AttributeDefinition>{{"vehicleId", T::kS},
                                                             {"recordedAt", T::kS},
                                                             {"depotCode", T::kS},
                                                             {"speedKph", T::kN},
                                                             {"v", T::kS}};
  u.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{
      {.create = CreateGlobalSecondaryIndexAction{
           "ByValue", {{"v", KeyType::kHash}}, {ProjectionType::kKeysOnly, {}}}}};
  // The backfill's 5th block read fails (one bad read: the disk is good
  // again after it, so the rest of the table answers).
  fs_->FailAt(FaultFs::Op::kRead, 5, rocksdb::IOStatus::IOError("injected EIO"), false, ".sst");
  ASSERT_OK(db_->UpdateTable(u));
  Status waited = db_->WaitForBackfills();
  EXPECT_EQ(waited.code(), Status::Code::kIOError) << waited;
  auto d = db_->DescribeTable({kTable});
  ASSERT_OK(d);
  for (const auto& g : *d->table.global_secondary_indexes) {
    EXPECT_EQ(g.index_status,
              g.index_name == "ByValue" ? IndexStatus::kCreating : IndexStatus::kActive)
        << g.index_name;
  }
  // Writes to the table go on (new keys: their reads are bloom misses).
  Key fresh{"VEH#new", "TS#new"};
  model[fresh] = "fresh";
  ASSERT_OK(db_->PutItem({.table_name = kTable, .item = FullItem(fresh, "fresh")}));
  fs_->ClearFaults();
  Open();  // resumes the backfill at its cursor
  ASSERT_OK(db_->WaitForBackfills());
  ScanRequest s{.table_name = kTable};
  s.index_name = "ByValue";
  s.select = Select::kCount;
  auto page = db_->Scan(s);
  ASSERT_OK(page);
  EXPECT_EQ(page->count, static_cast<int32_t>(model.size()));
  EXPECT_EQ(ReadAll(db_.get()), model);
  ExpectConsistent(db_.get(), model);
}

}  // namespace
}  // namespace dynarock
