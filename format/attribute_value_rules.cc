#include "format/attribute_value_rules.h"

#include "format/json.h"

namespace dynarock::format::rules {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

// Java's List.toString() of set members, for duplicate messages.
std::string InputList(const std::vector<std::string>& members) {
  std::string out = "[";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i) out += ", ";
    out += members[i];
  }
  return out + "]";
}

}  // namespace

Status NestingTooDeep() {
  return Status::Validation("Nesting Levels have exceeded supported limits");
}
Status NoType() {
  return Status::Validation(
      "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
}
Status MoreThanOneType() {
  return Status::Validation(
      "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
      "supported datatypes");
}
Status NullNotTrue() {
  return Status::Validation(std::string(kInvalid) +
                            "Null attribute value types must have the value of true");
}
Status EmptyStringSet() {
  return Status::Validation(std::string(kInvalid) + "An string set  may not be empty");
}
Status EmptyNumberSet() {
  return Status::Validation(std::string(kInvalid) + "An number set  may not be empty");
}
Status EmptyBinarySet() {
  return Status::Validation(std::string(kInvalid) + "Binary sets should not be empty");
}
Status DuplicateStrings(const std::vector<std::string>& members) {
  return Status::Validation(std::string(kInvalid) + "Input collection " + InputList(members) +
                            " contains duplicates.");
}
Status DuplicateNumbers() { return Status::Validation("Input collection contains duplicates"); }
Status DuplicateBinaries(const std::vector<std::string>& members) {
  std::vector<std::string> encoded;
  encoded.reserve(members.size());
  for (const auto& b : members) encoded.push_back(Base64Encode(b));
  return Status::Validation(std::string(kInvalid) + "Input collection " + InputList(encoded) +
                            "of type BS contains duplicates.");
}

}  // namespace dynarock::format::rules
