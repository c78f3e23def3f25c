#include "tools/bulk_cli.h"

#include <fmt/core.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dynarock/db.h"
#include "tools/cli_text.h"
#include "tools/server/table_definition.h"

namespace dynarock::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kDefinitionFile[] = "table-definition.json";

std::string Duration(double s) {
  const auto t = static_cast<long long>(s);
  return fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
}

// What stat(2) says a path is, in messages about what is not a file or a folder.
std::string KindOf(fs::file_type type) {
  switch (type) {
    case fs::file_type::regular:
      return "a file";
    case fs::file_type::directory:
      return "a folder";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "of an unknown kind";
  }
}

// The error for `path`, which stat(2) found (or failed to find, `ec`) to be
// neither a regular file nor, if `folder_too`, a folder.
Status NotFileOrFolder(const std::string& path, fs::file_type type, const std::error_code& ec,
                       bool folder_too) {
  if (type == fs::file_type::not_found) {
    std::error_code ignored;
    return Status::InvalidArgument(path + (fs::is_symlink(fs::symlink_status(path, ignored))
                                               ? " is a symbolic link to nothing"
                                               : " does not exist"));
  }
  if (ec) return Status::IOError(path + ": " + ec.message());
  return Status::InvalidArgument(path + " is " + KindOf(type) +
                                 (folder_too ? ", not a file or a folder" : ", not a file"));
}

// OK if `path` is a regular file (a link to one included), or also a folder
// if `folder_too`; else an error naming it and what it is. A device, a FIFO
// or a socket is no data: it would be read forever (/dev/zero), block (a
// FIFO) or read as nothing (/dev/null).
Status CheckFileOrFolder(const std::string& path, bool folder_too) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows links, as stat(2)
  if (!ec && (fs::is_regular_file(st) || (folder_too && fs::is_directory(st)))) {
    return Status::OK();
  }
  return NotFileOrFolder(path, st.type(), ec, folder_too);
}

Result<std::string> ReadFile(const std::string& path) {
  DYNAROCK_RETURN_IF_ERROR(CheckFileOrFolder(path, false));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(path + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int Fail(const Status& s, std::string_view db_dir = {}) {
  fmt::print(stderr, "error: {}\n", Explain(s, db_dir));
  return kExitFailed;
}

// ---- dump ----

struct DumpArgs {
  std::string db_dir, table, out_dir, format = "DYNAMODB_JSON", prefix, bucket;
  uint32_t segments = 0;
};

int RunDump(const DumpArgs& a) {
  Options options;
  options.read_only = true;  // a secondary instance: works while `serve` has the directory
  auto db = Database::Open(a.db_dir, options);
  if (!db.ok()) return Fail(db.status(), a.db_dir);
  auto described = (*db)->DescribeTable({.table_name = a.table});
  if (!described.ok()) return Fail(described.status());
  auto ttl = (*db)->DescribeTimeToLive({.table_name = a.table});
  if (!ttl.ok()) return Fail(ttl.status());
  auto tags = (*db)->ListTagsOfResource({.resource_arn = described->table.table_arn});
  if (!tags.ok()) return Fail(tags.status());

  ExportTableOptions o;
  o.table_name = a.table;
  o.bucket_dir = a.out_dir;
  o.s3_bucket = a.bucket;
  if (!a.prefix.empty()) o.s3_prefix = a.prefix;
  o.format = a.format == "ION" ? ExportFormat::kIon : ExportFormat::kDynamoDbJson;
  o.segments = a.segments;
  Progress progress;
  const int64_t total = described->table.item_count;
  o.progress = [&](int64_t items, int64_t bytes) {
    const double s = std::max(progress.elapsed(), 1e-3);
    const double rate = static_cast<double>(items) / s;
    std::string eta =
        total > 0 && rate > 0
            ? Duration(static_cast<double>(std::max<int64_t>(total - items, 0)) / rate)
            : "?";
    progress.Show(fmt::format("dump {}: {} / {} items  {}  {:.0f} items/s  ETA {}", a.table, items,
                              total, HumanBytes(static_cast<double>(bytes)), rate, eta));
  };
  auto result = (*db)->ExportTable(o);
  progress.Done();
  if (!result.ok()) return Fail(result.status());

  std::optional<std::string> ttl_attribute;
  if (ttl->enabled) ttl_attribute = ttl->attribute_name;
  auto policy = (*db)->GetResourcePolicy({.resource_arn = described->table.table_arn});
  if (!policy.ok() && policy.status().code() != Status::Code::kPolicyNotFound) {
    return Fail(policy.status());
  }
  const std::string definition =
      wire::TableDefinitionJson(described->table, tags->tags, ttl_attribute,
                                policy.ok() ? policy->policy : std::optional<std::string>());
  const fs::path def_path = fs::path(result->export_dir) / kDefinitionFile;
  {
    std::ofstream out(def_path, std::ios::binary);
    out << definition;
    if (!out) return Fail(Status::IOError(def_path.string() + ": write failed"));
  }
  const double s = std::max(progress.elapsed(), 1e-3);
  fmt::print("dumped {}: {} items, {} ({} compressed) in {:.2f} s, {:.0f} items/s, {} files\n",
             a.table, result->item_count,
             HumanBytes(static_cast<double>(result->uncompressed_bytes)), HumanBytes([&] {
               double b = 0;
               for (const auto& f : result->files) b += static_cast<double>(f.bytes);
               return b;
             }()),
             s, static_cast<double>(result->item_count) / s, result->files.size());
  fmt::print("export {}\n", result->export_dir);
  return kExitOk;
}

// ---- restore ----

struct RestoreArgs {
  std::string db_dir, source, table_definition, table_name, input_format, compression;
  std::string csv_delimiter = ",";
  std::vector<std::string> csv_header;
  bool strict = false;
  size_t memory_mb = 256;
};

// The export directory `source` names: itself if it holds a manifest, or
// the only export under its AWSDynamoDB/ (a bucket or prefix directory).
std::optional<fs::path> FindExport(const fs::path& source, std::string* error) {
  std::error_code ec;
  if (fs::exists(source / "manifest-summary.json", ec)) return source;
  const fs::path root = source / "AWSDynamoDB";
  if (!fs::is_directory(root, ec)) return std::nullopt;
  std::vector<fs::path> found;
  fs::directory_iterator it(root, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path manifest = it->path() / "manifest-summary.json";
    std::error_code probe;
    if (fs::exists(manifest, probe)) found.push_back(it->path());
    if (probe) {
      *error = manifest.string() + ": " + probe.message();
      return std::nullopt;
    }
  }
  if (ec) {
    *error = root.string() + " cannot be listed: " + ec.message();
    return std::nullopt;
  }
  if (found.size() == 1) return found[0];
  *error = found.empty() ? root.string() + " holds no export (no manifest-summary.json)"
                         : root.string() + " holds " + std::to_string(found.size()) +
                               " exports: name one of them";
  return std::nullopt;
}

// Appends to `paths` every file under the folder `dir`. What stat(2) says
// decides, as for the source itself: a link to a file is a file, a link to
// a folder is walked (a loop back into a folder being walked is an error).
// Anything else (a FIFO, a socket, a device, a link to nothing) and a folder
// that cannot be listed are errors naming the path, not files left out: a
// restore reads everything or nothing.
Status WalkFolder(const fs::path& dir, std::vector<std::pair<dev_t, ino_t>>* ancestors,
                  std::vector<std::string>* paths) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    return Status::IOError(dir.string() + ": " +
                           std::error_code(errno, std::generic_category()).message());
  }
  for (const auto& [dev, ino] : *ancestors) {
    if (dev == st.st_dev && ino == st.st_ino) {
      return Status::InvalidArgument(dir.string() +
                                     " leads back to a folder that holds it (a loop of "
                                     "symbolic links)");
    }
  }
  ancestors->emplace_back(st.st_dev, st.st_ino);
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code stat_ec;
    const fs::file_status s = fs::status(p, stat_ec);
    if (s.type() == fs::file_type::directory) {
      DYNAROCK_RETURN_IF_ERROR(WalkFolder(p, ancestors, paths));
    } else if (s.type() == fs::file_type::regular) {
      paths->push_back(p.string());
    } else {  // a FIFO, a device, a link to nothing, or stat(2) failed (ELOOP)
      return NotFileOrFolder(p.string(), s.type(), stat_ec, true);
    }
  }
  if (ec) return Status::IOError(dir.string() + " cannot be listed: " + ec.message());
  ancestors->pop_back();
  return Status::OK();
}

// Data files of an ImportTable-style source: one file, or every file under a
// folder (recursively, in name order), as under an S3 key prefix.
// REQUIRES: CheckFileOrFolder(source, true) is OK.
Result<std::vector<ImportFile>> SourceFiles(const std::string& source) {
  std::vector<ImportFile> files;
  std::error_code ec;
  if (fs::is_regular_file(source, ec)) {
    files.push_back({source, "", std::nullopt, std::nullopt});
    return files;
  }
  std::vector<std::pair<dev_t, ino_t>> ancestors;
  std::vector<std::string> paths;
  DYNAROCK_RETURN_IF_ERROR(WalkFolder(source, &ancestors, &paths));
  std::sort(paths.begin(), paths.end());
  for (auto& p : paths) files.push_back({std::move(p), "", std::nullopt, std::nullopt});
  return files;
}

// gzip and zstd announce themselves; anything else is taken as plain.
ImportCompression Sniff(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char m[4] = {};
  in.read(reinterpret_cast<char*>(m), 4);
  if (in.gcount() >= 2 && m[0] == 0x1f && m[1] == 0x8b) return ImportCompression::kGzip;
  if (in.gcount() == 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) {
    return ImportCompression::kZstd;
  }
  return ImportCompression::kNone;
}

int RunRestore(const RestoreArgs& a) {
  // Nothing is created or opened for writing until every check has passed:
  // a refused destination is left as it was, a missing one still missing.
  // Open refuses a foreign RocksDB database itself; this refuses a folder
  // of other files, in which RocksDB would create a database.
  if (Status s = Database::CheckDirectory(a.db_dir); !s.ok()) return Fail(s);
  if (Status s = CheckFileOrFolder(a.source, true); !s.ok()) return Fail(s);
  ImportTableOptions o;
  std::string definition_path = a.table_definition;
  std::string error;
  const auto export_dir = FindExport(a.source, &error);
  if (!error.empty()) return Fail(Status::InvalidArgument(error));
  if (export_dir) {
    auto manifest = ReadExportManifest(export_dir->string());
    if (!manifest.ok()) return Fail(manifest.status());
    o.files = std::move(manifest->files);
    o.format =
        manifest->format == ExportFormat::kIon ? ImportFormat::kIon : ImportFormat::kDynamoDbJson;
    o.compression = ImportCompression::kGzip;
    if (definition_path.empty()) {
      definition_path = (*export_dir / kDefinitionFile).string();
      std::error_code ec;
      if (!fs::exists(definition_path, ec)) {
        return Fail(Status::InvalidArgument(
            definition_path +
            " does not exist (an AWS export has none): give --table-definition "
            "FILE, a CreateTable JSON"));
      }
    }
  } else {
    auto files = SourceFiles(a.source);
    if (!files.ok()) return Fail(files.status());
    o.files = std::move(*files);
    if (definition_path.empty()) {
      return Fail(Status::InvalidArgument(
          a.source + " is not an export: give --table-definition FILE (a CreateTable JSON)"));
    }
    o.format = a.input_format == "ION"   ? ImportFormat::kIon
               : a.input_format == "CSV" ? ImportFormat::kCsv
                                         : ImportFormat::kDynamoDbJson;
    o.compression = o.files.empty() ? ImportCompression::kNone : Sniff(o.files[0].path);
  }
  if (!a.input_format.empty() && export_dir) {
    return Fail(Status::InvalidArgument("--input-format is for non-export sources"));
  }
  if (a.compression == "GZIP") o.compression = ImportCompression::kGzip;
  if (a.compression == "ZSTD") o.compression = ImportCompression::kZstd;
  if (a.compression == "NONE") o.compression = ImportCompression::kNone;
  // A tab may be given as the two characters \t.
  const std::string delimiter = a.csv_delimiter == "\\t" ? "\t" : a.csv_delimiter;
  if (delimiter.size() != 1) {
    return Fail(Status::InvalidArgument("--csv-delimiter takes one character"));
  }
  o.csv_delimiter = delimiter[0];
  if (!a.csv_header.empty()) o.csv_header = a.csv_header;
  o.strict = a.strict;
  o.memory_budget_bytes = a.memory_mb << 20;

  auto text = ReadFile(definition_path);
  if (!text.ok()) return Fail(text.status());
  auto definition = wire::ParseTableDefinition(*text);
  if (!definition.ok()) {
    return Fail(Status::InvalidArgument(definition_path + ": " + definition.status().message()));
  }
  o.table = std::move(definition->table);
  o.ttl_attribute = definition->ttl_attribute;
  if (!a.table_name.empty()) o.table.table_name = a.table_name;

  auto db = Database::Open(a.db_dir, {});
  if (!db.ok()) return Fail(db.status(), a.db_dir);
  Progress progress;
  o.progress = [&](const ImportProgress& p) {
    const double s = std::max(progress.elapsed(), 1e-3);
    const double rate = static_cast<double>(p.processed_items) / s;
    const double done = p.total_bytes > 0 ? static_cast<double>(p.processed_bytes) /
                                                static_cast<double>(p.total_bytes)
                                          : 0;
    progress.Show(fmt::format("restore {}: {}  file {}/{}  {} items  {} / {}  {:.0f} items/s{}",
                              o.table.table_name, p.phase, p.files_done, p.files, p.processed_items,
                              HumanBytes(static_cast<double>(p.processed_bytes)),
                              HumanBytes(static_cast<double>(p.total_bytes)), rate,
                              done > 0.01 && std::string_view(p.phase) == "reading"
                                  ? "  ETA " + Duration(s / done - s)
                                  : ""));
  };
  auto result = (*db)->ImportTable(o);
  progress.Done();
  if (!result.ok() && result.status().code() == Status::Code::kResourceInUse) {
    return Fail(Status::ResourceInUse(result.status().message() +
                                      "; restore it under another name with --table NAME"));
  }
  if (!result.ok()) return Fail(result.status());
  for (const auto& e : result->errors) {
    fmt::print(stderr, "skipped: {}{}: {}\n", e.file.empty() ? "(sorted items)" : e.file,
               e.line ? ":" + std::to_string(e.line) : "", e.message);
  }
  if (result->error_count > static_cast<int64_t>(result->errors.size())) {
    fmt::print(stderr, "... and {} more skipped items\n",
               result->error_count - static_cast<int64_t>(result->errors.size()));
  }
  const double s = std::max(progress.elapsed(), 1e-3);
  fmt::print("restored {}: {} items ({} read, {} skipped), {} in {:.2f} s, {:.0f} items/s\n",
             o.table.table_name, result->imported_items, result->processed_items,
             result->error_count, HumanBytes(static_cast<double>(result->processed_bytes)), s,
             static_cast<double>(result->processed_items) / s);
  return result->error_count > 0 ? kExitItemErrors : kExitOk;
}

struct CompactArgs {
  std::string db_dir;
};

// Rewrites every file: what compaction filters do happens now (the move of
// items to the current item encoding, stream records past retention).
int RunCompact(const CompactArgs& a) {
  Options options;
  options.create_if_missing = false;
  auto db = Database::Open(a.db_dir, options);
  if (!db.ok()) return Fail(db.status(), a.db_dir);
  Progress progress;
  if (Status s = (*db)->Compact(); !s.ok()) return Fail(s);
  fmt::print("compacted {} in {:.2f} s\n", a.db_dir, progress.elapsed());
  return kExitOk;
}

}  // namespace

void AddBulkCommands(CLI::App* app, std::function<int()>* run) {
  auto compact_args = std::make_shared<CompactArgs>();
  CLI::App* compact = app->add_subcommand(
      "compact",
      "compact a database fully: items written by an older Dynarock move to the current "
      "item encoding now, not as compactions meet them");
  compact->add_option("database", compact_args->db_dir, "database directory (not open in serve)")
      ->required()
      ->check(CLI::ExistingDirectory);
  compact->callback(
      [run, compact_args] { *run = [compact_args] { return RunCompact(*compact_args); }; });

  auto dump_args = std::make_shared<DumpArgs>();
  CLI::App* dump = app->add_subcommand(
      "dump", "write a table as DynamoDB's full export (S3 layout, in a directory)");
  dump->add_option("database", dump_args->db_dir, "database directory (may be open in serve)")
      ->required()
      ->check(CLI::ExistingDirectory);
  dump->add_option("table", dump_args->table, "table name")->required();
  dump->add_option("out", dump_args->out_dir,
                   "directory standing for the S3 bucket: the export goes to "
                   "OUT/[PREFIX/]AWSDynamoDB/<ExportId>/")
      ->required();
  dump->add_option("--format", dump_args->format, "DYNAMODB_JSON (default) or ION")
      ->check(CLI::IsMember({"DYNAMODB_JSON", "ION"}));
  dump->add_option("--prefix", dump_args->prefix, "S3Prefix inside the bucket directory");
  dump->add_option("--bucket", dump_args->bucket,
                   "bucket name for the manifest (default: OUT's last component)");
  dump->add_option("--segments", dump_args->segments,
                   "parallel segments, one data file each (default: one per core)")
      ->check(CLI::Range(1, 1000));
  dump->callback([run, dump_args] { *run = [dump_args] { return RunDump(*dump_args); }; });

  auto restore_args = std::make_shared<RestoreArgs>();
  CLI::App* restore = app->add_subcommand(
      "restore",
      "create a table from a dump, an AWS export, or ImportTable inputs (SST ingestion: "
      "all or nothing)");
  restore->add_option("database", restore_args->db_dir, "database directory (not open in serve)")
      ->required();
  restore
      ->add_option("source", restore_args->source,
                   "an export directory (holding manifest-summary.json), a directory holding "
                   "one under AWSDynamoDB/, or data files (a file or a directory)")
      ->required();
  restore->add_option("--table-definition", restore_args->table_definition,
                      "CreateTable JSON (default: the dump's table-definition.json)");
  restore->add_option("--table", restore_args->table_name, "create the table under this name");
  restore
      ->add_option("--input-format", restore_args->input_format,
                   "data files that are not an export: DYNAMODB_JSON (default), ION or CSV")
      ->check(CLI::IsMember({"DYNAMODB_JSON", "ION", "CSV"}));
  restore
      ->add_option("--compression", restore_args->compression,
                   "GZIP, ZSTD or NONE (default: from the files' first bytes)")
      ->check(CLI::IsMember({"GZIP", "ZSTD", "NONE"}));
  restore->add_option("--csv-delimiter", restore_args->csv_delimiter,
                      "CSV delimiter: , ; : | \\t or space (default ,)");
  restore
      ->add_option("--csv-header", restore_args->csv_header,
                   "CSV column names (then the first line is data)")
      ->delimiter(',');
  restore->add_flag("--strict", restore_args->strict,
                    "abort at the first bad item, restoring nothing (default: skip and count "
                    "bad items, exit 3)");
  restore
      ->add_option("--memory-mb", restore_args->memory_mb,
                   "memory for sorting; the rest spills to the database directory (default "
                   "256)")
      ->check(CLI::Range(16, 1 << 20));
  restore->callback(
      [run, restore_args] { *run = [restore_args] { return RunRestore(*restore_args); }; });
}

}  // namespace dynarock::cli
