// The single-item operations: PutItem, GetItem, DeleteItem, UpdateItem.
// Each checks its request, plans one write::Action and runs it through the
// write pipeline (engine/write/); only the response is its own.
#include "engine/db_impl.h"
#include "engine/model/checks.h"
#include "engine/request_expr.h"
#include "engine/validation.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

// The write condition of a Put/Delete/Update: ConditionExpression or the
// legacy Expected, resolved with the request's placeholders.
Result<std::optional<expr::Condition>> WriteCondition(
    RequestExpressions* rx, const std::optional<std::string>& condition_expression,
    const std::optional<std::map<std::string, ExpectedAttributeValue>>& expected,
    std::optional<ConditionalOperator> conditional_operator) {
  if (expected) return ConditionFromExpected(*expected, conditional_operator);
  if (conditional_operator) return ConditionalOperatorAlone("Expected");
  return rx->Condition(condition_expression, expr::ExprKind::kCondition);
}

// What PutItem and DeleteItem check before they look at the table, in
// DynamoDB's order (VALIDATION.md 0); their write condition.
template <typename Request>
Result<std::optional<expr::Condition>> CheckPutOrDelete(const Request& request) {
  DYNAROCK_ASSIGN_OR_RETURN(RequestExpressions rx, Prologue(request));
  if (request.return_values != ReturnValue::kNone &&
      request.return_values != ReturnValue::kAllOld) {
    return Status::Validation("Return values set to invalid value");
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto condition,
                            WriteCondition(&rx, request.condition_expression, request.expected,
                                           request.conditional_operator));
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  return condition;
}

// PutItem's and DeleteItem's response: the old item for ALL_OLD.
template <typename Response, typename Request>
Response PutOrDeleteResponse(const Request& request, write::Outcome done,
                             const CapacityMeter& meter) {
  Response response;
  if (request.return_values == ReturnValue::kAllOld) response.attributes = std::move(done.before);
  response.item_collection_metrics = std::move(done.item_collection_metrics);
  response.consumed_capacity = meter.For(request.table_name);
  return response;
}

}  // namespace

// PutItem and DeleteItem differ only in how they plan their one action.
template <typename Response, typename Request, typename Plan>
Result<Response> Database::Impl::RunPutOrDelete(const Request& request, Plan plan) {
  DYNAROCK_ASSIGN_OR_RETURN(auto condition, CheckPutOrDelete(request));
  // Only now the table (VALIDATION.md 0: checks without it come first).
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(request.table_name));
  DYNAROCK_ASSIGN_OR_RETURN(write::Action action, plan(handle->info()));
  action.condition = std::move(condition);
  action.on_condition_failure = request.return_values_on_condition_check_failure;

  CapacityMeter meter(request.return_consumed_capacity);
  DYNAROCK_ASSIGN_OR_RETURN(
      write::Outcome done,
      RunWrite(std::move(action), request.return_item_collection_metrics, &meter));
  return PutOrDeleteResponse<Response>(request, std::move(done), meter);
}

Result<PutItemResponse> Database::Impl::PutItem(const PutItemRequest& request) {
  return RunPutOrDelete<PutItemResponse>(
      request, [&](const TableInfo& table) { return write::PlanPut(table, request.item); });
}

Result<DeleteItemResponse> Database::Impl::DeleteItem(const DeleteItemRequest& request) {
  return RunPutOrDelete<DeleteItemResponse>(request, [&](const TableInfo& table) {
    return write::PlanKeyed(write::Kind::kDelete, table, request.key);
  });
}

Result<GetItemResponse> Database::Impl::GetItem(const GetItemRequest& request) {
  DYNAROCK_ASSIGN_OR_RETURN(RequestExpressions rx, Prologue(request));
  DYNAROCK_ASSIGN_OR_RETURN(auto projection, rx.Projection(request.projection_expression));
  if (request.attributes_to_get) {
    DYNAROCK_ASSIGN_OR_RETURN(projection,
                              ProjectionFromAttributesToGet(*request.attributes_to_get));
  }
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  // Only now the table (VALIDATION.md 0: checks without it come first).
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(request.table_name));
  const TableInfo& info = handle->info();
  DYNAROCK_ASSIGN_OR_RETURN(PrimaryKey key, KeyMapPrimaryKey(info, request.key));
  DYNAROCK_RETURN_IF_ERROR(AdmitCollection(info, nullptr, *key.partition, /*write=*/false));
  size_t collection_bytes = 0;
  const format::EncodedKey item_key = key.Encode(info.space_id, &collection_bytes);
  GetItemResponse response;
  size_t size = 0;  // the whole item's, which a read is charged for
  if (request.item_encoding == ItemEncoding::kStored && !projection) {
    // Read in place: the view of the stored bytes is copied into the
    // response, nothing decoded.
    rocksdb::PinnableSlice value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), items_cf_, item_key.bytes(), &value);
    if (!s.IsNotFound()) {
      DYNAROCK_RETURN_IF_ERROR(FromRocks(s));
      thread_local std::string scratch;  // the key values; the view is copied below
      DYNAROCK_ASSIGN_OR_RETURN(
          ItemView view,
          format::OpenStoredItem(item_key.bytes(), std::string_view(value.data(), value.size()),
                                 StoredKey(info), &scratch));
      size = format::ItemSize(view);
      response.stored_item.push_back(view);
    }
  } else {
    DYNAROCK_ASSIGN_OR_RETURN(response.item, ReadItem(info, item_key));
    if (response.item) size = format::ItemSize(*response.item);
    if (response.item && projection) response.item = expr::Project(*response.item, *projection);
    if (response.item && request.item_encoding == ItemEncoding::kStored) {
      std::string encoded;
      format::EncodeItem(*response.item, &encoded);
      response.stored_item.push_back(ItemView::OpenTrusted(encoded));
      response.item.reset();
    }
  }
  CapacityMeter meter(request.return_consumed_capacity);
  // A missing item still costs one read.
  const double units = ReadUnits(size, request.consistent_read);
  meter.Read(info.name, nullptr, units);
  RecordTableCollection(info, std::string_view(item_key.bytes()).substr(0, collection_bytes),
                        units, 0);
  response.consumed_capacity = meter.For(info.name);
  return response;
}

Result<UpdateItemResponse> Database::Impl::UpdateItem(const UpdateItemRequest& request) {
  DYNAROCK_ASSIGN_OR_RETURN(RequestExpressions rx, Prologue(request));
  DYNAROCK_ASSIGN_OR_RETURN(auto update, rx.Update(request.update_expression));
  if (request.attribute_updates) {
    DYNAROCK_ASSIGN_OR_RETURN(update, UpdateFromAttributeUpdates(*request.attribute_updates));
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto condition,
                            WriteCondition(&rx, request.condition_expression, request.expected,
                                           request.conditional_operator));
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  // Only now the table (VALIDATION.md 0: checks without it come first).
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(request.table_name));
  DYNAROCK_ASSIGN_OR_RETURN(write::Action action,
                            write::PlanKeyed(write::Kind::kUpdate, handle->info(), request.key));
  DYNAROCK_RETURN_IF_ERROR(
      write::SetUpdate(&action, update ? std::move(*update) : expr::UpdateExpression{}));
  action.condition = std::move(condition);
  action.on_condition_failure = request.return_values_on_condition_check_failure;
  // UPDATED_OLD/NEW return what the update touched.
  const std::vector<expr::Path> updated = expr::UpdatedPaths(*action.update);

  CapacityMeter meter(request.return_consumed_capacity);
  DYNAROCK_ASSIGN_OR_RETURN(
      write::Outcome done,
      RunWrite(std::move(action), request.return_item_collection_metrics, &meter));
  UpdateItemResponse response;
  response.item_collection_metrics = std::move(done.item_collection_metrics);
  response.consumed_capacity = meter.For(request.table_name);
  auto nonempty = [](Item i) {
    return i.empty() ? std::nullopt : std::optional<Item>(std::move(i));
  };
  switch (request.return_values) {
    case ReturnValue::kNone:
      break;
    case ReturnValue::kAllOld:
      response.attributes = std::move(done.before);
      break;
    case ReturnValue::kAllNew:
      response.attributes = std::move(done.updated);
      break;
    case ReturnValue::kUpdatedOld:
      if (done.before) response.attributes = nonempty(expr::Project(*done.before, updated));
      break;
    case ReturnValue::kUpdatedNew:
      if (done.updated) response.attributes = nonempty(expr::Project(*done.updated, updated));
      break;
  }
  return response;
}

}  // namespace dynarock
