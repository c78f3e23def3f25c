// Export and import files (format/export_format.h, data_file.h): item lines
// in DYNAMODB_JSON and Ion, both manifests, CSV records, and gzip/zstd data
// files. The first byte picks the surface. A line that parses must write back
// to a line that parses to the same item (the writers and readers agree), and
// a DYNAMODB_JSON line gets the same answer from the simdjson fast path as
// from RapidJSON alone.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "format/data_file.h"
#include "format/export_format.h"

namespace {

using dynarock::format::ExportFormat;

void RoundTrip(ExportFormat f, std::string_view line) {
  auto item = dynarock::format::ParseItemLine(f, line);
  if (f == ExportFormat::kDynamoDbJson) {
    // The simdjson fast path answers exactly as the RapidJSON path.
    auto reference = dynarock::format::ParseJsonItemLineWithRapidJson(line);
    if (item.ok() != reference.ok()) std::abort();
    if (item.ok() ? !(*item == *reference)
                  : item.status().message() != reference.status().message()) {
      std::abort();
    }
  }
  if (!item.ok()) return;
  for (ExportFormat out : {ExportFormat::kDynamoDbJson, ExportFormat::kIon}) {
    auto back = dynarock::format::ParseItemLine(out, dynarock::format::ItemLine(out, *item));
    if (!back.ok() || !(*back == *item)) std::abort();
  }
}

// The file readers take a path: a memfd, rewritten for each input.
std::string FilePath(std::string_view bytes) {
  static int fd = memfd_create("export_parse_fuzz", 0);
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    std::abort();
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 7) {
    case 0:
      RoundTrip(ExportFormat::kDynamoDbJson, in);
      break;
    case 1:
      RoundTrip(ExportFormat::kIon, in);
      break;
    case 2:
      (void)dynarock::format::ParseManifestFiles(in);
      break;
    case 3:
      (void)dynarock::format::ParseManifestSummary(in);
      break;
    case 4:
    case 5: {
      dynarock::format::LineReader r;
      const auto c = data[0] % 7 == 4 ? dynarock::format::Compression::kGzip
                                      : dynarock::format::Compression::kZstd;
      if (!r.Open(FilePath(in), c, 1 << 16).ok()) std::abort();
      // A few compressed bytes can stand for gigabytes (a run of newlines):
      // past 256 KiB (several of the reader's 64 KiB output chunks) it only
      // repeats what it has done, and past 64 lines so does the line parser.
      std::string line;
      for (int n = 0; r.uncompressed_bytes() <= (256 << 10) && r.Next(&line); ++n) {
        if (n < 64) RoundTrip(ExportFormat::kDynamoDbJson, line);
      }
      (void)r.md5_base64();
      break;
    }
    case 6: {
      dynarock::format::LineReader r;
      if (!r.Open(FilePath(in), dynarock::format::Compression::kNone).ok()) std::abort();
      dynarock::format::CsvReader csv(",;:|\t "[data[0] % 6]);
      std::vector<std::string> header, fields;
      std::vector<std::pair<std::string, dynarock::ScalarAttributeType>> typed = {
          {"pk", dynarock::ScalarAttributeType::kS},
          {"n", dynarock::ScalarAttributeType::kN},
          {"b", dynarock::ScalarAttributeType::kB}};
      bool first = true;
      while (csv.Next(&r, &fields)) {
        if (first) {
          header = fields;
          first = false;
          continue;
        }
        (void)dynarock::format::CsvRowToItem(header, fields, typed);
      }
      break;
    }
  }
  return 0;
}
