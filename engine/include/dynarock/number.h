// DynamoDB numbers: exact decimals with at most 38 significant digits and a
// magnitude between 1E-130 and 9.9999999999999999999999999999999999999E+125.
//
// A Number is always canonical: value = (-1)^negative * coefficient * 10^exponent,
// where coefficient has no trailing decimal zeros (so 1, 1.0 and 10E-1 are the same
// Number) and zero is {false, 0, 0}. No floating point is used anywhere: a 38-digit
// coefficient fits in an unsigned 128-bit integer.
#ifndef DYNAROCK_NUMBER_H_
#define DYNAROCK_NUMBER_H_

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "dynarock/status.h"

namespace dynarock {

class Number {
 public:
  // The coefficient: 38 decimal digits fit in 128 bits.
  using uint128 = unsigned __int128;

  static constexpr int kMaxDigits = 38;
  // Decimal position of the most significant digit: 10^125 .. 10^-130.
  static constexpr int kMaxTopPosition = 125;
  static constexpr int kMinTopPosition = -130;

  Number() = default;  // zero

  // Parses DynamoDB's number syntax: [+-] digits [. digits] [(e|E) [+-] digits],
  // where either side of the point may be empty but not both (".5", "5.").
  // Errors (ValidationException, DynamoDB's words):
  //  - "The parameter cannot be converted to a numeric value: <s>"
  //  - "Attempting to store more than 38 significant digits in a Number"
  //  - "Number overflow. Attempting to store a number with magnitude larger than supported range"
  //  - "Number underflow. Attempting to store a number with magnitude smaller than supported range"
  static Result<Number> Parse(std::string_view text);

  // Builds from canonical parts. Trailing zeros of `coefficient` are folded
  // into the exponent. REQUIRES: the result is within DynamoDB's range.
  static Number FromParts(bool negative, uint128 coefficient, int32_t exponent);
  static Number FromInt64(int64_t v);

  // Exact sum and difference; a result that needs more than 38 significant
  // digits or leaves the range is a ValidationException with DynamoDB's
  // overflow/underflow message (DynamoDB words a precision loss as overflow).
  static Result<Number> Add(const Number& a, const Number& b);
  static Result<Number> Subtract(const Number& a, const Number& b);

  // The canonical text DynamoDB returns: plain decimal, no exponent, no
  // leading/trailing zeros ("150", "-0.5", "0").
  std::string ToString() const;

  bool negative() const { return negative_; }
  bool is_zero() const { return coefficient_ == 0; }
  uint128 coefficient() const { return coefficient_; }
  int32_t exponent() const { return exponent_; }
  // Number of significant digits (0 for zero).
  int digits() const;
  // Decimal position of the most significant digit (REQUIRES: !is_zero()).
  int top_position() const { return exponent_ + digits() - 1; }
  // The coefficient's decimal digits ("" for zero).
  std::string DigitString() const;

  Number Negated() const;

  // Numeric order.
  friend std::strong_ordering operator<=>(const Number& a, const Number& b);
  friend bool operator==(const Number& a, const Number& b) = default;

 private:
  Number(bool negative, uint128 coefficient, int32_t exponent)
      : negative_(negative), coefficient_(coefficient), exponent_(exponent) {}

  bool negative_ = false;
  uint128 coefficient_ = 0;
  int32_t exponent_ = 0;
};

}  // namespace dynarock

#endif  // DYNAROCK_NUMBER_H_
