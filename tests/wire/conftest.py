"""Fixtures for the wire tests: a `dynarock serve --in-memory` on a free
loopback port for the whole session, and boto3 clients pointed at it."""
import contextlib
import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
import uuid

import boto3
import pytest
from botocore.config import Config


@contextlib.contextmanager
def serve(*flags):
    """A `dynarock serve --in-memory` of its own on a free loopback port,
    with extra `flags`: yields its endpoint URL, then stops it and checks
    that it stopped cleanly."""
    binary = os.environ["DYNAROCK_BIN"]
    proc = subprocess.Popen([binary, "serve", "--in-memory", "--port", "0", *flags],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # "dynarock serving DynamoDB on http://127.0.0.1:PORT ..."
    assert "serving" in line, proc.stderr.read()
    try:
        yield line.split()[4]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, "the server did not stop cleanly"


@pytest.fixture(scope="session")
def endpoint():
    with serve() as url:
        yield url


@pytest.fixture(scope="session")
def dynamodb(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="local", aws_secret_access_key="local",
                        config=Config(retries={"max_attempts": 1}))


@pytest.fixture(scope="session")
def resource(endpoint):
    return boto3.resource("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="local", aws_secret_access_key="local")


def create_fleet_table(client, name):
    """The fleet example's table: vehicleId/recordedAt, a ByDepot GSI and a BySpeed LSI."""
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "vehicleId", "KeyType": "HASH"},
                   {"AttributeName": "recordedAt", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "vehicleId", "AttributeType": "S"},
                              {"AttributeName": "recordedAt", "AttributeType": "S"},
                              {"AttributeName": "depotCode", "AttributeType": "S"},
                              {"AttributeName": "speedKph", "AttributeType": "N"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "ByDepot",
            "KeySchema": [{"AttributeName": "depotCode", "KeyType": "HASH"},
                          {"AttributeName": "recordedAt", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{
            "IndexName": "BySpeed",
            "KeySchema": [{"AttributeName": "vehicleId", "KeyType": "HASH"},
                          {"AttributeName": "speedKph", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        BillingMode="PAY_PER_REQUEST")


@pytest.fixture
def fleet_table(dynamodb):
    name = "Telemetry-" + uuid.uuid4().hex[:8]
    create_fleet_table(dynamodb, name)
    yield name
    dynamodb.delete_table(TableName=name)


def get_json(url, headers=None):
    """A GET (the console API): (HTTP status, the JSON body), errors included."""
    r = urllib.request.Request(url, method="GET", headers=headers or {})
    try:
        with urllib.request.urlopen(r, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def pytest_configure(config):
    config.addinivalue_line("markers", "serve(*args): extra `dynarock serve` flags for `server`")
