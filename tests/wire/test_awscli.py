"""AWS CLI smoke test: create-table, put-item, query, scan, delete-table."""
import json
import os
import shutil
import subprocess
import uuid

import pytest


@pytest.mark.skipif(shutil.which("aws") is None, reason="awscli is not installed")
def test_awscli_smoke(endpoint):
    env = dict(os.environ, AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="")

    def aws(*args):
        out = subprocess.run(["aws", "dynamodb", "--endpoint-url", endpoint, "--output", "json", *args],
                             env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout) if out.stdout.strip() else {}

    table = "cli-" + uuid.uuid4().hex[:8]
    aws("create-table", "--table-name", table,
        "--attribute-definitions", "AttributeName=pk,AttributeType=S", "AttributeName=sk,AttributeType=N",
        "--key-schema", "AttributeName=pk,KeyType=HASH", "AttributeName=sk,KeyType=RANGE",
        "--billing-mode", "PAY_PER_REQUEST")
    for sk in range(3):
        aws("put-item", "--table-name", table, "--item", json.dumps({"pk": {"S": "a"}, "sk": {"N": str(sk)}}))
    q = aws("query", "--table-name", table, "--key-condition-expression", "pk = :p AND sk > :s",
            "--expression-attribute-values", json.dumps({":p": {"S": "a"}, ":s": {"N": "0"}}))
    assert q["Count"] == 2
    assert aws("scan", "--table-name", table)["Count"] == 3
    aws("delete-table", "--table-name", table)
