// A table's definition as dumps store it: CreateTable's request JSON (what
// `aws dynamodb create-table --cli-input-json` takes), plus TTL:
//
//   {"TableName":"Telemetry","KeySchema":[...],"AttributeDefinitions":[...],
//    "BillingMode":"PAY_PER_REQUEST","LocalSecondaryIndexes":[...],
//    "GlobalSecondaryIndexes":[...],"VectorIndexes":[...],
//    "Tags":[{"Key":"team","Value":"fleet"}],
//    "TimeToLiveSpecification":{"AttributeName":"expiresAt","Enabled":true}}
//
// `dynarock restore --table-definition FILE` reads the same shape, so a
// CreateTable JSON written by hand restores an AWS export.
#ifndef DYNAROCK_TOOLS_SERVER_TABLE_DEFINITION_H_
#define DYNAROCK_TOOLS_SERVER_TABLE_DEFINITION_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "dynarock/types.h"

namespace dynarock::wire {

struct TableDefinition {
  CreateTableRequest table;
  std::optional<std::string> ttl_attribute;  // TTL enabled on it
};

// `resource_policy`: the table's resource-based policy, as CreateTable's
// ResourcePolicy (a stream's is not kept: a restored table's stream is new).
std::string TableDefinitionJson(const TableDescription& table,
                                const std::map<std::string, std::string>& tags,
                                const std::optional<std::string>& ttl_attribute,
                                const std::optional<std::string>& resource_policy = std::nullopt);

// Reads the JSON with the CreateTable request reader the server uses (so
// its type and constraint errors are DynamoDB's); unknown members are
// ignored, as DynamoDB ignores them. SerializationException for text that is
// not JSON; ValidationException for a bad TimeToLiveSpecification.
Result<TableDefinition> ParseTableDefinition(std::string_view json);

}  // namespace dynarock::wire

#endif  // DYNAROCK_TOOLS_SERVER_TABLE_DEFINITION_H_
