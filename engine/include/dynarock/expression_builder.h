// A fluent builder for DynamoDB expressions, in the spirit of the AWS SDKs'
// expression packages: compose conditions, key conditions, filters,
// projections and updates from typed pieces and get back the expression
// strings with ExpressionAttributeNames and ExpressionAttributeValues filled
// in. Every name is placeholdered, so reserved words never bite.
//
//   using namespace dynarock::expression;
//   auto built = Builder()
//       .WithKeyCondition(Equal(Name("vehicleId"), Value(S("VEH#V-7741")))
//                             .And(Between(Name("recordedAt"), Value(S(from)), Value(S(to)))))
//       .WithFilter(GreaterThan(Name("speedKph"), Value(N(80))))
//       .WithProjection({Name("recordedAt"), Name("speedKph")})
//       .Build();
//   built.ApplyTo(&query_request);
#ifndef DYNAROCK_EXPRESSION_BUILDER_H_
#define DYNAROCK_EXPRESSION_BUILDER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dynarock/types.h"
#include "dynarock/item_view.h"

namespace dynarock::expression {

// A document path: Name("a").Key("b").Index(2) is a.b[2]. A name is taken
// literally (dots included), never parsed.
class Path {
 public:
  Path Key(std::string name) const;
  Path Index(size_t index) const;

 private:
  friend Path Name(std::string name);
  friend class Renderer;
  std::vector<PathElement> elements_;
};
Path Name(std::string name);

// A value-producing operand: a path, a literal, or a function of operands.
class Operand {
 public:
  Operand(Path path);  // NOLINT: a path is an operand
  struct Node;

 private:
  friend class Renderer;
  friend Operand Value(AttributeValue v);
  friend Operand Size(Path p);
  friend Operand IfNotExists(Path p, Operand fallback);
  friend Operand ListAppend(Operand a, Operand b);
  friend Operand Plus(Operand a, Operand b);
  friend Operand Minus(Operand a, Operand b);
  explicit Operand(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};
Operand Value(AttributeValue v);
Operand Size(Path p);                           // size(p), in conditions
Operand IfNotExists(Path p, Operand fallback);  // if_not_exists(p, v), in updates
Operand ListAppend(Operand a, Operand b);       // list_append(a, b), in updates
Operand Plus(Operand a, Operand b);             // a + b, in updates
Operand Minus(Operand a, Operand b);            // a - b, in updates

// Convenience literals.
AttributeValue S(std::string s);
AttributeValue N(int64_t n);
AttributeValue N(std::string_view decimal);  // REQUIRES: a valid DynamoDB number

// A condition: comparisons, BETWEEN, IN, functions, AND / OR / NOT.
class Condition {
 public:
  Condition And(Condition other) const;
  Condition Or(Condition other) const;
  Condition Not() const;
  struct Node;

 private:
  friend class Renderer;
  friend Condition MakeCondition(std::shared_ptr<const Node> node);
  explicit Condition(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};
Condition Equal(Operand a, Operand b);
Condition NotEqual(Operand a, Operand b);
Condition LessThan(Operand a, Operand b);
Condition LessThanEqual(Operand a, Operand b);
Condition GreaterThan(Operand a, Operand b);
Condition GreaterThanEqual(Operand a, Operand b);
Condition Between(Operand a, Operand lower, Operand upper);
Condition In(Operand a, std::vector<Operand> candidates);
Condition AttributeExists(Path p);
Condition AttributeNotExists(Path p);
Condition AttributeType(Path p, AttrType type);
Condition BeginsWith(Path p, Operand prefix);
Condition Contains(Path p, Operand operand);

// An update: any number of SET, REMOVE, ADD and DELETE actions.
class Update {
 public:
  Update& Set(Path p, Operand value);
  Update& Remove(Path p);
  Update& Add(Path p, AttributeValue value);
  Update& Delete(Path p, AttributeValue value);

 private:
  friend class Renderer;
  struct Action {
    char kind;  // 'S', 'R', 'A', 'D'
    Path path;
    std::optional<Operand> value;
  };
  std::vector<Action> actions_;
};

// The rendered expressions and their placeholder maps, ready to be put on a
// request (ApplyTo) or read field by field.
struct Expressions {
  std::optional<std::string> condition, key_condition, filter, projection, update;
  std::optional<ExpressionAttributeNames> names;
  std::optional<ExpressionAttributeValues> values;

  void ApplyTo(PutItemRequest* r) const;
  void ApplyTo(DeleteItemRequest* r) const;
  void ApplyTo(UpdateItemRequest* r) const;
  void ApplyTo(GetItemRequest* r) const;
  void ApplyTo(QueryRequest* r) const;
  void ApplyTo(ScanRequest* r) const;
};

class Builder {
 public:
  Builder& WithCondition(Condition c);
  Builder& WithKeyCondition(Condition c);
  Builder& WithFilter(Condition c);
  Builder& WithProjection(std::vector<Path> paths);
  Builder& WithUpdate(Update u);
  // Renders every expression with one shared set of placeholders: #0, #1...
  // for names (one per distinct name) and :0, :1... for values.
  Expressions Build() const;

 private:
  std::optional<Condition> condition_, key_condition_, filter_;
  std::optional<std::vector<Path>> projection_;
  std::optional<Update> update_;
};

}  // namespace dynarock::expression

#endif  // DYNAROCK_EXPRESSION_BUILDER_H_
