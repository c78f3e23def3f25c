// SearchVectors' deserialization errors, in its front end's words.
//
// DynamoDB serves SearchVectors from a newer front end than the rest of
// its API, one that reads the request with Rust's serde_json instead of
// coral. Its errors come out of serde: members are read in document order,
// the first one of a wrong JSON type stops the request with a
// SerializationException such as
//   invalid type: null, expected a string at line 1 column 17
//   invalid type: floating point `3.5`, expected i32 at line 1 column 11
// and a required member missing from a well-typed request is a
// ValidationException `missing field `TableName` at line 1 column N`. These
// texts were recorded against DynamoDB by a conformance suite (null and
// missing members) and an emulator's captures (a fractional TopK); the rest
// of the family follows serde_json's own rules, which this file states:
//   - the unexpected value is named as serde names it: `null`, `boolean
//     `true``, `integer `5``, `floating point `3.5`` (always with a decimal
//     point), `string "x"` (Rust's debug quoting), `sequence`, `map`;
//   - an integer outside i32 is `invalid value: integer `N`, expected i32`;
//   - the position is serde_json's: 1-based line, and the column of the last
//     byte it consumed (a scalar is consumed whole; `[` and `{` are only
//     peeked, so their column is the byte before them; a missing member is
//     found once the closing `}` is consumed);
//   - null in an optional member is the member absent; a member named twice
//     is `duplicate field `X``, found at its name; unknown members are skipped.
// A request serde accepts goes on to the coral-style checks every
// operation makes (engine/model/), so the texts of everything past
// deserialization stay DynamoDB's documented ones.
#ifndef DYNAROCK_TOOLS_SERVER_PROTOCOL_SERDE_ERRORS_H_
#define DYNAROCK_TOOLS_SERVER_PROTOCOL_SERDE_ERRORS_H_

#include <span>
#include <string_view>

#include "dynarock/status.h"

namespace dynarock::protocol {

// The JSON type a top-level member deserializes from.
enum class SerdeType { kString, kI32, kSequence, kMap };

struct SerdeMember {
  std::string_view name;
  SerdeType type;
  bool required;
};

// The members of SearchVectorsInput, in the order serde's derive checks
// for missing ones (the model's).
std::span<const SerdeMember> SearchVectorsMembers();

// The first serde error `body` gives as a request of `members`, or OK. A
// body that is not a JSON object is left to the classic checks (OK).
// REQUIRES: `body` is valid JSON (the caller parsed it).
Status SerdeCheck(std::string_view body, std::span<const SerdeMember> members);

}  // namespace dynarock::protocol

#endif  // DYNAROCK_TOOLS_SERVER_PROTOCOL_SERDE_ERRORS_H_
