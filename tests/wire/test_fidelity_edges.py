"""DynamoDB's rules at the request edge that hide the check after them when
they are wrong: an empty map is given, not missing; what needs no table is
checked before a table is looked up; legacy and expression parameters;
conditions refused before any item is read; index keys and projections;
Streams and tags; HTTP. Each test names the DynamoDB fact it pins (where
the fact's text could not be established, tools/server/README.md says so).
Requests are sent as raw JSON, as any client may send them."""
import json
import uuid

import pytest

from conftest import serve
from rawhttp import connect, read_response

DDB = "DynamoDB_20120810."
STREAMS = "DynamoDBStreams_20120810."
P = "One or more parameter values were invalid: "


def call(endpoint, operation, body, prefix=DDB):
    """(status, __type without namespace, message or the body)."""
    data = json.dumps(body).encode()
    host = endpoint.split("//")[1]
    with connect(endpoint) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: " + host.encode() + b"\r\nX-Amz-Target: " +
                  (prefix + operation).encode() +
                  b"\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: " +
                  str(len(data)).encode() + b"\r\n\r\n" + data)
        status, _, answer = read_response(s)
    if status == 200:
        return status, None, json.loads(answer) if answer else None
    doc = json.loads(answer)
    return status, doc["__type"].split("#")[1], doc.get("message", doc.get("Message"))


def ok(endpoint, operation, body, prefix=DDB):
    status, kind, out = call(endpoint, operation, body, prefix)
    assert status == 200, (operation, kind, out)
    return out


S = {"S": "x"}


@pytest.fixture
def tables(endpoint):
    """A hash-only table and a hash+range table with a KEYS_ONLY GSI."""
    name = "Edge" + uuid.uuid4().hex[:8]
    ok(endpoint, "CreateTable", {
        "TableName": name, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"})
    ok(endpoint, "CreateTable", {
        "TableName": name + "r",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                      {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "S"},
                                 {"AttributeName": "g", "AttributeType": "S"}],
        "GlobalSecondaryIndexes": [{"IndexName": "ByG",
                                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        "BillingMode": "PAY_PER_REQUEST"})
    yield name, name + "r"


# ---- 1. An empty map or list is given, not missing -------------------------------------------

def test_an_empty_key_or_item_goes_on_to_the_checks_after_it(endpoint, tables):
    t, _ = tables
    # DynamoDB: `{}` is present; the key-schema check answers it.
    assert call(endpoint, "GetItem", {"TableName": t, "Key": {}})[1:] == (
        "ValidationException", "The provided key element does not match the schema")
    # ... after the table lookup.
    assert call(endpoint, "GetItem", {"TableName": "Nope-" + t, "Key": {}})[1] == \
        "ResourceNotFoundException"
    assert call(endpoint, "PutItem", {"TableName": t, "Item": {}})[1:] == (
        "ValidationException", P + "Missing the key pk in the item")
    # ... after the legacy Expected checks and the mixing check.
    assert call(endpoint, "PutItem", {"TableName": t, "Item": {}, "Expected": {"a": {}}})[2] == \
        P + "Value must be provided when Exists is null for Attribute: a"
    assert call(endpoint, "PutItem", {"TableName": t, "Item": {}, "Expected": {"a": {"Exists": False}},
                                      "ConditionExpression": "a = :v"})[2].startswith(
        "Can not use both expression and non-expression parameters")


def test_an_empty_transaction_key_cancels_with_a_validation_reason(endpoint, tables):
    t, _ = tables
    status, kind, message = call(endpoint, "TransactGetItems",
                                 {"TransactItems": [{"Get": {"TableName": t, "Key": {}}}]})
    assert (status, kind) == (400, "TransactionCanceledException")
    assert message.endswith("[ValidationError]")


def test_empty_request_items_and_tags_have_their_own_texts(endpoint, tables):
    t, _ = tables
    # FACTS: `{}` gets "The requestItems parameter is required"; absent is
    # the ordinary not-null constraint.
    assert call(endpoint, "BatchGetItem", {"RequestItems": {}})[2] == \
        "The requestItems parameter is required for BatchGetItem"
    assert call(endpoint, "BatchGetItem", {})[2] == (
        "1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: "
        "Member must not be null")
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/" + t
    assert call(endpoint, "TagResource", {"ResourceArn": arn, "Tags": []})[2] == \
        "Atleast one Tag needs to be provided as Input."
    assert call(endpoint, "UntagResource", {"ResourceArn": arn, "TagKeys": []})[2] == \
        "Atleast one Tag Key needs to be provided as Input."


# ---- 2. Validate the whole request before looking up tables ----------------------------------

def test_batch_get_is_validated_before_its_tables_are_looked_up(endpoint):
    missing = "Missing" + uuid.uuid4().hex[:8]
    assert call(endpoint, "BatchGetItem", {"RequestItems": {missing: {
        "Keys": [{"pk": S}], "ProjectionExpression": ""}}})[2] == \
        "Invalid ProjectionExpression: The expression can not be empty;"
    assert call(endpoint, "BatchGetItem", {"RequestItems": {missing: {
        "Keys": [{"pk": S}, {"pk": S}]}}})[2] == "Provided list of item keys contains duplicates"


def test_create_table_checks_indexes_before_the_name_is_taken(endpoint, tables):
    t, _ = tables
    status, kind, message = call(endpoint, "CreateTable", {
        "TableName": t, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "g", "AttributeType": "S"}],
        "GlobalSecondaryIndexes": [{"IndexName": "ByG",
                                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                    "Projection": {}}],
        "BillingMode": "PAY_PER_REQUEST"})
    assert (kind, message) == ("ValidationException", P + "Unknown ProjectionType: null")


def test_a_transaction_reports_only_its_first_invalid_action(endpoint, tables):
    t, _ = tables
    status, kind, message = call(endpoint, "TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": t, "Item": {"pk": S}}},
        {"Put": {"TableName": t, "Item": {"pk": {"N": "1"}}}},
        {"Put": {"TableName": t, "Item": {"x": S}}}]})
    assert kind == "TransactionCanceledException"
    assert message.endswith("[None, ValidationError, None]")


# ---- 3. Legacy and expression parameters -----------------------------------------------------

def test_key_conditions_may_go_with_a_projection_or_filter_expression(endpoint, tables):
    t, _ = tables
    ok(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S, "a": {"N": "1"}}})
    key = {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S]}}
    out = ok(endpoint, "Query", {"TableName": t, "KeyConditions": key, "ProjectionExpression": "a"})
    assert out["Items"] == [{"a": {"N": "1"}}]
    out = ok(endpoint, "Query", {"TableName": t, "KeyConditions": key, "FilterExpression": "a = :one",
                                 "ExpressionAttributeValues": {":one": {"N": "1"}}})
    assert out["Count"] == 1
    # With a KeyConditionExpression they do conflict.
    assert call(endpoint, "Query", {"TableName": t, "KeyConditions": key,
                                    "KeyConditionExpression": "pk = :v",
                                    "ExpressionAttributeValues": {":v": S}})[2] == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {KeyConditions} Expression parameters: "
        "{KeyConditionExpression}")


def test_mixing_messages_list_parameters_in_dynamodbs_order(endpoint, tables):
    t, _ = tables
    assert call(endpoint, "Scan", {
        "TableName": t, "ScanFilter": {"a": {"ComparisonOperator": "NULL"}},
        "AttributesToGet": ["a"], "ConditionalOperator": "AND", "FilterExpression": "a = :v",
        "ProjectionExpression": "a", "ExpressionAttributeValues": {":v": S}})[2] == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet, ScanFilter, ConditionalOperator} "
        "Expression parameters: {ProjectionExpression, FilterExpression}")


def test_values_without_expressions_name_the_operations_expressions(endpoint, tables):
    t, _ = tables
    head = "ExpressionAttributeValues can only be specified when using expressions: "
    key = {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S]}}
    for op, body, tail in [
            ("Query", {"KeyConditions": key}, "FilterExpression and KeyConditionExpression are null"),
            ("UpdateItem", {"Key": {"pk": S}}, "UpdateExpression and ConditionExpression are null"),
            ("PutItem", {"Item": {"pk": S}}, "ConditionExpression is null"),
            ("Scan", {"ProjectionExpression": "pk"}, "FilterExpression is null")]:
        body = dict(body, TableName=t, ExpressionAttributeValues={":v": S})
        assert call(endpoint, op, body)[2] == head + tail, op


def test_expected_value_with_a_comparison_operator_is_its_operand(endpoint, tables):
    t, _ = tables
    ok(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S, "a": {"N": "5"}}})
    # dynalite (fitted to DynamoDB) takes Value as the single operand.
    ok(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S, "a": {"N": "6"}},
                             "Expected": {"a": {"Value": {"N": "5"}, "ComparisonOperator": "EQ"}}})
    assert call(endpoint, "PutItem", {
        "TableName": t, "Item": {"pk": S},
        "Expected": {"a": {"Value": {"N": "5"}, "ComparisonOperator": "EQ"}}})[1] == \
        "ConditionalCheckFailedException"
    assert call(endpoint, "PutItem", {
        "TableName": t, "Item": {"pk": S},
        "Expected": {"a": {"Value": S, "AttributeValueList": [S], "ComparisonOperator": "EQ"}}})[2] \
        == P + "Value and AttributeValueList cannot be used together for Attribute: a"
    assert call(endpoint, "PutItem", {
        "TableName": t, "Item": {"pk": S},
        "Expected": {"a": {"Exists": True, "ComparisonOperator": "NOT_NULL"}}})[2] == \
        P + "Exists and ComparisonOperator cannot be used together for Attribute: a"


# ---- 4. Conditions refused before any item is read -------------------------------------------

def test_operands_that_can_never_compare_are_validation_errors(endpoint, tables):
    t, _ = tables
    for condition, value, operator, kind in [("a < :v", {"L": []}, "<", "L"),
                                             ("a >= :v", {"BOOL": True}, ">=", "BOOL"),
                                             ("size(:v) > a", {"N": "1"}, "size", "N")]:
        status, error, message = call(endpoint, "PutItem", {
            "TableName": t, "Item": {"pk": S}, "ConditionExpression": condition,
            "ExpressionAttributeValues": {":v": value}})
        assert (status, error) == (400, "ValidationException"), condition
        assert message == ("Invalid ConditionExpression: Incorrect operand type for operator or "
                           "function; operator or function: %s, operand type: %s" % (operator, kind))
    for expected, message in [
            ({"ComparisonOperator": "LE", "AttributeValueList": [{"L": []}]},
             P + "ComparisonOperator LE is not valid for L AttributeValue type"),
            ({"ComparisonOperator": "CONTAINS", "AttributeValueList": []},
             P + "Invalid number of argument(s) for the CONTAINS ComparisonOperator"),
            ({"ComparisonOperator": "BETWEEN", "AttributeValueList": [S, {"N": "1"}]},
             P + "AttributeValues inside AttributeValueList must be of same type")]:
        assert call(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S},
                                          "Expected": {"a": expected}})[2] == message
    for extra in [{}, {"Expected": {}}]:
        status, error, _ = call(endpoint, "PutItem", dict(extra, TableName=t, Item={"pk": S},
                                                          ConditionalOperator="AND"))
        assert (status, error) == (400, "ValidationException"), extra
    assert "Item" not in ok(endpoint, "GetItem", {"TableName": t, "Key": {"pk": S}})


def test_not_contains_fails_on_a_missing_attribute(endpoint, tables):
    t, _ = tables
    assert call(endpoint, "PutItem", {
        "TableName": t, "Item": {"pk": S},
        "Expected": {"tags": {"ComparisonOperator": "NOT_CONTAINS",
                              "AttributeValueList": [S]}}})[1] == "ConditionalCheckFailedException"


def test_legacy_eq_and_ne_compare_lists_maps_and_booleans(endpoint, tables):
    t, _ = tables
    ok(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S, "l": {"L": [S]}, "b": {"BOOL": True},
                                                       "m": {"M": {"k": S}}}})
    for name, value in [("l", {"L": [S]}), ("b", {"BOOL": True}), ("m", {"M": {"k": S}})]:
        out = ok(endpoint, "Scan", {"TableName": t, "ScanFilter": {
            name: {"ComparisonOperator": "EQ", "AttributeValueList": [value]}}})
        assert out["Count"] == 1, name
        out = ok(endpoint, "Scan", {"TableName": t, "ScanFilter": {
            name: {"ComparisonOperator": "NE", "AttributeValueList": [value]}}})
        assert out["Count"] == 0, name


def test_begins_with_and_attribute_type_take_a_value_first(endpoint, tables):
    t, _ = tables
    ok(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S, "p": {"S": "DEP"}}})
    ok(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S},
                             "ConditionExpression": "begins_with(:whole, p)",
                             "ExpressionAttributeValues": {":whole": {"S": "DEP-LON-3"}}})
    ok(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S},
                             "ConditionExpression": "attribute_type(:v, :t)",
                             "ExpressionAttributeValues": {":v": {"N": "1"}, ":t": {"S": "N"}}})


def test_expression_nesting_is_bounded_by_the_operator_count_only(endpoint, tables):
    t, _ = tables
    deep = "a = :v"
    for _ in range(149):
        deep = "a = :v AND (" + deep + ")"  # 149 deep, 299 operators
    assert ok(endpoint, "Scan", {"TableName": t, "FilterExpression": deep,
                                 "ExpressionAttributeValues": {":v": S}})["Count"] == 0
    assert call(endpoint, "Scan", {"TableName": t, "FilterExpression": "a = :v AND (" + deep + ")",
                                   "ExpressionAttributeValues": {":v": S}})[2] == \
        "Invalid FilterExpression: The expression contains too many operators; operator count: 301"


def test_update_expression_grammar_edges(endpoint, tables):
    t, _ = tables
    # A bare name starts with a letter.
    assert call(endpoint, "UpdateItem", {"TableName": t, "Key": {"pk": S},
                                         "UpdateExpression": "SET _123 = :v",
                                         "ExpressionAttributeValues": {":v": S}})[2].startswith(
        "Invalid UpdateExpression: Syntax error; token:")
    assert call(endpoint, "UpdateItem", {
        "TableName": t, "Key": {"pk": S},
        "UpdateExpression": "SET l = list_append(list_append(l, :v), :v)",
        "ExpressionAttributeValues": {":v": {"L": []}}})[2] == (
        "Invalid UpdateExpression: The function is not allowed to be used this way in an "
        "expression; function: list_append")
    # if_not_exists inside list_append stays the usual way to append.
    ok(endpoint, "UpdateItem", {"TableName": t, "Key": {"pk": S},
                                "UpdateExpression": "SET l = list_append(if_not_exists(l, :e), :v)",
                                "ExpressionAttributeValues": {":v": {"L": [S]}, ":e": {"L": []}}})


# ---- 5. Index keys and schemas ---------------------------------------------------------------

def test_index_keys_over_dynamodbs_limits_are_refused_and_nothing_is_written(endpoint, tables):
    _, r = tables
    status, kind, message = call(endpoint, "PutItem", {
        "TableName": r, "Item": {"pk": S, "sk": S, "g": {"S": "x" * 2049}}})
    assert (kind, message) == (
        "ValidationException", P + "Size of hashkey has exceeded the maximum size limit of2048 bytes")
    assert "Item" not in ok(endpoint, "GetItem", {"TableName": r, "Key": {"pk": S, "sk": S}})
    ok(endpoint, "PutItem", {"TableName": r, "Item": {"pk": S, "sk": S, "g": {"S": "x" * 2048}}})


def test_projection_checks_on_create_and_update_table(endpoint, tables):
    t, _ = tables
    base = {"TableName": "Proj" + uuid.uuid4().hex[:8],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "g", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST"}

    def gsi(projection):
        return dict(base, GlobalSecondaryIndexes=[{
            "IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": projection}])
    for projection, message in [
            ({}, "Unknown ProjectionType: null"),
            ({"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "a"]},
             "Duplicate attribute name in NonKeyAttributes: a"),
            ({"ProjectionType": "KEYS_ONLY", "NonKeyAttributes": ["a"]},
             "ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified")]:
        assert call(endpoint, "CreateTable", gsi(projection))[2] == P + message
    assert call(endpoint, "DescribeTable", {"TableName": base["TableName"]})[1] == \
        "ResourceNotFoundException"
    # UpdateTable: the new index's keys need their definitions.
    assert call(endpoint, "UpdateTable", {"TableName": t, "GlobalSecondaryIndexUpdates": [{"Create": {
        "IndexName": "ByH", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}}]})[2] == (
        P + "Some index key attributes are not defined in AttributeDefinitions. Keys: [h], "
        "AttributeDefinitions: [pk]")


def test_a_gsi_read_may_name_only_what_the_index_projects(endpoint, tables):
    _, r = tables
    ok(endpoint, "PutItem", {"TableName": r, "Item": {"pk": S, "sk": S, "g": S, "extra": S}})
    for extra in [{"ProjectionExpression": "extra"},
                  {"Select": "SPECIFIC_ATTRIBUTES", "AttributesToGet": ["pk", "extra"]}]:
        body = dict(extra, TableName=r, IndexName="ByG",
                    KeyConditions={"g": {"ComparisonOperator": "EQ", "AttributeValueList": [S]}})
        assert call(endpoint, "Query", body)[2] == \
            P + "Global secondary index ByG does not project the attribute extra"
    out = ok(endpoint, "Query", {"TableName": r, "IndexName": "ByG",
                                 "KeyConditionExpression": "g = :g", "ProjectionExpression": "pk, sk",
                                 "ExpressionAttributeValues": {":g": S}})
    assert out["Items"] == [{"pk": S, "sk": S}]


def test_delete_table_describes_what_goes_without_its_schema(endpoint, tables):
    _, r = tables
    described = ok(endpoint, "DeleteTable", {"TableName": r})["TableDescription"]
    assert described["TableStatus"] == "DELETING"
    for gone in ["KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes",
                 "LocalSecondaryIndexes", "CreationDateTime"]:
        assert gone not in described, gone


def test_table_names_are_model_constraints_for_every_operation(endpoint):
    for op in ["CreateTable", "DescribeTable", "GetItem"]:
        assert ("Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length "
                "greater than or equal to 3") in call(endpoint, op, {"TableName": "ab", "Key": {}})[2], op
    # An empty name breaks one constraint: the 1..1024 of today's model.
    assert call(endpoint, "GetItem", {"TableName": "", "Key": {}})[2] == (
        "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: "
        "Member must have length greater than or equal to 1")


# ---- 6. Streams and tags ---------------------------------------------------------------------

def test_stream_arns_and_limits_are_validated(endpoint, tables):
    t, _ = tables
    bad = "arn:aws:dynamodb:us-east-1:000000000000:not-a-stream-at-all"
    for op, body in [("DescribeStream", {"StreamArn": bad}),
                     ("GetShardIterator", {"StreamArn": bad, "ShardIteratorType": "LATEST",
                                           "ShardId": "shardId-00000000000000000000-00000000"}),
                     ("ListStreams", {"ExclusiveStartStreamArn": bad})]:
        assert call(endpoint, op, body, STREAMS)[1] == "ValidationException", op
    for op, body, limit in [("ListStreams", {"Limit": 101}, 100),
                            ("GetRecords", {"ShardIterator": "x" * 10, "Limit": 1001}, 1000)]:
        assert call(endpoint, op, body, STREAMS)[2] == (
            "1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: "
            "Member must have value less than or equal to %d" % (limit + 1, limit))
    described = ok(endpoint, "UpdateTable", {"TableName": t, "StreamSpecification": {
        "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}})["TableDescription"]
    out = ok(endpoint, "DescribeStream", {"StreamArn": described["LatestStreamArn"],
                                          "ExclusiveStartShardId": "shardId-00000000000000000000-nope"},
             STREAMS)
    assert out["StreamDescription"]["Shards"] == []


def test_tags_are_checked(endpoint, tables):
    t, _ = tables
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/" + t
    assert call(endpoint, "TagResource", {"ResourceArn": "not-an-arn", "Tags": [
        {"Key": "a", "Value": "b"}]})[1:] == (
        "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input not-an-arn")
    for key, value in [("a{b", "v"), ("k", "v<"), ("aws:owner", "v")]:
        assert call(endpoint, "TagResource", {"ResourceArn": arn, "Tags": [
            {"Key": key, "Value": value}]})[1] == "ValidationException", key
    ok(endpoint, "TagResource", {"ResourceArn": arn, "Tags": [
        {"Key": "team fleet+ops:=/._-@", "Value": "Dépôt 3"}]})
    assert call(endpoint, "TagResource", {"ResourceArn": arn, "Tags": [
        {"Key": "k%d" % i, "Value": "v"} for i in range(51)]})[1:] == (
        "LimitExceededException", "The number of tags exceeds the limit of 50")


# ---- 7. HTTP --------------------------------------------------------------------------------

def test_an_oversized_header_set_is_refused_and_the_server_keeps_serving(endpoint):
    host = endpoint.split("//")[1].encode()
    extra = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"x" * 1000) for i in range(17))
    with connect(endpoint) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: " + host + b"\r\n" + extra +
                  b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n\r\n{}")
        status, _, _ = read_response(s)
        assert status == 400
    assert ok(endpoint, "ListTables", {}) is not None


def test_tag_answers_are_empty_and_endpoints_name_the_port_used(endpoint, tables):
    t, _ = tables
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/" + t
    assert ok(endpoint, "TagResource", {"ResourceArn": arn, "Tags": [{"Key": "a", "Value": "b"}]}) \
        is None
    assert ok(endpoint, "UntagResource", {"ResourceArn": arn, "TagKeys": ["a"]}) is None
    address = ok(endpoint, "DescribeEndpoints", {})["Endpoints"][0]["Address"]
    assert address == endpoint.split("//")[1]


def test_a_deeply_nested_document_is_told_so(endpoint, tables):
    t, _ = tables
    nested = S
    for _ in range(50):
        nested = {"M": {"a": nested}}
    assert call(endpoint, "PutItem", {"TableName": t, "Item": {"pk": S, "n": nested}})[1:] == (
        "ValidationException", "Nesting Levels have exceeded supported limits")


def test_a_413_arrives_before_the_connection_closes(endpoint):
    host = endpoint.split("//")[1].encode()
    s = connect(endpoint)
    s.sendall(b"POST / HTTP/1.1\r\nHost: " + host + b"\r\nContent-Length: " +
              str(20 << 20).encode() + b"\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n\r\n")
    try:
        for _ in range(40):
            s.sendall(b"x" * (512 << 10))
    except OSError:
        pass  # the server stopped reading: the answer is already there
    assert read_response(s)[0] == 413
    s.close()


def test_an_incomplete_signature_names_every_missing_part():
    with serve("--auth", "AKIDLOCAL:s3cret") as endpoint:
        host = endpoint.split("//")[1].encode()

        def send(authorization):
            with connect(endpoint) as s:
                s.sendall(b"POST / HTTP/1.1\r\nHost: " + host + b"\r\n" + authorization +
                          b"X-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                          b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 0\r\n\r\n")
                status, _, answer = read_response(s)
            doc = json.loads(answer)
            return status, doc["__type"].split("#")[1], doc["message"]
        # No header, or another scheme, even with an empty body.
        for header in [b"", b"Authorization: Basic Zm9vOmJhcg==\r\n"]:
            assert send(header) == (400, "MissingAuthenticationTokenException",
                                    "Request is missing Authentication Token")
        # DynamoDB's IncompleteSignature text: each missing part, then the header.
        assert send(b"Authorization: AWS4-HMAC-SHA256 Credential=AKIDLOCAL/x\r\n") == (
            400, "IncompleteSignatureException",
            "Authorization header requires 'Signature' parameter. Authorization header requires "
            "'SignedHeaders' parameter. Authorization header requires existence of either a "
            "'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256 Credential=AKIDLOCAL/x")
