#include "tools/server/content_coding.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

namespace dynarock::server {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The tokens of a comma-separated header value, trimmed, empty ones dropped.
std::vector<std::string_view> Tokens(std::string_view value) {
  std::vector<std::string_view> out;
  while (true) {
    size_t comma = value.find(',');
    std::string_view t = Trim(value.substr(0, comma));
    if (!t.empty()) out.push_back(t);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

// More layers than this is not a real client.
constexpr size_t kMaxCodings = 4;

// Inflates one coding. window_bits as zlib's inflateInit2 takes them.
DecodeResult Inflate(std::string_view in, int window_bits, size_t limit, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return DecodeResult::kCorrupt;
  out->clear();
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  DecodeResult result = DecodeResult::kOk;
  unsigned char chunk[64 * 1024];
  while (true) {
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    int rc = inflate(&z, Z_NO_FLUSH);
    const size_t produced = sizeof chunk - z.avail_out;
    if (out->size() + produced > limit) {
      result = DecodeResult::kTooLarge;
      break;
    }
    out->append(reinterpret_cast<const char*>(chunk), produced);
    if (rc == Z_STREAM_END) {
      // gzip allows members one after another (RFC 1952 2.2); anything
      // else after the end is not this coding.
      if (z.avail_in == 0) break;
      if (window_bits > 15 && inflateReset(&z) == Z_OK) continue;
      result = DecodeResult::kCorrupt;
      break;
    }
    if (rc == Z_BUF_ERROR && (z.avail_in == 0 || produced == 0)) {  // truncated
      result = DecodeResult::kCorrupt;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      result = DecodeResult::kCorrupt;
      break;
    }
  }
  inflateEnd(&z);
  return result;
}

std::optional<Coding> Parse(std::string_view token) {
  if (EqualsNoCase(token, "gzip") || EqualsNoCase(token, "x-gzip")) return Coding::kGzip;
  if (EqualsNoCase(token, "deflate")) return Coding::kDeflate;
  if (EqualsNoCase(token, "identity")) return Coding::kIdentity;
  return std::nullopt;
}

}  // namespace

bool SupportedContentEncoding(std::string_view content_encoding) {
  auto tokens = Tokens(content_encoding);
  if (tokens.size() > kMaxCodings) return false;
  for (auto t : tokens) {
    if (!Parse(t)) return false;
  }
  return true;
}

DecodeResult DecodeBody(std::string_view content_encoding, std::string_view body, size_t limit,
                        std::string* out) {
  auto tokens = Tokens(content_encoding);
  if (tokens.size() > kMaxCodings) return DecodeResult::kUnsupported;
  std::vector<Coding> codings;
  for (auto t : tokens) {
    auto c = Parse(t);
    if (!c) return DecodeResult::kUnsupported;
    if (*c != Coding::kIdentity) codings.push_back(*c);
  }
  if (body.size() > limit && codings.empty()) return DecodeResult::kTooLarge;
  if (codings.empty()) {
    out->assign(body);
    return DecodeResult::kOk;
  }
  std::string current, next;
  std::string_view source = body;
  // Codings are listed in the order they were applied: undo the last first.
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
    DecodeResult r;
    if (*it == Coding::kGzip) {
      r = Inflate(source, 16 + MAX_WBITS, limit, &next);
    } else {
      r = Inflate(source, MAX_WBITS, limit, &next);
      if (r == DecodeResult::kCorrupt) r = Inflate(source, -MAX_WBITS, limit, &next);
    }
    if (r != DecodeResult::kOk) return r;
    current.swap(next);
    source = current;
  }
  *out = std::move(current);
  return DecodeResult::kOk;
}

Coding ChooseResponseCoding(std::string_view accept_encoding) {
  // q-values: "gzip;q=0" refuses gzip; "*" stands for anything not named.
  std::optional<bool> gzip, deflate, any;
  for (auto t : Tokens(accept_encoding)) {
    std::string_view name = Trim(t.substr(0, t.find(';')));
    bool accepted = true;
    if (size_t semi = t.find(';'); semi != std::string_view::npos) {
      std::string_view param = Trim(t.substr(semi + 1));
      if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
        std::string_view q = Trim(param.substr(2));
        // Zero is "0", "0.", "0.0", ... (RFC 9110 12.4.2).
        accepted = !(q.size() >= 1 && q[0] == '0' &&
                     q.find_first_not_of("0.", 0) == std::string_view::npos);
      }
    }
    if (EqualsNoCase(name, "gzip") || EqualsNoCase(name, "x-gzip"))
      gzip = accepted;
    else if (EqualsNoCase(name, "deflate"))
      deflate = accepted;
    else if (name == "*")
      any = accepted;
  }
  if (gzip.value_or(any.value_or(false))) return Coding::kGzip;
  if (deflate.value_or(any.value_or(false))) return Coding::kDeflate;
  return Coding::kIdentity;
}

std::string Compress(Coding coding, std::string_view data) {
  z_stream z{};
  const int window_bits = coding == Coding::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return {};
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);  // the bound makes one call enough
  out.resize(rc == Z_STREAM_END ? z.total_out : 0);
  deflateEnd(&z);
  return out;
}

const char* CodingName(Coding coding) {
  switch (coding) {
    case Coding::kGzip:
      return "gzip";
    case Coding::kDeflate:
      return "deflate";
    case Coding::kIdentity:
      break;
  }
  return "identity";
}

}  // namespace dynarock::server
