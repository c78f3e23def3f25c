"""The request translation of gen_protocol.py: the engine's typed request
from the model's input struct (model_gen.h), generated from DynamoDB's
service model and the engine's public types.

The rule is gen_writers.py's, the other way round: a model member goes into
the engine's field of the same name in snake_case, converted by pairing the
model's type with the field's C++ type. An absent member leaves the engine's
default (its default member initializer is DynamoDB's default: ReturnValues
NONE, ScanIndexForward true, ...). Members are converted in DynamoDB's
visiting order, so the first invalid AttributeValue is the one DynamoDB
names. AttributeValues go through the hand-written ToValue() (their rules
cannot be said by the model: tags, sets, numbers; tools/server/wire_requests.h).

An input member the engine has no field for must be listed below with what
happens to it: the generator fails otherwise, so that no member a client
sends is dropped without a decision.
"""

import re

from gen_writers import Engine, parse_type
from naming import engine_enumerator, field, snake

# Members the engine holds under another name: (the engine field, or "" for
# the target itself; the model sub-member to take, or None for the whole value).
IN_FIELD = {
    ("GlobalSecondaryIndexUpdate", "Delete"): ("delete_index_name", "IndexName"),
    ("VectorIndexUpdate", "Delete"): ("delete_index_name", "IndexName"),
    ("TransactWriteItem", "Delete"): ("delete_item", None),
    ("TransactGetItem", "Get"): ("", None),
    ("UpdateContinuousBackupsInput", "PointInTimeRecoverySpecification"): ("", None),
}

# Input members the engine does not carry, and why that is right.
REFUSED = "refused when set (wire_requests.cc, RefuseUnsupported)"
NOT_CARRIED = {
    ("CreateTableInput", "SSESpecification"): REFUSED,
    ("UpdateTableInput", "SSESpecification"): REFUSED,
    ("UpdateTableInput", "ReplicaUpdates"): REFUSED,
    ("ListTagsOfResourceInput", "NextToken"):
        "every tag (at most 50) is answered in one page, so no answer carries a NextToken",
}

# The operations translated (the others are answered from their model
# input directly: tools/server/wire.cc and jobs.cc).
OPERATIONS = [
    "CreateTable", "DescribeTable", "DeleteTable", "UpdateTable", "ListTables", "PutItem",
    "GetItem", "DeleteItem", "UpdateItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem",
    "TransactWriteItems", "TransactGetItems", "UpdateTimeToLive", "DescribeTimeToLive",
    "TagResource", "UntagResource", "ListTagsOfResource", "ExecuteStatement",
    "BatchExecuteStatement", "ExecuteTransaction", "UpdateContinuousBackups",
    "DescribeContinuousBackups", "PutResourcePolicy", "GetResourcePolicy",
    "DeleteResourcePolicy", "SearchVectors",
]


def cpp(t):
    """The C++ spelling of a parse_type() tree, engine names qualified."""
    if t[0] == "optional":
        return "std::optional<%s>" % cpp(t[1])
    if t[0] == "vector":
        return "std::vector<%s>" % cpp(t[1])
    if t[0] == "map":
        return "std::map<%s, %s>" % (cpp(t[1]), cpp(t[2]))
    name = t[1]
    if name in ("std::string", "bool", "double") or re.fullmatch(r"u?int\d+_t", name):
        return name
    return "dynarock::" + name


class Readers:
    def __init__(self, model, engine):
        self.model, self.engine = model, engine
        self.queue, self.done, self.functions, self.enums = [], set(), [], set()

    def struct_fn(self, shape, cpp_name):
        if (shape, cpp_name) not in self.done:
            self.done.add((shape, cpp_name))
            self.queue.append((shape, cpp_name))
        return "To" + shape

    def convert(self, shape, src, t, dst, out, indent, depth):
        """Statements converting the model value `src` (an lvalue of the
        protocol type of `shape`) into the engine lvalue `dst` of type `t`."""
        pad = " " * indent
        s = self.model.shapes[shape]
        kind = s["type"]
        x, y = "x%d" % depth, "y%d" % depth
        whole = (kind not in ("structure", "list", "map") or shape == "AttributeValue" or
                 (kind == "map" and t[1] == ("name", "Item")))
        if t[0] == "optional" and whole:  # assigned as a whole
            self.convert(shape, src, t[1], dst, out, indent, depth)
            return
        if t[0] == "optional":
            out.append("%s%s.emplace();" % (pad, dst))
            self.convert(shape, src, t[1], "(*%s)" % dst, out, indent, depth)
            return
        if kind == "structure":
            if shape == "AttributeValue" and t == ("name", "AttributeValue"):
                out.append("%sDYNAROCK_ASSIGN_OR_RETURN(%s, ToValue(std::move(%s), deferred));"
                           % (pad, dst, src))
                return
            if t[0] == "name" and self.engine.resolve_name(t[1]) in self.engine.structs:
                out.append("%sDYNAROCK_RETURN_IF_ERROR(%s(std::move(%s), &%s, deferred));"
                           % (pad, self.struct_fn(shape, t[1]), src, dst))
                return
        elif kind == "list":
            element = s["member"]["shape"]
            if t[0] == "vector":
                out.append("%s%s.reserve(%s.size());" % (pad, dst, src))
                out.append("%sfor (auto& %s : %s) {" % (pad, x, src))
                out.append("%s  auto& %s = %s.emplace_back();" % (pad, y, dst))
                self.convert(element, x, t[1], y, out, indent + 2, depth + 1)
                out.append(pad + "}")
                return
            pair = list(self.model.shapes[element].get("members", {}))
            if t[0] == "map" and pair == ["Key", "Value"]:  # tags: [{"Key", "Value"}]
                out.append("%sfor (auto& %s : %s) {" % (pad, x, src))
                out.append("%s  %s.insert_or_assign(std::move(%s.key).value_or(std::string()),"
                           % (pad, dst, x))
                out.append("%s                      std::move(%s.value).value_or(std::string()));"
                           % (pad, x))
                out.append(pad + "}")
                return
        elif kind == "map":
            value_shape = s["value"]["shape"]
            if value_shape == "AttributeValue" and t == ("name", "Item"):
                out.append("%sDYNAROCK_ASSIGN_OR_RETURN(%s, ToItem(std::move(%s), deferred));"
                           % (pad, dst, src))
                return
            if t[0] == "map":
                out.append("%sfor (auto& [k%d, %s] : %s) {" % (pad, depth, x, src))
                out.append("%s  %s %s{};" % (pad, cpp(t[2]), y))
                self.convert(value_shape, x, t[2], y, out, indent + 2, depth + 1)
                out.append("%s  %s.insert_or_assign(std::move(k%d), std::move(%s));"
                           % (pad, dst, depth, y))
                out.append(pad + "}")
                return
        elif kind in ("string", "blob"):
            if t == ("name", "std::string"):
                out.append("%s%s = std::move(%s);" % (pad, dst, src))
                return
            if "enum" in s and t[0] == "name" and t[1] in self.engine.enums:
                values = {engine_enumerator(v) for v in s["enum"]}
                missing = [e for e in self.engine.enums[t[1]] if e not in values]
                if missing:
                    raise ValueError("%s has %s, not in the model's %s" % (t[1], missing, shape))
                self.enums.add((t[1], shape))
                out.append("%s%s = To%s(%s);" % (pad, dst, t[1], src))
                return
        elif kind in ("integer", "long", "boolean", "double", "timestamp"):
            scalar = {"integer": ("int32_t", "int64_t"), "long": ("int64_t",),
                      "boolean": ("bool",), "double": ("double",), "timestamp": ("double",)}
            if t[0] == "name" and t[1] in scalar[kind]:
                out.append("%s%s = %s;" % (pad, dst, src))
                return
        raise ValueError("no rule converts model %s %s into C++ %s (%s)" % (kind, shape, t, dst))

    def member(self, shape, member, cpp_name, out):
        key = (shape, member)
        mshape = self.model.shapes[shape]["members"][member]["shape"]
        src = "in.%s" % field(member)
        if key in IN_FIELD:
            engine_field, sub = IN_FIELD[key]
            if sub is not None:
                src = "%s->%s" % (src, field(sub))
                mshape = self.model.shapes[mshape]["members"][sub]["shape"]
                out.append("  if (in.%s && %s) {" % (field(member), src))
            else:
                out.append("  if (%s) {" % src)
            if engine_field:
                t = parse_type(self.engine, self.engine.field_type(cpp_name, engine_field))
                dst = "out->%s" % engine_field
            else:
                t, dst = ("name", cpp_name), "(*out)"
        else:
            ft = self.engine.field_type(cpp_name, snake(member))
            if ft is None:
                if key not in NOT_CARRIED:
                    raise ValueError("%s.%s has no field in %s: map it or say why not"
                                     % (shape, member, cpp_name))
                return False
            t, dst = parse_type(self.engine, ft), "out->%s" % snake(member)
            out.append("  if (%s) {" % src)
        if dst == "(*out)":
            self.convert(mshape, "*" + src, t, dst, out, 4, 0)
        else:
            self.convert(mshape, "(*%s)" % src, t, dst, out, 4, 0)
        if (t[0] == "optional" and dst.startswith("out->") and
                (self.engine.resolve_name(cpp_name), dst[5:]) in self.engine.defaulted):
            # An optional the embedded API defaults to a value (Projection's
            # KEYS_ONLY): absent from the JSON is absent, as DynamoDB reads it.
            out += ["  } else {", "    %s.reset();" % dst]
        out.append("  }")
        return True

    def gen_struct(self, shape, cpp_name):
        name = "ToRequest" if shape.endswith("Input") else "To" + shape
        out = ["Status %s(%s&& in, %s* out, [[maybe_unused]] Status* deferred) {"
               % (name, shape, cpp(("name", cpp_name)))]
        skipped = [m for m in self.model.members(shape)
                   if not self.member(shape, m, cpp_name, out)]
        out += ["  return Status::OK();", "}"]
        note = ["// %s: %s." % (m, NOT_CARRIED[(shape, m)]) for m in skipped]
        self.functions.append((shape, cpp_name, note + out))

    def gen(self, operations):
        for op in operations:
            self.struct_fn(op + "Input", op + "Request")
        while self.queue:
            self.gen_struct(*self.queue.pop(0))

    def enum_functions(self):
        out = []
        for e, shape in sorted(self.enums):
            out.append("dynarock::%s To%s(const std::string& name) {" % (e, e))
            for v in self.model.shapes[shape]["enum"]:
                if engine_enumerator(v) in self.engine.enums[e]:
                    out.append('  if (name == "%s") return dynarock::%s::%s;'
                               % (v, e, engine_enumerator(v)))
            out.append("  return dynarock::%s{};  // unreachable: the model check passed" % e)
            out.append("}")
            out.append("")
        return out


def gen(top, model, banner, operations, namespace, out_h, model_h):
    """The translation of `operations` of `model` (its structs in `model_h`),
    in C++ `namespace`, declared in header `out_h`; (header, source)."""
    engine = Engine(top)
    r = Readers(model, engine)
    r.gen(operations)
    guard = "DYNAROCK_" + re.sub(r"[^A-Z0-9]", "_", out_h.upper()) + "_"
    h = [banner,
         "// The engine's typed request from the model's input (model_gen.h): see",
         "// tools/codegen/gen_requests.py for how members map onto the engine's types.",
         "// REQUIRES: the input passed its model check (protocol::Check).",
         "// `deferred` (may be null): see ToValue() in request_runtime.h.",
         "#ifndef " + guard, "#define " + guard, "",
         "#include \"dynarock/status.h\"",
         "#include \"dynarock/types.h\"",
         "#include \"%s\"" % model_h, "",
         "namespace %s {" % namespace, ""]
    for op in operations:
        h.append("Status ToRequest(%sInput&& in, dynarock::%sRequest* out, Status* deferred);"
                 % (op, op))
    h += ["", "}  // namespace %s" % namespace, "", "#endif  // " + guard, ""]
    ops = {op + "Input" for op in operations}
    cc = [banner, "#include \"%s\"" % out_h, "",
          "#include <string>", "#include <utility>", "",
          "#include \"tools/server/protocol/request_runtime.h\"", "",
          "namespace %s {" % namespace, "namespace {", ""]
    for shape, cpp_name, body in sorted(r.functions):
        if shape not in ops:
            cc.append("Status To%s(%s&& in, %s* out, Status* deferred);"
                      % (shape, shape, cpp(("name", cpp_name))))
    cc.append("")
    cc += r.enum_functions()
    for shape, cpp_name, body in sorted(r.functions):
        if shape not in ops:
            cc += body + [""]
    cc += ["}  // namespace", ""]
    for shape, cpp_name, body in sorted(r.functions):
        if shape in ops:
            cc += body + [""]
    cc += ["}  // namespace %s" % namespace, ""]
    return "\n".join(h), "\n".join(cc)
