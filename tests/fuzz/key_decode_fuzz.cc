// Fuzzes the key decoders with arbitrary bytes: they must return an error or a
// key that re-encodes to exactly the input (the codec is a bijection).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "format/key_codec.h"

using namespace dynarock;  // NOLINT: test and benchmark code
using namespace dynarock::format;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // First byte picks the schema; the rest is the key.
  const ScalarAttributeType types[] = {ScalarAttributeType::kS, ScalarAttributeType::kN,
                                       ScalarAttributeType::kB};
  KeySchemaTypes schema{types[data[0] % 3], std::nullopt};
  if (data[0] & 4) schema.sort = types[(data[0] >> 3) % 3];
  std::string_view key(reinterpret_cast<const char*>(data + 1), size - 1);

  auto decoded = DecodeItemKey(key, schema);
  if (decoded.ok()) {
    const AttributeValue* sk = decoded->sk ? &*decoded->sk : nullptr;
    if (EncodeItemKey(decoded->space_id, decoded->pk, sk).bytes() != key) std::abort();
  }
  std::string_view in = key;
  AttributeValue v;
  if (GetKeyComponent(&in, schema.partition, &v).ok()) {
    std::string enc;
    if (!PutKeyComponent(&enc, v).ok()) std::abort();
    if (enc != key.substr(0, key.size() - in.size())) std::abort();
  }
  auto index = DecodeIndexKey(key, schema, schema);
  (void)index;  // Only absence of crashes and sanitizer reports is checked here.
  return 0;
}
