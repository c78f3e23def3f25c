// Tables: CreateTable, DescribeTable, ListTables, DeleteTable, UpdateTable
// and time to live; and how operations find and hold a table against a
// concurrent DeleteTable or UpdateTable. (What is addressed by a table's
// ARN, tags and resource policies: db_impl_resources.cc.)
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <random>
#include <set>

#include "engine/db_impl.h"
#include "engine/model/checks.h"
#include "engine/validation.h"

namespace dynarock {

// ---- Finding and holding tables ------------------------------------------------------------

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

Result<TableInfo> Database::Impl::FindTableInfo(std::string_view name) {
  DYNAROCK_ASSIGN_OR_RETURN(auto table, FindTable(name, false));
  return table->info;
}

Result<std::unique_ptr<TableHandle>> Database::Impl::AcquireTable(std::string_view name) {
  while (true) {
    DYNAROCK_ASSIGN_OR_RETURN(auto found, FindTable(name, false));
    auto handle = std::make_unique<TableHandle>(std::move(found));
    if (handle->deleted()) return Status::ResourceNotFound();
    if (!handle->replaced()) return handle;
    // UpdateTable swapped the table while we waited: take the new one.
  }
}

Result<Database::Impl::ExclusiveTable> Database::Impl::LockTableExclusive(std::string_view name) {
  while (true) {
    DYNAROCK_ASSIGN_OR_RETURN(auto found, FindTable(name, true));
    ExclusiveTable t;
    t.state = std::move(found);
    t.table_lock = std::unique_lock(t.state->mu);
    t.catalog_lock = std::unique_lock(catalog_mu_);
    auto it = tables_.find(name);
    if (it != tables_.end() && it->second == t.state) return t;
    // Replaced or deleted while we waited: look again.
  }
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

Status Database::Impl::AcquireTables(TableHandles* handles) {
  for (auto& [name, handle] : *handles) {
    DYNAROCK_ASSIGN_OR_RETURN(handle, AcquireTable(name));
  }
  return Status::OK();
}

// ---- Table operations ----------------------------------------------------------------------

Result<TableInfo> Database::Impl::NewTable(const CreateTableRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_ASSIGN_OR_RETURN(TableInfo info, ValidateCreateTable(request));
  if (request.tags) {
    // TagResource's limit, for the tags a table is created with.
    if (request.tags->size() > 50) {
      return Status::LimitExceeded("The number of tags exceeds the limit of 50");
    }
    info.tags = *request.tags;
  }
  info.deletion_protection = request.deletion_protection_enabled;
  info.uuid = NewUuid();
  info.creation_time_ms = NowMs();
  if (request.resource_policy) {
    info.policy =
        AttachedPolicy{*request.resource_policy, std::to_string(info.creation_time_ms * 1000), ""};
  }
  if (request.table_class) {
    info.table_class = *request.table_class;
    info.table_class_since_ms = info.creation_time_ms;
  }
  if (info.billing_mode == BillingMode::kPayPerRequest) {
    info.pay_per_request_since_ms = info.creation_time_ms;
  }
  return info;
}

Status Database::Impl::CheckCreateTable(const CreateTableRequest& request) {
  DYNAROCK_ASSIGN_OR_RETURN(TableInfo info, NewTable(request));
  std::unique_lock lock(catalog_mu_);
  if (tables_.count(info.name)) return Status::ResourceInUse("Table already exists: " + info.name);
  return Status::OK();
}

Result<CreateTableResponse> Database::Impl::CreateTable(const CreateTableRequest& request) {
  DYNAROCK_ASSIGN_OR_RETURN(TableInfo info, NewTable(request));
  std::unique_lock lock(catalog_mu_);
  if (tables_.count(info.name)) {
    return Status::ResourceInUse("Table already exists: " + info.name);
  }
  uint32_t next_id = next_space_id_;
  info.space_id = next_id++;
  for (auto& index : info.indexes) index.space_id = next_id++;
  for (auto& index : info.vector_indexes) index.space_id = next_id++;
  next_space_id_ = next_id;

  rocksdb::WriteBatch batch;
  std::optional<StreamInfo> stream;
  if (request.stream_specification && request.stream_specification->stream_enabled) {
    DYNAROCK_RETURN_IF_ERROR(
        ApplyStreamChange(*request.stream_specification, &info, &batch, &stream));
  }
  std::string next;
  format::PutFixed32BE(&next, next_space_id_);
  batch.Put(catalog_cf_, std::string(kCatalogNextSpaceIdKey), next);
  batch.Put(catalog_cf_, CatalogTableKey(info.name), EncodeTableDescriptor(info));
  rocksdb::WriteOptions sync;
  sync.sync = true;  // catalog changes are rare: always make them durable
  DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &batch)));
  if (stream) InstallStream(std::move(*stream));

  CreateTableResponse response;
  response.table_description = Describe(info, options_.region, options_.account_id);
  // DynamoDB answers CreateTable while the table is CREATING; here it is
  // ACTIVE at once, and the next DescribeTable says so.
  response.table_description.table_status = TableStatus::kCreating;
  if (auto& gsis = response.table_description.global_secondary_indexes) {
    for (auto& g : *gsis) g.index_status = IndexStatus::kCreating;
  }
  std::string name = info.name;
  AddStoredKey(info);
  tables_.emplace(std::move(name), std::make_shared<TableState>(std::move(info)));
  return response;
}

namespace {

// Fills the statistics of a description from the counters (a counter that
// cannot be read fails the call: a description never shows a made-up zero).
template <typename ReadFn>
Status FillStatistics(const TableInfo& info, TableDescription* d, ReadFn read) {
  DYNAROCK_ASSIGN_OR_RETURN(Counter c, read(info.space_id));
  d->item_count = c.items;
  d->table_size_bytes = c.bytes;
  size_t l = 0, g = 0;
  for (const auto& index : info.indexes) {
    DYNAROCK_ASSIGN_OR_RETURN(Counter ic, read(index.space_id));
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
  size_t v = 0;
  for (const auto& index : info.vector_indexes) {
    DYNAROCK_ASSIGN_OR_RETURN(Counter vc, read(index.space_id));
    auto& desc = (*d->vector_indexes)[v++];
    desc.item_count = vc.items;
    desc.index_size_bytes = vc.bytes;
  }
  return Status::OK();
}

}  // namespace

Result<DescribeTableResponse> Database::Impl::DescribeTable(const DescribeTableRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_ASSIGN_OR_RETURN(auto table, FindTable(request.table_name, true));
  DescribeTableResponse response;
  response.table = Describe(table->info, options_.region, options_.account_id);
  DYNAROCK_RETURN_IF_ERROR(FillStatistics(table->info, &response.table,
                                          [this](uint32_t id) { return ReadTableStats(id); }));
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
  DYNAROCK_ASSIGN_OR_RETURN(auto locked, LockTableExclusive(request.table_name));
  std::shared_ptr<TableState> table = locked.state;
  const uint32_t id = table->info.space_id;
  if (table->info.deletion_protection) {
    return Status::Validation(
        "Resource cannot be deleted as it is currently protected against deletion. Disable "
        "deletion protection first.");
  }
  // DynamoDB refuses while a vector index is being created (its backfill
  // would have nothing to write to).
  for (const auto& v : table->info.vector_indexes) {
    if (v.backfilling) {
      return Status::ResourceInUse(
          "Attempt to change a resource which is still in use: Cannot delete table while "
          "indexes are being created, updated, or deleted.");
    }
  }

  DeleteTableResponse response;
  response.table_description = Describe(table->info, options_.region, options_.account_id);
  DYNAROCK_RETURN_IF_ERROR(
      FillStatistics(table->info, &response.table_description,
                     [this](uint32_t space) { return ReadTableStats(space); }));
  // DynamoDB's DeleteTable description: no CreationDateTime, KeySchema,
  // AttributeDefinitions or index lists (its documented example; the rest
  // as DescribeTable; DeletionProtectionEnabled is false, or the table would
  // not be going).
  response.table_description.table_status = TableStatus::kDeleting;
  response.table_description.creation_date_time = 0;
  response.table_description.key_schema.clear();
  response.table_description.attribute_definitions.clear();
  response.table_description.local_secondary_indexes.reset();
  response.table_description.global_secondary_indexes.reset();
  response.table_description.vector_indexes.reset();

  // One batch: the descriptor goes, and a range tombstone covers every item
  // key and statistic of the table, whatever its size. Space ids are never
  // reused, so the tombstones cannot hide a later table's data.
  rocksdb::WriteBatch batch;
  batch.Delete(catalog_cf_, CatalogTableKey(table->info.name));
  // Its interned names.
  const std::string names = InternedNamesPrefix(id);
  batch.DeleteRange(catalog_cf_, names, *format::PrefixSuccessor(names));
  batch.DeleteRange(items_cf_, SpaceBound(id), SpaceBound(id + 1));
  batch.DeleteRange(stats_cf_, SpaceBound(id), SpaceBound(id + 1));
  for (const auto& index : table->info.indexes) {
    batch.DeleteRange(indexes_cf_, SpaceBound(index.space_id), SpaceBound(index.space_id + 1));
    batch.DeleteRange(stats_cf_, SpaceBound(index.space_id), SpaceBound(index.space_id + 1));
    // A GSI still being filled: its resume point.
    if (index.backfilling) batch.Delete(catalog_cf_, BackfillCursorKey(index.space_id));
  }
  for (const auto& index : table->info.vector_indexes) {
    batch.DeleteRange(vectors_cf_, SpaceBound(index.space_id), SpaceBound(index.space_id + 1));
    batch.DeleteRange(stats_cf_, SpaceBound(index.space_id), SpaceBound(index.space_id + 1));
  }
  // The stream is disabled with the table; its records stay readable
  // until retention, as DynamoDB keeps them.
  std::optional<StreamInfo> stream;
  if (table->info.enabled_stream()) {
    TableInfo info = table->info;
    DYNAROCK_RETURN_IF_ERROR(ApplyStreamChange({false, std::nullopt}, &info, &batch, &stream));
  }
  batch.Delete(catalog_cf_, TtlCursorKey(id));
  rocksdb::WriteOptions sync;
  sync.sync = true;
  DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &batch)));
  if (stream) InstallStream(std::move(*stream));
  table->deleted = true;
  tables_.erase(request.table_name);
  traffic_.Forget(id);
  max_throughput_.Forget(id);
  for (const auto& index : table->info.indexes) {
    traffic_.Forget(index.space_id);
    max_throughput_.Forget(index.space_id);
  }
  for (const auto& index : table->info.vector_indexes) graphs_->Drop(index.space_id);
  return response;
}

namespace {

constexpr int64_t kMaxCapacityUnits = 1'000'000'000'000;  // 10^12

// UpdateTable's checks before the table is looked up (VALIDATION.md 5.3).
Status CheckUpdateTableRequest(const UpdateTableRequest& request) {
  if (request.vector_index_updates) {
    for (const VectorIndexUpdate& u : *request.vector_index_updates) {
      if (u.create.has_value() == u.delete_index_name.has_value()) {
        return InvalidParameter(
            "Exactly one of VectorIndexUpdate.Create, VectorIndexUpdate.Delete must be "
            "specified");
      }
    }
  }
  const auto& updates = request.global_secondary_index_updates;
  if (!request.provisioned_throughput && !request.billing_mode && !request.stream_specification &&
      !request.deletion_protection_enabled && !request.table_class &&
      !request.on_demand_throughput && !request.warm_throughput && (!updates || updates->empty()) &&
      (!request.vector_index_updates || request.vector_index_updates->empty())) {
    return Status::Validation(
        "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
        "GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required");
  }
  if (request.billing_mode == BillingMode::kProvisioned && !request.provisioned_throughput) {
    return InvalidParameter(
        "ProvisionedThroughput must be specified when BillingMode is PROVISIONED");
  }
  if (const auto& pt = request.provisioned_throughput) {
    if (pt->read_capacity_units > kMaxCapacityUnits) {
      return Status::Validation("Given value " + std::to_string(pt->read_capacity_units) +
                                " for ReadCapacityUnits is out of bounds");
    }
    if (pt->write_capacity_units > kMaxCapacityUnits) {
      return Status::Validation("Given value " + std::to_string(pt->write_capacity_units) +
                                " for WriteCapacityUnits is out of bounds");
    }
  }
  DYNAROCK_RETURN_IF_ERROR(CheckOnDemandThroughput(request.on_demand_throughput));
  DYNAROCK_RETURN_IF_ERROR(CheckWarmThroughput(request.warm_throughput));
  if (updates) {
    std::set<std::string> names;
    for (const GlobalSecondaryIndexUpdate& u : *updates) {
      if (u.update) {
        if (!u.update->provisioned_throughput && !u.update->on_demand_throughput &&
            !u.update->warm_throughput) {
          return InvalidParameter(
              "One of ProvisionedThroughput, OnDemandThroughput or WarmThroughput must be "
              "specified for index: " +
              u.update->index_name);
        }
        DYNAROCK_RETURN_IF_ERROR(CheckOnDemandThroughput(u.update->on_demand_throughput));
        DYNAROCK_RETURN_IF_ERROR(CheckWarmThroughput(u.update->warm_throughput));
      }
      const int members =
          u.create.has_value() + u.delete_index_name.has_value() + u.update.has_value();
      if (members == 0) {
        return InvalidParameter(
            "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
            "GlobalSecondaryIndexUpdate.Delete must not be null");
      }
      if (members > 1) {
        return InvalidParameter(
            "Only one of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
            "GlobalSecondaryIndexUpdate.Delete may be specified");
      }
      const std::string& name = u.create   ? u.create->index_name
                                : u.update ? u.update->index_name
                                           : *u.delete_index_name;
      if (!names.insert(name).second) {
        return InvalidParameter(
            "Only one global secondary index update per index is allowed simultaneously. Index: " +
            name);
      }
    }
  }
  return Status::OK();
}

// A stream change comes alone (VALIDATION.md 5.3).
Status CheckStreamChange(const UpdateTableRequest& request) {
  const StreamSpecification& spec = *request.stream_specification;
  if (spec.stream_enabled && !spec.stream_view_type) {
    return InvalidParameter("If stream is being enabled then UpdateViewType is required");
  }
  if (!spec.stream_enabled && spec.stream_view_type) {
    return InvalidParameter(
        "If stream is being disabled, then UpdateViewType must not be specified");
  }
  if (request.provisioned_throughput || request.billing_mode) {
    return InvalidParameter("You cannot modify stream status while updating table IOPS");
  }
  if ((request.global_secondary_index_updates &&
       !request.global_secondary_index_updates->empty()) ||
      (request.vector_index_updates && !request.vector_index_updates->empty())) {
    return InvalidParameter("You cannot create or delete index while changing stream status");
  }
  return Status::OK();
}

const std::vector<GlobalSecondaryIndexUpdate>& IndexUpdates(const UpdateTableRequest& request) {
  static const std::vector<GlobalSecondaryIndexUpdate> kNoUpdates;
  return request.global_secondary_index_updates ? *request.global_secondary_index_updates
                                                : kNoUpdates;
}

// The capacity and index changes against the table as it is
// (VALIDATION.md 5.3, after the lookup, in order).
Status CheckCapacityChange(const UpdateTableRequest& request, const TableInfo& info) {
  const BillingMode new_mode = request.billing_mode.value_or(info.billing_mode);
  const auto& index_updates = IndexUpdates(request);
  bool index_throughput = false;
  for (const auto& u : index_updates) {
    index_throughput |= (u.update && u.update->provisioned_throughput.has_value()) ||
                        (u.create && u.create->provisioned_throughput.has_value());
  }
  if (new_mode == BillingMode::kPayPerRequest &&
      (request.provisioned_throughput || index_throughput)) {
    return InvalidParameter(
        "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
        "PAY_PER_REQUEST");
  }
  if (new_mode == BillingMode::kProvisioned && !info.vector_indexes.empty()) {
    return InvalidParameter("Vector indexes are only supported for PAY_PER_REQUEST tables");
  }
  size_t online = 0;  // creates and deletes, of GSIs and vector indexes alike
  for (const auto& u : index_updates) online += u.create || u.delete_index_name;
  if (request.vector_index_updates) online += request.vector_index_updates->size();
  bool backfilling = false;
  for (const auto& existing : info.indexes) backfilling |= existing.backfilling;
  for (const auto& existing : info.vector_indexes) backfilling |= existing.backfilling;
  if (index_updates.size() > 5 || online > 1 || (online == 1 && backfilling)) {
    return Status::LimitExceeded(
        "Subscriber limit exceeded: Only 1 online index can be created or deleted "
        "simultaneously per table");
  }
  if (info.billing_mode == BillingMode::kPayPerRequest && new_mode == BillingMode::kProvisioned) {
    // Every remaining GSI needs its own throughput in this request.
    std::string missing;
    for (const auto& i : info.indexes) {
      if (!i.global) continue;
      bool given = false;
      bool deleted = false;
      for (const auto& u : index_updates) {
        given |= u.update && u.update->index_name == i.name &&
                 u.update->provisioned_throughput.has_value();
        deleted |= u.delete_index_name && *u.delete_index_name == i.name;
      }
      if (!given && !deleted) missing += (missing.empty() ? "" : ",") + i.name;
    }
    if (!missing.empty()) {
      return InvalidParameter("ProvisionedThroughput must be specified for index: " + missing);
    }
  }
  if (info.billing_mode == BillingMode::kProvisioned && new_mode == BillingMode::kProvisioned &&
      request.provisioned_throughput && !request.stream_specification &&
      !request.deletion_protection_enabled && !request.table_class &&
      !request.on_demand_throughput && !request.warm_throughput && index_updates.empty() &&
      request.provisioned_throughput->read_capacity_units == info.throughput.read_capacity_units &&
      request.provisioned_throughput->write_capacity_units ==
          info.throughput.write_capacity_units) {
    const std::string r = std::to_string(info.throughput.read_capacity_units);
    const std::string w = std::to_string(info.throughput.write_capacity_units);
    return Status::Validation(
        "The provisioned throughput for the table will not change. The requested value equals "
        "the current value. Current ReadCapacityUnits provisioned for the table: " +
        r + ". Requested ReadCapacityUnits: " + r +
        ". Current WriteCapacityUnits provisioned for the table: " + w +
        ". Requested WriteCapacityUnits: " + w +
        ". Refer to the Amazon DynamoDB Developer Guide for current limits and how to request "
        "higher limits.");
  }
  return Status::OK();
}

// Billing (switched at `now_ms`), throughput (the table's and its GSIs') and
// deletion protection.
Status ApplyCapacityChange(const UpdateTableRequest& request, int64_t now_ms, TableInfo* info) {
  if (request.billing_mode) {
    if (*request.billing_mode == BillingMode::kPayPerRequest &&
        info->billing_mode != BillingMode::kPayPerRequest) {
      info->pay_per_request_since_ms = now_ms;
    }
    info->billing_mode = *request.billing_mode;
  }
  if (request.provisioned_throughput) info->throughput = *request.provisioned_throughput;
  if (request.deletion_protection_enabled) {
    info->deletion_protection = *request.deletion_protection_enabled;
  }
  if (request.table_class) {
    info->table_class = *request.table_class;
    info->table_class_since_ms = now_ms;
  }
  ApplyThroughputSettings(request.on_demand_throughput, request.warm_throughput, &info->settings);
  if (info->billing_mode == BillingMode::kPayPerRequest) {
    info->throughput = {};
    for (auto& i : info->indexes) i.throughput = {};
  }
  for (const GlobalSecondaryIndexUpdate& u : IndexUpdates(request)) {
    if (!u.update) continue;
    auto pos = std::find_if(info->indexes.begin(), info->indexes.end(), [&](const IndexInfo& i) {
      return i.global && i.name == u.update->index_name;
    });
    if (pos == info->indexes.end()) {
      return Status::ResourceNotFound(
          "Requested resource not found: Index: " + u.update->index_name + " not found");
    }
    if (u.update->provisioned_throughput) pos->throughput = *u.update->provisioned_throughput;
    ApplyThroughputSettings(u.update->on_demand_throughput, u.update->warm_throughput,
                            &pos->settings);
  }
  return Status::OK();
}

}  // namespace

Result<std::string> Database::Impl::ApplyIndexChanges(const UpdateTableRequest& request,
                                                      TableInfo* info, rocksdb::WriteBatch* batch) {
  std::string backfill;
  for (const GlobalSecondaryIndexUpdate& u : IndexUpdates(request)) {
    if (u.update) continue;
    if (u.create) {
      DYNAROCK_ASSIGN_OR_RETURN(
          NewGlobalIndex added,
          ValidateNewGlobalIndex(*info, *u.create, request.attribute_definitions));
      added.index.space_id = next_space_id_++;
      added.index.backfilling = true;
      info->attribute_definitions = std::move(added.attribute_definitions);
      info->indexes.push_back(std::move(added.index));
      backfill = u.create->index_name;
    } else {
      auto pos = std::find_if(info->indexes.begin(), info->indexes.end(), [&](const IndexInfo& i) {
        return i.global && i.name == *u.delete_index_name;
      });
      if (pos == info->indexes.end()) {
        return Status::ResourceNotFound(
            "Requested resource not found: Index: " + *u.delete_index_name + " not found");
      }
      // Cheap: the index's key space and statistics go with range deletions.
      batch->DeleteRange(indexes_cf_, SpaceBound(pos->space_id), SpaceBound(pos->space_id + 1));
      batch->DeleteRange(stats_cf_, SpaceBound(pos->space_id), SpaceBound(pos->space_id + 1));
      info->indexes.erase(pos);
    }
  }
  if (request.vector_index_updates) {
    for (const VectorIndexUpdate& u : *request.vector_index_updates) {
      if (u.create) {
        DYNAROCK_ASSIGN_OR_RETURN(
            NewVectorIndex added,
            ValidateNewVectorIndex(*info, *u.create, request.attribute_definitions));
        added.index.space_id = next_space_id_++;
        added.index.backfilling = true;
        info->attribute_definitions = std::move(added.attribute_definitions);
        info->vector_indexes.push_back(std::move(added.index));
        backfill = u.create->index_name;
        continue;
      }
      auto pos =
          std::find_if(info->vector_indexes.begin(), info->vector_indexes.end(),
                       [&](const VectorIndexInfo& v) { return v.name == *u.delete_index_name; });
      if (pos == info->vector_indexes.end()) {
        return Status::ResourceNotFound(
            "Requested resource not found: Index: " + *u.delete_index_name + " not found");
      }
      batch->DeleteRange(vectors_cf_, SpaceBound(pos->space_id), SpaceBound(pos->space_id + 1));
      batch->DeleteRange(stats_cf_, SpaceBound(pos->space_id), SpaceBound(pos->space_id + 1));
      graphs_->Drop(pos->space_id);
      info->vector_indexes.erase(pos);
    }
  }
  // A new index's entries are then rewritten by its compaction filter too.
  if (!backfill.empty()) AddStoredKey(*info);
  return backfill;
}

Result<UpdateTableResponse> Database::Impl::UpdateTable(const UpdateTableRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_RETURN_IF_ERROR(CheckUpdateTableRequest(request));
  std::string backfill;
  {
    DYNAROCK_ASSIGN_OR_RETURN(auto locked, LockTableExclusive(request.table_name));
    std::shared_ptr<TableState> state = locked.state;
    TableInfo info = state->info;
    rocksdb::WriteBatch batch;
    std::optional<StreamInfo> stream;
    if (request.stream_specification) {
      DYNAROCK_RETURN_IF_ERROR(CheckStreamChange(request));
      DYNAROCK_RETURN_IF_ERROR(
          ApplyStreamChange(*request.stream_specification, &info, &batch, &stream));
    }
    DYNAROCK_RETURN_IF_ERROR(CheckCapacityChange(request, info));
    DYNAROCK_RETURN_IF_ERROR(ApplyCapacityChange(request, NowMs(), &info));
    DYNAROCK_ASSIGN_OR_RETURN(backfill, ApplyIndexChanges(request, &info, &batch));
    DYNAROCK_RETURN_IF_ERROR(ReplaceTable(state, std::move(info), &batch));
    if (stream) InstallStream(std::move(*stream));
  }
  // Described as committed (a new index CREATING and Backfilling), before
  // the background backfill can have finished it.
  DYNAROCK_ASSIGN_OR_RETURN(auto described, DescribeTable({request.table_name}));
  if (!backfill.empty()) QueueBackfill(request.table_name, backfill);
  UpdateTableResponse response;
  response.table_description = std::move(described.table);
  // DynamoDB answers a capacity, index or stream change while the table is
  // UPDATING (a GSI backfill keeps it so; the rest is done already).
  if (request.billing_mode || request.provisioned_throughput || request.stream_specification ||
      !IndexUpdates(request).empty() ||
      (request.vector_index_updates && !request.vector_index_updates->empty())) {
    response.table_description.table_status = TableStatus::kUpdating;
  }
  return response;
}

// ---- Time to live ----------------------------------------------------------------------------

Result<UpdateTimeToLiveResponse> Database::Impl::UpdateTimeToLive(
    const UpdateTimeToLiveRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  const auto& spec = request.time_to_live_specification;

  DYNAROCK_ASSIGN_OR_RETURN(auto locked, LockTableExclusive(request.table_name));
  TableInfo info = locked.state->info;
  // STREAMS.md 6: the content checks, then the cooldown.
  if (info.ttl_enabled && info.ttl_attribute && *info.ttl_attribute != spec.attribute_name) {
    return Status::Validation(
        "TimeToLive is active on a different AttributeName: current AttributeName is " +
        *info.ttl_attribute);
  }
  if (spec.enabled && info.ttl_enabled) {
    return Status::Validation("TimeToLive is already enabled");
  }
  if (!spec.enabled && !info.ttl_enabled) {
    return Status::Validation("TimeToLive is already disabled");
  }
  const int64_t now = NowMs();
  if (info.ttl_changed_ms != 0 && now - info.ttl_changed_ms < options_.ttl_change_cooldown_ms) {
    return Status::Validation(
        "Time to live has been modified multiple times within a fixed interval");
  }
  info.ttl_enabled = spec.enabled;
  info.ttl_attribute = spec.attribute_name;
  info.ttl_changed_ms = now;
  rocksdb::WriteBatch batch;
  // A new setting sweeps the table from its start.
  batch.Delete(catalog_cf_, TtlCursorKey(info.space_id));
  DYNAROCK_RETURN_IF_ERROR(ReplaceTable(locked.state, std::move(info), &batch));
  return UpdateTimeToLiveResponse{spec};
}

Result<DescribeTimeToLiveResponse> Database::Impl::DescribeTimeToLive(
    const DescribeTimeToLiveRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_ASSIGN_OR_RETURN(auto table, FindTable(request.table_name, true));
  DescribeTimeToLiveResponse r;
  r.enabled = table->info.ttl_enabled;
  if (r.enabled) r.attribute_name = table->info.ttl_attribute;
  return r;
}

}  // namespace dynarock
