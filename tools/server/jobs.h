// DynamoDB's Export and Import APIs over `dynarock serve`:
// ExportTableToPointInTime, DescribeExport, ListExports, ImportTable,
// DescribeImport, ListImports.
//
// S3 is a directory: with `--s3-dir DIR`, bucket `b` is the folder `DIR/b`
// and an object key is a path below it. A bucket that is not a folder fails
// the job asynchronously, as DynamoDB does (S3NoSuchBucket).
//
// Each request starts a job in the background and answers at once with its
// description, IN_PROGRESS; the job ends COMPLETED or FAILED with DynamoDB's
// counts and failure codes. An export is Database::ExportTable (one snapshot,
// taken when the job starts: Dynarock keeps no history, see
// ContinuousBackupsDescription); an import is Database::ImportTable (SST
// files ingested at once), which creates the table only when it lands.
//
// Job descriptions are service records of the database (catalog
// "service/export/<ExportId>", "service/import/<ImportId>"), rewritten at each
// change, so DescribeExport and ListImports survive a restart; a job a
// restart interrupted is FAILED when the server comes back. An import's item
// errors go, as DynamoDB's CloudWatch events, to
// DIR/.cloudwatch/aws-dynamodb/imports/<ImportId>/error (JSON lines).
#ifndef DYNAROCK_TOOLS_SERVER_JOBS_H_
#define DYNAROCK_TOOLS_SERVER_JOBS_H_

#include <memory>
#include <string>

#include "dynarock/db.h"
#include "tools/server/protocol/model_gen.h"

namespace dynarock::jobs {

struct JobOptions {
  // The folder whose subfolders are the S3 buckets; empty: there are none.
  std::string s3_dir;
  // In the ARNs of jobs (those of tables come from the database).
  std::string region = "local";
  std::string account_id = "000000000000";
};

class JobManager {
 public:
  // Loads the job records of `db` and fails the jobs a restart interrupted.
  // REQUIRES: `db` outlives the manager.
  static Result<std::unique_ptr<JobManager>> Open(Database* db, JobOptions options);
  // Waits for the running jobs.
  ~JobManager();
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  // Each returns the response's JSON object, or DynamoDB's error for the
  // request (in DynamoDB's order; the inputs are already type- and
  // constraint-checked by the generated protocol layer).
  Result<std::string> ExportTableToPointInTime(const protocol::ExportTableToPointInTimeInput& in);
  Result<std::string> DescribeExport(const protocol::DescribeExportInput& in);
  Result<std::string> ListExports(const protocol::ListExportsInput& in);
  Result<std::string> ImportTable(const protocol::ImportTableInput& in);
  Result<std::string> DescribeImport(const protocol::DescribeImportInput& in);
  Result<std::string> ListImports(const protocol::ListImportsInput& in);

  // Blocks until no job is running (tests).
  void WaitForJobs();

  struct Impl;

 private:
  explicit JobManager(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dynarock::jobs

#endif  // DYNAROCK_TOOLS_SERVER_JOBS_H_
