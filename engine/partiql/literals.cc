// The PartiQL parser's paths and literal values (PARTIQL.md 3): names,
// numbers, strings, Ion-style lists, structs and bags, and '?' parameters.
#include "engine/partiql/parser.h"

namespace dynarock::partiql {

// ---- Paths ----------------------------------------------------------------------------------

Result<std::string> Parser::ParseName() {
  const Token& t = Peek();
  if (t.type == Tok::kQuoted || (t.type == Tok::kIdent && !IsReserved(t.text))) {
    Next();
    return t.text;
  }
  return Unexpected(t);
}

Result<expr::Path> Parser::ParsePath() {
  expr::Path p;
  DYNAROCK_ASSIGN_OR_RETURN(auto root, ParseName());
  p.elements.emplace_back(std::move(root));
  while (true) {
    if (Peek().type == Tok::kDot) {
      Next();
      DYNAROCK_ASSIGN_OR_RETURN(auto name, ParseName());
      p.elements.emplace_back(std::move(name));
    } else if (Peek().type == Tok::kLBracket) {
      Next();
      const Token& t = Peek();
      if (t.type != Tok::kNumber || t.text.find_first_not_of("0123456789") != std::string::npos ||
          t.text.size() > 9) {
        return Unexpected(t);
      }
      Next();
      p.elements.emplace_back(static_cast<size_t>(std::stoul(t.text)));
      DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRBracket));
    } else {
      break;
    }
    if (p.elements.size() > static_cast<size_t>(expr::kMaxPathDepth)) {
      return Malformed("a document path nests too deeply");
    }
  }
  return p;
}

// The key a projected path comes back under: its last name and the
// indexes after it.
std::string Parser::Label(const expr::Path& p) {
  size_t last = 0;
  for (size_t i = 0; i < p.elements.size(); ++i) {
    if (std::holds_alternative<std::string>(p.elements[i])) last = i;
  }
  std::string out = std::get<std::string>(p.elements[last]);
  for (size_t i = last + 1; i < p.elements.size(); ++i) {
    out += "[" + std::to_string(std::get<size_t>(p.elements[i])) + "]";
  }
  return out;
}

// ---- Values ---------------------------------------------------------------------------------

bool Parser::StartsValue(const Token& t) const {
  switch (t.type) {
    case Tok::kString:
    case Tok::kNumber:
    case Tok::kMinus:
    case Tok::kPlus:
    case Tok::kQuestion:
    case Tok::kLBracket:
    case Tok::kLBrace:
    case Tok::kLBag:
      return true;
    case Tok::kIdent:
      return IsKeyword(t, "TRUE") || IsKeyword(t, "FALSE") || IsKeyword(t, "NULL") ||
             IsKeyword(t, "MISSING") ||
             ((IsKeyword(t, "DATE") || IsKeyword(t, "TIME") || IsKeyword(t, "TIMESTAMP")) &&
              Peek(1).type == Tok::kString);
    default:
      return false;
  }
}

Result<AttributeValue> Parser::ParseNumber(bool negative) {
  const Token& t = Peek();
  if (t.type != Tok::kNumber) return Unexpected(t);
  Next();
  auto n = Number::Parse((negative ? "-" : "") + t.text);
  if (!n.ok()) return Status::Validation(n.status().message());
  return AttributeValue::N(*n);
}

Result<AttributeValue> Parser::ParseValue(bool in_bag) {
  Nest nest(&depth_);
  DYNAROCK_RETURN_IF_ERROR(CheckDepth());
  const Token& t = Peek();
  switch (t.type) {
    case Tok::kString:
      Next();
      return AttributeValue::S(t.text);
    case Tok::kNumber:
      return ParseNumber(false);
    case Tok::kMinus:
      Next();
      return ParseNumber(true);
    case Tok::kPlus:
      Next();
      return ParseNumber(false);
    case Tok::kQuestion: {
      if (in_bag) return Status::Validation("Unsupported data type in Bag");
      Next();
      const size_t i = parameters_used_++;
      if (i < parameters_.size()) return parameters_[i];
      return AttributeValue::Null();  // counted; reported after parsing
    }
    case Tok::kLBracket: {
      Next();
      AttributeValue::List list;
      if (!Accept(Tok::kRBracket)) {
        do {
          DYNAROCK_ASSIGN_OR_RETURN(auto v, ParseValue());
          list.push_back(std::move(v));
        } while (Accept(Tok::kComma));
        DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRBracket));
      }
      return AttributeValue::L(std::move(list));
    }
    case Tok::kLBrace: {
      Next();
      AttributeValue::Map map;
      if (!Accept(Tok::kRBrace)) {
        do {
          const Token& key = Peek();
          if (key.type != Tok::kString) return Unexpected(key);
          Next();
          DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kColon));
          DYNAROCK_ASSIGN_OR_RETURN(auto v, ParseValue());
          for (const auto& [name, unused] : map) {
            if (name == key.text) {
              return Malformed("duplicate tuple attribute '" + key.text + "' at " +
                               Position(key));
            }
          }
          map.emplace_back(key.text, std::move(v));
        } while (Accept(Tok::kComma));
        DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRBrace));
      }
      return AttributeValue::M(std::move(map));
    }
    case Tok::kLBag:
      return ParseBag();
    case Tok::kIdent:
      if (IsKeyword(t, "TRUE") || IsKeyword(t, "FALSE")) {
        Next();
        return AttributeValue::Bool(IsKeyword(t, "TRUE"));
      }
      if (IsKeyword(t, "NULL")) {
        Next();
        return AttributeValue::Null();
      }
      if ((IsKeyword(t, "DATE") || IsKeyword(t, "TIME") || IsKeyword(t, "TIMESTAMP")) &&
          Peek(1).type == Tok::kString) {
        return Status::Validation("Unsupported data type: UNKNOWN");
      }
      if (IsKeyword(t, "MISSING")) return Malformed("MISSING is not a value at " + Position(t));
      return Unexpected(t);
    default:
      return Unexpected(t);
  }
}

Result<AttributeValue> Parser::ParseBag() {
  Next();  // <<
  std::vector<AttributeValue> members;
  if (Peek().type != Tok::kRBag) {
    do {
      DYNAROCK_ASSIGN_OR_RETURN(auto v, ParseValue(/*in_bag=*/true));
      members.push_back(std::move(v));
    } while (Accept(Tok::kComma));
  }
  DYNAROCK_RETURN_IF_ERROR(Expect(Tok::kRBag));
  if (members.empty()) return Status::Validation("Empty bags are not supported");
  const AttrType type = members[0].type();
  for (const auto& m : members) {
    if (m.type() != type || (type != AttrType::kS && type != AttrType::kN)) {
      return Status::Validation("DynamoDB only supports either numbers or strings in bags");
    }
  }
  AttributeValue set;
  if (type == AttrType::kS) {
    std::vector<std::string> ss;
    for (auto& m : members) ss.push_back(m.s());
    set = AttributeValue::SS(std::move(ss));
  } else {
    std::vector<Number> ns;
    for (auto& m : members) ns.push_back(m.n());
    set = AttributeValue::NS(std::move(ns));
  }
  if (!set.Validate().ok()) return Status::Validation("Input collection contains duplicates");
  return set;
}

}  // namespace dynarock::partiql
