// BatchGetItem and BatchWriteItem: up to 100 reads and 25 writes across tables.
#include <rocksdb/snapshot.h>

#include <algorithm>
#include <set>

#include "engine/db_impl.h"
#include "engine/index.h"
#include "engine/request_expr.h"
#include "engine/model/checks.h"
#include "engine/validation.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

constexpr size_t kMaxBatchGetKeys = 100;
constexpr size_t kMaxBatchGetBytes = 16 << 20;
constexpr size_t kMaxBatchWriteRequests = 25;

Status Duplicates() { return Status::Validation("Provided list of item keys contains duplicates"); }

}  // namespace

// ---- BatchGetItem ------------------------------------------------------------------------

Result<BatchGetItemResponse> Database::Impl::BatchGetItem(const BatchGetItemRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));

  // Validate everything before reading anything: first what needs no table
  // (VALIDATION.md 5.7 "pre", so a request that could never run is a
  // ValidationException even when a table is missing), then each table.
  struct TableRead {
    std::unique_ptr<TableHandle> handle;
    std::vector<format::EncodedKey> keys;
    std::optional<std::vector<expr::Path>> projection;
  };
  std::map<std::string, TableRead> reads;
  size_t total = 0;
  for (const auto& [table, ka] : request.request_items) {
    DYNAROCK_ASSIGN_OR_RETURN(RequestExpressions rx, DeclaredParameters(ka));
    TableRead& read = reads[table];
    if (ka.attributes_to_get) {
      DYNAROCK_ASSIGN_OR_RETURN(read.projection,
                                ProjectionFromAttributesToGet(*ka.attributes_to_get));
    }
    DYNAROCK_ASSIGN_OR_RETURN(auto projection, rx.Projection(ka.projection_expression));
    if (projection) read.projection = std::move(projection);
    DYNAROCK_RETURN_IF_ERROR(rx.Finish());
    for (size_t i = 0; i < ka.keys.size(); ++i) {
      // The same attributes and values twice, before any schema is known.
      for (size_t j = 0; j < i; ++j) {
        if (ka.keys[j] == ka.keys[i]) return Duplicates();
      }
      if (++total > kMaxBatchGetKeys) {
        return Status::Validation("Too many items requested for the BatchGetItem call");
      }
    }
  }
  for (auto& [table, read] : reads) {
    DYNAROCK_ASSIGN_OR_RETURN(read.handle, AcquireTable(table));
    const TableInfo& info = read.handle->info();
    std::set<std::string> seen;  // equal once encoded (1 and 1.0)
    for (const auto& k : request.request_items.at(table).keys) {
      DYNAROCK_ASSIGN_OR_RETURN(auto key, KeyMapPrimaryKey(info, k));
      read.keys.push_back(key.Encode(info.space_id));
      if (!seen.insert(read.keys.back().bytes()).second) return Duplicates();
    }
  }

  BatchGetItemResponse response;
  CapacityMeter meter(request.return_consumed_capacity);
  size_t bytes = 0;
  size_t total_keys = 0, throttled = 0;
  for (const auto& [table, read] : reads) total_keys += read.keys.size();
  for (auto& [table, read] : reads) {
    const KeysAndAttributes& ka = request.request_items.at(table);
    std::vector<Item>& out = response.responses[table];
    for (size_t i = 0; i < read.keys.size(); ++i) {
      if (bytes >= kMaxBatchGetBytes) {
        // The response is full: the rest is unprocessed, to be sent again.
        KeysAndAttributes& rest = response.unprocessed_keys[table];
        if (rest.keys.empty()) {
          rest = ka;
          rest.keys.clear();
        }
        rest.keys.push_back(ka.keys[i]);
        continue;
      }
      const TableInfo& info = read.handle->info();
      const AttributeValue& pk = ka.keys[i].at(info.partition_key.name);
      if (Status admitted = AdmitCollection(info, nullptr, pk, /*write=*/false); !admitted.ok()) {
        // Over its collection's budget: unprocessed, for the caller to retry.
        KeysAndAttributes& rest = response.unprocessed_keys[table];
        if (rest.keys.empty()) {
          rest = ka;
          rest.keys.clear();
        }
        rest.keys.push_back(ka.keys[i]);
        if (++throttled == total_keys) return admitted;  // none processed
        continue;
      }
      DYNAROCK_ASSIGN_OR_RETURN(auto item, ReadItem(info, read.keys[i]));
      // Each item is rounded up on its own.
      const double units = ReadUnits(item ? format::ItemSize(*item) : 0, ka.consistent_read);
      meter.Read(table, nullptr, units);
      RecordCollection(info, nullptr, pk, units, 0);
      if (!item) continue;
      bytes += format::ItemSize(*item);
      out.push_back(read.projection ? expr::Project(*item, *read.projection) : std::move(*item));
    }
  }
  response.consumed_capacity = meter.All();
  return response;
}

// ---- BatchWriteItem ----------------------------------------------------------------------

Result<BatchWriteItemResponse> Database::Impl::BatchWriteItem(
    const BatchWriteItemRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  size_t total = 0;
  for (const auto& [table, writes] : request.request_items) total += writes.size();
  if (total > kMaxBatchWriteRequests) {
    return Status::Validation("Too many items requested for the BatchWriteItem call");
  }

    // Validate every request before writing any.
  TableHandles handles;
  for (const auto& [table, writes] : request.request_items) handles.emplace(table, nullptr);
  std::vector<write::Action> actions;
  std::vector<std::pair<const std::string*, const WriteRequest*>> sources;  // per action
  for (const auto& [table, writes] : request.request_items) {
    DYNAROCK_ASSIGN_OR_RETURN(handles[table], AcquireTable(table));
    const TableInfo& info = handles[table]->info();
    std::set<std::string> seen;
    for (const auto& w : writes) {
      if (w.put_request.has_value() == w.delete_request.has_value()) {
        return InvalidParameter(
            "A WriteRequest must contain exactly one of PutRequest or DeleteRequest");
      }
      DYNAROCK_ASSIGN_OR_RETURN(
          write::Action action,
          w.put_request ? write::PlanPut(info, w.put_request->item)
                        : write::PlanKeyed(write::Kind::kDelete, info, w.delete_request->key));
      if (!seen.insert(action.key.bytes()).second) return Duplicates();
      actions.push_back(std::move(action));
      sources.emplace_back(&table, &w);
    }
  }
  // One WriteBatch for all the writes: one log record and one memtable pass
  // instead of 25, and an error (the collection size limit, I/O) leaves
  // nothing half-written. DynamoDB promises each write atomic on its own;
  // this is stronger.
  CapacityMeter meter(request.return_consumed_capacity);
  write::RunOptions run;
  run.return_item_collection_metrics = request.return_item_collection_metrics;
  run.meter = &meter;
  DYNAROCK_ASSIGN_OR_RETURN(auto outcomes, RunWrites(actions, run));
  BatchWriteItemResponse response;
  size_t throttled = 0;
  for (size_t i = 0; i < actions.size(); ++i) {
    if (outcomes[i].throttled) {
      // Over its collection's budget: unprocessed, for the caller to retry.
      response.unprocessed_items[*sources[i].first].push_back(*sources[i].second);
      if (++throttled == actions.size()) return outcomes[i].failure;  // none processed
      continue;
    }
    if (!outcomes[i].failure.ok()) return outcomes[i].failure;
    if (outcomes[i].item_collection_metrics) {
      response.item_collection_metrics[actions[i].table->name].push_back(
          std::move(*outcomes[i].item_collection_metrics));
    }
  }
  response.consumed_capacity = meter.All();
  return response;
}

}  // namespace dynarock
