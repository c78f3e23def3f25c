// AttributeValue: one DynamoDB value of any of the ten types, and Item, a
// top-level map of attribute names to values.
//
// Values are kept canonical so that C++ equality is DynamoDB equality:
//  - numbers are canonical Numbers (1 == 1.0);
//  - sets are stored sorted (bytes for SS/BS, numerically for NS), so two sets
//    with the same members compare equal whatever order they were given in;
//  - map entries are stored sorted by name.
// Constructors do not reject empty sets or duplicate set members: Validate()
// does, with DynamoDB's messages, so that decoders can report them.
#ifndef DYNAROCK_ATTRIBUTE_VALUE_H_
#define DYNAROCK_ATTRIBUTE_VALUE_H_

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "dynarock/number.h"
#include "dynarock/status.h"

namespace dynarock {

// WRITTEN TO DISK (schemas/item.fbs ValueType): never renumber.
enum class AttrType : uint8_t {
  kS = 0, kN = 1, kB = 2, kBool = 3, kNull = 4, kM = 5, kL = 6, kSS = 7, kNS = 8, kBS = 9,
};

// The types a key attribute may have (AttributeDefinitions).
// WRITTEN TO DISK (schemas/catalog.fbs ScalarType): never renumber.
enum class ScalarAttributeType : uint8_t { kS = 0, kN = 1, kB = 2 };

// DynamoDB's type tag: "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS".
std::string_view AttrTypeName(AttrType t);

// DynamoDB allows documents nested up to 32 levels, counting the item as
// level 1 and a top-level attribute's value as level 2.
inline constexpr int kMaxNestingLevels = 32;

class AttributeValue {
 public:
  using Map = std::vector<std::pair<std::string, AttributeValue>>;  // sorted, unique names
  using List = std::vector<AttributeValue>;

  AttributeValue() : v_(std::in_place_index<kNullIndex>) {}  // NULL

  static AttributeValue S(std::string s);
  static AttributeValue N(Number n);
  static AttributeValue B(std::string bytes);
  static AttributeValue Bool(bool b);
  static AttributeValue Null();
  // Sorts entries by name; for a repeated name the last entry wins.
  static AttributeValue M(Map entries);
  static AttributeValue L(List elements);
  static AttributeValue SS(std::vector<std::string> members);
  static AttributeValue NS(std::vector<Number> members);
  static AttributeValue BS(std::vector<std::string> members);

  AttrType type() const { return static_cast<AttrType>(v_.index()); }
  bool is(AttrType t) const { return type() == t; }

  // Accessors. REQUIRES: the value has the accessor's type.
  const std::string& s() const { return std::get<kSIndex>(v_); }
  const Number& n() const { return std::get<kNIndex>(v_); }
  const std::string& b() const { return std::get<kBIndex>(v_); }
  bool boolean() const { return std::get<kBoolIndex>(v_); }
  const Map& m() const { return std::get<kMIndex>(v_); }
  const List& l() const { return std::get<kLIndex>(v_); }
  List& mutable_l() { return std::get<kLIndex>(v_); }
  const std::vector<std::string>& ss() const { return std::get<kSSIndex>(v_); }
  const std::vector<Number>& ns() const { return std::get<kNSIndex>(v_); }
  const std::vector<std::string>& bs() const { return std::get<kBSIndex>(v_); }

  // M only: the value stored under `name`, or nullptr.
  const AttributeValue* Find(std::string_view name) const;
  // M only: inserts or replaces `name`, keeping entries sorted.
  void Set(std::string name, AttributeValue value);
  // M only: removes `name` if present; returns whether it was.
  bool Erase(std::string_view name);

  // Checks what DynamoDB checks on every value it accepts: sets non-empty and
  // without duplicates, nesting within kMaxNestingLevels (`level` is this
  // value's level, 2 for a top-level attribute). ValidationException on error.
  Status Validate(int level = 2) const;

  // DynamoDB equality: same type and same value (numbers by value, sets
  // regardless of order).
  friend bool operator==(const AttributeValue& a, const AttributeValue& b) = default;

 private:
  static constexpr size_t kSIndex = 0, kNIndex = 1, kBIndex = 2, kBoolIndex = 3,
                          kNullIndex = 4, kMIndex = 5, kLIndex = 6, kSSIndex = 7,
                          kNSIndex = 8, kBSIndex = 9;
  struct NullTag {
    friend bool operator==(NullTag, NullTag) { return true; }
  };
  // The alternative's index is the AttrType.
  using Storage = std::variant<std::string, Number, std::string, bool, NullTag, Map, List,
                               std::vector<std::string>, std::vector<Number>,
                               std::vector<std::string>>;

  template <size_t I, typename T>
  static AttributeValue Make(T&& v) {
    AttributeValue a;
    a.v_.template emplace<I>(std::forward<T>(v));
    return a;
  }

  Storage v_;
};

// An item: its top-level attributes by name.
using Item = std::map<std::string, AttributeValue, std::less<>>;

// Validates every attribute of an item (see AttributeValue::Validate) and the
// attribute names (non-empty, at most 65535 bytes).
Status ValidateItem(const Item& item);

// A readable rendering for logs and test failure output, in DynamoDB JSON
// style ({"S":"x"}); bytes are shown in hex. Not the wire format: see json.h.
std::string DebugString(const AttributeValue& v);
std::string DebugString(const Item& item);
// DebugString, for test output.
std::ostream& operator<<(std::ostream& os, const AttributeValue& v);

}  // namespace dynarock

#endif  // DYNAROCK_ATTRIBUTE_VALUE_H_
