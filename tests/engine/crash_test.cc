// Crash test: a child process writes with sync on and reports each
// acknowledged write; the parent kills it with SIGKILL at a random moment,
// reopens the database and checks that every acknowledged write is there
// (the one in flight may or may not be) and that statistics agree with the
// data. Several cycles, each recovering what the previous one left.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "dynarock/db.h"
#include "format/item_size.h"
#include "tests/util/db_fixture.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

extern char** environ;

namespace dynarock {
namespace {

struct Write {
  std::string key;
  std::optional<std::string> value;  // nullopt: delete
};

// A stream record as the test predicts it: key, event, old and new values.
struct Change {
  std::string key;
  StreamEventName event;
  std::string old_value, new_value;  // "" where the image has none
  bool operator==(const Change&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Change& c) {
  return os << c.key << " " << static_cast<int>(c.event) << " " << c.old_value.substr(0, 12)
            << " -> " << c.new_value.substr(0, 12);
}
// The record `w` makes on `state`, if any (a delete of nothing has none).
std::optional<Change> ChangeOf(const std::map<std::string, std::string>& state, const Write& w) {
  auto old = state.find(w.key);
  if (!w.value) {
    if (old == state.end()) return std::nullopt;
    return Change{w.key, StreamEventName::kRemove, old->second, ""};
  }
  if (old == state.end()) return Change{w.key, StreamEventName::kInsert, "", *w.value};
  return Change{w.key, StreamEventName::kModify, old->second, *w.value};
}

// Starts crash_writer on `dir` with `seed` (and a mode, or "" for the
// plain writer); returns its stdout to read line by line, or null.
FILE* SpawnWriter(const std::string& dir, uint64_t seed, std::string mode, pid_t* pid) {
  int out[2];
  if (pipe(out) != 0) return nullptr;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::string path = CRASH_WRITER_PATH, dir_arg = dir, seed_arg = std::to_string(seed);
  char* argv[] = {path.data(), dir_arg.data(), seed_arg.data(),
                  mode.empty() ? nullptr : mode.data(), nullptr};
  const int spawned = posix_spawn(pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    return nullptr;
  }
  return fdopen(out[0], "r");
}

// Reads the writer's output line by line to its end, handing each line to
// `on_line`; the first time on_line returns true the writer is killed with
// SIGKILL (what it printed before dying is still read). Then reaps it: it
// must have died by the signal. Closes `in`.
void ReadUntilKilled(FILE* in, pid_t pid, const std::function<bool(const std::string&)>& on_line) {
  char* line = nullptr;
  size_t cap = 0;
  bool killed = false;
  while (getline(&line, &cap, in) > 0) {
    if (on_line(line) && !killed) {
      kill(pid, SIGKILL);
      killed = true;
    }
  }
  free(line);
  fclose(in);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited by itself: " << status;
}

TEST(CrashTest, AcknowledgedWritesSurviveSigkill) {
  std::mt19937_64 rng(testing::TestSeed("CrashTest.AcknowledgedWritesSurviveSigkill"));
  std::string dir = testing::MakeTempDir();
  std::map<std::string, std::string> expected;  // key -> value, absent = deleted/never written
  std::vector<Change> changes;                  // every committed change, in order: the stream
  constexpr int kCycles = 5;
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    pid_t pid;
    FILE* in = SpawnWriter(dir, rng(), "", &pid);
    ASSERT_NE(in, nullptr);

    // Let it acknowledge a random number of writes, then kill it mid-stream.
    const int kill_after = 20 + static_cast<int>(rng() % 300);
    int acked = 0;
    std::optional<Write> in_flight;
    auto apply = [&](const Write& w) {
      if (auto c = ChangeOf(expected, w)) changes.push_back(*c);
      if (w.value) {
        expected[w.key] = *w.value;
      } else {
        expected.erase(w.key);
      }
    };
    ReadUntilKilled(in, pid, [&](const std::string& l) {
      if (l.rfind("B ", 0) == 0) {
        std::istringstream s(l.substr(2));
        std::string op, pk, sk, value;
        s >> op >> pk >> sk >> value;
        in_flight = Write{pk + " " + sk, op == "P" ? std::optional(value) : std::nullopt};
      } else if (l == "A\n") {
        EXPECT_TRUE(in_flight.has_value());
        if (in_flight) apply(*in_flight);
        in_flight.reset();
        return ++acked == kill_after;
      }
      return false;
    });
    if (HasFatalFailure()) return;
    ASSERT_GE(acked, kill_after);

    auto db = Database::Open(dir, {});
    ASSERT_OK(db);
    auto scan = (*db)->Scan({.table_name = "Crash"});
    ASSERT_OK(scan);
    ASSERT_FALSE(scan->last_evaluated_key.has_value());
    std::map<std::string, std::string> found;
    int64_t bytes = 0;
    for (const auto& item : scan->items) {
      found[item.at("pk").s() + " " + item.at("sk").n().ToString()] = item.at("v").s();
      bytes += static_cast<int64_t>(format::ItemSize(item));
    }
    // The write in flight at the kill may have landed or not; nothing else may differ.
    if (in_flight) {
      std::map<std::string, std::string> with_it = expected;
      if (in_flight->value) {
        with_it[in_flight->key] = *in_flight->value;
      } else {
        with_it.erase(in_flight->key);
      }
      ASSERT_TRUE(found == expected || found == with_it) << "cycle " << cycle;
      if (found == with_it && found != expected) {
        if (auto c = ChangeOf(expected, *in_flight)) changes.push_back(*c);
      }
      expected = found;
    } else {
      ASSERT_EQ(found, expected) << "cycle " << cycle;
    }
    auto d = (*db)->DescribeTable({"Crash"});
    ASSERT_OK(d);
    EXPECT_EQ(d->table.item_count, scan->count) << "cycle " << cycle;
    EXPECT_EQ(d->table.table_size_bytes, bytes) << "cycle " << cycle;

    // Indexes and collection counters agree with the table after the crash.
    std::multiset<std::string> gsi_expected, lsi_expected, gsi_got, lsi_got;
    std::map<std::string, int64_t> collection_items;
    for (const auto& item : scan->items) {
      std::string id = item.at("pk").s() + " " + item.at("sk").n().ToString();
      if (item.count("depot")) gsi_expected.insert(item.at("depot").s() + "|" + id + "|" + item.at("v").s());
      if (item.count("speed")) lsi_expected.insert(item.at("speed").n().ToString() + "|" + id);
      ++collection_items[item.at("pk").s()];
    }
    auto gsi = (*db)->Scan({.table_name = "Crash", .index_name = "ByDepot"});
    ASSERT_OK(gsi);
    for (const auto& e : gsi->items) {
      gsi_got.insert(e.at("depot").s() + "|" + e.at("pk").s() + " " + e.at("sk").n().ToString() + "|" + e.at("v").s());
    }
    auto lsi = (*db)->Scan({.table_name = "Crash", .index_name = "BySpeed"});
    ASSERT_OK(lsi);
    for (const auto& e : lsi->items) {
      lsi_got.insert(e.at("speed").n().ToString() + "|" + e.at("pk").s() + " " + e.at("sk").n().ToString());
    }
    EXPECT_EQ(gsi_got, gsi_expected) << "cycle " << cycle;
    EXPECT_EQ(lsi_got, lsi_expected) << "cycle " << cycle;
    auto top = (*db)->LargestCollections("Crash", 1000);
    ASSERT_OK(top);
    std::map<std::string, int64_t> counted;
    for (const auto& c : *top) counted[c.key.at("pk").s()] = c.item_count;
    EXPECT_EQ(counted, collection_items) << "cycle " << cycle;
    EXPECT_EQ((*d->table.global_secondary_indexes)[0].item_count, static_cast<int64_t>(gsi_expected.size()));

    // The stream: exactly one record per committed change, in commit order,
    // none for the write the kill cut short if it did not land, across every
    // restart (and the shard each restart rolls).
    auto records = (*db)->ReadStream(*d->table.latest_stream_arn, "", 1 << 20);
    ASSERT_OK(records);
    std::vector<Change> got;
    for (const auto& r : *records) {
      const std::string key = r.keys.at("pk").s() + " " + r.keys.at("sk").n().ToString();
      got.push_back({key, r.event_name, r.old_image ? r.old_image->at("v").s() : "",
                     r.new_image ? r.new_image->at("v").s() : ""});
    }
    ASSERT_EQ(got.size(), changes.size()) << "cycle " << cycle;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], changes[i]) << "record " << i;
    std::printf("cycle %d: %d writes acknowledged, %zu stream records checked\n", cycle, acked,
                got.size());
  }
  std::filesystem::remove_all(dir);
}

// Transactions across a SIGKILL: each transfer is wholly applied or wholly
// absent, so the total stays constant, no balance is negative, the GSI agrees
// with the table account by account, and the statistics need no correction.
TEST(CrashTest, TransactionsAreAllOrNothingAcrossSigkill) {
  std::mt19937_64 rng(testing::TestSeed("CrashTest.TransactionsAreAllOrNothingAcrossSigkill"));
  std::string dir = testing::MakeTempDir();
  for (int cycle = 0; cycle < 4; ++cycle) {
    pid_t pid;
    FILE* in = SpawnWriter(dir, rng(), "bank", &pid);
    ASSERT_NE(in, nullptr);
    const int kill_after = 10 + static_cast<int>(rng() % 200);
    int done = 0;
    ReadUntilKilled(in, pid,
                    [&](const std::string& l) { return l == "A\n" && ++done == kill_after; });
    if (HasFatalFailure()) return;

    auto db = Database::Open(dir, {});
    ASSERT_OK(db);
    auto table = (*db)->Scan({.table_name = "Bank"});
    ASSERT_OK(table);
    ASSERT_EQ(table->count, 10);
    int64_t total = 0;
    std::map<std::string, std::string> balances;
    for (const auto& item : table->items) {
      int64_t b = std::stoll(item.at("balance").n().ToString());
      EXPECT_GE(b, 0);
      total += b;
      balances[item.at("id").s()] = item.at("balance").n().ToString() + "/" + item.at("branch").s();
    }
    EXPECT_EQ(total, 10000) << "cycle " << cycle;
    auto index = (*db)->Scan({.table_name = "Bank", .index_name = "ByBranch"});
    ASSERT_OK(index);
    std::map<std::string, std::string> indexed;
    for (const auto& item : index->items) {
      indexed[item.at("id").s()] = item.at("balance").n().ToString() + "/" + item.at("branch").s();
    }
    EXPECT_EQ(indexed, balances) << "cycle " << cycle;
    auto report = (*db)->RecountStatistics();
    ASSERT_OK(report);
    EXPECT_EQ(report->collections_corrected, 0) << "cycle " << cycle;
    EXPECT_EQ(report->table_totals_corrected, 0) << "cycle " << cycle;
    EXPECT_EQ(report->index_totals_corrected, 0) << "cycle " << cycle;
  }
  std::filesystem::remove_all(dir);
}

// A SIGKILL while a multi-attribute GSI is being backfilled (and puts go on
// beside it): the next Open resumes the backfill from its saved cursor, and
// once it completes the index holds exactly the acknowledged items that have
// every component, with exact totals.
TEST(CrashTest, BackfillOfAMultiAttributeGsiSurvivesSigkill) {
  std::mt19937_64 rng(testing::TestSeed("CrashTest.BackfillOfAMultiAttributeGsiSurvivesSigkill"));
  std::string dir = testing::MakeTempDir();
  // id -> "h1 h2 r1 r2" as last acknowledged.
  std::map<std::string, std::string> acknowledged;
  for (int cycle = 0; cycle < 3; ++cycle) {
    pid_t pid;
    FILE* in = SpawnWriter(dir, rng(), "backfill", &pid);
    ASSERT_NE(in, nullptr);
    const int kill_after = 20 + static_cast<int>(rng() % 150);  // puts after READY
    int after_ready = -1;
    ReadUntilKilled(in, pid, [&](const std::string& line) {
      std::istringstream fields(line);
      std::string tag, id, h1, h2, r1, r2;
      fields >> tag;
      if (tag == "READY") after_ready = 0;
      if (tag != "A") return false;
      fields >> id >> h1 >> h2 >> r1 >> r2;
      acknowledged[id] = h1 + " " + h2 + " " + r1 + " " + r2;
      return after_ready >= 0 && ++after_ready == kill_after;
    });
    if (HasFatalFailure()) return;
  }
  auto db = Database::Open(dir, {});
  ASSERT_OK(db);
  ASSERT_OK((*db)->WaitForBackfills());
  // The table is the truth (a put in flight at the kill may have landed):
  // the index must be exactly what the table implies, and every
  // acknowledged state must be the table's unless that id was rewritten.
  auto table = (*db)->Scan({.table_name = "Matches"});
  ASSERT_OK(table);
  std::multiset<std::string> expected;
  for (const auto& item : table->items) {
    bool complete = true;
    for (const char* k : {"h1", "h2", "r1", "r2"}) complete = complete && item.count(k);
    if (!complete) continue;
    expected.insert(item.at("id").s() + " " + item.at("h1").s() + " " +
                    item.at("h2").n().ToString() + " " + item.at("r1").n().ToString() + " " +
                    item.at("r2").s());
  }
  // Every acknowledged item is there; a put in flight at each kill may
  // have added one more.
  std::set<std::string> ids;
  for (const auto& item : table->items) ids.insert(item.at("id").s());
  for (const auto& [id, state] : acknowledged) EXPECT_TRUE(ids.count(id)) << id;
  EXPECT_LE(ids.size(), acknowledged.size() + 3);
  ScanRequest scan{.table_name = "Matches", .index_name = "Composite"};
  std::multiset<std::string> indexed;
  while (true) {
    auto page = (*db)->Scan(scan);
    ASSERT_OK(page);
    for (const auto& item : page->items) {
      indexed.insert(item.at("id").s() + " " + item.at("h1").s() + " " +
                     item.at("h2").n().ToString() + " " + item.at("r1").n().ToString() + " " +
                     item.at("r2").s());
    }
    if (!page->last_evaluated_key) break;
    scan.exclusive_start_key = page->last_evaluated_key;
  }
  EXPECT_EQ(indexed, expected);
  EXPECT_GT(expected.size(), 100u);
  auto report = (*db)->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->index_totals_corrected, 0);
  EXPECT_EQ(report->table_totals_corrected, 0);
  db->reset();
  std::filesystem::remove_all(dir);
}

// SIGKILLs while writes change items with vectors and while a vector index
// added by UpdateTable is being backfilled: after each Open (and the
// resumed backfill) both vector indexes hold exactly the entries the table
// implies, with exact totals. The table is small enough for one search of
// TopK 100 (per tenant for the HASH index) to list a whole index.
TEST(CrashTest, VectorIndexesSurviveSigkillDuringWritesAndBackfill) {
  std::mt19937_64 rng(
      testing::TestSeed("CrashTest.VectorIndexesSurviveSigkillDuringWritesAndBackfill"));
  std::string dir = testing::MakeTempDir();
  auto number = [](double v) { return AttributeValue::N(*Number::Parse(std::to_string(v))); };
  for (int cycle = 0; cycle < 3; ++cycle) {
    pid_t pid;
    FILE* in = SpawnWriter(dir, rng(), "vectors", &pid);
    ASSERT_NE(in, nullptr);
    // Writes after READY: the first kill soon, while the backfill runs.
    const int kill_after = static_cast<int>(cycle == 0 ? 1 + rng() % 8 : 5 + rng() % 60);
    int after_ready = -1;
    ReadUntilKilled(in, pid, [&](const std::string& line) {
      if (line.rfind("READY", 0) == 0) after_ready = 0;
      return after_ready >= 0 && line.rfind("A", 0) == 0 && ++after_ready == kill_after;
    });
    if (HasFatalFailure()) return;

    auto db = Database::Open(dir, {});
    ASSERT_OK(db);
    ASSERT_OK((*db)->WaitForBackfills());
    auto table = (*db)->Scan({.table_name = "Vecs"});
    ASSERT_OK(table);
    // id -> tenant ("" without one), for the items with a vector.
    std::map<std::string, std::string> with_vector;
    for (const auto& item : table->items) {
      if (!item.count("embedding")) continue;
      with_vector[item.at("id").s()] = item.count("tenant") ? item.at("tenant").s() : "";
    }
    auto search = [&](const std::string& index, std::optional<std::string> tenant) {
      SearchVectorsRequest s{.table_name = "Vecs", .index_name = index, .top_k = 100};
      for (double x : {0.5, -1.0, 1.5, 2.0}) s.search_vector.push_back(number(x));
      if (tenant) {
        s.search_condition_expression = "tenant = :t";
        s.expression_attribute_values =
            ExpressionAttributeValues{{":t", AttributeValue::S(*tenant)}};
      }
      std::set<std::string> ids;
      auto found = (*db)->SearchVectors(s);
      EXPECT_TRUE(found.ok()) << found.status();
      if (found.ok()) {
        for (const auto& r : found->search_results) ids.insert(r.item.at("id").s());
      }
      return ids;
    };
    std::set<std::string> all;
    for (const auto& [id, tenant] : with_vector) all.insert(id);
    EXPECT_EQ(search("Added", std::nullopt), all) << "cycle " << cycle;
    for (const std::string tenant : {"t0", "t1", "t2"}) {
      std::set<std::string> expected;
      for (const auto& [id, t] : with_vector) {
        if (t == tenant) expected.insert(id);
      }
      EXPECT_EQ(search("Declared", tenant), expected) << "cycle " << cycle << " " << tenant;
    }
    auto report = (*db)->RecountStatistics();
    ASSERT_OK(report);
    EXPECT_EQ(report->index_totals_corrected, 0) << "cycle " << cycle;
    EXPECT_EQ(report->table_totals_corrected, 0) << "cycle " << cycle;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dynarock
