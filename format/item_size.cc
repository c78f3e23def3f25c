#include "format/item_size.h"

namespace dynarock::format {

size_t NumberSize(const Number& n) {
  if (n.is_zero()) return 1;
  // Base-100 digit pairs: a top digit at an even decimal position sits alone
  // in the low half of its pair (see the key codec's mantissa alignment).
  size_t d = static_cast<size_t>(n.digits());
  size_t pairs = (d + ((n.top_position() & 1) == 0 ? 1 : 0) + 1) / 2;
  return 1 + pairs + (n.negative() ? 1 : 0);
}

size_t AttributeValueSize(const AttributeValue& v) {
  switch (v.type()) {
    case AttrType::kS: return v.s().size();
    case AttrType::kB: return v.b().size();
    case AttrType::kN: return NumberSize(v.n());
    case AttrType::kBool:
    case AttrType::kNull: return 1;
    case AttrType::kSS: {
      size_t size = 0;
      for (const auto& s : v.ss()) size += s.size();
      return size;
    }
    case AttrType::kBS: {
      size_t size = 0;
      for (const auto& b : v.bs()) size += b.size();
      return size;
    }
    case AttrType::kNS: {
      size_t size = 0;
      for (const auto& n : v.ns()) size += NumberSize(n);
      return size;
    }
    case AttrType::kL: {
      size_t size = 3;
      for (const auto& e : v.l()) size += 1 + AttributeValueSize(e);
      return size;
    }
    case AttrType::kM: {
      size_t size = 3;
      for (const auto& [name, e] : v.m()) size += 1 + name.size() + AttributeValueSize(e);
      return size;
    }
  }
  return 0;
}

size_t ItemSize(const Item& item) {
  size_t size = 0;
  for (const auto& [name, value] : item) size += name.size() + AttributeValueSize(value);
  return size;
}

namespace {

// NumberSize of a stored number's text; 1 for text that does not parse.
size_t StoredNumberSize(std::string_view text) {
  auto n = Number::Parse(text);
  return n.ok() ? NumberSize(*n) : 1;
}

size_t ValueSize(const ValueView& v) {
  switch (v.type()) {
    case AttrType::kS:
    case AttrType::kB: return v.bytes().size();
    case AttrType::kN: return StoredNumberSize(v.number_text());
    case AttrType::kBool:
    case AttrType::kNull: return 1;
    case AttrType::kSS:
    case AttrType::kBS: {
      size_t size = 0;
      for (size_t i = 0; i < v.size(); ++i) size += v.member(i).size();
      return size;
    }
    case AttrType::kNS: {
      size_t size = 0;
      for (size_t i = 0; i < v.size(); ++i) size += StoredNumberSize(v.member(i));
      return size;
    }
    case AttrType::kL: {
      size_t size = 3;
      for (size_t i = 0; i < v.size(); ++i) size += 1 + ValueSize(*v.At(i));
      return size;
    }
    case AttrType::kM: {
      size_t size = 3;
      for (size_t i = 0; i < v.size(); ++i) {
        ValueView e = v.Entry(i);
        size += 1 + e.name().size() + ValueSize(e);
      }
      return size;
    }
  }
  return 0;
}

}  // namespace

size_t ItemSize(const ItemView& item) {
  return item.stored_size();
}

size_t ComputeItemSize(const ItemView& item) {
  size_t size = 0;
  for (size_t i = 0; i < item.size(); ++i) size += item.name(i).size() + ValueSize(item.value(i));
  return size;
}

}  // namespace dynarock::format
