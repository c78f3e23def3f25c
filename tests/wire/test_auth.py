"""`dynarock serve --auth`: AWS Signature V4 verified against configured keys,
as AWS verifies it: body hash, date skew, credential scope, signed headers."""
import datetime
import json
import os
import shutil
import signal
import subprocess
import urllib.request

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from conftest import get_json


@pytest.fixture(scope="module")
def auth_endpoint(tmp_path_factory):
    # Keys from all three sources: the flag, a file and the environment.
    keys = tmp_path_factory.mktemp("auth") / "keys"
    keys.write_text("# access key id:secret\nAKIDFILE:fromfile\n")
    proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--in-memory", "--port", "0",
                             "--region", "eu-west-1", "--auth", "AKIDLOCAL:s3cret",
                             "--auth", "AKIDOTHER:another", "--auth-file", str(keys)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, DYNAROCK_AUTH="AKIDENV:fromenv"))
    line = proc.stdout.readline()
    assert "serving" in line, proc.stderr.read()
    yield line.split()[4]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


class FixedTimeSigV4(SigV4Auth):
    """botocore's SigV4 signer at a chosen time (its add_auth reads the clock)."""

    def __init__(self, credentials, service, region, when):
        super().__init__(credentials, service, region)
        self.when = when

    def add_auth(self, request):
        request.context["timestamp"] = self.when.strftime("%Y%m%dT%H%M%SZ")
        self._modify_request_before_signing(request)
        string_to_sign = self.string_to_sign(request, self.canonical_request(request))
        self._inject_signature_to_request(request, self.signature(string_to_sign, request))


def signed(endpoint, body, region="eu-west-1", when=None, unsigned=(), payload_header=None):
    """A ListTables request signed by botocore's own signer, then optionally
    altered: another body after signing, a chosen date, headers left unsigned."""
    req = AWSRequest(method="POST", url=endpoint, data=body, headers={
        "X-Amz-Target": "DynamoDB_20120810.ListTables",
        "Content-Type": "application/x-amz-json-1.0"})
    if payload_header:
        req.headers["X-Amz-Content-SHA256"] = payload_header
    signer = FixedTimeSigV4(Credentials("AKIDLOCAL", "s3cret"), "dynamodb", region,
                            when or datetime.datetime.now(datetime.timezone.utc))
    headers_to_sign = signer.headers_to_sign

    def restricted(request):
        h = headers_to_sign(request)
        for name in unsigned:
            del h[name]
        return h
    signer.headers_to_sign = restricted
    signer.add_auth(req)
    return req


def send(req, body=None):
    r = urllib.request.Request(req.url, data=body if body is not None else req.body,
                               method="POST", headers=dict(req.headers.items()))
    try:
        with urllib.request.urlopen(r, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


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


def test_keys_from_file_and_environment_are_accepted(auth_endpoint):
    assert client(auth_endpoint, "AKIDFILE", "fromfile").list_tables()["TableNames"] == []
    assert client(auth_endpoint, "AKIDENV", "fromenv").list_tables()["TableNames"] == []


def test_signed_request_is_accepted_and_a_tampered_body_is_not(auth_endpoint):
    req = signed(auth_endpoint, b"{}")
    assert send(req) == (200, {"TableNames": []})
    # The same signature replayed with another body, even with the original
    # payload hash in x-amz-content-sha256, is refused.
    req = signed(auth_endpoint, b"{}", payload_header="44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a")
    status, body = send(req, b'{"Limit":1}')
    assert status == 400
    assert body["__type"] == "com.amazon.coral.service#InvalidSignatureException"


def test_stale_and_future_dates_are_refused(auth_endpoint):
    now = datetime.datetime.now(datetime.timezone.utc)
    status, body = send(signed(auth_endpoint, b"{}", when=now - datetime.timedelta(minutes=20)))
    assert status == 400 and body["message"].startswith("Signature expired: ")
    assert body["message"].endswith(" - 15 min.)")
    status, body = send(signed(auth_endpoint, b"{}", when=now + datetime.timedelta(minutes=20)))
    assert status == 400 and body["message"].startswith("Signature not yet current: ")
    # Within the window it is fine.
    assert send(signed(auth_endpoint, b"{}", when=now - datetime.timedelta(minutes=10)))[0] == 200


def test_scope_and_signed_headers_are_checked(auth_endpoint):
    status, body = send(signed(auth_endpoint, b"{}", region="us-west-2"))
    assert status == 400
    assert body["message"] == "Credential should be scoped to a valid region, not 'us-west-2'. "
    status, body = send(signed(auth_endpoint, b"{}", unsigned=("X-Amz-Target",)))
    assert status == 400 and "'X-Amz-Target' must be a 'SignedHeader'" in body["message"]
    status, body = send(signed(auth_endpoint, b"{}", unsigned=("host",)))
    assert status == 400 and "'Host' or ':authority' must be a 'SignedHeader'" in body["message"]


@pytest.mark.skipif(shutil.which("aws") is None, reason="awscli is not installed")
def test_awscli_signed_requests_are_accepted(auth_endpoint):
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDLOCAL", AWS_SECRET_ACCESS_KEY="s3cret",
               AWS_DEFAULT_REGION="eu-west-1", AWS_PAGER="")
    out = subprocess.run(["aws", "dynamodb", "list-tables", "--endpoint-url", auth_endpoint,
                          "--output", "json"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["TableNames"] == []


def test_the_console_api_needs_a_signature_too(auth_endpoint):
    url = auth_endpoint + "/console/api/hottest?window=60&limit=5"
    status, error = get_json(url)
    assert status == 400
    assert error["__type"] == "com.amazon.coral.service#MissingAuthenticationTokenException"
    # Signed by botocore: its canonical query (pairs sorted, encoded) is the
    # one the server computes from the query as sent, in any order.
    req = AWSRequest(method="GET", url=url)
    SigV4Auth(Credentials("AKIDLOCAL", "s3cret"), "dynamodb", "eu-west-1").add_auth(req)
    status, hottest = get_json(url, dict(req.headers.items()))
    assert status == 200, hottest
    assert hottest == {"WindowSeconds": hottest["WindowSeconds"], "Tables": []}
    # Another secret: refused.
    req = AWSRequest(method="GET", url=url)
    SigV4Auth(Credentials("AKIDLOCAL", "wrong"), "dynamodb", "eu-west-1").add_auth(req)
    status, error = get_json(url, dict(req.headers.items()))
    assert status == 400 and error["__type"].endswith("#InvalidSignatureException")


def test_top_signs_with_the_environments_keys(auth_endpoint):
    top = [os.environ["DYNAROCK_BIN"], "top", "--endpoint", auth_endpoint, "--once"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    r = subprocess.run(top, capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 1
    assert "MissingAuthenticationTokenException" in r.stderr
    assert "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in r.stderr, r.stderr
    env.update(AWS_ACCESS_KEY_ID="AKIDLOCAL", AWS_SECRET_ACCESS_KEY="s3cret",
               AWS_REGION="eu-west-1")
    r = subprocess.run(top, capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ["", "(no tables)"]
