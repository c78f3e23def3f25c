"""Resource-based policies (DynamoDB, March 2024): PutResourcePolicy,
GetResourcePolicy and DeleteResourcePolicy on a table's or a stream's ARN,
and CreateTable's ResourcePolicy. Dynarock has no IAM, so a policy grants
or denies nothing here; it is validated as a JSON document, stored with the
table (or stream), versioned by revision id, and kept by dump and restore.
Requests are sent as raw JSON: botocore 1.29 predates these operations."""
import json
import os
import subprocess
import uuid

import pytest

from test_fidelity_edges import call, ok

POLICY = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
    "Action": "dynamodb:GetItem", "Resource": "*"}]}


@pytest.fixture
def table(endpoint):
    name = "Policed-" + uuid.uuid4().hex[:8]
    out = ok(endpoint, "CreateTable", {
        "TableName": name, "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}})
    return name, out["TableDescription"]["TableArn"], out["TableDescription"]["LatestStreamArn"]


def test_put_get_delete_with_revision_ids(endpoint, table):
    name, arn, _ = table
    status, kind, message = call(endpoint, "GetResourcePolicy", {"ResourceArn": arn})
    assert (status, kind) == (400, "PolicyNotFoundException"), message
    assert arn in message
    text = json.dumps(POLICY)
    first = ok(endpoint, "PutResourcePolicy", {"ResourceArn": arn, "Policy": text})["RevisionId"]
    assert first
    got = ok(endpoint, "GetResourcePolicy", {"ResourceArn": arn})
    assert got == {"Policy": text, "RevisionId": first}
    # The same document again: idempotent, the same revision.
    again = ok(endpoint, "PutResourcePolicy", {"ResourceArn": arn, "Policy": text})
    assert again["RevisionId"] == first
    # A new document under the revision it expects: a new revision.
    changed = dict(POLICY, Statement=[dict(POLICY["Statement"][0], Action="dynamodb:Query")])
    second = ok(endpoint, "PutResourcePolicy", {
        "ResourceArn": arn, "Policy": json.dumps(changed),
        "ExpectedRevisionId": first})["RevisionId"]
    assert second != first
    # A stale expectation is refused and changes nothing.
    status, kind, message = call(endpoint, "PutResourcePolicy", {
        "ResourceArn": arn, "Policy": text, "ExpectedRevisionId": first})
    assert (status, kind) == (400, "PolicyNotFoundException"), message
    assert ok(endpoint, "GetResourcePolicy", {"ResourceArn": arn})["RevisionId"] == second
    status, kind, _ = call(endpoint, "DeleteResourcePolicy",
                           {"ResourceArn": arn, "ExpectedRevisionId": first})
    assert kind == "PolicyNotFoundException"
    deleted = ok(endpoint, "DeleteResourcePolicy", {"ResourceArn": arn, "ExpectedRevisionId": second})
    assert deleted["RevisionId"] == second
    status, kind, _ = call(endpoint, "GetResourcePolicy", {"ResourceArn": arn})
    assert kind == "PolicyNotFoundException"
    # Deleting nothing is no error, without an expected revision.
    assert ok(endpoint, "DeleteResourcePolicy", {"ResourceArn": arn}) == {}
    status, kind, _ = call(endpoint, "DeleteResourcePolicy",
                           {"ResourceArn": arn, "ExpectedRevisionId": second})
    assert kind == "PolicyNotFoundException"


def test_a_stream_has_its_own_policy(endpoint, table):
    _, arn, stream_arn = table
    text = json.dumps(POLICY)
    revision = ok(endpoint, "PutResourcePolicy",
                  {"ResourceArn": stream_arn, "Policy": text})["RevisionId"]
    assert ok(endpoint, "GetResourcePolicy", {"ResourceArn": stream_arn}) == {
        "Policy": text, "RevisionId": revision}
    status, kind, _ = call(endpoint, "GetResourcePolicy", {"ResourceArn": arn})
    assert kind == "PolicyNotFoundException"


def test_create_table_attaches_a_policy_and_delete_table_drops_it(endpoint):
    name = "Policed-" + uuid.uuid4().hex[:8]
    out = ok(endpoint, "CreateTable", {
        "TableName": name, "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST", "ResourcePolicy": json.dumps(POLICY)})
    arn = out["TableDescription"]["TableArn"]
    got = ok(endpoint, "GetResourcePolicy", {"ResourceArn": arn})
    assert json.loads(got["Policy"]) == POLICY and got["RevisionId"]
    ok(endpoint, "DeleteTable", {"TableName": name})
    status, kind, _ = call(endpoint, "GetResourcePolicy", {"ResourceArn": arn})
    assert kind == "ResourceNotFoundException"


@pytest.mark.parametrize("policy, words", [
    ("not json", "not a valid JSON"),
    ('["a list"]', "not a valid JSON"),
    ('{"Version": "2012-10-17"', "not a valid JSON"),
    (json.dumps({"Version": "2012-10-17", "Pad": "x" * 20480}), "20 KB"),
])
def test_invalid_policies_are_refused(endpoint, table, policy, words):
    _, arn, _ = table
    status, kind, message = call(endpoint, "PutResourcePolicy",
                                 {"ResourceArn": arn, "Policy": policy})
    assert status == 400 and kind in ("ValidationException", "LimitExceededException"), message
    assert words in message, message
    status, kind, _ = call(endpoint, "GetResourcePolicy", {"ResourceArn": arn})
    assert kind == "PolicyNotFoundException"


def test_resources_that_do_not_exist(endpoint):
    missing = "arn:aws:dynamodb:us-east-1:000000000000:table/NoSuchTable"
    for op, body in [("GetResourcePolicy", {}), ("DeleteResourcePolicy", {}),
                     ("PutResourcePolicy", {"Policy": json.dumps(POLICY)})]:
        status, kind, message = call(endpoint, op, {"ResourceArn": missing, **body})
        assert (status, kind) == (400, "ResourceNotFoundException"), (op, message)
    status, kind, message = call(endpoint, "GetResourcePolicy", {"ResourceArn": "not-an-arn"})
    assert status == 400 and kind == "ValidationException", message


def test_dump_keeps_the_table_policy(tmp_path):
    """dump writes the table's policy into table-definition.json as
    CreateTable's ResourcePolicy; restore attaches it again."""
    bin = os.environ["DYNAROCK_BIN"]
    source = tmp_path / "items.json"
    source.write_text('{"Item":{"k":{"S":"a"}}}\n')
    definition = tmp_path / "t.json"
    definition.write_text(json.dumps({
        "TableName": "tbl", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST", "ResourcePolicy": json.dumps(POLICY)}))
    first, second, out = str(tmp_path / "db1"), str(tmp_path / "db2"), tmp_path / "out"
    out.mkdir()
    run = lambda *args: subprocess.run([bin, *args], capture_output=True, text=True)  # noqa: E731
    r = run("restore", first, str(source), "--table-definition", str(definition),
            "--input-format", "DYNAMODB_JSON", "--compression", "NONE")
    assert r.returncode == 0, r.stderr
    r = run("dump", first, "tbl", str(out))
    assert r.returncode == 0, r.stderr
    (export,) = (out / "AWSDynamoDB").iterdir()
    written = json.loads((export / "table-definition.json").read_text())
    assert json.loads(written["ResourcePolicy"]) == POLICY
    r = run("restore", second, str(export))
    assert r.returncode == 0, r.stderr
    again = tmp_path / "again"
    again.mkdir()
    r = run("dump", second, "tbl", str(again))
    assert r.returncode == 0, r.stderr
    (export,) = (again / "AWSDynamoDB").iterdir()
    written = json.loads((export / "table-definition.json").read_text())
    assert json.loads(written["ResourcePolicy"]) == POLICY
