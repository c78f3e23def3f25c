// The model constraints of every request (the type and constraint
// phases, tools/server/wire.h), for the engine's typed requests: the
// same generated checks the wire runs on its JSON (constraints_gen.h), so an
// embedded caller gets DynamoDB's "N validation errors detected: ..." too.
// Each operation calls its check before any semantic check.
//
// The engine's requests cannot say "absent" for their plain members, so
// those are always present; enum members are typed, so always valid.
#ifndef DYNAROCK_ENGINE_MODEL_CHECKS_H_
#define DYNAROCK_ENGINE_MODEL_CHECKS_H_

#include "dynarock/types.h"

namespace dynarock::model {

Status CheckModel(const CreateTableRequest& r);
Status CheckModel(const DescribeTableRequest& r);
Status CheckModel(const DeleteTableRequest& r);
Status CheckModel(const UpdateTableRequest& r);
Status CheckModel(const ListTablesRequest& r);
Status CheckModel(const PutItemRequest& r);
Status CheckModel(const GetItemRequest& r);
Status CheckModel(const DeleteItemRequest& r);
Status CheckModel(const UpdateItemRequest& r);
Status CheckModel(const QueryRequest& r);
Status CheckModel(const ScanRequest& r);
Status CheckModel(const BatchGetItemRequest& r);
Status CheckModel(const BatchWriteItemRequest& r);
Status CheckModel(const TransactWriteItemsRequest& r);
Status CheckModel(const TransactGetItemsRequest& r);
Status CheckModel(const UpdateTimeToLiveRequest& r);
Status CheckModel(const DescribeTimeToLiveRequest& r);
Status CheckModel(const TagResourceRequest& r);
Status CheckModel(const UntagResourceRequest& r);
Status CheckModel(const ListTagsOfResourceRequest& r);
Status CheckModel(const ExecuteStatementRequest& r);
Status CheckModel(const BatchExecuteStatementRequest& r);
Status CheckModel(const ExecuteTransactionRequest& r);
Status CheckModel(const PutResourcePolicyRequest& r);
Status CheckModel(const GetResourcePolicyRequest& r);
Status CheckModel(const DeleteResourcePolicyRequest& r);
Status CheckModel(const SearchVectorsRequest& r);

}  // namespace dynarock::model

#endif  // DYNAROCK_ENGINE_MODEL_CHECKS_H_
