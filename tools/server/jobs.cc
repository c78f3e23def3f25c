#include "tools/server/jobs.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid_io.hpp>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "format/bucket_path.h"
#include "format/export_format.h"
#include "tools/server/json_writers.h"
#include "tools/server/protocol/writers_gen.h"
#include "tools/server/wire_requests.h"

namespace dynarock::jobs {
namespace fs = std::filesystem;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using rapidjson::Value;

namespace {

// A version 4 UUID, as DynamoDB's client tokens and table ids.
std::string RandomUuid() {
  thread_local boost::uuids::random_generator generate;
  return boost::uuids::to_string(generate());
}

constexpr int64_t kClientTokenLifetimeMs = 8LL * 3600 * 1000;  // 8 h
constexpr size_t kMaxRunningImports = 50;
constexpr size_t kMaxRunningExports = 300;
constexpr int kDefaultPageSize = 10;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint32_t RandomU32() {
  thread_local std::mt19937 rng(std::random_device{}());
  return static_cast<uint32_t>(rng());
}

// ExportId and ImportId: %014d of the start (epoch ms), "-", 8 hex digits.
std::string JobId(int64_t start_ms) {
  char id[32];
  std::snprintf(id, sizeof id, "%014lld-%08x", static_cast<long long>(start_ms), RandomU32());
  return id;
}

// A page token: the last id of a page, as 128 lower-case hex digits (the id
// padded with zero bytes to 64), which is ListImports' NextToken form.
std::string EncodeToken(const std::string& id) {
  std::string padded = id;
  padded.resize(64, '\0');
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : padded) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}
std::optional<std::string> DecodeToken(std::string_view token) {
  if (token.size() != 128) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < token.size(); i += 2) {
    auto nibble = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    int hi = nibble(token[i]), lo = nibble(token[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi << 4 | lo);
  }
  while (!out.empty() && out.back() == '\0') out.pop_back();
  if (out.size() != 23 || out[14] != '-') return std::nullopt;
  return out;
}

std::string Serialize(const Value& v) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// The member `key` of object `v` as a string, or "" (records are ours, but
// are read without trusting them: RapidJSON's accessors assert).
std::string GetString(const Value& v, const char* key) {
  if (!v.IsObject()) return "";
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsString()
             ? std::string(it->value.GetString(), it->value.GetStringLength())
             : "";
}

// arn:aws:dynamodb:<region>:<account>:table/<name> -> <name>, with
// ExportTableToPointInTime's errors. The region is not checked (the name is
// looked up here, as DynamoDB looks it up in the endpoint's region).
Result<std::string> TableNameFromArn(std::string_view arn, std::string_view account) {
  std::vector<std::string_view> parts;
  size_t from = 0;
  while (parts.size() < 5) {
    size_t colon = arn.find(':', from);
    if (colon == std::string_view::npos) break;
    parts.push_back(arn.substr(from, colon - from));
    from = colon + 1;
  }
  if (parts.size() < 5 || parts[0] != "arn") {
    return Status::Validation(
        "One or more parameter values were invalid: tableArn is not a valid ARN");
  }
  std::string_view resource = arn.substr(from);
  constexpr std::string_view kTable = "table/";
  if (parts[2] != "dynamodb" || !resource.starts_with(kTable) || resource.size() == kTable.size() ||
      resource.find('/', kTable.size()) != std::string_view::npos) {
    return Status::Validation("Invalid Request: Table ARN is invalid.");
  }
  if (parts[4] != account) return Status::AccessDenied("Access is denied");
  return std::string(resource.substr(kTable.size()));
}

std::string S3RequestId() {
  char id[24];
  std::snprintf(id, sizeof id, "%08X%08X", RandomU32(), RandomU32());
  return id;
}

using wire::Str;

// ---- TableCreationParameters, echoed in the import's description ----------------------------

// The parameters as they came (the model's members only: unknown ones were
// dropped when the request was read, as DynamoDB drops them).
std::string TableCreationParametersJson(const protocol::TableCreationParameters& p) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  protocol::WriteTableCreationParameters(w, p);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

// ---- Jobs -----------------------------------------------------------------------------------

// One export or import. `description` is its ExportDescription or
// ImportTableDescription, exactly as Describe* returns it; the record adds
// what the manager needs beside it.
struct Job {
  std::string kind;  // "export" or "import"
  std::string id;
  std::string fingerprint;  // the parameters a ClientToken replay must repeat
  std::string table_name;
  int64_t start_ms = 0;
  rapidjson::Document description;

  std::string record_name() const { return kind + "/" + id; }
  std::string status() const {
    return GetString(description, kind == "export" ? "ExportStatus" : "ImportStatus");
  }
  void Set(const char* key, Value v) {
    if (description.HasMember(key)) {
      description[key] = std::move(v);
    } else {
      description.AddMember(rapidjson::StringRef(key), std::move(v), description.GetAllocator());
    }
  }
  void SetString(const char* key, const std::string& s) {
    Set(key,
        Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), description.GetAllocator()));
  }
  void SetJson(const char* key, const std::string& json) {
    rapidjson::Document d;
    d.Parse(json.data(), json.size());
    if (!d.HasParseError()) Set(key, Value(d, description.GetAllocator()));
  }
  void SetTime(const char* key, int64_t ms) { Set(key, Value(static_cast<double>(ms) / 1000.0)); }
  void SetCount(const char* key, int64_t n) { Set(key, Value(static_cast<int64_t>(n))); }
};

struct JobManager::Impl {
  Database* db = nullptr;
  JobOptions options;

  std::mutex mu;
  std::condition_variable idle;
  std::map<std::string, std::unique_ptr<Job>> jobs;  // by record name: in start order per kind
  size_t running_exports = 0, running_imports = 0;
  std::vector<std::thread> threads;
  std::vector<std::thread::id> finished;  // threads past their last use of the manager

  ~Impl() {
    for (auto& t : threads) t.join();
  }

  // Joins the threads of finished jobs. REQUIRES: mu held.
  void Reap() {
    for (auto it = threads.begin(); it != threads.end();) {
      if (std::find(finished.begin(), finished.end(), it->get_id()) != finished.end()) {
        it->join();
        it = threads.erase(it);
      } else {
        ++it;
      }
    }
    finished.clear();
  }

  std::string DescribeJson(const Job& job) const { return Serialize(job.description); }

  // REQUIRES: mu held.
  Status Persist(const Job& job) {
    rapidjson::Document record;
    record.SetObject();
    auto& a = record.GetAllocator();
    auto str = [&a](const std::string& s) {
      return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
    };
    record.AddMember("Kind", str(job.kind), a);
    record.AddMember("Fingerprint", str(job.fingerprint), a);
    record.AddMember("TableName", str(job.table_name), a);
    record.AddMember("Description", Value(job.description, a), a);
    return db->PutServiceRecord(job.record_name(), Serialize(record));
  }

  // Ends a job (REQUIRES: mu held), and persists it.
  void Finish(Job* job, const std::string& status, const char* failure_code = nullptr,
              const std::string& failure_message = "") {
    job->SetString(job->kind == "export" ? "ExportStatus" : "ImportStatus", status);
    job->SetTime("EndTime", std::max(NowMs(), job->start_ms + 1));
    if (failure_code) {
      job->SetString("FailureCode", failure_code);
      job->SetString("FailureMessage", failure_message);
    }
    Status s = Persist(*job);
    if (!s.ok())
      std::fprintf(stderr, "dynarock: cannot record job %s: %s\n", job->id.c_str(),
                   s.ToString().c_str());
  }

  void Done(bool is_export) {
    std::lock_guard lock(mu);
    (is_export ? running_exports : running_imports)--;
    finished.push_back(std::this_thread::get_id());
    idle.notify_all();
  }

  // The job started under `token` by the same kind within 8 hours. REQUIRES: mu held.
  Job* FindByToken(const std::string& kind, const std::string& token, int64_t now) {
    for (auto& [name, job] : jobs) {
      if (job->kind == kind && now - job->start_ms < kClientTokenLifetimeMs &&
          GetString(job->description, "ClientToken") == token) {
        return job.get();
      }
    }
    return nullptr;
  }

  const char* ResponseKey(const std::string& kind) const {
    return kind == "export" ? "ExportDescription" : "ImportTableDescription";
  }
  std::string Response(const Job& job) const {
    return std::string("{\"") + ResponseKey(job.kind) + "\":" + DescribeJson(job) + "}";
  }

  // Before a new job of `kind`: a ClientToken replay answers the earlier
  // job (the same parameters) or a conflict; then the limit on running
  // jobs. Returns nullopt when a new job may start. REQUIRES: mu held.
  std::optional<Result<std::string>> Admit(const std::string& kind,
                                           const std::optional<std::string>& token,
                                           const std::string& fingerprint, int64_t now) {
    const bool is_export = kind == "export";
    if (token) {
      if (Job* old = FindByToken(kind, *token, now)) {
        if (old->fingerprint == fingerprint) return Result<std::string>(Response(*old));
        const char* text = is_export
                               ? "Export conflict: Duplicate request detected with conflicting "
                                 "parameters"
                               : "Import conflict: Duplicate request detected with conflicting "
                                 "parameters";
        return Result<std::string>(is_export ? Status::ExportConflict(text)
                                             : Status::ImportConflict(text));
      }
    }
    const size_t running = is_export ? running_exports : running_imports;
    const size_t limit = is_export ? kMaxRunningExports : kMaxRunningImports;
    if (running >= limit) {
      return Result<std::string>(Status::LimitExceeded("There are " + std::to_string(running) +
                                                       " " + kind + "s in progress; the limit is " +
                                                       std::to_string(limit)));
    }
    return std::nullopt;
  }

  // The job of `kind` whose ARN is `arn`, or null. REQUIRES: mu held.
  const Job* FindByArn(const std::string& kind, const std::string& arn) const {
    const std::string marker = "/" + kind + "/";
    const size_t at = arn.find(marker);
    if (at == std::string::npos) return nullptr;
    auto it = jobs.find(kind + "/" + arn.substr(at + marker.size()));
    const char* member = kind == "export" ? "ExportArn" : "ImportArn";
    return it != jobs.end() && GetString(it->second->description, member) == arn ? it->second.get()
                                                                                 : nullptr;
  }

  static std::unique_ptr<Job> NewJob(const std::string& kind, int64_t now,
                                     const std::string& fingerprint,
                                     const std::string& table_name) {
    auto job = std::make_unique<Job>();
    job->kind = kind;
    job->start_ms = now;
    job->id = JobId(now);
    job->fingerprint = fingerprint;
    job->table_name = table_name;
    job->description.SetObject();
    return job;
  }

  // Records the job and runs `run` on a thread of its own; the answer is
  // its first description. REQUIRES: mu held.
  Result<std::string> Start(std::unique_ptr<Job> job, std::function<void(Job*)> run) {
    DYNAROCK_RETURN_IF_ERROR(Persist(*job));
    Job* j = job.get();
    std::string response = Response(*j);
    jobs[j->record_name()] = std::move(job);
    const bool is_export = j->kind == "export";
    ++(is_export ? running_exports : running_imports);
    Reap();
    threads.emplace_back([this, j, is_export, run = std::move(run)] {
      run(j);
      Done(is_export);
    });
    return response;
  }

  // Ends `job` FAILED as S3 reports a request it refuses (403 AccessDenied),
  // with why: a key the bucket's folder cannot hold, or a link.
  void AccessDenied(Job* job, const std::string& why) {
    std::lock_guard lock(mu);
    Finish(job, "FAILED", "S3AccessDenied",
           "Access Denied (Service: Amazon S3; Status Code: 403; Error Code: AccessDenied; "
           "Request ID: " +
               S3RequestId() + "): " + why);
  }

  // The folder of S3 bucket `bucket`: the folder of that name in --s3-dir,
  // itself, not a link. If there is none, the job fails as AWS's does
  // (S3NoSuchBucket); a name no folder can have, or a link, is
  // S3AccessDenied. Either way nullopt is returned.
  std::optional<std::string> Bucket(Job* job, const std::string& bucket) {
    Status refused = bucket.find('/') == std::string::npos
                         ? format::CheckObjectKey(bucket)
                         : Status::InvalidArgument("a bucket name holds no '/'");
    if (!refused.ok()) {
      AccessDenied(job, refused.message());
      return std::nullopt;
    }
    struct stat st;
    const std::string dir = (fs::path(options.s3_dir) / bucket).string();
    if (!options.s3_dir.empty() && ::lstat(dir.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return dir;
      if (S_ISLNK(st.st_mode)) {
        AccessDenied(job, dir + " is a symbolic link, not a bucket folder");
        return std::nullopt;
      }
    }
    std::lock_guard lock(mu);
    Finish(job, "FAILED", "S3NoSuchBucket",
           "The specified bucket does not exist (Service: Amazon S3; Status Code: 404; Error "
           "Code: NoSuchBucket; Request ID: " +
               S3RequestId() + ")");
    return std::nullopt;
  }

  Status Load();
  void RunExport(Job* job, std::string table, std::string bucket, std::optional<std::string> prefix,
                 ExportFormat format);
  void RunImport(Job* job, CreateTableRequest table, std::string bucket, std::string prefix,
                 ImportFormat format, ImportCompression compression, char delimiter,
                 std::optional<std::vector<std::string>> header);
  Result<std::string> List(const std::string& kind, const std::optional<std::string>& table_arn,
                           int page, const std::optional<std::string>& next_token);
};

Status JobManager::Impl::Load() {
  DYNAROCK_ASSIGN_OR_RETURN(auto records, db->ServiceRecords(""));
  for (auto& [name, bytes] : records) {
    rapidjson::Document record;
    record.Parse(bytes.data(), bytes.size());
    const rapidjson::Value& r = record;
    const bool valid = !record.HasParseError() && r.IsObject() && r.HasMember("Description") &&
                       r["Description"].IsObject();
    if (!valid) {
      std::fprintf(stderr, "dynarock: ignoring the damaged job record %s\n", name.c_str());
      continue;
    }
    auto job = std::make_unique<Job>();
    job->kind = GetString(record, "Kind");
    if (job->kind != "export" && job->kind != "import") continue;
    job->id = name.substr(job->kind.size() + 1);
    job->fingerprint = GetString(record, "Fingerprint");
    job->table_name = GetString(record, "TableName");
    job->start_ms = job->id.size() > 14 ? std::atoll(job->id.substr(0, 14).c_str()) : 0;
    job->description.CopyFrom(r["Description"], job->description.GetAllocator());
    if (job->status() == "IN_PROGRESS") {
      // The server stopped while it ran. An import lands atomically: if its
      // table is there, it landed before the record could say so.
      auto table = db->DescribeTable({job->table_name});
      if (job->kind == "import" && table.ok() &&
          table->table.table_id == GetString(job->description, "TableId")) {
        job->SetCount("ProcessedItemCount", table->table.item_count);
        job->SetCount("ImportedItemCount", table->table.item_count);
        Finish(job.get(), "COMPLETED");
      } else {
        Finish(job.get(), "FAILED", "InternalServerError",
               "The " + job->kind + " was interrupted: the server stopped before it finished.");
      }
    }
    jobs[name] = std::move(job);
  }
  return Status::OK();
}

void JobManager::Impl::RunExport(Job* job, std::string table, std::string bucket,
                                 std::optional<std::string> prefix, ExportFormat format) {
  const std::optional<std::string> bucket_dir = Bucket(job, bucket);
  if (!bucket_dir) return;
  ExportTableOptions o;
  o.table_name = table;
  o.bucket_dir = *bucket_dir;
  o.s3_bucket = bucket;
  o.s3_prefix = prefix;
  o.format = format;
  o.export_id = job->id;
  o.start_time_ms = job->start_ms;
  auto result = db->ExportTable(o);
  if (!result.ok()) {
    // A key the bucket's folder cannot hold (InvalidArgument, checked before
    // anything is written) or a write it refuses (IOError: a link, the
    // disk) is what S3 would deny.
    const Status& s = result.status();
    if (s.code() == Status::Code::kInvalidArgument || s.code() == Status::Code::kIOError) {
      AccessDenied(job, s.message());
    } else {
      std::lock_guard lock(mu);
      Finish(job, "FAILED", "InternalServerError", s.message());
    }
    return;
  }
  std::lock_guard lock(mu);
  job->SetString("ExportManifest", result->manifest_summary_key);
  job->SetCount("ItemCount", result->item_count);
  job->SetCount("BilledSizeBytes", result->billed_size_bytes);
  Finish(job, "COMPLETED");
}

void JobManager::Impl::RunImport(Job* job, CreateTableRequest table, std::string bucket,
                                 std::string prefix, ImportFormat format,
                                 ImportCompression compression, char delimiter,
                                 std::optional<std::vector<std::string>> header) {
  const std::optional<std::string> bucket_dir = Bucket(job, bucket);
  if (!bucket_dir) return;
  ImportTableOptions o;
  o.table = std::move(table);
  {
    std::lock_guard lock(mu);
    o.table_id = GetString(job->description, "TableId");
  }
  // The objects whose keys start with the prefix, as S3 lists them; links
  // are not objects, and a prefix no stored key can start with is refused.
  Result<std::vector<std::string>> keys = [&]() -> Result<std::vector<std::string>> {
    DYNAROCK_ASSIGN_OR_RETURN(auto folder, format::BucketFolder::Open(*bucket_dir, false));
    return folder.List(prefix);
  }();
  if (!keys.ok()) {
    AccessDenied(job, keys.status().message());
    return;
  }
  for (std::string& key : *keys) o.files.push_back({.path = key, .name = key});
  o.bucket_dir = *bucket_dir;

  o.format = format;
  o.compression = compression;
  o.csv_delimiter = delimiter;
  o.csv_header = std::move(header);
  o.strict = false;  // ImportTable: bad items are counted and skipped
  o.max_reported_errors = 10'000;
  auto result = db->ImportTable(o);
  std::lock_guard lock(mu);
  if (!result.ok()) {
    const Status& s = result.status();
    const char* code = s.code() == Status::Code::kResourceInUse     ? "TableAlreadyExists"
                       : s.code() == Status::Code::kInvalidArgument ? "ItemValidationError"
                                                                    : "InternalServerError";
    Finish(job, "FAILED", code, s.message());
    return;
  }
  job->SetCount("ProcessedItemCount", result->processed_items);
  job->SetCount("ImportedItemCount", result->imported_items);
  job->SetCount("ErrorCount", result->error_count);
  job->SetCount("ProcessedSizeBytes", result->processed_bytes);
  if (!result->errors.empty()) {
    // DynamoDB's CloudWatch events, one JSON line per error.
    // Below --s3-dir like an object, never through a link; a log that
    // cannot be written leaves the events unwritten, not the job failed.
    std::string log;
    const std::string arn = GetString(job->description, "ImportArn");
    for (const auto& e : result->errors) {
      rapidjson::StringBuffer buf;
      Writer w(buf);
      w.StartObject();
      w.Key("itemS3Pointer");
      w.StartObject();
      w.Key("bucket");
      Str(w, bucket);
      w.Key("key");
      Str(w, e.file);
      w.Key("itemIndex");
      w.Int64(std::max<int64_t>(0, e.line - 1));
      w.EndObject();
      w.Key("importArn");
      Str(w, arn);
      w.Key("errorMessages");
      w.StartArray();
      Str(w, e.message);
      w.EndArray();
      w.EndObject();
      log.append(buf.GetString(), buf.GetSize());
      log += '\n';
    }
    auto folder = format::BucketFolder::Open(options.s3_dir, false);
    auto file = folder.ok() ? folder->CreateFile(
                                  ".cloudwatch/aws-dynamodb/imports/" + job->id + "/error", true)
                            : Result<format::UniqueFd>(folder.status());
    if (file.ok() && ::write(file->get(), log.data(), log.size()) < 0) {
      std::fprintf(stderr, "dynarock: the import's error log: %s\n", std::strerror(errno));
    }
  }
  if (result->error_count > 0) {
    Finish(job, "FAILED", "ItemValidationError",
           "Some of the items failed validation checks and were not imported. Please check "
           "CloudWatch error logs for more details.");
  } else {
    Finish(job, "COMPLETED");
  }
}

Result<std::string> JobManager::Impl::List(const std::string& kind,
                                           const std::optional<std::string>& table_arn, int page,
                                           const std::optional<std::string>& next_token) {
  std::optional<std::string> after;  // ids below this one (newest first)
  if (next_token) {
    after = DecodeToken(*next_token);
    if (!after) {
      return Status::Validation("Invalid Request: Provided nextToken is invalid: " + *next_token);
    }
  }
  // With a TableArn: the jobs of the table of that name as it is now.
  std::optional<std::string> table_id;
  if (table_arn) {
    const size_t slash = table_arn->find(":table/");
    std::string name = slash == std::string::npos ? "" : table_arn->substr(slash + 7);
    auto table = db->DescribeTable({name});
    table_id = table.ok() ? table->table.table_id : std::string("-");
  }
  std::lock_guard lock(mu);
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key(kind == "export" ? "ExportSummaries" : "ImportSummaryList");
  w.StartArray();
  int n = 0;
  std::optional<std::string> last;
  bool more = false;
  for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) {
    const Job& job = *it->second;
    if (job.kind != kind || (after && job.id >= *after)) continue;
    if (table_id && GetString(job.description, "TableId") != *table_id) continue;
    if (n == page) {
      more = true;
      break;
    }
    const Value& d = job.description;
    w.StartObject();
    for (const char* key : kind == "export"
                               ? std::vector<const char*>{"ExportArn", "ExportStatus"}
                               : std::vector<const char*>{"ImportArn", "ImportStatus", "TableArn",
                                                          "S3BucketSource", "CloudWatchLogGroupArn",
                                                          "InputFormat", "StartTime", "EndTime"}) {
      auto m = d.FindMember(key);
      if (m == d.MemberEnd()) continue;
      w.Key(key);
      m->value.Accept(w);
    }
    if (kind == "export") {
      w.Key("ExportType");
      w.String("FULL_EXPORT");
    }
    w.EndObject();
    last = job.id;
    ++n;
  }
  w.EndArray();
  if (more && last) {
    w.Key("NextToken");
    Str(w, EncodeToken(*last));
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// ---- The API --------------------------------------------------------------------------------

Result<std::unique_ptr<JobManager>> JobManager::Open(Database* db, JobOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->db = db;
  impl->options = std::move(options);
  DYNAROCK_RETURN_IF_ERROR(impl->Load());
  return std::unique_ptr<JobManager>(new JobManager(std::move(impl)));
}

JobManager::JobManager(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JobManager::~JobManager() = default;

void JobManager::WaitForJobs() {
  std::unique_lock lock(impl_->mu);
  impl_->idle.wait(lock, [this] { return impl_->running_exports + impl_->running_imports == 0; });
}

Result<std::string> JobManager::ExportTableToPointInTime(
    const protocol::ExportTableToPointInTimeInput& in) {
  Impl& m = *impl_;
  // IMPORT-EXPORT-API.md 2: how ExportType and its specification go together.
  const auto& spec = in.incremental_export_specification;
  const bool incremental = in.export_type == "INCREMENTAL_EXPORT";
  if (spec && !in.export_type) {
    return Status::Validation(
        "Invalid Request: Export Type expected to be Incremental Export when incremental "
        "export specification is provided");
  }
  if (spec && !incremental) {
    return Status::Validation(
        "Invalid Request: When Export Type is Full Export , Incremental Export Specification "
        "should not be provided");
  }
  if (incremental && !spec) {
    return Status::Validation(
        "Invalid Request: Incremental Export Specification expected when export type is set "
        "as Incremental Export");
  }
  if (incremental && !spec->export_from_time) {
    return Status::Validation(
        "Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification");
  }
  // Then the table, then PITR, then the rest.
  DYNAROCK_ASSIGN_OR_RETURN(std::string name,
                            TableNameFromArn(*in.table_arn, m.options.account_id));
  auto table = m.db->DescribeTable({name});
  if (!table.ok()) {
    // A name no table can have (too short, say) is not found either.
    if (table.status().code() == Status::Code::kResourceNotFound ||
        table.status().code() == Status::Code::kValidation) {
      return Status::TableNotFound("Table not found: " + *in.table_arn);
    }
    return table.status();
  }
  auto backups = m.db->DescribeContinuousBackups({name});
  if (!backups.ok()) return backups.status();
  if (incremental) {
    // An incremental export reads the changes of [From, To), which needs
    // their history. Dynarock keeps none (the restorable window is the last
    // minute), so every request fails one of DynamoDB's own window checks,
    // in its order: From before the window, then the 15-minute minimum
    // (From is within the last minute and To at most now), then To in the
    // future.
    const int64_t now = NowMs();
    const int64_t from = std::llround(*spec->export_from_time * 1000.0);
    const int64_t to = spec->export_to_time ? std::llround(*spec->export_to_time * 1000.0) : now;
    const int64_t window_start =
        backups->point_in_time_recovery_enabled ? backups->earliest_restorable_ms : now;
    if (from < window_start) {
      return Status::InvalidExportTime(
          "Incremental export period from time cannot be less than the table creation time : " +
          format::IsoTimestampMs(window_start));
    }
    if (to - from < 15 * 60 * 1000) {
      return Status::InvalidExportTime(
          "Difference between export period from time and export period to time is less than "
          "15 minutes");
    }
    return Status::InvalidExportTime(
        "Incremental export period to time cannot be greater than the current time : " +
        format::IsoTimestampMs(now));
  }
  if (!backups->point_in_time_recovery_enabled) {
    return Status::PointInTimeRecoveryUnavailable(
        "Point in time recovery is not enabled for table '" + name + "'");
  }
  const int64_t now = NowMs();
  int64_t export_ms = now;
  if (in.export_time) {
    export_ms = std::llround(*in.export_time * 1000.0);
    if (export_ms > now || export_ms < backups->earliest_restorable_ms) {
      return Status::InvalidExportTime("Export Time is invalid");
    }
  }
  const std::string algorithm = in.s3_sse_algorithm.value_or("AES256");
  if (in.s3_sse_kms_key_id && algorithm != "KMS") {
    return Status::Validation(
        "Invalid Request: KMS Key Id is not supported for this encryption type");
  }
  const std::string format = in.export_format.value_or("DYNAMODB_JSON");
  std::string fingerprint;
  for (const auto& part :
       {in.table_arn, in.s3_bucket, in.s3_bucket_owner, in.s3_prefix,
        std::optional<std::string>(algorithm), in.s3_sse_kms_key_id,
        std::optional<std::string>(format),
        in.export_time ? std::optional(std::to_string(export_ms)) : std::nullopt}) {
    fingerprint += part ? "+" + *part : "-";
    fingerprint += '\x1f';
  }

  std::lock_guard lock(m.mu);
  if (auto answer = m.Admit("export", in.client_token, fingerprint, now)) return *answer;
  auto job = Impl::NewJob("export", now, fingerprint, name);
  job->SetString("ExportArn", table->table.table_arn + "/export/" + job->id);
  job->SetString("ExportStatus", "IN_PROGRESS");
  job->SetTime("StartTime", now);
  job->SetString("TableArn", table->table.table_arn);
  job->SetString("TableId", table->table.table_id);
  job->SetTime("ExportTime", export_ms);
  job->SetString("ClientToken", in.client_token ? *in.client_token : RandomUuid());
  job->SetString("S3Bucket", *in.s3_bucket);
  if (in.s3_bucket_owner) job->SetString("S3BucketOwner", *in.s3_bucket_owner);
  if (in.s3_prefix) job->SetString("S3Prefix", *in.s3_prefix);
  job->SetString("S3SseAlgorithm", algorithm);
  if (in.s3_sse_kms_key_id) job->SetString("S3SseKmsKeyId", *in.s3_sse_kms_key_id);
  job->SetString("ExportFormat", format);
  return m.Start(std::move(job),
                 [&m, name, bucket = *in.s3_bucket, prefix = in.s3_prefix,
                  f = format == "ION" ? ExportFormat::kIon : ExportFormat::kDynamoDbJson](Job* j) {
                   m.RunExport(j, name, bucket, prefix, f);
                 });
}

Result<std::string> JobManager::DescribeExport(const protocol::DescribeExportInput& in) {
  const std::string& arn = *in.export_arn;
  const size_t at = arn.find("/export/");
  if (!arn.starts_with("arn:") || at == std::string::npos ||
      arn.find(":table/") == std::string::npos) {
    return Status::Validation("Invalid Export ARN");
  }
  const std::string region_part = ":" + impl_->options.region + ":";
  if (arn.find(region_part) == std::string::npos) {
    return Status::ExportNotFound("Export not found: Invalid export arn");
  }
  std::lock_guard lock(impl_->mu);
  const Job* job = impl_->FindByArn("export", arn);
  if (job == nullptr) return Status::ExportNotFound("Export not found: Export not found: " + arn);
  return impl_->Response(*job);
}

Result<std::string> JobManager::ListExports(const protocol::ListExportsInput& in) {
  return impl_->List("export", in.table_arn, in.max_results.value_or(kDefaultPageSize),
                     in.next_token);
}

Result<std::string> JobManager::ImportTable(const protocol::ImportTableInput& in) {
  Impl& m = *impl_;
  const std::string& format = *in.input_format;
  if (in.input_format_options && format != "CSV") {
    return Status::Validation(
        "Invalid Request: Unsupported InputFormatOptions for the given input format: " + format +
        ".");
  }
  const protocol::TableCreationParameters& p = *in.table_creation_parameters;
  protocol::CreateTableInput create;
  create.table_name = p.table_name;
  create.attribute_definitions = p.attribute_definitions;
  create.key_schema = p.key_schema;
  create.billing_mode = p.billing_mode;
  create.provisioned_throughput = p.provisioned_throughput;
  create.sse_specification = p.sse_specification;
  create.global_secondary_indexes = p.global_secondary_indexes;
  create.on_demand_throughput = p.on_demand_throughput;  // stored, as CreateTable stores it
  create.vector_indexes = p.vector_indexes;
  DYNAROCK_ASSIGN_OR_RETURN(CreateTableRequest table,
                            wire::ToRequest<CreateTableRequest>(std::move(create)));
  DYNAROCK_RETURN_IF_ERROR(m.db->CheckCreateTable(table));
  const std::string parameters = TableCreationParametersJson(p);
  const std::string fingerprint = format + '\x1f' + parameters;

  const int64_t now = NowMs();
  std::lock_guard lock(m.mu);
  if (auto answer = m.Admit("import", in.client_token, fingerprint, now)) return *answer;
  const std::string& name = table.table_name;
  const std::string table_arn =
      "arn:aws:dynamodb:" + m.options.region + ":" + m.options.account_id + ":table/" + name;
  auto job = Impl::NewJob("import", now, fingerprint, name);
  job->SetString("ImportArn", table_arn + "/import/" + job->id);
  job->SetString("ImportStatus", "IN_PROGRESS");
  job->SetString("TableArn", table_arn);
  job->SetString("TableId", RandomUuid());
  job->SetString("ClientToken", in.client_token ? *in.client_token : RandomUuid());
  {
    protocol::S3BucketSource src = *in.s3_bucket_source;
    if (!src.s3_bucket_owner) src.s3_bucket_owner = m.options.account_id;
    rapidjson::StringBuffer buf;
    Writer w(buf);
    protocol::WriteS3BucketSource(w, src);
    job->SetJson("S3BucketSource", std::string(buf.GetString(), buf.GetSize()));
  }
  job->SetCount("ErrorCount", 0);
  job->SetString("CloudWatchLogGroupArn", "arn:aws:logs:" + m.options.region + ":" +
                                              m.options.account_id +
                                              ":log-group:/aws-dynamodb/imports:*");
  job->SetString("InputFormat", format);
  char delimiter = ',';
  std::optional<std::vector<std::string>> header;
  if (in.input_format_options) {
    const auto& csv = in.input_format_options->csv;
    if (csv && csv->delimiter) delimiter = (*csv->delimiter)[0];  // one character (the pattern)
    if (csv) header = csv->header_list;
    rapidjson::StringBuffer buf;
    Writer w(buf);
    protocol::WriteInputFormatOptions(w, *in.input_format_options);
    job->SetJson("InputFormatOptions", std::string(buf.GetString(), buf.GetSize()));
  }
  const std::string compression = in.input_compression_type.value_or("NONE");
  job->SetString("InputCompressionType", compression);
  job->SetJson("TableCreationParameters", parameters);
  job->SetTime("StartTime", now);
  job->SetCount("ProcessedSizeBytes", 0);
  job->SetCount("ProcessedItemCount", 0);
  job->SetCount("ImportedItemCount", 0);
  const ImportFormat f = format == "ION"   ? ImportFormat::kIon
                         : format == "CSV" ? ImportFormat::kCsv
                                           : ImportFormat::kDynamoDbJson;
  const ImportCompression c = compression == "GZIP"   ? ImportCompression::kGzip
                              : compression == "ZSTD" ? ImportCompression::kZstd
                                                      : ImportCompression::kNone;
  // std::function needs a copyable callable: the request goes in a shared_ptr.
  auto request = std::make_shared<CreateTableRequest>(std::move(table));
  return m.Start(std::move(job), [&m, request, bucket = *in.s3_bucket_source->s3_bucket,
                                  prefix = in.s3_bucket_source->s3_key_prefix.value_or(""), f, c,
                                  delimiter, header](Job* j) {
    m.RunImport(j, *request, bucket, prefix, f, c, delimiter, header);
  });
}

Result<std::string> JobManager::DescribeImport(const protocol::DescribeImportInput& in) {
  const std::string& arn = *in.import_arn;
  const size_t at = arn.find("/import/");
  if (!arn.starts_with("arn:") || at == std::string::npos) {
    return Status::Validation("Invalid Import ARN");
  }
  std::lock_guard lock(impl_->mu);
  const Job* job = impl_->FindByArn("import", arn);
  if (job == nullptr) return Status::ImportNotFound("Import not found: " + arn);
  return impl_->Response(*job);
}

Result<std::string> JobManager::ListImports(const protocol::ListImportsInput& in) {
  return impl_->List("import", in.table_arn, in.page_size.value_or(kDefaultPageSize),
                     in.next_token);
}

}  // namespace dynarock::jobs
