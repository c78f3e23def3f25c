"""The response writers of gen_protocol.py: JSON answers generated from the
service models' output shapes and the engine's public types.

A model member is read from the engine's field of the same name in
snake_case (TableSizeBytes -> table_size_bytes), and its value is written
by pairing the model's type with the C++ type the engine declares (parsed
from engine/include/dynarock/*.h): a structure with an engine struct, a list
with a std::vector, a map with a std::map, an AttributeValue map with an
Item (or a stored ItemView), an enum with the engine's enum of the same
values (PAY_PER_REQUEST <-> kPayPerRequest). A std::optional field is
written when it holds a value; every other field always.

What DynamoDB's answers do that this rule does not say is listed below, one
entry per member, with why. A model member with no engine field and no
entry is not sent (the engine has no such concept: Replicas, SSEDescription,
...); the generated code lists them beside each writer.
"""

import os
import re

from naming import engine_enumerator, field, snake

# The model shapes DynamoDB's answers lay out in an order other than the
# model's (recorded from DynamoDB): these members first, in this order.
OUTPUT_ORDER = {
    "Capacity": ["CapacityUnits", "ReadCapacityUnits", "WriteCapacityUnits"],
    "TableDescription": ["AttributeDefinitions", "TableName", "KeySchema", "TableStatus",
                         "CreationDateTime", "ProvisionedThroughput", "TableSizeBytes",
                         "ItemCount", "TableArn", "TableId", "BillingModeSummary",
                         "LocalSecondaryIndexes", "GlobalSecondaryIndexes",
                         "StreamSpecification", "LatestStreamArn", "LatestStreamLabel"],
    "TransactWriteItemsOutput": ["ItemCollectionMetrics", "ConsumedCapacity"],
    "TransactGetItemsOutput": ["Responses", "ConsumedCapacity"],
    "KeysAndAttributes": ["Keys", "ConsistentRead", "ProjectionExpression", "AttributesToGet",
                          "ExpressionAttributeNames"],
    "CancellationReason": ["Code", "Message", "Item"],
}

# Members sent only when this C++ condition on the engine value `v` (and the
# request `r`, for an operation's output) holds.
PRESENT = {
    # DeleteTable's description carries no definitions, key schema or
    # creation time (the engine leaves them empty).
    ("TableDescription", "AttributeDefinitions"): "!v.attribute_definitions.empty()",
    ("TableDescription", "KeySchema"): "!v.key_schema.empty()",
    ("TableDescription", "CreationDateTime"): "v.creation_date_time != 0",
    # Absent for a table that was always provisioned.
    ("TableDescription", "BillingModeSummary"):
        "v.billing_mode == dynarock::BillingMode::kPayPerRequest || "
        "v.last_update_to_pay_per_request_date_time.has_value()",
    ("GlobalSecondaryIndexDescription", "Backfilling"): "v.backfilling",
    ("KeysAndAttributes", "ConsistentRead"): "v.consistent_read",
    # Select=COUNT pages carry no Items member.
    ("QueryOutput", "Items"): "r.select != dynarock::Select::kCount",
    ("ScanOutput", "Items"): "r.select != dynarock::Select::kCount",
    ("GetItemOutput", "Item"): "!v.stored_item.empty()",
    # A write transaction answers no Responses member.
    ("ExecuteTransactionOutput", "Responses"): "!v.responses.empty()",
    # Only a deletion by TTL names who made it.
    ("Record", "userIdentity"): "v.time_to_live_deletion",
    # The restorable window only while point-in-time recovery is on.
    ("PointInTimeRecoveryDescription", "EarliestRestorableDateTime"):
        "v.point_in_time_recovery_enabled",
    ("PointInTimeRecoveryDescription", "LatestRestorableDateTime"):
        "v.point_in_time_recovery_enabled",
    ("PointInTimeRecoveryDescription", "RecoveryPeriodInDays"): "v.point_in_time_recovery_enabled",
}

# Members left out when the engine's list or map is empty.
OMIT_WHEN_EMPTY = {"ConsumedCapacity", "ItemCollectionMetrics", "NonKeyAttributes"}

# Members the engine holds under another name or shape: (C++ expression on
# `v`, its C++ type). `v` itself means the member's structure is written
# from the same engine value as its parent.
FIELD = {
    # The wire reads items as stored (ItemEncoding::kStored): JSON is
    # written from the views in place.
    ("GetItemOutput", "Item"): ("v.stored_item[0]", "ItemView"),
    ("QueryOutput", "Items"): ("v.stored_items", "StoredItems"),
    ("ScanOutput", "Items"): ("v.stored_items", "StoredItems"),
    ("TableDescription", "BillingModeSummary"): ("v", "TableDescription"),
    ("DescribeTimeToLiveOutput", "TimeToLiveDescription"): ("v", "DescribeTimeToLiveResponse"),
    ("Record", "dynamodb"): ("v", "StreamRecord"),
    ("Record", "userIdentity"): ("v", "StreamRecord"),
    ("TransactionCanceledException", "CancellationReasons"):
        ("v.reasons", "std::vector<CancellationReason>"),
    ("ProvisionedThroughputExceededException", "ThrottlingReasons"):
        ("v.reasons", "std::vector<ThrottlingReason>"),
    ("ThrottlingException", "throttlingReasons"): ("v.reasons", "std::vector<ThrottlingReason>"),
    # Point-in-time recovery: the engine's one flat record.
    ("UpdateContinuousBackupsOutput", "ContinuousBackupsDescription"):
        ("v", "ContinuousBackupsDescription"),
    ("DescribeContinuousBackupsOutput", "ContinuousBackupsDescription"):
        ("v", "ContinuousBackupsDescription"),
    ("ContinuousBackupsDescription", "PointInTimeRecoveryDescription"):
        ("v", "ContinuousBackupsDescription"),
}

# Members whose value is this C++ statement (on `v`): constants the engine
# does not carry.
CUSTOM = {
    # Dynarock never limits throughput decreases.
    ("ProvisionedThroughputDescription", "NumberOfDecreasesToday"): "w.Int64(0);",
    ("TimeToLiveDescription", "TimeToLiveStatus"):
        'w.String(v.enabled ? "ENABLED" : "DISABLED");',
    ("Record", "eventVersion"): 'w.String("1.1");',
    ("Record", "eventSource"): 'w.String("aws:dynamodb");',
    # A TTL deletion, as DynamoDB records it. The Streams model's Identity
    # capitalizes its members (Lambda's event JSON does not).
    ("Identity", "PrincipalId"): 'w.String("dynamodb.amazonaws.com");',
    ("Identity", "Type"): 'w.String("Service");',
    # ContinuousBackupsStatus is ENABLED for every DynamoDB table.
    ("ContinuousBackupsDescription", "ContinuousBackupsStatus"): 'w.String("ENABLED");',
    ("PointInTimeRecoveryDescription", "PointInTimeRecoveryStatus"):
        'w.String(v.point_in_time_recovery_enabled ? "ENABLED" : "DISABLED");',
    ("PointInTimeRecoveryDescription", "EarliestRestorableDateTime"):
        "w.Double(static_cast<double>(v.earliest_restorable_ms) / 1000.0);",
    ("PointInTimeRecoveryDescription", "LatestRestorableDateTime"):
        "w.Double(static_cast<double>(v.latest_restorable_ms) / 1000.0);",
}

# Output members DynamoDB added after botocore 1.29.27's model: deletion
# protection (March 2023), the item of a failed condition with
# ReturnValuesOnConditionCheckFailure (June 2023), and why a request was
# throttled (2025; the member's case differs between the two exceptions).
OUTPUT_ADDITIONS = {
    "TableDescription": {"DeletionProtectionEnabled": {"shape": "DeletionProtectionEnabled"}},
    "ConditionalCheckFailedException": {"Item": {"shape": "AttributeMap"}},
    "ProvisionedThroughputExceededException": {
        "ThrottlingReasons": {"shape": "ThrottlingReasonList"}},
    # RecoveryPeriodInDays (2025).
    "PointInTimeRecoveryDescription": {"RecoveryPeriodInDays": {"shape": "RecoveryPeriodInDays"}},
}
NEW_OUTPUT_SHAPES = {
    "ThrottlingException": {"type": "structure", "members": {
        "message": {"shape": "ErrorMessage"},
        "throttlingReasons": {"shape": "ThrottlingReasonList"}}},
    "ThrottlingReasonList": {"type": "list", "member": {"shape": "ThrottlingReason"}},
    "ThrottlingReason": {"type": "structure", "members": {
        "reason": {"shape": "String"}, "resource": {"shape": "String"}}},
}

# The error bodies with members beyond their message, and the engine's
# payload (Status::payload) each is written from. The message itself is
# ErrorResponse's (tools/server/wire.cc).
ERRORS = [
    ("ConditionalCheckFailedException", "ConditionalCheckFailedDetail"),
    ("TransactionCanceledException", "TransactionCanceledDetail"),
    ("ProvisionedThroughputExceededException", "ThrottlingDetail"),
    ("ThrottlingException", "ThrottlingDetail"),
]

# The operations answered from an engine response <Op>Response to an engine
# request <Op>Request. The others answer from elsewhere (wire.cc, jobs.cc).
DYNAMODB_OPERATIONS = [
    "CreateTable", "DescribeTable", "DeleteTable", "UpdateTable", "ListTables", "PutItem",
    "GetItem", "DeleteItem", "UpdateItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem",
    "TransactWriteItems", "TransactGetItems", "ExecuteStatement", "BatchExecuteStatement",
    "ExecuteTransaction", "UpdateTimeToLive", "DescribeTimeToLive", "ListTagsOfResource",
    "UpdateContinuousBackups", "DescribeContinuousBackups", "PutResourcePolicy",
    "GetResourcePolicy", "DeleteResourcePolicy", "SearchVectors",
]
# Operations whose engine response is not <Op>Response.
RESPONSE_TYPE = {"UpdateContinuousBackups": "ContinuousBackupsDescription",
                 "DescribeContinuousBackups": "ContinuousBackupsDescription"}
STREAMS_OPERATIONS = ["ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"]

ENGINE_HEADERS = ["engine/include/dynarock/types.h", "engine/include/dynarock/attribute_value.h"]


# ---- The engine's public types ---------------------------------------------------------------

class Engine:
    """The structs (fields in order, with their C++ types), enums and type
    aliases of the engine's public headers."""

    def __init__(self, top):
        self.structs, self.enums, self.aliases = {}, {}, {}
        self.defaulted = set()  # (struct, field) with a value other than {} by default
        for rel in ENGINE_HEADERS:
            with open(os.path.join(top, rel)) as f:
                self._parse(f.read())

    def _parse(self, text):
        text = re.sub(r"//[^\n]*", "", text)
        for m in re.finditer(r"\benum class (\w+)(?:\s*:\s*\w+)?\s*\{([^}]*)\}", text):
            self.enums[m.group(1)] = [e.split("=")[0].strip()
                                      for e in m.group(2).split(",") if e.strip()]
        for m in re.finditer(r"^using (\w+) = ([^;]+);", text, re.M):
            self.aliases[m.group(1)] = m.group(2).strip()
        for m in re.finditer(r"^struct (\w+)(?: : \w+)? \{[ \t]*\n(.*?)^\};", text, re.M | re.S):
            fields = []
            for statement in m.group(2).split(";"):
                statement = " ".join(statement.split())
                f = re.fullmatch(r"([\w:<>, ]+?) (\w+)(\{[^;]*\}| = .+)?", statement)
                if f:
                    fields.append((f.group(2), f.group(1)))
                    if f.group(3) and f.group(3) != "{}":
                        self.defaulted.add((m.group(1), f.group(2)))
            self.structs[m.group(1)] = fields

    def field_type(self, struct, field):
        for name, t in self.structs[self.resolve_name(struct)]:
            if name == field:
                return t
        return None

    def resolve_name(self, name):
        while name in self.aliases and re.fullmatch(r"\w+", self.aliases[name]):
            name = self.aliases[name]
        return name


def split_args(s):
    """'std::string, std::vector<X>' -> ['std::string', 'std::vector<X>']."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def parse_type(engine, t):
    """A C++ type as a tree: ('optional', x), ('vector', x), ('map', k, v) or ('name', n)."""
    t = t.strip()
    m = re.fullmatch(r"std::(optional|vector|map)<(.*)>", t)
    if m:
        args = [parse_type(engine, a) for a in split_args(m.group(2))]
        return (m.group(1), *args[:2])
    if t in ("Item", "ItemView", "StoredItems"):
        return ("name", t)
    if t in engine.aliases:
        return parse_type(engine, engine.aliases[t])
    return ("name", t)


# ---- The writers ---------------------------------------------------------------------------

class Writers:
    def __init__(self, shapes, engine):
        self.shapes, self.engine = shapes, engine
        self.queue, self.done, self.functions, self.enums = [], set(), [], set()

    def members(self, shape):
        names = list(self.shapes[shape].get("members", {}))
        first = [n for n in OUTPUT_ORDER.get(shape, []) if n in names]
        return first + [n for n in names if n not in first]

    def member_shape(self, shape, member):
        return self.shapes[shape]["members"][member]["shape"]

    def struct_fn(self, shape, cpp):
        key = (shape, cpp)
        if key not in self.done:
            self.done.add(key)
            self.queue.append(key)
        return "Write" + shape

    def value(self, shape, t, expr, out, indent, depth):
        """Statements writing the value `expr` (C++ type tree `t`) as model `shape`."""
        pad = " " * indent
        s = self.shapes[shape]
        kind = s["type"]
        x = "x%d" % depth
        if t[0] == "optional" and not (kind == "structure" and len(s["members"]) == 1):
            raise ValueError("an optional value needs a presence rule: %s %s" % (shape, expr))
        if kind == "structure":
            if t[0] == "name" and self.engine.resolve_name(t[1]) in self.engine.structs:
                out.append("%s%s(w, %s);" % (pad, self.struct_fn(shape, t[1]), expr))
                return
            members = list(s["members"])
            if len(members) == 1:  # a wrapper: {"Item": ...} around an item
                out.append(pad + "w.StartObject();")
                self.member(shape, members[0], t, expr, out, indent, depth, wrapped=True)
                out.append(pad + "w.EndObject();")
                return
        elif kind == "list":
            element = s["member"]["shape"]
            if t[0] == "vector":
                out.append(pad + "w.StartArray();")
                out.append("%sfor (const auto& %s : %s) {" % (pad, x, expr))
                self.value(element, t[1], x, out, indent + 2, depth + 1)
                out.append(pad + "}")
                out.append(pad + "w.EndArray();")
                return
            if t == ("name", "StoredItems"):
                out.append(pad + "w.StartArray();")
                out.append("%sfor (const dynarock::ItemView& %s : %s) {" % (pad, x, expr))
                self.value(element, ("name", "ItemView"), x, out, indent + 2, depth + 1)
                out.append(pad + "}")
                out.append(pad + "w.EndArray();")
                return
            pair = list(self.shapes[element].get("members", {}))
            if t[0] == "map" and pair == ["Key", "Value"]:  # tags: [{"Key", "Value"}]
                out.append(pad + "w.StartArray();")
                out.append("%sfor (const auto& [k%d, %s] : %s) {" % (pad, depth, x, expr))
                out.append(pad + "  w.StartObject();")
                out.append(pad + '  w.Key("Key");')
                out.append("%s  Str(w, k%d);" % (pad, depth))
                out.append(pad + '  w.Key("Value");')
                out.append("%s  Str(w, %s);" % (pad, x))
                out.append(pad + "  w.EndObject();")
                out.append(pad + "}")
                out.append(pad + "w.EndArray();")
                return
        elif kind == "map":
            value_shape = s["value"]["shape"]
            if value_shape == "AttributeValue":
                if t in (("name", "Item"), ("name", "ItemView")):
                    out.append("%sWriteItem(w, %s);" % (pad, expr))
                    return
            elif t[0] == "map":
                out.append(pad + "w.StartObject();")
                out.append("%sfor (const auto& [k%d, %s] : %s) {" % (pad, depth, x, expr))
                out.append("%s  Str(w, k%d);" % (pad, depth))
                self.value(value_shape, t[2], x, out, indent + 2, depth + 1)
                out.append(pad + "}")
                out.append(pad + "w.EndObject();")
                return
        elif kind == "string":
            if t == ("name", "std::string"):
                out.append("%sStr(w, %s);" % (pad, expr))
                return
            if "enum" in s and t[0] == "name" and t[1] in self.engine.enums:
                self.check_enum(shape, t[1])
                self.enums.add((t[1], shape))
                out.append("%sw.String(Name(%s));" % (pad, expr))
                return
        elif kind in ("integer", "long"):
            if t == ("name", "int32_t"):
                out.append("%sw.Int(%s);" % (pad, expr))
            elif t == ("name", "int64_t"):
                out.append("%sw.Int64(%s);" % (pad, expr))
            else:
                out.append("%sw.Int64(static_cast<int64_t>(%s));" % (pad, expr))
            return
        elif kind in ("double", "timestamp"):
            out.append("%sw.Double(%s);" % (pad, expr))
            return
        elif kind == "boolean" and t == ("name", "bool"):
            out.append("%sw.Bool(%s);" % (pad, expr))
            return
        raise ValueError("no rule writes model %s %s from C++ %s (%s)" % (kind, shape, t, expr))

    def check_enum(self, shape, cpp):
        values = {engine_enumerator(v) for v in self.shapes[shape]["enum"]}
        missing = [e for e in self.engine.enums[cpp] if e not in values]
        if missing:
            raise ValueError("%s has %s, not in the model's %s" % (cpp, missing, shape))

    def member(self, shape, member, cpp, expr_v, out, indent, depth, wrapped=False):
        """Key and value of one member of `shape`, read from engine value
        `expr_v` of type `cpp` (a struct name, or for a wrapper the type tree
        of the value itself). Returns False when the engine has no such member."""
        pad = " " * indent
        key = (shape, member)
        mshape = self.member_shape(shape, member)
        present = PRESENT.get(key)
        # The tables' entries are C++ on `v`, the writer's parameter.
        assert expr_v == "v" or not (key in PRESENT or key in FIELD or key in CUSTOM), key
        if key in CUSTOM:
            t, expr = None, None
        elif wrapped:
            t, expr = cpp, expr_v
        elif key in FIELD:
            expr, t = FIELD[key][0], parse_type(self.engine, FIELD[key][1])
        else:
            field = snake(member)
            ft = self.engine.field_type(cpp, field)
            if ft is None:
                return False
            expr, t = "%s.%s" % (expr_v, field), parse_type(self.engine, ft)
        if t is not None and t[0] == "optional" and present is None:
            present = "%s.has_value()" % expr
            expr, t = "*" + expr, t[1]
        elif (t is not None and member in OMIT_WHEN_EMPTY and t[0] in ("vector", "map")
              and present is None):
            present = "!%s.empty()" % expr
        if present is not None:
            out.append("%sif (%s) {" % (pad, present))
            indent += 2
            pad += "  "
        out.append('%sw.Key("%s");' % (pad, member))
        if key in CUSTOM:
            out.append(pad + CUSTOM[key])
        else:
            self.value(mshape, t, expr, out, indent, depth)
        if present is not None:
            out.append(pad[:-2] + "}")
        return True

    def gen_struct(self, shape, cpp):
        out = ["void Write%s(JsonWriter& w, const dynarock::%s& v) {" % (shape, cpp), "  w.StartObject();"]
        skipped = [m for m in self.members(shape)
                   if not self.member(shape, m, cpp, "v", out, 2, 0)]
        out += ["  w.EndObject();", "}"]
        if not any(re.search(r"\bv\b", line) for line in out[1:]):  # constants only
            out[0] = out[0].replace("& v)", "&)")
        note = []
        if skipped:
            note = ["// Not carried by the engine: %s." % ", ".join(skipped)]
        self.functions.append((shape, cpp, note + out))

    def gen_error(self, shape, payload):
        """Write<Exception>(w, payload): the members of an error body beyond
        its message, into the object ErrorResponse has opened."""
        out = ["void Write%s(JsonWriter& w, const dynarock::%s& v) {" % (shape, payload)]
        for m in self.members(shape):
            if m.lower() != "message":
                assert self.member(shape, m, payload, "v", out, 2, 0), (shape, m)
        out.append("}")
        while self.queue:
            self.gen_struct(*self.queue.pop(0))
        return ["// %s's members beyond its message." % shape] + out

    def gen_operation(self, op):
        """WriteOutput(w, request, response) for operation `op`."""
        out_shape = "%sOutput" % op
        req, resp = op + "Request", RESPONSE_TYPE.get(op, op + "Response")
        uses_request = any(k[0] == out_shape and "r." in c for k, c in PRESENT.items())
        out = ["void WriteOutput(JsonWriter& w, const dynarock::%s&%s, const dynarock::%s& v) {"
               % (req, " r" if uses_request else "", resp), "  w.StartObject();"]
        skipped = [m for m in self.members(out_shape)
                   if not self.member(out_shape, m, resp, "v", out, 2, 0)]
        out += ["  w.EndObject();", "}"]
        note = ["// %s." % op] + (["// Not carried by the engine: %s." % ", ".join(skipped)]
                                  if skipped else [])
        while self.queue:
            self.gen_struct(*self.queue.pop(0))
        return note + out


# Model input structs written back as JSON, as DynamoDB echoes them (an
# ImportTable's TableCreationParameters in its description): every member
# the request carried, in model order.
ECHOED = ["TableCreationParameters", "S3BucketSource", "InputFormatOptions"]
# The order Dynarock has echoed S3BucketSource in (the bucket first).
ECHO_ORDER = {"S3BucketSource": ["S3Bucket", "S3KeyPrefix", "S3BucketOwner"]}


class Echo:
    """Write<Shape>(w, const protocol::Shape&) for model structs as read."""

    def __init__(self, shapes):
        self.shapes, self.queue, self.done, self.functions = shapes, [], set(), []

    def fn(self, shape):
        if shape not in self.done:
            self.done.add(shape)
            self.queue.append(shape)
        return "Write" + shape

    def value(self, shape, expr, out, indent, depth):
        pad = " " * indent
        s = self.shapes[shape]
        kind = s["type"]
        x = "x%d" % depth
        if kind == "structure":
            out.append("%s%s(w, %s);" % (pad, self.fn(shape), expr))
        elif kind == "list":
            out.append(pad + "w.StartArray();")
            out.append("%sfor (const auto& %s : %s) {" % (pad, x, expr))
            self.value(s["member"]["shape"], x, out, indent + 2, depth + 1)
            out.append(pad + "}")
            out.append(pad + "w.EndArray();")
        elif kind == "map":
            out.append(pad + "w.StartObject();")
            out.append("%sfor (const auto& [k%d, %s] : %s) {" % (pad, depth, x, expr))
            out.append("%s  Str(w, k%d);" % (pad, depth))
            self.value(s["value"]["shape"], x, out, indent + 2, depth + 1)
            out.append(pad + "}")
            out.append(pad + "w.EndObject();")
        elif kind == "string":
            out.append("%sStr(w, %s);" % (pad, expr))
        elif kind in ("integer", "long"):
            out.append("%sw.Int64(%s);" % (pad, expr))
        elif kind == "boolean":
            out.append("%sw.Bool(%s);" % (pad, expr))
        elif kind in ("double", "timestamp"):
            out.append("%sw.Double(%s);" % (pad, expr))
        else:
            raise ValueError("no echo for model %s %s" % (kind, shape))

    def gen(self):
        for shape in ECHOED:
            self.fn(shape)
        while self.queue:
            shape = self.queue.pop(0)
            out = ["void Write%s(JsonWriter& w, const %s& v) {" % (shape, shape),
                   "  w.StartObject();"]
            names = list(self.shapes[shape]["members"])
            first = [n for n in ECHO_ORDER.get(shape, []) if n in names]
            for m in first + [n for n in names if n not in first]:
                member = self.shapes[shape]["members"][m]
                out.append("  if (v.%s) {" % field(m))
                out.append('    w.Key("%s");' % m)
                self.value(member["shape"], "*v.%s" % field(m), out, 4, 0)
                out.append("  }")
            out += ["  w.EndObject();", "}"]
            self.functions.append((shape, out))


def enum_functions(engine, pairs):
    """Name(E) for each engine enum E written as model enum shape (shapes, shape)."""
    out, names = [], {}
    for cpp, shapes, shape in pairs:
        by_enumerator = {engine_enumerator(x): x for x in shapes[shape]["enum"]}
        table = [(e, by_enumerator[e]) for e in engine.enums[cpp]]
        assert names.setdefault(cpp, table) == table, cpp
    for cpp, table in sorted(names.items()):
        out.append("const char* Name(dynarock::%s v) {" % cpp)
        out.append("  switch (v) {")
        for e, value in table:
            out.append("    case dynarock::%s::%s:" % (cpp, e))
            out.append('      return "%s";' % value)
        out.append("  }")
        out.append('  return "";')
        out.append("}")
        out.append("")
    return out, sorted(names)


def gen(top, dynamodb_shapes, streams_shapes, banner):
    engine = Engine(top)
    shapes = dict(dynamodb_shapes)
    for name, shape in NEW_OUTPUT_SHAPES.items():
        shapes.setdefault(name, shape)
    for shape, members in OUTPUT_ADDITIONS.items():
        shapes[shape] = dict(shapes[shape], members=dict(shapes[shape]["members"], **members))
    services = [("", Writers(shapes, engine), DYNAMODB_OPERATIONS),
                ("streams", Writers(streams_shapes, engine),
                 STREAMS_OPERATIONS)]
    bodies = [[w.gen_operation(op) for op in ops] for _, w, ops in services]
    bodies[0] += [services[0][1].gen_error(shape, payload) for shape, payload in ERRORS]
    echo = Echo(shapes)
    echo.gen()
    enum_cc, enum_names = enum_functions(
        engine, [(cpp, w.shapes, shape) for _, w, _ in services for cpp, shape in w.enums])
    h = [banner,
         "// The JSON answers of the operations served from an engine response:",
         "// WriteOutput(w, request, response) writes <Op>Output. See",
         "// tools/codegen/gen_writers.py for how members map onto the engine's types.",
         "#ifndef DYNAROCK_TOOLS_SERVER_PROTOCOL_WRITERS_GEN_H_",
         "#define DYNAROCK_TOOLS_SERVER_PROTOCOL_WRITERS_GEN_H_", "",
         "#include \"tools/server/protocol/model_gen.h\"",
         "#include \"tools/server/protocol/writer_runtime.h\"", "",
         "namespace dynarock::protocol {", "",
         "// The model's name of an engine enum value (kPayPerRequest -> \"PAY_PER_REQUEST\")."]
    h += ["const char* Name(dynarock::%s v);" % cpp for cpp in enum_names] + [""]
    h.append("// Model input structs as their JSON, every member the request carried.")
    h += ["void Write%s(JsonWriter& w, const %s& v);" % (e, e) for e in ECHOED] + [""]
    cc = [banner, "#include \"tools/server/protocol/writers_gen.h\"", "",
          "namespace dynarock::protocol {", ""] + enum_cc
    inner = [shape for shape, _ in echo.functions if shape not in ECHOED]
    cc += ["namespace {", ""]
    cc += ["void Write%s(JsonWriter& w, const %s& v);" % (e, e) for e in sorted(inner)] + [""]
    for shape, body in sorted(echo.functions):
        if shape not in ECHOED:
            cc += body + [""]
    cc += ["}  // namespace", ""]
    for shape, body in echo.functions:
        if shape in ECHOED:
            cc += body + [""]
    for (namespace, writers, operations), ops in zip(services, bodies):
        if namespace:
            h += ["namespace %s {" % namespace, ""]
            cc += ["namespace %s {" % namespace, ""]
        for op in operations:
            h.append("void WriteOutput(JsonWriter& w, const dynarock::%sRequest& r,\n                 const dynarock::%s& v);"
                     % (op, RESPONSE_TYPE.get(op, op + "Response")))
        h.append("")
        if not namespace:
            h.append("// The members of an error body beyond its message.")
            for shape, payload in ERRORS:
                h.append("void Write%s(JsonWriter& w, const dynarock::%s& v);" % (shape, payload))
            h.append("")
        if namespace:
            h += ["}  // namespace %s" % namespace, ""]
        cc += ["namespace {", ""]
        for shape, cpp, body in sorted(writers.functions):
            cc.append("void Write%s(JsonWriter& w, const dynarock::%s& v);" % (shape, cpp))
        cc.append("")
        for shape, cpp, body in sorted(writers.functions):
            cc += body + [""]
        cc += ["}  // namespace", ""]
        for body in ops:
            cc += body + [""]
        if namespace:
            cc += ["}  // namespace %s" % namespace, ""]
    h += ["}  // namespace dynarock::protocol", "",
          "#endif  // DYNAROCK_TOOLS_SERVER_PROTOCOL_WRITERS_GEN_H_", ""]
    cc += ["}  // namespace dynarock::protocol", ""]
    return "\n".join(h), "\n".join(cc)
