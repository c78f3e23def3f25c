// Lexer and recursive-descent parsers for DynamoDB expressions.
//
// Grammar (keywords case-insensitive, function names case-sensitive):
//   condition := or
//   or        := and (OR and)*
//   and       := not (AND not)*
//   not       := NOT not | primary
//   primary   := '(' condition ')' | function '(' operands ')'
//              | operand comparator operand | operand BETWEEN operand AND operand
//              | operand IN '(' operand (',' operand)* ')'
//   operand   := path | :value | size '(' path ')'
//   path      := name ('.' name | '[' digits ']')*      name := identifier | #placeholder
//   update    := (SET set (',' set)* | REMOVE path (',' path)* | ADD path :v (',' ..)*
//                | DELETE path :v (',' ..)*)+
//   set       := path '=' value (('+' | '-') value)?
//   value     := path | :value | if_not_exists '(' path ',' value ')'
//              | list_append '(' value ',' value ')'
#include <cctype>

#include "engine/expr/expression.h"

namespace dynarock::expr {
namespace {

enum class Tok {
  kEnd, kName, kNamePlaceholder, kValuePlaceholder, kNumber,
  kLParen, kRParen, kLBracket, kRBracket, kComma, kDot,
  kEq, kNe, kLt, kLe, kGt, kGe, kPlus, kMinus, kInvalid,
};

struct Token {
  Tok type;
  std::string_view text;
  size_t pos;
};

// A bare name starts with a letter (`_123` is a syntax error, as in
// DynamoDB); '_' may follow.
bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)); }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<Token> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    size_t start = i;
    auto emit = [&](Tok t, size_t len) {
      out.push_back({t, s.substr(start, len), start});
      i = start + len;
    };
    if (IsNameStart(c)) {
      size_t j = i + 1;
      while (j < s.size() && IsNameChar(s[j])) ++j;
      emit(Tok::kName, j - i);
    } else if (c == '#' || c == ':') {
      size_t j = i + 1;
      while (j < s.size() && IsNameChar(s[j])) ++j;
      if (j == i + 1) {
        emit(Tok::kInvalid, 1);
      } else {
        emit(c == '#' ? Tok::kNamePlaceholder : Tok::kValuePlaceholder, j - i);
      }
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i + 1;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      emit(Tok::kNumber, j - i);
    } else if (c == '<' && i + 1 < s.size() && s[i + 1] == '>') {
      emit(Tok::kNe, 2);
    } else if (c == '<' && i + 1 < s.size() && s[i + 1] == '=') {
      emit(Tok::kLe, 2);
    } else if (c == '>' && i + 1 < s.size() && s[i + 1] == '=') {
      emit(Tok::kGe, 2);
    } else {
      Tok t = Tok::kInvalid;
      switch (c) {
        case '(': t = Tok::kLParen; break;
        case ')': t = Tok::kRParen; break;
        case '[': t = Tok::kLBracket; break;
        case ']': t = Tok::kRBracket; break;
        case ',': t = Tok::kComma; break;
        case '.': t = Tok::kDot; break;
        case '=': t = Tok::kEq; break;
        case '<': t = Tok::kLt; break;
        case '>': t = Tok::kGt; break;
        case '+': t = Tok::kPlus; break;
        case '-': t = Tok::kMinus; break;
        default: break;
      }
      // An invalid byte: take the whole UTF-8 sequence so messages show a character.
      size_t len = 1;
      if (t == Tok::kInvalid) {
        while (start + len < s.size() && (static_cast<unsigned char>(s[start + len]) & 0xC0) == 0x80) ++len;
      }
      emit(t, len);
    }
  }
  out.push_back({Tok::kEnd, std::string_view(), s.size()});
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

class Parser {
 public:
  Parser(std::string_view text, ExprKind kind) : text_(text), kind_(kind), toks_(Lex(text)) {}

  Status CheckText() {
    if (text_.size() > kMaxExpressionBytes) {
      return Error("Expression size has exceeded the maximum allowed size; expression size: " +
                   std::to_string(text_.size()));
    }
    if (toks_.size() == 1) return Error("The expression can not be empty;");
    return Status::OK();
  }

  Status ParseCondition(Condition* out) {
    DYNAROCK_RETURN_IF_ERROR(CheckText());
    bool bare_paren = false;
    DYNAROCK_RETURN_IF_ERROR(Or(out, &bare_paren));
    return ExpectEnd();
  }

  Status ParseProjection(std::vector<Path>* out) {
    DYNAROCK_RETURN_IF_ERROR(CheckText());
    do {
      Path p;
      DYNAROCK_RETURN_IF_ERROR(ParsePath(&p));
      out->push_back(std::move(p));
    } while (Accept(Tok::kComma));
    return ExpectEnd();
  }

  Status ParseUpdate(UpdateExpression* out) {
    DYNAROCK_RETURN_IF_ERROR(CheckText());
    static constexpr std::string_view kClauses[] = {"SET", "REMOVE", "ADD", "DELETE"};
    bool seen[4] = {false, false, false, false};
    while (Peek().type != Tok::kEnd) {
      int clause = ClauseKeyword(Peek());
      if (clause < 0) return SyntaxError();
      if (seen[clause]) {
        return Error("The \"" + std::string(kClauses[clause]) +
                     "\" section can only be used once in an update expression;");
      }
      seen[clause] = true;
      Next();
      do {
        UpdateAction a;
        a.kind = static_cast<UpdateAction::Kind>(clause);
        DYNAROCK_RETURN_IF_ERROR(ParsePath(&a.path));
        if (a.kind == UpdateAction::Kind::kSet) {
          DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kEq));
          DYNAROCK_RETURN_IF_ERROR(SetValue(&a.value));
        } else if (a.kind != UpdateAction::Kind::kRemove) {
          if (Peek().type != Tok::kValuePlaceholder) return SyntaxError();
          a.value.kind = Operand::Kind::kValue;
          a.value.placeholder = std::string(Next().text);
        }
        out->actions.push_back(std::move(a));
      } while (Accept(Tok::kComma));
    }
    return Status::OK();
  }

 private:
  // ---- tokens
  const Token& Peek(size_t ahead = 0) const { return toks_[std::min(i_ + ahead, toks_.size() - 1)]; }
  const Token& Next() { return toks_[i_ < toks_.size() - 1 ? i_++ : i_]; }
  bool Accept(Tok t) {
    if (Peek().type != t) return false;
    Next();
    return true;
  }
  Status Expect(Tok t) { return Accept(t) ? Status::OK() : SyntaxError(); }
  Status ExpectEnd() { return Peek().type == Tok::kEnd ? Status::OK() : SyntaxError(); }
  bool IsKeyword(const Token& t, std::string_view kw) const {
    return t.type == Tok::kName && EqualsIgnoreCase(t.text, kw);
  }
  int ClauseKeyword(const Token& t) const {
    static constexpr std::string_view kClauses[] = {"SET", "REMOVE", "ADD", "DELETE"};
    for (int k = 0; k < 4; ++k) {
      if (IsKeyword(t, kClauses[k])) return k;
    }
    return -1;
  }

  // ---- errors
  Status Error(const std::string& msg) const {
    return Status::Validation("Invalid " + std::string(ExprKindName(kind_)) + ": " + msg);
  }
  // `Syntax error; token: "<tok>", near: "<prev tok next>"`, quoting the text.
  Status SyntaxError() const {
    const Token& t = Peek();
    std::string tok = t.type == Tok::kEnd ? "<EOF>" : std::string(t.text);
    size_t from = i_ > 0 ? toks_[i_ - 1].pos : t.pos;
    const Token& after = Peek(t.type == Tok::kEnd ? 0 : 1);
    size_t to = after.type == Tok::kEnd ? text_.size() : after.pos + after.text.size();
    return Error("Syntax error; token: \"" + tok + "\", near: \"" +
                 std::string(text_.substr(from, to - from)) + "\"");
  }
  Status CountOperator() {
    if (++operators_ > kMaxOperators) {
      return Error("The expression contains too many operators; operator count: " +
                   std::to_string(operators_));
    }
    return Status::OK();
  }
  Status Deeper() {
    if (++depth_ > kMaxNesting) {
      return Error("The expression is nested too deeply; maximum nesting: " +
                   std::to_string(kMaxNesting));
    }
    return Status::OK();
  }

  // ---- conditions
  Status Or(Condition* out, bool* bare_paren) {
    DYNAROCK_RETURN_IF_ERROR(And(out, bare_paren));
    while (IsKeyword(Peek(), "OR")) {
      Next();
      DYNAROCK_RETURN_IF_ERROR(CountOperator());
      Condition rhs;
      bool ignored;
      DYNAROCK_RETURN_IF_ERROR(And(&rhs, &ignored));
      Condition node;
      node.kind = Condition::Kind::kOr;
      node.children = {std::move(*out), std::move(rhs)};
      *out = std::move(node);
      *bare_paren = false;
    }
    return Status::OK();
  }

  Status And(Condition* out, bool* bare_paren) {
    DYNAROCK_RETURN_IF_ERROR(Not(out, bare_paren));
    while (IsKeyword(Peek(), "AND")) {
      Next();
      DYNAROCK_RETURN_IF_ERROR(CountOperator());
      Condition rhs;
      bool ignored;
      DYNAROCK_RETURN_IF_ERROR(Not(&rhs, &ignored));
      Condition node;
      node.kind = Condition::Kind::kAnd;
      node.children = {std::move(*out), std::move(rhs)};
      *out = std::move(node);
      *bare_paren = false;
    }
    return Status::OK();
  }

  Status Not(Condition* out, bool* bare_paren) {
    if (IsKeyword(Peek(), "NOT")) {
      Next();
      DYNAROCK_RETURN_IF_ERROR(CountOperator());
      DYNAROCK_RETURN_IF_ERROR(Deeper());
      Condition child;
      bool ignored;
      DYNAROCK_RETURN_IF_ERROR(Not(&child, &ignored));
      --depth_;
      out->kind = Condition::Kind::kNot;
      out->children = {std::move(child)};
      *bare_paren = false;
      return Status::OK();
    }
    return Primary(out, bare_paren);
  }

  Status Primary(Condition* out, bool* bare_paren) {
    *bare_paren = false;
    if (Accept(Tok::kLParen)) {
      DYNAROCK_RETURN_IF_ERROR(Deeper());
      bool inner_paren = false;
      DYNAROCK_RETURN_IF_ERROR(Or(out, &inner_paren));
      if (inner_paren) return Error("The expression has redundant parentheses;");
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
      --depth_;
      *bare_paren = true;
      return Status::OK();
    }
    if (Peek().type == Tok::kName && Peek(1).type == Tok::kLParen) {
      std::string_view fn = Peek().text;
      static const std::pair<std::string_view, Condition::Kind> kBoolFunctions[] = {
          {"attribute_exists", Condition::Kind::kAttributeExists},
          {"attribute_not_exists", Condition::Kind::kAttributeNotExists},
          {"attribute_type", Condition::Kind::kAttributeType},
          {"begins_with", Condition::Kind::kBeginsWith},
          {"contains", Condition::Kind::kContains},
      };
      for (const auto& [name, kind] : kBoolFunctions) {
        if (fn != name) continue;
        Next();
        Next();
        DYNAROCK_RETURN_IF_ERROR(CountOperator());
        out->kind = kind;
        DYNAROCK_RETURN_IF_ERROR(Arguments(&out->operands));
        return CheckFunction(*out, fn);
      }
    }
    Operand lhs;
    DYNAROCK_RETURN_IF_ERROR(ConditionOperand(&lhs));
    const Token& t = Peek();
    static const std::pair<Tok, Comparator> kComparators[] = {
        {Tok::kEq, Comparator::kEq}, {Tok::kNe, Comparator::kNe}, {Tok::kLt, Comparator::kLt},
        {Tok::kLe, Comparator::kLe}, {Tok::kGt, Comparator::kGt}, {Tok::kGe, Comparator::kGe}};
    for (const auto& [tok, cmp] : kComparators) {
      if (t.type != tok) continue;
      Next();
      DYNAROCK_RETURN_IF_ERROR(CountOperator());
      Operand rhs;
      DYNAROCK_RETURN_IF_ERROR(ConditionOperand(&rhs));
      out->kind = Condition::Kind::kCompare;
      out->op = cmp;
      out->operands = {std::move(lhs), std::move(rhs)};
      return Status::OK();
    }
    if (IsKeyword(t, "BETWEEN")) {
      Next();
      DYNAROCK_RETURN_IF_ERROR(CountOperator());
      Operand lo, hi;
      DYNAROCK_RETURN_IF_ERROR(ConditionOperand(&lo));
      if (!IsKeyword(Peek(), "AND")) return SyntaxError();
      Next();
      DYNAROCK_RETURN_IF_ERROR(ConditionOperand(&hi));
      out->kind = Condition::Kind::kBetween;
      out->operands = {std::move(lhs), std::move(lo), std::move(hi)};
      return Status::OK();
    }
    if (IsKeyword(t, "IN")) {
      Next();
      DYNAROCK_RETURN_IF_ERROR(CountOperator());
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kLParen));
      out->kind = Condition::Kind::kIn;
      out->operands.push_back(std::move(lhs));
      do {
        Operand o;
        DYNAROCK_RETURN_IF_ERROR(ConditionOperand(&o));
        out->operands.push_back(std::move(o));
      } while (Accept(Tok::kComma));
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
      if (out->operands.size() - 1 > kMaxInOperands) {
        return Error("The IN operator is provided with too many operands; number of operands: " +
                     std::to_string(out->operands.size() - 1));
      }
      return Status::OK();
    }
    if (lhs.kind == Operand::Kind::kSize) {
      return Error("The function is not allowed to be used this way in an expression; function: size");
    }
    return SyntaxError();
  }

  // '(' operand (',' operand)* ')' after the function name and '('.
  Status Arguments(std::vector<Operand>* out) {
    if (Peek().type != Tok::kRParen) {
      do {
        Operand o;
        DYNAROCK_RETURN_IF_ERROR(ConditionOperand(&o));
        out->push_back(std::move(o));
      } while (Accept(Tok::kComma));
    }
    return Expect(Tok::kRParen);
  }

  Status CheckFunction(const Condition& c, std::string_view fn) {
    size_t want = (c.kind == Condition::Kind::kAttributeExists ||
                   c.kind == Condition::Kind::kAttributeNotExists) ? 1 : 2;
    if (c.operands.size() != want) {
      return Error("Incorrect number of operands for operator or function; operator or function: " +
                   std::string(fn) + ", number of operands: " + std::to_string(c.operands.size()));
    }
    // begins_with and attribute_type also take a value first, as DynamoDB
    // does (`begins_with(:whole, prefix)`); the others test a stored path.
    if (c.operands[0].kind != Operand::Kind::kPath && c.kind != Condition::Kind::kBeginsWith &&
        c.kind != Condition::Kind::kAttributeType) {
      return Error("Operator or function requires a document path; operator or function: " +
                   std::string(fn));
    }
    return Status::OK();
  }

  // path | :value | size(path) | another function: not allowed here.
  Status ConditionOperand(Operand* out) {
    const Token& t = Peek();
    if (t.type == Tok::kValuePlaceholder) {
      out->kind = Operand::Kind::kValue;
      out->placeholder = std::string(Next().text);
      return Status::OK();
    }
    if (t.type == Tok::kName && Peek(1).type == Tok::kLParen) {
      std::string fn(t.text);
      if (fn == "size") {
        Next();
        Next();
        DYNAROCK_RETURN_IF_ERROR(CountOperator());
        out->kind = Operand::Kind::kSize;
        DYNAROCK_RETURN_IF_ERROR(Arguments(&out->args));
        if (out->args.size() != 1) {
          return Error("Incorrect number of operands for operator or function; operator or "
                       "function: size, number of operands: " + std::to_string(out->args.size()));
        }
        return Status::OK();
      }
      // Another condition function as an operand is misused; a name that
      // is no condition function (if_not_exists too) is unknown here.
      if (IsConditionFunction(fn)) {
        return Error("The function is not allowed to be used this way in an expression; function: " + fn);
      }
      return Error("Invalid function name; function: " + fn);
    }
    out->kind = Operand::Kind::kPath;
    return ParsePath(&out->path);
  }

  static bool IsConditionFunction(std::string_view fn) {
    for (std::string_view f : {"attribute_exists", "attribute_not_exists", "attribute_type",
                               "begins_with", "contains", "size"}) {
      if (fn == f) return true;
    }
    return false;
  }

  // ---- update values
  Status SetValue(Operand* out) {
    Operand lhs;
    DYNAROCK_RETURN_IF_ERROR(UpdateOperand(&lhs));
    if (Peek().type == Tok::kPlus || Peek().type == Tok::kMinus) {
      out->kind = Next().type == Tok::kPlus ? Operand::Kind::kPlus : Operand::Kind::kMinus;
      DYNAROCK_RETURN_IF_ERROR(CountOperator());
      Operand rhs;
      DYNAROCK_RETURN_IF_ERROR(UpdateOperand(&rhs));
      out->args = {std::move(lhs), std::move(rhs)};
      return Status::OK();
    }
    *out = std::move(lhs);
    return Status::OK();
  }

  Status UpdateOperand(Operand* out) {
    const Token& t = Peek();
    if (t.type == Tok::kValuePlaceholder) {
      out->kind = Operand::Kind::kValue;
      out->placeholder = std::string(Next().text);
      return Status::OK();
    }
    if (t.type == Tok::kName && Peek(1).type == Tok::kLParen) {
      std::string fn(t.text);
      // An update expression knows only these two: a condition function
      // (size, attribute_exists, ...) is an unknown name here, as DynamoDB
      // answers it (dynalite, written against it, agrees).
      if (fn != "if_not_exists" && fn != "list_append") {
        return Error("Invalid function name; function: " + fn);
      }
      Next();
      Next();
      DYNAROCK_RETURN_IF_ERROR(CountOperator());
      DYNAROCK_RETURN_IF_ERROR(Deeper());
      out->kind = fn == "if_not_exists" ? Operand::Kind::kIfNotExists : Operand::Kind::kListAppend;
      if (Peek().type != Tok::kRParen) {
        do {
          Operand o;
          DYNAROCK_RETURN_IF_ERROR(UpdateOperand(&o));
          out->args.push_back(std::move(o));
        } while (Accept(Tok::kComma));
      }
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRParen));
      --depth_;
      if (out->args.size() != 2) {
        return Error("Incorrect number of operands for operator or function; operator or function: " +
                     fn + ", number of operands: " + std::to_string(out->args.size()));
      }
      if (out->kind == Operand::Kind::kIfNotExists && out->args[0].kind != Operand::Kind::kPath) {
        return Error("Operator or function requires a document path; operator or function: " + fn);
      }
      // list_append takes lists: a path, a value or if_not_exists, never
      // another list_append (DynamoDB refuses the nesting).
      for (const Operand& a : out->args) {
        if (out->kind == Operand::Kind::kListAppend && a.kind == Operand::Kind::kListAppend) {
          return Error(
              "The function is not allowed to be used this way in an expression; function: " + fn);
        }
      }
      return Status::OK();
    }
    out->kind = Operand::Kind::kPath;
    return ParsePath(&out->path);
  }

  // ---- paths
  Status ParsePath(Path* out) {
    const Token& t = Peek();
    if (t.type != Tok::kName && t.type != Tok::kNamePlaceholder) return SyntaxError();
    out->elements.emplace_back(std::string(Next().text));
    while (true) {
      if (Accept(Tok::kDot)) {
        const Token& n = Peek();
        if (n.type != Tok::kName && n.type != Tok::kNamePlaceholder) return SyntaxError();
        out->elements.emplace_back(std::string(Next().text));
      } else if (Accept(Tok::kLBracket)) {
        const Token& n = Peek();
        if (n.type != Tok::kNumber || n.text.size() > 9) return SyntaxError();
        out->elements.emplace_back(static_cast<size_t>(std::stoul(std::string(Next().text))));
        DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRBracket));
      } else {
        break;
      }
      if (out->elements.size() > static_cast<size_t>(kMaxPathDepth)) {
        return Error("The document path has too many nesting levels; nesting levels: " +
                     std::to_string(out->elements.size()));
      }
    }
    return Status::OK();
  }

  std::string_view text_;
  ExprKind kind_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  int operators_ = 0;
  int depth_ = 0;
};

}  // namespace

std::string_view ExprKindName(ExprKind kind) {
  switch (kind) {
    case ExprKind::kCondition: return "ConditionExpression";
    case ExprKind::kFilter: return "FilterExpression";
    case ExprKind::kKeyCondition: return "KeyConditionExpression";
    case ExprKind::kSearchCondition:
      return "SearchConditionExpression";
    case ExprKind::kProjection: return "ProjectionExpression";
    case ExprKind::kUpdate: return "UpdateExpression";
  }
  return "Expression";
}

std::string Path::ToString() const {
  std::string out = "[";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i) out += ", ";
    if (const auto* name = std::get_if<std::string>(&elements[i])) {
      out += *name;
    } else {
      out += "[" + std::to_string(std::get<size_t>(elements[i])) + "]";
    }
  }
  return out + "]";
}

Result<Condition> ParseCondition(std::string_view text, ExprKind kind) {
  Parser p(text, kind);
  Condition c;
  DYNAROCK_RETURN_IF_ERROR(p.ParseCondition(&c));
  return c;
}

Result<std::vector<Path>> ParseProjection(std::string_view text) {
  Parser p(text, ExprKind::kProjection);
  std::vector<Path> paths;
  DYNAROCK_RETURN_IF_ERROR(p.ParseProjection(&paths));
  return paths;
}

Result<UpdateExpression> ParseUpdate(std::string_view text) {
  Parser p(text, ExprKind::kUpdate);
  UpdateExpression u;
  DYNAROCK_RETURN_IF_ERROR(p.ParseUpdate(&u));
  return u;
}

}  // namespace dynarock::expr
