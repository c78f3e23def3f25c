// Dynarock's typed requests and responses. They mirror DynamoDB's operations
// field for field (names in snake_case), so the HTTP front end maps JSON onto
// them 1:1 and embedded users get exactly DynamoDB's semantics and errors.
//
// The correspondence is load-bearing: the server's request translation and
// answers are generated from it (tools/codegen/gen_requests.py and
// gen_writers.py read this header). A field named after its model member
// (TableSizeBytes -> table_size_bytes), with a type that pairs with the
// model's, is served once the generator is run; one named otherwise needs an
// entry in the generator's tables. A request member with no field fails the
// generator until it is mapped or refused; an answer member with no field is
// listed in the generated code as not carried.
#ifndef DYNAROCK_TYPES_H_
#define DYNAROCK_TYPES_H_

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/item_view.h"
#include "dynarock/number.h"
#include "dynarock/status.h"

namespace dynarock {

// ---- Tables -------------------------------------------------------------------

enum class KeyType { kHash, kRange };

struct KeySchemaElement {
  std::string attribute_name{};
  KeyType key_type = KeyType::kHash;
};

struct AttributeDefinition {
  std::string attribute_name{};
  ScalarAttributeType attribute_type = ScalarAttributeType::kS;
};

enum class BillingMode { kProvisioned, kPayPerRequest };

struct ProvisionedThroughput {
  int64_t read_capacity_units = 0;
  int64_t write_capacity_units = 0;
};

// Which attributes an index stores beside its keys and the table's keys.
// Stored in table descriptors (schemas/catalog.fbs): never renumber.
enum class ProjectionType { kKeysOnly = 0, kInclude = 1, kAll = 2 };
struct Projection {
  // KEYS_ONLY unless set. DynamoDB requires it: reset, CreateTable and
  // UpdateTable answer "Unknown ProjectionType: null" (a request read from
  // JSON without one arrives so).
  std::optional<ProjectionType> projection_type = ProjectionType::kKeysOnly;
  std::vector<std::string> non_key_attributes{};  // INCLUDE only
};

// An LSI shares the table's partition key and orders its collection by
// another attribute; its entries count towards the collection's size limit.
struct LocalSecondaryIndex {
  std::string index_name{};
  std::vector<KeySchemaElement> key_schema{};  // the table's HASH key, then a RANGE key
  Projection projection{};
};

// A GSI has its own partition key (and optional sort key). Dynarock updates
// GSIs in the same batch as the table, so they are strongly consistent.
enum class IndexStatus { kCreating, kUpdating, kDeleting, kActive };
enum class TableStatus { kCreating, kActive, kDeleting, kUpdating };

// The most read and write request units per second an on-demand table (or
// GSI) may take: requests beyond them are throttled. Each member is at least
// 1, or -1 to remove that maximum (UpdateTable).
struct OnDemandThroughput {
  std::optional<int64_t> max_read_request_units{};
  std::optional<int64_t> max_write_request_units{};
};
// The read and write units per second a table (or GSI) can take at once
// (DynamoDB's pre-warming): stored as given, never lowered; locally it
// changes nothing else.
struct WarmThroughput {
  std::optional<int64_t> read_units_per_second{};
  std::optional<int64_t> write_units_per_second{};
};
// How DescribeTable reports it: the values given, and ACTIVE.
struct TableWarmThroughputDescription {
  std::optional<int64_t> read_units_per_second{};
  std::optional<int64_t> write_units_per_second{};
  TableStatus status = TableStatus::kActive;
};
struct GlobalSecondaryIndexWarmThroughputDescription {
  std::optional<int64_t> read_units_per_second{};
  std::optional<int64_t> write_units_per_second{};
  IndexStatus status = IndexStatus::kActive;
};

struct GlobalSecondaryIndex {
  std::string index_name{};
  std::vector<KeySchemaElement> key_schema{};
  Projection projection{};
  std::optional<ProvisionedThroughput> provisioned_throughput{};
  std::optional<OnDemandThroughput> on_demand_throughput{};
  std::optional<WarmThroughput> warm_throughput{};
};

// DynamoDB Streams: a table's stream carries one record per item change
// (engine/streams/). The view type fixes what each record carries; it cannot
// change in place (disable, then enable a new stream).
// Stored in descriptors (schemas/catalog.fbs): never renumber.
enum class StreamViewType { kKeysOnly = 0, kNewImage = 1, kOldImage = 2, kNewAndOldImages = 3 };
struct StreamSpecification {
  bool stream_enabled = false;
  std::optional<StreamViewType> stream_view_type{};  // required to enable, absent to disable
};

// DynamoDB's table classes. Stored in table descriptors (schemas/catalog.fbs):
// never renumber.
enum class TableClass { kStandard = 0, kStandardInfrequentAccess = 1 };
struct TableClassSummary {
  TableClass table_class = TableClass::kStandard;
  double last_update_date_time = 0;  // seconds since the epoch
};

// Vector indexes (DynamoDB, August 2026): the third kind of secondary
// index, over an item's vector attribute (an L of `dimensions` N values),
// searched by SearchVectors for the items nearest a vector. A HASH search
// attribute splits it into one collection per value (a search reads one);
// INLINE_FILTER attributes can be matched by equality during a search.
enum class DistanceFunction { kCosine, kEuclidean, kDotProduct };
enum class SearchSchemaElementType { kHash, kInlineFilter };
struct SearchSchemaElement {
  std::string attribute_name{};
  SearchSchemaElementType search_schema_element_type = SearchSchemaElementType::kHash;
};
struct VectorAttribute {
  std::string attribute_name{};
};
// CreateTable's VectorIndexes and UpdateTable's Create: PAY_PER_REQUEST
// tables only, at most 5 per table, 1 to 4,096 dimensions; the vector
// attribute is not in AttributeDefinitions, every SearchSchema attribute is
// (at most one HASH, 18 INLINE_FILTER). Immutable once created.
struct VectorIndex {
  std::string index_name{};
  VectorAttribute vector_attribute{};
  int64_t dimensions = 0;
  DistanceFunction distance_function = DistanceFunction::kCosine;
  Projection projection{};
  std::optional<std::vector<SearchSchemaElement>> search_schema{};
};
struct VectorIndexDescription {
  std::string index_name{};
  VectorAttribute vector_attribute{};
  int64_t dimensions = 0;
  DistanceFunction distance_function = DistanceFunction::kCosine;
  std::optional<std::vector<SearchSchemaElement>> search_schema{};
  Projection projection{};
  IndexStatus index_status = IndexStatus::kActive;
  std::optional<bool> backfilling{};  // present (true) only while backfilling
  int64_t index_size_bytes = 0;
  int64_t item_count = 0;
  std::string index_arn{};
};
// UpdateTable's VectorIndexUpdates: exactly one member set.
struct VectorIndexUpdate {
  std::optional<VectorIndex> create{};
  std::optional<std::string> delete_index_name{};
};

struct CreateTableRequest {
  std::string table_name{};
  std::vector<AttributeDefinition> attribute_definitions{};
  std::vector<KeySchemaElement> key_schema{};
  // Absent means PROVISIONED, as in DynamoDB (which then requires throughput).
  std::optional<BillingMode> billing_mode{};
  std::optional<ProvisionedThroughput> provisioned_throughput{};
  std::optional<std::vector<LocalSecondaryIndex>> local_secondary_indexes{};
  std::optional<std::vector<GlobalSecondaryIndex>> global_secondary_indexes{};
  std::optional<StreamSpecification> stream_specification{};
  // Tags the table at creation, as TagResource would (at most 50).
  std::optional<std::map<std::string, std::string>> tags{};
  // While set, DeleteTable refuses the table (UpdateTable clears it).
  bool deletion_protection_enabled = false;
  // STANDARD unless given. Stored and described; it changes nothing else
  // locally (DynamoDB's Infrequent Access class changes only the price).
  std::optional<TableClass> table_class{};
  std::optional<OnDemandThroughput> on_demand_throughput{};
  std::optional<WarmThroughput> warm_throughput{};
  // A resource-based policy document (JSON, at most 20 KB) attached to the
  // table at creation, as PutResourcePolicy would attach it.
  std::optional<std::string> resource_policy{};
  std::optional<std::vector<VectorIndex>> vector_indexes{};
};

struct LocalSecondaryIndexDescription {
  std::string index_name{};
  std::vector<KeySchemaElement> key_schema{};
  Projection projection{};
  int64_t index_size_bytes = 0;
  int64_t item_count = 0;
  std::string index_arn{};
};

struct GlobalSecondaryIndexDescription {
  std::string index_name{};
  std::vector<KeySchemaElement> key_schema{};
  Projection projection{};
  IndexStatus index_status = IndexStatus::kActive;
  bool backfilling = false;
  ProvisionedThroughput provisioned_throughput{};
  int64_t index_size_bytes = 0;
  int64_t item_count = 0;
  std::string index_arn{};
  std::optional<OnDemandThroughput> on_demand_throughput{};
  std::optional<GlobalSecondaryIndexWarmThroughputDescription> warm_throughput{};
};

struct TableDescription {
  std::string table_name{};
  std::string table_id{};   // a UUID, as DynamoDB's TableId
  std::string table_arn{};  // arn:aws:dynamodb:<region>:<account>:table/<name>
  TableStatus table_status = TableStatus::kActive;
  std::vector<AttributeDefinition> attribute_definitions{};
  std::vector<KeySchemaElement> key_schema{};  // HASH first, then RANGE if any
  double creation_date_time = 0;             // seconds since the epoch
  BillingMode billing_mode = BillingMode::kProvisioned;
  // BillingModeSummary.LastUpdateToPayPerRequestDateTime: when the table
  // last became on-demand (its creation, if created so); absent if never.
  std::optional<double> last_update_to_pay_per_request_date_time{};
  ProvisionedThroughput provisioned_throughput{};  // zeros for PAY_PER_REQUEST
  // Exact, from the engine's statistics (DynamoDB refreshes them every ~6 h).
  int64_t item_count = 0;
  int64_t table_size_bytes = 0;  // DynamoDB item sizes (format/item_size.h)
  std::optional<std::vector<LocalSecondaryIndexDescription>> local_secondary_indexes{};
  std::optional<std::vector<GlobalSecondaryIndexDescription>> global_secondary_indexes{};
  // Present while a stream is enabled (absent after a disable, as DynamoDB).
  std::optional<StreamSpecification> stream_specification{};
  // The latest stream, enabled or not: stays after a disable.
  std::optional<std::string> latest_stream_arn{};
  std::optional<std::string> latest_stream_label{};
  bool deletion_protection_enabled = false;
  // Present once a table class was given (at creation or by UpdateTable).
  std::optional<TableClassSummary> table_class_summary{};
  // Present once a maximum, or a warm throughput, was given.
  std::optional<OnDemandThroughput> on_demand_throughput{};
  std::optional<TableWarmThroughputDescription> warm_throughput{};
  std::optional<std::vector<VectorIndexDescription>> vector_indexes{};
};

struct CreateTableResponse {
  TableDescription table_description{};
};

struct DescribeTableRequest {
  std::string table_name{};
};
struct DescribeTableResponse {
  TableDescription table{};
};

struct ListTablesRequest {
  std::optional<std::string> exclusive_start_table_name{};
  std::optional<int32_t> limit{};  // 1..100, default 100
};
struct ListTablesResponse {
  std::vector<std::string> table_names{};  // ascending
  std::optional<std::string> last_evaluated_table_name{};
};

// UpdateTable: billing and throughput changes (the table's and its GSIs'),
// and adding or deleting one GSI per call. A new GSI is backfilled from the
// table's items in the background; while it fills it is CREATING and
// cannot be read.
struct CreateGlobalSecondaryIndexAction {
  std::string index_name{};
  std::vector<KeySchemaElement> key_schema{};
  Projection projection{};
  std::optional<ProvisionedThroughput> provisioned_throughput{};
  std::optional<OnDemandThroughput> on_demand_throughput{};
  std::optional<WarmThroughput> warm_throughput{};
};
// A GSI's own provisioned throughput (provisioned tables only), its
// on-demand maximum, or its warm throughput: at least one.
struct UpdateGlobalSecondaryIndexAction {
  std::string index_name{};
  std::optional<ProvisionedThroughput> provisioned_throughput{};
  std::optional<OnDemandThroughput> on_demand_throughput{};
  std::optional<WarmThroughput> warm_throughput{};
};
// Exactly one member set.
struct GlobalSecondaryIndexUpdate {
  std::optional<CreateGlobalSecondaryIndexAction> create{};
  std::optional<std::string> delete_index_name{};
  std::optional<UpdateGlobalSecondaryIndexAction> update{};
};
struct UpdateTableRequest {
  std::string table_name{};
  std::optional<std::vector<AttributeDefinition>> attribute_definitions{};  // for new index keys
  std::optional<BillingMode> billing_mode{};
  std::optional<ProvisionedThroughput> provisioned_throughput{};
  std::optional<std::vector<GlobalSecondaryIndexUpdate>> global_secondary_index_updates{};
  // Enables a new stream or disables the current one.
  std::optional<StreamSpecification> stream_specification{};
  // Turns deletion protection on or off (setting it as it is changes nothing
  // and is no error).
  std::optional<bool> deletion_protection_enabled{};
  std::optional<TableClass> table_class{};
  std::optional<OnDemandThroughput> on_demand_throughput{};
  std::optional<WarmThroughput> warm_throughput{};
  // Adds or deletes a vector index (one online index change at a time,
  // GSIs' included).
  std::optional<std::vector<VectorIndexUpdate>> vector_index_updates{};
};
// Resource-based policies: a JSON policy document attached to a table or
// to its latest stream, by ARN, with a revision id. Dynarock has no IAM:
// a policy grants and denies nothing here; it is validated as a JSON object
// of at most 20 KB, stored with the table, and kept by dump and restore.
struct PutResourcePolicyRequest {
  std::string resource_arn{};
  std::string policy{};
  // If given, the policy is replaced only if this is its current revision.
  std::optional<std::string> expected_revision_id{};
  bool confirm_remove_self_resource_access = false;  // accepted; nothing to lock out here
};
struct PutResourcePolicyResponse {
  std::optional<std::string> revision_id{};
};
struct GetResourcePolicyRequest {
  std::string resource_arn{};
};
struct GetResourcePolicyResponse {
  std::optional<std::string> policy{};
  std::optional<std::string> revision_id{};
};
struct DeleteResourcePolicyRequest {
  std::string resource_arn{};
  std::optional<std::string> expected_revision_id{};
};
struct DeleteResourcePolicyResponse {
  std::optional<std::string> revision_id{};  // the deleted policy's; absent if none was attached
};

struct UpdateTableResponse {
  TableDescription table_description{};
};

// Time to live: items whose TTL attribute (a number, epoch seconds) is in the
// past are deleted by a background sweep (Options::ttl_sweep_interval_ms),
// through the ordinary write path: indexes, statistics and the stream see a
// TTL deletion as a delete.
struct TimeToLiveSpecification {
  bool enabled = false;
  std::string attribute_name{};
};
struct UpdateTimeToLiveRequest {
  std::string table_name{};
  TimeToLiveSpecification time_to_live_specification{};
};
struct UpdateTimeToLiveResponse {
  TimeToLiveSpecification time_to_live_specification{};
};
struct DescribeTimeToLiveRequest {
  std::string table_name{};
};
struct DescribeTimeToLiveResponse {
  bool enabled = false;  // TimeToLiveStatus ENABLED / DISABLED
  std::optional<std::string> attribute_name{};
};

// Point-in-time recovery (UpdateContinuousBackups / DescribeContinuousBackups).
struct UpdateContinuousBackupsRequest {
  std::string table_name{};
  bool point_in_time_recovery_enabled = false;
  std::optional<int32_t> recovery_period_in_days{};  // 1-35; only with an enable
};
struct DescribeContinuousBackupsRequest {
  std::string table_name{};
};
// ContinuousBackupsDescription. Dynarock keeps no history: a point-in-time
// export is the table as it is when the export starts, so the restorable
// window is the last minute (DynamoDB's own tolerance for an export point),
// never earlier than the enable.
struct ContinuousBackupsDescription {
  bool point_in_time_recovery_enabled = false;  // PointInTimeRecoveryStatus
  int64_t earliest_restorable_ms = 0;           // when enabled
  int64_t latest_restorable_ms = 0;
  int32_t recovery_period_in_days = 35;
};

// Tags on a table, addressed by its ARN.
struct TagResourceRequest {
  std::string resource_arn{};
  std::map<std::string, std::string> tags{};
};
struct UntagResourceRequest {
  std::string resource_arn{};
  std::vector<std::string> tag_keys{};
};
struct ListTagsOfResourceRequest {
  std::string resource_arn{};
};
struct ListTagsOfResourceResponse {
  std::map<std::string, std::string> tags{};
};

// A table with deletion protection is refused (ValidationException) until an
// UpdateTable turns the protection off.
struct DeleteTableRequest {
  std::string table_name{};
};
struct DeleteTableResponse {
  TableDescription table_description{};  // status DELETING, as DynamoDB answers
};

// ---- Expressions and their legacy equivalents -----------------------------------

// ExpressionAttributeNames (#name -> attribute name) and
// ExpressionAttributeValues (:value -> value) of one request.
using ExpressionAttributeNames = std::map<std::string, std::string>;
using ExpressionAttributeValues = std::map<std::string, AttributeValue>;

// The legacy (pre-expression) parameters older applications still send:
// Expected, KeyConditions, QueryFilter, ScanFilter, AttributeUpdates,
// AttributesToGet, ConditionalOperator. They compile to the same expression
// trees and are evaluated by the same code; a request may not mix them with
// expression parameters.
enum class ComparisonOperator {
  kEq, kNe, kIn, kLe, kLt, kGe, kGt, kBetween, kNotNull, kNull, kContains, kNotContains,
  kBeginsWith,
};
struct LegacyCondition {  // DynamoDB's "Condition" shape
  ComparisonOperator comparison_operator = ComparisonOperator::kEq;
  std::vector<AttributeValue> attribute_value_list{};
};
struct ExpectedAttributeValue {
  std::optional<AttributeValue> value{};
  std::optional<bool> exists{};
  std::optional<ComparisonOperator> comparison_operator{};
  std::vector<AttributeValue> attribute_value_list{};
};
enum class ConditionalOperator { kAnd, kOr };
enum class AttributeAction { kPut, kAdd, kDelete };
struct AttributeValueUpdate {
  std::optional<AttributeValue> value{};
  AttributeAction action = AttributeAction::kPut;
};

// ---- Consumed capacity ----------------------------------------------------------

// ReturnConsumedCapacity: NONE, TOTAL (the table's total) or INDEXES (also
// broken down by table and index). Units follow DynamoDB's rules: a read
// unit is one strongly consistent read of up to 4 KB (eventual reads cost
// half), a write unit one write of up to 1 KB, transactional operations
// twice as much, and each index a write touches costs its own units.
enum class ReturnConsumedCapacity { kNone, kTotal, kIndexes };

struct Capacity {
  double read_capacity_units = 0;
  double write_capacity_units = 0;
  double capacity_units = 0;
};

// What a vector index request consumed: bytes, not capacity units. A
// search: the bytes of the entries it read, at least 1,024. A write: for
// each item write that changes an index's entry, the entry's size (the
// larger of the old and new: 4 bytes per dimension, the vector attribute's
// name and the projected item), at least 1,024.
struct VectorCapacity {
  std::optional<int64_t> vector_search_request_bytes{};  // at least 1,024
  std::optional<int64_t> vector_write_request_bytes{};
};

struct ConsumedCapacity {
  std::string table_name{};
  double capacity_units = 0;
  double read_capacity_units = 0;
  double write_capacity_units = 0;
  std::optional<Capacity> table{};  // INDEXES only
  std::optional<std::map<std::string, Capacity>> local_secondary_indexes{};
  std::optional<std::map<std::string, Capacity>> global_secondary_indexes{};
  // The vector indexes whose entries the write changed, by name (TOTAL and
  // INDEXES alike: their bytes are not in the units above).
  std::optional<std::map<std::string, VectorCapacity>> vector_indexes{};
};

// ---- Items ----------------------------------------------------------------------

enum class ReturnValue { kNone, kAllOld, kUpdatedOld, kAllNew, kUpdatedNew };
enum class ReturnValuesOnConditionCheckFailure { kNone, kAllOld };
enum class ReturnItemCollectionMetrics { kNone, kSize };

// Returned by writes to tables with an LSI when asked for (SIZE): the
// collection's partition key and an estimate of its size in GB, [lower, upper].
struct ItemCollectionMetrics {
  Item item_collection_key{};
  std::vector<double> size_estimate_range_gb{};
};

// The payload of a ConditionalCheckFailedException when the request asked
// for ReturnValuesOnConditionCheckFailure=ALL_OLD: the item as it was.
struct ConditionalCheckFailedDetail : StatusPayload {
  std::optional<Item> item;
};

struct PutItemRequest {
  std::string table_name{};
  Item item{};
  ReturnValue return_values = ReturnValue::kNone;  // NONE or ALL_OLD
  std::optional<std::string> condition_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
  std::optional<std::map<std::string, ExpectedAttributeValue>> expected{};  // legacy
  std::optional<ConditionalOperator> conditional_operator{};                 // legacy
  ReturnItemCollectionMetrics return_item_collection_metrics = ReturnItemCollectionMetrics::kNone;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct PutItemResponse {
  std::optional<Item> attributes{};  // the old item, for ALL_OLD when there was one
  std::optional<ItemCollectionMetrics> item_collection_metrics{};
  std::optional<ConsumedCapacity> consumed_capacity{};
};

// Bytes copied into 64 KB blocks: no allocation per copy, no copy as the
// blocks grow. Each copy stays where it was put while the arena (or what it
// was moved to) lives, and starts on an 8-byte boundary (FlatBuffers' own
// accessors want 4). For pages that keep what an iterator read.
class ByteArena {
 public:
  ByteArena() = default;
  ByteArena(ByteArena&&) noexcept = default;  // blocks move, copies stay put
  ByteArena& operator=(ByteArena&&) noexcept = default;

  // `n` bytes, uninitialized.
  char* Allocate(size_t n) {
    if (blocks_.empty() || blocks_.back().capacity - blocks_.back().used < n) {
      const size_t capacity = n > kBlockBytes ? n : kBlockBytes;
      // new[] without zeroing: aligned for max_align_t.
      blocks_.push_back({std::make_unique_for_overwrite<char[]>(capacity), 0, capacity});
    }
    Block& block = blocks_.back();
    char* at = block.data.get() + block.used;
    const size_t next = (block.used + n + kAlign - 1) / kAlign * kAlign;
    block.used = next < block.capacity ? next : block.capacity;
    return at;
  }
  // A copy of `bytes`.
  std::string_view Copy(std::string_view bytes) {
    char* at = Allocate(bytes.size());
    if (!bytes.empty()) std::memcpy(at, bytes.data(), bytes.size());
    return {at, bytes.size()};
  }

 private:
  static constexpr size_t kAlign = 8;
  static constexpr size_t kBlockBytes = 64 << 10;  // under malloc's mmap threshold: reused
  struct Block {
    std::unique_ptr<char[]> data;
    size_t used = 0;
    size_t capacity = 0;
  };
  std::vector<Block> blocks_;
};

// A page of stored items (ItemEncoding::kStored): a view of each item, read
// in place (dynarock/item_view.h: no Item built, nothing decoded until a
// value is asked for), over a copy of the bytes it reads packed into a
// ByteArena (no allocation per item or per attribute). A base-table item's
// copy is its stored value (without its key attributes, names as interned
// ids) and its key attributes: it is not rewritten into a whole item.
// Item i is valid while the StoredItems (or what it was moved to) lives;
// a table item's interned names are resolved through its table's
// dictionary, which the Database holds: REQUIRES the Database is still open
// when an item's names or values are read.
class StoredItems {
 public:
  StoredItems() = default;
  StoredItems(const StoredItems& other) {
    for (const ItemView& item : other) push_back(item);
  }
  StoredItems& operator=(const StoredItems& other) {
    if (this != &other) *this = StoredItems(other);
    return *this;
  }
  StoredItems(StoredItems&&) noexcept = default;  // the arena moves, views stay valid
  StoredItems& operator=(StoredItems&&) noexcept = default;

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const ItemView& operator[](size_t i) const { return items_[i]; }
  std::vector<ItemView>::const_iterator begin() const { return items_.begin(); }
  std::vector<ItemView>::const_iterator end() const { return items_.end(); }

  // Appends a copy of what `item` reads; returns the copy's view.
  const ItemView& push_back(const ItemView& item) {
    items_.push_back(item.CopyTo(bytes_.Allocate(item.ByteSize())));
    return items_.back();
  }

 private:
  ByteArena bytes_;
  std::vector<ItemView> items_;
};

// How GetItem, Query and Scan hand back items.
enum class ItemEncoding {
  // QueryResponse::items (GetItemResponse::item): decoded Items,
  // convenient to use.
  kDecoded,
  // QueryResponse::stored_items (GetItemResponse::stored_item): each item
  // as an ItemView
  // (dynarock/item_view.h) of its bytes as read, copied into the page's
  // blocks (StoredItems), so no allocation per item or per attribute and
  // nothing decoded that the caller does not ask for. An item an older
  // Dynarock stored is re-encoded; a projection or an LSI's fetched table
  // item is encoded afresh.
  kStored,
};

struct GetItemRequest {
  std::string table_name{};
  Item key{};  // exactly the table's key attributes
  bool consistent_read = false;  // accepted; every read here is strongly consistent
  std::optional<std::string> projection_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<std::vector<std::string>> attributes_to_get{};  // legacy
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  ItemEncoding item_encoding = ItemEncoding::kDecoded;
};
struct GetItemResponse {
  std::optional<Item> item{};  // ItemEncoding::kDecoded
  // ItemEncoding::kStored: the item, if it exists, as a view of its stored
  // bytes (at most one; empty when there is no such item).
  StoredItems stored_item{};
  std::optional<ConsumedCapacity> consumed_capacity{};
};

struct DeleteItemRequest {
  std::string table_name{};
  Item key{};
  ReturnValue return_values = ReturnValue::kNone;  // NONE or ALL_OLD
  std::optional<std::string> condition_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
  std::optional<std::map<std::string, ExpectedAttributeValue>> expected{};  // legacy
  std::optional<ConditionalOperator> conditional_operator{};                 // legacy
  ReturnItemCollectionMetrics return_item_collection_metrics = ReturnItemCollectionMetrics::kNone;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct DeleteItemResponse {
  std::optional<Item> attributes{};
  std::optional<ItemCollectionMetrics> item_collection_metrics{};
  std::optional<ConsumedCapacity> consumed_capacity{};
};

struct UpdateItemRequest {
  std::string table_name{};
  Item key{};
  std::optional<std::string> update_expression{};
  std::optional<std::string> condition_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  ReturnValue return_values = ReturnValue::kNone;
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
  std::optional<std::map<std::string, AttributeValueUpdate>> attribute_updates{};  // legacy
  std::optional<std::map<std::string, ExpectedAttributeValue>> expected{};         // legacy
  std::optional<ConditionalOperator> conditional_operator{};                        // legacy
  ReturnItemCollectionMetrics return_item_collection_metrics = ReturnItemCollectionMetrics::kNone;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct UpdateItemResponse {
  std::optional<Item> attributes{};  // per ReturnValues
  std::optional<ItemCollectionMetrics> item_collection_metrics{};
  std::optional<ConsumedCapacity> consumed_capacity{};
};

// ---- Query and Scan -----------------------------------------------------------------

enum class SortKeyOperator { kEq, kLt, kLe, kGt, kGe, kBetween, kBeginsWith };

struct SortKeyCondition {
  std::string attribute_name{};
  SortKeyOperator op = SortKeyOperator::kEq;
  AttributeValue value{};                // the operand (BETWEEN: the lower bound)
  std::optional<AttributeValue> upper{};  // BETWEEN's upper bound
};

// The typed form of a KeyConditionExpression: partition key equality and at
// most one sort key condition.
// One equality of a key condition: a key attribute and its value.
struct KeyEquality {
  std::string attribute_name{};
  AttributeValue value{};
};
// A Query's key condition. A multi-attribute GSI (up to four HASH and four
// RANGE attributes) takes an equality on every HASH attribute, and on RANGE
// attributes r1..rk in KeySchema order: equalities on r1..r(k-1) and any
// condition on rk (`sort`), so the items it selects are one contiguous
// slice of the index collection.
struct KeyCondition {
  std::string partition_key_name{};
  AttributeValue partition_key_value{};
  std::optional<SortKeyCondition> sort{};
  // A multi-attribute GSI's further HASH attributes, each with its value.
  std::vector<KeyEquality> more_partition_keys{};
  // A multi-attribute GSI's RANGE attributes before the one `sort` names,
  // each with its value (the order given does not matter).
  std::vector<KeyEquality> sort_equalities{};
};

enum class Select { kAllAttributes, kAllProjectedAttributes, kSpecificAttributes, kCount };


struct QueryRequest {
  std::string table_name{};
  std::optional<std::string> index_name{};  // query an LSI or GSI instead of the table
  // The key condition, typed. Ignored when key_condition_expression (or the
  // legacy key_conditions) is given: that is compiled into this form.
  KeyCondition key_condition{};
  std::optional<std::string> key_condition_expression{};
  std::optional<std::string> filter_expression{};
  std::optional<std::string> projection_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  std::optional<std::map<std::string, LegacyCondition>> key_conditions{};  // legacy
  std::optional<std::map<std::string, LegacyCondition>> query_filter{};    // legacy
  std::optional<std::vector<std::string>> attributes_to_get{};            // legacy
  std::optional<ConditionalOperator> conditional_operator{};               // legacy
  bool scan_index_forward = true;
  std::optional<int32_t> limit{};  // items evaluated per page, >= 1
  std::optional<Item> exclusive_start_key{};
  std::optional<Select> select{};
  bool consistent_read = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  ItemEncoding item_encoding = ItemEncoding::kDecoded;  // not part of DynamoDB's API
};

// SearchVectors: the `top_k` items of a vector index nearest `search_vector`
// (1 to 100), best first, within the collection of the HASH search value
// the condition names (required when the index has a HASH) and matching
// its INLINE_FILTER equalities. Exact (every entry scored) for a collection
// of up to Options::vector_exact_limit entries; above, the candidates an
// HNSW graph proposes are scored (Database::SearchVectors).
struct SearchVectorsRequest {
  std::string table_name{};
  std::string index_name{};
  std::vector<AttributeValue> search_vector{};
  int32_t top_k = 0;
  // An AND of `attribute = :value` over SearchSchema attributes.
  std::optional<std::string> search_condition_expression{};
  std::optional<std::string> projection_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct SearchResult {
  Item item{};  // as the index projects it; the vector only if projected by name
  double score = 0;
};
struct SearchVectorsResponse {
  std::vector<SearchResult> search_results{};
  // Its VectorSearchRequestBytes, when ReturnConsumedCapacity asked (TOTAL
  // and INDEXES alike).
  std::optional<VectorCapacity> consumed_capacity{};
};

struct ScanRequest {
  std::string table_name{};
  std::optional<std::string> index_name{};
  std::optional<std::string> filter_expression{};
  std::optional<std::string> projection_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  std::optional<std::map<std::string, LegacyCondition>> scan_filter{};  // legacy
  std::optional<std::vector<std::string>> attributes_to_get{};         // legacy
  std::optional<ConditionalOperator> conditional_operator{};            // legacy
  std::optional<int32_t> limit{};
  std::optional<Item> exclusive_start_key{};
  std::optional<Select> select{};
  std::optional<int32_t> segment{};         // 0 .. total_segments-1
  std::optional<int32_t> total_segments{};  // 1 .. 1000000
  bool consistent_read = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  ItemEncoding item_encoding = ItemEncoding::kDecoded;  // not part of DynamoDB's API
};

// ---- Batches ------------------------------------------------------------------------------

struct KeysAndAttributes {
  std::vector<Item> keys{};
  bool consistent_read = false;
  std::optional<std::string> projection_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<std::vector<std::string>> attributes_to_get{};  // legacy
};
struct BatchGetItemRequest {
  std::map<std::string, KeysAndAttributes> request_items{};  // up to 100 keys in all
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct BatchGetItemResponse {
  std::map<std::string, std::vector<Item>> responses{};
  // Keys not read because the response reached 16 MB: send them again.
  std::map<std::string, KeysAndAttributes> unprocessed_keys{};
  std::vector<ConsumedCapacity> consumed_capacity{};  // one per table
};

struct PutRequest {
  Item item{};
};
struct DeleteRequest {
  Item key{};
};
struct WriteRequest {  // exactly one of the two
  std::optional<PutRequest> put_request{};
  std::optional<DeleteRequest> delete_request{};
};
struct BatchWriteItemRequest {
  std::map<std::string, std::vector<WriteRequest>> request_items{};  // up to 25 in all
  ReturnItemCollectionMetrics return_item_collection_metrics = ReturnItemCollectionMetrics::kNone;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct BatchWriteItemResponse {
  std::map<std::string, std::vector<WriteRequest>> unprocessed_items{};
  std::map<std::string, std::vector<ItemCollectionMetrics>> item_collection_metrics{};
  std::vector<ConsumedCapacity> consumed_capacity{};  // one per table
};

// ---- Transactions ---------------------------------------------------------------------------

struct TransactConditionCheck {
  std::string table_name{};
  Item key{};
  std::string condition_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
};
struct TransactPut {
  std::string table_name{};
  Item item{};
  std::optional<std::string> condition_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
};
struct TransactDelete {
  std::string table_name{};
  Item key{};
  std::optional<std::string> condition_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
};
struct TransactUpdate {
  std::string table_name{};
  Item key{};
  std::string update_expression{};
  std::optional<std::string> condition_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
  std::optional<ExpressionAttributeValues> expression_attribute_values{};
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
};
struct TransactWriteItem {  // exactly one of the four
  std::optional<TransactConditionCheck> condition_check{};
  std::optional<TransactPut> put{};
  std::optional<TransactDelete> delete_item{};
  std::optional<TransactUpdate> update{};
};
struct TransactWriteItemsRequest {
  std::vector<TransactWriteItem> transact_items{};  // 1..100, at most one per item
  // Idempotency: a repeat within 10 minutes returns the first result.
  std::optional<std::string> client_request_token{};
  ReturnItemCollectionMetrics return_item_collection_metrics = ReturnItemCollectionMetrics::kNone;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct TransactWriteItemsResponse {
  std::map<std::string, std::vector<ItemCollectionMetrics>> item_collection_metrics{};
  std::vector<ConsumedCapacity> consumed_capacity{};  // one per table
};

// The payload of TransactionCanceledException: one reason per action, in
// request order. Codes: None, ConditionalCheckFailed, ValidationError,
// ItemCollectionSizeLimitExceeded, TransactionConflict, and with partition
// limits on, ProvisionedThroughputExceeded (provisioned tables) or
// ThrottlingError (on-demand).
struct CancellationReason {
  std::string code{};
  std::optional<std::string> message{};
  std::optional<Item> item{};  // with ReturnValuesOnConditionCheckFailure=ALL_OLD
};
struct TransactionCanceledDetail : StatusPayload {
  std::vector<CancellationReason> reasons;
};

// Why a request was throttled (DynamoDB's ThrottlingReason, 2025): `reason`
// is ResourceType + OperationType + LimitType, e.g.
// "TableWriteKeyRangeThroughputExceeded" or
// "IndexReadKeyRangeThroughputExceeded"; `resource` the ARN of the table or
// index (".../table/T/index/I").
struct ThrottlingReason {
  std::string reason{};
  std::string resource{};
};
// The payload of ProvisionedThroughputExceededException and ThrottlingException.
struct ThrottlingDetail : StatusPayload {
  std::vector<ThrottlingReason> reasons;
};

struct TransactGet {
  std::string table_name{};
  Item key{};
  std::optional<std::string> projection_expression{};
  std::optional<ExpressionAttributeNames> expression_attribute_names{};
};
struct TransactGetItemsRequest {
  std::vector<TransactGet> transact_items{};  // 1..100
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct TransactGetItemsResponse {
  std::vector<std::optional<Item>> responses{};  // in request order; nullopt: no such item
  std::vector<ConsumedCapacity> consumed_capacity{};  // one per table
};

// ---- PartiQL (engine/partiql/) -----------------------------

// One statement with its `?` parameters, bound in order.
struct ExecuteStatementRequest {
  std::string statement{};                              // 1..8192 characters
  std::optional<std::vector<AttributeValue>> parameters{};  // at least one if present
  bool consistent_read = false;  // SELECT on a table or LSI
  // A SELECT's page token from the previous response; it is tied to the
  // statement and its parameters.
  std::optional<std::string> next_token{};
  std::optional<int32_t> limit{};  // items evaluated per page (SELECT), >= 1
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
};
struct ExecuteStatementResponse {
  // A SELECT's page of items (projected), an UPDATE's or DELETE's RETURNING
  // item, or nothing.
  std::vector<Item> items{};
  // Absent on a SELECT's last page: only its absence means done.
  std::optional<std::string> next_token{};
  std::optional<ConsumedCapacity> consumed_capacity{};
};

struct BatchStatementRequest {
  std::string statement{};
  std::optional<std::vector<AttributeValue>> parameters{};
  bool consistent_read = false;
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
};
struct BatchExecuteStatementRequest {
  std::vector<BatchStatementRequest> statements{};  // 1..25, all reads or all writes
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
// A statement's failure in a batch. Codes: ConditionalCheckFailed,
// DuplicateItem, ValidationError, ResourceNotFound,
// ItemCollectionSizeLimitExceeded, ProvisionedThroughputExceeded,
// ThrottlingError, TransactionConflict, RequestLimitExceeded,
// InternalServerError.
struct BatchStatementError {
  std::string code{};
  std::string message{};
  std::optional<Item> item{};  // ConditionalCheckFailed with ALL_OLD
};
struct BatchStatementResponse {
  std::optional<BatchStatementError> error{};
  std::optional<std::string> table_name{};
  std::optional<Item> item{};  // a read that found its item
};
struct BatchExecuteStatementResponse {
  std::vector<BatchStatementResponse> responses{};  // in statement order
  std::vector<ConsumedCapacity> consumed_capacity{};  // one per table
};

struct ParameterizedStatement {
  std::string statement{};
  std::optional<std::vector<AttributeValue>> parameters{};
  ReturnValuesOnConditionCheckFailure return_values_on_condition_check_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
};
struct ExecuteTransactionRequest {
  std::vector<ParameterizedStatement> transact_statements{};  // 1..100
  std::optional<std::string> client_request_token{};  // as TransactWriteItems'
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};
struct ExecuteTransactionResponse {
  // A read transaction's items in statement order: nullopt for a missing
  // item, an empty item when the projection matched nothing. Empty for a
  // write transaction.
  std::vector<std::optional<Item>> responses{};
  std::vector<ConsumedCapacity> consumed_capacity{};  // one per table
};

// ---- Collections ------------------------------------------------------------------------

// One item collection's statistics: its partition key, item count and size
// (DynamoDB item sizes, plus LSI entries for tables with an LSI).
struct CollectionStatistics {
  Item key{};
  int64_t item_count = 0;
  int64_t size_bytes = 0;
};

// DescribeCollection: one collection of a table, or of an index (the
// entries that share an index partition key value).
struct DescribeCollectionRequest {
  std::string table_name{};
  std::optional<std::string> index_name{};
  AttributeValue partition_key_value{};  // of the table's (or index's) key type
  // A multi-attribute GSI's further partition values, in KeySchema order:
  // its collection is named by all of them.
  std::vector<AttributeValue> more_partition_key_values{};
};
struct DescribeCollectionResponse {
  // A table collection's exact count and size (DynamoDB item sizes, plus
  // LSI entries when the table has an LSI): from the counter a table with
  // an LSI keeps with every write, by reading the collection on any other
  // table; absent for an index collection.
  std::optional<CollectionStatistics> statistics{};
  // The table has an LSI: its collections are held to DynamoDB's 10 GB.
  bool size_limited = false;
  // The SST files whose key range overlaps the collection's, and the LSM
  // levels they are on (ascending); what is not in them is in memtables.
  int sst_files = 0;
  std::vector<int> levels{};
};

// HottestCollections: the capacity one collection consumed over a window,
// by DynamoDB's rules (FACTS.md 5), as Contributor Insights' "most accessed
// keys". LSI reads and writes count on the table's collection (an LSI lives
// in its table's partitions); a GSI's count on its own collections. Scans
// count on none (they read the whole table, not a collection).
struct CollectionTraffic {
  std::optional<std::string> index_name{};  // absent: one of the table's collections
  AttributeValue partition_key_value{};
  // A multi-attribute GSI's further partition values, in KeySchema order.
  std::vector<AttributeValue> more_partition_key_values{};
  double read_units = 0;
  double write_units = 0;
  // read + write, the rank. Tracking is approximate (bounded memory):
  // |units - exact| <= error_bound; read_units and write_units are lower bounds.
  double units = 0;
  double error_bound = 0;
};
struct HottestCollectionsResponse {
  // The time the window covers (rounded out to whole tracking slices and
  // cut to the time tracked): divide by it for units per second.
  int64_t window_ms = 0;
  // The hottest collections of the table, then of each GSI in the table's
  // order, each list heaviest first.
  std::vector<CollectionTraffic> collections{};
};

// What RecountStatistics found and fixed.
struct StatisticsReport {
  int64_t collections_checked = 0;
  int64_t collections_corrected = 0;      // counters that disagreed with the data
  int64_t empty_collections_dropped = 0;  // zero counters of emptied collections
  int64_t table_totals_corrected = 0;
  int64_t index_totals_corrected = 0;  // an index's ItemCount / IndexSizeBytes
  int64_t unreadable_items = 0;
};

// RocksDB's memory, as Database::GetMemoryUsage reports it.
struct MemoryUsage {
  // The block cache (Options::block_cache_bytes) and what it holds: data,
  // index and filter blocks.
  size_t cache_capacity_bytes = 0;
  size_t cache_usage_bytes = 0;
  // Every column family's memtables (within Options::MemtableBudget()).
  size_t memtable_bytes = 0;
  // Open files' table readers outside the cache: their index and filter
  // blocks, unless Options::cache_index_and_filter_blocks puts those in the
  // cache (then next to nothing).
  size_t table_reader_bytes = 0;
  // Vector index graphs (Options::vector_exact_limit): hnswlib's own
  // memory, and the entry keys they map their nodes to.
  size_t vector_graph_bytes = 0;
  size_t vector_graph_key_bytes = 0;
  size_t vector_graph_nodes = 0;
};

struct QueryResponse {
  std::vector<Item> items{};  // ItemEncoding::kDecoded; empty for Select COUNT
  StoredItems stored_items{};  // ItemEncoding::kStored; empty for Select COUNT
  int32_t count = 0;          // items matching (after any filter)
  int32_t scanned_count = 0;  // items evaluated
  // Present when the page ended early (Limit or the 1 MB page size): pass it
  // as the next request's exclusive_start_key. Absent means the end.
  std::optional<Item> last_evaluated_key{};
  std::optional<ConsumedCapacity> consumed_capacity{};
};
using ScanResponse = QueryResponse;

// ---- DynamoDB Streams (the DynamoDBStreams_20120810 API) --------------------------

struct ListStreamsRequest {
  std::optional<std::string> table_name{};
  std::optional<int32_t> limit{};  // 1..100, default 100
  std::optional<std::string> exclusive_start_stream_arn{};
};
struct StreamSummary {
  std::string stream_arn{};
  std::string table_name{};
  std::string stream_label{};
};
struct ListStreamsResponse {
  std::vector<StreamSummary> streams{};
  std::optional<std::string> last_evaluated_stream_arn{};  // absent on the last page
};

enum class ShardFilterType { kChildShards };
// Which shards DescribeStream lists: CHILD_SHARDS, the shards whose parent is
// `shard_id` (a consumer that finished a shard asks for what follows it).
struct ShardFilter {
  std::optional<ShardFilterType> type{};
  std::optional<std::string> shard_id{};
};
struct DescribeStreamRequest {
  std::string stream_arn{};
  std::optional<int32_t> limit{};  // shards, 1..100, default 100
  std::optional<std::string> exclusive_start_shard_id{};
  std::optional<ShardFilter> shard_filter{};
};
// Sequence numbers are strings of 21 decimal digits that sort numerically.
struct SequenceNumberRange {
  std::string starting_sequence_number{};
  std::optional<std::string> ending_sequence_number{};  // set once the shard is closed
};
struct StreamShard {
  std::string shard_id{};
  SequenceNumberRange sequence_number_range{};
  std::optional<std::string> parent_shard_id{};
};
enum class StreamStatus { kEnabling, kEnabled, kDisabling, kDisabled };
struct StreamDescription {
  std::string stream_arn{};
  std::string stream_label{};
  StreamStatus stream_status = StreamStatus::kEnabled;
  StreamViewType stream_view_type = StreamViewType::kKeysOnly;
  double creation_request_date_time = 0;  // seconds since the epoch
  std::string table_name{};
  std::vector<KeySchemaElement> key_schema{};
  std::vector<StreamShard> shards{};  // oldest first; fully trimmed closed shards are gone
  std::optional<std::string> last_evaluated_shard_id{};
};
struct DescribeStreamResponse {
  StreamDescription stream_description{};
};

enum class ShardIteratorType { kTrimHorizon, kLatest, kAtSequenceNumber, kAfterSequenceNumber };
struct GetShardIteratorRequest {
  std::string stream_arn{};
  std::string shard_id{};
  ShardIteratorType shard_iterator_type = ShardIteratorType::kTrimHorizon;
  // Required by AT_/AFTER_SEQUENCE_NUMBER, refused by the others.
  std::optional<std::string> sequence_number{};
};
struct GetShardIteratorResponse {
  std::string shard_iterator{};  // opaque; valid for 15 minutes
};

enum class StreamEventName { kInsert, kModify, kRemove };
// One item change, as GetRecords returns it.
struct StreamRecord {
  std::string event_id{};  // 32 hex digits, unique
  StreamEventName event_name = StreamEventName::kInsert;
  // A deletion by TTL expiry: DynamoDB's userIdentity {type: Service,
  // principalId: dynamodb.amazonaws.com}.
  bool time_to_live_deletion = false;
  double approximate_creation_date_time = 0;  // seconds, rounded down
  Item keys{};
  std::optional<Item> new_image{};  // per the view type; never on REMOVE
  std::optional<Item> old_image{};  // per the view type; never on INSERT
  std::string sequence_number{};
  int64_t size_bytes = 0;  // DynamoDB item sizes of keys and images
  StreamViewType stream_view_type = StreamViewType::kKeysOnly;
  std::string aws_region{};  // Options::region
};
struct GetRecordsRequest {
  std::string shard_iterator{};
  std::optional<int32_t> limit{};  // 1..1000, default 1000
};
struct GetRecordsResponse {
  std::vector<StreamRecord> records{};  // at most `limit` and about 1 MB
  // Absent once a closed shard is read to its end.
  std::optional<std::string> next_shard_iterator{};
};

}  // namespace dynarock

#endif  // DYNAROCK_TYPES_H_
