"""What an attacker tries against `dynarock serve` and the CLI, refused:
S3 keys and prefixes that would leave --s3-dir (or dump's output folder),
symbolic links inside it, pages from foreign origins, and rebound Host
names. Each check walks the folders around the roots before and after, and
asserts that nothing outside them changed."""
import json
import os
import signal
import subprocess
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from jobs import wait
from rawhttp import raw

ACCOUNT = "000000000000"


def tree(top, skip=()):
    """Every path below `top` (links not followed), with its size, except
    the subtrees in `skip`."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            out[path] = os.lstat(path).st_size if name in filenames else -1
    return out


class Server:
    def __init__(self, tmp, *args):
        self.root = str(tmp)
        self.s3 = os.path.join(self.root, "s3")
        os.makedirs(os.path.join(self.s3, "bk"), exist_ok=True)
        self.proc = subprocess.Popen(
            [os.environ["DYNAROCK_BIN"], "serve", "--in-memory", "--port", "0",
             "--s3-dir", self.s3, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert "serving" in line, self.proc.stderr.read()
        self.url = line.split()[4]
        self.port = int(self.url.rsplit(":", 1)[1])
        self.client = boto3.client("dynamodb", endpoint_url=self.url, region_name="us-east-1",
                                   aws_access_key_id="local", aws_secret_access_key="local",
                                   config=Config(retries={"max_attempts": 1}))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=60) == 0


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    yield s
    s.stop()


def make_table(ddb):
    name = "sec-" + uuid.uuid4().hex[:8]
    ddb.create_table(TableName=name, AttributeDefinitions=[{"AttributeName": "pk",
                                                            "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     BillingMode="PAY_PER_REQUEST")
    ddb.put_item(TableName=name, Item={"pk": {"S": "chosen by the client"}})
    ddb.update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    return name


def export(ddb, table, bucket, prefix):
    arn = "arn:aws:dynamodb:us-east-1:%s:table/%s" % (ACCOUNT, table)
    d = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket, S3Prefix=prefix)
    return wait(lambda: ddb.describe_export(ExportArn=d["ExportDescription"]["ExportArn"]),
                "ExportDescription", "ExportStatus")


# ---- S3 keys and links ------------------------------------------------------------------------

@pytest.mark.parametrize("prefix", ["../../escaped", "a/../../..", "/abs/escaped", "/", "//",
                                    "x/./y", ".."])
def test_an_export_prefix_that_would_leave_the_bucket_fails_the_job(server, prefix):
    table = make_table(server.client)
    s3 = os.path.join(server.root, "s3")
    before = tree(server.root, skip={s3})
    d = export(server.client, table, "bk", prefix)
    assert d["ExportStatus"] == "FAILED"
    assert d["FailureCode"] == "S3AccessDenied"
    assert "cannot be stored in a local bucket folder" in d["FailureMessage"]
    assert tree(server.root, skip={s3}) == before
    assert not os.path.exists("/AWSDynamoDB")
    # Nothing was written in the bucket either.
    assert os.listdir(os.path.join(s3, "bk")) == []


def test_an_ordinary_prefix_still_exports(server):
    table = make_table(server.client)
    d = export(server.client, table, "bk", "nightly/")
    assert d["ExportStatus"] == "COMPLETED", d
    assert d["ExportManifest"].startswith("nightly/AWSDynamoDB/")
    assert os.path.isfile(os.path.join(server.s3, "bk", d["ExportManifest"]))


def test_a_bucket_or_folder_that_is_a_link_is_not_followed(server):
    table = make_table(server.client)
    outside = os.path.join(server.root, "outside")
    os.makedirs(outside)
    os.symlink(outside, os.path.join(server.s3, "linked-bucket"))
    os.symlink(outside, os.path.join(server.s3, "bk", "linked-folder"))
    d = export(server.client, table, "linked-bucket", "x")
    assert (d["ExportStatus"], d["FailureCode"]) == ("FAILED", "S3AccessDenied")
    assert "symbolic link" in d["FailureMessage"]
    d = export(server.client, table, "bk", "linked-folder/x")
    assert (d["ExportStatus"], d["FailureCode"]) == ("FAILED", "S3AccessDenied")
    assert os.listdir(outside) == []


def import_table(ddb, prefix, bucket="bk"):
    name = "imp-" + uuid.uuid4().hex[:8]
    d = ddb.import_table(
        S3BucketSource={"S3Bucket": bucket, "S3KeyPrefix": prefix},
        InputFormat="DYNAMODB_JSON", InputCompressionType="NONE",
        TableCreationParameters={
            "TableName": name,
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST"})
    arn = d["ImportTableDescription"]["ImportArn"]
    return name, wait(lambda: ddb.describe_import(ImportArn=arn), "ImportTableDescription",
                      "ImportStatus")


def test_an_import_reads_nothing_outside_the_bucket(server):
    ddb = server.client
    outside = os.path.join(server.root, "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "secret.json"), "w") as f:
        f.write('{"Item":{"pk":{"S":"secret"}}}\n')
    # A prefix that climbs out: refused, no table.
    name, d = import_table(ddb, "../../outside/secret")
    assert (d["ImportStatus"], d["FailureCode"]) == ("FAILED", "S3AccessDenied")
    assert name not in ddb.list_tables()["TableNames"]
    # Links to a file and to a folder outside: not objects.
    os.makedirs(os.path.join(server.s3, "bk", "in"))
    os.symlink("../../../outside/secret.json", os.path.join(server.s3, "bk", "in", "linked.json"))
    os.symlink(outside, os.path.join(server.s3, "bk", "in", "dir"))
    with open(os.path.join(server.s3, "bk", "in", "real.json"), "w") as f:
        f.write('{"Item":{"pk":{"S":"real"}}}\n')
    name, d = import_table(ddb, "in/")
    assert d["ImportStatus"] == "COMPLETED", d
    items = ddb.scan(TableName=name)["Items"]
    assert items == [{"pk": {"S": "real"}}]


def test_dump_refuses_a_prefix_that_leaves_its_folder(tmp_path):
    bin = os.environ["DYNAROCK_BIN"]
    db = str(tmp_path / "db")
    out = tmp_path / "out"
    out.mkdir()
    # A database with one table: restored from a one-line file.
    src = tmp_path / "items.json"
    src.write_text('{"Item":{"pk":{"S":"a"}}}\n')
    definition = tmp_path / "t.json"
    definition.write_text(json.dumps({
        "TableName": "tbl",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST"}))
    r = subprocess.run([bin, "restore", db, str(src), "--table-definition", str(definition),
                        "--input-format", "DYNAMODB_JSON", "--compression", "NONE"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    before = tree(str(tmp_path), skip={db})
    for prefix in ["../x", "a/../../x", "/abs", "//"]:
        r = subprocess.run([bin, "dump", db, "tbl", str(out), "--prefix", prefix],
                           capture_output=True, text=True)
        assert r.returncode == 1, (prefix, r.stdout, r.stderr)
        assert "cannot be stored in a local bucket folder" in r.stderr
    assert tree(str(tmp_path), skip={db}) == before
    r = subprocess.run([bin, "dump", db, "tbl", str(out), "--prefix", "ok"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert os.path.isdir(out / "ok" / "AWSDynamoDB")


# ---- Pages and Host names ---------------------------------------------------------------------

PREFLIGHT = ("OPTIONS / HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n"
             "Access-Control-Request-Method: POST\r\n"
             "Access-Control-Request-Headers: content-type,x-amz-target\r\n\r\n")


def preflight(s, origin, host=None):
    host = host or "127.0.0.1:%d" % s.port
    return raw(s.url, PREFLIGHT.format(host=host, origin=origin).encode())


def create_table_from(s, origin=None, host=None):
    """A CreateTable as a page (or a rebound name) would send it."""
    name = "page-" + uuid.uuid4().hex[:8]
    body = json.dumps({
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST"}).encode()
    head = ("POST / HTTP/1.1\r\nHost: %s\r\n" % (host or "127.0.0.1:%d" % s.port))
    if origin:
        head += "Origin: %s\r\n" % origin
    head += ("Content-Type: application/x-amz-json-1.0\r\n"
             "X-Amz-Target: DynamoDB_20120810.CreateTable\r\nContent-Length: %d\r\n\r\n"
             % len(body))
    status, headers, answer = raw(s.url, head.encode() + body)
    return name, status, headers, answer


def test_foreign_pages_cannot_call_an_open_server(server):
    for origin in ["https://evil.example", "http://evil.example:8000", "null",
                   "http://localhost.evil.example", "http://127.0.0.1.evil.example"]:
        status, headers, body = preflight(server, origin)
        assert status == 403, origin
        assert "access-control-allow-origin" not in headers
        assert "--cors" in json.loads(body)["message"]
        name, status, headers, body = create_table_from(server, origin)
        assert status == 403, origin
        assert json.loads(body)["__type"].endswith("AccessDeniedException")
        assert name not in server.client.list_tables()["TableNames"]
    for origin in ["http://localhost:3000", "http://127.0.0.1:5173", "http://[::1]:8080",
                   "https://localhost"]:
        status, headers, _ = preflight(server, origin)
        assert status == 200, origin
        assert headers["access-control-allow-origin"] == origin
        name, status, headers, _ = create_table_from(server, origin)
        assert status == 200 and headers["access-control-allow-origin"] == origin
        assert name in server.client.list_tables()["TableNames"]
    # The server's own pages (the console) may call it, but not write
    # without --console-writes.
    own = "http://127.0.0.1:%d" % server.port
    status, headers, _ = preflight(server, own)
    assert status == 200 and headers["access-control-allow-origin"] == own
    name, status, headers, body = create_table_from(server, own)
    assert status == 403 and headers["access-control-allow-origin"] == own
    assert json.loads(body)["message"].startswith("The console is read-only: start dynarock serve "
                                                  "with --console-writes")
    assert name not in server.client.list_tables()["TableNames"]


def test_a_rebound_host_name_is_refused(server):
    for host in ["evil.example", "evil.example:%d" % server.port, "localhost.evil.example",
                 "dynamodb.us-east-1.amazonaws.com.evil.example"]:
        name, status, _, body = create_table_from(server, host=host)
        assert status == 403, host
        assert "DNS rebinding" in json.loads(body)["message"]
        assert name not in server.client.list_tables()["TableNames"]
        # Health checks and console pages too: a rebound page reads nothing.
        status, _, _ = raw(server.url, ("GET /console/ HTTP/1.1\r\nHost: %s\r\n\r\n"
                                        % host).encode())
        assert status == 403
    for host in ["localhost:%d" % server.port, "127.0.0.1", "[::1]:%d" % server.port,
                 "dynamodb.us-east-1.amazonaws.com", "dynamodb.eu-west-3.amazonaws.com:443",
                 "streams.dynamodb.us-east-1.amazonaws.com", "LOCALHOST"]:
        name, status, _, _ = create_table_from(server, host=host)
        assert status == 200, host


def test_cors_and_allowed_host_widen_the_rules(tmp_path):
    s = Server(tmp_path, "--cors", "https://app.example,https://other.example",
               "--allowed-host", "devbox.internal")
    try:
        status, headers, _ = preflight(s, "https://app.example")
        assert status == 200 and headers["access-control-allow-origin"] == "https://app.example"
        assert preflight(s, "https://evil.example")[0] == 403
        # Loopback pages stay allowed.
        assert preflight(s, "http://localhost:3000")[0] == 200
        assert create_table_from(s, host="devbox.internal:%d" % s.port)[1] == 200
        assert create_table_from(s, host="evil.example")[1] == 403
    finally:
        s.stop()
    s = Server(tmp_path, "--cors", "*")
    try:
        status, headers, _ = preflight(s, "https://evil.example")
        assert status == 200 and headers["access-control-allow-origin"] == "*"
    finally:
        s.stop()


def test_with_auth_every_page_and_host_may_call_but_must_sign(tmp_path):
    s = Server(tmp_path, "--auth", "AKIDLOCAL:s3cret")
    try:
        status, headers, _ = preflight(s, "https://evil.example", host="evil.example")
        assert status == 200 and headers["access-control-allow-origin"] == "*"
        # Not refused for its origin or Host, but unsigned: no table.
        name, status, _, body = create_table_from(s, "https://evil.example", "evil.example")
        assert status == 400
        assert "AccessDenied" not in json.loads(body)["__type"]
        signed = boto3.client("dynamodb", endpoint_url=s.url, region_name="us-east-1",
                              aws_access_key_id="AKIDLOCAL", aws_secret_access_key="s3cret")
        assert name not in signed.list_tables()["TableNames"]
    finally:
        s.stop()


# ---- Stream iterators ---------------------------------------------------------------------------

def test_a_stream_iterator_cannot_be_moved_to_another_stream(server):
    ddb = server.client
    streams = boto3.client("dynamodbstreams", endpoint_url=server.url, region_name="us-east-1",
                           aws_access_key_id="local", aws_secret_access_key="local")
    shards = {}
    for name in ("stream-a-" + uuid.uuid4().hex[:6], "stream-b-" + uuid.uuid4().hex[:6]):
        d = ddb.create_table(
            TableName=name, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        ddb.put_item(TableName=name, Item={"pk": {"S": "secret of " + name}})
        arn = d["TableDescription"]["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        shards[name] = (arn, it)
    (arn_a, it_a), (arn_b, it_b) = shards.values()
    # Genuine: B's iterator reads B.
    assert len(streams.get_records(ShardIterator=it_b)["Records"]) == 1
    # A's ARN in front of B's payload, and B's ARN in front of A's: refused.
    for forged in (arn_a + it_b[len(arn_b):], arn_b + it_a[len(arn_a):]):
        with pytest.raises(ClientError) as e:
            streams.get_records(ShardIterator=forged)
        assert e.value.response["Error"]["Code"] == "ValidationException"
        assert "Invalid ShardIterator" in e.value.response["Error"]["Message"]
