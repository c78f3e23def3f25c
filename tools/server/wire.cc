#include "tools/server/wire.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <type_traits>

#include "engine/request_expr.h"
#include "format/json.h"
#include "tools/server/jobs.h"
#include "tools/server/json_writers.h"
#include "tools/server/protocol/model_gen.h"
#include "tools/server/streams_wire.h"
#include "tools/server/wire_requests.h"

namespace dynarock::wire {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Parsing failures unwind to Handle() as a Status. Exceptions stay inside
// this translation layer: they never reach the engine or RocksDB.
struct WireError {
  Status status;
};
[[noreturn]] void Fail(Status s) { throw WireError{std::move(s)}; }
template <typename T>
T Check(Result<T> r) {
  if (!r.ok()) Fail(r.status());
  return std::move(r).value();
}
void Check(const Status& s) {
  if (!s.ok()) Fail(s);
}

// ---- Writers --------------------------------------------------------------------------------

void Key(Writer& w, const char* k) { w.Key(k); }
void WriteThroughput(Writer& w, const ProvisionedThroughput& t) {
  w.StartObject();
  Key(w, "NumberOfDecreasesToday");
  w.Int(0);
  Key(w, "ReadCapacityUnits");
  w.Int64(t.read_capacity_units);
  Key(w, "WriteCapacityUnits");
  w.Int64(t.write_capacity_units);
  w.EndObject();
}

const char* TableStatusName(TableStatus s) {
  switch (s) {
    case TableStatus::kCreating:
      return "CREATING";
    case TableStatus::kActive:
      return "ACTIVE";
    case TableStatus::kDeleting:
      return "DELETING";
    case TableStatus::kUpdating:
      return "UPDATING";
  }
  return "ACTIVE";
}

void WriteTable(Writer& w, const TableDescription& d) {
  using streams_wire::StreamViewTypeName;
  w.StartObject();
  // DeleteTable's description has no attribute definitions, key schema or
  // creation time (the engine leaves them empty).
  if (!d.attribute_definitions.empty()) {
    Key(w, "AttributeDefinitions");
    w.StartArray();
    for (const auto& a : d.attribute_definitions) {
      w.StartObject();
      Key(w, "AttributeName");
      Str(w, a.attribute_name);
      Key(w, "AttributeType");
      Str(w, std::string(AttrTypeName(format::ToAttrType(a.attribute_type))));
      w.EndObject();
    }
    w.EndArray();
  }
  Key(w, "TableName");
  Str(w, d.table_name);
  if (!d.key_schema.empty()) {
    Key(w, "KeySchema");
    WriteKeySchema(w, d.key_schema);
  }
  Key(w, "TableStatus");
  w.String(TableStatusName(d.table_status));
  if (d.creation_date_time != 0) {
    Key(w, "CreationDateTime");
    w.Double(d.creation_date_time);
  }
  Key(w, "ProvisionedThroughput");
  WriteThroughput(w, d.provisioned_throughput);
  Key(w, "TableSizeBytes");
  w.Int64(d.table_size_bytes);
  Key(w, "ItemCount");
  w.Int64(d.item_count);
  Key(w, "TableArn");
  Str(w, d.table_arn);
  Key(w, "TableId");
  Str(w, d.table_id);
  // Absent for a table that was always provisioned, as DynamoDB.
  if (d.billing_mode == BillingMode::kPayPerRequest || d.last_update_to_pay_per_request_date_time) {
    Key(w, "BillingModeSummary");
    w.StartObject();
    Key(w, "BillingMode");
    w.String(d.billing_mode == BillingMode::kPayPerRequest ? "PAY_PER_REQUEST" : "PROVISIONED");
    if (d.last_update_to_pay_per_request_date_time) {
      Key(w, "LastUpdateToPayPerRequestDateTime");
      w.Double(*d.last_update_to_pay_per_request_date_time);
    }
    w.EndObject();
  }
  if (d.local_secondary_indexes) {
    Key(w, "LocalSecondaryIndexes");
    w.StartArray();
    for (const auto& l : *d.local_secondary_indexes) {
      w.StartObject();
      Key(w, "IndexName");
      Str(w, l.index_name);
      Key(w, "KeySchema");
      WriteKeySchema(w, l.key_schema);
      Key(w, "Projection");
      WriteProjection(w, l.projection);
      Key(w, "IndexSizeBytes");
      w.Int64(l.index_size_bytes);
      Key(w, "ItemCount");
      w.Int64(l.item_count);
      Key(w, "IndexArn");
      Str(w, l.index_arn);
      w.EndObject();
    }
    w.EndArray();
  }
  if (d.global_secondary_indexes) {
    Key(w, "GlobalSecondaryIndexes");
    w.StartArray();
    for (const auto& g : *d.global_secondary_indexes) {
      w.StartObject();
      Key(w, "IndexName");
      Str(w, g.index_name);
      Key(w, "KeySchema");
      WriteKeySchema(w, g.key_schema);
      Key(w, "Projection");
      WriteProjection(w, g.projection);
      Key(w, "IndexStatus");
      w.String(g.index_status == IndexStatus::kActive ? "ACTIVE" : "CREATING");
      if (g.backfilling) {
        Key(w, "Backfilling");
        w.Bool(true);
      }
      Key(w, "ProvisionedThroughput");
      WriteThroughput(w, g.provisioned_throughput);
      Key(w, "IndexSizeBytes");
      w.Int64(g.index_size_bytes);
      Key(w, "ItemCount");
      w.Int64(g.item_count);
      Key(w, "IndexArn");
      Str(w, g.index_arn);
      w.EndObject();
    }
    w.EndArray();
  }
  if (d.stream_specification) {
    Key(w, "StreamSpecification");
    w.StartObject();
    Key(w, "StreamEnabled");
    w.Bool(d.stream_specification->stream_enabled);
    if (d.stream_specification->stream_view_type) {
      Key(w, "StreamViewType");
      w.String(StreamViewTypeName(*d.stream_specification->stream_view_type));
    }
    w.EndObject();
  }
  if (d.latest_stream_arn) {
    Key(w, "LatestStreamArn");
    Str(w, *d.latest_stream_arn);
    Key(w, "LatestStreamLabel");
    Str(w, *d.latest_stream_label);
  }
  Key(w, "DeletionProtectionEnabled");  // DynamoDB reports it, false included
  w.Bool(d.deletion_protection_enabled);
  w.EndObject();
}

void WriteItem(Writer& w, const Item& item) { format::WriteJson(&w, item); }

void WriteCapacityFields(Writer& w, const Capacity& c) {
  w.StartObject();
  Key(w, "CapacityUnits");
  w.Double(c.capacity_units);
  Key(w, "ReadCapacityUnits");
  w.Double(c.read_capacity_units);
  Key(w, "WriteCapacityUnits");
  w.Double(c.write_capacity_units);
  w.EndObject();
}

void WriteConsumed(Writer& w, const ConsumedCapacity& c) {
  w.StartObject();
  Key(w, "TableName");
  Str(w, c.table_name);
  Key(w, "CapacityUnits");
  w.Double(c.capacity_units);
  Key(w, "ReadCapacityUnits");
  w.Double(c.read_capacity_units);
  Key(w, "WriteCapacityUnits");
  w.Double(c.write_capacity_units);
  if (c.table) {
    Key(w, "Table");
    WriteCapacityFields(w, *c.table);
  }
  for (const auto& [name, indexes] :
       {std::pair{"LocalSecondaryIndexes", &c.local_secondary_indexes},
        std::pair{"GlobalSecondaryIndexes", &c.global_secondary_indexes}}) {
    if (!*indexes) continue;
    Key(w, name);
    w.StartObject();
    for (const auto& [index, cap] : **indexes) {
      Str(w, index);
      WriteCapacityFields(w, cap);
    }
    w.EndObject();
  }
  w.EndObject();
}

void WriteConsumedOpt(Writer& w, const std::optional<ConsumedCapacity>& c) {
  if (!c) return;
  Key(w, "ConsumedCapacity");
  WriteConsumed(w, *c);
}

void WriteConsumedList(Writer& w, const std::vector<ConsumedCapacity>& list) {
  if (list.empty()) return;
  Key(w, "ConsumedCapacity");
  w.StartArray();
  for (const auto& c : list) WriteConsumed(w, c);
  w.EndArray();
}

void WriteMetrics(Writer& w, const ItemCollectionMetrics& m) {
  w.StartObject();
  Key(w, "ItemCollectionKey");
  WriteItem(w, m.item_collection_key);
  Key(w, "SizeEstimateRangeGB");
  w.StartArray();
  for (double d : m.size_estimate_range_gb) w.Double(d);
  w.EndArray();
  w.EndObject();
}

void WriteMetricsOpt(Writer& w, const std::optional<ItemCollectionMetrics>& m) {
  if (!m) return;
  Key(w, "ItemCollectionMetrics");
  WriteMetrics(w, *m);
}

void WriteMetricsMap(Writer& w,
                     const std::map<std::string, std::vector<ItemCollectionMetrics>>& m) {
  if (m.empty()) return;
  Key(w, "ItemCollectionMetrics");
  w.StartObject();
  for (const auto& [table, list] : m) {
    Str(w, table);
    w.StartArray();
    for (const auto& x : list) WriteMetrics(w, x);
    w.EndArray();
  }
  w.EndObject();
}

void WriteAttributesOpt(Writer& w, const std::optional<Item>& item,
                        const char* name = "Attributes") {
  if (!item) return;
  Key(w, name);
  WriteItem(w, *item);
}

// ---- Operations ---------------------------------------------------------------------------------


void CreateTable(Database* db, const CreateTableRequest& r, Writer& w) {
  auto out = Check(db->CreateTable(r));
  w.StartObject();
  Key(w, "TableDescription");
  WriteTable(w, out.table_description);
  w.EndObject();
}

void DescribeTable(Database* db, const DescribeTableRequest& r, Writer& w) {
  auto out = Check(db->DescribeTable(r));
  w.StartObject();
  Key(w, "Table");
  WriteTable(w, out.table);
  w.EndObject();
}

void DeleteTable(Database* db, const DeleteTableRequest& r, Writer& w) {
  auto out = Check(db->DeleteTable(r));
  w.StartObject();
  Key(w, "TableDescription");
  WriteTable(w, out.table_description);
  w.EndObject();
}

void UpdateTable(Database* db, const UpdateTableRequest& r, Writer& w) {
  auto out = Check(db->UpdateTable(r));
  w.StartObject();
  Key(w, "TableDescription");
  WriteTable(w, out.table_description);
  w.EndObject();
}

void ListTables(Database* db, const ListTablesRequest& r, Writer& w) {
  auto out = Check(db->ListTables(r));
  w.StartObject();
  Key(w, "TableNames");
  w.StartArray();
  for (const auto& t : out.table_names) Str(w, t);
  w.EndArray();
  if (out.last_evaluated_table_name) {
    Key(w, "LastEvaluatedTableName");
    Str(w, *out.last_evaluated_table_name);
  }
  w.EndObject();
}

void PutItem(Database* db, const PutItemRequest& r, Writer& w) {
  auto out = Check(db->PutItem(r));
  w.StartObject();
  WriteAttributesOpt(w, out.attributes);
  WriteConsumedOpt(w, out.consumed_capacity);
  WriteMetricsOpt(w, out.item_collection_metrics);
  w.EndObject();
}

// The item comes as stored (ItemEncoding::kStored): JSON is written from
// the view in place.
void GetItem(Database* db, const GetItemRequest& r, Writer& w) {
  auto out = Check(db->GetItem(r));
  w.StartObject();
  if (!out.stored_item.empty()) {
    Key(w, "Item");
    Check(format::WriteJson(&w, out.stored_item[0]));
  }
  WriteConsumedOpt(w, out.consumed_capacity);
  w.EndObject();
}

void DeleteItem(Database* db, const DeleteItemRequest& r, Writer& w) {
  auto out = Check(db->DeleteItem(r));
  w.StartObject();
  WriteAttributesOpt(w, out.attributes);
  WriteConsumedOpt(w, out.consumed_capacity);
  WriteMetricsOpt(w, out.item_collection_metrics);
  w.EndObject();
}

void UpdateItem(Database* db, const UpdateItemRequest& r, Writer& w) {
  auto out = Check(db->UpdateItem(r));
  w.StartObject();
  WriteAttributesOpt(w, out.attributes);
  WriteConsumedOpt(w, out.consumed_capacity);
  WriteMetricsOpt(w, out.item_collection_metrics);
  w.EndObject();
}

// Select=COUNT pages carry no Items member, as in DynamoDB. The items come
// as stored (ItemEncoding::kStored): JSON is written from the views in place.
void WritePage(Writer& w, const QueryResponse& out, bool count_only) {
  w.StartObject();
  if (!count_only) {
    Key(w, "Items");
    w.StartArray();
    for (const ItemView& item : out.stored_items) Check(format::WriteJson(&w, item));
    w.EndArray();
  }
  Key(w, "Count");
  w.Int(out.count);
  Key(w, "ScannedCount");
  w.Int(out.scanned_count);
  WriteAttributesOpt(w, out.last_evaluated_key, "LastEvaluatedKey");
  WriteConsumedOpt(w, out.consumed_capacity);
  w.EndObject();
}

void Query(Database* db, const QueryRequest& r, Writer& w) {
  WritePage(w, Check(db->Query(r)), r.select == Select::kCount);
}

void Scan(Database* db, const ScanRequest& r, Writer& w) {
  WritePage(w, Check(db->Scan(r)), r.select == Select::kCount);
}

void WriteKeysAndAttributes(Writer& w, const KeysAndAttributes& ka) {
  w.StartObject();
  Key(w, "Keys");
  w.StartArray();
  for (const auto& k : ka.keys) WriteItem(w, k);
  w.EndArray();
  if (ka.consistent_read) {
    Key(w, "ConsistentRead");
    w.Bool(true);
  }
  if (ka.projection_expression) {
    Key(w, "ProjectionExpression");
    Str(w, *ka.projection_expression);
  }
  // Resent as is, so the retry projects the same attributes.
  if (ka.attributes_to_get) {
    Key(w, "AttributesToGet");
    w.StartArray();
    for (const auto& a : *ka.attributes_to_get) Str(w, a);
    w.EndArray();
  }
  if (ka.expression_attribute_names) {
    Key(w, "ExpressionAttributeNames");
    w.StartObject();
    for (const auto& [k, v] : *ka.expression_attribute_names) {
      Str(w, k);
      Str(w, v);
    }
    w.EndObject();
  }
  w.EndObject();
}

void BatchGetItem(Database* db, const BatchGetItemRequest& r, Writer& w) {
  auto out = Check(db->BatchGetItem(r));
  w.StartObject();
  Key(w, "Responses");
  w.StartObject();
  for (const auto& [table, items] : out.responses) {
    Str(w, table);
    w.StartArray();
    for (const auto& i : items) WriteItem(w, i);
    w.EndArray();
  }
  w.EndObject();
  Key(w, "UnprocessedKeys");
  w.StartObject();
  for (const auto& [table, ka] : out.unprocessed_keys) {
    Str(w, table);
    WriteKeysAndAttributes(w, ka);
  }
  w.EndObject();
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

void BatchWriteItem(Database* db, const BatchWriteItemRequest& r, Writer& w) {
  auto out = Check(db->BatchWriteItem(r));
  w.StartObject();
  Key(w, "UnprocessedItems");
  w.StartObject();
  w.EndObject();
  WriteMetricsMap(w, out.item_collection_metrics);
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

void TransactWriteItems(Database* db, const TransactWriteItemsRequest& r, Writer& w) {
  auto out = Check(db->TransactWriteItems(r));
  w.StartObject();
  WriteMetricsMap(w, out.item_collection_metrics);
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

void TransactGetItems(Database* db, const TransactGetItemsRequest& r, Writer& w) {
  auto out = Check(db->TransactGetItems(r));
  w.StartObject();
  Key(w, "Responses");
  w.StartArray();
  for (const auto& item : out.responses) {
    w.StartObject();
    if (item) {
      Key(w, "Item");
      WriteItem(w, *item);
    }
    w.EndObject();
  }
  w.EndArray();
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

// ---- PartiQL ----

void ExecuteStatement(Database* db, const ExecuteStatementRequest& r, Writer& w) {
  auto out = Check(db->ExecuteStatement(r));
  w.StartObject();
  Key(w, "Items");
  w.StartArray();
  for (const auto& item : out.items) WriteItem(w, item);
  w.EndArray();
  if (out.next_token) {
    Key(w, "NextToken");
    Str(w, *out.next_token);
  }
  WriteConsumedOpt(w, out.consumed_capacity);
  w.EndObject();
}

void BatchExecuteStatement(Database* db, const BatchExecuteStatementRequest& r, Writer& w) {
  auto out = Check(db->BatchExecuteStatement(r));
  w.StartObject();
  Key(w, "Responses");
  w.StartArray();
  for (const auto& response : out.responses) {
    w.StartObject();
    if (response.error) {
      Key(w, "Error");
      w.StartObject();
      Key(w, "Code");
      Str(w, response.error->code);
      Key(w, "Message");
      Str(w, response.error->message);
      WriteAttributesOpt(w, response.error->item, "Item");
      w.EndObject();
    }
    if (response.table_name) {
      Key(w, "TableName");
      Str(w, *response.table_name);
    }
    WriteAttributesOpt(w, response.item, "Item");
    w.EndObject();
  }
  w.EndArray();
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

void ExecuteTransaction(Database* db, const ExecuteTransactionRequest& r, Writer& w) {
  auto out = Check(db->ExecuteTransaction(r));
  w.StartObject();
  if (!out.responses.empty()) {
    Key(w, "Responses");
    w.StartArray();
    for (const auto& item : out.responses) {
      w.StartObject();
      WriteAttributesOpt(w, item, "Item");
      w.EndObject();
    }
    w.EndArray();
  }
  WriteConsumedList(w, out.consumed_capacity);
  w.EndObject();
}

void UpdateTimeToLive(Database* db, const UpdateTimeToLiveRequest& r, Writer& w) {
  auto out = Check(db->UpdateTimeToLive(r));
  w.StartObject();
  Key(w, "TimeToLiveSpecification");
  w.StartObject();
  Key(w, "Enabled");
  w.Bool(out.time_to_live_specification.enabled);
  Key(w, "AttributeName");
  Str(w, out.time_to_live_specification.attribute_name);
  w.EndObject();
  w.EndObject();
}

void DescribeTimeToLive(Database* db, const DescribeTimeToLiveRequest& r, Writer& w) {
  auto out = Check(db->DescribeTimeToLive(r));
  w.StartObject();
  Key(w, "TimeToLiveDescription");
  w.StartObject();
  Key(w, "TimeToLiveStatus");
  w.String(out.enabled ? "ENABLED" : "DISABLED");
  if (out.attribute_name) {
    Key(w, "AttributeName");
    Str(w, *out.attribute_name);
  }
  w.EndObject();
  w.EndObject();
}

void TagResource(Database* db, const TagResourceRequest& r, Writer& w) {
  Status s = db->TagResource(r);
  if (!s.ok()) Fail(s);
  w.StartObject();
  w.EndObject();
}

void UntagResource(Database* db, const UntagResourceRequest& r, Writer& w) {
  Status s = db->UntagResource(r);
  if (!s.ok()) Fail(s);
  w.StartObject();
  w.EndObject();
}

void ListTagsOfResource(Database* db, const ListTagsOfResourceRequest& r, Writer& w) {
  auto out = Check(db->ListTagsOfResource(r));
  w.StartObject();
  Key(w, "Tags");
  w.StartArray();
  for (const auto& [k, v] : out.tags) {
    w.StartObject();
    Key(w, "Key");
    Str(w, k);
    Key(w, "Value");
    Str(w, v);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void DescribeEndpoints(Database*, const protocol::DescribeEndpointsRequest&, Writer& w) {
  w.StartObject();
  Key(w, "Endpoints");
  w.StartArray();
  w.StartObject();
  Key(w, "Address");
  w.String("localhost");
  Key(w, "CachePeriodInMinutes");
  w.Int(1440);
  w.EndObject();
  w.EndArray();
  w.EndObject();
}

void DescribeLimits(Database*, const protocol::DescribeLimitsInput&, Writer& w) {
  w.StartObject();
  for (const char* k : {"AccountMaxReadCapacityUnits", "AccountMaxWriteCapacityUnits"}) {
    Key(w, k);
    w.Int(80000);
  }
  for (const char* k : {"TableMaxReadCapacityUnits", "TableMaxWriteCapacityUnits"}) {
    Key(w, k);
    w.Int(40000);
  }
  w.EndObject();
}

void WriteBackups(Writer& w, const ContinuousBackupsDescription& d) {
  w.StartObject();
  Key(w, "ContinuousBackupsDescription");
  w.StartObject();
  Key(w, "ContinuousBackupsStatus");  // on-demand backups: always available
  w.String("ENABLED");
  Key(w, "PointInTimeRecoveryDescription");
  w.StartObject();
  Key(w, "PointInTimeRecoveryStatus");
  w.String(d.point_in_time_recovery_enabled ? "ENABLED" : "DISABLED");
  if (d.point_in_time_recovery_enabled) {
    Key(w, "EarliestRestorableDateTime");
    w.Double(static_cast<double>(d.earliest_restorable_ms) / 1000.0);
    Key(w, "LatestRestorableDateTime");
    w.Double(static_cast<double>(d.latest_restorable_ms) / 1000.0);
    Key(w, "RecoveryPeriodInDays");
    w.Int(d.recovery_period_in_days);
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
}

void UpdateContinuousBackups(Database* db, const protocol::UpdateContinuousBackupsInput& in,
                             Writer& w) {
  UpdateContinuousBackupsRequest r;
  r.table_name = *in.table_name;
  r.point_in_time_recovery_enabled =
      *in.point_in_time_recovery_specification->point_in_time_recovery_enabled;
  r.recovery_period_in_days = in.point_in_time_recovery_specification->recovery_period_in_days;
  WriteBackups(w, Check(db->UpdateContinuousBackups(r)));
}

void DescribeContinuousBackups(Database* db, const protocol::DescribeContinuousBackupsInput& in,
                               Writer& w) {
  WriteBackups(w, Check(db->DescribeContinuousBackups({*in.table_name})));
}

// What an operation may use: the engine, and the server's export and
// import jobs (null outside a server).
struct Context {
  Database* db;
  jobs::JobManager* jobs;
};

// One served operation: the generated phases 6 and 8 (types, then model
// constraints), the translation onto the engine's request, and the engine.
using Op = std::function<void(const Context&, protocol::Element, Writer&)>;

template <typename Input, typename Request>
Op Serve(void (*run)(Database*, const Request&, Writer&)) {
  return [run](const Context& c, protocol::Element json, Writer& w) {
    Database* db = c.db;
    Input in;
    Check(protocol::Read(json, &in));
    Check(protocol::Check(in));
    if constexpr (std::is_same_v<Input, Request>) {
      run(db, in, w);
    } else {
      ValueErrors value_errors;
      Request request = Check(ToRequest(std::move(in)));
      if (!value_errors.first().ok()) {
        // An invalid AttributeValue loses to the mixing check (5.1).
        if constexpr (requires { CheckParameters(request); }) Check(CheckParameters(request));
        Check(value_errors.first());
      }
      run(db, request, w);
    }
  };
}

// An export or import operation: its JobManager method answers the JSON.
template <typename Input>
Op ServeJob(Result<std::string> (jobs::JobManager::*run)(const Input&)) {
  return [run](const Context& c, protocol::Element json, Writer& w) {
    Input in;
    Check(protocol::Read(json, &in));
    Check(protocol::Check(in));
    if (c.jobs == nullptr) Fail(Status::Internal("this server runs no export or import jobs"));
    std::string out = Check((c.jobs->*run)(in));
    w.RawValue(out.data(), out.size(), rapidjson::kObjectType);
  };
}

const std::map<std::string, Op, std::less<>>& Operations() {
  static const std::map<std::string, Op, std::less<>> ops = {
      {"CreateTable", Serve<protocol::CreateTableInput>(CreateTable)},
      {"DescribeTable", Serve<protocol::DescribeTableInput>(DescribeTable)},
      {"DeleteTable", Serve<protocol::DeleteTableInput>(DeleteTable)},
      {"UpdateTable", Serve<protocol::UpdateTableInput>(UpdateTable)},
      {"ListTables", Serve<protocol::ListTablesInput>(ListTables)},
      {"PutItem", Serve<protocol::PutItemInput>(PutItem)},
      {"GetItem", Serve<protocol::GetItemInput>(GetItem)},
      {"DeleteItem", Serve<protocol::DeleteItemInput>(DeleteItem)},
      {"UpdateItem", Serve<protocol::UpdateItemInput>(UpdateItem)},
      {"Query", Serve<protocol::QueryInput>(Query)},
      {"Scan", Serve<protocol::ScanInput>(Scan)},
      {"BatchGetItem", Serve<protocol::BatchGetItemInput>(BatchGetItem)},
      {"BatchWriteItem", Serve<protocol::BatchWriteItemInput>(BatchWriteItem)},
      {"TransactWriteItems", Serve<protocol::TransactWriteItemsInput>(TransactWriteItems)},
      {"TransactGetItems", Serve<protocol::TransactGetItemsInput>(TransactGetItems)},
      {"UpdateTimeToLive", Serve<protocol::UpdateTimeToLiveInput>(UpdateTimeToLive)},
      {"DescribeTimeToLive", Serve<protocol::DescribeTimeToLiveInput>(DescribeTimeToLive)},
      {"TagResource", Serve<protocol::TagResourceInput>(TagResource)},
      {"UntagResource", Serve<protocol::UntagResourceInput>(UntagResource)},
      {"ListTagsOfResource", Serve<protocol::ListTagsOfResourceInput>(ListTagsOfResource)},
      {"DescribeLimits", Serve<protocol::DescribeLimitsInput>(DescribeLimits)},
      {"DescribeEndpoints", Serve<protocol::DescribeEndpointsRequest>(DescribeEndpoints)},
      {"UpdateContinuousBackups",
       Serve<protocol::UpdateContinuousBackupsInput>(UpdateContinuousBackups)},
      {"DescribeContinuousBackups",
       Serve<protocol::DescribeContinuousBackupsInput>(DescribeContinuousBackups)},
      {"ExportTableToPointInTime", ServeJob(&jobs::JobManager::ExportTableToPointInTime)},
      {"DescribeExport", ServeJob(&jobs::JobManager::DescribeExport)},
      {"ListExports", ServeJob(&jobs::JobManager::ListExports)},
      {"ImportTable", ServeJob(&jobs::JobManager::ImportTable)},
      {"DescribeImport", ServeJob(&jobs::JobManager::DescribeImport)},
      {"ListImports", ServeJob(&jobs::JobManager::ListImports)},
      {"ExecuteStatement", Serve<protocol::ExecuteStatementInput>(ExecuteStatement)},
      {"BatchExecuteStatement",
       Serve<protocol::BatchExecuteStatementInput>(BatchExecuteStatement)},
      {"ExecuteTransaction", Serve<protocol::ExecuteTransactionInput>(ExecuteTransaction)},
  };
  return ops;
}

std::string ErrorNamespace(const Status& s) {
  switch (s.code()) {
    case Status::Code::kValidation:
      return "com.amazon.coral.validate#";
    case Status::Code::kSerialization:
    case Status::Code::kAccessDenied:
      return "com.amazon.coral.service#";
    default:
      return "com.amazonaws.dynamodb.v20120810#";
  }
}

// Extra error-body members DynamoDB sends: the old item of a failed
// condition, a transaction's cancellation reasons.
void WriteErrorDetail(Writer& w, const Status& s) {
  if (const auto* c = s.payload<ConditionalCheckFailedDetail>()) {
    if (c->item) {
      Key(w, "Item");
      WriteItem(w, *c->item);
    }
  }
  if (const auto* t = s.payload<ThrottlingDetail>()) {
    // The member's case differs between the two exceptions in DynamoDB's model.
    Key(w, s.code() == Status::Code::kThrottling ? "throttlingReasons" : "ThrottlingReasons");
    w.StartArray();
    for (const auto& r : t->reasons) {
      w.StartObject();
      Key(w, "reason");
      Str(w, r.reason);
      Key(w, "resource");
      Str(w, r.resource);
      w.EndObject();
    }
    w.EndArray();
  }
  if (const auto* t = s.payload<TransactionCanceledDetail>()) {
    Key(w, "CancellationReasons");
    w.StartArray();
    for (const auto& r : t->reasons) {
      w.StartObject();
      Key(w, "Code");
      Str(w, r.code);
      if (r.message) {
        Key(w, "Message");
        Str(w, *r.message);
      }
      if (r.item) {
        Key(w, "Item");
        WriteItem(w, *r.item);
      }
      w.EndObject();
    }
    w.EndArray();
  }
}

}  // namespace

WireResponse HealthResponse(Database* db, const std::string& region) {
  Status health = db->Health();
  if (!health.ok()) return {500, "unhealthy: " + health.message() + "\n"};
  return {200, "healthy: dynamodb." + region + ".amazonaws.com "};
}

WireResponse ErrorResponse(const Status& status) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  Key(w, "__type");
  // Every internal condition (corruption, I/O, ...) is DynamoDB's InternalServerError.
  const bool internal = status.ErrorName() == "InternalServerError";
  std::string type = ErrorNamespace(status) + std::string(status.ErrorName());
  if (internal) type = "com.amazonaws.dynamodb.v20120810#InternalServerError";
  Str(w, type);
  // VALIDATION.md 7: coral's type errors and a few others say "Message".
  const std::string_view name = status.ErrorName();
  const bool capital = status.code() == Status::Code::kSerialization ||
                       name == "TransactionCanceledException" ||
                       name == "IdempotentParameterMismatchException" ||
                       name == "TransactionInProgressException" ||
                       name == "AccessDeniedException";
  Key(w, capital ? "Message" : "message");
  Str(w, status.message());
  WriteErrorDetail(w, status);
  w.EndObject();
  return {internal ? 500 : 400, std::string(buf.GetString(), buf.GetSize())};
}

namespace {

WireResponse BareError(std::string_view name) {
  return {400, "{\"__type\":\"com.amazon.coral.service#" + std::string(name) + "\"}"};
}

// DynamoDB operations Dynarock does not serve, and what to use instead. They
// get DynamoDB's answer to an unknown target, UnknownOperationException, so
// clients that probe for an operation see it missing, with a Message that
// says so (a name DynamoDB does not have gets the bare error).
std::optional<std::string> NotServed(std::string_view op) {
  static constexpr std::string_view kBackups =
      "on-demand backups and restores into a new table are not implemented: use "
      "ExportTableToPointInTime and ImportTable, or `dynarock dump` and `dynarock restore`";
  static constexpr std::string_view kGlobal =
      "global tables are not implemented: replicate with DynamoDB or ScyllaDB Alternator, which "
      "speak the same protocol";
  static constexpr std::string_view kKinesis =
      "Kinesis streaming destinations are not implemented: read changes from DynamoDB Streams, "
      "served on this endpoint";
  static constexpr std::string_view kInsights =
      "Contributor Insights is not implemented: `dynarock top` (or GET "
      "/console/api/hottest) shows the most accessed item collections of a table and its GSIs";
  static constexpr std::string_view kPolicies =
      "resource-based policies are not implemented: Dynarock has no IAM";
  static const std::map<std::string_view, std::string_view> reasons = {
      {"CreateBackup", kBackups},
      {"DeleteBackup", kBackups},
      {"DescribeBackup", kBackups},
      {"ListBackups", kBackups},
      {"RestoreTableFromBackup", kBackups},
      {"RestoreTableToPointInTime", kBackups},
      {"CreateGlobalTable", kGlobal},
      {"DescribeGlobalTable", kGlobal},
      {"DescribeGlobalTableSettings", kGlobal},
      {"ListGlobalTables", kGlobal},
      {"UpdateGlobalTable", kGlobal},
      {"UpdateGlobalTableSettings", kGlobal},
      {"DescribeTableReplicaAutoScaling", kGlobal},
      {"UpdateTableReplicaAutoScaling", kGlobal},
      {"DescribeKinesisStreamingDestination", kKinesis},
      {"EnableKinesisStreamingDestination", kKinesis},
      {"DisableKinesisStreamingDestination", kKinesis},
      {"UpdateKinesisStreamingDestination", kKinesis},
      {"DescribeContributorInsights", kInsights},
      {"ListContributorInsights", kInsights},
      {"UpdateContributorInsights", kInsights},
      {"GetResourcePolicy", kPolicies},
      {"PutResourcePolicy", kPolicies},
      {"DeleteResourcePolicy", kPolicies},
  };
  auto it = reasons.find(op);
  if (it == reasons.end()) return std::nullopt;
  return "Dynarock does not serve " + std::string(op) + ": " + std::string(it->second);
}

WireResponse UnknownOperation(std::string_view op) {
  auto why = NotServed(op);
  if (!why) return BareError("UnknownOperationException");
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  Key(w, "__type");
  w.String("com.amazon.coral.service#UnknownOperationException");
  Key(w, "Message");
  Str(w, *why);
  w.EndObject();
  return {400, std::string(buf.GetString(), buf.GetSize())};
}

// Deeper than any request DynamoDB accepts: an AttributeValue nests 32
// levels, two JSON levels each, inside a few levels of request.
constexpr size_t kMaxJsonDepth = 96;
// Parsers keep their buffers between requests; a larger body gets a parser
// of its own, so that one 16 MB request does not pin 16 MB per thread.
constexpr size_t kReusedParserBytes = 1 << 20;

}  // namespace

WireResponse Handle(Database* db, std::string_view target, std::string_view body,
                    const Authenticator& authenticate, jobs::JobManager* job_manager) {
  // VALIDATION.md 0: JSON, then the target, then authentication, then an
  // empty body; the first failure wins.
  auto make_parser = [](size_t max_bytes) {
    simdjson::dom::parser p(max_bytes);
    // Sets the depth bound once; parse() grows the buffers and keeps it.
    // Deliberately ignored failure: parse() then allocates by itself, with
    // simdjson's default bound (1024 levels), still far below the stack.
    [[maybe_unused]] const auto ignored =
        p.allocate(std::min<size_t>(max_bytes, 64 << 10), kMaxJsonDepth);
    return p;
  };
  thread_local simdjson::dom::parser reused = make_parser(kReusedParserBytes);
  std::optional<simdjson::dom::parser> own;
  simdjson::dom::parser* parser = &reused;
  if (body.size() > kReusedParserBytes) parser = &own.emplace(make_parser(body.size()));
  protocol::Element root;
  if (!body.empty() && parser->parse(body.data(), body.size()).get(root) != simdjson::SUCCESS) {
    return BareError("SerializationException");
  }
  // Both services on one port, told apart by the target's prefix.
  constexpr std::string_view kPrefix = "DynamoDB_20120810.";
  if (target.starts_with(streams_wire::kTargetPrefix)) {
    const std::string_view name = target.substr(streams_wire::kTargetPrefix.size());
    if (!streams_wire::IsOperation(name)) return BareError("UnknownOperationException");
    if (authenticate) {
      if (auto denied = authenticate()) return std::move(*denied);
    }
    if (body.empty()) return BareError("SerializationException");
    return streams_wire::Serve(db, name, root);
  }
  if (target.substr(0, kPrefix.size()) != kPrefix) return BareError("UnknownOperationException");
  auto op = Operations().find(target.substr(kPrefix.size()));
  if (op == Operations().end()) return UnknownOperation(target.substr(kPrefix.size()));
  if (authenticate) {
    if (auto denied = authenticate()) return std::move(*denied);
  }
  if (body.empty()) return BareError("SerializationException");
  try {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    op->second(Context{db, job_manager}, root, w);
    return {200, std::string(buf.GetString(), buf.GetSize())};
  } catch (const WireError& e) {
    return ErrorResponse(e.status);
  } catch (const std::exception& e) {
    return ErrorResponse(Status::Internal(e.what()));
  }
}

}  // namespace dynarock::wire
