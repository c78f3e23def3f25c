#include "format/bucket_path.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dynarock::format {
namespace {

Status SystemError(const std::string& path, const char* what) {
  return Status::IOError(path + ": " + what + ": " + std::strerror(errno));
}

// The reason `segment` cannot be a file or folder name; nullptr if it can.
const char* BadSegment(std::string_view segment) {
  if (segment.empty()) return "an empty segment (a leading '/' or \"//\")";
  if (segment == "." || segment == "..") return "a \".\" or \"..\" segment";
  if (segment.find('\0') != std::string_view::npos) return "a NUL byte";
  return nullptr;
}

Status BadKey(std::string_view what, std::string_view key, const char* why) {
  return Status::InvalidArgument("The S3 " + std::string(what) + " \"" + std::string(key) +
                                 "\" cannot be stored in a local bucket folder: it has " + why);
}

// Splits a checked key into its segments.
std::vector<std::string> Segments(std::string_view key) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= key.size()) {
    const size_t slash = std::min(key.find('/', start), key.size());
    out.emplace_back(key.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// Opens (creating if asked) the folder `name` inside `dir`, never through a link.
Result<UniqueFd> OpenChildFolder(int dir, const std::string& name, bool create,
                                 const std::string& shown) {
  int fd = ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    if (::mkdirat(dir, name.c_str(), 0755) != 0 && errno != EEXIST) {
      return SystemError(shown, "cannot create");
    }
    fd = ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) {
    // O_NOFOLLOW on a link gives ELOOP; O_DIRECTORY on a file ENOTDIR.
    return SystemError(
        shown, errno == ELOOP ? "is a symbolic link, not a folder" : "cannot open as a folder");
  }
  return UniqueFd(fd);
}

}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

Status CheckObjectKey(std::string_view key) {
  for (const std::string& s : Segments(key)) {
    if (const char* why = BadSegment(s)) return BadKey("key", key, why);
  }
  return Status::OK();
}

Status CheckKeyPrefix(std::string_view prefix) {
  if (prefix.find('\0') != std::string_view::npos) return BadKey("prefix", prefix, "a NUL byte");
  std::vector<std::string> segments = Segments(prefix);
  segments.pop_back();  // the partial last one: any start of a name
  for (const std::string& s : segments) {
    if (const char* why = BadSegment(s)) return BadKey("prefix", prefix, why);
  }
  return Status::OK();
}

Result<BucketFolder> BucketFolder::Open(const std::string& root, bool create) {
  if (create) {
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    if (ec) return Status::IOError(root + ": cannot create: " + ec.message());
  }
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return SystemError(root, "cannot open as a folder");
  return BucketFolder(root, UniqueFd(fd));
}

std::string BucketFolder::PathOf(std::string_view key) const {
  std::string out = root_;
  if (!out.empty() && out.back() != '/') out += '/';
  out += key;
  return out;
}

Result<UniqueFd> BucketFolder::OpenFolder(std::string_view key, bool create) const {
  DYNAROCK_RETURN_IF_ERROR(CheckObjectKey(key));
  UniqueFd dir;
  std::string shown = root_;
  for (const std::string& segment : Segments(key)) {
    shown += "/" + segment;
    DYNAROCK_ASSIGN_OR_RETURN(dir, OpenChildFolder(Or(dir), segment, create, shown));
  }
  return dir;
}

Result<BucketFolder::Parent> BucketFolder::OpenParent(std::string_view key, bool create) const {
  DYNAROCK_RETURN_IF_ERROR(CheckObjectKey(key));
  const size_t slash = key.rfind('/');
  if (slash == std::string_view::npos) return Parent{UniqueFd(), std::string(key)};
  DYNAROCK_ASSIGN_OR_RETURN(UniqueFd dir, OpenFolder(key.substr(0, slash), create));
  return Parent{std::move(dir), std::string(key.substr(slash + 1))};
}

Result<UniqueFd> BucketFolder::CreateFile(std::string_view key, bool append) const {
  DYNAROCK_ASSIGN_OR_RETURN(Parent parent, OpenParent(key, /*create=*/true));
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (append ? O_APPEND : O_EXCL);
  const int fd = ::openat(Or(parent.dir), parent.name.c_str(), flags, 0644);
  if (fd < 0) return SystemError(PathOf(key), "cannot create");
  return UniqueFd(fd);
}

Result<UniqueFd> BucketFolder::OpenFile(std::string_view key) const {
  DYNAROCK_ASSIGN_OR_RETURN(Parent parent, OpenParent(key, /*create=*/false));
  // O_NONBLOCK: a FIFO planted under the key must not hang the open.
  UniqueFd fd(::openat(Or(parent.dir), parent.name.c_str(),
                       O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return SystemError(PathOf(key), "cannot open");
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return SystemError(PathOf(key), "cannot stat");
  if (!S_ISREG(st.st_mode)) return Status::IOError(PathOf(key) + ": not a regular file");
  const int fl = ::fcntl(fd.get(), F_GETFL);
  if (fl < 0 || ::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK) != 0) {
    return SystemError(PathOf(key), "cannot open");
  }
  return fd;
}

Result<std::vector<std::string>> BucketFolder::List(std::string_view prefix) const {
  DYNAROCK_RETURN_IF_ERROR(CheckKeyPrefix(prefix));
  std::vector<std::string> keys;
  // Folders still to read, each with its key (ending in '/', or empty for
  // the root). A folder whose key cannot lead to the prefix is not entered.
  struct Pending {
    UniqueFd fd;
    std::string key;
  };
  std::vector<Pending> pending;
  {
    // A new open file description (not dup's shared one): reading the
    // folder moves its offset, and the next listing must start over.
    const int fd = ::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return SystemError(root_, "cannot open as a folder");
    pending.push_back({UniqueFd(fd), ""});
  }
  while (!pending.empty()) {
    Pending folder = std::move(pending.back());
    pending.pop_back();
    DIR* d = ::fdopendir(folder.fd.get());
    if (d == nullptr) return SystemError(PathOf(folder.key), "cannot read the folder");
    folder.fd.release();  // closedir closes it
    struct Closer {
      DIR* d;
      ~Closer() { ::closedir(d); }
    } closer{d};
    for (;;) {
      errno = 0;
      const dirent* e = ::readdir(d);
      if (e == nullptr) {
        if (errno != 0) return SystemError(PathOf(folder.key), "cannot read the folder");
        break;
      }
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      const std::string key = folder.key + name;
      struct stat st;
      if (::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return SystemError(PathOf(key), "cannot stat");
      }
      if (S_ISREG(st.st_mode)) {
        if (key.starts_with(prefix)) keys.push_back(key);
      } else if (S_ISDIR(st.st_mode)) {
        const std::string sub = key + "/";
        // Entered only if its keys can start with the prefix.
        if (!sub.starts_with(prefix) && !prefix.starts_with(sub)) continue;
        DYNAROCK_ASSIGN_OR_RETURN(UniqueFd fd,
                                  OpenChildFolder(::dirfd(d), name, false, PathOf(key)));
        pending.push_back({std::move(fd), sub});
      }
      // Links, FIFOs, sockets and devices are not objects.
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

Status WriteFileSyncedAt(int dir, const std::string& name, std::string_view content,
                         const std::string& shown) {
  UniqueFd fd(
      ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.get() < 0) return SystemError(shown, "cannot create");
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return SystemError(shown, "write failed");
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd.get()) != 0 || ::close(fd.release()) != 0) {
    return SystemError(shown, "fsync failed");
  }
  return Status::OK();
}

Status SyncFolder(int dir, const std::string& shown) {
  if (::fsync(dir) != 0) return SystemError(shown, "fsync failed");
  return Status::OK();
}

}  // namespace dynarock::format
