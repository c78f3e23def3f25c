// Lexer and recursive-descent parser for DynamoDB's PartiQL subset.
//
// Grammar (keywords and function names case-insensitive, identifiers
// case-sensitive; PARTIQL.md 3):
//   statement := (select | insert | update | delete | EXISTS '(' select ')') [';']
//   select    := SELECT ('*' | path (',' path)*) FROM target [WHERE cond]
//                [ORDER BY name [ASC|DESC] (',' ...)*]
//   insert    := INSERT INTO name VALUE value
//   update    := UPDATE name (SET set (',' set)* | REMOVE path (',' path)*)+
//                WHERE cond [returning]
//   delete    := DELETE FROM name WHERE cond [returning]
//   returning := RETURNING (ALL | MODIFIED) (OLD | NEW) '*'
//   target    := name ['.' name]
//   cond      := and (OR and)* ; and := not (AND not)* ; not := NOT not | primary
//   primary   := '(' cond ')' | function '(' args ')'
//              | operand (cmp operand | [NOT] BETWEEN operand AND operand
//                         | [NOT] IN ('[' | '(') value, ... (']' | ')')
//                         | IS [NOT] (MISSING | NULL))
//   operand   := path | value | SIZE '(' path ')'
//   set       := path '=' (operand [('+' | '-') operand]
//                          | LIST_APPEND '(' operand ',' operand ')'
//                          | SET_ADD '(' path ',' value ')' | SET_DELETE '(' path ',' value ')')
//   value     := 'string' | number | TRUE | FALSE | NULL | '?' | '[' value, ... ']'
//              | '{' 'string' ':' value, ... '}' | '<<' value, ... '>>'
//   path      := name ('.' name | '[' digits ']')* ; name := identifier | "quoted"
#include <cctype>
#include <set>

#include "engine/partiql/parser.h"

namespace dynarock::partiql {

// ---- Statements -----------------------------------------------------------------------------

Status Parser::ParseStatement(Statement* st) {
  const Token& first = Peek();
  if (IsKeyword(first, "SELECT")) return ParseSelect(st);
  if (IsKeyword(first, "INSERT")) return ParseInsert(st);
  if (IsKeyword(first, "UPDATE")) return ParseUpdate(st);
  if (IsKeyword(first, "DELETE")) return ParseDelete(st);
  if (IsKeyword(first, "EXISTS")) {
    Next();
    DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kLParen));
    if (!IsKeyword(Peek(), "SELECT")) return Unexpected(Peek());
    DYNAROCK_RETURN_IF_ERROR(ParseSelect(st));
    DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
    st->kind = Kind::kExists;
    return Status::OK();
  }
  return Malformed("Expected data manipulation");
}

Status Parser::ParseSelect(Statement* st) {
  Next();  // SELECT
  st->kind = Kind::kSelect;
  if (!Accept(Tok::kStar)) {
    std::set<std::string> labels;
    do {
      const Token& t = Peek();
      if (t.type == Tok::kIdent && Peek(1).type == Tok::kLParen) {
        // Aggregates and functions: DynamoDB's bare parser message.
        if (IsKeyword(t, "COUNT")) {
          return Status::Validation("Unexpected path component at " + LineColumn(t) + ":5");
        }
        return Unexpected(t);
      }
      DYNAROCK_ASSIGN_OR_RETURN(auto path, ParsePath());
      std::string label = Label(path);
      if (!labels.insert(label).second) {
        return Status::Validation("Duplicate identifiers in select clause: " + label);
      }
      st->labels.push_back(std::move(label));
      st->projection.push_back(std::move(path));
    } while (Accept(Tok::kComma));
  }
  DYNAROCK_RETURN_IF_ERROR(Expect("FROM"));
  DYNAROCK_RETURN_IF_ERROR(ParseTarget(st, /*dml=*/false));
  if (Accept("WHERE")) {
    DYNAROCK_ASSIGN_OR_RETURN(auto where, ParseCondition());
    st->where = std::move(where);
  }
  if (Accept("ORDER")) {
    DYNAROCK_RETURN_IF_ERROR(Expect("BY"));
    do {
      DYNAROCK_ASSIGN_OR_RETURN(auto name, ParseName());
      OrderBy o{std::move(name), false};
      if (Accept("DESC")) {
        o.descending = true;
      } else {
        Accept("ASC");
      }
      st->order_by.push_back(std::move(o));
    } while (Accept(Tok::kComma));
  }
  return Status::OK();
}

Status Parser::ParseInsert(Statement* st) {
  Next();  // INSERT
  st->kind = Kind::kInsert;
  DYNAROCK_RETURN_IF_ERROR(Expect("INTO"));
  DYNAROCK_RETURN_IF_ERROR(ParseTarget(st, /*dml=*/true));
  if (IsKeyword(Peek(), "VALUES")) return Malformed("use VALUE with a single tuple");
  DYNAROCK_RETURN_IF_ERROR(Expect("VALUE"));
  const Token& at = Peek();
  DYNAROCK_ASSIGN_OR_RETURN(auto value, ParseValue());
  if (!value.is(AttrType::kM)) {
    return Malformed("the value of an INSERT must be a tuple {'name': value, ...} at " +
                     Position(at));
  }
  for (const auto& [name, v] : value.m()) st->item.emplace(name, v);
  return Status::OK();
}

Status Parser::ParseUpdate(Statement* st) {
  Next();  // UPDATE
  st->kind = Kind::kUpdate;
  DYNAROCK_RETURN_IF_ERROR(ParseTarget(st, /*dml=*/true));
  bool any = false;
  while (true) {
    if (Accept("SET")) {
      do {
        DYNAROCK_RETURN_IF_ERROR(ParseSetAction(&st->update));
      } while (Accept(Tok::kComma));
    } else if (Accept("REMOVE")) {
      do {
        expr::UpdateAction a;
        a.kind = expr::UpdateAction::Kind::kRemove;
        DYNAROCK_ASSIGN_OR_RETURN(a.path, ParsePath());
        st->update.actions.push_back(std::move(a));
      } while (Accept(Tok::kComma));
    } else {
      break;
    }
    any = true;
  }
  if (!any) return Unexpected(Peek());
  DYNAROCK_RETURN_IF_ERROR(Expect("WHERE"));
  DYNAROCK_ASSIGN_OR_RETURN(auto where, ParseCondition());
  st->where = std::move(where);
  return ParseReturning(st);
}

Status Parser::ParseDelete(Statement* st) {
  Next();  // DELETE
  st->kind = Kind::kDelete;
  DYNAROCK_RETURN_IF_ERROR(Expect("FROM"));
  DYNAROCK_RETURN_IF_ERROR(ParseTarget(st, /*dml=*/true));
  DYNAROCK_RETURN_IF_ERROR(Expect("WHERE"));
  DYNAROCK_ASSIGN_OR_RETURN(auto where, ParseCondition());
  st->where = std::move(where);
  return ParseReturning(st);
}

Status Parser::ParseReturning(Statement* st) {
  if (!Accept("RETURNING")) return Status::OK();
  bool all;
  if (Accept("ALL")) {
    all = true;
  } else if (Accept("MODIFIED")) {
    all = false;
  } else {
    return Unexpected(Peek());
  }
  bool old;
  if (Accept("OLD")) {
    old = true;
  } else if (Accept("NEW")) {
    old = false;
  } else {
    return Unexpected(Peek());
  }
  DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kStar));
  if (st->kind == Kind::kDelete && !(all && old)) {
    return Status::Validation(std::string("Invalid returning clause: RETURNING ") +
                              (all ? "ALL" : "MODIFIED") + " " + (old ? "OLD" : "NEW") +
                              " *. Only RETURNING ALL OLD * is allowed in DELETE statements.");
  }
  st->returning = all ? (old ? ReturnValue::kAllOld : ReturnValue::kAllNew)
                      : (old ? ReturnValue::kUpdatedOld : ReturnValue::kUpdatedNew);
  return Status::OK();
}

// FROM/INTO/UPDATE's target: a table, or for SELECT "table"."index".
Status Parser::ParseTarget(Statement* st, bool dml) {
  const Token& first = Peek();
  DYNAROCK_ASSIGN_OR_RETURN(st->table, ParseTargetComponent());
  if (Peek().type != Tok::kDot) return Status::OK();
  Next();
  DYNAROCK_ASSIGN_OR_RETURN(auto index, ParseTargetComponent());
  if (Peek().type == Tok::kDot) {
    return Status::Validation("A path may contain at most 2 components in the FROM clause");
  }
  if (dml) {
    if (st->kind == Kind::kInsert) {
      Token whole = first;
      whole.len = Peek().pos - first.pos;
      while (whole.len > 0 && std::isspace(static_cast<unsigned char>(
                                  text_[whole.pos + whole.len - 1]))) {
        --whole.len;
      }
      return Status::Validation(
          "FROM clause may only contain a single table name in data manipulation "
          "statements at " +
          Position(whole));
    }
    return Status::Validation("This operation is not supported on an index");
  }
  st->index = std::move(index);
  return Status::OK();
}

Result<std::string> Parser::ParseTargetComponent() {
  const Token& t = Peek();
  if (t.type == Tok::kQuoted) {
    if (t.text.empty()) return Status::Validation("Path component cannot be an empty string");
    Next();
    return t.text;
  }
  if (t.type == Tok::kIdent && !IsReserved(t.text)) {
    Next();
    return t.text;
  }
  if (t.type == Tok::kQuestion) {
    return Malformed("a parameter cannot stand for a table name at " + Position(t));
  }
  return Unexpected(t);
}

// ---- Conditions -----------------------------------------------------------------------------

Result<expr::Condition> Parser::ParseCondition() {
  Nest nest(&depth_);
  DYNAROCK_RETURN_IF_ERROR(CheckDepth());
  DYNAROCK_ASSIGN_OR_RETURN(auto left, ParseAnd());
  while (Accept("OR")) {
    DYNAROCK_RETURN_IF_ERROR(CountOperator());
    DYNAROCK_ASSIGN_OR_RETURN(auto right, ParseAnd());
    left = Binary(expr::Condition::Kind::kOr, std::move(left), std::move(right));
  }
  return left;
}

Result<expr::Condition> Parser::ParseAnd() {
  DYNAROCK_ASSIGN_OR_RETURN(auto left, ParseNot());
  while (Accept("AND")) {
    DYNAROCK_RETURN_IF_ERROR(CountOperator());
    DYNAROCK_ASSIGN_OR_RETURN(auto right, ParseNot());
    left = Binary(expr::Condition::Kind::kAnd, std::move(left), std::move(right));
  }
  return left;
}

Result<expr::Condition> Parser::ParseNot() {
  Nest nest(&depth_);
  DYNAROCK_RETURN_IF_ERROR(CheckDepth());
  if (Accept("NOT")) {
    DYNAROCK_RETURN_IF_ERROR(CountOperator());
    DYNAROCK_ASSIGN_OR_RETURN(auto inner, ParseNot());
    return Negate(std::move(inner));
  }
  return ParsePrimary();
}

expr::Condition Parser::Binary(expr::Condition::Kind kind, expr::Condition a,
                              expr::Condition b) {
  expr::Condition c;
  c.kind = kind;
  c.children.push_back(std::move(a));
  c.children.push_back(std::move(b));
  return c;
}

expr::Condition Parser::Negate(expr::Condition inner) {
  expr::Condition c;
  c.kind = expr::Condition::Kind::kNot;
  c.children.push_back(std::move(inner));
  return c;
}

Result<expr::Condition> Parser::ParsePrimary() {
  DYNAROCK_RETURN_IF_ERROR(CountOperator());
  const Token& t = Peek();
  if (t.type == Tok::kLParen) {
    Next();
    DYNAROCK_ASSIGN_OR_RETURN(auto inner, ParseCondition());
    DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
    return inner;
  }
  if (t.type == Tok::kIdent && Peek(1).type == Tok::kLParen && !IsKeyword(t, "SIZE")) {
    return ParseFunction();
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto left, ParseOperand());
  const Token& op = Peek();
  std::optional<expr::Comparator> cmp;
  switch (op.type) {
    case Tok::kEq: cmp = expr::Comparator::kEq; break;
    case Tok::kNe: cmp = expr::Comparator::kNe; break;
    case Tok::kLt: cmp = expr::Comparator::kLt; break;
    case Tok::kLe: cmp = expr::Comparator::kLe; break;
    case Tok::kGt: cmp = expr::Comparator::kGt; break;
    case Tok::kGe: cmp = expr::Comparator::kGe; break;
    default: break;
  }
  if (cmp) {
    Next();
    DYNAROCK_ASSIGN_OR_RETURN(auto right, ParseOperand());
    if (*cmp != expr::Comparator::kEq && *cmp != expr::Comparator::kNe) {
      DYNAROCK_RETURN_IF_ERROR(CheckOrdered(ComparatorText(*cmp), left));
      DYNAROCK_RETURN_IF_ERROR(CheckOrdered(ComparatorText(*cmp), right));
    }
    expr::Condition c;
    c.kind = expr::Condition::Kind::kCompare;
    c.op = *cmp;
    c.operands.push_back(std::move(left));
    c.operands.push_back(std::move(right));
    return c;
  }
  const bool negated = Accept("NOT");
  if (Accept("BETWEEN")) {
    DYNAROCK_ASSIGN_OR_RETURN(auto low, ParseOperand());
    DYNAROCK_RETURN_IF_ERROR(Expect("AND"));
    DYNAROCK_ASSIGN_OR_RETURN(auto high, ParseOperand());
    for (const auto* o : {&left, &low, &high}) {
      DYNAROCK_RETURN_IF_ERROR(CheckOrdered("BETWEEN", *o));
    }
    expr::Condition c;
    c.kind = expr::Condition::Kind::kBetween;
    c.operands = {std::move(left), std::move(low), std::move(high)};
    return negated ? Negate(std::move(c)) : c;
  }
  if (Accept("IN")) {
    Tok close;
    if (Accept(Tok::kLBracket)) {
      close = Tok::kRBracket;
    } else if (Accept(Tok::kLParen)) {
      close = Tok::kRParen;
    } else {
      return Unexpected(Peek());
    }
    expr::Condition c;
    c.kind = expr::Condition::Kind::kIn;
    c.operands.push_back(std::move(left));
    do {
      DYNAROCK_ASSIGN_OR_RETURN(auto v, ParseValue());
      c.operands.push_back(ValueOperand(std::move(v)));
      if (c.operands.size() - 1 > kMaxInValues) {
        return Status::Validation("The IN operator accepts at most " +
                                  std::to_string(kMaxInValues) + " values");
      }
    } while (Accept(Tok::kComma));
    DYNAROCK_RETURN_IF_ERROR(Expect(close));
    return negated ? Negate(std::move(c)) : c;
  }
  if (negated) return Unexpected(Peek());
  if (Accept("IS")) {
    const bool is_not = Accept("NOT");
    if (left.kind != expr::Operand::Kind::kPath) return Unexpected(t);
    expr::Condition c;
    if (Accept("MISSING")) {
      c.kind = is_not ? expr::Condition::Kind::kAttributeExists
                      : expr::Condition::Kind::kAttributeNotExists;
      c.operands.push_back(std::move(left));
      return c;
    }
    if (Accept("NULL")) {
      c.kind = expr::Condition::Kind::kAttributeType;
      c.operands.push_back(std::move(left));
      c.operands.push_back(ValueOperand(AttributeValue::S("NULL")));
      return is_not ? Negate(std::move(c)) : c;
    }
    return Unexpected(Peek());
  }
  return Unexpected(Peek());
}

// DynamoDB rejects an ordering comparison of a literal that is not S, N or B.
Status Parser::CheckOrdered(std::string_view op, const expr::Operand& o) const {
  if (o.kind != expr::Operand::Kind::kValue) return Status::OK();
  const AttrType type = o.value.type();
  if (type == AttrType::kS || type == AttrType::kN || type == AttrType::kB) return Status::OK();
  return Status::Validation(
      "Incorrect operand type for operator or function; operator or function: " +
      std::string(op) + ", operand type: " + std::string(AttrTypeName(type)));
}

Result<expr::Condition> Parser::ParseFunction() {
  const Token& name = Next();
  const std::string fn = Upper(name.text);
  Next();  // (
  expr::Condition c;
  size_t arity;
  if (fn == "BEGINS_WITH") {
    c.kind = expr::Condition::Kind::kBeginsWith;
    arity = 2;
  } else if (fn == "CONTAINS") {
    c.kind = expr::Condition::Kind::kContains;
    arity = 2;
  } else if (fn == "ATTRIBUTE_TYPE") {
    c.kind = expr::Condition::Kind::kAttributeType;
    arity = 2;
  } else if (fn == "ATTRIBUTE_EXISTS") {
    c.kind = expr::Condition::Kind::kAttributeExists;
    arity = 1;
  } else if (fn == "ATTRIBUTE_NOT_EXISTS") {
    c.kind = expr::Condition::Kind::kAttributeNotExists;
    arity = 1;
  } else if (fn == "EXISTS") {
    return Malformed("EXISTS is only supported as a statement of ExecuteTransaction at " +
                     Position(name));
  } else {
    return Malformed("unknown function " + name.text + " at " + Position(name));
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto path, ParsePath());
  c.operands.push_back(PathOperand(std::move(path)));
  for (size_t i = 1; i < arity; ++i) {
    DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kComma));
    DYNAROCK_ASSIGN_OR_RETURN(auto o, ParseOperand());
    c.operands.push_back(std::move(o));
  }
  DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
  return c;
}

Result<expr::Operand> Parser::ParseOperand() {
  const Token& t = Peek();
  if (IsKeyword(t, "SIZE") && Peek(1).type == Tok::kLParen) {
    Next();
    Next();
    DYNAROCK_ASSIGN_OR_RETURN(auto path, ParsePath());
    DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
    expr::Operand o;
    o.kind = expr::Operand::Kind::kSize;
    o.args.push_back(PathOperand(std::move(path)));
    return o;
  }
  if (StartsValue(t)) {
    DYNAROCK_ASSIGN_OR_RETURN(auto v, ParseValue());
    return ValueOperand(std::move(v));
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto path, ParsePath());
  return PathOperand(std::move(path));
}

// ---- UPDATE's SET ---------------------------------------------------------------------------

Status Parser::ParseSetAction(expr::UpdateExpression* u) {
  expr::UpdateAction a;
  DYNAROCK_ASSIGN_OR_RETURN(a.path, ParsePath());
  DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kEq));
  const Token& t = Peek();
  if (t.type == Tok::kIdent && Peek(1).type == Tok::kLParen) {
    const std::string fn = Upper(t.text);
    if (fn == "SET_ADD" || fn == "SET_DELETE") {
      Next();
      Next();
      DYNAROCK_ASSIGN_OR_RETURN(auto path, ParsePath());
      if (!(path == a.path)) {
        return Malformed(fn + " must name the attribute it sets at " + Position(t));
      }
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kComma));
      DYNAROCK_ASSIGN_OR_RETURN(auto v, ParseValue());
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
      a.kind = fn == "SET_ADD" ? expr::UpdateAction::Kind::kAdd
                               : expr::UpdateAction::Kind::kDelete;
      a.value = ValueOperand(std::move(v));
      u->actions.push_back(std::move(a));
      return Status::OK();
    }
    if (fn == "LIST_APPEND") {
      Next();
      Next();
      expr::Operand o;
      o.kind = expr::Operand::Kind::kListAppend;
      DYNAROCK_ASSIGN_OR_RETURN(auto first, ParseOperand());
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kComma));
      DYNAROCK_ASSIGN_OR_RETURN(auto second, ParseOperand());
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
      o.args = {std::move(first), std::move(second)};
      a.kind = expr::UpdateAction::Kind::kSet;
      a.value = std::move(o);
      u->actions.push_back(std::move(a));
      return Status::OK();
    }
    if (fn != "SIZE") return Malformed("unknown function " + t.text + " at " + Position(t));
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto value, ParseOperand());
  if (Peek().type == Tok::kPlus || Peek().type == Tok::kMinus) {
    const bool plus = Next().type == Tok::kPlus;
    DYNAROCK_ASSIGN_OR_RETURN(auto right, ParseOperand());
    expr::Operand o;
    o.kind = plus ? expr::Operand::Kind::kPlus : expr::Operand::Kind::kMinus;
    o.args = {std::move(value), std::move(right)};
    value = std::move(o);
  }
  a.kind = expr::UpdateAction::Kind::kSet;
  a.value = std::move(value);
  u->actions.push_back(std::move(a));
  return Status::OK();
}

Result<Statement> Parse(std::string_view text, const std::vector<AttributeValue>& parameters) {
  if (text.size() > kMaxStatementBytes) {
    return Status::Validation(
        "1 validation error detected: Value at 'statement' failed to satisfy constraint: Member "
        "must have length less than or equal to 8192");
  }
  bool blank = true;
  for (char c : text) blank = blank && std::isspace(static_cast<unsigned char>(c));
  if (blank) return Malformed("");
  return Parser(text, parameters).Run();
}

std::vector<const expr::Condition*> Conjuncts(const expr::Condition& c) {
  if (c.kind != expr::Condition::Kind::kAnd) return {&c};
  std::vector<const expr::Condition*> out;
  for (const auto& child : c.children) {
    auto sub = Conjuncts(child);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

}  // namespace dynarock::partiql
