// BatchExecuteStatement and ExecuteTransaction: each statement planned as
// in ExecuteStatement (runner.h), then run as BatchGetItem/single writes or
// as TransactGetItems/TransactWriteItems (PARTIQL.md 6-7).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/checks.h"
#include "engine/partiql/runner.h"

namespace dynarock {
namespace {

using partiql::AddTableCapacity;
using partiql::KeyedWhere;
using partiql::Kind;
using partiql::MandatoryKey;
using partiql::Matches;
using partiql::ParametersOf;
using partiql::ProjectItem;
using partiql::Statement;
using partiql::StatementRunner;

std::string BatchErrorCode(const Status& s) {
  switch (s.code()) {
    case Status::Code::kConditionalCheckFailed: return "ConditionalCheckFailed";
    case Status::Code::kDuplicateItem: return "DuplicateItem";
    case Status::Code::kValidation:
    case Status::Code::kSerialization: return "ValidationError";
    case Status::Code::kResourceNotFound: return "ResourceNotFound";
    case Status::Code::kItemCollectionSizeLimitExceeded: return "ItemCollectionSizeLimitExceeded";
    case Status::Code::kProvisionedThroughputExceeded: return "ProvisionedThroughputExceeded";
    case Status::Code::kThrottling: return "ThrottlingError";
    case Status::Code::kTransactionConflict: return "TransactionConflict";
    case Status::Code::kAccessDenied: return "AccessDenied";
    default: return "InternalServerError";
  }
}

BatchStatementError BatchError(const Status& s) {
  BatchStatementError e{BatchErrorCode(s), s.message(), std::nullopt};
  if (const auto* detail = s.payload<ConditionalCheckFailedDetail>()) e.item = detail->item;
  return e;
}

}  // namespace

Result<BatchExecuteStatementResponse> Database::BatchExecuteStatement(
    const BatchExecuteStatementRequest& r) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(r));
  StatementRunner runner(this, impl_.get());
  const size_t n = r.statements.size();
  std::vector<Result<Statement>> parsed;
  parsed.reserve(n);
  bool reads = false, writes = false;
  for (const auto& s : r.statements) {
    parsed.push_back(partiql::Parse(s.statement, ParametersOf(s.parameters)));
    if (!parsed.back().ok()) continue;
    (parsed.back()->is_read() ? reads : writes) = true;
  }
  if (reads && writes) {
    return Status::Validation("Read and write requests together in the same batch is not supported.");
  }

  BatchExecuteStatementResponse out;
  out.responses.resize(n);
  // Plan every statement (its table and key) before running any, so that
  // two statements on one item reject the whole batch.
  std::vector<std::optional<KeyedWhere>> keys(n);
  std::vector<std::pair<std::string, Item>> seen;
  for (size_t i = 0; i < n; ++i) {
    auto& response = out.responses[i];
    if (!parsed[i].ok()) {
      response.error = BatchError(parsed[i].status());
      continue;
    }
    const Statement& st = *parsed[i];
    if (st.kind == Kind::kExists) {
      response.error = BatchError(
          Status::Validation("EXISTS is only supported within ExecuteTransaction"));
      continue;
    }
    auto table = runner.Table(st.table);
    if (!table.ok()) {
      response.error = BatchError(table.status());
      continue;
    }
    auto keyed = st.index ? Result<KeyedWhere>(MandatoryKey()) : runner.KeyOf(st, *table);
    if (!keyed.ok()) {
      response.error = BatchError(
          st.is_read() ? Status::Validation("Select statements within BatchExecuteStatement must "
                                            "specify the primary key in the where clause.")
                       : keyed.status());
      continue;
    }
    for (const auto& [table_name, key] : seen) {
      if (table_name == st.table && key == keyed->key) {
        return Status::Validation("Provided list of item keys contains duplicates");
      }
    }
    seen.emplace_back(st.table, keyed->key);
    keys[i] = std::move(*keyed);
  }

  for (size_t i = 0; i < n; ++i) {
    auto& response = out.responses[i];
    if (!keys[i]) continue;
    const Statement& st = *parsed[i];
    const auto& member = r.statements[i];
    if (st.is_read()) {
      GetItemRequest get;
      get.table_name = st.table;
      get.key = keys[i]->key;
      get.consistent_read = member.consistent_read;
      get.return_consumed_capacity = r.return_consumed_capacity;
      auto done = GetItem(get);
      if (!done.ok()) {
        response.error = BatchError(done.status());
        continue;
      }
      AddTableCapacity(&out.consumed_capacity, done->consumed_capacity);
      response.table_name = st.table;
      if (done->item && Matches(st.where, *done->item)) {
        response.item = ProjectItem(st, std::move(*done->item));
      }
      continue;
    }
    auto done = runner.Write(st, member.return_values_on_condition_check_failure,
                             r.return_consumed_capacity);
    if (!done.ok()) {
      response.error = BatchError(done.status());
      const auto code = done.status().code();
      if (code == Status::Code::kConditionalCheckFailed ||
          code == Status::Code::kDuplicateItem) {
        response.table_name = st.table;
      }
      continue;
    }
    AddTableCapacity(&out.consumed_capacity, done->consumed_capacity);
    response.table_name = st.table;
  }
  return out;
}

Result<ExecuteTransactionResponse> Database::ExecuteTransaction(
    const ExecuteTransactionRequest& r) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(r));
  StatementRunner runner(this, impl_.get());
  std::vector<Statement> statements;
  bool reads = false, writes = false;
  for (const auto& s : r.transact_statements) {
    DYNAROCK_ASSIGN_OR_RETURN(auto st, partiql::Parse(s.statement, ParametersOf(s.parameters)));
    (st.is_read() ? reads : writes) = true;
    statements.push_back(std::move(st));
  }
  if (reads && writes) {
    return Status::Validation(
        "ExecuteTransaction API does not support both read and write operations in the same "
        "request.");
  }
  auto member = [](size_t i, std::string_view what) {
    return Status::Validation("Validation failed in TransactStatements[" + std::to_string(i) +
                              "]: " + std::string(what));
  };
  for (size_t i = 0; i < statements.size(); ++i) {
    if (statements[i].returning) {
      return member(i, "RETURNING clause is not supported in ExecuteTransaction.");
    }
    if (statements[i].is_read() && statements[i].index) {
      return member(i, "Reads on indices are not supported within transactions.");
    }
  }

  ExecuteTransactionResponse out;
  if (reads) {
    TransactGetItemsRequest get;
    get.return_consumed_capacity = r.return_consumed_capacity;
    for (size_t i = 0; i < statements.size(); ++i) {
      DYNAROCK_ASSIGN_OR_RETURN(auto table, runner.Table(statements[i].table));
      auto keyed = runner.KeyOf(statements[i], table);
      if (!keyed.ok()) {
        return member(i, "Select statements within ExecuteTransaction must specify the primary "
                         "key in the where clause.");
      }
      get.transact_items.push_back({statements[i].table, std::move(keyed->key), {}, {}});
    }
    DYNAROCK_ASSIGN_OR_RETURN(auto done, TransactGetItems(get));
    for (size_t i = 0; i < statements.size(); ++i) {
      auto& item = done.responses[i];
      if (item && Matches(statements[i].where, *item)) {
        out.responses.push_back(ProjectItem(statements[i], std::move(*item)));
      } else {
        out.responses.push_back(std::nullopt);
      }
    }
    out.consumed_capacity = std::move(done.consumed_capacity);
    return out;
  }

  TransactWriteItemsRequest write;
  write.client_request_token = r.client_request_token;
  write.return_consumed_capacity = r.return_consumed_capacity;
  for (size_t i = 0; i < statements.size(); ++i) {
    auto action = runner.TransactAction(
        statements[i], r.transact_statements[i].return_values_on_condition_check_failure);
    if (!action.ok()) {
      if (action.status().code() == Status::Code::kValidation) {
        return member(i, action.status().message());
      }
      return action.status();
    }
    write.transact_items.push_back(std::move(*action));
  }
  auto done = TransactWriteItems(write);
  if (!done.ok()) {
    const auto* detail = done.status().payload<TransactionCanceledDetail>();
    if (detail == nullptr) return done.status();
    // An INSERT's failed condition is its key existing: DuplicateItem.
    auto reasons = std::make_shared<TransactionCanceledDetail>(*detail);
    std::string list;
    for (size_t i = 0; i < reasons->reasons.size(); ++i) {
      auto& reason = reasons->reasons[i];
      if (i < statements.size() && statements[i].kind == Kind::kInsert &&
          reason.code == "ConditionalCheckFailed") {
        reason.code = "DuplicateItem";
        reason.message = "Duplicate primary key exists in table";
        reason.item.reset();
      }
      list += (i ? ", " : "") + reason.code;
    }
    return Status::TransactionCanceled(
               "Transaction cancelled, please refer cancellation reasons for specific reasons [" +
               list + "]")
        .WithPayload(std::move(reasons));
  }
  out.consumed_capacity = std::move(done->consumed_capacity);
  return out;
}

}  // namespace dynarock
