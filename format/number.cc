#include "dynarock/number.h"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace dynarock {
namespace {

using uint128 = Number::uint128;


constexpr char kOverflow[] =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
constexpr char kUnderflow[] =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";
constexpr char kTooManyDigits[] =
    "Attempting to store more than 38 significant digits in a Number";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Checks digits and range of a canonical digit string (no leading or trailing
// zeros, non-empty) with exponent `exp`, then builds the Number.
Result<Number> FromCanonicalDigits(bool negative, std::string_view digits, int64_t exp,
                                   const char* too_many_digits_msg) {
  if (digits.size() > static_cast<size_t>(Number::kMaxDigits)) {
    return Status::Validation(too_many_digits_msg);
  }
  int64_t top = exp + static_cast<int64_t>(digits.size()) - 1;
  if (top > Number::kMaxTopPosition) return Status::Validation(kOverflow);
  if (top < Number::kMinTopPosition) return Status::Validation(kUnderflow);
  uint128 c = 0;
  for (char d : digits) c = c * 10 + static_cast<unsigned>(d - '0');
  return Number::FromParts(negative, c, static_cast<int32_t>(exp));
}

// Strips leading zeros from `digits` and trailing zeros (adding them to *exp).
std::string_view Trim(std::string_view digits, int64_t* exp) {
  size_t first = digits.find_first_not_of('0');
  if (first == std::string_view::npos) return {};
  size_t last = digits.find_last_not_of('0');
  *exp += static_cast<int64_t>(digits.size() - 1 - last);
  return digits.substr(first, last - first + 1);
}

}  // namespace

Result<Number> Number::Parse(std::string_view text) {
  auto invalid = [&] {
    return Status::Validation("The parameter cannot be converted to a numeric value: " +
                              std::string(text));
  };
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';

  // Collect the mantissa digits (without the point) and count fraction digits.
  std::string mantissa;
  int64_t fraction_digits = 0;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (IsDigit(c)) {
      // Leading zeros carry no information; skipping them keeps `mantissa` short.
      if (!(mantissa.empty() && c == '0')) mantissa.push_back(c);
      if (seen_point) ++fraction_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  size_t mantissa_end = i;
  size_t first_digit = (text.size() > 0 && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  size_t mantissa_len = mantissa_end - first_digit - (seen_point ? 1 : 0);
  if (mantissa_len == 0) return invalid();

  int64_t exp = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    size_t exp_start = i;
    for (; i < text.size() && IsDigit(text[i]); ++i) {
      // Saturate: anything this large is out of range whatever the mantissa.
      if (exp < 1'000'000'000) exp = exp * 10 + (text[i] - '0');
    }
    if (i == exp_start) return invalid();
    if (exp_negative) exp = -exp;
  }
  if (i != text.size()) return invalid();

  exp -= fraction_digits;
  std::string_view digits = Trim(mantissa, &exp);
  if (digits.empty()) return Number();
  return FromCanonicalDigits(negative, digits, exp, kTooManyDigits);
}

Number Number::FromParts(bool negative, uint128 coefficient, int32_t exponent) {
  if (coefficient == 0) return Number();
  while (coefficient % 10 == 0) {
    coefficient /= 10;
    ++exponent;
  }
  return Number(negative, coefficient, exponent);
}

Number Number::FromInt64(int64_t v) {
  bool negative = v < 0;
  // Negate in unsigned arithmetic so INT64_MIN is exact.
  uint64_t magnitude = negative ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
  return FromParts(negative, magnitude, 0);
}

namespace {

// 10^0 .. 10^38: every power a 38-digit coefficient can reach.
constexpr auto kPowersOf10 = [] {
  std::array<uint128, 39> p{};
  p[0] = 1;
  for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}();

// Appends the decimal digits of v, zero-padded to `width`.
void AppendDigits64(std::string* out, uint64_t v, size_t width) {
  char buf[20];
  size_t n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out->append(width > n ? width - n : 0, '0');
  while (n > 0) out->push_back(buf[--n]);
}

}  // namespace

int Number::digits() const {
  if (coefficient_ == 0) return 0;
  // Hot in item encoding and sizing: from the bit width b, t = floor(b *
  // log10(2)) (1233 / 4096 gives it exactly for b <= 128), and a
  // coefficient in [2^(b-1), 2^b) has t or t + 1 digits: one comparison.
  const auto high = static_cast<uint64_t>(coefficient_ >> 64);
  const int bits = high != 0 ? 128 - __builtin_clzll(high)
                             : 64 - __builtin_clzll(static_cast<uint64_t>(coefficient_));
  const int t = (bits * 1233) >> 12;
  return t + (coefficient_ >= kPowersOf10[static_cast<size_t>(t)] ? 1 : 0);
}

std::string Number::DigitString() const {
  std::string out;
  if (coefficient_ == 0) return out;
  // 128-bit division is slow: split once at 10^19 and convert 64-bit halves.
  constexpr uint64_t k1e19 = 10'000'000'000'000'000'000ull;
  if (coefficient_ >> 64 == 0 && static_cast<uint64_t>(coefficient_) < k1e19) {
    AppendDigits64(&out, static_cast<uint64_t>(coefficient_), 0);
  } else {
    AppendDigits64(&out, static_cast<uint64_t>(coefficient_ / k1e19), 0);
    AppendDigits64(&out, static_cast<uint64_t>(coefficient_ % k1e19), 19);
  }
  return out;
}

std::string Number::ToString() const {
  if (is_zero()) return "0";
  std::string digits = DigitString();
  std::string out = negative_ ? "-" : "";
  int n = static_cast<int>(digits.size());
  if (exponent_ >= 0) {
    out += digits;
    out.append(static_cast<size_t>(exponent_), '0');
  } else if (n > -exponent_) {
    out.append(digits, 0, static_cast<size_t>(n + exponent_));
    out += '.';
    out.append(digits, static_cast<size_t>(n + exponent_));
  } else {
    out += "0.";
    out.append(static_cast<size_t>(-exponent_ - n), '0');
    out += digits;
  }
  return out;
}

Number Number::Negated() const {
  if (is_zero()) return *this;
  return Number(!negative_, coefficient_, exponent_);
}

std::strong_ordering operator<=>(const Number& a, const Number& b) {
  if (a.negative_ != b.negative_) {
    return a.negative_ ? std::strong_ordering::less : std::strong_ordering::greater;
  }
  // Same sign: compare magnitudes, then flip for negatives.
  std::strong_ordering mag = std::strong_ordering::equal;
  if (a.is_zero() || b.is_zero()) {
    mag = (a.is_zero() ? 0 : 1) <=> (b.is_zero() ? 0 : 1);
  } else if (a.top_position() != b.top_position()) {
    mag = a.top_position() <=> b.top_position();
  } else {
    // Same top position: align both coefficients to the same digit count
    // (at most 38 digits, which fits in 128 bits) and compare.
    uint128 ca = a.coefficient_, cb = b.coefficient_;
    for (int d = a.digits(); d < b.digits(); ++d) ca *= 10;
    for (int d = b.digits(); d < a.digits(); ++d) cb *= 10;
    mag = ca <=> cb;
  }
  return a.negative_ ? 0 <=> mag : mag;
}

Result<Number> Number::Add(const Number& a, const Number& b) {
  if (a.is_zero()) return b;
  if (b.is_zero()) return a;
  // Exact decimal arithmetic on digit strings aligned to the smaller exponent.
  // Both operands are in range, so the aligned strings are at most a few
  // hundred digits long; this path is not hot (ADD / SET a = a + :v).
  int32_t exp = std::min(a.exponent_, b.exponent_);
  std::string da = a.DigitString() + std::string(static_cast<size_t>(a.exponent_ - exp), '0');
  std::string db = b.DigitString() + std::string(static_cast<size_t>(b.exponent_ - exp), '0');
  size_t width = std::max(da.size(), db.size()) + 1;
  da.insert(0, width - da.size(), '0');
  db.insert(0, width - db.size(), '0');

  bool negative = a.negative_;
  std::string sum(width, '0');
  if (a.negative_ == b.negative_) {
    int carry = 0;
    for (size_t i = width; i-- > 0;) {
      int d = (da[i] - '0') + (db[i] - '0') + carry;
      sum[i] = static_cast<char>('0' + d % 10);
      carry = d / 10;
    }
  } else {
    // Subtract the smaller magnitude from the larger; the sign follows the larger.
    if (da < db) {  // equal-width digit strings compare as numbers
      std::swap(da, db);
      negative = b.negative_;
    }
    int borrow = 0;
    for (size_t i = width; i-- > 0;) {
      int d = (da[i] - '0') - (db[i] - '0') - borrow;
      borrow = d < 0;
      sum[i] = static_cast<char>('0' + (d + 10) % 10);
    }
  }
  int64_t e = exp;
  std::string_view digits = Trim(sum, &e);
  if (digits.empty()) return Number();
  // DynamoDB reports a result that would lose precision as an overflow.
  return FromCanonicalDigits(negative, digits, e, kOverflow);
}

Result<Number> Number::Subtract(const Number& a, const Number& b) {
  return Add(a, b.Negated());
}

}  // namespace dynarock
