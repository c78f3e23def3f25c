// Turns a request's expression parameters, or their legacy equivalents, into
// resolved expression trees: the single place where DynamoDB's rules about
// combining them (no mixing, no unused placeholders, no maps without
// expressions) are enforced.
#ifndef DYNAROCK_ENGINE_REQUEST_EXPR_H_
#define DYNAROCK_ENGINE_REQUEST_EXPR_H_

#include <optional>
#include <string>
#include <vector>

#include "dynarock/types.h"
#include "engine/catalog.h"
#include "engine/expr/expression.h"
#include "engine/model/checks.h"

namespace dynarock {

class RequestExpressions {
 public:
  RequestExpressions(const std::optional<ExpressionAttributeNames>& names,
                     const std::optional<ExpressionAttributeValues>& values)
      : names_(names ? &*names : nullptr),
        values_(values ? &*values : nullptr),
        resolver_(names_, values_) {}

  // Declare which parameters the request carries, before compiling anything:
  // every expression parameter of the operation, present or not, in
  // DynamoDB's order (its messages list them so).
  void Expression(const char* parameter, bool present);
  void Legacy(const char* parameter, bool present);
  // The mixing rule and the checks on the placeholder maps themselves.
  Status CheckParameters() const;

  // Each returns nullopt when the parameter is absent.
  Result<std::optional<expr::Condition>> Condition(const std::optional<std::string>& text,
                                                   expr::ExprKind kind);
  Result<std::optional<std::vector<expr::Path>>> Projection(const std::optional<std::string>& text);
  Result<std::optional<expr::UpdateExpression>> Update(const std::optional<std::string>& text);

  // After every expression is compiled: no placeholder may go unused.
  Status Finish() const { return resolver_.Finish(); }

 private:
  const ExpressionAttributeNames* names_;
  const ExpressionAttributeValues* values_;
  expr::Resolver resolver_;
  std::vector<std::string> expression_params_, legacy_params_;
  // The operation's expressions that may use values (all but the
  // projection), and whether any of them is present.
  std::vector<std::string> value_expressions_;
  bool values_usable_ = false;
};

// Declares which expression and legacy parameters a request carries: the
// one list per operation of DynamoDB's mixing rule, in the order its
// messages list them. Query's KeyConditions conflicts only with a
// KeyConditionExpression: beside a FilterExpression or a
// ProjectionExpression it is accepted.
void DeclareParameters(const PutItemRequest& r, RequestExpressions* rx);
void DeclareParameters(const GetItemRequest& r, RequestExpressions* rx);
void DeclareParameters(const DeleteItemRequest& r, RequestExpressions* rx);
void DeclareParameters(const UpdateItemRequest& r, RequestExpressions* rx);
void DeclareParameters(const QueryRequest& r, RequestExpressions* rx);
void DeclareParameters(const ScanRequest& r, RequestExpressions* rx);
void DeclareParameters(const KeysAndAttributes& r, RequestExpressions* rx);

// The values map a request carries (GetItem's and a batch read's have none).
template <typename Request>
const std::optional<ExpressionAttributeValues>& ValuesOf(const Request& r) {
  static const std::optional<ExpressionAttributeValues> kNone;
  if constexpr (requires { r.expression_attribute_values; }) {
    return r.expression_attribute_values;
  } else {
    return kNone;
  }
}

// A request's expression parameters, declared and checked: the mixing rule
// and the placeholder maps' own checks (VALIDATION.md 5.1), ready to compile.
template <typename Request>
Result<RequestExpressions> DeclaredParameters(const Request& r) {
  RequestExpressions rx(r.expression_attribute_names, ValuesOf(r));
  DeclareParameters(r, &rx);
  DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
  return rx;
}

// The prologue every operation with expressions runs first, in DynamoDB's
// order: the model's constraints (model::CheckModel), then its parameters
// (DeclaredParameters). Nothing here looks at the table.
template <typename Request>
Result<RequestExpressions> Prologue(const Request& r) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(r));
  return DeclaredParameters(r);
}

// CheckParameters (dynarock/db.h) is DeclaredParameters' status.

// ---- Legacy parameters ----------------------------------------------------------------------

// ConditionalOperator given without conditions to combine in `parameter`
// (Expected). DynamoDB refuses it (AWS-validated tests); its text is not
// recorded, so this is Alternator's wording, with the parameter's name.
Status ConditionalOperatorAlone(std::string_view parameter);

// nullopt for an empty map: it imposes nothing.
Result<std::optional<expr::Condition>> ConditionFromExpected(
    const std::map<std::string, ExpectedAttributeValue>& expected,
    std::optional<ConditionalOperator> op);
// QueryFilter / ScanFilter.
Result<std::optional<expr::Condition>> ConditionFromFilter(
    const std::map<std::string, LegacyCondition>& filter, std::optional<ConditionalOperator> op);
// One condition of a Query's key condition, before it is bound to the key
// schema: the attribute it names, its operator (nullopt: one no key
// condition can use, such as NE or CONTAINS), and its operands.
struct KeyTerm {
  std::string name;
  std::optional<SortKeyOperator> op;
  std::vector<AttributeValue> values;  // 1, or 2 for BETWEEN
};

// KeyConditions (legacy): checks its own shape (1 or 2 conditions, each
// operator's arity) and lists its terms.
Result<std::vector<KeyTerm>> KeyTermsFromLegacy(
    const std::map<std::string, LegacyCondition>& conditions);
Result<expr::UpdateExpression> UpdateFromAttributeUpdates(
    const std::map<std::string, AttributeValueUpdate>& updates);
// AttributesToGet as a projection. ValidationException for a duplicate name
// (VALIDATION.md 5.1) or a name outside 1..65535 bytes.
Result<std::vector<expr::Path>> ProjectionFromAttributesToGet(
    const std::vector<std::string>& names);

// The conjuncts of an AND tree (the condition itself if it is not an AND),
// left to right.
void CollectAnd(const expr::Condition& c, std::vector<const expr::Condition*>* out);

// KeyConditionExpression, parsed and resolved: checks what the expression
// language allows in a key condition (operators, operands, no nested paths)
// and lists its terms.
Result<std::vector<KeyTerm>> KeyTermsFromExpression(const expr::Condition& c);

// Binds terms to the key schema `table` (a table's or an index's): the term
// on the partition key must be an equality, the other is the sort key's.
// The rest of the key-condition rules (which names, types, bounds) are
// checked once, on the typed KeyCondition, by the Query itself, so the
// embedded API's typed conditions meet the same rules.
// A multi-attribute GSI's terms bind in any order: every HASH attribute
// needs an equality, RANGE attributes an equality each but the last one
// conditioned.
Result<KeyCondition> BindKeyTerms(std::vector<KeyTerm> terms, const KeySpace& keys);

// The key-condition errors that more than one check can raise.
Status LegacyConditionCount();
Status OneConditionPerKey();
Status KeyConditionNotSupported();
// A multi-attribute GSI's: a HASH attribute missing (or conditioned other
// than by equality), and a RANGE attribute without the equality a
// condition on a later one (`conditioned`) needs. DynamoDB's texts match
// "HASH.*equality" and "RANGE.*equality"; the second is DynamoDB Local's.
Status HashNeedsEquality(std::string_view attribute, bool missing);
Status RangeNeedsEquality(std::string_view attribute, std::string_view conditioned);

// Query filters may not touch key attributes (every component of a
// multi-attribute GSI's).
Status CheckFilterAvoidsKeys(const expr::Condition& filter, const KeySpace& keys,
                             std::string_view parameter);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_REQUEST_EXPR_H_
