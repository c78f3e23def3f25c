#include "engine/validation.h"

namespace dynarock {

void ConstraintErrors::Add(std::optional<std::string_view> value, std::string_view path,
                           std::string_view constraint) {
  std::string e = "Value ";
  if (value) {
    e += "'";
    e += *value;
    e += "' ";
  } else {
    e += "null ";
  }
  e += "at '";
  e += path;
  e += "' failed to satisfy constraint: ";
  e += constraint;
  errors_.push_back(std::move(e));
}

void ConstraintErrors::CheckTableName(std::string_view name, std::string_view path) {
  if (name.size() < 3) {
    Add(name, path, "Member must have length greater than or equal to 3");
  }
  if (name.size() > 255) {
    Add(name, path, "Member must have length less than or equal to 255");
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) {
      Add(name, path, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
      break;
    }
  }
}

void ConstraintErrors::CheckAtLeast(std::optional<int64_t> value, int64_t min,
                                    std::string_view path) {
  if (value && *value < min) {
    std::string v = std::to_string(*value);
    Add(v, path, "Member must have value greater than or equal to " + std::to_string(min));
  }
}

Status ConstraintErrors::ToStatus() const {
  if (errors_.empty()) return Status::OK();
  std::string msg = std::to_string(errors_.size()) +
                    (errors_.size() == 1 ? " validation error detected: "
                                         : " validation errors detected: ");
  for (size_t i = 0; i < errors_.size(); ++i) {
    if (i) msg += "; ";
    msg += errors_[i];
  }
  return Status::Validation(std::move(msg));
}

Status InvalidParameter(std::string_view detail) {
  return Status::Validation("One or more parameter values were invalid: " + std::string(detail));
}

}  // namespace dynarock
