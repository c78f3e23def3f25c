// `dynarock serve` under concurrent clients, in-process: keep-alive writers
// and readers, a client that opens a connection per request (gzip bodies,
// health checks), idle sockets past the connection bound (so eviction runs
// beside the traffic), a stream reader, an export job, catalog changes (a
// GSI added and backfilled while it is written, a table created and deleted)
// and a stop with requests in flight.
//
// What it holds the server to: every answer is complete and right (a
// counter read with ConsistentRead never goes back, every acknowledged
// write is in the table, its GSI and its stream, exactly once), and an
// acknowledged write during the stop is in the table after it. The same
// test is in tsan_test, where ThreadSanitizer checks the server's threads
// (I/O threads, workers, job threads, the acceptor) for data races.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"
#include "tools/server/content_coding.h"
#include "tools/server/http_server.h"

namespace dynarock {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

struct Answer {
  int status = 0;
  rapidjson::Document json;
  std::string body;
  const rapidjson::Value& operator[](const char* member) const { return json[member]; }
  bool Has(const char* member) const { return json.IsObject() && json.HasMember(member); }
};

// One client connection, kept alive, as an SDK holds one. A call on a
// connection the server closed while it was idle (the connection bound
// evicts the idlest) reconnects and sends again: the server closes only
// connections that are waiting for a request, so the first send was never
// read.
class Client {
 public:
  explicit Client(uint16_t port) : port_(port) {}

  Answer Call(const std::string& target, const std::string& body, bool gzip = false) {
    for (int attempt = 0;; ++attempt) {
      try {
        Connect();
        http::request<http::string_body> req{http::verb::post, "/", 11};
        req.set(http::field::host, "localhost");
        req.set(http::field::content_type, "application/x-amz-json-1.0");
        req.set("X-Amz-Target", target);
        if (gzip) {
          req.set(http::field::content_encoding, "gzip");
          req.body() = server::Compress(server::Coding::kGzip, body);
        } else {
          req.body() = body;
        }
        req.prepare_payload();
        return Exchange(req);
      } catch (const std::exception& e) {
        stream_.reset();
        if (attempt == 3 || !reconnect_) throw;
      }
    }
  }
  Answer Dynamo(const std::string& op, const std::string& body, bool gzip = false) {
    return Call("DynamoDB_20120810." + op, body, gzip);
  }
  Answer Streams(const std::string& op, const std::string& body) {
    return Call("DynamoDBStreams_20120810." + op, body);
  }
  Answer Health() {
    Connect();
    http::request<http::string_body> req{http::verb::get, "/", 11};
    req.set(http::field::host, "localhost");
    return Exchange(req);
  }
  void Close() { stream_.reset(); }
  // A failure is reported, not retried (the stop-phase clients).
  void NoReconnect() { reconnect_ = false; }

 private:
  void Connect() {
    if (stream_) return;
    stream_ = std::make_unique<beast::tcp_stream>(io_);
    stream_->connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_));
  }
  Answer Exchange(http::request<http::string_body>& req) {
    http::write(*stream_, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(*stream_, buffer, res);
    Answer a;
    a.status = res.result_int();
    a.body = res.body();
    a.json.Parse(a.body.c_str());
    if (!res.keep_alive()) stream_.reset();
    return a;
  }

  const uint16_t port_;
  bool reconnect_ = true;
  asio::io_context io_;
  std::unique_ptr<beast::tcp_stream> stream_;
};

std::string Quote(const std::string& s) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return buffer.GetString();
}
std::string Str(const std::string& s) { return "{\"S\":" + Quote(s) + "}"; }
std::string Reading(const std::string& vehicle, int i) {
  char ts[32];
  std::snprintf(ts, sizeof ts, "TS#%06d", i);
  return "{\"vehicleId\":" + Str(vehicle) + ",\"recordedAt\":" + Str(ts) +
         ",\"depotCode\":" + Str("DEP-" + std::to_string(i % 3)) + ",\"speedKph\":{\"N\":\"" +
         std::to_string(i % 130) + "\"}}";
}
std::string ErrorOf(const Answer& a) {
  return a.Has("__type") ? a["__type"].GetString() + std::string(": ") + a.body : a.body;
}

constexpr char kTable[] = "Fleet";
constexpr char kSharedKey[] = "{\"vehicleId\":{\"S\":\"SHARED\"},\"recordedAt\":{\"S\":\"META\"}}";

class ServerThreadsTest : public testing::DbTest {
 protected:
  void SetUp() override {
    options_.region = "us-east-1";  // as `dynarock serve` sets it: the server's region
    testing::DbTest::SetUp();
    std::filesystem::create_directories(dir_ + "-s3/bucket");
    server::ServerOptions options;
    options.port = 0;
    options.io_threads = 2;
    options.worker_threads = 4;
    options.max_connections = kMaxConnections;
    options.shutdown_grace_seconds = 5;
    options.s3_dir = dir_ + "-s3";
    server_ = std::make_unique<server::Server>(db_.get(), options);
    ASSERT_OK(server_->Start());
    runner_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    StopServer();
    std::filesystem::remove_all(dir_ + "-s3");
    testing::DbTest::TearDown();
  }
  void StopServer() {
    if (!server_) return;
    server_->Stop();
    runner_.join();
    server_.reset();
  }
  uint16_t port() const { return server_->port(); }

  static constexpr size_t kMaxConnections = 24;
  std::unique_ptr<server::Server> server_;
  std::thread runner_;
};

// Waits until DescribeTable says the table and each of its GSIs are ACTIVE.
bool WaitActive(Client& c, const std::string& table) {
  for (int i = 0; i < 3000; ++i) {
    Answer d = c.Dynamo("DescribeTable", "{\"TableName\":" + Quote(table) + "}");
    if (d.status != 200) return false;
    const auto& t = d["Table"];
    bool active = std::string(t["TableStatus"].GetString()) == "ACTIVE";
    if (t.HasMember("GlobalSecondaryIndexes")) {
      for (const auto& g : t["GlobalSecondaryIndexes"].GetArray()) {
        active = active && std::string(g["IndexStatus"].GetString()) == "ACTIVE";
      }
    }
    if (active) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Select COUNT over every page of a Query.
int64_t CountQuery(Client& c, const std::string& body_without_brace) {
  int64_t n = 0;
  std::string start;
  while (true) {
    Answer a = c.Dynamo("Query", body_without_brace + ",\"Select\":\"COUNT\"" + start + "}");
    EXPECT_EQ(a.status, 200) << ErrorOf(a);
    if (a.status != 200) return -1;
    n += a["Count"].GetInt64();
    if (!a.Has("LastEvaluatedKey")) return n;
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    a["LastEvaluatedKey"].Accept(w);
    start = std::string(",\"ExclusiveStartKey\":") + b.GetString();
  }
}

// Every record of the table's stream, over all its shards.
int64_t CountStreamRecords(Client& c, const std::string& stream_arn) {
  int64_t records = 0;
  Answer d = c.Streams("DescribeStream", "{\"StreamArn\":" + Quote(stream_arn) + "}");
  EXPECT_EQ(d.status, 200) << ErrorOf(d);
  if (d.status != 200) return -1;
  for (const auto& shard : d["StreamDescription"]["Shards"].GetArray()) {
    Answer it =
        c.Streams("GetShardIterator", "{\"StreamArn\":" + Quote(stream_arn) +
                                          ",\"ShardId\":" + Quote(shard["ShardId"].GetString()) +
                                          ",\"ShardIteratorType\":\"TRIM_HORIZON\"}");
    EXPECT_EQ(it.status, 200) << ErrorOf(it);
    std::string iterator = it["ShardIterator"].GetString();
    while (true) {
      Answer r = c.Streams("GetRecords", "{\"ShardIterator\":" + Quote(iterator) + "}");
      EXPECT_EQ(r.status, 200) << ErrorOf(r);
      if (r.status != 200) return -1;
      const auto n = r["Records"].GetArray().Size();
      records += n;
      if (n == 0 || !r.Has("NextShardIterator")) break;
      iterator = r["NextShardIterator"].GetString();
    }
  }
  return records;
}

TEST_F(ServerThreadsTest, ConcurrentClientsGetCompleteAndConsistentAnswers) {
  Client admin(port());
  Answer created = admin.Dynamo(
      "CreateTable",
      std::string("{\"TableName\":\"") + kTable +
          "\",\"BillingMode\":\"PAY_PER_REQUEST\","
          "\"AttributeDefinitions\":[{\"AttributeName\":\"vehicleId\",\"AttributeType\":\"S\"},"
          "{\"AttributeName\":\"recordedAt\",\"AttributeType\":\"S\"},"
          "{\"AttributeName\":\"speedKph\",\"AttributeType\":\"N\"}],"
          "\"KeySchema\":[{\"AttributeName\":\"vehicleId\",\"KeyType\":\"HASH\"},"
          "{\"AttributeName\":\"recordedAt\",\"KeyType\":\"RANGE\"}],"
          "\"LocalSecondaryIndexes\":[{\"IndexName\":\"BySpeed\",\"KeySchema\":["
          "{\"AttributeName\":\"vehicleId\",\"KeyType\":\"HASH\"},"
          "{\"AttributeName\":\"speedKph\",\"KeyType\":\"RANGE\"}],"
          "\"Projection\":{\"ProjectionType\":\"KEYS_ONLY\"}}],"
          "\"StreamSpecification\":{\"StreamEnabled\":true,"
          "\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"}}");
  ASSERT_EQ(created.status, 200) << ErrorOf(created);
  const std::string stream_arn = created["TableDescription"]["LatestStreamArn"].GetString();
  const std::string table_arn = created["TableDescription"]["TableArn"].GetString();
  Answer pitr =
      admin.Dynamo("UpdateContinuousBackups", std::string("{\"TableName\":\"") + kTable +
                                                  "\",\"PointInTimeRecoverySpecification\":"
                                                  "{\"PointInTimeRecoveryEnabled\":true}}");
  ASSERT_EQ(pitr.status, 200) << ErrorOf(pitr);

  // Idle sockets first: they are the longest idle, so the connection bound
  // closes them as the clients below connect.
  asio::io_context idle_io;
  std::vector<tcp::socket> idle;
  for (size_t i = 0; i < kMaxConnections + 8; ++i) {
    idle.emplace_back(idle_io);
    idle.back().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port()));
  }

  constexpr int kWriters = 4;
  constexpr int kRounds = 60;  // per writer: 60 puts, 12 batches of 3, 6 transactions of 2
  std::atomic<int> writers_left{kWriters};
  std::atomic<int64_t> adds_acked{0}, changes_acked{0}, failures{0};
  std::mutex failure_mu;
  std::string first_failure;
  auto fail = [&](const std::string& what) {
    if (failures++ == 0) {
      std::lock_guard lock(failure_mu);
      first_failure = what;
    }
  };
  std::vector<std::thread> threads;

  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      Client c(port());
      const std::string vehicle = "VEH#" + std::to_string(w);
      int next = 0;
      for (int round = 0; round < kRounds; ++round) {
        Answer put = c.Dynamo("PutItem",
                              std::string("{\"TableName\":\"") + kTable +
                                  "\",\"Item\":" + Reading(vehicle, next++) +
                                  ",\"ConditionExpression\":\"attribute_not_exists(vehicleId)\"}");
        put.status == 200 ? void(++changes_acked) : fail("PutItem: " + ErrorOf(put));
        Answer add = c.Dynamo("UpdateItem", std::string("{\"TableName\":\"") + kTable +
                                                "\",\"Key\":" + kSharedKey +
                                                ",\"UpdateExpression\":\"ADD hits :one\","
                                                "\"ExpressionAttributeValues\":{\":one\":"
                                                "{\"N\":\"1\"}}}");
        if (add.status == 200) {
          ++adds_acked;
          ++changes_acked;
        } else {
          fail("UpdateItem: " + ErrorOf(add));
        }
        if (round % 5 == 0) {
          std::string batch = std::string("{\"RequestItems\":{\"") + kTable + "\":[";
          for (int k = 0; k < 3; ++k) {
            batch += (k ? "," : "") + std::string("{\"PutRequest\":{\"Item\":") +
                     Reading(vehicle, next++) + "}}";
          }
          Answer b = c.Dynamo("BatchWriteItem", batch + "]}}", /*gzip=*/round % 2 == 0);
          if (b.status != 200 || b["UnprocessedItems"].MemberCount() != 0) {
            fail("BatchWriteItem: " + ErrorOf(b));
          } else {
            changes_acked += 3;
          }
        }
        if (round % 10 == 0) {
          std::string tx = "{\"TransactItems\":[";
          for (int k = 0; k < 2; ++k) {
            tx += (k ? "," : "") + std::string("{\"Put\":{\"TableName\":\"") + kTable +
                  "\",\"Item\":" + Reading(vehicle, next++) + "}}";
          }
          Answer t = c.Dynamo("TransactWriteItems", tx + "]}");
          t.status == 200 ? void(changes_acked += 2) : fail("TransactWriteItems: " + ErrorOf(t));
        }
      }
      --writers_left;
    });
  }

  // Readers: every answer complete, and the shared counter read with
  // ConsistentRead never goes back.
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      Client c(port());
      int64_t last = 0;
      while (writers_left > 0) {
        Answer g = c.Dynamo("GetItem", std::string("{\"TableName\":\"") + kTable + "\",\"Key\":" +
                                           kSharedKey + ",\"ConsistentRead\":true}");
        if (g.status != 200) {
          fail("GetItem: " + ErrorOf(g));
          continue;
        }
        if (g.Has("Item")) {
          const int64_t hits = std::stoll(g["Item"]["hits"]["N"].GetString());
          if (hits < last) fail("the counter went back from " + std::to_string(last));
          last = hits;
        }
        Answer q = c.Dynamo("Query", std::string("{\"TableName\":\"") + kTable +
                                         "\",\"KeyConditionExpression\":\"vehicleId = :v\","
                                         "\"ExpressionAttributeValues\":{\":v\":" +
                                         Str("VEH#" + std::to_string(r)) +
                                         "},\"ScanIndexForward\":false,\"Limit\":10}");
        if (q.status != 200) fail("Query: " + ErrorOf(q));
        Answer s = c.Dynamo("Scan", std::string("{\"TableName\":\"") + kTable +
                                        "\",\"Limit\":25,\"Segment\":" + std::to_string(r) +
                                        ",\"TotalSegments\":2}");
        if (s.status != 200) fail("Scan: " + ErrorOf(s));
      }
    });
  }

  // A connection per request: health, gzip ListTables, DescribeTable.
  threads.emplace_back([&] {
    while (writers_left > 0) {
      Client c(port());
      Answer h = c.Health();
      if (h.status != 200) fail("GET /: " + h.body);
      Answer l = c.Dynamo("ListTables", "{}", /*gzip=*/true);
      if (l.status != 200) fail("ListTables: " + ErrorOf(l));
      Answer d = c.Dynamo("DescribeTable", std::string("{\"TableName\":\"") + kTable + "\"}");
      if (d.status != 200) fail("DescribeTable: " + ErrorOf(d));
    }
  });

  // A stream reader beside the writers.
  threads.emplace_back([&] {
    Client c(port());
    while (writers_left > 0) {
      if (CountStreamRecords(c, stream_arn) < 0) fail("stream read failed");
    }
  });

  // The catalog: a GSI added (and backfilled) under the writers, a scratch
  // table created, written and deleted, an export.
  std::string export_arn;
  threads.emplace_back([&] {
    Client c(port());
    Answer u =
        c.Dynamo("UpdateTable",
                 std::string("{\"TableName\":\"") + kTable +
                     "\",\"AttributeDefinitions\":["
                     "{\"AttributeName\":\"depotCode\",\"AttributeType\":\"S\"},"
                     "{\"AttributeName\":\"recordedAt\",\"AttributeType\":\"S\"}],"
                     "\"GlobalSecondaryIndexUpdates\":[{\"Create\":{\"IndexName\":\"ByDepot\","
                     "\"KeySchema\":[{\"AttributeName\":\"depotCode\",\"KeyType\":\"HASH\"},"
                     "{\"AttributeName\":\"recordedAt\",\"KeyType\":\"RANGE\"}],"
                     "\"Projection\":{\"ProjectionType\":\"ALL\"}}}]}");
    if (u.status != 200) fail("UpdateTable: " + ErrorOf(u));
    Answer e = c.Dynamo("ExportTableToPointInTime",
                        "{\"TableArn\":" + Quote(table_arn) + ",\"S3Bucket\":\"bucket\"}");
    if (e.status != 200) {
      fail("ExportTableToPointInTime: " + ErrorOf(e));
    } else {
      export_arn = e["ExportDescription"]["ExportArn"].GetString();
    }
    for (int i = 0; i < 3; ++i) {
      const std::string scratch = "Scratch" + std::to_string(i);
      Answer t =
          c.Dynamo("CreateTable", "{\"TableName\":" + Quote(scratch) +
                                      ",\"BillingMode\":\"PAY_PER_REQUEST\","
                                      "\"AttributeDefinitions\":[{\"AttributeName\":\"vehicleId\","
                                      "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":"
                                      "\"vehicleId\",\"KeyType\":\"HASH\"}]}");
      if (t.status != 200) fail("CreateTable: " + ErrorOf(t));
      Answer p = c.Dynamo("PutItem", "{\"TableName\":" + Quote(scratch) +
                                         ",\"Item\":{\"vehicleId\":{\"S\":\"x\"}}}");
      if (p.status != 200) fail("PutItem scratch: " + ErrorOf(p));
      Answer d = c.Dynamo("DeleteTable", "{\"TableName\":" + Quote(scratch) + "}");
      if (d.status != 200) fail("DeleteTable: " + ErrorOf(d));
    }
  });

  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0) << first_failure;

  // The idle sockets past the bound were closed by the server (EOF).
  size_t evicted = 0;
  for (auto& s : idle) {
    s.non_blocking(true);
    char byte;
    boost::system::error_code ec;
    s.read_some(asio::buffer(&byte, 1), ec);
    if (ec == asio::error::eof || ec == asio::error::connection_reset) ++evicted;
  }
  EXPECT_GE(evicted, idle.size() - kMaxConnections);

  // Every acknowledged write is there exactly once: the items, the GSI
  // backfilled under the writers, the counter, the stream.
  ASSERT_TRUE(WaitActive(admin, kTable));
  const int per_writer = kRounds + kRounds / 5 * 3 + kRounds / 10 * 2;
  for (int w = 0; w < kWriters; ++w) {
    EXPECT_EQ(CountQuery(admin, std::string("{\"TableName\":\"") + kTable +
                                    "\",\"KeyConditionExpression\":\"vehicleId = :v\","
                                    "\"ExpressionAttributeValues\":{\":v\":" +
                                    Str("VEH#" + std::to_string(w)) + "}"),
              per_writer);
  }
  int64_t by_depot = 0;
  for (int d = 0; d < 3; ++d) {
    by_depot += CountQuery(admin, std::string("{\"TableName\":\"") + kTable +
                                      "\",\"IndexName\":\"ByDepot\","
                                      "\"KeyConditionExpression\":\"depotCode = :d\","
                                      "\"ExpressionAttributeValues\":{\":d\":" +
                                      Str("DEP-" + std::to_string(d)) + "}");
  }
  EXPECT_EQ(by_depot, kWriters * per_writer);
  Answer shared =
      admin.Dynamo("GetItem", std::string("{\"TableName\":\"") + kTable +
                                  "\",\"Key\":" + kSharedKey + ",\"ConsistentRead\":true}");
  ASSERT_EQ(shared.status, 200);
  EXPECT_EQ(std::stoll(shared["Item"]["hits"]["N"].GetString()), adds_acked.load());
  EXPECT_EQ(adds_acked.load(), kWriters * kRounds);
  EXPECT_EQ(CountStreamRecords(admin, stream_arn), changes_acked.load());

  // The export ran beside the writers and completed.
  ASSERT_FALSE(export_arn.empty());
  std::string status;
  for (int i = 0; i < 3000 && status != "COMPLETED" && status != "FAILED"; ++i) {
    Answer e = admin.Dynamo("DescribeExport", "{\"ExportArn\":" + Quote(export_arn) + "}");
    ASSERT_EQ(e.status, 200) << ErrorOf(e);
    status = e["ExportDescription"]["ExportStatus"].GetString();
    if (status == "IN_PROGRESS") std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(status, "COMPLETED");
}

TEST_F(ServerThreadsTest, AWriteAcknowledgedDuringTheStopIsInTheTable) {
  Client admin(port());
  Answer created =
      admin.Dynamo("CreateTable", std::string("{\"TableName\":\"") + kTable +
                                      "\",\"BillingMode\":\"PAY_PER_REQUEST\","
                                      "\"AttributeDefinitions\":[{\"AttributeName\":\"vehicleId\","
                                      "\"AttributeType\":\"S\"},{\"AttributeName\":\"recordedAt\","
                                      "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":"
                                      "\"vehicleId\",\"KeyType\":\"HASH\"},{\"AttributeName\":"
                                      "\"recordedAt\",\"KeyType\":\"RANGE\"}]}");
  ASSERT_EQ(created.status, 200) << ErrorOf(created);
  admin.Close();

  constexpr int kClients = 4;
  std::atomic<int> started{0};
  std::vector<std::vector<int>> acked(kClients);
  std::vector<std::thread> threads;
  for (int w = 0; w < kClients; ++w) {
    threads.emplace_back([&, w] {
      Client c(port());
      c.NoReconnect();
      bool counted = false;
      for (int i = 0;; ++i) {
        try {
          Answer put = c.Dynamo("PutItem",
                                std::string("{\"TableName\":\"") + kTable +
                                    "\",\"Item\":" + Reading("VEH#" + std::to_string(w), i) + "}");
          if (put.status != 200) break;  // 5xx while stopping
          acked[w].push_back(i);
          if (i == 20) {
            ++started;
            counted = true;
          }
        } catch (const std::exception&) {
          break;  // the connection closed by the stop
        }
      }
      if (!counted) ++started;  // failed early: the assertion below says so
    });
  }
  while (started < kClients) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  StopServer();
  for (auto& t : threads) t.join();

  for (int w = 0; w < kClients; ++w) {
    ASSERT_GE(acked[w].size(), 21u);
    for (int i : acked[w]) {
      char ts[32];
      std::snprintf(ts, sizeof ts, "TS#%06d", i);
      auto got = db_->GetItem({.table_name = kTable,
                               .key = {{"vehicleId", testing::S("VEH#" + std::to_string(w))},
                                       {"recordedAt", testing::S(ts)}}});
      ASSERT_OK(got);
      EXPECT_TRUE(got->item.has_value()) << w << " " << ts;
    }
  }
}

}  // namespace
}  // namespace dynarock
