"""Vector indexes and SearchVectors through boto3 (issue 48).

Debian's boto3 is older than vector indexes (August 2026), so the client
here loads a service model extended with their shapes: Debian botocore's
DynamoDB model with the project's overlay applied (tools/codegen/
model_overlay.py, the same the server's protocol code is generated from),
put first on the client's model search path, as AWS_DATA_PATH would.
"""
import copy
import json
import os
import subprocess
import sys
import time

import botocore.session
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "codegen"))
import model_overlay  # noqa: E402



def extended_model():
    path = os.path.join(os.path.dirname(botocore.__file__),
                        "data/dynamodb/2012-08-10/service-2.json")
    with open(path) as f:
        model = json.load(f)
    shapes = model["shapes"]
    for name, shape in model_overlay.NEW_SHAPES.items():
        shapes.setdefault(name, copy.deepcopy(shape))
    for shape, members in model_overlay.MODEL_ADDITIONS.items():
        for name, member in members.items():
            shapes[shape]["members"].setdefault(name, member)
    for (shape, name), new_shape in model_overlay.MEMBER_SHAPES.items():
        shapes[shape]["members"][name] = {"shape": new_shape}
    for shape, changes in model_overlay.SHAPE_CHANGES.items():
        shapes[shape].update(changes)
    for name, op in model_overlay.NEW_OPERATIONS.items():
        model["operations"].setdefault(name, op)
    return model


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A model search path holding the extended DynamoDB model."""
    path = tmp_path_factory.mktemp("models")
    folder = path / "dynamodb" / "2012-08-10"
    folder.mkdir(parents=True)
    (folder / "service-2.json").write_text(json.dumps(extended_model()))
    return str(path)


def client_at(url, models):
    """A client whose model has the vector shapes, its parameter validation
    off so that DynamoDB's own checks answer."""
    session = botocore.session.get_session()
    session.get_component("data_loader").search_paths.insert(0, models)
    return session.create_client(
        "dynamodb", endpoint_url=url, region_name="us-east-1",
        aws_access_key_id="local", aws_secret_access_key="local",
        config=Config(retries={"max_attempts": 1}, parameter_validation=False))


@pytest.fixture(scope="module")
def vectors(endpoint, models):
    return client_at(endpoint, models)


def error_of(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def docs_table(client, name, **extra):
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"},
                              {"AttributeName": "tenant", "AttributeType": "S"},
                              {"AttributeName": "lang", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        VectorIndexes=[{
            "IndexName": "ByTenant",
            "VectorAttribute": {"AttributeName": "embedding"},
            "Dimensions": 3,
            "DistanceFunction": "EUCLIDEAN",
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]},
            "SearchSchema": [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
                             {"AttributeName": "lang",
                              "SearchSchemaElementType": "INLINE_FILTER"}]}],
        **extra)


def vec(*xs):
    return {"L": [{"N": repr(float(x))} for x in xs]}


def test_create_describe_write_and_search(vectors):
    docs_table(vectors, "VecDocs")
    table = vectors.describe_table(TableName="VecDocs")["Table"]
    index = table["VectorIndexes"][0]
    assert index["IndexName"] == "ByTenant"
    assert index["VectorAttribute"] == {"AttributeName": "embedding"}
    assert index["Dimensions"] == 3
    assert index["DistanceFunction"] == "EUCLIDEAN"
    assert index["IndexStatus"] == "ACTIVE"
    assert "Backfilling" not in index
    assert index["SearchSchema"][1] == {"AttributeName": "lang",
                                        "SearchSchemaElementType": "INLINE_FILTER"}
    assert index["IndexArn"] == table["TableArn"] + "/index/ByTenant"

    items = [("a", "acme", "en", (0, 0, 0)), ("b", "acme", "fr", (1, 0, 0)),
             ("c", "acme", "en", (2, 2, 0)), ("d", "globex", "en", (0, 0, 1))]
    for id_, tenant, lang, v in items:
        vectors.put_item(TableName="VecDocs", Item={
            "id": {"S": id_}, "tenant": {"S": tenant}, "lang": {"S": lang},
            "title": {"S": "doc " + id_}, "body": {"S": "not projected"},
            "embedding": vec(*v)})
    # A write the index refuses, in DynamoDB's words.
    assert error_of(vectors.put_item, TableName="VecDocs",
                    Item={"id": {"S": "x"}, "embedding": vec(1, 2)}) == (
        "ValidationException",
        "One or more parameter values were invalid. Invalid size for parameter embedding, "
        "Expected: 3, Actual: 2 IndexName: ByTenant")

    found = vectors.search_vectors(
        TableName="VecDocs", IndexName="ByTenant", TopK=2,
        SearchVector=[{"N": "0.9"}, {"N": "0"}, {"N": "0"}],
        SearchConditionExpression="tenant = :t",
        ExpressionAttributeValues={":t": {"S": "acme"}},
        ReturnConsumedCapacity="TOTAL")
    results = found["SearchResults"]
    assert [r["Item"]["id"]["S"] for r in results] == ["b", "a"]
    assert results[0]["Score"] == pytest.approx(0.1, abs=1e-6)  # Euclidean distance
    assert results[1]["Score"] == pytest.approx(0.9, abs=1e-6)
    # The projection: keys, search attributes and INCLUDE's; no vector.
    assert set(results[0]["Item"]) == {"id", "tenant", "lang", "title"}
    assert found["ConsumedCapacity"]["VectorSearchRequestBytes"] >= 1024
    assert "ConsumedCapacity" not in vectors.search_vectors(
        TableName="VecDocs", IndexName="ByTenant", TopK=1,
        SearchVector=[{"N": "0"}] * 3, SearchConditionExpression="tenant = :t",
        ExpressionAttributeValues={":t": {"S": "acme"}})
    # An inline filter, and the vector only when projected by name.
    filtered = vectors.search_vectors(
        TableName="VecDocs", IndexName="ByTenant", TopK=5,
        SearchVector=[{"N": "0.9"}, {"N": "0"}, {"N": "0"}],
        SearchConditionExpression="tenant = :t AND #l = :l",
        ExpressionAttributeNames={"#l": "lang"},
        ExpressionAttributeValues={":t": {"S": "acme"}, ":l": {"S": "en"}},
        ProjectionExpression="id, embedding")["SearchResults"]
    # (as the index stores it: f32, written as the shortest decimal)
    assert [r["Item"] for r in filtered] == [
        {"id": {"S": "a"}, "embedding": {"L": [{"N": "0"}, {"N": "0"}, {"N": "0"}]}},
        {"id": {"S": "c"}, "embedding": {"L": [{"N": "2"}, {"N": "2"}, {"N": "0"}]}}]
    # Query and Scan do not read a vector index.
    assert error_of(vectors.scan, TableName="VecDocs", IndexName="ByTenant") == (
        "ValidationException", "Scan operation not supported on this index type")
    assert error_of(vectors.query, TableName="VecDocs", IndexName="ByTenant",
                    KeyConditionExpression="tenant = :t",
                    ExpressionAttributeValues={":t": {"S": "acme"}}) == (
        "ValidationException", "Query operation not supported on this index type")


def test_search_errors(vectors):
    docs_table(vectors, "VecErrors")
    base = dict(TableName="VecErrors", IndexName="ByTenant", TopK=3,
                SearchVector=[{"N": "1"}, {"N": "0"}, {"N": "0"}],
                SearchConditionExpression="tenant = :t",
                ExpressionAttributeValues={":t": {"S": "acme"}})

    def search_error(**change):
        return error_of(vectors.search_vectors, **{**base, **change})

    assert search_error(TopK=101) == (
        "ValidationException", "Provided TopK value '101' is out of valid range. The value must "
        "be between 1 and 100 inclusive")
    code, message = search_error(TopK=0)
    assert code == "ValidationException"
    assert "Value '0' at 'topK' failed to satisfy constraint: Member must have value greater " \
           "than or equal to 1" in message
    args = {k: v for k, v in base.items() if k not in ("SearchConditionExpression",
                                                        "ExpressionAttributeValues")}
    assert error_of(vectors.search_vectors, **args) == (
        "ValidationException",
        "SearchConditionExpression must be provided when SearchSchema has a HASH key")
    assert search_error(SearchConditionExpression="tenant > :t") == (
        "ValidationException",
        "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression")
    assert search_error(SearchVector=[{"N": "1"}]) == (
        "ValidationException",
        "Input search vector dimension 1 does not match vector index dimension 3")
    assert search_error(SearchVector=[{"S": "1"}, {"N": "0"}, {"N": "0"}]) == (
        "ValidationException",
        "Search vector contains invalid values. All values in the search vector must be a "
        "32-bit floating-point number attribute")
    assert search_error(IndexName="Nope") == (
        "ValidationException", "The table does not have the specified index: Nope")
    assert search_error(TableName="NoSuchTable")[0] == "ResourceNotFoundException"


def test_declaration_errors_and_update_table(vectors):
    bad = dict(
        TableName="VecBad",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        VectorIndexes=[{"IndexName": "Vec", "VectorAttribute": {"AttributeName": "e"},
                        "Dimensions": 3, "DistanceFunction": "MANHATTAN",
                        "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    assert error_of(vectors.create_table, **bad) == (
        "ValidationException",
        "1 validation error detected: Value 'MANHATTAN' at 'vectorIndexes.1.member."
        "distanceFunction' failed to satisfy constraint: Member must satisfy enum value set: "
        "[DOT_PRODUCT, COSINE, EUCLIDEAN]")
    bad["VectorIndexes"][0]["DistanceFunction"] = "COSINE"
    bad["VectorIndexes"][0]["Dimensions"] = 4097
    assert error_of(vectors.create_table, **bad) == (
        "ValidationException", "One or more parameter values were invalid: Number of dimensions "
        "must be between 1 and 4096 inclusive.")

    vectors.create_table(
        TableName="VecLater", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST")
    for i in range(30):
        vectors.put_item(TableName="VecLater", Item={
            "id": {"S": "i%02d" % i}, "embedding": vec(i, 1), "kind": {"S": "k%d" % (i % 2)}})
    updated = vectors.update_table(
        TableName="VecLater",
        AttributeDefinitions=[{"AttributeName": "kind", "AttributeType": "S"}],
        VectorIndexUpdates=[{"Create": {
            "IndexName": "ByKind", "VectorAttribute": {"AttributeName": "embedding"},
            "Dimensions": 2, "DistanceFunction": "DOT_PRODUCT",
            "Projection": {"ProjectionType": "KEYS_ONLY"},
            "SearchSchema": [{"AttributeName": "kind", "SearchSchemaElementType": "HASH"}]}}]
    )["TableDescription"]
    assert updated["TableStatus"] == "UPDATING"
    assert updated["VectorIndexes"][0]["IndexStatus"] == "CREATING"
    assert updated["VectorIndexes"][0]["Backfilling"] is True
    waiter_rounds = 0
    while True:
        index = vectors.describe_table(TableName="VecLater")["Table"]["VectorIndexes"][0]
        if index["IndexStatus"] == "ACTIVE":
            break
        waiter_rounds += 1
        assert waiter_rounds < 200
        time.sleep(0.05)
    assert "Backfilling" not in index
    assert index["ItemCount"] == 30
    found = vectors.search_vectors(
        TableName="VecLater", IndexName="ByKind", TopK=3,
        SearchVector=[{"N": "1"}, {"N": "0"}], SearchConditionExpression="kind = :k",
        ExpressionAttributeValues={":k": {"S": "k1"}})["SearchResults"]
    # Dot product, descending: the largest first coordinate of kind k1.
    assert [r["Item"]["id"]["S"] for r in found] == ["i29", "i27", "i25"]
    assert [r["Score"] for r in found] == [29.0, 27.0, 25.0]
    vectors.update_table(TableName="VecLater",
                         VectorIndexUpdates=[{"Delete": {"IndexName": "ByKind"}}])
    assert "VectorIndexes" not in vectors.describe_table(TableName="VecLater")["Table"]


def test_dump_and_restore_keep_the_vector_index(models, tmp_path):
    """`dynarock restore` of a definition declaring a vector index fills it;
    the dump's table-definition.json carries the index, and restoring the
    dump into another database answers the same searches."""
    binary = os.environ["DYNAROCK_BIN"]
    definition = {
        "TableName": "VecDump", "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                                 {"AttributeName": "tenant", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
        "VectorIndexes": [{
            "IndexName": "ByTenant", "VectorAttribute": {"AttributeName": "embedding"},
            "Dimensions": 2, "DistanceFunction": "COSINE",
            "Projection": {"ProjectionType": "ALL"},
            "SearchSchema": [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"}]}]}
    (tmp_path / "definition.json").write_text(json.dumps(definition))
    lines = []
    for i in range(50):
        item = {"id": {"S": "d%02d" % i}, "tenant": {"S": "t%d" % (i % 2)},
                "embedding": {"L": [{"N": str(i % 7 - 3)}, {"N": str(i % 5 - 2)}]}}
        lines.append(json.dumps({"Item": item}) + "\n")
    (tmp_path / "items.json").write_text("".join(lines))
    first, second, out = tmp_path / "db1", tmp_path / "db2", tmp_path / "dump"
    out.mkdir()

    def run(*args):
        r = subprocess.run([binary, *args], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r

    run("restore", str(first), str(tmp_path / "items.json"), "--table-definition",
        str(tmp_path / "definition.json"), "--input-format", "DYNAMODB_JSON",
        "--compression", "NONE")
    # The collections view lists the index's HASH values, one collection each.
    lines = [json.loads(line) for line in
             run("collections", str(first), "VecDump", "--json").stdout.splitlines()]
    by_tenant = {c["Key"]["tenant"]["S"]: c for c in lines
                 if c["Collection"] == "VecDump.ByTenant"}
    assert {t: c["ItemCount"] for t, c in by_tenant.items()} == {"t0": 25, "t1": 25}
    # Each entry: its projected item (ALL, less the vector), the vector's
    # name and 4 bytes a dimension.
    assert all(c["SizeBytes"] > 25 * (len("embedding") + 8) for c in by_tenant.values())
    run("dump", str(first), "VecDump", str(out))
    (export,) = (out / "AWSDynamoDB").iterdir()
    written = json.loads((export / "table-definition.json").read_text())
    assert written["VectorIndexes"] == definition["VectorIndexes"]
    run("restore", str(second), str(export))

    def search(db):
        server = subprocess.Popen([binary, "serve", "--data-dir", str(db), "--port", "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            client = client_at(server.stdout.readline().split()[4], models)
            index = client.describe_table(TableName="VecDump")["Table"]["VectorIndexes"][0]
            return index["ItemCount"], client.search_vectors(
                TableName="VecDump", IndexName="ByTenant", TopK=10,
                SearchVector=[{"N": "1"}, {"N": "0.5"}], SearchConditionExpression="tenant = :t",
                ExpressionAttributeValues={":t": {"S": "t1"}})["SearchResults"]
        finally:
            server.terminate()
            assert server.wait(timeout=30) == 0

    count, results = search(first)
    assert count == 50 and len(results) == 10
    assert search(second) == (count, results)


def test_a_projected_vector_comes_back_as_the_index_holds_it(vectors):
    """The index keeps f32: a vector named in a ProjectionExpression is
    returned f32-rounded (each value's shortest decimal form), as DynamoDB
    returns it, whatever decimals were written; the table keeps them as
    written."""
    vectors.create_table(
        TableName="VecRound", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        VectorIndexes=[{"IndexName": "Plain", "VectorAttribute": {"AttributeName": "v"},
                        "Dimensions": 3, "DistanceFunction": "COSINE",
                        "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    written = {"L": [{"N": "0.1"}, {"N": "0.333333333333"}, {"N": "-2.50"}]}
    vectors.put_item(TableName="VecRound", Item={"id": {"S": "x"}, "v": written})
    hit = vectors.search_vectors(TableName="VecRound", IndexName="Plain", TopK=1,
                                 SearchVector=[{"N": "1"}, {"N": "1"}, {"N": "1"}],
                                 ProjectionExpression="id, v")["SearchResults"][0]
    assert hit["Item"] == {"id": {"S": "x"}, "v": {"L": [{"N": "0.1"}, {"N": "0.33333334"},
                                                          {"N": "-2.5"}]}}
    assert vectors.get_item(TableName="VecRound", Key={"id": {"S": "x"}})["Item"]["v"] == {
        "L": [{"N": "0.1"}, {"N": "0.333333333333"}, {"N": "-2.5"}]}
