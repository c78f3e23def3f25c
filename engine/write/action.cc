#include "engine/write/action.h"

#include <algorithm>
#include <cassert>

#include "engine/index.h"
#include "engine/keys.h"
#include "engine/validation.h"
#include "engine/vector_index.h"
#include "format/item_size.h"

namespace dynarock::write {
namespace {

bool IsKeyAttribute(const TableInfo& table, const std::string& name) {
  return name == table.partition_key.name || (table.sort_key && name == table.sort_key->name);
}

// The 400 KB limit counts an item's LSI entries too. `message` differs
// between a put and an update, as DynamoDB words them.
Status CheckItemLimits(const TableInfo& table, const Item& item, std::string_view message) {
  if (format::ItemSize(item) > format::kMaxItemBytes) return Status::Validation(std::string(message));
  DYNAROCK_RETURN_IF_ERROR(CheckIndexKeys(table, item));
  DYNAROCK_RETURN_IF_ERROR(CheckVectorValues(table, item));
  if (table.has_lsi() &&
      ItemWithLocalIndexesBytes(table, item) > static_cast<int64_t>(format::kMaxItemBytes)) {
    return Status::Validation(std::string(message));
  }
  return Status::OK();
}

}  // namespace

Result<Action> PlanPut(const TableInfo& table, const Item& item) {
  DYNAROCK_RETURN_IF_ERROR(ValidateItem(item));
  DYNAROCK_ASSIGN_OR_RETURN(PrimaryKey key, ItemPrimaryKey(table, item));
  DYNAROCK_RETURN_IF_ERROR(
      CheckItemLimits(table, item, "Item size has exceeded the maximum allowed size"));
  Action action;
  action.kind = Kind::kPut;
  action.table = &table;
  action.key = key.Encode(table.space_id, &action.collection_bytes);
  action.partition = key.partition;
  action.item = &item;
  return action;
}

Result<Action> PlanKeyed(Kind kind, const TableInfo& table, const Item& key_map) {
  DYNAROCK_ASSIGN_OR_RETURN(PrimaryKey key, KeyMapPrimaryKey(table, key_map));
  Action action;
  action.kind = kind;
  action.table = &table;
  action.key = key.Encode(table.space_id, &action.collection_bytes);
  action.partition = key.partition;
  action.key_map = &key_map;
  return action;
}

Status SetUpdate(Action* action, expr::UpdateExpression update) {
  for (const auto& a : update.actions) {
    const std::string& root = a.path.root();
    if (!IsKeyAttribute(*action->table, root)) continue;
    if (a.path.nested()) {
      return Status::Validation(
          "Key attributes must be scalars; list random access '[]' and map "
          "lookup '.' are not allowed: Key: " +
          root);
    }
    return InvalidParameter("Cannot update attribute " + root +
                            ". This attribute is part of the key");
  }
  action->update = std::move(update);
  return Status::OK();
}

Result<std::optional<Item>> UpdatedItem(const Action& action, const std::optional<Item>& before) {
  assert(action.kind == Kind::kUpdate);
  // UpdateItem creates the item when it is absent, starting from its key,
  // unless the update only removes (REMOVE, DELETE from a set, legacy
  // AttributeUpdates DELETE): DynamoDB then creates nothing. An empty
  // update creates the key alone.
  if (!before && action.update && !action.update->actions.empty() &&
      std::all_of(action.update->actions.begin(), action.update->actions.end(),
                  [](const expr::UpdateAction& u) {
                    return u.kind == expr::UpdateAction::Kind::kRemove ||
                           u.kind == expr::UpdateAction::Kind::kDelete;
                  })) {
    return std::optional<Item>();
  }
  Item item = before ? *before : *action.key_map;
  if (action.update) DYNAROCK_RETURN_IF_ERROR(expr::ApplyUpdate(*action.update, &item));
  DYNAROCK_RETURN_IF_ERROR(CheckItemLimits(
      *action.table, item, "Item size to update has exceeded the maximum allowed size"));
  return std::optional<Item>(std::move(item));
}

}  // namespace dynarock::write
