// Fuzzes Number::Parse and, for every accepted number, its canonical text,
// key encoding and arithmetic: all must round-trip and agree.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "dynarock/number.h"
#include "format/key_codec.h"

using dynarock::Number;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t split = text.find('|');  // "a|b" also exercises Add on two numbers
  auto a = Number::Parse(text.substr(0, split));
  if (!a.ok()) return 0;
  auto again = Number::Parse(a->ToString());
  if (!again.ok() || !(*again == *a)) std::abort();
  std::string enc;
  dynarock::format::PutNumberComponent(&enc, *a);
  std::string_view in = enc;
  Number decoded;
  if (!dynarock::format::GetNumberComponent(&in, &decoded).ok() || !(decoded == *a) || !in.empty()) {
    std::abort();
  }
  if (split != std::string_view::npos) {
    auto b = Number::Parse(text.substr(split + 1));
    if (!b.ok()) return 0;
    auto sum = Number::Add(*a, *b);
    if (sum.ok()) {
      auto back = Number::Subtract(*sum, *b);
      if (!back.ok() || !(*back == *a)) std::abort();
    }
    // Byte order of encodings equals numeric order.
    std::string eb;
    dynarock::format::PutNumberComponent(&eb, *b);
    if ((enc < eb) != (*a < *b)) std::abort();
  }
  return 0;
}
