// The fleet workload's items and table, shared by the benchmarks: vehicles'
// readings 5 s apart, keyed (vehicleId, recordedAt), with the ByDepot GSI
// (depotCode, recordedAt; 50 depots, ALL).
#ifndef DYNAROCK_BENCH_FLEET_ITEMS_H_
#define DYNAROCK_BENCH_FLEET_ITEMS_H_

#include <fmt/core.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "dynarock/db.h"

namespace dynarock::bench {

inline int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

inline std::string VehicleId(int v) { return fmt::format("VEH#V-{:05d}", v); }
inline std::string Ts(int i) {
  int s = i * 5;
  return fmt::format("TS#2026-06-23T{:02d}:{:02d}:{:02d}Z", 9 + s / 3600, s / 60 % 60, s % 60);
}
inline const char* Depot(int v) {
  static const std::vector<std::string> depots = [] {
    std::vector<std::string> d;
    for (int i = 0; i < 50; ++i) d.push_back(fmt::format("DEP-{:02d}", i));
    return d;
  }();
  return depots[static_cast<size_t>(v % 50)].c_str();
}
inline Item Reading(int v, int i) {
  return {{"vehicleId", AttributeValue::S(VehicleId(v))},
          {"recordedAt", AttributeValue::S(Ts(i))},
          {"speedKph", AttributeValue::N(Number::FromParts(
                           false, static_cast<unsigned>(300 + (v * 7 + i) % 700), -1))},
          {"coolantC", AttributeValue::N(Number::FromInt64(80 + (v + i) % 25))},
          {"fuelPct",
           AttributeValue::N(Number::FromParts(false, static_cast<unsigned>(99 - i % 90), -2))},
          {"depotCode", AttributeValue::S(Depot(v))}};
}

inline CreateTableRequest TelemetryTable(const std::string& name = "Telemetry") {
  CreateTableRequest t{.table_name = name};
  t.key_schema = {{"vehicleId", KeyType::kHash}, {"recordedAt", KeyType::kRange}};
  t.attribute_definitions = {{"vehicleId", ScalarAttributeType::kS},
                             {"recordedAt", ScalarAttributeType::kS},
                             {"depotCode", ScalarAttributeType::kS}};
  t.billing_mode = BillingMode::kPayPerRequest;
  t.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByDepot",
       {{"depotCode", KeyType::kHash}, {"recordedAt", KeyType::kRange}},
       {ProjectionType::kAll, {}},
       std::nullopt}};
  return t;
}

}  // namespace dynarock::bench

#endif  // DYNAROCK_BENCH_FLEET_ITEMS_H_
