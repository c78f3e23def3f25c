"""The Export/Import APIs and point-in-time recovery through boto3 and the AWS
CLI, on a server with --s3-dir (bucket b is the folder <s3-dir>/b)."""
import base64
import csv
import gzip
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from jobs import wait

ACCOUNT = "000000000000"


class Server:
    def __init__(self, tmp):
        self.data = os.path.join(tmp, "db")
        self.s3 = os.path.join(tmp, "s3")
        os.makedirs(os.path.join(self.s3, "bucket"), exist_ok=True)
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [os.environ["DYNAROCK_BIN"], "serve", "--data-dir", self.data, "--port", "0",
             "--s3-dir", self.s3], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert "serving" in line, self.proc.stderr.read()
        self.url = line.split()[4]
        self.client = boto3.client("dynamodb", endpoint_url=self.url, region_name="us-east-1",
                                   aws_access_key_id="local", aws_secret_access_key="local",
                                   config=Config(retries={"max_attempts": 1}))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=60) == 0


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(str(tmp_path_factory.mktemp("jobs")))
    yield s
    s.stop()


def raw_call(server, operation, body):
    """A request as JSON, for members newer than botocore 1.29's model."""
    req = urllib.request.Request(
        server.url, data=json.dumps(body).encode(),
        headers={"Content-Type": "application/x-amz-json-1.0",
                 "X-Amz-Target": "DynamoDB_20120810." + operation})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def arn(table):
    return "arn:aws:dynamodb:us-east-1:%s:table/%s" % (ACCOUNT, table)


def error(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def make_table(ddb, items=0, pitr=True, gsi=False):
    name = "jobs-" + uuid.uuid4().hex[:8]
    defs = [{"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"}]
    extra = {}
    if gsi:
        defs.append({"AttributeName": "depot", "AttributeType": "S"})
        extra["GlobalSecondaryIndexes"] = [{
            "IndexName": "ByDepot",
            "KeySchema": [{"AttributeName": "depot", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}]
    ddb.create_table(TableName=name, AttributeDefinitions=defs,
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     BillingMode="PAY_PER_REQUEST", **extra)
    for i in range(items):
        item = {"pk": {"S": "VEH#%d" % (i % 7)}, "sk": {"N": str(i)},
                "depot": {"S": "DEP-%d" % (i % 3)}, "speed": {"N": "%d.5" % i},
                "tags": {"SS": ["a", "b%d" % i]}, "raw": {"B": bytes([i % 256, 1])}}
        ddb.put_item(TableName=name, Item=item)
    if pitr:
        ddb.update_continuous_backups(
            TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    return name


def wait_export(ddb, export_arn):
    return wait(lambda: ddb.describe_export(ExportArn=export_arn), "ExportDescription",
                "ExportStatus")


def wait_import(ddb, import_arn):
    return wait(lambda: ddb.describe_import(ImportArn=import_arn), "ImportTableDescription",
                "ImportStatus")


def scan_all(ddb, table, **kwargs):
    items, start = [], {}
    while True:
        page = ddb.scan(TableName=table, **kwargs, **start)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return sorted(items, key=lambda i: (i["pk"]["S"], int(i["sk"]["N"])))
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


# ---- Point-in-time recovery -----------------------------------------------------------------

def test_continuous_backups(server):
    ddb = server.client
    name = make_table(ddb, pitr=False)
    d = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    assert d["ContinuousBackupsStatus"] == "ENABLED"
    assert d["PointInTimeRecoveryDescription"] == {"PointInTimeRecoveryStatus": "DISABLED"}
    before = time.time()
    d = ddb.update_continuous_backups(
        TableName=name,
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    p = d["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert p["PointInTimeRecoveryStatus"] == "ENABLED"  # synchronous
    assert p["EarliestRestorableDateTime"] == p["LatestRestorableDateTime"]
    assert abs(p["EarliestRestorableDateTime"].timestamp() - before) < 5
    # Idempotent; DescribeContinuousBackups agrees.
    ddb.update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    p = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"][
        "PointInTimeRecoveryDescription"]
    assert p["PointInTimeRecoveryStatus"] == "ENABLED"
    assert ddb.update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False})[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"] == {
        "PointInTimeRecoveryStatus": "DISABLED"}
    assert error(ddb.describe_continuous_backups, TableName="no-such-table") == (
        "TableNotFoundException", "Table not found: no-such-table")
    assert error(ddb.update_continuous_backups, TableName="no-such-table",
                 PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})[0] == \
        "TableNotFoundException"
    # RecoveryPeriodInDays (newer than botocore 1.29: raw requests).
    def raw(spec):
        return raw_call(server, "UpdateContinuousBackups",
                        {"TableName": name, "PointInTimeRecoverySpecification": spec})
    status, body = raw({"PointInTimeRecoveryEnabled": False, "RecoveryPeriodInDays": 7})
    assert (status, body["message"]) == (400, "Invalid Request: Cannot specify "
                                              "RecoveryPeriodInDays when disabling point-in-time "
                                              "recovery.")
    status, body = raw({"PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 36})
    assert (status, body["message"]) == (400, (
        "1 validation error detected: Value '36' at "
        "'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: "
        "Member must have value less than or equal to 35"))
    status, body = raw({"PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 7})
    p = body["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert (status, p["PointInTimeRecoveryStatus"], p["RecoveryPeriodInDays"]) == (200, "ENABLED", 7)
    # A disable then an enable: the period reverts to 35.
    raw({"PointInTimeRecoveryEnabled": False})
    status, body = raw({"PointInTimeRecoveryEnabled": True})
    assert body["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"][
        "RecoveryPeriodInDays"] == 35
    ddb.delete_table(TableName=name)


# ---- ExportTableToPointInTime ---------------------------------------------------------------

def test_export_request_errors_in_order(server):
    ddb = server.client
    name = make_table(ddb, items=1, pitr=False)
    exp = ddb.export_table_to_point_in_time
    assert error(exp, TableArn=name, S3Bucket="bucket") == (
        "ValidationException",
        "One or more parameter values were invalid: tableArn is not a valid ARN")
    assert error(exp, TableArn=arn(name) + "/index/ByDepot", S3Bucket="bucket") == (
        "ValidationException", "Invalid Request: Table ARN is invalid.")
    assert error(exp, TableArn=arn(name).replace(ACCOUNT, "111111111111"),
                 S3Bucket="bucket") == ("AccessDeniedException", "Access is denied")
    assert error(exp, TableArn=arn("missing-table"), S3Bucket="bucket") == (
        "TableNotFoundException", "Table not found: " + arn("missing-table"))
    # The PITR check precedes every S3 check.
    assert error(exp, TableArn=arn(name), S3Bucket="bucket", S3SseKmsKeyId="k") == (
        "PointInTimeRecoveryUnavailableException",
        "Point in time recovery is not enabled for table '%s'" % name)
    ddb.update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    assert error(exp, TableArn=arn(name), S3Bucket="bucket", ExportTime=time.time() + 3600) == (
        "InvalidExportTimeException", "Export Time is invalid")
    assert error(exp, TableArn=arn(name), S3Bucket="bucket", ExportTime=time.time() - 86400) == (
        "InvalidExportTimeException", "Export Time is invalid")
    assert error(exp, TableArn=arn(name), S3Bucket="bucket", S3SseKmsKeyId="k") == (
        "ValidationException",
        "Invalid Request: KMS Key Id is not supported for this encryption type")
    # The model's constraints, in coral's words.
    assert error(exp, TableArn=arn(name), S3Bucket="bucket", ExportFormat="QWERTY") == (
        "ValidationException",
        "1 validation error detected: Value 'QWERTY' at 'exportFormat' failed to satisfy "
        "constraint: Member must satisfy enum value set: [ION, DYNAMODB_JSON]")
    assert error(exp, TableArn=arn(name), S3Bucket="no such bucket!")[1].endswith(
        "Member must satisfy regular expression pattern: "
        "^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$")
    assert error(exp, TableArn=arn(name), S3Bucket="bucket", ClientToken="a$b")[1].endswith(
        "Member must satisfy regular expression pattern: ^[^\\$]+$")
    # Incremental exports: DynamoDB's coupling rules, then its window checks,
    # which a table with under 15 minutes of history (here: always) fails.
    def incremental(**members):
        status, body = raw_call(server, "ExportTableToPointInTime",
                                dict({"TableArn": arn(name), "S3Bucket": "bucket"}, **members))
        assert status == 400
        return body["__type"].split("#")[1], body["message"]
    now = time.time()
    assert incremental(IncrementalExportSpecification={"ExportFromTime": now}) == (
        "ValidationException", "Invalid Request: Export Type expected to be Incremental Export "
        "when incremental export specification is provided")
    assert incremental(ExportType="FULL_EXPORT",
                       IncrementalExportSpecification={"ExportFromTime": now}) == (
        "ValidationException", "Invalid Request: When Export Type is Full Export , Incremental "
        "Export Specification should not be provided")
    assert incremental(ExportType="INCREMENTAL_EXPORT") == (
        "ValidationException", "Invalid Request: Incremental Export Specification expected when "
        "export type is set as Incremental Export")
    assert incremental(ExportType="INCREMENTAL_EXPORT",
                       IncrementalExportSpecification={"ExportViewType": "NEW_IMAGE"}) == (
        "ValidationException",
        "Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification")
    assert incremental(ExportType="INCREMENTAL_EXPORT",
                       IncrementalExportSpecification={"ExportFromTime": now - 7200})[1].startswith(
        "Incremental export period from time cannot be less than the table creation time : ")
    assert incremental(ExportType="INCREMENTAL_EXPORT",
                       IncrementalExportSpecification={"ExportFromTime": now}) == (
        "InvalidExportTimeException", "Difference between export period from time and export "
        "period to time is less than 15 minutes")
    assert incremental(ExportType="INCREMENTAL_EXPORT", IncrementalExportSpecification={
        "ExportFromTime": now, "ExportToTime": now + 3600})[1].startswith(
        "Incremental export period to time cannot be greater than the current time : ")
    assert incremental(ExportType="BOGUS") == (
        "ValidationException", "1 validation error detected: Value 'BOGUS' at 'exportType' "
        "failed to satisfy constraint: Member must satisfy enum value set: "
        "[FULL_EXPORT, INCREMENTAL_EXPORT]")
    assert ddb.list_exports(TableArn=arn(name))["ExportSummaries"] == []  # nothing started
    ddb.delete_table(TableName=name)


def read_export(root, manifest_key):
    """The items of a finished export, checking every checksum on the way."""
    export_dir = os.path.join(root, os.path.dirname(manifest_key))
    with open(os.path.join(export_dir, "manifest-summary.json"), "rb") as f:
        summary_bytes = f.read()
    with open(os.path.join(export_dir, "manifest-summary.md5")) as f:
        assert f.read().strip() == base64.b64encode(hashlib.md5(summary_bytes).digest()).decode()
    summary = json.loads(summary_bytes)
    with open(os.path.join(export_dir, "manifest-files.json"), "rb") as f:
        files_bytes = f.read()
    with open(os.path.join(export_dir, "manifest-files.md5")) as f:
        assert f.read().strip() == base64.b64encode(hashlib.md5(files_bytes).digest()).decode()
    assert summary["manifestFilesS3Key"] == os.path.join(os.path.dirname(manifest_key),
                                                         "manifest-files.json")
    items = []
    for line in files_bytes.decode().splitlines():
        entry = json.loads(line)
        with open(os.path.join(root, entry["dataFileS3Key"]), "rb") as f:
            data = f.read()
        assert base64.b64encode(hashlib.md5(data).digest()).decode() == entry["md5Checksum"]
        lines = gzip.decompress(data).decode().splitlines()
        assert len(lines) == entry["itemCount"]
        items += [json.loads(x)["Item"] for x in lines]
    assert summary["itemCount"] == len(items)
    return summary, items


def test_export_then_import_round_trip(server):
    ddb = server.client
    name = make_table(ddb, items=40, gsi=True)
    out = ddb.export_table_to_point_in_time(TableArn=arn(name), S3Bucket="bucket",
                                            S3Prefix="fleet", ClientToken="tok-" + name)
    d = out["ExportDescription"]
    assert d["ExportStatus"] == "IN_PROGRESS"
    assert d["ExportFormat"] == "DYNAMODB_JSON" and d["S3SseAlgorithm"] == "AES256"
    assert d["ExportTime"] == d["StartTime"]
    export_id = d["ExportArn"].rsplit("/", 1)[1]
    assert d["ExportArn"] == arn(name) + "/export/" + export_id
    assert export_id[:14] == "%014d" % int(d["StartTime"].timestamp() * 1000 + 0.5)
    assert "EndTime" not in d and "ExportType" not in d
    # Written while the export runs: not in it or in it, never half.
    done = wait_export(ddb, d["ExportArn"])
    assert done["ExportStatus"] == "COMPLETED", done
    assert done["ItemCount"] == 40
    assert done["ExportManifest"] == "fleet/AWSDynamoDB/%s/manifest-summary.json" % export_id
    bucket = os.path.join(server.s3, "bucket")
    summary, items = read_export(bucket, done["ExportManifest"])
    assert summary["exportArn"] == d["ExportArn"] and summary["s3Bucket"] == "bucket"
    assert os.path.exists(os.path.join(bucket, "fleet/AWSDynamoDB", export_id, "_started"))
    original = scan_all(ddb, name)
    assert sorted(items, key=lambda i: (i["pk"]["S"], int(i["sk"]["N"]))) == [
        json.loads(json.dumps(i, default=lambda b: base64.b64encode(b).decode()))
        for i in original]

    # The same ClientToken and parameters: the same export; other parameters: a conflict.
    again = ddb.export_table_to_point_in_time(TableArn=arn(name), S3Bucket="bucket",
                                              S3Prefix="fleet", ClientToken="tok-" + name)
    assert again["ExportDescription"]["ExportArn"] == d["ExportArn"]
    assert again["ExportDescription"]["ExportStatus"] == "COMPLETED"
    assert error(ddb.export_table_to_point_in_time, TableArn=arn(name), S3Bucket="bucket",
                 S3Prefix="other", ClientToken="tok-" + name) == (
        "ExportConflictException",
        "Export conflict: Duplicate request detected with conflicting parameters")

    # ImportTable reads the export's data folder into a new table, GSI included.
    target = name + "-copy"
    params = {"TableName": target,
              "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                       {"AttributeName": "sk", "AttributeType": "N"},
                                       {"AttributeName": "depot", "AttributeType": "S"}],
              "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                            {"AttributeName": "sk", "KeyType": "RANGE"}],
              "BillingMode": "PAY_PER_REQUEST",
              "GlobalSecondaryIndexes": [{
                  "IndexName": "ByDepot",
                  "KeySchema": [{"AttributeName": "depot", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                  "Projection": {"ProjectionType": "ALL"}}]}
    prefix = "fleet/AWSDynamoDB/%s/data/" % export_id
    started = ddb.import_table(S3BucketSource={"S3Bucket": "bucket", "S3KeyPrefix": prefix},
                               InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
                               TableCreationParameters=params, ClientToken="imp-" + name)
    i = started["ImportTableDescription"]
    assert i["ImportStatus"] == "IN_PROGRESS"
    assert i["TableArn"] == arn(target) and i["TableId"]
    assert i["TableCreationParameters"] == params  # echoed
    assert i["S3BucketSource"] == {"S3Bucket": "bucket", "S3KeyPrefix": prefix,
                                   "S3BucketOwner": ACCOUNT}
    assert i["CloudWatchLogGroupArn"] == \
        "arn:aws:logs:us-east-1:%s:log-group:/aws-dynamodb/imports:*" % ACCOUNT
    done = wait_import(ddb, i["ImportArn"])
    assert done["ImportStatus"] == "COMPLETED", done
    assert (done["ProcessedItemCount"], done["ImportedItemCount"], done["ErrorCount"]) == (40, 40, 0)
    assert done["ProcessedSizeBytes"] > 0
    table = ddb.describe_table(TableName=target)["Table"]
    assert table["TableStatus"] == "ACTIVE" and table["TableId"] == i["TableId"]
    assert scan_all(ddb, target) == original
    q = lambda t: ddb.query(TableName=t, IndexName="ByDepot",
                            KeyConditionExpression="depot = :d",
                            ExpressionAttributeValues={":d": {"S": "DEP-1"}},
                            ScanIndexForward=False)["Items"]
    assert q(target) == q(name) and len(q(target)) == 13
    # A replay once the table exists: ResourceInUseException.
    assert error(ddb.import_table,
                 S3BucketSource={"S3Bucket": "bucket", "S3KeyPrefix": prefix},
                 InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
                 TableCreationParameters=params, ClientToken="imp-" + name) == (
        "ResourceInUseException", "Table already exists: " + target)
    ddb.delete_table(TableName=target)
    ddb.delete_table(TableName=name)


def test_export_ion_and_missing_bucket(server):
    ddb = server.client
    name = make_table(ddb, items=3)
    d = ddb.export_table_to_point_in_time(TableArn=arn(name), S3Bucket="bucket",
                                          ExportFormat="ION")["ExportDescription"]
    done = wait_export(ddb, d["ExportArn"])
    assert done["ExportStatus"] == "COMPLETED" and done["ExportFormat"] == "ION"
    export_dir = os.path.join(server.s3, "bucket", os.path.dirname(done["ExportManifest"]))
    with open(os.path.join(export_dir, "manifest-files.json")) as f:
        keys = [json.loads(line)["dataFileS3Key"] for line in f]
    assert keys and all(k.endswith(".ion.gz") for k in keys)
    lines = []
    for k in keys:
        with gzip.open(os.path.join(server.s3, "bucket", k), "rt") as f:
            lines += f.read().splitlines()
    assert len(lines) == 3 and all(x.startswith("$ion_1_0 {Item:{") for x in lines)

    # A bucket that does not exist: accepted, then FAILED.
    d = ddb.export_table_to_point_in_time(TableArn=arn(name),
                                          S3Bucket="no-such-bucket")["ExportDescription"]
    assert d["ExportStatus"] == "IN_PROGRESS"
    done = wait_export(ddb, d["ExportArn"])
    assert done["ExportStatus"] == "FAILED" and done["FailureCode"] == "S3NoSuchBucket"
    assert done["FailureMessage"].startswith(
        "The specified bucket does not exist (Service: Amazon S3; Status Code: 404; "
        "Error Code: NoSuchBucket; Request ID: ")
    assert not os.path.exists(os.path.join(server.s3, "no-such-bucket"))
    ddb.delete_table(TableName=name)


def test_describe_and_list_exports(server):
    ddb = server.client
    name = make_table(ddb, items=1)
    arns = []
    for _ in range(3):
        arns.append(ddb.export_table_to_point_in_time(
            TableArn=arn(name), S3Bucket="bucket")["ExportDescription"]["ExportArn"])
        time.sleep(0.002)  # distinct start milliseconds
    for a in arns:
        wait_export(ddb, a)
    # Newest first, paged.
    page = ddb.list_exports(TableArn=arn(name), MaxResults=2)
    assert [s["ExportArn"] for s in page["ExportSummaries"]] == arns[::-1][:2]
    assert all(s["ExportStatus"] == "COMPLETED" for s in page["ExportSummaries"])
    rest = ddb.list_exports(TableArn=arn(name), MaxResults=2, NextToken=page["NextToken"])
    assert [s["ExportArn"] for s in rest["ExportSummaries"]] == [arns[0]]
    assert "NextToken" not in rest
    assert error(ddb.list_exports, NextToken="nonsense") == (
        "ValidationException", "Invalid Request: Provided nextToken is invalid: nonsense")
    assert error(ddb.describe_export, ExportArn=arn(name) + "/export/01234567890123-deadbeef") == (
        "ExportNotFoundException",
        "Export not found: Export not found: " + arn(name) + "/export/01234567890123-deadbeef")
    assert error(ddb.describe_export, ExportArn=arn(name) + "/stream/2020")[1] == \
        "Invalid Export ARN"
    # After the table is deleted: ListExports with its ARN is empty, DescribeExport works.
    ddb.delete_table(TableName=name)
    assert ddb.list_exports(TableArn=arn(name))["ExportSummaries"] == []
    assert ddb.describe_export(ExportArn=arns[0])["ExportDescription"]["ExportStatus"] == \
        "COMPLETED"


# ---- ImportTable ----------------------------------------------------------------------------

def put_object(server, key, data):
    path = os.path.join(server.s3, "bucket", key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def simple_params(name, **extra):
    return dict({"TableName": name,
                 "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                 "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                 "BillingMode": "PAY_PER_REQUEST"}, **extra)


def test_import_bad_items_fail_the_job_but_the_rest_loads(server):
    ddb = server.client
    tag = uuid.uuid4().hex[:8]
    lines = ['{"Item":{"id":{"S":"a"},"n":{"N":"1"}}}',
             '{"Item":{"other":{"S":"no key"}}}',
             'not json at all',
             '{"Item":{"id":{"N":"5"}}}',
             '{"Item":{"id":{"S":"b"}}}']
    put_object(server, "bad-%s/part-1.json" % tag, "\n".join(lines).encode())
    name = "imp-" + tag
    d = ddb.import_table(S3BucketSource={"S3Bucket": "bucket", "S3KeyPrefix": "bad-" + tag},
                         InputFormat="DYNAMODB_JSON",
                         TableCreationParameters=simple_params(name))["ImportTableDescription"]
    assert d["InputCompressionType"] == "NONE"  # echoed default
    done = wait_import(ddb, d["ImportArn"])
    assert done["ImportStatus"] == "FAILED"
    assert done["FailureCode"] == "ItemValidationError"
    assert done["FailureMessage"] == (
        "Some of the items failed validation checks and were not imported. Please check "
        "CloudWatch error logs for more details.")
    assert (done["ProcessedItemCount"], done["ImportedItemCount"], done["ErrorCount"]) == (5, 2, 3)
    assert sorted(i["id"]["S"] for i in scan_all_simple(ddb, name)) == ["a", "b"]
    import_id = d["ImportArn"].rsplit("/", 1)[1]
    with open(os.path.join(server.s3, ".cloudwatch/aws-dynamodb/imports", import_id,
                           "error")) as f:
        events = [json.loads(line) for line in f]
    assert [e["itemS3Pointer"]["itemIndex"] for e in events] == [1, 2, 3]
    assert all(e["itemS3Pointer"]["key"] == "bad-%s/part-1.json" % tag and
               e["itemS3Pointer"]["bucket"] == "bucket" and
               e["importArn"] == d["ImportArn"] for e in events)
    assert "Missing the key id" in events[0]["errorMessages"][0]
    ddb.delete_table(TableName=name)


def scan_all_simple(ddb, table):
    return ddb.scan(TableName=table)["Items"]


def test_import_csv_with_header_and_delimiter(server):
    ddb = server.client
    tag = uuid.uuid4().hex[:8]
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";")
    w.writerow(["x1", "7", "hello; world"])
    w.writerow(["x2", "8", "plain"])
    put_object(server, "csv-%s/a.csv" % tag, gzip.compress(buf.getvalue().encode()))
    name = "csv-" + tag
    params = simple_params(name, AttributeDefinitions=[
        {"AttributeName": "id", "AttributeType": "S"}])
    d = ddb.import_table(
        S3BucketSource={"S3Bucket": "bucket", "S3KeyPrefix": "csv-" + tag},
        InputFormat="CSV", InputCompressionType="GZIP",
        InputFormatOptions={"Csv": {"Delimiter": ";", "HeaderList": ["id", "count", "note"]}},
        TableCreationParameters=params)["ImportTableDescription"]
    assert d["InputFormatOptions"] == {
        "Csv": {"Delimiter": ";", "HeaderList": ["id", "count", "note"]}}
    done = wait_import(ddb, d["ImportArn"])
    assert done["ImportStatus"] == "COMPLETED", done
    items = sorted(scan_all_simple(ddb, name), key=lambda i: i["id"]["S"])
    # Non-key columns import as S.
    assert items == [{"id": {"S": "x1"}, "count": {"S": "7"}, "note": {"S": "hello; world"}},
                     {"id": {"S": "x2"}, "count": {"S": "8"}, "note": {"S": "plain"}}]
    ddb.delete_table(TableName=name)


def test_import_synchronous_errors(server):
    ddb = server.client
    existing = make_table(ddb, pitr=False)
    src = {"S3Bucket": "bucket", "S3KeyPrefix": "nothing-here"}
    imp = ddb.import_table
    assert error(imp, S3BucketSource=src, InputFormat="DYNAMODB_JSON",
                 TableCreationParameters=simple_params(existing)) == (
        "ResourceInUseException", "Table already exists: " + existing)
    assert error(imp, S3BucketSource=src, InputFormat="DYNAMODB_JSON",
                 InputFormatOptions={"Csv": {"Delimiter": ","}},
                 TableCreationParameters=simple_params("x-" + existing)) == (
        "ValidationException",
        "Invalid Request: Unsupported InputFormatOptions for the given input format: "
        "DYNAMODB_JSON.")
    p = simple_params("x-" + existing)
    del p["BillingMode"]  # PROVISIONED, which needs throughput
    assert error(imp, S3BucketSource=src, InputFormat="DYNAMODB_JSON",
                 TableCreationParameters=p) == (
        "ValidationException",
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits "
        "must both be specified when BillingMode is PROVISIONED")
    assert error(imp, S3BucketSource=src, InputFormat="DYNAMODB_JSON",
                 InputCompressionType="BZIP2",
                 TableCreationParameters=simple_params("x-" + existing)) == (
        "ValidationException",
        "1 validation error detected: Value 'BZIP2' at 'inputCompressionType' failed to "
        "satisfy constraint: Member must satisfy enum value set: [ZSTD, NONE, GZIP]")
    assert error(imp, S3BucketSource=src, InputFormat="CSV",
                 InputFormatOptions={"Csv": {"Delimiter": "x"}},
                 TableCreationParameters=simple_params("x-" + existing))[1] == (
        "1 validation error detected: Value 'x' at 'inputFormatOptions.csv.delimiter' failed "
        "to satisfy constraint: Member must satisfy regular expression pattern: [,;:|\\t ]")
    assert error(ddb.describe_import, ImportArn=arn(existing) + "/import/01234567890123-0000") == (
        "ImportNotFoundException",
        "Import not found: " + arn(existing) + "/import/01234567890123-0000")
    assert error(ddb.describe_import, ImportArn=arn(existing) + "/export/01234567890123-00")[1] == \
        "Invalid Import ARN"
    ddb.delete_table(TableName=existing)


def test_import_client_token_and_empty_prefix(server):
    ddb = server.client
    name = "empty-" + uuid.uuid4().hex[:8]
    src = {"S3Bucket": "bucket", "S3KeyPrefix": "nothing-matches-" + name}
    d = ddb.import_table(S3BucketSource=src, InputFormat="ION", ClientToken="t-" + name,
                         TableCreationParameters=simple_params(name))["ImportTableDescription"]
    with pytest.raises(ClientError) as e:  # same token, another table name
        ddb.import_table(S3BucketSource=src, InputFormat="ION", ClientToken="t-" + name,
                         TableCreationParameters=simple_params(name + "x"))
    assert e.value.response["Error"] == {
        "Code": "ImportConflictException",
        "Message": "Import conflict: Duplicate request detected with conflicting parameters"}
    first = d
    done = wait_import(ddb, d["ImportArn"])
    assert done["ImportStatus"] == "COMPLETED" and done["ProcessedItemCount"] == 0
    assert ddb.describe_table(TableName=name)["Table"]["ItemCount"] == 0
    # Missing bucket: FAILED, and no table.
    d = ddb.import_table(S3BucketSource={"S3Bucket": "no-bucket-" + name},
                         InputFormat="CSV",
                         TableCreationParameters=simple_params(name + "-2"))[
        "ImportTableDescription"]
    done = wait_import(ddb, d["ImportArn"])
    assert done["ImportStatus"] == "FAILED" and done["FailureCode"] == "S3NoSuchBucket"
    assert error(ddb.describe_table, TableName=name + "-2")[0] == "ResourceNotFoundException"
    summaries = ddb.list_imports(PageSize=25)["ImportSummaryList"]
    assert summaries[0]["ImportArn"] == d["ImportArn"]  # newest first
    assert summaries[0]["ImportStatus"] == "FAILED"
    # By table: the imports that made the table of that name as it is now.
    assert [x["ImportArn"] for x in ddb.list_imports(TableArn=arn(name))["ImportSummaryList"]] \
        == [first["ImportArn"]]
    ddb.delete_table(TableName=name)


def test_jobs_survive_a_restart(tmp_path):
    s = Server(str(tmp_path))
    try:
        name = make_table(s.client, items=5)
        d = s.client.export_table_to_point_in_time(TableArn=arn(name),
                                                   S3Bucket="bucket")["ExportDescription"]
        wait_export(s.client, d["ExportArn"])
        s.stop()
        s.start()
        again = s.client.describe_export(ExportArn=d["ExportArn"])["ExportDescription"]
        assert again["ExportStatus"] == "COMPLETED" and again["ItemCount"] == 5
        assert [x["ExportArn"] for x in s.client.list_exports()["ExportSummaries"]] == \
            [d["ExportArn"]]
        # PITR is stored with the table.
        assert s.client.describe_continuous_backups(TableName=name)[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"][
            "PointInTimeRecoveryStatus"] == "ENABLED"
    finally:
        s.stop()


# ---- The AWS CLI ----------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("aws") is None, reason="awscli is not installed")
def test_awscli_export_and_import(server):
    env = dict(os.environ, AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="")

    def aws(*args):
        out = subprocess.run(["aws", "dynamodb", "--endpoint-url", server.url, "--output",
                              "json", *args], env=env, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout) if out.stdout.strip() else {}

    name = make_table(server.client, items=12, pitr=False)
    aws("update-continuous-backups", "--table-name", name,
        "--point-in-time-recovery-specification", "PointInTimeRecoveryEnabled=true")
    d = aws("export-table-to-point-in-time", "--table-arn", arn(name), "--s3-bucket", "bucket",
            "--s3-prefix", "cli")["ExportDescription"]
    for _ in range(600):
        done = aws("describe-export", "--export-arn", d["ExportArn"])["ExportDescription"]
        if done["ExportStatus"] != "IN_PROGRESS":
            break
        time.sleep(0.1)
    assert done["ExportStatus"] == "COMPLETED" and done["ItemCount"] == 12
    _, items = read_export(os.path.join(server.s3, "bucket"), done["ExportManifest"])
    assert len(items) == 12
    export_id = d["ExportArn"].rsplit("/", 1)[1]
    target = name + "-cli"
    i = aws("import-table", "--s3-bucket-source",
            "S3Bucket=bucket,S3KeyPrefix=cli/AWSDynamoDB/%s/data/" % export_id,
            "--input-format", "DYNAMODB_JSON", "--input-compression-type", "GZIP",
            "--table-creation-parameters",
            json.dumps({"TableName": target,
                        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                                 {"AttributeName": "sk", "AttributeType": "N"}],
                        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                      {"AttributeName": "sk", "KeyType": "RANGE"}],
                        "BillingMode": "PAY_PER_REQUEST"}))["ImportTableDescription"]
    for _ in range(600):
        done = aws("describe-import", "--import-arn", i["ImportArn"])["ImportTableDescription"]
        if done["ImportStatus"] != "IN_PROGRESS":
            break
        time.sleep(0.1)
    assert done["ImportStatus"] == "COMPLETED" and done["ImportedItemCount"] == 12
    assert aws("scan", "--table-name", target, "--select", "COUNT")["Count"] == 12
    assert scan_all(server.client, target) == scan_all(server.client, name)
    assert [s["ImportArn"] for s in aws("list-imports", "--table-arn", arn(target))[
        "ImportSummaryList"]] == [i["ImportArn"]]
    aws("delete-table", "--table-name", target)
    aws("delete-table", "--table-name", name)


def test_concurrent_imports_to_one_name(server):
    """DynamoDB accepts both; the loser ends FAILED with TableAlreadyExists."""
    ddb = server.client
    tag = uuid.uuid4().hex[:8]
    lines = "\n".join('{"Item":{"id":{"S":"k%d"}}}' % i for i in range(20000))
    put_object(server, "race-%s/a.json" % tag, lines.encode())
    name = "race-" + tag
    arns = [ddb.import_table(S3BucketSource={"S3Bucket": "bucket", "S3KeyPrefix": "race-" + tag},
                             InputFormat="DYNAMODB_JSON",
                             TableCreationParameters=simple_params(name))[
        "ImportTableDescription"]["ImportArn"] for _ in range(2)]
    assert arns[0] != arns[1]
    done = sorted((wait_import(ddb, a) for a in arns), key=lambda d: d["ImportStatus"])
    assert [d["ImportStatus"] for d in done] == ["COMPLETED", "FAILED"]
    assert done[1]["FailureCode"] == "TableAlreadyExists"
    assert done[0]["ImportedItemCount"] == 20000
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["ItemCount"] == 20000 and table["TableId"] == done[0]["TableId"]
    ddb.delete_table(TableName=name)
