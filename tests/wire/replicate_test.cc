// dynarock replicate's stream reading against a scripted DynamoDB
// (tools/replicate/replicate.h): answers that the servers under the wire
// tests never give, but DynamoDB may.
#include "tools/replicate/replicate.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/util/memory_checkpoint_store.h"
#include "tools/replicate/endpoint.h"

namespace dynarock::replicate {
namespace {

constexpr char kRecord[] = R"({"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"a"}},)"
                           R"("NewImage":{"pk":{"S":"a"},"n":{"N":"7"}},"SequenceNumber":"5",)"
                           R"("ApproximateCreationDateTime":1700000000}})";

// A source whose one shard holds one record after two empty pages
// (DynamoDB: "several calls may be needed to get past an empty region"):
// a closed shard that ends after the record, or an open one that goes on
// empty; and a target that records what it was sent.
class Scripted : public Endpoint {
 public:
  explicit Scripted(std::map<std::string, std::vector<std::string>>* sent, bool open = false)
      : sent_(sent), open_(open) {}
  Result<Answer> Send(std::string_view target, const std::string& body) override {
    const std::string op(target.substr(target.find('.') + 1));
    (*sent_)[op].push_back(body);
    auto ok = [](std::string json) { return Answer{200, std::move(json), "", ""}; };
    if (op == "DescribeTable") {
      return ok(R"({"Table":{"TableName":"T","TableStatus":"ACTIVE","ItemCount":1,)"
                R"("KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],)"
                R"("AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],)"
                R"("StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"},)"
                R"("LatestStreamArn":"arn:stream"}})");
    }
    if (op == "DescribeStream") {
      return ok(open_ ? R"({"StreamDescription":{"Shards":[{"ShardId":"shardId-1",)"
                        R"("SequenceNumberRange":{"StartingSequenceNumber":"1"}}]}})"
                      : R"({"StreamDescription":{"Shards":[{"ShardId":"shardId-1",)"
                        R"("SequenceNumberRange":{"StartingSequenceNumber":"1",)"
                        R"("EndingSequenceNumber":"9"}}]}})");
    }
    if (op == "GetShardIterator") return ok(R"({"ShardIterator":"it0"})");
    if (op == "GetRecords") {
      if (body.find("\"it0\"") != std::string::npos) {
        return ok(R"({"Records":[],"NextShardIterator":"it1"})");
      }
      if (body.find("\"it1\"") != std::string::npos) {
        return ok(R"({"Records":[],"NextShardIterator":"it2"})");
      }
      if (body.find("\"it3\"") != std::string::npos) {
        return ok(R"({"Records":[],"NextShardIterator":"it3"})");  // open: nothing more
      }
      // The record; then the end of a closed shard, or more (empty) of an open one.
      return ok(std::string(R"({"Records":[)") + kRecord + "]" +
                (open_ ? R"(,"NextShardIterator":"it3"})" : "}"));
    }
    if (op == "BatchWriteItem") return ok(R"({"UnprocessedItems":{}})");
    return Answer{400, "{}", "ValidationException", "unexpected " + op};
  }
  Result<std::unique_ptr<Endpoint>> Clone() const override {
    return std::unique_ptr<Endpoint>(std::make_unique<Scripted>(sent_, open_));
  }
  const std::string& name() const override { return name_; }

 private:
  std::map<std::string, std::vector<std::string>>* sent_;
  const bool open_;
  const std::string name_ = "http://127.0.0.1:1";
};

// A checkpoint in the tail, nothing of the shard applied yet.
dynarock::testing::MemoryCheckpointStore TailCheckpoint() {
  return dynarock::testing::MemoryCheckpointStore(
      R"({"source":"http://127.0.0.1:1","table":"T","target":"http://127.0.0.1:1",)"
      R"("to_table":"T","stream_arn":"arn:stream","phase":"tail","segments":[],)"
      R"("shards":{}})");
}

TEST(ReplicateStreamTest, StatusCountsARecordPastAnEmptyRegion) {
  std::map<std::string, std::vector<std::string>> sent;
  Scripted source(&sent);
  dynarock::testing::MemoryCheckpointStore store = TailCheckpoint();
  auto lag = ReadLag(source, store, {.table = "T"});
  ASSERT_TRUE(lag.ok()) << lag.status().ToString();
  EXPECT_EQ(lag->phase, "tail");
  EXPECT_EQ(lag->pending_records, 1);  // behind two empty pages
  EXPECT_EQ(sent["GetRecords"].size(), 3u);
}

TEST(ReplicateStreamTest, TheTailAppliesARecordPastAnEmptyRegion) {
  std::map<std::string, std::vector<std::string>> sent;
  Scripted source(&sent), target(&sent);
  dynarock::testing::MemoryCheckpointStore store = TailCheckpoint();
  ReplicateOptions o{.table = "T", .until_caught_up = true, .poll = std::chrono::milliseconds(0)};
  Status s = replicate::Run(source, target, store, o);  // not testing::Test::Run
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(sent["BatchWriteItem"].size(), 1u);
  EXPECT_NE(sent["BatchWriteItem"][0].find(R"("n":{"N":"7"})"), std::string::npos);
  // The shard is done and its last sequence number saved.
  ASSERT_TRUE(store.saved);
  EXPECT_NE(store.saved->find(R"("shardId-1":{"after":"5","done":true})"), std::string::npos)
      << *store.saved;
}

// An open shard's empty page is not "caught up" either: the pass follows
// a few empty pages (and caught up takes two quiet passes), so the record
// behind the empty region is applied before --until-caught-up returns.
TEST(ReplicateStreamTest, UntilCaughtUpLooksPastAnOpenShardsEmptyPages) {
  std::map<std::string, std::vector<std::string>> sent;
  Scripted source(&sent, /*open=*/true), target(&sent);
  dynarock::testing::MemoryCheckpointStore store = TailCheckpoint();
  ReplicateOptions o{.table = "T", .until_caught_up = true, .poll = std::chrono::milliseconds(0)};
  Status s = replicate::Run(source, target, store, o);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(sent["BatchWriteItem"].size(), 1u);
  EXPECT_NE(sent["BatchWriteItem"][0].find(R"("n":{"N":"7"})"), std::string::npos);
  EXPECT_NE(store.saved->find(R"("shardId-1":{"after":"5","done":false})"), std::string::npos)
      << *store.saved;
}

}  // namespace
}  // namespace dynarock::replicate
