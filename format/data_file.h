// Data files of exports and imports: gzip (or zstd, or plain) JSON Lines,
// Ion lines and CSV, written and read as streams in bounded memory.
//
//   DataFileWriter w;
//   w.Open("/backup/AWSDynamoDB/<id>/data/abc.json.gz");
//   w.AddLine(line) ...;
//   auto done = w.Finish();   // item count, base64 MD5 and ETag of the bytes
//
//   LineReader r;
//   r.Open(path, Compression::kGzip);
//   while (r.Next(&line)) ...;   // r.status() after the loop, r.line_number()
#ifndef DYNAROCK_FORMAT_DATA_FILE_H_
#define DYNAROCK_FORMAT_DATA_FILE_H_

#include <openssl/evp.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/status.h"
#include "format/bucket_path.h"

namespace dynarock::format {

enum class Compression { kGzip, kZstd, kNone };

// What DataFileWriter::Finish reports for the manifest.
struct WrittenFile {
  int64_t lines = 0;
  int64_t bytes = 0;  // stored (compressed) size
  int64_t uncompressed_bytes = 0;
  std::string md5_base64;  // of the stored bytes
  std::string etag;        // S3 multipart form, one part
};

// A gzip file of lines. Not thread-safe; one writer per file.
class DataFileWriter {
 public:
  DataFileWriter() = default;
  ~DataFileWriter();
  DataFileWriter(const DataFileWriter&) = delete;
  DataFileWriter& operator=(const DataFileWriter&) = delete;

  // IOError if the file cannot be created (it must not exist).
  Status Open(const std::string& path);
  // The same on a file already created (BucketFolder::CreateFile), which it
  // then owns; `shown` names it in errors.
  Status Open(UniqueFd fd, const std::string& shown);
  // Appends `line` and a newline.
  Status AddLine(std::string_view line);
  // Ends the gzip stream, fsyncs and closes the file.
  Result<WrittenFile> Finish();

 private:
  Status Start(FILE* file, const std::string& path);
  Status Deflate(const void* data, size_t n, int flush);
  Status WriteOut(const unsigned char* p, size_t n);

  std::string path_;
  FILE* file_ = nullptr;
  z_stream z_{};
  bool z_open_ = false;
  EVP_MD_CTX* md5_ = nullptr;
  WrittenFile done_;
  std::vector<unsigned char> out_;
};

// Reads the lines of a (possibly compressed) file; `\r\n` endings are taken
// as `\n`. Concatenated gzip members are read as one stream; a zero-byte
// file has no lines. Errors (status() after Next returned false):
// IOError for a read failure, InvalidArgument for a corrupt or truncated
// compressed stream, or a line longer than max_line_bytes.
class LineReader {
 public:
  LineReader() = default;
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  Status Open(const std::string& path, Compression compression,
              size_t max_line_bytes = size_t{16} << 20);
  // The same on a file already open (BucketFolder::OpenFile), which it then
  // owns; `shown` names it in errors.
  Status Open(UniqueFd fd, const std::string& shown, Compression compression,
              size_t max_line_bytes = size_t{16} << 20);
  // The next line, without its terminator; false at the end or on an error.
  bool Next(std::string* line);
  // Decompressed bytes, for a CSV parser that wants the stream itself;
  // false at the end or on an error.
  bool NextChunk(std::string_view* chunk);
  const Status& status() const { return status_; }
  int64_t line_number() const { return line_number_; }  // of the last line returned
  int64_t compressed_bytes() const { return compressed_bytes_; }
  int64_t uncompressed_bytes() const { return uncompressed_bytes_; }
  // base64 MD5 of every stored byte read; complete once Next returned false
  // without an error.
  std::string md5_base64();

 private:
  Status Start(FILE* file, const std::string& path, Compression compression, size_t max_line_bytes);
  bool Fill();  // decompresses more into buffer_; false at end or error

  FILE* file_ = nullptr;
  std::string path_;
  Compression compression_ = Compression::kNone;
  size_t max_line_ = 0;
  z_stream z_{};
  bool z_open_ = false;
  bool z_member_done_ = false;
  ZSTD_DStream* zstd_ = nullptr;
  EVP_MD_CTX* md5_ = nullptr;
  std::vector<unsigned char> in_;
  size_t in_pos_ = 0, in_len_ = 0;
  bool eof_ = false;
  std::string buffer_;
  size_t buffer_pos_ = 0;
  std::string chunk_;
  Status status_;
  int64_t line_number_ = 0;
  int64_t compressed_bytes_ = 0;
  int64_t uncompressed_bytes_ = 0;
};

// CSV records from a LineReader's decompressed stream (RFC 4180 quoting,
// embedded newlines included), with libcsv.
class CsvReader {
 public:
  explicit CsvReader(char delimiter);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // The next record's fields; false at the end or on an error (status()).
  bool Next(LineReader* in, std::vector<std::string>* fields);
  const Status& status() const { return status_; }
  int64_t record_number() const { return record_number_; }  // 1-based, of the last record

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
  Status status_;
  int64_t record_number_ = 0;
};

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_DATA_FILE_H_
