// Fuzzes the item decoder with arbitrary bytes: it must return Corruption or
// an item that is valid, re-encodes, and decodes to itself.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "format/item_codec.h"

using namespace dynarock;  // NOLINT: test and benchmark code
using namespace dynarock::format;  // NOLINT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto item = DecodeItem(bytes);
  if (!item.ok()) {
    if (item.status().code() != dynarock::Status::Code::kCorruption) std::abort();
    return 0;
  }
  auto again = DecodeItem(EncodeItem(*item));
  if (!again.ok() || !(*again == *item)) std::abort();
  // The in-place view agrees with the full decode. Views need aligned bytes
  // (DecodeItem copies misaligned input itself), so give it an aligned copy.
  std::vector<uint32_t> aligned((size + 3) / 4);
  if (size) std::memcpy(aligned.data(), data, size);
  auto view = ItemView::Open(std::string_view(reinterpret_cast<const char*>(aligned.data()), size));
  if (!view.ok()) std::abort();
  for (const auto& [name, value] : *item) {
    auto v = view->Find(name);
    if (!v || !v->Decode().ok() || !(*v->Decode() == value)) std::abort();
  }
  return 0;
}
