"""Every served operation's answer, byte for byte.

One scripted session (tables, items, batches, transactions, PartiQL, TTL,
tags, backups, Streams, and the error bodies that carry details) runs
against a fresh server; each answer is compared, as the bytes sent, with
tests/wire/response_bytes.golden. Member order, which members are left out
when absent or empty, and number formatting are all pinned, so that a
change in how responses are written shows here as a diff.

Values that differ from run to run (times, table ids, stream labels,
sequence numbers, event ids, shard iterators) are replaced by a marker
before comparing. DYNAROCK_REGOLD=1 rewrites the golden file instead.
"""
import json
import os
import re
import urllib.error
import urllib.request

from conftest import serve

GOLDEN = os.path.join(os.path.dirname(__file__), "response_bytes.golden")

VOLATILE = [
    (re.compile(rb'"(CreationDateTime|LastUpdateToPayPerRequestDateTime|'
                rb'CreationRequestDateTime|ApproximateCreationDateTime|'
                rb'EarliestRestorableDateTime|LatestRestorableDateTime)":[0-9.eE+-]+'),
     rb'"\1":<time>'),
    (re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'), b"<uuid>"),
    (re.compile(rb'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}'), b"<label>"),
    (re.compile(rb'"(eventID)":"[0-9a-f]+"'), rb'"\1":"<event>"'),
    (re.compile(rb'"(SequenceNumber|StartingSequenceNumber|EndingSequenceNumber)":"\d+"'),
     rb'"\1":"<seq>"'),
    (re.compile(rb'"(ShardIterator|NextShardIterator)":"[^"]+"'), rb'"\1":"<iterator>"'),
    (re.compile(rb'shardId-[0-9A-Za-z-]+'), b"<shard>"),
    (re.compile(rb'"(StartTime|EndTime)":[0-9.eE+-]+'), rb'"\1":<time>'),
    (re.compile(rb'/import/[0-9A-Za-z-]+'), b"/import/<id>"),
    (re.compile(rb'"Address":"127\.0\.0\.1:\d+"'), b'"Address":"127.0.0.1:<port>"'),
]


def normalize(body):
    for pattern, marker in VOLATILE:
        body = pattern.sub(marker, body)
    return body


class Session:
    def __init__(self, endpoint):
        self.endpoint = endpoint
        self.lines = []

    def call(self, operation, request, service="DynamoDB_20120810"):
        r = urllib.request.Request(
            self.endpoint, data=json.dumps(request).encode(), method="POST",
            headers={"X-Amz-Target": service + "." + operation,
                     "Content-Type": "application/x-amz-json-1.0"})
        try:
            with urllib.request.urlopen(r, timeout=30) as resp:
                status, body = resp.status, resp.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        self.lines.append(b"%s %d %s" % (operation.encode(), status, normalize(body)))
        return json.loads(body) if body else None  # TagResource: an empty body

    def streams(self, operation, request):
        return self.call(operation, request, service="DynamoDBStreams_20120810")


def fleet_session(s):
    fleet = {
        "TableName": "Fleet",
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "SK", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                 {"AttributeName": "SK", "AttributeType": "S"},
                                 {"AttributeName": "depotCode", "AttributeType": "S"},
                                 {"AttributeName": "speedKph", "AttributeType": "N"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "ByDepot",
            "KeySchema": [{"AttributeName": "depotCode", "KeyType": "HASH"},
                          {"AttributeName": "SK", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["speedKph"]}}],
        "LocalSecondaryIndexes": [{
            "IndexName": "BySpeed",
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                          {"AttributeName": "speedKph", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        "Tags": [{"Key": "team", "Value": "fleet"}],
    }
    s.call("CreateTable", fleet)
    s.call("CreateTable", {
        "TableName": "Depots",
        "KeySchema": [{"AttributeName": "code", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "code", "AttributeType": "S"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 3}})
    s.call("DescribeTable", {"TableName": "Depots"})
    s.call("ListTables", {})
    s.call("ListTables", {"Limit": 1})
    s.call("UpdateTable", {"TableName": "Depots", "BillingMode": "PAY_PER_REQUEST"})
    s.call("CreateTable", fleet)  # ResourceInUseException
    s.call("DescribeTable", {"TableName": "Nope"})  # ResourceNotFoundException

    reading = {"PK": {"S": "VEH#V-7741"}, "SK": {"S": "TS#2026-12-05T08:00:00Z"},
               "depotCode": {"S": "DEP-LON-3"}, "speedKph": {"N": "42.50"},
               "tags": {"SS": ["b", "a"]}, "raw": {"B": "AAEC"},
               "fix": {"M": {"lat": {"N": "51.5"}, "ok": {"BOOL": True},
                             "none": {"NULL": True}, "path": {"L": [{"N": "1"}, {"S": "x"}]}}}}
    profile = {"PK": {"S": "VEH#V-7741"}, "SK": {"S": "META"}, "model": {"S": "eVan"},
               "depotCode": {"S": "DEP-LON-3"}, "speedKph": {"N": "0"}}
    s.call("PutItem", {"TableName": "Fleet", "Item": profile})
    s.call("PutItem", {"TableName": "Fleet", "Item": reading, "ReturnValues": "ALL_OLD",
                       "ReturnConsumedCapacity": "INDEXES",
                       "ReturnItemCollectionMetrics": "SIZE"})
    s.call("PutItem", {"TableName": "Fleet", "Item": reading, "ReturnValues": "ALL_OLD",
                       "ReturnConsumedCapacity": "TOTAL"})
    s.call("PutItem", {"TableName": "Fleet", "Item": profile,
                       "ConditionExpression": "attribute_not_exists(PK)",
                       "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    key = {"PK": {"S": "VEH#V-7741"}, "SK": {"S": "META"}}
    s.call("GetItem", {"TableName": "Fleet", "Key": key})
    s.call("GetItem", {"TableName": "Fleet", "Key": key, "ReturnConsumedCapacity": "TOTAL",
                       "ProjectionExpression": "model"})
    s.call("GetItem", {"TableName": "Fleet", "Key": {"PK": {"S": "none"}, "SK": {"S": "x"}}})
    s.call("UpdateItem", {"TableName": "Fleet", "Key": key,
                          "UpdateExpression": "SET mileage = :m ADD trips :one",
                          "ExpressionAttributeValues": {":m": {"N": "1200"}, ":one": {"N": "1"}},
                          "ReturnValues": "ALL_NEW", "ReturnConsumedCapacity": "INDEXES"})
    s.call("UpdateItem", {"TableName": "Fleet", "Key": key,
                          "UpdateExpression": "SET mileage = :m",
                          "ExpressionAttributeValues": {":m": {"N": "1300"}},
                          "ReturnValues": "UPDATED_OLD"})
    s.call("Query", {"TableName": "Fleet", "KeyConditionExpression": "PK = :v",
                     "ExpressionAttributeValues": {":v": {"S": "VEH#V-7741"}},
                     "ScanIndexForward": False, "ReturnConsumedCapacity": "TOTAL"})
    s.call("Query", {"TableName": "Fleet", "KeyConditionExpression": "PK = :v",
                     "ExpressionAttributeValues": {":v": {"S": "VEH#V-7741"}}, "Limit": 1})
    s.call("Query", {"TableName": "Fleet", "IndexName": "ByDepot",
                     "KeyConditionExpression": "depotCode = :d",
                     "ExpressionAttributeValues": {":d": {"S": "DEP-LON-3"}},
                     "Select": "COUNT"})
    s.call("Query", {"TableName": "Fleet", "IndexName": "BySpeed",
                     "KeyConditionExpression": "PK = :v AND speedKph > :s",
                     "ExpressionAttributeValues": {":v": {"S": "VEH#V-7741"},
                                                   ":s": {"N": "1"}}})
    s.call("Scan", {"TableName": "Fleet", "ReturnConsumedCapacity": "INDEXES"})
    s.call("Scan", {"TableName": "Fleet", "Limit": 1, "FilterExpression": "attribute_exists(model)"})
    s.call("Scan", {"TableName": "Fleet", "Segment": 0, "TotalSegments": 2, "Select": "COUNT"})
    s.call("BatchWriteItem", {"RequestItems": {
        "Depots": [{"PutRequest": {"Item": {"code": {"S": "DEP-LON-3"}, "name": {"S": "London 3"}}}},
                   {"PutRequest": {"Item": {"code": {"S": "DEP-MAN-1"}}}}],
        "Fleet": [{"DeleteRequest": {"Key": {"PK": {"S": "VEH#V-1"}, "SK": {"S": "META"}}}}]},
        "ReturnConsumedCapacity": "TOTAL", "ReturnItemCollectionMetrics": "SIZE"})
    s.call("BatchGetItem", {"RequestItems": {
        "Depots": {"Keys": [{"code": {"S": "DEP-LON-3"}}, {"code": {"S": "DEP-XXX"}}],
                   "ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": "name"}},
        "Fleet": {"Keys": [key], "ConsistentRead": True}},
        "ReturnConsumedCapacity": "TOTAL"})
    s.call("TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": "Depots", "Item": {"code": {"S": "DEP-BRI-2"}}}},
        {"Update": {"TableName": "Fleet", "Key": key, "UpdateExpression": "REMOVE trips"}}],
        "ReturnConsumedCapacity": "INDEXES", "ReturnItemCollectionMetrics": "SIZE"})
    s.call("TransactWriteItems", {"TransactItems": [
        {"ConditionCheck": {"TableName": "Depots", "Key": {"code": {"S": "DEP-BRI-2"}},
                            "ConditionExpression": "attribute_not_exists(code)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
        {"Delete": {"TableName": "Depots", "Key": {"code": {"S": "DEP-MAN-1"}}}}]})
    s.call("TransactGetItems", {"TransactItems": [
        {"Get": {"TableName": "Depots", "Key": {"code": {"S": "DEP-BRI-2"}}}},
        {"Get": {"TableName": "Depots", "Key": {"code": {"S": "DEP-NONE"}}}},
        {"Get": {"TableName": "Fleet", "Key": key, "ProjectionExpression": "model"}}],
        "ReturnConsumedCapacity": "TOTAL"})
    s.call("DeleteItem", {"TableName": "Depots", "Key": {"code": {"S": "DEP-BRI-2"}},
                          "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "TOTAL"})
    s.call("DeleteItem", {"TableName": "Depots", "Key": {"code": {"S": "DEP-BRI-2"}}})

    s.call("ExecuteStatement", {"Statement": "SELECT * FROM Fleet WHERE PK = ?",
                                "Parameters": [{"S": "VEH#V-7741"}], "Limit": 1})
    s.call("ExecuteStatement", {"Statement": "UPDATE Depots SET hub = true "
                                             "WHERE code = 'DEP-LON-3' RETURNING ALL NEW *",
                                "ReturnConsumedCapacity": "TOTAL"})
    s.call("BatchExecuteStatement", {"Statements": [
        {"Statement": "INSERT INTO Depots VALUE {'code': 'DEP-LON-3'}"},
        {"Statement": "INSERT INTO Depots VALUE {'code': 'DEP-NEW-1'}"}],
        "ReturnConsumedCapacity": "TOTAL"})
    s.call("BatchExecuteStatement", {"Statements": [
        {"Statement": "SELECT * FROM Depots WHERE code = 'DEP-LON-3'"},
        {"Statement": "SELECT * FROM Depots WHERE code = 'DEP-NONE'"}]})
    s.call("ExecuteTransaction", {"TransactStatements": [
        {"Statement": "SELECT code FROM Depots WHERE code = ?", "Parameters": [{"S": "DEP-LON-3"}]},
        {"Statement": "SELECT code FROM Depots WHERE code = 'DEP-NONE'"}]})
    s.call("ExecuteTransaction", {"TransactStatements": [
        {"Statement": "DELETE FROM Depots WHERE code = 'DEP-NEW-1'"}],
        "ReturnConsumedCapacity": "TOTAL"})

    s.call("UpdateTimeToLive", {"TableName": "Depots", "TimeToLiveSpecification": {
        "Enabled": True, "AttributeName": "expiresAt"}})
    s.call("DescribeTimeToLive", {"TableName": "Depots"})
    s.call("DescribeTimeToLive", {"TableName": "Fleet"})
    arn = s.call("DescribeTable", {"TableName": "Fleet"})["Table"]["TableArn"]
    s.call("TagResource", {"ResourceArn": arn, "Tags": [{"Key": "owner", "Value": "ops"}]})
    s.call("ListTagsOfResource", {"ResourceArn": arn})
    s.call("UntagResource", {"ResourceArn": arn, "TagKeys": ["team"]})
    s.call("ListTagsOfResource", {"ResourceArn": arn})
    s.call("DescribeContinuousBackups", {"TableName": "Depots"})
    s.call("UpdateContinuousBackups", {"TableName": "Depots", "PointInTimeRecoverySpecification": {
        "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 7}})
    s.call("DescribeEndpoints", {})
    s.call("DescribeLimits", {})

    streams = s.streams("ListStreams", {})
    stream_arn = streams["Streams"][0]["StreamArn"]
    s.streams("ListStreams", {"TableName": "Depots"})
    shard = s.streams("DescribeStream", {"StreamArn": stream_arn})
    shard_id = shard["StreamDescription"]["Shards"][0]["ShardId"]
    it = s.streams("GetShardIterator", {"StreamArn": stream_arn, "ShardId": shard_id,
                                        "ShardIteratorType": "TRIM_HORIZON"})
    s.streams("GetRecords", {"ShardIterator": it["ShardIterator"], "Limit": 3})
    s.streams("GetRecords", {"ShardIterator": "nonsense"})
    # The Streams model's type and constraint errors.
    s.streams("ListStreams", {"TableName": "a", "Limit": 0, "ExclusiveStartStreamArn": "x"})
    s.streams("GetShardIterator", {"StreamArn": "s" * 40, "ShardId": "x",
                                   "ShardIteratorType": "NOPE", "SequenceNumber": "1"})
    s.streams("DescribeStream", {"Limit": "x"})
    s.streams("GetRecords", [])

    # An import's description echoes what the request gave (the import
    # itself fails later: the bucket holds no data).
    s.call("ImportTable", {
        "S3BucketSource": {"S3Bucket": "bkt", "S3KeyPrefix": "x/"},
        "InputFormat": "CSV",
        "InputFormatOptions": {"Csv": {"Delimiter": ";", "HeaderList": ["pk", "v"]}},
        "InputCompressionType": "NONE",
        "TableCreationParameters": {
            "TableName": "Imported",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "g", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 6},
            "SSESpecification": {"Enabled": False},
            "GlobalSecondaryIndexes": [{
                "IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["v"]},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 2}}]}})

    s.call("UpdateTable", {"TableName": "Fleet", "StreamSpecification": {"StreamEnabled": False}})
    s.call("DeleteTable", {"TableName": "Depots"})


def test_every_answer_matches_the_golden_bytes(tmp_path):
    (tmp_path / "bkt").mkdir()
    # Its own server: ListTables sees only this session's tables.
    with serve("--s3-dir", str(tmp_path)) as endpoint:
        s = Session(endpoint)
        fleet_session(s)
    got = b"\n".join(s.lines) + b"\n"
    if os.environ.get("DYNAROCK_REGOLD"):
        with open(GOLDEN, "wb") as f:
            f.write(got)
    with open(GOLDEN, "rb") as f:
        want = f.read()
    want_lines, got_lines = want.splitlines(), got.splitlines()
    for i, (w, g) in enumerate(zip(want_lines, got_lines)):
        assert g == w, "answer %d differs" % (i + 1)
    assert len(got_lines) == len(want_lines)
