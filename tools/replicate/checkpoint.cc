#include "tools/replicate/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/replicate/json.h"

namespace dynarock::replicate {

std::string Checkpoint::ToJson() const {
  Body b;
  auto& w = b.w();
  w.StartObject();
  b.Key("version");
  w.Int(1);
  b.Key("source").String(source).Key("table").String(table);
  b.Key("target").String(target).Key("to_table").String(to_table);
  b.Key("stream_arn").String(stream_arn).Key("phase").String(phase);
  b.Key("applied_records");
  w.Int64(applied_records);
  b.Key("segments");
  w.StartArray();
  for (const Segment& s : segments) {
    w.StartObject();
    b.Key("done");
    w.Bool(s.done);
    b.Key("items");
    w.Int64(s.items);
    if (!s.next.empty()) b.Key("next").Raw(s.next);
    w.EndObject();
  }
  w.EndArray();
  b.Key("shards");
  w.StartObject();
  for (const auto& [id, s] : shards) {
    b.Key(id);
    w.StartObject();
    b.Key("after").String(s.after);
    b.Key("done");
    w.Bool(s.done);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return b.str();
}

Result<Checkpoint> Checkpoint::FromJson(const std::string& text) {
  simdjson::dom::parser parser;
  element e;
  if (parser.parse(text).get(e) != simdjson::SUCCESS) {
    return Status::Corruption("the replicate checkpoint is not JSON");
  }
  Checkpoint c;
  c.source = StringOr(e, "source");
  c.table = StringOr(e, "table");
  c.target = StringOr(e, "target");
  c.to_table = StringOr(e, "to_table");
  c.stream_arn = StringOr(e, "stream_arn");
  c.phase = StringOr(e, "phase", "copy");
  int64_t n = 0;
  if (e["applied_records"].get_int64().get(n) == simdjson::SUCCESS) c.applied_records = n;
  array segments;
  if (e["segments"].get_array().get(segments) == simdjson::SUCCESS) {
    for (element s : segments) {
      Segment seg;
      bool done = false;
      if (s["done"].get_bool().get(done) == simdjson::SUCCESS) seg.done = done;
      if (s["items"].get_int64().get(n) == simdjson::SUCCESS) seg.items = n;
      element next;
      if (s["next"].get(next) == simdjson::SUCCESS) seg.next = Minify(next);
      c.segments.push_back(std::move(seg));
    }
  }
  object shards;
  if (e["shards"].get_object().get(shards) == simdjson::SUCCESS) {
    for (auto [id, s] : shards) {
      ShardState st;
      st.after = StringOr(s, "after");
      bool done = false;
      if (s["done"].get_bool().get(done) == simdjson::SUCCESS) st.done = done;
      c.shards[std::string(id)] = std::move(st);
    }
  }
  return c;
}

namespace {

class ServiceStore : public CheckpointStore {
 public:
  ServiceStore(Database* db, std::string key) : db_(db), name_("replicate/" + std::move(key)) {}
  Result<std::optional<std::string>> Load() override {
    auto records = db_->ServiceRecords(name_);
    if (!records.ok()) return records.status();
    for (auto& [name, value] : *records) {
      if (name == name_ && !value.empty()) return std::optional<std::string>(std::move(value));
    }
    return std::optional<std::string>();
  }
  Status Save(const std::string& checkpoint) override {
    return db_->PutServiceRecord(name_, checkpoint);
  }
  Status Clear() override { return db_->PutServiceRecord(name_, ""); }

 private:
  Database* db_;
  const std::string name_;
};

class JsonFileStore : public CheckpointStore {
 public:
  explicit JsonFileStore(std::string path) : path_(std::move(path)) {}
  Result<std::optional<std::string>> Load() override {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return std::optional<std::string>();
    std::stringstream text;
    text << in.rdbuf();
    return std::optional<std::string>(text.str());
  }
  Status Save(const std::string& checkpoint) override {
    const std::string tmp = path_ + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IOError("cannot write " + tmp + ": " + std::strerror(errno));
    const bool written = ::write(fd, checkpoint.data(), checkpoint.size()) ==
                         static_cast<ssize_t>(checkpoint.size());
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!written || !synced || std::rename(tmp.c_str(), path_.c_str()) != 0) {
      return Status::IOError("cannot write " + path_ + ": " + std::strerror(errno));
    }
    // The rename itself is durable once the directory is synced.
    const std::string dir = std::filesystem::path(path_).parent_path().string();
    const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
    return Status::OK();
  }
  Status Clear() override {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
    return Status::OK();
  }

 private:
  const std::string path_;
};

}  // namespace

std::unique_ptr<CheckpointStore> ServiceRecordStore(Database* db, std::string key) {
  return std::make_unique<ServiceStore>(db, std::move(key));
}

std::unique_ptr<CheckpointStore> FileStore(std::string path) {
  return std::make_unique<JsonFileStore>(std::move(path));
}

}  // namespace dynarock::replicate
