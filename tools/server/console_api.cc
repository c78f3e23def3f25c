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
                                (names.empty() ? std::string("none") : names));
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

// A table or index name parameter, checked by DynamoDB's naming rule
// (`min` to 255 of a-z, A-Z, 0-9, '_', '-', '.') before it is looked up or
// quoted back: a query can carry any bytes.
Result<std::string> NameParam(const std::map<std::string, std::string>& params,
                              const std::string& param, size_t min) {
  const std::string& name = params.at(param);
  const bool valid = name.size() >= min && name.size() <= 255 &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                              c == '-' || c == '.';
                     });
  if (!valid) {
    return Status::Validation("Parameter '" + param + "' must be a" +
                              (param == "table" ? " table" : "n index") + " name: " +
                              std::to_string(min) +
                              " to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'");
  }
  return name;
}

// The partition key attribute of the table, or of its index `index`.
// The partition key attributes of the table or of its GSI `index` (a
// multi-attribute GSI has up to four), in KeySchema order.
std::vector<std::string> KeyNames(const TableDescription& t,
                                  const std::optional<std::string>& index) {
  const std::vector<KeySchemaElement>* ks = &t.key_schema;
  if (index && t.global_secondary_indexes) {
    for (const auto& g : *t.global_secondary_indexes) {
      if (g.index_name == *index) ks = &g.key_schema;
    }
  }
  std::vector<std::string> names;
  for (const auto& e : *ks) {
    if (e.key_type == KeyType::kHash) names.push_back(e.attribute_name);
  }
  return names;
}

// The names of the table's indexes, LSIs first, as DescribeTable lists them.
std::vector<std::string> IndexNames(const TableDescription& t) {
  std::vector<std::string> names;
  if (t.local_secondary_indexes) {
    for (const auto& l : *t.local_secondary_indexes) names.push_back(l.index_name);
  }
  if (t.global_secondary_indexes) {
    for (const auto& g : *t.global_secondary_indexes) names.push_back(g.index_name);
  }
  // Vector indexes with a HASH search attribute: a collection per value.
  if (t.vector_indexes) {
    for (const auto& v : *t.vector_indexes) {
      for (const auto& e : v.search_schema.value_or(std::vector<SearchSchemaElement>{})) {
        if (e.search_schema_element_type == SearchSchemaElementType::kHash) {
          names.push_back(v.index_name);
        }
      }
    }
  }
  return names;
}

// A collection's members: "IndexName" (an index's collection), "Key".
void WriteCollection(Writer& w, const std::optional<std::string>& index, const Item& key) {
  if (index) {
    w.Key("IndexName");
    wire::Str(w, *index);
  }
  w.Key("Key");
  const std::string json = format::ToJson(key);
  w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
}

wire::WireResponse Json(const rapidjson::StringBuffer& buf) {
  return {200, std::string(buf.GetString(), buf.GetSize())};
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
    auto name = NameParam(*params, "table", 3);
    if (!name.ok()) return wire::ErrorResponse(name.status());
    tables.push_back(*name);
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
  w.Key("Tables");
  w.StartArray();
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
    w.StartObject();
    w.Key("TableName");
    wire::Str(w, name);
    w.Key("Collections");
    w.StartArray();
    for (const auto& c : hottest->collections) {
      w.StartObject();
      const std::vector<std::string> names = KeyNames(described->table, c.index_name);
      Item key{{names[0], c.partition_key_value}};
      for (size_t i = 0; i + 1 < names.size() && i < c.more_partition_key_values.size(); ++i) {
        key.emplace(names[i + 1], c.more_partition_key_values[i]);
      }
      WriteCollection(w, c.index_name, key);
      w.Key("ReadUnits");
      w.Double(c.read_units);
      w.Key("WriteUnits");
      w.Double(c.write_units);
      w.Key("Units");
      w.Double(c.units);
      w.Key("ErrorBound");
      w.Double(c.error_bound);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  // Known once the tables are read (HottestCollections rounds the window).
  w.Key("WindowSeconds");
  w.Double(static_cast<double>(window_ms) / 1000.0);
  w.EndObject();
  return Json(buf);
}

// GET /console/api/largest?table=T[&limit=N]
wire::WireResponse Largest(Database* db, std::string_view query) {
  auto params = ReadQuery(query, {"table", "limit"});
  if (!params.ok()) return wire::ErrorResponse(params.status());
  if (!params->count("table")) {
    return wire::ErrorResponse(Status::Validation("Parameter 'table' is required"));
  }
  auto table = NameParam(*params, "table", 3);
  if (!table.ok()) return wire::ErrorResponse(table.status());
  auto limit = IntParam(*params, "limit", 1, 100, 10);
  if (!limit.ok()) return wire::ErrorResponse(limit.status());
  auto described = db->DescribeTable({.table_name = *table});
  if (!described.ok()) return wire::ErrorResponse(described.status());
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("TableName");
  wire::Str(w, *table);
  w.Key("Collections");
  w.StartArray();
  std::vector<std::optional<std::string>> parts = {std::nullopt};
  for (auto& name : IndexNames(described->table)) parts.emplace_back(std::move(name));
  for (const auto& index : parts) {
    auto top = index ? db->LargestIndexCollections(*table, *index, static_cast<size_t>(*limit))
                     : db->LargestCollections(*table, static_cast<size_t>(*limit));
    if (!top.ok()) return wire::ErrorResponse(top.status());
    for (const auto& c : *top) {
      w.StartObject();
      WriteCollection(w, index, c.key);
      w.Key("ItemCount");
      w.Int64(c.item_count);
      w.Key("SizeBytes");
      w.Int64(c.size_bytes);
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
  return Json(buf);
}

// GET /console/api/collection?table=T&key=<DynamoDB JSON value>[&index=I]
wire::WireResponse Collection(Database* db, std::string_view query) {
  auto params = ReadQuery(query, {"table", "index", "key"});
  if (!params.ok()) return wire::ErrorResponse(params.status());
  if (!params->count("table") || !params->count("key")) {
    return wire::ErrorResponse(Status::Validation("Parameters 'table' and 'key' are required"));
  }
  DescribeCollectionRequest request;
  auto table = NameParam(*params, "table", 3);
  if (!table.ok()) return wire::ErrorResponse(table.status());
  request.table_name = *table;
  if (params->count("index")) {
    auto index = NameParam(*params, "index", 3);
    if (!index.ok()) return wire::ErrorResponse(index.status());
    request.index_name = *index;
  }
  // One value, or (a multi-attribute GSI's collection) a list of them, one
  // per partition key attribute in KeySchema order.
  const std::string& text = params->at("key");
  const bool list = text.find_first_not_of(" \t\r\n") != std::string::npos &&
                    text[text.find_first_not_of(" \t\r\n")] == '[';
  auto key = format::ParseAttributeValueJson(list ? "{\"L\":" + text + "}" : text);
  if (!key.ok()) {
    return wire::ErrorResponse(Status::Validation(
        "Parameter 'key' must be the partition key value in DynamoDB JSON, such as "
        "{\"S\":\"VEH#V-7741\"}: " + key.status().message()));
  }
  if (list && (key->l().empty() || key->l().size() > 4)) {
    return wire::ErrorResponse(Status::Validation(
        "Parameter 'key' lists one value per partition key attribute: 1 to 4, not " +
        std::to_string(key->l().size())));
  }
  if (list) {
    std::vector<AttributeValue> values = key->l();
    request.partition_key_value = std::move(values[0]);
    request.more_partition_key_values.assign(values.begin() + 1, values.end());
  } else {
    request.partition_key_value = std::move(*key);
  }
  auto about = db->DescribeCollection(request);
  if (!about.ok()) return wire::ErrorResponse(about.status());
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  if (about->statistics) {
    w.Key("ItemCount");
    w.Int64(about->statistics->item_count);
    w.Key("SizeBytes");
    w.Int64(about->statistics->size_bytes);
  }
  w.Key("SizeLimited");
  w.Bool(about->size_limited);
  w.Key("SstFiles");
  w.Int(about->sst_files);
  w.Key("Levels");
  w.StartArray();
  for (int level : about->levels) w.Int(level);
  w.EndArray();
  w.EndObject();
  return Json(buf);
}

wire::WireResponse Config(const Settings& settings, std::string_view query) {
  auto params = ReadQuery(query, {});
  if (!params.ok()) return wire::ErrorResponse(params.status());
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("Region");
  wire::Str(w, settings.region);
  w.Key("Auth");
  w.Bool(settings.auth);
  w.Key("Writes");
  w.Bool(settings.writes);
  w.EndObject();
  return Json(buf);
}

}  // namespace

bool IsApiPath(std::string_view path) { return path.starts_with(kApiPrefix); }

wire::WireResponse HandleApi(Database* db, const Settings& settings, std::string_view path,
                             std::string_view query) {
  const std::string_view endpoint = path.substr(kApiPrefix.size());
  if (endpoint == "hottest") return Hottest(db, query);
  if (endpoint == "largest") return Largest(db, query);
  if (endpoint == "collection") return Collection(db, query);
  if (endpoint == "config") return Config(settings, query);
  return {404,
          R"({"__type":"com.amazon.coral.service#UnknownOperationException",)"
          R"("message":"No such console endpoint: the endpoints are /console/api/hottest, )"
          R"(largest, collection and config"})"};
}

bool IsConsolePath(std::string_view path) {
  return path == "/console" || (path.starts_with("/console/") && !IsApiPath(path));
}

wire::WireResponse HandleConsole(std::string_view path) {
  if (path == "/console") {
    wire::WireResponse r{301, ""};
    r.headers.emplace_back("Location", "/console/");
    return r;
  }
  std::string_view name = path.substr(std::string_view("/console/").size());
  if (name.empty()) name = "index.html";
  const Asset* asset = FindAsset(name);
  if (asset == nullptr) {
    wire::WireResponse r{404, "Not found: the console is at /console/\n"};
    r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    return r;
  }
  wire::WireResponse r{200, std::string(asset->body)};
  r.headers.emplace_back("Content-Type", std::string(asset->content_type));
  // Only the console's own files run, and nothing is framed or sent elsewhere.
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'none'; script-src 'self'; style-src 'self'; "
                         "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
                         "form-action 'none'; frame-ancestors 'none'");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace dynarock::console
