// Vectors of vector indexes (format/vector.h): DynamoDB's write-time checks
// and search-vector checks with their exact texts, the stored form, the
// three distance functions, and the exact top-K against a sort of every
// score.
#include "format/vector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <set>

#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock::format {
namespace {

AttributeValue N(std::string_view text) {
  auto n = Number::Parse(text);
  EXPECT_OK(n);
  return AttributeValue::N(n.ok() ? *n : Number());
}

AttributeValue List(std::vector<AttributeValue> values) {
  return AttributeValue::L(std::move(values));
}

TEST(VectorTest, WriteTimeChecksUseDynamoDBsTexts) {
  std::vector<float> v;
  ASSERT_OK(ToVector(List({N("1"), N("-2.5"), N("1e-60")}), 3, "embedding", "plain", &v));
  EXPECT_EQ(v, (std::vector<float>{1.0f, -2.5f, 0.0f}));  // too small for an f32: zero
  v.clear();
  EXPECT_EQ(ToVector(List({N("1"), N("2")}), 3, "embedding", "plain", &v),
            Status::Validation("One or more parameter values were invalid. Invalid size for "
                               "parameter embedding, Expected: 3, Actual: 2 IndexName: plain"));
  EXPECT_EQ(ToVector(List({N("1"), AttributeValue::S("x"), N("3")}), 3, "embedding", "plain", &v),
            Status::Validation("One or more parameter values were invalid. Invalid type for "
                               "parameter embedding[1], Expected: 32-bit floating point number, "
                               "Actual: S. IndexName: plain"));
  EXPECT_EQ(ToVector(AttributeValue::S("x"), 3, "embedding", "plain", &v),
            Status::Validation("One or more parameter values were invalid. Invalid type for "
                               "parameter embedding, Expected: 32-bit floating point number list "
                               "IndexName: plain"));
  EXPECT_EQ(ToVector(List({N("3.5E38"), N("0"), N("0")}), 3, "e", "i", &v),
            Status::Validation(
                "One or more parameter values were invalid. Invalid value for "
                "parameter e[0], Value: 350000000000000000000000000000000000000 is outside "
                "valid range "
                "[-3.4028235E38, 3.4028235E38]. IndexName: i"));
  EXPECT_TRUE(v.empty());  // nothing appended by a refused vector
  // DynamoDB's printed bound is just above FLT_MAX: it rounds to FLT_MAX.
  ASSERT_OK(ToVector(List({N("3.4028235E38"), N("-3.4028235E38")}), 2, "e", "i", &v));
  EXPECT_EQ(v, (std::vector<float>{FLT_MAX, -FLT_MAX}));
}

TEST(VectorTest, SearchVectorChecksValuesBeforeTheLength) {
  std::vector<float> v;
  const Status invalid = Status::Validation(
      "Search vector contains invalid values. All values in the search vector must be a 32-bit "
      "floating-point number attribute");
  EXPECT_EQ(ToSearchVector({N("1"), AttributeValue::S("2")}, 3, &v), invalid);
  EXPECT_EQ(ToSearchVector({N("1e39")}, 3, &v), invalid);
  EXPECT_EQ(ToSearchVector({N("1"), N("2")}, 3, &v),
            Status::Validation("Input search vector dimension 2 does not match vector index "
                               "dimension 3"));
  ASSERT_OK(ToSearchVector({N("0.25"), N("2"), N("-1")}, 3, &v));
  EXPECT_EQ(v, (std::vector<float>{0.25f, 2.0f, -1.0f}));
}

TEST(VectorTest, StoredFormIsLittleEndianF32) {
  std::string bytes;
  PutVector(&bytes, std::vector<float>{1.0f, -2.0f});
  EXPECT_EQ(bytes, std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8));
  std::vector<float> back;
  ASSERT_OK(GetVector(bytes, 2, &back));
  EXPECT_EQ(back, (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(GetVector(bytes, 3, &back).code(), Status::Code::kCorruption);
}

// What a search returns for a projected vector: each f32 in its shortest
// form that reads back as the same f32, whatever decimal was written.
TEST(VectorTest, ProjectedVectorsAreTheirShortestF32Forms) {
  std::vector<float> v;
  const AttributeValue written = AttributeValue::L(
      {AttributeValue::N(*Number::Parse("0.1")),
       AttributeValue::N(*Number::Parse("0.333333333333")),
       AttributeValue::N(*Number::Parse("2.000")), AttributeValue::N(*Number::Parse("-1e-45")),
       AttributeValue::N(*Number::Parse("3.4028235E38"))});
  ASSERT_OK(ToVector(written, 5, "e", "i", &v));
  const AttributeValue read = VectorAttributeValue(v);
  ASSERT_TRUE(read.is(AttrType::kL));
  std::vector<std::string> texts;
  for (const auto& n : read.l()) texts.push_back(n.n().ToString());
  EXPECT_EQ(texts,
            (std::vector<std::string>{"0.1", "0.33333334", "2", "-0." + std::string(44, '0') + "1",
                                      "34028235" + std::string(31, '0')}));
  std::vector<float> again;
  ASSERT_OK(ToVector(read, 5, "e", "i", &again));
  EXPECT_EQ(again, v);
}

TEST(VectorTest, Scores) {
  const std::vector<float> a{1, 0}, b{0, 2}, c{-3, 0}, zero{0, 0};
  EXPECT_DOUBLE_EQ(VectorScore(VectorDistance::kCosine, a, a), 0.0);
  EXPECT_DOUBLE_EQ(VectorScore(VectorDistance::kCosine, a, b), 1.0);
  EXPECT_DOUBLE_EQ(VectorScore(VectorDistance::kCosine, a, c), 2.0);
  EXPECT_DOUBLE_EQ(VectorScore(VectorDistance::kCosine, a, zero), 1.0);  // zero magnitude
  EXPECT_DOUBLE_EQ(VectorScore(VectorDistance::kEuclidean, a, b), std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(VectorScore(VectorDistance::kDotProduct, a, c), -3.0);
  const std::vector<float> huge{FLT_MAX, FLT_MAX};
  EXPECT_DOUBLE_EQ(VectorScore(VectorDistance::kDotProduct, huge, huge), FLT_MAX);  // clamped
  EXPECT_TRUE(ScoresBefore(VectorDistance::kCosine, 0.1, 0.2));
  EXPECT_TRUE(ScoresBefore(VectorDistance::kDotProduct, 0.2, 0.1));
}

// The exact top K equals the first K of every candidate sorted by score,
// ties by the order offered, for each distance function.
TEST(VectorTest, TopKEqualsAFullSort) {
  const uint64_t seed = testing::TestSeed("VectorTest.TopKEqualsAFullSort");
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> gauss;
  for (VectorDistance d :
       {VectorDistance::kCosine, VectorDistance::kEuclidean, VectorDistance::kDotProduct}) {
    for (int round = 0; round < 20; ++round) {
      const size_t dims = 1 + rng() % 64, count = rng() % 300, k = 1 + rng() % 20;
      std::vector<float> query(dims);
      for (float& x : query) x = gauss(rng);
      std::vector<std::pair<double, size_t>> all;
      TopVectors top(d, k);
      std::set<size_t> live;
      for (size_t i = 0; i < count; ++i) {
        std::vector<float> v(dims);
        // Few distinct vectors, so ties are common.
        for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 3) - 1);
        const double score = VectorScore(d, query, v);
        all.emplace_back(score, i);
        // What the caller must keep: at most K + 1 ids at any time.
        live.insert(i);
        if (auto dropped = top.Offer(score, i)) live.erase(*dropped);
        ASSERT_LE(live.size(), k);
      }
      std::stable_sort(all.begin(), all.end(), [d](const auto& x, const auto& y) {
        return ScoresBefore(d, x.first, y.first);
      });
      all.resize(std::min(all.size(), k));
      const auto hits = std::move(top).Take();
      ASSERT_EQ(hits.size(), all.size()) << "seed " << seed;
      ASSERT_EQ(live.size(), hits.size());  // exactly the ids kept
      for (size_t i = 0; i < hits.size(); ++i) {
        ASSERT_EQ(hits[i].id, all[i].second) << "seed " << seed << " rank " << i;
        ASSERT_EQ(hits[i].score, all[i].first);
      }
    }
  }
}

}  // namespace
}  // namespace dynarock::format
