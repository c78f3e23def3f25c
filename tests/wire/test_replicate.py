"""`dynarock replicate` against real servers on loopback: a source `dynarock
serve` taking a random workload (puts, updates, deletes, transactions)
while the table is copied and its stream followed, the replicate process
SIGKILLed at random points (five in the copy, five in the tail) and
restarted, into two targets: another
`dynarock serve`, and dynalite (npm dynalite@4, tests/wire/dynalite/: a
DynamoDB implementation that is not ours). Then a target behind a proxy
that throttles and leaves items unprocessed, and the set-up's refusals,
which write nothing. At the end `--verify` and this test's own full
comparison find the tables equal."""
import contextlib
import http.server
import json
import os
import random
import signal
import socketserver
import subprocess
import threading
import time
import urllib.request

import boto3
import pytest
from botocore.config import Config

from conftest import create_fleet_table, serve

BIN = os.environ["DYNAROCK_BIN"]
DYNALITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dynalite", "node_modules",
                        "dynalite", "cli.js")
# dynalite wants signed requests (any key): replicate signs with these.
KEYS = dict(os.environ, AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local",
            AWS_DEFAULT_REGION="us-east-1")


@contextlib.contextmanager
def dynalite():
    """dynalite in memory on a free loopback port: yields its URL."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["node", DYNALITE, "--host", "127.0.0.1", "--port", str(port),
                             "--createTableMs", "0", "--deleteTableMs", "0",
                             "--updateTableMs", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    url = "http://127.0.0.1:%d" % port
    try:
        for _ in range(100):
            try:
                client(url).list_tables()
                break
            except Exception:  # not listening yet
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def target(kind):
    return serve() if kind == "dynarock" else dynalite()


def client(url, key="local", secret="local"):
    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret,
                        config=Config(retries={"max_attempts": 8, "mode": "standard"}))


def replicate(*args, env=KEYS, timeout=300):
    return subprocess.run([BIN, "replicate", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def all_items(c, table):
    items, start = {}, None
    while True:
        page = c.scan(TableName=table, ConsistentRead=True,
                      **({"ExclusiveStartKey": start} if start else {}))
        for item in page["Items"]:
            items[(item["vehicleId"]["S"], item["recordedAt"]["S"])] = item
        start = page.get("LastEvaluatedKey")
        if not start:
            return items


def normalized(items):
    """Sets compared as sets (their order is not part of the value)."""
    def value(v):
        (t, x), = v.items()
        if t in ("SS", "NS", "BS"):
            return t, tuple(sorted(x))
        if t == "M":
            return t, tuple(sorted((k, value(e)) for k, e in x.items()))
        if t == "L":
            return t, tuple(value(e) for e in x)
        return t, x
    return {k: {name: value(v) for name, v in item.items()} for k, item in items.items()}


def fleet_source(c, name, items=0, stream=True):
    create_fleet_table(c, name)
    if stream:
        c.update_table(TableName=name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    batch = []
    for i in range(items):
        batch.append({"PutRequest": {"Item": reading(i % 200, i // 200)}})
        if len(batch) == 25:
            c.batch_write_item(RequestItems={name: batch})
            batch = []
    if batch:
        c.batch_write_item(RequestItems={name: batch})


def reading(vehicle, n, speed=None):
    return {"vehicleId": {"S": "VEH#%04d" % vehicle}, "recordedAt": {"S": "TS#%06d" % n},
            "depotCode": {"S": "DEP-%d" % (vehicle % 7)},
            "speedKph": {"N": str(speed if speed is not None else (vehicle * 7 + n) % 130)},
            "tags": {"SS": ["a%d" % (n % 3), "b"]}, "note": {"S": "x" * (n % 50)}}


class Workload(threading.Thread):
    """Random puts, updates, deletes and transactions on the source until stopped."""

    def __init__(self, c, table, seed):
        super().__init__(daemon=True)
        self.c, self.table, self.random = c, table, random.Random(seed)
        self.stopped = threading.Event()
        self.writes = 0

    def key(self):
        return {"vehicleId": {"S": "VEH#%04d" % self.random.randrange(220)},
                "recordedAt": {"S": "TS#%06d" % self.random.randrange(50)}}

    def run(self):
        while not self.stopped.is_set():
            op = self.random.random()
            k = self.key()
            v = int(k["vehicleId"]["S"][4:])
            n = int(k["recordedAt"]["S"][3:])
            if op < 0.4:
                self.c.put_item(TableName=self.table,
                                Item=reading(v, n, speed=self.random.randrange(200)))
            elif op < 0.65:
                self.c.update_item(TableName=self.table, Key=k,
                                   UpdateExpression="SET speedKph = :s ADD tags :t",
                                   ExpressionAttributeValues={
                                       ":s": {"N": str(self.random.randrange(200))},
                                       ":t": {"SS": ["w%d" % self.random.randrange(5)]}})
            elif op < 0.85:
                self.c.delete_item(TableName=self.table, Key=k)
            else:
                other = self.key()
                if other == k:
                    continue
                self.c.transact_write_items(TransactItems=[
                    {"Put": {"TableName": self.table,
                             "Item": reading(v, n, speed=self.random.randrange(200))}},
                    {"Delete": {"TableName": self.table, "Key": other}}])
            self.writes += 1

    def stop(self):
        self.stopped.set()
        self.join(timeout=60)


@pytest.mark.parametrize("kind", ["dynarock", "dynalite"])
def test_copy_and_tail_under_writes_and_kills(tmp_path, kind):
    with serve() as source_url, target(kind) as target_url:
        src, dst = client(source_url), client(target_url)
        fleet_source(src, "Telemetry", items=6000)
        workload = Workload(src, "Telemetry", seed=7)
        workload.start()
        state = str(tmp_path / "state.json")
        args = ["--from", source_url, "--table", "Telemetry", "--to", target_url,
                "--to-table", "Fleet", "--state", state, "--threads", "3", "--max-wcu", "2000"]
        rng = random.Random(11)
        phases = []

        def saved():
            if not os.path.exists(state):
                return None, 0
            with open(state) as f:
                c = json.load(f)
            return c["phase"], sum(seg["items"] for seg in c["segments"])

        try:
            copied = 0
            for kill in range(10):
                proc = subprocess.Popen([BIN, "replicate", *args], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, env=KEYS)
                if kill < 5:
                    # During the copy: once a few more pages are saved.
                    goal = copied + rng.randrange(250, 1000)
                    deadline = time.time() + 60
                    while time.time() < deadline:
                        phase, copied = saved()
                        if phase == "tail" or copied >= goal:
                            break
                        time.sleep(0.01)
                    time.sleep(rng.uniform(0, 0.05))
                else:
                    # During the tail: once the copy is done (a slow machine
                    # may take several runs to finish it), at a random point.
                    deadline = time.time() + 60
                    while saved()[0] != "tail" and time.time() < deadline:
                        time.sleep(0.01)
                    time.sleep(rng.uniform(0, 0.5))
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=30)
                assert proc.returncode == -signal.SIGKILL, proc.stderr.read()
                phases.append(saved()[0])
        finally:
            workload.stop()
        assert workload.writes > 100, workload.writes
        # The kills landed in both phases.
        assert "copy" in phases and "tail" in phases, phases
        done = replicate(*args, "--verify")
        assert done.returncode == 0, done.stderr
        assert "caught up" in done.stdout and ": equal" in done.stdout, done.stdout
        want, got = all_items(src, "Telemetry"), all_items(dst, "Fleet")
        assert len(want) > 1000
        assert normalized(got) == normalized(want)
        # The target has the source's indexes.
        table = dst.describe_table(TableName="Fleet")["Table"]
        assert [g["IndexName"] for g in table["GlobalSecondaryIndexes"]] == ["ByDepot"]
        assert [i["IndexName"] for i in table["LocalSecondaryIndexes"]] == ["BySpeed"]
        status = replicate("status", *args)
        assert status.returncode == 0, status.stderr
        assert "phase tail" in status.stdout and "lag 0 records" in status.stdout, status.stdout
        # New writes: the lag counts them, until a run applies them.
        for i in range(5):
            src.put_item(TableName="Telemetry", Item=reading(500 + i, 1))
        status = replicate("status", *args)
        assert "lag 5 records" in status.stdout, status.stdout
        assert replicate(*args, "--until-caught-up").returncode == 0
        assert "lag 0 records" in replicate("status", *args).stdout
        assert "VEH#0504" in {k[0] for k in all_items(dst, "Fleet")}


class FaultyProxy(socketserver.ThreadingMixIn, http.server.HTTPServer):
    """Forwards DynamoDB requests to `target`, but answers a share of them
    with ThrottlingException or a 500, and writes only half of some
    BatchWriteItems, returning the rest as UnprocessedItems."""
    daemon_threads = True

    def __init__(self, target):
        self.target, self.faults, self.random = target, {"throttled": 0, "500": 0, "partial": 0}, \
            random.Random(3)
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), ProxyHandler)


class ProxyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def forward(self, target, body):
        req = urllib.request.Request(self.server.target, data=body, method="POST", headers={
            "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        target = self.headers["X-Amz-Target"]
        with self.server.lock:
            roll = self.server.random.random()
        if roll < 0.25:
            with self.server.lock:
                self.server.faults["throttled"] += 1
            return self.answer(400, {
                "__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException",
                "message": "Rate of requests exceeds the allowed throughput."})
        if roll < 0.32:
            with self.server.lock:
                self.server.faults["500"] += 1
            return self.answer(500, {
                "__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                "message": "Internal server error"})
        request = json.loads(body)
        if target.endswith(".BatchWriteItem") and roll < 0.6:
            (table, writes), = request["RequestItems"].items()
            if len(writes) > 1:
                half = len(writes) // 2
                status, answer = self.forward(target, json.dumps(
                    {"RequestItems": {table: writes[:half]}}).encode())
                if status == 200:
                    with self.server.lock:
                        self.server.faults["partial"] += 1
                    answer["UnprocessedItems"] = {table: writes[half:]}
                return self.answer(status, answer)
        status, answer = self.forward(target, body)
        self.answer(status, answer)


@contextlib.contextmanager
def faulty_proxy(target):
    proxy = FaultyProxy(target)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy, "http://127.0.0.1:%d" % proxy.server_address[1]
    finally:
        proxy.shutdown()


def test_a_throttling_target_still_converges(tmp_path):
    with serve() as source_url, serve() as target_url, faulty_proxy(target_url) as (proxy, url):
        src = client(source_url)
        fleet_source(src, "Telemetry", items=1500)
        for i in range(200):  # changes the tail carries
            src.put_item(TableName="Telemetry", Item=reading(i % 30, 1000 + i))
            if i % 3 == 0:
                src.delete_item(TableName="Telemetry", Key={
                    "vehicleId": {"S": "VEH#%04d" % (i % 200)}, "recordedAt": {"S": "TS#%06d" % 1}})
        r = replicate("--from", source_url, "--table", "Telemetry", "--to", url,
                      "--state", str(tmp_path / "s.json"), "--verify")
        assert r.returncode == 0, r.stderr
        assert ": equal" in r.stdout, r.stdout
        assert all(n > 5 for n in proxy.faults.values()), proxy.faults
        assert normalized(all_items(client(target_url), "Telemetry")) == \
            normalized(all_items(src, "Telemetry"))


def test_set_up_refusals_write_nothing(tmp_path):
    with serve() as source_url, serve() as target_url, \
            serve("--auth", "AKIDTARGET:s3cret") as signed_url:
        src, dst = client(source_url), client(target_url)
        fleet_source(src, "Telemetry", items=50)
        fleet_source(src, "NoStream", items=5, stream=False)
        state = str(tmp_path / "s.json")

        def run(*args, env=KEYS):
            return replicate("--from", source_url, "--state", state, *args, env=env)

        # A target that cannot be reached.
        r = run("--table", "Telemetry", "--to", "http://127.0.0.1:1")
        assert r.returncode == 1
        assert r.stderr.startswith("error: cannot reach the target, http://127.0.0.1:1"), r.stderr
        assert r.stderr.rstrip().endswith("nothing was written to it"), r.stderr
        # Plain HTTP off loopback: refused before any connection.
        r = run("--table", "Telemetry", "--to", "http://db.example.com:8000")
        assert r.returncode == 1
        assert "http:// is for loopback endpoints; use https://db.example.com" in r.stderr, \
            r.stderr
        # A source table without a stream.
        r = run("--table", "NoStream", "--to", target_url)
        assert r.returncode == 1
        assert "has no stream enabled" in r.stderr and "nothing was written" in r.stderr, r.stderr
        assert dst.list_tables()["TableNames"] == []
        # A target table of the same name with other keys.
        dst.create_table(TableName="Telemetry", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "vehicleId", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "vehicleId", "AttributeType": "S"}])
        r = run("--table", "Telemetry", "--to", target_url)
        assert r.returncode == 1
        assert "exists with another schema" in r.stderr and "--to-table" in r.stderr, r.stderr
        assert dst.scan(TableName="Telemetry")["Count"] == 0
        # Wrong credentials, then the right ones (the requests are signed).
        env = dict(KEYS, AWS_ACCESS_KEY_ID="AKIDTARGET", AWS_SECRET_ACCESS_KEY="wrong")
        r = run("--table", "Telemetry", "--to", signed_url, env=env)
        assert r.returncode == 1
        assert "refused DescribeTable: InvalidSignatureException" in r.stderr, r.stderr
        assert "credentials" in r.stderr, r.stderr
        signed = client(signed_url, "AKIDTARGET", "s3cret")
        assert signed.list_tables()["TableNames"] == []
        env["AWS_SECRET_ACCESS_KEY"] = "s3cret"
        r = run("--table", "Telemetry", "--to", signed_url, "--verify", env=env)
        assert r.returncode == 0, r.stderr
        assert ": equal" in r.stdout
        assert signed.describe_table(TableName="Telemetry")["Table"]["ItemCount"] == 50


def test_an_embedded_source_keeps_its_checkpoint_in_the_database(tmp_path):
    data = str(tmp_path / "db")
    proc = subprocess.Popen([BIN, "serve", "--data-dir", data, "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().split()[4]
    fleet_source(client(url), "Telemetry", items=300)
    # While served, the directory is the server's: replicate says to use its URL.
    r = replicate("--from", data, "--table", "Telemetry", "--to", url, "--to-table", "Copy")
    assert r.returncode == 1
    assert "is open in another process (dynarock serve?): replicate from the server instead, " \
           "--from http://HOST:PORT" in r.stderr, r.stderr
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    with serve() as target_url:
        args = ["--from", data, "--table", "Telemetry", "--to", target_url]
        r = replicate(*args, "--verify")
        assert r.returncode == 0, r.stderr
        assert "copied 300 items" in r.stdout and ": equal" in r.stdout, r.stdout
        assert not os.path.exists("replicate-Telemetry-to-Telemetry.json")
        status = replicate("status", *args)
        assert "phase tail; 300 items copied" in status.stdout, status.stdout
        # Run again: resumes from the checkpoint (no second copy).
        again = replicate(*args, "--until-caught-up")
        assert again.returncode == 0 and "copied" not in again.stdout, again.stdout


def tls_proxy(target, cert, key):
    """An HTTPS front for `target` (TLS terminated here, then forwarded)."""
    import ssl

    class Forward(ProxyHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            status, answer = self.forward(self.headers["X-Amz-Target"], body)
            self.answer(status, answer)

    server = socketserver.ThreadingMixIn
    proxy = type("TlsProxy", (server, http.server.HTTPServer), {"daemon_threads": True})(
        ("127.0.0.1", 0), Forward)
    proxy.target = target
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    proxy.socket = context.wrap_socket(proxy.socket, server_side=True)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    return proxy


def certificate(tmp_path, name):
    """A self-signed certificate for `name` (openssl), and its key."""
    cert, key = str(tmp_path / (name + ".pem")), str(tmp_path / (name + ".key"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=" + name, "-addext", "subjectAltName=DNS:" + name,
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


def test_https_checks_the_certificate_and_its_name(tmp_path):
    with serve() as source_url, serve() as target_url:
        fleet_source(client(source_url), "Telemetry", items=40)
        cert, key = certificate(tmp_path, "localhost")
        other_cert, other_key = certificate(tmp_path, "db.example.com")
        good = tls_proxy(target_url, cert, key)
        wrong_name = tls_proxy(target_url, other_cert, other_key)
        state = str(tmp_path / "s.json")
        args = ["--from", source_url, "--table", "Telemetry", "--state", state]
        # Not signed by a CA the system trusts: refused, nothing written.
        r = replicate(*args, "--to", "https://localhost:%d" % good.server_address[1])
        assert r.returncode == 1
        assert "certificate verify failed" in r.stderr and "nothing was written" in r.stderr, \
            r.stderr
        # Trusted (SSL_CERT_FILE, as OpenSSL reads it), but for another name.
        env = dict(KEYS, SSL_CERT_FILE=other_cert)
        r = replicate(*args, "--to", "https://localhost:%d" % wrong_name.server_address[1],
                      env=env)
        assert r.returncode == 1 and "certificate verify failed" in r.stderr, r.stderr
        assert client(target_url).list_tables()["TableNames"] == []
        # Trusted and for this name: the copy goes through TLS.
        env = dict(KEYS, SSL_CERT_FILE=cert)
        r = replicate(*args, "--to", "https://localhost:%d" % good.server_address[1],
                      "--verify", env=env)
        assert r.returncode == 0, r.stderr
        assert ": equal" in r.stdout
        good.shutdown()
        wrong_name.shutdown()


def test_credentials_and_region_from_the_shared_files(tmp_path):
    with serve() as source_url, serve("--auth", "AKIDFILE:fromfile", "--region",
                                      "eu-west-1") as target_url:
        fleet_source(client(source_url), "Telemetry", items=30)
        (tmp_path / "credentials").write_text(
            "[default]\naws_access_key_id = nobody\naws_secret_access_key = x\n\n"
            "[fleet]\naws_access_key_id = AKIDFILE\naws_secret_access_key = fromfile\n")
        (tmp_path / "config").write_text("[default]\nregion = us-east-1\n\n"
                                         "[profile fleet]\nregion = eu-west-1\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update(AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "credentials"),
                   AWS_CONFIG_FILE=str(tmp_path / "config"), AWS_PROFILE="fleet",
                   HOME=str(tmp_path))
        r = replicate("--from", source_url, "--table", "Telemetry", "--to", target_url,
                      "--state", str(tmp_path / "s.json"), "--verify", env=env)
        assert r.returncode == 0, r.stderr
        assert ": equal" in r.stdout
        signed = boto3.client("dynamodb", endpoint_url=target_url, region_name="eu-west-1",
                              aws_access_key_id="AKIDFILE", aws_secret_access_key="fromfile")
        assert signed.describe_table(TableName="Telemetry")["Table"]["ItemCount"] == 30


def call(url, operation, body):
    """One DynamoDB request as JSON (for shapes boto3's model may lack)."""
    req = urllib.request.Request(url, json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810." + operation})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def test_vector_indexes_are_created_on_a_target_that_has_them(tmp_path):
    with serve() as source_url, serve() as target_url:
        call(source_url, "CreateTable", {
            "TableName": "Docs", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                                     {"AttributeName": "tenant", "AttributeType": "S"}],
            "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
            "VectorIndexes": [{"IndexName": "ByTenant", "VectorAttribute": {"AttributeName": "v"},
                               "Dimensions": 3, "DistanceFunction": "EUCLIDEAN",
                               "Projection": {"ProjectionType": "ALL"},
                               "SearchSchema": [{"AttributeName": "tenant",
                                                 "SearchSchemaElementType": "HASH"}]}]})
        for i, v in enumerate([[0, 0, 0], [1, 0, 0], [5, 5, 5]]):
            call(source_url, "PutItem", {"TableName": "Docs", "Item": {
                "id": {"S": "d%d" % i}, "tenant": {"S": "acme"},
                "v": {"L": [{"N": str(x)} for x in v]}}})
        r = replicate("--from", source_url, "--table", "Docs", "--to", target_url,
                      "--state", str(tmp_path / "s.json"), "--verify")
        assert r.returncode == 0, r.stderr
        assert ": equal" in r.stdout
        index, = call(target_url, "DescribeTable", {"TableName": "Docs"})["Table"]["VectorIndexes"]
        assert (index["IndexName"], index["Dimensions"], index["DistanceFunction"]) == \
            ("ByTenant", 3, "EUCLIDEAN")
        found = call(target_url, "SearchVectors", {
            "TableName": "Docs", "IndexName": "ByTenant", "TopK": 1,
            "SearchVector": [{"N": "0.9"}, {"N": "0"}, {"N": "0"}],
            "SearchConditionExpression": "tenant = :t",
            "ExpressionAttributeValues": {":t": {"S": "acme"}}})
        assert [hit["Item"]["id"]["S"] for hit in found["SearchResults"]] == ["d1"]


def test_off_a_terminal_progress_is_logged_every_interval(tmp_path):
    with serve() as source_url, serve() as target_url:
        fleet_source(client(source_url), "Telemetry", items=2000)
        # 400 write units a second: a second's burst, then about 4 s. One
        # thread: its pages (250 items) end one after another, about every
        # 0.6 s (with four, they end together, in two or three bunches).
        started = time.time()
        r = replicate("--from", source_url, "--table", "Telemetry", "--to", target_url,
                      "--state", str(tmp_path / "s.json"), "--max-wcu", "400", "--threads", "1",
                      "--log-interval", "0.3", "--until-caught-up")
        assert r.returncode == 0, r.stderr
        copy = [l for l in r.stderr.splitlines() if l.startswith("replicate Telemetry: copy ")]
        assert len(copy) >= 3, r.stderr
        # Each says where it stands: items so far of the source's count, rate, ETA.
        counts = [int(l.split()[3]) for l in copy]
        assert counts == sorted(counts) and counts[-1] <= 2000, copy
        assert all(" / ~2000 items " in l and " items/s  ETA " in l for l in copy), copy
        assert r.stdout.startswith("copied 2000 items in "), r.stdout
        assert time.time() - started >= 3.5  # --max-wcu held
