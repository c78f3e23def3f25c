// Items as storage format 7 and before wrote them: no stored size (the
// field is absent from the buffer, as the FlatBuffers builder omits a field
// left at its default). For tests of readers and of the upgrade to 8.
#ifndef DYNAROCK_TESTS_UTIL_ITEM_V7_H_
#define DYNAROCK_TESTS_UTIL_ITEM_V7_H_

#include <flatbuffers/flatbuffers.h>

#include <map>
#include <string>
#include <vector>

#include "format/item_codec.h"
#include "schemas/item_generated.h"

namespace dynarock::testing {

// An item of string attributes (name -> value), encoded without its size.
inline std::string EncodeStringItemWithoutSize(const std::map<std::string, std::string>& item) {
  flatbuffers::FlatBufferBuilder b(256);
  std::vector<flatbuffers::Offset<fb::Value>> values;
  for (const auto& [name, value] : item) {  // std::map: sorted by name, as the format requires
    const auto data = b.CreateVector(reinterpret_cast<const uint8_t*>(value.data()), value.size());
    values.push_back(fb::CreateValue(b, b.CreateString(name), fb::ValueType::S, data));
  }
  b.Finish(fb::CreateItem(b, format::kItemFormatVersion, b.CreateVector(values)),
           fb::ItemIdentifier());
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_ITEM_V7_H_
