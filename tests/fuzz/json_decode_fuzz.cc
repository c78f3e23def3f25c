// Fuzzes the DynamoDB JSON decoder: any input yields an error or an item that
// writes back to JSON that decodes to the same item, and encodes to FlatBuffers.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "format/item_codec.h"
#include "format/json.h"

using namespace dynarock;  // NOLINT: test and benchmark code
using namespace dynarock::format;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto item = ParseItemJson(text);
  if (!item.ok()) return 0;
  if (!ValidateItem(*item).ok()) return 0;  // e.g. empty attribute names: rejected later
  auto again = ParseItemJson(ToJson(*item));
  if (!again.ok() || !(*again == *item)) std::abort();
  auto decoded = DecodeItem(EncodeItem(*item));
  if (!decoded.ok() || !(*decoded == *item)) std::abort();
  return 0;
}
