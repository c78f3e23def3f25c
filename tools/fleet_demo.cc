// The main job: the vehicle fleet on an embedded on-disk database.
//
// Loads vehicles (SK=META profile) and their telemetry readings
// (SK=TS#<timestamp>) into a Telemetry table, reopens the database, and
// answers the fleet's four questions by name, printing what each read
// returned and how many keys it touched in RocksDB:
//   Q1 one vehicle (V-7741), a ten-minute window, newest first: a Query (a
//      KeyConditionExpression and a ProjectionExpression), narrowed by a
//      FilterExpression, and the same question asked of a Scan;
//   Q2 the newest readings of depot DEP-LON-3: the ByDepot GSI;
//   Q3 V-7741's collection against the 10 GB limit an LSI imposes: a write's
//      ItemCollectionMetrics, the collection's share of the limit, and what
//      happens at the limit (the database reopened with a small limit until
//      a write gets ItemCollectionSizeLimitExceededException);
//   Q4 the hottest collections, from the engine's traffic tracking (what
//      `dynarock top` shows live against `dynarock serve`).
// Then a stream of the table's changes, and TTL.
//
//   fleet_demo [--db DIR] [--vehicles N] [--readings N] [--collection-limit BYTES]
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "dynarock/db.h"
#include "tools/cli_text.h"

namespace {

using namespace dynarock;

constexpr char kTable[] = "Telemetry";
const char* kDepots[] = {"DEP-LON-3", "DEP-MAN-1", "DEP-BHX-2", "DEP-GLA-1", "DEP-LDS-4"};

// Vehicle numbers are centred on V-7741, the vehicle the demo queries.
std::string VehicleId(int v, int vehicles) {
  return fmt::format("VEH#V-{:04d}", 7741 - vehicles / 2 + v);
}

// Readings every 30 seconds from 09:00:00Z.
std::string Timestamp(int i) {
  int seconds = i * 30;
  return fmt::format("2026-06-23T{:02d}:{:02d}:{:02d}Z", 9 + seconds / 3600, seconds / 60 % 60,
                     seconds % 60);
}

Number Num(const std::string& s) { return *Number::Parse(s); }

int Fail(const Status& s, const std::string& dir) {
  fmt::print(stderr, "error: {}\n", cli::Explain(s, dir));
  return cli::kExitFailed;
}

// One line per item: the sort key, then the other attributes present.
void PrintItems(const std::vector<Item>& items) {
  for (const Item& item : items) {
    std::string line = fmt::format("    {:<28}", item.at("recordedAt").s());
    for (const auto& [name, value] : item) {
      if (name == "recordedAt" || name == "vehicleId") continue;
      line +=
          fmt::format(" {}={}", name, value.is(AttrType::kN) ? value.n().ToString() : value.s());
    }
    fmt::print("{}\n", line);
  }
}

constexpr char kVehicle[] = "VEH#V-7741";
constexpr char kDepot[] = "DEP-LON-3";
constexpr int64_t kTenGb = int64_t{10} << 30;  // DynamoDB's item collection size limit

// A fresh Telemetry table (a GSI and an LSI) with `vehicles` profiles and
// `readings` readings each; the database is closed again on return.
Status Load(const std::string& dir, int vehicles, int readings) {
  auto opened = Database::Open(dir, {});
  if (!opened.ok()) return opened.status();
  Database* db = opened->get();
  // A fresh table each run: DeleteTable is one range deletion, whatever the size.
  if (db->DescribeTable({kTable}).ok()) {
    auto deleted = db->DeleteTable({kTable});
    if (!deleted.ok()) return deleted.status();
  }
  CreateTableRequest create;
  create.table_name = kTable;
  create.key_schema = {{"vehicleId", KeyType::kHash}, {"recordedAt", KeyType::kRange}};
  create.attribute_definitions = {{"vehicleId", ScalarAttributeType::kS},
                                  {"recordedAt", ScalarAttributeType::kS},
                                  {"depotCode", ScalarAttributeType::kS},
                                  {"speedKph", ScalarAttributeType::kN}};
  create.billing_mode = BillingMode::kPayPerRequest;
  // "Newest readings of a depot": a GSI keyed (depotCode, recordedAt).
  create.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByDepot",
       {{"depotCode", KeyType::kHash}, {"recordedAt", KeyType::kRange}},
       {ProjectionType::kInclude, {"speedKph"}},
       std::nullopt}};
  // "Fastest readings of a vehicle": an LSI, which puts every collection
  // under DynamoDB's 10 GB item collection limit.
  create.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"BySpeed",
       {{"vehicleId", KeyType::kHash}, {"speedKph", KeyType::kRange}},
       {ProjectionType::kKeysOnly, {}}}};
  auto created = db->CreateTable(create);
  if (!created.ok()) return created.status();

  auto start = std::chrono::steady_clock::now();
  for (int v = 0; v < vehicles; ++v) {
    const std::string id = VehicleId(v, vehicles);
    const char* depot = kDepots[v % 5];
    auto put = db->PutItem({.table_name = kTable,
                            .item = {{"vehicleId", AttributeValue::S(id)},
                                     {"recordedAt", AttributeValue::S("META")},
                                     {"model", AttributeValue::S(v % 3 ? "eVan 2" : "eTruck")},
                                     {"depotCode", AttributeValue::S(depot)}}});
    if (!put.ok()) return put.status();
    for (int r = 0; r < readings; ++r) {
      Item item{
          {"vehicleId", AttributeValue::S(id)},
          {"recordedAt", AttributeValue::S("TS#" + Timestamp(r))},
          {"speedKph",
           AttributeValue::N(Num(fmt::format("{}.{}", 30 + (v * 7 + r * 3) % 70, r % 10)))},
          {"coolantC", AttributeValue::N(Num(std::to_string(80 + (v + r) % 25)))},
          {"fuelPct", AttributeValue::N(Num(fmt::format("0.{:02d}", 99 - r * 90 / readings)))},
          {"depotCode", AttributeValue::S(depot)}};
      put = db->PutItem({.table_name = kTable, .item = std::move(item)});
      if (!put.ok()) return put.status();
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("Loaded {} vehicles x ({} readings + META) = {} items into {}/ in {:.2f} s\n",
             vehicles, readings, vehicles * (readings + 1), dir, secs);
  return Status::OK();
}

// V-7741's collection: its item count and bytes with its LSI entries (the
// statistics a table with an LSI keeps).
Result<CollectionStatistics> Collection(Database* db) {
  auto mine = db->DescribeCollection(
      {.table_name = kTable, .partition_key_value = AttributeValue::S(kVehicle)});
  if (!mine.ok()) return mine.status();
  return mine->statistics.value_or(CollectionStatistics{});
}

// 1. The whole collection: profile and readings in one Query (first few shown).
Status ShowCollection(Database* db) {
  QueryRequest q;
  q.table_name = kTable;
  q.key_condition = {"vehicleId", AttributeValue::S(kVehicle), std::nullopt};
  q.limit = 4;  // "META" sorts before "TS#...": the profile, then the oldest readings
  ReadCounter counter;
  auto r = db->Query(q);
  if (!r.ok()) return r.status();
  fmt::print("Query {} (its item collection, Limit 4): {} items, {} keys touched\n", kVehicle,
             r->count, counter.keys_touched());
  PrintItems(r->items);
  return Status::OK();
}

// The seed's question, and what its Query cost (section 4 compares).
struct Window {
  std::string from = "TS#" + Timestamp(20), to = "TS#" + Timestamp(40);
  uint64_t query_keys = 0;
  size_t query_items = 0;
};

// One vehicle, a ten-minute window, newest first, as DynamoDB clients write it.
QueryRequest WindowQuery(const Window& window) {
  QueryRequest q;
  q.table_name = kTable;
  q.key_condition_expression = "vehicleId = :v AND recordedAt BETWEEN :from AND :to";
  q.projection_expression = "recordedAt, speedKph, coolantC, fuelPct";
  q.expression_attribute_values =
      ExpressionAttributeValues{{":v", AttributeValue::S(kVehicle)},
                                {":from", AttributeValue::S(window.from)},
                                {":to", AttributeValue::S(window.to)}};
  q.scan_index_forward = false;
  return q;
}

// 2. Q1, the seed's question.
Status ShowWindow(Database* db, Window* window) {
  const QueryRequest q = WindowQuery(*window);
  ReadCounter counter;
  auto r = db->Query(q);
  if (!r.ok()) return r.status();
  window->query_keys = counter.keys_touched();
  window->query_items = r->items.size();
  fmt::print(
      "\nQ1. One vehicle, a ten-minute window, newest first.\n"
      "Query {}\n  KeyConditionExpression: {}\n  ProjectionExpression: {}\n"
      "  ScanIndexForward=false, :from={} :to={}\n",
      kVehicle, *q.key_condition_expression, *q.projection_expression, window->from, window->to);
  PrintItems(r->items);
  fmt::print("  -> Count {}, ScannedCount {}, {} keys touched, {} seeks\n", r->count,
             r->scanned_count, window->query_keys, counter.seeks());
  return Status::OK();
}

// 3. The same window, only the fast readings: a FilterExpression runs on the
//    items the key condition read (Count < ScannedCount).
Status ShowFilter(Database* db, const Window& window) {
  QueryRequest fast = WindowQuery(window);
  fast.filter_expression = "speedKph > :fast";
  (*fast.expression_attribute_values)[":fast"] = AttributeValue::N(Num("80"));
  auto r = db->Query(fast);
  if (!r.ok()) return r.status();
  fmt::print("\nSame Query with FilterExpression \"{}\" (:fast=80):\n", *fast.filter_expression);
  PrintItems(r->items);
  fmt::print("  -> Count {}, ScannedCount {}\n", r->count, r->scanned_count);
  return Status::OK();
}

// 5. Q2, the ByDepot GSI: newest readings of one depot, across its vehicles.
Status ShowDepot(Database* db) {
  QueryRequest depot{.table_name = kTable, .index_name = "ByDepot"};
  depot.key_condition_expression = "depotCode = :d AND begins_with(recordedAt, :ts)";
  depot.expression_attribute_values = ExpressionAttributeValues{{":d", AttributeValue::S(kDepot)},
                                                                {":ts", AttributeValue::S("TS#")}};
  depot.scan_index_forward = false;
  depot.limit = 5;
  ReadCounter counter;
  auto r = db->Query(depot);
  if (!r.ok()) return r.status();
  fmt::print(
      "\nQ2. The newest readings of depot {}, across its vehicles.\n"
      "Query GSI ByDepot: {}, :d={} (newest first, Limit 5):\n",
      kDepot, *depot.key_condition_expression, kDepot);
  for (const Item& item : r->items) {
    fmt::print("    {:<28} {} speedKph={}\n", item.at("recordedAt").s(), item.at("vehicleId").s(),
               item.at("speedKph").n().ToString());
  }
  fmt::print("  -> {} readings of {}, {} keys touched\n", r->count, kDepot, counter.keys_touched());
  return Status::OK();
}

// 6. Q3: a write to a table with an LSI reports its collection's size.
Status ShowCollectionMetrics(Database* db, int readings) {
  PutItemRequest put{.table_name = kTable};
  put.item = {{"vehicleId", AttributeValue::S(kVehicle)},
              {"recordedAt", AttributeValue::S("TS#" + Timestamp(readings))},
              {"speedKph", AttributeValue::N(Num("64.5"))},
              {"depotCode", AttributeValue::S("DEP-LON-3")}};
  put.return_item_collection_metrics = ReturnItemCollectionMetrics::kSize;
  auto r = db->PutItem(put);
  if (!r.ok()) return r.status();
  const ItemCollectionMetrics& m = *r->item_collection_metrics;
  fmt::print(
      "\nQ3. {}'s collection and the 10 GB limit (the table has an LSI, BySpeed).\n"
      "PutItem with ReturnItemCollectionMetrics=SIZE: ItemCollectionKey {{vehicleId: {}}}, "
      "SizeEstimateRangeGB [{:.1f}, {:.1f}]\n",
      kVehicle, m.item_collection_key.at("vehicleId").s(), m.size_estimate_range_gb[0],
      m.size_estimate_range_gb[1]);
  DYNAROCK_ASSIGN_OR_RETURN(const CollectionStatistics stats, Collection(db));
  fmt::print(
      "{}: {} items, {} bytes with its LSI entries (each counted at its size + 100 B) = "
      "{:.5f}% of the 10 GB limit\n",
      kVehicle, stats.item_count, stats.size_bytes,
      100.0 * static_cast<double>(stats.size_bytes) / static_cast<double>(kTenGb));
  auto top = db->LargestCollections(kTable, 3);
  if (!top.ok()) return top.status();
  fmt::print("Largest collections (items + LSI entries):\n");
  for (const auto& c : *top) {
    fmt::print("    {}  {} items, {} bytes\n", c.key.at("vehicleId").s(), c.item_count,
               c.size_bytes);
  }
  return Status::OK();
}

// 4. Q1 answered by a Scan with a filter, page by page.
Status ShowScan(Database* db, const Window& window) {
  ReadCounter counter;
  ScanRequest s{.table_name = kTable};
  s.filter_expression = "vehicleId = :v AND recordedAt BETWEEN :from AND :to";
  s.expression_attribute_values =
      ExpressionAttributeValues{{":v", AttributeValue::S(kVehicle)},
                                {":from", AttributeValue::S(window.from)},
                                {":to", AttributeValue::S(window.to)}};
  s.select = Select::kCount;
  int64_t matches = 0, scanned = 0, pages = 0;
  while (true) {
    auto r = db->Scan(s);
    if (!r.ok()) return r.status();
    ++pages;
    scanned += r->scanned_count;
    matches += r->count;
    if (!r->last_evaluated_key) break;
    s.exclusive_start_key = r->last_evaluated_key;
  }
  fmt::print(
      "\nScan with FilterExpression \"{}\":\n  -> Count {}, ScannedCount {} in {} pages of "
      "<= 1 MB, {} keys touched\n",
      *s.filter_expression, matches, scanned, pages, counter.keys_touched());
  fmt::print("Query touched {:.0f}x fewer keys than Scan for the same {} items.\n",
             static_cast<double>(counter.keys_touched()) / static_cast<double>(window.query_keys),
             window.query_items);
  return Status::OK();
}

// 8. A stream of the table's changes, and TTL: a reading that expired is
//    deleted by the sweep, and its REMOVE record says the TTL service did it.
Status ShowStreamAndTtl(Database* db) {
  auto enabled = db->UpdateTable(
      {.table_name = kTable,
       .stream_specification = StreamSpecification{true, StreamViewType::kNewAndOldImages}});
  if (!enabled.ok()) return enabled.status();
  const std::string arn = *enabled->table_description.latest_stream_arn;
  UpdateItemRequest model{.table_name = kTable,
                          .key = {{"vehicleId", AttributeValue::S(kVehicle)},
                                  {"recordedAt", AttributeValue::S("META")}},
                          .update_expression = "SET model = :m"};
  model.expression_attribute_values =
      ExpressionAttributeValues{{":m", AttributeValue::S("eVan 3")}};
  if (auto r = db->UpdateItem(model); !r.ok()) return r.status();
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  Item reading{{"vehicleId", AttributeValue::S(kVehicle)},
               {"recordedAt", AttributeValue::S("TS#2026-01-01T00:00:00Z")},
               {"speedKph", AttributeValue::N(Num("12"))},
               {"expiresAt", AttributeValue::N(Number::FromInt64(now_s - 60))}};
  if (auto r = db->PutItem({.table_name = kTable, .item = reading}); !r.ok()) return r.status();
  if (auto r = db->UpdateTimeToLive({kTable, {true, "expiresAt"}}); !r.ok()) return r.status();
  auto expired = db->ExpireItems();
  if (!expired.ok()) return expired.status();
  auto records = db->ReadStream(arn, "", 100);
  if (!records.ok()) return records.status();
  fmt::print(
      "\nStream {} (NEW_AND_OLD_IMAGES), after an UpdateItem, a PutItem and a TTL sweep "
      "that deleted {} expired item(s):\n",
      enabled->table_description.latest_stream_label.value_or(""), *expired);
  constexpr const char* kEvents[] = {"INSERT", "MODIFY", "REMOVE"};
  for (const auto& r : *records) {
    fmt::print("    {} {:<6} {} {}{}\n", r.sequence_number, kEvents[static_cast<int>(r.event_name)],
               r.keys.at("vehicleId").s(), r.keys.at("recordedAt").s(),
               r.time_to_live_deletion ? "  (deleted by TTL)" : "");
  }
  return Status::OK();
}

// 7. Q4: the hottest collections of the table and of its GSI, by capacity
//     units, as the engine's traffic tracking counted this process's reads
//     and writes.
Status ShowHottest(Database* db, int vehicles) {
  // A dispatcher's screen polls three vehicles' profiles: one often, two
  // less (ConsistentRead GetItem, 1 RCU each).
  const std::pair<std::string, int> polled[] = {{kVehicle, 40},
                                                {VehicleId(vehicles / 2 + 1, vehicles), 20},
                                                {VehicleId(vehicles / 2 + 9, vehicles), 8}};
  for (const auto& [vehicle, times] : polled) {
    for (int i = 0; i < times; ++i) {
      auto r = db->GetItem({.table_name = kTable,
                            .key = {{"vehicleId", AttributeValue::S(vehicle)},
                                    {"recordedAt", AttributeValue::S("META")}},
                            .consistent_read = true});
      if (!r.ok()) return r.status();
    }
  }
  auto hot = db->HottestCollections(kTable, 3, 60'000);
  if (!hot.ok()) return hot.status();
  fmt::print(
      "\nQ4. The hottest collections, after a dispatcher's screen polled three vehicles "
      "(traffic tracking, the last {:.0f} s of this process; Scans count on none):\n",
      static_cast<double>(hot->window_ms) / 1000);
  for (const CollectionTraffic& c : hot->collections) {
    fmt::print("    {:<14} {:<12} {:>7.1f} RCU {:>6.1f} WCU\n",
               c.index_name ? "GSI " + *c.index_name : std::string("table"),
               c.partition_key_value.s(), c.read_units, c.write_units);
  }
  fmt::print(
      "  -> live, per second, against a server: dynarock serve --data-dir DB, then dynarock "
      "top\n");
  return Status::OK();
}

// 9. Q3, at the limit: the database reopened with the collection size limit
// `limit_bytes` in place of 10 GB, and readings written into V-7741 until
// one is refused.
Status ShowLimit(const std::string& dir, int readings, int64_t limit_bytes) {
  Options options;
  options.ttl_sweep_interval_ms = 0;
  options.item_collection_size_limit_bytes = limit_bytes;
  auto db = Database::Open(dir, options);
  if (!db.ok()) return db.status();
  fmt::print(
      "\nQ3, at the limit: reopened with --collection-limit {} (bytes, in place of 10 GB); "
      "readings written into {} until one is refused:\n",
      limit_bytes, kVehicle);
  for (int i = 1;; ++i) {
    PutItemRequest put{.table_name = kTable};
    put.item = {{"vehicleId", AttributeValue::S(kVehicle)},
                {"recordedAt", AttributeValue::S("TS#" + Timestamp(readings + i))},
                {"speedKph", AttributeValue::N(Num("50"))},
                {"depotCode", AttributeValue::S(kDepot)}};
    auto r = (*db)->PutItem(put);
    if (r.ok()) continue;
    if (r.status().code() != Status::Code::kItemCollectionSizeLimitExceeded) return r.status();
    DYNAROCK_ASSIGN_OR_RETURN(const CollectionStatistics after, Collection(db->get()));
    fmt::print(
        "    {} written, then PutItem {}: ItemCollectionSizeLimitExceededException: {}\n"
        "  -> the refused write changed nothing: {} holds {} bytes. In DynamoDB, without an LSI "
        "a collection has no size limit.\n",
        i - 1, Timestamp(readings + i), r.status().message(), kVehicle, after.size_bytes);
    return Status::OK();
  }
}

// Everything after the load, read back from disk.
Status Explore(Database* db, int vehicles, int readings) {
  auto described = db->DescribeTable({kTable});
  if (!described.ok()) return described.status();
  fmt::print("Reopened: table {} holds {} items, {} bytes (DynamoDB item sizes)\n\n", kTable,
             described->table.item_count, described->table.table_size_bytes);
  Window window;
  DYNAROCK_RETURN_IF_ERROR(ShowCollection(db));
  DYNAROCK_RETURN_IF_ERROR(ShowWindow(db, &window));
  DYNAROCK_RETURN_IF_ERROR(ShowFilter(db, window));
  DYNAROCK_RETURN_IF_ERROR(ShowScan(db, window));
  DYNAROCK_RETURN_IF_ERROR(ShowDepot(db));
  DYNAROCK_RETURN_IF_ERROR(ShowCollectionMetrics(db, readings));
  DYNAROCK_RETURN_IF_ERROR(ShowHottest(db, vehicles));
  return ShowStreamAndTtl(db);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Dynarock fleet demo: item collections on an on-disk database"};
  std::string dir = "fleet-demo.db";
  int vehicles = 500, readings = 120;
  int64_t collection_limit = 0;
  app.add_option("--db", dir, "database directory (created if missing)");
  app.add_option("--vehicles", vehicles, "vehicles to load")->check(CLI::Range(1, 9999));
  app.add_option("--readings", readings, "readings per vehicle, 30 s apart")
      ->check(CLI::Range(1, 2000));
  app.add_option("--collection-limit", collection_limit,
                 "the item collection size limit (bytes) the last step reopens the database "
                 "with, to show a write refused at the limit (default: V-7741's collection's "
                 "size + 1,000)")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  if (Status loaded = Load(dir, vehicles, readings); !loaded.ok()) return Fail(loaded, dir);
  Options options;
  options.ttl_sweep_interval_ms = 0;  // section 8 runs the TTL sweep itself
  auto db = Database::Open(dir, options);
  if (!db.ok()) return Fail(db.status(), dir);
  if (Status explored = Explore(db->get(), vehicles, readings); !explored.ok())
    return Fail(explored, dir);
  if (collection_limit == 0) {  // the default: just above V-7741's collection
    auto mine = Collection(db->get());
    if (!mine.ok()) return Fail(mine.status(), dir);
    collection_limit = mine->size_bytes + 1000;
  }
  db->reset();  // closed, to reopen with a small collection limit
  if (Status limited = ShowLimit(dir, readings, collection_limit); !limited.ok()) {
    return Fail(limited, dir);
  }
  return 0;
}
