// DynamoDB's export and import file formats, as ExportTableToPointInTime
// writes and ImportTable reads them: the item lines of DYNAMODB_JSON and ION data files,
// CSV rows, the two manifests and their checksums.
//
// Pure encoding: no files here (format/data_file.h reads and writes them).
//
//   DYNAMODB_JSON line:  {"Item":{"PK":{"S":"VEH#1"},"n":{"N":"1.5"}}}
//   ION line:            $ion_1_0 {Item:{PK:"VEH#1",n:15d-1}}
//
// Readers accept what DynamoDB's own exports and ImportTable's inputs hold,
// and reject the rest with a message that says what is wrong (the caller adds
// the file and line). Every reader is bounded: nesting past 32 levels and
// malformed text are errors, never undefined behaviour.
#ifndef DYNAROCK_FORMAT_EXPORT_FORMAT_H_
#define DYNAROCK_FORMAT_EXPORT_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/attribute_value.h"
#include "dynarock/item_view.h"
#include "dynarock/status.h"

namespace dynarock::format {

enum class ExportFormat { kDynamoDbJson, kIon };

// "DYNAMODB_JSON" / "ION", as manifests and the API spell them.
const char* ExportFormatName(ExportFormat f);
// The data file extension: ".json.gz" / ".ion.gz".
const char* DataFileExtension(ExportFormat f);

// One data-file line for `item`, without the newline.
// Corruption if a stored number is malformed (views opened trusted only).
Status AppendItemLine(ExportFormat f, const ItemView& item, std::string* out);
std::string ItemLine(ExportFormat f, const Item& item);

// Parses one line of a DYNAMODB_JSON data file ({"Item":{...}}) or an ION one
// ([$ion_1_0] {Item:{...}}). A blank line is InvalidArgument too (the caller
// decides whether to skip blank lines). The item is validated as an
// AttributeValue map (types, sets, numbers, nesting); key rules are the
// table's business. Errors: InvalidArgument with what is wrong, or
// DynamoDB's ValidationException for a bad value. `validate` false skips the
// whole-item check, for callers that run ValidateItem themselves (a restore:
// PutItem's checks).
Result<Item> ParseItemLine(ExportFormat f, std::string_view line, bool validate = true);
// The DYNAMODB_JSON branch of ParseItemLine without its simdjson fast path
// (item_line_fast.h): the reference that path is checked against.
Result<Item> ParseJsonItemLineWithRapidJson(std::string_view line, bool validate = true);

// Ion text for one value, as the ION export writes it: N as an Ion decimal
// with trailing zeros in a `d` exponent (103., 6d2, 15d-1), sets as lists
// annotated $dynamodb_SS/NS/BS, B as a blob.
void AppendIon(const AttributeValue& v, std::string* out);

// ---- Manifests ------------------------------------------------------------------------------

// One line of manifest-files.json.
struct ManifestFile {
  int64_t item_count = 0;
  std::string md5_checksum;      // base64(MD5(the stored, compressed bytes))
  std::string etag;              // S3's multipart form: hex(MD5(MD5(bytes))) "-1"
  std::string data_file_s3_key;  // bucket-relative, S3 prefix included
};

// manifest-summary.json: the 15 members of EXPORT-FORMAT.md section 2.
struct ManifestSummary {
  std::string version = "2020-06-30";
  std::string export_arn, start_time, end_time, table_arn, table_id, export_time;
  std::string s3_bucket;
  std::optional<std::string> s3_prefix;  // null when the export had none
  std::string s3_sse_algorithm = "AES256";
  std::optional<std::string> s3_sse_kms_key_id;
  std::string manifest_files_s3_key;
  int64_t billed_size_bytes = 0;
  int64_t item_count = 0;
  ExportFormat output_format = ExportFormat::kDynamoDbJson;
};

std::string ManifestFilesJson(const std::vector<ManifestFile>& files);  // JSON Lines
std::string ManifestSummaryJson(const ManifestSummary& summary);
// InvalidArgument naming the member that is missing or of the wrong type.
Result<std::vector<ManifestFile>> ParseManifestFiles(std::string_view text);
Result<ManifestSummary> ParseManifestSummary(std::string_view text);

// base64(MD5(bytes)): the manifests' and checksum files' form.
std::string Md5Base64(std::string_view bytes);
std::string Md5Hex(std::string_view bytes);
// S3's ETag of an object uploaded as one multipart part.
std::string MultipartEtag(std::string_view md5_raw);

// ISO-8601 UTC with milliseconds and Z: "2020-11-04T07:28:34.028Z".
std::string IsoTimestampMs(int64_t ms_since_epoch);

// ---- CSV (ImportTable's CSV input) ----------------------------------------------------------

// Builds an item from one CSV row under `header`: every column whose name is
// in `typed` gets that type (key attributes of the table and its GSIs:
// 0 S, 1 N, 2 B), every other column is S. Empty non-key fields are left out
// (an empty key field is then reported by the key checks as a missing key).
// InvalidArgument when the row has more fields than the header.
Result<Item> CsvRowToItem(const std::vector<std::string>& header,
                          const std::vector<std::string>& fields,
                          const std::vector<std::pair<std::string, ScalarAttributeType>>& typed);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_EXPORT_FORMAT_H_
