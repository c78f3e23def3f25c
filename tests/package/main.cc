// Opens a database, writes a vehicle's profile and readings, and queries the
// newest readings back, through nothing but the installed public headers.
#include <dynarock/db.h>
#include <dynarock/expression_builder.h>
#include <dynarock/item_view.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fleet_embed <database directory>\n");
    return 2;
  }
  auto db = dynarock::Database::Open(argv[1], {});
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }
  using dynarock::AttributeValue;
  dynarock::CreateTableRequest table;
  table.table_name = "Fleet";
  table.key_schema = {{"PK", dynarock::KeyType::kHash}, {"SK", dynarock::KeyType::kRange}};
  table.attribute_definitions = {{"PK", dynarock::ScalarAttributeType::kS},
                                 {"SK", dynarock::ScalarAttributeType::kS}};
  table.billing_mode = dynarock::BillingMode::kPayPerRequest;
  if (auto created = (*db)->CreateTable(table); !created.ok()) {
    std::fprintf(stderr, "create: %s\n", created.status().ToString().c_str());
    return 1;
  }
  for (const char* sk : {"META", "TS#2026-12-01T10:00", "TS#2026-12-01T10:05"}) {
    auto put = (*db)->PutItem({.table_name = "Fleet",
                               .item = {{"PK", AttributeValue::S("VEH#V-7741")},
                                        {"SK", AttributeValue::S(sk)}}});
    if (!put.ok()) {
      std::fprintf(stderr, "put: %s\n", put.status().ToString().c_str());
      return 1;
    }
  }
  dynarock::QueryRequest query;
  query.table_name = "Fleet";
  query.key_condition_expression = "PK = :v AND begins_with(SK, :ts)";
  query.expression_attribute_values = dynarock::ExpressionAttributeValues{
      {":v", AttributeValue::S("VEH#V-7741")}, {":ts", AttributeValue::S("TS#")}};
  query.scan_index_forward = false;
  auto result = (*db)->Query(query);
  if (!result.ok()) {
    std::fprintf(stderr, "query: %s\n", result.status().ToString().c_str());
    return 1;
  }
  if (result->count != 2 || result->items[0].at("SK").s() != "TS#2026-12-01T10:05") {
    std::fprintf(stderr, "query returned %d items, not the 2 readings newest first\n",
                 result->count);
    return 1;
  }
  std::printf("ok: %d readings, newest %s\n", result->count,
              result->items[0].at("SK").s().c_str());
  return 0;
}
