// DynamoDB Streams in the engine: which writes produce which records, view
// types, enabling and disabling, shards and their lineage, iterators,
// paging, expiry and trimming (the retention compaction filter).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "dynarock/db.h"
#include "format/item_size.h"
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
            "arn:aws:dynamodb:local:000000000000:table/Tab/stream/2027-01-15T08:00:00.000");
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
  EXPECT_EQ(db_->GetRecords({latest, 1001}).status().code(), Status::Code::kLimitExceeded);
  EXPECT_EQ(db_->GetRecords({latest, 0}).status(),
            Status::Validation("1 validation error detected: Value '0' at 'limit' failed to "
                               "satisfy constraint: Member must have value greater than or "
                               "equal to 1"));

  // Iterators expire 15 minutes after they were issued.
  *now_ += 15 * 60 * 1000 + 1;
  EXPECT_EQ(db_->GetRecords({latest}).status().code(), Status::Code::kExpiredIterator);
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
