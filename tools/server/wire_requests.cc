#include "tools/server/wire_requests.h"

namespace dynarock::wire {
namespace {

namespace p = protocol;

// What DynamoDB would accept and Dynarock cannot honour is refused, never
// half-served: KMS encryption at rest (Dynarock stores tables unencrypted;
// SSESpecification.Enabled=false, DynamoDB's default owned key, is the same
// table and is accepted at creation), global-table replicas (scale out with DynamoDB or
// Alternator), and a maximum on-demand throughput (OnDemandThroughput: Dynarock does not throttle
// on-demand requests, so a maximum would be ignored). `replicas` is null for CreateTable.
Status Refuse(const std::optional<p::SSESpecification>& sse,
              const std::optional<std::vector<p::ReplicationGroupUpdate>>* replicas,
              bool on_demand_throughput) {
  const bool update = replicas != nullptr;
  if (on_demand_throughput) {
    return Status::Validation(
        "Dynarock does not support OnDemandThroughput: on-demand tables and indexes have no "
        "maximum request rate here (leave OnDemandThroughput out)");
  }
  if (sse && (update || sse->enabled.value_or(false))) {
    return Status::Validation(
        "Dynarock does not support SSESpecification: tables are stored without KMS encryption "
        "(leave SSESpecification out, or set Enabled to false at CreateTable)");
  }
  if (update && *replicas) {
    return Status::Validation(
        "Dynarock does not support ReplicaUpdates (global tables): replicate with DynamoDB or "
        "ScyllaDB Alternator, which speak the same protocol");
  }
  return Status::OK();
}

}  // namespace

Status RefuseUnsupported(const p::CreateTableInput& in) {
  bool on_demand = in.on_demand_throughput.has_value();
  if (in.global_secondary_indexes) {
    for (const auto& g : *in.global_secondary_indexes) {
      on_demand |= g.on_demand_throughput.has_value();
    }
  }
  DYNAROCK_RETURN_IF_ERROR(Refuse(in.sse_specification, nullptr, on_demand));
  if (in.resource_policy) {
    return Status::Validation(
        "Dynarock does not support ResourcePolicy: it has no IAM policies to attach (create "
        "the table without one)");
  }
  return Status::OK();
}

Status RefuseUnsupported(const p::UpdateTableInput& in) {
  bool on_demand = in.on_demand_throughput.has_value();
  if (in.global_secondary_index_updates) {
    for (const auto& u : *in.global_secondary_index_updates) {
      on_demand |= (u.create && u.create->on_demand_throughput) ||
                   (u.update && u.update->on_demand_throughput);
    }
  }
  return Refuse(in.sse_specification, &in.replica_updates, on_demand);
}

}  // namespace dynarock::wire
