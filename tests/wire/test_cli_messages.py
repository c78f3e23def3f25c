"""The dynarock command line's failures in its own words: one line, what
went wrong and the fix, and the exit codes its --help documents."""
import os
import re
import signal
import subprocess

import boto3
import pytest
from botocore.config import Config

from conftest import create_fleet_table

BIN = os.environ.get("DYNAROCK_BIN", "")


def run(*args, binary=None):
    return subprocess.run([binary or BIN, *args], capture_output=True, text=True, timeout=120)


class Server:
    """A `dynarock serve --data-dir DIR` on a free loopback port."""

    def __init__(self, data_dir, port="0"):
        self.proc = subprocess.Popen([BIN, "serve", "--data-dir", data_dir, "--port", port],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert "serving" in line, self.proc.stderr.read()
        self.url = line.split()[4]
        self.port = self.url.rsplit(":", 1)[1]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=30) == 0


@pytest.fixture
def held_db(tmp_path):
    """A database with the fleet table, held open by a running server."""
    data = str(tmp_path / "fleet.db")
    server = Server(data)
    client = boto3.client("dynamodb", endpoint_url=server.url, region_name="us-east-1",
                          aws_access_key_id="local", aws_secret_access_key="local",
                          config=Config(retries={"max_attempts": 1}))
    create_fleet_table(client, "Telemetry")
    client.put_item(TableName="Telemetry", Item={
        "vehicleId": {"S": "VEH#V-7741"}, "recordedAt": {"S": "META"}})
    yield data, server
    if server.proc.poll() is None:
        server.stop()


def test_version_and_exit_codes_in_help():
    version = run("--version")
    assert version.returncode == 0
    assert re.fullmatch(r"dynarock \d+\.\d+\.\d+ \(storage format \d+, RocksDB \d+\.\d+\.\d+\)\n",
                        version.stdout), version.stdout
    for command in ("serve", "dump", "restore", "compact", "collections", "collection", "top"):
        assert "Exit status: 0 done; 1 failed" in run(command, "--help").stdout, command
    wrong = run("serve", "--no-such-flag")
    assert wrong.returncode == 2
    assert "--no-such-flag" in wrong.stderr
    assert run("serve").returncode == 2  # neither --data-dir nor --in-memory


def test_a_held_database_names_the_fix(held_db):
    data, _ = held_db
    want = (f"error: the database at {data} is open in another process (dynarock serve?): "
            "stop it, or use the read-only commands (dynarock collections, collection, top)\n")
    for args in (["compact", data], ["serve", "--data-dir", data, "--port", "0"]):
        r = run(*args)
        assert (r.returncode, r.stderr) == (1, want), args
    demo = run("--db", data, "--vehicles", "1", "--readings", "1",
               binary=os.environ.get("DYNAROCK_FLEET_DEMO",
                                     os.path.join(os.path.dirname(BIN), "fleet_demo")))
    assert (demo.returncode, demo.stderr) == (1, want)
    # The read-only commands work meanwhile.
    assert run("collections", data, "Telemetry").returncode == 0


def test_a_busy_port_names_the_fix(held_db, tmp_path):
    _, server = held_db
    r = run("serve", "--data-dir", str(tmp_path / "other.db"), "--port", server.port)
    assert (r.returncode, r.stderr) == (
        1, f"error: port {server.port} is in use (another dynarock serve?); use --port\n")


def test_restoring_over_a_table_suggests_another_name(held_db, tmp_path):
    data, server = held_db
    server.stop()
    out = str(tmp_path / "dump")
    assert run("dump", data, "Telemetry", out).returncode == 0
    r = run("restore", data, out)
    assert r.returncode == 1
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Telemetry" in r.stderr and "--table NAME" in r.stderr, r.stderr
    assert run("restore", data, out, "--table", "Telemetry2").returncode == 0
