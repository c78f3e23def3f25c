"""`dynarock serve --partition-limits`: DynamoDB's per-partition ceilings on
each item collection, answered as DynamoDB answers a hot partition; the
console API's hottest collections; and `dynarock top`, its live view.

The server runs with DynamoDB's own 1,000 WCU per collection, and a burst of
one second instead of 300 so that a test can exhaust it in a few seconds."""
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import create_fleet_table, get_json

TABLE = "Telemetry"
HOT = "VEH#V-7741"
# 9,900 bytes of payload: each item is under 10 KB, so a write is 10 WCU.
PAYLOAD = "x" * 9900


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--in-memory", "--port", "0",
                             "--partition-limits", "--partition-burst-seconds", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line and "1000 WCU per collection" in line, proc.stderr.read()
    endpoint = line.split()[4]
    client = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="local", aws_secret_access_key="local",
                          config=Config(retries={"max_attempts": 1}))
    create_fleet_table(client, TABLE)
    yield endpoint, client
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


def reading(vehicle, n, depot=None):
    item = {"vehicleId": {"S": vehicle}, "recordedAt": {"S": f"TS#{n:08d}"},
            "payload": {"S": PAYLOAD}}
    if depot:
        item["depotCode"] = {"S": depot}
    return item


def test_a_hot_vehicle_at_twice_its_limit_is_throttled_while_others_are_served(limited):
    endpoint, client = limited
    # 3 seconds at 2x the partition's 1,000 WCU: 8 batches a second of 25
    # readings of 10 WCU each on the hot vehicle, and one reading a tick
    # for each of four cold vehicles.
    seconds, ticks_per_second = 3, 8
    hot_sent = hot_written = hot_unprocessed = 0
    cold_written = cold_throttled = 0
    start = time.monotonic()
    for tick in range(seconds * ticks_per_second):
        batch = [{"PutRequest": {"Item": reading(HOT, tick * 25 + i)}} for i in range(25)]
        hot_sent += 25
        try:
            r = client.batch_write_item(RequestItems={TABLE: batch})
            left = len(r.get("UnprocessedItems", {}).get(TABLE, []))
            hot_unprocessed += left
            hot_written += 25 - left
        except ClientError as e:
            # DynamoDB raises only when no item of the batch could be written.
            assert e.response["Error"]["Code"] == "ThrottlingException", e.response
            hot_unprocessed += 25
        for v in range(4):
            try:
                client.put_item(TableName=TABLE, Item=reading(f"VEH#V-{v:04d}", tick))
                cold_written += 1
            except ClientError:
                cold_throttled += 1
        # Paced: the next tick starts at its time (if the server keeps up).
        time.sleep(max(0.0, start + (tick + 1) / ticks_per_second - time.monotonic()))
    elapsed = time.monotonic() - start
    assert elapsed < seconds * 1.5, "the driver could not keep 2x the limit"

    # The hot collection got its rate plus its one-second burst (a request
    # is admitted while the budget is above zero: one batch of debt more),
    # and the rest came back unprocessed; every cold write was served.
    ceiling = 1000 * (elapsed + 1) + 250
    assert hot_written * 10 <= ceiling, (hot_written, elapsed)
    assert hot_written * 10 >= 0.8 * 1000 * (seconds + 1), (hot_written, elapsed)
    assert hot_unprocessed == hot_sent - hot_written
    assert hot_unprocessed >= 150, hot_unprocessed
    assert cold_written == 4 * seconds * ticks_per_second and cold_throttled == 0
    # Reads of the hot vehicle have their own (read) budget.
    counted, start_key = 0, None
    while True:
        page = client.query(TableName=TABLE, KeyConditionExpression="vehicleId = :v",
                            ExpressionAttributeValues={":v": {"S": HOT}}, Select="COUNT",
                            **({"ExclusiveStartKey": start_key} if start_key else {}))
        counted += page["Count"]
        start_key = page.get("LastEvaluatedKey")
        if not start_key:
            break
    assert counted == hot_written

    # Exhausted again, a write is refused in DynamoDB's words, with the
    # ThrottlingReasons detail (raw JSON: botocore 1.29 predates it).
    retrying = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                            aws_access_key_id="local", aws_secret_access_key="local",
                            config=Config(retries={"mode": "standard", "max_attempts": 10}))
    retrying.describe_table(TableName=TABLE)  # connected before the budget is spent
    error = None
    for n in range(300):
        body = json.dumps({"TableName": TABLE, "Item": reading(HOT, 20_000 + n)}).encode()
        req = urllib.request.Request(endpoint, data=body, method="POST", headers={
            "X-Amz-Target": "DynamoDB_20120810.PutItem",
            "Content-Type": "application/x-amz-json-1.0"})
        try:
            urllib.request.urlopen(req, timeout=30).read()
        except urllib.error.HTTPError as refused:
            assert refused.code == 400
            error = json.loads(refused.read())
            break
    assert error is not None, "300 writes of 10 WCU were never throttled"
    assert error["__type"] == "com.amazonaws.dynamodb.v20120810#ThrottlingException"
    assert error["throttlingReasons"] == [{
        "reason": "TableWriteKeyRangeThroughputExceeded",
        "resource": f"arn:aws:dynamodb:us-east-1:000000000000:table/{TABLE}"}]

    # The SDK's own retries carry a write through: standard mode backs off
    # on ThrottlingException until the budget refills. A 390 KB write
    # (381 WCU), admitted once the budget is just above zero, leaves the
    # collection some 370 ms in debt: the next write's first try is refused.
    time.sleep(0.015)
    big = reading(HOT, 40_000)
    big["payload"] = {"S": "x" * 390_000}
    client.put_item(TableName=TABLE, Item=big)
    r = retrying.put_item(TableName=TABLE, Item=reading(HOT, 30_000))
    assert r["ResponseMetadata"]["RetryAttempts"] >= 1


def test_a_provisioned_table_answers_provisioned_throughput_exceeded(limited):
    endpoint, client = limited
    client.create_table(TableName="Provisioned",
                        KeySchema=[{"AttributeName": "vehicleId", "KeyType": "HASH"},
                                   {"AttributeName": "recordedAt", "KeyType": "RANGE"}],
                        AttributeDefinitions=[{"AttributeName": "vehicleId", "AttributeType": "S"},
                                              {"AttributeName": "recordedAt", "AttributeType": "S"}],
                        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    # 390 KB writes (381 WCU each): the budget (1,000 a second, one second
    # of burst) is gone after three or four of them in a row.
    big = reading(HOT, 0)
    with pytest.raises(ClientError) as refused:
        for n in range(50):
            big["recordedAt"] = {"S": f"TS#{n:08d}"}
            big["payload"] = {"S": "x" * 390_000}
            client.put_item(TableName="Provisioned", Item=big)
    e = refused.value.response
    assert e["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert e["Error"]["Message"] == ("The level of configured provisioned throughput for the "
                                     "table was exceeded. Consider increasing your provisioning "
                                     "level with the UpdateTable API.")
    assert n >= 2  # the first writes were served


def test_the_console_api_and_top_rank_the_hot_vehicle_first(limited):
    endpoint, client = limited
    # GSI traffic too: two depots, one twice as busy as the other.
    for n in range(6):
        client.put_item(TableName=TABLE, Item=reading(f"VEH#V-9{n:03d}", n,
                                                      "DEP-LON-3" if n % 3 else "DEP-MAN-1"))
    status, hottest = get_json(endpoint + f"/console/api/hottest?table={TABLE}&limit=3&window=360")
    assert status == 200, hottest
    assert 0 < hottest["WindowSeconds"] <= 360
    [table] = hottest["Tables"]
    assert table["TableName"] == TABLE
    collections = table["Collections"]
    own = [c for c in collections if "IndexName" not in c]
    gsi = [c for c in collections if c.get("IndexName") == "ByDepot"]
    assert len(own) == 3 and len(gsi) == 2
    # The hot vehicle first: its writes (10 WCU each) and its reads.
    assert own[0]["Key"] == {"vehicleId": {"S": HOT}}
    assert own[0]["WriteUnits"] >= 3200 and own[0]["ReadUnits"] > 0
    assert own[0]["Units"] == pytest.approx(own[0]["ReadUnits"] + own[0]["WriteUnits"])
    assert own[0]["ErrorBound"] == 0  # fewer collections than counters: exact
    assert [c["Key"] for c in gsi] == [{"depotCode": {"S": "DEP-LON-3"}},
                                       {"depotCode": {"S": "DEP-MAN-1"}}]
    assert [c["WriteUnits"] for c in gsi] == [40, 20]

    # Every table when none is named (the provisioned one has traffic too).
    status, everything = get_json(endpoint + "/console/api/hottest")
    assert status == 200
    assert [t["TableName"] for t in everything["Tables"]] == ["Provisioned", TABLE]

    # `dynarock top --once`: the same ranking, aligned, units per second
    # over the window.
    r = subprocess.run([os.environ["DYNAROCK_BIN"], "top", "--endpoint", endpoint, "--table",
                        TABLE, "--limit", "3", "--window", "360", "--once"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert re.fullmatch(rf"hottest item collections at {re.escape(endpoint)}, the last \d+ s, "
                        r"at \d\d:\d\d:\d\d", lines[0]), lines[0]
    assert lines[1:4] == ["", TABLE, lines[3]]
    header = lines[3].split()
    assert header == ["vehicleId", "RCU/s", "WCU/s", "read", "units", "write", "units", "error"]
    hot_row = lines[4].split()
    assert hot_row[0] == HOT
    window = float(re.search(r"the last (\d+) s", lines[0]).group(1))
    assert float(hot_row[4]) == pytest.approx(own[0]["WriteUnits"], abs=0.05)
    assert float(hot_row[2]) == pytest.approx(float(hot_row[4]) / window, abs=0.1)
    # Columns line up: every row of a block is as wide as its header.
    assert len(set(len(l) for l in lines[3:7])) == 1, lines[3:7]
    depot = lines.index(f"{TABLE}.ByDepot")
    assert [l.split()[0] for l in lines[depot + 2:depot + 4]] == ["DEP-LON-3", "DEP-MAN-1"]
    assert [float(l.split()[4]) for l in lines[depot + 2:depot + 4]] == [40.0, 20.0]

    # --json hands the server's answer on, for scripts.
    r = subprocess.run([os.environ["DYNAROCK_BIN"], "top", "--endpoint", endpoint, "--table",
                        TABLE, "--once", "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and json.loads(r.stdout)["Tables"][0]["TableName"] == TABLE


def test_console_api_and_top_errors(limited):
    endpoint, _ = limited
    for query, message in [
            ("limit=0", "Parameter 'limit' must be a whole number from 1 to 100, not '0'"),
            ("window=999", "Parameter 'window' must be a whole number from 1 to 360, not '999'"),
            ("limit=5&limit=6", "Parameter 'limit' is given more than once"),
            ("colour=red", "Unknown parameter 'colour': this endpoint takes table, limit, window"),
            ("table=%FF%FE", "Parameter 'table' must be a table name: 3 to 255 characters of "
                             "a-z, A-Z, 0-9, '_', '-' and '.'")]:
        status, error = get_json(endpoint + "/console/api/hottest?" + query)
        assert status == 400, query
        assert error == {"__type": "com.amazon.coral.validate#ValidationException",
                         "message": message}, query
    status, error = get_json(endpoint + "/console/api/hottest?table=Nope")
    assert status == 400
    assert error["__type"] == "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
    status, error = get_json(endpoint + "/console/api/coldest")
    assert status == 404 and "UnknownOperationException" in error["__type"]

    r = subprocess.run([os.environ["DYNAROCK_BIN"], "top", "--endpoint", endpoint, "--table",
                        "Nope", "--once"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "ResourceNotFoundException" in r.stderr and "--table Nope" in r.stderr, r.stderr
    # Nothing listens on port 1.
    r = subprocess.run([os.environ["DYNAROCK_BIN"], "top", "--endpoint", "http://127.0.0.1:1",
                        "--once"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "cannot reach http://127.0.0.1:1" in r.stderr, r.stderr
