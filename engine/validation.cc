#include "engine/validation.h"

#include <string>

namespace dynarock {

Status InvalidParameter(std::string_view detail) {
  return Status::Validation("One or more parameter values were invalid: " + std::string(detail));
}

}  // namespace dynarock
