// DynamoDB's expression language: condition, filter, key condition,
// projection and update expressions.
//
// Three phases, as in Alternator: Parse* turns text into a plain tree (names
// and values still as written: `#n`, `:v`); Resolver substitutes
// ExpressionAttributeNames / ExpressionAttributeValues, rejects reserved words
// and undefined placeholders, and records which placeholders were used so the
// request can reject unused ones; then the tree is evaluated any number of
// times (a filter once per item) without re-parsing.
//
// Every error is a ValidationException with DynamoDB's message, prefixed with
// "Invalid <Kind>Expression: " where DynamoDB prefixes it.
#ifndef DYNAROCK_ENGINE_EXPR_EXPRESSION_H_
#define DYNAROCK_ENGINE_EXPR_EXPRESSION_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/types.h"
#include "format/item_codec.h"

namespace dynarock::expr {

// Limits DynamoDB documents (and hostile input would otherwise exploit).
inline constexpr size_t kMaxExpressionBytes = 4096;
inline constexpr int kMaxOperators = 300;
inline constexpr int kMaxPathDepth = 32;
// DynamoDB sets no nesting limit of its own: 149 parentheses deep around
// 299 operators is valid, and each level beyond redundant parentheses needs
// an operator. This bound only keeps the recursive parser's stack small.
inline constexpr int kMaxNesting = kMaxOperators;  // parentheses / NOT chains
inline constexpr size_t kMaxInOperands = 100;

// Which expression a message is about: "Invalid ConditionExpression: ...".
enum class ExprKind { kCondition, kFilter, kKeyCondition, kProjection, kUpdate, kSearchCondition };
std::string_view ExprKindName(ExprKind kind);

// A document path: a top-level name, then any mix of .name and [index].
// Before resolution a name may be a `#placeholder`.
using PathElement = PathElement;  // std::variant<std::string, size_t>
struct Path {
  std::vector<PathElement> elements;
  const std::string& root() const { return std::get<std::string>(elements[0]); }
  bool nested() const { return elements.size() > 1; }
  // DynamoDB's rendering in messages: [a, b, [2]]
  std::string ToString() const;
  friend bool operator==(const Path&, const Path&) = default;
};

// A value-producing operand.
struct Operand {
  enum class Kind {
    kPath,         // path
    kValue,        // :placeholder, resolved into `value`
    kSize,         // size(args[0])
    kIfNotExists,  // if_not_exists(args[0] (a path), args[1])
    kListAppend,   // list_append(args[0], args[1])
    kPlus,         // args[0] + args[1]  (update SET only)
    kMinus,        // args[0] - args[1]
  };
  Kind kind = Kind::kPath;
  Path path;
  std::string placeholder;  // ":v" as written (kValue)
  AttributeValue value;     // kValue, after resolution
  std::vector<Operand> args;
};

enum class Comparator { kEq, kNe, kLt, kLe, kGt, kGe };

struct Condition {
  enum class Kind {
    kCompare,             // operands[0] op operands[1]
    kBetween,             // operands[0] BETWEEN operands[1] AND operands[2]
    kIn,                  // operands[0] IN (operands[1..])
    kAnd,                 // children[0] AND children[1]
    kOr,
    kNot,                 // NOT children[0]
    kAttributeExists,     // attribute_exists(operands[0])
    kAttributeNotExists,  // attribute_not_exists(operands[0])
    kAttributeType,       // attribute_type(operands[0], operands[1])
    kBeginsWith,          // begins_with(operands[0], operands[1])
    kContains,            // contains(operands[0], operands[1])
  };
  Kind kind = Kind::kCompare;
  Comparator op = Comparator::kEq;
  std::vector<Operand> operands;
  std::vector<Condition> children;
};

// ---- Parsing ---------------------------------------------------------------------------

// ConditionExpression, FilterExpression, and the text of a
// KeyConditionExpression (checked against the key schema later, in the engine).
Result<Condition> ParseCondition(std::string_view text, ExprKind kind);
// ProjectionExpression: comma-separated paths.
Result<std::vector<Path>> ParseProjection(std::string_view text);

struct UpdateAction {
  enum class Kind { kSet, kRemove, kAdd, kDelete };
  Kind kind = Kind::kSet;
  Path path;
  Operand value;  // SET: the new value; ADD/DELETE: the operand (a :value); REMOVE: unused
};
struct UpdateExpression {
  std::vector<UpdateAction> actions;  // clause order: SET, REMOVE, ADD, DELETE as written
  // Built from legacy AttributeUpdates: a type clash is then worded as
  // DynamoDB words it there ("Type mismatch for attribute to update").
  bool legacy = false;
};
Result<UpdateExpression> ParseUpdate(std::string_view text);

// ---- Resolution --------------------------------------------------------------------------

// Substitutes placeholders from one request's ExpressionAttributeNames and
// ExpressionAttributeValues across all of its expressions, then checks that
// every supplied placeholder was used (Finish()).
class Resolver {
 public:
  Resolver(const std::map<std::string, std::string>* names,
           const std::map<std::string, AttributeValue>* values)
      : names_(names), values_(values) {}

  Status Resolve(Condition* c, ExprKind kind);
  Status Resolve(std::vector<Path>* projection);
  Status Resolve(UpdateExpression* u);
  // The unused-placeholder checks, once every expression is resolved.
  Status Finish() const;

 private:
  Status ResolvePath(Path* p, ExprKind kind);
  Status ResolveOperand(Operand* o, ExprKind kind);

  const std::map<std::string, std::string>* names_;
  const std::map<std::string, AttributeValue>* values_;
  std::set<std::string> used_names_, used_values_;
};

// Checks a request's ExpressionAttributeNames/Values maps themselves (keys
// syntax, no maps without expressions, values valid AttributeValues).
// `values_unused` is empty when an expression that takes values is present,
// else the end of the error for a values map ("UpdateExpression and
// ConditionExpression are null").
Status CheckPlaceholderMaps(const std::map<std::string, std::string>* names,
                            const std::map<std::string, AttributeValue>* values,
                            bool any_expression, std::string_view values_unused);

// ---- Evaluation --------------------------------------------------------------------------

// What an expression reads: an item in memory or an encoded one, accessed in
// place (only the attributes an expression names are decoded).
class Document {
 public:
  virtual ~Document() = default;
  // The value at `path`, or nullopt if any step is absent.
  virtual std::optional<AttributeValue> Get(const Path& path) const = 0;
};

class ItemDocument : public Document {
 public:
  explicit ItemDocument(const Item* item) : item_(item) {}
  std::optional<AttributeValue> Get(const Path& path) const override;

 private:
  const Item* item_;  // may be null: no item
};

class ViewDocument : public Document {
 public:
  explicit ViewDocument(ItemView view) : view_(view) {}
  std::optional<AttributeValue> Get(const Path& path) const override;

 private:
  ItemView view_;
};

// Evaluates a resolved condition. Type mismatches compare false, as in DynamoDB.
bool Evaluate(const Condition& c, const Document& doc);

// The value of a resolved operand, or nullopt when it refers to a missing
// attribute (for size(): when the attribute has no size).
std::optional<AttributeValue> EvaluateOperand(const Operand& o, const Document& doc);

// ---- Projection and update -----------------------------------------------------------------

// Checks that no two paths overlap (a, a.b) or conflict (a.b, a[1]):
// "<Kind>: Two document paths overlap with each other; ..." errors.
Status CheckPathsDisjoint(const std::vector<Path>& paths, ExprKind kind);

// The parts of `item` the paths select, nested parts nested (a.b[1] keeps the
// map a with its key b holding a list with that one element).
Item Project(const Item& item, const std::vector<Path>& paths);

// Applies a resolved update to `item` (the current item, or an empty item
// with just the key when absent). Every operand reads the item as it was
// before the update, as DynamoDB does. Runtime errors as DynamoDB words them.
Status ApplyUpdate(const UpdateExpression& u, Item* item);

// The top-level or nested paths an update writes (for UPDATED_OLD/NEW).
std::vector<Path> UpdatedPaths(const UpdateExpression& u);

// True if `word` is one of DynamoDB's reserved words (case-insensitive).
bool IsReservedWord(std::string_view word);

}  // namespace dynarock::expr

#endif  // DYNAROCK_ENGINE_EXPR_EXPRESSION_H_
