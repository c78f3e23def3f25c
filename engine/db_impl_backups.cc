// Point-in-time recovery settings (UpdateContinuousBackups,
// DescribeContinuousBackups) and the service records kept in the catalog.
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <memory>

#include "engine/db_impl.h"

namespace dynarock {
namespace {

// The window a point-in-time export may name: Dynarock keeps no history, so
// an export reads the table as it is when it starts; a point within the last
// minute (DynamoDB's own tolerance for the export point) is that state.
constexpr int64_t kRestorableWindowMs = 60'000;

ContinuousBackupsDescription DescribeBackups(const TableInfo& t, int64_t now_ms) {
  ContinuousBackupsDescription d;
  d.point_in_time_recovery_enabled = t.pitr_enabled;
  d.recovery_period_in_days = t.pitr_recovery_days;
  if (t.pitr_enabled) {
    d.earliest_restorable_ms = std::max(t.pitr_enabled_ms, now_ms - kRestorableWindowMs);
    d.latest_restorable_ms = std::max(t.pitr_enabled_ms, now_ms);
  }
  return d;
}

// These two operations name a missing table TableNotFoundException.
Status AsTableNotFound(Status s, std::string_view table) {
  if (s.code() != Status::Code::kResourceNotFound) return s;
  return Status::TableNotFound("Table not found: " + std::string(table));
}

}  // namespace

Result<ContinuousBackupsDescription> Database::Impl::UpdateContinuousBackups(
    const UpdateContinuousBackupsRequest& request) {
  if (options_.read_only) return Status::NotSupported("the database was opened read-only");
  if (request.recovery_period_in_days) {
    if (!request.point_in_time_recovery_enabled) {
      return Status::Validation(
          "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time "
          "recovery.");
    }
    if (*request.recovery_period_in_days < 1 || *request.recovery_period_in_days > 35) {
      return Status::Validation(
          "1 validation error detected: Value '" +
          std::to_string(*request.recovery_period_in_days) +
          "' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy "
          "constraint: Member must have value between 1 and 35");
    }
  }
  auto locked = LockTableExclusive(request.table_name);
  if (!locked.ok()) return AsTableNotFound(locked.status(), request.table_name);
  TableInfo info = locked->state->info;
  const int64_t now = NowMs();
  const bool enable = request.point_in_time_recovery_enabled;
  // A re-enable keeps the window; an enable after a disable restarts it and
  // the period reverts to 35 unless given.
  if (enable && !info.pitr_enabled) {
    info.pitr_enabled_ms = now;
    info.pitr_recovery_days = 35;
  }
  if (enable && request.recovery_period_in_days) {
    info.pitr_recovery_days = *request.recovery_period_in_days;
  }
  if (!enable) info.pitr_enabled_ms = 0;
  info.pitr_enabled = enable;
  ContinuousBackupsDescription out = DescribeBackups(info, now);
  if (info.pitr_enabled != locked->state->info.pitr_enabled ||
      info.pitr_recovery_days != locked->state->info.pitr_recovery_days) {
    rocksdb::WriteBatch batch;
    DYNAROCK_RETURN_IF_ERROR(ReplaceTable(locked->state, std::move(info), &batch));
  }
  return out;
}

Result<ContinuousBackupsDescription> Database::Impl::DescribeContinuousBackups(
    const DescribeContinuousBackupsRequest& request) {
  auto table = FindTable(request.table_name, true);
  if (!table.ok()) return AsTableNotFound(table.status(), request.table_name);
  return DescribeBackups((*table)->info, NowMs());
}

Status Database::Impl::PutServiceRecord(std::string_view name, std::string_view value) {
  if (options_.read_only) return Status::NotSupported("the database was opened read-only");
  rocksdb::WriteOptions sync;
  sync.sync = true;
  std::string key(kCatalogServicePrefix);
  key += name;
  return FromRocks(db_->Put(sync, catalog_cf_, key, rocksdb::Slice(value.data(), value.size())));
}

Result<std::vector<std::pair<std::string, std::string>>> Database::Impl::ServiceRecords(
    std::string_view prefix) {
  std::string start(kCatalogServicePrefix);
  start += prefix;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  std::vector<std::pair<std::string, std::string>> out;
  for (it->Seek(start); it->Valid() && it->key().starts_with(start); it->Next()) {
    out.emplace_back(it->key().ToString().substr(kCatalogServicePrefix.size()),
                     it->value().ToString());
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  return out;
}

}  // namespace dynarock
