// The catalog: table descriptors, their validation at CreateTable, and their
// on-disk encoding (schemas/catalog.fbs) in the catalog column family.
#ifndef DYNAROCK_ENGINE_CATALOG_H_
#define DYNAROCK_ENGINE_CATALOG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/types.h"
#include "format/item_codec.h"
#include "format/key_codec.h"

namespace dynarock {

// A multi-attribute GSI's limits: up to four HASH and four RANGE attributes.
inline constexpr size_t kMaxIndexPartitionKeys = 4;
inline constexpr size_t kMaxIndexSortKeys = 4;

// A table's or a GSI's OnDemandThroughput maxima and WarmThroughput, as
// stored: 0 is "none" (no maximum; no warm throughput given).
struct ThroughputSettings {
  int64_t max_read_request_units = 0, max_write_request_units = 0;
  int64_t warm_read_units = 0, warm_write_units = 0;
};

// A resource-based policy: its JSON document and revision id, and for a
// stream's the label of the stream it is attached to.
struct AttachedPolicy {
  std::string document;
  std::string revision_id;
  std::string stream_label;
};

// One key attribute of a table: its name and type.
struct KeyAttribute {
  std::string name;
  ScalarAttributeType type = ScalarAttributeType::kS;
};

// An index entry's partition values (pointers into an item), in KeySchema
// order: what names its collection. Empty: the item has no entry.
struct IndexPartition {
  const AttributeValue* values[kMaxIndexPartitionKeys] = {};
  size_t count = 0;

  bool empty() const { return count == 0; }
  format::KeyValues view() const { return {values, count}; }
};

// A secondary index: its key space in the indexes column family, its keys,
// and what it projects.
struct IndexInfo {
  std::string name;
  uint32_t space_id = 0;
  bool global = false;
  KeyAttribute partition_key;
  std::optional<KeyAttribute> sort_key;
  // A multi-attribute GSI's further key attributes, in KeySchema order: up
  // to three more partition components, and (with a sort_key) up to three
  // more sort components. Empty for LSIs and single-attribute GSIs.
  std::vector<KeyAttribute> more_partition_keys;
  std::vector<KeyAttribute> more_sort_keys;
  ProjectionType projection = ProjectionType::kKeysOnly;
  std::vector<std::string> non_key_attributes;
  ProvisionedThroughput throughput;
  ThroughputSettings settings;  // GSIs only
  bool backfilling = false;

  bool multi_attribute() const { return !more_partition_keys.empty() || !more_sort_keys.empty(); }
  // fn(const KeyAttribute&, bool is_partition) for every key attribute, in
  // KeySchema order: the partition components, then the sort components.
  template <typename Fn>
  void ForEachKeyAttribute(Fn&& fn) const {
    fn(partition_key, true);
    for (const auto& k : more_partition_keys) fn(k, true);
    if (sort_key) fn(*sort_key, false);
    for (const auto& k : more_sort_keys) fn(k, false);
  }
  bool IsKeyAttribute(std::string_view attribute) const {
    bool found = false;
    ForEachKeyAttribute([&](const KeyAttribute& k, bool) { found |= k.name == attribute; });
    return found;
  }
  // The KeySchema as CreateTable took it (and DescribeTable echoes it).
  std::vector<KeySchemaElement> key_schema() const {
    std::vector<KeySchemaElement> ks;
    ForEachKeyAttribute([&](const KeyAttribute& k, bool is_partition) {
      ks.push_back({k.name, is_partition ? KeyType::kHash : KeyType::kRange});
    });
    return ks;
  }
  // The partition components, in KeySchema order.
  std::vector<KeyAttribute> partition_keys() const {
    std::vector<KeyAttribute> out{partition_key};
    out.insert(out.end(), more_partition_keys.begin(), more_partition_keys.end());
    return out;
  }
  // The partition values of `item`'s entry: empty unless every partition
  // component is present (the sort components are not looked at).
  IndexPartition PartitionOf(const Item& item) const {
    IndexPartition p;
    ForEachKeyAttribute([&](const KeyAttribute& k, bool is_partition) {
      if (!is_partition) return;
      auto it = item.find(k.name);
      if (it != item.end()) p.values[p.count++] = &it->second;
    });
    if (p.count != 1 + more_partition_keys.size()) p.count = 0;
    return p;
  }
  format::KeySchemaTypes key_types() const {
    format::KeySchemaTypes t{partition_key.type,
                             sort_key ? std::optional(sort_key->type) : std::nullopt};
    for (const auto& k : more_partition_keys) t.more_partition.push_back(k.type);
    for (const auto& k : more_sort_keys) t.more_sort.push_back(k.type);
    return t;
  }
};

// The key schema a Query or Scan reads by: a table's or one of its
// indexes', with the key space holding its keys (in the items or the
// indexes column family). Single-attribute keys have one partition
// component and at most one sort component.
struct KeySpace {
  std::string name;  // the table's or the index's
  uint32_t space_id = 0;
  std::vector<KeyAttribute> partition;  // 1 to 4 components
  std::vector<KeyAttribute> sort;       // 0 to 4 components

  static KeySpace Of(const IndexInfo& index) {
    KeySpace k{index.name, index.space_id, index.partition_keys(), {}};
    if (index.sort_key) k.sort.push_back(*index.sort_key);
    k.sort.insert(k.sort.end(), index.more_sort_keys.begin(), index.more_sort_keys.end());
    return k;
  }
  bool multi_attribute() const { return partition.size() > 1 || sort.size() > 1; }
  // The position of `attribute` among the partition (or sort) components.
  std::optional<size_t> PartitionPosition(std::string_view attribute) const {
    return Position(partition, attribute);
  }
  std::optional<size_t> SortPosition(std::string_view attribute) const {
    return Position(sort, attribute);
  }
  bool IsKey(std::string_view attribute) const {
    return PartitionPosition(attribute) || SortPosition(attribute);
  }

 private:
  static std::optional<size_t> Position(const std::vector<KeyAttribute>& keys,
                                        std::string_view attribute) {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].name == attribute) return i;
    }
    return std::nullopt;
  }
};

// A vector index: its key space in the vectors column family, the vector
// attribute and how it is searched, its search schema, and what it projects.
struct VectorIndexInfo {
  std::string name;
  uint32_t space_id = 0;
  std::string vector_attribute;
  uint32_t dimensions = 0;
  DistanceFunction distance = DistanceFunction::kCosine;
  std::optional<KeyAttribute> hash;          // the HASH search attribute
  std::vector<KeyAttribute> inline_filters;  // INLINE_FILTER attributes, in order
  ProjectionType projection = ProjectionType::kKeysOnly;
  std::vector<std::string> non_key_attributes;
  bool backfilling = false;

  // The search schema as CreateTable took it.
  std::vector<SearchSchemaElement> search_schema() const {
    std::vector<SearchSchemaElement> out;
    if (hash) out.push_back({hash->name, SearchSchemaElementType::kHash});
    for (const auto& f : inline_filters) {
      out.push_back({f.name, SearchSchemaElementType::kInlineFilter});
    }
    return out;
  }
};
inline constexpr size_t kMaxVectorIndexes = 5;
inline constexpr size_t kMaxInlineFilters = 18;

// Everything the engine knows about a table. Immutable once built: a changed
// table is a new TableInfo.
struct TableInfo {
  std::string name;
  uint32_t space_id = 0;  // first 4 bytes of every item key of this table
  std::string uuid;
  KeyAttribute partition_key;
  std::optional<KeyAttribute> sort_key;
  std::vector<AttributeDefinition> attribute_definitions;
  BillingMode billing_mode = BillingMode::kProvisioned;
  ProvisionedThroughput throughput;
  int64_t creation_time_ms = 0;
  std::vector<IndexInfo> indexes;  // LSIs and GSIs
  std::vector<VectorIndexInfo> vector_indexes;
  std::optional<std::string> ttl_attribute;  // UpdateTimeToLive
  bool ttl_enabled = false;
  int64_t ttl_changed_ms = 0;                // the last UpdateTimeToLive (its cooldown)
  int64_t pay_per_request_since_ms = 0;      // the last switch to on-demand; 0: never
  std::map<std::string, std::string> tags;   // TagResource
  // UpdateContinuousBackups: point-in-time recovery, when it was last
  // enabled, and its RecoveryPeriodInDays.
  bool pitr_enabled = false;
  int64_t pitr_enabled_ms = 0;
  int32_t pitr_recovery_days = 35;
  bool deletion_protection = false;  // DeleteTable refuses the table while set
  // The table class last given, and when (0: never given: STANDARD, and no
  // TableClassSummary in its description).
  TableClass table_class = TableClass::kStandard;
  int64_t table_class_since_ms = 0;
  ThroughputSettings settings;
  // PutResourcePolicy's (or CreateTable's ResourcePolicy), and its latest
  // stream's.
  std::optional<AttachedPolicy> policy;
  std::optional<AttachedPolicy> stream_policy;
  // The latest stream, if the table ever had one; `enabled` false after a
  // disable (DescribeTable still reports its ARN and label).
  struct Stream {
    uint32_t id = 0;  // its key space in the streams column family
    StreamViewType view_type = StreamViewType::kKeysOnly;
    std::string label;
    bool enabled = false;
  };
  std::optional<Stream> stream;

  // The stream new writes go to, or null.
  const Stream* enabled_stream() const { return stream && stream->enabled ? &*stream : nullptr; }

  format::KeySchemaTypes key_types() const {
    return {partition_key.type, sort_key ? std::optional(sort_key->type) : std::nullopt};
  }
  // How its items are stored: without these attributes, which the key holds
  // (format::EncodeItemWithoutKey). Views of this TableInfo's names.
  format::StoredKeySchema stored_key() const {
    format::StoredKeySchema s{{partition_key.name, partition_key.type}, std::nullopt};
    if (sort_key) s.sort = format::KeyAttributeRef{sort_key->name, sort_key->type};
    return s;
  }
  // How `index`'s entries are stored: without the attributes its key holds
  // (the index's key, then this table's). REQUIRES: `index` is one of
  // `indexes`.
  format::StoredKeySchema stored_key(const IndexInfo& index) const {
    format::StoredKeySchema s{{index.partition_key.name, index.partition_key.type}, std::nullopt};
    if (index.sort_key) s.sort = format::KeyAttributeRef{index.sort_key->name, index.sort_key->type};
    const format::KeySchemaTypes types = index.key_types();
    s.more_partition = types.more_partition;
    s.more_sort = types.more_sort;
    s.table_partition = format::KeyAttributeRef{partition_key.name, partition_key.type};
    if (sort_key) s.table_sort = format::KeyAttributeRef{sort_key->name, sort_key->type};
    return s;
  }
  // An on-demand table with an OnDemandThroughput maximum, its own or a
  // GSI's: its requests are admitted and charged against it.
  bool has_maxima() const {
    if (billing_mode != BillingMode::kPayPerRequest) return false;
    auto any = [](const ThroughputSettings& s) {
      return s.max_read_request_units != 0 || s.max_write_request_units != 0;
    };
    bool found = any(settings);
    for (const auto& i : indexes) found |= i.global && any(i.settings);
    return found;
  }
  KeySpace key_space() const {
    KeySpace k{name, space_id, {partition_key}, {}};
    if (sort_key) k.sort.push_back(*sort_key);
    return k;
  }
  bool has_lsi() const {
    for (const auto& i : indexes) {
      if (!i.global) return true;
    }
    return false;
  }
  const IndexInfo* FindIndex(std::string_view index_name) const {
    for (const auto& i : indexes) {
      if (i.name == index_name) return &i;
    }
    return nullptr;
  }
  const VectorIndexInfo* FindVectorIndex(std::string_view index_name) const {
    for (const auto& v : vector_indexes) {
      if (v.name == index_name) return &v;
    }
    return nullptr;
  }
  // The type declared for `attribute` in AttributeDefinitions.
  std::optional<ScalarAttributeType> DefinedType(std::string_view attribute) const {
    for (const auto& d : attribute_definitions) {
      if (d.attribute_name == attribute) return d.attribute_type;
    }
    return std::nullopt;
  }
};

// Checks a CreateTableRequest as DynamoDB does (model constraints first, then
// key schema, definitions, indexes and billing) and builds the TableInfo it
// describes, with space ids, uuid and creation time left for the caller.
Result<TableInfo> ValidateCreateTable(const CreateTableRequest& request);

// A random (version 4) UUID: a new table's TableId.
std::string NewUuid();

// A GSI UpdateTable may add to `table`, checked as CreateTable would check
// it (against the table's keys, its other indexes and the attribute
// definitions merged with `new_definitions`), with the table's definitions
// afterwards. The index's space id is left for the caller.
struct NewGlobalIndex {
  IndexInfo index;
  std::vector<AttributeDefinition> attribute_definitions;
};
Result<NewGlobalIndex> ValidateNewGlobalIndex(
    const TableInfo& table, const CreateGlobalSecondaryIndexAction& create,
    const std::optional<std::vector<AttributeDefinition>>& new_definitions);

// A vector index UpdateTable may add to `table` (VectorIndexUpdates.Create),
// checked the same way, and first: its name free (ResourceInUse while an
// index of that name is being created), at most 5 vector indexes
// (LimitExceeded), and its search attributes defined in `new_definitions`,
// the request's own. The index's space id is left for the caller.
struct NewVectorIndex {
  VectorIndexInfo index;
  std::vector<AttributeDefinition> attribute_definitions;
};
Result<NewVectorIndex> ValidateNewVectorIndex(
    const TableInfo& table, const VectorIndex& create,
    const std::optional<std::vector<AttributeDefinition>>& new_definitions);

// arn:aws:dynamodb:<region>:<account_id>:table/<name>, the table's ARN (with
// an empty name: the prefix every table ARN of the database starts with).
std::string TableArn(std::string_view region, std::string_view account_id,
                     std::string_view table_name);
// What follows "table/" in an ARN of the shape
// arn:aws:dynamodb:<region>:<digits>:table/..., or nullopt for any other
// shape (the region and account are not compared with this database's).
std::optional<std::string_view> TableArnResource(std::string_view arn);

// The description DynamoDB returns, without the statistics (the caller fills
// item_count and table_size_bytes).
TableDescription Describe(const TableInfo& table, std::string_view region,
                          std::string_view account_id);

// Catalog keys (format/STORAGE_LAYOUT.md): "table/<name>" for descriptors,
// "next_space_id" for the counter, "format" for the format record.
std::string CatalogTableKey(std::string_view table_name);
inline constexpr std::string_view kCatalogTablePrefix = "table/";
inline constexpr std::string_view kCatalogNextSpaceIdKey = "next_space_id";
inline constexpr std::string_view kCatalogFormatKey = "format";
// "ttl_cursor/<8 hex digits of the table's space id>": the item key the TTL
// sweep examined last.
std::string TtlCursorKey(uint32_t space_id);
// "backfill_cursor/<8 hex digits of the GSI's space id>": the item key after
// which a GSI backfill resumes (since format version 3).
std::string BackfillCursorKey(uint32_t index_space_id);
// A resource-based policy document (CreateTable's ResourcePolicy,
// PutResourcePolicy): a JSON object (Dynarock has no IAM to check its
// statements against) of at most 20 KB, white space counted.
// ValidationException otherwise.
inline constexpr size_t kMaxResourcePolicyBytes = 20 * 1024;
Status CheckResourcePolicyDocument(const std::string& policy);

// OnDemandThroughput and WarmThroughput of a request: each member given
// at least 1 (a maximum may be -1, which removes it), at least one member.
// ValidationException otherwise.
Status CheckOnDemandThroughput(const std::optional<OnDemandThroughput>& t);
Status CheckWarmThroughput(const std::optional<WarmThroughput>& t);
// Applies them to *settings: a maximum set or removed (-1); a warm
// throughput raised, never lowered.
void ApplyThroughputSettings(const std::optional<OnDemandThroughput>& on_demand,
                             const std::optional<WarmThroughput>& warm,
                             ThroughputSettings* settings);

// "names/<8 hex digits of the table's space id>/<8 hex digits of the id>": an
// attribute name the table interns (format/attribute_names.h; since format
// version 12). Every name of one table lies under InternedNamesPrefix.
inline constexpr std::string_view kCatalogNamesPrefix = "names/";
std::string InternedNamesPrefix(uint32_t space_id);
std::string InternedNameKey(uint32_t space_id, uint32_t id);
// "service/<name>": a record a service built on the engine keeps with the
// database (Database::PutServiceRecord; since format version 4).
inline constexpr std::string_view kCatalogServicePrefix = "service/";
// "stream_iterator_secret": the 32 random bytes that sign the database's
// shard iterators (streams::IteratorSecret; since format version 9). Written
// once, with the format record of a new database or by the upgrade to 9,
// and never changed; a read-only instance reads it to check iterators.
inline constexpr std::string_view kCatalogIteratorSecretKey = "stream_iterator_secret";

// The format record, written when a database is created and checked by every
// Open: the magic "DYNAROCK" then the storage format version (4 bytes,
// big-endian). The version covers everything STORAGE_LAYOUT.md, KEY_FORMAT.md
// and ITEM_FORMAT.md specify; a change to any of them bumps it, and Open
// upgrades older versions step by step (1 -> 2 adds the streams column family;
// 2 -> 3 adds backfill cursors; 3 -> 4 adds service records and the
// descriptors' point-in-time recovery fields; ...; 6 -> 7 deletes the
// collection counters of tables without an LSI; 7 -> 8 adds the items'
// stored size; 8 -> 9 adds the shard iterator secret; 9 -> 10 writes items
// in version 2 of the item encoding; 10 -> 11 stores table items without
// their key attributes; 11 -> 12 interns attribute names; 12 -> 13 stores
// index entries without the attributes their key holds; 13 -> 14 adds the
// descriptors' table class; 14 -> 15 adds multi-attribute GSI keys;
// 15 -> 16 adds on-demand maxima and warm throughput; 16 -> 17 adds
// resource-based policies; 17 -> 18 adds the vectors column family and
// vector indexes; 18 -> 19 stores vector entries without the vector
// attribute; STORAGE_LAYOUT.md has them all).
inline constexpr std::string_view kFormatMagic = "DYNAROCK";
inline constexpr uint32_t kStorageFormatVersion = 19;
std::string EncodeFormatRecord(uint32_t version);
// The version in a format record; Corruption if the bytes are not one.
Result<uint32_t> DecodeFormatRecord(std::string_view bytes);

// A stream and its shards (catalog key "stream/<8 hex digits of id>").
struct ShardInfo {
  std::string id;         // shardId-<20 digits>-<8 hex>
  std::string parent_id;  // empty for a stream's first shard
  uint64_t start = 0;     // first sequence number of the shard
  uint64_t end = 0;       // last one once closed; 0 while open
  bool open() const { return end == 0; }
};
struct StreamInfo {
  uint32_t id = 0;
  std::string table_name;
  std::string label;
  StreamViewType view_type = StreamViewType::kKeysOnly;
  KeyAttribute partition_key;
  std::optional<KeyAttribute> sort_key;
  bool enabled = true;
  int64_t created_ms = 0;
  int64_t disabled_ms = 0;
  std::vector<ShardInfo> shards;  // oldest first; only the last may be open
};
std::string CatalogStreamKey(uint32_t stream_id);
inline constexpr std::string_view kCatalogStreamPrefix = "stream/";
std::string EncodeStreamDescriptor(const StreamInfo& stream);
// Corruption if the bytes are not a valid stream descriptor.
Result<StreamInfo> DecodeStreamDescriptor(std::string_view bytes);

std::string EncodeTableDescriptor(const TableInfo& table);
// Corruption if the bytes are not a valid descriptor.
Result<TableInfo> DecodeTableDescriptor(std::string_view bytes);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_CATALOG_H_
