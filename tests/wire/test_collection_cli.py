"""`dynarock collection`: one item collection rendered in sort-key order,
read through a secondary instance while `dynarock serve` has the database
open, checked against golden renderings of a small fleet."""
import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from urllib.parse import quote

import boto3
import pytest
from botocore.config import Config

from conftest import create_fleet_table, get_json

SERVER = {}  # the module's server: its endpoint


@pytest.fixture(scope="module")
def fleet_db(tmp_path_factory):
    data = str(tmp_path_factory.mktemp("collection") / "fleet.db")
    proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--data-dir", data, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, proc.stderr.read()
    SERVER["endpoint"] = line.split()[4]
    c = boto3.client("dynamodb", endpoint_url=line.split()[4], region_name="us-east-1",
                     aws_access_key_id="local", aws_secret_access_key="local",
                     config=Config(retries={"max_attempts": 1}))
    create_fleet_table(c, "Telemetry")
    # Written in no particular order: the collection comes back by sort key.
    for vehicle, minute, speed in [("VEH#V-7741", 1, 36), ("VEH#V-7742", 0, 12),
                                   ("VEH#V-7741", 0, 30), ("VEH#V-7741", 2, 33.5)]:
        c.put_item(TableName="Telemetry", Item={
            "vehicleId": {"S": vehicle}, "recordedAt": {"S": f"TS#2026-06-23T09:0{minute}:00Z"},
            "speedKph": {"N": str(speed)}, "depotCode": {"S": "DEP-LON-3"}})
    c.put_item(TableName="Telemetry", Item={
        "vehicleId": {"S": "VEH#V-7741"}, "recordedAt": {"S": "META"},
        "model": {"S": "eVan 3"}, "depotCode": {"S": "DEP-LON-3"},
        "tags": {"SS": ["cold-chain", "urban"]}})
    yield data  # the server keeps the database open while the tests read it
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


def collection(db, *args):
    r = subprocess.run([os.environ["DYNAROCK_BIN"], "collection", db, *args],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def test_the_fleet_collection_renders_meta_then_the_readings(fleet_db):
    rc, out, err = collection(fleet_db, "Telemetry", "VEH#V-7741")
    assert rc == 0, err
    assert out == GOLDEN_TABLE


def test_ranges_order_limits_and_columns(fleet_db):
    rc, out, err = collection(fleet_db, "Telemetry", "VEH#V-7741", "--begins-with", "TS#",
                              "--reverse", "--limit", "2", "--attributes", "speedKph")
    assert rc == 0, err
    assert out == GOLDEN_NEWEST_TWO
    rc, out, _ = collection(fleet_db, "Telemetry", "VEH#V-7741", "--from", "TS#2026-06-23T09:01",
                            "--to", "TS#2026-06-23T09:09", "--attributes", "speedKph")
    assert [l.split()[0] for l in out.splitlines()[3:]] == ["TS#2026-06-23T09:01:00Z",
                                                            "TS#2026-06-23T09:02:00Z"]


def test_json_lines_are_dynamodb_json(fleet_db):
    rc, out, err = collection(fleet_db, "Telemetry", "VEH#V-7741", "--json")
    assert rc == 0, err
    items = [json.loads(l) for l in out.splitlines()]
    assert [i["recordedAt"]["S"] for i in items] == [
        "META", "TS#2026-06-23T09:00:00Z", "TS#2026-06-23T09:01:00Z", "TS#2026-06-23T09:02:00Z"]
    assert items[0]["tags"] == {"SS": ["cold-chain", "urban"]}
    assert items[3]["speedKph"] == {"N": "33.5"}


def test_index_collections(fleet_db):
    # The low-cardinality depot key makes one GSI collection of every vehicle.
    rc, out, err = collection(fleet_db, "Telemetry", "DEP-LON-3", "--index", "ByDepot",
                              "--attributes", "vehicleId")
    assert rc == 0, err
    assert out == GOLDEN_DEPOT
    rc, out, err = collection(fleet_db, "Telemetry", "VEH#V-7741", "--index", "BySpeed", "--json")
    assert rc == 0, err
    assert [json.loads(l)["speedKph"]["N"] for l in out.splitlines()] == ["30", "33.5", "36"]


def test_the_largest_collections_of_the_table_and_of_each_index(fleet_db):
    r = subprocess.run([os.environ["DYNAROCK_BIN"], "collections", fleet_db, "Telemetry",
                        "--limit", "2"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == GOLDEN_COLLECTIONS
    # The sizes the headers name are DescribeTable's.
    c = boto3.client("dynamodb", endpoint_url=SERVER["endpoint"], region_name="us-east-1",
                     aws_access_key_id="local", aws_secret_access_key="local")
    t = c.describe_table(TableName="Telemetry")["Table"]
    assert t["TableSizeBytes"] == 402
    assert {i["IndexName"]: i["IndexSizeBytes"] for i in
            t["LocalSecondaryIndexes"] + t["GlobalSecondaryIndexes"]} == {"BySpeed": 249,
                                                                          "ByDepot": 402}


def test_the_console_api_gives_the_same_figures(fleet_db):
    endpoint = SERVER["endpoint"]
    status, largest = get_json(endpoint + "/console/api/largest?table=Telemetry&limit=2")
    assert status == 200, largest
    vehicle = lambda v: {"vehicleId": {"S": v}}
    assert largest == {"TableName": "Telemetry", "Collections": [
        {"Key": vehicle("VEH#V-7741"), "ItemCount": 4, "SizeBytes": 809},
        {"Key": vehicle("VEH#V-7742"), "ItemCount": 1, "SizeBytes": 242},
        {"IndexName": "BySpeed", "Key": vehicle("VEH#V-7741"), "ItemCount": 3, "SizeBytes": 187},
        {"IndexName": "BySpeed", "Key": vehicle("VEH#V-7742"), "ItemCount": 1, "SizeBytes": 62},
        {"IndexName": "ByDepot", "Key": {"depotCode": {"S": "DEP-LON-3"}}, "ItemCount": 5,
         "SizeBytes": 402}]}
    about = endpoint + "/console/api/collection?table=Telemetry&key="
    assert get_json(about + quote('{"S":"VEH#V-7741"}')) == (200, {
        "ItemCount": 4, "SizeBytes": 809, "SizeLimited": True, "SstFiles": 0, "Levels": []})
    assert get_json(about + quote('{"S":"DEP-LON-3"}') + "&index=ByDepot") == (200, {
        "SizeLimited": True, "SstFiles": 0, "Levels": []})
    for query, kind, message in [
            ("table=Telemetry", "ValidationException", "Parameters 'table' and 'key' are required"),
            ("table=Telemetry&key=VEH", "ValidationException",
             "Parameter 'key' must be the partition key value in DynamoDB JSON, such as "
             '{"S":"VEH#V-7741"}: '),
            ("table=Telemetry&key=" + quote('{"N":"1"}'), "ValidationException",
             "The partition key vehicleId is of type S, not N"),
            ("table=Nope&key=" + quote('{"S":"x"}'), "ResourceNotFoundException", "")]:
        status, error = get_json(endpoint + "/console/api/collection?" + query)
        assert status == 400 and error["__type"].endswith("#" + kind), (query, error)
        assert error["message"].startswith(message), (query, error)
    status, error = get_json(endpoint + "/console/api/largest?limit=3")
    assert (status, error["message"]) == (400, "Parameter 'table' is required")
    assert get_json(endpoint + "/console/api/config") == (200, {
        "Region": "us-east-1", "Auth": False, "Writes": False})


def test_the_console_pages_are_served_with_their_policy(fleet_db):
    endpoint = SERVER["endpoint"]
    with urllib.request.urlopen(endpoint + "/console", timeout=30) as r:  # redirected
        assert r.url == endpoint + "/console/" and r.status == 200
        assert r.headers["Content-Type"] == "text/html; charset=utf-8"
        csp = r.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp
        assert "frame-ancestors 'none'" in csp
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert b'<script type="module" src="console.js"></script>' in r.read()
    for name, kind in [("console.js", "text/javascript"), ("core.js", "text/javascript"),
                       ("admin.js", "text/javascript"), ("console.css", "text/css")]:
        with urllib.request.urlopen(endpoint + "/console/" + name, timeout=30) as r:
            assert r.headers["Content-Type"] == kind + "; charset=utf-8"
            assert r.read() == open(os.path.join(CONSOLE, name), "rb").read()
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(endpoint + "/console/secrets.txt", timeout=30)
    assert missing.value.code == 404
    # A path near the console's is unknown (404), not the health check.
    with pytest.raises(urllib.error.HTTPError) as near:
        urllib.request.urlopen(endpoint + "/consoles", timeout=30)
    assert near.value.code == 404


CONSOLE = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "console")


def test_errors_name_the_table_key_and_what_to_do(fleet_db):
    rc, _, err = collection(fleet_db, "Nope", "VEH#V-7741")
    assert rc == 1 and "Nope" in err and "ListTables" in err
    rc, _, err = collection(fleet_db, "Telemetry", "VEH#V-7741", "--index", "ByColour")
    assert rc == 1 and err == "error: table Telemetry has no index ByColour\n"
    rc, _, err = collection(fleet_db, "Telemetry", "x", "--index", "BySpeed", "--from", "fast")
    assert rc == 1 and err == "error: speedKph is a number; 'fast' is not one\n"


# Sizes are DynamoDB's (names + values; 33.5 is 3 bytes); the collection's
# size adds its LSI entries (each its size + 100): 322 + 487 = 809.
HEADER = ("Telemetry  vehicleId = VEH#V-7741  4 items, 809 B with LSI entries (under 0.01% of "
          "the 10 GB LSI limit)  0 SST files (in memtables)\n")
GOLDEN_TABLE = HEADER + """\
recordedAt               size  depotCode  model   tags                           speedKph
META                       81  DEP-LON-3  eVan 3  {"SS":["cold-chain","urban"]}
TS#2026-06-23T09:00:00Z    80  DEP-LON-3                                         30
TS#2026-06-23T09:01:00Z    80  DEP-LON-3                                         36
TS#2026-06-23T09:02:00Z    81  DEP-LON-3                                         33.5
"""
GOLDEN_NEWEST_TWO = HEADER + """\
showing 2 items, newest first
recordedAt               size  speedKph
TS#2026-06-23T09:02:00Z    81  33.5
TS#2026-06-23T09:01:00Z    80  36
"""
GOLDEN_DEPOT = """\
Telemetry.ByDepot  depotCode = DEP-LON-3  5 entries read, 402 B  0 SST files (in memtables)
recordedAt               size  vehicleId
META                       81  VEH#V-7741
TS#2026-06-23T09:00:00Z    80  VEH#V-7741
TS#2026-06-23T09:00:00Z    80  VEH#V-7742
TS#2026-06-23T09:01:00Z    80  VEH#V-7741
TS#2026-06-23T09:02:00Z    81  VEH#V-7741
"""
# Each header says what its sizes count. The table's 5 items hold 402 B
# (DescribeTable's TableSizeBytes); a table collection's size counts its
# LSI entries too, at 100 B more each, as the 10 GB limit does: 402 + 249
# + 4 x 100 = 809 + 242 = 1,051 B, the total its share is of. The depot
# GSI holds every vehicle's readings in one collection.
GOLDEN_COLLECTIONS = """\
largest collections of Telemetry: 5 items, 402 B (its TableSizeBytes)
  sizes count each item with its LSI entries (+100 B each), as the 10 GB collection limit does: 1.05 kB in all
  vehicleId   items   size  share
  VEH#V-7741      4  809 B  77.0%
  VEH#V-7742      1  242 B  23.0%

largest collections of Telemetry.BySpeed: 4 entries, 249 B (its IndexSizeBytes)
  vehicleId   items   size  share
  VEH#V-7741      3  187 B  75.1%
  VEH#V-7742      1   62 B  24.9%

largest collections of Telemetry.ByDepot: 5 entries, 402 B (its IndexSizeBytes)
  depotCode  items   size   share
  DEP-LON-3      5  402 B  100.0%
"""


def test_a_multi_attribute_gsi_collection_is_named_by_all_its_partition_values(fleet_db):
    c = boto3.client("dynamodb", endpoint_url=SERVER["endpoint"], region_name="us-east-1",
                     aws_access_key_id="local", aws_secret_access_key="local")
    keys = [{"AttributeName": n, "KeyType": t} for n, t in
            [("tournamentId", "HASH"), ("region", "HASH"), ("round", "RANGE"), ("bracket", "RANGE")]]
    c.create_table(
        TableName="Matches", KeySchema=[{"AttributeName": "matchId", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t} for n, t in
                              [("matchId", "S"), ("tournamentId", "S"), ("region", "S"),
                               ("round", "N"), ("bracket", "S")]],
        GlobalSecondaryIndexes=[{"IndexName": "ByBracket", "KeySchema": keys,
                                 "Projection": {"ProjectionType": "ALL"}}],
        BillingMode="PAY_PER_REQUEST")
    for i, (t, r, rnd, b) in enumerate([("WINTER", "EU", 2, "UP"), ("WINTER", "EU", 1, "LOW"),
                                        ("WINTER", "NA", 1, "UP"), ("WINTER", "EU", 1, "UP")]):
        c.put_item(TableName="Matches", Item={
            "matchId": {"S": "m%d" % i}, "tournamentId": {"S": t}, "region": {"S": r},
            "round": {"N": str(rnd)}, "bracket": {"S": b}})
    rc, out, err = collection(fleet_db, "Matches", "WINTER", "EU", "--index", "ByBracket",
                              "--json")
    assert rc == 0, err
    # By round, then bracket: the index order.
    assert [json.loads(l)["matchId"]["S"] for l in out.splitlines()] == ["m1", "m3", "m0"]
    rc, out, err = collection(fleet_db, "Matches", "WINTER", "EU", "--index", "ByBracket",
                              "--from", "2")
    assert rc == 0, err
    assert out.startswith("Matches.ByBracket  tournamentId = WINTER, region = EU  1 entries read")
    rc, out, err = collection(fleet_db, "Matches", "WINTER", "--index", "ByBracket")
    assert rc == 1
    assert "Matches.ByBracket is keyed by 2 partition key attributes (tournamentId, region): " \
        "give 2 values, not 1" in err
    r = subprocess.run([os.environ["DYNAROCK_BIN"], "collections", fleet_db, "Matches"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "tournamentId, region" in r.stdout and "WINTER, EU" in r.stdout
    # The console's API: a list of values names the collection.
    endpoint = SERVER["endpoint"]
    status, largest = get_json(endpoint + "/console/api/largest?table=Matches")
    assert status == 200
    index = [(x["Key"], x["ItemCount"]) for x in largest["Collections"]
             if x.get("IndexName") == "ByBracket"]
    assert index == [({"tournamentId": {"S": "WINTER"}, "region": {"S": "EU"}}, 3),
                     ({"tournamentId": {"S": "WINTER"}, "region": {"S": "NA"}}, 1)]
    about = endpoint + "/console/api/collection?table=Matches&index=ByBracket&key="
    status, body = get_json(about + quote('[{"S":"WINTER"},{"S":"EU"}]'))
    assert status == 200, body
    status, error = get_json(about + quote('{"S":"WINTER"}'))
    assert status == 400 and error["message"] == \
        "The collection is named by 2 partition key values, not 1"
    status, error = get_json(about + quote("[]"))
    assert status == 400 and "1 to 4, not 0" in error["message"]


def test_table_cells_escape_control_characters_and_summarize_long_values(fleet_db):
    c = boto3.client("dynamodb", endpoint_url=SERVER["endpoint"], region_name="us-east-1",
                     aws_access_key_id="local", aws_secret_access_key="local")
    c.create_table(TableName="Notes", BillingMode="PAY_PER_REQUEST",
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "sk", "KeyType": "RANGE"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "S"}])
    c.put_item(TableName="Notes", Item={
        "pk": {"S": "n"}, "sk": {"S": "a"}, "text": {"S": "line one\nline\ttwo\x1b"},
        "readings": {"L": [{"N": str(i)} for i in range(30)]},
        "tags": {"SS": ["x", "y"]}})
    rc, out, err = collection(fleet_db, "Notes", "n")
    assert rc == 0, err
    lines = out.splitlines()
    assert len(lines) == 3, out  # the header, the columns, one row: nothing broke it
    row = lines[2]
    assert "line one\\nline\\ttwo\\x1b" in row
    # A list too long for its cell is named by its shape, never cut mid-JSON;
    # a short value is its DynamoDB JSON.
    assert "L: 30 elements" in row and '{"SS":["x","y"]}' in row
