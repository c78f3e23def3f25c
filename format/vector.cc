#include "format/vector.h"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstring>

namespace dynarock::format {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid. ";
// DynamoDB's bound, as it prints it: FLT_MAX rounded to 8 digits.
constexpr double kF32Bound = 3.4028235e38;

// An N value as the nearest f32: false if it lies outside [-kF32Bound,
// kF32Bound]. A value too small for an f32 becomes a signed zero.
bool ToF32(const Number& n, float* out) {
  const std::string text = n.ToString();
  const char* end = text.data() + text.size();
  float f = 0;
  auto [ptr, ec] = std::from_chars(text.data(), end, f);
  if (ec == std::errc() && ptr == end) {
    *out = f;
    return true;
  }
  // Out of f32 range one way or the other: a double holds every DynamoDB
  // number (|v| within 1e-130 .. 1e126) and tells which.
  double d = 0;
  auto [dptr, dec] = std::from_chars(text.data(), end, d);
  if (dec != std::errc() || dptr != end) return false;
  if (std::fabs(d) > kF32Bound) return false;
  // Just above FLT_MAX but within DynamoDB's printed bound: FLT_MAX; below
  // the normal range: the nearest subnormal, or a signed zero.
  *out = std::fabs(d) >= 1.0 ? (d < 0 ? -FLT_MAX : FLT_MAX) : static_cast<float>(d);
  return true;
}

double Clamp(double v) {
  return std::clamp(v, -static_cast<double>(FLT_MAX), static_cast<double>(FLT_MAX));
}

}  // namespace

Status ToVector(const AttributeValue& value, uint32_t dimensions, std::string_view attribute,
                std::string_view index, std::vector<float>* out) {
  const std::string name(attribute);
  if (!value.is(AttrType::kL)) {
    return Status::Validation(
        std::string(kInvalid) + "Invalid type for parameter " + name +
        ", Expected: 32-bit floating point number list IndexName: " + std::string(index));
  }
  const auto& list = value.l();
  if (list.size() != dimensions) {
    return Status::Validation(std::string(kInvalid) + "Invalid size for parameter " + name +
                              ", Expected: " + std::to_string(dimensions) + ", Actual: " +
                              std::to_string(list.size()) + " IndexName: " + std::string(index));
  }
  const size_t start = out->size();
  out->reserve(start + dimensions);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string element = name + "[" + std::to_string(i) + "]";
    float f = 0;
    if (!list[i].is(AttrType::kN)) {
      out->resize(start);
      return Status::Validation(std::string(kInvalid) + "Invalid type for parameter " + element +
                                ", Expected: 32-bit floating point number, Actual: " +
                                std::string(AttrTypeName(list[i].type())) +
                                ". IndexName: " + std::string(index));
    }
    if (!ToF32(list[i].n(), &f)) {
      out->resize(start);
      return Status::Validation(std::string(kInvalid) + "Invalid value for parameter " + element +
                                ", Value: " + list[i].n().ToString() +
                                " is outside valid range [-3.4028235E38, 3.4028235E38]. "
                                "IndexName: " +
                                std::string(index));
    }
    out->push_back(f);
  }
  return Status::OK();
}

Status ToSearchVector(const std::vector<AttributeValue>& values, uint32_t dimensions,
                      std::vector<float>* out) {
  out->clear();
  out->reserve(values.size());
  for (const AttributeValue& v : values) {
    float f = 0;
    if (!v.is(AttrType::kN) || !ToF32(v.n(), &f)) {
      out->clear();
      return Status::Validation(
          "Search vector contains invalid values. All values in the search vector must be a "
          "32-bit floating-point number attribute");
    }
    out->push_back(f);
  }
  if (out->size() != dimensions) {
    const size_t given = out->size();
    out->clear();
    return Status::Validation("Input search vector dimension " + std::to_string(given) +
                              " does not match vector index dimension " +
                              std::to_string(dimensions));
  }
  return Status::OK();
}

void PutVector(std::string* dst, std::span<const float> v) {
  const size_t at = dst->size();
  dst->resize(at + 4 * v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], 4);
    for (int b = 0; b < 4; ++b) (*dst)[at + 4 * i + b] = static_cast<char>(bits >> (8 * b));
  }
}

AttributeValue VectorAttributeValue(std::span<const float> v) {
  std::vector<AttributeValue> out;
  out.reserve(v.size());
  char text[32];
  for (float x : v) {
    auto [end, ec] = std::to_chars(text, text + sizeof text, x);
    (void)ec;  // 32 bytes hold any float's shortest form
    auto n = Number::Parse(std::string_view(text, static_cast<size_t>(end - text)));
    // A finite f32 always parses; a stored NaN or infinity (never written)
    // would read as 0.
    out.push_back(AttributeValue::N(n.ok() ? *n : Number::FromInt64(0)));
  }
  return AttributeValue::L(std::move(out));
}

Status GetVector(std::string_view bytes, uint32_t dimensions, std::vector<float>* out) {
  if (bytes.size() != 4 * static_cast<size_t>(dimensions)) {
    return Status::Corruption("a stored vector of " + std::to_string(bytes.size()) +
                              " bytes, not " + std::to_string(4 * dimensions));
  }
  out->resize(dimensions);
  for (uint32_t i = 0; i < dimensions; ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) {
      bits |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[4 * i + b])) << (8 * b);
    }
    std::memcpy(&(*out)[i], &bits, 4);
  }
  return Status::OK();
}

double VectorScore(VectorDistance distance, std::span<const float> query,
                   std::span<const float> candidate) {
  const size_t n = std::min(query.size(), candidate.size());
  // Plain loops over contiguous floats, accumulated in f64: the compiler
  // vectorizes them at -O2 and above.
  switch (distance) {
    case VectorDistance::kEuclidean: {
      double sum = 0;
      for (size_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(query[i]) - static_cast<double>(candidate[i]);
        sum += d * d;
      }
      return Clamp(std::sqrt(sum));
    }
    case VectorDistance::kDotProduct: {
      double dot = 0;
      for (size_t i = 0; i < n; ++i) dot += static_cast<double>(query[i]) * candidate[i];
      return Clamp(dot);
    }
    case VectorDistance::kCosine: {
      double dot = 0, qq = 0, cc = 0;
      for (size_t i = 0; i < n; ++i) {
        const double q = query[i], c = candidate[i];
        dot += q * c;
        qq += q * q;
        cc += c * c;
      }
      if (qq == 0 || cc == 0) return 1.0;
      return std::clamp(1.0 - dot / (std::sqrt(qq) * std::sqrt(cc)), 0.0, 2.0);
    }
  }
  return 0;
}

bool TopVectors::Worse(const Hit& a, const Hit& b) const {
  if (a.score != b.score) return ScoresBefore(distance_, b.score, a.score);
  return a.id > b.id;
}

std::optional<size_t> TopVectors::Offer(double score, size_t id) {
  const Hit hit{score, id};
  // A max-heap by "worse": the worst kept hit on top.
  auto worse = [this](const Hit& a, const Hit& b) { return Worse(b, a); };
  if (heap_.size() < k_) {
    heap_.push_back(hit);
    std::push_heap(heap_.begin(), heap_.end(), worse);
    return std::nullopt;
  }
  if (!Worse(heap_.front(), hit)) return id;  // no better than the worst kept
  std::pop_heap(heap_.begin(), heap_.end(), worse);
  const size_t dropped = heap_.back().id;
  heap_.back() = hit;
  std::push_heap(heap_.begin(), heap_.end(), worse);
  return dropped;
}

std::vector<TopVectors::Hit> TopVectors::Take() && {
  std::sort(heap_.begin(), heap_.end(), [this](const Hit& a, const Hit& b) { return Worse(b, a); });
  return std::move(heap_);
}

}  // namespace dynarock::format
