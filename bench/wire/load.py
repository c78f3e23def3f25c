"""bench/wire/run.sh's load: the Telemetry table with the ByDepot GSI, then
ITEMS readings (keys TS#000000001.., vehicle n % 2000, depot n % 50) in
BatchWriteItem requests of 25, eight at a time, unprocessed items retried.

    python3 bench/wire/load.py PORT ITEMS
"""
import json
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor

port, items = int(sys.argv[1]), int(sys.argv[2])
HEADERS = {"Content-Type": "application/x-amz-json-1.0",
           "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/"
                            "aws4_request, SignedHeaders=host;x-amz-date, Signature=00",
           "X-Amz-Date": "20261130T000000Z"}


def call(operation, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/", data=json.dumps(body).encode(),
                                 headers=dict(HEADERS, **{"X-Amz-Target": "DynamoDB_20120810." + operation}))
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)


call("CreateTable", {
    "TableName": "Telemetry",
    "KeySchema": [{"AttributeName": "vehicleId", "KeyType": "HASH"},
                  {"AttributeName": "recordedAt", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"}
                             for a in ("vehicleId", "recordedAt", "depotCode")],
    "GlobalSecondaryIndexes": [{"IndexName": "ByDepot",
                                "KeySchema": [{"AttributeName": "depotCode", "KeyType": "HASH"},
                                              {"AttributeName": "recordedAt", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "ALL"}}],
    "BillingMode": "PAY_PER_REQUEST"})


def batch(first):
    requests = [{"PutRequest": {"Item": {
        "vehicleId": {"S": f"VEH#V-{n % 2000:04d}"}, "recordedAt": {"S": f"TS#{n:09d}"},
        "speedKph": {"N": str(n % 130)}, "coolantC": {"N": "91"}, "fuelPct": {"N": "55"},
        "depotCode": {"S": f"DEP-{n % 50:02d}"}}}} for n in range(first, min(first + 25, items + 1))]
    while requests:
        out = call("BatchWriteItem", {"RequestItems": {"Telemetry": requests}})
        requests = out.get("UnprocessedItems", {}).get("Telemetry", [])


with ThreadPoolExecutor(8) as pool:
    list(pool.map(batch, range(1, items + 1, 25)))
