#include "format/item_size.h"

#include "format/item_codec.h"
#include "tests/util/item_v1.h"

#include <gtest/gtest.h>

#include <cstring>

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
  EXPECT_EQ(ItemView::Open(bytes)->stored_size(), ItemSize(item));
  EXPECT_EQ(ComputeItemSize(*ItemView::Open(bytes)), ItemSize(item));
}

// Storage format 7 and before stored no size (in version 1 of the item
// encoding): read as stored bytes, such an item is re-encoded in version 2
// with the size its attributes give.
TEST(ItemSizeTest, AnItemWithoutAStoredSizeIsSizedFromItsAttributes) {
  const std::string old = testing::EncodeStringItemWithoutSize({{"pk", "VEH#1"}, {"sk", "META"}});
  EXPECT_FALSE(ItemView::Open(old).ok());  // views read version 2 only
  std::string scratch;
  auto view = OpenStoredItem(old, &scratch);
  ASSERT_TRUE(view.ok());
  const Item item{{"pk", AttributeValue::S("VEH#1")}, {"sk", AttributeValue::S("META")}};
  EXPECT_EQ(ItemSize(item), 2u + 5u + 2u + 4u);
  EXPECT_EQ(view->stored_size(), ItemSize(item));
  EXPECT_EQ(scratch, EncodeItem(item));
  EXPECT_EQ(*view->Decode(), item);
  EXPECT_EQ(*DecodeItem(old), item);
}

// A stored size that is not the attributes' is corruption to Open (bytes of
// unknown origin); OpenTrusted believes it, as it believes everything.
TEST(ItemSizeTest, OpenChecksTheStoredSize) {
  const Item item{{"pk", AttributeValue::S("VEH#1")}, {"n", AttributeValue::N(N("12.5"))}};
  const std::string bytes = EncodeItem(item);
  const auto size = static_cast<uint32_t>(ItemSize(item));
  // The payload starts 02 (its version), then the size as a varint (one
  // byte here). Patch each such pair to size + 1: the one that is the
  // stored field makes Open fail, and OpenTrusted reads it.
  ASSERT_LT(size, 127u);
  bool found = false;
  for (size_t i = 0; i + 1 < bytes.size(); ++i) {
    if (bytes[i] != 2 || static_cast<uint8_t>(bytes[i + 1]) != size) continue;
    std::string patched = bytes;
    patched[i + 1] = static_cast<char>(size + 1);
    auto view = ItemView::Open(patched);
    if (view.ok() || view.status().message().find("stored size") == std::string::npos) continue;
    EXPECT_EQ(view.status().code(), Status::Code::kCorruption);
    EXPECT_EQ(ItemSize(ItemView::OpenTrusted(patched)), size + 1);
    found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace dynarock::format

namespace dynarock::format {
namespace {

// Every digit count, both alignments, all three exponent classes and both
// signs: the size of a stored number (read from its stored text) equals the
// number's.
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
        ASSERT_EQ(ComputeItemSize(*ItemView::Open(bytes)), ItemSize(item)) << n.ToString();
      }
    }
  }
}

}  // namespace
}  // namespace dynarock::format
