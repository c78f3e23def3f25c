// PartiQL conditions and updates as DynamoDB expression text, with every
// name and value behind a placeholder.
#include "engine/partiql/partiql.h"

namespace dynarock::partiql {

std::string Placeholders::Name(const std::string& name) {
  for (const auto& [placeholder, attribute] : names) {
    if (attribute == name) return placeholder;
  }
  std::string placeholder = "#n" + std::to_string(names.size());
  names.emplace(placeholder, name);
  return placeholder;
}

std::string Placeholders::Value(const AttributeValue& value) {
  std::string placeholder = ":v" + std::to_string(values.size());
  values.emplace(placeholder, value);
  return placeholder;
}

const char* ComparatorText(expr::Comparator op) {
  switch (op) {
    case expr::Comparator::kEq: return "=";
    case expr::Comparator::kNe: return "<>";
    case expr::Comparator::kLt: return "<";
    case expr::Comparator::kLe: return "<=";
    case expr::Comparator::kGt: return ">";
    case expr::Comparator::kGe: return ">=";
  }
  return "=";
}

std::string RenderPath(const expr::Path& path, Placeholders* p) {
  std::string out;
  for (const auto& e : path.elements) {
    if (const auto* name = std::get_if<std::string>(&e)) {
      if (!out.empty()) out += '.';
      out += p->Name(*name);
    } else {
      out += "[" + std::to_string(std::get<size_t>(e)) + "]";
    }
  }
  return out;
}

std::string RenderOperand(const expr::Operand& o, Placeholders* p) {
  using K = expr::Operand::Kind;
  auto arg = [&](size_t i) { return RenderOperand(o.args[i], p); };
  switch (o.kind) {
    case K::kPath: return RenderPath(o.path, p);
    case K::kValue: return p->Value(o.value);
    case K::kSize: return "size(" + arg(0) + ")";
    case K::kIfNotExists: return "if_not_exists(" + arg(0) + ", " + arg(1) + ")";
    case K::kListAppend: return "list_append(" + arg(0) + ", " + arg(1) + ")";
    case K::kPlus: return arg(0) + " + " + arg(1);
    case K::kMinus: return arg(0) + " - " + arg(1);
  }
  return {};
}

namespace {

// Precedence, loosest first: OR, AND, NOT, everything else. A child is
// parenthesized only when it binds looser than its parent, so a long AND
// chain renders without nesting (the expression parser bounds nesting).
int Precedence(const expr::Condition& c) {
  switch (c.kind) {
    case expr::Condition::Kind::kOr: return 0;
    case expr::Condition::Kind::kAnd: return 1;
    case expr::Condition::Kind::kNot: return 2;
    default: return 3;
  }
}

std::string Child(const expr::Condition& child, int parent, Placeholders* p) {
  std::string text = RenderCondition(child, p);
  if (Precedence(child) < parent) return "(" + text + ")";
  return text;
}

}  // namespace

std::string RenderCondition(const expr::Condition& c, Placeholders* p) {
  using K = expr::Condition::Kind;
  auto operand = [&](size_t i) { return RenderOperand(c.operands[i], p); };
  switch (c.kind) {
    case K::kCompare: return operand(0) + " " + ComparatorText(c.op) + " " + operand(1);
    case K::kBetween: return operand(0) + " BETWEEN " + operand(1) + " AND " + operand(2);
    case K::kIn: {
      std::string out = operand(0) + " IN (";
      for (size_t i = 1; i < c.operands.size(); ++i) {
        if (i > 1) out += ", ";
        out += operand(i);
      }
      return out + ")";
    }
    case K::kAnd: return Child(c.children[0], 1, p) + " AND " + Child(c.children[1], 1, p);
    case K::kOr: return Child(c.children[0], 0, p) + " OR " + Child(c.children[1], 0, p);
    case K::kNot: return "NOT " + Child(c.children[0], 3, p);
    case K::kAttributeExists: return "attribute_exists(" + operand(0) + ")";
    case K::kAttributeNotExists: return "attribute_not_exists(" + operand(0) + ")";
    case K::kAttributeType: return "attribute_type(" + operand(0) + ", " + operand(1) + ")";
    case K::kBeginsWith: return "begins_with(" + operand(0) + ", " + operand(1) + ")";
    case K::kContains: return "contains(" + operand(0) + ", " + operand(1) + ")";
  }
  return {};
}

std::string RenderUpdate(const expr::UpdateExpression& u, Placeholders* p) {
  using K = expr::UpdateAction::Kind;
  std::string out;
  for (K kind : {K::kSet, K::kRemove, K::kAdd, K::kDelete}) {
    std::string clause;
    for (const auto& a : u.actions) {
      if (a.kind != kind) continue;
      clause += clause.empty() ? "" : ", ";
      clause += RenderPath(a.path, p);
      if (kind == K::kSet) clause += " = " + RenderOperand(a.value, p);
      if (kind == K::kAdd || kind == K::kDelete) clause += " " + RenderOperand(a.value, p);
    }
    if (clause.empty()) continue;
    static constexpr const char* kNames[] = {"SET ", "REMOVE ", "ADD ", "DELETE "};
    if (!out.empty()) out += ' ';
    out += kNames[static_cast<int>(kind)] + clause;
  }
  return out;
}

}  // namespace dynarock::partiql
