// `dynarock restore --table-definition FILE` and the dumps'
// table-definition.json (tools/server/table_definition.h): any bytes are a
// clean error or a definition; one that parses writes back to JSON that
// parses to the same request.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "tools/server/table_definition.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto parsed = dynarock::wire::ParseTableDefinition(in);
  if (!parsed.ok()) return 0;
  // Write it back as a dump would describe the table, and read it again.
  const auto& t = parsed->table;
  dynarock::TableDescription d;
  d.table_name = t.table_name;
  d.key_schema = t.key_schema;
  d.attribute_definitions = t.attribute_definitions;
  d.billing_mode = t.billing_mode.value_or(dynarock::BillingMode::kProvisioned);
  if (t.provisioned_throughput) d.provisioned_throughput = *t.provisioned_throughput;
  std::map<std::string, std::string> tags;
  if (t.tags) tags = *t.tags;
  auto again = dynarock::wire::ParseTableDefinition(
      dynarock::wire::TableDefinitionJson(d, tags, parsed->ttl_attribute));
  if (!again.ok()) return 0;  // e.g. PROVISIONED without throughput: CreateTable's rule, later
  if (again->table.table_name != t.table_name ||
      again->table.key_schema.size() != t.key_schema.size() ||
      again->ttl_attribute != parsed->ttl_attribute || again->table.tags.value_or(tags) != tags) {
    std::abort();
  }
  return 0;
}
