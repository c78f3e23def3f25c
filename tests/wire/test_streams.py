"""DynamoDB Streams and TTL through real clients: boto3's `dynamodbstreams`
client (a separate service, same port) reads the fleet table's stream."""
import time
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError


@pytest.fixture(scope="session")
def streams(endpoint):
    return boto3.client("dynamodbstreams", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="local", aws_secret_access_key="local",
                        config=Config(retries={"max_attempts": 1}))


@pytest.fixture
def streamed_table(dynamodb):
    name = "Fleet-" + uuid.uuid4().hex[:8]
    created = dynamodb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    desc = created["TableDescription"]
    assert desc["StreamSpecification"] == {"StreamEnabled": True,
                                           "StreamViewType": "NEW_AND_OLD_IMAGES"}
    yield name, desc["LatestStreamArn"]
    dynamodb.delete_table(TableName=name)


def read_all(streams, arn):
    """Every record of the stream, following shard lineage as the Kinesis
    adapter does: parents before children, each closed shard to its end."""
    shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    records = []
    for shard in shards:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while it:
            page = streams.get_records(ShardIterator=it, Limit=2)
            records += page["Records"]
            it = page.get("NextShardIterator")
            if "EndingSequenceNumber" not in shard["SequenceNumberRange"] and not page["Records"]:
                break  # the open shard: caught up
    return records


def test_fleet_stream_with_boto3(dynamodb, streams, streamed_table):
    name, arn = streamed_table
    dynamodb.put_item(TableName=name, Item={"PK": {"S": "VEH#V-7741"}, "SK": {"S": "META"},
                                            "model": {"S": "eVan"}})
    dynamodb.put_item(TableName=name, Item={"PK": {"S": "VEH#V-7741"},
                                            "SK": {"S": "TS#2026-12-01T10:00:00Z"},
                                            "speedKph": {"N": "42"}})
    dynamodb.update_item(TableName=name, Key={"PK": {"S": "VEH#V-7741"}, "SK": {"S": "META"}},
                         UpdateExpression="SET model = :m",
                         ExpressionAttributeValues={":m": {"S": "eVan XL"}})
    dynamodb.delete_item(TableName=name, Key={"PK": {"S": "VEH#V-7741"},
                                              "SK": {"S": "TS#2026-12-01T10:00:00Z"}})

    listed = streams.list_streams(TableName=name)["Streams"]
    assert [s["StreamArn"] for s in listed] == [arn]
    described = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert described["StreamStatus"] == "ENABLED"
    assert described["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert described["KeySchema"] == [{"AttributeName": "PK", "KeyType": "HASH"},
                                      {"AttributeName": "SK", "KeyType": "RANGE"}]

    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "INSERT", "MODIFY", "REMOVE"]
    modify = records[2]
    assert modify["eventSource"] == "aws:dynamodb"
    assert modify["dynamodb"]["Keys"] == {"PK": {"S": "VEH#V-7741"}, "SK": {"S": "META"}}
    assert modify["dynamodb"]["OldImage"]["model"] == {"S": "eVan"}
    assert modify["dynamodb"]["NewImage"]["model"] == {"S": "eVan XL"}
    assert "NewImage" not in records[3]["dynamodb"]
    assert "userIdentity" not in records[3]
    seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert seqs == sorted(seqs) and len(set(seqs)) == 4
    # botocore turned ApproximateCreationDateTime (epoch seconds) into a datetime.
    assert abs(records[0]["dynamodb"]["ApproximateCreationDateTime"].timestamp() - time.time()) < 600

    # AFTER_SEQUENCE_NUMBER resumes after a record; errors are DynamoDB's.
    shard = described["Shards"][-1]["ShardId"]
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                    ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                                    SequenceNumber=records[1]["dynamodb"]["SequenceNumber"])
    rest = streams.get_records(ShardIterator=it["ShardIterator"])["Records"]
    assert [r["eventName"] for r in rest] == ["MODIFY", "REMOVE"]
    with pytest.raises(ClientError) as e:
        streams.get_records(ShardIterator="x" * 10)
    assert e.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(ClientError) as e:
        streams.describe_stream(StreamArn=arn.replace("/stream/", "/stream/9"))
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"

    # Disabling keeps the stream readable and the table's LatestStreamArn.
    dynamodb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    desc = dynamodb.describe_table(TableName=name)["Table"]
    assert "StreamSpecification" not in desc and desc["LatestStreamArn"] == arn
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == "DISABLED"
    assert len(read_all(streams, arn)) == 4
    with pytest.raises(ClientError) as e:
        dynamodb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    assert e.value.response["Error"]["Message"] == \
        "Table has no stream to disable: TableName: " + name


def test_ttl_through_the_wire(dynamodb, streams, streamed_table):
    name, arn = streamed_table
    out = dynamodb.update_time_to_live(
        TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expiresAt"})
    assert out["TimeToLiveSpecification"] == {"Enabled": True, "AttributeName": "expiresAt"}
    desc = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    assert desc == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}
    with pytest.raises(ClientError) as e:
        dynamodb.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "other"})
    assert e.value.response["Error"]["Message"] == \
        "TimeToLive is active on a different AttributeName: current AttributeName is expiresAt"
    # The server sweeps every second: an expired reading disappears, a live one stays.
    now = int(time.time())
    dynamodb.put_item(TableName=name, Item={"PK": {"S": "VEH#1"}, "SK": {"S": "TS#old"},
                                            "expiresAt": {"N": str(now - 60)}})
    dynamodb.put_item(TableName=name, Item={"PK": {"S": "VEH#1"}, "SK": {"S": "TS#new"},
                                            "expiresAt": {"N": str(now + 3600)}})
    deadline = time.time() + 20
    while time.time() < deadline:
        items = dynamodb.query(TableName=name, KeyConditionExpression="PK = :p",
                               ExpressionAttributeValues={":p": {"S": "VEH#1"}})["Items"]
        if len(items) == 1:
            break
        time.sleep(0.2)
    assert [i["SK"]["S"] for i in items] == ["TS#new"]
    # Its REMOVE record says DynamoDB's TTL service deleted it.
    removes = [r for r in read_all(streams, arn) if r["eventName"] == "REMOVE"]
    assert len(removes) == 1
    assert removes[0]["userIdentity"] == {"Type": "Service",
                                          "PrincipalId": "dynamodb.amazonaws.com"}
    assert removes[0]["dynamodb"]["OldImage"]["SK"] == {"S": "TS#old"}


def test_shard_filter_lists_the_children_of_a_shard(tmp_path):
    # DescribeStream's ShardFilter (newer than boto3's model here: sent as
    # raw JSON): CHILD_SHARDS of a shard lists what follows it. A restart
    # closes the open shard and opens its child.
    import json
    import os
    import signal
    import subprocess
    import urllib.request

    def start():
        proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--port", "0", "--data-dir",
                                 str(tmp_path / "db")], stdout=subprocess.PIPE, text=True)
        return proc, proc.stdout.readline().split()[4]

    def call(endpoint, target, body):
        req = urllib.request.Request(endpoint, data=json.dumps(body).encode(), headers={
            "X-Amz-Target": target, "Content-Type": "application/x-amz-json-1.0"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.load(e)

    def stop(proc):
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0

    proc, endpoint = start()
    arn = call(endpoint, "DynamoDB_20120810.CreateTable", {
        "TableName": "Fleet", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}})[
        "TableDescription"]["LatestStreamArn"]
    stop(proc)
    proc, endpoint = start()
    try:
        describe = "DynamoDBStreams_20120810.DescribeStream"
        shards = call(endpoint, describe, {"StreamArn": arn})["StreamDescription"]["Shards"]
        assert len(shards) == 2 and shards[1]["ParentShardId"] == shards[0]["ShardId"]
        children = call(endpoint, describe, {"StreamArn": arn, "ShardFilter": {
            "Type": "CHILD_SHARDS", "ShardId": shards[0]["ShardId"]}})["StreamDescription"]["Shards"]
        assert children == [shards[1]]
        assert call(endpoint, describe, {"StreamArn": arn, "ShardFilter": {
            "Type": "CHILD_SHARDS", "ShardId": shards[1]["ShardId"]}})["StreamDescription"][
            "Shards"] == []
        wrong = call(endpoint, describe, {"StreamArn": arn, "ShardFilter": {"Type": "PARENT"}})
        assert wrong["message"] == (
            "1 validation error detected: Value 'PARENT' at 'shardFilter.type' failed to satisfy "
            "constraint: Member must satisfy enum value set: [CHILD_SHARDS]")
    finally:
        stop(proc)
