// Internal to the PartiQL executor: a parsed statement planned against its
// table's keys and run as the DynamoDB operation it stands for. Shared by
// execute.cc (ExecuteStatement, SELECT and single writes) and batches.cc
// (BatchExecuteStatement, ExecuteTransaction).
#ifndef DYNAROCK_ENGINE_PARTIQL_RUNNER_H_
#define DYNAROCK_ENGINE_PARTIQL_RUNNER_H_

#include <optional>
#include <string>
#include <vector>

#include "engine/db_impl.h"
#include "engine/partiql/partiql.h"

namespace dynarock::partiql {

// The full primary key a WHERE pins by equality, and the terms left over.
struct KeyedWhere {
  Item key;
  std::vector<const expr::Condition*> rest;
};

// A write statement as the operation's parts: the key, the UpdateExpression
// (UPDATE), the ConditionExpression, and their placeholders.
struct WritePlan {
  Item key;
  std::optional<std::string> update;
  std::optional<std::string> condition;
  Placeholders placeholders;
};

// Runs parsed statements on a database through its public operations; the
// catalog is read for keys and indexes only.
class StatementRunner {
 public:
  StatementRunner(Database* db, Database::Impl* impl) : db_(db), impl_(impl) {}

  Result<ExecuteStatementResponse> Select(const Statement& st, const ExecuteStatementRequest& r);
  // INSERT, UPDATE or DELETE on its own.
  Result<ExecuteStatementResponse> Write(const Statement& st, ReturnValuesOnConditionCheckFailure
                                             on_failure, ReturnConsumedCapacity capacity);
  // The statement as one action of TransactWriteItems.
  Result<TransactWriteItem> TransactAction(const Statement& st,
                                           ReturnValuesOnConditionCheckFailure on_failure);
  // The key a statement names (its item's key for an INSERT), and the WHERE
  // terms beyond it; Validation when it names none.
  Result<KeyedWhere> KeyOf(const Statement& st, const TableInfo& t);
  // INSERT, UPDATE, DELETE or EXISTS as the write operation's parts.
  Result<WritePlan> PlanWrite(const Statement& st, const TableInfo& t);

  Result<TableInfo> Table(const std::string& name) { return impl_->FindTableInfo(name); }

 private:
  Database* db_;
  Database::Impl* impl_;
};

// A request's parameters, or none.
const std::vector<AttributeValue>& ParametersOf(const std::optional<std::vector<AttributeValue>>& p);
// ValidationException: the WHERE lacks an equality on every key attribute.
Status MandatoryKey();
// A SELECT's item as the statement returns it: the projection keyed by
// each path's last segment (missing attributes omitted).
Item ProjectItem(const Statement& st, Item item);
// Whether an item satisfies a statement's WHERE (true without one).
bool Matches(const std::optional<expr::Condition>& where, const Item& item);
// Adds one operation's capacity to a list of per-table entries, in
// first-seen order.
void AddTableCapacity(std::vector<ConsumedCapacity>* list, const std::optional<ConsumedCapacity>& c);

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_RUNNER_H_
