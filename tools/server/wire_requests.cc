#include "tools/server/wire_requests.h"

namespace dynarock::wire {
namespace {

namespace p = protocol;

// What DynamoDB would accept and Dynarock cannot honour is refused, never
// half-served: KMS encryption at rest (Dynarock stores tables unencrypted;
// SSESpecification.Enabled=false, DynamoDB's default owned key, is the same
// table and is accepted at creation) and global-table replicas (scale out with DynamoDB or
// Alternator). `replicas` is null for CreateTable.
Status Refuse(const std::optional<p::SSESpecification>& sse,
              const std::optional<std::vector<p::ReplicationGroupUpdate>>* replicas) {
  const bool update = replicas != nullptr;
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
  return Refuse(in.sse_specification, nullptr);
}

Status RefuseUnsupported(const p::UpdateTableInput& in) {
  return Refuse(in.sse_specification, &in.replica_updates);
}

}  // namespace dynarock::wire
