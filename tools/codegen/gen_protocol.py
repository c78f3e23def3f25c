#!/usr/bin/env python3
"""Generates Dynarock's DynamoDB protocol layer from DynamoDB's service model.

Reads botocore's service-2.json (Debian's python3-botocore) and writes, for
every shape reachable from the input of a served operation:

  - a C++ struct whose members are all optional (absent and JSON null alike),
  - a deserializer from a simdjson DOM (phase 6 of VALIDATION.md: the first
    member of the wrong JSON type is a SerializationException in coral's
    words, members visited in DynamoDB's order),
  - a constraint checker (phase 8: required, pattern, length, range, enum;
    every violation collected, capped at 10, with DynamoDB's paths),
  - a Java-style renderer for values printed in violation messages,

plus a JSON file of test cases derived from the same model (tests/wire/),
and the response writers of gen_writers.py (from the output shapes of this
model and of DynamoDB Streams', and the engine's public types).

The model is the specification; what DynamoDB does differently from the
model (visiting order, enum order in messages, a few texts) is listed below
with the observation it comes from.

  tools/codegen/gen_protocol.py            regenerate the committed files
  tools/codegen/gen_protocol.py --check    exit 1 if they are out of date
"""

import argparse
import hashlib
import json
import os
import re
import sys
import types

import gen_requests
import gen_writers
# What the models lack (newer members, shapes and operations, for both
# services): one reviewed overlay.
from model_overlay import (MEMBER_SHAPES, MODEL_ADDITIONS, NEW_OPERATIONS, NEW_SHAPES,
                           SHAPE_CHANGES, STREAMS_MEMBER_SHAPES, STREAMS_MODEL_ADDITIONS,
                           STREAMS_NEW_SHAPES)
from naming import engine_enumerator, field

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MODEL = "/usr/lib/python3/dist-packages/botocore/data/dynamodb/2012-08-10/service-2.json"
OUT_H = os.path.join(TOP, "tools/server/protocol/model_gen.h")
OUT_CC = os.path.join(TOP, "tools/server/protocol/model_gen.cc")
OUT_CASES = os.path.join(TOP, "tests/wire/protocol_cases_gen.json")
OUT_CONSTRAINTS = os.path.join(TOP, "engine/include/dynarock/model/constraints_gen.h")
OUT_WRITERS_H = os.path.join(TOP, "tools/server/protocol/writers_gen.h")
OUT_REQUESTS_H = os.path.join(TOP, "tools/server/protocol/requests_gen.h")
OUT_REQUESTS_CC = os.path.join(TOP, "tools/server/protocol/requests_gen.cc")
OUT_STREAMS_REQUESTS_H = os.path.join(TOP, "tools/server/protocol/streams_requests_gen.h")
OUT_STREAMS_REQUESTS_CC = os.path.join(TOP, "tools/server/protocol/streams_requests_gen.cc")
OUT_WRITERS_CC = os.path.join(TOP, "tools/server/protocol/writers_gen.cc")

# The operations `dynarock serve` answers.
OPERATIONS = [
    "BatchGetItem", "BatchWriteItem", "CreateTable", "DeleteItem", "DeleteTable",
    "DescribeEndpoints", "DescribeLimits", "DescribeTable", "DescribeTimeToLive", "GetItem",
    "ListTables", "ListTagsOfResource", "PutItem", "Query", "Scan", "TagResource",
    "TransactGetItems", "TransactWriteItems", "UntagResource", "UpdateItem", "UpdateTable",
    "UpdateTimeToLive",
    # Continuous backups and the Export/Import APIs (tools/server/jobs.cc).
    "UpdateContinuousBackups", "DescribeContinuousBackups", "ExportTableToPointInTime",
    "DescribeExport", "ListExports", "ImportTable", "DescribeImport", "ListImports",
    # PartiQL (engine/partiql/).
    "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction",
    # Resource-based policies (March 2024; NEW_OPERATIONS below).
    "PutResourcePolicy", "GetResourcePolicy", "DeleteResourcePolicy",
    # Vector indexes (August 2026; NEW_OPERATIONS).
    "SearchVectors",
]

# VALIDATION.md 4.5: the order DynamoDB visits members in, for the type pass
# and the constraint pass alike (dynalite fitted it to AWS). Members not
# listed follow in model order.
VISIT_ORDER = {
    "CreateTableInput": ["AttributeDefinitions", "TableName", "BillingMode",
                         "ProvisionedThroughput", "KeySchema", "LocalSecondaryIndexes",
                         "GlobalSecondaryIndexes"],
    "ProvisionedThroughput": ["WriteCapacityUnits", "ReadCapacityUnits"],
    "LocalSecondaryIndex": ["IndexName", "KeySchema", "Projection"],
    "GlobalSecondaryIndex": ["IndexName", "KeySchema", "Projection", "ProvisionedThroughput"],
    "Projection": ["ProjectionType", "NonKeyAttributes"],
    "UpdateTableInput": ["TableName", "ProvisionedThroughput", "BillingMode",
                         "GlobalSecondaryIndexUpdates"],
    "GlobalSecondaryIndexUpdate": ["Update", "Create", "Delete"],
    "UpdateGlobalSecondaryIndexAction": ["IndexName", "ProvisionedThroughput"],
    "CreateGlobalSecondaryIndexAction": ["Projection", "IndexName", "ProvisionedThroughput",
                                         "KeySchema"],
    "PutItemInput": ["ReturnConsumedCapacity", "TableName", "Item", "ConditionalOperator",
                     "Expected", "ReturnValues", "ReturnItemCollectionMetrics",
                     "ConditionExpression", "ExpressionAttributeValues",
                     "ExpressionAttributeNames"],
    "ExpectedAttributeValue": ["AttributeValueList", "ComparisonOperator", "Exists", "Value"],
    "GetItemInput": ["ReturnConsumedCapacity", "AttributesToGet", "TableName", "Key",
                     "ConsistentRead", "ProjectionExpression", "ExpressionAttributeNames"],
    "DeleteItemInput": ["ReturnConsumedCapacity", "TableName", "ReturnValues",
                        "ReturnItemCollectionMetrics", "Key", "ConditionalOperator", "Expected",
                        "ConditionExpression", "ExpressionAttributeValues",
                        "ExpressionAttributeNames"],
    "UpdateItemInput": ["ReturnConsumedCapacity", "TableName", "ReturnItemCollectionMetrics",
                        "ReturnValues", "Key", "ConditionalOperator", "Expected",
                        "AttributeUpdates", "ConditionExpression", "UpdateExpression",
                        "ExpressionAttributeValues", "ExpressionAttributeNames"],
    "AttributeValueUpdate": ["Action", "Value"],
    "QueryInput": ["Select", "IndexName", "ReturnConsumedCapacity", "QueryFilter", "TableName",
                   "ConditionalOperator", "AttributesToGet", "Limit", "KeyConditions",
                   "ExclusiveStartKey", "ConsistentRead", "ScanIndexForward",
                   "KeyConditionExpression", "FilterExpression", "ProjectionExpression",
                   "ExpressionAttributeValues", "ExpressionAttributeNames"],
    "Condition": ["AttributeValueList", "ComparisonOperator"],
    "ScanInput": ["Select", "IndexName", "TotalSegments", "ReturnConsumedCapacity", "TableName",
                  "ConditionalOperator", "ScanFilter", "Segment", "Limit", "AttributesToGet",
                  "ExclusiveStartKey", "FilterExpression", "ProjectionExpression",
                  "ExpressionAttributeValues", "ExpressionAttributeNames"],
    "BatchGetItemInput": ["ReturnConsumedCapacity", "RequestItems"],
    "KeysAndAttributes": ["Keys", "AttributesToGet", "ConsistentRead", "ProjectionExpression",
                          "ExpressionAttributeNames"],
    "BatchWriteItemInput": ["ReturnConsumedCapacity", "ReturnItemCollectionMetrics",
                            "RequestItems"],
    "ListTablesInput": ["Limit", "ExclusiveStartTableName"],
}

# VALIDATION.md 4.4: the order DynamoDB lists enum values in its messages.
# They are the iteration order of a 32-bucket Java hash set; the rule below
# reproduces each recorded order, and the recorded one wins where two values
# share a bucket.
ENUM_ORDER = {
    "ComparisonOperator": ["IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT",
                           "NOT_NULL", "NE", "LE", "BEGINS_WITH", "GE", "CONTAINS"],
    # As CreateTable's answer lists them (recorded against DynamoDB).
    "VectorDistanceFunction": ["DOT_PRODUCT", "COSINE", "EUCLIDEAN"],
}

# Texts DynamoDB uses instead of the model's generic ones (FACTS.md 2 and 12).
# Key: (operation, path pattern with <k> for a map key, constraint kind).
PATH_OVERRIDES = {
    ("QueryInput", "limit", "min"): "Value at 'Limit'",
    ("BatchGetItemInput", "requestItems.<k>.member.keys", "max"):
        "Value at 'RequestItems.<k>.member.Keys'",
}

# Phase 7: table-level operations reject a missing TableName on its own,
# before collecting constraint violations. (A mis-sized one is an ordinary
# violation, "Value 'ab' at 'tableName' ...", as DynamoDB words it today.)
TABLE_NAME_HARD_CHECKS = ["CreateTableInput", "UpdateTableInput", "DeleteTableInput",
                          "DescribeTableInput", "DescribeTimeToLiveInput",
                          "UpdateTimeToLiveInput"]
# Shapes whose empty value breaks only a minimum length of 1 (see gen_checker).
EMPTY_NAME_MIN = {"TableName": 1}

# FACTS.md 12: BatchGetItem with an empty RequestItems (`{}`) has its own
# text, ahead of the constraints; an absent one is an ordinary "Value null".
EMPTY_REQUIRED = {("BatchGetItemInput", "RequestItems"):
                 "The requestItems parameter is required for BatchGetItem"}

JAVA_PACKAGE = "com.amazonaws.dynamodb.v20120810."


def java_hash(s):
    h = 0
    for ch in s:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h


def enum_message_order(shape_name, values, overrides=None):
    overrides = ENUM_ORDER if overrides is None else overrides
    if shape_name in overrides:
        assert sorted(overrides[shape_name]) == sorted(values), shape_name
        return overrides[shape_name]
    # Stable within a bucket: ties keep the model's order.
    return sorted(values, key=lambda v: java_hash(v) & 31)


def lower_first(name):
    return name[0].lower() + name[1:]


def include_path(path):
    """How a generated header is included: public headers by their dynarock/ path."""
    rel = os.path.relpath(path, TOP)
    return rel[len("engine/include/"):] if rel.startswith("engine/include/") else rel


def guard(path):
    """The include guard of a generated header."""
    name = include_path(path)
    name = name[len("dynarock/"):] if name.startswith("dynarock/") else name
    return "DYNAROCK_" + re.sub(r"[^A-Z0-9]", "_", name.upper()) + "_"


class Model:
    def __init__(self, path, svc):
        self.svc = svc
        with open(path, "rb") as f:
            raw = f.read()
        self.digest = hashlib.sha256(raw).hexdigest()
        self.m = json.loads(raw)
        self.shapes = self.m["shapes"]
        for name, shape in svc.new_shapes.items():
            self.shapes.setdefault(name, shape)
        for shape, members in svc.model_additions.items():
            for name, member in members.items():
                self.shapes[shape]["members"].setdefault(name, member)
        for (shape, name), new_shape in svc.member_shapes.items():
            self.shapes[shape]["members"][name] = {"shape": new_shape}
        for shape, changes in getattr(svc, "shape_changes", {}).items():
            self.shapes[shape].update(changes)
        for name, op in getattr(svc, "new_operations", {}).items():
            self.m["operations"].setdefault(name, op)
        self.reachable = []
        seen = set()

        def walk(n):
            if n in seen:
                return
            seen.add(n)
            s = self.shapes[n]
            for k in ("member", "key", "value"):
                if k in s:
                    walk(s[k]["shape"])
            for name in self.members(n):
                walk(s["members"][name]["shape"])
            self.reachable.append(n)

        for op in svc.operations:
            walk(self.m["operations"][op]["input"]["shape"])

    def members(self, n):
        s = self.shapes[n]
        names = list(s.get("members", {}))
        order = [x for x in self.svc.visit_order.get(n, []) if x in names]
        return order + [x for x in names if x not in order]

    def kind(self, n):
        return self.shapes[n]["type"]

    def structs(self):
        return [n for n in self.reachable if self.kind(n) == "structure"]

    def cpp_type(self, n):
        t = self.kind(n)
        s = self.shapes[n]
        if t in ("string", "blob"):
            return "std::string"
        if t == "integer":
            return "int32_t"
        if t == "long":
            return "int64_t"
        if t == "boolean":
            return "bool"
        if t == "timestamp":
            return "double"  # epoch seconds, as the JSON protocol sends them
        if t == "list":
            return "std::vector<%s>" % self.cpp_type(s["member"]["shape"])
        if t == "map":
            return "Map<%s>" % self.cpp_type(s["value"]["shape"])
        if t == "structure":
            return n
        raise ValueError(n)

    def java_type(self, n):
        t = self.kind(n)
        s = self.shapes[n]
        return {
            "string": "java.lang.String", "blob": "java.nio.ByteBuffer",
            "integer": "java.lang.Integer", "long": "java.lang.Long",
            "boolean": "java.lang.Boolean", "timestamp": "java.util.Date",
        }.get(t) or (JAVA_PACKAGE + n if t == "structure" else
                     "java.util.List<%s>" % self.java_type(s["member"]["shape"]) if t == "list"
                     else "java.util.Map<java.lang.String, %s>" %
                     self.java_type(s["value"]["shape"]))

    # Names of the generated functions for each shape.
    def reader(self, n):
        return "Read" + n

    def checker(self, n):
        return "Check" + n

    def renderer(self, n):
        return "Render" + n

    def needs_check(self, n, memo=None):
        """Whether a shape (or anything inside it) carries a constraint."""
        memo = {} if memo is None else memo
        if n in memo:
            return memo[n]
        memo[n] = False
        s = self.shapes[n]
        t = s["type"]
        r = any(k in s for k in ("min", "max", "pattern", "enum"))
        if t == "structure":
            r = r or bool(s.get("required")) or any(
                self.needs_check(s["members"][m]["shape"], memo) for m in s["members"])
        elif t == "list":
            r = r or self.needs_check(s["member"]["shape"], memo) and \
                self.kind(s["member"]["shape"]) in ("structure", "list", "map")
        elif t == "map":
            key = self.shapes[s["key"]["shape"]]
            value = self.shapes[s["value"]["shape"]]
            r = r or any(k in key for k in ("min", "max", "pattern")) or \
                (value["type"] == "string" and any(k in value for k in ("min", "max", "pattern"))) or \
                (self.needs_check(s["value"]["shape"], memo) and
                 self.kind(s["value"]["shape"]) in ("structure", "list", "map"))
        memo[n] = r
        return r


def cstr(s):
    return json.dumps(s)


def topo_structs(model):
    order, state = [], {}

    def visit(n):
        if state.get(n) == 2:
            return
        if state.get(n) == 1:
            return  # a cycle (AttributeValue): broken by std::vector
        state[n] = 1
        s = model.shapes[n]
        for m in s["members"].values():
            dep = m["shape"]
            while model.kind(dep) in ("list", "map"):
                dep = model.shapes[dep]["member" if model.kind(dep) == "list" else "value"]["shape"]
            if model.kind(dep) == "structure" and dep != n:
                visit(dep)
        state[n] = 2
        order.append(n)

    for n in model.structs():
        visit(n)
    return order


def recursive_structs(model):
    """Structures that contain themselves through lists or maps."""
    out = []
    for n in model.structs():
        todo, seen = [n], set()
        while todo:
            x = todo.pop()
            s = model.shapes[x]
            kids = [m["shape"] for m in s.get("members", {}).values()]
            kids += [s[k]["shape"] for k in ("member", "value") if k in s]
            for k in kids:
                if k == n:
                    out.append(n)
                    todo = []
                    break
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
    return out


def gen_header(model):
    out = []
    w = out.append
    w("// GENERATED by tools/codegen/gen_protocol.py from %s's service model" % model.svc.title)
    w("// (botocore %s, API %s, service-2.json sha256 %s)." %
      (model.m["metadata"].get("botocoreVersion", "1.29.27"), model.m["metadata"]["apiVersion"],
       model.digest[:16]))
    w("// Do not edit: change the generator and run it (tools/server/README.md, \"The protocol\").")
    w("#ifndef %s" % guard(model.svc.out_h))
    w("#define %s" % guard(model.svc.out_h))
    w("")
    w("#include <cstdint>")
    w("#include <optional>")
    w("#include <string>")
    w("#include <utility>")
    w("#include <vector>")
    w("")
    w("#include \"tools/server/protocol/runtime.h\"")
    w("")
    w("namespace %s {" % model.svc.protocol_ns)
    w("")
    w("inline constexpr char kModelApiVersion[] = %s;" % cstr(model.m["metadata"]["apiVersion"]))
    w("inline constexpr char kModelSha256[] = %s;" % cstr(model.digest))
    w("")
    for n in model.structs():
        w("struct %s;" % n)
    w("")
    for n in topo_structs(model):
        s = model.shapes[n]
        w("struct %s {" % n)
        if n in recursive_structs(model):
            # Special members defined out of line, where the type is
            # complete: it holds containers of itself.
            w("  %s();" % n)
            w("  %s(const %s&);" % (n, n))
            w("  %s(%s&&) noexcept;" % (n, n))
            w("  %s& operator=(const %s&);" % (n, n))
            w("  %s& operator=(%s&&) noexcept;" % (n, n))
            w("  ~%s();" % n)
        for m in model.members(n):
            shape = s["members"][m]["shape"]
            w("  std::optional<%s> %s;  // %s" % (model.cpp_type(shape), field(m), m))
        w("};")
        w("")
    for op in model.svc.operations:
        inp = model.m["operations"][op]["input"]["shape"]
        w("// %s: phase 6 (types), 7 (hard checks) and 8 (constraints)." % op)
        w("Status Read(Element json, %s* out);" % inp)
        w("Status Check(const %s& in);" % inp)
    w("")
    w("}  // namespace %s" % model.svc.protocol_ns)
    w("")
    w("#endif  // %s" % guard(model.svc.out_h))
    return "\n".join(out) + "\n"


def gen_reader(model, n, w):
    s = model.shapes[n]
    members = model.members(n)
    w("Status %s(Element json, Position pos, %s* out) {" % (model.reader(n), n))
    w("  DYNAROCK_RETURN_IF_ERROR(ExpectObject(json, pos, %s));" % cstr(JAVA_PACKAGE + n))
    if members:
        w("  Element slot[%d];" % len(members))
        w("  bool present[%d] = {};" % len(members))
        w("  for (auto [key, value] : Object(json)) {")
        w("    int i = -1;")
        for i, m in enumerate(members):
            w("    %sif (key == %s) i = %d;" % ("else " if i else "", cstr(m), i))
        w("    if (i < 0) continue;  // unknown members are dropped, as DynamoDB drops them")
        w("    present[i] = !value.is_null();  // null is absent")
        w("    slot[i] = value;")
        w("  }")
        for i, m in enumerate(members):
            shape = s["members"][m]["shape"]
            w("  if (present[%d]) {" % i)
            w("    DYNAROCK_RETURN_IF_ERROR(%s(slot[%d], Position::kMember, &out->%s.emplace()));" %
              (read_fn(model, shape), i, field(m)))
            w("  }")
    else:
        w("  (void)out;")
    w("  return Status::OK();")
    w("}")
    w("")


def read_fn(model, shape):
    t = model.kind(shape)
    if t == "string":
        return "ReadString"
    if t == "blob":
        return "ReadBlob"
    if t == "integer":
        return "ReadInteger"
    if t == "long":
        return "ReadLong"
    if t == "boolean":
        return "ReadBoolean"
    if t == "timestamp":
        return "ReadTimestamp"
    return model.reader(shape)


def gen_collection_reader(model, n, w):
    s = model.shapes[n]
    t = model.kind(n)
    if t == "list":
        el = s["member"]["shape"]
        w("Status %s(Element json, Position pos, %s* out) {" % (model.reader(n),
                                                               model.cpp_type(n)))
        w("  DYNAROCK_RETURN_IF_ERROR(ExpectArray(json, pos));")
        w("  for (Element e : Array(json)) {")
        w("    auto& v = out->emplace_back();")
        w("    if (e.is_null()) continue;  // a null element stays the default value")
        w("    DYNAROCK_RETURN_IF_ERROR(%s(e, Position::kElement, &v));" % read_fn(model, el))
        w("  }")
        w("  return Status::OK();")
        w("}")
    else:
        val = s["value"]["shape"]
        w("Status %s(Element json, Position pos, %s* out) {" % (model.reader(n),
                                                               model.cpp_type(n)))
        w("  DYNAROCK_RETURN_IF_ERROR(ExpectMap(json, pos, %s));" % cstr(model.java_type(val)))
        w("  for (auto [key, value] : Object(json)) {")
        w("    auto& v = out->emplace_back(std::string(key), %s{}).second;" %
          model.cpp_type(val))
        w("    if (value.is_null()) continue;")
        w("    DYNAROCK_RETURN_IF_ERROR(%s(value, Position::kElement, &v));" % read_fn(model, val))
        w("  }")
        w("  return Status::OK();")
        w("}")
    w("")


# The patterns engine/model/violations.cc matches (without a regex engine),
# each with a value that breaks it, for the generated test cases.
NAME_PATTERN = "[a-zA-Z0-9_.-]+"
PATTERN_VIOLATORS = {
    NAME_PATTERN: "a b c",
    "^[^\\$]+$": "a$b",
    "^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$": "a b c",
    "[0-9]{12}": "a b c",
    "[,;:|\\t ]": "ab",
    "[\\x20-\\x21\\x23-\\x2B\\x2D-\\x7E]*": "a,b",
    "([0-9a-f]{16})+": "g" * 112,
}
# Strings that match a pattern, for the length cases: (filler, granularity).
PATTERN_FILLERS = {"([0-9a-f]{16})+": ("0", 16)}


def constraint_list(shape):
    """The model constraints of a scalar or collection, in DynamoDB's order
    (VALIDATION.md 4.1: pattern, then min length, then max length)."""
    out = []
    if "pattern" in shape:
        if shape["pattern"] not in PATTERN_VIOLATORS:
            raise SystemExit("pattern %r: teach MatchesPattern (engine/model/violations.cc) "
                             "before serving this shape" % shape["pattern"])
        out.append(("pattern", shape["pattern"]))
    if "min" in shape:
        out.append(("min", shape["min"]))
    if "max" in shape:
        out.append(("max", shape["max"]))
    return out


# Engine field names that differ from the model's (snake_case) ones. "*"
# means the engine flattens the member: the element itself is the member.
ENGINE_FIELD_ALIASES = {
    ("TransactWriteItem", "Delete"): "delete_item",
    ("TransactGetItem", "Get"): "*",
    # The engine keeps tags as a map: a Tag is one of its entries.
    ("Tag", "Key"): "first",
    ("Tag", "Value"): "second",
}


def member_access(n, m):
    """(requires-expression, accessor) pairs under which a checker or renderer
    of shape `n` reaches member `m` of its value `v`."""
    out = [("requires { v.%s; }" % field(m), "v.%s" % field(m))]
    alias = ENGINE_FIELD_ALIASES.get((n, m))
    if alias == "*":
        out.append(("true", "v"))
    elif alias:
        out.append(("requires { v.%s; }" % alias, "v.%s" % alias))
    return out


def gen_checker(model, n, w):
    """A checker is a template: it runs on the wire's model structs and on the
    engine's requests alike, reaching members by name (requires-expressions),
    so one generated rule serves both."""
    s = model.shapes[n]
    t = s["type"]
    w("template <typename V>")
    w("void %s(const V& v, const Path& path, Violations* out) {" % model.checker(n))
    if t == "structure":
        required = set(s.get("required", []))
        for m in model.members(n):
            shape = s["members"][m]["shape"]
            sub = "Path(path, %s)" % cstr(lower_first(m))
            body = []
            presence = "IsGiven" if m in required else "IsPresent"
            if m in required:
                body.append("if (!IsGiven(%s)) out->NotNull(%s);")
            if model.needs_check(shape):
                body.append("if (%s(%%s)) %s(Get(%%s), %%s, out);" % (presence, check_fn(model, shape)))
            if not body:
                continue
            for i, (cond, acc) in enumerate(member_access(n, m)):
                w("  %sif constexpr (%s) {" % ("} else " if i else "", cond))
                for line in body:
                    if line.startswith("if (!IsGiven"):
                        w("    " + line % (acc, sub))
                    else:
                        w("    " + line % (acc, acc, sub))
            w("  }")
    elif t == "list":
        el = s["member"]["shape"]
        for kind, value in constraint_list(s):
            w("  out->Length([&] { return %s(v); }, v.size(), %s, %d, path);" %
              (model.renderer(n), "Bound::kMin" if kind == "min" else "Bound::kMax", value))
        if model.kind(el) in ("structure", "list", "map") and model.needs_check(el):
            w("  size_t i = 0;")
            w("  for (const auto& e : v) {")
            w("    %s(e, Path::Member(path, ++i), out);" %
              check_fn(model, el))
            w("  }")
    elif t == "map":
        key = model.shapes[s["key"]["shape"]]
        val = s["value"]["shape"]
        for kind, value in constraint_list(s):
            w("  out->Length([&] { return %s(v); }, v.size(), %s, %d, path);" %
              (model.renderer(n), "Bound::kMin" if kind == "min" else "Bound::kMax", value))
        key_constraints = constraint_list(key)
        if key_constraints:
            # VALIDATION.md 4.1: all of the key shape's constraints, max first.
            texts = []
            for kind, value in sorted(key_constraints, key=lambda c: ["max", "min", "pattern"]
                                      .index(c[0])):
                texts.append(constraint_text(kind, value, "string"))
            w("  for (const auto& [key, value] : v) {")
            w("    if (!%s) {" % key_predicate(key))
            w("      out->Add(%s(v), path, %s);" %
              (model.renderer(n), cstr("Map keys must satisfy constraint: [" + ", ".join(texts) + "]")))
            w("    }")
            w("  }")
        vs = model.shapes[val]
        if vs["type"] == "string" and constraint_list(vs):
            # ExpressionAttributeNames: each name is an AttributeName (at
            # most 65535 long), checked like a key, in the value's words.
            texts = [constraint_text(k, x, "string") for k, x in
                     sorted(constraint_list(vs), key=lambda c: ["max", "min", "pattern"].index(c[0]))]
            w("  for (const auto& [key, value] : v) {")
            w("    if (!%s) {" % key_predicate(vs, "value"))
            w("      out->Add(%s(v), path, %s);" %
              (model.renderer(n), cstr("Map value must satisfy constraint: [" + ", ".join(texts) + "]")))
            w("    }")
            w("  }")
        elif model.kind(val) == "list" and constraint_list(vs):
            texts = [constraint_text(k, x, "list") for k, x in
                     sorted(constraint_list(vs), key=lambda c: ["max", "min"].index(c[0]))]
            w("  for (const auto& [key, value] : v) {")
            conds = []
            for kind, value in constraint_list(vs):
                conds.append("value.size() %s %d" % ("<" if kind == "min" else ">", value))
            w("    if (%s) {" % " || ".join(conds))
            w("      out->Add(%s(v), path, %s);" %
              (model.renderer(n), cstr("Map value must satisfy constraint: [" + ", ".join(texts) + "]")))
            w("    }")
            w("  }")
            el = vs["member"]["shape"]
            if model.needs_check(el):
                w("  for (const auto& [key, value] : v) {")
                w("    size_t i = 0;")
                w("    for (const auto& e : value) {")
                w("      %s(e, Path::Member(Path::Member(path, key), ++i), out);" %
                  check_fn(model, el))
                w("    }")
                w("  }")
        elif model.kind(val) in ("structure", "list", "map") and model.needs_check(val):
            w("  for (const auto& [key, value] : v) {")
            w("    %s(value, Path::Member(path, key), out);" % check_fn(model, val))
            w("  }")
    else:
        if n in EMPTY_NAME_MIN:
            # DynamoDB's current model types TableName as a table name or
            # ARN of 1..1024 characters, checked first: an empty name fails
            # that alone; the name rules below (3..255, the pattern) apply
            # to a name that passed it, in the same words.
            w("  if (std::string_view(v).empty()) {")
            w("    out->Length([&] { return std::string(v); }, 0, Bound::kMin, %d, path);" %
              EMPTY_NAME_MIN[n])
            w("    return;")
            w("  }")
        gen_scalar_checks(model, n, w)
    w("}")
    w("")


def key_predicate(key, var="key"):
    conds = []
    if "min" in key:
        conds.append("Utf16Length(%s) >= %d" % (var, key["min"]))
    if "max" in key:
        conds.append("Utf16Length(%s) <= %d" % (var, key["max"]))
    if "pattern" in key:
        conds.append("MatchesPattern(%s, %s)" % (cstr(key["pattern"]), var))
    return "(" + " && ".join(conds) + ")"


def constraint_text(kind, value, t):
    if kind == "pattern":
        return "Member must satisfy regular expression pattern: " + value
    if t in ("integer", "long"):
        return "Member must have value %s than or equal to %d" % (
            "greater" if kind == "min" else "less", value)
    return "Member must have length %s than or equal to %d" % (
        "greater" if kind == "min" else "less", value)


def gen_scalar_checks(model, n, w):
    s = model.shapes[n]
    t = s["type"]
    if t == "string":
        if "enum" in s:
            # The engine's enums hold only valid values: nothing to check.
            w("  if constexpr (!std::is_enum_v<V>) {")
            order = enum_message_order(n, s["enum"], model.svc.enum_order)
            w("    static constexpr std::string_view kValues[] = {%s};" %
              ", ".join(cstr(x) for x in s["enum"]))
            w("    if (std::find(std::begin(kValues), std::end(kValues), v) == std::end(kValues)) {")
            w("      out->Add(v, path, %s);" %
              cstr("Member must satisfy enum value set: [" + ", ".join(order) + "]"))
            w("    }")
            w("  } else {")
            w("    (void)v; (void)path; (void)out;")
            w("  }")
            return
        for kind, value in constraint_list(s):
            if kind == "pattern":
                w("  if (!MatchesPattern(%s, v)) out->Add(v, path, %s);" %
                  (cstr(value), cstr(constraint_text(kind, value, t))))
            else:
                w("  out->Length([&] { return std::string(v); }, Utf16Length(v), %s, %d, path);" %
                  ("Bound::kMin" if kind == "min" else "Bound::kMax", value))
    elif t in ("integer", "long"):
        for kind, value in constraint_list(s):
            w("  out->Range(static_cast<int64_t>(v), %s, %d, path);" %
              ("Bound::kMin" if kind == "min" else "Bound::kMax", value))
    elif t == "blob":
        for kind, value in constraint_list(s):
            w("  out->Length([&] { return RenderBlob(v); }, v.size(), %s, %d, path);" %
              ("Bound::kMin" if kind == "min" else "Bound::kMax", value))
    else:
        w("  (void)v; (void)path; (void)out;")


def check_fn(model, shape):
    return model.checker(shape)


def s_member(model, list_shape):
    return model.shapes[list_shape]["member"]["shape"]


def gen_renderer(model, n, w):
    """Java's toString of a value of shape `n` (a template, like the checkers)."""
    s = model.shapes[n]
    t = s["type"]
    w("template <typename V>")
    w("std::string %s([[maybe_unused]] const V& v) {" % model.renderer(n))
    if t == "structure":
        # The engine's AttributeValue is a class, not a model struct: it
        # renders itself (DebugString, found by ADL).
        w("  if constexpr (requires { DebugString(v); }) {")
        w("    return DebugString(v);")
        w("  } else {")
        w("  std::string out = %s;" % cstr(n + "("))
        for i, m in enumerate(model.members(n)):
            shape = s["members"][m]["shape"]
            w("  out += %s;" % cstr((", " if i else "") + lower_first(m) + "="))
            for j, (cond, acc) in enumerate(member_access(n, m)):
                w("  %sif constexpr (%s) {" % ("} else " if j else "", cond))
                w("    out += IsPresent(%s) ? %s(Get(%s)) : \"null\";" %
                  (acc, model.renderer(shape), acc))
            w("  } else {")
            w("    out += \"null\";")
            w("  }")
        w("  return out + \")\";")
        w("  }")
    elif t == "list":
        el = s["member"]["shape"]
        w("  std::string out = \"[\";")
        w("  bool first = true;")
        w("  for (const auto& e : v) {")
        w("    if (!first) out += \", \";")
        w("    first = false;")
        w("    out += %s(e);" % model.renderer(el))
        w("  }")
        w("  return out + \"]\";")
    elif t == "map":
        val = s["value"]["shape"]
        w("  std::string out = \"{\";")
        w("  bool first = true;")
        w("  for (const auto& [key, value] : v) {")
        w("    if (!first) out += \", \";")
        w("    first = false;")
        w("    out += std::string(key) + \"=\" + %s(value);" % model.renderer(val))
        w("  }")
        w("  return out + \"}\";")
    elif t == "string":
        if "enum" in s:
            w("  if constexpr (std::is_enum_v<V>) {")
            for value in s["enum"]:
                w("    if (v == V::%s) return %s;" % (engine_enumerator(value), cstr(value)))
            w("    return \"?\";")
            w("  } else {")
            w("    return std::string(v);")
            w("  }")
        else:
            w("  return std::string(v);")
    elif t in ("integer", "long"):
        w("  return std::to_string(v);")
    elif t == "boolean":
        w("  return v ? \"true\" : \"false\";")
    elif t == "timestamp":
        w("  return std::to_string(v);")
    elif t == "blob":
        # Raw bytes: Java prints the ByteBuffer, never its content.
        w("  return RenderBlob(v);")
    w("}")
    w("")


def gen_constraints(model):
    """dynarock/model/constraints_gen.h: every model constraint, as templates."""
    out = []
    w = out.append
    w("// GENERATED by tools/codegen/gen_protocol.py from %s's service model" % model.svc.title)
    w("// (botocore 1.29.27, API %s, service-2.json sha256 %s)." %
      (model.m["metadata"]["apiVersion"], model.digest[:16]))
    w("// Do not edit: change the generator and run it (tools/server/README.md, \"The protocol\").")
    w("//")
    w("// The model's constraints (the constraint phase, tools/server/wire.h) as")
    w("// templates over any request type whose members carry the model's names in")
    w("// snake_case: the wire's model structs (tools/server/protocol) and the")
    w("// engine's requests (engine/model/checks.h) are checked by the same code.")
    w("#ifndef %s" % guard(model.svc.out_constraints))
    w("#define %s" % guard(model.svc.out_constraints))
    w("")
    w("#include <algorithm>")
    w("#include <iterator>")
    w("#include <string>")
    w("#include <string_view>")
    w("#include <type_traits>")
    w("")
    w("#include \"dynarock/model/violations.h\"")
    w("")
    w("namespace %s {" % model.svc.model_ns)
    w("")
    checked = [n for n in model.reachable if model.needs_check(n)]
    for n in model.reachable:
        w("template <typename V>")
        w("std::string %s(const V& v);" % model.renderer(n))
    for n in checked:
        w("template <typename V>")
        w("void %s(const V& v, const Path& path, Violations* out);" % model.checker(n))
    w("")
    for n in model.reachable:
        gen_renderer(model, n, w)
    for n in checked:
        gen_checker(model, n, w)
    for op in model.svc.operations:
        inp = model.m["operations"][op]["input"]["shape"]
        w("// %s: phase 7 (hard checks) and phase 8 (every violation, capped)." % op)
        w("template <typename V>")
        w("Status Check%s(const V& in) {" % op)
        if inp in model.svc.table_name_hard_checks:
            w("  DYNAROCK_RETURN_IF_ERROR(CheckTableNameHard(in.table_name));")
        for (shape, member), text in model.svc.empty_required.items():
            if shape == inp:
                w("  if (IsGiven(in.%s) && Get(in.%s).empty()) return Status::Validation(%s);" %
                  (field(member), field(member), cstr(text)))
        w("  Violations out;")
        for (shape, path, kind), text in model.svc.path_overrides.items():
            if shape == inp:
                w("  out.Override(%s, %s, %s);" % (cstr(path), "Bound::kMin" if kind == "min"
                                                   else "Bound::kMax", cstr(text)))
        if model.needs_check(inp):
            w("  %s(in, \"\", &out);" % model.checker(inp))
        else:
            w("  (void)in;")
        w("  return out.ToStatus();")
        w("}")
        w("")
    w("}  // namespace %s" % model.svc.model_ns)
    w("")
    w("#endif  // %s" % guard(model.svc.out_constraints))
    return "\n".join(out) + "\n"


def gen_source(model):
    out = []
    w = out.append
    w("// GENERATED by tools/codegen/gen_protocol.py from %s's service model." % model.svc.title)
    w("// Do not edit: change the generator and run it (tools/server/README.md, \"The protocol\").")
    w("#include \"%s\"" % os.path.relpath(model.svc.out_h, TOP))
    w("")
    w("#include \"%s\"" % include_path(model.svc.out_constraints))
    w("")
    w("namespace %s {" % model.svc.protocol_ns)
    w("")
    for n in recursive_structs(model):
        w("%s::%s() = default;" % (n, n))
        w("%s::%s(const %s&) = default;" % (n, n, n))
        w("%s::%s(%s&&) noexcept = default;" % (n, n, n))
        w("%s& %s::operator=(const %s&) = default;" % (n, n, n))
        w("%s& %s::operator=(%s&&) noexcept = default;" % (n, n, n))
        w("%s::~%s() = default;" % (n, n))
        w("")
    structs = model.structs()
    collections = [n for n in model.reachable if model.kind(n) in ("list", "map")]
    w("namespace {")
    w("")
    for n in structs:
        w("Status %s(Element json, Position pos, %s* out);" % (model.reader(n), n))
    for n in collections:
        w("Status %s(Element json, Position pos, %s* out);" % (model.reader(n),
                                                              model.cpp_type(n)))
    w("")
    for n in structs:
        gen_reader(model, n, w)
    for n in collections:
        gen_collection_reader(model, n, w)
    w("}  // namespace")
    w("")
    for op in model.svc.operations:
        inp = model.m["operations"][op]["input"]["shape"]
        w("Status Read(Element json, %s* out) {" % inp)
        w("  return %s(json, Position::kMember, out);" % model.reader(inp))
        w("}")
        w("")
        w("Status Check(const %s& in) { return %s::Check%s(in); }" % (inp, model.svc.model_ns, op))
        w("")
    w("}  // namespace %s" % model.svc.protocol_ns)
    return "\n".join(out) + "\n"


# ---- Test cases -----------------------------------------------------------------------------
# For every member of every operation's input (and one level into nested
# structures), the JSON value of the wrong type and coral's message for it.

def wrong_type_cases(model, shape, position):
    """(json value, message) pairs that mistype a value of `shape` at `position`
    ("member" or "element")."""
    t = model.kind(shape)
    java = model.java_type(shape)
    if t == "string":
        return [(True, "TRUE_VALUE cannot be converted to String"),
                (5, "NUMBER_VALUE cannot be converted to String"),
                (1.5, "DECIMAL_VALUE cannot be converted to String"),
                (["x"], "Unrecognized collection type class java.lang.String"),
                ({"a": 1}, "Start of structure or map found where not expected")]
    if t in ("integer", "long"):
        name = "Integer" if t == "integer" else "Long"
        return [(False, "FALSE_VALUE cannot be converted to " + name),
                ("5", "STRING_VALUE cannot be converted to " + name),
                ([1], "Unrecognized collection type class java.lang." + name)]
    if t == "boolean":
        return [(3, "NUMBER_VALUE cannot be converted to Boolean"),
                ("maybe", "Unexpected token received from parser"),
                ([True], "Unrecognized collection type class java.lang.Boolean")]
    if t == "blob":
        return [(1, "only base-64-encoded strings are convertible to bytes"),
                ("abc", "Base64 encoded length is expected a multiple of 4 bytes but found: 3")]
    if t == "list":
        scalar = ("Unexpected field type" if position == "member" else
                  "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be "
                  "cast to class java.lang.Class (sun.reflect.generics.reflectiveObjects."
                  "ParameterizedTypeImpl and java.lang.Class are in module java.base of loader "
                  "'bootstrap')")
        return [("x", scalar),
                ({"a": 1}, "Start of structure or map found where not expected")]
    if t == "map":
        return [("x", "Unexpected field type"),
                ([1], "Unrecognized collection type " + java)]
    if t == "structure":
        scalar = "Unexpected field type" if position == "member" else \
            "Unexpected value type in payload"
        return [(7, scalar), ([1], "Unrecognized collection type class " + java)]
    return []


# Operations whose deserialization errors are serde_json's, not coral's
# (tools/server/protocol/serde_errors.h; tests/wire/protocol_test.cc checks
# them): no coral-style cases for them (a missing required member is
# serde's `missing field` before any constraint).
SERDE_OPERATIONS = {"SearchVectors"}


def gen_cases(model):
    cases = []
    for op in OPERATIONS:
        inp = model.m["operations"][op]["input"]["shape"]
        for m in model.members(inp):
            shape = model.shapes[inp]["members"][m]["shape"]
            for value, msg in wrong_type_cases(model, shape, "member"):
                cases.append({"operation": op, "body": {m: value}, "type": "SerializationException",
                              "message": msg})
            t = model.kind(shape)
            # One level down: a structure member, a list element, a map value.
            if t == "structure":
                for sm in model.members(shape)[:4]:
                    sshape = model.shapes[shape]["members"][sm]["shape"]
                    for value, msg in wrong_type_cases(model, sshape, "member")[:2]:
                        cases.append({"operation": op, "body": {m: {sm: value}},
                                      "type": "SerializationException", "message": msg})
            elif t in ("list", "map"):
                inner = model.shapes[shape]["member" if t == "list" else "value"]["shape"]
                for value, msg in wrong_type_cases(model, inner, "element")[:2]:
                    body = {m: [value] if t == "list" else {"k": value}}
                    cases.append({"operation": op, "body": body,
                                  "type": "SerializationException", "message": msg})
    # Required members and enum values, one violation each and all together.
    for op in OPERATIONS:
        inp = model.m["operations"][op]["input"]["shape"]
        s = model.shapes[inp]
        if inp in TABLE_NAME_HARD_CHECKS:
            cases.append({"operation": op, "body": {}, "type": "ValidationException",
                          "message": "The parameter 'TableName' is required but was not "
                                     "present in the request"})
            continue
        violations = []
        for m in model.members(inp):
            shape = s["members"][m]["shape"]
            if m in s.get("required", []):
                violations.append(("Value null at '%s' failed to satisfy constraint: "
                                   "Member must not be null" % lower_first(m), None))
            elif "enum" in model.shapes[shape]:
                order = enum_message_order(shape, model.shapes[shape]["enum"])
                violations.append(("Value 'BOGUS' at '%s' failed to satisfy constraint: Member "
                                   "must satisfy enum value set: [%s]" %
                                   (lower_first(m), ", ".join(order)), (m, "BOGUS")))
        if not violations:
            continue
        body = {m: v for _, mv in violations if mv for m, v in [mv]}
        texts = [t for t, _ in violations][:10]
        n = len(texts)
        cases.append({"operation": op, "body": body, "type": "ValidationException",
                      "message": "%d validation error%s detected: %s" %
                                 (n, "" if n == 1 else "s", "; ".join(texts))})
    cases += constraint_cases(model)
    cases = [c for c in cases if c["operation"] not in SERDE_OPERATIONS]
    return json.dumps(cases, indent=1, sort_keys=True) + "\n"


def violating_values(model, shape):
    """(json value, rendered value, constraint text) that break one constraint
    of a top-level member's shape each."""
    s = model.shapes[shape]
    t = s["type"]
    out = []
    if t == "string" and "enum" not in s:
        if "pattern" in s:
            bad = PATTERN_VIOLATORS[s["pattern"]]
            out.append((bad, bad, constraint_text("pattern", s["pattern"], t)))
        filler, step = PATTERN_FILLERS.get(s.get("pattern"), (None, 1))
        if "min" in s and s["min"] > 0:
            v = "ab"[:s["min"] - 1] if "pattern" in s else ""
            if filler:
                v = filler * (step * ((s["min"] - 1) // step))
            if "pattern" in s or s["min"] == 1:
                out.append((v, v, constraint_text("min", s["min"], t)))
        if "max" in s and s["max"] <= 2048:
            v = "x" * (s["max"] + 1)
            if filler:
                v = filler * (step * (s["max"] // step + 1))
            out.append((v, v, constraint_text("max", s["max"], t)))
    elif t in ("integer", "long"):
        if "min" in s:
            out.append((s["min"] - 1, str(s["min"] - 1), constraint_text("min", s["min"], t)))
        if "max" in s:
            out.append((s["max"] + 1, str(s["max"] + 1), constraint_text("max", s["max"], t)))
    elif t == "list":
        el = model.kind(s["member"]["shape"])
        if "min" in s and s["min"] == 1:
            out.append(([], "[]", constraint_text("min", 1, t)))
        if "max" in s and el == "string" and not model.needs_check(s["member"]["shape"]):
            v = ["a"] * (s["max"] + 1)
            out.append((v, "[" + ", ".join(v) + "]", constraint_text("max", s["max"], t)))
    elif t == "map" and "min" in s and s["min"] == 1:
        out.append(({}, "{}", constraint_text("min", 1, t)))
    return out


def constraint_cases(model):
    """Each top-level member given a value that breaks one of its constraints;
    the message also lists the request's other missing required members, in
    DynamoDB's visiting order, as they are all collected together."""
    cases = []
    for op in OPERATIONS:
        inp = model.m["operations"][op]["input"]["shape"]
        s = model.shapes[inp]
        for m in model.members(inp):
            shape = s["members"][m]["shape"]
            for value, rendered, constraint in violating_values(model, shape):
                path = lower_first(m)
                if (inp, m) in EMPTY_REQUIRED and value == {}:
                    cases.append({"operation": op, "body": {m: value},
                                  "type": "ValidationException",
                                  "message": EMPTY_REQUIRED[(inp, m)]})
                    continue
                if inp in TABLE_NAME_HARD_CHECKS and m != "TableName":
                    continue  # the absent TableName would be thrown alone
                kind = "min" if "greater" in constraint else "max"
                texts = []
                for other in model.members(inp):
                    if other == m:
                        head = PATH_OVERRIDES.get((inp, path, kind),
                                                  "Value '%s' at '%s'" % (rendered, path))
                        texts.append(head + " failed to satisfy constraint: " + constraint)
                    elif other in s.get("required", []):
                        texts.append("Value null at '%s' failed to satisfy constraint: Member "
                                     "must not be null" % lower_first(other))
                texts = texts[:10]
                cases.append({"operation": op, "body": {m: value},
                              "type": "ValidationException",
                              "message": "%d validation error%s detected: %s" %
                                         (len(texts), "" if len(texts) == 1 else "s",
                                          "; ".join(texts))})
    return cases


# What differs between the two services' generated code.
DYNAMODB = types.SimpleNamespace(
    title="DynamoDB", operations=OPERATIONS, visit_order=VISIT_ORDER, enum_order=ENUM_ORDER,
    path_overrides=PATH_OVERRIDES, table_name_hard_checks=TABLE_NAME_HARD_CHECKS,
    empty_required=EMPTY_REQUIRED, model_additions=MODEL_ADDITIONS, new_shapes=NEW_SHAPES,
    member_shapes=MEMBER_SHAPES, shape_changes=SHAPE_CHANGES, new_operations=NEW_OPERATIONS,
    protocol_ns="dynarock::protocol", model_ns="dynarock::model", out_h=OUT_H, out_cc=OUT_CC,
    out_constraints=OUT_CONSTRAINTS)
STREAMS = types.SimpleNamespace(
    title="DynamoDB Streams",
    operations=["ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"],
    visit_order={},
    # The order Dynarock has always listed these in: no recorded DynamoDB
    # Streams message confirms it or the hash-set rule (UNVERIFIED).
    enum_order={"ShardIteratorType": ["AFTER_SEQUENCE_NUMBER", "TRIM_HORIZON",
                                      "AT_SEQUENCE_NUMBER", "LATEST"]},
    path_overrides={}, table_name_hard_checks=[], empty_required={},
    model_additions=STREAMS_MODEL_ADDITIONS, new_shapes=STREAMS_NEW_SHAPES,
    member_shapes=STREAMS_MEMBER_SHAPES,
    protocol_ns="dynarock::protocol::streams", model_ns="dynarock::model::streams",
    out_h=os.path.join(TOP, "tools/server/protocol/streams_model_gen.h"),
    out_cc=os.path.join(TOP, "tools/server/protocol/streams_model_gen.cc"),
    out_constraints=os.path.join(TOP, "engine/include/dynarock/model/streams_constraints_gen.h"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed files instead of writing them")
    args = ap.parse_args()
    model = Model(args.model, DYNAMODB)
    streams_path = os.path.normpath(os.path.join(os.path.dirname(args.model),
                                                 "../../dynamodbstreams/2012-08-10/service-2.json"))
    streams = Model(streams_path, STREAMS)
    outputs = {OUT_CASES: gen_cases(model)}
    for m in (model, streams):
        outputs[m.svc.out_h] = gen_header(m)
        outputs[m.svc.out_cc] = gen_source(m)
        outputs[m.svc.out_constraints] = gen_constraints(m)
    with open(streams_path, "rb") as f:
        streams_raw = f.read()
    banner = ("// GENERATED by tools/codegen/gen_protocol.py (gen_writers.py) from the output\n"
              "// shapes of DynamoDB's and DynamoDB Streams' service models (botocore, sha256\n"
              "// %s and %s) and the engine's public types.\n"
              "// Do not edit: change the generator and run it (tools/server/README.md)."
              % (model.digest[:16], hashlib.sha256(streams_raw).hexdigest()[:16]))
    for m, out_h, out_cc, ops in (
            (model, OUT_REQUESTS_H, OUT_REQUESTS_CC, gen_requests.OPERATIONS),
            (streams, OUT_STREAMS_REQUESTS_H, OUT_STREAMS_REQUESTS_CC, streams.svc.operations)):
        header = ("// GENERATED by tools/codegen/gen_protocol.py (gen_requests.py) from the\n"
                  "// %s service model (sha256 %s) and the engine's public types.\n"
                  "// Do not edit: change the generator and run it (tools/server/README.md)."
                  % (m.svc.title, m.digest[:16]))
        outputs[out_h], outputs[out_cc] = gen_requests.gen(
            TOP, m, header, ops, m.svc.protocol_ns, os.path.relpath(out_h, TOP),
            os.path.relpath(m.svc.out_h, TOP))
    outputs[OUT_WRITERS_H], outputs[OUT_WRITERS_CC] = gen_writers.gen(
        TOP, model.shapes, json.loads(streams_raw)["shapes"], banner)
    stale = []
    for path, text in outputs.items():
        if args.check:
            try:
                with open(path) as f:
                    if f.read() != text:
                        stale.append(path)
            except FileNotFoundError:
                stale.append(path)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("out of date (run tools/codegen/gen_protocol.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
