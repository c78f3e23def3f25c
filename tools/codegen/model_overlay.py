"""The one reviewed overlay on DynamoDB's service models: what Debian's
botocore 1.29 model (and its DynamoDB Streams model) lacks and the
generator needs. Each entry says what it adds and where DynamoDB's newer
model (npm's aws-sdk v2 or the AWS SDK v3 clients) or documentation has it.

  MODEL_ADDITIONS   members added to existing shapes
  NEW_SHAPES        shapes the model does not have
  MEMBER_SHAPES     members given another shape
  SHAPE_CHANGES     shape properties replaced (a requirement dropped)
  NEW_OPERATIONS    operations the model does not have
and the same three for the DynamoDB Streams model (STREAMS_*).
"""

# Members DynamoDB added after botocore 1.29.27's model (they are in the
# newer model of npm's aws-sdk v2, apis/dynamodb-2012-08-10.min.json): the
# single-item writes' ReturnValuesOnConditionCheckFailure (June 2023).
MODEL_ADDITIONS = {
    shape: {"ReturnValuesOnConditionCheckFailure": {"shape": "ReturnValuesOnConditionCheckFailure"}}
    for shape in ("PutItemInput", "DeleteItemInput", "UpdateItemInput",
                  # and PartiQL's statements (the same change).
                  "ExecuteStatementInput", "BatchStatementRequest", "ParameterizedStatement")
}
# PointInTimeRecoverySpecification's RecoveryPeriodInDays (2025).
MODEL_ADDITIONS["PointInTimeRecoverySpecification"] = {
    "RecoveryPeriodInDays": {"shape": "RecoveryPeriodInDays"}}
# ExportTableToPointInTime's incremental exports (September 2023).
MODEL_ADDITIONS["ExportTableToPointInTimeInput"] = {
    "ExportType": {"shape": "ExportType"},
    "IncrementalExportSpecification": {"shape": "IncrementalExportSpecification"}}
# CreateTable/UpdateTable's DeletionProtectionEnabled (March 2023), a
# resource-based IAM policy (ResourcePolicy, March 2024), the maximum
# on-demand throughput (OnDemandThroughput, May 2024) and warm throughput
# (WarmThroughput, November 2024), on tables and GSIs, in requests and in
# descriptions.
MODEL_ADDITIONS["CreateTableInput"] = {
    "DeletionProtectionEnabled": {"shape": "DeletionProtectionEnabled"},
    "ResourcePolicy": {"shape": "ResourcePolicy"},
    "OnDemandThroughput": {"shape": "OnDemandThroughput"},
    "WarmThroughput": {"shape": "WarmThroughput"}}
MODEL_ADDITIONS["UpdateTableInput"] = {
    "DeletionProtectionEnabled": {"shape": "DeletionProtectionEnabled"},
    "OnDemandThroughput": {"shape": "OnDemandThroughput"},
    "WarmThroughput": {"shape": "WarmThroughput"}}
for shape in ("GlobalSecondaryIndex", "CreateGlobalSecondaryIndexAction",
              "UpdateGlobalSecondaryIndexAction"):
    MODEL_ADDITIONS[shape] = {"OnDemandThroughput": {"shape": "OnDemandThroughput"},
                              "WarmThroughput": {"shape": "WarmThroughput"}}
MODEL_ADDITIONS["TableCreationParameters"] = {
    "OnDemandThroughput": {"shape": "OnDemandThroughput"}}
MODEL_ADDITIONS["TableDescription"] = {
    "OnDemandThroughput": {"shape": "OnDemandThroughput"},
    "WarmThroughput": {"shape": "TableWarmThroughputDescription"}}
MODEL_ADDITIONS["GlobalSecondaryIndexDescription"] = {
    "OnDemandThroughput": {"shape": "OnDemandThroughput"},
    "WarmThroughput": {"shape": "GlobalSecondaryIndexWarmThroughputDescription"}}
# Operations newer than the model: resource-based policies (March 2024),
# as the newer model defines them.
NEW_OPERATIONS = {
    name: {"name": name, "http": {"method": "POST", "requestUri": "/"},
           "input": {"shape": name + "Input"}, "output": {"shape": name + "Output"}}
    for name in ("PutResourcePolicy", "GetResourcePolicy", "DeleteResourcePolicy")
}

# Members whose requirement the newer model dropped: a GSI update may give
# only OnDemandThroughput or WarmThroughput (on an on-demand table it has
# no ProvisionedThroughput to give).
SHAPE_CHANGES = {
    "UpdateGlobalSecondaryIndexAction": {"required": ["IndexName"]},
}
# Vector indexes and SearchVectors (August 2026; botocore 1.43.64, npm
# @aws-sdk/client-dynamodb 3.1103.0): CreateTable's VectorIndexes,
# UpdateTable's VectorIndexUpdates, TableDescription's and ConsumedCapacity's VectorIndexes and
# the SearchVectors operation. The shapes below are the newer model's
# (member names and order as @aws-sdk/client-dynamodb's schemas carry them;
# the constraints as DynamoDB's model checks answer them: Dimensions and
# TopK at least 1, SearchVector 1 to 4,096 entries, SearchSchema non-empty).
MODEL_ADDITIONS["CreateTableInput"]["VectorIndexes"] = {"shape": "VectorIndexList"}
MODEL_ADDITIONS["UpdateTableInput"]["VectorIndexUpdates"] = {"shape": "VectorIndexUpdateList"}
MODEL_ADDITIONS["TableDescription"]["VectorIndexes"] = {"shape": "VectorIndexDescriptionList"}
MODEL_ADDITIONS["TableCreationParameters"]["VectorIndexes"] = {"shape": "VectorIndexList"}
MODEL_ADDITIONS["ConsumedCapacity"] = {"VectorIndexes": {"shape": "VectorIndexesCapacityMap"}}
NEW_OPERATIONS["SearchVectors"] = {
    "name": "SearchVectors", "http": {"method": "POST", "requestUri": "/"},
    "input": {"shape": "SearchVectorsInput"}, "output": {"shape": "SearchVectorsOutput"}}
VECTOR_SHAPES = {
    "VectorAttributeDefinition": {"type": "structure", "required": ["AttributeName"],
                                  "members": {"AttributeName": {"shape": "KeySchemaAttributeName"}}},
    "VectorDimensions": {"type": "long", "min": 1},
    "VectorDistanceFunction": {"type": "string", "enum": ["COSINE", "DOT_PRODUCT", "EUCLIDEAN"]},
    "SearchSchemaElementType": {"type": "string", "enum": ["HASH", "INLINE_FILTER"]},
    "SearchSchemaElement": {"type": "structure",
                            "required": ["AttributeName", "SearchSchemaElementType"],
                            "members": {
        "AttributeName": {"shape": "KeySchemaAttributeName"},
        "SearchSchemaElementType": {"shape": "SearchSchemaElementType"}}},
    "SearchSchema": {"type": "list", "member": {"shape": "SearchSchemaElement"}, "min": 1},
    "VectorIndexList": {"type": "list", "member": {"shape": "VectorIndex"}},
    "VectorIndexUpdateList": {"type": "list", "member": {"shape": "VectorIndexUpdate"}},
    "VectorIndexUpdate": {"type": "structure", "members": {
        "Create": {"shape": "CreateVectorIndexAction"},
        "Delete": {"shape": "DeleteVectorIndexAction"}}},
    "DeleteVectorIndexAction": {"type": "structure", "required": ["IndexName"], "members": {
        "IndexName": {"shape": "IndexName"}}},
    "VectorIndexDescriptionList": {"type": "list", "member": {"shape": "VectorIndexDescription"}},
    "VectorIndexDescription": {"type": "structure", "members": {
        "IndexName": {"shape": "IndexName"},
        "SearchSchema": {"shape": "SearchSchema"},
        "Projection": {"shape": "Projection"},
        "VectorAttribute": {"shape": "VectorAttributeDefinition"},
        "Dimensions": {"shape": "VectorDimensions"},
        "DistanceFunction": {"shape": "VectorDistanceFunction"},
        "IndexStatus": {"shape": "IndexStatus"},
        "Backfilling": {"shape": "Backfilling"},
        "IndexSizeBytes": {"shape": "LongObject"},
        "ItemCount": {"shape": "LongObject"},
        "IndexArn": {"shape": "String"}}},
    "SearchVectorList": {"type": "list", "member": {"shape": "AttributeValue"},
                         "min": 1, "max": 4096},
    "TopK": {"type": "integer", "min": 1},
    "SearchVectorsInput": {"type": "structure",
                           "required": ["TableName", "IndexName", "SearchVector", "TopK"],
                           "members": {
        "TableName": {"shape": "TableName"},
        "IndexName": {"shape": "IndexName"},
        "SearchVector": {"shape": "SearchVectorList"},
        "TopK": {"shape": "TopK"},
        "ReturnConsumedCapacity": {"shape": "ReturnConsumedCapacity"},
        "ExpressionAttributeNames": {"shape": "ExpressionAttributeNameMap"},
        "ExpressionAttributeValues": {"shape": "ExpressionAttributeValueMap"},
        "ProjectionExpression": {"shape": "ProjectionExpression"},
        "SearchConditionExpression": {"shape": "ConditionExpression"}}},
    "SearchResultItem": {"type": "structure", "members": {
        "Item": {"shape": "AttributeMap"},
        "Score": {"shape": "Double"}}},
    "SearchResultList": {"type": "list", "member": {"shape": "SearchResultItem"}},
    "VectorCapacity": {"type": "structure", "members": {
        "VectorSearchRequestBytes": {"shape": "LongObject"},
        "VectorWriteRequestBytes": {"shape": "LongObject"}}},
    "VectorIndexesCapacityMap": {"type": "map", "key": {"shape": "IndexName"},
                                 "value": {"shape": "VectorCapacity"}},
    "SearchVectorsOutput": {"type": "structure", "members": {
        "ConsumedCapacity": {"shape": "VectorCapacity"},
        "SearchResults": {"shape": "SearchResultList"}}},
}
for name in ("VectorIndex", "CreateVectorIndexAction"):
    VECTOR_SHAPES[name] = {
        "type": "structure",
        "required": ["IndexName", "VectorAttribute", "Projection", "Dimensions",
                     "DistanceFunction"],
        "members": {
            "IndexName": {"shape": "IndexName"},
            "VectorAttribute": {"shape": "VectorAttributeDefinition"},
            "Projection": {"shape": "Projection"},
            "Dimensions": {"shape": "VectorDimensions"},
            "DistanceFunction": {"shape": "VectorDistanceFunction"},
            "SearchSchema": {"shape": "SearchSchema"}}}

# Multi-attribute GSI keys (November 2025): a GSI's KeySchema lost its
# maximum of 2 (botocore 1.41.0 removed it from the shared KeySchema shape;
# the table's and an LSI's keep two, which CreateTable checks as a
# constraint). The HASH and RANGE limits (4 each) are semantic checks in
# engine/catalog.cc, with DynamoDB's messages.
MEMBER_SHAPES = {
    ("GlobalSecondaryIndex", "KeySchema"): "IndexKeySchema",
    ("CreateGlobalSecondaryIndexAction", "KeySchema"): "IndexKeySchema",
}
NEW_SHAPES = {
    "IndexKeySchema": {"type": "list", "member": {"shape": "KeySchemaElement"}, "min": 1},
    "DeletionProtectionEnabled": {"type": "boolean"},
    "ResourcePolicy": {"type": "string"},
    "OnDemandThroughput": {"type": "structure", "members": {
        "MaxReadRequestUnits": {"shape": "LongObject"},
        "MaxWriteRequestUnits": {"shape": "LongObject"}}},
    "LongObject": {"type": "long"},
    "PositiveLongObject": {"type": "long", "min": 1},
    "ResourceArnString": {"type": "string", "max": 1283, "min": 1},
    "PolicyRevisionId": {"type": "string", "max": 255, "min": 1},
    "ConfirmRemoveSelfResourceAccess": {"type": "boolean"},
    "PutResourcePolicyInput": {"type": "structure", "required": ["ResourceArn", "Policy"],
                               "members": {
        "ResourceArn": {"shape": "ResourceArnString"},
        "Policy": {"shape": "ResourcePolicy"},
        "ExpectedRevisionId": {"shape": "PolicyRevisionId"},
        "ConfirmRemoveSelfResourceAccess": {"shape": "ConfirmRemoveSelfResourceAccess"}}},
    "PutResourcePolicyOutput": {"type": "structure", "members": {
        "RevisionId": {"shape": "PolicyRevisionId"}}},
    "GetResourcePolicyInput": {"type": "structure", "required": ["ResourceArn"], "members": {
        "ResourceArn": {"shape": "ResourceArnString"}}},
    "GetResourcePolicyOutput": {"type": "structure", "members": {
        "Policy": {"shape": "ResourcePolicy"},
        "RevisionId": {"shape": "PolicyRevisionId"}}},
    "DeleteResourcePolicyInput": {"type": "structure", "required": ["ResourceArn"], "members": {
        "ResourceArn": {"shape": "ResourceArnString"},
        "ExpectedRevisionId": {"shape": "PolicyRevisionId"}}},
    "DeleteResourcePolicyOutput": {"type": "structure", "members": {
        "RevisionId": {"shape": "PolicyRevisionId"}}},
    "WarmThroughput": {"type": "structure", "members": {
        "ReadUnitsPerSecond": {"shape": "LongObject"},
        "WriteUnitsPerSecond": {"shape": "LongObject"}}},
    "TableWarmThroughputDescription": {"type": "structure", "members": {
        "ReadUnitsPerSecond": {"shape": "PositiveLongObject"},
        "WriteUnitsPerSecond": {"shape": "PositiveLongObject"},
        "Status": {"shape": "TableStatus"}}},
    "GlobalSecondaryIndexWarmThroughputDescription": {"type": "structure", "members": {
        "ReadUnitsPerSecond": {"shape": "PositiveLongObject"},
        "WriteUnitsPerSecond": {"shape": "PositiveLongObject"},
        "Status": {"shape": "IndexStatus"}}},
    "RecoveryPeriodInDays": {"type": "integer", "min": 1, "max": 35},
    "ExportType": {"type": "string", "enum": ["FULL_EXPORT", "INCREMENTAL_EXPORT"]},
    "ExportViewType": {"type": "string", "enum": ["NEW_IMAGE", "NEW_AND_OLD_IMAGES"]},
    "ExportFromTime": {"type": "timestamp"},
    "ExportToTime": {"type": "timestamp"},
    "IncrementalExportSpecification": {"type": "structure", "members": {
        "ExportFromTime": {"shape": "ExportFromTime"},
        "ExportToTime": {"shape": "ExportToTime"},
        "ExportViewType": {"shape": "ExportViewType"}}},
}

NEW_SHAPES.update(VECTOR_SHAPES)

# ---- DynamoDB Streams ------------------------------------------------------------------

# DescribeStream's ShardFilter (2024, in the newer model of npm's
# @aws-sdk/client-dynamodb-streams): the child shards of one shard.
STREAMS_MODEL_ADDITIONS = {"DescribeStreamInput": {"ShardFilter": {"shape": "ShardFilter"}}}
# The documented upper limits of the Limit members ("The upper limit is
# 100", "... 1000"), which the model leaves out: DynamoDB Streams refuses
# more as a constraint violation.
STREAMS_NEW_SHAPES = {
    "ListLimit": {"type": "integer", "min": 1, "max": 100},
    "GetRecordsLimit": {"type": "integer", "min": 1, "max": 1000},
    "ShardFilterType": {"type": "string", "enum": ["CHILD_SHARDS"]},
    "ShardFilter": {"type": "structure", "members": {
        "Type": {"shape": "ShardFilterType"},
        "ShardId": {"shape": "ShardId"}}},
}
STREAMS_MEMBER_SHAPES = {
    ("ListStreamsInput", "Limit"): "ListLimit",
    ("DescribeStreamInput", "Limit"): "ListLimit",
    ("GetRecordsInput", "Limit"): "GetRecordsLimit",
}
