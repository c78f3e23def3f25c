#include "dynarock/db.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iostats_context.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <set>
#include <thread>

#include "engine/db_impl.h"
#include "engine/expr/expression.h"
#include "engine/index.h"
#include "engine/request_expr.h"
#include "engine/model/checks.h"
#include "engine/validation.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

constexpr char kCatalogCf[] = "catalog";
constexpr char kItemsCf[] = "items";
constexpr char kStatsCf[] = "stats";
constexpr char kIndexesCf[] = "indexes";

std::string NewUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ull) | 0x4000ull;        // version 4
  lo = (lo & ~(3ull << 62)) | (2ull << 62);  // variant 10
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string SpaceBound(uint32_t space_id) {
  std::string out;
  format::PutFixed32BE(&out, space_id);
  return out;
}

Status CheckPutDeleteReturnValues(ReturnValue rv) {
  if (rv != ReturnValue::kNone && rv != ReturnValue::kAllOld) {
    return Status::Validation("Return values set to invalid value");
  }
  return Status::OK();
}

// The write condition of a Put/Delete/Update: ConditionExpression or the
// legacy Expected, resolved with the request's placeholders.
Result<std::optional<expr::Condition>> WriteCondition(
    RequestExpressions* rx, const std::optional<std::string>& condition_expression,
    const std::optional<std::map<std::string, ExpectedAttributeValue>>& expected,
    std::optional<ConditionalOperator> conditional_operator) {
  if (expected) return ConditionFromExpected(*expected, conditional_operator);
  return rx->Condition(condition_expression, expr::ExprKind::kCondition);
}

// ConditionalCheckFailedException, carrying the old item when asked to.
Status ConditionFailed(const std::optional<Item>& old, ReturnValuesOnConditionCheckFailure rv) {
  Status failed = Status::ConditionalCheckFailed();
  if (rv == ReturnValuesOnConditionCheckFailure::kAllOld) {
    auto detail = std::make_shared<ConditionalCheckFailedDetail>();
    detail->item = old;
    return std::move(failed).WithPayload(std::move(detail));
  }
  return failed;
}

bool ConditionHolds(const std::optional<expr::Condition>& condition,
                    const std::optional<Item>& old) {
  if (!condition) return true;
  expr::ItemDocument doc(old ? &*old : nullptr);
  return expr::Evaluate(*condition, doc);
}

}  // namespace

// ---- Open / close ------------------------------------------------------------------

Status Database::Impl::FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsCorruption()) return Status::Corruption(s.ToString());
  if (s.IsIOError()) return Status::IOError(s.ToString());
  return Status::Internal(s.ToString());
}

Status Database::Impl::Open(const std::string& path) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options_.create_if_missing;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.bytes_per_sync = 1 << 20;

  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = rocksdb::NewLRUCache(options_.block_cache_bytes);
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table_options.whole_key_filtering = true;  // GetItem by full key
  table_options.format_version = 5;
  auto table_factory =
      std::shared_ptr<rocksdb::TableFactory>(rocksdb::NewBlockBasedTableFactory(table_options));
  auto compression = rocksdb::kNoCompression;
  for (auto c : rocksdb::GetSupportedCompressions()) {
    if (c == rocksdb::kLZ4Compression) compression = c;
  }

  rocksdb::ColumnFamilyOptions items;
  items.table_factory = table_factory;
  items.write_buffer_size = options_.write_buffer_bytes;
  items.compression = compression;
  // table id | hash: Query and GetItem stay inside one prefix, so its bloom
  // filter lets them skip files that hold no key of the collection.
  items.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(format::kKeyPrefixBytes));
  items.memtable_prefix_bloom_size_ratio = 0.02;
  // Whole keys in the memtable's bloom too: every write first reads the old
  // item, and for a new key the filter answers without a skip-list search.
  items.memtable_whole_key_filtering = true;
  items.compaction_filter_factory = recount_factory_;  // idle unless a recount is armed

  // Index keys have the same shape as item keys: space id | hash | ...
  rocksdb::ColumnFamilyOptions indexes = items;
  indexes.compaction_filter_factory = nullptr;

  rocksdb::ColumnFamilyOptions stats;
  stats.table_factory = table_factory;
  stats.merge_operator = std::make_shared<CounterMergeOperator>();
  // Every write merges into its table's counter (space id | 'T'): with a hint
  // per 5-byte prefix, the memtable inserts the next operand where it put the
  // last one instead of searching the skip list (about 250 bytes per prefix;
  // RocksDB ignores hints for writes it applies concurrently).
  stats.memtable_insert_with_hint_prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(5));

  rocksdb::ColumnFamilyOptions catalog;
  catalog.table_factory = table_factory;

  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {kCatalogCf, catalog},
      {kItemsCf, items},
      {kStatsCf, stats},
      {kIndexesCf, indexes},
  };
  rocksdb::DB* raw = nullptr;
  DYNAROCK_RETURN_IF_ERROR(FromRocks(rocksdb::DB::Open(db_options, path, cfs, &handles_, &raw)));
  db_.reset(raw);
  catalog_cf_ = handles_[1];
  items_cf_ = handles_[2];
  stats_cf_ = handles_[3];
  indexes_cf_ = handles_[4];
  write_options_.sync = options_.sync_writes;

  // Load the catalog.
  std::string next;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), catalog_cf_, std::string(kCatalogNextSpaceIdKey), &next);
  if (s.ok()) {
    std::string_view in = next;
    if (!format::GetFixed32BE(&in, &next_space_id_)) {
      return Status::Corruption("catalog: bad next_space_id");
    }
  } else if (!s.IsNotFound()) {
    return FromRocks(s);
  }
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  for (it->Seek(std::string(kCatalogTablePrefix));
       it->Valid() && it->key().starts_with(std::string(kCatalogTablePrefix)); it->Next()) {
    auto table = DecodeTableDescriptor(std::string_view(it->value().data(), it->value().size()));
    if (!table.ok()) return table.status();
    std::string name = table->name;
    tables_.emplace(std::move(name), std::make_shared<TableState>(std::move(table).value()));
  }
  return FromRocks(it->status());
}

Status Database::Impl::ResumeBackfills() {
  std::vector<std::pair<std::string, std::string>> pending;
  {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, state] : tables_) {
      for (const auto& i : state->info.indexes) {
        if (i.backfilling) pending.emplace_back(name, i.name);
      }
    }
  }
  for (const auto& [table, index] : pending) DYNAROCK_RETURN_IF_ERROR(BackfillIndex(table, index));
  return Status::OK();
}

Database::Impl::~Impl() {
  if (!db_) return;
  for (auto* h : handles_) {
    // Ignoring: a failure to free a handle at shutdown leaves nothing to do.
    db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();  // Ignoring: the WAL already holds every write.
}

Result<std::unique_ptr<Database>> Database::Open(const std::string& path, const Options& options) {
  auto impl = std::make_unique<Impl>(options);
  DYNAROCK_RETURN_IF_ERROR(impl->Open(path));
  DYNAROCK_RETURN_IF_ERROR(impl->ResumeBackfills());
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

// ---- Helpers -----------------------------------------------------------------------------

std::mutex& Database::Impl::StripeFor(const format::EncodedKey& key) {
  return stripes_[XXH3_64bits(key.bytes().data(), key.bytes().size()) % kLockStripes];
}

Result<std::shared_ptr<TableState>> Database::Impl::FindTable(std::string_view name,
                                                              bool describe_style) {
  std::shared_lock lock(catalog_mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    if (describe_style) {
      return Status::ResourceNotFound("Requested resource not found: Table: " + std::string(name) +
                                      " not found");
    }
    return Status::ResourceNotFound();
  }
  return it->second;
}

Result<std::unique_ptr<TableHandle>> Database::Impl::AcquireTable(std::string_view name) {
  while (true) {
    auto found = FindTable(name, false);
    if (!found.ok()) return found.status();
    auto handle = std::make_unique<TableHandle>(std::move(found).value());
    if (handle->deleted()) return Status::ResourceNotFound();
    if (!handle->replaced()) return handle;
    // UpdateTable swapped the table while we waited: take the new one.
  }
}

Result<Database::Impl::ExclusiveTable> Database::Impl::LockTableExclusive(std::string_view name) {
  while (true) {
    auto found = FindTable(name, true);
    if (!found.ok()) return found.status();
    ExclusiveTable t;
    t.state = std::move(found).value();
    t.table_lock = std::unique_lock(t.state->mu);
    t.catalog_lock = std::unique_lock(catalog_mu_);
    auto it = tables_.find(name);
    if (it != tables_.end() && it->second == t.state) return t;
    // Replaced or deleted while we waited: look again.
  }
}

Counter Database::Impl::ReadTableStats(uint32_t space_id) {
  return ReadCounter(TableStatsKey(space_id));
}

Counter Database::Impl::ReadCounter(const std::string& stats_key) {
  std::string value;
  Counter c;
  if (db_->Get(rocksdb::ReadOptions(), stats_cf_, stats_key, &value).ok()) {
    DecodeCounter(value, &c);  // a missing or malformed counter reads as zero
  }
  return c;
}

std::mutex& Database::Impl::WriteLock(const TableInfo& table, const format::EncodedKey& item_key,
                                      const AttributeValue& pk) {
  if (table.has_lsi()) return StripeFor(format::CollectionPrefix(table.space_id, pk));
  return StripeFor(item_key);
}

Result<std::optional<ItemCollectionMetrics>> Database::Impl::PrepareItemWrite(
    PendingWrite* pending, const TableInfo& table, const format::EncodedKey& key,
    const std::optional<Item>& before, const Item* after, ReturnItemCollectionMetrics metrics) {
  rocksdb::WriteBatch& batch = pending->batch;
  Counter delta;
  if (before) {
    --delta.items;
    delta.bytes -= static_cast<int64_t>(format::ItemSize(*before));
  }
  if (after) {
    ++delta.items;
    delta.bytes += static_cast<int64_t>(format::ItemSize(*after));
    batch.Put(items_cf_, key.bytes(), format::EncodeItem(*after));
  } else {
    batch.Delete(items_cf_, key.bytes());
  }
  batch.Merge(stats_cf_, TableStatsKey(table.space_id), EncodeCounter(delta));
  // Tables without an LSI merge the collection's delta (no read); LSI tables
  // read the counter anyway, for the size limit.
  Counter collection =
      AddIndexAndStatsChanges(&batch, indexes_cf_, stats_cf_, table, before ? &*before : nullptr,
                              after, !table.has_lsi(), &pending->index_writes);
  std::optional<ItemCollectionMetrics> result;
  if (table.has_lsi()) {
    const AttributeValue& pk = (after ? *after : *before).at(table.partition_key.name);
    const std::string stats_key = CollectionStatsKey(table.space_id, pk);
    // Earlier writes to the same collection in this batch count too.
    auto [pending_counter, first] = pending->collections.try_emplace(stats_key);
    if (first) pending_counter->second = ReadCounter(stats_key);
    Counter& counter = pending_counter->second;
    const int64_t size = counter.bytes + collection.bytes;
    // Writes that shrink a collection always succeed.
    if (collection.bytes > 0 && size > options_.item_collection_size_limit_bytes) {
      return Status::ItemCollectionSizeLimitExceeded(
          "The total size of an item collection has exceeded the maximum limit of 10 gigabytes.");
    }
    counter.items += collection.items;
    counter.bytes += collection.bytes;
    // The caller holds the collection's lock (WriteLock), so the counter is
    // written whole: the next write reads one value instead of folding a
    // chain of merge operands. An emptied collection's counter goes.
    if (counter.items == 0 && counter.bytes == 0) {
      batch.Delete(stats_cf_, stats_key);
    } else {
      batch.Put(stats_cf_, stats_key, EncodeCounter(counter));
    }
    if (metrics == ReturnItemCollectionMetrics::kSize) {
      double gb = static_cast<double>(size) / static_cast<double>(int64_t{1} << 30);
      double lower = static_cast<double>(static_cast<int64_t>(gb));
      result = ItemCollectionMetrics{{{table.partition_key.name, pk}}, {lower, lower + 1.0}};
    }
  }
  return result;
}

Result<std::optional<ItemCollectionMetrics>> Database::Impl::CommitItemWrite(
    const TableInfo& table, const format::EncodedKey& key, const std::optional<Item>& before,
    const Item* after, ReturnItemCollectionMetrics metrics, CapacityMeter* meter) {
  PendingWrite pending;
  auto result = PrepareItemWrite(&pending, table, key, before, after, metrics);
  if (!result.ok()) return result.status();
  DYNAROCK_RETURN_IF_ERROR(Write(&pending.batch));
  if (meter) {
    // A put or update costs the larger of the old and new item; a delete, the old one.
    int64_t size = std::max<int64_t>(before ? format::ItemSize(*before) : 0,
                                     after ? format::ItemSize(*after) : 0);
    meter->Write(table.name, nullptr, WriteUnits(size));
    for (const auto& w : pending.index_writes) meter->Write(table.name, w.index, w.units);
  }
  return result;
}

Result<std::optional<Item>> Database::Impl::ReadItem(const format::EncodedKey& key,
                                                     const rocksdb::Snapshot* snapshot) {
  rocksdb::PinnableSlice value;
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  rocksdb::Status s = db_->Get(ro, items_cf_, key.bytes(), &value);
  if (s.IsNotFound()) return std::optional<Item>();
  DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
  auto item = format::DecodeItem(std::string_view(value.data(), value.size()));
  if (!item.ok()) return item.status();
  return std::optional<Item>(std::move(item).value());
}

Status Database::Impl::Write(rocksdb::WriteBatch* batch) {
  return FromRocks(db_->Write(write_options_, batch));
}

// ---- Tables -----------------------------------------------------------------------------

Result<CreateTableResponse> Database::Impl::CreateTable(const CreateTableRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  auto validated = ValidateCreateTable(request);
  if (!validated.ok()) return validated.status();
  TableInfo info = std::move(validated).value();

  std::unique_lock lock(catalog_mu_);
  if (tables_.count(info.name)) {
    return Status::ResourceInUse("Table already exists: " + info.name);
  }
  uint32_t next_id = next_space_id_;
  info.space_id = next_id++;
  for (auto& index : info.indexes) index.space_id = next_id++;
  info.uuid = NewUuid();
  info.creation_time_ms = NowMs();

  rocksdb::WriteBatch batch;
  std::string next;
  format::PutFixed32BE(&next, next_id);
  batch.Put(catalog_cf_, std::string(kCatalogNextSpaceIdKey), next);
  batch.Put(catalog_cf_, CatalogTableKey(info.name), EncodeTableDescriptor(info));
  rocksdb::WriteOptions sync;
  sync.sync = true;  // catalog changes are rare: always make them durable
  DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &batch)));
  next_space_id_ = next_id;

  CreateTableResponse response;
  response.table_description = Describe(info, options_.region, options_.account_id);
  std::string name = info.name;
  tables_.emplace(std::move(name), std::make_shared<TableState>(std::move(info)));
  return response;
}

namespace {

// Fills the statistics of a description from the counters.
template <typename ReadFn>
void FillStatistics(const TableInfo& info, TableDescription* d, ReadFn read) {
  Counter c = read(info.space_id);
  d->item_count = c.items;
  d->table_size_bytes = c.bytes;
  size_t l = 0, g = 0;
  for (const auto& index : info.indexes) {
    Counter ic = read(index.space_id);
    if (index.global) {
      auto& desc = (*d->global_secondary_indexes)[g++];
      desc.item_count = ic.items;
      desc.index_size_bytes = ic.bytes;
    } else {
      auto& desc = (*d->local_secondary_indexes)[l++];
      desc.item_count = ic.items;
      desc.index_size_bytes = ic.bytes;
    }
  }
}

}  // namespace

Result<DescribeTableResponse> Database::Impl::DescribeTable(const DescribeTableRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  auto table = FindTable(request.table_name, true);
  if (!table.ok()) return table.status();
  DescribeTableResponse response;
  response.table = Describe((*table)->info, options_.region, options_.account_id);
  FillStatistics((*table)->info, &response.table,
                 [this](uint32_t id) { return ReadTableStats(id); });
  return response;
}

Result<ListTablesResponse> Database::Impl::ListTables(const ListTablesRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));

  size_t limit = static_cast<size_t>(request.limit.value_or(100));
  ListTablesResponse response;
  std::shared_lock lock(catalog_mu_);
  auto it = request.exclusive_start_table_name
                ? tables_.upper_bound(*request.exclusive_start_table_name)
                : tables_.begin();
  for (; it != tables_.end() && response.table_names.size() < limit; ++it) {
    response.table_names.push_back(it->first);
  }
  if (it != tables_.end() && !response.table_names.empty()) {
    response.last_evaluated_table_name = response.table_names.back();
  }
  return response;
}

Result<DeleteTableResponse> Database::Impl::DeleteTable(const DeleteTableRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  // In-flight item operations finish first; later ones see `deleted`.
  auto locked = LockTableExclusive(request.table_name);
  if (!locked.ok()) return locked.status();
  std::shared_ptr<TableState> table = locked->state;
  const uint32_t id = table->info.space_id;

  DeleteTableResponse response;
  response.table_description = Describe(table->info, options_.region, options_.account_id);
  FillStatistics(table->info, &response.table_description,
                 [this](uint32_t space) { return ReadTableStats(space); });
  response.table_description.table_status = TableStatus::kDeleting;

  // One batch: the descriptor goes, and a range tombstone covers every item
  // key and statistic of the table, whatever its size. Space ids are never
  // reused, so the tombstones cannot hide a later table's data.
  rocksdb::WriteBatch batch;
  batch.Delete(catalog_cf_, CatalogTableKey(table->info.name));
  batch.DeleteRange(items_cf_, SpaceBound(id), SpaceBound(id + 1));
  batch.DeleteRange(stats_cf_, SpaceBound(id), SpaceBound(id + 1));
  for (const auto& index : table->info.indexes) {
    batch.DeleteRange(indexes_cf_, SpaceBound(index.space_id), SpaceBound(index.space_id + 1));
    batch.DeleteRange(stats_cf_, SpaceBound(index.space_id), SpaceBound(index.space_id + 1));
  }
  rocksdb::WriteOptions sync;
  sync.sync = true;
  DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &batch)));
  table->deleted = true;
  tables_.erase(request.table_name);
  return response;
}

Status Database::Impl::ReplaceTable(const std::shared_ptr<TableState>& old, TableInfo info,
                                    rocksdb::WriteBatch* batch) {
  // The caller holds old->mu exclusively: no item operation is in flight on
  // the old descriptor, and later ones find the replacement (AcquireTable
  // retries on `replaced`).
  batch->Put(catalog_cf_, CatalogTableKey(info.name), EncodeTableDescriptor(info));
  std::string next;
  format::PutFixed32BE(&next, next_space_id_);
  batch->Put(catalog_cf_, std::string(kCatalogNextSpaceIdKey), next);
  rocksdb::WriteOptions sync;
  sync.sync = true;
  DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, batch)));
  old->replaced = true;
  std::string name = info.name;
  tables_[name] = std::make_shared<TableState>(std::move(info));
  return Status::OK();
}

Result<UpdateTableResponse> Database::Impl::UpdateTable(const UpdateTableRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  std::string backfill;
  {
    auto locked = LockTableExclusive(request.table_name);
    if (!locked.ok()) return locked.status();
    std::shared_ptr<TableState> state = locked->state;
    TableInfo info = state->info;
    rocksdb::WriteBatch batch;
    if (request.billing_mode) info.billing_mode = *request.billing_mode;
    if (request.provisioned_throughput) info.throughput = *request.provisioned_throughput;
    if (info.billing_mode == BillingMode::kPayPerRequest) info.throughput = {};
    const auto& updates = request.global_secondary_index_updates;
    if (updates && updates->size() > 1) {
      return Status::LimitExceeded(
          "Subscriber limit exceeded: Only 1 online index can be created or deleted "
          "simultaneously per table");
    }
    if (updates && updates->size() == 1) {
      const GlobalSecondaryIndexUpdate& u = (*updates)[0];
      if (u.create.has_value() == u.delete_index_name.has_value()) {
        return InvalidParameter(
            "One of Create or Delete must be specified in a GlobalSecondaryIndexUpdate");
      }
      for (const auto& existing : info.indexes) {
        if (existing.backfilling) {
          return Status::LimitExceeded(
              "Subscriber limit exceeded: Only 1 online index can be created or deleted "
              "simultaneously per table");
        }
      }
      if (u.create) {
        // Validate the new index as CreateTable would, against the table's
        // keys and the merged attribute definitions.
        CreateTableRequest check;
        check.table_name = info.name;
        check.key_schema.push_back({info.partition_key.name, KeyType::kHash});
        if (info.sort_key) check.key_schema.push_back({info.sort_key->name, KeyType::kRange});
        check.attribute_definitions = info.attribute_definitions;
        if (request.attribute_definitions) {
          for (const auto& d : *request.attribute_definitions) {
            auto known = info.DefinedType(d.attribute_name);
            if (known && *known != d.attribute_type) {
              return InvalidParameter("Cannot change the type of existing attribute " +
                                      d.attribute_name);
            }
            if (!known) check.attribute_definitions.push_back(d);
          }
        }
        check.billing_mode = info.billing_mode;
        if (info.billing_mode == BillingMode::kProvisioned)
          check.provisioned_throughput = info.throughput;
        check.global_secondary_indexes.emplace();
        for (const auto& existing : info.indexes) {
          if (existing.name == u.create->index_name) {
            return InvalidParameter("Duplicate index name: " + existing.name);
          }
        }
        check.global_secondary_indexes->push_back({u.create->index_name, u.create->key_schema,
                                                   u.create->projection,
                                                   u.create->provisioned_throughput});
        // Only the key attributes of the table and its indexes may be defined.
        std::vector<AttributeDefinition> used;
        for (const auto& d : check.attribute_definitions) {
          bool is_key = d.attribute_name == info.partition_key.name ||
                        (info.sort_key && d.attribute_name == info.sort_key->name);
          for (const auto& k : u.create->key_schema) is_key |= k.attribute_name == d.attribute_name;
          for (const auto& i : info.indexes) {
            is_key |= i.partition_key.name == d.attribute_name ||
                      (i.sort_key && i.sort_key->name == d.attribute_name);
          }
          if (is_key) used.push_back(d);
        }
        check.attribute_definitions = used;
        // Existing LSIs/GSIs take part in the definitions count check.
        for (const auto& i : info.indexes) {
          std::vector<KeySchemaElement> ks = {{i.partition_key.name, KeyType::kHash}};
          if (i.sort_key) ks.push_back({i.sort_key->name, KeyType::kRange});
          if (i.global) {
            check.global_secondary_indexes->push_back(
                {i.name,
                 ks,
                 {i.projection, i.non_key_attributes},
                 info.billing_mode == BillingMode::kProvisioned ? std::optional(i.throughput)
                                                                : std::nullopt});
          } else {
            if (!check.local_secondary_indexes) check.local_secondary_indexes.emplace();
            check.local_secondary_indexes->push_back(
                {i.name, ks, {i.projection, i.non_key_attributes}});
          }
        }
        auto validated = ValidateCreateTable(check);
        if (!validated.ok()) return validated.status();
        const IndexInfo* added = validated->FindIndex(u.create->index_name);
        IndexInfo index = *added;
        index.space_id = next_space_id_++;
        index.backfilling = true;
        info.attribute_definitions = validated->attribute_definitions;
        info.indexes.push_back(std::move(index));
        backfill = u.create->index_name;
      } else {
        auto pos = std::find_if(info.indexes.begin(), info.indexes.end(), [&](const IndexInfo& i) {
          return i.global && i.name == *u.delete_index_name;
        });
        if (pos == info.indexes.end()) {
          return Status::ResourceNotFound(
              "Requested resource not found: Index: " + *u.delete_index_name + " not found");
        }
        // Cheap: the index's key space and statistics go with range deletions.
        batch.DeleteRange(indexes_cf_, SpaceBound(pos->space_id), SpaceBound(pos->space_id + 1));
        batch.DeleteRange(stats_cf_, SpaceBound(pos->space_id), SpaceBound(pos->space_id + 1));
        info.indexes.erase(pos);
      }
    }
    DYNAROCK_RETURN_IF_ERROR(ReplaceTable(state, std::move(info), &batch));
  }
  if (!backfill.empty()) DYNAROCK_RETURN_IF_ERROR(BackfillIndex(request.table_name, backfill));
  auto described = DescribeTable({request.table_name});
  if (!described.ok()) return described.status();
  UpdateTableResponse response;
  response.table_description = std::move(described->table);
  return response;
}

Status Database::Impl::BackfillIndex(const std::string& table_name, const std::string& index_name) {
  // Batches of items, each item read and indexed under its write lock, so a
  // concurrent write of the same item (which maintains the new index itself)
  // can never be overwritten by a stale entry.
  constexpr size_t kBatchItems = 1000;
  std::string start;
  std::optional<uint32_t> first_space_id;
  uint32_t space_id = 0;
  while (true) {
    auto handle = AcquireTable(table_name);
    if (!handle.ok()) return handle.status();
    const TableInfo& info = (*handle)->info();
    const IndexInfo* index = info.FindIndex(index_name);
    if (index == nullptr) return Status::OK();  // deleted meanwhile
    // A table dropped and re-created under the same name is another table.
    if (!first_space_id) first_space_id = info.space_id;
    if (info.space_id != *first_space_id) return Status::OK();
    space_id = info.space_id;
    std::string lower = start.empty() ? SpaceBound(info.space_id) : start;
    std::string upper = SpaceBound(info.space_id + 1);
    rocksdb::Slice lo(lower), hi(upper);
    rocksdb::ReadOptions ro;
    ro.iterate_lower_bound = &lo;
    ro.iterate_upper_bound = &hi;
    ro.total_order_seek = true;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, items_cf_));
    std::vector<std::string> keys;
    for (it->Seek(lo); it->Valid() && keys.size() < kBatchItems; it->Next()) {
      keys.push_back(it->key().ToString());
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    bool done = !it->Valid();
    rocksdb::WriteBatch batch;
    for (const auto& k : keys) {
      format::EncodedKey key(k);
      auto decoded = format::DecodeItemKey(k, info.key_types());
      if (!decoded.ok()) return decoded.status();
      std::lock_guard lock(WriteLock(info, key, decoded->pk));
      auto item = ReadItem(key);
      if (!item.ok()) return item.status();
      if (!*item) continue;  // deleted meanwhile
      auto index_key = IndexKeyFor(info, *index, **item);
      if (!index_key) continue;  // sparse
      rocksdb::WriteBatch one;
      one.Put(indexes_cf_, index_key->bytes(),
              format::EncodeItem(ProjectForIndex(info, *index, **item)));
      DYNAROCK_RETURN_IF_ERROR(Write(&one));
    }
    if (done) break;
    start = keys.back() + std::string(1, '\0');
  }
  // Complete: recount the index exactly and make it readable, with no write
  // running meanwhile.
  auto locked = LockTableExclusive(table_name);
  if (!locked.ok())
    return locked.status().code() == Status::Code::kResourceNotFound ? Status::OK()
                                                                     : locked.status();
  std::shared_ptr<TableState> state = locked->state;
  TableInfo info = state->info;
  if (info.space_id != space_id) return Status::OK();  // dropped and re-created meanwhile
  IndexInfo* index = nullptr;
  for (auto& i : info.indexes) {
    if (i.name == index_name) index = &i;
  }
  if (index == nullptr) return Status::OK();
  auto total = CountIndexEntries(index->space_id);
  if (!total.ok()) return total.status();
  index->backfilling = false;
  rocksdb::WriteBatch batch;
  batch.Put(stats_cf_, TableStatsKey(index->space_id), EncodeCounter(*total));
  return ReplaceTable(state, std::move(info), &batch);
}

Result<Counter> Database::Impl::CountIndexEntries(uint32_t index_space_id) {
  Counter total;
  std::string lower = SpaceBound(index_space_id), upper = SpaceBound(index_space_id + 1);
  rocksdb::Slice lo(lower), hi(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lo;
  ro.iterate_upper_bound = &hi;
  ro.total_order_seek = true;
  std::unique_ptr<rocksdb::Iterator> scan(db_->NewIterator(ro, indexes_cf_));
  std::string value;
  for (scan->Seek(lo); scan->Valid(); scan->Next()) {
    value.assign(scan->value().data(), scan->value().size());
    ++total.items;
    total.bytes += static_cast<int64_t>(format::ItemSize(format::ItemView::OpenTrusted(value)));
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(scan->status()));
  return total;
}

// ---- TTL and tags ----------------------------------------------------------------------------

Result<UpdateTimeToLiveResponse> Database::Impl::UpdateTimeToLive(
    const UpdateTimeToLiveRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  const auto& spec = request.time_to_live_specification;

  auto locked = LockTableExclusive(request.table_name);
  if (!locked.ok()) return locked.status();
  TableInfo info = locked->state->info;
  if (spec.enabled && info.ttl_enabled) {
    return Status::Validation("TimeToLive is already enabled");
  }
  if (!spec.enabled && !info.ttl_enabled) {
    return Status::Validation("TimeToLive is already disabled");
  }
  if (!spec.enabled && info.ttl_attribute && *info.ttl_attribute != spec.attribute_name) {
    return Status::Validation("TimeToLive attribute name " + spec.attribute_name +
                              " does not match the enabled attribute " + *info.ttl_attribute);
  }
  info.ttl_enabled = spec.enabled;
  info.ttl_attribute = spec.attribute_name;
  rocksdb::WriteBatch batch;
  DYNAROCK_RETURN_IF_ERROR(ReplaceTable(locked->state, std::move(info), &batch));
  return UpdateTimeToLiveResponse{spec};
}

Result<DescribeTimeToLiveResponse> Database::Impl::DescribeTimeToLive(
    const DescribeTimeToLiveRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  auto table = FindTable(request.table_name, true);
  if (!table.ok()) return table.status();
  DescribeTimeToLiveResponse r;
  r.enabled = (*table)->info.ttl_enabled;
  if (r.enabled) r.attribute_name = (*table)->info.ttl_attribute;
  return r;
}

Result<std::string> Database::Impl::TableNameFromArn(std::string_view arn) {
  const std::string prefix =
      "arn:aws:dynamodb:" + options_.region + ":" + options_.account_id + ":table/";
  if (arn.substr(0, prefix.size()) != prefix ||
      arn.find('/', prefix.size()) != std::string_view::npos) {
    return Status::ResourceNotFound(
        "Requested resource not found: ResourceArn: " + std::string(arn) + " not found");
  }
  return std::string(arn.substr(prefix.size()));
}

Status Database::Impl::TagResource(const TagResourceRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  auto name = TableNameFromArn(request.resource_arn);
  if (!name.ok()) return name.status();
  auto locked = LockTableExclusive(*name);
  if (!locked.ok()) return Status::ResourceNotFound();
  TableInfo info = locked->state->info;
  for (const auto& [k, v] : request.tags) info.tags[k] = v;
  if (info.tags.size() > 50)
    return Status::LimitExceeded("The number of tags exceeds the limit of 50");
  rocksdb::WriteBatch batch;
  return ReplaceTable(locked->state, std::move(info), &batch);
}

Status Database::Impl::UntagResource(const UntagResourceRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  auto name = TableNameFromArn(request.resource_arn);
  if (!name.ok()) return name.status();
  auto locked = LockTableExclusive(*name);
  if (!locked.ok()) return Status::ResourceNotFound();
  TableInfo info = locked->state->info;
  for (const auto& k : request.tag_keys) info.tags.erase(k);
  rocksdb::WriteBatch batch;
  return ReplaceTable(locked->state, std::move(info), &batch);
}

Result<ListTagsOfResourceResponse> Database::Impl::ListTagsOfResource(
    const ListTagsOfResourceRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  auto name = TableNameFromArn(request.resource_arn);
  if (!name.ok()) return name.status();
  auto table = FindTable(*name, false);
  if (!table.ok()) return table.status();
  return ListTagsOfResourceResponse{(*table)->info.tags};
}

// ---- Items -------------------------------------------------------------------------------

Result<PutItemResponse> Database::Impl::PutItem(const PutItemRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  RequestExpressions rx(request.expression_attribute_names, request.expression_attribute_values);
  DeclareParameters(request, &rx);
  DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
  DYNAROCK_RETURN_IF_ERROR(CheckPutDeleteReturnValues(request.return_values));
  auto condition = WriteCondition(&rx, request.condition_expression, request.expected,
                                  request.conditional_operator);
  if (!condition.ok()) return condition.status();
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  // Only now the table (VALIDATION.md 0: checks without it come first).
  auto handle = AcquireTable(request.table_name);
  if (!handle.ok()) return handle.status();
  const TableInfo& info = (*handle)->info();
  auto key = CheckItemForPut(info, request.item);
  if (!key.ok()) return key.status();
  format::EncodedKey encoded_key = key->Encode(info.space_id);

  std::lock_guard item_lock(WriteLock(info, encoded_key, *key->partition));
  auto old = ReadItem(encoded_key);
  if (!old.ok()) return old.status();
  if (!ConditionHolds(*condition, *old)) {
    return ConditionFailed(*old, request.return_values_on_condition_check_failure);
  }
  CapacityMeter meter(request.return_consumed_capacity);
  auto metrics = CommitItemWrite(info, encoded_key, *old, &request.item,
                                 request.return_item_collection_metrics, &meter);
  if (!metrics.ok()) return metrics.status();

  PutItemResponse response;
  response.consumed_capacity = meter.For(info.name);
  if (request.return_values == ReturnValue::kAllOld) response.attributes = std::move(*old);
  response.item_collection_metrics = std::move(metrics).value();
  return response;
}

Result<GetItemResponse> Database::Impl::GetItem(const GetItemRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  RequestExpressions rx(request.expression_attribute_names, std::nullopt);
  DeclareParameters(request, &rx);
  DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
  auto projection = rx.Projection(request.projection_expression);
  if (!projection.ok()) return projection.status();
  if (request.attributes_to_get)
    *projection = ProjectionFromAttributesToGet(*request.attributes_to_get);
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  // Only now the table (VALIDATION.md 0: checks without it come first).
  auto handle = AcquireTable(request.table_name);
  if (!handle.ok()) return handle.status();
  const TableInfo& info = (*handle)->info();
  auto key = KeyMapPrimaryKey(info, request.key);
  if (!key.ok()) return key.status();

  auto item = ReadItem(key->Encode(info.space_id));
  if (!item.ok()) return item.status();
  GetItemResponse response;
  response.item = std::move(item).value();
  CapacityMeter meter(request.return_consumed_capacity);
  // A missing item still costs one read.
  meter.Read(
      info.name, nullptr,
      ReadUnits(response.item ? format::ItemSize(*response.item) : 0, request.consistent_read));
  response.consumed_capacity = meter.For(info.name);
  if (response.item && *projection) response.item = expr::Project(*response.item, **projection);
  return response;
}

Result<DeleteItemResponse> Database::Impl::DeleteItem(const DeleteItemRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  RequestExpressions rx(request.expression_attribute_names, request.expression_attribute_values);
  DeclareParameters(request, &rx);
  DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
  DYNAROCK_RETURN_IF_ERROR(CheckPutDeleteReturnValues(request.return_values));
  auto condition = WriteCondition(&rx, request.condition_expression, request.expected,
                                  request.conditional_operator);
  if (!condition.ok()) return condition.status();
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  // Only now the table (VALIDATION.md 0: checks without it come first).
  auto handle = AcquireTable(request.table_name);
  if (!handle.ok()) return handle.status();
  const TableInfo& info = (*handle)->info();
  auto key = KeyMapPrimaryKey(info, request.key);
  if (!key.ok()) return key.status();
  format::EncodedKey encoded_key = key->Encode(info.space_id);

  std::lock_guard item_lock(WriteLock(info, encoded_key, *key->partition));
  auto old = ReadItem(encoded_key);
  if (!old.ok()) return old.status();
  if (!ConditionHolds(*condition, *old)) {
    return ConditionFailed(*old, request.return_values_on_condition_check_failure);
  }
  DeleteItemResponse response;
  CapacityMeter meter(request.return_consumed_capacity);
  if (!*old) {
    // Deleting a missing item succeeds, writes nothing, and costs one unit.
    meter.Write(info.name, nullptr, WriteUnits(0));
    response.consumed_capacity = meter.For(info.name);
    return response;
  }
  auto metrics = CommitItemWrite(info, encoded_key, *old, nullptr,
                                 request.return_item_collection_metrics, &meter);
  if (!metrics.ok()) return metrics.status();
  if (request.return_values == ReturnValue::kAllOld) response.attributes = std::move(*old);
  response.item_collection_metrics = std::move(metrics).value();
  response.consumed_capacity = meter.For(info.name);
  return response;
}

Result<UpdateItemResponse> Database::Impl::UpdateItem(const UpdateItemRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  RequestExpressions rx(request.expression_attribute_names, request.expression_attribute_values);
  DeclareParameters(request, &rx);
  DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
  auto update = rx.Update(request.update_expression);
  if (!update.ok()) return update.status();
  if (request.attribute_updates) {
    auto legacy = UpdateFromAttributeUpdates(*request.attribute_updates);
    if (!legacy.ok()) return legacy.status();
    *update = std::move(legacy).value();
  }
  auto condition = WriteCondition(&rx, request.condition_expression, request.expected,
                                  request.conditional_operator);
  if (!condition.ok()) return condition.status();
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  // Only now the table (VALIDATION.md 0: checks without it come first).
  auto handle = AcquireTable(request.table_name);
  if (!handle.ok()) return handle.status();
  const TableInfo& info = (*handle)->info();
  auto key = KeyMapPrimaryKey(info, request.key);
  if (!key.ok()) return key.status();
  const expr::UpdateExpression no_update;
  const expr::UpdateExpression& u = *update ? **update : no_update;
  // Key attributes cannot be updated, nor addressed as documents.
  for (const auto& a : u.actions) {
    const std::string& root = a.path.root();
    if (root != info.partition_key.name && !(info.sort_key && root == info.sort_key->name))
      continue;
    if (a.path.nested()) {
      return Status::Validation(
          "Key attributes must be scalars; list random access '[]' and map "
          "lookup '.' are not allowed: Key: " +
          root);
    }
    return InvalidParameter("Cannot update attribute " + root +
                            ". This attribute is part of the key");
  }

  format::EncodedKey encoded_key = key->Encode(info.space_id);
  std::lock_guard item_lock(WriteLock(info, encoded_key, *key->partition));
  auto old = ReadItem(encoded_key);
  if (!old.ok()) return old.status();
  if (!ConditionHolds(*condition, *old)) {
    return ConditionFailed(*old, request.return_values_on_condition_check_failure);
  }
  // UpdateItem creates the item when it is absent, starting from its key.
  Item item = *old ? **old : request.key;
  DYNAROCK_RETURN_IF_ERROR(expr::ApplyUpdate(u, &item));
  if (format::ItemSize(item) > format::kMaxItemBytes) {
    return Status::Validation("Item size to update has exceeded the maximum allowed size");
  }
  DYNAROCK_RETURN_IF_ERROR(CheckIndexKeys(info, item));
  if (info.has_lsi() &&
      ItemWithLocalIndexesBytes(info, item) > static_cast<int64_t>(format::kMaxItemBytes)) {
    return Status::Validation("Item size to update has exceeded the maximum allowed size");
  }
  CapacityMeter meter(request.return_consumed_capacity);
  auto metrics = CommitItemWrite(info, encoded_key, *old, &item,
                                 request.return_item_collection_metrics, &meter);
  if (!metrics.ok()) return metrics.status();

  UpdateItemResponse response;
  response.item_collection_metrics = std::move(metrics).value();
  response.consumed_capacity = meter.For(info.name);
  auto nonempty = [](Item i) {
    return i.empty() ? std::nullopt : std::optional<Item>(std::move(i));
  };
  switch (request.return_values) {
    case ReturnValue::kNone:
      break;
    case ReturnValue::kAllOld:
      response.attributes = std::move(*old);
      break;
    case ReturnValue::kAllNew:
      response.attributes = std::move(item);
      break;
    case ReturnValue::kUpdatedOld:
      if (*old) response.attributes = nonempty(expr::Project(**old, expr::UpdatedPaths(u)));
      break;
    case ReturnValue::kUpdatedNew:
      response.attributes = nonempty(expr::Project(item, expr::UpdatedPaths(u)));
      break;
  }
  return response;
}

Result<std::vector<CollectionStatistics>> Database::Impl::LargestCollections(
    const std::string& table_name, size_t limit) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(DescribeTableRequest{table_name}));
  auto handle = AcquireTable(table_name);
  if (!handle.ok()) return handle.status();
  const TableInfo& info = (*handle)->info();
  std::string lower, upper;
  format::PutFixed32BE(&lower, info.space_id);
  lower.push_back(kCollectionStatsTag);
  upper = *format::PrefixSuccessor(lower);
  rocksdb::Slice lo(lower), hi(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lo;
  ro.iterate_upper_bound = &hi;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, stats_cf_));
  // A min-heap of the largest `limit` seen so far.
  auto smaller = [](const CollectionStatistics& a, const CollectionStatistics& b) {
    return a.size_bytes > b.size_bytes;
  };
  std::vector<CollectionStatistics> top;
  for (it->Seek(lo); it->Valid(); it->Next()) {
    Counter c;
    if (!DecodeCounter(std::string_view(it->value().data(), it->value().size()), &c)) {
      return Status::Corruption("stats: malformed collection counter");
    }
    if (c.items == 0) continue;  // emptied; the compaction filter drops these
    // Key: space_id | 'C' | hash | enc(pk): decode the partition key.
    std::string_view key(it->key().data(), it->key().size());
    key.remove_prefix(5 + 8);
    AttributeValue pk;
    DYNAROCK_RETURN_IF_ERROR(format::GetKeyComponent(&key, info.partition_key.type, &pk));
    top.push_back({{{info.partition_key.name, std::move(pk)}}, c.items, c.bytes});
    std::push_heap(top.begin(), top.end(), smaller);
    if (top.size() > limit) {
      std::pop_heap(top.begin(), top.end(), smaller);
      top.pop_back();
    }
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  std::sort_heap(top.begin(), top.end(), smaller);
  return top;
}

Result<StatisticsReport> Database::Impl::RecountStatistics() {
  // Every table exclusively (in name order, without the catalog lock held:
  // see LockTableExclusive), so no item operation runs during the recount.
  std::vector<std::shared_ptr<TableState>> states;
  {
    std::shared_lock catalog_lock(catalog_mu_);
    for (auto& [name, state] : tables_) states.push_back(state);
  }
  std::vector<std::unique_lock<std::shared_mutex>> table_locks;
  std::map<uint32_t, TableInfo> tables;
  for (auto& state : states) {
    table_locks.emplace_back(state->mu);
    // Dropped or changed while we waited: not part of this recount.
    if (!state->deleted && !state->replaced) tables.emplace(state->info.space_id, state->info);
  }
  auto recount = std::make_shared<Recount>();
  recount_factory_->Arm(recount, tables);
  rocksdb::CompactRangeOptions compact;
  compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  rocksdb::Status s = db_->CompactRange(compact, items_cf_, nullptr, nullptr);
  recount_factory_->Disarm();
  DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
  if (!recount->complete) {
    // No compaction ran: only possible when there is no item data at all.
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), items_cf_));
    it->SeekToFirst();
    if (it->Valid()) return Status::Internal("statistics recount: no full compaction ran");
  }

  StatisticsReport report;
  report.unreadable_items = recount->unreadable;
  rocksdb::WriteBatch batch;
  for (const auto& [space_id, info] : tables) {
    // Collections with a counter: compare, correct, or drop if empty.
    std::string lower;
    format::PutFixed32BE(&lower, space_id);
    lower.push_back(kCollectionStatsTag);
    std::string upper = *format::PrefixSuccessor(lower);
    rocksdb::Slice lo(lower), hi(upper);
    rocksdb::ReadOptions ro;
    ro.iterate_lower_bound = &lo;
    ro.iterate_upper_bound = &hi;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, stats_cf_));
    std::set<std::string> seen;
    for (it->Seek(lo); it->Valid(); it->Next()) {
      std::string key = it->key().ToString();
      seen.insert(key);
      ++report.collections_checked;
      Counter stored;
      bool readable =
          DecodeCounter(std::string_view(it->value().data(), it->value().size()), &stored);
      auto truth = recount->collections.find(key);
      Counter actual = truth == recount->collections.end() ? Counter{} : truth->second;
      if (readable && stored.items == 0 && stored.bytes == 0 && actual.items == 0) {
        batch.Delete(stats_cf_, key);
        ++report.empty_collections_dropped;
      } else if (!readable || stored.items != actual.items || stored.bytes != actual.bytes) {
        if (actual.items == 0) {
          batch.Delete(stats_cf_, key);
        } else {
          batch.Put(stats_cf_, key, EncodeCounter(actual));
        }
        ++report.collections_corrected;
      }
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    // Collections with data but no counter at all.
    for (auto c = recount->collections.lower_bound(lower);
         c != recount->collections.end() && c->first < upper; ++c) {
      if (seen.count(c->first)) continue;
      ++report.collections_checked;
      ++report.collections_corrected;
      batch.Put(stats_cf_, c->first, EncodeCounter(c->second));
    }
    Counter stored = ReadTableStats(space_id);
    auto truth = recount->tables.find(space_id);
    Counter actual = truth == recount->tables.end() ? Counter{} : truth->second;
    if (stored.items != actual.items || stored.bytes != actual.bytes) {
      batch.Put(stats_cf_, TableStatsKey(space_id), EncodeCounter(actual));
      ++report.table_totals_corrected;
    }
    // Each index's totals, counted from its entries (the table is locked).
    for (const auto& index : info.indexes) {
      if (index.backfilling) continue;  // its backfill sets exact totals when it completes
      auto entries = CountIndexEntries(index.space_id);
      if (!entries.ok()) return entries.status();
      Counter stored_index = ReadTableStats(index.space_id);
      if (stored_index.items != entries->items || stored_index.bytes != entries->bytes) {
        batch.Put(stats_cf_, TableStatsKey(index.space_id), EncodeCounter(*entries));
        ++report.index_totals_corrected;
      }
    }
  }
  rocksdb::WriteOptions sync;
  sync.sync = true;
  DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &batch)));
  return report;
}

// ---- Public forwarding ---------------------------------------------------------------------

Result<CreateTableResponse> Database::CreateTable(const CreateTableRequest& r) {
  return impl_->CreateTable(r);
}
Result<DescribeTableResponse> Database::DescribeTable(const DescribeTableRequest& r) {
  return impl_->DescribeTable(r);
}
Result<ListTablesResponse> Database::ListTables(const ListTablesRequest& r) {
  return impl_->ListTables(r);
}
Result<DeleteTableResponse> Database::DeleteTable(const DeleteTableRequest& r) {
  return impl_->DeleteTable(r);
}
Result<UpdateTableResponse> Database::UpdateTable(const UpdateTableRequest& r) {
  return impl_->UpdateTable(r);
}
Result<UpdateTimeToLiveResponse> Database::UpdateTimeToLive(const UpdateTimeToLiveRequest& r) {
  return impl_->UpdateTimeToLive(r);
}
Result<DescribeTimeToLiveResponse> Database::DescribeTimeToLive(
    const DescribeTimeToLiveRequest& r) {
  return impl_->DescribeTimeToLive(r);
}
Status Database::TagResource(const TagResourceRequest& r) { return impl_->TagResource(r); }
Status Database::UntagResource(const UntagResourceRequest& r) { return impl_->UntagResource(r); }
Result<ListTagsOfResourceResponse> Database::ListTagsOfResource(
    const ListTagsOfResourceRequest& r) {
  return impl_->ListTagsOfResource(r);
}
Result<PutItemResponse> Database::PutItem(const PutItemRequest& r) { return impl_->PutItem(r); }
Result<GetItemResponse> Database::GetItem(const GetItemRequest& r) { return impl_->GetItem(r); }
Result<DeleteItemResponse> Database::DeleteItem(const DeleteItemRequest& r) {
  return impl_->DeleteItem(r);
}
Result<UpdateItemResponse> Database::UpdateItem(const UpdateItemRequest& r) {
  return impl_->UpdateItem(r);
}
Result<BatchGetItemResponse> Database::BatchGetItem(const BatchGetItemRequest& r) {
  return impl_->BatchGetItem(r);
}
Result<BatchWriteItemResponse> Database::BatchWriteItem(const BatchWriteItemRequest& r) {
  return impl_->BatchWriteItem(r);
}
Result<TransactWriteItemsResponse> Database::TransactWriteItems(
    const TransactWriteItemsRequest& r) {
  return impl_->TransactWriteItems(r);
}
Result<TransactGetItemsResponse> Database::TransactGetItems(const TransactGetItemsRequest& r) {
  return impl_->TransactGetItems(r);
}
Result<QueryResponse> Database::Query(const QueryRequest& r) { return impl_->Query(r); }
Result<ScanResponse> Database::Scan(const ScanRequest& r) { return impl_->Scan(r); }
Result<std::vector<CollectionStatistics>> Database::LargestCollections(const std::string& table,
                                                                       size_t limit) {
  return impl_->LargestCollections(table, limit);
}
Result<StatisticsReport> Database::RecountStatistics() { return impl_->RecountStatistics(); }
Status Database::WaitForCompactions() { return impl_->WaitForCompactions(); }

Status Database::Impl::WaitForCompactions() {
  // RocksDB 7 has no call that waits for background work: poll its counters.
  auto busy = [this] {
    uint64_t n = 0;
    for (const char* p : {"rocksdb.num-running-compactions", "rocksdb.num-running-flushes"}) {
      if (db_->GetIntProperty(p, &n) && n > 0) return true;
    }
    for (auto* cf : handles_) {
      for (const char* p : {"rocksdb.compaction-pending", "rocksdb.mem-table-flush-pending"}) {
        if (db_->GetIntProperty(cf, p, &n) && n > 0) return true;
      }
    }
    return false;
  };
  while (busy()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return Status::OK();
}

// ---- ReadCounter ----------------------------------------------------------------------------

ReadCounter::ReadCounter() : previous_level_(static_cast<int>(rocksdb::GetPerfLevel())) {
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
}

ReadCounter::~ReadCounter() {
  rocksdb::SetPerfLevel(static_cast<rocksdb::PerfLevel>(previous_level_));
}

uint64_t ReadCounter::keys_touched() const {
  const rocksdb::PerfContext* p = rocksdb::get_perf_context();
  // Every key an iterator moved over (Next/Prev skip the previous key; hidden
  // versions and tombstones count too), plus the key each seek landed on.
  return p->internal_key_skipped_count + p->internal_delete_skipped_count + seeks();
}

uint64_t ReadCounter::seeks() const {
  const rocksdb::PerfContext* p = rocksdb::get_perf_context();
  return p->seek_on_memtable_count + p->seek_child_seek_count;
}

}  // namespace dynarock
