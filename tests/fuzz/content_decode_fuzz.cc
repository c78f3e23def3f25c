// Fuzzes the HTTP content codings: arbitrary Content-Encoding values and
// bodies (as an attacker or a broken client sends them) must decode or be
// refused, never misbehave, never produce more than the limit, and a body
// the server's own compressor wrote must decode back to itself. Accept-
// Encoding parsing gets the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tools/server/content_coding.h"

using namespace dynarock::server;  // NOLINT: test code

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The first line is the Content-Encoding (and Accept-Encoding) value; the
  // rest is the body.
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t nl = in.find('\n');
  std::string_view coding = in.substr(0, nl);
  std::string_view body = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  constexpr size_t kLimit = 1 << 20;  // small enough that bombs hit it fast

  std::string out;
  DecodeResult r = DecodeBody(coding, body, kLimit, &out);
  if (r == DecodeResult::kOk && out.size() > kLimit) std::abort();
  if (r != DecodeResult::kUnsupported && !SupportedContentEncoding(coding)) std::abort();
  if (r == DecodeResult::kUnsupported && SupportedContentEncoding(coding)) std::abort();

  // What we compress, we decode back.
  for (Coding c : {Coding::kGzip, Coding::kDeflate}) {
    std::string packed = Compress(c, body);
    std::string back;
    if (DecodeBody(CodingName(c), packed, kLimit, &back) != DecodeResult::kOk) std::abort();
    if (back != body) std::abort();
  }
  Coding chosen = ChooseResponseCoding(coding);
  if (chosen != Coding::kIdentity && chosen != Coding::kGzip && chosen != Coding::kDeflate) {
    std::abort();
  }
  return 0;
}
