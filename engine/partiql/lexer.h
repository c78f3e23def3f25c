// The PartiQL lexer (engine/partiql/parser.cc's tokens) and PartiQL's
// reserved words.
#ifndef DYNAROCK_ENGINE_PARTIQL_LEXER_H_
#define DYNAROCK_ENGINE_PARTIQL_LEXER_H_

#include <string>
#include <string_view>
#include <vector>

namespace dynarock::partiql {

enum class Tok {
  kEnd, kIdent, kQuoted, kString, kNumber,
  kLParen, kRParen, kLBracket, kRBracket, kLBrace, kRBrace, kLBag, kRBag,
  kComma, kDot, kColon, kSemicolon, kStar, kQuestion,
  kEq, kNe, kLt, kLe, kGt, kGe, kPlus, kMinus, kInvalid,
};

struct Token {
  Tok type = Tok::kEnd;
  std::string text;  // identifiers, numbers; strings and quoted names unescaped
  size_t pos = 0;    // byte offset
  size_t len = 0;    // source characters, quotes included
};

// The text's tokens, then one kEnd. A character no token starts with (a
// backtick, say), an unterminated string or comment is kInvalid.
std::vector<Token> Lex(std::string_view text);

// PartiQL's reserved words (DynamoDB's PartiQL reference), any case: used
// bare as a name they are a syntax error; quoted they are names.
bool IsReserved(std::string_view word);

std::string Upper(std::string_view s);

}  // namespace dynarock::partiql

#endif  // DYNAROCK_ENGINE_PARTIQL_LEXER_H_
