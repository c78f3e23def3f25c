// Fuzzes the expression parser, resolver and evaluator: any text, as a
// condition, projection, update or search condition expression, must give an error or a tree
// that resolves, evaluates and applies without crashing, and a resolved
// condition evaluates the same on an encoded item as on a decoded one.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/expr/expression.h"
#include "format/item_codec.h"

using namespace dynarock;
using namespace dynarock::expr;

namespace {

const Item& Sample() {
  static const Item item{
      {"a", AttributeValue::N(*Number::Parse("5"))},
      {"b", AttributeValue::S("text")},
      {"c", AttributeValue::SS({"x", "y"})},
      {"m", AttributeValue::M({{"k", AttributeValue::L({AttributeValue::Bool(true)})}})},
      {"l", AttributeValue::L({AttributeValue::S("e"), AttributeValue::N(*Number::Parse("1"))})}};
  return item;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const std::map<std::string, std::string> names{{"#a", "a"}, {"#m", "m"}, {"#x", "x.y"}};
  static const std::map<std::string, AttributeValue> values{
      {":n", AttributeValue::N(*Number::Parse("2"))}, {":s", AttributeValue::S("te")},
      {":ss", AttributeValue::SS({"x"})}, {":l", AttributeValue::L({})},
      {":t", AttributeValue::S("N")}};
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  Resolver resolver(&names, &values);
  switch (data[0] % 4) {
    case 0: {
      auto c = ParseCondition(text, ExprKind::kFilter);
      if (!c.ok() || !resolver.Resolve(&*c, ExprKind::kFilter).ok()) return 0;
      static const std::string bytes = format::EncodeItem(Sample());
      auto view = ItemView::Open(bytes);
      if (Evaluate(*c, ItemDocument(&Sample())) != Evaluate(*c, ViewDocument(*view))) std::abort();
      break;
    }
    case 1: {
      auto p = ParseProjection(text);
      if (!p.ok() || !resolver.Resolve(&*p).ok()) return 0;
      Item projected = Project(Sample(), *p);
      if (projected.size() > Sample().size()) std::abort();
      break;
    }
    case 3: {
      // SearchVectors' SearchConditionExpression: the condition grammar,
      // then SearchVectors' own rules (engine/db_impl_vectors.cc).
      auto c = ParseCondition(text, ExprKind::kSearchCondition);
      if (!c.ok() || !resolver.Resolve(&*c, ExprKind::kSearchCondition).ok()) return 0;
      static const std::string bytes = format::EncodeItem(Sample());
      auto view = ItemView::Open(bytes);
      if (Evaluate(*c, ItemDocument(&Sample())) != Evaluate(*c, ViewDocument(*view))) std::abort();
      break;
    }
    default: {
      auto u = ParseUpdate(text);
      if (!u.ok() || !resolver.Resolve(&*u).ok()) return 0;
      Item item = Sample();
      if (ApplyUpdate(*u, &item).ok() && !ValidateItem(item).ok()) std::abort();
      break;
    }
  }
  return 0;
}
