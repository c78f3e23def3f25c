// The model's request shapes (protocol/model_gen.h, already type-checked and
// constraint-checked) onto the engine's typed requests. Pure translation: the
// only errors are the AttributeValue checks of VALIDATION.md 5.1, which exist
// because the wire shape can carry no tag or several, which the engine's
// AttributeValue cannot express. DynamoDB reports them after the request's
// mixing check (5.1), so while a ValueErrors is alive the translation records
// them there and goes on, and the caller asks the engine's parameter check
// (engine/request_expr.h CheckParameters) before reporting one.
#ifndef DYNAROCK_TOOLS_SERVER_WIRE_REQUESTS_H_
#define DYNAROCK_TOOLS_SERVER_WIRE_REQUESTS_H_

#include "dynarock/types.h"
#include "tools/server/protocol/model_gen.h"

namespace dynarock::wire {

Result<CreateTableRequest> ToRequest(protocol::CreateTableInput&& in);
Result<DescribeTableRequest> ToRequest(protocol::DescribeTableInput&& in);
Result<DeleteTableRequest> ToRequest(protocol::DeleteTableInput&& in);
Result<UpdateTableRequest> ToRequest(protocol::UpdateTableInput&& in);
Result<ListTablesRequest> ToRequest(protocol::ListTablesInput&& in);
Result<PutItemRequest> ToRequest(protocol::PutItemInput&& in);
Result<GetItemRequest> ToRequest(protocol::GetItemInput&& in);
Result<DeleteItemRequest> ToRequest(protocol::DeleteItemInput&& in);
Result<UpdateItemRequest> ToRequest(protocol::UpdateItemInput&& in);
Result<QueryRequest> ToRequest(protocol::QueryInput&& in);
Result<ScanRequest> ToRequest(protocol::ScanInput&& in);
Result<BatchGetItemRequest> ToRequest(protocol::BatchGetItemInput&& in);
Result<BatchWriteItemRequest> ToRequest(protocol::BatchWriteItemInput&& in);
Result<TransactWriteItemsRequest> ToRequest(protocol::TransactWriteItemsInput&& in);
Result<TransactGetItemsRequest> ToRequest(protocol::TransactGetItemsInput&& in);
Result<UpdateTimeToLiveRequest> ToRequest(protocol::UpdateTimeToLiveInput&& in);
Result<DescribeTimeToLiveRequest> ToRequest(protocol::DescribeTimeToLiveInput&& in);
Result<TagResourceRequest> ToRequest(protocol::TagResourceInput&& in);
Result<UntagResourceRequest> ToRequest(protocol::UntagResourceInput&& in);
Result<ListTagsOfResourceRequest> ToRequest(protocol::ListTagsOfResourceInput&& in);
Result<ExecuteStatementRequest> ToRequest(protocol::ExecuteStatementInput&& in);
Result<BatchExecuteStatementRequest> ToRequest(protocol::BatchExecuteStatementInput&& in);
Result<ExecuteTransactionRequest> ToRequest(protocol::ExecuteTransactionInput&& in);

// Collects the first AttributeValue error of the ToRequest() calls made on
// this thread during its lifetime; those calls then translate an invalid
// value as NULL instead of failing. Scopes nest.
class ValueErrors {
 public:
  ValueErrors();
  ~ValueErrors();
  ValueErrors(const ValueErrors&) = delete;
  ValueErrors& operator=(const ValueErrors&) = delete;
  // OK when every value was valid.
  const Status& first() const { return first_; }

 private:
  Status first_;
  Status* outer_;
};

// One AttributeValue; `level` is its nesting level (2 for an attribute).
Result<AttributeValue> ToValue(protocol::AttributeValue&& in, int level = 2);

}  // namespace dynarock::wire

#endif  // DYNAROCK_TOOLS_SERVER_WIRE_REQUESTS_H_
