#include "format/json.h"
#include "tests/util/status_matchers.h"

#include <gtest/gtest.h>

namespace dynarock::format {
namespace {

using AV = AttributeValue;
Number N(std::string_view s) { return *Number::Parse(s); }

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

TEST(JsonTest, ValidValues) {
  struct Case {
    const char* json;
    AV value;
    const char* canonical;  // what we write back
  } cases[] = {
      {R"({"S":"hi"})", AV::S("hi"), R"({"S":"hi"})"},
      {R"({"S":""})", AV::S(""), R"({"S":""})"},
      {R"({"N":"00042"})", AV::N(N("42")), R"({"N":"42"})"},
      {R"({"N":"1.5E2"})", AV::N(N("150")), R"({"N":"150"})"},
      {R"({"B":"AAH/"})", AV::B(std::string("\0\x01\xff", 3)), R"({"B":"AAH/"})"},
      {R"({"B":""})", AV::B(""), R"({"B":""})"},
      {R"({"B":"YQ=="})", AV::B("a"), R"({"B":"YQ=="})"},
      {R"({"BOOL":false})", AV::Bool(false), R"({"BOOL":false})"},
      {R"({"NULL":true})", AV::Null(), R"({"NULL":true})"},
      {R"({"SS":["b","a"]})", AV::SS({"a", "b"}), R"({"SS":["a","b"]})"},
      {R"({"NS":["10","1.0"]})", AV::NS({N("1"), N("10")}), R"({"NS":["1","10"]})"},
      {R"({"BS":["YQ==","Yg=="]})", AV::BS({"a", "b"}), R"({"BS":["YQ==","Yg=="]})"},
      {R"({"L":[{"S":"x"},{"N":"1"}]})", AV::L({AV::S("x"), AV::N(N("1"))}),
       R"({"L":[{"S":"x"},{"N":"1"}]})"},
      {R"({"M":{"b":{"NULL":true},"a":{"L":[]}}})", AV::M({{"a", AV::L({})}, {"b", AV::Null()}}),
       R"({"M":{"a":{"L":[]},"b":{"NULL":true}}})"},
      // Null members are absent and unknown members ignored, as in DynamoDB.
      {R"({"S":"x","N":null})", AV::S("x"), R"({"S":"x"})"},
      {R"({"S":"x","Foo":1})", AV::S("x"), R"({"S":"x"})"},
      {R"({"S":"caf\u00e9"})", AV::S("caf\xc3\xa9"), "{\"S\":\"caf\xc3\xa9\"}"},
  };
  for (const auto& c : cases) {
    auto v = ParseAttributeValueJson(c.json);
    ASSERT_OK(v);
    EXPECT_EQ(*v, c.value) << c.json;
    EXPECT_EQ(ToJson(*v), c.canonical);
  }
}

TEST(JsonTest, InvalidValues) {
  using C = Status::Code;
  struct Case {
    std::string json;
    C code;
    std::string msg;
  } cases[] = {
      {R"({})", C::kValidation,
       "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
      {R"({"S":null})", C::kValidation,
       "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
      {R"({"X":"1"})", C::kValidation,
       "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
      {R"({"S":"a","N":"1"})", C::kValidation,
       "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
       "supported datatypes"},
      {R"({"SS":[]})", C::kValidation, std::string(kInvalid) + "An string set  may not be empty"},
      {R"({"NS":[]})", C::kValidation, std::string(kInvalid) + "An number set  may not be empty"},
      {R"({"BS":[]})", C::kValidation, std::string(kInvalid) + "Binary sets should not be empty"},
      {R"({"SS":["a","b","a"]})", C::kValidation,
       std::string(kInvalid) + "Input collection [a, b, a] contains duplicates."},
      // DynamoDB's own texts for number and binary sets, the same as a
      // request gets (one validator: format/attribute_value_rules.h).
      {R"({"NS":["1","1.0"]})", C::kValidation, "Input collection contains duplicates"},
      {R"({"BS":["YQ==","YQ=="]})", C::kValidation,
       std::string(kInvalid) + "Input collection [YQ==, YQ==]of type BS contains duplicates."},
      // Each tag's own checks come before "more than one", as in requests.
      {R"({"NULL":false,"S":"a"})", C::kValidation,
       std::string(kInvalid) + "Null attribute value types must have the value of true"},
      {R"({"NULL":false})", C::kValidation,
       std::string(kInvalid) + "Null attribute value types must have the value of true"},
      {R"({"N":"dog"})", C::kValidation,
       "The parameter cannot be converted to a numeric value: dog"},
      {R"({"N":"1E126"})", C::kValidation,
       "Number overflow. Attempting to store a number with magnitude larger than supported range"},
      {R"({"NS":["1","x"]})", C::kValidation,
       "The parameter cannot be converted to a numeric value: x"},
      {R"({"N":1})", C::kSerialization, "NUMBER_VALUE cannot be converted to String"},
      {R"({"S":1})", C::kSerialization, "NUMBER_VALUE cannot be converted to String"},
      {R"({"S":true})", C::kSerialization, "TRUE_VALUE cannot be converted to String"},
      {R"({"S":{}})", C::kSerialization, "Start of structure or map found where not expected."},
      {R"({"BOOL":"true"})", C::kSerialization, "STRING_VALUE cannot be converted to Boolean"},
      {R"({"L":{}})", C::kSerialization, "Start of structure or map found where not expected."},
      {R"({"M":[]})", C::kSerialization, "Start of list found where not expected."},
      {R"({"SS":[1]})", C::kSerialization, "NUMBER_VALUE cannot be converted to String"},
      {R"("x")", C::kSerialization, "STRING_VALUE cannot be converted to AttributeValue"},
      {R"({"B":"YQ="})", C::kSerialization,
       "Base64 encoded length is expected a multiple of 4 bytes but found: 3"},
      {R"({"B":"Y!=="})", C::kSerialization, "Invalid Base64 character in: Y!=="},
      {R"({"B":"Y=Q="})", C::kSerialization, "Invalid Base64 character in: Y=Q="},
      {R"({"L":[{"S":"ok"},{}]})", C::kValidation,
       "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
  };
  for (const auto& c : cases) {
    auto v = ParseAttributeValueJson(c.json);
    ASSERT_FALSE(v.ok()) << c.json;
    EXPECT_EQ(v.status().code(), c.code) << c.json << ": " << v.status().ToString();
    EXPECT_EQ(v.status().message(), c.msg) << c.json;
  }
}

TEST(JsonTest, MalformedJsonIsSerializationException) {
  const std::string inputs[] = {"", "{", R"({"S":"x")", "[1,2", "nul", "{\"S\":\"\xff\"}"};
  for (const auto& in : inputs) {
    auto v = ParseAttributeValueJson(in);
    ASSERT_FALSE(v.ok()) << in;
    EXPECT_EQ(v.status().code(), Status::Code::kSerialization) << in;
  }
}

std::string NestedL(int containers) {
  std::string json;
  for (int i = 0; i < containers; ++i) json += R"({"L":[)";
  json += R"({"S":"leaf"})";
  for (int i = 0; i < containers; ++i) json += "]}";
  return json;
}

// Regression (found by fuzz_json_decode): RapidJSON 1.1.0 turns a lone
// surrogate escape into bytes that are not UTF-8, which we then wrote back
// as JSON no parser accepts. Strings must be valid UTF-8 wherever they occur.
TEST(JsonTest, LoneSurrogateEscapesAreRejected) {
  const char* inputs[] = {R"({"a":{"S":"\uDD00"}})", R"({"a":{"S":"x\uD800"}})",
                          R"({"a":{"SS":["ok","\uDFFF"]}})", R"({"\uDC00":{"S":"x"}})",
                          R"({"a":{"M":{"\uDABC":{"NULL":true}}}})"};
  for (const char* in : inputs) {
    auto item = ParseItemJson(in);
    ASSERT_FALSE(item.ok()) << in;
    EXPECT_EQ(item.status().code(), Status::Code::kSerialization) << in;
  }
  // A proper surrogate pair is one 4-byte UTF-8 character.
  auto ok = ParseItemJson(R"({"a":{"S":"\uD83D\uDE00"}})");
  ASSERT_OK(ok);
  EXPECT_EQ(ok->at("a"), AV::S("\xF0\x9F\x98\x80"));
}

TEST(JsonTest, NestingLimit) {
  // Item = level 1, top-level value = level 2: 30 containers are the most.
  EXPECT_OK(ParseAttributeValueJson(NestedL(30)));
  auto v = ParseAttributeValueJson(NestedL(31));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status(), Status::Validation("Nesting Levels have exceeded supported limits"));
  // Hostile depth is rejected without exhausting the stack.
  auto deep = ParseAttributeValueJson(NestedL(100000));
  EXPECT_FALSE(deep.ok());
}

TEST(JsonTest, Items) {
  auto item = ParseItemJson(
      R"({"PK":{"S":"VEH#V-7741"},"SK":{"S":"META"},"model":{"S":"eVan"},"PK":{"S":"VEH#2"}})");
  ASSERT_OK(item);
  EXPECT_EQ(item->size(), 3u);
  EXPECT_EQ(item->at("PK"), AV::S("VEH#2"));  // last duplicate wins
  EXPECT_EQ(ToJson(*item), R"({"PK":{"S":"VEH#2"},"SK":{"S":"META"},"model":{"S":"eVan"}})");
  auto again = ParseItemJson(ToJson(*item));
  ASSERT_OK(again);
  EXPECT_EQ(*again, *item);
  EXPECT_EQ(ParseItemJson("[]").status().code(), Status::Code::kSerialization);
}

TEST(JsonTest, Base64) {
  struct Case {
    std::string raw;
    const char* b64;
  } cases[] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="},
               {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& c : cases) {
    EXPECT_EQ(Base64Encode(c.raw), c.b64);
    auto d = Base64Decode(c.b64);
    ASSERT_OK(d);
    EXPECT_EQ(*d, c.raw);
  }
  EXPECT_FALSE(Base64Decode("Zm 9").ok());
  EXPECT_FALSE(Base64Decode("====").ok());
}

}  // namespace
}  // namespace dynarock::format
