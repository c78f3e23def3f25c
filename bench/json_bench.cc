// RapidJSON vs simdjson on the request corpus: the seed request of every
// served operation (tests/fuzz/corpus/request_handler), a BatchWriteItem of 25
// fleet readings, and a 300 KB item. Parse only (DOM built, no traversal),
// which is where the two differ; the request layer's own work after parsing
// is the same code for both. Chose simdjson for requests (tools/CMakeLists.txt).
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> Corpus() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(REQUEST_CORPUS_DIR)) {
    if (e.path().filename().string().rfind("crash", 0) == 0) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    out.push_back(s.str().substr(1));  // the first byte picks the operation
  }
  std::string batch = R"({"RequestItems":{"fleet":[)";
  for (int i = 0; i < 25; ++i) {
    batch += std::string(i ? "," : "") +
             R"({"PutRequest":{"Item":{"pk":{"S":"VEH#V-7741"},"sk":{"S":"TS#2026-12-01T10:00:)" +
             std::to_string(10 + i) +
             R"(Z"},"depotCode":{"S":"DEP-LON-3"},"speedKmh":{"N":"48.25"},"fuelPct":{"N":"71"},"odometerKm":{"N":"120443.7"},"lat":{"N":"51.5072"},"lon":{"N":"-0.1276"}}}})";
  }
  out.push_back(batch + "]}}");
  out.push_back(R"({"TableName":"fleet","Item":{"pk":{"S":"VEH#V-7741"},"blob":{"S":")" +
                std::string(300 << 10, 'x') + R"("}}})");
  return out;
}

const std::vector<std::string>& TheCorpus() {
  static const std::vector<std::string> corpus = Corpus();
  return corpus;
}

int64_t CorpusBytes() {
  int64_t n = 0;
  for (const auto& s : TheCorpus()) n += static_cast<int64_t>(s.size());
  return n;
}

void BM_RapidJson(benchmark::State& state) {
  const auto& corpus = TheCorpus();
  for (auto _ : state) {
    for (const auto& s : corpus) {
      rapidjson::Document d;
      d.Parse(s.data(), s.size());
      benchmark::DoNotOptimize(d.HasParseError());
    }
  }
  state.SetBytesProcessed(state.iterations() * CorpusBytes());
}
BENCHMARK(BM_RapidJson);

void BM_Simdjson(benchmark::State& state) {
  const auto& corpus = TheCorpus();
  simdjson::dom::parser parser;
  for (auto _ : state) {
    for (const auto& s : corpus) {
      simdjson::dom::element root;
      benchmark::DoNotOptimize(parser.parse(s.data(), s.size()).get(root));
    }
  }
  state.SetBytesProcessed(state.iterations() * CorpusBytes());
}
BENCHMARK(BM_Simdjson);

}  // namespace

BENCHMARK_MAIN();
