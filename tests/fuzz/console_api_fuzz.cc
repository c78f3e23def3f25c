// Fuzzes the console API (GET /console/api/..., tools/server/console_api.h):
// the input is the request target after "/console/api/", path and query
// as a client sends them, percent-encoding and all. Whatever the bytes, the
// answer is a 200, 400 or 404 whose body is a JSON object in valid UTF-8
// (simdjson checks it), and nothing reaches undefined behaviour.
//
// The database is real and holds the fleet table with a GSI and some
// traffic, so "hottest" answers reach the heavy-hitter summaries.
#include <simdjson.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "tools/server/console_api.h"
#include "tools/server/wire.h"

namespace {

constexpr char kFleetTable[] = R"({"TableName":"fleet","BillingMode":"PAY_PER_REQUEST",
 "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
 "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},
  {"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"depot","AttributeType":"S"}],
 "GlobalSecondaryIndexes":[{"IndexName":"ByDepot","KeySchema":[{"AttributeName":"depot","KeyType":"HASH"},
  {"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]})";

dynarock::Database* TheDatabase() {
  static dynarock::Database* db = [] {
    const std::string dir = std::filesystem::temp_directory_path() /
                            ("dynarock-console-fuzz-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    auto opened = dynarock::Database::Open(dir, dynarock::Options{});
    if (!opened.ok()) std::abort();
    dynarock::Database* d = opened->release();
    auto handle = [&](const char* op, const std::string& body) {
      if (dynarock::wire::Handle(d, std::string("DynamoDB_20120810.") + op, body).http_status !=
          200) {
        std::abort();
      }
    };
    handle("CreateTable", kFleetTable);
    for (int i = 0; i < 50; ++i) {
      handle("PutItem", R"({"TableName":"fleet","Item":{"pk":{"S":"V-)" + std::to_string(i % 7) +
                            R"("},"sk":{"S":")" + std::to_string(i) +
                            R"("},"depot":{"S":"D-)" + std::to_string(i % 3) + R"("}}})");
    }
    return d;
  }();
  return db;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string target = std::string(dynarock::console::kApiPrefix) +
                       std::string(reinterpret_cast<const char*>(data), size);
  std::string_view t(target);
  const size_t q = t.find('?');
  const std::string_view path = t.substr(0, q);
  const std::string_view query = q == std::string_view::npos ? "" : t.substr(q + 1);
  static const dynarock::console::Settings settings;
  auto response = dynarock::console::HandleApi(TheDatabase(), settings, path, query);
  if (response.http_status != 200 && response.http_status != 400 && response.http_status != 404) {
    std::abort();
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(response.body).get(root) != simdjson::SUCCESS || !root.is_object()) {
    std::abort();
  }
  return 0;
}
