"""`dynarock serve --auth`: AWS Signature V4 verified against configured keys."""
import json
import os
import signal
import subprocess
import urllib.request

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError


@pytest.fixture(scope="module")
def auth_endpoint():
    proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--in-memory", "--port", "0",
                             "--auth", "AKIDLOCAL:s3cret", "--auth", "AKIDOTHER:another"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, proc.stderr.read()
    yield line.split()[4]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


def client(endpoint, key, secret):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="eu-west-1",
                        aws_access_key_id=key, aws_secret_access_key=secret,
                        config=Config(retries={"max_attempts": 1}))


def test_valid_signatures_are_accepted(auth_endpoint):
    assert client(auth_endpoint, "AKIDLOCAL", "s3cret").list_tables()["TableNames"] == []
    assert client(auth_endpoint, "AKIDOTHER", "another").list_tables()["TableNames"] == []


@pytest.mark.parametrize("key,secret,code", [
    ("AKIDLOCAL", "wrong", "InvalidSignatureException"),
    ("AKIDNOBODY", "s3cret", "UnrecognizedClientException"),
])
def test_bad_credentials_are_rejected(auth_endpoint, key, secret, code):
    with pytest.raises(ClientError) as e:
        client(auth_endpoint, key, secret).list_tables()
    assert e.value.response["Error"]["Code"] == code


def test_unsigned_request_is_rejected(auth_endpoint):
    req = urllib.request.Request(auth_endpoint, data=b"{}", method="POST",
                                 headers={"X-Amz-Target": "DynamoDB_20120810.ListTables",
                                          "Content-Type": "application/x-amz-json-1.0"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    body = json.loads(e.value.read())
    assert body["__type"] == "com.amazon.coral.service#MissingAuthenticationTokenException"
