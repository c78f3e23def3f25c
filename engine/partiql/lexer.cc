#include "engine/partiql/lexer.h"

#include <cctype>
#include <set>

namespace dynarock::partiql {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }


}  // namespace

bool IsReserved(std::string_view word) {
  static const std::set<std::string, std::less<>> words = {
      "ABSOLUTE", "ACTION", "ADD", "ALL", "ALLOCATE", "ALTER", "AND", "ANY", "ARE", "AS", "ASC",
      "ASSERTION", "AT", "AUTHORIZATION", "AVG", "BAG", "BEGIN", "BETWEEN", "BIT",
      "BIT_LENGTH", "BLOB", "BOOL", "BOOLEAN", "BOTH", "BY", "CASCADE", "CASCADED", "CASE",
      "CAST", "CATALOG", "CHAR", "CHARACTER", "CHARACTER_LENGTH", "CHAR_LENGTH", "CHECK",
      "CLOB", "CLOSE", "COALESCE", "COLLATE", "COLLATION", "COLUMN", "COMMIT", "CONNECT",
      "CONNECTION", "CONSTRAINT", "CONSTRAINTS", "CONTINUE", "CONVERT", "CORRESPONDING",
      "COUNT", "CREATE", "CROSS", "CURRENT", "CURRENT_DATE", "CURRENT_TIME",
      "CURRENT_TIMESTAMP", "CURRENT_USER", "CURSOR", "DATE", "DATE_ADD", "DATE_DIFF", "DAY",
      "DEALLOCATE", "DEC", "DECIMAL", "DECLARE", "DEFAULT", "DEFERRABLE", "DEFERRED",
      "DELETE", "DESC", "DESCRIBE", "DESCRIPTOR", "DIAGNOSTICS", "DISCONNECT", "DISTINCT",
      "DOMAIN", "DOUBLE", "DROP", "ELSE", "END", "END-EXEC", "ESCAPE", "EXCEPT", "EXCEPTION",
      "EXEC", "EXECUTE", "EXISTS", "EXTERNAL", "EXTRACT", "FALSE", "FETCH", "FIRST", "FLOAT",
      "FOR", "FOREIGN", "FOUND", "FROM", "FULL", "GET", "GLOBAL", "GO", "GOTO", "GRANT",
      "GROUP", "HAVING", "HOUR", "IDENTITY", "IMMEDIATE", "IN", "INDEX", "INDICATOR",
      "INITIALLY", "INNER", "INPUT", "INSENSITIVE", "INSERT", "INT", "INTEGER", "INTEGER4",
      "INTEGER8", "INTERSECT", "INTERVAL", "INTO", "IS", "ISOLATION", "JOIN", "KEY",
      "LANGUAGE", "LAST", "LEADING", "LEFT", "LEVEL", "LIKE", "LIMIT", "LIST", "LOCAL",
      "LOWER", "MATCH", "MAX", "MIN", "MINUTE", "MISSING", "MODULE", "MONTH", "NAMES",
      "NATIONAL", "NATURAL", "NCHAR", "NEXT", "NO", "NOT", "NULL", "NULLIF", "NUMERIC",
      "OCTET_LENGTH", "OF", "ON", "ONLY", "OPEN", "OPTION", "OR", "ORDER", "OUTER", "OUTPUT",
      "OVERLAPS", "PAD", "PARTIAL", "PIVOT", "POSITION", "PRECISION", "PREPARE", "PRESERVE",
      "PRIMARY", "PRIOR", "PRIVILEGES", "PROCEDURE", "PUBLIC", "READ", "REAL", "REFERENCES",
      "RELATIVE", "REMOVE", "RESTRICT", "REVOKE", "RIGHT", "ROLLBACK", "ROWS", "SCHEMA",
      "SCROLL", "SECOND", "SECTION", "SELECT", "SESSION", "SESSION_USER", "SET", "SEXP",
      "SIZE", "SMALLINT", "SOME", "SPACE", "SQL", "SQLCODE", "SQLERROR", "SQLSTATE",
      "STRING", "STRUCT", "SUBSTRING", "SUM", "SYMBOL", "SYSTEM_USER", "TABLE", "TEMPORARY",
      "THEN", "TIME", "TIMESTAMP", "TIMEZONE_HOUR", "TIMEZONE_MINUTE", "TO", "TO_STRING",
      "TO_TIMESTAMP", "TRAILING", "TRANSACTION", "TRANSLATE", "TRIM", "TRUE", "TUPLE", "TXID",
      "UNDROP", "UNION", "UNIQUE", "UNKNOWN", "UNPIVOT", "UPDATE", "UPPER", "USAGE", "USER",
      "USING", "UTCNOW", "VALUE", "VALUES", "VARCHAR", "VARYING", "VIEW", "WHEN", "WHENEVER",
      "WHERE", "WITH", "WORK", "WRITE", "YEAR", "ZONE"};
  return words.contains(Upper(word));
}

std::vector<Token> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  auto emit = [&](Tok t, size_t start, size_t len, std::string text = {}) {
    out.push_back({t, std::move(text), start, len});
    i = start + len;
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {  // -- comment
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {  // /* comment */
      const size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) {
        emit(Tok::kInvalid, i, s.size() - i);
        break;
      }
      i = end + 2;
      continue;
    }
    const size_t start = i;
    if (IsIdentStart(c)) {
      size_t j = i + 1;
      while (j < s.size() && IsIdentChar(s[j])) ++j;
      emit(Tok::kIdent, start, j - i, std::string(s.substr(i, j - i)));
    } else if (c == '"' || c == '\'') {
      // Quoted name or string; the quote doubled stands for itself.
      std::string text;
      size_t j = i + 1;
      bool closed = false;
      while (j < s.size()) {
        if (s[j] == c) {
          if (j + 1 < s.size() && s[j + 1] == c) {
            text.push_back(c);
            j += 2;
            continue;
          }
          closed = true;
          ++j;
          break;
        }
        text.push_back(s[j++]);
      }
      if (!closed) {
        emit(Tok::kInvalid, start, s.size() - start);
        break;
      }
      emit(c == '"' ? Tok::kQuoted : Tok::kString, start, j - start, std::move(text));
    } else if (IsDigit(c) || (c == '.' && i + 1 < s.size() && IsDigit(s[i + 1]))) {
      size_t j = i;
      while (j < s.size() && IsDigit(s[j])) ++j;
      if (j < s.size() && s[j] == '.') {
        ++j;
        while (j < s.size() && IsDigit(s[j])) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && IsDigit(s[k])) {
          while (k < s.size() && IsDigit(s[k])) ++k;
          j = k;
        }
      }
      emit(Tok::kNumber, start, j - i, std::string(s.substr(i, j - i)));
    } else {
      auto two = [&](char next) { return i + 1 < s.size() && s[i + 1] == next; };
      switch (c) {
        case '(': emit(Tok::kLParen, start, 1); break;
        case ')': emit(Tok::kRParen, start, 1); break;
        case '[': emit(Tok::kLBracket, start, 1); break;
        case ']': emit(Tok::kRBracket, start, 1); break;
        case '{': emit(Tok::kLBrace, start, 1); break;
        case '}': emit(Tok::kRBrace, start, 1); break;
        case ',': emit(Tok::kComma, start, 1); break;
        case '.': emit(Tok::kDot, start, 1); break;
        case ':': emit(Tok::kColon, start, 1); break;
        case ';': emit(Tok::kSemicolon, start, 1); break;
        case '*': emit(Tok::kStar, start, 1); break;
        case '?': emit(Tok::kQuestion, start, 1); break;
        case '+': emit(Tok::kPlus, start, 1); break;
        case '-': emit(Tok::kMinus, start, 1); break;
        case '=': emit(Tok::kEq, start, two('=') ? 2 : 1); break;
        case '!':
          if (two('=')) {
            emit(Tok::kNe, start, 2);
          } else {
            emit(Tok::kInvalid, start, 1);
          }
          break;
        case '<':
          if (two('=')) {
            emit(Tok::kLe, start, 2);
          } else if (two('>')) {
            emit(Tok::kNe, start, 2);
          } else if (two('<')) {
            emit(Tok::kLBag, start, 2);
          } else {
            emit(Tok::kLt, start, 1);
          }
          break;
        case '>':
          if (two('=')) {
            emit(Tok::kGe, start, 2);
          } else if (two('>')) {
            emit(Tok::kRBag, start, 2);
          } else {
            emit(Tok::kGt, start, 1);
          }
          break;
        default: emit(Tok::kInvalid, start, 1); break;
      }
    }
  }
  out.push_back({Tok::kEnd, {}, s.size(), 0});
  return out;
}

}  // namespace dynarock::partiql
