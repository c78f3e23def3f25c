// Fuzzes the item decoder with arbitrary bytes: it must return Corruption or
// an item that is valid, re-encodes, and decodes to itself.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "format/item_codec.h"
#include "format/item_size.h"

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
  // The in-place view agrees with the full decode, at any alignment: bytes
  // in the current encoding are opened where they lie and one byte off;
  // version 1 bytes (which DecodeItem verified) through OpenStoredItem.
  std::vector<ItemView> views;
  std::string shifted = " " + std::string(bytes);
  std::string scratch;
  if (IsCurrentItemEncoding(bytes)) {
    for (std::string_view at : {bytes, std::string_view(shifted).substr(1)}) {
      auto view = ItemView::Open(at);
      if (!view.ok()) std::abort();
      views.push_back(*view);
    }
  } else {
    if (ItemView::Open(bytes).ok()) std::abort();  // views read the current encoding only
    auto view = OpenStoredItem(bytes, &scratch);
    if (!view.ok()) std::abort();
    views.push_back(*view);
  }
  for (const ItemView& view : views) {
    if (view.stored_size() != ItemSize(*item)) std::abort();
    for (const auto& [name, value] : *item) {
      auto v = view.Find(name);
      if (!v || !v->Decode().ok() || !(*v->Decode() == value)) std::abort();
    }
  }
  return 0;
}
