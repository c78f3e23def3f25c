"""PartiQL over the wire with real clients: boto3's execute_statement,
batch_execute_statement and execute_transaction, and the AWS CLI, on the
fleet table (its META item, a ten-minute window newest first, the depot
index)."""
import json
import os
import shutil
import subprocess

import pytest
from botocore.exceptions import ClientError


def load(dynamodb, table):
    for v in ("V-7741", "V-7742"):
        dynamodb.execute_statement(
            Statement=f'INSERT INTO "{table}" VALUE {{\'vehicleId\': ?, \'recordedAt\': \'META\', '
                      f'\'model\': \'Transit\'}}',
            Parameters=[{"S": "VEH#" + v}])
        for minute in range(20):
            dynamodb.execute_statement(
                Statement=f'INSERT INTO "{table}" VALUE {{\'vehicleId\': ?, \'recordedAt\': ?, '
                          f'\'depotCode\': ?, \'speedKph\': ?}}',
                Parameters=[{"S": "VEH#" + v}, {"S": f"TS#2026-12-03T10:{minute:02d}"},
                            {"S": "DEP-LON-3" if v == "V-7741" else "DEP-MAN-1"},
                            {"N": str(40 + minute)}])


def pages(dynamodb, **kwargs):
    """Every page of a SELECT, following NextToken."""
    items, count = [], 0
    while True:
        out = dynamodb.execute_statement(**kwargs)
        items += out["Items"]
        count += 1
        if "NextToken" not in out:
            return items, count
        kwargs["NextToken"] = out["NextToken"]


def test_fleet_statements(dynamodb, fleet_table):
    load(dynamodb, fleet_table)
    meta = dynamodb.execute_statement(
        Statement=f'SELECT * FROM "{fleet_table}" WHERE vehicleId = ? AND recordedAt = \'META\'',
        Parameters=[{"S": "VEH#V-7741"}])
    assert meta["Items"] == [{"vehicleId": {"S": "VEH#V-7741"}, "recordedAt": {"S": "META"},
                              "model": {"S": "Transit"}}]

    # The ten-minute window, newest first, three items a page.
    window, count = pages(
        dynamodb,
        Statement=f'SELECT recordedAt, speedKph FROM "{fleet_table}" WHERE vehicleId = ? AND '
                  f'recordedAt BETWEEN ? AND ? ORDER BY recordedAt DESC',
        Parameters=[{"S": "VEH#V-7741"}, {"S": "TS#2026-12-03T10:05"},
                    {"S": "TS#2026-12-03T10:14"}],
        Limit=3)
    assert [i["recordedAt"]["S"][-2:] for i in window] == [f"{m:02d}" for m in range(14, 4, -1)]
    assert count == 4

    depot = dynamodb.execute_statement(
        Statement=f'SELECT vehicleId, recordedAt FROM "{fleet_table}"."ByDepot" '
                  f'WHERE depotCode = \'DEP-LON-3\' ORDER BY recordedAt DESC',
        ReturnConsumedCapacity="TOTAL")
    assert len(depot["Items"]) == 20
    assert depot["Items"][0]["recordedAt"]["S"] == "TS#2026-12-03T10:19"
    assert depot["ConsumedCapacity"]["CapacityUnits"] > 0

    updated = dynamodb.execute_statement(
        Statement=f'UPDATE "{fleet_table}" SET mileage = 10 SET model = \'eTransit\' '
                  f'WHERE vehicleId = \'VEH#V-7741\' AND recordedAt = \'META\' RETURNING ALL NEW *')
    assert updated["Items"][0]["mileage"] == {"N": "10"}
    dynamodb.execute_statement(
        Statement=f'DELETE FROM "{fleet_table}" WHERE vehicleId = \'VEH#V-7742\' AND recordedAt = \'META\'')
    gone = dynamodb.get_item(TableName=fleet_table,
                             Key={"vehicleId": {"S": "VEH#V-7742"}, "recordedAt": {"S": "META"}})
    assert "Item" not in gone


def test_errors_have_dynamodbs_names(dynamodb, fleet_table):
    dynamodb.execute_statement(
        Statement=f'INSERT INTO "{fleet_table}" VALUE {{\'vehicleId\': \'a\', \'recordedAt\': \'b\'}}')
    cases = [
        (f'INSERT INTO "{fleet_table}" VALUE {{\'vehicleId\': \'a\', \'recordedAt\': \'b\'}}',
         "DuplicateItemException", "Duplicate primary key exists in table"),
        (f'UPDATE "{fleet_table}" SET x = 1 WHERE vehicleId = \'a\' AND recordedAt = \'none\'',
         "ConditionalCheckFailedException", "The conditional request failed"),
        ("SELEKT * FROM t", "ValidationException",
         "Statement wasn't well formed, can't be processed: Expected data manipulation"),
        ('SELECT * FROM "no-such-table"', "ResourceNotFoundException", None),
    ]
    for statement, code, message in cases:
        with pytest.raises(ClientError) as e:
            dynamodb.execute_statement(Statement=statement)
        assert e.value.response["Error"]["Code"] == code, statement
        if message:
            assert e.value.response["Error"]["Message"] == message


def test_batch_and_transaction(dynamodb, fleet_table):
    t = fleet_table
    out = dynamodb.batch_execute_statement(Statements=[
        {"Statement": f'INSERT INTO "{t}" VALUE {{\'vehicleId\': \'VEH#1\', \'recordedAt\': \'META\'}}'},
        {"Statement": f'INSERT INTO "{t}" VALUE {{\'vehicleId\': \'VEH#2\', \'recordedAt\': \'META\'}}'},
    ])
    assert [r.get("Error") for r in out["Responses"]] == [None, None]
    out = dynamodb.batch_execute_statement(Statements=[
        {"Statement": f'SELECT * FROM "{t}" WHERE vehicleId = ? AND recordedAt = \'META\'',
         "Parameters": [{"S": "VEH#1"}]},
        {"Statement": f'SELECT * FROM "{t}" WHERE vehicleId = \'VEH#3\' AND recordedAt = \'META\''},
        {"Statement": f'SELECT * FROM "{t}" WHERE vehicleId = \'VEH#2\''},
    ])
    r = out["Responses"]
    assert r[0]["Item"]["vehicleId"] == {"S": "VEH#1"} and r[0]["TableName"] == t
    assert "Item" not in r[1] and "Error" not in r[1]
    assert r[2]["Error"]["Code"] == "ValidationError"

    # All or nothing: the duplicate INSERT cancels the UPDATE.
    with pytest.raises(ClientError) as e:
        dynamodb.execute_transaction(TransactStatements=[
            {"Statement": f'UPDATE "{t}" SET n = 1 WHERE vehicleId = \'VEH#1\' AND recordedAt = \'META\''},
            {"Statement": f'INSERT INTO "{t}" VALUE {{\'vehicleId\': \'VEH#2\', \'recordedAt\': \'META\'}}'},
        ])
    assert e.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [c["Code"] for c in e.value.response["CancellationReasons"]] == ["None", "DuplicateItem"]
    item = dynamodb.get_item(TableName=t, Key={"vehicleId": {"S": "VEH#1"},
                                               "recordedAt": {"S": "META"}})["Item"]
    assert "n" not in item

    dynamodb.execute_transaction(TransactStatements=[
        {"Statement": f'UPDATE "{t}" SET n = 1 WHERE vehicleId = \'VEH#1\' AND recordedAt = \'META\''},
        {"Statement": f'EXISTS(SELECT * FROM "{t}" WHERE vehicleId = \'VEH#2\' AND recordedAt = \'META\')'},
    ])
    read = dynamodb.execute_transaction(TransactStatements=[
        {"Statement": f'SELECT n FROM "{t}" WHERE vehicleId = \'VEH#1\' AND recordedAt = \'META\''},
        {"Statement": f'SELECT * FROM "{t}" WHERE vehicleId = \'VEH#9\' AND recordedAt = \'META\''},
    ])
    assert read["Responses"] == [{"Item": {"n": {"N": "1"}}}, {}]


@pytest.mark.skipif(shutil.which("aws") is None, reason="awscli is not installed")
def test_awscli_execute_statement(endpoint, dynamodb, fleet_table):
    env = dict(os.environ, AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="")

    def aws(*args):
        out = subprocess.run(["aws", "dynamodb", "--endpoint-url", endpoint, "--output", "json",
                              *args], env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout) if out.stdout.strip() else {}

    aws("execute-statement", "--statement",
        f'INSERT INTO "{fleet_table}" VALUE {{\'vehicleId\': \'VEH#CLI\', \'recordedAt\': \'META\', '
        f'\'model\': \'Vito\'}}')
    out = aws("execute-statement", "--statement",
              f'SELECT model FROM "{fleet_table}" WHERE vehicleId = ? AND recordedAt = \'META\'',
              "--parameters", json.dumps([{"S": "VEH#CLI"}]))
    assert out["Items"] == [{"model": {"S": "Vito"}}]
    out = aws("batch-execute-statement", "--statements", json.dumps([
        {"Statement": f'SELECT * FROM "{fleet_table}" WHERE vehicleId = \'VEH#CLI\' AND recordedAt = \'META\''}]))
    assert out["Responses"][0]["Item"]["model"] == {"S": "Vito"}
