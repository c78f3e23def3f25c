"""The HTTP layer itself: unknown targets, bad JSON, malformed HTTP and
oversized bodies get DynamoDB's error and the server keeps serving."""
import json
import socket
import urllib.request
import zlib
from urllib.parse import urlparse

from rawhttp import raw


def post(endpoint, target, body, content_type="application/x-amz-json-1.0"):
    req = urllib.request.Request(endpoint, data=body, method="POST",
                                 headers={"X-Amz-Target": target, "Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_unknown_operation(endpoint):
    status, _, body = post(endpoint, "DynamoDB_20120810.Frobnicate", b"{}")
    assert status == 400
    assert json.loads(body) == {"__type": "com.amazon.coral.service#UnknownOperationException"}
    # A DynamoDB operation Dynarock does not serve is refused the same way,
    # with a Message that says what to use instead.
    for op, word in [("CreateBackup", "ExportTableToPointInTime"),
                     ("CreateGlobalTable", "Alternator"),
                     ("EnableKinesisStreamingDestination", "DynamoDB Streams"),
                     ("DescribeContributorInsights", "dynarock top")]:
        status, _, body = post(endpoint, "DynamoDB_20120810." + op, b'{"TableName": "abc"}')
        answer = json.loads(body)
        assert status == 400 and answer["__type"] == "com.amazon.coral.service#UnknownOperationException"
        assert answer["Message"].startswith("Dynarock does not serve " + op + ": ") and word in answer["Message"]


def test_bad_json_is_serialization_exception(endpoint):
    status, headers, body = post(endpoint, "DynamoDB_20120810.ListTables", b"{not json")
    assert status == 400
    assert json.loads(body)["__type"] == "com.amazon.coral.service#SerializationException"
    assert int(headers["x-amz-crc32"]) == zlib.crc32(body)
    assert headers["x-amzn-RequestId"]


def test_validation_namespace(endpoint):
    status, _, body = post(endpoint, "DynamoDB_20120810.GetItem", b'{"TableName": "ab", "Key": {}}')
    assert status == 400
    error = json.loads(body)
    assert error["__type"] == "com.amazon.coral.validate#ValidationException"
    assert error["message"].startswith("1 validation error detected: Value 'ab' at 'tableName'")
    # Table operations word a short name the same way (DynamoDB today).
    status, _, body = post(endpoint, "DynamoDB_20120810.DescribeTable", b'{"TableName": "ab"}')
    assert json.loads(body)["message"] == (
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: "
        "Member must have length greater than or equal to 3")


def test_requests_that_crashed_the_server_are_serialization_errors(endpoint):
    # Issue 22: both ended `dynarock serve` with SIGSEGV (exit 139).
    for target, body in [("TransactWriteItems", b'{"TransactItems":[1]}'),
                         ("BatchWriteItem", b'{"RequestItems":{"t":[1,2]}}')]:
        status, _, answer = post(endpoint, "DynamoDB_20120810." + target, body)
        assert status == 400
        assert json.loads(answer) == {
            "__type": "com.amazon.coral.service#SerializationException",
            "Message": "Unexpected value type in payload"}
    status, _, _ = post(endpoint, "DynamoDB_20120810.ListTables", b"{}")
    assert status == 200


def test_condition_failure_returns_the_old_item(endpoint):
    # Debian's botocore predates ReturnValuesOnConditionCheckFailure on PutItem: raw HTTP.
    table = {"TableName": "rvoccf", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
             "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
             "BillingMode": "PAY_PER_REQUEST"}
    assert post(endpoint, "DynamoDB_20120810.CreateTable", json.dumps(table).encode())[0] == 200
    item = {"k": {"S": "a"}, "v": {"N": "7"}}
    put = {"TableName": "rvoccf", "Item": item}
    assert post(endpoint, "DynamoDB_20120810.PutItem", json.dumps(put).encode())[0] == 200
    put.update(ConditionExpression="attribute_not_exists(k)", ReturnValuesOnConditionCheckFailure="ALL_OLD")
    status, _, body = post(endpoint, "DynamoDB_20120810.PutItem", json.dumps(put).encode())
    error = json.loads(body)
    assert status == 400
    assert error["__type"] == "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException"
    assert error["Item"] == item


def test_malformed_http_and_oversized_body_then_still_serving(endpoint):
    url = urlparse(endpoint)
    with socket.create_connection((url.hostname, url.port), timeout=30) as s:
        s.sendall(b"THIS IS NOT HTTP\r\n\r\n")
        s.recv(1024)  # the server closes or answers; it must not crash
    with socket.create_connection((url.hostname, url.port), timeout=30) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                  b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 16777300\r\n\r\n{")
        reply = s.recv(65536)
    assert reply.startswith(b"HTTP/1.1 413")
    assert reply.endswith(b"\r\n\r\n")  # VALIDATION.md 1a: an empty body
    status, _, body = post(endpoint, "DynamoDB_20120810.ListTables", b"{}")
    assert status == 200 and "TableNames" in json.loads(body)


def test_workers_option(tmp_path):
    """--workers 1 still serves several keep-alive connections at once (every
    session is asynchronous); --workers 0 is refused before anything starts."""
    import os
    import signal
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    import boto3
    from botocore.config import Config

    binary = os.environ["DYNAROCK_BIN"]
    refused = subprocess.run([binary, "serve", "--data-dir", str(tmp_path / "x"), "--workers", "0"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0
    assert "--workers" in refused.stderr
    assert not (tmp_path / "x").exists()

    proc = subprocess.Popen([binary, "serve", "--in-memory", "--port", "0", "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, proc.stderr.read()
    url = line.split()[4]

    def client():
        return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                            aws_access_key_id="local", aws_secret_access_key="local",
                            config=Config(retries={"max_attempts": 1}))
    client().create_table(TableName="Tpool", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                          BillingMode="PAY_PER_REQUEST")

    def writer(w):
        c = client()
        for i in range(25):
            c.put_item(TableName="Tpool", Item={"k": {"S": f"{w}-{i}"}})

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(writer, range(4)))
    assert client().describe_table(TableName="Tpool")["Table"]["ItemCount"] == 100
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


def test_http_framing_as_dynamodb_answers_it(endpoint):
    # GET / is the health check, naming the host it was reached by (as
    # DynamoDB's names dynamodb.<region>.amazonaws.com); other GET paths,
    # other methods and media types are unknown operations (404); CORS
    # answers expose the headers an SDK reads.
    status, headers, body = raw(endpoint, b"GET / HTTP/1.1\r\nHost: localhost:8000\r\n\r\n")
    assert status == 200 and body == b"healthy: localhost:8000 "
    assert int(headers["x-amz-crc32"]) == zlib.crc32(body)
    status, _, body = raw(endpoint, b"GET /any/path HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert (status, body) == (404, b"<UnknownOperationException/>\n")
    status, headers, body = raw(
        endpoint, b"OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:3000\r\n"
                  b"Access-Control-Request-Method: POST\r\n"
                  b"Access-Control-Request-Headers: content-type,x-amz-target\r\n\r\n")
    assert (status, body) == (200, b"")
    # Without --auth, a loopback page is let in by name (test_security.py
    # has the foreign ones).
    assert headers["access-control-allow-origin"] == "http://localhost:3000"
    assert headers["vary"] == "Origin"
    assert headers["access-control-max-age"] == "172800"
    assert headers["access-control-allow-methods"] == "POST"
    assert headers["access-control-allow-headers"] == "content-type,x-amz-target"
    for request in [b"PUT / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}",
                    b"OPTIONS / HTTP/1.1\r\nHost: localhost\r\n\r\n",
                    b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
                    b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n\r\n{}"]:
        status, headers, body = raw(endpoint, request)
        assert (status, body) == (404, b"<UnknownOperationException/>\n"), request
        assert int(headers["x-amz-crc32"]) == 3552371480
    # A loopback page's POST is served and readable by it; the answer is typed as asked.
    status, headers, body = raw(
        endpoint, b"POST / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:3000\r\n"
                  b"Content-Type: application/json; charset=utf-8\r\n"
                  b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n\r\n{}")
    assert status == 200 and "TableNames" in json.loads(body)
    assert headers["access-control-allow-origin"] == "http://localhost:3000"
    assert headers["content-type"] == "application/json"
