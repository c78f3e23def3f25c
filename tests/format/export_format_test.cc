// The export/import file formats (format/export_format.h, data_file.h),
// pinned to examples of DynamoDB's own export files and ImportTable inputs.
#include "format/export_format.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>

#include "dynarock/number.h"
#include "format/data_file.h"
#include "format/item_line_fast.h"
#include "format/json.h"

namespace dynarock::format {
namespace {

AttributeValue N(const char* s) { return AttributeValue::N(Number::Parse(s).value()); }

TEST(ExportFormatTest, IonLineIsTheGuidesExample) {
  // IMPORT-EXPORT-API.md 4a: the docs' ION line, numbers with trailing
  // zeros moved into the d exponent.
  Item item;
  item["Authors"] = AttributeValue::SS({"Author1", "Author2"});
  item["Id"] = N("103");
  item["PageCount"] = N("600");
  item["Price"] = N("2000");
  EXPECT_EQ(ItemLine(ExportFormat::kIon, item),
            "$ion_1_0 {Item:{Authors:$dynamodb_SS::[\"Author1\",\"Author2\"],Id:103.,"
            "PageCount:6d2,Price:2d3}}");
  auto back = ParseItemLine(ExportFormat::kIon, ItemLine(ExportFormat::kIon, item));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, item);
}

TEST(ExportFormatTest, IonRoundTripsEveryType) {
  Item item;
  item["s"] = AttributeValue::S("quote \" backslash \\ tab \t nul \x01 é");
  item["n"] = N("-0.0015");
  item["z"] = N("0");
  item["b"] = AttributeValue::B(std::string("\x00\xff\x10", 3));
  item["t"] = AttributeValue::Bool(true);
  item["f"] = AttributeValue::Bool(false);
  item["nul"] = AttributeValue::Null();
  item["ns"] = AttributeValue::NS({Number::Parse("1.5").value(), Number::Parse("20").value()});
  item["bs"] = AttributeValue::BS({"a", std::string("\0", 1)});
  item["l"] = AttributeValue::L({N("1"), AttributeValue::S("x"), AttributeValue::L({})});
  item["m"] = AttributeValue::M({{"inner key", AttributeValue::M({{"true", N("7")}})}});
  item["9starts with digit"] = AttributeValue::S("v");
  const std::string line = ItemLine(ExportFormat::kIon, item);
  auto back = ParseItemLine(ExportFormat::kIon, line);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << line;
  EXPECT_EQ(*back, item);
}

TEST(ExportFormatTest, IonReaderAcceptsWhatOtherWritersWrite) {
  // Any Ion decimal, ints, floats, quoted names, long strings, comments,
  // typed nulls, no version marker.
  auto item = ParseItemLine(
      ExportFormat::kIon,
      R"( /* c */ {Item:{'quoted name':1.5, "str name":'''long ''' '''string''', i:42, )"
      R"(e:1.5e2, d:-12.50d1, nul:null.string, blob:{{ AAE= }}, nested:{a:[1,2.]}}} // end)");
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  EXPECT_EQ(item->at("quoted name"), N("1.5"));
  EXPECT_EQ(item->at("str name"), AttributeValue::S("long string"));
  EXPECT_EQ(item->at("i"), N("42"));
  EXPECT_EQ(item->at("e"), N("150"));
  EXPECT_EQ(item->at("d"), N("-125"));
  EXPECT_EQ(item->at("nul"), AttributeValue::Null());
  EXPECT_EQ(item->at("blob"), AttributeValue::B(std::string("\x00\x01", 2)));
}

TEST(ExportFormatTest, IonReaderRejectsWhatIsNotAnItem) {
  for (const char* bad :
       {"", "{Item:{a:1}", "{Item:{a:}}", "{Item:[1]}", "{Other:{a:1}}",
        "{Item:{a:$dynamodb_SS::[1]}}", "{Item:{a:$dynamodb_NS::[\"x\"]}}", "{Item:{a:symbol}}",
        "{Item:{a:1,a:2}}", "{Item:{a:\"unterminated}}", "{Item:{a:{{!!}}}}",
        "{Item:{a:1}} trailing", "{Item:{a:0x10}}", "{Item:{a:$dynamodb_SS::[]}}",
        "{Item:{a:$dynamodb_SS::[\"x\",\"x\"]}}", "{Item:{a:1e999}}",
        // Found by fuzz_export_parse: Item a blob (it starts with {), and
        // strings that are not UTF-8.
        "{Item:{{AAE=}}}", "$ion_1_0 {Item:{{AAE=}},m:{x:[0,null,true]}}}",
        "{Item:{a:\"A\xfathor\"}}", "{Item:{'\xc0\xaf':1}}", "{Item:{a:'''\xed\xa0\x80'''}}"}) {
    EXPECT_FALSE(ParseItemLine(ExportFormat::kIon, bad).ok()) << bad;
  }
  // Nesting is bounded before the stack is.
  std::string deep = "{Item:{a:" + std::string(5000, '[') + std::string(5000, ']') + "}}";
  EXPECT_FALSE(ParseItemLine(ExportFormat::kIon, deep).ok());
}

TEST(ExportFormatTest, JsonLineIsTheExportDataLine) {
  // EXPORT-FORMAT.md 5: {"Item":{...}} with the wire's AttributeValue JSON.
  Item item;
  item["pk"] = AttributeValue::S("a");
  item["n"] = N("1.50");
  item["bs"] = AttributeValue::BS({"x"});
  EXPECT_EQ(ItemLine(ExportFormat::kDynamoDbJson, item),
            R"({"Item":{"bs":{"BS":["eA=="]},"n":{"N":"1.5"},"pk":{"S":"a"}}})");
  auto back = ParseItemLine(ExportFormat::kDynamoDbJson,
                            R"({"Item":{"pk":{"S":"a"},"n":{"N":"1.5"},"bs":{"BS":["eA=="]}}})");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, item);
  for (const char* bad : {"", "[]", "{}", R"({"Item":5})", R"({"Item":{"a":{"S":1}}})",
                          R"({"Item":{"a":{"N":"x"}}})", R"({"Item":{"a":{"SS":[]}}})"}) {
    EXPECT_FALSE(ParseItemLine(ExportFormat::kDynamoDbJson, bad).ok()) << bad;
  }
}

// simdjson's fast path (item_line_fast.h) takes the plain lines and gives
// the same item as the RapidJSON path; every other line (and every error)
// gets exactly the RapidJSON path's answer.
TEST(ExportFormatTest, FastJsonLinePathAgreesWithRapidJson) {
  const std::string deep = [] {
    std::string v = R"({"S":"x"})";
    for (int i = 0; i < 40; ++i) v = R"({"L":[)" + v + "]}";
    return R"({"Item":{"a":)" + v + "}}";
  }();
  const std::vector<std::string> lines = {
      // Taken by the fast path.
      R"({"Item":{"pk":{"S":"VEH#V-7741"},"n":{"N":"-1.50E+3"},"b":{"B":"AAEC"}}})",
      R"({"Item":{"m":{"M":{"z":{"BOOL":true},"a":{"NULL":true},"l":{"L":[{"N":"1"},{"M":{}}]}}}}})",
      R"({"Item":{"a":{"S":"first"},"a":{"S":"last"}}})",  // the last wins
      R"({"Item":{"m":{"M":{"k":{"S":"1"},"k":{"S":"2"}}}}})",
      R"(  {"Item" : {"u":{"S":"\u00e9\ud83d\ude00\n"}}}  )",
      R"({"Item":{}})",
      // Left to RapidJSON: sets, null or unknown members, wrong types.
      R"({"Item":{"ss":{"SS":["b","a"]},"ns":{"NS":["2","1"]},"bs":{"BS":["AA=="]}}})",
      R"({"Item":{"ss":{"SS":["a","a"]}}})",
      R"({"Item":{"a":{"S":"x","N":null}}})",
      R"({"Item":{"a":{"S":"x","Q":1}}})",
      R"({"Item":{"a":{"S":"x","N":"1"}}})",
      R"({"Item":{"a":{"S":1}}})",
      R"({"Item":{"a":{"N":"1e200"}}})",
      R"({"Item":{"a":{"B":"!!"}}})",
      R"({"Item":{"a":{"NULL":false}}})",
      R"({"Item":{"a":{}}})",
      R"({"Item":{"a":{"S":"\udc00"}}})",  // a lone surrogate escape
      R"({"Item":{"\udc00":{"S":"x"}}})",
      R"({"Item":{"a":{"S":"x"}},"Other":1})",
      R"({"Item":{"a":{"S":"x"}}} trailing)",
      R"({"Item":{"a":{"S":"x"}})",
      R"({"Item":{"a":{"S":"x"}}},)",
      R"({"item":{"a":{"S":"x"}}})",
      R"([{"Item":{"a":{"S":"x"}}}])",
      "{\"Item\":{\"a\":{\"S\":\"\xff\"}}}",  // not UTF-8
      "{\"Item\":{\"a\":{\"S\":\"\x01\"}}}",  // a raw control character
      "\xEF\xBB\xBF{\"Item\":{\"a\":{\"S\":\"x\"}}}",  // a byte order mark
      deep,
  };
  constexpr size_t kFast = 6;  // the first six lines take the fast path
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(ItemLineFast(lines[i]).has_value(), i < kFast) << lines[i];
  }
  for (const std::string& line : lines) {
    for (bool validate : {true, false}) {
      auto fast = ParseItemLine(ExportFormat::kDynamoDbJson, line, validate);
      auto reference = ParseJsonItemLineWithRapidJson(line, validate);
      ASSERT_EQ(fast.ok(), reference.ok()) << line;
      if (fast.ok()) {
        EXPECT_EQ(*fast, *reference) << line;
      } else {
        EXPECT_EQ(fast.status().code(), reference.status().code()) << line;
        EXPECT_EQ(fast.status().message(), reference.status().message()) << line;
      }
    }
  }
  auto last = ParseItemLine(ExportFormat::kDynamoDbJson, lines[2]);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->at("a"), AttributeValue::S("last"));
  EXPECT_FALSE(ParseItemLine(ExportFormat::kDynamoDbJson, lines[16]).ok());
  EXPECT_FALSE(ParseItemLine(ExportFormat::kDynamoDbJson, deep).ok());
}

// RapidJSON takes a NUL byte for the end of its input: a line with one is
// refused, wherever the NUL is.
TEST(ExportFormatTest, JsonLineWithANulByteIsRefused) {
  using namespace std::string_literals;
  EXPECT_EQ(ParseItemLine(ExportFormat::kDynamoDbJson, "{\"Item\":{\"a\":{\"S\":\"x\"}}}\0{"s)
                .status()
                .message(),
            "invalid JSON: a NUL byte at offset 24");
  EXPECT_FALSE(ParseItemLine(ExportFormat::kDynamoDbJson, "{\"Item\":{\"a\":{\"S\":\"x\0y\"}}}"s).ok());
  EXPECT_TRUE(ParseItemLine(ExportFormat::kDynamoDbJson, "{\"Item\":{\"a\":{\"S\":\"x\"}}}"s).ok());
}

TEST(ExportFormatTest, ChecksumsAreS3s) {
  // RFC 1321's test vector, in the manifests' base64 form.
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Base64("abc"), "kAFQmDzST7DWlj99KOF/cg==");
  // The one-part multipart ETag: hex(MD5(MD5(data))) "-1".
  const std::string raw = Base64Decode(Md5Base64("abc")).value();
  EXPECT_EQ(MultipartEtag(raw), Md5Hex(raw) + "-1");
  EXPECT_EQ(IsoTimestampMs(1604474914028), "2020-11-04T07:28:34.028Z");
}

TEST(ExportFormatTest, ManifestsRoundTripAndRejectMissingMembers) {
  std::vector<ManifestFile> files = {
      {8, "sQMSpEILNgoQmarvDFonGQ==", "af83-1", "p/AWSDynamoDB/x/data/a.json.gz"},
      {0, "1B2M2Y8AsgTpgAmY7PhCfg==", "e-1", "p/AWSDynamoDB/x/data/b.json.gz"}};
  const std::string text = ManifestFilesJson(files);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            R"({"itemCount":8,"md5Checksum":"sQMSpEILNgoQmarvDFonGQ==","etag":"af83-1",)"
            R"("dataFileS3Key":"p/AWSDynamoDB/x/data/a.json.gz"})");
  auto back = ParseManifestFiles(text);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].data_file_s3_key, "p/AWSDynamoDB/x/data/b.json.gz");
  EXPECT_FALSE(ParseManifestFiles(R"({"md5Checksum":"x","dataFileS3Key":"k"})").ok());

  ManifestSummary s;
  s.export_arn = "arn";
  s.manifest_files_s3_key = "AWSDynamoDB/x/manifest-files.json";
  s.item_count = 8;
  s.output_format = ExportFormat::kIon;
  auto summary = ParseManifestSummary(ManifestSummaryJson(s));
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->item_count, 8);
  EXPECT_EQ(summary->output_format, ExportFormat::kIon);
  EXPECT_FALSE(summary->s3_prefix.has_value());
  // All 15 members are written, nulls included.
  rapidjson::Document doc;
  ASSERT_TRUE(ParseJson(ManifestSummaryJson(s), &doc).ok());
  EXPECT_EQ(doc.MemberCount(), 15u);
  EXPECT_TRUE(doc["s3Prefix"].IsNull());
  EXPECT_FALSE(ParseManifestSummary(R"({"itemCount":1})").ok());
}

TEST(ExportFormatTest, CsvRowsTypeKeysAndTakeTheRestAsStrings) {
  std::vector<std::pair<std::string, ScalarAttributeType>> typed = {{"pk", ScalarAttributeType::kS},
                                                                    {"n", ScalarAttributeType::kN}};
  auto item = CsvRowToItem({"pk", "n", "other", "empty"}, {"a", "12.0", "3", ""}, typed);
  ASSERT_TRUE(item.ok());
  EXPECT_EQ(item->at("n"), N("12"));
  EXPECT_EQ(item->at("other"), AttributeValue::S("3"));
  EXPECT_EQ(item->count("empty"), 0u);
  EXPECT_FALSE(CsvRowToItem({"pk"}, {"a", "b"}, typed).ok());
  EXPECT_FALSE(CsvRowToItem({"pk", "n"}, {"a", "x"}, typed).ok());
}

class DataFileTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) {
    return (std::filesystem::path(dir_) / name).string();
  }
  void SetUp() override {
    char templ[] = "/tmp/data_file_test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static void WriteBytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  static std::vector<std::string> ReadAll(const std::string& path, Compression c, Status* status) {
    LineReader r;
    *status = r.Open(path, c);
    std::vector<std::string> lines;
    if (!status->ok()) return lines;
    std::string line;
    while (r.Next(&line)) lines.push_back(line);
    *status = r.status();
    return lines;
  }
  std::string dir_;
};

TEST_F(DataFileTest, GzipWrittenIsReadBackWithItsChecksum) {
  DataFileWriter w;
  ASSERT_TRUE(w.Open(Path("a.json.gz")).ok());
  for (int i = 0; i < 50000; ++i) ASSERT_TRUE(w.AddLine("line " + std::to_string(i)).ok());
  auto done = w.Finish();
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->lines, 50000);
  std::ifstream in(Path("a.json.gz"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(done->md5_base64, Md5Base64(bytes));
  EXPECT_EQ(static_cast<size_t>(done->bytes), bytes.size());

  LineReader r;
  ASSERT_TRUE(r.Open(Path("a.json.gz"), Compression::kGzip).ok());
  std::string line;
  int n = 0;
  while (r.Next(&line)) ASSERT_EQ(line, "line " + std::to_string(n++));
  ASSERT_TRUE(r.status().ok()) << r.status().ToString();
  EXPECT_EQ(n, 50000);
  EXPECT_EQ(r.md5_base64(), done->md5_base64);
}

TEST_F(DataFileTest, EmptyFilesTruncationAndCorruption) {
  Status s;
  // A 0-byte object and an empty gzip member: no lines, no error.
  WriteBytes(Path("zero"), "");
  EXPECT_TRUE(ReadAll(Path("zero"), Compression::kGzip, &s).empty());
  EXPECT_TRUE(s.ok());
  DataFileWriter w;
  ASSERT_TRUE(w.Open(Path("empty.gz")).ok());
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_TRUE(ReadAll(Path("empty.gz"), Compression::kGzip, &s).empty());
  EXPECT_TRUE(s.ok()) << s.ToString();

  DataFileWriter full;
  ASSERT_TRUE(full.Open(Path("full.gz")).ok());
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(full.AddLine("some line " + std::to_string(i)).ok());
  ASSERT_TRUE(full.Finish().ok());
  std::ifstream in(Path("full.gz"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  WriteBytes(Path("truncated.gz"), bytes.substr(0, bytes.size() / 2));
  ReadAll(Path("truncated.gz"), Compression::kGzip, &s);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("truncated gzip"), std::string::npos) << s.ToString();
  std::string corrupt = bytes;
  corrupt[corrupt.size() / 2] ^= 0x55;
  WriteBytes(Path("corrupt.gz"), corrupt);
  ReadAll(Path("corrupt.gz"), Compression::kGzip, &s);
  EXPECT_FALSE(s.ok());
  // Plain text declared as gzip is an error too (ImportTable: a mismatched
  // compression setting surfaces as an error).
  WriteBytes(Path("plain"), "{\"Item\":{}}\n");
  ReadAll(Path("plain"), Compression::kGzip, &s);
  EXPECT_FALSE(s.ok());
}

TEST_F(DataFileTest, ConcatenatedGzipMembersZstdAndPlain) {
  auto gz = [](const std::string& text) {
    std::string out(compressBound(text.size()) + 64, '\0');
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
  };
  Status s;
  WriteBytes(Path("two.gz"), gz("a\nb\n") + gz("c\r\nd"));
  EXPECT_EQ(ReadAll(Path("two.gz"), Compression::kGzip, &s),
            (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(s.ok());

  const std::string text = "x\ny\n";
  std::string z(ZSTD_compressBound(text.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), text.data(), text.size(), 3));
  WriteBytes(Path("a.zst"), z);
  EXPECT_EQ(ReadAll(Path("a.zst"), Compression::kZstd, &s), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(s.ok());
  WriteBytes(Path("cut.zst"), z.substr(0, z.size() - 3));
  ReadAll(Path("cut.zst"), Compression::kZstd, &s);
  EXPECT_FALSE(s.ok());

  WriteBytes(Path("plain"), "p\nq");
  EXPECT_EQ(ReadAll(Path("plain"), Compression::kNone, &s), (std::vector<std::string>{"p", "q"}));
}

// The read buffer is sized to the file (at least 4 KiB, at most 256 KiB):
// files on either side of both bounds read back every line and the MD5 of
// every byte.
TEST_F(DataFileTest, PlainFilesAroundTheReadBufferBounds) {
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{(256 << 10) - 1},
        size_t{256 << 10}, size_t{(256 << 10) + 1}, size_t{600000}}) {
    std::string bytes;
    std::vector<std::string> expect;
    for (int i = 0; bytes.size() < size; ++i) {
      std::string line = "line " + std::to_string(i);
      expect.push_back(line.substr(0, size - bytes.size()));
      bytes += line + "\n";
    }
    bytes.resize(size);  // the last line may lose its newline, or part of itself
    if (!expect.empty() && expect.back().empty()) expect.pop_back();
    WriteBytes(Path("plain"), bytes);
    LineReader r;
    ASSERT_TRUE(r.Open(Path("plain"), Compression::kNone).ok());
    std::vector<std::string> lines;
    std::string line;
    while (r.Next(&line)) lines.push_back(line);
    ASSERT_TRUE(r.status().ok()) << size;
    EXPECT_EQ(lines, expect) << size;
    EXPECT_EQ(r.md5_base64(), Md5Base64(bytes)) << size;
    EXPECT_EQ(r.compressed_bytes(), static_cast<int64_t>(size));
  }
}

TEST_F(DataFileTest, CsvQuotingAndEmbeddedNewlines) {
  WriteBytes(Path("a.csv"), "pk;note\n\"a;1\";\"two\nlines\"\nb;\"say \"\"hi\"\"\"\n");
  LineReader r;
  ASSERT_TRUE(r.Open(Path("a.csv"), Compression::kNone).ok());
  CsvReader csv(';');
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> fields;
  while (csv.Next(&r, &fields)) records.push_back(fields);
  ASSERT_TRUE(csv.status().ok());
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1], (std::vector<std::string>{"a;1", "two\nlines"}));
  EXPECT_EQ(records[2], (std::vector<std::string>{"b", "say \"hi\""}));
}

}  // namespace
}  // namespace dynarock::format
