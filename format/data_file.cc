#include "format/data_file.h"

#include <csv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

#include "format/export_format.h"
#include "format/json.h"

namespace dynarock::format {
namespace {

constexpr size_t kChunk = 256 << 10;

Status IoError(const std::string& path, const char* what) {
  return Status::IOError(path + ": " + what + ": " + std::strerror(errno));
}

std::string DigestBase64(EVP_MD_CTX* ctx, std::string* raw = nullptr) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, digest, &len);
  std::string bytes(reinterpret_cast<const char*>(digest), len);
  if (raw) *raw = bytes;
  return Base64Encode(bytes);
}

}  // namespace

// ---- DataFileWriter ----

DataFileWriter::~DataFileWriter() {
  if (z_open_) deflateEnd(&z_);
  if (file_) std::fclose(file_);
  if (md5_) EVP_MD_CTX_free(md5_);
}

Status DataFileWriter::Open(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "wbx");
  if (file == nullptr) return IoError(path, "cannot create");
  return Start(file, path);
}

Status DataFileWriter::Open(UniqueFd fd, const std::string& shown) {
  FILE* file = ::fdopen(fd.get(), "wb");
  if (file == nullptr) return IoError(shown, "cannot open");
  fd.release();  // the FILE owns it now
  return Start(file, shown);
}

Status DataFileWriter::Start(FILE* file, const std::string& path) {
  path_ = path;
  file_ = file;
  // windowBits 15 + 16: a gzip wrapper, as AWS's .json.gz objects.
  if (deflateInit2(&z_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("zlib: deflateInit2 failed");
  }
  z_open_ = true;
  md5_ = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md5_, EVP_md5(), nullptr);
  out_.resize(kChunk);
  return Status::OK();
}

Status DataFileWriter::WriteOut(const unsigned char* p, size_t n) {
  if (n == 0) return Status::OK();
  if (std::fwrite(p, 1, n, file_) != n) return IoError(path_, "write failed");
  EVP_DigestUpdate(md5_, p, n);
  done_.bytes += static_cast<int64_t>(n);
  return Status::OK();
}

Status DataFileWriter::Deflate(const void* data, size_t n, int flush) {
  z_.next_in = static_cast<Bytef*>(const_cast<void*>(data));
  z_.avail_in = static_cast<uInt>(n);
  do {
    z_.next_out = out_.data();
    z_.avail_out = static_cast<uInt>(out_.size());
    const int rc = deflate(&z_, flush);
    if (rc == Z_STREAM_ERROR) return Status::Internal("zlib: deflate failed");
    DYNAROCK_RETURN_IF_ERROR(WriteOut(out_.data(), out_.size() - z_.avail_out));
  } while (z_.avail_out == 0);
  return Status::OK();
}

Status DataFileWriter::AddLine(std::string_view line) {
  DYNAROCK_RETURN_IF_ERROR(Deflate(line.data(), line.size(), Z_NO_FLUSH));
  DYNAROCK_RETURN_IF_ERROR(Deflate("\n", 1, Z_NO_FLUSH));
  ++done_.lines;
  done_.uncompressed_bytes += static_cast<int64_t>(line.size() + 1);
  return Status::OK();
}

Result<WrittenFile> DataFileWriter::Finish() {
  DYNAROCK_RETURN_IF_ERROR(Deflate(nullptr, 0, Z_FINISH));
  deflateEnd(&z_);
  z_open_ = false;
  if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) {
    return IoError(path_, "flush failed");
  }
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) return IoError(path_, "close failed");
  std::string raw;
  done_.md5_base64 = DigestBase64(md5_, &raw);
  done_.etag = MultipartEtag(raw);
  return done_;
}

// ---- LineReader ----

LineReader::~LineReader() {
  if (z_open_) inflateEnd(&z_);
  if (zstd_) ZSTD_freeDStream(zstd_);
  if (file_) std::fclose(file_);
  if (md5_) EVP_MD_CTX_free(md5_);
}

Status LineReader::Open(const std::string& path, Compression compression, size_t max_line_bytes) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return IoError(path, "cannot open");
  return Start(file, path, compression, max_line_bytes);
}

Status LineReader::Open(UniqueFd fd, const std::string& shown, Compression compression,
                        size_t max_line_bytes) {
  FILE* file = ::fdopen(fd.get(), "rb");
  if (file == nullptr) return IoError(shown, "cannot open");
  fd.release();  // the FILE owns it now
  return Start(file, shown, compression, max_line_bytes);
}

Status LineReader::Start(FILE* file, const std::string& path, Compression compression,
                         size_t max_line_bytes) {
  path_ = path;
  file_ = file;
  compression_ = compression;
  max_line_ = max_line_bytes;
  md5_ = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md5_, EVP_md5(), nullptr);
  // A small file gets a small read buffer (one byte more than the file, so
  // the first read also sees its end); manifests and CSV headers are tiny.
  struct stat st {};
  size_t buffer = kChunk;
  if (fstat(fileno(file_), &st) == 0 && S_ISREG(st.st_mode)) {
    buffer = std::clamp<size_t>(static_cast<size_t>(st.st_size) + 1, 4096, kChunk);
  }
  in_.resize(buffer);
  if (compression == Compression::kGzip) {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) return Status::Internal("zlib: inflateInit2 failed");
    z_open_ = true;
  } else if (compression == Compression::kZstd) {
    zstd_ = ZSTD_createDStream();
    if (zstd_ == nullptr) return Status::Internal("zstd: cannot create a stream");
    ZSTD_initDStream(zstd_);
  }
  return Status::OK();
}

std::string LineReader::md5_base64() {
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  EVP_MD_CTX_copy_ex(copy, md5_);
  std::string out = DigestBase64(copy);
  EVP_MD_CTX_free(copy);
  return out;
}

bool LineReader::Fill() {
  if (!status_.ok()) return false;
  // Compact what is left of the buffer.
  if (buffer_pos_ > 0) {
    buffer_.erase(0, buffer_pos_);
    buffer_pos_ = 0;
  }
  while (true) {
    if (in_pos_ == in_len_ && !eof_) {
      in_len_ = std::fread(in_.data(), 1, in_.size(), file_);
      in_pos_ = 0;
      if (in_len_ < in_.size()) {
        if (std::ferror(file_)) {
          status_ = IoError(path_, "read failed");
          return false;
        }
        eof_ = true;
      }
      EVP_DigestUpdate(md5_, in_.data(), in_len_);
      compressed_bytes_ += static_cast<int64_t>(in_len_);
    }
    const size_t before = buffer_.size();
    if (compression_ == Compression::kNone) {
      buffer_.append(reinterpret_cast<const char*>(in_.data() + in_pos_), in_len_ - in_pos_);
      in_pos_ = in_len_;
    } else if (compression_ == Compression::kGzip) {
      if (in_pos_ == in_len_) {
        if (eof_) {
          // A file that ends inside a gzip member is truncated; one that
          // held nothing at all is an empty data file.
          if (z_member_done_ || compressed_bytes_ == 0) return false;
          status_ =
              Status::InvalidArgument(path_ + ": truncated gzip stream (unexpected end of file)");
          return false;
        }
        continue;
      }
      if (z_member_done_) {
        // Another gzip member follows the one that ended.
        inflateReset(&z_);
        z_member_done_ = false;
      }
      unsigned char out[64 << 10];
      z_.next_in = in_.data() + in_pos_;
      z_.avail_in = static_cast<uInt>(in_len_ - in_pos_);
      z_.next_out = out;
      z_.avail_out = sizeof out;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        status_ = Status::InvalidArgument(path_ + ": corrupt gzip data (" +
                                          (z_.msg ? z_.msg : "inflate failed") + ")");
        return false;
      }
      in_pos_ = in_len_ - z_.avail_in;
      buffer_.append(reinterpret_cast<const char*>(out), sizeof out - z_.avail_out);
      if (rc == Z_STREAM_END) z_member_done_ = true;
    } else {
      if (in_pos_ == in_len_ && eof_) {
        if (!z_member_done_ && compressed_bytes_ > 0) {
          status_ =
              Status::InvalidArgument(path_ + ": truncated zstd stream (unexpected end of file)");
        }
        return false;
      }
      unsigned char out[64 << 10];
      ZSTD_inBuffer zin{in_.data() + in_pos_, in_len_ - in_pos_, 0};
      ZSTD_outBuffer zout{out, sizeof out, 0};
      const size_t rc = ZSTD_decompressStream(zstd_, &zout, &zin);
      if (ZSTD_isError(rc)) {
        status_ =
            Status::InvalidArgument(path_ + ": corrupt zstd data (" + ZSTD_getErrorName(rc) + ")");
        return false;
      }
      in_pos_ += zin.pos;
      z_member_done_ = rc == 0;  // a frame ended
      buffer_.append(reinterpret_cast<const char*>(out), zout.pos);
    }
    uncompressed_bytes_ += static_cast<int64_t>(buffer_.size() - before);
    if (buffer_.size() > before) return true;
    if (in_pos_ == in_len_ && eof_ && compression_ == Compression::kNone) return false;
  }
}

bool LineReader::Next(std::string* line) {
  while (true) {
    const size_t nl = buffer_.find('\n', buffer_pos_);
    if (nl != std::string::npos) {
      line->assign(buffer_, buffer_pos_, nl - buffer_pos_);
      buffer_pos_ = nl + 1;
      if (!line->empty() && line->back() == '\r') line->pop_back();
      ++line_number_;
      return true;
    }
    if (buffer_.size() - buffer_pos_ > max_line_) {
      status_ = Status::InvalidArgument(path_ + ": line " + std::to_string(line_number_ + 1) +
                                        " is longer than " + std::to_string(max_line_) + " bytes");
      return false;
    }
    if (!Fill()) {
      if (!status_.ok()) return false;
      if (buffer_pos_ < buffer_.size()) {  // a last line without a newline
        line->assign(buffer_, buffer_pos_, std::string::npos);
        buffer_pos_ = buffer_.size();
        if (!line->empty() && line->back() == '\r') line->pop_back();
        ++line_number_;
        return true;
      }
      return false;
    }
  }
}

bool LineReader::NextChunk(std::string_view* chunk) {
  if (buffer_pos_ < buffer_.size()) {
    chunk_.assign(buffer_, buffer_pos_, std::string::npos);
    buffer_pos_ = buffer_.size();
    *chunk = chunk_;
    return true;
  }
  if (!Fill()) return false;
  chunk_.assign(buffer_, buffer_pos_, std::string::npos);
  buffer_pos_ = buffer_.size();
  *chunk = chunk_;
  return true;
}

// ---- CsvReader ----

struct CsvReader::Parser {
  csv_parser p{};
  std::vector<std::string> current;
  std::deque<std::vector<std::string>> records;
  bool done = false;

  static void OnField(void* s, size_t len, void* data) {
    auto* self = static_cast<Parser*>(data);
    self->current.emplace_back(static_cast<const char*>(s), len);
  }
  static void OnRecord(int, void* data) {
    auto* self = static_cast<Parser*>(data);
    self->records.push_back(std::move(self->current));
    self->current.clear();
  }
};

CsvReader::CsvReader(char delimiter) : parser_(std::make_unique<Parser>()) {
  // CSV_APPEND_NULL off, CSV_EMPTY_IS_NULL off: fields are raw bytes; lax
  // about stray quotes inside unquoted fields, as spreadsheets write them.
  csv_init(&parser_->p, 0);
  csv_set_delim(&parser_->p, static_cast<unsigned char>(delimiter));
}

CsvReader::~CsvReader() { csv_free(&parser_->p); }

bool CsvReader::Next(LineReader* in, std::vector<std::string>* fields) {
  while (parser_->records.empty()) {
    if (parser_->done) return false;
    std::string_view chunk;
    if (!in->NextChunk(&chunk)) {
      if (!in->status().ok()) {
        status_ = in->status();
        return false;
      }
      csv_fini(&parser_->p, Parser::OnField, Parser::OnRecord, parser_.get());
      parser_->done = true;
      continue;
    }
    if (csv_parse(&parser_->p, chunk.data(), chunk.size(), Parser::OnField, Parser::OnRecord,
                  parser_.get()) != chunk.size()) {
      status_ =
          Status::InvalidArgument(std::string("CSV record ") + std::to_string(record_number_ + 1) +
                                  ": " + csv_strerror(csv_error(&parser_->p)));
      return false;
    }
  }
  *fields = std::move(parser_->records.front());
  parser_->records.pop_front();
  ++record_number_;
  return true;
}

}  // namespace dynarock::format
