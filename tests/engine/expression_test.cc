// The expression language, construct by construct: parse errors with
// DynamoDB's messages, evaluation semantics (precedence, type mismatches,
// absent attributes), projections and updates.
#include "engine/expr/expression.h"

#include <gtest/gtest.h>

#include "tests/util/db_fixture.h"
#include "tests/util/status_matchers.h"

namespace dynarock::expr {
namespace {

using testing::N;
using testing::S;
using AV = AttributeValue;

// Parses, resolves and evaluates `text` as a ConditionExpression on `item`.
Result<bool> Eval(const std::string& text, const Item& item,
                  const std::map<std::string, std::string>& names = {},
                  const std::map<std::string, AttributeValue>& values = {}) {
  auto c = ParseCondition(text, ExprKind::kCondition);
  if (!c.ok()) return c.status();
  Resolver r(names.empty() ? nullptr : &names, values.empty() ? nullptr : &values);
  DYNAROCK_RETURN_IF_ERROR(r.Resolve(&*c, ExprKind::kCondition));
  DYNAROCK_RETURN_IF_ERROR(r.Finish());
  return Evaluate(*c, ItemDocument(&item));
}

const Item kItem{
    {"id", S("VEH#V-7741")},
    {"speed", N("87.5")},
    {"depot", S("DEP-LON-3")},
    {"tags", AV::SS({"ev", "fleet"})},
    {"codes", AV::NS({*Number::Parse("1"), *Number::Parse("2")})},
    {"bin", AV::B(std::string("\x01\x02\x03", 3))},
    {"ok", AV::Bool(true)},
    {"nothing", AV::Null()},
    {"geo", AV::M({{"lat", N("51.5")}, {"tags", AV::L({S("a"), N("1"), AV::L({S("deep")})})}})},
    {"lst", AV::L({S("x"), S("y")})},
    {"blank", S("")},
};

const std::map<std::string, AttributeValue> kValues{
    {":s", S("DEP-LON-3")}, {":p", S("DEP")},  {":n", N("87.5")},    {":lo", N("50")},
    {":hi", N("100")},      {":one", N("1")},  {":two", N("2")},     {":ev", S("ev")},
    {":six", S("6")},       {":sixn", N("6")}, {":b", AV::B("\x02")}, {":x", S("x")},
    {":t", S("SS")},        {":three", N("3")}, {":bad", S("XX")},   {":l", AV::L({S("deep")})},
};

TEST(ConditionTest, Semantics) {
  struct Case {
    const char* expr;
    bool expected;
  } cases[] = {
      {"depot = :s", true},
      {"depot <> :s", false},
      {"speed = :n", true},
      {"speed < :hi AND speed > :lo", true},
      {"speed BETWEEN :lo AND :hi", true},
      {"speed BETWEEN :hi AND :hi", false},
      {"speed IN (:one, :n, :two)", true},
      {"speed IN (:one, :two)", false},
      {"depot = :sixn", false},  // different types never match
      {"depot <> :sixn", true},
      {"depot < :sixn", false},
      {"absent = :s", false},  // a absent attribute compares false...
      {"absent <> :s", true},  // ...except with <>
      {"absent < :s", false},
      {"attribute_exists(depot)", true},
      {"attribute_exists(absent)", false},
      {"attribute_not_exists(absent)", true},
      {"attribute_exists(geo.lat)", true},
      {"attribute_exists(geo.lon)", false},
      {"attribute_exists(geo.tags[2][0])", true},
      {"attribute_exists(geo.tags[3])", false},
      {"attribute_exists(lst.x)", false},  // a lst has no keys
      {"attribute_type(tags, :t)", true},
      {"attribute_type(depot, :t)", false},
      {"begins_with(depot, :p)", true},
      {"begins_with(speed, :p)", false},
      {"begins_with(bin, :b)", false},
      {"contains(depot, :p)", true},
      {"contains(tags, :ev)", true},
      {"contains(tags, :x)", false},
      {"contains(codes, :two)", true},
      {"contains(codes, :three)", false},
      {"contains(lst, :x)", true},
      {"contains(geo.tags, :l)", true},
      {"contains(bin, :b)", true},
      {"size(depot) = :two", false},
      {"size(tags) = :two", true},
      {"size(lst) < :three", true},
      {"size(geo) = :two", true},
      {"size(speed) = :one", false},  // numbers have no size
      {"NOT depot = :s", false},
      {"NOT (depot = :s)", false},
      {"NOT NOT depot = :s", true},
      // Precedence: NOT binds tighter than AND, AND tighter than OR.
      {"depot = :x OR depot = :s AND speed = :n", true},
      {"(depot = :x OR depot = :s) AND speed = :one", false},
      {"depot = :x OR depot = :s AND speed = :one", false},
      {"NOT depot = :x AND speed = :n", true},
      {"NOT (depot = :x AND speed = :n)", true},
      {"depot = :s and speed = :n", true},  // keywords are case-insensitive
      {"speed between :lo and :hi", true},
      {"ok = :one", false},
  };
  for (const auto& c : cases) {
    auto r = Eval(c.expr, kItem, {}, kValues);
    // Unused values are fine here: tests check one expression against one map.
    if (!r.ok() && r.status().message().find("unused") != std::string::npos) {
      auto c2 = ParseCondition(c.expr, ExprKind::kCondition);
      ASSERT_OK(c2);
      Resolver res(nullptr, &kValues);
      ASSERT_OK(res.Resolve(&*c2, ExprKind::kCondition));
      EXPECT_EQ(Evaluate(*c2, ItemDocument(&kItem)), c.expected) << c.expr;
      continue;
    }
    ASSERT_OK(r);
    EXPECT_EQ(*r, c.expected) << c.expr;
  }
}

TEST(ConditionTest, EvaluationOnEncodedItemMatchesDecoded) {
  std::string bytes = format::EncodeItem(kItem);
  auto view = ItemView::Open(bytes);
  ASSERT_OK(view);
  for (const char* e : {"geo.tags[2][0] = :x", "contains(tags, :ev)", "size(lst) < :three",
                        "speed BETWEEN :lo AND :hi", "attribute_exists(geo.lat)"}) {
    auto c = ParseCondition(e, ExprKind::kFilter);
    ASSERT_OK(c);
    Resolver r(nullptr, &kValues);
    ASSERT_OK(r.Resolve(&*c, ExprKind::kFilter));
    EXPECT_EQ(Evaluate(*c, ViewDocument(*view)), Evaluate(*c, ItemDocument(&kItem))) << e;
  }
}

TEST(ConditionTest, Errors) {
  auto too_many_in = [] {
    std::string e = "a IN (";
    for (int i = 0; i < 101; ++i) e += (i ? ", :v" : ":v");
    return e + ")";
  };
  auto too_many_ops = [] {
    std::string e = "a = :v";
    for (int i = 0; i < 150; ++i) e += " AND a = :v";
    return e;
  };
  struct Case {
    std::string expr;
    std::string message;
  } cases[] = {
      {"", "Invalid ConditionExpression: The expression can not be empty;"},
      {"   ", "Invalid ConditionExpression: The expression can not be empty;"},
      {"a = = :v", "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"= = :v\""},
      {"a =", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\""},
      {"a ! :v", "Invalid ConditionExpression: Syntax error; token: \"!\", near: \"a ! :v\""},
      {"((a = :v))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {"foo(a)", "Invalid ConditionExpression: Invalid function name; function: foo"},
      {"ATTRIBUTE_EXISTS(a)", "Invalid ConditionExpression: Invalid function name; function: ATTRIBUTE_EXISTS"},
      {"attribute_exists(a, b)",
       "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
       "operator or function: attribute_exists, number of operands: 2"},
      {"attribute_exists(:v)",
       "Invalid ConditionExpression: Operator or function requires a document path; operator or "
       "function: attribute_exists"},
      {"size(a)", "Invalid ConditionExpression: The function is not allowed to be used this way in "
                  "an expression; function: size"},
      // DynamoDB: an update function is an unknown name in a condition; a
      // condition function used as an operand is misused.
      {"if_not_exists(a, :v) = :v",
       "Invalid ConditionExpression: Invalid function name; function: if_not_exists"},
      {"begins_with(attribute_exists(a), :v)",
       "Invalid ConditionExpression: The function is not allowed to be used this way in an "
       "expression; function: attribute_exists"},
      {"contains(a, a)",
       "Invalid ConditionExpression: The first operand must be distinct from the remaining "
       "operands for this operator or function; operator: contains, first operand: [a]"},
      {"a = a", "Invalid ConditionExpression: The first operand must be distinct from the "
                "remaining operands for this operator or function; operator: =, first operand: [a]"},
      {"attribute_type(a, :bad)",
       "Invalid ConditionExpression: Invalid attribute type name found; type: XX, valid types: "
       "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
      {"begins_with(a, :one)",
       "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
       "function: begins_with, operand type: N"},
      {"a BETWEEN :hi AND :lo",
       "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than "
       "or equal to lower bound; lower bound operand: AttributeValue: {N:100}, upper bound "
       "operand: AttributeValue: {N:50}"},
      {"a BETWEEN :one AND :x",
       "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and "
       "upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: "
       "AttributeValue: {S:x}"},
      {"size(:one) = :one",
       "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or "
       "function: size, operand type: N"},
      {"name = :s", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved "
                    "keyword: name"},
      {"a.Status = :s", "Invalid ConditionExpression: Attribute name is a reserved keyword; "
                        "reserved keyword: Status"},
      {"#absent = :s", "Invalid ConditionExpression: An expression attribute name used in the "
                        "document path is not defined; attribute name: #absent"},
      {"a = :absent", "Invalid ConditionExpression: An expression attribute value used in "
                       "expression is not defined; attribute value: :absent"},
      {too_many_in(), "Invalid ConditionExpression: The IN operator is provided with too many "
                      "operands; number of operands: 101"},
      {too_many_ops(), "Invalid ConditionExpression: The expression contains too many operators; "
                       "operator count: 301"},
      {std::string(4097, ' ') , "Invalid ConditionExpression: Expression size has exceeded the "
                                "maximum allowed size; expression size: 4097"},
  };
  for (const auto& c : cases) {
    std::map<std::string, AttributeValue> values = kValues;
    values[":v"] = S("v");
    auto r = Eval(c.expr, kItem, {}, values);
    ASSERT_FALSE(r.ok()) << c.expr;
    EXPECT_EQ(r.status(), Status::Validation(c.message)) << c.expr;
  }
  // Hostile nesting is an error, not a stack overflow.
  std::string deep = std::string(2000, '(') + "a = :v" + std::string(2000, ')');
  auto r = ParseCondition(deep, ExprKind::kCondition);
  EXPECT_FALSE(r.ok());
  std::string nots;
  for (int i = 0; i < 1000; ++i) nots += "NOT ";
  EXPECT_FALSE(ParseCondition(nots + "a = :v", ExprKind::kCondition).ok());
}

TEST(ConditionTest, PlaceholdersAndUnusedChecks) {
  std::map<std::string, std::string> names{{"#d", "depot"}, {"#g", "geo"}, {"#l", "lat"}};
  std::map<std::string, AttributeValue> values{{":s", S("DEP-LON-3")}, {":n", N("51.5")}};
  auto r = Eval("#d = :s AND #g.#l = :n", kItem, names, values);
  ASSERT_OK(r);
  EXPECT_TRUE(*r);
  // A name placeholder stands for one name, dots included.
  Item dotted{{"a.b", S("x")}};
  std::map<std::string, std::string> dot{{"#ab", "a.b"}};
  std::map<std::string, AttributeValue> x{{":x", S("x")}};
  EXPECT_TRUE(*Eval("#ab = :x", dotted, dot, x));
  names["#unused"] = "zzz";
  EXPECT_EQ(Eval("#d = :s AND #g.#l = :n", kItem, names, values).status(),
            Status::Validation("Value provided in ExpressionAttributeNames unused in expressions: "
                               "keys: {#unused}"));
  names.erase("#unused");
  values[":u1"] = S("1");
  values[":u2"] = S("2");
  EXPECT_EQ(Eval("#d = :s AND #g.#l = :n", kItem, names, values).status(),
            Status::Validation("Value provided in ExpressionAttributeValues unused in "
                               "expressions: keys: {:u1, :u2}"));
}

TEST(ProjectionTest, NestedPartsAndErrors) {
  auto project = [](const std::string& text) -> Result<Item> {
    auto p = ParseProjection(text);
    if (!p.ok()) return p.status();
    Resolver r(nullptr, nullptr);
    DYNAROCK_RETURN_IF_ERROR(r.Resolve(&*p));
    return Project(kItem, *p);
  };
  EXPECT_EQ(*project("depot, speed"), (Item{{"depot", S("DEP-LON-3")}, {"speed", N("87.5")}}));
  EXPECT_EQ(*project("geo.lat"), (Item{{"geo", AV::M({{"lat", N("51.5")}})}}));
  EXPECT_EQ(*project("geo.tags[2], geo.tags[0], absent, lst[5]"),
            (Item{{"geo", AV::M({{"tags", AV::L({S("a"), AV::L({S("deep")})})}})}}));
  EXPECT_EQ(*project("geo.nope"), Item{});
  EXPECT_EQ(project("a, a.b").status(),
            Status::Validation("Invalid ProjectionExpression: Two document paths overlap with each "
                               "other; must remove or rewrite one of these paths; path one: [a], "
                               "path two: [a, b]"));
  EXPECT_EQ(project("a.b, a[1]").status(),
            Status::Validation("Invalid ProjectionExpression: Two document paths conflict with "
                               "each other; must remove or rewrite one of these paths; path one: "
                               "[a, b], path two: [a, [1]]"));
  EXPECT_EQ(project("!!").status(),
            Status::Validation("Invalid ProjectionExpression: Syntax error; token: \"!\", near: \"!!\""));
}

Result<Item> Update(const std::string& text, Item item,
                    const std::map<std::string, AttributeValue>& values = {}) {
  auto u = ParseUpdate(text);
  if (!u.ok()) return u.status();
  Resolver r(nullptr, values.empty() ? nullptr : &values);
  DYNAROCK_RETURN_IF_ERROR(r.Resolve(&*u));
  DYNAROCK_RETURN_IF_ERROR(ApplyUpdate(*u, &item));
  return item;
}

TEST(UpdateTest, Actions) {
  const Item base{{"id", S("k")},
                  {"n", N("10")},
                  {"l", AV::L({S("a"), S("b"), S("c"), S("d")})},
                  {"ss", AV::SS({"x", "y"})},
                  {"m", AV::M({{"core", AV::M({{"v", N("1")}})}})}};
  std::map<std::string, AttributeValue> v{
      {":one", N("1")},          {":s", S("s")},           {":l", AV::L({S("z")})},
      {":ss", AV::SS({"y", "w"})}, {":big", N("1e50")},     {":emptyl", AV::L({})},
      {":ns", AV::NS({*Number::Parse("5")})}};
  struct Case {
    std::string expr;
    std::function<void(Item*)> expect;  // edits `base` into the expected result
  } cases[] = {
      {"SET n = n + :one", [](Item* i) { (*i)["n"] = N("11"); }},
      {"SET n = n - :one, s = :s", [](Item* i) { (*i)["n"] = N("9"); (*i)["s"] = S("s"); }},
      {"SET n2 = if_not_exists(n2, :one)", [](Item* i) { (*i)["n2"] = N("1"); }},
      {"SET n = if_not_exists(n, :one)", [](Item*) {}},
      {"SET l = list_append(l, :l)",
       [](Item* i) { (*i)["l"] = AV::L({S("a"), S("b"), S("c"), S("d"), S("z")}); }},
      {"SET l2 = list_append(if_not_exists(l2, :emptyl), :l)",  // functions nest
       [](Item* i) { (*i)["l2"] = AV::L({S("z")}); }},
      {"SET l = list_append(if_not_exists(l, :emptyl), :l)",
       [](Item* i) { (*i)["l"] = AV::L({S("a"), S("b"), S("c"), S("d"), S("z")}); }},
      {"REMOVE l[9], m.core.absent",  // inside an existing container: no-op
       [](Item*) {}},
      {"SET l = list_append(:l, l)",
       [](Item* i) { (*i)["l"] = AV::L({S("z"), S("a"), S("b"), S("c"), S("d")}); }},
      {"SET l[1] = :s", [](Item* i) { (*i)["l"] = AV::L({S("a"), S("s"), S("c"), S("d")}); }},
      {"SET l[10] = :s",  // past the end appends
       [](Item* i) { (*i)["l"] = AV::L({S("a"), S("b"), S("c"), S("d"), S("s")}); }},
      {"SET m.core.v = :s, m.extra = :one",
       [](Item* i) { (*i)["m"] = AV::M({{"core", AV::M({{"v", S("s")}})}, {"extra", N("1")}}); }},
      {"REMOVE l[0], l[2]", [](Item* i) { (*i)["l"] = AV::L({S("b"), S("d")}); }},
      {"REMOVE n, absent, m.core.v",
       [](Item* i) { i->erase("n"); (*i)["m"] = AV::M({{"core", AV::M({})}}); }},
      {"ADD n :one", [](Item* i) { (*i)["n"] = N("11"); }},
      {"ADD fresh :one", [](Item* i) { (*i)["fresh"] = N("1"); }},
      {"ADD ss :ss", [](Item* i) { (*i)["ss"] = AV::SS({"w", "x", "y"}); }},
      {"ADD m.core.v :one", [](Item* i) { (*i)["m"] = AV::M({{"core", AV::M({{"v", N("2")}})}}); }},
      {"DELETE ss :ss", [](Item* i) { (*i)["ss"] = AV::SS({"x"}); }},
      {"DELETE nothere :ss", [](Item*) {}},
      {"SET s = :s REMOVE n ADD c :one DELETE ss :ss",
       [](Item* i) {
         (*i)["s"] = S("s");
         i->erase("n");
         (*i)["c"] = N("1");
         (*i)["ss"] = AV::SS({"x"});
       }},
      {"set n = :one", [](Item* i) { (*i)["n"] = N("1"); }},  // keywords are case-insensitive
  };
  for (const auto& c : cases) {
    Item expected = base;
    c.expect(&expected);
    // Unused values are not the point here: pass only those the expression uses.
    std::map<std::string, AttributeValue> used;
    for (const auto& [k, val] : v) {
      if (c.expr.find(k + " ") != std::string::npos || c.expr.find(k + ")") != std::string::npos ||
          c.expr.find(k + ",") != std::string::npos ||
          c.expr.compare(c.expr.size() - k.size(), k.size(), k) == 0) {
        used[k] = val;
      }
    }
    auto r = Update(c.expr, base, used);
    ASSERT_OK(r);
    EXPECT_EQ(*r, expected) << c.expr << "\n got " << DebugString(*r);
  }
  // Deleting every member removes the attribute.
  auto gone = Update("DELETE ss :all", base, {{":all", AV::SS({"x", "y"})}});
  ASSERT_OK(gone);
  EXPECT_FALSE(gone->count("ss"));
}

TEST(UpdateTest, Errors) {
  const char kInvalidPath[] =
      "The document path provided in the update expression is invalid for update";
  const Item base{{"id", S("k")}, {"n", N("10")}, {"s", S("str")}, {"l", AV::L({})},
                  {"ss", AV::SS({"x"})}};
  struct Case {
    std::string expr;
    std::map<std::string, AttributeValue> values;
    std::string message;
  } cases[] = {
      {"SET a = :v SET b = :v", {{":v", N("1")}},
       "Invalid UpdateExpression: The \"SET\" section can only be used once in an update "
       "expression;"},
      {"SET a = :v REMOVE a", {{":v", N("1")}},
       "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [a], path two: [a]"},
      {"SET a.b = :v, a[1] = :v", {{":v", N("1")}},
       "Invalid UpdateExpression: Two document paths conflict with each other; must remove or "
       "rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
      {"DELETE ss :v", {{":v", S("x")}},
       "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
       "DELETE, operand type: STRING"},
      {"ADD a :v", {{":v", S("x")}},
       "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, "
       "operand type: STRING"},
      {"SET n = n + :v", {{":v", S("x")}},
       "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: +, "
       "operand type: STRING"},
      {"SET n = s + n", {}, "An operand in the update expression has an incorrect data type"},
      {"SET n = absent + n", {}, "The provided expression refers to an attribute that does not "
                                  "exist in the item"},
      {"SET x.y = :v", {{":v", N("1")}},
       "The document path provided in the update expression is invalid for update"},
      // DynamoDB: REMOVE, ADD and DELETE of a nested path need its parent to
      // exist and to be the right container (a map for .name, a list for
      // [i]); removing an absent attribute of an existing one is a no-op.
      {"REMOVE x.y", {}, kInvalidPath},
      {"REMOVE s.y", {}, kInvalidPath},
      {"REMOVE s[0]", {}, kInvalidPath},
      {"REMOVE l.y", {}, kInvalidPath},
      {"REMOVE x[0].y", {}, kInvalidPath},
      {"DELETE x.y :v", {{":v", AV::SS({"x"})}}, kInvalidPath},
      {"DELETE s.y :v", {{":v", AV::SS({"x"})}}, kInvalidPath},
      {"ADD x.y :v", {{":v", N("1")}}, kInvalidPath},
      {"SET l = list_append(l, :v)", {{":v", N("1")}},
       "An operand in the update expression has an incorrect data type"},
      {"ADD s :v", {{":v", N("1")}}, "An operand in the update expression has an incorrect data type"},
      {"ADD n :v", {{":v", N("9.9999999999999999999999999999999999999E+125")}},
       "Number overflow. Attempting to store a number with magnitude larger than supported range"},
      {"SET n = :v", {}, "Invalid UpdateExpression: An expression attribute value used in "
                         "expression is not defined; attribute value: :v"},
      // DynamoDB: an update expression knows if_not_exists and list_append
      // only; a condition function there is an unknown name.
      {"SET a = size(b)", {}, "Invalid UpdateExpression: Invalid function name; function: size"},
      {"SET a = attribute_exists(b)", {},
       "Invalid UpdateExpression: Invalid function name; function: attribute_exists"},
      {"SET a = foo(b)", {}, "Invalid UpdateExpression: Invalid function name; function: foo"},
      {"SET a = :v +", {{":v", N("1")}},
       "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"+\""},
      {"UPSERT a = :v", {{":v", N("1")}},
       "Invalid UpdateExpression: Syntax error; token: \"UPSERT\", near: \"UPSERT a\""},
  };
  for (const auto& c : cases) {
    auto r = Update(c.expr, base, c.values);
    ASSERT_FALSE(r.ok()) << c.expr;
    EXPECT_EQ(r.status(), Status::Validation(c.message)) << c.expr;
  }
}

}  // namespace
}  // namespace dynarock::expr
