// Fuzzes the PartiQL parser and its rendering as DynamoDB expressions: any
// text (with 0-3 parameters) must give an error or a statement; a
// statement's WHERE, rendered as a ConditionExpression, must parse, resolve
// and evaluate exactly as the parsed tree does on a sample item, and its
// UPDATE actions must render as an UpdateExpression that parses and applies
// as the tree does.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/partiql/partiql.h"

using namespace dynarock;

namespace {

const Item& Sample() {
  static const Item item{
      {"a", AttributeValue::N(*Number::Parse("5"))},
      {"b", AttributeValue::S("text")},
      {"c", AttributeValue::SS({"x", "y"})},
      {"PK", AttributeValue::S("VEH#1")},
      {"m", AttributeValue::M({{"k", AttributeValue::L({AttributeValue::Bool(true)})}})},
      {"l", AttributeValue::L({AttributeValue::S("e"), AttributeValue::N(*Number::Parse("1"))})}};
  return item;
}

// A rendering the expression parser refuses for its own bounds (size,
// operators, nesting) is not a rendering bug.
bool WithinExpressionLimits(const Status& s) {
  const std::string& m = s.message();
  return m.find("exceeded the maximum") == std::string::npos &&
         m.find("too many operators") == std::string::npos &&
         m.find("nested too deeply") == std::string::npos &&
         m.find("document path") == std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const std::vector<AttributeValue> all_parameters{
      AttributeValue::S("VEH#1"), AttributeValue::N(*Number::Parse("7")),
      AttributeValue::L({AttributeValue::Null()})};
  const std::vector<AttributeValue> parameters(all_parameters.begin(),
                                               all_parameters.begin() + data[0] % 4);
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto st = partiql::Parse(text, parameters);
  if (!st.ok()) {
    if (st.status().ErrorName() != "ValidationException") std::abort();
    return 0;
  }
  if (st->table.empty() && st->kind != partiql::Kind::kInsert) std::abort();

  if (st->where) {
    partiql::Placeholders p;
    const std::string rendered = partiql::RenderCondition(*st->where, &p);
    auto c = expr::ParseCondition(rendered, expr::ExprKind::kCondition);
    if (!c.ok()) {
      if (WithinExpressionLimits(c.status())) std::abort();
      return 0;
    }
    expr::Resolver resolver(&p.names, &p.values);
    const Status resolved = resolver.Resolve(&*c, expr::ExprKind::kCondition);
    if (!resolved.ok()) {
      // The resolver's semantic checks (BETWEEN bounds, attribute_type
      // names, ...) apply to conditions a write renders; a placeholder it
      // cannot find is a rendering bug.
      if (resolved.message().find("not defined") != std::string::npos) std::abort();
      return 0;
    }
    if (!resolver.Finish().ok()) std::abort();
    const expr::ItemDocument doc(&Sample());
    if (expr::Evaluate(*c, doc) != expr::Evaluate(*st->where, doc)) std::abort();
    for (const auto* term : partiql::Conjuncts(*st->where)) {
      if (term->kind == expr::Condition::Kind::kAnd) std::abort();
    }
  }
  if (!st->update.actions.empty()) {
    partiql::Placeholders p;
    const std::string rendered = partiql::RenderUpdate(st->update, &p);
    auto u = expr::ParseUpdate(rendered);
    if (!u.ok()) {
      // Overlapping paths and the like are refused by the update parser
      // as they are for any UpdateExpression; the engine reports them.
      return 0;
    }
    expr::Resolver resolver(&p.names, &p.values);
    if (!resolver.Resolve(&*u).ok()) return 0;
    Item via_text = Sample(), via_tree = Sample();
    const Status a = expr::ApplyUpdate(*u, &via_text);
    const Status b = expr::ApplyUpdate(st->update, &via_tree);
    if (a.ok() != b.ok()) std::abort();
    if (a.ok() && via_text != via_tree) std::abort();
  }
  return 0;
}
