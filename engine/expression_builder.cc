#include "dynarock/expression_builder.h"

#include <map>

namespace dynarock::expression {

struct Operand::Node {
  enum class Kind { kPath, kValue, kSize, kIfNotExists, kListAppend, kPlus, kMinus } kind;
  Path path;
  AttributeValue value;
  std::vector<Operand> args;
};

struct Condition::Node {
  std::string op;  // "=", "<>", ..., "BETWEEN", "IN", "AND", "OR", "NOT", or a function name
  std::vector<Operand> operands;
  std::vector<Condition> children;
  std::optional<AttributeValue> type_name;  // attribute_type's literal
};

Condition MakeCondition(std::shared_ptr<const Condition::Node> node) { return Condition(std::move(node)); }

// ---- Paths and operands ----------------------------------------------------------------------

Path Name(std::string name) {
  Path p;
  p.elements_.emplace_back(std::move(name));
  return p;
}
Path Path::Key(std::string name) const {
  Path p = *this;
  p.elements_.emplace_back(std::move(name));
  return p;
}
Path Path::Index(size_t index) const {
  Path p = *this;
  p.elements_.emplace_back(index);
  return p;
}

namespace {
using OpNode = Operand::Node;
std::shared_ptr<const OpNode> MakeOp(OpNode node) { return std::make_shared<const OpNode>(std::move(node)); }
}  // namespace

Operand::Operand(Path path) : node_(MakeOp({OpNode::Kind::kPath, std::move(path), {}, {}})) {}
Operand Value(AttributeValue v) { return Operand(MakeOp({OpNode::Kind::kValue, {}, std::move(v), {}})); }
Operand Size(Path p) { return Operand(MakeOp({OpNode::Kind::kSize, {}, {}, {Operand(std::move(p))}})); }
Operand IfNotExists(Path p, Operand fallback) {
  return Operand(MakeOp({OpNode::Kind::kIfNotExists, {}, {}, {Operand(std::move(p)), std::move(fallback)}}));
}
Operand ListAppend(Operand a, Operand b) {
  return Operand(MakeOp({OpNode::Kind::kListAppend, {}, {}, {std::move(a), std::move(b)}}));
}
Operand Plus(Operand a, Operand b) {
  return Operand(MakeOp({OpNode::Kind::kPlus, {}, {}, {std::move(a), std::move(b)}}));
}
Operand Minus(Operand a, Operand b) {
  return Operand(MakeOp({OpNode::Kind::kMinus, {}, {}, {std::move(a), std::move(b)}}));
}

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t n) { return AttributeValue::N(Number::FromInt64(n)); }
AttributeValue N(std::string_view decimal) {
  auto n = Number::Parse(decimal);
  return AttributeValue::N(n.ok() ? *n : Number());
}

// ---- Conditions ---------------------------------------------------------------------------------

namespace {
using CondNode = Condition::Node;
Condition Make(std::string op, std::vector<Operand> operands, std::vector<Condition> children = {},
               std::optional<AttributeValue> type_name = std::nullopt) {
  return MakeCondition(std::make_shared<const CondNode>(
      CondNode{std::move(op), std::move(operands), std::move(children), std::move(type_name)}));
}
}  // namespace

Condition Condition::And(Condition other) const { return Make("AND", {}, {*this, std::move(other)}); }
Condition Condition::Or(Condition other) const { return Make("OR", {}, {*this, std::move(other)}); }
Condition Condition::Not() const { return Make("NOT", {}, {*this}); }

Condition Equal(Operand a, Operand b) { return Make("=", {std::move(a), std::move(b)}); }
Condition NotEqual(Operand a, Operand b) { return Make("<>", {std::move(a), std::move(b)}); }
Condition LessThan(Operand a, Operand b) { return Make("<", {std::move(a), std::move(b)}); }
Condition LessThanEqual(Operand a, Operand b) { return Make("<=", {std::move(a), std::move(b)}); }
Condition GreaterThan(Operand a, Operand b) { return Make(">", {std::move(a), std::move(b)}); }
Condition GreaterThanEqual(Operand a, Operand b) { return Make(">=", {std::move(a), std::move(b)}); }
Condition Between(Operand a, Operand lower, Operand upper) {
  return Make("BETWEEN", {std::move(a), std::move(lower), std::move(upper)});
}
Condition In(Operand a, std::vector<Operand> candidates) {
  candidates.insert(candidates.begin(), std::move(a));
  return Make("IN", std::move(candidates));
}
Condition AttributeExists(Path p) { return Make("attribute_exists", {Operand(std::move(p))}); }
Condition AttributeNotExists(Path p) { return Make("attribute_not_exists", {Operand(std::move(p))}); }
Condition AttributeType(Path p, AttrType type) {
  return Make("attribute_type", {Operand(std::move(p))}, {},
              AttributeValue::S(std::string(AttrTypeName(type))));
}
Condition BeginsWith(Path p, Operand prefix) {
  return Make("begins_with", {Operand(std::move(p)), std::move(prefix)});
}
Condition Contains(Path p, Operand operand) {
  return Make("contains", {Operand(std::move(p)), std::move(operand)});
}

// ---- Updates ------------------------------------------------------------------------------------

Update& Update::Set(Path p, Operand value) {
  actions_.push_back({'S', std::move(p), std::move(value)});
  return *this;
}
Update& Update::Remove(Path p) {
  actions_.push_back({'R', std::move(p), std::nullopt});
  return *this;
}
Update& Update::Add(Path p, AttributeValue value) {
  actions_.push_back({'A', std::move(p), Value(std::move(value))});
  return *this;
}
Update& Update::Delete(Path p, AttributeValue value) {
  actions_.push_back({'D', std::move(p), Value(std::move(value))});
  return *this;
}

// ---- Rendering ----------------------------------------------------------------------------------

class Renderer {
 public:
  std::string Render(const Path& p) {
    std::string out;
    for (const auto& e : p.elements_) {
      if (const auto* name = std::get_if<std::string>(&e)) {
        if (!out.empty()) out += '.';
        auto [it, inserted] = name_ids_.emplace(*name, "#" + std::to_string(name_ids_.size()));
        if (inserted) names_[it->second] = *name;
        out += it->second;
      } else {
        out += "[" + std::to_string(std::get<size_t>(e)) + "]";
      }
    }
    return out;
  }

  std::string Render(const AttributeValue& v) {
    std::string id = ":" + std::to_string(values_.size());
    values_[id] = v;
    return id;
  }

  // Placeholders are numbered in reading order, so every piece is rendered
  // in sequence (the operands of `+` on strings have no defined order).
  std::string Join(std::initializer_list<std::pair<const char*, const Operand*>> parts,
                   const char* end) {
    std::string out;
    for (const auto& [text, operand] : parts) {
      out += text;
      if (operand) out += Render(*operand);
    }
    return out + end;
  }

  std::string Render(const Operand& o) {
    const OpNode& n = *o.node_;
    switch (n.kind) {
      case OpNode::Kind::kPath: return Render(n.path);
      case OpNode::Kind::kValue: return Render(n.value);
      case OpNode::Kind::kSize: return Join({{"size(", &n.args[0]}}, ")");
      case OpNode::Kind::kIfNotExists:
        return Join({{"if_not_exists(", &n.args[0]}, {", ", &n.args[1]}}, ")");
      case OpNode::Kind::kListAppend:
        return Join({{"list_append(", &n.args[0]}, {", ", &n.args[1]}}, ")");
      case OpNode::Kind::kPlus: return Join({{"", &n.args[0]}, {" + ", &n.args[1]}}, "");
      case OpNode::Kind::kMinus: return Join({{"", &n.args[0]}, {" - ", &n.args[1]}}, "");
    }
    return "";
  }

  std::string Render(const Condition& c) {
    const CondNode& n = *c.node_;
    std::string out;
    if (n.op == "AND" || n.op == "OR") {
      out = Child(n.children[0]);
      out += " " + n.op + " ";
      out += Child(n.children[1]);
      return out;
    }
    if (n.op == "NOT") return "NOT " + Child(n.children[0]);
    if (n.op == "BETWEEN") {
      return Join({{"", &n.operands[0]}, {" BETWEEN ", &n.operands[1]}, {" AND ", &n.operands[2]}}, "");
    }
    if (n.op == "IN") {
      out = Render(n.operands[0]) + " IN (";
      for (size_t i = 1; i < n.operands.size(); ++i) {
        if (i > 1) out += ", ";
        out += Render(n.operands[i]);
      }
      return out + ")";
    }
    if (n.op.size() <= 2) {
      out = Render(n.operands[0]);
      out += " " + n.op + " ";
      out += Render(n.operands[1]);
      return out;
    }
    out = n.op + "(" + Render(n.operands[0]);
    for (size_t i = 1; i < n.operands.size(); ++i) {
      out += ", ";
      out += Render(n.operands[i]);
    }
    if (n.type_name) {
      out += ", ";
      out += Render(*n.type_name);
    }
    return out + ")";
  }

  std::string Render(const Update& u) {
    static const std::pair<char, const char*> kClauses[] = {{'S', "SET"}, {'R', "REMOVE"}, {'A', "ADD"}, {'D', "DELETE"}};
    std::string out;
    for (const auto& [kind, keyword] : kClauses) {
      std::string clause;
      for (const auto& a : u.actions_) {
        if (a.kind != kind) continue;
        if (!clause.empty()) clause += ", ";
        clause += Render(a.path);
        if (kind == 'S') clause += " = ";
        if (kind == 'A' || kind == 'D') clause += " ";
        if (a.value) clause += Render(*a.value);
      }
      if (!clause.empty()) out += (out.empty() ? "" : " ") + std::string(keyword) + " " + clause;
    }
    return out;
  }

  void Finish(Expressions* e) {
    if (!names_.empty()) e->names = std::move(names_);
    if (!values_.empty()) e->values = std::move(values_);
  }

 private:
  // Compound operands of AND/OR/NOT get exactly one pair of parentheses.
  std::string Child(const Condition& c) {
    const std::string& op = c.node_->op;
    std::string s = Render(c);
    return (op == "AND" || op == "OR" || op == "NOT") ? "(" + s + ")" : s;
  }

  std::map<std::string, std::string> name_ids_;  // name -> "#i"
  ExpressionAttributeNames names_;
  ExpressionAttributeValues values_;
};

Builder& Builder::WithCondition(Condition c) { condition_ = std::move(c); return *this; }
Builder& Builder::WithKeyCondition(Condition c) { key_condition_ = std::move(c); return *this; }
Builder& Builder::WithFilter(Condition c) { filter_ = std::move(c); return *this; }
Builder& Builder::WithProjection(std::vector<Path> paths) { projection_ = std::move(paths); return *this; }
Builder& Builder::WithUpdate(Update u) { update_ = std::move(u); return *this; }

Expressions Builder::Build() const {
  Renderer r;
  Expressions e;
  if (key_condition_) e.key_condition = r.Render(*key_condition_);
  if (condition_) e.condition = r.Render(*condition_);
  if (filter_) e.filter = r.Render(*filter_);
  if (projection_) {
    std::string p;
    for (const auto& path : *projection_) {
      if (!p.empty()) p += ", ";
      p += r.Render(path);
    }
    e.projection = p;
  }
  if (update_) e.update = r.Render(*update_);
  r.Finish(&e);
  return e;
}

void Expressions::ApplyTo(PutItemRequest* r) const {
  r->condition_expression = condition;
  r->expression_attribute_names = names;
  r->expression_attribute_values = values;
}
void Expressions::ApplyTo(DeleteItemRequest* r) const {
  r->condition_expression = condition;
  r->expression_attribute_names = names;
  r->expression_attribute_values = values;
}
void Expressions::ApplyTo(UpdateItemRequest* r) const {
  r->update_expression = update;
  r->condition_expression = condition;
  r->expression_attribute_names = names;
  r->expression_attribute_values = values;
}
void Expressions::ApplyTo(GetItemRequest* r) const {
  r->projection_expression = projection;
  r->expression_attribute_names = names;
}
void Expressions::ApplyTo(QueryRequest* r) const {
  r->key_condition_expression = key_condition;
  r->filter_expression = filter;
  r->projection_expression = projection;
  r->expression_attribute_names = names;
  r->expression_attribute_values = values;
}
void Expressions::ApplyTo(ScanRequest* r) const {
  r->filter_expression = filter;
  r->projection_expression = projection;
  r->expression_attribute_names = names;
  r->expression_attribute_values = values;
}

}  // namespace dynarock::expression
