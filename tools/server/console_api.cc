#include "tools/server/console_api.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <string>

#include "format/json.h"
#include "tools/server/json_writers.h"
#include "tools/server/sigv4.h"

namespace dynarock::console {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// A client's text quoted back in an error message when it is short,
// printable ASCII; otherwise not (the answer stays valid UTF-8 JSON).
std::string Quoted(std::string_view s) {
  const bool printable = s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
                           return c >= 0x20 && c < 0x7f;
                         });
  return printable ? "'" + std::string(s) + "'" : "(not shown)";
}

// A query's parameters, each name once (decoded), or the error to answer.
Result<std::map<std::string, std::string>> ReadQuery(std::string_view query,
                                                     std::initializer_list<std::string_view> known) {
  std::map<std::string, std::string> params;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    std::string name = server::PercentDecode(part.substr(0, eq));
    std::string value = eq == std::string_view::npos ? "" : server::PercentDecode(part.substr(eq + 1));
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string names;
      for (auto k : known) names += std::string(names.empty() ? "" : ", ") + std::string(k);
      return Status::Validation("Unknown parameter " + Quoted(name) + ": this endpoint takes " +
                                names);
    }
    if (!params.emplace(name, std::move(value)).second) {
      return Status::Validation("Parameter '" + name + "' is given more than once");
    }
  }
  return params;
}

// An integer parameter within [low, high], or its default when absent.
Result<int64_t> IntParam(const std::map<std::string, std::string>& params, const std::string& name,
                         int64_t low, int64_t high, int64_t absent) {
  auto it = params.find(name);
  if (it == params.end()) return absent;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < low || v > high) {
    return Status::Validation("Parameter '" + name + "' must be a whole number from " +
                              std::to_string(low) + " to " + std::to_string(high) + ", not " + Quoted(s));
  }
  return v;
}

// The partition key attribute of the table, or of its index `index`.
std::string KeyName(const TableDescription& t, const std::optional<std::string>& index) {
  if (index && t.global_secondary_indexes) {
    for (const auto& g : *t.global_secondary_indexes) {
      if (g.index_name == *index) return g.key_schema[0].attribute_name;
    }
  }
  return t.key_schema[0].attribute_name;
}

wire::WireResponse Hottest(Database* db, std::string_view query) {
  auto params = ReadQuery(query, {"table", "limit", "window"});
  if (!params.ok()) return wire::ErrorResponse(params.status());
  auto limit = IntParam(*params, "limit", 1, 100, 10);
  if (!limit.ok()) return wire::ErrorResponse(limit.status());
  const int64_t max_window_s = static_cast<int64_t>(kTrafficSlices) * kTrafficSliceMs / 1000;
  auto window = IntParam(*params, "window", 1, max_window_s, 60);
  if (!window.ok()) return wire::ErrorResponse(window.status());

  std::vector<std::string> tables;
  const bool one = params->count("table") != 0;
  if (one) {
    // DynamoDB's table-name rule, checked before the name is looked up or
    // quoted back (a query can carry any bytes).
    const std::string& name = params->at("table");
    const bool valid = name.size() >= 3 && name.size() <= 255 &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                                c == '-' || c == '.';
                       });
    if (!valid) {
      return wire::ErrorResponse(Status::Validation(
          "Parameter 'table' must be a table name: 3 to 255 characters of a-z, A-Z, 0-9, '_', "
          "'-' and '.'"));
    }
    tables.push_back(name);
  } else {
    ListTablesRequest list;
    for (;;) {
      auto page = db->ListTables(list);
      if (!page.ok()) return wire::ErrorResponse(page.status());
      tables.insert(tables.end(), page->table_names.begin(), page->table_names.end());
      if (!page->last_evaluated_table_name) break;
      list.exclusive_start_table_name = page->last_evaluated_table_name;
    }
  }
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  int64_t window_ms = *window * 1000;
  // The "Tables" array, written after the covered window is known.
  rapidjson::StringBuffer tables_buf;
  Writer tw(tables_buf);
  tw.StartArray();
  for (const auto& name : tables) {
    auto described = db->DescribeTable({.table_name = name});
    auto hottest = described.ok() ? db->HottestCollections(name, static_cast<size_t>(*limit),
                                                           *window * 1000)
                                   : Result<HottestCollectionsResponse>(described.status());
    if (!hottest.ok()) {
      // A table deleted since ListTables is left out; a named one is an error.
      if (!one && hottest.status().code() == Status::Code::kResourceNotFound) continue;
      return wire::ErrorResponse(hottest.status());
    }
    window_ms = hottest->window_ms;
    tw.StartObject();
    tw.Key("TableName");
    wire::Str(tw, name);
    tw.Key("Collections");
    tw.StartArray();
    for (const auto& c : hottest->collections) {
      tw.StartObject();
      if (c.index_name) {
        tw.Key("IndexName");
        wire::Str(tw, *c.index_name);
      }
      tw.Key("Key");
      const std::string key =
          format::ToJson(Item{{KeyName(described->table, c.index_name), c.partition_key_value}});
      tw.RawValue(key.data(), key.size(), rapidjson::kObjectType);
      tw.Key("ReadUnits");
      tw.Double(c.read_units);
      tw.Key("WriteUnits");
      tw.Double(c.write_units);
      tw.Key("Units");
      tw.Double(c.units);
      tw.Key("ErrorBound");
      tw.Double(c.error_bound);
      tw.EndObject();
    }
    tw.EndArray();
    tw.EndObject();
  }
  tw.EndArray();
  w.Key("WindowSeconds");
  w.Double(static_cast<double>(window_ms) / 1000.0);
  w.Key("Tables");
  w.RawValue(tables_buf.GetString(), tables_buf.GetSize(), rapidjson::kArrayType);
  w.EndObject();
  return {200, std::string(buf.GetString(), buf.GetSize())};
}

}  // namespace

bool IsApiPath(std::string_view path) { return path.starts_with(kApiPrefix); }

wire::WireResponse HandleApi(Database* db, std::string_view path, std::string_view query) {
  const std::string_view endpoint = path.substr(kApiPrefix.size());
  if (endpoint == "hottest") return Hottest(db, query);
  return {404,
          R"({"__type":"com.amazon.coral.service#UnknownOperationException",)"
          R"("message":"No such console endpoint: the endpoints are /console/api/hottest"})"};
}

}  // namespace dynarock::console
