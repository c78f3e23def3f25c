// DynamoDB checks a request without its table before it looks the table up
// (its semantic checks of the request alone come before the table
// lookup, DynamoDB's "pre" checks): a request that is invalid on its face is a
// ValidationException even when its table does not exist, and within the
// "pre" checks the legacy/expression mixing check comes first.
#include <gtest/gtest.h>

#include "dynarock/db.h"
#include "tests/util/db_fixture.h"

namespace dynarock {
namespace {

using testing::DbTest;
using testing::S;

class PhaseOrderTest : public DbTest {};

const Item kKey = {{"pk", S("a")}};

TEST_F(PhaseOrderTest, InvalidExpressionsBeatAMissingTable) {
  struct Case {
    std::string name;
    Status status;
    std::string message_prefix;
  } cases[] = {
      {"GetItem projection",
       db_->GetItem({.table_name = "Nope", .key = kKey, .projection_expression = "a,,b"}).status(),
       "Invalid ProjectionExpression: Syntax error"},
      {"PutItem condition",
       db_->PutItem({.table_name = "Nope", .item = kKey, .condition_expression = "a = "}).status(),
       "Invalid ConditionExpression: Syntax error"},
      {"DeleteItem unused value",
       db_->DeleteItem({.table_name = "Nope",
                        .key = kKey,
                        .condition_expression = "attribute_exists(pk)",
                        .expression_attribute_values = ExpressionAttributeValues{{":u", S("x")}}})
           .status(),
       "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"},
      {"UpdateItem update",
       db_->UpdateItem({.table_name = "Nope", .key = kKey, .update_expression = "SET"}).status(),
       "Invalid UpdateExpression: Syntax error"},
      {"Query unused value",
       db_->Query({.table_name = "Nope",
                   .key_condition_expression = "pk = :v",
                   .expression_attribute_values =
                       ExpressionAttributeValues{{":v", S("a")}, {":u", S("x")}}})
           .status(),
       "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"},
      {"Query key condition operator",
       db_->Query({.table_name = "Nope",
                   .key_condition_expression = "pk = :v OR pk = :v",
                   .expression_attribute_values = ExpressionAttributeValues{{":v", S("a")}}})
           .status(),
       "Invalid operator used in KeyConditionExpression: OR"},
      {"Scan filter",
       db_->Scan({.table_name = "Nope", .filter_expression = "a = :v"}).status(),
       "Invalid FilterExpression: An expression attribute value used in expression is not "
       "defined"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.status.code(), Status::Code::kValidation) << c.name << ": " << c.status;
    EXPECT_EQ(c.status.message().rfind(c.message_prefix, 0), 0u) << c.name << ": " << c.status;
  }
}

TEST_F(PhaseOrderTest, MixingIsTheFirstSemanticCheck) {
  const std::string mixing = "Can not use both expression and non-expression parameters";
  // PutItem: mixing before ReturnValues (VALIDATION.md 5.4).
  auto put = db_->PutItem({.table_name = "Nope",
                           .item = kKey,
                           .return_values = ReturnValue::kAllNew,
                           .condition_expression = "attribute_exists(pk)",
                           .expected = std::map<std::string, ExpectedAttributeValue>{
                               {"pk", {.exists = false}}}});
  EXPECT_EQ(put.status().message().rfind(mixing, 0), 0u) << put.status();
  // Scan: mixing before the Segment/TotalSegments pairing (5.6).
  auto scan = db_->Scan({.table_name = "Nope",
                         .filter_expression = "attribute_exists(a)",
                         .attributes_to_get = std::vector<std::string>{"a"},
                         .segment = 1});
  EXPECT_EQ(scan.status().message().rfind(mixing, 0), 0u) << scan.status();
}

}  // namespace
}  // namespace dynarock
