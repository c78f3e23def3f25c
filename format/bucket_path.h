// A local folder standing for an S3 bucket: the one place where an S3 object
// key (or key prefix) becomes a file, for exports (ExportTableToPointInTime,
// `dynarock dump`), imports (ImportTable) and their logs.
//
// S3 accepts any key; a folder cannot hold them all. A key is stored only if
// every '/'-separated segment is a plain name: not empty (no leading '/', no
// "//"), not "." or "..", no NUL. Anything else is refused (InvalidArgument,
// naming the key), never mapped to a path somewhere else.
//
// Paths are resolved one segment at a time with openat(2) from a descriptor
// of the root, each step with O_NOFOLLOW: a symbolic link anywhere below the
// root is refused (ELOOP/ENOTDIR, an IOError), so neither a planted link nor
// one swapped in during the walk leads outside. The root itself is named by
// the operator (`--s3-dir`, a CLI argument) and may be a link.
//
//   DYNAROCK_ASSIGN_OR_RETURN(auto bucket, BucketFolder::Open("/srv/s3/bk", false));
//   DYNAROCK_ASSIGN_OR_RETURN(UniqueFd fd, bucket.CreateFile("exports/manifest.json"));
#ifndef DYNAROCK_FORMAT_BUCKET_PATH_H_
#define DYNAROCK_FORMAT_BUCKET_PATH_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/status.h"

namespace dynarock::format {

// An owned file descriptor; -1 when empty.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  // Gives up ownership.
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

// OK if `key` can name an object below a bucket folder (rules above).
// InvalidArgument otherwise, with the reason.
Status CheckObjectKey(std::string_view key);
// The same for a key prefix: every complete segment (one followed by '/')
// follows the object rules; the last, partial one may be empty (a prefix
// ending in '/') or the start of any name, but holds no NUL.
Status CheckKeyPrefix(std::string_view prefix);

class BucketFolder {
 public:
  // Opens the folder `root`, creating it (and its parents) first if `create`.
  // IOError if it is missing or not a folder.
  static Result<BucketFolder> Open(const std::string& root, bool create);

  BucketFolder(BucketFolder&&) = default;
  BucketFolder& operator=(BucketFolder&&) = default;

  const std::string& root() const { return root_; }
  // root/key, for messages and for callers that want a path. Only for keys
  // that CheckObjectKey or CheckKeyPrefix accepted.
  std::string PathOf(std::string_view key) const;

  // The folder `key` below the root, its missing folders created (0755) if
  // `create`. Errors: InvalidArgument for a bad key; IOError if a segment is
  // missing (without `create`), a link, or not a folder.
  Result<UniqueFd> OpenFolder(std::string_view key, bool create) const;
  // Creates (O_EXCL, 0644, write-only) the file `key`, its folders too; or
  // opens it for appending (O_APPEND, created if missing) if `append`.
  Result<UniqueFd> CreateFile(std::string_view key, bool append = false) const;
  // Opens the regular file `key` for reading.
  Result<UniqueFd> OpenFile(std::string_view key) const;

  // The keys of the regular files below the root that start with `prefix`,
  // in byte order, as S3's ListObjectsV2. Links (to files or folders) are
  // not objects and are skipped, never followed; so is whatever a key could
  // not name. InvalidArgument for a bad prefix, IOError for a walk error.
  Result<std::vector<std::string>> List(std::string_view prefix) const;

 private:
  BucketFolder(std::string root, UniqueFd fd) : root_(std::move(root)), fd_(std::move(fd)) {}

  // The folder holding `key` (empty: the root itself) and the key's last
  // segment. Checks the key first.
  struct Parent {
    UniqueFd dir;
    std::string name;
  };
  Result<Parent> OpenParent(std::string_view key, bool create) const;
  // `dir`'s descriptor, or the root's if `dir` is empty.
  int Or(const UniqueFd& dir) const { return dir.get() >= 0 ? dir.get() : fd_.get(); }

  std::string root_;
  UniqueFd fd_;
};

// Creates `name` in the folder `dir` (O_EXCL, O_NOFOLLOW), writes `content`
// and fsyncs it. IOError naming `shown` on failure.
Status WriteFileSyncedAt(int dir, const std::string& name, std::string_view content,
                         const std::string& shown);
// fsyncs the folder `dir`.
Status SyncFolder(int dir, const std::string& shown);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_BUCKET_PATH_H_
