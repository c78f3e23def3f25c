// HTTP content codings for `dynarock serve`: gzip and deflate request bodies
// (Content-Encoding), decoded with a bound on the decoded size so that a
// small body cannot inflate into gigabytes, and compressed answers for a
// client that sends Accept-Encoding.
#ifndef DYNAROCK_TOOLS_SERVER_CONTENT_CODING_H_
#define DYNAROCK_TOOLS_SERVER_CONTENT_CODING_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace dynarock::server {

enum class Coding { kIdentity, kGzip, kDeflate };

enum class DecodeResult {
  kOk,
  kUnsupported,  // a coding other than gzip, x-gzip, deflate, identity
  kCorrupt,      // not a valid stream of the named coding (or trailing bytes)
  kTooLarge,     // the decoded body would pass `limit` bytes
};

// True if `content_encoding` (a Content-Encoding value: codings separated by
// commas, applied in order) names only codings DecodeBody() knows.
bool SupportedContentEncoding(std::string_view content_encoding);

// Decodes `body` as `content_encoding` says (the last-applied coding first),
// into `*out`. An empty value or "identity" copies the body. "deflate" is
// the zlib format (RFC 1950); a raw RFC 1951 stream, which some clients
// send under that name, is accepted too. Never allocates more than `limit`
// bytes of output (plus one stream buffer).
DecodeResult DecodeBody(std::string_view content_encoding, std::string_view body, size_t limit,
                        std::string* out);

// The coding to answer with for an Accept-Encoding value: gzip if accepted
// (q > 0, by name or by "*"), else deflate, else identity.
Coding ChooseResponseCoding(std::string_view accept_encoding);

// `data` compressed as `coding` (gzip: RFC 1952, deflate: RFC 1950).
// REQUIRES: coding != kIdentity.
std::string Compress(Coding coding, std::string_view data);

// The Content-Encoding token of a coding ("gzip", "deflate").
const char* CodingName(Coding coding);

}  // namespace dynarock::server

#endif  // DYNAROCK_TOOLS_SERVER_CONTENT_CODING_H_
