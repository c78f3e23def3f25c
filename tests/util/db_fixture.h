// A fresh on-disk database per test, in a temporary directory removed after.
#ifndef DYNAROCK_TESTS_UTIL_DB_FIXTURE_H_
#define DYNAROCK_TESTS_UTIL_DB_FIXTURE_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "dynarock/db.h"
#include "tests/util/status_matchers.h"

namespace dynarock::testing {

inline std::string MakeTempDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "dynarock-test-XXXXXX").string();
  char* dir = mkdtemp(templ.data());
  EXPECT_NE(dir, nullptr);
  return templ;
}

inline Number Num(std::string_view s) {
  auto n = Number::Parse(s);
  EXPECT_OK(n);
  return n.ok() ? *n : Number();
}
inline AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
inline AttributeValue N(std::string_view s) { return AttributeValue::N(Num(s)); }
inline AttributeValue B(std::string s) { return AttributeValue::B(std::move(s)); }

// A table keyed (pk_name: pk_type [, sk_name: sk_type]), on demand billing.
inline CreateTableRequest TableRequest(const std::string& name, const std::string& pk,
                                       ScalarAttributeType pk_type,
                                       std::optional<std::string> sk = std::nullopt,
                                       ScalarAttributeType sk_type = ScalarAttributeType::kS) {
  CreateTableRequest r;
  r.table_name = name;
  r.key_schema.push_back({pk, KeyType::kHash});
  r.attribute_definitions.push_back({pk, pk_type});
  if (sk) {
    r.key_schema.push_back({*sk, KeyType::kRange});
    r.attribute_definitions.push_back({*sk, sk_type});
  }
  r.billing_mode = BillingMode::kPayPerRequest;
  return r;
}

class DbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    Reopen();
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen() {
    db_.reset();
    auto db = Database::Open(dir_, options_);
    ASSERT_OK(db);
    db_ = std::move(db).value();
  }
  void Create(const CreateTableRequest& r) {
    auto created = db_->CreateTable(r);
    ASSERT_OK(created);
  }
  void Put(const std::string& table, Item item) {
    auto put = db_->PutItem({.table_name = table, .item = std::move(item)});
    ASSERT_OK(put);
  }

  std::string dir_;
  Options options_;
  std::unique_ptr<Database> db_;
};

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_DB_FIXTURE_H_
