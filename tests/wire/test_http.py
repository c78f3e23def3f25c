"""HTTP conventions of `dynarock serve` that clients rely on: gzip/deflate
request bodies (bounded after decoding), compressed answers, Server and
Date headers, header limits, authentication before a large body is read,
a memory budget for uploads, and engine work off the I/O threads (a GSI
backfill runs in the background while the table keeps serving)."""
import datetime
import email.utils
import gzip
import json
import os
import signal
import subprocess
import threading
import time
import uuid
import zlib
from urllib.parse import urlparse

import pytest
from rawhttp import connect, read_response


def head(target, length, extra=b""):
    return (b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810." +
            target.encode() + b"\r\nContent-Type: application/x-amz-json-1.0\r\n" + extra +
            b"Content-Length: " + str(length).encode() + b"\r\n\r\n")


def exchange(endpoint, target, body, extra=b""):
    with connect(endpoint) as s:
        s.sendall(head(target, len(body), extra) + body)
        return read_response(s)


def start_server(*args):
    proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--in-memory", "--port", "0",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, proc.stderr.read()
    return proc, line.split()[4]


def stop_server(proc):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


@pytest.fixture
def table(dynamodb):
    name = "Http-" + uuid.uuid4().hex[:8]
    dynamodb.create_table(TableName=name, KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")
    yield name
    dynamodb.delete_table(TableName=name)


def put_body(table, key, value="v"):
    return json.dumps({"TableName": table, "Item": {"k": {"S": key}, "a": {"S": value}}}).encode()


def test_gzip_and_deflate_request_bodies_are_decoded(endpoint, dynamodb, table):
    raw_deflate = zlib.compressobj(wbits=-15)
    cases = {
        "gz": (b"gzip", gzip.compress(put_body(table, "gz"))),
        "xgz": (b"x-gzip", gzip.compress(put_body(table, "xgz"))),
        "zlib": (b"deflate", zlib.compress(put_body(table, "zlib"))),
        "raw": (b"deflate", raw_deflate.compress(put_body(table, "raw")) + raw_deflate.flush()),
        "two": (b"gzip, identity", gzip.compress(put_body(table, "two"))),
        "layered": (b"deflate, gzip", gzip.compress(zlib.compress(put_body(table, "layered")))),
    }
    for key, (coding, body) in cases.items():
        status, _, answer = exchange(endpoint, "PutItem", body, b"Content-Encoding: " + coding + b"\r\n")
        assert status == 200, (key, answer)
        item = dynamodb.get_item(TableName=table, Key={"k": {"S": key}})["Item"]
        assert item["a"] == {"S": "v"}, key


def test_bad_encodings_are_refused_and_change_nothing(endpoint, dynamodb, table):
    good = gzip.compress(put_body(table, "bad"))
    # A body that does not decode is an internal error (500), as DynamoDB
    # answers it (the independent suites checked against it expect 500).
    for coding, body in [(b"gzip", good[:-9]),          # truncated
                         (b"gzip", good + b"junk"),     # trailing bytes
                         (b"gzip", put_body(table, "bad")),  # not gzip at all
                         (b"deflate", b"\x00\x01garbage")]:
        status, _, answer = exchange(endpoint, "PutItem", body, b"Content-Encoding: " + coding + b"\r\n")
        assert status == 500, (coding, answer)
        assert json.loads(answer)["__type"] == "com.amazonaws.dynamodb.v20120810#InternalServerError"
    # A coding we do not decode at all is the client's error.
    for coding in [b"br", b"gzip, gzip, gzip, gzip, gzip"]:
        status, _, answer = exchange(endpoint, "PutItem", good, b"Content-Encoding: " + coding + b"\r\n")
        assert status == 400, (coding, answer)
        assert json.loads(answer)["__type"] == "com.amazon.coral.service#SerializationException"
    assert "Item" not in dynamodb.get_item(TableName=table, Key={"k": {"S": "bad"}})


def test_decompression_bomb_is_413_and_the_server_keeps_serving(endpoint, dynamodb, table):
    # 40 KB of gzip that would inflate to 40 MB: refused once it passes 16 MB.
    bomb = gzip.compress(b'{"TableName": "' + table.encode() + b'", "x": "' + b"0" * (40 << 20) + b'"}')
    assert len(bomb) < 100_000
    status, headers, answer = exchange(endpoint, "PutItem", bomb, b"Content-Encoding: gzip\r\n")
    assert (status, answer) == (413, b"")
    assert "x-amzn-requestid" in headers
    # Exactly at the bound after decoding is still read (and refused by
    # DynamoDB's own rules, not by the size check).
    at_bound = b'{"TableName": "' + table.encode() + b'", "Item": {"k": {"S": "x"}}, "Pad": "'
    at_bound += b"0" * ((16 << 20) - len(at_bound) - 2) + b'"}'
    assert len(at_bound) == 16 << 20
    status, _, answer = exchange(endpoint, "PutItem", gzip.compress(at_bound), b"Content-Encoding: gzip\r\n")
    assert status != 413 and answer, answer
    assert dynamodb.get_item(TableName=table, Key={"k": {"S": "x"}}) is not None


def test_answers_are_compressed_when_the_client_accepts_it(endpoint, dynamodb, table):
    dynamodb.put_item(TableName=table, Item={"k": {"S": "big"}, "a": {"S": "x" * 2000}})
    body = json.dumps({"TableName": table}).encode()
    status, headers, answer = exchange(endpoint, "Scan", body, b"Accept-Encoding: gzip, deflate\r\n")
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert int(headers["x-amz-crc32"]) == zlib.crc32(answer)  # of the bytes sent
    assert json.loads(gzip.decompress(answer))["Items"][0]["k"] == {"S": "big"}
    status, headers, answer = exchange(endpoint, "Scan", body, b"Accept-Encoding: deflate\r\n")
    assert headers["content-encoding"] == "deflate"
    assert json.loads(zlib.decompress(answer))["Count"] == 1
    for refused in [b"gzip;q=0, deflate;q=0.000", b"identity", b"br"]:
        status, headers, answer = exchange(endpoint, "Scan", body,
                                           b"Accept-Encoding: " + refused + b"\r\n")
        assert "content-encoding" not in headers, refused
        assert json.loads(answer)["Count"] == 1
    # Small answers, errors included, go uncompressed whatever the client
    # accepts, as DynamoDB sends them (botocore reads a small answer as JSON).
    for target, small in [("DescribeTable", body), ("ListTables", b"{}"),
                          ("DescribeTable", b'{"TableName": "nope-x"}')]:
        status, headers, answer = exchange(endpoint, target, small, b"Accept-Encoding: *\r\n")
        assert "content-encoding" not in headers and json.loads(answer), target


def test_server_date_and_request_id_headers(endpoint):
    status, headers, _ = exchange(endpoint, "ListTables", b"{}")
    assert status == 200
    assert headers["server"] == "Server"
    sent = email.utils.parsedate_to_datetime(headers["date"])
    assert headers["date"].endswith(" GMT")
    assert abs((datetime.datetime.now(datetime.timezone.utc) - sent).total_seconds()) < 120
    assert len(headers["x-amzn-requestid"]) == 52


def test_oversized_headers_and_garbage_are_400_and_the_connection_closes(endpoint):
    with connect(endpoint) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * (70 << 10) + b"\r\n\r\n")
        status, headers, body = read_response(s)
        assert (status, body) == (400, b"")
        assert headers.get("connection") == "close"
        assert s.recv(1) == b""
    with connect(endpoint) as s:
        s.sendall(b"\x16\x03\x01\x02\x00 not http\r\n\r\n")  # e.g. a TLS hello
        status, _, _ = read_response(s)
        assert status == 400
    status, _, _ = exchange(endpoint, "ListTables", b"{}")
    assert status == 200


@pytest.fixture(scope="module")
def auth_server():
    proc, url = start_server("--auth", "AKIDLOCAL:s3cret")
    yield url
    stop_server(proc)


def test_unauthenticated_large_body_is_refused_before_it_is_read(auth_server):
    # Only the head of a 10 MB upload: the answer comes without the body.
    with connect(auth_server, timeout=10) as s:
        s.sendall(head("PutItem", 10 << 20))
        status, headers, body = read_response(s)
        assert status == 400
        assert json.loads(body)["__type"].endswith("MissingAuthenticationTokenException")
        assert headers.get("connection") == "close"
    # With Expect: 100-continue the client learns it before sending anything.
    with connect(auth_server, timeout=10) as s:
        s.sendall(head("PutItem", 10 << 20, b"Expect: 100-continue\r\n"))
        status, _, body = read_response(s)
        assert status == 400
    # A small unauthenticated body keeps DynamoDB's order: bad JSON first.
    status, _, body = exchange(auth_server, "PutItem", b"{not json")
    assert status == 400 and json.loads(body)["__type"].endswith("SerializationException")


def test_signed_large_body_gets_100_continue_then_is_served(auth_server):
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    body = json.dumps({"TableName": "Nope", "Item": {"k": {"S": "p" * (200 << 10)}}}).encode()
    req = AWSRequest(method="POST", url=auth_server, data=body, headers={
        "X-Amz-Target": "DynamoDB_20120810.PutItem",
        "Content-Type": "application/x-amz-json-1.0", "Expect": "100-continue"})
    SigV4Auth(Credentials("AKIDLOCAL", "s3cret"), "dynamodb", "us-east-1").add_auth(req)
    url = urlparse(auth_server)
    lines = ["POST / HTTP/1.1", f"Host: {url.hostname}:{url.port}"]
    lines += [f"{k}: {v}" for k, v in req.headers.items() if k.lower() != "host"]
    lines += [f"Content-Length: {len(body)}"]
    with connect(auth_server, timeout=10) as s:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        interim = s.recv(4096)
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), interim
        s.sendall(body)
        status, _, answer = read_response(s)
        # Authentic: the engine answers (there is no such table).
        assert status == 400, answer
        assert json.loads(answer)["__type"].endswith("ResourceNotFoundException"), answer


def vm_hwm_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


# Peak resident memory of the server while 256 connections each upload
# 16 MB at once (4 GB if every body were buffered together). The stated
# budget: 256 MB of bodies (--max-buffered-mb) plus the process's own
# (larger under AddressSanitizer, which keeps freed memory in quarantine).
RSS_BUDGET_MB = 1024


def test_peak_rss_under_256_uploads_of_16_mb(tmp_path):
    proc, url = start_server("--max-buffered-mb", "256")
    try:
        base = vm_hwm_kb(proc.pid)
        body = b"[" + b" " * ((16 << 20) - 2) + b"]"  # 16 MB, refused at its end (not an object)
        errors = []
        statuses = []

        def upload():
            try:
                with connect(url, timeout=120) as s:
                    s.sendall(head("ListTables", len(body)))
                    s.sendall(body)
                    statuses.append(read_response(s)[0])
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))
        threads = [threading.Thread(target=upload) for _ in range(256)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not errors, errors[:3]
        assert statuses == [400] * 256
        peak_mb = vm_hwm_kb(proc.pid) // 1024
        print(f"peak RSS {peak_mb} MB (at start {base // 1024} MB) for 256 x 16 MB uploads")
        assert peak_mb < RSS_BUDGET_MB
    finally:
        stop_server(proc)


def test_gsi_backfill_runs_in_the_background_while_the_table_serves(endpoint, dynamodb):
    name = "Backfill-" + uuid.uuid4().hex[:8]
    dynamodb.create_table(TableName=name,
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                     {"AttributeName": "sk", "KeyType": "RANGE"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                {"AttributeName": "sk", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")
    for b in range(200):
        dynamodb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {"pk": {"S": f"VEH#{i % 97}"}, "sk": {"S": f"TS#{b:04}-{i:02}"},
                                     "depotCode": {"S": f"DEP-{i % 3}"}}}} for i in range(25)]})
    out = dynamodb.update_table(
        TableName=name, AttributeDefinitions=[{"AttributeName": "depotCode", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "ByDepot", "KeySchema": [{"AttributeName": "depotCode", "KeyType": "HASH"},
                                                  {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}}])["TableDescription"]
    gsi = out["GlobalSecondaryIndexes"][0]
    assert (gsi["IndexStatus"], gsi["Backfilling"], out["TableStatus"]) == ("CREATING", True, "UPDATING")
    # The table serves reads and writes during the backfill; the index
    # refuses reads until it is ACTIVE.
    dynamodb.put_item(TableName=name, Item={"pk": {"S": "VEH#new"}, "sk": {"S": "TS#9999"},
                                            "depotCode": {"S": "DEP-0"}})
    assert dynamodb.get_item(TableName=name, Key={"pk": {"S": "VEH#new"}, "sk": {"S": "TS#9999"}})["Item"]
    deadline = time.time() + 120
    while True:
        t = dynamodb.describe_table(TableName=name)["Table"]
        if t["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE":
            break
        assert t["TableStatus"] == "UPDATING"
        assert time.time() < deadline
        time.sleep(0.05)
    assert t["TableStatus"] == "ACTIVE"
    assert "Backfilling" not in t["GlobalSecondaryIndexes"][0] or not t["GlobalSecondaryIndexes"][0]["Backfilling"]
    count = 0
    kwargs = {"TableName": name, "IndexName": "ByDepot", "KeyConditionExpression": "depotCode = :d",
              "ExpressionAttributeValues": {":d": {"S": "DEP-0"}}, "Select": "COUNT"}
    while True:
        page = dynamodb.query(**kwargs)
        count += page["Count"]
        if "LastEvaluatedKey" not in page:
            break
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    assert count == 200 * 9 + 1  # i % 3 == 0 for 9 of every 25, plus the one written meanwhile
    dynamodb.delete_table(TableName=name)
