#include "dynarock/attribute_value.h"
#include "tests/util/status_matchers.h"

#include <gtest/gtest.h>

namespace dynarock::format {
namespace {

Number N(std::string_view s) { return *Number::Parse(s); }
using AV = AttributeValue;

TEST(AttributeValueTest, EqualityIsDynamoDBEquality) {
  EXPECT_EQ(AV::N(N("1")), AV::N(N("1.00")));
  EXPECT_NE(AV::S("6"), AV::N(N("6")));
  EXPECT_NE(AV::S("a"), AV::B("a"));
  EXPECT_EQ(AV::SS({"b", "a", "c"}), AV::SS({"c", "b", "a"}));
  EXPECT_NE(AV::SS({"a"}), AV::BS({"a"}));
  EXPECT_EQ(AV::NS({N("1"), N("2.0")}), AV::NS({N("2"), N("1.0")}));
  EXPECT_NE(AV::L({AV::S("a"), AV::S("b")}), AV::L({AV::S("b"), AV::S("a")}));  // lists are ordered
  EXPECT_EQ(AV::M({{"x", AV::Bool(true)}, {"y", AV::Null()}}),
            AV::M({{"y", AV::Null()}, {"x", AV::Bool(true)}}));
  EXPECT_NE(AV::Bool(true), AV::Bool(false));
  EXPECT_EQ(AV::Null(), AV());
}

TEST(AttributeValueTest, MapAccess) {
  AV m = AV::M({{"b", AV::S("2")}, {"a", AV::S("1")}, {"b", AV::S("3")}});
  ASSERT_EQ(m.m().size(), 2u);
  EXPECT_EQ(*m.Find("b"), AV::S("3"));  // last duplicate wins
  EXPECT_EQ(m.Find("c"), nullptr);
  m.Set("c", AV::N(N("5")));
  m.Set("a", AV::S("one"));
  EXPECT_EQ(*m.Find("a"), AV::S("one"));
  EXPECT_TRUE(m.Erase("b"));
  EXPECT_FALSE(m.Erase("b"));
  EXPECT_EQ(m, AV::M({{"a", AV::S("one")}, {"c", AV::N(N("5"))}}));
}

TEST(AttributeValueTest, ValidateSets) {
  struct Case {
    AV value;
    const char* msg;  // nullptr: valid
  } cases[] = {
      {AV::SS({}), "One or more parameter values were invalid: An string set  may not be empty"},
      {AV::NS({}), "One or more parameter values were invalid: An number set  may not be empty"},
      {AV::BS({}), "One or more parameter values were invalid: Binary sets should not be empty"},
      {AV::SS({"a", "a"}),
       "One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
      {AV::NS({N("1"), N("1.0")}),
       "One or more parameter values were invalid: Input collection [1, 1] contains duplicates."},
      {AV::SS({""}), nullptr},
      {AV::BS({""}), nullptr},
      {AV::L({AV::SS({})}),
       "One or more parameter values were invalid: An string set  may not be empty"},
      {AV::M({{"x", AV::NS({})}}),
       "One or more parameter values were invalid: An number set  may not be empty"},
  };
  for (const auto& c : cases) {
    Status st = c.value.Validate();
    if (c.msg == nullptr) {
      EXPECT_OK(st);
    } else {
      EXPECT_EQ(st, Status::Validation(c.msg)) << DebugString(c.value);
    }
  }
}

AV Nest(int levels) {
  AV v = AV::S("leaf");
  for (int i = 0; i < levels; ++i) v = AV::L({v});
  return v;
}

TEST(AttributeValueTest, NestingLimit) {
  // The item is level 1 and a top-level value level 2: 30 containers around
  // a leaf put the leaf at level 32, the deepest allowed.
  EXPECT_OK(Nest(30).Validate(2));
  EXPECT_EQ(Nest(31).Validate(2),
            Status::Validation("Nesting Levels have exceeded supported limits"));
  Item item{{"a", Nest(31)}};
  EXPECT_FALSE(ValidateItem(item).ok());
}

TEST(AttributeValueTest, ItemNames) {
  EXPECT_FALSE(ValidateItem(Item{{"", AV::S("x")}}).ok());
  EXPECT_OK(ValidateItem(Item{{std::string(65535, 'n'), AV::S("x")}}));
  EXPECT_FALSE(ValidateItem(Item{{std::string(65536, 'n'), AV::S("x")}}).ok());
}

TEST(AttributeValueTest, DebugString) {
  EXPECT_EQ(DebugString(AV::M({{"k", AV::L({AV::N(N("1.50")), AV::B("\x01")})}})),
            R"({"M":{"k":{"L":[{"N":"1.5"}, {"B":"01"}]}}})");
}

}  // namespace
}  // namespace dynarock::format
