// Request validation shared by every operation, in DynamoDB's words.
//
// DynamoDB checks a request in two stages: first the shape of the request
// against its model (lengths, patterns, ranges), reporting every violation at
// once ("2 validation errors detected: Value 'ab' at 'tableName' failed to
// satisfy constraint: ...; ..."), then the semantics, one error at a time.
// ConstraintErrors collects the first stage.
#ifndef DYNAROCK_ENGINE_VALIDATION_H_
#define DYNAROCK_ENGINE_VALIDATION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/types.h"

namespace dynarock {

class ConstraintErrors {
 public:
  // `value` is rendered as DynamoDB does: 'text' or, when nullopt, null.
  void Add(std::optional<std::string_view> value, std::string_view path,
           std::string_view constraint);
  // Model checks for a table or index name at `path` (3..255, [a-zA-Z0-9_.-]+).
  void CheckTableName(std::string_view name, std::string_view path = "tableName");
  // Limit-style integers: value >= 1.
  void CheckAtLeast(std::optional<int64_t> value, int64_t min, std::string_view path);

  bool empty() const { return errors_.empty(); }
  // OK if empty, else the joined ValidationException.
  Status ToStatus() const;

 private:
  std::vector<std::string> errors_;
};

// "One or more parameter values were invalid: " + detail
Status InvalidParameter(std::string_view detail);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_VALIDATION_H_
