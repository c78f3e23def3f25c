// Semantic-validation helpers shared by the operations. The model's own
// constraints (lengths, patterns, ranges, required members) are generated:
// engine/model/checks.h.
#ifndef DYNAROCK_ENGINE_VALIDATION_H_
#define DYNAROCK_ENGINE_VALIDATION_H_

#include <string_view>

#include "dynarock/types.h"

namespace dynarock {

// "One or more parameter values were invalid: " + detail
Status InvalidParameter(std::string_view detail);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_VALIDATION_H_
