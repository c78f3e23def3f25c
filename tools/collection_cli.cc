#include "tools/collection_cli.h"

#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "format/item_size.h"
#include "format/json.h"
#include "tools/cli_text.h"

namespace dynarock::cli {
namespace {

struct CollectionArgs {
  std::string db_dir, table, index, from, to, begins_with;
  // One value per partition key attribute: a multi-attribute GSI's
  // collection is named by up to four.
  std::vector<std::string> partition_values;
  bool reverse = false, json = false;
  int64_t limit = 0;  // 0: every item
  std::vector<std::string> attributes;
};

int Fail(const std::string& message) {
  fmt::print(stderr, "error: {}\n", message);
  return 1;
}

// A key value typed from the command line: S as given, N parsed, B base64.
Result<AttributeValue> TypedKey(const std::string& text, ScalarAttributeType type,
                                const std::string& name) {
  switch (type) {
    case ScalarAttributeType::kS:
      return AttributeValue::S(text);
    case ScalarAttributeType::kN: {
      auto n = Number::Parse(text);
      if (!n.ok()) return Status::InvalidArgument(name + " is a number; '" + text + "' is not one");
      return AttributeValue::N(*n);
    }
    case ScalarAttributeType::kB: {
      auto bytes = format::Base64Decode(text);
      if (!bytes.ok()) return Status::InvalidArgument(name + " is binary: give it in base64");
      return AttributeValue::B(*bytes);
    }
  }
  return Status::InvalidArgument("unknown key type");
}

// A string with its control characters written out (\n, \t, \x1b), so
// that a value never breaks a table's row.
std::string Escaped(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A cell: strings (escaped) and numbers as they are, cut to kMaxCell with
// "..."; other types as DynamoDB JSON when that fits, else by their shape
// ("L: 12 elements"), never a cut piece of JSON.
std::string Cell(const AttributeValue& v) {
  switch (v.type()) {
    case AttrType::kS:
      return Fit(Escaped(v.s()));
    case AttrType::kN:
      return Fit(v.n().ToString());
    default:
      break;
  }
  std::string json = format::ToJson(v);
  if (json.size() <= kMaxCell) return json;
  switch (v.type()) {
    case AttrType::kB:
      return fmt::format("B: {} bytes", v.b().size());
    case AttrType::kM:
      return fmt::format("M: {} attributes", v.m().size());
    case AttrType::kL:
      return fmt::format("L: {} elements", v.l().size());
    case AttrType::kSS:
      return fmt::format("SS: {} strings", v.ss().size());
    case AttrType::kNS:
      return fmt::format("NS: {} numbers", v.ns().size());
    case AttrType::kBS:
      return fmt::format("BS: {} values", v.bs().size());
    default:
      return Fit(json);
  }
}

// What a collection is read by: the key schema of the table or of the
// index asked for, with the key attributes' types: its partition key
// attributes (several for a multi-attribute GSI) and its first sort key
// attribute, which --from, --to and --begins-with bound.
struct CollectionKeys {
  std::vector<std::string> pk_names;
  std::vector<ScalarAttributeType> pk_types;
  std::string sk_name;  // empty: no sort key
  ScalarAttributeType sk_type = ScalarAttributeType::kS;

  // "tournamentId = WINTER, region = EU"
  std::string Label(const std::vector<std::string>& values) const {
    std::string out;
    for (size_t i = 0; i < pk_names.size() && i < values.size(); ++i) {
      out += (i ? ", " : "") + pk_names[i] + " = " + values[i];
    }
    return out;
  }
};

bool Ranged(const CollectionArgs& a) {
  return !a.from.empty() || !a.to.empty() || !a.begins_with.empty();
}

Result<CollectionKeys> KeysOf(const TableDescription& t, const CollectionArgs& a) {
  std::vector<KeySchemaElement> schema = t.key_schema;
  if (!a.index.empty()) {
    bool found = false;
    auto take = [&](const std::string& name, const std::vector<KeySchemaElement>& ks) {
      if (name == a.index) {
        schema = ks;
        found = true;
      }
    };
    if (t.global_secondary_indexes) {
      for (const auto& g : *t.global_secondary_indexes) take(g.index_name, g.key_schema);
    }
    if (t.local_secondary_indexes) {
      for (const auto& l : *t.local_secondary_indexes) take(l.index_name, l.key_schema);
    }
    if (!found) return Status::InvalidArgument("table " + a.table + " has no index " + a.index);
  }
  auto type_of = [&](const std::string& name) {
    for (const auto& d : t.attribute_definitions) {
      if (d.attribute_name == name) return d.attribute_type;
    }
    return ScalarAttributeType::kS;
  };
  CollectionKeys k;
  for (const auto& e : schema) {
    if (e.key_type == KeyType::kHash) {
      k.pk_names.push_back(e.attribute_name);
      k.pk_types.push_back(type_of(e.attribute_name));
    } else if (k.sk_name.empty()) {
      k.sk_name = e.attribute_name;
      k.sk_type = type_of(e.attribute_name);
    }
  }
  if (a.partition_values.size() != k.pk_names.size()) {
    std::string names;
    for (const auto& n : k.pk_names) names += (names.empty() ? "" : ", ") + n;
    return Status::InvalidArgument(
        a.table + (a.index.empty() ? "" : "." + a.index) + " is keyed by " +
        std::to_string(k.pk_names.size()) + " partition key attribute" +
        (k.pk_names.size() == 1 ? "" : "s") + " (" + names + "): give " +
        std::to_string(k.pk_names.size()) + " value" + (k.pk_names.size() == 1 ? "" : "s") +
        ", not " + std::to_string(a.partition_values.size()));
  }
  return k;
}

// The Query of the collection named by `pk` (a value per partition key
// attribute), within the sort key range asked for.
Result<QueryRequest> CollectionQuery(const CollectionArgs& a, const CollectionKeys& k,
                                     const std::vector<AttributeValue>& pk) {
  QueryRequest q{.table_name = a.table};
  if (!a.index.empty()) q.index_name = a.index;
  q.expression_attribute_names.emplace();
  q.expression_attribute_values.emplace();
  q.scan_index_forward = !a.reverse;
  std::string condition;
  for (size_t i = 0; i < pk.size(); ++i) {
    const std::string n = std::to_string(i);
    (*q.expression_attribute_names)["#p" + n] = k.pk_names[i];
    (*q.expression_attribute_values)[":p" + n] = pk[i];
    condition += (i ? " AND #p" : "#p") + n + " = :p" + n;
  }
  if (Ranged(a) && k.sk_name.empty()) {
    return Status::InvalidArgument(a.table + (a.index.empty() ? "" : "." + a.index) +
                                   " has no sort key: --from, --to and --begins-with do not apply");
  }
  if (Ranged(a)) {
    (*q.expression_attribute_names)["#s"] = k.sk_name;
    auto bound = [&](const std::string& text, const char* placeholder) -> Status {
      DYNAROCK_ASSIGN_OR_RETURN(auto v, TypedKey(text, k.sk_type, k.sk_name));
      (*q.expression_attribute_values)[placeholder] = std::move(v);
      return Status::OK();
    };
    if (!a.begins_with.empty()) {
      if (!a.from.empty() || !a.to.empty()) {
        return Status::InvalidArgument("give --begins-with or --from/--to, not both");
      }
      DYNAROCK_RETURN_IF_ERROR(bound(a.begins_with, ":b"));
      condition += " AND begins_with(#s, :b)";
    } else if (!a.from.empty() && !a.to.empty()) {
      DYNAROCK_RETURN_IF_ERROR(bound(a.from, ":f"));
      DYNAROCK_RETURN_IF_ERROR(bound(a.to, ":t"));
      condition += " AND #s BETWEEN :f AND :t";
    } else if (!a.from.empty()) {
      DYNAROCK_RETURN_IF_ERROR(bound(a.from, ":f"));
      condition += " AND #s >= :f";
    } else {
      DYNAROCK_RETURN_IF_ERROR(bound(a.to, ":t"));
      condition += " AND #s <= :t";
    }
  }
  q.key_condition_expression = condition;
  return q;
}

// Every item of the Query (up to --limit), a 1 MB page at a time.
Result<std::vector<Item>> ReadItems(Database* db, QueryRequest q, const CollectionArgs& a,
                                    const CollectionKeys& k) {
  std::vector<Item> items;
  Progress progress;
  while (a.limit == 0 || static_cast<int64_t>(items.size()) < a.limit) {
    progress.Show(fmt::format("reading {}: {} items, {:.1f} s", k.Label(a.partition_values),
                              items.size(), progress.elapsed()));
    auto page = db->Query(q);
    if (!page.ok()) {
      return Status::InvalidArgument(page.status().ToString() + " (collection " +
                                     k.Label(a.partition_values) + " of " + a.table + ")");
    }
    for (auto& item : page->items) {
      if (a.limit != 0 && static_cast<int64_t>(items.size()) >= a.limit) break;
      items.push_back(std::move(item));
    }
    if (!page->last_evaluated_key) break;
    q.exclusive_start_key = std::move(page->last_evaluated_key);
  }
  progress.Done();
  return items;
}

// The header: what the collection is, how big, and where it lies on disk.
Status PrintSummary(Database* db, const CollectionArgs& a, const CollectionKeys& k,
                    const std::vector<AttributeValue>& pk, const std::vector<Item>& items) {
  auto about = db->DescribeCollection(
      {.table_name = a.table,
       .index_name = a.index.empty() ? std::nullopt : std::optional(a.index),
       .partition_key_value = pk[0],
       .more_partition_key_values = std::vector<AttributeValue>(pk.begin() + 1, pk.end())});
  if (!about.ok()) return Status::InvalidArgument(about.status().ToString());
  std::string where = fmt::format("{} SST file{}", about->sst_files,
                                  about->sst_files == 1 ? "" : "s");
  if (!about->levels.empty()) {
    std::string levels;
    for (int l : about->levels) levels += (levels.empty() ? "" : ", ") + std::to_string(l);
    where += (about->levels.size() == 1 ? " on level " : " on levels ") + levels;
  }
  if (about->sst_files == 0) where += " (in memtables)";
  std::string size;
  if (about->statistics) {
    // With an LSI the counter is the 10 GB limit's: items and LSI entries.
    size = fmt::format("{} items, {}{}", about->statistics->item_count,
                       HumanBytes(static_cast<double>(about->statistics->size_bytes)),
                       about->size_limited ? " with LSI entries" : "");
    if (about->size_limited) {
      const double share = 100.0 * static_cast<double>(about->statistics->size_bytes) /
                           (10.0 * static_cast<double>(int64_t{1} << 30));
      size += share < 0.01 ? std::string(" (under 0.01% of the 10 GB LSI limit)")
                           : fmt::format(" ({:.2f}% of the 10 GB LSI limit)", share);
    }
  } else {
    int64_t bytes = 0;
    for (const auto& item : items) bytes += static_cast<int64_t>(format::ItemSize(item));
    size = fmt::format("{} entries read, {}", items.size(), HumanBytes(static_cast<double>(bytes)));
  }
  fmt::print("{}{}  {}  {}  {}\n", a.table, a.index.empty() ? "" : "." + a.index,
             k.Label(a.partition_values), size, where);
  if (Ranged(a) || a.limit != 0) {
    fmt::print("showing {} item{}{}\n", items.size(), items.size() == 1 ? "" : "s",
               a.reverse ? ", newest first" : "");
  }
  return Status::OK();
}

// Columns: the sort key, the item's size, then the attributes (as asked, or
// every one met, in order of first appearance, keys left out).
void PrintItemTable(const CollectionArgs& a, const CollectionKeys& k,
                    const std::vector<Item>& items) {
  std::vector<std::string> columns = a.attributes;
  if (columns.empty()) {
    for (const auto& item : items) {
      for (const auto& [name, value] : item) {
        const bool key = name == k.sk_name ||
                         std::find(k.pk_names.begin(), k.pk_names.end(), name) != k.pk_names.end();
        if (!key && std::find(columns.begin(), columns.end(), name) == columns.end()) {
          columns.push_back(name);
        }
      }
    }
  }
  std::vector<std::vector<std::string>> rows;
  rows.push_back({k.sk_name.empty() ? "(no sort key)" : k.sk_name, "size"});
  for (const auto& c : columns) rows[0].push_back(c);
  for (const auto& item : items) {
    std::vector<std::string> row;
    auto sk = k.sk_name.empty() ? item.end() : item.find(k.sk_name);
    row.push_back(sk == item.end() ? "" : Cell(sk->second));
    row.push_back(std::to_string(format::ItemSize(item)));
    for (const auto& c : columns) {
      auto v = item.find(c);
      row.push_back(v == item.end() ? "" : Cell(v->second));
    }
    rows.push_back(std::move(row));
  }
  std::vector<bool> right(rows[0].size(), false);
  right[1] = true;  // the size column
  fmt::print("{}", FormatTable(rows, right));
}

int RunCollection(const CollectionArgs& a) {
  Options options;
  options.read_only = true;  // a secondary instance: works while `serve` has the directory
  auto db = Database::Open(a.db_dir, options);
  if (!db.ok()) return Fail(Explain(db.status(), a.db_dir));
  auto described = (*db)->DescribeTable({.table_name = a.table});
  if (!described.ok()) {
    return Fail(described.status().message() + " (dynarock collection " + a.db_dir +
                " TABLE ...: the tables are those ListTables names)");
  }
  auto keys = KeysOf(described->table, a);
  if (!keys.ok()) return Fail(keys.status().message());
  std::vector<AttributeValue> pk;
  for (size_t i = 0; i < keys->pk_names.size(); ++i) {
    auto v = TypedKey(a.partition_values[i], keys->pk_types[i], keys->pk_names[i]);
    if (!v.ok()) return Fail(v.status().message());
    pk.push_back(std::move(*v));
  }
  auto q = CollectionQuery(a, *keys, pk);
  if (!q.ok()) return Fail(q.status().message());
  auto items = ReadItems(db->get(), std::move(*q), a, *keys);
  if (!items.ok()) return Fail(items.status().message());
  if (a.json) {
    for (const auto& item : *items) fmt::print("{}\n", format::ToJson(item));
    return 0;
  }
  Status printed = PrintSummary(db->get(), a, *keys, pk, *items);
  if (!printed.ok()) return Fail(printed.message());
  PrintItemTable(a, *keys, *items);
  return 0;
}

// The HASH attributes of a key schema, in its order.
std::vector<std::string> HashNames(const std::vector<KeySchemaElement>& ks) {
  std::vector<std::string> out;
  for (const auto& e : ks) {
    if (e.key_type == KeyType::kHash) out.push_back(e.attribute_name);
  }
  return out;
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

struct CollectionsArgs {
  std::string db_dir, table;
  size_t limit = 10;
  bool json = false;
};

// `dynarock collections`: the largest collections of a table and of each
// of its indexes, with their share of the table (or index).
int RunCollections(const CollectionsArgs& a) {
  Options options;
  options.read_only = true;
  auto db = Database::Open(a.db_dir, options);
  if (!db.ok()) return Fail(Explain(db.status(), a.db_dir));
  auto described = (*db)->DescribeTable({.table_name = a.table});
  if (!described.ok()) {
    return Fail(described.status().message() + " (the tables are those ListTables names)");
  }
  const TableDescription& t = described->table;
  struct Part {
    std::string label, index;
    std::vector<std::string> key_names;  // the HASH attributes
    int64_t total_bytes;
    int64_t entries = 0;  // for the progress line
  };
  // A table collection's size counts its LSI entries too (each its size
  // plus 100 bytes, as DynamoDB's 10 GB limit does), so its share is of
  // the table with them.
  int64_t with_lsi = t.table_size_bytes;
  if (t.local_secondary_indexes) {
    for (const auto& l : *t.local_secondary_indexes) {
      with_lsi += l.index_size_bytes + 100 * l.item_count;
    }
  }
  std::vector<Part> parts = {{a.table, "", HashNames(t.key_schema), with_lsi, t.item_count}};
  if (t.local_secondary_indexes) {
    for (const auto& l : *t.local_secondary_indexes) {
      parts.push_back({a.table + "." + l.index_name, l.index_name, HashNames(l.key_schema),
                       l.index_size_bytes, l.item_count});
    }
  }
  if (t.global_secondary_indexes) {
    for (const auto& g : *t.global_secondary_indexes) {
      parts.push_back({a.table + "." + g.index_name, g.index_name, HashNames(g.key_schema),
                       g.index_size_bytes, g.item_count});
    }
  }
  // A vector index with a HASH search attribute: one collection per value
  // (one without is a single collection: DescribeTable gives its size).
  if (t.vector_indexes) {
    for (const auto& v : *t.vector_indexes) {
      for (const auto& e : v.search_schema.value_or(std::vector<SearchSchemaElement>{})) {
        if (e.search_schema_element_type != SearchSchemaElementType::kHash) continue;
        parts.push_back({a.table + "." + v.index_name,
                         v.index_name,
                         {e.attribute_name},
                         v.index_size_bytes,
                         v.item_count});
      }
    }
  }
  for (size_t p = 0; p < parts.size(); ++p) {
    const Part& part = parts[p];
    // An index's collections, and a table's without an LSI (no collection
    // counters), are counted by reading every entry: a progress line on a
    // terminal while that runs.
    Progress progress;
    auto show = [&](int64_t read) {
      progress.Show(fmt::format("reading {}: {} of {} entries ({:.0f}%), {:.1f} s", part.label,
                                read, part.entries,
                                part.entries > 0 ? 100.0 * read / part.entries : 0.0,
                                progress.elapsed()));
    };
    auto top = part.index.empty()
                   ? (*db)->LargestCollections(a.table, a.limit, show)
                   : (*db)->LargestIndexCollections(a.table, part.index, a.limit, show);
    progress.Done();
    if (!top.ok()) return Fail(top.status().message());
    if (a.json) {
      for (const auto& c : *top) {
        fmt::print("{{\"Collection\":\"{}\",\"Key\":{},\"ItemCount\":{},\"SizeBytes\":{}}}\n",
                   part.label, format::ToJson(c.key), c.item_count, c.size_bytes);
      }
      continue;
    }
    // What each size counts, and the total it is a share of.
    if (!part.index.empty()) {
      fmt::print("{}largest collections of {}: {} entries, {} (its IndexSizeBytes)\n",
                 p ? "\n" : "", part.label, part.entries,
                 HumanBytes(static_cast<double>(part.total_bytes)));
    } else {
      fmt::print("{}largest collections of {}: {} items, {} (its TableSizeBytes)\n", p ? "\n" : "",
                 part.label, t.item_count, HumanBytes(static_cast<double>(t.table_size_bytes)));
      if (part.total_bytes != t.table_size_bytes) {
        fmt::print(
            "  sizes count each item with its LSI entries (+100 B each), as the 10 GB "
            "collection limit does: {} in all\n",
            HumanBytes(static_cast<double>(part.total_bytes)));
      }
    }
    std::vector<std::vector<std::string>> rows = {
        {Joined(part.key_names), "items", "size", "share"}};
    for (const auto& c : *top) {
      const double share = part.total_bytes > 0 ? 100.0 * static_cast<double>(c.size_bytes) /
                                                      static_cast<double>(part.total_bytes)
                                                : 0.0;
      std::string key;  // the partition values, in KeySchema order
      for (const auto& name : part.key_names) {
        auto v = c.key.find(name);
        if (v != c.key.end()) key += (key.empty() ? "" : ", ") + Cell(v->second);
      }
      rows.push_back({Fit(key), std::to_string(c.item_count),
                      HumanBytes(static_cast<double>(c.size_bytes)),
                      fmt::format("{:.1f}%", share)});
    }
    fmt::print("{}", FormatTable(rows, {false, true, true, true}, "  "));
  }
  return 0;
}

}  // namespace

void AddCollectionCommands(CLI::App* app, std::function<int()>* run) {
  auto all = std::make_shared<CollectionsArgs>();
  CLI::App* cs = app->add_subcommand(
      "collections", "the largest item collections of a table and of each of its indexes");
  cs->add_option("database", all->db_dir, "database directory (may be open in serve)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cs->add_option("table", all->table, "table name")->required();
  cs->add_option("--limit", all->limit, "collections per table or index (default 10)")
      ->check(CLI::Range(1, 1 << 20));
  cs->add_flag("--json", all->json, "one JSON object per collection, for scripts");
  cs->callback([run, all] { *run = [all] { return RunCollections(*all); }; });

  auto args = std::make_shared<CollectionArgs>();
  CLI::App* c = app->add_subcommand(
      "collection", "show one item collection (a partition key's items) in sort-key order");
  c->add_option("database", args->db_dir, "database directory (may be open in serve)")
      ->required()
      ->check(CLI::ExistingDirectory);
  c->add_option("table", args->table, "table name")->required();
  c->add_option("partition_key", args->partition_values,
                "the partition key value (numbers as text, binary in base64); a multi-attribute "
                "GSI's collection takes one value per partition key attribute, in KeySchema "
                "order")
      ->required()
      ->expected(1, 4);
  c->add_option("--index", args->index, "a collection of this LSI or GSI instead of the table");
  c->add_option("--from", args->from, "sort keys from this one (inclusive)");
  c->add_option("--to", args->to, "sort keys up to this one (inclusive)");
  c->add_option("--begins-with", args->begins_with, "sort keys that begin with this");
  c->add_flag("--reverse", args->reverse, "descending sort-key order (newest first)");
  c->add_option("--limit", args->limit, "at most this many items")->check(CLI::Range(1, 1 << 30));
  c->add_option("--attributes", args->attributes, "only these attribute columns")
      ->delimiter(',');
  c->add_flag("--json", args->json, "one DynamoDB JSON item per line, for scripts");
  c->callback([run, args] { *run = [args] { return RunCollection(*args); }; });
}

}  // namespace dynarock::cli
