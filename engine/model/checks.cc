// One instantiation of the generated templates per engine request type, in
// one translation unit (the templates are large).
#include "engine/model/checks.h"

#include "dynarock/model/constraints_gen.h"

namespace dynarock::model {

Status CheckModel(const CreateTableRequest& r) { return CheckCreateTable(r); }
Status CheckModel(const DescribeTableRequest& r) { return CheckDescribeTable(r); }
Status CheckModel(const DeleteTableRequest& r) { return CheckDeleteTable(r); }
Status CheckModel(const UpdateTableRequest& r) { return CheckUpdateTable(r); }
Status CheckModel(const ListTablesRequest& r) { return CheckListTables(r); }
Status CheckModel(const PutItemRequest& r) { return CheckPutItem(r); }
Status CheckModel(const GetItemRequest& r) { return CheckGetItem(r); }
Status CheckModel(const DeleteItemRequest& r) { return CheckDeleteItem(r); }
Status CheckModel(const UpdateItemRequest& r) { return CheckUpdateItem(r); }
Status CheckModel(const QueryRequest& r) { return CheckQuery(r); }
Status CheckModel(const ScanRequest& r) { return CheckScan(r); }
Status CheckModel(const BatchGetItemRequest& r) { return CheckBatchGetItem(r); }
Status CheckModel(const BatchWriteItemRequest& r) { return CheckBatchWriteItem(r); }
Status CheckModel(const TransactWriteItemsRequest& r) { return CheckTransactWriteItems(r); }
Status CheckModel(const TransactGetItemsRequest& r) { return CheckTransactGetItems(r); }
Status CheckModel(const UpdateTimeToLiveRequest& r) { return CheckUpdateTimeToLive(r); }
Status CheckModel(const DescribeTimeToLiveRequest& r) { return CheckDescribeTimeToLive(r); }
Status CheckModel(const TagResourceRequest& r) { return CheckTagResource(r); }
Status CheckModel(const UntagResourceRequest& r) { return CheckUntagResource(r); }
Status CheckModel(const ListTagsOfResourceRequest& r) { return CheckListTagsOfResource(r); }
Status CheckModel(const ExecuteStatementRequest& r) { return CheckExecuteStatement(r); }
Status CheckModel(const BatchExecuteStatementRequest& r) {
  return CheckBatchExecuteStatement(r);
}
Status CheckModel(const ExecuteTransactionRequest& r) { return CheckExecuteTransaction(r); }
Status CheckModel(const PutResourcePolicyRequest& r) { return CheckPutResourcePolicy(r); }
Status CheckModel(const GetResourcePolicyRequest& r) { return CheckGetResourcePolicy(r); }
Status CheckModel(const DeleteResourcePolicyRequest& r) { return CheckDeleteResourcePolicy(r); }
Status CheckModel(const SearchVectorsRequest& r) { return CheckSearchVectors(r); }

}  // namespace dynarock::model
