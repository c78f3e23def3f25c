// Internal to the PartiQL parser: the recursive-descent Parser over the
// lexer's tokens. parser.cc holds the statements, conditions and SET
// actions; literals.cc the paths and values. Grammar: parser.cc.
#ifndef DYNAROCK_ENGINE_PARTIQL_PARSER_H_
#define DYNAROCK_ENGINE_PARTIQL_PARSER_H_

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "engine/partiql/lexer.h"
#include "engine/partiql/partiql.h"

namespace dynarock::partiql {

// ValidationException "Statement wasn't well formed" with a detail.
inline Status Malformed(std::string_view detail) {
  return Status::Validation("Statement wasn't well formed, can't be processed: " +
                            std::string(detail));
}

// A literal, and an attribute path, as an expression operand.
inline expr::Operand ValueOperand(AttributeValue v) {
  expr::Operand o;
  o.kind = expr::Operand::Kind::kValue;
  o.value = std::move(v);
  return o;
}

inline expr::Operand PathOperand(expr::Path p) {
  expr::Operand o;
  o.kind = expr::Operand::Kind::kPath;
  o.path = std::move(p);
  return o;
}

// Parses one statement: construct, then Run() once. Errors are
// ValidationExceptions naming the offending token's line:column:length.
class Parser {
 public:
  Parser(std::string_view text, const std::vector<AttributeValue>& parameters)
      : text_(text), tokens_(Lex(text)), parameters_(parameters) {}

  Result<Statement> Run() {
    Statement st;
    DYNAROCK_RETURN_IF_ERROR(ParseStatement(&st));
    if (Peek().type == Tok::kSemicolon) Next();
    if (Peek().type != Tok::kEnd) {
      if (IsKeyword(Peek(), "LIMIT")) return Status::Validation("Unsupported clause: LIMIT");
      return Unexpected(Peek());
    }
    if (parameters_used_ > parameters_.size()) {
      return Status::Validation("Number of parameters in request and statement don't match.");
    }
    return st;
  }

 private:
  // ---- Tokens -------------------------------------------------------------------------------

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = Peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  static bool IsKeyword(const Token& t, std::string_view word) {
    return t.type == Tok::kIdent && Upper(t.text) == word;
  }
  bool Accept(std::string_view keyword) {
    if (!IsKeyword(Peek(), keyword)) return false;
    Next();
    return true;
  }
  bool Accept(Tok type) {
    if (Peek().type != type) return false;
    Next();
    return true;
  }

  // "line:column:length", 1-based, of a token.
  std::string Position(const Token& t) const {
    return LineColumn(t) + ":" + std::to_string(std::max<size_t>(t.len, 1));
  }
  std::string LineColumn(const Token& t) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < t.pos && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return std::to_string(line) + ":" + std::to_string(column);
  }
  Status Unexpected(const Token& t) const {
    if (t.type == Tok::kEnd) return Malformed("unexpected end of statement");
    if (t.type == Tok::kInvalid) {
      return Malformed("invalid character at " + Position(t));
    }
    std::string shown(text_.substr(t.pos, std::min<size_t>(t.len, 64)));
    return Malformed("unexpected '" + shown + "' at " + Position(t));
  }
  Status Expect(Tok type) {
    if (Peek().type != type) return Unexpected(Peek());
    Next();
    return Status::OK();
  }
  Status Expect(std::string_view keyword) {
    if (!IsKeyword(Peek(), keyword)) return Unexpected(Peek());
    Next();
    return Status::OK();
  }

  // Depth of nested conditions and literals.
  class Nest {
   public:
    explicit Nest(int* depth) : depth_(depth) { ++*depth_; }
    ~Nest() { --*depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    int* depth_;
  };
  Status CheckDepth() const {
    if (depth_ > kMaxDepth) return Malformed("the statement nests too deeply");
    return Status::OK();
  }
  // Counts one operator or function of a condition (as DynamoDB's
  // expressions, at most expr::kMaxOperators).
  Status CountOperator() {
    if (++operators_ > expr::kMaxOperators) {
      return Malformed("the statement has more than " + std::to_string(expr::kMaxOperators) +
                       " operators");
    }
    return Status::OK();
  }

  // ---- Statements -----------------------------------------------------------------------------

  Status ParseStatement(Statement* st);
  Status ParseSelect(Statement* st);
  Status ParseInsert(Statement* st);
  Status ParseUpdate(Statement* st);
  Status ParseDelete(Statement* st);
  Status ParseReturning(Statement* st);
  // FROM/INTO/UPDATE's target: a table, or for SELECT "table"."index".
  Status ParseTarget(Statement* st, bool dml);
  Result<std::string> ParseTargetComponent();

  // ---- Paths ----------------------------------------------------------------------------------

  Result<std::string> ParseName();
  Result<expr::Path> ParsePath();
  // The key a projected path comes back under: its last name and the
  // indexes after it.
  static std::string Label(const expr::Path& p);

  // ---- Values ---------------------------------------------------------------------------------
  bool StartsValue(const Token& t) const;
  Result<AttributeValue> ParseNumber(bool negative);
  Result<AttributeValue> ParseValue(bool in_bag = false);
  Result<AttributeValue> ParseBag();

  // ---- Conditions -----------------------------------------------------------------------------

  Result<expr::Condition> ParseCondition();
  Result<expr::Condition> ParseAnd();
  Result<expr::Condition> ParseNot();
  static expr::Condition Binary(expr::Condition::Kind kind, expr::Condition a,
                                expr::Condition b);
  static expr::Condition Negate(expr::Condition inner);
  Result<expr::Condition> ParsePrimary();
  // DynamoDB rejects an ordering comparison of a literal that is not S, N or B.
  Status CheckOrdered(std::string_view op, const expr::Operand& o) const;
  Result<expr::Condition> ParseFunction();
  Result<expr::Operand> ParseOperand();

  // ---- UPDATE's SET ---------------------------------------------------------------------------

  Status ParseSetAction(expr::UpdateExpression* u);

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  const std::vector<AttributeValue>& parameters_;
  size_t parameters_used_ = 0;
  int depth_ = 0;
  int operators_ = 0;
};

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_PARSER_H_
