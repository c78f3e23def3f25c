#include "dynarock/number.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock::format {
namespace {

constexpr char kOverflow[] =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
constexpr char kUnderflow[] =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";
constexpr char kDigits[] = "Attempting to store more than 38 significant digits in a Number";

Number N(std::string_view s) {
  auto n = Number::Parse(s);
  EXPECT_OK(n);
  return n.ok() ? *n : Number();
}

TEST(NumberTest, CanonicalForm) {
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {
      {"0", "0"},          {"-0", "0"},        {"+0", "0"},           {"0.000", "0"},
      {"00042", "42"},     {"1.0", "1"},       {"3.1400", "3.14"},    {"1.5E2", "150"},
      {"3", "3"},          {"-7.1234", "-7.1234"}, {"-17e5", "-1700000"}, {"+3", "3"},
      {".123", "0.123"},   {"0001.23", "1.23"}, {"1e+5", "100000"},   {"5.", "5"},
      {"-17.4E37", "-174000000000000000000000000000000000000"},
      {"1e-3", "0.001"},   {"-0.0500", "-0.05"}, {"12345678.9e-4", "1234.56789"},
      {"100", "100"},      {"0e99999999999", "0"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(N(c.in).ToString(), c.out) << c.in;
  }
}

TEST(NumberTest, Extremes) {
  EXPECT_EQ(N("1E-130").ToString(), "0." + std::string(129, '0') + "1");
  EXPECT_EQ(N("-1E-130").ToString(), "-0." + std::string(129, '0') + "1");
  std::string max = "9.9999999999999999999999999999999999999E+125";
  EXPECT_EQ(N(max).ToString(), std::string(38, '9') + std::string(88, '0'));
  EXPECT_EQ(N("-" + max).ToString(), "-" + std::string(38, '9') + std::string(88, '0'));
  EXPECT_EQ(N(max).digits(), 38);
  EXPECT_EQ(N(max).top_position(), 125);
  EXPECT_EQ(N("1E-130").top_position(), -130);
}

// digits() counts from the bit width: check it at every power of ten and
// of two a coefficient can reach, and on either side of each.
TEST(NumberTest, DigitsAtEveryBoundary) {
  using uint128 = Number::uint128;
  std::vector<uint128> values;
  uint128 ten = 1;
  for (int k = 0; k <= 38; ++k, ten *= 10) values.insert(values.end(), {ten - 1, ten, ten + 1});
  for (int j = 0; j < 127; ++j) {
    const uint128 two = static_cast<uint128>(1) << j;
    values.insert(values.end(), {two - 1, two, two + 1});
  }
  const uint128 limit = [] {
    uint128 p = 1;
    for (int k = 0; k < 38; ++k) p *= 10;
    return p;
  }();
  int checked = 0;
  for (uint128 v : values) {
    if (v == 0 || v >= limit || v % 10 == 0) continue;  // a coefficient: no trailing zero
    const Number n = Number::FromParts(false, v, 0);
    ASSERT_EQ(n.coefficient(), v);
    EXPECT_EQ(static_cast<size_t>(n.digits()), n.DigitString().size()) << n.DigitString();
    ++checked;
  }
  EXPECT_GT(checked, 200);
  EXPECT_EQ(Number().digits(), 0);
}

TEST(NumberTest, Errors) {
  struct Case {
    std::string in;
    std::string msg;
  } cases[] = {
      {"NaN", "The parameter cannot be converted to a numeric value: NaN"},
      {"Infinity", "The parameter cannot be converted to a numeric value: Infinity"},
      {"dog", "The parameter cannot be converted to a numeric value: dog"},
      {" 1", "The parameter cannot be converted to a numeric value:  1"},
      {"1 ", "The parameter cannot be converted to a numeric value: 1 "},
      {"", "The parameter cannot be converted to a numeric value: "},
      {".", "The parameter cannot be converted to a numeric value: ."},
      {"-", "The parameter cannot be converted to a numeric value: -"},
      {"1e", "The parameter cannot be converted to a numeric value: 1e"},
      {"e5", "The parameter cannot be converted to a numeric value: e5"},
      {"1.2.3", "The parameter cannot be converted to a numeric value: 1.2.3"},
      {"0x10", "The parameter cannot be converted to a numeric value: 0x10"},
      {"--1", "The parameter cannot be converted to a numeric value: --1"},
      {"1e5.5", "The parameter cannot be converted to a numeric value: 1e5.5"},
      {"1E126", kOverflow},
      {"10E125", kOverflow},
      {"-1E126", kOverflow},
      {"1e999999999999999999999", kOverflow},
      {"1E-131", kUnderflow},
      {"0.9E-130", kUnderflow},
      {"-1E-131", kUnderflow},
      {"1e-999999999999999999999", kUnderflow},
      {"1" + std::string(38, '1'), kDigits},  // 39 significant digits
      {"0.000" + std::string(39, '7'), kDigits},
  };
  for (const auto& c : cases) {
    auto n = Number::Parse(c.in);
    ASSERT_FALSE(n.ok()) << c.in;
    EXPECT_EQ(n.status().code(), Status::Code::kValidation) << c.in;
    EXPECT_EQ(n.status().message(), c.msg) << c.in;
  }
  // Zeros around the digits are not significant.
  EXPECT_OK(Number::Parse("000" + std::string(38, '9') + "000"));
  EXPECT_OK(Number::Parse("1" + std::string(100, '0')));
}

TEST(NumberTest, CompareNumerically) {
  const char* ascending[] = {"-9.9999999999999999999999999999999999999E+125", "-1e10", "-100",
                             "-99.5", "-1", "-0.5", "-1E-130", "0", "1E-130", "0.001", "0.5",
                             "1", "1.00001", "9", "10", "99.99", "100", "1e10", "1.5e10",
                             "9.9999999999999999999999999999999999999E+125"};
  for (size_t i = 0; i < std::size(ascending); ++i) {
    for (size_t j = 0; j < std::size(ascending); ++j) {
      EXPECT_EQ(N(ascending[i]) <=> N(ascending[j]), i <=> j)
          << ascending[i] << " vs " << ascending[j];
    }
  }
  EXPECT_EQ(N("1000"), N("1e3"));
  EXPECT_EQ(N("1.0"), N("1"));
  EXPECT_EQ(N("-0"), N("0"));
}

TEST(NumberTest, AddSubtract) {
  struct Case {
    const char* a;
    const char* b;
    const char* sum;
  } cases[] = {
      {"1", "2", "3"},
      {"0.1", "0.2", "0.3"},
      {"-5", "3", "-2"},
      {"5", "-5", "0"},
      {"1e10", "1e-10", "10000000000.0000000001"},
      {"99999999999999999999999999999999999999", "-99999999999999999999999999999999999998", "1"},
      {"1.5", "-0.25", "1.25"},
      {"-1E-130", "-1E-130", "-2E-130"},
      {"0", "-7", "-7"},
      {"9.9999999999999999999999999999999999999E+125", "0", nullptr},
  };
  for (const auto& c : cases) {
    auto sum = Number::Add(N(c.a), N(c.b));
    ASSERT_OK(sum);
    if (c.sum) {
      EXPECT_EQ(*sum, N(c.sum)) << c.a << " + " << c.b << " = " << sum->ToString();
    }
    // a + b - b == a
    auto back = Number::Subtract(*sum, N(c.b));
    ASSERT_OK(back);
    EXPECT_EQ(*back, N(c.a));
  }
}

TEST(NumberTest, ArithmeticErrors) {
  struct Case {
    const char* a;
    const char* b;
    const char* msg;
  } cases[] = {
      // Precision loss is worded as an overflow, as DynamoDB does.
      {"1e50", "1", kOverflow},
      {"99999999999999999999999999999999999999", "1e-1", kOverflow},
      {"9.9999999999999999999999999999999999999E+125", "1E+88", kOverflow},
      {"-9.9999999999999999999999999999999999999E+125", "-1E+88", kOverflow},
      {"1.1E-130", "-1E-130", kUnderflow},
  };
  for (const auto& c : cases) {
    auto sum = Number::Add(N(c.a), N(c.b));
    ASSERT_FALSE(sum.ok()) << c.a << " + " << c.b;
    EXPECT_EQ(sum.status().message(), c.msg);
  }
}

TEST(NumberTest, FromInt64) {
  EXPECT_EQ(Number::FromInt64(0).ToString(), "0");
  EXPECT_EQ(Number::FromInt64(-120).ToString(), "-120");
  EXPECT_EQ(Number::FromInt64(INT64_MIN).ToString(), "-9223372036854775808");
  EXPECT_EQ(Number::FromInt64(INT64_MAX).ToString(), "9223372036854775807");
}

// Randomized: parse(ToString(x)) == x, and comparison agrees with int64 order
// for integers and with exact rational order via cross-multiplied strings.
TEST(NumberTest, RandomRoundTripAndIntegerOrder) {
  std::mt19937_64 rng(testing::TestSeed("NumberTest.RandomRoundTripAndIntegerOrder"));
  for (int i = 0; i < 20000; ++i) {
    int64_t a = static_cast<int64_t>(rng()) >> (rng() % 63);
    int64_t b = static_cast<int64_t>(rng()) >> (rng() % 63);
    Number na = Number::FromInt64(a), nb = Number::FromInt64(b);
    ASSERT_EQ(na <=> nb, a <=> b) << a << " " << b;
    auto parsed = Number::Parse(na.ToString());
    ASSERT_OK(parsed);
    ASSERT_EQ(*parsed, na);
    // Sums of values far from INT64 limits are exact in __int128.
    __int128 exact = static_cast<__int128>(a) + b;
    auto sum = Number::Add(na, nb);
    ASSERT_OK(sum);
    bool neg = exact < 0;
    unsigned __int128 mag = neg ? -exact : exact;
    ASSERT_EQ(*sum, Number::FromParts(neg, mag, 0)) << a << " + " << b;
  }
}

}  // namespace
}  // namespace dynarock::format
