// Per-collection traffic: what each item collection consumes (for
// HottestCollections) and DynamoDB's per-partition ceilings on it
// (Options::partition_limits). The structures are in engine/traffic.h.
#include "engine/db_impl.h"
#include "format/key_codec.h"

namespace dynarock {

std::optional<Traffic::Limits> Database::Impl::LimitsOf(const Options& options) {
  if (!options.partition_limits) return std::nullopt;
  const auto& l = *options.partition_limits;
  return Traffic::Limits{l.read_units_per_second, l.write_units_per_second, l.burst_seconds};
}

uint32_t Database::Impl::TrafficSpace(const TableInfo& table, const IndexInfo* index) {
  return index != nullptr && index->global ? index->space_id : table.space_id;
}

Status Database::Impl::AdmitCollection(const TableInfo& table, const IndexInfo* index,
                                       const AttributeValue& pk, bool write) {
  const AttributeValue* one[] = {&pk};
  return AdmitCollection(table, index, one, write);
}

namespace {

// The maxima a request on `index` (null: the table) falls under: a GSI's
// own, an LSI's or the table's the table's. None unless on-demand.
const ThroughputSettings* MaximaOf(const TableInfo& table, const IndexInfo* index) {
  if (table.billing_mode != BillingMode::kPayPerRequest) return nullptr;
  return index != nullptr && index->global ? &index->settings : &table.settings;
}

}  // namespace

Status Database::Impl::AdmitMaximum(const TableInfo& table, const IndexInfo* index, bool write) {
  const ThroughputSettings* s = MaximaOf(table, index);
  if (s == nullptr) return Status::OK();
  const int64_t units = write ? s->max_write_request_units : s->max_read_request_units;
  if (units == 0 || max_throughput_.Admits(NowMs(), TrafficSpace(table, index), write, units)) {
    return Status::OK();
  }
  const bool gsi = index != nullptr && index->global;
  auto detail = std::make_shared<ThrottlingDetail>();
  std::string resource = TableArn(options_.region, options_.account_id, table.name);
  if (gsi) resource += "/index/" + index->name;
  detail->reasons.push_back({std::string(gsi ? "Index" : "Table") + (write ? "Write" : "Read") +
                                 "MaxOnDemandThroughputExceeded",
                             std::move(resource)});
  return Status::Throttling(
             "Throughput exceeds the maximum OnDemandThroughput configured on table or index")
      .WithPayload(std::move(detail));
}

void Database::Impl::ChargeMaximum(const TableInfo& table, const IndexInfo* index,
                                   double read_units, double write_units) {
  const ThroughputSettings* s = MaximaOf(table, index);
  if (s == nullptr) return;
  const uint32_t space = TrafficSpace(table, index);
  if (s->max_read_request_units != 0 && read_units > 0) {
    max_throughput_.Charge(NowMs(), space, false, s->max_read_request_units, read_units);
  }
  if (s->max_write_request_units != 0 && write_units > 0) {
    max_throughput_.Charge(NowMs(), space, true, s->max_write_request_units, write_units);
  }
}

Status Database::Impl::AdmitCollection(const TableInfo& table, const IndexInfo* index,
                                       format::KeyValues partition, bool write) {
  DYNAROCK_RETURN_IF_ERROR(AdmitMaximum(table, index, write));
  if (!traffic_.limiting()) return Status::OK();
  const format::EncodedKey collection =
      format::CollectionPrefix(TrafficSpace(table, index), partition);
  if (traffic_.Admits(NowMs(), collection.bytes(), write)) return Status::OK();
  return Throttled(table, index, write);
}

void Database::Impl::RecordCollection(const TableInfo& table, const IndexInfo* index,
                                      const AttributeValue& pk, double read_units,
                                      double write_units) {
  const AttributeValue* one[] = {&pk};
  RecordCollection(table, index, one, read_units, write_units);
}

void Database::Impl::RecordCollection(const TableInfo& table, const IndexInfo* index,
                                      format::KeyValues partition, double read_units,
                                      double write_units) {
  ChargeMaximum(table, index, read_units, write_units);
  if (!TracksTraffic() || (read_units <= 0 && write_units <= 0)) return;
  const uint32_t space = TrafficSpace(table, index);
  const format::EncodedKey collection = format::CollectionPrefix(space, partition);
  traffic_.Record(NowMs(), space, collection.bytes(), read_units, write_units);
}

void Database::Impl::RecordTableCollection(const TableInfo& table,
                                           std::string_view collection_prefix, double read_units,
                                           double write_units) {
  ChargeMaximum(table, nullptr, read_units, write_units);
  if (!TracksTraffic() || (read_units <= 0 && write_units <= 0)) return;
  traffic_.Record(NowMs(), table.space_id, collection_prefix, read_units, write_units);
}

Status Database::Impl::Throttled(const TableInfo& table, const IndexInfo* index,
                                 bool write) const {
  const bool gsi = index != nullptr && index->global;
  auto detail = std::make_shared<ThrottlingDetail>();
  std::string resource = TableArn(options_.region, options_.account_id, table.name);
  if (gsi) resource += "/index/" + index->name;
  detail->reasons.push_back({std::string(gsi ? "Index" : "Table") + (write ? "Write" : "Read") +
                                 "KeyRangeThroughputExceeded",
                             std::move(resource)});
  // DynamoDB's own words for each capacity mode.
  Status s = table.billing_mode == BillingMode::kPayPerRequest
                 ? Status::Throttling(
                       "Throughput exceeds the current capacity of your table or index. DynamoDB "
                       "is automatically scaling your table or index so please try again "
                       "shortly. If exceptions persist, check if you have a hot key: "
                       "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
                       "bp-partition-key-design.html")
             : gsi ? Status::ProvisionedThroughputExceeded(
                         "The level of configured provisioned throughput for one or more global "
                         "secondary indexes of the table was exceeded. Consider increasing your "
                         "provisioning level for the under-provisioned global secondary indexes "
                         "with the UpdateTable API")
                   : Status::ProvisionedThroughputExceeded(
                         "The level of configured provisioned throughput for the table was "
                         "exceeded. Consider increasing your provisioning level with the "
                         "UpdateTable API.");
  return std::move(s).WithPayload(std::move(detail));
}

Result<HottestCollectionsResponse> Database::Impl::HottestCollections(const std::string& table_name,
                                                                      size_t limit,
                                                                      int64_t window_ms) {
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(table_name));
  const TableInfo& table = handle->info();
  const int64_t now = NowMs();
  HottestCollectionsResponse response;
  auto add = [&](const IndexInfo* index, uint32_t space, format::KeySchemaTypes types) -> Status {
    types.sort.reset();  // a collection prefix: its partition components alone
    for (const HotCollection& hot :
         traffic_.Top(space, now, window_ms, limit, &response.window_ms)) {
      DYNAROCK_ASSIGN_OR_RETURN(auto key, format::DecodeItemKey(hot.key, types));
      CollectionTraffic c;
      if (index) c.index_name = index->name;
      c.partition_key_value = std::move(key.pk);
      c.more_partition_key_values = std::move(key.more_pk);
      c.read_units = hot.read_units;
      c.write_units = hot.write_units;
      c.units = hot.units;
      c.error_bound = hot.error_bound;
      response.collections.push_back(std::move(c));
    }
    return Status::OK();
  };
  DYNAROCK_RETURN_IF_ERROR(add(nullptr, table.space_id, table.key_types()));
  for (const IndexInfo& index : table.indexes) {
    if (index.global) DYNAROCK_RETURN_IF_ERROR(add(&index, index.space_id, index.key_types()));
  }
  return response;
}

}  // namespace dynarock
