// Vector indexes through the embedded API (issue 48, first steps): the
// declaration's rules, write-time checks, entries kept exact in the item's
// own batch, and SearchVectors (exact) against a brute-force scoring of the
// table for random items, updates and deletes, HASH partitions and inline
// filters, for each distance function.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "dynarock/bulk.h"
#include "dynarock/db.h"
#include "format/vector.h"
#include "tests/util/db_fixture.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::S;
using T = ScalarAttributeType;

constexpr char kParamsInvalid[] = "One or more parameter values were invalid: ";

AttributeValue Decimal(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", v);
  return AttributeValue::N(*Number::Parse(text));
}

AttributeValue Vector(const std::vector<float>& v) {
  std::vector<AttributeValue> out;
  for (float x : v) out.push_back(Decimal(x));
  return AttributeValue::L(std::move(out));
}

CreateTableRequest Docs(DistanceFunction d, int dims = 4) {
  CreateTableRequest r = testing::TableRequest("Docs", "id", T::kS);
  r.attribute_definitions.push_back({"tenant", T::kS});
  r.attribute_definitions.push_back({"lang", T::kS});
  r.vector_indexes = std::vector<VectorIndex>{
      {"ByTenant",
       {"embedding"},
       dims,
       d,
       {ProjectionType::kAll, {}},
       std::vector<SearchSchemaElement>{{"tenant", SearchSchemaElementType::kHash},
                                        {"lang", SearchSchemaElementType::kInlineFilter}}},
      {"Everything", {"embedding"}, dims, d, {ProjectionType::kKeysOnly, {}}, std::nullopt}};
  return r;
}

class VectorIndexTest : public DbTest {};

TEST_F(VectorIndexTest, DeclarationRules) {
  auto refused = [&](auto change) {
    CreateTableRequest r = Docs(DistanceFunction::kCosine);
    change(&r);
    return db_->CreateTable(r).status();
  };
  EXPECT_EQ(refused([](CreateTableRequest* r) {
              r->billing_mode = BillingMode::kProvisioned;
              r->provisioned_throughput = ProvisionedThroughput{1, 1};
            }),
            Status::Validation(std::string(kParamsInvalid) +
                               "Vector indexes are only supported for PAY_PER_REQUEST tables"));
  EXPECT_EQ(refused([](CreateTableRequest* r) { (*r->vector_indexes)[0].dimensions = 4097; }),
            Status::Validation(std::string(kParamsInvalid) +
                               "Number of dimensions must be between 1 and 4096 inclusive."));
  EXPECT_EQ(refused([](CreateTableRequest* r) { (*r->vector_indexes)[1].dimensions = 8; }),
            Status::Validation(std::string(kParamsInvalid) +
                               "Conflicting attribute definition for 'embedding'. All "
                               "VectorIndexes on the same vector attribute must use the same "
                               "dimensions."));
  EXPECT_EQ(refused([](CreateTableRequest* r) {
              r->attribute_definitions.push_back({"embedding", T::kS});
            }).message(),
            std::string(kParamsInvalid) +
                "Conflicting attribute definition for 'embedding'. An attribute cannot be "
                "defined in AttributeDefinitions when used as a VectorAttribute.");
  EXPECT_EQ(refused([](CreateTableRequest* r) { r->attribute_definitions.pop_back(); }),
            Status::Validation(std::string(kParamsInvalid) +
                               "One element in SearchSchema is not defined in attribute "
                               "definitions"));
  EXPECT_EQ(refused([](CreateTableRequest* r) {
              for (int i = 0; i < 4; ++i) {
                VectorIndex v = (*r->vector_indexes)[1];
                v.index_name = "More" + std::to_string(i);
                r->vector_indexes->push_back(v);
              }
            }),
            Status::Validation(std::string(kParamsInvalid) +
                               "VectorIndex count exceeds the per-table limit of 5"));
  Create(Docs(DistanceFunction::kCosine));
  auto d = db_->DescribeTable({"Docs"});
  ASSERT_OK(d);
  ASSERT_TRUE(d->table.vector_indexes);
  const auto& v = (*d->table.vector_indexes)[0];
  EXPECT_EQ(v.index_name, "ByTenant");
  EXPECT_EQ(v.dimensions, 4);
  ASSERT_TRUE(v.search_schema);
  EXPECT_EQ((*v.search_schema)[1].attribute_name, "lang");
  EXPECT_EQ(v.index_status, IndexStatus::kActive);
  EXPECT_FALSE((*d->table.vector_indexes)[1].search_schema);
  Reopen();  // the descriptor keeps them
  auto again = db_->DescribeTable({"Docs"});
  ASSERT_OK(again);
  ASSERT_EQ(again->table.vector_indexes->size(), 2u);
  EXPECT_EQ((*again->table.vector_indexes)[1].projection.projection_type,
            ProjectionType::kKeysOnly);
}

// Dump and restore: ImportTable into a table declaring vector indexes
// writes their entries beside the items (in SSTs ingested with them), with
// exact totals; an item whose vector a write would refuse is refused as
// that write.
TEST_F(VectorIndexTest, RestoreWritesTheVectorIndexes) {
  const uint64_t seed = testing::TestSeed("VectorIndexTest.RestoreWritesTheVectorIndexes");
  std::mt19937_64 rng(seed);
  constexpr int kDims = 4;
  // The source: no vector index, so it can hold a vector the index refuses.
  CreateTableRequest plain = testing::TableRequest("Source", "id", T::kS);
  Create(plain);
  std::map<std::string, Item> items;
  for (int i = 0; i < 300; ++i) {
    const std::string id = "d" + std::to_string(i);
    Item item{{"id", S(id)}, {"n", Decimal(i)}};
    if (rng() % 10) {
      std::vector<float> v(kDims);
      for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 21) - 10) / 4;
      item["embedding"] = Vector(v);
    }
    if (rng() % 5) item["tenant"] = S(rng() % 2 ? "acme" : "globex");
    if (rng() % 2) item["lang"] = S(rng() % 2 ? "en" : "fr");
    Put("Source", item);
    items[id] = item;
  }
  Put("Source", {{"id", S("bad")}, {"embedding", Vector({1, 2})}});  // 2 of 4 dimensions
  ExportTableOptions e{.table_name = "Source", .bucket_dir = dir_ + "/bucket"};
  auto exported = db_->ExportTable(e);
  ASSERT_OK(exported);
  auto manifest = ReadExportManifest(exported->export_dir);
  ASSERT_OK(manifest);
  ImportTableOptions import;
  import.table = Docs(DistanceFunction::kEuclidean, kDims);
  import.files = manifest->files;
  auto restored = db_->ImportTable(import);
  ASSERT_OK(restored);
  EXPECT_EQ(restored->imported_items, 300);
  EXPECT_EQ(restored->error_count, 1);
  ASSERT_EQ(restored->errors.size(), 1u);
  EXPECT_NE(restored->errors[0].message.find("Invalid size for parameter embedding"),
            std::string::npos)
      << restored->errors[0].message;

  auto described = db_->DescribeTable({"Docs"});
  ASSERT_OK(described);
  int64_t with_vector = 0, with_tenant = 0;
  for (const auto& [id, item] : items) {
    with_vector += item.count("embedding");
    with_tenant += item.count("embedding") && item.count("tenant");
  }
  EXPECT_EQ((*described->table.vector_indexes)[0].item_count, with_tenant);
  EXPECT_EQ((*described->table.vector_indexes)[1].item_count, with_vector);
  auto report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->index_totals_corrected, 0);
  // Searched as brute force scores the items.
  const std::vector<float> query{0.5, -1, 2, 0};
  std::vector<std::pair<double, std::string>> scored;
  for (const auto& [id, item] : items) {
    std::vector<float> v;
    if (!item.count("embedding") || !item.count("tenant") || item.at("tenant").s() != "acme") {
      continue;
    }
    ASSERT_OK(format::ToVector(item.at("embedding"), kDims, "embedding", "x", &v));
    scored.emplace_back(format::VectorScore(format::VectorDistance::kEuclidean, query, v), id);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  scored.resize(10);
  SearchVectorsRequest s{.table_name = "Docs", .index_name = "ByTenant", .top_k = 10};
  for (float x : query) s.search_vector.push_back(Decimal(x));
  s.search_condition_expression = "tenant = :t";
  s.expression_attribute_values = ExpressionAttributeValues{{":t", S("acme")}};
  auto got = db_->SearchVectors(s);
  ASSERT_OK(got);
  ASSERT_EQ(got->search_results.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(got->search_results[i].item.at("id").s(), scored[i].second) << "seed " << seed;
    Item expected = items[scored[i].second];  // projection ALL, less the vector
    expected.erase("embedding");
    EXPECT_EQ(got->search_results[i].item, expected);
  }
}

VectorIndex ByTenantIndex(const std::string& name, int dims) {
  return {name,
          {"embedding"},
          dims,
          DistanceFunction::kEuclidean,
          {ProjectionType::kInclude, {"n"}},
          std::vector<SearchSchemaElement>{{"tenant", SearchSchemaElementType::kHash}}};
}

// UpdateTable's VectorIndexUpdates.Create: the declaration's rules as
// UpdateTable states them, then a backfill in the background (resumable
// across a close) that skips what a write would refuse, while writes go on;
// afterwards the index is exactly what the table implies.
TEST_F(VectorIndexTest, UpdateTableAddsAVectorIndexByBackfill) {
  options_.backfill_batch_items = 7;  // many steps, so a close lands midway
  Reopen();
  const uint64_t seed = testing::TestSeed("VectorIndexTest.UpdateTableAddsAVectorIndexByBackfill");
  std::mt19937_64 rng(seed);
  constexpr int kDims = 3;
  CreateTableRequest docs = testing::TableRequest("Docs", "id", T::kS);
  docs.attribute_definitions.push_back({"depot", T::kS});
  docs.billing_mode = BillingMode::kProvisioned;  // until the index comes
  docs.provisioned_throughput = ProvisionedThroughput{40000, 40000};
  docs.global_secondary_indexes =
      std::vector<GlobalSecondaryIndex>{{"ByDepot",
                                         {{"depot", KeyType::kHash}},
                                         {ProjectionType::kKeysOnly, {}},
                                         ProvisionedThroughput{40000, 40000}}};
  Create(docs);
  std::map<std::string, Item> items;
  auto random_item = [&](const std::string& id) {
    Item item{{"id", S(id)}, {"n", Decimal(static_cast<double>(rng() % 50))}};
    switch (rng() % 12) {
      case 0:
        break;  // no vector: not indexed
      case 1:
        item["embedding"] = Vector({1, 2});  // a write would refuse it now
        break;
      case 2:
        item["embedding"] = S("text");
        break;
      default: {
        std::vector<float> v(kDims);
        for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 9) - 4);
        item["embedding"] = Vector(v);
      }
    }
    if (rng() % 6) item["tenant"] = S(rng() % 2 ? "acme" : "globex");
    if (rng() % 20 == 0) item["tenant"] = S("");  // unstorable: skipped
    return item;
  };
  for (int i = 0; i < 400; ++i) {
    const std::string id = "d" + std::to_string(i);
    items[id] = random_item(id);
    Put("Docs", items[id]);
  }

  auto add = [](VectorIndex v, std::vector<AttributeDefinition> defs) {
    UpdateTableRequest u{.table_name = "Docs"};
    u.attribute_definitions = std::move(defs);
    u.vector_index_updates = std::vector<VectorIndexUpdate>{{.create = std::move(v)}};
    return u;
  };
  const std::vector<AttributeDefinition> tenant_defined{{"tenant", T::kS}};
  // The search attributes are defined in the request itself.
  EXPECT_EQ(db_->UpdateTable(add(ByTenantIndex("ByTenant", kDims), {})).status(),
            Status::Validation(std::string(kParamsInvalid) +
                               "One element in SearchSchema is not defined in attribute "
                               "definitions"));
  EXPECT_EQ(db_->UpdateTable(
                   add(ByTenantIndex("ByTenant", kDims), {{"tenant", T::kS}, {"embedding", T::kS}}))
                .status(),
            Status::Validation(std::string(kParamsInvalid) +
                               "Conflicting attribute definition for 'embedding'. An attribute "
                               "cannot be defined in AttributeDefinitions when used as a "
                               "VectorAttribute."));
  EXPECT_EQ(db_->UpdateTable(add(ByTenantIndex("ByDepot", kDims), tenant_defined)).status(),
            Status::Validation("Attempting to create an index which already exists"));
  EXPECT_EQ(db_->UpdateTable(add(ByTenantIndex("ByTenant", kDims), tenant_defined)).status(),
            Status::Validation(std::string(kParamsInvalid) +
                               "Vector indexes are only supported for PAY_PER_REQUEST tables"));
  // From here on an on-demand table.
  ASSERT_OK(db_->UpdateTable({.table_name = "Docs", .billing_mode = BillingMode::kPayPerRequest}));
  EXPECT_EQ(db_->UpdateTable(add(ByTenantIndex("ByTenant", 5000), tenant_defined)).status(),
            Status::Validation(std::string(kParamsInvalid) +
                               "Number of dimensions must be between 1 and 4096 inclusive."));

  auto added = db_->UpdateTable(add(ByTenantIndex("ByTenant", kDims), tenant_defined));
  ASSERT_OK(added);
  // Answered at once: the table UPDATING, the index CREATING and Backfilling.
  EXPECT_EQ(added->table_description.table_status, TableStatus::kUpdating);
  ASSERT_TRUE(added->table_description.vector_indexes);
  const auto& creating = (*added->table_description.vector_indexes)[0];
  EXPECT_EQ(creating.index_status, IndexStatus::kCreating);
  EXPECT_EQ(creating.backfilling, std::optional<bool>(true));
  // Whichever of these land while it runs, as DynamoDB answers them.
  UpdateTableRequest another = add(ByTenantIndex("Other", kDims), tenant_defined);
  auto second = db_->UpdateTable(another);
  if (!second.ok()) {
    EXPECT_EQ(second.status(), Status::LimitExceeded("Subscriber limit exceeded: Only 1 online "
                                                     "index can be created or deleted "
                                                     "simultaneously per table"));
  }
  auto deleted = db_->DeleteTable({.table_name = "Docs"});
  if (!deleted.ok()) {
    EXPECT_EQ(deleted.status(),
              Status::ResourceInUse("Attempt to change a resource which is still in use: Cannot "
                                    "delete table while indexes are being created, updated, or "
                                    "deleted."));
  } else {
    GTEST_SKIP() << "the backfill finished before DeleteTable: nothing left to check";
  }
  // Writes go on during the backfill, then a close stops it midway.
  for (int i = 0; i < 60; ++i) {
    const std::string id = "d" + std::to_string(rng() % 460);
    if (rng() % 5 == 0) {
      ASSERT_OK(db_->DeleteItem({.table_name = "Docs", .key = {{"id", S(id)}}}));
      items.erase(id);
    } else {
      // Checked as the index requires from now on.
      Item item = random_item(id);
      Status put = db_->PutItem({.table_name = "Docs", .item = item}).status();
      if (put.ok()) {
        items[id] = std::move(item);
      } else {
        EXPECT_EQ(put.code(), Status::Code::kValidation) << put;
      }
    }
  }
  Reopen();
  ASSERT_OK(db_->WaitForBackfills());
  if (second.ok()) {  // the backfill of ByTenant had finished: Other is the one just done
    auto del = db_->UpdateTable(
        {.table_name = "Docs",
         .vector_index_updates = std::vector<VectorIndexUpdate>{{.delete_index_name = "Other"}}});
    ASSERT_OK(del);
  }

  auto described = db_->DescribeTable({"Docs"});
  ASSERT_OK(described);
  EXPECT_EQ(described->table.table_status, TableStatus::kActive);
  ASSERT_EQ(described->table.vector_indexes->size(), 1u);
  const auto& active = (*described->table.vector_indexes)[0];
  EXPECT_EQ(active.index_status, IndexStatus::kActive);
  EXPECT_FALSE(active.backfilling);  // absent once done, as DynamoDB shows it
  bool tenant_defined_now = false;
  for (const auto& d : described->table.attribute_definitions) {
    tenant_defined_now |= d.attribute_name == "tenant";
  }
  EXPECT_TRUE(tenant_defined_now);

  // Exactly the items a write would index, per tenant, scored as brute force.
  int64_t expected_count = 0;
  for (const std::string tenant : {"acme", "globex"}) {
    std::vector<std::pair<double, std::string>> scored;
    const std::vector<float> query{1, -1, 2};
    for (const auto& [id, item] : items) {
      std::vector<float> v;
      if (!item.count("embedding") || !item.count("tenant") || item.at("tenant").s() != tenant ||
          !format::ToVector(item.at("embedding"), kDims, "embedding", "x", &v).ok()) {
        continue;
      }
      scored.emplace_back(format::VectorScore(format::VectorDistance::kEuclidean, query, v), id);
    }
    expected_count += static_cast<int64_t>(scored.size());
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    scored.resize(std::min<size_t>(scored.size(), 100));
    SearchVectorsRequest s{.table_name = "Docs", .index_name = "ByTenant", .top_k = 100};
    for (float x : query) s.search_vector.push_back(Decimal(x));
    s.search_condition_expression = "tenant = :t";
    s.expression_attribute_values = ExpressionAttributeValues{{":t", S(tenant)}};
    auto got = db_->SearchVectors(s);
    ASSERT_OK(got);
    ASSERT_EQ(got->search_results.size(), scored.size()) << "seed " << seed;
    for (size_t i = 0; i < scored.size(); ++i) {
      EXPECT_EQ(got->search_results[i].item.at("id").s(), scored[i].second) << "seed " << seed;
      EXPECT_EQ(got->search_results[i].item.at("n"), items[scored[i].second].at("n"));
    }
  }
  EXPECT_EQ(active.item_count, expected_count);
  auto report = db_->RecountStatistics();
  ASSERT_OK(report);
  EXPECT_EQ(report->index_totals_corrected, 0);
  // A 6th vector index is over the limit.
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(
        db_->UpdateTable(add(ByTenantIndex("More" + std::to_string(i), kDims), tenant_defined)));
    ASSERT_OK(db_->WaitForBackfills());
  }
  EXPECT_EQ(db_->UpdateTable(add(ByTenantIndex("Sixth", kDims), tenant_defined)).status(),
            Status::LimitExceeded("Subscriber limit exceeded: Number of vector secondary indexes "
                                  "exceeds per-table limit of 5"));
  // And a GSI added to the table keeps the search attribute defined.
  UpdateTableRequest gsi{.table_name = "Docs"};
  gsi.attribute_definitions = std::vector<AttributeDefinition>{{"n", T::kN}};
  gsi.global_secondary_index_updates = std::vector<GlobalSecondaryIndexUpdate>{
      {.create = CreateGlobalSecondaryIndexAction{
           "ByN", {{"n", KeyType::kHash}}, {ProjectionType::kKeysOnly, {}}}}};
  ASSERT_OK(db_->UpdateTable(gsi));
  ASSERT_OK(db_->WaitForBackfills());
  auto with_gsi = db_->DescribeTable({"Docs"});
  ASSERT_OK(with_gsi);
  std::set<std::string> defined;
  for (const auto& d : with_gsi->table.attribute_definitions) defined.insert(d.attribute_name);
  EXPECT_EQ(defined, (std::set<std::string>{"depot", "id", "n", "tenant"}));
}

// UpdateTable deletes a vector index: its entries and totals go with range
// deletions, searches name it no more, and writes stop checking its vector;
// one online index change at a time, GSIs' included; a table with vector
// indexes stays on-demand.
TEST_F(VectorIndexTest, UpdateTableDeletesAVectorIndex) {
  Create(Docs(DistanceFunction::kCosine, 2));
  Put("Docs", {{"id", S("a")}, {"tenant", S("t")}, {"embedding", Vector({1, 0})}});
  UpdateTableRequest provisioned{.table_name = "Docs",
                                 .billing_mode = BillingMode::kProvisioned,
                                 .provisioned_throughput = ProvisionedThroughput{1, 1}};
  EXPECT_EQ(
      db_->UpdateTable(provisioned).status().message(),
      std::string(kParamsInvalid) + "Vector indexes are only supported for PAY_PER_REQUEST tables");
  UpdateTableRequest both{.table_name = "Docs"};
  both.vector_index_updates = std::vector<VectorIndexUpdate>{{.delete_index_name = "ByTenant"},
                                                             {.delete_index_name = "Everything"}};
  EXPECT_EQ(db_->UpdateTable(both).status().code(), Status::Code::kLimitExceeded);
  UpdateTableRequest missing{.table_name = "Docs"};
  missing.vector_index_updates = std::vector<VectorIndexUpdate>{{.delete_index_name = "Nope"}};
  EXPECT_EQ(db_->UpdateTable(missing).status().code(), Status::Code::kResourceNotFound);
  UpdateTableRequest del{.table_name = "Docs"};
  del.vector_index_updates = std::vector<VectorIndexUpdate>{{.delete_index_name = "Everything"}};
  ASSERT_OK(db_->UpdateTable(del));
  auto d = db_->DescribeTable({"Docs"});
  ASSERT_OK(d);
  ASSERT_EQ(d->table.vector_indexes->size(), 1u);
  EXPECT_EQ((*d->table.vector_indexes)[0].index_name, "ByTenant");
  EXPECT_EQ((*d->table.vector_indexes)[0].item_count, 1);
  SearchVectorsRequest s{.table_name = "Docs",
                         .index_name = "Everything",
                         .search_vector = {Decimal(1), Decimal(0)},
                         .top_k = 1};
  EXPECT_EQ(db_->SearchVectors(s).status().message(),
            "The table does not have the specified index: Everything");
  Reopen();
  del.vector_index_updates = std::vector<VectorIndexUpdate>{{.delete_index_name = "ByTenant"}};
  ASSERT_OK(db_->UpdateTable(del));
  // No vector index checks the attribute any more.
  Put("Docs", {{"id", S("b")}, {"embedding", S("not a vector")}});
  auto after = db_->DescribeTable({"Docs"});
  ASSERT_OK(after);
  EXPECT_FALSE(after->table.vector_indexes);
}

TEST_F(VectorIndexTest, WriteTimeChecksAndSparseItems) {
  Create(Docs(DistanceFunction::kCosine, 3));
  auto put = [&](Item item) { return db_->PutItem({.table_name = "Docs", .item = item}).status(); };
  EXPECT_EQ(put({{"id", S("a")}, {"embedding", Vector({1, 2})}}).message(),
            "One or more parameter values were invalid. Invalid size for parameter embedding, "
            "Expected: 3, Actual: 2 IndexName: ByTenant");
  EXPECT_EQ(put({{"id", S("a")}, {"tenant", AttributeValue::N(Number::FromInt64(1))}}).message(),
            "One or more parameter values were invalid. Attribute 'tenant' type mismatch. "
            "Expected: S, Actual: N. IndexName: ByTenant");
  EXPECT_EQ(put({{"id", S("a")}, {"tenant", S("")}}).code(), Status::Code::kValidation);
  // Without the vector, or without the HASH attribute: written, and only
  // in the indexes it fits.
  ASSERT_OK(put({{"id", S("no-vector")}, {"tenant", S("t")}}));
  ASSERT_OK(put({{"id", S("no-tenant")}, {"embedding", Vector({1, 0, 0})}}));
  auto d = db_->DescribeTable({"Docs"});
  ASSERT_OK(d);
  EXPECT_EQ((*d->table.vector_indexes)[0].item_count, 0);
  EXPECT_EQ((*d->table.vector_indexes)[1].item_count, 1);
  // The HASH index needs its condition; the other takes none.
  SearchVectorsRequest s{.table_name = "Docs",
                         .index_name = "ByTenant",
                         .search_vector = {Decimal(1), Decimal(0), Decimal(0)},
                         .top_k = 3};
  EXPECT_EQ(db_->SearchVectors(s).status().message(),
            "SearchConditionExpression must be provided when SearchSchema has a HASH key");
  s.index_name = "Everything";
  auto found = db_->SearchVectors(s);
  ASSERT_OK(found);
  ASSERT_EQ(found->search_results.size(), 1u);
  EXPECT_EQ(found->search_results[0].item.at("id"), S("no-tenant"));
  EXPECT_EQ(found->search_results[0].score, 0.0);
  EXPECT_FALSE(found->search_results[0].item.count("embedding"));  // only when projected
}

// ConsumedCapacity.VectorIndexes: each index whose entry a write changes,
// with the entry's bytes (at least 1,024); nothing for an index the write
// leaves alone.
TEST_F(VectorIndexTest, WritesReportTheVectorBytesTheySpend) {
  constexpr int kDims = 300;  // 1,200 bytes of vector: over the 1 KB floor
  Create(Docs(DistanceFunction::kEuclidean, kDims));
  std::vector<float> v(kDims, 0.5f);
  auto capacity = [&](Item item, ReturnConsumedCapacity mode) {
    auto put = db_->PutItem(
        {.table_name = "Docs", .item = std::move(item), .return_consumed_capacity = mode});
    EXPECT_OK(put);
    return put.ok() ? put->consumed_capacity : std::nullopt;
  };
  // Both indexes: ByTenant projects ALL (the item), Everything KEYS_ONLY.
  auto both = capacity({{"id", S("a")}, {"tenant", S("t")}, {"embedding", Vector(v)}},
                       ReturnConsumedCapacity::kTotal);
  ASSERT_TRUE(both && both->vector_indexes);
  const auto& by_index = *both->vector_indexes;
  ASSERT_EQ(by_index.size(), 2u);
  const int64_t keys_only = *by_index.at("Everything").vector_write_request_bytes;
  const int64_t all = *by_index.at("ByTenant").vector_write_request_bytes;
  // 4 bytes per dimension, the vector attribute's name, the projection.
  EXPECT_EQ(keys_only, 4 * kDims + 9 + 3);  // "embedding", id "a"
  EXPECT_EQ(all, 4 * kDims + 9 + 3 + 7);    // and tenant "t"
  EXPECT_FALSE(by_index.at("Everything").vector_search_request_bytes);
  // Without a HASH attribute: only the index that takes it.
  auto one = capacity({{"id", S("b")}, {"embedding", Vector(v)}}, ReturnConsumedCapacity::kIndexes);
  ASSERT_TRUE(one && one->vector_indexes);
  EXPECT_EQ(one->vector_indexes->size(), 1u);
  EXPECT_TRUE(one->vector_indexes->count("Everything"));
  EXPECT_EQ(one->write_capacity_units, 1);  // the item (915 B): the vector bytes are apart
  // Without a vector, or with NONE: no VectorIndexes.
  auto none = capacity({{"id", S("c")}, {"tenant", S("t")}}, ReturnConsumedCapacity::kTotal);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->vector_indexes);
  EXPECT_FALSE(capacity({{"id", S("d")}, {"embedding", Vector(v)}}, ReturnConsumedCapacity::kNone));
  // An update that changes no entry (a key-only projection, an attribute
  // it does not hold) spends nothing on that index; the ALL one changes.
  auto update =
      db_->UpdateItem({.table_name = "Docs",
                       .key = {{"id", S("a")}},
                       .update_expression = "SET note = :n",
                       .expression_attribute_values = ExpressionAttributeValues{{":n", S("x")}},
                       .return_consumed_capacity = ReturnConsumedCapacity::kTotal});
  ASSERT_OK(update);
  ASSERT_TRUE(update->consumed_capacity && update->consumed_capacity->vector_indexes);
  EXPECT_EQ(update->consumed_capacity->vector_indexes->size(), 1u);
  EXPECT_EQ(*update->consumed_capacity->vector_indexes->at("ByTenant").vector_write_request_bytes,
            all + 4 + 1);  // note "x"
  // A small vector still costs 1 KB; a delete costs its entry.
  auto del = db_->DeleteItem({.table_name = "Docs",
                              .key = {{"id", S("b")}},
                              .return_consumed_capacity = ReturnConsumedCapacity::kTotal});
  ASSERT_OK(del);
  ASSERT_TRUE(del->consumed_capacity && del->consumed_capacity->vector_indexes);
  EXPECT_EQ(*del->consumed_capacity->vector_indexes->at("Everything").vector_write_request_bytes,
            keys_only);
  // Batches add up per table.
  BatchWriteItemRequest batch;
  for (const char* id : {"e", "f"}) {
    batch.request_items["Docs"].push_back(
        WriteRequest{.put_request = PutRequest{{{"id", S(id)}, {"embedding", Vector(v)}}}});
  }
  batch.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
  auto batched = db_->BatchWriteItem(batch);
  ASSERT_OK(batched);
  ASSERT_EQ(batched->consumed_capacity.size(), 1u);
  ASSERT_TRUE(batched->consumed_capacity[0].vector_indexes);
  EXPECT_EQ(
      *batched->consumed_capacity[0].vector_indexes->at("Everything").vector_write_request_bytes,
      2 * keys_only);
}

TEST_F(VectorIndexTest, SmallVectorsCostAtLeastOneKilobyte) {
  Create(Docs(DistanceFunction::kEuclidean, 3));
  auto put = db_->PutItem({.table_name = "Docs",
                           .item = {{"id", S("a")}, {"embedding", Vector({1, 2, 3})}},
                           .return_consumed_capacity = ReturnConsumedCapacity::kTotal});
  ASSERT_OK(put);
  ASSERT_TRUE(put->consumed_capacity && put->consumed_capacity->vector_indexes);
  EXPECT_EQ(*put->consumed_capacity->vector_indexes->at("Everything").vector_write_request_bytes,
            1024);
}

TEST_F(VectorIndexTest, SearchRequestErrors) {
  Create(Docs(DistanceFunction::kEuclidean, 2));
  SearchVectorsRequest s{.table_name = "Docs",
                         .index_name = "ByTenant",
                         .search_vector = {Decimal(1), Decimal(0)},
                         .top_k = 101};
  s.search_condition_expression = "tenant = :t";
  s.expression_attribute_values = ExpressionAttributeValues{{":t", S("a")}, {":n", Decimal(1)}};
  auto error = [&](auto change) {
    SearchVectorsRequest r = s;
    change(&r);
    return db_->SearchVectors(r).status().message();
  };
  EXPECT_EQ(error([](SearchVectorsRequest*) {}),
            "Provided TopK value '101' is out of valid range. The value must be between 1 and "
            "100 inclusive");
  s.top_k = 5;
  s.expression_attribute_values->erase(":n");
  EXPECT_EQ(error([](SearchVectorsRequest* r) { r->search_condition_expression = "tenant > :t"; }),
            "Invalid SearchConditionExpression: Invalid comparator used in "
            "SearchConditionExpression");
  EXPECT_EQ(error([](SearchVectorsRequest* r) { r->search_condition_expression = "id = :t"; }),
            "SearchConditionExpression must not contain any attributes that is not in "
            "SearchSchema. Invalid attribute: id");
  EXPECT_EQ(error([](SearchVectorsRequest* r) {
              r->search_condition_expression = "tenant = :t AND tenant = :t";
            }),
            "Invalid SearchConditionExpression: SearchConditionExpression must only contain one "
            "condition per attribute");
  EXPECT_EQ(
      error([](SearchVectorsRequest* r) { (*r->expression_attribute_values)[":t"] = Decimal(3); }),
      "Type of 'tenant' attribute in SearchConditionExpression (N) does not match type in "
      "search schema (S)");
  EXPECT_EQ(error([](SearchVectorsRequest* r) { r->search_vector = {Decimal(1)}; }),
            "Input search vector dimension 1 does not match vector index dimension 2");
  EXPECT_EQ(error([](SearchVectorsRequest* r) {
              r->search_vector = {S("1"), Decimal(1)};
            }),
            "Search vector contains invalid values. All values in the search vector must be a "
            "32-bit floating-point number attribute");
  EXPECT_EQ(error([](SearchVectorsRequest* r) { r->index_name = "Nope"; }),
            "The table does not have the specified index: Nope");
  EXPECT_EQ(
      db_
          ->SearchVectors(SearchVectorsRequest{
              .table_name = "Nope", .index_name = "Nope", .search_vector = {Decimal(1)}, .top_k = 1})
          .status()
          .code(),
      Status::Code::kResourceNotFound);
}

// Random items, overwrites and deletes; each search returns exactly the
// TopK a brute-force scoring of the table's items gives (ties by key).
TEST_F(VectorIndexTest, SearchesMatchABruteForceScoring) {
  const uint64_t seed = testing::TestSeed("VectorIndexTest.SearchesMatchABruteForceScoring");
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> gauss;
  for (DistanceFunction d :
       {DistanceFunction::kCosine, DistanceFunction::kEuclidean, DistanceFunction::kDotProduct}) {
    if (d != DistanceFunction::kCosine) ASSERT_OK(db_->DeleteTable({.table_name = "Docs"}));
    constexpr int kDims = 6;
    Create(Docs(d, kDims));
    std::map<std::string, Item> items;
    auto random_item = [&](const std::string& id) {
      Item item{{"id", S(id)}};
      if (rng() % 10) {
        std::vector<float> v(kDims);
        // Rounded to 2 decimals (as written and as searched): f32 exact enough
        // for equal scores to tie.
        for (float& x : v) x = std::round(gauss(rng) * 4) / 4;
        item["embedding"] = Vector(v);
      }
      if (rng() % 8) item["tenant"] = S(rng() % 2 ? "acme" : "globex");
      if (rng() % 2) item["lang"] = S(rng() % 2 ? "en" : "fr");
      item["n"] = Decimal(static_cast<double>(rng() % 100));
      return item;
    };
    for (int i = 0; i < 300; ++i) {
      const std::string id = "d" + std::to_string(rng() % 200);
      if (rng() % 6 == 0) {
        ASSERT_OK(db_->DeleteItem({.table_name = "Docs", .key = {{"id", S(id)}}}));
        items.erase(id);
      } else {
        items[id] = random_item(id);
        Put("Docs", items[id]);
      }
    }
    const format::VectorDistance distance = static_cast<format::VectorDistance>(d);
    for (int round = 0; round < 40; ++round) {
      std::vector<float> query(kDims);
      for (float& x : query) x = std::round(gauss(rng) * 4) / 4;
      SearchVectorsRequest s{.table_name = "Docs", .index_name = "ByTenant", .top_k = 1};
      for (float x : query) s.search_vector.push_back(Decimal(x));
      s.top_k = static_cast<int32_t>(1 + rng() % 12);
      const std::string tenant = rng() % 2 ? "acme" : "globex";
      std::optional<std::string> lang;
      if (rng() % 2) lang = rng() % 2 ? "en" : "fr";
      s.search_condition_expression = "tenant = :t";
      s.expression_attribute_values = ExpressionAttributeValues{{":t", S(tenant)}};
      if (lang) {
        *s.search_condition_expression += " AND lang = :l";
        (*s.expression_attribute_values)[":l"] = S(*lang);
      }
      // Brute force: the table's items in key order (the entries' order
      // within one tenant: by the encoded id, which is the id's bytes).
      std::vector<std::pair<double, std::string>> scored;
      for (const auto& [id, item] : items) {
        if (!item.count("embedding") || !item.count("tenant") || item.at("tenant").s() != tenant) {
          continue;
        }
        if (lang && (!item.count("lang") || item.at("lang").s() != *lang)) continue;
        std::vector<float> v;
        ASSERT_OK(format::ToVector(item.at("embedding"), kDims, "embedding", "x", &v));
        scored.emplace_back(format::VectorScore(distance, query, v), id);
      }
      std::stable_sort(scored.begin(), scored.end(), [&](const auto& a, const auto& b) {
        return format::ScoresBefore(distance, a.first, b.first);
      });
      scored.resize(std::min<size_t>(scored.size(), static_cast<size_t>(s.top_k)));
      auto got = db_->SearchVectors(s);
      ASSERT_OK(got);
      ASSERT_EQ(got->search_results.size(), scored.size()) << "seed " << seed;
      for (size_t i = 0; i < scored.size(); ++i) {
        EXPECT_EQ(got->search_results[i].item.at("id").s(), scored[i].second)
            << "seed " << seed << " round " << round << " rank " << i;
        EXPECT_EQ(got->search_results[i].score, scored[i].first);
      }
    }
    // The index's totals are the table's items that have a vector.
    auto described = db_->DescribeTable({"Docs"});
    ASSERT_OK(described);
    int64_t with_vector = 0;
    for (const auto& [id, item] : items) with_vector += item.count("embedding");
    EXPECT_EQ((*described->table.vector_indexes)[1].item_count, with_vector);
  }
}

// Above Options::vector_exact_limit a collection is searched through an
// HNSW graph: built in the background once a search finds the collection
// that large, kept current by every write, rebuilt by the survey at Open.
// Its answers reach the recall goal against brute force, never hold an
// entry the index no longer has, score what they return exactly, and a
// filtered search still finds TopK matches when they exist.
TEST_F(VectorIndexTest, LargeCollectionsAreSearchedThroughAGraph) {
  options_.vector_exact_limit = 150;
  options_.vector_graph_ef_search = 64;
  Reopen();
  const uint64_t seed =
      testing::TestSeed("VectorIndexTest.LargeCollectionsAreSearchedThroughAGraph");
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> gauss;
  constexpr int kDims = 8;
  Create(Docs(DistanceFunction::kEuclidean, kDims));
  // Clustered: 12 centres, each item near one.
  std::vector<std::vector<float>> centres(12, std::vector<float>(kDims));
  for (auto& c : centres) {
    for (float& x : c) x = gauss(rng) * 4;
  }
  std::map<std::string, Item> items;
  auto random_item = [&](const std::string& id) {
    const auto& c = centres[rng() % centres.size()];
    std::vector<float> v(kDims);
    for (int d = 0; d < kDims; ++d) v[d] = std::round((c[d] + gauss(rng)) * 64) / 64;
    Item item{{"id", S(id)}, {"embedding", Vector(v)}};
    item["tenant"] = S(rng() % 2 ? "acme" : "globex");
    if (rng() % 4 == 0) item["lang"] = S("fr");
    return item;
  };
  for (int i = 0; i < 900; ++i) {
    const std::string id = "d" + std::to_string(i);
    items[id] = random_item(id);
    Put("Docs", items[id]);
  }
  auto search = [&](const std::string& index, const std::vector<float>& query, int top_k,
                    std::optional<std::string> tenant, bool french) {
    SearchVectorsRequest s{.table_name = "Docs", .index_name = index, .top_k = top_k};
    for (float x : query) s.search_vector.push_back(Decimal(x));
    if (tenant) {
      s.search_condition_expression = "tenant = :t";
      s.expression_attribute_values = ExpressionAttributeValues{{":t", S(*tenant)}};
      if (french) {
        *s.search_condition_expression += " AND lang = :l";
        (*s.expression_attribute_values)[":l"] = S("fr");
      }
    }
    auto got = db_->SearchVectors(s);
    EXPECT_OK(got);
    std::vector<std::pair<double, std::string>> out;
    if (got.ok()) {
      for (const auto& r : got->search_results) out.emplace_back(r.score, r.item.at("id").s());
    }
    return out;
  };
  auto brute = [&](const std::vector<float>& query, size_t top_k, std::optional<std::string> tenant,
                   bool french) {
    std::vector<std::pair<double, std::string>> scored;
    for (const auto& [id, item] : items) {
      if (tenant && item.at("tenant").s() != *tenant) continue;
      if (french && !item.count("lang")) continue;
      std::vector<float> v;
      EXPECT_OK(format::ToVector(item.at("embedding"), kDims, "embedding", "x", &v));
      scored.emplace_back(format::VectorScore(format::VectorDistance::kEuclidean, query, v), id);
    }
    std::stable_sort(scored.begin(), scored.end());
    scored.resize(std::min(scored.size(), top_k));
    return scored;
  };
  auto random_query = [&] {
    const auto& c = centres[rng() % centres.size()];
    std::vector<float> q(kDims);
    // (1/16ths: exact in the 6 digits Decimal writes)
    for (int d = 0; d < kDims; ++d) q[d] = std::round((c[d] + gauss(rng)) * 16) / 16;
    return q;
  };
  // Each search's results against brute force: recall@10 over the rounds,
  // and every returned score exact.
  auto check = [&](const char* when) {
    size_t hits = 0, wanted = 0, filtered_hits = 0, filtered_wanted = 0;
    for (int round = 0; round < 30; ++round) {
      const std::vector<float> q = random_query();
      const bool by_tenant = round % 2 == 0;
      const std::optional<std::string> tenant =
          by_tenant ? std::optional<std::string>(rng() % 2 ? "acme" : "globex") : std::nullopt;
      auto got = search(by_tenant ? "ByTenant" : "Everything", q, 10, tenant, false);
      auto want = brute(q, 10, tenant, false);
      ASSERT_EQ(got.size(), want.size()) << when;
      std::set<std::string> truth;
      for (const auto& [score, id] : want) truth.insert(id);
      for (const auto& [score, id] : got) {
        hits += truth.count(id);
        ASSERT_TRUE(items.count(id)) << when << ": " << id << " is no longer in the table";
        std::vector<float> v;
        ASSERT_OK(format::ToVector(items[id].at("embedding"), kDims, "embedding", "x", &v));
        EXPECT_EQ(score, format::VectorScore(format::VectorDistance::kEuclidean, q, v)) << when;
      }
      wanted += want.size();
      // A selective filter: TopK matches, when that many exist, and the
      // nearest ones (a graph search widens its candidates until TopK match).
      auto filtered = search("ByTenant", q, 10, "acme", true);
      auto filtered_want = brute(q, 10, std::string("acme"), true);
      EXPECT_EQ(filtered.size(), filtered_want.size()) << when;
      std::set<std::string> filtered_truth;
      for (const auto& [score, id] : filtered_want) filtered_truth.insert(id);
      for (const auto& [score, id] : filtered) {
        EXPECT_TRUE(items[id].count("lang")) << when;
        filtered_hits += filtered_truth.count(id);
      }
      filtered_wanted += filtered_want.size();
    }
    EXPECT_GE(static_cast<double>(hits) / static_cast<double>(wanted), 0.95)
        << when << ", seed " << seed;
    EXPECT_GE(static_cast<double>(filtered_hits) / static_cast<double>(filtered_wanted), 0.95)
        << when << " (filtered), seed " << seed;
  };
  check("exact");  // below: these searches found the collections large enough
  ASSERT_OK(db_->WaitForVectorGraphs());
  MemoryUsage memory = db_->GetMemoryUsage();
  EXPECT_EQ(memory.vector_graph_nodes, 900u + 900u);  // two tenants' graphs, and Everything's
  EXPECT_GT(memory.vector_graph_bytes, 900u * 2 * kDims * sizeof(float));
  check("graph");
  // Writes change the graphs before they are acknowledged.
  for (int i = 0; i < 400; ++i) {
    const std::string id = "d" + std::to_string(rng() % 1100);
    if (rng() % 3 == 0) {
      ASSERT_OK(db_->DeleteItem({.table_name = "Docs", .key = {{"id", S(id)}}}));
      items.erase(id);
    } else {
      items[id] = random_item(id);
      Put("Docs", items[id]);
    }
  }
  check("graph after writes");
  // The survey at Open rebuilds them.
  Reopen();
  ASSERT_OK(db_->WaitForVectorGraphs());
  memory = db_->GetMemoryUsage();
  EXPECT_EQ(memory.vector_graph_nodes, 2 * items.size());
  check("graph rebuilt at Open");
}

}  // namespace
}  // namespace dynarock
