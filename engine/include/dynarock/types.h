// Dynarock's typed requests and responses. They mirror DynamoDB's operations
// field for field (names in snake_case), so the HTTP front end maps JSON onto
// them 1:1 and embedded users get exactly DynamoDB's semantics and errors.
#ifndef DYNAROCK_TYPES_H_
#define DYNAROCK_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/attribute_value.h"
#include "format/key_codec.h"
#include "format/number.h"
#include "format/status.h"

namespace dynarock {

using format::AttributeValue;
using format::AttrType;
using format::Item;
using format::Number;

// ---- Tables -------------------------------------------------------------------

using ScalarAttributeType = format::KeyType;  // S, N or B

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

struct CreateTableRequest {
  std::string table_name{};
  std::vector<AttributeDefinition> attribute_definitions{};
  std::vector<KeySchemaElement> key_schema{};
  // Absent means PROVISIONED, as in DynamoDB (which then requires throughput).
  std::optional<BillingMode> billing_mode{};
  std::optional<ProvisionedThroughput> provisioned_throughput{};
};

enum class TableStatus { kCreating, kActive, kDeleting, kUpdating };

struct TableDescription {
  std::string table_name{};
  std::string table_id{};   // a UUID, as DynamoDB's TableId
  std::string table_arn{};  // arn:aws:dynamodb:<region>:<account>:table/<name>
  TableStatus table_status = TableStatus::kActive;
  std::vector<AttributeDefinition> attribute_definitions{};
  std::vector<KeySchemaElement> key_schema{};  // HASH first, then RANGE if any
  double creation_date_time = 0;             // seconds since the epoch
  BillingMode billing_mode = BillingMode::kProvisioned;
  ProvisionedThroughput provisioned_throughput{};  // zeros for PAY_PER_REQUEST
  // Exact, from the engine's statistics (DynamoDB refreshes them every ~6 h).
  int64_t item_count = 0;
  int64_t table_size_bytes = 0;  // DynamoDB item sizes (format/item_size.h)
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

struct DeleteTableRequest {
  std::string table_name{};
};
struct DeleteTableResponse {
  TableDescription table_description{};  // status DELETING, as DynamoDB answers
};

// ---- Items ----------------------------------------------------------------------

enum class ReturnValue { kNone, kAllOld, kUpdatedOld, kAllNew, kUpdatedNew };

struct PutItemRequest {
  std::string table_name{};
  Item item{};
  ReturnValue return_values = ReturnValue::kNone;  // NONE or ALL_OLD
};
struct PutItemResponse {
  std::optional<Item> attributes{};  // the old item, for ALL_OLD when there was one
};

struct GetItemRequest {
  std::string table_name{};
  Item key{};  // exactly the table's key attributes
  bool consistent_read = false;  // accepted; every read here is strongly consistent
};
struct GetItemResponse {
  std::optional<Item> item{};
};

struct DeleteItemRequest {
  std::string table_name{};
  Item key{};
  ReturnValue return_values = ReturnValue::kNone;  // NONE or ALL_OLD
};
struct DeleteItemResponse {
  std::optional<Item> attributes{};
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
struct KeyCondition {
  std::string partition_key_name{};
  AttributeValue partition_key_value{};
  std::optional<SortKeyCondition> sort{};
};

enum class Select { kAllAttributes, kAllProjectedAttributes, kSpecificAttributes, kCount };

struct QueryRequest {
  std::string table_name{};
  KeyCondition key_condition{};
  bool scan_index_forward = true;
  std::optional<int32_t> limit{};  // items evaluated per page, >= 1
  std::optional<Item> exclusive_start_key{};
  std::optional<Select> select{};
  bool consistent_read = false;
};

struct ScanRequest {
  std::string table_name{};
  std::optional<int32_t> limit{};
  std::optional<Item> exclusive_start_key{};
  std::optional<Select> select{};
  std::optional<int32_t> segment{};         // 0 .. total_segments-1
  std::optional<int32_t> total_segments{};  // 1 .. 1000000
  bool consistent_read = false;
};

struct QueryResponse {
  std::vector<Item> items{};  // empty for Select COUNT
  int32_t count = 0;          // items matching (after any filter)
  int32_t scanned_count = 0;  // items evaluated
  // Present when the page ended early (Limit or the 1 MB page size): pass it
  // as the next request's exclusive_start_key. Absent means the end.
  std::optional<Item> last_evaluated_key{};
};
using ScanResponse = QueryResponse;

}  // namespace dynarock

#endif  // DYNAROCK_TYPES_H_
