#include "format/item_codec.h"

#include <flatbuffers/flatbuffers.h>

#include <cassert>
#include <cstring>
#include <vector>

#include "format/item_size.h"
#include "format/key_codec.h"
#include "schemas/item_generated.h"

namespace dynarock {

// Views are built from buffers only here.
struct ItemCodecAccess {
  static ValueView Value(const fb::Value* v) { return ValueView(v); }
};

namespace {

using format::GetNumberComponent;
using format::kItemFormatVersion;
using format::PutNumberComponent;

namespace fbs = flatbuffers;

// The value types are on disk: schemas/item.fbs must mirror AttrType.
#define DYNAROCK_SAME_VALUE_TYPE(fb_name, ours) \
  static_assert(static_cast<int>(fb::ValueType::fb_name) == static_cast<int>(AttrType::ours))
DYNAROCK_SAME_VALUE_TYPE(S, kS);
DYNAROCK_SAME_VALUE_TYPE(N, kN);
DYNAROCK_SAME_VALUE_TYPE(B, kB);
DYNAROCK_SAME_VALUE_TYPE(Bool, kBool);
DYNAROCK_SAME_VALUE_TYPE(Null, kNull);
DYNAROCK_SAME_VALUE_TYPE(M, kM);
DYNAROCK_SAME_VALUE_TYPE(L, kL);
DYNAROCK_SAME_VALUE_TYPE(SS, kSS);
DYNAROCK_SAME_VALUE_TYPE(NS, kNS);
DYNAROCK_SAME_VALUE_TYPE(BS, kBS);
#undef DYNAROCK_SAME_VALUE_TYPE

// A value at nesting level L is a table at depth L (the Item is depth 1), plus
// a Blob for set members: this bound admits every legal item.
constexpr fbs::uoffset_t kMaxVerifyDepth = kMaxNestingLevels + 8;

fbs::Offset<fbs::Vector<uint8_t>> Bytes(fbs::FlatBufferBuilder& b, std::string_view s) {
  return b.CreateVector(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

fbs::Offset<fb::Value> EncodeValue(fbs::FlatBufferBuilder& b, const AttributeValue& v,
                                   std::optional<std::string_view> name = std::nullopt);

// Named values, in the (sorted) order of `entries`: M entries and items.
template <typename Entries>
fbs::Offset<fbs::Vector<fbs::Offset<fb::Value>>> EncodeEntries(fbs::FlatBufferBuilder& b,
                                                              const Entries& entries) {
  std::vector<fbs::Offset<fb::Value>> out;
  out.reserve(entries.size());
  for (const auto& [name, value] : entries) out.push_back(EncodeValue(b, value, name));
  return b.CreateVector(out);
}

template <typename T, typename Fn>
fbs::Offset<fbs::Vector<fbs::Offset<fb::Blob>>> EncodeMembers(fbs::FlatBufferBuilder& b,
                                                             const std::vector<T>& members,
                                                             Fn to_bytes) {
  std::vector<fbs::Offset<fb::Blob>> out;
  out.reserve(members.size());
  for (const auto& m : members) out.push_back(fb::CreateBlob(b, Bytes(b, to_bytes(m))));
  return b.CreateVector(out);
}

std::string NumberBytes(const Number& n) {
  std::string out;
  PutNumberComponent(&out, n);
  return out;
}

fbs::Offset<fb::Value> EncodeValue(fbs::FlatBufferBuilder& b, const AttributeValue& v,
                                   std::optional<std::string_view> name) {
  // Children first: FlatBuffers builds bottom-up.
  fbs::Offset<fbs::String> name_offset;
  if (name) name_offset = b.CreateString(name->data(), name->size());
  fbs::Offset<fbs::Vector<uint8_t>> data;
  fbs::Offset<fbs::Vector<fbs::Offset<fb::Blob>>> members;
  fbs::Offset<fbs::Vector<fbs::Offset<fb::Value>>> entries;
  fbs::Offset<fbs::Vector<fbs::Offset<fb::Value>>> elements;
  bool flag = false;
  auto plain = [](const std::string& s) -> std::string_view { return s; };
  switch (v.type()) {
    case AttrType::kS: data = Bytes(b, v.s()); break;
    case AttrType::kB: data = Bytes(b, v.b()); break;
    case AttrType::kN: data = Bytes(b, NumberBytes(v.n())); break;
    case AttrType::kBool: flag = v.boolean(); break;
    case AttrType::kNull: break;
    case AttrType::kM: entries = EncodeEntries(b, v.m()); break;
    case AttrType::kL: {
      std::vector<fbs::Offset<fb::Value>> out;
      out.reserve(v.l().size());
      for (const auto& e : v.l()) out.push_back(EncodeValue(b, e));
      elements = b.CreateVector(out);
      break;
    }
    case AttrType::kSS: members = EncodeMembers(b, v.ss(), plain); break;
    case AttrType::kBS: members = EncodeMembers(b, v.bs(), plain); break;
    case AttrType::kNS: members = EncodeMembers(b, v.ns(), NumberBytes); break;
  }
  return fb::CreateValue(b, name_offset, static_cast<fb::ValueType>(v.type()), data, flag,
                         members, entries, elements);
}

std::string_view View(const fbs::Vector<uint8_t>* v) {
  if (v == nullptr) return {};
  return {reinterpret_cast<const char*>(v->data()), v->size()};
}

std::string_view View(const fbs::String* s) { return {s->data(), s->size()}; }

Status Corrupt(const char* what) { return Status::Corruption(std::string("item: ") + what); }

Result<Number> DecodeNumber(std::string_view bytes) {
  Number n;
  DYNAROCK_RETURN_IF_ERROR(GetNumberComponent(&bytes, &n));
  if (!bytes.empty()) return Corrupt("trailing bytes after number");
  return n;
}

using Entries = fbs::Vector<fbs::Offset<fb::Value>>;

// The value named `name` in entries sorted by name (binary search), or nullptr.
// Compares whole byte strings: names may contain NUL, so no strcmp.
const fb::Value* FindEntry(const Entries* entries, std::string_view name) {
  if (entries == nullptr) return nullptr;
  size_t lo = 0, hi = entries->size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const fb::Value* e = entries->Get(static_cast<fbs::uoffset_t>(mid));
    if (e->name() == nullptr) return nullptr;  // only untrusted bytes lack names
    int c = View(e->name()).compare(name);
    if (c == 0) return e;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return nullptr;
}

void Append(AttributeValue::Map* map, std::string name, AttributeValue v) {
  map->emplace_back(std::move(name), std::move(v));
}
void Append(Item* item, std::string name, AttributeValue v) {
  item->emplace_hint(item->end(), std::move(name), std::move(v));
}

// Decodes named values into *out (a Map or an Item), checking that names are
// present, strictly ascending and so unique.
template <typename Out>
Status DecodeEntries(const Entries* entries, Out* out) {
  if (entries == nullptr) return Status::OK();
  std::string_view prev;
  for (fbs::uoffset_t i = 0; i < entries->size(); ++i) {
    const fb::Value* e = entries->Get(i);
    if (e->name() == nullptr) return Corrupt("entry without a name");
    std::string_view name = View(e->name());
    if (i > 0 && !(prev < name)) return Corrupt("entries out of order");
    prev = name;
    DYNAROCK_ASSIGN_OR_RETURN(auto v, ItemCodecAccess::Value(e).Decode());
    Append(out, std::string(name), std::move(v));
  }
  return Status::OK();
}

// Decodes set members, checking they are strictly ascending by their bytes.
template <typename T, typename Fn>
Status DecodeMembers(const fbs::Vector<fbs::Offset<fb::Blob>>* members, std::vector<T>* out,
                     Fn from_bytes) {
  if (members == nullptr || members->size() == 0) return Corrupt("empty set");
  std::string_view prev;
  for (fbs::uoffset_t i = 0; i < members->size(); ++i) {
    std::string_view bytes = View(members->Get(i)->data());
    if (i > 0 && !(prev < bytes)) return Corrupt("set members out of order");
    prev = bytes;
    DYNAROCK_ASSIGN_OR_RETURN(auto m, from_bytes(bytes));
    out->push_back(std::move(m));
  }
  return Status::OK();
}

}  // namespace

void format::EncodeItem(const Item& item, size_t size, std::string* out) {
  assert(size == ItemSize(item));
  fbs::FlatBufferBuilder b(256);
  auto attrs = EncodeEntries(b, item);
  b.Finish(fb::CreateItem(b, kItemFormatVersion, attrs, static_cast<uint32_t>(size)),
           fb::ItemIdentifier());
  out->assign(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

void format::EncodeItem(const Item& item, std::string* out) {
  EncodeItem(item, ItemSize(item), out);
}

std::string format::EncodeItem(const Item& item) {
  std::string out;
  EncodeItem(item, &out);
  return out;
}

AttrType ValueView::type() const { return static_cast<AttrType>(v_->type()); }

std::string_view ValueView::bytes() const { return View(v_->data()); }

Result<Number> ValueView::number() const { return DecodeNumber(View(v_->data())); }

bool ValueView::boolean() const { return v_->flag(); }

size_t ValueView::size() const {
  switch (type()) {
    case AttrType::kM: return v_->entries() ? v_->entries()->size() : 0;
    case AttrType::kL: return v_->elements() ? v_->elements()->size() : 0;
    case AttrType::kSS:
    case AttrType::kNS:
    case AttrType::kBS: return v_->members() ? v_->members()->size() : 0;
    default: return 0;
  }
}

std::optional<ValueView> ValueView::Find(std::string_view name) const {
  if (type() != AttrType::kM) return std::nullopt;
  const fb::Value* e = FindEntry(v_->entries(), name);
  if (e == nullptr) return std::nullopt;
  return ValueView(e);
}

std::optional<ValueView> ValueView::At(size_t index) const {
  if (type() != AttrType::kL || v_->elements() == nullptr || index >= v_->elements()->size()) {
    return std::nullopt;
  }
  return ValueView(v_->elements()->Get(static_cast<fbs::uoffset_t>(index)));
}

ValueView ValueView::Entry(size_t i) const {
  return ValueView(v_->entries()->Get(static_cast<fbs::uoffset_t>(i)));
}

std::string_view ValueView::name() const {
  return v_->name() ? View(v_->name()) : std::string_view();
}

std::string_view ValueView::member(size_t i) const {
  return View(v_->members()->Get(static_cast<fbs::uoffset_t>(i))->data());
}

Result<Number> ValueView::number_member(size_t i) const { return DecodeNumber(member(i)); }

Result<AttributeValue> ValueView::Decode() const {
  switch (v_->type()) {
    case fb::ValueType::S: return AttributeValue::S(std::string(bytes()));
    case fb::ValueType::B: return AttributeValue::B(std::string(bytes()));
    case fb::ValueType::N: {
      DYNAROCK_ASSIGN_OR_RETURN(auto n, number());
      return AttributeValue::N(n);
    }
    case fb::ValueType::Bool: return AttributeValue::Bool(boolean());
    case fb::ValueType::Null: return AttributeValue::Null();
    case fb::ValueType::M: {
      AttributeValue::Map map;
      if (v_->entries() != nullptr) map.reserve(v_->entries()->size());
      DYNAROCK_RETURN_IF_ERROR(DecodeEntries(v_->entries(), &map));
      // Entries were checked to be sorted and unique: M() keeps them as they are.
      return AttributeValue::M(std::move(map));
    }
    case fb::ValueType::L: {
      AttributeValue::List list;
      if (v_->elements() != nullptr) {
        list.reserve(v_->elements()->size());
        for (const fb::Value* e : *v_->elements()) {
          if (e == nullptr) return Corrupt("null list element");
          DYNAROCK_ASSIGN_OR_RETURN(auto v, ValueView(e).Decode());
          list.push_back(std::move(v));
        }
      }
      return AttributeValue::L(std::move(list));
    }
    case fb::ValueType::SS:
    case fb::ValueType::BS: {
      std::vector<std::string> members;
      DYNAROCK_RETURN_IF_ERROR(DecodeMembers(v_->members(), &members, [](std::string_view s) {
        return Result<std::string>(std::string(s));
      }));
      return v_->type() == fb::ValueType::SS ? AttributeValue::SS(std::move(members))
                                             : AttributeValue::BS(std::move(members));
    }
    case fb::ValueType::NS: {
      std::vector<Number> members;
      DYNAROCK_RETURN_IF_ERROR(DecodeMembers(v_->members(), &members, DecodeNumber));
      return AttributeValue::NS(std::move(members));
    }
  }
  return Corrupt("unknown value type");
}

Result<ItemView> ItemView::Open(std::string_view bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  fbs::Verifier::Options opts;
  opts.max_depth = kMaxVerifyDepth;
  fbs::Verifier verifier(data, bytes.size(), opts);
  if (!fb::VerifyItemBuffer(verifier)) return Corrupt("not a valid item buffer");
  const fb::Item* item = fb::GetItem(data);
  if (item->format_version() != kItemFormatVersion) {
    return Status::Corruption("item: unsupported format version " +
                              std::to_string(item->format_version()));
  }
  if (const auto* attrs = item->attributes()) {
    for (fbs::uoffset_t i = 0; i < attrs->size(); ++i) {
      if (attrs->Get(i)->name() == nullptr) return Corrupt("attribute without a name");
      if (i > 0 && !(View(attrs->Get(i - 1)->name()) < View(attrs->Get(i)->name()))) {
        return Corrupt("attributes out of order");
      }
    }
  }
  const ItemView view(item);
  if (view.stored_size() != 0 && view.stored_size() != format::ComputeItemSize(view)) {
    return Corrupt("stored size differs from the attributes' size");
  }
  return view;
}

uint32_t ItemView::stored_size() const { return item_->size(); }

ItemView ItemView::OpenTrusted(std::string_view bytes) {
  return ItemView(fb::GetItem(bytes.data()));
}

size_t ItemView::size() const {
  return item_->attributes() ? item_->attributes()->size() : 0;
}

std::string_view ItemView::name(size_t i) const {
  return View(item_->attributes()->Get(static_cast<fbs::uoffset_t>(i))->name());
}

ValueView ItemView::value(size_t i) const {
  return ValueView(item_->attributes()->Get(static_cast<fbs::uoffset_t>(i)));
}

std::optional<ValueView> ItemView::Find(std::string_view name) const {
  const fb::Value* e = FindEntry(item_->attributes(), name);
  if (e == nullptr) return std::nullopt;
  return ValueView(e);
}

std::optional<ValueView> ItemView::FindPath(std::span<const PathElement> path) const {
  if (path.empty() || !std::holds_alternative<std::string>(path[0])) return std::nullopt;
  std::optional<ValueView> v = Find(std::get<std::string>(path[0]));
  for (size_t i = 1; v && i < path.size(); ++i) {
    if (const auto* name = std::get_if<std::string>(&path[i])) {
      v = v->Find(*name);
    } else {
      v = v->At(std::get<size_t>(path[i]));
    }
  }
  return v;
}

Result<Item> ItemView::Decode() const {
  Item item;
  DYNAROCK_RETURN_IF_ERROR(DecodeEntries(item_->attributes(), &item));
  return item;
}

namespace {

// `bytes`, or a copy of them in *aligned if they do not start on an
// ItemView boundary.
std::string_view Aligned(std::string_view bytes, std::vector<uint64_t>* aligned) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % kItemBufferAlignment == 0) return bytes;
  aligned->resize((bytes.size() + 7) / 8);
  std::memcpy(aligned->data(), bytes.data(), bytes.size());
  return {reinterpret_cast<const char*>(aligned->data()), bytes.size()};
}

}  // namespace

Result<Item> format::DecodeItem(std::string_view bytes) {
  std::vector<uint64_t> aligned;
  DYNAROCK_ASSIGN_OR_RETURN(auto view, ItemView::Open(Aligned(bytes, &aligned)));
  return view.Decode();
}

Result<Item> format::DecodeTrustedItem(std::string_view bytes) {
  std::vector<uint64_t> aligned;
  return ItemView::OpenTrusted(Aligned(bytes, &aligned)).Decode();
}

}  // namespace dynarock
