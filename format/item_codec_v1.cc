// Version 1 of the item encoding (schemas/item.fbs), read only: see
// item_codec_v1.h. The code is version 1's reader as it stood when version 2
// replaced it, less the writer and the in-place views.
#include "format/item_codec_v1.h"

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <vector>

#include "format/key_codec.h"
#include "schemas/item_generated.h"

namespace dynarock::format {
namespace {

namespace fbs = flatbuffers;

constexpr uint8_t kVersion1 = 1;

// The value types are on disk: schemas/item.fbs mirrors AttrType.
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

Result<AttributeValue> DecodeValue(const fb::Value* v);

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
    DYNAROCK_ASSIGN_OR_RETURN(auto v, DecodeValue(e));
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

Result<AttributeValue> DecodeValue(const fb::Value* v) {
  switch (v->type()) {
    case fb::ValueType::S: return AttributeValue::S(std::string(View(v->data())));
    case fb::ValueType::B: return AttributeValue::B(std::string(View(v->data())));
    case fb::ValueType::N: {
      DYNAROCK_ASSIGN_OR_RETURN(auto n, DecodeNumber(View(v->data())));
      return AttributeValue::N(n);
    }
    case fb::ValueType::Bool: return AttributeValue::Bool(v->flag());
    case fb::ValueType::Null: return AttributeValue::Null();
    case fb::ValueType::M: {
      AttributeValue::Map map;
      if (v->entries() != nullptr) map.reserve(v->entries()->size());
      DYNAROCK_RETURN_IF_ERROR(DecodeEntries(v->entries(), &map));
      return AttributeValue::M(std::move(map));
    }
    case fb::ValueType::L: {
      AttributeValue::List list;
      if (v->elements() != nullptr) {
        list.reserve(v->elements()->size());
        for (const fb::Value* e : *v->elements()) {
          if (e == nullptr) return Corrupt("null list element");
          DYNAROCK_ASSIGN_OR_RETURN(auto decoded, DecodeValue(e));
          list.push_back(std::move(decoded));
        }
      }
      return AttributeValue::L(std::move(list));
    }
    case fb::ValueType::SS:
    case fb::ValueType::BS: {
      std::vector<std::string> members;
      DYNAROCK_RETURN_IF_ERROR(DecodeMembers(v->members(), &members, [](std::string_view s) {
        return Result<std::string>(std::string(s));
      }));
      return v->type() == fb::ValueType::SS ? AttributeValue::SS(std::move(members))
                                            : AttributeValue::BS(std::move(members));
    }
    case fb::ValueType::NS: {
      std::vector<Number> members;
      DYNAROCK_RETURN_IF_ERROR(DecodeMembers(v->members(), &members, DecodeNumber));
      return AttributeValue::NS(std::move(members));
    }
  }
  return Corrupt("unknown value type");
}

}  // namespace

bool IsItemV1(std::string_view bytes) {
  return bytes.size() >= 8 && bytes.substr(4, 4) == fb::ItemIdentifier();
}

Result<Item> DecodeItemV1(std::string_view bytes, bool verify) {
  std::vector<uint64_t> aligned;
  const char* data = bytes.data();
  if (reinterpret_cast<uintptr_t>(data) % alignof(fbs::uoffset_t) != 0) {
    aligned.resize((bytes.size() + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    data = reinterpret_cast<const char*>(aligned.data());
  }
  const auto* buf = reinterpret_cast<const uint8_t*>(data);
  if (verify) {
    fbs::Verifier::Options opts;
    opts.max_depth = kMaxVerifyDepth;
    fbs::Verifier verifier(buf, bytes.size(), opts);
    if (!fb::VerifyItemBuffer(verifier)) return Corrupt("not a valid item buffer");
  }
  const fb::Item* item = fb::GetItem(buf);
  if (item->format_version() != kVersion1) {
    return Status::Corruption("item: unsupported format version " +
                              std::to_string(item->format_version()));
  }
  Item out;
  DYNAROCK_RETURN_IF_ERROR(DecodeEntries(item->attributes(), &out));
  // The verifier's depth bound admits a few levels more than DynamoDB's 32,
  // which version 2 refuses: so does this.
  if (verify && !ValidateItem(out).ok()) return Corrupt("an item no writer could have stored");
  return out;
}

}  // namespace dynarock::format
