// DynamoDB's PartiQL subset: the parser, and
// the rendering of its conditions and updates as DynamoDB expressions.
//
// A statement is parsed with its parameters: every `?` is bound, in order,
// to the next value of `parameters` while parsing, so the tree holds values,
// never placeholders. Conditions and updates are the expression language's
// own trees (engine/expr/expression.h), already resolved: a SELECT's WHERE
// is evaluated with expr::Evaluate on every item read, and a write's WHERE
// and SET/REMOVE become a ConditionExpression and an UpdateExpression
// (Render) for the write operations, which then check and apply them as
// they check and apply any request's.
//
// No RocksDB here: the fuzz target builds this library instrumented.
#ifndef DYNAROCK_ENGINE_PARTIQL_PARTIQL_H_
#define DYNAROCK_ENGINE_PARTIQL_PARTIQL_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/types.h"
#include "engine/expr/expression.h"

namespace dynarock::partiql {

// Bounds (DynamoDB: a statement is at most 8192 characters; IN lists hold at
// most 100 values, 50 of them for a partition key).
inline constexpr size_t kMaxStatementBytes = 8192;
inline constexpr int kMaxDepth = 64;  // parentheses, NOT chains, nested literals
inline constexpr size_t kMaxInValues = 100;
inline constexpr size_t kMaxKeyInValues = 50;

enum class Kind {
  kSelect,
  kInsert,
  kUpdate,
  kDelete,
  kExists,  // EXISTS(SELECT ...): a condition check in ExecuteTransaction
};

struct OrderBy {
  std::string attribute;
  bool descending = false;
};

struct Statement {
  Kind kind = Kind::kSelect;
  std::string table;
  std::optional<std::string> index;  // SELECT ... FROM "table"."index"

  // SELECT: the projected paths (empty: *), and the name each comes back as
  // (its last segment: m.k[1] -> "k[1]").
  std::vector<expr::Path> projection;
  std::vector<std::string> labels;
  std::vector<OrderBy> order_by;

  // SELECT, UPDATE, DELETE and EXISTS: the WHERE clause, values bound.
  std::optional<expr::Condition> where;

  // INSERT: the item.
  Item item;

  // UPDATE: SET and REMOVE as UpdateExpression actions (set_add and
  // set_delete are ADD and DELETE).
  expr::UpdateExpression update;
  // UPDATE and DELETE: RETURNING ALL|MODIFIED OLD|NEW *.
  std::optional<ReturnValue> returning;

  bool is_read() const { return kind == Kind::kSelect; }
};

// Parses one statement and binds its parameters. Errors are
// ValidationExceptions: "Statement wasn't well formed, can't be processed:
// <detail>" for syntax, DynamoDB's own texts for what it rejects by name
// (unsupported clauses and literals, bags, duplicate projections, index
// qualifiers on writes, RETURNING variants, too few parameters).
Result<Statement> Parse(std::string_view text, const std::vector<AttributeValue>& parameters);

// ---- Rendering as DynamoDB expressions -----------------------------------------------------

// The placeholders a rendering uses: every name becomes #n<k> and every value
// :v<k>, so reserved words and odd characters need no care.
struct Placeholders {
  ExpressionAttributeNames names;
  ExpressionAttributeValues values;

  std::string Name(const std::string& name);
  std::string Value(const AttributeValue& value);
};

// `c` as a ConditionExpression: expr::ParseCondition of the text, resolved
// with `p`, evaluates as `c` does.
std::string RenderCondition(const expr::Condition& c, Placeholders* p);
std::string RenderPath(const expr::Path& path, Placeholders* p);
std::string RenderOperand(const expr::Operand& o, Placeholders* p);
// `u` as an UpdateExpression (SET, REMOVE, ADD, DELETE clauses).
std::string RenderUpdate(const expr::UpdateExpression& u, Placeholders* p);

// "=", "<>", "<", "<=", ">" or ">=".
const char* ComparatorText(expr::Comparator op);

// The top-level AND terms of a condition (the condition itself if it is not
// an AND).
std::vector<const expr::Condition*> Conjuncts(const expr::Condition& c);

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_PARTIQL_H_
