// DynamoDB Streams in the engine: which writes produce which records, view
// types, enabling and disabling, shards and their lineage, iterators,
// paging, expiry and trimming (the retention compaction filter), and that
// iterators cannot be forged.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <thread>

#include "dynarock/db.h"
#include "format/item_size.h"
#include "format/json.h"
#include "format/key_codec.h"
#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::N;
using testing::S;

constexpr int64_t kStart = 1'800'000'000'000;  // the test clock's epoch ms

class StreamTest : public testing::DbTest {
 protected:
  void SetUp() override {
    options_.clock_ms = [now = now_] { return *now; };
    options_.ttl_sweep_interval_ms = 0;
    testing::DbTest::SetUp();
  }

  // Fleet readings keyed (vehicleId, ts) with a stream of `view`.
  void CreateStreamed(StreamViewType view, const std::string& name = "Fleet") {
    auto r = testing::TableRequest(name, "vehicleId", ScalarAttributeType::kS, "ts",
                                   ScalarAttributeType::kN);
    r.stream_specification = StreamSpecification{true, view};
    Create(r);
  }
  std::string LatestArn(const std::string& table = "Fleet") {
    auto d = db_->DescribeTable({table});
    EXPECT_OK(d);
    return d.ok() && d->table.latest_stream_arn ? *d->table.latest_stream_arn : "";
  }
  // Every record of the table's latest stream, through the consumer helper.
  std::vector<StreamRecord> All(const std::string& table = "Fleet") {
    auto r = db_->ReadStream(LatestArn(table), "", 100000);
    EXPECT_OK(r);
    return r.ok() ? *r : std::vector<StreamRecord>{};
  }
  static Item Key(const std::string& v, int ts) {
    return {{"vehicleId", S(v)}, {"ts", N(std::to_string(ts))}};
  }
  static Item Reading(const std::string& v, int ts, int speed) {
    Item i = Key(v, ts);
    i["speed"] = N(std::to_string(speed));
    return i;
  }
  std::string Iterator(const std::string& arn, const std::string& shard, ShardIteratorType type,
                       std::optional<std::string> seq = std::nullopt) {
    auto it = db_->GetShardIterator({arn, shard, type, seq});
    EXPECT_OK(it);
    return it.ok() ? it->shard_iterator : "";
  }
  std::vector<StreamShard> Shards(const std::string& arn) {
    auto d = db_->DescribeStream({arn});
    EXPECT_OK(d);
    return d.ok() ? d->stream_description.shards : std::vector<StreamShard>{};
  }

  std::shared_ptr<int64_t> now_ = std::make_shared<int64_t>(kStart);
};

std::vector<StreamEventName> Events(const std::vector<StreamRecord>& records) {
  std::vector<StreamEventName> out;
  for (const auto& r : records) out.push_back(r.event_name);
  return out;
}

using E = StreamEventName;

TEST_F(StreamTest, SpecificationIsValidatedAndDescribed) {
  auto bad = testing::TableRequest("Tab", "id", ScalarAttributeType::kS);
  bad.stream_specification = StreamSpecification{true, std::nullopt};
  EXPECT_EQ(db_->CreateTable(bad).status(),
            Status::Validation("One or more parameter values were invalid: Table is being "
                               "created with a stream enabled, UpdateViewType is required"));
  bad.stream_specification = StreamSpecification{false, StreamViewType::kKeysOnly};
  EXPECT_EQ(db_->CreateTable(bad).status(),
            Status::Validation("One or more parameter values were invalid: Table is being "
                               "created with a stream disabled, UpdateViewType should not be "
                               "specified"));
  bad.stream_specification = StreamSpecification{false, std::nullopt};
  ASSERT_OK(db_->CreateTable(bad));  // a disabled stream at creation is no stream
  auto d = db_->DescribeTable({"Tab"});
  EXPECT_FALSE(d->table.stream_specification);
  EXPECT_FALSE(d->table.latest_stream_arn);

  UpdateTableRequest u{.table_name = "Tab"};
  u.stream_specification = StreamSpecification{false, std::nullopt};
  EXPECT_EQ(db_->UpdateTable(u).status(),
            Status::Validation("Table has no stream to disable: TableName: Tab"));
  u.stream_specification = StreamSpecification{true, std::nullopt};
  EXPECT_EQ(db_->UpdateTable(u).status(),
            Status::Validation("One or more parameter values were invalid: If stream is being "
                               "enabled then UpdateViewType is required"));
  u.stream_specification = StreamSpecification{true, StreamViewType::kNewImage};
  u.provisioned_throughput = ProvisionedThroughput{5, 5};
  EXPECT_EQ(db_->UpdateTable(u).status(),
            Status::Validation("One or more parameter values were invalid: You cannot modify "
                               "stream status while updating table IOPS"));
  u.provisioned_throughput.reset();
  auto enabled = db_->UpdateTable(u);
  ASSERT_OK(enabled);
  const TableDescription& t = enabled->table_description;
  ASSERT_TRUE(t.stream_specification);
  EXPECT_TRUE(t.stream_specification->stream_enabled);
  EXPECT_EQ(t.stream_specification->stream_view_type, StreamViewType::kNewImage);
  // arn:aws:dynamodb:<region>:<account>:table/T/stream/<ISO-8601 ms, no zone>
  EXPECT_EQ(*t.latest_stream_label, "2027-01-15T08:00:00.000");
  EXPECT_EQ(*t.latest_stream_arn,
            "arn:aws:dynamodb:us-east-1:000000000000:table/Tab/stream/2027-01-15T08:00:00.000");
  u.stream_specification = StreamSpecification{true, StreamViewType::kKeysOnly};
  EXPECT_EQ(db_->UpdateTable(u).status(),
            Status::Validation("Table already has an enabled stream: TableName: Tab"));
  u.stream_specification = StreamSpecification{false, StreamViewType::kKeysOnly};
  EXPECT_EQ(db_->UpdateTable(u).status(),
            Status::Validation("One or more parameter values were invalid: If stream is being "
                               "disabled, then UpdateViewType must not be specified"));

  // After a disable: no StreamSpecification, the latest ARN and label stay.
  u.stream_specification = StreamSpecification{false, std::nullopt};
  ASSERT_OK(db_->UpdateTable(u));
  Reopen();
  d = db_->DescribeTable({"Tab"});
  EXPECT_FALSE(d->table.stream_specification);
  EXPECT_EQ(d->table.latest_stream_arn, t.latest_stream_arn);
  EXPECT_EQ(d->table.latest_stream_label, t.latest_stream_label);
}

TEST_F(StreamTest, EachWriteHasExactlyItsRecord) {
  CreateStreamed(StreamViewType::kNewAndOldImages);
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V-7741", 1, 50)}));  // INSERT
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V-7741", 1, 50)}));  // same: none
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V-7741", 1, 60)}));  // MODIFY
  UpdateItemRequest same{
      .table_name = "Fleet", .key = Key("V-7741", 1), .update_expression = "SET speed = :s"};
  same.expression_attribute_values = ExpressionAttributeValues{{":s", N("60")}};
  ASSERT_OK(db_->UpdateItem(same));  // SET to the same value: none
  UpdateItemRequest create{
      .table_name = "Fleet", .key = Key("V-7741", 2), .update_expression = "SET speed = :s"};
  create.expression_attribute_values = ExpressionAttributeValues{{":s", N("70")}};
  ASSERT_OK(db_->UpdateItem(create));  // creates: INSERT
  UpdateItemRequest remove_absent{
      .table_name = "Fleet", .key = Key("V-7741", 2), .update_expression = "REMOVE nothing"};
  ASSERT_OK(db_->UpdateItem(remove_absent));  // changes nothing: none
  ASSERT_OK(db_->DeleteItem({.table_name = "Fleet", .key = Key("V-0000", 9)}));  // absent: none
  PutItemRequest failing{.table_name = "Fleet", .item = Reading("V-7741", 1, 99)};
  failing.condition_expression = "attribute_not_exists(vehicleId)";
  EXPECT_EQ(db_->PutItem(failing).status().code(), Status::Code::kConditionalCheckFailed);
  ASSERT_OK(db_->DeleteItem({.table_name = "Fleet", .key = Key("V-7741", 2)}));  // REMOVE

  const auto records = All();
  ASSERT_EQ(Events(records), (std::vector<E>{E::kInsert, E::kModify, E::kInsert, E::kRemove}));
  const StreamRecord& insert = records[0];
  EXPECT_EQ(insert.keys, Key("V-7741", 1));
  EXPECT_EQ(insert.new_image, Reading("V-7741", 1, 50));
  EXPECT_FALSE(insert.old_image);
  EXPECT_EQ(records[1].old_image, Reading("V-7741", 1, 50));
  EXPECT_EQ(records[1].new_image, Reading("V-7741", 1, 60));
  EXPECT_FALSE(records[3].new_image);
  EXPECT_EQ(records[3].old_image, Reading("V-7741", 2, 70));
  for (const auto& r : records) {
    EXPECT_EQ(r.stream_view_type, StreamViewType::kNewAndOldImages);
    EXPECT_FALSE(r.time_to_live_deletion);
    EXPECT_EQ(r.sequence_number.size(), 21u);
    EXPECT_EQ(r.event_id.size(), 32u);
    EXPECT_EQ(r.approximate_creation_date_time, static_cast<double>(kStart / 1000));
    // SizeBytes: keys plus the images present (STREAMS.md 3).
    int64_t size = static_cast<int64_t>(format::ItemSize(r.keys));
    if (r.new_image) size += static_cast<int64_t>(format::ItemSize(*r.new_image));
    if (r.old_image) size += static_cast<int64_t>(format::ItemSize(*r.old_image));
    EXPECT_EQ(r.size_bytes, size);
  }
  // Sequence numbers strictly increase, compared as numbers (same length).
  for (size_t i = 1; i < records.size(); ++i) {
    EXPECT_LT(records[i - 1].sequence_number, records[i].sequence_number);
    EXPECT_NE(records[i - 1].event_id, records[i].event_id);
  }
}

TEST_F(StreamTest, ViewTypesDecideTheImages) {
  const std::pair<StreamViewType, std::pair<bool, bool>> cases[] = {
      {StreamViewType::kKeysOnly, {false, false}},
      {StreamViewType::kNewImage, {true, false}},
      {StreamViewType::kOldImage, {false, true}},
      {StreamViewType::kNewAndOldImages, {true, true}}};
  int n = 0;
  for (const auto& [view, images] : cases) {
    const std::string table = "Tab" + std::to_string(n++);
    CreateStreamed(view, table);
    ASSERT_OK(db_->PutItem({.table_name = table, .item = Reading("V", 1, 1)}));
    ASSERT_OK(db_->PutItem({.table_name = table, .item = Reading("V", 1, 2)}));
    ASSERT_OK(db_->DeleteItem({.table_name = table, .key = Key("V", 1)}));
    const auto records = All(table);
    ASSERT_EQ(Events(records), (std::vector<E>{E::kInsert, E::kModify, E::kRemove}));
    EXPECT_EQ(records[0].new_image.has_value(), images.first);
    EXPECT_EQ(records[1].new_image.has_value(), images.first);
    EXPECT_FALSE(records[2].new_image);
    EXPECT_FALSE(records[0].old_image);
    EXPECT_EQ(records[1].old_image.has_value(), images.second);
    EXPECT_EQ(records[2].old_image.has_value(), images.second);
    for (const auto& r : records) EXPECT_EQ(r.keys, Key("V", 1));
  }
}

TEST_F(StreamTest, BatchesAndTransactionsWriteAllOrNone) {
  CreateStreamed(StreamViewType::kNewImage);
  BatchWriteItemRequest batch;
  for (int i = 0; i < 5; ++i) {
    batch.request_items["Fleet"].push_back({.put_request = PutRequest{Reading("V", i, i)}});
  }
  ASSERT_OK(db_->BatchWriteItem(batch));
  EXPECT_EQ(All().size(), 5u);

  // A cancelled transaction writes no record; a committed one all of its
  // changes (the condition check none).
  TransactWriteItemsRequest t;
  t.transact_items.push_back(
      {.put = TransactPut{.table_name = "Fleet", .item = Reading("V", 10, 1)}});
  TransactConditionCheck check{
      .table_name = "Fleet", .key = Key("V", 0), .condition_expression = "speed = :s"};
  check.expression_attribute_values = ExpressionAttributeValues{{":s", N("1000")}};
  t.transact_items.push_back({.condition_check = check});
  t.transact_items.push_back(
      {.delete_item = TransactDelete{.table_name = "Fleet", .key = Key("V", 1)}});
  EXPECT_EQ(db_->TransactWriteItems(t).status().code(), Status::Code::kTransactionCanceled);
  EXPECT_EQ(All().size(), 5u);
  t.transact_items[1].condition_check->expression_attribute_values =
      ExpressionAttributeValues{{":s", N("0")}};
  ASSERT_OK(db_->TransactWriteItems(t));
  const auto records = All();
  ASSERT_EQ(records.size(), 7u);
  EXPECT_EQ(records[5].event_name, E::kInsert);
  EXPECT_EQ(records[5].keys, Key("V", 10));
  EXPECT_EQ(records[6].event_name, E::kRemove);
  EXPECT_EQ(records[6].keys, Key("V", 1));
  // One batch's records have consecutive numbers.
  EXPECT_EQ(std::stoull(records[6].sequence_number.substr(1)),
            std::stoull(records[5].sequence_number.substr(1)) + 1);
}

TEST_F(StreamTest, DisableThenEnableStartsANewStream) {
  CreateStreamed(StreamViewType::kKeysOnly);
  const std::string first = LatestArn();
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 1, 1)}));
  ASSERT_OK(db_->UpdateTable(
      {.table_name = "Fleet", .stream_specification = StreamSpecification{false, std::nullopt}}));
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 2, 1)}));  // not captured
  *now_ += 1000;
  ASSERT_OK(db_->UpdateTable(
      {.table_name = "Fleet",
       .stream_specification = StreamSpecification{true, StreamViewType::kNewImage}}));
  const std::string second = LatestArn();
  EXPECT_NE(first, second);
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 3, 1)}));

  auto old_records = db_->ReadStream(first, "", 100);
  ASSERT_OK(old_records);
  ASSERT_EQ(old_records->size(), 1u);
  EXPECT_EQ((*old_records)[0].keys, Key("V", 1));
  auto new_records = db_->ReadStream(second, "", 100);
  ASSERT_OK(new_records);
  ASSERT_EQ(new_records->size(), 1u);
  EXPECT_EQ((*new_records)[0].keys, Key("V", 3));

  auto old_stream = db_->DescribeStream({first});
  ASSERT_OK(old_stream);
  EXPECT_EQ(old_stream->stream_description.stream_status, StreamStatus::kDisabled);
  ASSERT_EQ(old_stream->stream_description.shards.size(), 1u);
  EXPECT_TRUE(
      old_stream->stream_description.shards[0].sequence_number_range.ending_sequence_number);
  auto listed = db_->ListStreams({.table_name = "Fleet"});
  ASSERT_OK(listed);
  ASSERT_EQ(listed->streams.size(), 2u);
  EXPECT_EQ(listed->streams[0].stream_arn, first);
  EXPECT_EQ(listed->streams[1].stream_arn, second);

  // DeleteTable disables the stream; it stays listed and readable.
  ASSERT_OK(db_->DeleteTable({"Fleet"}));
  auto after_delete = db_->DescribeStream({second});
  ASSERT_OK(after_delete);
  EXPECT_EQ(after_delete->stream_description.stream_status, StreamStatus::kDisabled);
  EXPECT_EQ(db_->ReadStream(second, "", 100)->size(), 1u);
  EXPECT_EQ(db_->ListStreams({})->streams.size(), 2u);
  EXPECT_EQ(db_->ListStreams({.table_name = "Nope"}).status().code(),
            Status::Code::kResourceNotFound);
}

TEST_F(StreamTest, ShardsRollAtOpenAndWithAgeKeepingLineage) {
  CreateStreamed(StreamViewType::kKeysOnly);
  const std::string arn = LatestArn();
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 1, 1)}));
  Reopen();
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 2, 1)}));
  *now_ += options_.stream_shard_lifetime_ms;
  auto shards = Shards(arn);  // the open shard is old: rolled now
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 3, 1)}));
  ASSERT_EQ(shards.size(), 3u);
  EXPECT_FALSE(shards[0].parent_shard_id);
  for (size_t i = 1; i < shards.size(); ++i) {
    EXPECT_EQ(shards[i].parent_shard_id, shards[i - 1].shard_id);
    EXPECT_TRUE(shards[i - 1].sequence_number_range.ending_sequence_number);
    EXPECT_LT(*shards[i - 1].sequence_number_range.ending_sequence_number,
              shards[i].sequence_number_range.starting_sequence_number);
  }
  EXPECT_FALSE(shards[2].sequence_number_range.ending_sequence_number);
  for (const auto& s : shards) EXPECT_EQ(s.shard_id.size(), 37u) << s.shard_id;  // 28..65
  // ShardFilter CHILD_SHARDS: what follows a shard, and nothing after the open one.
  for (size_t i = 0; i < shards.size(); ++i) {
    DescribeStreamRequest children{.stream_arn = arn};
    children.shard_filter = ShardFilter{ShardFilterType::kChildShards, shards[i].shard_id};
    auto described = db_->DescribeStream(children);
    ASSERT_OK(described);
    const auto& listed = described->stream_description.shards;
    if (i + 1 < shards.size()) {
      ASSERT_EQ(listed.size(), 1u) << i;
      EXPECT_EQ(listed[0].shard_id, shards[i + 1].shard_id);
    } else {
      EXPECT_TRUE(listed.empty());
    }
  }

  // A consumer that follows lineage reads each record once, in order: each
  // closed shard ends (no NextShardIterator), the open one keeps polling.
  std::vector<Item> keys;
  for (size_t i = 0; i < shards.size(); ++i) {
    std::string it = Iterator(arn, shards[i].shard_id, ShardIteratorType::kTrimHorizon);
    for (int calls = 0; !it.empty() && calls < 10; ++calls) {
      auto page = db_->GetRecords({it, 1});
      ASSERT_OK(page);
      for (const auto& r : page->records) keys.push_back(r.keys);
      if (i + 1 < shards.size()) {
        it = page->next_shard_iterator.value_or("");
      } else {
        ASSERT_TRUE(page->next_shard_iterator);  // open: always a next iterator
        if (page->records.empty()) break;
        it = *page->next_shard_iterator;
      }
    }
    if (i + 1 < shards.size()) {
      EXPECT_TRUE(it.empty()) << "closed shard " << i << " never ended";
    }
  }
  EXPECT_EQ(keys, (std::vector<Item>{Key("V", 1), Key("V", 2), Key("V", 3)}));
}

TEST_F(StreamTest, IteratorTypesAndTheirErrors) {
  CreateStreamed(StreamViewType::kKeysOnly);
  const std::string arn = LatestArn();
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", i, i)}));
  }
  const std::string shard = Shards(arn)[0].shard_id;
  const auto records = All();
  ASSERT_EQ(records.size(), 3u);
  const std::string latest = Iterator(arn, shard, ShardIteratorType::kLatest);
  auto at = db_->GetRecords(
      {Iterator(arn, shard, ShardIteratorType::kAtSequenceNumber, records[1].sequence_number)});
  ASSERT_OK(at);
  ASSERT_EQ(at->records.size(), 2u);
  EXPECT_EQ(at->records[0].sequence_number, records[1].sequence_number);
  auto after = db_->GetRecords(
      {Iterator(arn, shard, ShardIteratorType::kAfterSequenceNumber, records[1].sequence_number)});
  ASSERT_OK(after);
  ASSERT_EQ(after->records.size(), 1u);
  EXPECT_EQ(after->records[0].sequence_number, records[2].sequence_number);
  // LATEST sees only what is written after it was issued.
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 9, 9)}));
  auto from_latest = db_->GetRecords({latest});
  ASSERT_OK(from_latest);
  ASSERT_EQ(from_latest->records.size(), 1u);
  EXPECT_EQ(from_latest->records[0].keys, Key("V", 9));
  // Paging with Limit: each page's NextShardIterator continues it.
  std::string it = Iterator(arn, shard, ShardIteratorType::kTrimHorizon);
  std::vector<std::string> seen;
  for (int page = 0; page < 4; ++page) {
    auto r = db_->GetRecords({it, 1});
    ASSERT_OK(r);
    ASSERT_EQ(r->records.size(), 1u);
    seen.push_back(r->records[0].sequence_number);
    it = *r->next_shard_iterator;
  }
  EXPECT_EQ(db_->GetRecords({it})->records.size(), 0u);
  EXPECT_EQ(seen[1], records[1].sequence_number);

  EXPECT_EQ(db_->GetShardIterator({arn, shard, ShardIteratorType::kAtSequenceNumber}).status(),
            Status::Validation("Missing required parameter \"SequenceNumber\""));
  EXPECT_EQ(
      db_->GetShardIterator({arn, shard, ShardIteratorType::kLatest, records[0].sequence_number})
          .status(),
      Status::Validation("Iterator of this type should not have sequence number"));
  EXPECT_EQ(db_->GetShardIterator(
                   {arn, shard, ShardIteratorType::kAtSequenceNumber, "100000000000000000001"})
                .status()
                .code(),
            Status::Code::kValidation);  // before the shard
  EXPECT_EQ(db_->GetShardIterator(
                   {arn, "shardId-00000000000000000000-00000000", ShardIteratorType::kLatest})
                .status()
                .code(),
            Status::Code::kResourceNotFound);
  EXPECT_EQ(db_->GetShardIterator({arn + "x", shard, ShardIteratorType::kLatest}).status().code(),
            Status::Code::kResourceNotFound);
  EXPECT_EQ(db_->GetRecords({"not an iterator"}).status(),
            Status::Validation("Invalid ShardIterator"));
  std::string forged = latest;
  forged[forged.size() - 3] = forged[forged.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_EQ(db_->GetRecords({forged}).status(), Status::Validation("Invalid ShardIterator"));
  // The documented upper limit, refused as a model constraint.
  EXPECT_EQ(db_->GetRecords({latest, 1001}).status(),
            Status::Validation("1 validation error detected: Value '1001' at 'limit' failed to "
                               "satisfy constraint: Member must have value less than or equal "
                               "to 1000"));
  EXPECT_EQ(db_->GetRecords({latest, 0}).status(),
            Status::Validation("1 validation error detected: Value '0' at 'limit' failed to "
                               "satisfy constraint: Member must have value greater than or "
                               "equal to 1"));

  // Iterators expire 15 minutes after they were issued.
  *now_ += 15 * 60 * 1000 + 1;
  EXPECT_EQ(db_->GetRecords({latest}).status().code(), Status::Code::kExpiredIterator);
}

// ---- Iterators cannot be forged ----------------------------------------------
//
// An iterator is "<stream ARN>|1|<base64 of 62 bytes>": version, stream id,
// shard start, position, horizon, issue time (30 bytes), then HMAC-SHA256
// of the ARN, "|1|" and those 30 bytes under the database's secret
// (engine/streams/records.h). These tests take iterators apart and put
// them back together as a client could.

constexpr size_t kIssuedAt = 22;    // the issue time's offset in the 62 bytes
constexpr size_t kFieldBytes = 30;  // the signed fields; the MAC follows

struct IteratorParts {
  std::string arn;
  std::string body;  // the 62 decoded bytes
};
IteratorParts Split(const std::string& iterator) {
  const size_t separator = iterator.rfind("|1|");
  EXPECT_NE(separator, std::string::npos) << iterator;
  if (separator == std::string::npos) return {};
  auto body = format::Base64Decode(iterator.substr(separator + 3));
  EXPECT_OK(body);
  EXPECT_EQ(body.ok() ? body->size() : 0, 62u) << iterator;
  return {iterator.substr(0, separator), body.ok() ? *body : ""};
}
std::string Join(const std::string& arn, const std::string& body) {
  return arn + "|1|" + format::Base64Encode(body);
}
std::string WithIssueTime(const std::string& iterator, int64_t issued_ms) {
  IteratorParts parts = Split(iterator);
  std::string time;
  format::PutFixed64BE(&time, static_cast<uint64_t>(issued_ms));
  parts.body.replace(kIssuedAt, 8, time);
  return Join(parts.arn, parts.body);
}

const Status kInvalidIterator = Status::Validation("Invalid ShardIterator");

// (a) Before storage format 9 an iterator ended in XXH3-64 of its fields:
// anyone could compute it, and with an issue time of 2^63-1 it never
// expired. Such iterators are refused, for the stream they name too.
TEST_F(StreamTest, IteratorsWithTheOldUnkeyedChecksumAreRefused) {
  CreateStreamed(StreamViewType::kKeysOnly);
  const std::string arn = LatestArn();
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 1, 1)}));
  const std::string genuine =
      Iterator(arn, Shards(arn)[0].shard_id, ShardIteratorType::kTrimHorizon);
  auto read = db_->GetRecords({genuine});
  ASSERT_OK(read);
  ASSERT_EQ(read->records.size(), 1u);  // the stream, shard and position are readable

  // The old layout: version 1, the same fields, XXH3-64 of those 30 bytes.
  const auto old_style = [&](int64_t issued_ms) {
    std::string payload = Split(WithIssueTime(genuine, issued_ms)).body.substr(0, kFieldBytes);
    payload[0] = 1;
    format::PutFixed64BE(&payload, XXH3_64bits(payload.data(), payload.size()));
    return arn + "|1|" + format::Base64Encode(payload);
  };
  EXPECT_EQ(db_->GetRecords({old_style(kStart)}).status(), kInvalidIterator);
  EXPECT_EQ(db_->GetRecords({old_style(INT64_MAX)}).status(), kInvalidIterator);
  // The old checksum in the new layout (version 2, 62 bytes) fails too.
  std::string body = Split(genuine).body;
  std::string checksum;
  format::PutFixed64BE(&checksum, XXH3_64bits(body.data(), kFieldBytes));
  body.replace(kFieldBytes, checksum.size(), checksum);
  EXPECT_EQ(db_->GetRecords({Join(arn, body)}).status(), kInvalidIterator);
}

// (b) Stream A's ARN before the payload issued for stream B (or B's ARN
// before A's) was read as B's stream: the ARN was outside the checksum and
// unchecked. Now it is signed with the rest.
TEST_F(StreamTest, AnIteratorsArnCannotBeSwappedForAnotherStreams) {
  CreateStreamed(StreamViewType::kKeysOnly, "TableA");
  CreateStreamed(StreamViewType::kKeysOnly, "TableB");
  ASSERT_OK(db_->PutItem({.table_name = "TableA", .item = Reading("A", 1, 1)}));
  ASSERT_OK(db_->PutItem({.table_name = "TableB", .item = Reading("B", 1, 1)}));
  const std::string arn_a = LatestArn("TableA"), arn_b = LatestArn("TableB");
  ASSERT_NE(arn_a, arn_b);
  const std::string it_a =
      Iterator(arn_a, Shards(arn_a)[0].shard_id, ShardIteratorType::kTrimHorizon);
  const std::string it_b =
      Iterator(arn_b, Shards(arn_b)[0].shard_id, ShardIteratorType::kTrimHorizon);
  auto a = db_->GetRecords({it_a});
  auto b = db_->GetRecords({it_b});
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_EQ(a->records.size(), 1u);
  ASSERT_EQ(b->records.size(), 1u);
  EXPECT_EQ(a->records[0].keys, Key("A", 1));
  EXPECT_EQ(b->records[0].keys, Key("B", 1));

  const IteratorParts parts_a = Split(it_a), parts_b = Split(it_b);
  EXPECT_EQ(parts_a.arn, arn_a);
  EXPECT_EQ(parts_b.arn, arn_b);
  EXPECT_EQ(db_->GetRecords({Join(arn_a, parts_b.body)}).status(), kInvalidIterator);
  EXPECT_EQ(db_->GetRecords({Join(arn_b, parts_a.body)}).status(), kInvalidIterator);
  // Nor does a stream id patched into a signed payload move it to B.
  std::string moved = parts_a.body;
  moved.replace(1, 4, parts_b.body.substr(1, 4));
  ASSERT_NE(moved, parts_a.body);
  EXPECT_EQ(db_->GetRecords({Join(arn_a, moved)}).status(), kInvalidIterator);
  EXPECT_EQ(db_->GetRecords({Join(arn_b, moved)}).status(), kInvalidIterator);
}

// The signed ARN must also be the stream's ARN now: reopened under another
// region, the stream's ARN changes and iterators signed under the old one
// are refused (its own ARN's are read).
TEST_F(StreamTest, AnIteratorIssuedUnderAnotherArnIsRefused) {
  CreateStreamed(StreamViewType::kKeysOnly);
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 1, 1)}));
  const std::string old_arn = LatestArn();
  const std::string shard = Shards(old_arn)[0].shard_id;
  const std::string old_iterator = Iterator(old_arn, shard, ShardIteratorType::kTrimHorizon);
  ASSERT_OK(db_->GetRecords({old_iterator}));
  options_.region = "eu-west-1";
  Reopen();
  const std::string arn = LatestArn();
  ASSERT_NE(arn, old_arn);
  EXPECT_EQ(db_->GetRecords({old_iterator}).status(), kInvalidIterator);
  auto read = db_->GetRecords({Iterator(arn, shard, ShardIteratorType::kTrimHorizon)});
  ASSERT_OK(read);
  EXPECT_EQ(read->records.size(), 1u);
}

// (c) The issue time is signed: patched to 2^63-1 (never expires) or to a
// later time, the iterator is refused. A genuine iterator issued more than
// 5 minutes (the clock skew allowed) after the reader's clock is refused
// too; expiry stays at 15 minutes.
TEST_F(StreamTest, AnIteratorsIssueTimeCannotBeMovedOrLieInTheFuture) {
  CreateStreamed(StreamViewType::kKeysOnly);
  const std::string arn = LatestArn();
  const std::string shard = Shards(arn)[0].shard_id;
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 1, 1)}));
  const std::string genuine = Iterator(arn, shard, ShardIteratorType::kTrimHorizon);
  // Patching in the time it already has changes nothing: the helper is exact.
  ASSERT_EQ(WithIssueTime(genuine, kStart), genuine);
  ASSERT_OK(db_->GetRecords({genuine}));
  EXPECT_EQ(db_->GetRecords({WithIssueTime(genuine, INT64_MAX)}).status(), kInvalidIterator);
  EXPECT_EQ(db_->GetRecords({WithIssueTime(genuine, kStart + 60 * 60 * 1000)}).status(),
            kInvalidIterator);
  EXPECT_EQ(db_->GetRecords({WithIssueTime(genuine, kStart + 1)}).status(), kInvalidIterator);
  // One that expired, made fresh again, stays expired.
  *now_ = kStart + 15 * 60 * 1000 + 1;
  EXPECT_EQ(db_->GetRecords({genuine}).status().code(), Status::Code::kExpiredIterator);
  EXPECT_EQ(db_->GetRecords({WithIssueTime(genuine, *now_)}).status(), kInvalidIterator);

  // Genuine, issued ahead of the reader's clock (a clock stepped back).
  constexpr int64_t kSkewMs = 5 * 60 * 1000;
  const int64_t issued = kStart + 60 * 60 * 1000;
  *now_ = issued;
  const std::string ahead = Iterator(arn, shard, ShardIteratorType::kTrimHorizon);
  *now_ = issued - kSkewMs - 1;
  EXPECT_EQ(db_->GetRecords({ahead}).status(), kInvalidIterator);
  *now_ = issued - kSkewMs;
  EXPECT_OK(db_->GetRecords({ahead}));
  // And it expires 15 minutes after the time it carries.
  *now_ = issued + 15 * 60 * 1000;
  EXPECT_OK(db_->GetRecords({ahead}));
  *now_ = issued + 15 * 60 * 1000 + 1;
  EXPECT_EQ(db_->GetRecords({ahead}).status().code(), Status::Code::kExpiredIterator);
}

// (d) Any change to an iterator's text or to any bit of its decoded bytes
// is refused with the error of a string that is no iterator at all.
TEST_F(StreamTest, AnIteratorWithAnyByteChangedIsRefused) {
  CreateStreamed(StreamViewType::kKeysOnly);
  const std::string arn = LatestArn();
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 1, 1)}));
  const std::string genuine = Iterator(
      arn, Shards(arn)[0].shard_id, ShardIteratorType::kAtSequenceNumber, All()[0].sequence_number);
  auto read = db_->GetRecords({genuine});
  ASSERT_OK(read);
  ASSERT_EQ(read->records.size(), 1u);
  for (size_t i = 0; i < genuine.size(); ++i) {
    std::string changed = genuine;
    changed[i] = static_cast<char>(changed[i] ^ 0x01);
    EXPECT_EQ(db_->GetRecords({changed}).status(), kInvalidIterator) << "character " << i;
  }
  const std::string body = Split(genuine).body;
  for (size_t i = 0; i < body.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string changed = body;
      changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
      EXPECT_EQ(db_->GetRecords({Join(arn, changed)}).status(), kInvalidIterator)
          << "byte " << i << " bit " << bit;
    }
  }
  // Shortened, lengthened, or the base64 spelled otherwise (the last
  // character's unused low bits set: the same bytes when decoded).
  EXPECT_EQ(db_->GetRecords({genuine.substr(0, genuine.size() - 4)}).status(), kInvalidIterator);
  EXPECT_EQ(db_->GetRecords({genuine + "AAAA"}).status(), kInvalidIterator);
  EXPECT_EQ(db_->GetRecords({"x" + genuine}).status(), kInvalidIterator);
  std::string respelled = genuine;
  ASSERT_EQ(respelled.substr(respelled.size() - 1), "=");  // 62 bytes: 2 of the last 3
  char& last = respelled[respelled.size() - 2];
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  last = alphabet[alphabet.find(last) | 1];  // 62 = 3 * 20 + 2: its low 2 bits are unused
  ASSERT_NE(respelled, genuine);
  ASSERT_EQ(*format::Base64Decode(respelled.substr(respelled.rfind('|') + 1)), Split(genuine).body);
  EXPECT_EQ(db_->GetRecords({respelled}).status(), kInvalidIterator);
  EXPECT_OK(db_->GetRecords({genuine}));  // still fine itself
}

// (e) The secret is the database's, kept in its catalog: an iterator stays
// valid across a close and reopen, and a read-only instance beside the
// server checks (and issues) the same iterators.
TEST_F(StreamTest, GenuineIteratorsWorkAfterReopenAndOnAReadOnlyInstance) {
  CreateStreamed(StreamViewType::kKeysOnly);
  const std::string arn = LatestArn();
  const std::string shard = Shards(arn)[0].shard_id;
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 1, 1)}));
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 2, 1)}));
  const std::string iterator = Iterator(arn, shard, ShardIteratorType::kTrimHorizon);
  auto before = db_->GetRecords({iterator});
  ASSERT_OK(before);
  ASSERT_EQ(before->records.size(), 2u);

  ASSERT_TRUE(before->next_shard_iterator.has_value());  // the shard is open

  Reopen();
  auto after = db_->GetRecords({iterator});
  ASSERT_OK(after);
  ASSERT_EQ(after->records.size(), 2u);
  EXPECT_EQ(after->records[1].keys, Key("V", 2));
  // The continuation issued before the close too (the Reopen closed the
  // shard: nothing more to read, and no next iterator).
  auto rest = db_->GetRecords({*before->next_shard_iterator});
  ASSERT_OK(rest);
  EXPECT_TRUE(rest->records.empty());
  EXPECT_FALSE(rest->next_shard_iterator.has_value());

  Options read_only = options_;
  read_only.read_only = true;
  auto reader = Database::Open(dir_, read_only);
  ASSERT_OK(reader);
  auto seen = (*reader)->GetRecords({iterator});
  ASSERT_OK(seen);
  EXPECT_EQ(seen->records.size(), 2u);
  std::string changed = iterator;
  changed[changed.size() - 3] = changed[changed.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_EQ((*reader)->GetRecords({changed}).status(), kInvalidIterator);
  auto issued = (*reader)->GetShardIterator({arn, shard, ShardIteratorType::kTrimHorizon});
  ASSERT_OK(issued);
  auto from_reader = db_->GetRecords({issued->shard_iterator});
  ASSERT_OK(from_reader);
  EXPECT_EQ(from_reader->records.size(), 2u);
}

// (f) Two databases with identical streams (same ARN, shard, position and
// issue time: everything but the secret) refuse each other's iterators.
TEST_F(StreamTest, DatabasesDoNotAcceptEachOthersIterators) {
  const std::string other_dir = testing::MakeTempDir();
  auto other = Database::Open(other_dir, options_);
  ASSERT_OK(other);
  for (Database* db : {db_.get(), other->get()}) {
    auto r = testing::TableRequest("Fleet", "vehicleId", ScalarAttributeType::kS, "ts",
                                   ScalarAttributeType::kN);
    r.stream_specification = StreamSpecification{true, StreamViewType::kKeysOnly};
    ASSERT_OK(db->CreateTable(r));
    ASSERT_OK(db->PutItem({.table_name = "Fleet", .item = Reading("V", 1, 1)}));
  }
  const std::string arn = LatestArn();
  auto other_table = (*other)->DescribeTable({"Fleet"});
  ASSERT_OK(other_table);
  ASSERT_EQ(other_table->table.latest_stream_arn, arn);
  const std::string shard = Shards(arn)[0].shard_id;
  const std::string mine = Iterator(arn, shard, ShardIteratorType::kTrimHorizon);
  auto theirs = (*other)->GetShardIterator({arn, shard, ShardIteratorType::kTrimHorizon});
  ASSERT_OK(theirs);
  // The same fields; only the signatures differ.
  const IteratorParts my_parts = Split(mine), their_parts = Split(theirs->shard_iterator);
  EXPECT_EQ(my_parts.arn, their_parts.arn);
  EXPECT_EQ(my_parts.body.substr(0, kFieldBytes), their_parts.body.substr(0, kFieldBytes));
  EXPECT_NE(my_parts.body.substr(kFieldBytes), their_parts.body.substr(kFieldBytes));

  EXPECT_OK(db_->GetRecords({mine}));
  EXPECT_OK((*other)->GetRecords({theirs->shard_iterator}));
  EXPECT_EQ(db_->GetRecords({theirs->shard_iterator}).status(), kInvalidIterator);
  EXPECT_EQ((*other)->GetRecords({mine}).status(), kInvalidIterator);
  other->reset();
  std::filesystem::remove_all(other_dir);
}

// Retention: records older than it are trimmed for readers at once, and go
// from disk when RocksDB compacts them (the retention compaction filter).
TEST_F(StreamTest, RetentionTrimsAndTheCompactionFilterDrops) {
  CreateStreamed(StreamViewType::kNewImage);
  const std::string arn = LatestArn();
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", i, i)}));
  }
  const std::string shard = Shards(arn)[0].shard_id;
  const std::string old_seq = All()[0].sequence_number;
  *now_ += options_.stream_retention_ms / 2;
  ASSERT_OK(db_->PutItem({.table_name = "Fleet", .item = Reading("V", 100, 1)}));
  // What is physically stored: read with the clock turned back to the
  // start, when nothing was past retention (reads hide trimmed records;
  // only compaction removes them).
  auto stored = [&] {
    const int64_t saved = *now_;
    *now_ = kStart;
    auto all = db_->ReadStream(arn, "", 1000);
    *now_ = saved;
    EXPECT_OK(all);
    return all.ok() ? all->size() : 0;
  };
  EXPECT_EQ(stored(), 51u);

  *now_ += options_.stream_retention_ms / 2 + 1000;  // the first 50 are past retention
  EXPECT_EQ(db_->GetShardIterator({arn, shard, ShardIteratorType::kAtSequenceNumber, old_seq})
                .status()
                .code(),
            Status::Code::kTrimmedDataAccess);
  auto remaining = db_->ReadStream(arn, "", 1000);
  ASSERT_OK(remaining);
  ASSERT_EQ(remaining->size(), 1u);
  EXPECT_EQ((*remaining)[0].keys, Key("V", 100));
  EXPECT_EQ(stored(), 51u);  // still on disk: nothing was compacted
  ASSERT_OK(db_->Compact());
  EXPECT_EQ(stored(), 1u);  // the filter dropped exactly the expired ones
  // Shards that were rolled at each Reopen and are now fully trimmed are gone.
  const auto shards = Shards(arn);
  ASSERT_FALSE(shards.empty());
  for (const auto& s : shards) {
    EXPECT_TRUE(!s.sequence_number_range.ending_sequence_number ||
                *s.sequence_number_range.ending_sequence_number > old_seq)
        << s.shard_id;
  }
  // A disabled stream is forgotten once past retention.
  ASSERT_OK(db_->UpdateTable(
      {.table_name = "Fleet", .stream_specification = StreamSpecification{false, std::nullopt}}));
  EXPECT_EQ(db_->ListStreams({})->streams.size(), 1u);
  *now_ += options_.stream_retention_ms + 1;
  EXPECT_EQ(db_->ListStreams({})->streams.size(), 0u);
  // Fully trimmed closed shards leave DescribeStream.
  EXPECT_TRUE(db_->DescribeStream({arn})->stream_description.shards.empty());
  Reopen();
  EXPECT_EQ(db_->DescribeStream({arn}).status().code(), Status::Code::kResourceNotFound);
}

TEST_F(StreamTest, ListStreamsPages) {
  for (int i = 0; i < 5; ++i) CreateStreamed(StreamViewType::kKeysOnly, "Tab" + std::to_string(i));
  std::vector<std::string> arns;
  std::optional<std::string> start;
  for (int page = 0; page < 5; ++page) {
    auto r = db_->ListStreams({.limit = 2, .exclusive_start_stream_arn = start});
    ASSERT_OK(r);
    for (const auto& s : r->streams) arns.push_back(s.table_name);
    start = r->last_evaluated_stream_arn;
    if (!start) break;
  }
  EXPECT_EQ(arns, (std::vector<std::string>{"Tab0", "Tab1", "Tab2", "Tab3", "Tab4"}));
}

}  // namespace
}  // namespace dynarock

namespace dynarock {
namespace {

// Writers commit their batches out of sequence-number order; a consumer
// polling the open shard at the same time must still see every record
// exactly once, in order (readers stop below the oldest batch in flight).
TEST_F(StreamTest, ConcurrentWritersAndAPollingReaderLoseNothing) {
  CreateStreamed(StreamViewType::kKeysOnly);
  const std::string arn = LatestArn();
  const std::string shard = Shards(arn)[0].shard_id;
  constexpr int kWriters = 4, kPerWriter = 300;
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        ASSERT_OK(
            db_->PutItem({.table_name = "Fleet", .item = Reading("V-" + std::to_string(w), i, i)}));
      }
      ++done;
    });
  }
  std::vector<StreamRecord> seen;
  std::string it = Iterator(arn, shard, ShardIteratorType::kTrimHorizon);
  while (true) {
    const bool finished = done == kWriters;  // read before the poll: then one more pass
    auto page = db_->GetRecords({it});
    ASSERT_OK(page);
    for (auto& r : page->records) seen.push_back(std::move(r));
    it = *page->next_shard_iterator;
    if (finished && page->records.empty()) break;
  }
  for (auto& t : writers) t.join();
  ASSERT_EQ(seen.size(), static_cast<size_t>(kWriters * kPerWriter));
  std::map<std::string, int> next_ts;  // per writer, its items in its own order
  for (size_t i = 0; i < seen.size(); ++i) {
    if (i > 0) {
      ASSERT_LT(seen[i - 1].sequence_number, seen[i].sequence_number);
    }
    const std::string v = seen[i].keys.at("vehicleId").s();
    EXPECT_EQ(seen[i].keys.at("ts").n().ToString(), std::to_string(next_ts[v]++));
  }
}

}  // namespace
}  // namespace dynarock
