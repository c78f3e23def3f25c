"""Every operation through boto3, the fleet example end to end, and errors as
boto3 surfaces them (type and message)."""
import uuid

import pytest
from botocore.exceptions import ClientError


def error(excinfo):
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def reading(vehicle, minute, speed, depot="DEP-LON-3"):
    return {"vehicleId": {"S": vehicle}, "recordedAt": {"S": f"TS#2026-06-23T09:{minute:02d}:00Z"},
            "speedKph": {"N": str(speed)}, "depotCode": {"S": depot}}


def test_tables(dynamodb, fleet_table):
    described = dynamodb.describe_table(TableName=fleet_table)["Table"]
    assert described["TableStatus"] == "ACTIVE"
    assert described["KeySchema"][0] == {"AttributeName": "vehicleId", "KeyType": "HASH"}
    assert described["GlobalSecondaryIndexes"][0]["IndexName"] == "ByDepot"
    assert described["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE"
    assert described["LocalSecondaryIndexes"][0]["Projection"]["ProjectionType"] == "KEYS_ONLY"
    assert fleet_table in dynamodb.list_tables()["TableNames"]
    with pytest.raises(ClientError) as e:
        dynamodb.create_table(TableName=fleet_table, KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST")
    assert error(e) == ("ResourceInUseException", f"Table already exists: {fleet_table}")
    with pytest.raises(ClientError) as e:
        dynamodb.describe_table(TableName="no-such-table")
    assert error(e) == ("ResourceNotFoundException", "Requested resource not found: Table: no-such-table not found")


def test_fleet_example(dynamodb, fleet_table):
    dynamodb.put_item(TableName=fleet_table, Item={"vehicleId": {"S": "VEH#V-7741"}, "recordedAt": {"S": "META"},
                                                   "model": {"S": "eVan 2"}, "depotCode": {"S": "DEP-LON-3"}})
    for minute in range(30):
        dynamodb.put_item(TableName=fleet_table, Item=reading("VEH#V-7741", minute, 40 + minute))
        dynamodb.put_item(TableName=fleet_table, Item=reading("VEH#V-0002", minute, 50, "DEP-MAN-1"))
    # META and readings in one Query.
    both = dynamodb.query(TableName=fleet_table, KeyConditionExpression="vehicleId = :v",
                          ExpressionAttributeValues={":v": {"S": "VEH#V-7741"}})
    assert both["Count"] == 31 and both["Items"][0]["recordedAt"]["S"] == "META"
    # The ten-minute window, newest first.
    window = dynamodb.query(TableName=fleet_table,
                            KeyConditionExpression="vehicleId = :v AND recordedAt BETWEEN :a AND :b",
                            ExpressionAttributeValues={":v": {"S": "VEH#V-7741"},
                                                       ":a": {"S": "TS#2026-06-23T09:10:00Z"},
                                                       ":b": {"S": "TS#2026-06-23T09:20:00Z"}},
                            ScanIndexForward=False)
    assert [i["recordedAt"]["S"][-9:-4] for i in window["Items"]][:3] == ["09:20", "09:19", "09:18"]
    assert window["Count"] == 11
    # The ByDepot GSI: newest readings of a depot.
    depot = dynamodb.query(TableName=fleet_table, IndexName="ByDepot",
                           KeyConditionExpression="depotCode = :d AND begins_with(recordedAt, :ts)",
                           ExpressionAttributeValues={":d": {"S": "DEP-LON-3"}, ":ts": {"S": "TS#"}},
                           ScanIndexForward=False, Limit=5)
    assert depot["Count"] == 5 and depot["Items"][0]["recordedAt"]["S"] == "TS#2026-06-23T09:29:00Z"
    assert set(depot["LastEvaluatedKey"]) == {"depotCode", "recordedAt", "vehicleId"}
    # The LSI: a write reports ItemCollectionMetrics.
    put = dynamodb.put_item(TableName=fleet_table, Item=reading("VEH#V-7741", 59, 99),
                            ReturnItemCollectionMetrics="SIZE", ReturnConsumedCapacity="INDEXES")
    assert put["ItemCollectionMetrics"]["ItemCollectionKey"] == {"vehicleId": {"S": "VEH#V-7741"}}
    assert put["ItemCollectionMetrics"]["SizeEstimateRangeGB"] == [0.0, 1.0]
    assert put["ConsumedCapacity"]["GlobalSecondaryIndexes"]["ByDepot"]["CapacityUnits"] == 1.0
    fast = dynamodb.query(TableName=fleet_table, IndexName="BySpeed",
                          KeyConditionExpression="vehicleId = :v AND speedKph > :s",
                          ExpressionAttributeValues={":v": {"S": "VEH#V-7741"}, ":s": {"N": "65"}})
    assert fast["Count"] == 5


def test_items_and_conditions(dynamodb, fleet_table):
    key = {"vehicleId": {"S": "VEH#1"}, "recordedAt": {"S": "META"}}
    dynamodb.put_item(TableName=fleet_table, Item={**key, "odometer": {"N": "10"}})
    out = dynamodb.update_item(TableName=fleet_table, Key=key, UpdateExpression="SET odometer = odometer + :d",
                               ExpressionAttributeValues={":d": {"N": "5"}}, ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"odometer": {"N": "15"}}
    with pytest.raises(ClientError) as e:
        dynamodb.put_item(TableName=fleet_table, Item=key, ConditionExpression="attribute_not_exists(vehicleId)")
    assert error(e) == ("ConditionalCheckFailedException", "The conditional request failed")
    got = dynamodb.get_item(TableName=fleet_table, Key=key, ProjectionExpression="odometer")
    assert got["Item"] == {"odometer": {"N": "15"}}
    dynamodb.delete_item(TableName=fleet_table, Key=key)
    assert "Item" not in dynamodb.get_item(TableName=fleet_table, Key=key)
    with pytest.raises(ClientError) as e:
        dynamodb.update_item(TableName=fleet_table, Key=key, UpdateExpression="SET #n = :v",
                             ExpressionAttributeValues={":v": {"N": "1"}})
    assert error(e) == ("ValidationException", "Invalid UpdateExpression: An expression attribute name used "
                        "in the document path is not defined; attribute name: #n")


def test_paginators(dynamodb, fleet_table):
    for minute in range(25):
        dynamodb.put_item(TableName=fleet_table, Item=reading("VEH#P", minute, minute))
    pages = dynamodb.get_paginator("query").paginate(
        TableName=fleet_table, KeyConditionExpression="vehicleId = :v",
        ExpressionAttributeValues={":v": {"S": "VEH#P"}}, PaginationConfig={"PageSize": 4})
    seen = [i["recordedAt"]["S"] for page in pages for i in page["Items"]]
    assert len(seen) == 25 and seen == sorted(seen)
    scanned = [i for page in dynamodb.get_paginator("scan").paginate(
        TableName=fleet_table, PaginationConfig={"PageSize": 7}) for i in page["Items"]]
    assert len(scanned) == 25


def test_batches_and_transactions(dynamodb, fleet_table):
    writes = [{"PutRequest": {"Item": reading("VEH#B", m, m)}} for m in range(10)]
    assert dynamodb.batch_write_item(RequestItems={fleet_table: writes})["UnprocessedItems"] == {}
    keys = [{"vehicleId": {"S": "VEH#B"}, "recordedAt": {"S": f"TS#2026-06-23T09:{m:02d}:00Z"}} for m in range(3)]
    got = dynamodb.batch_get_item(RequestItems={fleet_table: {"Keys": keys}})
    assert len(got["Responses"][fleet_table]) == 3
    with pytest.raises(ClientError) as e:
        dynamodb.batch_get_item(RequestItems={fleet_table: {"Keys": keys + keys[:1]}})
    assert error(e) == ("ValidationException", "Provided list of item keys contains duplicates")

    update = {"Update": {"TableName": fleet_table, "Key": keys[0], "UpdateExpression": "SET speedKph = :s",
                         "ExpressionAttributeValues": {":s": {"N": "77"}}}}
    check = {"ConditionCheck": {"TableName": fleet_table, "Key": keys[1],
                                "ConditionExpression": "speedKph > :big",
                                "ExpressionAttributeValues": {":big": {"N": "1000"}}}}
    with pytest.raises(ClientError) as e:
        dynamodb.transact_write_items(TransactItems=[update, check])
    code, message = error(e)
    assert code == "TransactionCanceledException"
    assert "[None, ConditionalCheckFailed]" in message
    assert [r["Code"] for r in e.value.response["CancellationReasons"]] == ["None", "ConditionalCheckFailed"]
    dynamodb.transact_write_items(TransactItems=[update], ClientRequestToken="tok-" + uuid.uuid4().hex)
    txget = dynamodb.transact_get_items(TransactItems=[{"Get": {"TableName": fleet_table, "Key": keys[0]}}])
    assert txget["Responses"][0]["Item"]["speedKph"] == {"N": "77"}


def test_resource_api(resource, fleet_table):
    table = resource.Table(fleet_table)
    table.put_item(Item={"vehicleId": "VEH#R", "recordedAt": "META", "tags": {"ev", "van"}, "n": 3})
    item = table.get_item(Key={"vehicleId": "VEH#R", "recordedAt": "META"})["Item"]
    assert item["tags"] == {"ev", "van"} and item["n"] == 3


def test_ttl_tags_and_endpoints(dynamodb, fleet_table):
    arn = dynamodb.describe_table(TableName=fleet_table)["Table"]["TableArn"]
    assert dynamodb.describe_time_to_live(TableName=fleet_table)["TimeToLiveDescription"]["TimeToLiveStatus"] == "DISABLED"
    dynamodb.update_time_to_live(TableName=fleet_table,
                                 TimeToLiveSpecification={"Enabled": True, "AttributeName": "expiresAt"})
    ttl = dynamodb.describe_time_to_live(TableName=fleet_table)["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}
    with pytest.raises(ClientError) as e:
        dynamodb.update_time_to_live(TableName=fleet_table,
                                     TimeToLiveSpecification={"Enabled": True, "AttributeName": "expiresAt"})
    assert error(e) == ("ValidationException", "TimeToLive is already enabled")
    dynamodb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "fleet"}, {"Key": "env", "Value": "dev"}])
    dynamodb.untag_resource(ResourceArn=arn, TagKeys=["env"])
    assert dynamodb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "fleet"}]
    # DynamoDB: a well-formed ARN of a table that does not exist is
    # AccessDeniedException (coral namespace, "Message"), not ResourceNotFound;
    # a malformed table ARN is a ValidationException.
    with pytest.raises(ClientError) as e:
        dynamodb.list_tags_of_resource(ResourceArn=arn + "-nope")
    assert error(e) == ("AccessDeniedException",
                        "User: arn:aws:iam::000000000000:root is not authorized to perform: "
                        "dynamodb:ListTagsOfResource on resource: " + arn + "-nope")
    with pytest.raises(ClientError) as e:
        dynamodb.tag_resource(ResourceArn=arn + "/index/ByDepot", Tags=[{"Key": "a", "Value": "b"}])
    assert error(e) == ("ValidationException",
                        "Invalid TableArn: Invalid ResourceArn provided as input " + arn + "/index/ByDepot")
    assert dynamodb.describe_endpoints()["Endpoints"][0]["CachePeriodInMinutes"] == 1440


def test_update_table_and_limits(dynamodb, fleet_table):
    out = dynamodb.update_table(
        TableName=fleet_table,
        AttributeDefinitions=[{"AttributeName": "fuelBand", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "ByFuel", "KeySchema": [{"AttributeName": "fuelBand", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    created = {g["IndexName"]: g for g in out["TableDescription"]["GlobalSecondaryIndexes"]}
    # Answered at once with the index CREATING and backfilling (the table
    # UPDATING), as DynamoDB does; a client polls until it is ACTIVE.
    assert created["ByFuel"]["IndexStatus"] == "CREATING"
    assert created["ByFuel"]["Backfilling"] is True
    assert out["TableDescription"]["TableStatus"] == "UPDATING"
    import time
    deadline = time.time() + 30
    while True:
        table = dynamodb.describe_table(TableName=fleet_table)["Table"]
        status = {g["IndexName"]: g["IndexStatus"] for g in table["GlobalSecondaryIndexes"]}
        if status["ByFuel"] == "ACTIVE" and table["TableStatus"] == "ACTIVE":
            break
        assert time.time() < deadline
        time.sleep(0.05)
    dynamodb.update_table(TableName=fleet_table, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ByFuel"}}])
    names = [g["IndexName"] for g in dynamodb.describe_table(TableName=fleet_table)["Table"]["GlobalSecondaryIndexes"]]
    assert names == ["ByDepot"]
    assert dynamodb.describe_limits()["TableMaxReadCapacityUnits"] > 0


def test_concurrent_clients(endpoint, fleet_table):
    import threading
    import boto3
    errors = []

    def worker(n):
        c = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                         aws_access_key_id="local", aws_secret_access_key="local")
        try:
            for i in range(25):
                c.put_item(TableName=fleet_table, Item=reading(f"VEH#C{n}", i % 60, i))
        except Exception as e:  # collected and asserted below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    scanned = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                           aws_access_key_id="local", aws_secret_access_key="local").scan(
        TableName=fleet_table, Select="COUNT")
    assert scanned["Count"] == 200


def test_billing_summary_and_delete_table_description(dynamodb):
    # DynamoDB: an on-demand table's BillingModeSummary has
    # LastUpdateToPayPerRequestDateTime = CreationDateTime; a provisioned
    # one has no BillingModeSummary; DeleteTable's description is DELETING
    # with TableId, TableArn, the summary and zero throughput, and has no
    # CreationDateTime, KeySchema or AttributeDefinitions.
    name = "Billing-" + uuid.uuid4().hex[:8]
    created = dynamodb.create_table(
        TableName=name, KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST")["TableDescription"]
    summary = dynamodb.describe_table(TableName=name)["Table"]["BillingModeSummary"]
    assert summary["BillingMode"] == "PAY_PER_REQUEST"
    assert summary["LastUpdateToPayPerRequestDateTime"] == created["CreationDateTime"]
    # DynamoDB answers CreateTable CREATING (boto3's table_exists waiter then
    # polls); DescribeTable here says ACTIVE at once.
    assert created["TableStatus"] == "CREATING"
    assert dynamodb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
    dynamodb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 2})
    provisioned = "Prov-" + uuid.uuid4().hex[:8]
    dynamodb.create_table(
        TableName=provisioned, KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    assert "BillingModeSummary" not in dynamodb.describe_table(TableName=provisioned)["Table"]
    # A capacity change is answered UPDATING, as DynamoDB does.
    out = dynamodb.update_table(TableName=provisioned,
                                ProvisionedThroughput={"ReadCapacityUnits": 6, "WriteCapacityUnits": 5})
    assert out["TableDescription"]["TableStatus"] == "UPDATING"
    assert dynamodb.describe_table(TableName=provisioned)["Table"]["TableStatus"] == "ACTIVE"
    dynamodb.delete_table(TableName=provisioned)

    gone = dynamodb.delete_table(TableName=name)["TableDescription"]
    assert gone["TableStatus"] == "DELETING"
    assert gone["TableId"] == created["TableId"] and gone["TableArn"] == created["TableArn"]
    assert gone["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"] == created["CreationDateTime"]
    assert gone["ProvisionedThroughput"]["ReadCapacityUnits"] == 0
    assert gone["ProvisionedThroughput"]["WriteCapacityUnits"] == 0
    for absent in ("CreationDateTime", "KeySchema", "AttributeDefinitions"):
        assert absent not in gone, absent


def test_create_table_tags_and_unsupported_parameters_refused(dynamodb):
    # CreateTable's Tags are kept; what Dynarock cannot honour is refused
    # with a clear ValidationException instead of being silently dropped.
    name = "Tags-" + uuid.uuid4().hex[:8]
    base = dict(KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST")
    out = dynamodb.create_table(TableName=name, Tags=[{"Key": "team", "Value": "fleet"}],
                                SSESpecification={"Enabled": False}, TableClass="STANDARD", **base)
    arn = out["TableDescription"]["TableArn"]
    assert out["TableDescription"]["TableClassSummary"]["TableClass"] == "STANDARD"
    assert dynamodb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "fleet"}]
    for extra, word in [({"SSESpecification": {"Enabled": True, "SSEType": "KMS"}}, "SSESpecification")]:
        with pytest.raises(ClientError) as e:
            dynamodb.create_table(TableName=name + "-x", **base, **extra)
        assert error(e)[0] == "ValidationException" and word in error(e)[1]
    with pytest.raises(ClientError) as e:
        dynamodb.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    assert error(e)[0] == "ValidationException" and "ReplicaUpdates" in error(e)[1]
    assert name + "-x" not in dynamodb.list_tables()["TableNames"]
    dynamodb.delete_table(TableName=name)


def call(endpoint, operation, body):
    """One JSON request as a client newer than Debian's botocore sends it
    (members botocore 1.29 does not know): (status, decoded answer)."""
    import json
    from test_protocol import post
    status, _, answer = post(endpoint, "DynamoDB_20120810." + operation, json.dumps(body).encode())
    return status, json.loads(answer)


def test_deletion_protection(endpoint):
    # DynamoDB: with DeletionProtectionEnabled, DeleteTable is a
    # ValidationException until UpdateTable clears it; DescribeTable reports
    # the flag (false too).
    name = "Guarded-" + uuid.uuid4().hex[:8]
    base = {"TableName": name, "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST"}
    status, out = call(endpoint, "CreateTable", {**base, "DeletionProtectionEnabled": True})
    assert status == 200 and out["TableDescription"]["DeletionProtectionEnabled"] is True
    status, out = call(endpoint, "DeleteTable", {"TableName": name})
    assert status == 400
    assert out["__type"] == "com.amazon.coral.validate#ValidationException"
    assert out["message"] == ("Resource cannot be deleted as it is currently protected against "
                              "deletion. Disable deletion protection first.")
    status, out = call(endpoint, "UpdateTable", {"TableName": name, "DeletionProtectionEnabled": False})
    assert status == 200 and out["TableDescription"]["DeletionProtectionEnabled"] is False
    status, out = call(endpoint, "DescribeTable", {"TableName": name})
    assert out["Table"]["DeletionProtectionEnabled"] is False
    status, out = call(endpoint, "DeleteTable", {"TableName": name})
    assert status == 200 and out["TableDescription"]["TableStatus"] == "DELETING"



def test_on_demand_maxima_and_warm_throughput_are_stored_described_and_honoured(endpoint):
    # OnDemandThroughput (May 2024): the most request units per second an
    # on-demand table or GSI takes; -1 removes a maximum. WarmThroughput
    # (November 2024): described as given, never lowered.
    name = "Capped-" + uuid.uuid4().hex[:8]
    gsi = {"IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
           "Projection": {"ProjectionType": "ALL"},
           "OnDemandThroughput": {"MaxWriteRequestUnits": 7}}
    status, out = call(endpoint, "CreateTable", {
        "TableName": name, "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"},
                                 {"AttributeName": "g", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST", "GlobalSecondaryIndexes": [gsi],
        "OnDemandThroughput": {"MaxReadRequestUnits": 5},
        "WarmThroughput": {"ReadUnitsPerSecond": 13000}})
    assert status == 200, out
    table = out["TableDescription"]
    assert table["OnDemandThroughput"] == {"MaxReadRequestUnits": 5, "MaxWriteRequestUnits": -1}
    assert table["WarmThroughput"] == {"ReadUnitsPerSecond": 13000, "Status": "ACTIVE"}
    assert table["GlobalSecondaryIndexes"][0]["OnDemandThroughput"] == {
        "MaxReadRequestUnits": -1, "MaxWriteRequestUnits": 7}
    # Honoured: reads beyond 5 units a second are throttled, with the reason.
    throttled = None
    for i in range(40):
        status, out = call(endpoint, "GetItem", {"TableName": name, "Key": {"k": {"S": "x"}},
                                                 "ConsistentRead": True})
        if status != 200:
            throttled = out
            break
    assert throttled is not None, "40 strongly consistent reads in a burst, none throttled"
    assert throttled["__type"].endswith("#ThrottlingException"), throttled
    assert throttled["throttlingReasons"][0]["reason"] == "TableReadMaxOnDemandThroughputExceeded"
    # Writes fall under the GSI's maximum when they write the index.
    throttled = None
    for i in range(40):
        status, out = call(endpoint, "PutItem", {"TableName": name, "Item": {
            "k": {"S": "w%d" % i}, "g": {"S": "G"}}})
        if status != 200:
            throttled = out
            break
    assert throttled is not None and throttled["throttlingReasons"][0]["reason"] == \
        "IndexWriteMaxOnDemandThroughputExceeded", throttled
    # Changed and removed by UpdateTable; warm throughput only rises.
    status, out = call(endpoint, "UpdateTable", {
        "TableName": name, "OnDemandThroughput": {"MaxReadRequestUnits": -1},
        "WarmThroughput": {"ReadUnitsPerSecond": 100, "WriteUnitsPerSecond": 5000},
        "GlobalSecondaryIndexUpdates": [{"Update": {
            "IndexName": "ByG", "OnDemandThroughput": {"MaxWriteRequestUnits": -1}}}]})
    assert status == 200, out
    table = out["TableDescription"]
    assert "OnDemandThroughput" not in table
    assert "OnDemandThroughput" not in table["GlobalSecondaryIndexes"][0]
    assert table["WarmThroughput"] == {"ReadUnitsPerSecond": 13000, "WriteUnitsPerSecond": 5000,
                                       "Status": "ACTIVE"}
    for body, word in [({"OnDemandThroughput": {}}, "OnDemandThroughput must specify"),
                       ({"OnDemandThroughput": {"MaxReadRequestUnits": 0}},
                        "MaxReadRequestUnits must be at least 1, or -1"),
                       ({"WarmThroughput": {"WriteUnitsPerSecond": -1}},
                        "WriteUnitsPerSecond must be at least 1")]:
        status, out = call(endpoint, "UpdateTable", {"TableName": name, **body})
        assert status == 400 and word in out["message"], out
    call(endpoint, "DeleteTable", {"TableName": name})


def test_update_and_name_errors_in_dynamodb_words(dynamodb, fleet_table):
    key = {"vehicleId": {"S": "VEH#E"}, "recordedAt": {"S": "META"}}
    dynamodb.put_item(TableName=fleet_table, Item={**key, "model": {"S": "eVan"},
                                                   "tags": {"L": [{"S": "a"}]}})
    # Nested REMOVE/DELETE need an existing parent of the right kind.
    for expr in ["REMOVE model.variant", "REMOVE nothere.variant", "REMOVE tags.variant", "REMOVE model[0]"]:
        with pytest.raises(ClientError) as e:
            dynamodb.update_item(TableName=fleet_table, Key=key, UpdateExpression=expr)
        assert error(e) == ("ValidationException",
                            "The document path provided in the update expression is invalid for update"), expr
    dynamodb.update_item(TableName=fleet_table, Key=key, UpdateExpression="REMOVE tags[5], absent")
    # Only if_not_exists and list_append are update functions.
    for fn in ["size", "attribute_exists", "frobnicate"]:
        with pytest.raises(ClientError) as e:
            dynamodb.update_item(TableName=fleet_table, Key=key, UpdateExpression=f"SET x = {fn}(model)")
        assert error(e) == ("ValidationException",
                            f"Invalid UpdateExpression: Invalid function name; function: {fn}")
    # An expression attribute name is an attribute name: at most 65535 bytes.
    with pytest.raises(ClientError) as e:
        dynamodb.get_item(TableName=fleet_table, Key=key, ProjectionExpression="#n",
                          ExpressionAttributeNames={"#n": "a" * 65536})
    code, message = error(e)
    assert code == "ValidationException"
    assert message.startswith("1 validation error detected: Value '{#n=aaa")
    assert message.endswith("' at 'expressionAttributeNames' failed to satisfy constraint: Map value "
                            "must satisfy constraint: [Member must have length less than or equal "
                            "to 65535]")
    # A new GSI under an existing name; an attribute redefined with another type.
    for index, attribute, message in [
            ("ByDepot", "depotCode", "Attempting to create an index which already exists"),
            ("BySpeedG", "speedKph", "One or more parameter values were invalid: Attributes cannot "
                                     "be redefined: speedKph is defined as N, not S")]:
        with pytest.raises(ClientError) as e:
            dynamodb.update_table(
                TableName=fleet_table,
                AttributeDefinitions=[{"AttributeName": attribute, "AttributeType": "S"}],
                GlobalSecondaryIndexUpdates=[{"Create": {
                    "IndexName": index, "KeySchema": [{"AttributeName": attribute, "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
        assert error(e) == ("ValidationException", message)


def test_table_class_is_stored_and_described(dynamodb):
    # DynamoDB's Infrequent Access class changes only the price: Dynarock
    # keeps it, describes it (TableClassSummary, from the moment a class is
    # given) and lets UpdateTable change it.
    name = "Class-" + uuid.uuid4().hex[:8]
    base = dict(KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST")
    dynamodb.create_table(TableName=name, **base)
    assert "TableClassSummary" not in dynamodb.describe_table(TableName=name)["Table"]
    out = dynamodb.update_table(TableName=name, TableClass="STANDARD_INFREQUENT_ACCESS")
    summary = out["TableDescription"]["TableClassSummary"]
    assert summary["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert summary["LastUpdateDateTime"].timestamp() > 0
    assert dynamodb.describe_table(TableName=name)["Table"]["TableClassSummary"]["TableClass"] == \
        "STANDARD_INFREQUENT_ACCESS"
    dynamodb.delete_table(TableName=name)
    created = dynamodb.create_table(TableName=name + "-ia", TableClass="STANDARD_INFREQUENT_ACCESS",
                                    **base)["TableDescription"]
    assert created["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    dynamodb.delete_table(TableName=name + "-ia")
