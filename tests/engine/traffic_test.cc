// The traffic structures against exact counts: Space-Saving's bounds on
// skewed random workloads, the sliding window's merge, and the token buckets
// behind --partition-limits.
#include "engine/traffic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"

namespace dynarock {
namespace {

// Zipf-like key choice: key i (0-based) with weight 1 / (i + 1)^s.
class Skewed {
 public:
  Skewed(size_t keys, double s, uint32_t seed) : rng_(seed) {
    std::vector<double> w(keys);
    for (size_t i = 0; i < keys; ++i) w[i] = 1.0 / std::pow(static_cast<double>(i + 1), s);
    dist_ = std::discrete_distribution<size_t>(w.begin(), w.end());
  }
  std::string Next() { return "VEH#V-" + std::to_string(dist_(rng_)); }
  double Units() { return units_(rng_) * 0.5; }  // 0.5 .. 5 units, as reads and writes cost

 private:
  std::mt19937 rng_;
  std::discrete_distribution<size_t> dist_;
  std::uniform_int_distribution<int> units_{1, 10};
};

TEST(HeavyHittersTest, BoundsHoldOnSkewedWorkloads) {
  for (const double s : {0.8, 1.1, 1.5}) {
    for (const uint32_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(::testing::Message() << "s=" << s << " seed=" << seed);
      HeavyHitters hh(64);
      Skewed workload(5000, s, seed);
      std::map<std::string, double> exact;
      double total = 0;
      for (int i = 0; i < 100000; ++i) {
        const std::string key = workload.Next();
        const double units = workload.Units();
        const bool write = i % 3 == 0;
        hh.Add(key, write ? 0 : units, write ? units : 0);
        exact[key] += units;
        total += units;
      }
      EXPECT_NEAR(hh.total(), total, 1e-6 * total);
      ASSERT_EQ(hh.counters().size(), 64u);
      // The bound on every key it does not monitor, and its own bound.
      EXPECT_LE(hh.min_units(), total / 64 + 1e-9);
      std::map<std::string, const HeavyHitters::Counter*> monitored;
      for (const auto& c : hh.counters()) {
        monitored[c.key] = &c;
        const double e = exact[c.key];
        EXPECT_GE(c.units + 1e-9, e) << c.key;              // never an underestimate
        EXPECT_LE(c.units - c.error, e + 1e-9) << c.key;    // error covers the overestimate
        EXPECT_LE(c.read_units + c.write_units, e + 1e-9);  // added while monitored
      }
      for (const auto& [key, e] : exact) {
        if (!monitored.count(key)) {
          EXPECT_LE(e, hh.min_units() + 1e-9) << key;
        }
        // Every key heavier than total / capacity is monitored.
        if (e > total / 64) {
          EXPECT_TRUE(monitored.count(key)) << key;
        }
      }
      // The heaviest key is found, with its rank.
      const auto heaviest = std::max_element(exact.begin(), exact.end(),
                                             [](auto& a, auto& b) { return a.second < b.second; });
      const auto top = std::max_element(hh.counters().begin(), hh.counters().end(),
                                        [](auto& a, auto& b) { return a.units < b.units; });
      EXPECT_EQ(top->key, heaviest->first);
    }
  }
}

TEST(HeavyHittersTest, ExactWhileKeysFit) {
  HeavyHitters hh(4);
  hh.Add("a", 1, 0);
  hh.Add("b", 0, 2);
  hh.Add("a", 0.5, 1);
  ASSERT_EQ(hh.counters().size(), 2u);
  EXPECT_EQ(hh.min_units(), 0);  // not full: an unseen key has 0
  for (const auto& c : hh.counters()) {
    EXPECT_EQ(c.error, 0);
    if (c.key == "a") {
      EXPECT_EQ(c.units, 2.5);
      EXPECT_EQ(c.read_units, 1.5);
      EXPECT_EQ(c.write_units, 1);
    } else {
      EXPECT_EQ(c.units, 2);
    }
  }
  // A fifth key takes over the smallest counter and inherits it as error.
  hh.Add("c", 1, 0);
  hh.Add("d", 1, 0);
  hh.Add("e", 0, 3);
  ASSERT_EQ(hh.counters().size(), 4u);
  for (const auto& c : hh.counters()) {
    if (c.key == "e") {
      EXPECT_EQ(c.units, 4);  // 1 inherited from "c" or "d", plus 3
      EXPECT_EQ(c.error, 1);
      EXPECT_EQ(c.write_units, 3);
    }
  }
}

TEST(SlidingHeavyHittersTest, WindowMergesSlicesWithinTheirBounds) {
  // 1-second slices, 10 of them, 16 counters each; keys change popularity
  // over time, so the window decides who is hottest.
  SlidingHeavyHitters window(1000, 10, 16);
  std::map<int64_t, std::map<std::string, double>> exact_by_second;
  std::mt19937 rng(7);
  for (int64_t t = 0; t < 20000; t += 2) {
    const int64_t second = t / 1000;
    // Seconds 0-9: V-1 is hot; 10-19: V-2 is; noise from 500 keys always.
    std::string key;
    if (rng() % 2 == 0) {
      key = second < 10 ? "VEH#V-1" : "VEH#V-2";
    } else {
      key = "VEH#noise-" + std::to_string(rng() % 500);
    }
    window.Add(t, key, 1, 0);
    exact_by_second[second][key] += 1;
  }
  const int64_t now = 19999;
  for (const int64_t window_ms : {1000, 3000, 10000, 60000}) {
    SCOPED_TRACE(window_ms);
    int64_t covered = 0;
    const auto top = window.Top(now, window_ms, 100, &covered);
    const int64_t seconds = std::min<int64_t>(10, window_ms / 1000);
    EXPECT_EQ(covered, seconds * 1000);
    std::map<std::string, double> exact;
    for (int64_t s = 20 - seconds; s < 20; ++s) {
      for (const auto& [k, v] : exact_by_second[s]) exact[k] += v;
    }
    ASSERT_FALSE(top.empty());
    EXPECT_EQ(top[0].key, "VEH#V-2");
    EXPECT_NEAR(top[0].units, exact["VEH#V-2"], top[0].error_bound);
    for (size_t i = 0; i < top.size(); ++i) {
      EXPECT_LE(std::abs(top[i].units - exact[top[i].key]), top[i].error_bound + 1e-9)
          << top[i].key;
      if (i > 0) {
        EXPECT_GE(top[i - 1].units, top[i].units);
      }
    }
    // V-1 was hot only before the window: it is not there.
    for (const auto& h : top) EXPECT_NE(h.key, "VEH#V-1");
  }
  // A window reaching back past 10 s is limited to the ring.
  EXPECT_EQ(window.max_window_ms(), 10000);
}

TEST(SlidingHeavyHittersTest, OldSlicesAreForgotten) {
  SlidingHeavyHitters window(1000, 5, 8);
  window.Add(0, "a", 0, 5);
  EXPECT_EQ(window.Top(999, 1000, 10, nullptr).size(), 1u);
  // Seven seconds later the ring has come round: "a" is gone, "b" is there.
  window.Add(7000, "b", 1, 0);
  const auto top = window.Top(7000, 5000, 10, nullptr);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].key, "b");
  EXPECT_EQ(top[0].read_units, 1);
  EXPECT_TRUE(window.Top(20000, 5000, 10, nullptr).empty());
}

// Traffic counts off the request path, in batches added up per collection
// and slice: Top must see every record made before it (from any thread),
// exactly while the keys fit the counters, and within the stated bounds
// once they do not.
TEST(TrafficTest, BatchedCountingSeesEveryRecordMadeBeforeTop) {
  Traffic traffic(/*track=*/true, std::nullopt);
  constexpr int kThreads = 4, kRecords = 30000;
  constexpr int64_t kStart = 1'000'000;  // three 5-second slices
  std::vector<std::map<std::string, double>> exact(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Skewed keys(40, 1.1, 100 + t);  // 40 keys: they fit the 64 counters
      for (int i = 0; i < kRecords; ++i) {
        const std::string key = keys.Next();
        const double units = keys.Units();
        traffic.Record(kStart + i / 2, /*space_id=*/7, key, units, 0);
        exact[t][key] += units;
      }
    });
  }
  for (auto& t : threads) t.join();
  std::map<std::string, double> total;
  for (const auto& e : exact) {
    for (const auto& [k, v] : e) total[k] += v;
  }
  int64_t covered = 0;
  const auto top = traffic.Top(7, kStart + kRecords, 60'000, 100, &covered);
  ASSERT_EQ(top.size(), total.size());
  for (const auto& hot : top) {
    EXPECT_NEAR(hot.units, total[hot.key], 1e-6 * total[hot.key]) << hot.key;
    EXPECT_NEAR(hot.read_units, total[hot.key], 1e-6 * total[hot.key]) << hot.key;
    EXPECT_EQ(hot.error_bound, 0) << hot.key;
  }
  EXPECT_EQ(top[0].key, "VEH#V-0");

  // Many more keys than counters: the bounds, and the heaviest key first.
  Traffic busy(true, std::nullopt);
  Skewed keys(5000, 1.1, 7);
  std::map<std::string, double> counts;
  for (int i = 0; i < 100000; ++i) {
    const std::string key = keys.Next();
    const double units = keys.Units();
    busy.Record(kStart + i / 10, 1, key, 0, units);
    counts[key] += units;
  }
  const auto hottest = busy.Top(1, kStart + 10000, 60'000, 10, nullptr);
  ASSERT_EQ(hottest.size(), 10u);
  EXPECT_EQ(hottest[0].key, "VEH#V-0");
  for (const auto& hot : hottest) {
    EXPECT_LE(std::abs(hot.units - counts[hot.key]), hot.error_bound + 1e-6) << hot.key;
  }
  // A forgotten space has nothing, pending records included.
  busy.Record(kStart + 10001, 1, "VEH#V-0", 1, 0);
  busy.Forget(1);
  EXPECT_TRUE(busy.Top(1, kStart + 10001, 60'000, 10, nullptr).empty());
}

// Each thread stages its records per Traffic and hands them over in
// chunks: two Traffics on one thread keep their records apart, and a new
// Traffic in the storage of a destroyed one (the same address) starts from
// nothing, though the thread still held the old one's staged records.
TEST(TrafficTest, StagedRecordsBelongToTheirOwnTraffic) {
  std::optional<Traffic> first(std::in_place, /*track=*/true, std::nullopt);
  Traffic second(true, std::nullopt);
  for (int i = 0; i < 10; ++i) {
    first->Record(1000, 1, "first", 1, 0);
    second.Record(1000, 1, "second", 0, 2);
  }
  auto top = second.Top(1, 1000, 60'000, 10, nullptr);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].key, "second");
  EXPECT_EQ(top[0].write_units, 20);
  first->Record(1000, 1, "gone", 5, 0);  // staged, never handed over
  const void* address = &*first;
  first.reset();
  first.emplace(true, std::nullopt);
  ASSERT_EQ(static_cast<const void*>(&*first), address);
  first->Record(1000, 1, "new", 1, 0);
  top = first->Top(1, 1000, 60'000, 10, nullptr);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].key, "new");
  EXPECT_EQ(top[0].read_units, 1);
  // A full chunk and a partial one, from a thread that has ended.
  std::thread([&] {
    for (int i = 0; i < 1000; ++i) second.Record(1000, 1, "thread", 1, 0);
  }).join();
  top = second.Top(1, 1000, 60'000, 10, nullptr);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].key, "thread");
  EXPECT_EQ(top[0].read_units, 1000);
}

// SetTracking may race with Record from any thread (TSan runs this). Off
// forgets every count and pending record; on again counts from then on.
TEST(TrafficTest, SwitchingTrackingOffForgetsAndOnCountsAfresh) {
  Traffic traffic(/*track=*/false, std::nullopt);
  traffic.Record(1000, 1, "before", 1, 0);  // off: not counted
  traffic.SetTracking(true);
  EXPECT_TRUE(traffic.Top(1, 1000, 60'000, 10, nullptr).empty());
  std::atomic<bool> done{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; !done.load(); ++i)
        traffic.Record(1000 + i % 100, 1, "k" + std::to_string(t), 1, 0);
    });
  }
  for (int i = 0; i < 200; ++i) {
    traffic.SetTracking(i % 2 == 1);
    if (i % 20 == 0) (void)traffic.Top(1, 1100, 60'000, 10, nullptr);
  }
  // Ended on: the writers' records are counted again.
  while (traffic.Top(1, 1100, 60'000, 10, nullptr).empty()) std::this_thread::yield();
  done = true;
  for (auto& w : writers) w.join();
  // Off drops the counts, and records made while off.
  traffic.SetTracking(false);
  traffic.Record(1100, 1, "while-off", 0, 1);
  EXPECT_TRUE(traffic.Top(1, 1100, 60'000, 10, nullptr).empty());
  traffic.SetTracking(true);
  for (int i = 0; i < 5; ++i) traffic.Record(1100, 1, "after", 0, 1);
  const auto top = traffic.Top(1, 1100, 60'000, 10, nullptr);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].key, "after");
  EXPECT_EQ(top[0].write_units, 5);
  EXPECT_EQ(top[0].error_bound, 0);
}

TEST(TokenBucketsTest, RefillBurstAndDebt) {
  // DynamoDB's 1,000 WCU with 5 s of burst credit.
  TokenBuckets buckets(1000, 5);
  // A new collection starts with the full burst: 5,000 units.
  EXPECT_TRUE(buckets.Admits(0, "hot"));
  buckets.Charge(0, "hot", 4999);
  EXPECT_TRUE(buckets.Admits(0, "hot"));
  buckets.Charge(0, "hot", 10);  // into debt: the next request waits
  EXPECT_FALSE(buckets.Admits(0, "hot"));
  EXPECT_FALSE(buckets.Admits(8, "hot"));  // 9 units of debt need 9 ms
  EXPECT_TRUE(buckets.Admits(10, "hot"));
  EXPECT_TRUE(buckets.Admits(10, "cold"));  // others are not affected
  // Driven at 2x the rate, it is throttled about half the time.
  int admitted = 0, refused = 0;
  for (int64_t t = 10; t < 10010; ++t) {
    for (int k = 0; k < 2; ++k) {
      if (buckets.Admits(t, "hot")) {
        buckets.Charge(t, "hot", 1);
        ++admitted;
      } else {
        ++refused;
      }
    }
  }
  EXPECT_NEAR(admitted, 10000 + 1, 5);  // the rate, and the credit it had
  EXPECT_NEAR(refused, 10000, 5);
  // Once refilled to full, a bucket is dropped: memory follows activity.
  EXPECT_EQ(buckets.size(), 1u);
  buckets.Charge(20000, "x", 1);
  EXPECT_EQ(buckets.size(), 2u);
  EXPECT_TRUE(buckets.Admits(20000, "hot"));  // full again by then: dropped when seen
  EXPECT_EQ(buckets.size(), 1u);
}

TEST(TokenBucketsTest, MemoryStaysWithActiveCollections) {
  TokenBuckets buckets(100, 1);
  for (int64_t i = 0; i < 100000; ++i) buckets.Charge(i * 10, "k" + std::to_string(i), 1);
  // Each bucket refills its one unit in 10 ms: only the recent ones remain.
  EXPECT_LT(buckets.size(), 2100u);
}

}  // namespace
}  // namespace dynarock

// ---- The engine: HottestCollections and Options::partition_limits ------------------

namespace dynarock {
namespace {

class CollectionTrafficTest : public testing::DbTest {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    options_.clock_ms = [this] { return now_ms_; };
    options_.ttl_sweep_interval_ms = 0;
    Options::PartitionLimits limits;  // DynamoDB's: 3,000 RCU and 1,000 WCU
    limits.burst_seconds = 1;
    options_.partition_limits = limits;
    Reopen();
    CreateTableRequest r = testing::TableRequest("Telemetry", "PK", ScalarAttributeType::kS, "SK",
                                                 ScalarAttributeType::kS);
    Create(r);
  }
  // A reading of exactly 1 KB more or less: one write unit.
  static Item Reading(const std::string& vehicle, int64_t n) {
    return {{"PK", testing::S("VEH#" + vehicle)},
            {"SK", testing::S("TS#" + std::to_string(n))},
            {"pad", testing::S(std::string(900, 'x'))}};
  }
  int64_t now_ms_ = 1'000'000;
};

TEST_F(CollectionTrafficTest, HotVehicleAtTwiceItsLimitIsThrottledOthersAreNot) {
  // For 5 simulated seconds: V-HOT gets 2,000 one-unit writes a second
  // (2x its 1,000 WCU), ten other vehicles 50 each.
  int64_t hot_ok = 0, hot_throttled = 0, cold_ok = 0, cold_throttled = 0, n = 0;
  for (int ms = 0; ms < 5000; ++ms, ++now_ms_) {
    for (int k = 0; k < 2; ++k) {
      auto put = db_->PutItem({.table_name = "Telemetry", .item = Reading("V-HOT", n++)});
      if (put.ok()) {
        ++hot_ok;
      } else {
        ASSERT_EQ(put.status().code(), Status::Code::kThrottling) << put.status();
        const auto* detail = put.status().payload<ThrottlingDetail>();
        ASSERT_NE(detail, nullptr);
        ASSERT_EQ(detail->reasons.size(), 1u);
        EXPECT_EQ(detail->reasons[0].reason, "TableWriteKeyRangeThroughputExceeded");
        EXPECT_EQ(detail->reasons[0].resource,
                  "arn:aws:dynamodb:us-east-1:000000000000:table/Telemetry");
        ++hot_throttled;
      }
    }
    if (ms % 2 == 0) {
      auto put = db_->PutItem(
          {.table_name = "Telemetry", .item = Reading("V-" + std::to_string(ms % 20 / 2), n++)});
      put.ok() ? ++cold_ok : ++cold_throttled;
    }
  }
  // The hot one gets its rate (plus its one second of burst), no more.
  EXPECT_NEAR(hot_ok, 5000 + 1000, 20);
  EXPECT_NEAR(hot_throttled, 10000 - 6000, 20);
  EXPECT_EQ(cold_throttled, 0);
  EXPECT_EQ(cold_ok, 2500);
  // Reads have their own budget: the hot vehicle can still be read.
  auto got = db_->GetItem({.table_name = "Telemetry",
                           .key = {{"PK", testing::S("VEH#V-HOT")}, {"SK", testing::S("TS#0")}}});
  EXPECT_TRUE(got.ok()) << got.status();

  // HottestCollections shows it first, with the units it was charged.
  auto hot = db_->HottestCollections("Telemetry", 3, 60'000);
  ASSERT_TRUE(hot.ok()) << hot.status();
  ASSERT_EQ(hot->collections.size(), 3u);
  EXPECT_EQ(hot->collections[0].partition_key_value, testing::S("VEH#V-HOT"));
  EXPECT_FALSE(hot->collections[0].index_name.has_value());
  // Every admitted write cost one unit; the throttled ones nothing.
  EXPECT_NEAR(hot->collections[0].write_units, static_cast<double>(hot_ok),
              hot->collections[0].error_bound);
  EXPECT_LE(std::abs(hot->collections[0].units - static_cast<double>(hot_ok + 0.5)),
            hot->collections[0].error_bound + 1);  // + the GetItem's half unit
  EXPECT_NEAR(hot->collections[1].units, 250, hot->collections[1].error_bound + 1e-9);
  EXPECT_GE(hot->window_ms, 5000);
  EXPECT_EQ(db_->HottestCollections("Nope", 3, 1000).status().code(),
            Status::Code::kResourceNotFound);
}

TEST_F(CollectionTrafficTest, GetItemCountsOnItsOwnCollectionWhateverTheNumbersSpelling) {
  // GetItem records the collection from the key it reads with (its
  // prefix): 7 and 7.0 are one partition key value, so one collection.
  CreateTableRequest r = testing::TableRequest("Numbers", "PK", ScalarAttributeType::kN, "SK",
                                               ScalarAttributeType::kS);
  Create(r);
  ASSERT_TRUE(db_->PutItem({.table_name = "Numbers",
                            .item = {{"PK", testing::N("7")}, {"SK", testing::S("a")}}})
                  .ok());
  for (const char* spelling : {"7", "7", "7", "7", "7.0", "70E-1"}) {
    auto got = db_->GetItem(
        {.table_name = "Numbers", .key = {{"PK", testing::N(spelling)}, {"SK", testing::S("a")}}});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(got->item.has_value());
  }
  auto absent = db_->GetItem(
      {.table_name = "Numbers", .key = {{"PK", testing::N("8")}, {"SK", testing::S("a")}}});
  ASSERT_TRUE(absent.ok());
  auto hot = db_->HottestCollections("Numbers", 5, 60'000);
  ASSERT_TRUE(hot.ok()) << hot.status();
  ASSERT_EQ(hot->collections.size(), 2u);
  EXPECT_EQ(hot->collections[0].partition_key_value, testing::N("7"));
  EXPECT_EQ(hot->collections[0].read_units, 3.0);  // six eventual reads of half a unit
  EXPECT_EQ(hot->collections[0].write_units, 1.0);
  EXPECT_EQ(hot->collections[0].error_bound, 0);
  EXPECT_EQ(hot->collections[1].partition_key_value, testing::N("8"));
  EXPECT_EQ(hot->collections[1].read_units, 0.5);  // a missing item costs a read too
}

TEST_F(CollectionTrafficTest, TrackingSwitchedOffAtRuntimeStopsCountingButNotLimits) {
  options_.partition_limits.reset();  // counted off the request path
  Reopen();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(db_->PutItem({.table_name = "Telemetry", .item = Reading("V-1", i)}).ok());
  }
  auto hot = db_->HottestCollections("Telemetry", 5, 60'000);
  ASSERT_TRUE(hot.ok()) << hot.status();
  ASSERT_EQ(hot->collections.size(), 1u);
  EXPECT_EQ(hot->collections[0].write_units, 3.0);

  db_->SetCollectionTrafficTracking(false);
  ASSERT_TRUE(db_->PutItem({.table_name = "Telemetry", .item = Reading("V-2", 0)}).ok());
  hot = db_->HottestCollections("Telemetry", 5, 60'000);
  ASSERT_TRUE(hot.ok()) << hot.status();
  EXPECT_TRUE(hot->collections.empty());

  db_->SetCollectionTrafficTracking(true);  // counts afresh: V-1's three are gone
  ASSERT_TRUE(db_->PutItem({.table_name = "Telemetry", .item = Reading("V-3", 0)}).ok());
  hot = db_->HottestCollections("Telemetry", 5, 60'000);
  ASSERT_TRUE(hot.ok()) << hot.status();
  ASSERT_EQ(hot->collections.size(), 1u);
  EXPECT_EQ(hot->collections[0].partition_key_value, testing::S("VEH#V-3"));
  EXPECT_EQ(hot->collections[0].write_units, 1.0);

  // With partition limits and tracking off, the limits still hold.
  options_.partition_limits = Options::PartitionLimits{.burst_seconds = 1};
  Reopen();
  db_->SetCollectionTrafficTracking(false);
  int throttled = 0;
  for (int i = 0; i < 2100; ++i) {
    auto put = db_->PutItem({.table_name = "Telemetry", .item = Reading("V-HOT", i)});
    if (!put.ok()) {
      ASSERT_EQ(put.status().code(), Status::Code::kThrottling) << put.status();
      ++throttled;
    }
  }
  EXPECT_NEAR(throttled, 2100 - 1000, 2);  // one second of burst, in one millisecond
  hot = db_->HottestCollections("Telemetry", 5, 60'000);
  ASSERT_TRUE(hot.ok()) << hot.status();
  EXPECT_TRUE(hot->collections.empty());
}

TEST_F(CollectionTrafficTest, BatchWritesReturnThrottledItemsAsUnprocessed) {
  // Spend V-HOT's budget (1,000 units of burst + rate).
  for (int i = 0; i < 1100; ++i) {
    (void)db_->PutItem({.table_name = "Telemetry", .item = Reading("V-HOT", i)});
  }
  BatchWriteItemRequest batch;
  batch.request_items["Telemetry"].push_back({PutRequest{Reading("V-HOT", 5000)}, std::nullopt});
  batch.request_items["Telemetry"].push_back({PutRequest{Reading("V-COLD", 1)}, std::nullopt});
  auto written = db_->BatchWriteItem(batch);
  ASSERT_TRUE(written.ok()) << written.status();
  ASSERT_EQ(written->unprocessed_items["Telemetry"].size(), 1u);
  EXPECT_EQ(written->unprocessed_items["Telemetry"][0].put_request->item.at("PK"),
            testing::S("VEH#V-HOT"));
  // The cold one was written; the hot one was not.
  auto cold = db_->GetItem({.table_name = "Telemetry",
                            .key = {{"PK", testing::S("VEH#V-COLD")}, {"SK", testing::S("TS#1")}}});
  ASSERT_TRUE(cold.ok());
  EXPECT_TRUE(cold->item.has_value());
  auto hot =
      db_->GetItem({.table_name = "Telemetry",
                    .key = {{"PK", testing::S("VEH#V-HOT")}, {"SK", testing::S("TS#5000")}}});
  ASSERT_TRUE(hot.ok());
  EXPECT_FALSE(hot->item.has_value());
  // Only throttled writes: the exception itself.
  BatchWriteItemRequest only_hot;
  only_hot.request_items["Telemetry"].push_back({PutRequest{Reading("V-HOT", 5001)}, std::nullopt});
  EXPECT_EQ(db_->BatchWriteItem(only_hot).status().code(), Status::Code::kThrottling);
  // A second later, the budget has refilled.
  now_ms_ += 1000;
  EXPECT_TRUE(db_->BatchWriteItem(only_hot).ok());
}

}  // namespace
}  // namespace dynarock
