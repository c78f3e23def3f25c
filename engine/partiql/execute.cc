// ExecuteStatement, and the planning batches.cc shares: each parsed
// statement is planned against its table's keys and run as the operation
// DynamoDB runs it as (PARTIQL.md 4-7), through the same code paths as
// those operations (validation, capacity, streams, statistics, limits).
//
//   SELECT  -> Query per pinned partition key value, else Scan; the WHERE
//              is evaluated on every item read, so Limit and the 1 MB page
//              count what was read, as DynamoDB's PartiQL does.
//   INSERT  -> PutItem if attribute_not_exists(pk)  (DuplicateItemException)
//   UPDATE  -> UpdateItem if attribute_exists(pk) AND <rest of WHERE>
//   DELETE  -> DeleteItem if attribute_not_exists(pk) OR <rest of WHERE>
//   EXISTS  -> a transaction's ConditionCheck
#include <algorithm>
#include <limits>
#include <set>

#include "engine/db_impl.h"
#include "engine/model/checks.h"
#include "engine/partiql/next_token.h"
#include "engine/partiql/runner.h"

namespace dynarock {
namespace partiql {
namespace {

using CondKind = expr::Condition::Kind;
using OperandKind = expr::Operand::Kind;

bool IsAttribute(const expr::Operand& o, std::string_view name) {
  return o.kind == OperandKind::kPath && o.path.elements.size() == 1 && o.path.root() == name;
}

// The value `c` pins top-level attribute `name` to, if it is `name = value`.
const AttributeValue* EqualityOn(const expr::Condition& c, std::string_view name) {
  if (c.kind != CondKind::kCompare || c.op != expr::Comparator::kEq) return nullptr;
  for (int i : {0, 1}) {
    if (IsAttribute(c.operands[i], name) && c.operands[1 - i].kind == OperandKind::kValue) {
      return &c.operands[1 - i].value;
    }
  }
  return nullptr;
}

// The partition key values a WHERE term pins: `pk = v`, `pk IN [...]`, or
// an OR of such terms.
std::optional<std::vector<AttributeValue>> PartitionValues(const expr::Condition& c,
                                                            std::string_view pk) {
  if (const auto* v = EqualityOn(c, pk)) return std::vector<AttributeValue>{*v};
  if (c.kind == CondKind::kIn && IsAttribute(c.operands[0], pk)) {
    std::vector<AttributeValue> out;
    for (size_t i = 1; i < c.operands.size(); ++i) {
      if (c.operands[i].kind != OperandKind::kValue) return std::nullopt;
      out.push_back(c.operands[i].value);
    }
    return out;
  }
  if (c.kind == CondKind::kOr) {
    auto left = PartitionValues(c.children[0], pk);
    auto right = PartitionValues(c.children[1], pk);
    if (!left || !right) return std::nullopt;
    left->insert(left->end(), right->begin(), right->end());
    return left;
  }
  return std::nullopt;
}

// A WHERE term usable as a sort key condition (= < <= > >= BETWEEN
// begins_with, against values), as the Query's typed condition.
std::optional<SortKeyCondition> SortKeyTerm(const expr::Condition& c, std::string_view sk) {
  SortKeyCondition out;
  out.attribute_name = std::string(sk);
  if (c.kind == CondKind::kCompare && c.op != expr::Comparator::kNe) {
    for (int i : {0, 1}) {
      if (!IsAttribute(c.operands[i], sk) || c.operands[1 - i].kind != OperandKind::kValue) {
        continue;
      }
      // `value op sk` is `sk op' value`, op' the flipped comparison.
      const bool flip = i == 1;
      switch (c.op) {
        case expr::Comparator::kEq:
          out.op = SortKeyOperator::kEq;
          break;
        case expr::Comparator::kLt:
          out.op = flip ? SortKeyOperator::kGt : SortKeyOperator::kLt;
          break;
        case expr::Comparator::kLe:
          out.op = flip ? SortKeyOperator::kGe : SortKeyOperator::kLe;
          break;
        case expr::Comparator::kGt:
          out.op = flip ? SortKeyOperator::kLt : SortKeyOperator::kGt;
          break;
        case expr::Comparator::kGe:
          out.op = flip ? SortKeyOperator::kLe : SortKeyOperator::kGe;
          break;
        default:
          return std::nullopt;
      }
      out.value = c.operands[1 - i].value;
      return out;
    }
    return std::nullopt;
  }
  if (c.kind == CondKind::kBetween && IsAttribute(c.operands[0], sk) &&
      c.operands[1].kind == OperandKind::kValue && c.operands[2].kind == OperandKind::kValue) {
    out.op = SortKeyOperator::kBetween;
    out.value = c.operands[1].value;
    out.upper = c.operands[2].value;
    return out;
  }
  if (c.kind == CondKind::kBeginsWith && IsAttribute(c.operands[0], sk) &&
      c.operands[1].kind == OperandKind::kValue) {
    out.op = SortKeyOperator::kBeginsWith;
    out.value = c.operands[1].value;
    return out;
  }
  return std::nullopt;
}

// The top-level attribute names an operand or condition reads.
void RootsOf(const expr::Operand& o, std::set<std::string>* out) {
  if (o.kind == OperandKind::kPath && !o.path.elements.empty()) out->insert(o.path.root());
  for (const auto& a : o.args) RootsOf(a, out);
}
void RootsOf(const expr::Condition& c, std::set<std::string>* out) {
  for (const auto& o : c.operands) RootsOf(o, out);
  for (const auto& child : c.children) RootsOf(child, out);
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The attributes an index holds: its keys, the table's keys, and what it
// projects (nullopt: everything).
std::optional<std::set<std::string>> ProjectedAttributes(const TableInfo& t, const IndexInfo& i) {
  if (i.projection == ProjectionType::kAll) return std::nullopt;
  std::set<std::string> out{t.partition_key.name};
  if (t.sort_key) out.insert(t.sort_key->name);
  i.ForEachKeyAttribute([&](const KeyAttribute& k, bool) { out.insert(k.name); });
  for (const auto& a : i.non_key_attributes) out.insert(a);
  return out;
}

std::optional<KeyedWhere> KeyFromWhere(const expr::Condition& where, const TableInfo& t) {
  KeyedWhere out;
  std::vector<std::string> names{t.partition_key.name};
  if (t.sort_key) names.push_back(t.sort_key->name);
  std::vector<bool> used;
  auto terms = partiql::Conjuncts(where);
  used.assign(terms.size(), false);
  for (const auto& name : names) {
    bool found = false;
    for (size_t i = 0; i < terms.size() && !found; ++i) {
      if (used[i]) continue;
      if (const auto* v = EqualityOn(*terms[i], name)) {
        out.key.emplace(name, *v);
        used[i] = found = true;
      }
    }
    if (!found) return std::nullopt;
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!used[i]) out.rest.push_back(terms[i]);
  }
  return out;
}

// The terms left after the key, as one condition's text ("" for none).
std::string RenderRest(const std::vector<const expr::Condition*>& rest, Placeholders* p) {
  std::string out;
  for (const auto* c : rest) {
    std::string text = partiql::RenderCondition(*c, p);
    if (c->kind == CondKind::kOr) text = "(" + text + ")";
    out += (out.empty() ? "" : " AND ") + text;
  }
  return out;
}

// The placeholders a request's expressions use, as its
// ExpressionAttributeNames/Values (left absent when empty, as DynamoDB
// requires).
template <typename Request>
void MovePlaceholders(Placeholders&& p, Request* r) {
  if (!p.names.empty()) r->expression_attribute_names = std::move(p.names);
  if (!p.values.empty()) r->expression_attribute_values = std::move(p.values);
}

void AddCapacity(Capacity* into, const Capacity& c) {
  into->read_capacity_units += c.read_capacity_units;
  into->write_capacity_units += c.write_capacity_units;
  into->capacity_units += c.capacity_units;
}

void AddCapacity(std::optional<ConsumedCapacity>* into, const std::optional<ConsumedCapacity>& c) {
  if (!c) return;
  if (!*into) {
    *into = c;
    return;
  }
  ConsumedCapacity& t = **into;
  t.capacity_units += c->capacity_units;
  t.read_capacity_units += c->read_capacity_units;
  t.write_capacity_units += c->write_capacity_units;
  if (c->table) {
    if (!t.table) t.table = Capacity{};
    AddCapacity(&*t.table, *c->table);
  }
  for (auto [mine, theirs] : {std::pair{&t.local_secondary_indexes, &c->local_secondary_indexes},
                              std::pair{&t.global_secondary_indexes, &c->global_secondary_indexes}}) {
    if (!*theirs) continue;
    if (!*mine) *mine = std::map<std::string, Capacity>{};
    for (const auto& [name, cap] : **theirs) AddCapacity(&(**mine)[name], cap);
  }
}

}  // namespace

const std::vector<AttributeValue>& ParametersOf(
    const std::optional<std::vector<AttributeValue>>& p) {
  static const std::vector<AttributeValue> kNone;
  return p ? *p : kNone;
}
Status MandatoryKey() {
  return Status::Validation("Where clause does not contain a mandatory equality on all key attributes");
}

// A SELECT's item as the statement returns it: the projection keyed by
// each path's last segment (missing attributes omitted).
Item ProjectItem(const Statement& st, Item item) {
  if (st.projection.empty()) return item;
  Item out;
  expr::ItemDocument doc(&item);
  for (size_t i = 0; i < st.projection.size(); ++i) {
    if (auto v = doc.Get(st.projection[i])) out.emplace(st.labels[i], std::move(*v));
  }
  return out;
}

bool Matches(const std::optional<expr::Condition>& where, const Item& item) {
  return !where || expr::Evaluate(*where, expr::ItemDocument(&item));
}

// One capacity entry per table, in first-seen order.
void AddTableCapacity(std::vector<ConsumedCapacity>* list, const std::optional<ConsumedCapacity>& c) {
  if (!c) return;
  for (auto& existing : *list) {
    if (existing.table_name == c->table_name) {
      std::optional<ConsumedCapacity> merged = existing;
      AddCapacity(&merged, c);
      existing = *merged;
      return;
    }
  }
  list->push_back(*c);
}

// ---- The executor -----------------------------------------------------------------------------

Result<KeyedWhere> StatementRunner::KeyOf(const Statement& st, const TableInfo& t) {
  if (st.kind == Kind::kInsert) {
    KeyedWhere out;
    for (const auto* k : {&t.partition_key, t.sort_key ? &*t.sort_key : nullptr}) {
      if (k == nullptr) continue;
      auto it = st.item.find(k->name);
      if (it == st.item.end()) {
        return Status::Validation(
            "One or more parameter values were invalid: Missing the key " + k->name +
            " in the item");
      }
      out.key.emplace(k->name, it->second);
    }
    return out;
  }
  if (!st.where) return MandatoryKey();
  auto keyed = KeyFromWhere(*st.where, t);
  if (!keyed) return MandatoryKey();
  return std::move(*keyed);
}

namespace {

// How a SELECT is read: the collections its WHERE pins (none: a Scan), the
// sort key condition that narrows them, the direction, and whether the index
// lacks attributes the statement needs (then items are fetched whole).
struct SelectPlan {
  const IndexInfo* index = nullptr;
  const KeyAttribute* pk = nullptr;
  const KeyAttribute* sk = nullptr;
  std::vector<AttributeValue> partitions;  // distinct, in reading order
  std::optional<SortKeyCondition> sort;    // the WHERE's sort key term, if any
  bool forward = true;
  bool fetch_all = false;
};

// Which attributes the statement reads, against what `index` holds: a GSI
// must hold them all; an LSI fetches the item for what it lacks.
Result<bool> FetchAll(const Statement& st, const TableInfo& table, const IndexInfo& index) {
  auto held = ProjectedAttributes(table, index);
  if (!held) return false;
  std::vector<std::string> missing;
  for (const auto& p : st.projection) {
    if (!held->contains(p.root())) missing.push_back(p.root());
  }
  std::set<std::string> filter;
  if (st.where) RootsOf(*st.where, &filter);
  std::vector<std::string> missing_filter;
  for (const auto& a : filter) {
    if (!held->contains(a)) missing_filter.push_back(a);
  }
  if (index.global && !missing.empty()) {
    return Status::Validation("One or more parameter values were invalid: Global secondary index " +
                              index.name + " does not project [" + JoinNames(missing) + "]");
  }
  if (index.global && !missing_filter.empty()) {
    return Status::Validation("One or more parameter values were invalid: Secondary index " +
                              index.name + " does not project one or more filter attributes: [" +
                              JoinNames(missing_filter) + "]");
  }
  return !missing.empty() || !missing_filter.empty();
}

// The partition key values the WHERE pins, and its sort key term.
Status PinPartitions(const Statement& st, SelectPlan* plan) {
  if (st.where) {
    auto terms = partiql::Conjuncts(*st.where);
    for (const auto* t : terms) {
      if (auto values = PartitionValues(*t, plan->pk->name)) {
        plan->partitions = std::move(*values);
        break;
      }
    }
    if (!plan->partitions.empty() && plan->sk != nullptr) {
      for (const auto* t : terms) {
        if ((plan->sort = SortKeyTerm(*t, plan->sk->name))) break;
      }
    }
  }
  if (plan->partitions.size() > partiql::kMaxKeyInValues) {
    return Status::Validation("The IN operator accepts at most " +
                              std::to_string(partiql::kMaxKeyInValues) +
                              " values for a partition key");
  }
  return Status::OK();
}

// ORDER BY, on key attributes only: the collections in key order, each read
// forward or backward.
Status ApplyOrderBy(const Statement& st, SelectPlan* plan) {
  if (st.order_by.empty()) return Status::OK();
  if (plan->partitions.empty()) {
    return Status::Validation(
        "Must have WHERE clause in the statement when using ORDER BY clause.");
  }
  bool partition_descending = false;
  for (const auto& o : st.order_by) {
    if (o.attribute == plan->pk->name) {
      partition_descending = o.descending;
    } else if (plan->sk != nullptr && o.attribute == plan->sk->name) {
      plan->forward = !o.descending;
    } else {
      return Status::Validation("Order by is only supported on key attributes: " + o.attribute);
    }
  }
  auto less = [](const AttributeValue& a, const AttributeValue& b) {
    if (a.type() != b.type()) return a.type() < b.type();
    if (a.is(AttrType::kN)) return a.n() < b.n();
    if (a.is(AttrType::kS)) return a.s() < b.s();
    if (a.is(AttrType::kB)) return a.b() < b.b();
    return false;
  };
  std::stable_sort(plan->partitions.begin(), plan->partitions.end(), less);
  if (partition_descending) std::reverse(plan->partitions.begin(), plan->partitions.end());
  return Status::OK();
}

Result<SelectPlan> PlanSelect(const Statement& st, const TableInfo& table,
                              const ExecuteStatementRequest& r) {
  SelectPlan plan;
  if (st.index) {
    plan.index = table.FindIndex(*st.index);
    if (plan.index == nullptr && table.FindVectorIndex(*st.index)) {
      // As a Scan of it (DynamoDB's PartiQL reads an index with Query or Scan).
      return Status::Validation("Scan operation not supported on this index type");
    }
    if (plan.index == nullptr) {
      return Status::Validation("The table does not have the specified index");
    }
    if (plan.index->global && r.consistent_read) {
      return Status::Validation(
          "Strongly consistent read is not supported on Global Secondary Indexes");
    }
    // DynamoDB refuses a SELECT on a GSI with more than one HASH or RANGE
    // attribute (its wording is not recorded): Query reads those.
    if (plan.index->multi_attribute()) {
      return Status::Validation(
          "PartiQL SELECT is not supported on a global secondary index with multiple HASH or "
          "RANGE key attributes: " +
          plan.index->name);
    }
  }
  const IndexInfo* index = plan.index;
  plan.pk = index ? &index->partition_key : &table.partition_key;
  plan.sk = index ? (index->sort_key ? &*index->sort_key : nullptr)
                  : (table.sort_key ? &*table.sort_key : nullptr);
  if (index) {
    DYNAROCK_ASSIGN_OR_RETURN(plan.fetch_all, FetchAll(st, table, *index));
  }
  DYNAROCK_RETURN_IF_ERROR(PinPartitions(st, &plan));
  DYNAROCK_RETURN_IF_ERROR(ApplyOrderBy(st, &plan));
  // One query per distinct value.
  std::vector<AttributeValue> distinct;
  for (auto& v : plan.partitions) {
    if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
  }
  plan.partitions = std::move(distinct);
  return plan;
}

// The items of a page that satisfy the WHERE, projected.
void Take(const Statement& st, std::vector<Item>& items, ExecuteStatementResponse* out) {
  for (auto& item : items) {
    if (Matches(st.where, item)) out->items.push_back(ProjectItem(st, std::move(item)));
  }
}

std::optional<dynarock::Select> SelectOf(const SelectPlan& plan) {
  return plan.fetch_all ? std::optional(dynarock::Select::kAllAttributes) : std::nullopt;
}

// No collection pinned: one page of a Scan.
Result<ExecuteStatementResponse> ScanPage(Database* db, const Statement& st,
                                          const ExecuteStatementRequest& r, const SelectPlan& plan,
                                          Position from) {
  ScanRequest scan;
  scan.table_name = st.table;
  scan.index_name = st.index;
  scan.limit = r.limit;
  scan.exclusive_start_key = std::move(from.last_key);
  scan.consistent_read = r.consistent_read;
  scan.return_consumed_capacity = r.return_consumed_capacity;
  scan.select = SelectOf(plan);
  DYNAROCK_ASSIGN_OR_RETURN(auto page, db->Scan(scan));
  ExecuteStatementResponse out;
  Take(st, page.items, &out);
  out.consumed_capacity = std::move(page.consumed_capacity);
  if (page.last_evaluated_key) out.next_token = EncodeNextToken(r, {0, page.last_evaluated_key});
  return out;
}

// The pinned collections, one Query each from `from`, until the page's
// Limit (items evaluated) runs out.
Result<ExecuteStatementResponse> QueryPages(Database* db, const Statement& st,
                                            const ExecuteStatementRequest& r,
                                            const SelectPlan& plan, Position from) {
  ExecuteStatementResponse out;
  std::optional<int64_t> remaining;
  if (r.limit) remaining = *r.limit;
  for (size_t q = from.query; q < plan.partitions.size(); ++q) {
    QueryRequest query;
    query.table_name = st.table;
    query.index_name = st.index;
    query.key_condition = KeyCondition{.partition_key_name = plan.pk->name,
                                       .partition_key_value = plan.partitions[q],
                                       .sort = plan.sort};
    query.scan_index_forward = plan.forward;
    if (remaining) query.limit = static_cast<int32_t>(*remaining);
    if (q == from.query) query.exclusive_start_key = std::move(from.last_key);
    query.consistent_read = r.consistent_read;
    query.return_consumed_capacity = r.return_consumed_capacity;
    query.select = SelectOf(plan);
    DYNAROCK_ASSIGN_OR_RETURN(auto page, db->Query(query));
    Take(st, page.items, &out);
    AddCapacity(&out.consumed_capacity, page.consumed_capacity);
    if (page.last_evaluated_key) {
      out.next_token = EncodeNextToken(r, {q, page.last_evaluated_key});
      break;
    }
    if (remaining) {
      *remaining -= page.scanned_count;
      if (*remaining <= 0) {
        if (q + 1 < plan.partitions.size()) {
          out.next_token = EncodeNextToken(r, {q + 1, std::nullopt});
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace

Result<ExecuteStatementResponse> StatementRunner::Select(const Statement& st,
                                                         const ExecuteStatementRequest& r) {
  DYNAROCK_ASSIGN_OR_RETURN(auto table, Table(st.table));
  DYNAROCK_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelect(st, table, r));
  Position from;
  if (r.next_token) {
    DYNAROCK_ASSIGN_OR_RETURN(from, DecodeNextToken(r, *r.next_token));
    if (from.query >= std::max<size_t>(plan.partitions.size(), 1)) {
      return Status::Validation("NextToken does not match request");
    }
  }
  if (plan.partitions.empty()) return ScanPage(db_, st, r, plan, std::move(from));
  return QueryPages(db_, st, r, plan, std::move(from));
}

Result<WritePlan> StatementRunner::PlanWrite(const Statement& st, const TableInfo& table) {
  DYNAROCK_ASSIGN_OR_RETURN(auto keyed, KeyOf(st, table));
  WritePlan plan;
  plan.key = std::move(keyed.key);
  Placeholders& p = plan.placeholders;
  if (st.kind == Kind::kUpdate) plan.update = partiql::RenderUpdate(st.update, &p);
  auto pk = [&] { return p.Name(table.partition_key.name); };
  auto rest = [&] { return RenderRest(keyed.rest, &p); };
  switch (st.kind) {
    case Kind::kInsert:  // never overwrites
      plan.condition = "attribute_not_exists(" + pk() + ")";
      break;
    case Kind::kUpdate:  // never creates
    case Kind::kExists:
      plan.condition = "attribute_exists(" + pk() + ")";
      if (!keyed.rest.empty()) *plan.condition += " AND " + rest();
      break;
    case Kind::kDelete:  // a missing item is deleted successfully; an existing one must match
      if (!keyed.rest.empty()) plan.condition = "attribute_not_exists(" + pk() + ") OR (" + rest() + ")";
      break;
    case Kind::kSelect:
      return Status::Internal("a SELECT is not a write");
  }
  return plan;
}

template <typename Request>
void SetExpressions(WritePlan&& plan, Request* r) {
  r->condition_expression = std::move(plan.condition);
  MovePlaceholders(std::move(plan.placeholders), r);
}

Result<ExecuteStatementResponse> StatementRunner::Write(
    const Statement& st, ReturnValuesOnConditionCheckFailure on_failure,
    ReturnConsumedCapacity capacity) {
  if (st.kind == Kind::kExists) {
    return Status::Validation("EXISTS is only supported within ExecuteTransaction");
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto table, Table(st.table));
  DYNAROCK_ASSIGN_OR_RETURN(auto plan, PlanWrite(st, table));
  ExecuteStatementResponse out;
  auto returned = [&](std::optional<Item>& attributes) {
    if (attributes && !attributes->empty()) out.items.push_back(std::move(*attributes));
  };
  if (st.kind == Kind::kInsert) {
    PutItemRequest put{.table_name = st.table, .item = st.item};
    SetExpressions(std::move(plan), &put);
    put.return_consumed_capacity = capacity;
    auto done = db_->PutItem(put);
    if (!done.ok()) {
      if (done.status().code() == Status::Code::kConditionalCheckFailed) {
        return Status::DuplicateItem();
      }
      return done.status();
    }
    out.consumed_capacity = std::move(done->consumed_capacity);
  } else if (st.kind == Kind::kUpdate) {
    UpdateItemRequest update{.table_name = st.table, .key = std::move(plan.key),
                             .update_expression = std::move(plan.update)};
    SetExpressions(std::move(plan), &update);
    update.return_values = st.returning.value_or(ReturnValue::kNone);
    update.return_values_on_condition_check_failure = on_failure;
    update.return_consumed_capacity = capacity;
    DYNAROCK_ASSIGN_OR_RETURN(auto done, db_->UpdateItem(update));
    returned(done.attributes);
    out.consumed_capacity = std::move(done.consumed_capacity);
  } else {
    DeleteItemRequest del{.table_name = st.table, .key = std::move(plan.key)};
    SetExpressions(std::move(plan), &del);
    del.return_values = st.returning ? ReturnValue::kAllOld : ReturnValue::kNone;
    del.return_values_on_condition_check_failure = on_failure;
    del.return_consumed_capacity = capacity;
    DYNAROCK_ASSIGN_OR_RETURN(auto done, db_->DeleteItem(del));
    returned(done.attributes);
    out.consumed_capacity = std::move(done.consumed_capacity);
  }
  return out;
}

Result<TransactWriteItem> StatementRunner::TransactAction(
    const Statement& st, ReturnValuesOnConditionCheckFailure on_failure) {
  DYNAROCK_ASSIGN_OR_RETURN(auto table, Table(st.table));
  DYNAROCK_ASSIGN_OR_RETURN(auto plan, PlanWrite(st, table));
  TransactWriteItem item;
  switch (st.kind) {
    case Kind::kInsert:
      item.put = TransactPut{.table_name = st.table, .item = st.item};
      SetExpressions(std::move(plan), &*item.put);
      item.put->return_values_on_condition_check_failure = on_failure;
      break;
    case Kind::kUpdate:
      item.update = TransactUpdate{.table_name = st.table, .key = std::move(plan.key),
                                   .update_expression = std::move(*plan.update)};
      SetExpressions(std::move(plan), &*item.update);
      item.update->return_values_on_condition_check_failure = on_failure;
      break;
    case Kind::kDelete:
      item.delete_item = TransactDelete{.table_name = st.table, .key = std::move(plan.key)};
      SetExpressions(std::move(plan), &*item.delete_item);
      item.delete_item->return_values_on_condition_check_failure = on_failure;
      break;
    case Kind::kExists:
      item.condition_check = TransactConditionCheck{.table_name = st.table, .key = std::move(plan.key)};
      item.condition_check->condition_expression = std::move(*plan.condition);
      MovePlaceholders(std::move(plan.placeholders), &*item.condition_check);
      item.condition_check->return_values_on_condition_check_failure = on_failure;
      break;
    case Kind::kSelect:
      return Status::Internal("a SELECT is not a write action");
  }
  return item;
}

}  // namespace partiql

// ---- Database::ExecuteStatement -------------------------------------------------------------

Result<ExecuteStatementResponse> Database::ExecuteStatement(const ExecuteStatementRequest& r) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(r));
  DYNAROCK_ASSIGN_OR_RETURN(auto st, partiql::Parse(r.statement, partiql::ParametersOf(r.parameters)));
  partiql::StatementRunner runner(this, impl_.get());
  if (st.kind == partiql::Kind::kSelect) return runner.Select(st, r);
  if (r.next_token) return Status::Validation("NextToken is only valid on a SELECT statement");
  if (st.kind == partiql::Kind::kExists) {
    return Status::Validation("EXISTS is only supported within ExecuteTransaction");
  }
  return runner.Write(st, r.return_values_on_condition_check_failure, r.return_consumed_capacity);
}

}  // namespace dynarock
