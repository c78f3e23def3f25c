// TransactWriteItems (all-or-nothing writes through the write pipeline,
// with ClientRequestToken idempotency) and TransactGetItems (reads from one
// snapshot).
#include <rocksdb/snapshot.h>

#include <set>

#include "engine/db_impl.h"
#include "engine/model/checks.h"
#include "engine/request_expr.h"
#include "engine/validation.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

constexpr size_t kMaxTransactBytes = 4 << 20;

// A request's identity for ClientRequestToken: every field, rendered.
std::string Fingerprint(const TransactWriteItemsRequest& r) {
  std::string out;
  auto add = [&out](std::string_view s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
  };
  auto add_item = [&](const Item& i) { add(DebugString(i)); };
  auto add_opt = [&](const std::optional<std::string>& s) { add(s ? "1" + *s : "0"); };
  auto add_maps = [&](const auto& names, const auto& values) {
    if (names) {
      for (const auto& [k, v] : *names) add(k + "=" + v);
    }
    if (values) {
      for (const auto& [k, v] : *values) add(k + "=" + DebugString(v));
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


// The reason a transaction gives for one action, from its outcome.
CancellationReason CancellationReasonOf(const Status& failure) {
  switch (failure.code()) {
    case Status::Code::kOk:
      return {"None", std::nullopt, std::nullopt};
    case Status::Code::kConditionalCheckFailed: {
      const auto* detail = failure.payload<ConditionalCheckFailedDetail>();
      return {"ConditionalCheckFailed", failure.message(),
              detail ? detail->item : std::nullopt};
    }
    case Status::Code::kItemCollectionSizeLimitExceeded:
      return {"ItemCollectionSizeLimitExceeded", failure.message(), std::nullopt};
    case Status::Code::kProvisionedThroughputExceeded:
      return {"ProvisionedThroughputExceeded", failure.message(), std::nullopt};
    case Status::Code::kThrottling:
      return {"ThrottlingError", failure.message(), std::nullopt};
    default:
      return {"ValidationError", failure.message(), std::nullopt};
  }
}

// TransactionCanceledException with one reason per action.
Status Cancelled(const std::vector<Status>& failures) {
  auto detail = std::make_shared<TransactionCanceledDetail>();
  for (const auto& f : failures) detail->reasons.push_back(CancellationReasonOf(f));
  std::string message = CancellationMessage(detail->reasons);
  return Status::TransactionCanceled(std::move(message)).WithPayload(std::move(detail));
}

// One TransactWriteItem as a write::Action (exactly one of its four members).
Result<write::Action> PlanTransactAction(const TransactWriteItem& t,
                                         const Database::Impl::TableHandles& handles) {
  int kinds = t.condition_check.has_value() + t.put.has_value() + t.delete_item.has_value() +
              t.update.has_value();
  if (kinds != 1) {
    return InvalidParameter("TransactItems can only contain one of Check, Put, Update or Delete");
  }
  Result<write::Action> action = Status::Internal("unreachable");
  ReturnValuesOnConditionCheckFailure rv;
  if (t.condition_check) {
    const auto& c = *t.condition_check;
    action = write::PlanKeyed(write::Kind::kConditionCheck, handles.at(c.table_name)->info(), c.key);
    rv = c.return_values_on_condition_check_failure;
  } else if (t.put) {
    action = write::PlanPut(handles.at(t.put->table_name)->info(), t.put->item);
    rv = t.put->return_values_on_condition_check_failure;
  } else if (t.delete_item) {
    const auto& d = *t.delete_item;
    action = write::PlanKeyed(write::Kind::kDelete, handles.at(d.table_name)->info(), d.key);
    rv = d.return_values_on_condition_check_failure;
  } else {
    const auto& u = *t.update;
    action = write::PlanKeyed(write::Kind::kUpdate, handles.at(u.table_name)->info(), u.key);
    rv = u.return_values_on_condition_check_failure;
  }
  if (action.ok()) action->on_condition_failure = rv;
  return action;
}

// Compiles the action's ConditionExpression (and UpdateExpression) with its
// own placeholders.
template <typename Member>
Status CompileExpressions(const Member& m, const std::optional<std::string>& condition,
                          const std::string* update, write::Action* action) {
  RequestExpressions rx(m.expression_attribute_names, m.expression_attribute_values);
  rx.Expression("ConditionExpression", condition.has_value());
  rx.Expression("UpdateExpression", update != nullptr);
  DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
  DYNAROCK_ASSIGN_OR_RETURN(action->condition, rx.Condition(condition, expr::ExprKind::kCondition));
  if (update != nullptr) {
    DYNAROCK_ASSIGN_OR_RETURN(auto compiled, rx.Update(*update));
    DYNAROCK_RETURN_IF_ERROR(write::SetUpdate(action, std::move(compiled).value()));
  }
  return rx.Finish();
}

Status CompileTransactExpressions(const TransactWriteItem& t, write::Action* action) {
  if (t.condition_check) {
    return CompileExpressions(*t.condition_check,
                              std::optional<std::string>(t.condition_check->condition_expression),
                              nullptr, action);
  }
  if (t.put) return CompileExpressions(*t.put, t.put->condition_expression, nullptr, action);
  if (t.delete_item) {
    return CompileExpressions(*t.delete_item, t.delete_item->condition_expression, nullptr,
                              action);
  }
  return CompileExpressions(*t.update, t.update->condition_expression,
                            &t.update->update_expression, action);
}

// The tables a transaction names, not yet acquired.
Database::Impl::TableHandles TablesOf(const TransactWriteItemsRequest& request) {
  Database::Impl::TableHandles handles;
  for (const auto& t : request.transact_items) {
    for (const std::string* name : {t.condition_check ? &t.condition_check->table_name : nullptr,
                                    t.put ? &t.put->table_name : nullptr,
                                    t.delete_item ? &t.delete_item->table_name : nullptr,
                                    t.update ? &t.update->table_name : nullptr}) {
      if (name) handles.emplace(*name, nullptr);
    }
  }
  return handles;
}

Status TokenMismatch() {
  return Status::IdempotentParameterMismatch(
      "The request uses the same client token as a previous, but non-identical request.");
}

Status TokenInProgress() {
  return Status::TransactionInProgress(
      "The transaction with the given request token is already in progress.");
}

}  // namespace

Result<TransactWriteItemsResponse> Database::Impl::TransactWriteItems(
    const TransactWriteItemsRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  // ClientRequestToken: a token is claimed in memory while its request
  // runs (a concurrent duplicate gets TransactionInProgressException), and
  // committed as a record in the transaction's own batch.
  struct TokenClaim {
    Database::Impl* impl = nullptr;
    std::string token;
    ~TokenClaim() {
      if (impl == nullptr) return;
      std::lock_guard lock(impl->tokens_mu_);
      impl->tokens_in_flight_.erase(token);
    }
  } claim;
  tokens::Digest digest;
  if (request.client_request_token) {
    const std::string& token = *request.client_request_token;
    digest = tokens::DigestOf(Fingerprint(request));
    {
      std::lock_guard lock(tokens_mu_);
      auto [running, claimed] = tokens_in_flight_.try_emplace(token, digest);
      if (!claimed) {
        return running->second == digest ? TokenInProgress() : TokenMismatch();
      }
    }
    claim.impl = this;
    claim.token = token;
    // Claimed: a request that committed this token released its claim only
    // after its batch (with the record) was written, so the record is seen.
    DYNAROCK_ASSIGN_OR_RETURN(auto committed, ReadToken(token));
    if (committed) {
      if (!(committed->digest == digest)) return TokenMismatch();
      return ReplayTransaction(request);  // the first result, not a second application
    }
  }

  // Plan every action: tables, keys, compiled expressions. Static errors are
  // a ValidationException for the whole request, before anything is read.
  // Tables are acquired in name order, as every multi-table operation does,
  // before any is used (see LockTableExclusive on lock order).
  TableHandles handles = TablesOf(request);
  DYNAROCK_RETURN_IF_ERROR(AcquireTables(&handles));
  std::vector<write::Action> actions;
  std::set<std::string> seen;
  size_t bytes = 0;
  // An action whose key or item fails validation (a key attribute missing
  // or of the wrong type) cancels the transaction, as DynamoDB reports it:
  // ValidationError for the first such action, None for all the others
  // (later invalid ones too). Errors of the request as a whole
  // (expressions, duplicates, size) come first.
  std::vector<Status> item_errors(request.transact_items.size());
  bool item_error = false;
  for (size_t i = 0; i < request.transact_items.size(); ++i) {
    const TransactWriteItem& t = request.transact_items[i];
    auto planned = PlanTransactAction(t, handles);
    if (!planned.ok()) {
      if (planned.status().code() != Status::Code::kValidation ||
          t.condition_check.has_value() + t.put.has_value() + t.delete_item.has_value() +
                  t.update.has_value() !=
              1) {
        return planned.status();
      }
      if (!item_error) item_errors[i] = planned.status();
      item_error = true;
      actions.emplace_back();  // a placeholder: nothing runs
      continue;
    }
    write::Action action = std::move(planned).value();
    if (!seen.insert(action.key.bytes()).second) {
      return Status::Validation(
          "Transaction request cannot include multiple operations on one item");
    }
    bytes += action.item ? format::ItemSize(*action.item) : format::ItemSize(*action.key_map);
    DYNAROCK_RETURN_IF_ERROR(CompileTransactExpressions(t, &action));
    actions.push_back(std::move(action));
  }
  if (bytes > kMaxTransactBytes) {
    return Status::Validation(
        "Transaction request size has exceeded the maximum allowed size of 4 MB");
  }
  if (item_error) return Cancelled(item_errors);

  CapacityMeter meter(request.return_consumed_capacity);
  write::RunOptions run;
  run.transactional = true;
  run.return_item_collection_metrics = request.return_item_collection_metrics;
  run.meter = &meter;
  if (request.client_request_token) {
    run.commit_also = [&](rocksdb::WriteBatch* batch) {
      batch->Put(tokens_cf_, *request.client_request_token,
                 tokens::EncodeRecord({NowMs() + tokens::kLifetimeMs, digest}));
    };
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto outcomes, RunWrites(actions, run));
  bool cancelled = false;
  for (const auto& o : outcomes) cancelled |= !o.failure.ok();
  if (cancelled) {
    std::vector<Status> failures;
    for (const auto& o : outcomes) failures.push_back(o.failure);
    return Cancelled(failures);
  }
  TransactWriteItemsResponse response;
  for (size_t i = 0; i < actions.size(); ++i) {
    if (outcomes[i].item_collection_metrics) {
      response.item_collection_metrics[actions[i].table->name].push_back(
          std::move(*outcomes[i].item_collection_metrics));
    }
  }
  response.consumed_capacity = meter.All();
  return response;
}

Result<std::optional<tokens::Record>> Database::Impl::ReadToken(const std::string& token) {
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), tokens_cf_, token, &value);
  if (s.IsNotFound()) return std::optional<tokens::Record>();
  DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
  auto record = tokens::DecodeRecord(value);
  if (!record)
    return Status::Corruption("a ClientRequestToken record of " + std::to_string(value.size()) +
                              " bytes");
  // Past its window (the expiry filter drops it at the next compaction).
  if (record->expires_ms <= NowMs()) return std::optional<tokens::Record>();
  return record;
}

// A retry of a committed transaction changes nothing. As DynamoDB documents
// for ClientRequestToken, its ConsumedCapacity is the reads of the items,
// not the writes the first call made.
Result<TransactWriteItemsResponse> Database::Impl::ReplayTransaction(
    const TransactWriteItemsRequest& request) {
  TransactWriteItemsResponse response;
  if (request.return_consumed_capacity == ReturnConsumedCapacity::kNone) return response;
  TableHandles handles = TablesOf(request);
  DYNAROCK_RETURN_IF_ERROR(AcquireTables(&handles));
  CapacityMeter meter(request.return_consumed_capacity);
  for (const auto& t : request.transact_items) {
    DYNAROCK_ASSIGN_OR_RETURN(write::Action action, PlanTransactAction(t, handles));
    DYNAROCK_ASSIGN_OR_RETURN(std::optional<Item> item, ReadItem(*action.table, action.key));
    const int64_t size = item ? static_cast<int64_t>(format::ItemSize(*item)) : 0;
    meter.Read(action.table->name, nullptr, ReadUnits(size, true));
  }
  response.consumed_capacity = meter.All();
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
  std::vector<const AttributeValue*> partitions;  // null where the key was invalid
  std::vector<std::optional<std::vector<expr::Path>>> projections;
  // As for writes: a key that fails validation cancels the transaction
  // (ValidationError for the first, None for the others); two reads of one
  // item are a ValidationException.
  std::vector<Status> key_errors(n);
  bool key_error = false;
  std::set<std::string> seen;
  for (size_t i = 0; i < n; ++i) {
    const auto& g = request.transact_items[i];
    const TableInfo& info = handles.at(g.table_name)->info();
    auto key = KeyMapPrimaryKey(info, g.key);
    partitions.push_back(key.ok() ? key->partition : nullptr);
    if (key.ok()) {
      keys.push_back(key->Encode(info.space_id));
      if (!seen.insert(keys.back().bytes()).second) {
        return Status::Validation(
            "Transaction request cannot include multiple operations on one item");
      }
    } else if (key.status().code() == Status::Code::kValidation) {
      if (!key_error) key_errors[i] = key.status();
      key_error = true;
      keys.emplace_back();
    } else {
      return key.status();
    }
    RequestExpressions rx(g.expression_attribute_names, std::nullopt);
    rx.Expression("ProjectionExpression", g.projection_expression.has_value());
    DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
    DYNAROCK_ASSIGN_OR_RETURN(auto projection, rx.Projection(g.projection_expression));
    DYNAROCK_RETURN_IF_ERROR(rx.Finish());
    projections.push_back(std::move(projection));
  }
  if (key_error) return Cancelled(key_errors);
  // Partition budgets: a read of a collection whose budget is spent cancels it.
  if (traffic_.limiting()) {
    std::vector<Status> throttled(n);
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      const TableInfo& info = handles.at(request.transact_items[i].table_name)->info();
      throttled[i] = AdmitCollection(info, nullptr, *partitions[i], /*write=*/false);
      any |= !throttled[i].ok();
    }
    if (any) return Cancelled(throttled);
  }
  // One snapshot: every read sees the same committed state.
  rocksdb::ManagedSnapshot snapshot(db_.get());
  TransactGetItemsResponse response;
  CapacityMeter meter(request.return_consumed_capacity);
  for (size_t i = 0; i < n; ++i) {
    DYNAROCK_ASSIGN_OR_RETURN(std::optional<Item> item, ReadItem(handles.at(request.transact_items[i].table_name)->info(), keys[i],
                          snapshot.snapshot()));
    const int64_t size = item ? static_cast<int64_t>(format::ItemSize(*item)) : 0;
    const double units = ReadUnits(size, true, true);
    meter.Read(request.transact_items[i].table_name, nullptr, units);
    RecordCollection(handles.at(request.transact_items[i].table_name)->info(), nullptr,
                     *partitions[i], units, 0);
    if (item && projections[i]) *item = expr::Project(*item, *projections[i]);
    response.responses.push_back(std::move(item));
  }
  response.consumed_capacity = meter.All();
  return response;
}

}  // namespace dynarock
