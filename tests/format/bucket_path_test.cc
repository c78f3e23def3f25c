// format/bucket_path.h: S3 keys become files below a bucket folder, never
// elsewhere, and never through a symbolic link.
#include "format/bucket_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace dynarock::format {
namespace {

namespace fs = std::filesystem;

// Every path below `dir` (links not followed) and its size, for before/after
// comparisons.
std::map<std::string, uintmax_t> Tree(const fs::path& dir) {
  std::map<std::string, uintmax_t> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    out[it->path().string()] = it->is_regular_file() && !it->is_symlink() ? it->file_size() : 0;
  }
  return out;
}

class BucketPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/bucket-path-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    top_ = fs::canonical(templ);
    root_ = top_ / "s3" / "bk";
    fs::create_directories(root_);
    fs::create_directories(top_ / "outside");
    std::ofstream(top_ / "outside" / "secret.json") << "{\"Item\":{}}\n";
  }
  void TearDown() override { fs::remove_all(top_); }

  fs::path top_, root_;
};

TEST_F(BucketPathTest, KeysWithEmptyDotOrDotDotSegmentsAreRefused) {
  for (const char* bad : {"", "/", "//", "/etc/passwd", "a//b", "a/", "..", ".", "../x",
                          "a/../../x", "a/./b", "a/..", "x/../..", "./a"}) {
    Status s = CheckObjectKey(bad);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
  }
  EXPECT_EQ(CheckObjectKey(std::string("a\0b", 3)).code(), Status::Code::kInvalidArgument);
  for (const char* good : {"a", "a/b/c.json", "...", "..a", "a..", ".hidden/x", "a b/c"}) {
    EXPECT_TRUE(CheckObjectKey(good).ok()) << good;
  }
  EXPECT_NE(CheckObjectKey("a/../../x").message().find("\"..\""), std::string::npos);
}

TEST_F(BucketPathTest, APrefixMayEndInAPartialSegment) {
  for (const char* good : {"", "data/", "data/fi", "d", ".", "..", "a/."}) {
    EXPECT_TRUE(CheckKeyPrefix(good).ok()) << good;
  }
  for (const char* bad : {"/", "../x", "a//", "/abs", "a/../b", "../../outside/secret"}) {
    EXPECT_EQ(CheckKeyPrefix(bad).code(), Status::Code::kInvalidArgument) << bad;
  }
}

TEST_F(BucketPathTest, FilesAreCreatedBelowTheRootAndNothingElseChanges) {
  const auto before = Tree(top_ / "outside");
  auto bucket = BucketFolder::Open(root_.string(), false);
  ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
  auto fd = bucket->CreateFile("exports/AWSDynamoDB/1/data/x.json.gz");
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  EXPECT_TRUE(fs::is_regular_file(root_ / "exports/AWSDynamoDB/1/data/x.json.gz"));
  // O_EXCL: an existing file is not overwritten.
  EXPECT_FALSE(bucket->CreateFile("exports/AWSDynamoDB/1/data/x.json.gz").ok());
  for (const char* bad : {"../escaped/x", "/tmp/x", "a/../../../x", "//x"}) {
    EXPECT_EQ(bucket->CreateFile(bad).status().code(), Status::Code::kInvalidArgument) << bad;
  }
  EXPECT_EQ(Tree(top_ / "outside"), before);
  EXPECT_FALSE(fs::exists(top_ / "escaped"));
  EXPECT_FALSE(fs::exists(top_ / "s3" / "escaped"));
}

TEST_F(BucketPathTest, ALinkBelowTheRootIsNeverFollowed) {
  fs::create_directory_symlink(top_ / "outside", root_ / "out");
  fs::create_directories(root_ / "data");
  fs::create_symlink("../../../outside/secret.json", root_ / "data" / "linked.json");
  const auto before = Tree(top_ / "outside");
  auto bucket = BucketFolder::Open(root_.string(), false);
  ASSERT_TRUE(bucket.ok());
  // Through a linked folder: neither written nor read.
  EXPECT_EQ(bucket->CreateFile("out/new.json").status().code(), Status::Code::kIOError);
  EXPECT_EQ(bucket->OpenFile("out/secret.json").status().code(), Status::Code::kIOError);
  EXPECT_EQ(bucket->OpenFolder("out/sub", true).status().code(), Status::Code::kIOError);
  // A linked file: not opened, not appended to.
  EXPECT_EQ(bucket->OpenFile("data/linked.json").status().code(), Status::Code::kIOError);
  EXPECT_EQ(bucket->CreateFile("data/linked.json", true).status().code(), Status::Code::kIOError);
  EXPECT_EQ(Tree(top_ / "outside"), before);
}

TEST_F(BucketPathTest, ListingSkipsLinksAndWhatThePrefixExcludes) {
  fs::create_directories(root_ / "data" / "sub");
  std::ofstream(root_ / "data" / "a.json") << "1\n";
  std::ofstream(root_ / "data" / "sub" / "b.json") << "2\n";
  std::ofstream(root_ / "other.json") << "3\n";
  fs::create_directory_symlink(top_ / "outside", root_ / "data" / "out");
  fs::create_symlink(top_ / "outside" / "secret.json", root_ / "data" / "linked.json");
  ASSERT_EQ(mkfifo((root_ / "data" / "fifo").c_str(), 0644), 0);
  auto bucket = BucketFolder::Open(root_.string(), false);
  ASSERT_TRUE(bucket.ok());
  auto keys = bucket->List("data/");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys, (std::vector<std::string>{"data/a.json", "data/sub/b.json"}));
  auto all = bucket->List("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (std::vector<std::string>{"data/a.json", "data/sub/b.json", "other.json"}));
  auto partial = bucket->List("data/s");
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(*partial, (std::vector<std::string>{"data/sub/b.json"}));
  EXPECT_EQ(bucket->List("../../outside/secret").status().code(), Status::Code::kInvalidArgument);
  // A FIFO under an object's key is not opened (and does not hang).
  EXPECT_EQ(bucket->OpenFile("data/fifo").status().code(), Status::Code::kIOError);
}

TEST_F(BucketPathTest, ARootThatIsMissingIsAnError) {
  EXPECT_EQ(BucketFolder::Open((top_ / "nope").string(), false).status().code(),
            Status::Code::kIOError);
  auto created = BucketFolder::Open((top_ / "new" / "bk").string(), true);
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(fs::is_directory(top_ / "new" / "bk"));
}

}  // namespace
}  // namespace dynarock::format
