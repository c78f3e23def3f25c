// BatchGetItem, BatchWriteItem, TransactWriteItems and TransactGetItems.
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
constexpr size_t kMaxTransactBytes = 4 << 20;
constexpr auto kTokenLifetime = std::chrono::minutes(10);

Status Duplicates() { return Status::Validation("Provided list of item keys contains duplicates"); }

// Locks each mutex once, in address order: two requests over overlapping
// items take the shared locks in the same order, so they serialize and
// cannot deadlock.
std::vector<std::unique_lock<std::mutex>> LockInAddressOrder(std::vector<std::mutex*> locks) {
  std::sort(locks.begin(), locks.end());
  locks.erase(std::unique(locks.begin(), locks.end()), locks.end());
  std::vector<std::unique_lock<std::mutex>> held;
  held.reserve(locks.size());
  for (std::mutex* m : locks) held.emplace_back(*m);
  return held;
}

}  // namespace

// ---- BatchGetItem ------------------------------------------------------------------------

Result<BatchGetItemResponse> Database::Impl::BatchGetItem(const BatchGetItemRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  size_t total = 0;
  for (const auto& [table, ka] : request.request_items) total += ka.keys.size();
  if (total > kMaxBatchGetKeys) {
    return Status::Validation("Too many items requested for the BatchGetItem call");
  }

  // Validate everything before reading anything.
  struct TableRead {
    std::unique_ptr<TableHandle> handle;
    std::vector<format::EncodedKey> keys;
    std::optional<std::vector<expr::Path>> projection;
  };
  std::map<std::string, TableRead> reads;
  for (const auto& [table, ka] : request.request_items) {
    RequestExpressions rx(ka.expression_attribute_names, std::nullopt);
    DeclareParameters(ka, &rx);
    DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
    auto handle = AcquireTable(table);
    if (!handle.ok()) return handle.status();
    TableRead& read = reads[table];
    read.handle = std::move(handle).value();
    const TableInfo& info = read.handle->info();
    std::set<std::string> seen;
    for (const auto& k : ka.keys) {
      auto key = KeyMapPrimaryKey(info, k);
      if (!key.ok()) return key.status();
      read.keys.push_back(key->Encode(info.space_id));
      if (!seen.insert(read.keys.back().bytes()).second) return Duplicates();
    }
    auto projection = rx.Projection(ka.projection_expression);
    if (!projection.ok()) return projection.status();
    read.projection = std::move(projection).value();
    if (ka.attributes_to_get)
      read.projection = ProjectionFromAttributesToGet(*ka.attributes_to_get);
    DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  }

  BatchGetItemResponse response;
  CapacityMeter meter(request.return_consumed_capacity);
  size_t bytes = 0;
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
      auto item = ReadItem(read.keys[i]);
      if (!item.ok()) return item.status();
      // Each item is rounded up on its own.
      meter.Read(table, nullptr,
                 ReadUnits(*item ? format::ItemSize(**item) : 0, ka.consistent_read));
      if (!*item) continue;
      bytes += format::ItemSize(**item);
      out.push_back(read.projection ? expr::Project(**item, *read.projection) : std::move(**item));
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
  struct Planned {
    const TableInfo* info;
    format::EncodedKey key;
    const AttributeValue* partition;
    const Item* put;  // null for a delete
    std::string table;
  };
  std::map<std::string, std::unique_ptr<TableHandle>> handles;
  std::vector<Planned> plan;
  for (const auto& [table, writes] : request.request_items) {
    auto handle = AcquireTable(table);
    if (!handle.ok()) return handle.status();
    const TableInfo& info = (*handle)->info();
    handles[table] = std::move(handle).value();
    std::set<std::string> seen;
    for (const auto& w : writes) {
      if (w.put_request.has_value() == w.delete_request.has_value()) {
        return InvalidParameter(
            "A WriteRequest must contain exactly one of PutRequest or DeleteRequest");
      }
      Result<PrimaryKey> key = w.put_request ? CheckItemForPut(info, w.put_request->item)
                                             : KeyMapPrimaryKey(info, w.delete_request->key);
      if (!key.ok()) return key.status();
      Planned p{&info, key->Encode(info.space_id), key->partition,
                w.put_request ? &w.put_request->item : nullptr, table};
      if (!seen.insert(p.key.bytes()).second) return Duplicates();
      plan.push_back(std::move(p));
    }
  }
  // One WriteBatch for all the writes: one log record and one memtable pass
  // instead of 25, and an error (the collection size limit, I/O) leaves
  // nothing half-written. DynamoDB promises each write atomic on its own;
  // this is stronger.
  std::vector<std::mutex*> locks;
  for (const auto& p : plan) locks.push_back(&WriteLock(*p.info, p.key, *p.partition));
  auto held = LockInAddressOrder(std::move(locks));
  BatchWriteItemResponse response;
  CapacityMeter meter(request.return_consumed_capacity);
  PendingWrite pending;
  for (const auto& p : plan) {
    auto old = ReadItem(p.key);
    if (!old.ok()) return old.status();
    if (!p.put && !*old) {
      meter.Write(p.table, nullptr, WriteUnits(0));  // deleting nothing costs one unit
      continue;
    }
    const size_t index_writes_before = pending.index_writes.size();
    auto metrics = PrepareItemWrite(&pending, *p.info, p.key, *old, p.put,
                                    request.return_item_collection_metrics);
    if (!metrics.ok()) return metrics.status();
    if (*metrics) response.item_collection_metrics[p.table].push_back(std::move(**metrics));
    // A put costs the larger of the old and new item; a delete, the old one.
    int64_t size = std::max<int64_t>(*old ? format::ItemSize(**old) : 0,
                                     p.put ? format::ItemSize(*p.put) : 0);
    meter.Write(p.table, nullptr, WriteUnits(size));
    for (size_t i = index_writes_before; i < pending.index_writes.size(); ++i) {
      meter.Write(p.table, pending.index_writes[i].index, pending.index_writes[i].units);
    }
  }
  DYNAROCK_RETURN_IF_ERROR(Write(&pending.batch));
  response.consumed_capacity = meter.All();
  return response;
}

Status Database::Impl::AcquireTables(TableHandles* handles) {
  for (auto& [name, handle] : *handles) {
    auto acquired = AcquireTable(name);
    if (!acquired.ok()) return acquired.status();
    handle = std::move(acquired).value();
  }
  return Status::OK();
}

// ---- TransactWriteItems ------------------------------------------------------------------

namespace {

// A request's identity for ClientRequestToken: every field, rendered.
std::string Fingerprint(const TransactWriteItemsRequest& r) {
  std::string out;
  auto add = [&out](std::string_view s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
  };
  auto add_item = [&](const Item& i) { add(format::DebugString(i)); };
  auto add_opt = [&](const std::optional<std::string>& s) { add(s ? "1" + *s : "0"); };
  auto add_maps = [&](const auto& names, const auto& values) {
    if (names) {
      for (const auto& [k, v] : *names) add(k + "=" + v);
    }
    if (values) {
      for (const auto& [k, v] : *values) add(k + "=" + format::DebugString(v));
    }
  };
  for (const auto& a : r.transact_items) {
    if (a.condition_check) {
      add("C" + a.condition_check->table_name);
      add_item(a.condition_check->key);
      add(a.condition_check->condition_expression);
      add_maps(a.condition_check->expression_attribute_names,
               a.condition_check->expression_attribute_values);
    }
    if (a.put) {
      add("P" + a.put->table_name);
      add_item(a.put->item);
      add_opt(a.put->condition_expression);
      add_maps(a.put->expression_attribute_names, a.put->expression_attribute_values);
    }
    if (a.delete_item) {
      add("D" + a.delete_item->table_name);
      add_item(a.delete_item->key);
      add_opt(a.delete_item->condition_expression);
      add_maps(a.delete_item->expression_attribute_names,
               a.delete_item->expression_attribute_values);
    }
    if (a.update) {
      add("U" + a.update->table_name);
      add_item(a.update->key);
      add(a.update->update_expression);
      add_opt(a.update->condition_expression);
      add_maps(a.update->expression_attribute_names, a.update->expression_attribute_values);
    }
  }
  return out;
}

std::string CancellationMessage(const std::vector<CancellationReason>& reasons) {
  std::string list = "[";
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i) list += ", ";
    list += reasons[i].code;
  }
  return "Transaction cancelled, please refer cancellation reasons for specific reasons " + list +
         "]";
}

}  // namespace

Result<TransactWriteItemsResponse> Database::Impl::TransactWriteItems(
    const TransactWriteItemsRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  const size_t n = request.transact_items.size();
  std::string fingerprint;
  if (request.client_request_token) {
    fingerprint = Fingerprint(request);
    std::lock_guard lock(tokens_mu_);
    auto now = std::chrono::steady_clock::now();
    std::erase_if(tokens_, [&](const auto& e) { return now - e.second.at > kTokenLifetime; });
    auto it = tokens_.find(*request.client_request_token);
    if (it != tokens_.end()) {
      if (it->second.fingerprint != fingerprint) {
        return Status::IdempotentParameterMismatch(
            "The request uses the same client token as a previous, but non-identical request.");
      }
      if (it->second.in_progress) {
        return Status::TransactionInProgress(
            "The transaction with the given request token is already in progress.");
      }
      return it->second.response;  // the first result, not a second application
    }
    // Claim the token now, so a concurrent duplicate cannot run too.
    tokens_[*request.client_request_token] = {fingerprint, true, {}, now};
  }
  // On any failure the claim is released, so the client may retry.
  struct TokenClaim {
    Database::Impl* impl;
    const std::optional<std::string>& token;
    bool committed = false;
    ~TokenClaim() {
      if (!token || committed) return;
      std::lock_guard lock(impl->tokens_mu_);
      impl->tokens_.erase(*token);
    }
  } claim{this, request.client_request_token};

  // Plan every action: tables, keys, compiled expressions. Static errors are
  // a ValidationException for the whole request, before anything is read.
  struct Action {
    char kind;  // 'C', 'P', 'D', 'U'
    std::string table;
    const TableInfo* info = nullptr;
    format::EncodedKey key;
    AttributeValue partition;
    Item key_map;
    const Item* put = nullptr;
    std::optional<expr::Condition> condition;
    std::optional<expr::UpdateExpression> update;
    ReturnValuesOnConditionCheckFailure rvoccf = ReturnValuesOnConditionCheckFailure::kNone;
  };
  // Tables are acquired in name order, as every multi-table operation does,
  // before any is used (see LockTableExclusive on lock order).
  TableHandles handles;
  for (const auto& t : request.transact_items) {
    for (const std::string* name : {t.condition_check ? &t.condition_check->table_name : nullptr,
                                    t.put ? &t.put->table_name : nullptr,
                                    t.delete_item ? &t.delete_item->table_name : nullptr,
                                    t.update ? &t.update->table_name : nullptr}) {
      if (name) handles.emplace(*name, nullptr);
    }
  }
  DYNAROCK_RETURN_IF_ERROR(AcquireTables(&handles));
  std::vector<Action> actions(n);
  std::set<std::string> seen;
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    const TransactWriteItem& t = request.transact_items[i];
    int kinds = t.condition_check.has_value() + t.put.has_value() + t.delete_item.has_value() +
                t.update.has_value();
    if (kinds != 1) {
      return InvalidParameter("TransactItems can only contain one of Check, Put, Update or Delete");
    }
    Action& a = actions[i];
    const std::optional<std::string>* condition_text = nullptr;
    const std::optional<ExpressionAttributeNames>* names = nullptr;
    const std::optional<ExpressionAttributeValues>* values = nullptr;
    std::optional<std::string> check_text;
    if (t.condition_check) {
      a.kind = 'C';
      a.table = t.condition_check->table_name;
      a.key_map = t.condition_check->key;
      check_text = t.condition_check->condition_expression;
      condition_text = &check_text;
      names = &t.condition_check->expression_attribute_names;
      values = &t.condition_check->expression_attribute_values;
      a.rvoccf = t.condition_check->return_values_on_condition_check_failure;
    } else if (t.put) {
      a.kind = 'P';
      a.table = t.put->table_name;
      a.put = &t.put->item;
      condition_text = &t.put->condition_expression;
      names = &t.put->expression_attribute_names;
      values = &t.put->expression_attribute_values;
      a.rvoccf = t.put->return_values_on_condition_check_failure;
    } else if (t.delete_item) {
      a.kind = 'D';
      a.table = t.delete_item->table_name;
      a.key_map = t.delete_item->key;
      condition_text = &t.delete_item->condition_expression;
      names = &t.delete_item->expression_attribute_names;
      values = &t.delete_item->expression_attribute_values;
      a.rvoccf = t.delete_item->return_values_on_condition_check_failure;
    } else {
      a.kind = 'U';
      a.table = t.update->table_name;
      a.key_map = t.update->key;
      condition_text = &t.update->condition_expression;
      names = &t.update->expression_attribute_names;
      values = &t.update->expression_attribute_values;
      a.rvoccf = t.update->return_values_on_condition_check_failure;
    }
    a.info = &handles.at(a.table)->info();
    Result<PrimaryKey> key =
        a.put ? CheckItemForPut(*a.info, *a.put) : KeyMapPrimaryKey(*a.info, a.key_map);
    if (!key.ok()) return key.status();
    a.key = key->Encode(a.info->space_id);
    a.partition = *key->partition;
    if (a.put) a.key_map = KeyOf(*a.info, *a.put);
    if (!seen.insert(a.key.bytes()).second) {
      return Status::Validation(
          "Transaction request cannot include multiple operations on one item");
    }
    bytes += a.put ? format::ItemSize(*a.put) : format::ItemSize(a.key_map);
    RequestExpressions rx(*names, *values);
    rx.Expression("ConditionExpression", condition_text->has_value());
    rx.Expression("UpdateExpression", a.kind == 'U');
    DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
    auto condition = rx.Condition(*condition_text, expr::ExprKind::kCondition);
    if (!condition.ok()) return condition.status();
    a.condition = std::move(condition).value();
    if (a.kind == 'U') {
      auto update = rx.Update(t.update->update_expression);
      if (!update.ok()) return update.status();
      a.update = std::move(update).value();
      for (const auto& act : a.update->actions) {
        const std::string& root = act.path.root();
        if (root == a.info->partition_key.name ||
            (a.info->sort_key && root == a.info->sort_key->name)) {
          return InvalidParameter("Cannot update attribute " + root +
                                  ". This attribute is part of the key");
        }
      }
    }
    DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  }
  if (bytes > kMaxTransactBytes) {
    return Status::Validation(
        "Transaction request size has exceeded the maximum allowed size of 4 MB");
  }

  // Lock every item (or collection, on LSI tables).
  std::vector<std::mutex*> locks;
  for (const auto& a : actions) locks.push_back(&WriteLock(*a.info, a.key, a.partition));
  auto held = LockInAddressOrder(std::move(locks));

  std::vector<CancellationReason> reasons(n,
                                          CancellationReason{"None", std::nullopt, std::nullopt});
  bool cancelled = false;
  std::vector<std::optional<Item>> befores(n), afters(n);
  for (size_t i = 0; i < n; ++i) {
    Action& a = actions[i];
    auto old = ReadItem(a.key);
    if (!old.ok()) return old.status();
    befores[i] = std::move(old).value();
    expr::ItemDocument doc(befores[i] ? &*befores[i] : nullptr);
    if (a.condition && !expr::Evaluate(*a.condition, doc)) {
      reasons[i] = {
          "ConditionalCheckFailed", "The conditional request failed",
          a.rvoccf == ReturnValuesOnConditionCheckFailure::kAllOld ? befores[i] : std::nullopt};
      cancelled = true;
      continue;
    }
    if (a.kind == 'P') afters[i] = *a.put;
    if (a.kind == 'U') {
      Item item = befores[i] ? *befores[i] : a.key_map;
      Status st = expr::ApplyUpdate(*a.update, &item);
      if (st.ok() && format::ItemSize(item) > format::kMaxItemBytes) {
        st = Status::Validation("Item size to update has exceeded the maximum allowed size");
      }
      if (st.ok()) st = CheckIndexKeys(*a.info, item);
      if (st.ok() && a.info->has_lsi() &&
          ItemWithLocalIndexesBytes(*a.info, item) > static_cast<int64_t>(format::kMaxItemBytes)) {
        st = Status::Validation("Item size to update has exceeded the maximum allowed size");
      }
      if (!st.ok()) {
        reasons[i] = {"ValidationError", st.message(), std::nullopt};
        cancelled = true;
        continue;
      }
      afters[i] = std::move(item);
    }
  }
  TransactWriteItemsResponse response;
  PendingWrite pending;
  if (!cancelled) {
    for (size_t i = 0; i < n; ++i) {
      Action& a = actions[i];
      if (a.kind == 'C' || (a.kind == 'D' && !befores[i])) continue;
      auto metrics =
          PrepareItemWrite(&pending, *a.info, a.key, befores[i], afters[i] ? &*afters[i] : nullptr,
                           request.return_item_collection_metrics);
      if (!metrics.ok()) {
        if (metrics.status().code() != Status::Code::kItemCollectionSizeLimitExceeded) {
          return metrics.status();
        }
        reasons[i] = {"ItemCollectionSizeLimitExceeded", metrics.status().message(), std::nullopt};
        cancelled = true;
        break;
      }
      if (*metrics) response.item_collection_metrics[a.table].push_back(std::move(**metrics));
    }
  }
  if (cancelled) {
    auto detail = std::make_shared<TransactionCanceledDetail>();
    detail->reasons = reasons;
    return Status::TransactionCanceled(CancellationMessage(reasons)).WithPayload(std::move(detail));
  }
  // All or nothing: one batch holds every item, index entry and counter.
  DYNAROCK_RETURN_IF_ERROR(Write(&pending.batch));
  // Transactional units: twice the ordinary ones.
  CapacityMeter meter(request.return_consumed_capacity);
  for (size_t i = 0; i < n; ++i) {
    const Action& a = actions[i];
    int64_t size = std::max<int64_t>(befores[i] ? format::ItemSize(*befores[i]) : 0,
                                     afters[i] ? format::ItemSize(*afters[i]) : 0);
    if (a.kind == 'C') {
      meter.Read(a.table, nullptr, ReadUnits(size, true, true));
    } else {
      meter.Write(a.table, nullptr, WriteUnits(size, true));
    }
  }
  for (const auto& w : pending.index_writes) {
    for (const auto& a : actions) {
      if (a.info->FindIndex(w.index->name) == w.index) {
        meter.Write(a.table, w.index, 2 * w.units);
        break;
      }
    }
  }
  response.consumed_capacity = meter.All();
  if (request.client_request_token) {
    std::lock_guard lock(tokens_mu_);
    tokens_[*request.client_request_token] = {fingerprint, false, response,
                                              std::chrono::steady_clock::now()};
    claim.committed = true;
  }
  return response;
}

// ---- TransactGetItems --------------------------------------------------------------------

Result<TransactGetItemsResponse> Database::Impl::TransactGetItems(
    const TransactGetItemsRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  const size_t n = request.transact_items.size();
  TableHandles handles;  // acquired in name order
  for (const auto& g : request.transact_items) handles.emplace(g.table_name, nullptr);
  DYNAROCK_RETURN_IF_ERROR(AcquireTables(&handles));
  std::vector<format::EncodedKey> keys;
  std::vector<std::optional<std::vector<expr::Path>>> projections;
  for (const auto& g : request.transact_items) {
    const TableInfo& info = handles.at(g.table_name)->info();
    auto key = KeyMapPrimaryKey(info, g.key);
    if (!key.ok()) return key.status();
    keys.push_back(key->Encode(info.space_id));
    RequestExpressions rx(g.expression_attribute_names, std::nullopt);
    rx.Expression("ProjectionExpression", g.projection_expression.has_value());
    DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
    auto projection = rx.Projection(g.projection_expression);
    if (!projection.ok()) return projection.status();
    DYNAROCK_RETURN_IF_ERROR(rx.Finish());
    projections.push_back(std::move(projection).value());
  }
  // One snapshot: every read sees the same committed state.
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  TransactGetItemsResponse response;
  CapacityMeter meter(request.return_consumed_capacity);
  Status failure;
  for (size_t i = 0; i < n && failure.ok(); ++i) {
    rocksdb::PinnableSlice value;
    rocksdb::Status s = db_->Get(ro, items_cf_, keys[i].bytes(), &value);
    if (s.IsNotFound()) {
      meter.Read(request.transact_items[i].table_name, nullptr, ReadUnits(0, true, true));
      response.responses.emplace_back();
      continue;
    }
    failure = FromRocks(s);
    if (!failure.ok()) break;
    auto item = format::DecodeItem(std::string_view(value.data(), value.size()));
    if (!item.ok()) {
      failure = item.status();
      break;
    }
    meter.Read(request.transact_items[i].table_name, nullptr,
               ReadUnits(static_cast<int64_t>(format::ItemSize(*item)), true, true));
    response.responses.emplace_back(projections[i] ? expr::Project(*item, *projections[i])
                                                   : std::move(item).value());
  }
  db_->ReleaseSnapshot(snapshot);
  DYNAROCK_RETURN_IF_ERROR(failure);
  response.consumed_capacity = meter.All();
  return response;
}

}  // namespace dynarock
