#include "format/item_size.h"

#include "format/item_codec.h"

#include <gtest/gtest.h>

namespace dynarock::format {
namespace {

using AV = AttributeValue;
Number N(std::string_view s) { return *Number::Parse(s); }

TEST(ItemSizeTest, DocumentationExample) {
  // Developer Guide: {"shirt-color":"R","shirt-size":"M"} is 23 bytes.
  Item item{{"shirt-color", AV::S("R")}, {"shirt-size", AV::S("M")}};
  EXPECT_EQ(ItemSize(item), 23u);
}

TEST(ItemSizeTest, Numbers) {
  struct Case {
    const char* n;
    size_t size;
  } cases[] = {
      {"0", 1},       // zero
      {"1", 2},       // one pair
      {"10", 2},      // "10" is one pair
      {"99", 2},
      {"100", 2},     // 01 -> one pair (trailing zeros trimmed)
      {"123", 3},     // 01 23
      {"1234", 3},    // 12 34
      {"1.5", 3},     // 01 50
      {"-1", 3},      // negative: one more byte
      {"0.5", 2},     // 50
      {"12345678901234567890123456789012345678", 20},  // 38 digits, top odd: 19 pairs
  };
  for (const auto& c : cases) {
    EXPECT_EQ(NumberSize(N(c.n)), c.size) << c.n;
  }
}

TEST(ItemSizeTest, Types) {
  EXPECT_EQ(AttributeValueSize(AV::S("h\xc3\xa9")), 3u);  // UTF-8 bytes
  EXPECT_EQ(AttributeValueSize(AV::B(std::string(5, '\0'))), 5u);
  EXPECT_EQ(AttributeValueSize(AV::Bool(false)), 1u);
  EXPECT_EQ(AttributeValueSize(AV::Null()), 1u);
  EXPECT_EQ(AttributeValueSize(AV::SS({"ab", "c"})), 3u);
  EXPECT_EQ(AttributeValueSize(AV::BS({"ab", ""})), 2u);
  EXPECT_EQ(AttributeValueSize(AV::NS({N("1"), N("-1")})), 2u + 3u);
  EXPECT_EQ(AttributeValueSize(AV::L({})), 3u);
  EXPECT_EQ(AttributeValueSize(AV::M({})), 3u);
  // L: 3 + (1 + 1) + (1 + 2)
  EXPECT_EQ(AttributeValueSize(AV::L({AV::Bool(true), AV::S("ab")})), 8u);
  // M: 3 + (1 + len("key") + len("v"))
  EXPECT_EQ(AttributeValueSize(AV::M({{"key", AV::S("v")}})), 8u);
  Item item{{"pk", AV::S("VEH#1")}, {"n", AV::N(N("42"))}};
  EXPECT_EQ(ItemSize(item), 2u + 5u + 1u + 2u);
}

}  // namespace
}  // namespace dynarock::format

namespace dynarock::format {
namespace {

TEST(ItemSizeTest, EncodedItemSizeEqualsDecodedSize) {
  Item item{{"pk", AttributeValue::S("VEH#1")},
            {"n", AttributeValue::N(*Number::Parse("-123.45"))},
            {"ns", AttributeValue::NS({*Number::Parse("1"), *Number::Parse("1e10")})},
            {"ss", AttributeValue::SS({"a", "bc"})},
            {"bs", AttributeValue::BS({"x"})},
            {"m", AttributeValue::M({{"k", AttributeValue::L({AttributeValue::Bool(true),
                                                              AttributeValue::Null()})}})}};
  std::string bytes = EncodeItem(item);
  EXPECT_EQ(ItemSize(*ItemView::Open(bytes)), ItemSize(item));
}

}  // namespace
}  // namespace dynarock::format

namespace dynarock::format {
namespace {

// Every digit count, both alignments, all three exponent classes and both
// signs: the size read off the encoded bytes equals the decoded number's.
TEST(ItemSizeTest, EncodedNumberSizeEqualsDecodedSizeAcrossClasses) {
  for (int digits = 1; digits <= Number::kMaxDigits; ++digits) {
    for (int exponent : {-130, -129, -64, -21, -20, -2, -1, 0, 1, 2, 19, 20, 21, 22, 60, 87}) {
      const int top = exponent + digits - 1;
      if (top > Number::kMaxTopPosition || top < Number::kMinTopPosition) continue;
      for (bool negative : {false, true}) {
        Number::uint128 c = 0;
        for (int i = 0; i < digits; ++i) c = c * 10 + static_cast<unsigned>(1 + (i * 7) % 9);
        const Number n = Number::FromParts(negative, c, exponent);
        const Item item{{"n", AttributeValue::N(n)}, {"ns", AttributeValue::NS({n})}};
        const std::string bytes = EncodeItem(item);
        ASSERT_EQ(ItemSize(*ItemView::Open(bytes)), ItemSize(item)) << n.ToString();
      }
    }
  }
}

}  // namespace
}  // namespace dynarock::format
