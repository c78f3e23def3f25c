"""`dynarock serve` under the connection patterns of real clients: thousands
of idle keep-alive sockets (SDK test runs), a connection bound that closes
the idlest instead of resetting newcomers, slowloris and non-reading
clients, and a bounded shutdown with a stuck client."""
import json
import os
import resource
import signal
import socket
import subprocess
import time
import uuid

import pytest
from rawhttp import connect, read_response

REQUEST = ("POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.{op}\r\n"
           "Content-Type: application/x-amz-json-1.0\r\nContent-Length: {n}\r\n\r\n{body}")


def request(op, body):
    data = json.dumps(body)
    return REQUEST.format(op=op, n=len(data.encode()), body=data).encode()


def served(endpoint):
    with connect(endpoint) as s:
        s.sendall(request("ListTables", {}))
        return read_response(s)[0] == 200


@pytest.fixture
def server(request):
    """A server of its own, with extra flags (the marker's args)."""
    marker = request.node.get_closest_marker("serve")
    args = list(marker.args) if marker else []
    proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--in-memory", "--port", "0",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, proc.stderr.read()
    yield proc, line.split()[4]
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def raise_fd_limit(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def test_two_thousand_idle_keepalive_connections_are_all_served(server):
    _, endpoint = server
    want = 2000
    if raise_fd_limit(want + 200) < want + 100:
        pytest.skip("the hard open-file limit is below 2,100")
    socks = []
    try:
        # Node-style: every client keeps its socket open and idle afterwards.
        for _ in range(want):
            s = connect(endpoint)
            s.sendall(request("ListTables", {}))
            assert read_response(s)[0] == 200
            socks.append(s)
        # All of them are still usable, and a newcomer is served too.
        for s in socks[::50]:
            s.sendall(request("ListTables", {}))
            assert read_response(s)[0] == 200
        assert served(endpoint)
    finally:
        for s in socks:
            s.close()


@pytest.mark.serve("--max-connections", "20")
def test_at_the_bound_the_idlest_connection_makes_room(server):
    _, endpoint = server
    socks = []
    for _ in range(20):
        s = connect(endpoint)
        s.sendall(request("ListTables", {}))
        assert read_response(s)[0] == 200
        socks.append(s)
        time.sleep(0.01)  # socks[0] is the idlest
    newcomer = connect(endpoint)
    newcomer.sendall(request("ListTables", {}))
    assert read_response(newcomer)[0] == 200  # served, not reset
    socks[0].settimeout(5)
    assert socks[0].recv(1) == b""  # the idlest was closed gracefully
    socks[-1].sendall(request("ListTables", {}))
    assert read_response(socks[-1])[0] == 200  # the others stay
    for s in socks + [newcomer]:
        s.close()


def test_slowloris_and_non_reading_clients_do_not_stall_others(server):
    _, endpoint = server
    # Headers trickled, never finished.
    slow = [connect(endpoint) for _ in range(50)]
    for s in slow:
        s.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\n")
    # A client that pipelines requests and never reads an answer.
    greedy = connect(endpoint)
    greedy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    greedy.sendall(request("ListTables", {}) * 2000)
    start = time.time()
    for _ in range(20):
        assert served(endpoint)
    assert time.time() - start < 5
    for s in slow + [greedy]:
        s.close()


def test_sigterm_with_a_stuck_client_exits_within_the_grace_period(server):
    proc, endpoint = server
    table = "Big-" + uuid.uuid4().hex[:6]
    with connect(endpoint) as s:
        s.sendall(request("CreateTable", {
            "TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}]}))
        assert read_response(s)[0] == 200
        for i in range(12):
            s.sendall(request("PutItem", {"TableName": table, "Item": {
                "id": {"S": str(i)}, "blob": {"S": "x" * 300_000}}}))
            assert read_response(s)[0] == 200
    # Scans of ~3.6 MB each, pipelined and never read: the server's write blocks.
    stuck = connect(endpoint)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.sendall(request("Scan", {"TableName": table}) * 20)
    time.sleep(1)
    start = time.time()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert time.time() - start < 15  # the 10 s grace period, then it closes what is left
    stuck.close()


def test_sync_durability_is_the_default_and_writes_survive_sigkill(tmp_path):
    data = tmp_path / "db"

    def start():
        proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--data-dir", str(data),
                                 "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        line = proc.stdout.readline()
        assert "serving" in line, proc.stderr.read()
        return proc, line

    proc, line = start()
    assert "durability: sync" in line
    endpoint = line.split()[4]
    with connect(endpoint) as s:
        s.sendall(request("CreateTable", {
            "TableName": "Fleet", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}]}))
        assert read_response(s)[0] == 200
        for i in range(50):
            s.sendall(request("PutItem", {"TableName": "Fleet", "Item": {"id": {"S": str(i)}}}))
            assert read_response(s)[0] == 200
    proc.kill()  # SIGKILL: no shutdown at all
    proc.wait(timeout=30)
    proc, line = start()
    endpoint = line.split()[4]
    with connect(endpoint) as s:
        s.sendall(request("Scan", {"TableName": "Fleet", "Select": "COUNT"}))
        status, _, body = read_response(s)
    assert status == 200 and json.loads(body)["Count"] == 50
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
