#include "engine/request_expr.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "dynarock/db.h"
#include "engine/validation.h"

namespace dynarock {
namespace {

using expr::Condition;
using expr::Operand;
using expr::Path;

std::string JoinSet(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out + "}";
}

Operand PathOperand(const std::string& name) {
  Operand o;
  o.kind = Operand::Kind::kPath;
  o.path.elements.emplace_back(name);
  return o;
}

Operand ValueOperand(const AttributeValue& v) {
  Operand o;
  o.kind = Operand::Kind::kValue;
  o.value = v;
  return o;
}

Condition Combine(std::vector<Condition> parts, std::optional<ConditionalOperator> op) {
  Condition out = std::move(parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) {
    Condition node;
    node.kind = op == ConditionalOperator::kOr ? Condition::Kind::kOr : Condition::Kind::kAnd;
    node.children = {std::move(out), std::move(parts[i])};
    out = std::move(node);
  }
  return out;
}

const char* OperatorName(ComparisonOperator op) {
  switch (op) {
    case ComparisonOperator::kEq: return "EQ";
    case ComparisonOperator::kNe: return "NE";
    case ComparisonOperator::kIn: return "IN";
    case ComparisonOperator::kLe: return "LE";
    case ComparisonOperator::kLt: return "LT";
    case ComparisonOperator::kGe: return "GE";
    case ComparisonOperator::kGt: return "GT";
    case ComparisonOperator::kBetween: return "BETWEEN";
    case ComparisonOperator::kNotNull: return "NOT_NULL";
    case ComparisonOperator::kNull: return "NULL";
    case ComparisonOperator::kContains: return "CONTAINS";
    case ComparisonOperator::kNotContains: return "NOT_CONTAINS";
    case ComparisonOperator::kBeginsWith: return "BEGINS_WITH";
  }
  return "?";
}

bool LegacyLess(const AttributeValue& a, const AttributeValue& b) {
  if (a.is(AttrType::kN)) return a.n() < b.n();
  return (a.is(AttrType::kS) ? a.s() : a.b()) < (b.is(AttrType::kS) ? b.s() : b.b());
}

// The types a legacy operator takes: EQ and NE any type but NULL (DynamoDB
// compares lists, maps and booleans too, though older emulators refused
// them), BEGINS_WITH strings and binaries, the rest S, N or B.
bool LegacyTypeAllowed(ComparisonOperator op, AttrType t) {
  const bool scalar = t == AttrType::kS || t == AttrType::kN || t == AttrType::kB;
  switch (op) {
    case ComparisonOperator::kEq:
    case ComparisonOperator::kNe:
      return t != AttrType::kNull;
    case ComparisonOperator::kBeginsWith:
      return t == AttrType::kS || t == AttrType::kB;
    default:
      return scalar;
  }
}

// The checks after the arity: the values themselves, one type, the
// operator's types, BETWEEN's bounds.
Status CheckLegacyValues(ComparisonOperator op, const std::vector<AttributeValue>& values) {
  for (const auto& v : values) DYNAROCK_RETURN_IF_ERROR(v.Validate());
  for (const auto& v : values) {
    if (v.type() != values[0].type()) {
      return InvalidParameter("AttributeValues inside AttributeValueList must be of same type");
    }
  }
  if (!values.empty() && !LegacyTypeAllowed(op, values[0].type())) {
    return InvalidParameter(std::string("ComparisonOperator ") + OperatorName(op) +
                            " is not valid for " + std::string(AttrTypeName(values[0].type())) +
                            " AttributeValue type");
  }
  if (op == ComparisonOperator::kBetween && values.size() == 2 &&
      LegacyTypeAllowed(op, values[0].type()) && LegacyLess(values[1], values[0])) {
    return Status::Validation(
        "The BETWEEN condition was provided a range where the lower bound is greater than the "
        "upper bound");
  }
  return Status::OK();
}

// One legacy comparison on attribute `name`, checked as DynamoDB checks
// it, in its words (the legacy operator's name, not the expression
// function's): value, arity, same type, the operator's types, then
// BETWEEN's bounds.
Result<Condition> LegacyComparison(const std::string& name, ComparisonOperator op,
                                   const std::vector<AttributeValue>& values) {
  size_t arity;
  switch (op) {
    case ComparisonOperator::kNull:
    case ComparisonOperator::kNotNull: arity = 0; break;
    case ComparisonOperator::kBetween: arity = 2; break;
    case ComparisonOperator::kIn: arity = values.empty() ? 1 : values.size(); break;
    default: arity = 1;
  }
  if (values.size() != arity) {
    return InvalidParameter(std::string("Invalid number of argument(s) for the ") +
                            OperatorName(op) + " ComparisonOperator");
  }
  DYNAROCK_RETURN_IF_ERROR(CheckLegacyValues(op, values));
  Condition c;
  auto compare = [&](expr::Comparator cmp) {
    c.kind = Condition::Kind::kCompare;
    c.op = cmp;
    c.operands = {PathOperand(name), ValueOperand(values[0])};
  };
  switch (op) {
    case ComparisonOperator::kEq: compare(expr::Comparator::kEq); break;
    case ComparisonOperator::kNe: compare(expr::Comparator::kNe); break;
    case ComparisonOperator::kLe: compare(expr::Comparator::kLe); break;
    case ComparisonOperator::kLt: compare(expr::Comparator::kLt); break;
    case ComparisonOperator::kGe: compare(expr::Comparator::kGe); break;
    case ComparisonOperator::kGt: compare(expr::Comparator::kGt); break;
    case ComparisonOperator::kBetween:
      c.kind = Condition::Kind::kBetween;
      c.operands = {PathOperand(name), ValueOperand(values[0]), ValueOperand(values[1])};
      break;
    case ComparisonOperator::kIn:
      c.kind = Condition::Kind::kIn;
      c.operands.push_back(PathOperand(name));
      for (const auto& v : values) c.operands.push_back(ValueOperand(v));
      break;
    case ComparisonOperator::kNotNull:
      c.kind = Condition::Kind::kAttributeExists;
      c.operands = {PathOperand(name)};
      break;
    case ComparisonOperator::kNull:
      c.kind = Condition::Kind::kAttributeNotExists;
      c.operands = {PathOperand(name)};
      break;
    case ComparisonOperator::kContains:
    case ComparisonOperator::kNotContains:
      c.kind = Condition::Kind::kContains;
      c.operands = {PathOperand(name), ValueOperand(values[0])};
      if (op == ComparisonOperator::kNotContains) {
        // NOT_CONTAINS needs the attribute: a missing one fails it.
        Condition exists;
        exists.kind = Condition::Kind::kAttributeExists;
        exists.operands = {PathOperand(name)};
        Condition n;
        n.kind = Condition::Kind::kNot;
        n.children = {std::move(c)};
        Condition both;
        both.kind = Condition::Kind::kAnd;
        both.children = {std::move(exists), std::move(n)};
        return both;
      }
      break;
    case ComparisonOperator::kBeginsWith:
      c.kind = Condition::Kind::kBeginsWith;
      c.operands = {PathOperand(name), ValueOperand(values[0])};
      break;
  }
  return c;
}

}  // namespace

void CollectAnd(const expr::Condition& c, std::vector<const expr::Condition*>* out) {
  if (c.kind == Condition::Kind::kAnd) {
    CollectAnd(c.children[0], out);
    CollectAnd(c.children[1], out);
  } else {
    out->push_back(&c);
  }
}

namespace {

Status InvalidKeyOperator(std::string_view op) {
  return Status::Validation("Invalid operator used in KeyConditionExpression: " + std::string(op));
}

void CollectRoots(const Condition& c, std::vector<std::string>* roots) {
  for (const auto& child : c.children) CollectRoots(child, roots);
  std::vector<const Operand*> stack;
  for (const auto& o : c.operands) stack.push_back(&o);
  while (!stack.empty()) {
    const Operand* o = stack.back();
    stack.pop_back();
    if (o->kind == Operand::Kind::kPath) roots->push_back(o->path.root());
    for (const auto& a : o->args) stack.push_back(&a);
  }
}

}  // namespace

Status ConditionalOperatorAlone(std::string_view parameter) {
  return Status::Validation("ConditionalOperator cannot be specified for a missing or empty " +
                            std::string(parameter));
}

void RequestExpressions::Expression(const char* parameter, bool present) {
  if (present) expression_params_.push_back(parameter);
  if (std::string_view(parameter) != "ProjectionExpression") {
    value_expressions_.push_back(parameter);
    values_usable_ |= present;
  }
}

void RequestExpressions::Legacy(const char* parameter, bool present) {
  if (present) legacy_params_.push_back(parameter);
}

Status RequestExpressions::CheckParameters() const {
  if (!expression_params_.empty() && !legacy_params_.empty()) {
    return Status::Validation(
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: " + JoinSet(legacy_params_) +
        " Expression parameters: " + JoinSet(expression_params_));
  }
  // "ExpressionAttributeValues can only be specified when using
  // expressions: FilterExpression and KeyConditionExpression are null".
  std::string values_unused;
  if (!values_usable_) {
    for (size_t i = 0; i < value_expressions_.size(); ++i) {
      values_unused += (i == 0 ? "" : " and ") + value_expressions_[i];
    }
    values_unused += value_expressions_.size() == 1 ? " is null" : " are null";
  }
  return expr::CheckPlaceholderMaps(names_, values_, !expression_params_.empty(), values_unused);
}

void DeclareParameters(const PutItemRequest& r, RequestExpressions* rx) {
  rx->Expression("ConditionExpression", r.condition_expression.has_value());
  rx->Legacy("Expected", r.expected.has_value());
  rx->Legacy("ConditionalOperator", r.conditional_operator.has_value());
}

void DeclareParameters(const GetItemRequest& r, RequestExpressions* rx) {
  rx->Expression("ProjectionExpression", r.projection_expression.has_value());
  rx->Legacy("AttributesToGet", r.attributes_to_get.has_value());
}

void DeclareParameters(const DeleteItemRequest& r, RequestExpressions* rx) {
  rx->Expression("ConditionExpression", r.condition_expression.has_value());
  rx->Legacy("Expected", r.expected.has_value());
  rx->Legacy("ConditionalOperator", r.conditional_operator.has_value());
}

void DeclareParameters(const UpdateItemRequest& r, RequestExpressions* rx) {
  rx->Expression("UpdateExpression", r.update_expression.has_value());
  rx->Expression("ConditionExpression", r.condition_expression.has_value());
  rx->Legacy("AttributeUpdates", r.attribute_updates.has_value());
  rx->Legacy("Expected", r.expected.has_value());
  rx->Legacy("ConditionalOperator", r.conditional_operator.has_value());
}

void DeclareParameters(const QueryRequest& r, RequestExpressions* rx) {
  rx->Expression("ProjectionExpression", r.projection_expression.has_value());
  rx->Expression("FilterExpression", r.filter_expression.has_value());
  rx->Expression("KeyConditionExpression", r.key_condition_expression.has_value());
  rx->Legacy("AttributesToGet", r.attributes_to_get.has_value());
  rx->Legacy("QueryFilter", r.query_filter.has_value());
  rx->Legacy("ConditionalOperator", r.conditional_operator.has_value());
  rx->Legacy("KeyConditions",
             r.key_conditions.has_value() && r.key_condition_expression.has_value());
}

void DeclareParameters(const ScanRequest& r, RequestExpressions* rx) {
  rx->Expression("ProjectionExpression", r.projection_expression.has_value());
  rx->Expression("FilterExpression", r.filter_expression.has_value());
  rx->Legacy("AttributesToGet", r.attributes_to_get.has_value());
  rx->Legacy("ScanFilter", r.scan_filter.has_value());
  rx->Legacy("ConditionalOperator", r.conditional_operator.has_value());
}

void DeclareParameters(const KeysAndAttributes& r, RequestExpressions* rx) {
  rx->Expression("ProjectionExpression", r.projection_expression.has_value());
  rx->Legacy("AttributesToGet", r.attributes_to_get.has_value());
}

Status CheckParameters(const PutItemRequest& r) { return DeclaredParameters(r).status(); }
Status CheckParameters(const GetItemRequest& r) { return DeclaredParameters(r).status(); }
Status CheckParameters(const DeleteItemRequest& r) { return DeclaredParameters(r).status(); }
Status CheckParameters(const UpdateItemRequest& r) { return DeclaredParameters(r).status(); }
Status CheckParameters(const QueryRequest& r) { return DeclaredParameters(r).status(); }
Status CheckParameters(const ScanRequest& r) { return DeclaredParameters(r).status(); }
Status CheckParameters(const BatchGetItemRequest& r) {
  for (const auto& [table, ka] : r.request_items) {
    DYNAROCK_RETURN_IF_ERROR(DeclaredParameters(ka).status());
  }
  return Status::OK();
}

Result<std::optional<expr::Condition>> RequestExpressions::Condition(
    const std::optional<std::string>& text, expr::ExprKind kind) {
  if (!text) return std::optional<expr::Condition>();
  DYNAROCK_ASSIGN_OR_RETURN(auto c, expr::ParseCondition(*text, kind));
  DYNAROCK_RETURN_IF_ERROR(resolver_.Resolve(&c, kind));
  return std::optional<expr::Condition>(std::move(c));
}

Result<std::optional<std::vector<expr::Path>>> RequestExpressions::Projection(
    const std::optional<std::string>& text) {
  if (!text) return std::optional<std::vector<Path>>();
  DYNAROCK_ASSIGN_OR_RETURN(auto p, expr::ParseProjection(*text));
  DYNAROCK_RETURN_IF_ERROR(resolver_.Resolve(&p));
  return std::optional<std::vector<Path>>(std::move(p));
}

Result<std::optional<expr::UpdateExpression>> RequestExpressions::Update(
    const std::optional<std::string>& text) {
  if (!text) return std::optional<expr::UpdateExpression>();
  DYNAROCK_ASSIGN_OR_RETURN(auto u, expr::ParseUpdate(*text));
  DYNAROCK_RETURN_IF_ERROR(resolver_.Resolve(&u));
  return std::optional<expr::UpdateExpression>(std::move(u));
}

Result<std::optional<expr::Condition>> ConditionFromExpected(
    const std::map<std::string, ExpectedAttributeValue>& expected,
    std::optional<ConditionalOperator> op) {
  if (op && expected.empty()) return ConditionalOperatorAlone("Expected");
  std::vector<Condition> parts;
  for (const auto& [name, e] : expected) {
    const bool has_list = !e.attribute_value_list.empty();
    if (e.value && has_list) {
      return InvalidParameter(
          "Value and AttributeValueList cannot be used together for Attribute: " + name);
    }
    if (e.exists && e.comparison_operator) {
      return InvalidParameter(
          "Exists and ComparisonOperator cannot be used together for Attribute: " + name);
    }
    if (e.comparison_operator) {
      // Value is the comparison's one operand, as AttributeValueList's
      // single element would be (DynamoDB accepts either).
      DYNAROCK_ASSIGN_OR_RETURN(
          auto c, LegacyComparison(
                      name, *e.comparison_operator,
                      e.value ? std::vector<AttributeValue>{*e.value} : e.attribute_value_list));
      parts.push_back(std::move(c));
    } else if (has_list) {
      return InvalidParameter(
          "AttributeValueList can only be used with a ComparisonOperator for Attribute: " + name);
    } else if (e.exists == false) {
      if (e.value) {
        return InvalidParameter("Value cannot be used when Exists is false for Attribute: " + name);
      }
      auto c = LegacyComparison(name, ComparisonOperator::kNull, {});
      parts.push_back(std::move(c).value());
    } else {
      if (!e.value) {
        return InvalidParameter("Value must be provided when Exists is " +
                                std::string(e.exists ? "true" : "null") + " for Attribute: " + name);
      }
      DYNAROCK_ASSIGN_OR_RETURN(auto c,
                                LegacyComparison(name, ComparisonOperator::kEq, {*e.value}));
      parts.push_back(std::move(c));
    }
  }
  if (parts.empty()) return std::optional<Condition>();
  return std::optional<Condition>(Combine(std::move(parts), op));
}

Result<std::optional<expr::Condition>> ConditionFromFilter(
    const std::map<std::string, LegacyCondition>& filter, std::optional<ConditionalOperator> op) {
  std::vector<Condition> parts;
  for (const auto& [name, c] : filter) {
    DYNAROCK_ASSIGN_OR_RETURN(
        auto part, LegacyComparison(name, c.comparison_operator, c.attribute_value_list));
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return std::optional<Condition>();
  return std::optional<Condition>(Combine(std::move(parts), op));
}

Result<std::vector<KeyTerm>> KeyTermsFromLegacy(
    const std::map<std::string, LegacyCondition>& conditions) {
  // One or two, or up to one per key attribute of a multi-attribute GSI
  // (DynamoDB takes KeyConditions on those too): BindKeyTerms holds other
  // key schemas to two.
  if (conditions.empty() || conditions.size() > kMaxIndexPartitionKeys + kMaxIndexSortKeys) {
    return LegacyConditionCount();
  }
  std::vector<KeyTerm> terms;
  for (const auto& [name, c] : conditions) {
    const size_t want = c.comparison_operator == ComparisonOperator::kBetween ? 2 : 1;
    if (c.attribute_value_list.size() != want) {
      return InvalidParameter(std::string("Invalid number of argument(s) for the ") +
                              OperatorName(c.comparison_operator) + " ComparisonOperator");
    }
    DYNAROCK_RETURN_IF_ERROR(CheckLegacyValues(c.comparison_operator, c.attribute_value_list));
    KeyTerm t{name, std::nullopt, c.attribute_value_list};
    switch (c.comparison_operator) {
      case ComparisonOperator::kEq: t.op = SortKeyOperator::kEq; break;
      case ComparisonOperator::kLt: t.op = SortKeyOperator::kLt; break;
      case ComparisonOperator::kLe: t.op = SortKeyOperator::kLe; break;
      case ComparisonOperator::kGt: t.op = SortKeyOperator::kGt; break;
      case ComparisonOperator::kGe: t.op = SortKeyOperator::kGe; break;
      case ComparisonOperator::kBeginsWith: t.op = SortKeyOperator::kBeginsWith; break;
      case ComparisonOperator::kBetween: t.op = SortKeyOperator::kBetween; break;
      default: break;  // not indexable: BindKeyTerms says so
    }
    terms.push_back(std::move(t));
  }
  return terms;
}

Status LegacyConditionCount() {
  return Status::Validation("Conditions can be of length 1 or 2 only");
}

Status OneConditionPerKey() {
  return Status::Validation("KeyConditionExpressions must only contain one condition per key");
}

Status KeyConditionNotSupported() { return Status::Validation("Query key condition not supported"); }

Status HashNeedsEquality(std::string_view attribute, bool missing) {
  return Status::Validation(
      std::string(missing ? "Query condition missed HASH key attribute "
                          : "Query key condition not supported: HASH key attribute ") +
      std::string(attribute) + (missing ? ": every HASH key attribute" : "") +
      " must have an equality condition");
}

Status RangeNeedsEquality(std::string_view attribute, std::string_view conditioned) {
  return Status::Validation("RANGE key attributes " + std::string(attribute) +
                            " must have equality conditions specified in the query because a "
                            "condition is present on key attribute " +
                            std::string(conditioned));
}

namespace {

Status NotIndexable() {
  return Status::Validation("Attempted conditional constraint is not an indexable operation");
}

SortKeyCondition SortConditionOf(KeyTerm t) {
  SortKeyCondition s;
  s.attribute_name = std::move(t.name);
  s.op = *t.op;
  s.value = std::move(t.values[0]);
  if (t.values.size() > 1) s.upper = std::move(t.values[1]);
  return s;
}

// A multi-attribute GSI's terms: an equality on each HASH attribute, and
// on RANGE attributes a prefix whose last term may be any condition. The
// shape is checked here where only terms show it (an inequality before the
// last RANGE term); KeyConditionRange checks the rest, for typed conditions
// too.
Result<KeyCondition> BindMultiAttributeTerms(std::vector<KeyTerm> terms, const KeySpace& keys) {
  KeyCondition kc;
  std::vector<std::optional<KeyTerm>> sorts(keys.sort.size());
  std::vector<bool> partitions(keys.partition.size());
  for (KeyTerm& t : terms) {
    if (auto at = keys.PartitionPosition(t.name)) {
      if (partitions[*at]) return OneConditionPerKey();
      partitions[*at] = true;
      if (t.op != SortKeyOperator::kEq) return HashNeedsEquality(t.name, false);
      if (kc.partition_key_name.empty()) {
        kc.partition_key_name = std::move(t.name);
        kc.partition_key_value = std::move(t.values[0]);
      } else {
        kc.more_partition_keys.push_back({std::move(t.name), std::move(t.values[0])});
      }
    } else if (auto at = keys.SortPosition(t.name)) {
      if (sorts[*at]) return OneConditionPerKey();
      if (!t.op) return NotIndexable();
      sorts[*at] = std::move(t);
    } else {
      if (!t.op) return NotIndexable();
      return KeyConditionNotSupported();
    }
  }
  size_t last = sorts.size();
  while (last > 0 && !sorts[last - 1]) --last;
  if (last == 0) return kc;
  for (size_t i = 0; i + 1 < last; ++i) {
    if (!sorts[i]) continue;  // a gap: KeyConditionRange names it
    if (sorts[i]->op != SortKeyOperator::kEq) {
      return RangeNeedsEquality(sorts[i]->name, sorts[last - 1]->name);
    }
    kc.sort_equalities.push_back({std::move(sorts[i]->name), std::move(sorts[i]->values[0])});
  }
  kc.sort = SortConditionOf(std::move(*sorts[last - 1]));
  return kc;
}

}  // namespace

Result<KeyCondition> BindKeyTerms(std::vector<KeyTerm> terms, const KeySpace& keys) {
  if (keys.multi_attribute()) return BindMultiAttributeTerms(std::move(terms), keys);
  KeyCondition kc;
  bool have_partition = false;
  for (KeyTerm& t : terms) {
    if (t.name == keys.partition[0].name && !have_partition) {
      if (t.op != SortKeyOperator::kEq) return KeyConditionNotSupported();
      kc.partition_key_name = std::move(t.name);
      kc.partition_key_value = std::move(t.values[0]);
      have_partition = true;
      continue;
    }
    if (kc.sort) return OneConditionPerKey();
    if (!t.op) return NotIndexable();
    kc.sort = SortConditionOf(std::move(t));
  }
  return kc;
}

Result<expr::UpdateExpression> UpdateFromAttributeUpdates(
    const std::map<std::string, AttributeValueUpdate>& updates) {
  expr::UpdateExpression u;
  u.legacy = true;
  for (const auto& [name, up] : updates) {
    expr::UpdateAction a;
    a.path.elements.emplace_back(name);
    if (up.value) DYNAROCK_RETURN_IF_ERROR(up.value->Validate());
    switch (up.action) {
      case AttributeAction::kPut:
        if (!up.value) {
          return InvalidParameter("Only DELETE action is allowed when no attribute value is "
                                  "specified: " + name);
        }
        a.kind = expr::UpdateAction::Kind::kSet;
        a.value = ValueOperand(*up.value);
        break;
      case AttributeAction::kDelete:
        if (!up.value) {
          a.kind = expr::UpdateAction::Kind::kRemove;
        } else {
          a.kind = expr::UpdateAction::Kind::kDelete;
          a.value = ValueOperand(*up.value);
          AttrType t = up.value->type();
          if (t != AttrType::kSS && t != AttrType::kNS && t != AttrType::kBS) {
            return InvalidParameter("DELETE action with value is not supported for the type " +
                                    std::string(AttrTypeName(t)));
          }
        }
        break;
      case AttributeAction::kAdd: {
        if (!up.value) {
          return InvalidParameter("Only DELETE action is allowed when no attribute value is "
                                  "specified: " + name);
        }
        AttrType t = up.value->type();
        if (t == AttrType::kL) {
          // Legacy ADD on a list appends: list_append(if_not_exists(a, []), :v).
          a.kind = expr::UpdateAction::Kind::kSet;
          Operand existing;
          existing.kind = Operand::Kind::kIfNotExists;
          existing.args = {PathOperand(name), ValueOperand(AttributeValue::L({}))};
          a.value.kind = Operand::Kind::kListAppend;
          a.value.args = {std::move(existing), ValueOperand(*up.value)};
        } else if (t == AttrType::kN || t == AttrType::kSS || t == AttrType::kNS || t == AttrType::kBS) {
          a.kind = expr::UpdateAction::Kind::kAdd;
          a.value = ValueOperand(*up.value);
        } else {
          return InvalidParameter("ADD action is not supported for the type " +
                                  std::string(AttrTypeName(t)));
        }
        break;
      }
    }
    u.actions.push_back(std::move(a));
  }
  return u;
}

Result<std::vector<expr::Path>> ProjectionFromAttributesToGet(
    const std::vector<std::string>& names) {
  std::vector<Path> out;
  std::set<std::string_view> seen;
  for (const auto& n : names) {
    if (n.empty() || n.size() > 65535) {
      return InvalidParameter("An attribute name must be between 1 and 65535 bytes long");
    }
    if (!seen.insert(n).second) return InvalidParameter("Duplicate value in attribute name: " + n);
    Path p;
    p.elements.emplace_back(n);
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<KeyTerm>> KeyTermsFromExpression(const expr::Condition& root) {
  std::vector<const Condition*> parts;
  CollectAnd(root, &parts);
  std::vector<KeyTerm> terms;
  for (const Condition* c : parts) {
    // The operator must be one a key condition allows.
    switch (c->kind) {
      case Condition::Kind::kOr: return InvalidKeyOperator("OR");
      case Condition::Kind::kNot: return InvalidKeyOperator("NOT");
      case Condition::Kind::kIn: return InvalidKeyOperator("IN");
      case Condition::Kind::kAttributeExists: return InvalidKeyOperator("attribute_exists");
      case Condition::Kind::kAttributeNotExists: return InvalidKeyOperator("attribute_not_exists");
      case Condition::Kind::kAttributeType: return InvalidKeyOperator("attribute_type");
      case Condition::Kind::kContains: return InvalidKeyOperator("contains");
      case Condition::Kind::kCompare:
        if (c->op == expr::Comparator::kNe) return InvalidKeyOperator("<>");
        break;
      default: break;
    }
    // Exactly one operand is a top-level attribute, the others values.
    std::vector<const Operand*> ops;
    for (const auto& o : c->operands) ops.push_back(&o);
    expr::Comparator cmp = c->op;
    if (c->kind == Condition::Kind::kCompare && ops[0]->kind == Operand::Kind::kValue &&
        ops[1]->kind == Operand::Kind::kPath) {
      std::swap(ops[0], ops[1]);  // `:v < sk` is `sk > :v`
      switch (cmp) {
        case expr::Comparator::kLt: cmp = expr::Comparator::kGt; break;
        case expr::Comparator::kLe: cmp = expr::Comparator::kGe; break;
        case expr::Comparator::kGt: cmp = expr::Comparator::kLt; break;
        case expr::Comparator::kGe: cmp = expr::Comparator::kLe; break;
        default: break;
      }
    }
    if (ops[0]->kind != Operand::Kind::kPath &&
        (c->kind == Condition::Kind::kBetween || c->kind == Condition::Kind::kBeginsWith)) {
      return Status::Validation(std::string("Invalid condition in KeyConditionExpression: ") +
                                (c->kind == Condition::Kind::kBetween ? "BETWEEN" : "begins_with") +
                                " operator must have the key attribute as its first operand");
    }
    if (ops[0]->kind != Operand::Kind::kPath) {
      return Status::Validation("Invalid KeyConditionExpression: The key condition must name a key "
                                "attribute");
    }
    for (size_t i = 1; i < ops.size(); ++i) {
      if (ops[i]->kind != Operand::Kind::kValue) {
        return Status::Validation("Invalid KeyConditionExpression: Key conditions compare a key "
                                  "attribute with values only");
      }
    }
    if (ops[0]->path.nested()) {
      return Status::Validation("Invalid KeyConditionExpression: Key attributes cannot be nested "
                                "document paths: " + ops[0]->path.ToString());
    }
    KeyTerm t;
    t.name = ops[0]->path.root();
    for (size_t i = 1; i < ops.size(); ++i) t.values.push_back(ops[i]->value);
    if (c->kind == Condition::Kind::kBetween) {
      t.op = SortKeyOperator::kBetween;
    } else if (c->kind == Condition::Kind::kBeginsWith) {
      t.op = SortKeyOperator::kBeginsWith;
    } else {
      switch (cmp) {
        case expr::Comparator::kEq: t.op = SortKeyOperator::kEq; break;
        case expr::Comparator::kLt: t.op = SortKeyOperator::kLt; break;
        case expr::Comparator::kLe: t.op = SortKeyOperator::kLe; break;
        case expr::Comparator::kGt: t.op = SortKeyOperator::kGt; break;
        case expr::Comparator::kGe: t.op = SortKeyOperator::kGe; break;
        case expr::Comparator::kNe: return InvalidKeyOperator("<>");
      }
    }
    terms.push_back(std::move(t));
  }
  return terms;
}

Status CheckFilterAvoidsKeys(const expr::Condition& filter, const KeySpace& keys,
                             std::string_view parameter) {
  std::vector<std::string> roots;
  CollectRoots(filter, &roots);
  for (const auto& r : roots) {
    if (keys.IsKey(r)) {
      return Status::Validation(std::string(parameter) +
                                " can only contain non-primary key attributes: Primary key "
                                "attribute: " + r);
    }
  }
  return Status::OK();
}

}  // namespace dynarock
