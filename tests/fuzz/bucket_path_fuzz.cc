// The S3 key to path mapping (format/bucket_path.h): the input is a key, or
// (first byte odd) a key prefix. Properties:
//   - an accepted key has no empty, "." or ".." segment and, joined to the
//     root, stays below it lexically;
//   - whatever opens (a folder or a file) really is below the root, though
//     the root holds links to a folder and a file outside it;
//   - every key List returns is an accepted key, starts with the prefix and
//     names a regular file below the root.
// Nothing is created: the fixture folder is made once, then only read.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "format/bucket_path.h"

namespace {

namespace fs = std::filesystem;
using dynarock::format::BucketFolder;

struct Fixture {
  fs::path top, root;
  Fixture() {
    char templ[] = "/tmp/fuzz-bucket-XXXXXX";
    if (mkdtemp(templ) == nullptr) std::abort();
    top = fs::canonical(templ);
    root = top / "bk";
    fs::create_directories(root / "data" / "a");
    fs::create_directories(top / "outside");
    std::ofstream(top / "outside" / "secret.json") << "secret\n";
    std::ofstream(root / "data" / "a" / "x.json") << "{}\n";
    std::ofstream(root / "data" / "y.json") << "{}\n";
    fs::create_directory_symlink(top / "outside", root / "out");
    fs::create_directory_symlink("../../outside", root / "data" / "up");
    fs::create_symlink(top / "outside" / "secret.json", root / "data" / "linked.json");
  }
  ~Fixture() {
    std::error_code ec;
    fs::remove_all(top, ec);
  }
};

// The real path of an open descriptor.
std::string RealPath(int fd) {
  std::error_code ec;
  return fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec).string();
}

bool Below(const std::string& path, const fs::path& root) {
  return path.starts_with(root.string() + "/");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  static auto bucket = BucketFolder::Open(fixture.root.string(), false);
  if (!bucket.ok() || size == 0 || size > 512) return 0;
  const bool prefix_mode = data[0] & 1;
  const std::string key(reinterpret_cast<const char*>(data) + 1, size - 1);

  if (prefix_mode) {
    auto keys = bucket->List(key);
    if (!keys.ok()) return 0;
    for (const std::string& k : *keys) {
      if (!k.starts_with(key) || !dynarock::format::CheckObjectKey(k).ok()) std::abort();
      auto fd = bucket->OpenFile(k);
      if (!fd.ok() || !Below(RealPath(fd->get()), fixture.root)) std::abort();
    }
    return 0;
  }
  if (!dynarock::format::CheckObjectKey(key).ok()) return 0;
  const fs::path joined = (fixture.root / key).lexically_normal();
  if (!Below(joined.string(), fixture.root) || key.find("/../") != std::string::npos ||
      key.starts_with("../") || key.starts_with("/")) {
    std::abort();
  }
  if (auto fd = bucket->OpenFolder(key, false); fd.ok()) {
    if (!Below(RealPath(fd->get()), fixture.root)) std::abort();
  }
  if (auto fd = bucket->OpenFile(key); fd.ok()) {
    if (!Below(RealPath(fd->get()), fixture.root)) std::abort();
  }
  return 0;
}
