// Microbenchmarks of the format layer: ns per key encoding, number parse,
// item encode / decode / single-attribute access, JSON decode.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "bench/compact_item.h"
#include "format/attribute_names.h"
#include "format/item_codec.h"
#include "format/item_size.h"
#include "format/json.h"
#include "format/key_codec.h"
#include "format/vector.h"

namespace {

using namespace dynarock;          // NOLINT: test and benchmark code
using namespace dynarock::format;  // NOLINT

Number Num(const char* s) { return *Number::Parse(s); }

// A telemetry reading from the fleet example with `extra` more numeric attributes.
Item Reading(int extra) {
  Item item{{"PK", AttributeValue::S("VEH#V-7741")},
            {"SK", AttributeValue::S("TS#2026-06-23T09:00:01Z")},
            {"speedKph", AttributeValue::N(Num("87.5"))},
            {"coolantC", AttributeValue::N(Num("91"))},
            {"fuelPct", AttributeValue::N(Num("0.61"))},
            {"depotCode", AttributeValue::S("DEP-LON-3")}};
  for (int i = 0; i < extra; ++i) {
    item["sensor" + std::to_string(i)] = AttributeValue::N(Number::FromInt64(i * 37));
  }
  return item;
}

void BM_EncodeItemKeyS(benchmark::State& state) {
  AttributeValue pk = AttributeValue::S("VEH#V-7741");
  AttributeValue sk = AttributeValue::S("TS#2026-06-23T09:00:01Z");
  for (auto _ : state) {
    EncodedKey key = EncodeItemKey(1, pk, &sk);
    benchmark::DoNotOptimize(key);
  }
}
BENCHMARK(BM_EncodeItemKeyS);

void BM_EncodeNumberComponent(benchmark::State& state) {
  Number n = Num("-123456.789012345678901234567890123");
  std::string out;
  for (auto _ : state) {
    out.clear();
    PutNumberComponent(&out, n);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_EncodeNumberComponent);

// Decoding a number component: what every ValueView::number() and every
// numeric key column pays. Arg 0: a short reading ("87.5"); 1: 33 digits.
void BM_DecodeNumberComponent(benchmark::State& state) {
  std::string enc;
  PutNumberComponent(&enc,
                     Num(state.range(0) == 0 ? "87.5" : "-123456.789012345678901234567890123"));
  for (auto _ : state) {
    std::string_view in = enc;
    Number n;
    benchmark::DoNotOptimize(GetNumberComponent(&in, &n));
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_DecodeNumberComponent)->ArgName("long")->Arg(0)->Arg(1);

// The DynamoDB size of a stored item, read off its bytes: a Query or Scan
// pays it per item for the 1 MB page accounting.
void BM_ItemSizeOfStoredItem(benchmark::State& state) {
  const std::string bytes = EncodeItem(Reading(static_cast<int>(state.range(0))));
  const ItemView view = *ItemView::Open(bytes);
  for (auto _ : state) benchmark::DoNotOptimize(ItemSize(view));
}
BENCHMARK(BM_ItemSizeOfStoredItem)->ArgName("extra_attrs")->Arg(0)->Arg(20);

void BM_DecodeItemKey(benchmark::State& state) {
  AttributeValue pk = AttributeValue::S("VEH#V-7741");
  AttributeValue sk = AttributeValue::N(Num("1782205201"));
  EncodedKey key = EncodeItemKey(1, pk, &sk);
  for (auto _ : state) {
    auto d = DecodeItemKey(key.bytes(), {ScalarAttributeType::kS, ScalarAttributeType::kN});
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_DecodeItemKey);

void BM_ParseNumber(benchmark::State& state) {
  for (auto _ : state) {
    auto n = Number::Parse("-12345.678901234e-3");
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_ParseNumber);

void BM_EncodeItem(benchmark::State& state) {
  Item item = Reading(static_cast<int>(state.range(0)));
  std::string out;
  for (auto _ : state) {
    EncodeItem(item, &out);
    benchmark::DoNotOptimize(out);
  }
  state.counters["bytes"] = static_cast<double>(out.size());
}
BENCHMARK(BM_EncodeItem)->ArgName("extra_attrs")->Arg(0)->Arg(20);

void BM_DecodeItem(benchmark::State& state) {
  std::string bytes = EncodeItem(Reading(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    auto item = DecodeItem(bytes);
    benchmark::DoNotOptimize(item);
  }
}
BENCHMARK(BM_DecodeItem)->ArgName("extra_attrs")->Arg(0)->Arg(20);

// One attribute read in place from a verified view vs. a trusted one.
void BM_FindAttribute(benchmark::State& state) {
  std::string bytes = EncodeItem(Reading(static_cast<int>(state.range(0))));
  bool verify = state.range(1) != 0;
  for (auto _ : state) {
    ItemView view = verify ? *ItemView::Open(bytes) : ItemView::OpenTrusted(bytes);
    auto v = view.Find("speedKph");
    benchmark::DoNotOptimize(v->bytes());
  }
}
BENCHMARK(BM_FindAttribute)->ArgNames({"extra_attrs", "verify"})->ArgsProduct({{0, 20}, {0, 1}});

void BM_ParseItemJson(benchmark::State& state) {
  std::string json = ToJson(Reading(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    auto item = ParseItemJson(json);
    benchmark::DoNotOptimize(item);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
}
BENCHMARK(BM_ParseItemJson)->ArgName("extra_attrs")->Arg(0)->Arg(20);

// A vehicle's profile as a nested document: maps and lists three levels
// deep, a string set and a number set.
Item Profile() {
  using M = AttributeValue::Map;
  auto s = [](std::string v) { return AttributeValue::S(std::move(v)); };
  auto n = [](const char* v) { return AttributeValue::N(Num(v)); };
  M engine{{"cylinders", n("4")}, {"fuel", s("diesel")}, {"powerKw", n("110.5")}};
  AttributeValue::List services;
  for (int i = 0; i < 4; ++i) {
    services.push_back(AttributeValue::M(
        M{{"at", s("2026-0" + std::string(1, static_cast<char>('1' + i)) + "-15")},
          {"km", AttributeValue::N(Number::FromInt64(15000 * (i + 1)))},
          {"parts", AttributeValue::L({s("filter"), s("oil")})}}));
  }
  return {{"PK", s("VEH#V-7741")},
          {"SK", s("META")},
          {"model", s("Transit 350")},
          {"depotCode", s("DEP-LON-3")},
          {"spec", AttributeValue::M(M{{"engine", AttributeValue::M(engine)},
                                       {"seats", n("3")},
                                       {"wheelbaseMm", n("3750")}})},
          {"services", AttributeValue::L(std::move(services))},
          {"tags", AttributeValue::SS({"electric-ready", "refrigerated", "urban"})},
          {"tyrePressures", AttributeValue::NS({Num("2.4"), Num("2.5"), Num("3.1")})},
          {"active", AttributeValue::Bool(true)}};
}

// Bytes per item (issue: the item format), no timing: Dynarock's stored
// value (FlatBuffers, without the key attributes, names interned, DynamoDB
// size stored) and
// the whole item's encoding (what an ALL index entry or a stream image
// holds) against raw RocksDB's compact encoding of the non-key attributes
// (bench/compact_item.h) and DynamoDB's own item size. Arg 0: the fleet
// reading (6 attributes); 1: a reading with 20 attributes; 2: the profile.
void BM_ItemBytes(benchmark::State& state) {
  const Item item = state.range(0) == 0   ? Reading(0)
                    : state.range(0) == 1 ? Reading(14)
                                          : Profile();
  // The table's interned names (the engine makes them durable in its
  // catalog; here nothing needs to be).
  NameDictionary names([](uint32_t, std::string_view) { return Status::OK(); });
  const StoredKeySchema keys{
      {"PK", ScalarAttributeType::kS}, KeyAttributeRef{"SK", ScalarAttributeType::kS}, &names};
  std::string stored;
  EncodeItemWithoutKey(item, ItemSize(item), keys, &stored);
  const std::string compact = bench::CompactEncode(item, {"PK", "SK"});
  for (auto _ : state) benchmark::DoNotOptimize(stored.size());
  state.counters["attributes"] = static_cast<double>(item.size());
  state.counters["dynarock_bytes"] = static_cast<double>(stored.size());
  state.counters["whole_item_bytes"] = static_cast<double>(EncodeItem(item).size());
  state.counters["compact_bytes"] = static_cast<double>(compact.size());
  state.counters["dynamodb_size"] = static_cast<double>(ItemSize(item));
  state.counters["ratio"] =
      static_cast<double>(stored.size()) / static_cast<double>(compact.size());
}
BENCHMARK(BM_ItemBytes)->Arg(0)->Arg(1)->Arg(2)->Iterations(1);

// Vector index scores: one candidate of 128 dimensions (arg: the distance
// function, 0 cosine, 1 Euclidean, 2 dot product), and an exact top 10 over
// contiguous candidates (arg: their count), the brute force of a partition.
std::vector<float> RandomVectors(size_t count, size_t dims) {
  std::mt19937 rng(7);
  std::normal_distribution<float> gauss;
  std::vector<float> out(count * dims);
  for (float& x : out) x = gauss(rng);
  return out;
}

void BM_VectorScore128(benchmark::State& state) {
  const auto v = RandomVectors(2, 128);
  const auto d = static_cast<dynarock::format::VectorDistance>(state.range(0));
  const std::span<const float> a(v.data(), 128), b(v.data() + 128, 128);
  for (auto _ : state) benchmark::DoNotOptimize(dynarock::format::VectorScore(d, a, b));
}
BENCHMARK(BM_VectorScore128)->ArgName("distance")->Arg(0)->Arg(1)->Arg(2);

void BM_VectorExactTop10(benchmark::State& state) {
  const size_t count = static_cast<size_t>(state.range(0));
  const auto v = RandomVectors(count + 1, 128);
  const std::span<const float> query(v.data(), 128);
  for (auto _ : state) {
    dynarock::format::TopVectors top(dynarock::format::VectorDistance::kCosine, 10);
    for (size_t i = 0; i < count; ++i) {
      top.Offer(
          dynarock::format::VectorScore(dynarock::format::VectorDistance::kCosine, query,
                                        std::span<const float>(v.data() + 128 * (i + 1), 128)),
          i);
    }
    benchmark::DoNotOptimize(std::move(top).Take());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(count));
}
BENCHMARK(BM_VectorExactTop10)->ArgName("vectors")->Arg(1000)->Arg(10000)->Arg(100000);

}  // namespace

BENCHMARK_MAIN();
