// Resolution: placeholders substituted, reserved words rejected, and the
// checks DynamoDB makes once literal values are known.
#include <algorithm>

#include "engine/expr/expression.h"

namespace dynarock::expr {
namespace {

Status Invalid(ExprKind kind, const std::string& msg) {
  return Status::Validation("Invalid " + std::string(ExprKindName(kind)) + ": " + msg);
}

const char* ComparatorText(Comparator op) {
  switch (op) {
    case Comparator::kEq: return "=";
    case Comparator::kNe: return "<>";
    case Comparator::kLt: return "<";
    case Comparator::kLe: return "<=";
    case Comparator::kGt: return ">";
    case Comparator::kGe: return ">=";
  }
  return "?";
}

// The long type names of update-expression messages.
std::string LongTypeName(AttrType t) {
  switch (t) {
    case AttrType::kS: return "STRING";
    case AttrType::kN: return "NUMBER";
    case AttrType::kB: return "BINARY";
    case AttrType::kBool: return "BOOLEAN";
    case AttrType::kNull: return "NULL";
    case AttrType::kM: return "MAP";
    case AttrType::kL: return "LIST";
    case AttrType::kSS: return "STRING_SET";
    case AttrType::kNS: return "NUMBER_SET";
    case AttrType::kBS: return "BINARY_SET";
  }
  return "?";
}

std::string RenderValue(const AttributeValue& v) {
  std::string text;
  if (v.is(AttrType::kS)) text = v.s();
  if (v.is(AttrType::kN)) text = v.n().ToString();
  if (v.is(AttrType::kB)) text = v.b();
  return "AttributeValue: {" + std::string(AttrTypeName(v.type())) + ":" + text + "}";
}

bool IsScalarKeyType(const AttributeValue& v) {
  return v.is(AttrType::kS) || v.is(AttrType::kN) || v.is(AttrType::kB);
}

bool Less(const AttributeValue& a, const AttributeValue& b) {
  if (a.is(AttrType::kN)) return a.n() < b.n();
  return (a.is(AttrType::kS) ? a.s() : a.b()) < (b.is(AttrType::kS) ? b.s() : b.b());
}

std::string JoinKeys(const std::vector<std::string>& keys) {
  std::string out = "{";
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) out += ", ";
    out += keys[i];
  }
  return out + "}";
}

// "The first operand must be distinct from the remaining operands ..."
Status CheckDistinct(const std::vector<Operand>& ops, const std::string& op, ExprKind kind) {
  if (ops.empty() || ops[0].kind != Operand::Kind::kPath) return Status::OK();
  for (size_t i = 1; i < ops.size(); ++i) {
    if (ops[i].kind == Operand::Kind::kPath && ops[i].path == ops[0].path) {
      return Invalid(kind, "The first operand must be distinct from the remaining operands for this "
                           "operator or function; operator: " + op + ", first operand: " +
                           ops[0].path.ToString());
    }
  }
  return Status::OK();
}

Status IncorrectOperand(ExprKind kind, const std::string& fn, const std::string& type) {
  return Invalid(kind, "Incorrect operand type for operator or function; operator or function: " +
                           fn + ", operand type: " + type);
}

}  // namespace

Status Resolver::ResolvePath(Path* p, ExprKind kind) {
  for (auto& e : p->elements) {
    auto* name = std::get_if<std::string>(&e);
    if (name == nullptr) continue;
    if (!name->empty() && (*name)[0] == '#') {
      const std::string* resolved = nullptr;
      if (names_ != nullptr) {
        auto it = names_->find(*name);
        if (it != names_->end()) resolved = &it->second;
      }
      if (resolved == nullptr) {
        return Invalid(kind, "An expression attribute name used in the document path is not "
                             "defined; attribute name: " + *name);
      }
      used_names_.insert(*name);
      *name = *resolved;
    } else if (IsReservedWord(*name)) {
      return Invalid(kind, "Attribute name is a reserved keyword; reserved keyword: " + *name);
    }
  }
  return Status::OK();
}

Status Resolver::ResolveOperand(Operand* o, ExprKind kind) {
  switch (o->kind) {
    case Operand::Kind::kPath: return ResolvePath(&o->path, kind);
    case Operand::Kind::kValue: {
      if (values_ == nullptr || !values_->count(o->placeholder)) {
        return Invalid(kind, "An expression attribute value used in expression is not defined; "
                             "attribute value: " + o->placeholder);
      }
      used_values_.insert(o->placeholder);
      o->value = values_->at(o->placeholder);
      return Status::OK();
    }
    default:
      for (auto& a : o->args) DYNAROCK_RETURN_IF_ERROR(ResolveOperand(&a, kind));
      if (o->kind == Operand::Kind::kSize && o->args[0].kind == Operand::Kind::kValue) {
        AttrType t = o->args[0].value.type();
        if (t == AttrType::kN || t == AttrType::kBool || t == AttrType::kNull) {
          return IncorrectOperand(kind, "size", std::string(AttrTypeName(t)));
        }
      }
      return Status::OK();
  }
}

Status Resolver::Resolve(Condition* c, ExprKind kind) {
  for (auto& child : c->children) DYNAROCK_RETURN_IF_ERROR(Resolve(&child, kind));
  for (auto& o : c->operands) DYNAROCK_RETURN_IF_ERROR(ResolveOperand(&o, kind));
  switch (c->kind) {
    case Condition::Kind::kCompare:
      // An ordering takes S, N or B: a constant of another type can never
      // compare, so it is refused before any item is read.
      if (c->op != Comparator::kEq && c->op != Comparator::kNe) {
        for (const Operand& o : c->operands) {
          if (o.kind == Operand::Kind::kValue && !IsScalarKeyType(o.value)) {
            return IncorrectOperand(kind, ComparatorText(c->op),
                                    std::string(AttrTypeName(o.value.type())));
          }
        }
      }
      return CheckDistinct(c->operands, ComparatorText(c->op), kind);
    case Condition::Kind::kBetween: {
      DYNAROCK_RETURN_IF_ERROR(CheckDistinct(c->operands, "BETWEEN", kind));
      const Operand& lo = c->operands[1];
      const Operand& hi = c->operands[2];
      if (lo.kind == Operand::Kind::kValue && hi.kind == Operand::Kind::kValue) {
        if (lo.value.type() != hi.value.type() || !IsScalarKeyType(lo.value)) {
          return Invalid(kind, "The BETWEEN operator requires same data type for lower and upper "
                               "bounds; lower bound operand: " + RenderValue(lo.value) +
                               ", upper bound operand: " + RenderValue(hi.value));
        }
        if (Less(hi.value, lo.value)) {
          return Invalid(kind, "The BETWEEN operator requires upper bound to be greater than or "
                               "equal to lower bound; lower bound operand: " +
                               RenderValue(lo.value) + ", upper bound operand: " +
                               RenderValue(hi.value));
        }
      }
      return Status::OK();
    }
    case Condition::Kind::kIn:
      return CheckDistinct(c->operands, "IN", kind);
    case Condition::Kind::kAttributeType: {
      const Operand& t = c->operands[1];
      static constexpr std::string_view kTypes[] = {"S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"};
      if (t.kind != Operand::Kind::kValue) {
        return Invalid(kind, "Incorrect operand type for operator or function; operator or "
                             "function: attribute_type, operand type: path");
      }
      std::string name = t.value.is(AttrType::kS) ? t.value.s() : DebugString(t.value);
      if (!t.value.is(AttrType::kS) ||
          std::find(std::begin(kTypes), std::end(kTypes), name) == std::end(kTypes)) {
        return Invalid(kind, "Invalid attribute type name found; type: " + name +
                             ", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}");
      }
      return Status::OK();
    }
    case Condition::Kind::kBeginsWith: {
      DYNAROCK_RETURN_IF_ERROR(CheckDistinct(c->operands, "begins_with", kind));
      const Operand& p = c->operands[1];
      if (p.kind == Operand::Kind::kValue && !p.value.is(AttrType::kS) && !p.value.is(AttrType::kB)) {
        return IncorrectOperand(kind, "begins_with", std::string(AttrTypeName(p.value.type())));
      }
      return Status::OK();
    }
    case Condition::Kind::kContains:
      return CheckDistinct(c->operands, "contains", kind);
    default:
      return Status::OK();
  }
}

Status Resolver::Resolve(std::vector<Path>* projection) {
  for (auto& p : *projection) DYNAROCK_RETURN_IF_ERROR(ResolvePath(&p, ExprKind::kProjection));
  return CheckPathsDisjoint(*projection, ExprKind::kProjection);
}

Status Resolver::Resolve(UpdateExpression* u) {
  const ExprKind kind = ExprKind::kUpdate;
  std::vector<Path> paths;
  for (auto& a : u->actions) {
    DYNAROCK_RETURN_IF_ERROR(ResolvePath(&a.path, kind));
    if (a.kind != UpdateAction::Kind::kRemove) DYNAROCK_RETURN_IF_ERROR(ResolveOperand(&a.value, kind));
    const AttributeValue& v = a.value.value;
    if (a.kind == UpdateAction::Kind::kAdd &&
        !(v.is(AttrType::kN) || v.is(AttrType::kSS) || v.is(AttrType::kNS) || v.is(AttrType::kBS))) {
      return Invalid(kind, "Incorrect operand type for operator or function; operator: ADD, operand type: " +
                               LongTypeName(v.type()));
    }
    if (a.kind == UpdateAction::Kind::kDelete &&
        !(v.is(AttrType::kSS) || v.is(AttrType::kNS) || v.is(AttrType::kBS))) {
      return Invalid(kind, "Incorrect operand type for operator or function; operator: DELETE, operand type: " +
                               LongTypeName(v.type()));
    }
    if (a.kind == UpdateAction::Kind::kSet &&
        (a.value.kind == Operand::Kind::kPlus || a.value.kind == Operand::Kind::kMinus)) {
      for (const auto& arg : a.value.args) {
        if (arg.kind == Operand::Kind::kValue && !arg.value.is(AttrType::kN)) {
          return Invalid(kind, std::string("Incorrect operand type for operator or function; operator: ") +
                                   (a.value.kind == Operand::Kind::kPlus ? "+" : "-") +
                                   ", operand type: " + LongTypeName(arg.value.type()));
        }
      }
    }
    paths.push_back(a.path);
  }
  return CheckPathsDisjoint(paths, kind);
}

Status Resolver::Finish() const {
  std::vector<std::string> unused;
  if (names_) {
    for (const auto& [k, v] : *names_) {
      if (!used_names_.count(k)) unused.push_back(k);
    }
  }
  if (!unused.empty()) {
    return Status::Validation("Value provided in ExpressionAttributeNames unused in expressions: keys: " +
                              JoinKeys(unused));
  }
  if (values_) {
    for (const auto& [k, v] : *values_) {
      if (!used_values_.count(k)) unused.push_back(k);
    }
  }
  if (!unused.empty()) {
    return Status::Validation("Value provided in ExpressionAttributeValues unused in expressions: keys: " +
                              JoinKeys(unused));
  }
  return Status::OK();
}

Status CheckPlaceholderMaps(const std::map<std::string, std::string>* names,
                            const std::map<std::string, AttributeValue>* values,
                            bool any_expression, std::string_view values_unused) {
  if (names && !any_expression) {
    return Status::Validation("ExpressionAttributeNames can only be specified when using expressions");
  }
  if (values && !values_unused.empty()) {
    return Status::Validation(
        "ExpressionAttributeValues can only be specified when using expressions: " +
        std::string(values_unused));
  }
  if (names) {
    if (names->empty()) return Status::Validation("ExpressionAttributeNames must not be empty");
    for (const auto& [k, v] : *names) {
      bool ok = k.size() >= 2 && k[0] == '#' &&
                std::all_of(k.begin() + 1, k.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
      if (!ok) {
        return Status::Validation("ExpressionAttributeNames contains invalid key: Syntax error; key: \"" + k + "\"");
      }
    }
  }
  if (values) {
    if (values->empty()) return Status::Validation("ExpressionAttributeValues must not be empty");
    for (const auto& [k, v] : *values) {
      bool ok = k.size() >= 2 && k[0] == ':' &&
                std::all_of(k.begin() + 1, k.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
      if (!ok) {
        return Status::Validation("ExpressionAttributeValues contains invalid key: Syntax error; key: \"" + k + "\"");
      }
      DYNAROCK_RETURN_IF_ERROR(v.Validate());
    }
  }
  return Status::OK();
}

Status CheckPathsDisjoint(const std::vector<Path>& paths, ExprKind kind) {
  for (size_t i = 0; i < paths.size(); ++i) {
    for (size_t j = i + 1; j < paths.size(); ++j) {
      const auto& a = paths[i].elements;
      const auto& b = paths[j].elements;
      size_t n = std::min(a.size(), b.size());
      size_t k = 0;
      while (k < n && a[k] == b[k]) ++k;
      if (k == n) {
        return Invalid(kind, "Two document paths overlap with each other; must remove or rewrite "
                             "one of these paths; path one: " + paths[i].ToString() +
                             ", path two: " + paths[j].ToString());
      }
      if (a[k].index() != b[k].index()) {
        return Invalid(kind, "Two document paths conflict with each other; must remove or rewrite "
                             "one of these paths; path one: " + paths[i].ToString() +
                             ", path two: " + paths[j].ToString());
      }
    }
  }
  return Status::OK();
}

}  // namespace dynarock::expr
