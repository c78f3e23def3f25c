// Child process of crash_test.cc: writes to a database with sync on and
// reports each write on stdout, until it is killed.
//   B <op> <key> <value>   about to write (may or may not land)
//   A                      the write just begun was acknowledged
// <op> is P (put) or D (delete); <value> is "-" for deletes.
#include <cstdio>
#include <random>
#include <string>

#include "dynarock/db.h"

using namespace dynarock;

// Bank mode: transfers between accounts with TransactWriteItems; prints "A"
// after each committed or cancelled transaction.
int Bank(Database* db, uint64_t seed) {
  constexpr int kAccounts = 10;
  CreateTableRequest create;
  create.table_name = "Bank";
  create.key_schema = {{"id", KeyType::kHash}};
  create.attribute_definitions = {{"id", ScalarAttributeType::kS}, {"branch", ScalarAttributeType::kS}};
  create.billing_mode = BillingMode::kPayPerRequest;
  create.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByBranch", {{"branch", KeyType::kHash}, {"id", KeyType::kRange}}, {ProjectionType::kAll, {}}, std::nullopt}};
  auto created = db->CreateTable(create);
  if (created.ok()) {
    for (int i = 0; i < kAccounts; ++i) {
      auto put = db->PutItem({.table_name = "Bank",
                              .item = {{"id", AttributeValue::S("acct-" + std::to_string(i))},
                                       {"balance", AttributeValue::N(Number::FromInt64(1000))},
                                       {"branch", AttributeValue::S(i % 2 ? "north" : "south")}}});
      if (!put.ok()) return 1;
    }
  } else if (created.status().code() != Status::Code::kResourceInUse) {
    return 1;
  }
  std::printf("READY\n");
  std::fflush(stdout);
  std::mt19937_64 rng(seed);
  while (true) {
    int from = static_cast<int>(rng() % kAccounts), to = static_cast<int>(rng() % kAccounts);
    if (from == to) continue;
    auto amount = AttributeValue::N(Number::FromInt64(static_cast<int64_t>(1 + rng() % 400)));
    TransactUpdate debit{.table_name = "Bank", .key = {{"id", AttributeValue::S("acct-" + std::to_string(from))}},
                         .update_expression = "SET balance = balance - :a, branch = :b"};
    debit.condition_expression = "balance >= :a";
    // Moving the branch too makes every transfer touch the GSI.
    debit.expression_attribute_values = ExpressionAttributeValues{
        {":a", amount}, {":b", AttributeValue::S(rng() % 2 ? "north" : "south")}};
    TransactUpdate credit{.table_name = "Bank", .key = {{"id", AttributeValue::S("acct-" + std::to_string(to))}},
                          .update_expression = "SET balance = balance + :a"};
    credit.expression_attribute_values = ExpressionAttributeValues{{":a", amount}};
    TransactWriteItemsRequest t;
    t.transact_items = {{.update = debit}, {.update = credit}};
    auto r = db->TransactWriteItems(t);
    if (!r.ok() && r.status().code() != Status::Code::kTransactionCanceled) return 1;
    std::printf("A\n");
    std::fflush(stdout);
  }
}

// Backfill mode: a table of matches, then UpdateTable adds a GSI keyed by
// two HASH and two RANGE attributes; while its backfill runs (a few items a
// step), puts go on, each printed as "A <id> <h1> <h2> <r1> <r2>" once
// acknowledged ("-" for an absent component).
int Backfill(Database* db, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto component = [&](int choices) -> std::string {
    return rng() % 8 ? std::to_string(rng() % choices) : "-";
  };
  auto put = [&](const std::string& id) -> bool {
    std::string h1 = component(3), h2 = component(2), r1 = component(4), r2 = component(5);
    Item item{{"id", AttributeValue::S(id)}};
    if (h1 != "-") item["h1"] = AttributeValue::S("t" + h1);
    if (h2 != "-") item["h2"] = AttributeValue::N(Number::FromInt64(std::stoll(h2)));
    if (r1 != "-") item["r1"] = AttributeValue::N(Number::FromInt64(std::stoll(r1)));
    if (r2 != "-") item["r2"] = AttributeValue::S("b" + r2);
    if (!db->PutItem({.table_name = "Matches", .item = item}).ok()) return false;
    std::printf("A %s %s %s %s %s\n", id.c_str(), h1.c_str(), h2.c_str(), r1.c_str(), r2.c_str());
    std::fflush(stdout);
    return true;
  };
  CreateTableRequest create;
  create.table_name = "Matches";
  create.key_schema = {{"id", KeyType::kHash}};
  create.attribute_definitions = {{"id", ScalarAttributeType::kS}};
  create.billing_mode = BillingMode::kPayPerRequest;
  auto created = db->CreateTable(create);
  const std::string run = std::to_string(seed % 100000) + "-";
  if (created.ok()) {
    for (int i = 0; i < 400; ++i) {
      if (!put("pre-" + std::to_string(i))) return 1;
    }
    UpdateTableRequest add{.table_name = "Matches"};
    add.attribute_definitions = {{"id", ScalarAttributeType::kS},
                                 {"h1", ScalarAttributeType::kS},
                                 {"h2", ScalarAttributeType::kN},
                                 {"r1", ScalarAttributeType::kN},
                                 {"r2", ScalarAttributeType::kS}};
    CreateGlobalSecondaryIndexAction gsi;
    gsi.index_name = "Composite";
    gsi.key_schema = {{"h1", KeyType::kHash},
                      {"h2", KeyType::kHash},
                      {"r1", KeyType::kRange},
                      {"r2", KeyType::kRange}};
    gsi.projection = {ProjectionType::kKeysOnly, {}};
    add.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{{.create = gsi}};
    if (!db->UpdateTable(add).ok()) return 1;
  } else if (created.status().code() != Status::Code::kResourceInUse) {
    return 1;
  }
  std::printf("READY\n");
  std::fflush(stdout);
  for (uint64_t n = 0;; ++n) {
    if (!put(rng() % 2 ? "pre-" + std::to_string(rng() % 400) : run + std::to_string(n))) return 1;
  }
}

// Vectors mode: a table with a vector index declared at CreateTable
// ("Declared", HASH tenant), filled, then UpdateTable adds a second one
// ("Added", no HASH) whose backfill runs (a few items a step) while puts,
// updates and deletes go on; prints "A" after each acknowledged write.
int Vectors(Database* db, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return AttributeValue::N(*Number::Parse(text));
  };
  auto write = [&](int i) -> bool {
    const std::string id = "v" + std::to_string(i);
    Status s;
    if (rng() % 5 == 0) {
      s = db->DeleteItem({.table_name = "Vecs", .key = {{"id", AttributeValue::S(id)}}}).status();
    } else {
      Item item{{"id", AttributeValue::S(id)}};
      if (rng() % 8) {
        std::vector<AttributeValue> v;
        for (int d = 0; d < 4; ++d) v.push_back(number(static_cast<double>(rng() % 17) / 4 - 2));
        item["embedding"] = AttributeValue::L(std::move(v));
      }
      if (rng() % 6) item["tenant"] = AttributeValue::S("t" + std::to_string(rng() % 3));
      s = db->PutItem({.table_name = "Vecs", .item = item}).status();
    }
    if (!s.ok()) return false;
    std::printf("A\n");
    std::fflush(stdout);
    return true;
  };
  CreateTableRequest create;
  create.table_name = "Vecs";
  create.key_schema = {{"id", KeyType::kHash}};
  create.attribute_definitions = {{"id", ScalarAttributeType::kS},
                                  {"tenant", ScalarAttributeType::kS}};
  create.billing_mode = BillingMode::kPayPerRequest;
  create.vector_indexes = std::vector<VectorIndex>{
      {"Declared",
       {"embedding"},
       4,
       DistanceFunction::kEuclidean,
       {ProjectionType::kAll, {}},
       std::vector<SearchSchemaElement>{{"tenant", SearchSchemaElementType::kHash}}}};
  auto created = db->CreateTable(create);
  if (created.ok()) {
    for (int i = 0; i < 90; ++i) {
      if (!write(i)) return 1;
    }
    UpdateTableRequest add{.table_name = "Vecs"};
    add.vector_index_updates =
        std::vector<VectorIndexUpdate>{{.create = VectorIndex{"Added",
                                                              {"embedding"},
                                                              4,
                                                              DistanceFunction::kDotProduct,
                                                              {ProjectionType::kKeysOnly, {}},
                                                              std::nullopt}}};
    if (!db->UpdateTable(add).ok()) return 1;
  } else if (created.status().code() != Status::Code::kResourceInUse) {
    return 1;
  }
  std::printf("READY\n");
  std::fflush(stdout);
  while (true) {
    if (!write(static_cast<int>(rng() % 90))) return 1;
  }
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: crash_writer <dir> <seed> [bank|backfill|vectors]\n");
    return 2;
  }
  Options options;
  options.sync_writes = true;
  const std::string mode = argc == 4 ? argv[3] : "";
  if (mode == "backfill" || mode == "vectors") options.backfill_batch_items = 3;
  auto db = Database::Open(argv[1], options);
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }
  if (mode == "backfill") return Backfill(db->get(), std::stoull(argv[2]));
  if (mode == "vectors") return Vectors(db->get(), std::stoull(argv[2]));
  if (argc == 4) return Bank(db->get(), std::stoull(argv[2]));
  CreateTableRequest create;
  create.table_name = "Crash";
  create.key_schema = {{"pk", KeyType::kHash}, {"sk", KeyType::kRange}};
  create.attribute_definitions = {{"pk", ScalarAttributeType::kS}, {"sk", ScalarAttributeType::kN},
                                  {"depot", ScalarAttributeType::kS}, {"speed", ScalarAttributeType::kN}};
  create.billing_mode = BillingMode::kPayPerRequest;
  // Indexes and collection statistics are in every batch the crash cuts.
  create.global_secondary_indexes = std::vector<GlobalSecondaryIndex>{
      {"ByDepot", {{"depot", KeyType::kHash}}, {ProjectionType::kAll, {}}, std::nullopt}};
  create.local_secondary_indexes = std::vector<LocalSecondaryIndex>{
      {"BySpeed", {{"pk", KeyType::kHash}, {"speed", KeyType::kRange}}, {ProjectionType::kKeysOnly, {}}}};
  // And each change's stream record.
  create.stream_specification = StreamSpecification{true, StreamViewType::kNewAndOldImages};
  auto created = (*db)->CreateTable(create);
  if (!created.ok() && created.status().code() != Status::Code::kResourceInUse) {
    std::fprintf(stderr, "create: %s\n", created.status().ToString().c_str());
    return 1;
  }
  std::mt19937_64 rng(std::stoull(argv[2]));
  // Values are unique across runs, so no put rewrites an identical item.
  const std::string run = std::to_string(rng() % 1000000) + "-";
  for (uint64_t n = 0;; ++n) {
    int pk = static_cast<int>(rng() % 20), sk = static_cast<int>(rng() % 10);
    std::string key = "veh" + std::to_string(pk) + " " + std::to_string(sk);
    Item k{{"pk", AttributeValue::S("veh" + std::to_string(pk))},
           {"sk", AttributeValue::N(Number::FromInt64(sk))}};
    if (rng() % 4 == 0) {
      std::printf("B D %s -\n", key.c_str());
      std::fflush(stdout);
      auto r = (*db)->DeleteItem({.table_name = "Crash", .key = k});
      if (!r.ok()) return 1;
    } else {
      std::string value = run + std::to_string(n) + std::string(rng() % 200, 'x');
      std::printf("B P %s %s\n", key.c_str(), value.c_str());
      std::fflush(stdout);
      Item item = k;
      item["v"] = AttributeValue::S(value);
      if (rng() % 4) item["depot"] = AttributeValue::S("DEP-" + std::to_string(rng() % 3));
      if (rng() % 4) item["speed"] = AttributeValue::N(Number::FromInt64(static_cast<int64_t>(rng() % 100)));
      auto r = (*db)->PutItem({.table_name = "Crash", .item = item});
      if (!r.ok()) return 1;
    }
    std::printf("A\n");
    std::fflush(stdout);
  }
}
