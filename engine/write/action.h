// The one description of a write, shared by every write operation.
//
// PutItem, DeleteItem, UpdateItem, BatchWriteItem and TransactWriteItems all
// turn their request into Actions (planning: every check that needs only the
// request and the table), then hand them to Database::Impl::RunWrites
// (engine/write/pipeline.cc), which runs the same steps for all of them:
//
//   lock -> read the old item -> evaluate the condition -> compute the new
//   item -> validate it -> prepare index entries and statistics -> the
//   stream record of each change (tables with a stream) -> commit one
//   WriteBatch -> meter capacity
//
// Only the mapping of a failed action to the operation's error differs
// (ConditionalCheckFailedException for a single write, CancellationReasons
// for a transaction). A rule added here holds for all five operations, and
// for the TTL sweep's deletions (engine/ttl.cc).
#ifndef DYNAROCK_ENGINE_WRITE_ACTION_H_
#define DYNAROCK_ENGINE_WRITE_ACTION_H_

#include <functional>
#include <optional>

#include "dynarock/types.h"
#include "engine/capacity.h"
#include "engine/catalog.h"
#include "engine/expr/expression.h"
#include "format/key_codec.h"

namespace rocksdb {
class WriteBatch;
}  // namespace rocksdb

namespace dynarock::write {

enum class Kind { kPut, kDelete, kUpdate, kConditionCheck };

// One planned write (or a transaction's condition check) of one item.
struct Action {
  Kind kind = Kind::kPut;
  // Pointers into the table and the request, which outlive the action (the
  // operation holds a TableHandle): planning copies nothing from the request.
  const TableInfo* table = nullptr;
  format::EncodedKey key;                     // the item's key in the items column family
  size_t collection_bytes = 0;                // its collection prefix: key.bytes()[0, this)
  const AttributeValue* partition = nullptr;  // its partition key value (the lock)
  const Item* key_map = nullptr;              // Delete/Update/Check: the request's key
  const Item* item = nullptr;                 // Put: the new item
  std::optional<expr::Condition> condition;    // must hold on the old item
  std::optional<expr::UpdateExpression> update;  // Update (set by SetUpdate)
  ReturnValuesOnConditionCheckFailure on_condition_failure =
      ReturnValuesOnConditionCheckFailure::kNone;
  // A TTL deletion (engine/ttl.cc): the item is deleted only if, read under
  // its lock, it is still expired at this time (epoch seconds), so an update
  // that extended or removed its TTL attribute meanwhile wins; its stream
  // record is marked as a TTL deletion.
  std::optional<int64_t> ttl_expired_at_s;
};

// Planning. Each checks what DynamoDB checks before reading anything, in
// DynamoDB's order, and returns ValidationException on bad input.
// REQUIRES: `table` and the item or key outlive the returned action.
//
// A put of `item`: attribute values, the key, the 400 KB limit (with LSI
// entries), index key types.
Result<Action> PlanPut(const TableInfo& table, const Item& item);
// A delete, update or condition check of the item at `key` (a key map with
// exactly the table's key attributes).
Result<Action> PlanKeyed(Kind kind, const TableInfo& table, const Item& key);
// Attaches an update to a planned kUpdate action. Key attributes can be
// neither updated nor addressed as documents (`SET pk.x`).
Status SetUpdate(Action* action, expr::UpdateExpression update);

// What running one action found and did.
struct Outcome {
  std::optional<Item> before;  // the item as it was
  // The item written: a put's own item (Action::item, not copied) or an
  // update's new item (`updated`); null for a delete, a check, and an
  // update that creates nothing.
  const Item* after() const { return put != nullptr ? put : updated ? &*updated : nullptr; }
  const Item* put = nullptr;
  std::optional<Item> updated;
  // Not OK when the action failed (then the whole run wrote nothing):
  // ConditionalCheckFailed (with a ConditionalCheckFailedDetail payload if
  // the action asked for ALL_OLD), Validation (the updated item is invalid)
  // or ItemCollectionSizeLimitExceeded.
  Status failure;
  std::optional<ItemCollectionMetrics> item_collection_metrics;
  // A write's larger item size (before or after), once prepared; -1 before.
  int64_t item_bytes = -1;
  // A TTL deletion that found its item no longer expired (or gone): it
  // wrote nothing, and is not a failure.
  bool skipped = false;
  // Refused by a collection's partition budget (Options::partition_limits):
  // `failure` is the throttling error, and the action wrote nothing. In a
  // run that is not transactional the other actions still run (a
  // BatchWriteItem returns this one as unprocessed).
  bool throttled = false;
};

// How RunWrites runs a set of actions.
struct RunOptions {
  // Transactional units (twice the ordinary ones), and every action's
  // condition is evaluated even after one failed, so that each gets its
  // cancellation reason.
  bool transactional = false;
  ReturnItemCollectionMetrics return_item_collection_metrics = ReturnItemCollectionMetrics::kNone;
  CapacityMeter* meter = nullptr;  // charged when the run commits (may be null)
  // More writes for the run's WriteBatch, added only if the run commits
  // (a transaction's ClientRequestToken record); may be empty.
  std::function<void(rocksdb::WriteBatch*)> commit_also;
};

// The item an update leaves behind when applied to `before`, validated
// (size limits and index key types), or the validation error; nullopt when
// it creates nothing. REQUIRES: action.kind == Kind::kUpdate.
Result<std::optional<Item>> UpdatedItem(const Action& action, const std::optional<Item>& before);

}  // namespace dynarock::write

#endif  // DYNAROCK_ENGINE_WRITE_ACTION_H_
