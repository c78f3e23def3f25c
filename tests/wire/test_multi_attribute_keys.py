"""Multi-attribute GSI keys (DynamoDB, November 2025) through boto3: a GSI
keyed by up to four HASH and four RANGE attributes, created, filled,
backfilled, queried with every legal key-condition prefix (checked against
a brute-force filter of the table) and refused with every illegal one,
paged, scanned and refused by PartiQL, with DynamoDB's errors. boto3's
model need not know the new limit: it checks list minimums only.

The shape is the one AWS introduced the feature with: matches keyed by
(tournamentId, region) / (round, bracket, matchId)."""
import itertools
import json
import os
import random
import subprocess
import uuid

import pytest
from botocore.exceptions import ClientError

P = "One or more parameter values were invalid: "
H = lambda n: {"AttributeName": n, "KeyType": "HASH"}  # noqa: E731
R = lambda n: {"AttributeName": n, "KeyType": "RANGE"}  # noqa: E731
GSI_KEYS = [H("tournamentId"), H("region"), R("round"), R("bracket"), R("matchId")]
DEFS = [{"AttributeName": "matchId", "AttributeType": "S"},
        {"AttributeName": "tournamentId", "AttributeType": "S"},
        {"AttributeName": "region", "AttributeType": "S"},
        {"AttributeName": "round", "AttributeType": "N"},
        {"AttributeName": "bracket", "AttributeType": "S"}]


def error(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def create(dynamodb, gsi_keys=GSI_KEYS, defs=DEFS, **extra):
    name = "Matches-" + uuid.uuid4().hex[:8]
    dynamodb.create_table(
        TableName=name, KeySchema=[H("matchId")], AttributeDefinitions=defs,
        GlobalSecondaryIndexes=[{"IndexName": "ByBracket", "KeySchema": gsi_keys,
                                 "Projection": {"ProjectionType": "ALL"}}],
        BillingMode="PAY_PER_REQUEST", **extra)
    return name


def match(i, rng):
    return {"matchId": {"S": "m%04d" % i},
            "tournamentId": {"S": rng.choice(["WINTER", "SUMMER"])},
            "region": {"S": rng.choice(["EU", "NA"])},
            "round": {"N": str(rng.choice([1, 2, 3, 10]))},
            "bracket": {"S": rng.choice(["UPPER", "LOWER", "UP"])},
            "score": {"N": str(rng.randrange(100))}}


def sort_tuple(item):
    return (int(item["round"]["N"]), item["bracket"]["S"].encode(), item["matchId"]["S"].encode())


def query_all(dynamodb, **kwargs):
    items, pages, start = [], 0, None
    while True:
        if start:
            kwargs["ExclusiveStartKey"] = start
        page = dynamodb.query(**kwargs)
        items += page["Items"]
        pages += 1
        start = page.get("LastEvaluatedKey")
        if not start:
            return items, pages


@pytest.fixture(scope="module")
def matches(dynamodb):
    """A table of 120 matches with the composite GSI, and its items."""
    name = create(dynamodb)
    rng = random.Random(47)
    items = [match(i, rng) for i in range(120)]
    for item in items:
        dynamodb.put_item(TableName=name, Item=item)
    return name, items


def test_create_and_describe_echo_the_key_schema(dynamodb, matches):
    name, _ = matches
    table = dynamodb.describe_table(TableName=name)["Table"]
    gsi = table["GlobalSecondaryIndexes"][0]
    assert gsi["KeySchema"] == GSI_KEYS
    assert gsi["IndexStatus"] == "ACTIVE"
    # KeySchemas in the order given; AttributeDefinitions sorted by name.
    assert table["AttributeDefinitions"] == sorted(DEFS, key=lambda d: d["AttributeName"])
    assert table["AttributeDefinitions"] != DEFS


@pytest.mark.parametrize("keys, message", [
    ([H("a"), H("b"), H("c"), H("d"), H("e")],
     P + "The KeySchema exceeds the maximum allowed number of HASH key attributes"),
    ([H("a"), R("b"), R("c"), R("d"), R("e"), R("f")],
     P + "The KeySchema exceeds the maximum allowed number of RANGE key attributes"),
    ([H("a"), R("b"), H("c")],
     P + "All HASH key attributes must precede RANGE key attributes in the KeySchema"),
    ([R("a"), H("b"), H("c")], "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
    ([H("a"), H("b"), H("a")], "The KeySchema contains multiple key attributes with the same name"),
    ([H("a"), R("b"), R("a")], "The KeySchema contains multiple key attributes with the same name"),
])
def test_illegal_gsi_key_schemas(dynamodb, keys, message):
    defs = [{"AttributeName": n, "AttributeType": "S"} for n in "pabcdef"]
    used = {"p"} | {k["AttributeName"] for k in keys}
    defs = [d for d in defs if d["AttributeName"] in used]
    code, text = error(
        dynamodb.create_table, TableName="Bad-" + uuid.uuid4().hex[:8], KeySchema=[H("p")],
        AttributeDefinitions=defs, BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": keys,
                                 "Projection": {"ProjectionType": "ALL"}}])
    assert (code, text) == ("ValidationException", message)


def test_table_and_lsi_keep_two_key_attributes(dynamodb):
    defs = [{"AttributeName": n, "AttributeType": "S"} for n in "pabc"]
    code, text = error(dynamodb.create_table, TableName="Bad-" + uuid.uuid4().hex[:8],
                       KeySchema=[H("p"), R("a"), R("b")], AttributeDefinitions=defs[:3],
                       BillingMode="PAY_PER_REQUEST")
    assert code == "ValidationException"
    assert "Member must have length less than or equal to 2" in text
    code, text = error(dynamodb.create_table, TableName="Bad-" + uuid.uuid4().hex[:8],
                       KeySchema=[H("p"), R("a")], AttributeDefinitions=defs,
                       BillingMode="PAY_PER_REQUEST",
                       LocalSecondaryIndexes=[{"IndexName": "lsi",
                                               "KeySchema": [H("p"), R("b"), R("c")],
                                               "Projection": {"ProjectionType": "ALL"}}])
    assert code == "ValidationException"
    assert "Member must have length less than or equal to 2" in text


def test_undefined_component_is_refused(dynamodb):
    code, text = error(create, dynamodb=dynamodb, defs=DEFS[:4])
    assert code == "ValidationException"
    assert text.startswith(P + "Some index key attributes are not defined in AttributeDefinitions.")


def test_sparse_typed_and_moving_entries(dynamodb):
    name = create(dynamodb)
    full = match(1, random.Random(1))
    for missing in ["tournamentId", "region", "round", "bracket"]:
        item = dict(full, matchId={"S": "no-" + missing})
        del item[missing]
        dynamodb.put_item(TableName=name, Item=item)  # written, not indexed
    assert dynamodb.scan(TableName=name, IndexName="ByBracket")["Count"] == 0
    assert dynamodb.scan(TableName=name)["Count"] == 4
    for attr, bad in [("tournamentId", {"N": "1"}), ("region", {"B": b"x"}),
                      ("round", {"S": "1"}), ("bracket", {"N": "2"})]:
        code, text = error(dynamodb.put_item, TableName=name, Item=dict(full, **{attr: bad}))
        assert code == "ValidationException" and "Type mismatch for Index Key " + attr in text
    code, text = error(dynamodb.put_item, TableName=name, Item=dict(full, region={"S": ""}))
    assert code == "ValidationException" and "empty" in text
    # A batch with one bad item writes nothing.
    code, _ = error(dynamodb.batch_write_item, RequestItems={name: [
        {"PutRequest": {"Item": dict(full, matchId={"S": "b1"})}},
        {"PutRequest": {"Item": dict(full, matchId={"S": "b2"}, round={"S": "x"})}}]})
    assert code == "ValidationException"
    assert "Item" not in dynamodb.get_item(TableName=name, Key={"matchId": {"S": "b1"}})
    # SET of the last missing component adds the entry; a change moves it;
    # REMOVE drops it.
    dynamodb.update_item(TableName=name, Key={"matchId": {"S": "no-region"}},
                         UpdateExpression="SET #r = :r", ExpressionAttributeNames={"#r": "region"},
                         ExpressionAttributeValues={":r": {"S": "EU"}})
    keys = dict(KeyConditionExpression="tournamentId = :t AND #r = :r",
                ExpressionAttributeNames={"#r": "region"})
    found = dynamodb.query(TableName=name, IndexName="ByBracket", **keys,
                           ExpressionAttributeValues={":t": full["tournamentId"],
                                                      ":r": {"S": "EU"}})["Items"]
    assert [i["matchId"]["S"] for i in found] == ["no-region"]
    dynamodb.update_item(TableName=name, Key={"matchId": {"S": "no-region"}},
                         UpdateExpression="SET #r = :r", ExpressionAttributeNames={"#r": "region"},
                         ExpressionAttributeValues={":r": {"S": "NA"}})
    assert dynamodb.query(TableName=name, IndexName="ByBracket", **keys,
                          ExpressionAttributeValues={":t": full["tournamentId"],
                                                     ":r": {"S": "EU"}})["Count"] == 0
    dynamodb.update_item(TableName=name, Key={"matchId": {"S": "no-region"}},
                         UpdateExpression="REMOVE bracket")
    assert dynamodb.scan(TableName=name, IndexName="ByBracket")["Count"] == 0


# Every legal key condition: both HASH attributes, then a RANGE prefix whose
# last term may be any operator.
def legal_conditions():
    rng = random.Random(7)
    out = []
    for t, r in itertools.product(["WINTER", "SUMMER"], ["EU", "NA"]):
        out.append(((t, r), []))
        for depth in (1, 2, 3):
            for last in ["=", "<", "<=", ">", ">=", "between", "begins_with"]:
                if last == "begins_with" and depth == 1:
                    continue  # round is N
                prefix = [("=", v) for v in [rng.choice([1, 2, 3, 10]),
                                             rng.choice(["UPPER", "LOWER", "UP"])][:depth - 1]]
                operand = [lambda: rng.choice([1, 2, 3, 10]),
                           lambda: rng.choice(["UP", "LOWER", "UPPER", "M"]),
                           lambda: "m%04d" % rng.randrange(120)][depth - 1]
                if last == "between":
                    lo, hi = sorted([operand(), operand()])
                    prefix.append(("between", (lo, hi)))
                elif last == "begins_with":
                    prefix.append(("begins_with", ["U", "UP", "LOW", "m00"][rng.randrange(4)]
                                   if depth == 2 else "m00"))
                else:
                    prefix.append((last, operand()))
                out.append(((t, r), prefix))
    return out


def value(v):
    return {"N": str(v)} if isinstance(v, int) else {"S": v}


def expression(hash_values, range_terms, shuffle):
    names = {"#t": "tournamentId", "#g": "region", "#r0": "round", "#r1": "bracket",
             "#r2": "matchId"}
    values = {":t": value(hash_values[0]), ":g": value(hash_values[1])}
    parts = ["#t = :t", "#g = :g"]
    for i, (op, v) in enumerate(range_terms):
        if op == "between":
            values[":a%d" % i], values[":b%d" % i] = value(v[0]), value(v[1])
            parts.append("#r%d BETWEEN :a%d AND :b%d" % (i, i, i))
        elif op == "begins_with":
            values[":v%d" % i] = value(v)
            parts.append("begins_with(#r%d, :v%d)" % (i, i))
        else:
            values[":v%d" % i] = value(v)
            parts.append("#r%d %s :v%d" % (i, op, i))
    shuffle.shuffle(parts)  # clause order is free
    used = {k: n for k, n in names.items() if any(k in p for p in parts)}
    return " AND ".join(parts), used, values


def selects(item, hash_values, range_terms):
    if (item["tournamentId"]["S"], item["region"]["S"]) != hash_values:
        return False
    own = [int(item["round"]["N"]), item["bracket"]["S"], item["matchId"]["S"]]
    for (op, v), mine in zip(range_terms, own):
        if op == "=" and not mine == v:
            return False
        if op == "<" and not mine < v:
            return False
        if op == "<=" and not mine <= v:
            return False
        if op == ">" and not mine > v:
            return False
        if op == ">=" and not mine >= v:
            return False
        if op == "between" and not v[0] <= mine <= v[1]:
            return False
        if op == "begins_with" and not mine.startswith(v):
            return False
    return True


def test_every_legal_prefix_matches_a_brute_force_filter(dynamodb, matches):
    name, items = matches
    shuffle = random.Random(3)
    nonempty = 0
    for hash_values, range_terms in legal_conditions():
        text, names, values = expression(hash_values, range_terms, shuffle)
        want = sorted((i for i in items if selects(i, hash_values, range_terms)), key=sort_tuple)
        nonempty += bool(want)
        for forward, limit in [(True, None), (False, None), (True, 2)]:
            kwargs = dict(TableName=name, IndexName="ByBracket", KeyConditionExpression=text,
                          ExpressionAttributeNames=names, ExpressionAttributeValues=values,
                          ScanIndexForward=forward)
            if limit:
                kwargs["Limit"] = limit
            got, _ = query_all(dynamodb, **kwargs)
            assert got == (want if forward else want[::-1]), (text, values, forward, limit)
    assert nonempty > 40  # the conditions select something, not only nothing


def test_pages_carry_every_component(dynamodb, matches):
    name, items = matches
    t, r = items[0]["tournamentId"]["S"], items[0]["region"]["S"]
    kwargs = dict(TableName=name, IndexName="ByBracket",
                  KeyConditionExpression="tournamentId = :t AND #r = :r",
                  ExpressionAttributeNames={"#r": "region"},
                  ExpressionAttributeValues={":t": {"S": t}, ":r": {"S": r}})
    whole = dynamodb.query(**kwargs)["Items"]
    for limit in (1, 3, 7, 15):
        page = dynamodb.query(Limit=limit, **kwargs)
        assert set(page["LastEvaluatedKey"]) == {"tournamentId", "region", "round", "bracket",
                                                 "matchId"}
        got, pages = query_all(dynamodb, Limit=limit, **kwargs)
        assert got == whole and pages >= len(whole) // limit
    # A start key missing a component, or with one too many, is refused.
    start = dynamodb.query(Limit=1, **kwargs)["LastEvaluatedKey"]
    for bad in [{k: v for k, v in start.items() if k != "bracket"},
                dict(start, score={"N": "1"})]:
        code, text = error(dynamodb.query, ExclusiveStartKey=bad, **kwargs)
        assert code == "ValidationException" and text.startswith(
            "The provided starting key is invalid")


@pytest.mark.parametrize("condition, pattern", [
    ("tournamentId = :t", "HASH.*equality"),
    ("tournamentId = :t AND #r > :r", "HASH.*equality"),
    ("tournamentId = :t AND begins_with(#r, :r)", "HASH.*equality"),
    ("tournamentId = :t AND #r = :r AND bracket = :b", "RANGE.*equality"),
    ("tournamentId = :t AND #r = :r AND round = :n AND matchId = :m", "RANGE.*equality"),
    ("tournamentId = :t AND #r = :r AND round > :n AND bracket = :b", "RANGE.*equality"),
    ("tournamentId = :t AND #r = :r AND round > :n AND bracket > :b", "RANGE.*equality"),
    ("tournamentId = :t AND #r = :r AND begins_with(bracket, :b) AND matchId = :m",
     "RANGE.*equality"),
    ("tournamentId = :t AND #r = :r AND round = :b", "[Tt]ype"),
    ("tournamentId = :t AND #r = :r AND begins_with(round, :n)", "[Tt]ype"),
    ("tournamentId = :t AND #r = :r AND round = :n AND round = :n", "one condition per key"),
])
def test_illegal_conditions_are_refused(dynamodb, matches, condition, pattern):
    import re
    name, _ = matches
    values = {":t": {"S": "WINTER"}, ":r": {"S": "EU"}, ":n": {"N": "1"}, ":b": {"S": "UP"},
              ":m": {"S": "m0001"}}
    used = {k: v for k, v in values.items() if k in condition}
    code, text = error(dynamodb.query, TableName=name, IndexName="ByBracket",
                       KeyConditionExpression=condition, ExpressionAttributeValues=used,
                       **({"ExpressionAttributeNames": {"#r": "region"}} if "#r" in condition
                          else {}))
    assert code == "ValidationException" and re.search(pattern, text), text


def test_filter_may_not_name_a_component_and_reads_are_eventual(dynamodb, matches):
    name, _ = matches
    base = dict(TableName=name, IndexName="ByBracket",
                KeyConditionExpression="tournamentId = :t AND #r = :r",
                ExpressionAttributeValues={":t": {"S": "WINTER"}, ":r": {"S": "EU"},
                                           ":x": {"S": "UP"}})
    for names, attr in [({"#r": "region", "#b": "bracket"}, "#r = :x AND #b"),
                        ({"#r": "region"}, "#r"), ({"#r": "region"}, "matchId")]:
        code, text = error(dynamodb.query, FilterExpression=attr + " = :x",
                           ExpressionAttributeNames=names, **base)
        assert code == "ValidationException"
        assert "Filter Expression can only contain non-primary key attributes" in text
    code, text = error(dynamodb.query, ConsistentRead=True,
                       ExpressionAttributeNames={"#r": "region"},
                       **dict(base, ExpressionAttributeValues={":t": {"S": "W"},
                                                               ":r": {"S": "EU"}}))
    assert text == "Consistent reads are not supported on global secondary indexes"


def test_legacy_key_conditions_are_accepted(dynamodb, matches):
    name, items = matches
    t, r = items[0]["tournamentId"]["S"], items[0]["region"]["S"]
    got = dynamodb.query(TableName=name, IndexName="ByBracket", KeyConditions={
        "tournamentId": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": t}]},
        "region": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": r}]},
        "round": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "2"}]}})["Items"]
    want = sorted((i for i in items if selects(i, (t, r), [(">=", 2)])), key=sort_tuple)
    assert got == want and want


def test_scan_and_parallel_scan_of_the_index(dynamodb, matches):
    name, items = matches
    whole = dynamodb.scan(TableName=name, IndexName="ByBracket")
    assert whole["Count"] == len(items)
    seen = []
    for segment in range(3):
        start = None
        while True:
            kwargs = dict(TableName=name, IndexName="ByBracket", Segment=segment,
                          TotalSegments=3, Limit=11)
            if start:
                kwargs["ExclusiveStartKey"] = start
            page = dynamodb.scan(**kwargs)
            seen += [i["matchId"]["S"] for i in page["Items"]]
            start = page.get("LastEvaluatedKey")
            if not start:
                break
    assert sorted(seen) == sorted(i["matchId"]["S"] for i in items)


def test_partiql_select_on_a_composite_gsi_is_refused(dynamodb, matches):
    name, _ = matches
    code, text = error(dynamodb.execute_statement,
                       Statement='SELECT * FROM "%s"."ByBracket" WHERE tournamentId = \'W\'' % name)
    assert code == "ValidationException" and "ByBracket" in text
    # The table itself still answers.
    assert dynamodb.execute_statement(
        Statement='SELECT * FROM "%s" WHERE matchId = \'m0001\'' % name)["Items"]


def test_update_table_backfills_a_composite_gsi(dynamodb):
    name = "Matches-" + uuid.uuid4().hex[:8]
    dynamodb.create_table(TableName=name, KeySchema=[H("matchId")],
                          AttributeDefinitions=DEFS[:1], BillingMode="PAY_PER_REQUEST")
    rng = random.Random(11)
    items = [match(i, rng) for i in range(60)]
    del items[5]["region"]  # sparse: not in the index
    for item in items:
        dynamodb.put_item(TableName=name, Item=item)
    code, text = error(dynamodb.update_table, TableName=name, GlobalSecondaryIndexUpdates=[
        {"Create": {"IndexName": "ByBracket", "KeySchema": GSI_KEYS,
                    "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    assert text == P + "AttributeDefinitions is not specified for index: ByBracket" or \
        "AttributeDefinitions" in text
    code, text = error(dynamodb.update_table, TableName=name, AttributeDefinitions=DEFS,
                       GlobalSecondaryIndexUpdates=[{"Create": {
                           "IndexName": "Too", "KeySchema": [H("tournamentId"), H("region"),
                                                             H("round"), H("bracket"),
                                                             H("matchId")],
                           "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    assert text == P + "The KeySchema exceeds the maximum allowed number of HASH key attributes"
    dynamodb.update_table(TableName=name, AttributeDefinitions=DEFS, GlobalSecondaryIndexUpdates=[
        {"Create": {"IndexName": "ByBracket", "KeySchema": GSI_KEYS,
                    "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    dynamodb.get_waiter("table_exists").wait(TableName=name)
    for _ in range(200):
        gsi = dynamodb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
        if gsi["IndexStatus"] == "ACTIVE":
            break
        import time
        time.sleep(0.05)
    assert gsi["KeySchema"] == GSI_KEYS and gsi["IndexStatus"] == "ACTIVE"
    assert gsi["ItemCount"] == 59
    got = dynamodb.scan(TableName=name, IndexName="ByBracket")["Items"]
    assert sorted(i["matchId"]["S"] for i in got) == sorted(
        i["matchId"]["S"] for i in items if "region" in i)
    assert set(got[0]) == {"tournamentId", "region", "round", "bracket", "matchId"}


def test_dump_and_restore_keep_the_composite_gsi(dynamodb, matches, tmp_path):
    """A dump's table definition carries the whole KeySchema; restoring it
    into another database rebuilds the index, which answers the same."""
    import boto3
    from botocore.config import Config

    bin = os.environ["DYNAROCK_BIN"]
    name, items = matches
    # Restore the fixture's items into a database on disk, dump it, restore
    # the dump into a second one.
    source = tmp_path / "items.json"
    source.write_text("".join(json_line(i) for i in items))
    definition = tmp_path / "definition.json"
    definition.write_text(json.dumps({
        "TableName": name, "AttributeDefinitions": DEFS, "KeySchema": [H("matchId")],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [{"IndexName": "ByBracket", "KeySchema": GSI_KEYS,
                                    "Projection": {"ProjectionType": "ALL"}}]}))
    first, second, out = str(tmp_path / "db1"), str(tmp_path / "db2"), tmp_path / "dump"
    out.mkdir()
    run = lambda *args: subprocess.run([bin, *args], capture_output=True, text=True)  # noqa: E731
    r = run("restore", first, str(source), "--table-definition", str(definition),
            "--input-format", "DYNAMODB_JSON", "--compression", "NONE")
    assert r.returncode == 0, r.stderr
    r = run("dump", first, name, str(out))
    assert r.returncode == 0, r.stderr
    (export,) = (out / "AWSDynamoDB").iterdir()
    written = json.loads((export / "table-definition.json").read_text())
    assert written["GlobalSecondaryIndexes"][0]["KeySchema"] == GSI_KEYS
    r = run("restore", second, str(export))
    assert r.returncode == 0, r.stderr
    server = subprocess.Popen([bin, "serve", "--data-dir", second, "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().split()[4]
        restored = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                                aws_access_key_id="local", aws_secret_access_key="local",
                                config=Config(retries={"max_attempts": 1}))
        kwargs = dict(TableName=name, IndexName="ByBracket",
                      KeyConditionExpression="tournamentId = :t AND #r = :r AND round >= :n",
                      ExpressionAttributeNames={"#r": "region"},
                      ExpressionAttributeValues={":t": {"S": "WINTER"}, ":r": {"S": "EU"},
                                                 ":n": {"N": "2"}})
        assert query_all(restored, **kwargs)[0] == query_all(dynamodb, **kwargs)[0]
        gsi = restored.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
        assert gsi["KeySchema"] == GSI_KEYS and gsi["ItemCount"] == len(items)
    finally:
        server.terminate()
        assert server.wait(timeout=30) == 0


def json_line(item):
    return json.dumps({"Item": item}) + "\n"
