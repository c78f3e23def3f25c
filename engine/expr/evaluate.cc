// Evaluation of resolved expressions: conditions over a Document, projection
// of an item, and update application.
#include <algorithm>
#include <map>
#include <variant>

#include "engine/expr/expression.h"

namespace dynarock::expr {
namespace {

// One step down a value: a map key or a list index; nullptr if absent.
const AttributeValue* Step(const AttributeValue& v, const PathElement& e) {
  if (const auto* name = std::get_if<std::string>(&e)) {
    return v.is(AttrType::kM) ? v.Find(*name) : nullptr;
  }
  size_t i = std::get<size_t>(e);
  return v.is(AttrType::kL) && i < v.l().size() ? &v.l()[i] : nullptr;
}

const AttributeValue* Lookup(const Item& item, const Path& path) {
  auto it = item.find(path.root());
  if (it == item.end()) return nullptr;
  const AttributeValue* v = &it->second;
  for (size_t i = 1; v && i < path.elements.size(); ++i) v = Step(*v, path.elements[i]);
  return v;
}

std::string_view Bytes(const AttributeValue& v) { return v.is(AttrType::kS) ? v.s() : v.b(); }

// <0, 0, >0 for comparable values (same type, S/N/B); nullopt otherwise.
std::optional<int> Order(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() != b.type()) return std::nullopt;
  if (a.is(AttrType::kN)) {
    auto c = a.n() <=> b.n();
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is(AttrType::kS) || a.is(AttrType::kB)) {
    int c = Bytes(a).compare(Bytes(b));  // unsigned bytewise
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return std::nullopt;
}

bool Compare(Comparator op, const std::optional<AttributeValue>& a,
             const std::optional<AttributeValue>& b) {
  if (op == Comparator::kEq) return a && b && *a == *b;
  if (op == Comparator::kNe) return !(a && b && *a == *b);
  if (!a || !b) return false;
  std::optional<int> c = Order(*a, *b);
  if (!c) return false;
  switch (op) {
    case Comparator::kLt: return *c < 0;
    case Comparator::kLe: return *c <= 0;
    case Comparator::kGt: return *c > 0;
    case Comparator::kGe: return *c >= 0;
    default: return false;
  }
}

bool Contains(const AttributeValue& haystack, const AttributeValue& needle) {
  switch (haystack.type()) {
    case AttrType::kS:
    case AttrType::kB:
      return haystack.type() == needle.type() &&
             Bytes(haystack).find(Bytes(needle)) != std::string_view::npos;
    case AttrType::kSS:
      return needle.is(AttrType::kS) &&
             std::binary_search(haystack.ss().begin(), haystack.ss().end(), needle.s());
    case AttrType::kBS:
      return needle.is(AttrType::kB) &&
             std::binary_search(haystack.bs().begin(), haystack.bs().end(), needle.b());
    case AttrType::kNS:
      return needle.is(AttrType::kN) &&
             std::binary_search(haystack.ns().begin(), haystack.ns().end(), needle.n());
    case AttrType::kL:
      return std::find(haystack.l().begin(), haystack.l().end(), needle) != haystack.l().end();
    default: return false;
  }
}

}  // namespace

std::optional<AttributeValue> ItemDocument::Get(const Path& path) const {
  if (item_ == nullptr) return std::nullopt;
  const AttributeValue* v = Lookup(*item_, path);
  return v ? std::optional(*v) : std::nullopt;
}

std::optional<AttributeValue> ViewDocument::Get(const Path& path) const {
  auto v = view_.FindPath(path.elements);
  if (!v) return std::nullopt;
  auto decoded = v->Decode();
  // Bytes the engine wrote always decode; a corrupt value reads as absent.
  return decoded.ok() ? std::optional(std::move(decoded).value()) : std::nullopt;
}

std::optional<AttributeValue> EvaluateOperand(const Operand& o, const Document& doc) {
  switch (o.kind) {
    case Operand::Kind::kPath: return doc.Get(o.path);
    case Operand::Kind::kValue: return o.value;
    case Operand::Kind::kSize: {
      auto v = EvaluateOperand(o.args[0], doc);
      if (!v) return std::nullopt;
      size_t n;
      switch (v->type()) {
        case AttrType::kS: n = v->s().size(); break;  // UTF-8 bytes
        case AttrType::kB: n = v->b().size(); break;
        case AttrType::kSS: n = v->ss().size(); break;
        case AttrType::kNS: n = v->ns().size(); break;
        case AttrType::kBS: n = v->bs().size(); break;
        case AttrType::kL: n = v->l().size(); break;
        case AttrType::kM: n = v->m().size(); break;
        default: return std::nullopt;  // N, BOOL, NULL have no size
      }
      return AttributeValue::N(Number::FromInt64(static_cast<int64_t>(n)));
    }
    default:
      return std::nullopt;  // update-only operands never reach a condition
  }
}

bool Evaluate(const Condition& c, const Document& doc) {
  switch (c.kind) {
    case Condition::Kind::kAnd:
      return Evaluate(c.children[0], doc) && Evaluate(c.children[1], doc);
    case Condition::Kind::kOr:
      return Evaluate(c.children[0], doc) || Evaluate(c.children[1], doc);
    case Condition::Kind::kNot:
      return !Evaluate(c.children[0], doc);
    case Condition::Kind::kCompare:
      return Compare(c.op, EvaluateOperand(c.operands[0], doc), EvaluateOperand(c.operands[1], doc));
    case Condition::Kind::kBetween: {
      auto v = EvaluateOperand(c.operands[0], doc);
      auto lo = EvaluateOperand(c.operands[1], doc);
      auto hi = EvaluateOperand(c.operands[2], doc);
      return Compare(Comparator::kGe, v, lo) && Compare(Comparator::kLe, v, hi);
    }
    case Condition::Kind::kIn: {
      auto v = EvaluateOperand(c.operands[0], doc);
      if (!v) return false;
      for (size_t i = 1; i < c.operands.size(); ++i) {
        auto candidate = EvaluateOperand(c.operands[i], doc);
        if (candidate && *candidate == *v) return true;
      }
      return false;
    }
    case Condition::Kind::kAttributeExists:
      return doc.Get(c.operands[0].path).has_value();
    case Condition::Kind::kAttributeNotExists:
      return !doc.Get(c.operands[0].path).has_value();
    case Condition::Kind::kAttributeType: {
      auto v = EvaluateOperand(c.operands[0], doc);
      return v && AttrTypeName(v->type()) == c.operands[1].value.s();
    }
    case Condition::Kind::kBeginsWith: {
      auto v = EvaluateOperand(c.operands[0], doc);
      auto p = EvaluateOperand(c.operands[1], doc);
      if (!v || !p || v->type() != p->type() || !(v->is(AttrType::kS) || v->is(AttrType::kB))) {
        return false;
      }
      return Bytes(*v).substr(0, Bytes(*p).size()) == Bytes(*p);
    }
    case Condition::Kind::kContains: {
      auto v = EvaluateOperand(c.operands[0], doc);
      auto needle = EvaluateOperand(c.operands[1], doc);
      return v && needle && Contains(*v, *needle);
    }
  }
  return false;
}

// ---- Projection -----------------------------------------------------------------------------

namespace {

// The requested paths as a tree: a node is either a leaf (take the whole
// value) or has children by name (maps) and/or by index (lists).
struct PathTree {
  bool leaf = false;
  std::map<std::string, PathTree> names;
  std::map<size_t, PathTree> indexes;
};

std::optional<AttributeValue> ProjectValue(const AttributeValue& v, const PathTree& node) {
  if (node.leaf) return v;
  if (v.is(AttrType::kM) && !node.names.empty()) {
    AttributeValue::Map out;
    for (const auto& [name, child] : node.names) {
      const AttributeValue* e = v.Find(name);
      if (!e) continue;
      if (auto p = ProjectValue(*e, child)) out.emplace_back(name, std::move(*p));
    }
    if (out.empty()) return std::nullopt;
    return AttributeValue::M(std::move(out));
  }
  if (v.is(AttrType::kL) && !node.indexes.empty()) {
    AttributeValue::List out;  // selected elements, compacted, in index order
    for (const auto& [i, child] : node.indexes) {
      if (i >= v.l().size()) continue;
      if (auto p = ProjectValue(v.l()[i], child)) out.push_back(std::move(*p));
    }
    if (out.empty()) return std::nullopt;
    return AttributeValue::L(std::move(out));
  }
  return std::nullopt;
}

}  // namespace

Item Project(const Item& item, const std::vector<Path>& paths) {
  PathTree root;
  for (const auto& p : paths) {
    PathTree* node = &root;
    for (const auto& e : p.elements) {
      if (const auto* name = std::get_if<std::string>(&e)) {
        node = &node->names[*name];
      } else {
        node = &node->indexes[std::get<size_t>(e)];
      }
    }
    node->leaf = true;
  }
  Item out;
  for (const auto& [name, child] : root.names) {
    auto it = item.find(name);
    if (it == item.end()) continue;
    if (auto v = ProjectValue(it->second, child)) out.emplace(name, std::move(*v));
  }
  return out;
}

// ---- Update ------------------------------------------------------------------------------------

namespace {

const char kIncorrectType[] = "An operand in the update expression has an incorrect data type";
const char kInvalidPath[] = "The document path provided in the update expression is invalid for update";
const char kMissingAttribute[] = "The provided expression refers to an attribute that does not exist in the item";

// The value an update operand produces, read from the item before the update.
Result<AttributeValue> UpdateValue(const Operand& o, const Document& old) {
  switch (o.kind) {
    case Operand::Kind::kValue: return o.value;
    case Operand::Kind::kPath: {
      auto v = old.Get(o.path);
      if (!v) return Status::Validation(kMissingAttribute);
      return std::move(*v);
    }
    case Operand::Kind::kIfNotExists: {
      auto v = old.Get(o.args[0].path);
      if (v) return std::move(*v);
      return UpdateValue(o.args[1], old);
    }
    case Operand::Kind::kListAppend: {
      DYNAROCK_ASSIGN_OR_RETURN(auto a, UpdateValue(o.args[0], old));
      DYNAROCK_ASSIGN_OR_RETURN(auto b, UpdateValue(o.args[1], old));
      if (!a.is(AttrType::kL) || !b.is(AttrType::kL)) return Status::Validation(kIncorrectType);
      AttributeValue::List out = a.l();
      out.insert(out.end(), b.l().begin(), b.l().end());
      return AttributeValue::L(std::move(out));
    }
    case Operand::Kind::kPlus:
    case Operand::Kind::kMinus: {
      DYNAROCK_ASSIGN_OR_RETURN(auto a, UpdateValue(o.args[0], old));
      DYNAROCK_ASSIGN_OR_RETURN(auto b, UpdateValue(o.args[1], old));
      if (!a.is(AttrType::kN) || !b.is(AttrType::kN)) return Status::Validation(kIncorrectType);
      DYNAROCK_ASSIGN_OR_RETURN(auto n, o.kind == Operand::Kind::kPlus
                                            ? Number::Add(a.n(), b.n())
                                            : Number::Subtract(a.n(), b.n()));
      return AttributeValue::N(n);
    }
    case Operand::Kind::kSize: break;
  }
  return Status::Validation(kIncorrectType);
}

// The container that holds the last element of `path`, for writing; nullptr
// if a step is missing or of the wrong type. Top-level: no parent (the item).
const AttributeValue* Parent(const Item& item, const Path& path) {
  auto it = item.find(path.root());
  if (it == item.end()) return nullptr;
  const AttributeValue* v = &it->second;
  for (size_t i = 1; i + 1 < path.elements.size(); ++i) {
    v = Step(*v, path.elements[i]);
    if (v == nullptr) return nullptr;
  }
  return v;
}

AttributeValue* MutableParent(Item* item, const Path& path) {
  return const_cast<AttributeValue*>(Parent(*item, path));
}

// DynamoDB refuses a nested path whose parent is absent or not the container
// its last step needs (a map for .name, a list for [i]), for REMOVE and
// DELETE as for SET; what is absent inside a right parent is a no-op.
Status CheckParent(const Item& item, const Path& path) {
  if (!path.nested()) return Status::OK();
  const AttributeValue* parent = Parent(item, path);
  bool by_name = std::holds_alternative<std::string>(path.elements.back());
  if (parent == nullptr || !parent->is(by_name ? AttrType::kM : AttrType::kL)) {
    return Status::Validation(kInvalidPath);
  }
  return Status::OK();
}

// Mutable access to a child: map entries are rebuilt through Set (the map is
// kept sorted), list elements are addressed directly.
Status Assign(Item* item, const Path& path, AttributeValue value) {
  if (!path.nested()) {
    (*item)[path.root()] = std::move(value);
    return Status::OK();
  }
  AttributeValue* parent = MutableParent(item, path);
  if (parent == nullptr) return Status::Validation(kInvalidPath);
  const PathElement& last = path.elements.back();
  if (const auto* name = std::get_if<std::string>(&last)) {
    if (!parent->is(AttrType::kM)) return Status::Validation(kInvalidPath);
    parent->Set(*name, std::move(value));
    return Status::OK();
  }
  if (!parent->is(AttrType::kL)) return Status::Validation(kInvalidPath);
  size_t i = std::get<size_t>(last);
  auto& list = parent->mutable_l();
  if (i < list.size()) {
    list[i] = std::move(value);
  } else {
    list.push_back(std::move(value));  // past the end appends, as in DynamoDB
  }
  return Status::OK();
}

const AttributeValue* Current(const Item& item, const Path& path) { return Lookup(item, path); }

template <typename T>
std::vector<T> Union(const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

template <typename T>
std::vector<T> Difference(const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

Result<AttributeValue> AddTo(const AttributeValue* current, const AttributeValue& v) {
  if (current == nullptr) return v;
  if (current->type() != v.type()) return Status::Validation(kIncorrectType);
  switch (v.type()) {
    case AttrType::kN: {
      DYNAROCK_ASSIGN_OR_RETURN(auto n, Number::Add(current->n(), v.n()));
      return AttributeValue::N(n);
    }
    case AttrType::kSS: return AttributeValue::SS(Union(current->ss(), v.ss()));
    case AttrType::kNS: return AttributeValue::NS(Union(current->ns(), v.ns()));
    case AttrType::kBS: return AttributeValue::BS(Union(current->bs(), v.bs()));
    default: return Status::Validation(kIncorrectType);
  }
}

// nullopt: the set became empty and the attribute goes away.
Result<std::optional<AttributeValue>> DeleteFrom(const AttributeValue& current,
                                                 const AttributeValue& v) {
  if (current.type() != v.type()) return Status::Validation(kIncorrectType);
  AttributeValue out;
  switch (v.type()) {
    case AttrType::kSS: out = AttributeValue::SS(Difference(current.ss(), v.ss())); break;
    case AttrType::kNS: out = AttributeValue::NS(Difference(current.ns(), v.ns())); break;
    case AttrType::kBS: out = AttributeValue::BS(Difference(current.bs(), v.bs())); break;
    default: return Status::Validation(kIncorrectType);
  }
  bool empty = (out.is(AttrType::kSS) && out.ss().empty()) ||
               (out.is(AttrType::kNS) && out.ns().empty()) ||
               (out.is(AttrType::kBS) && out.bs().empty());
  if (empty) return std::optional<AttributeValue>();
  return std::optional<AttributeValue>(std::move(out));
}

void Remove(Item* item, const Path& path) {
  if (!path.nested()) {
    item->erase(path.root());
    return;
  }
  AttributeValue* parent = MutableParent(item, path);
  if (parent == nullptr) return;  // removing what is not there is a no-op
  const PathElement& last = path.elements.back();
  if (const auto* name = std::get_if<std::string>(&last)) {
    if (parent->is(AttrType::kM)) parent->Erase(*name);
  } else if (parent->is(AttrType::kL)) {
    size_t i = std::get<size_t>(last);
    auto& list = parent->mutable_l();
    if (i < list.size()) list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace

namespace {

Status ApplyActions(const UpdateExpression& u, Item* item) {
  const Item original = *item;
  const ItemDocument old(&original);
  // Every value is computed from the item as it was.
  std::vector<std::optional<AttributeValue>> values(u.actions.size());
  for (size_t i = 0; i < u.actions.size(); ++i) {
    const UpdateAction& a = u.actions[i];
    if (a.kind == UpdateAction::Kind::kSet) {
      DYNAROCK_ASSIGN_OR_RETURN(auto v, UpdateValue(a.value, old));
      values[i] = std::move(v);
    } else if (a.kind == UpdateAction::Kind::kAdd) {
      DYNAROCK_ASSIGN_OR_RETURN(auto v, AddTo(Current(original, a.path), a.value.value));
      values[i] = std::move(v);
    } else if (a.kind == UpdateAction::Kind::kRemove) {
      DYNAROCK_RETURN_IF_ERROR(CheckParent(original, a.path));
    } else if (a.kind == UpdateAction::Kind::kDelete) {
      DYNAROCK_RETURN_IF_ERROR(CheckParent(original, a.path));
      const AttributeValue* current = Current(original, a.path);
      if (current == nullptr) continue;  // nothing to delete from
      DYNAROCK_ASSIGN_OR_RETURN(auto v, DeleteFrom(*current, a.value.value));
      values[i] = std::move(v);  // nullopt: the set became empty
    }
  }
  // Assignments in path order: DynamoDB appends several list elements set
  // past the end in the order of their indexes, whatever the order written
  // (SET a[84] = :1, a[17] = :3 on [x, y] gives [x, y, :3, :1]). Paths
  // cannot overlap, so no other assignment depends on the order.
  std::vector<size_t> order(u.actions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const auto& a = u.actions[x].path.elements;
    const auto& b = u.actions[y].path.elements;
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  });
  // Removals of list elements address the original positions: apply them
  // from the highest index down, after everything else.
  std::vector<const Path*> removals;
  for (size_t i : order) {
    const UpdateAction& a = u.actions[i];
    switch (a.kind) {
      case UpdateAction::Kind::kSet:
      case UpdateAction::Kind::kAdd:
        DYNAROCK_RETURN_IF_ERROR(Assign(item, a.path, std::move(*values[i])));
        break;
      case UpdateAction::Kind::kDelete:
        if (Current(original, a.path) == nullptr) break;
        if (values[i]) {
          DYNAROCK_RETURN_IF_ERROR(Assign(item, a.path, std::move(*values[i])));
        } else {
          removals.push_back(&a.path);
        }
        break;
      case UpdateAction::Kind::kRemove:
        removals.push_back(&a.path);
        break;
    }
  }
  // Descending path order removes a list's higher indexes first, and
  // anything inside element i before element i itself shifts.
  std::sort(removals.begin(), removals.end(), [](const Path* a, const Path* b) {
    return std::lexicographical_compare(b->elements.begin(), b->elements.end(),
                                        a->elements.begin(), a->elements.end());
  });
  for (const Path* p : removals) Remove(item, *p);
  return ValidateItem(*item);
}

}  // namespace

Status ApplyUpdate(const UpdateExpression& u, Item* item) {
  Status s = ApplyActions(u, item);
  if (u.legacy && s.code() == Status::Code::kValidation && s.message() == kIncorrectType) {
    return Status::Validation("Type mismatch for attribute to update");
  }
  return s;
}

std::vector<Path> UpdatedPaths(const UpdateExpression& u) {
  std::vector<Path> out;
  for (const auto& a : u.actions) out.push_back(a.path);
  return out;
}

}  // namespace dynarock::expr
