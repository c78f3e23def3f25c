// A table's interned names (format/attribute_names.h) under writers that
// race to intern the same names, a catalog write that fails now and then,
// and readers looking ids up all the while. Also run under ThreadSanitizer.
#include "format/attribute_names.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace dynarock::format {
namespace {

TEST(AttributeNamesTest, RacingWritersAgreeAndEveryIdIsDurableFirst) {
  std::mutex mu;
  std::map<uint32_t, std::string> persisted;  // what the catalog would hold
  int calls = 0;
  NameDictionary names([&](uint32_t id, std::string_view name) {
    std::lock_guard lock(mu);
    if (++calls % 7 == 0) return Status::IOError("disk full");  // this id is lost
    EXPECT_TRUE(persisted.emplace(id, std::string(name)).second) << "id given twice: " << id;
    return Status::OK();
  });
  constexpr int kNames = 300;
  std::vector<std::map<std::string, uint32_t>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < kNames; ++i) {
          const std::string name = "attr" + std::to_string((i * (t + 1) * 7 + round) % kNames);
          if (auto id = names.Intern(name)) {
            // Published only once durable, and to the name it stands for.
            auto read = names.Name(*id);
            ASSERT_TRUE(read.has_value());
            ASSERT_EQ(*read, name);
            auto [it, fresh] = seen[t].emplace(name, *id);
            ASSERT_EQ(it->second, *id) << "one name, two ids";
          }
        }
      }
    });
  }
  threads.emplace_back([&] {  // a reader of every id, as Query threads are
    for (int round = 0; round < 200; ++round) {
      for (uint32_t id = 0; id < kNames + 100; ++id) {
        if (auto n = names.Name(id)) {
          ASSERT_EQ(n->substr(0, 4), "attr");
        }
      }
    }
  });
  for (auto& t : threads) t.join();
  // Every name ended up with one id, the same for every writer, durable
  // under that id; failed writes lost their ids rather than reuse them.
  std::set<uint32_t> ids;
  for (int i = 0; i < kNames; ++i) {
    const std::string name = "attr" + std::to_string(i);
    auto id = names.Find(name);
    ASSERT_TRUE(id.has_value()) << name;  // three rounds: a failed write is retried
    EXPECT_TRUE(ids.insert(*id).second);
    EXPECT_EQ(persisted.at(*id), name);
    for (const auto& s : seen) {
      if (auto it = s.find(name); it != s.end()) {
        EXPECT_EQ(it->second, *id);
      }
    }
  }
  EXPECT_FALSE(names.Name(kMaxInternedNames).has_value());
}

// A full dictionary interns nothing more: names past the limit stay inline.
TEST(AttributeNamesTest, AFullDictionaryInternsNothingMore) {
  int writes = 0;
  NameDictionary names([&](uint32_t, std::string_view) {
    ++writes;
    return Status::OK();
  });
  for (uint32_t i = 0; i < kMaxInternedNames; ++i) {
    ASSERT_EQ(names.Intern("n" + std::to_string(i)), i);
  }
  EXPECT_FALSE(names.Intern("one more").has_value());
  EXPECT_EQ(names.Intern("n7"), 7u);  // the ones it holds still resolve
  EXPECT_EQ(writes, static_cast<int>(kMaxInternedNames));
  // Loading what a catalog holds: an id given twice is corruption. A name
  // under two ids (a write that failed after reaching the log, retried
  // under the next id) is not: both resolve to it, writers use the first.
  NameDictionary loaded([](uint32_t, std::string_view) { return Status::OK(); });
  ASSERT_TRUE(loaded.Load(3, "speedKph").ok());
  EXPECT_EQ(loaded.Load(3, "other").code(), Status::Code::kCorruption);
  ASSERT_TRUE(loaded.Load(4, "speedKph").ok());
  EXPECT_EQ(loaded.Name(4), std::optional<std::string_view>("speedKph"));
  EXPECT_EQ(loaded.Find("speedKph"), 3u);
  EXPECT_EQ(loaded.Intern("speedKph"), 3u);
  EXPECT_EQ(loaded.Intern("next"), 5u);  // after the highest loaded id
}

}  // namespace
}  // namespace dynarock::format
