// Vectors of DynamoDB's vector indexes (SearchVectors, August 2026): an
// item's vector attribute (an L of N) checked and converted to 32-bit
// floats as DynamoDB's write-time checks do, the stored form, the three
// distance functions, and an exact top-K search over contiguous vectors.
// Pure computation, no storage: the building block of the vector index.
#ifndef DYNAROCK_FORMAT_VECTOR_H_
#define DYNAROCK_FORMAT_VECTOR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/status.h"

namespace dynarock::format {

// A vector index holds 1 to 4,096 dimensions.
inline constexpr uint32_t kMaxVectorDimensions = 4096;

// How SearchVectors scores a candidate against the search vector, in f64 over
// f32 inputs, clamped to +-FLT_MAX:
//   kCosine      1 - cos(a, b), in [0, 2], ascending (best first); a vector
//                of zero magnitude scores exactly 1.0;
//   kEuclidean   the L2 distance (not squared), ascending;
//   kDotProduct  the inner product, descending (may be negative).
enum class VectorDistance { kCosine, kEuclidean, kDotProduct };

// An item's vector attribute `attribute` for index `index`: an L of exactly
// `dimensions` N values, each within the f32 range (after rounding to the
// nearest f32; values too small for an f32 become zero), appended to *out.
// ValidationException with DynamoDB's text otherwise (not a list, an element
// that is not an N, a wrong length, a value out of range). REQUIRES:
// 1 <= dimensions <= kMaxVectorDimensions.
Status ToVector(const AttributeValue& value, uint32_t dimensions, std::string_view attribute,
                std::string_view index, std::vector<float>* out);

// A SearchVector (the request's bare list of N values) as f32:
// ValidationException with DynamoDB's texts for a value that is not an N
// within the f32 range (checked first), then for a length other than
// `dimensions`.
Status ToSearchVector(const std::vector<AttributeValue>& values, uint32_t dimensions,
                      std::vector<float>* out);

// Stored form: the f32 values little-endian, 4 bytes each, nothing else (the
// index knows its dimensions). GetVector is Corruption for a length that is
// not 4 * dimensions.
void PutVector(std::string* dst, std::span<const float> v);
Status GetVector(std::string_view bytes, uint32_t dimensions, std::vector<float>* out);

// A stored vector as the L of N a search returns when a ProjectionExpression
// names the vector attribute: each f32 in its shortest decimal form that
// reads back as the same f32 (so 0.1 written comes back as 0.1, and 1/3 as
// 0.33333334).
AttributeValue VectorAttributeValue(std::span<const float> v);

// The score of `candidate` against `query` (same length).
double VectorScore(VectorDistance distance, std::span<const float> query,
                   std::span<const float> candidate);
// True if score `a` ranks before score `b` under `distance`.
inline bool ScoresBefore(VectorDistance distance, double a, double b) {
  return distance == VectorDistance::kDotProduct ? a > b : a < b;
}

// The best `k` of candidates offered one at a time (exact search): ties keep
// the candidate offered first, so offering in key order breaks ties by key.
class TopVectors {
 public:
  struct Hit {
    double score;
    size_t id;  // the caller's: the candidate's position
  };
  // REQUIRES: k >= 1.
  TopVectors(VectorDistance distance, size_t k) : distance_(distance), k_(k) {}

  // Returns the id no longer kept, if any: `id` itself when it does not
  // rank in the top K, or the one it displaced (so a caller holding data
  // per id holds at most K + 1 of them).
  std::optional<size_t> Offer(double score, size_t id);
  // Best first.
  std::vector<Hit> Take() &&;

 private:
  bool Worse(const Hit& a, const Hit& b) const;  // a ranks after b
  VectorDistance distance_;
  size_t k_;
  std::vector<Hit> heap_;  // the worst kept hit on top
};

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_VECTOR_H_
