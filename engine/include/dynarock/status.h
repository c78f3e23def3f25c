// Status and Result<T>: errors are values in Dynarock, never exceptions.
//
// A Status carries one of DynamoDB's error names (so the wire layer and embedded
// users see the same error as DynamoDB would raise) or an internal condition
// (corruption, I/O), plus a human-readable message. Factories are named after
// the DynamoDB exception they stand for.
#ifndef DYNAROCK_STATUS_H_
#define DYNAROCK_STATUS_H_

#include <cassert>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace dynarock {

// Structured detail an error may carry beside its message, e.g. the item of a
// failed condition (ReturnValuesOnConditionCheckFailure) or a transaction's
// cancellation reasons. Subclass it; read it back with Status::payload<T>().
class StatusPayload {
 public:
  virtual ~StatusPayload() = default;
};

class [[nodiscard]] Status {
 public:
  // Do not reorder: Code values may appear in logs and test expectations.
  enum class Code {
    kOk = 0,
    kValidation,              // ValidationException
    kSerialization,           // SerializationException (malformed JSON/types)
    kConditionalCheckFailed,  // ConditionalCheckFailedException
    kResourceNotFound,        // ResourceNotFoundException
    kResourceInUse,           // ResourceInUseException
    kItemCollectionSizeLimitExceeded,
    kTransactionCanceled,
    kTransactionConflict,
    kIdempotentParameterMismatch,
    kLimitExceeded,
    kInternal,    // InternalServerError
    kCorruption,  // bytes on disk (or given to a decoder) are not ours
    kIOError,
    kTransactionInProgress,  // TransactionInProgressException
    kInvalidArgument,        // a caller's mistake outside DynamoDB's API (e.g. a foreign directory)
    kNotSupported,           // e.g. a database written by a newer Dynarock
    kExpiredIterator,        // ExpiredIteratorException (Streams)
    kTrimmedDataAccess,      // TrimmedDataAccessException (Streams)
    kAccessDenied,           // AccessDeniedException (e.g. tags of a table that does not exist)
    // Continuous backups and the Export/Import APIs.
    kTableNotFound,                   // TableNotFoundException
    kContinuousBackupsUnavailable,    // ContinuousBackupsUnavailableException
    kPointInTimeRecoveryUnavailable,  // PointInTimeRecoveryUnavailableException
    kInvalidExportTime,               // InvalidExportTimeException
    kExportConflict,                  // ExportConflictException
    kExportNotFound,                  // ExportNotFoundException
    kImportConflict,                  // ImportConflictException
    kImportNotFound,                  // ImportNotFoundException
    // A collection over its partition's ceiling (Options::partition_limits),
    // on a provisioned table and on an on-demand one (FACTS.md 6).
    kProvisionedThroughputExceeded,  // ProvisionedThroughputExceededException
    kThrottling,                     // ThrottlingException
    // A PartiQL INSERT of a key that exists (DuplicateItemException).
    kDuplicateItem,
    // No resource-based policy (or not the revision expected).
    kPolicyNotFound,  // PolicyNotFoundException
  };

  Status() = default;  // OK
  static Status OK() { return Status(); }

  static Status Validation(std::string msg) { return {Code::kValidation, std::move(msg)}; }
  static Status Serialization(std::string msg) { return {Code::kSerialization, std::move(msg)}; }
  static Status ConditionalCheckFailed(std::string msg = "The conditional request failed") {
    return {Code::kConditionalCheckFailed, std::move(msg)};
  }
  static Status ResourceNotFound(std::string msg = "Requested resource not found") {
    return {Code::kResourceNotFound, std::move(msg)};
  }
  static Status ResourceInUse(std::string msg) { return {Code::kResourceInUse, std::move(msg)}; }
  static Status ItemCollectionSizeLimitExceeded(std::string msg) {
    return {Code::kItemCollectionSizeLimitExceeded, std::move(msg)};
  }
  static Status TransactionCanceled(std::string msg) {
    return {Code::kTransactionCanceled, std::move(msg)};
  }
  static Status TransactionConflict(std::string msg) {
    return {Code::kTransactionConflict, std::move(msg)};
  }
  static Status TransactionInProgress(std::string msg) {
    return {Code::kTransactionInProgress, std::move(msg)};
  }
  static Status IdempotentParameterMismatch(std::string msg) {
    return {Code::kIdempotentParameterMismatch, std::move(msg)};
  }
  static Status LimitExceeded(std::string msg) { return {Code::kLimitExceeded, std::move(msg)}; }
  static Status Internal(std::string msg) { return {Code::kInternal, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {Code::kCorruption, std::move(msg)}; }
  static Status IOError(std::string msg) { return {Code::kIOError, std::move(msg)}; }
  static Status InvalidArgument(std::string msg) {
    return {Code::kInvalidArgument, std::move(msg)};
  }
  static Status NotSupported(std::string msg) { return {Code::kNotSupported, std::move(msg)}; }
  static Status ExpiredIterator(
      std::string msg = "The provided iterator exceeds the maximum age allowed.") {
    return {Code::kExpiredIterator, std::move(msg)};
  }
  static Status AccessDenied(std::string msg) { return {Code::kAccessDenied, std::move(msg)}; }
  static Status TrimmedDataAccess(
      std::string msg = "The data you are trying to access has been trimmed.") {
    return {Code::kTrimmedDataAccess, std::move(msg)};
  }

  static Status TableNotFound(std::string msg) { return {Code::kTableNotFound, std::move(msg)}; }
  static Status ContinuousBackupsUnavailable(std::string msg) {
    return {Code::kContinuousBackupsUnavailable, std::move(msg)};
  }
  static Status PointInTimeRecoveryUnavailable(std::string msg) {
    return {Code::kPointInTimeRecoveryUnavailable, std::move(msg)};
  }
  static Status InvalidExportTime(std::string msg) {
    return {Code::kInvalidExportTime, std::move(msg)};
  }
  static Status ExportConflict(std::string msg) { return {Code::kExportConflict, std::move(msg)}; }
  static Status ExportNotFound(std::string msg) { return {Code::kExportNotFound, std::move(msg)}; }
  static Status ImportConflict(std::string msg) { return {Code::kImportConflict, std::move(msg)}; }
  static Status ImportNotFound(std::string msg) { return {Code::kImportNotFound, std::move(msg)}; }
  static Status ProvisionedThroughputExceeded(std::string msg) {
    return {Code::kProvisionedThroughputExceeded, std::move(msg)};
  }
  static Status Throttling(std::string msg) { return {Code::kThrottling, std::move(msg)}; }
  static Status PolicyNotFound(std::string msg) { return {Code::kPolicyNotFound, std::move(msg)}; }
  static Status DuplicateItem(std::string msg = "Duplicate primary key exists in table") {
    return {Code::kDuplicateItem, std::move(msg)};
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // DynamoDB's exception name for this status ("ValidationException", ...);
  // internal conditions map to "InternalServerError". "OK" when ok().
  std::string_view ErrorName() const;

  // "ErrorName: message", for logs and test failure output.
  std::string ToString() const;

  // Attaches detail to a non-OK status (see StatusPayload).
  Status WithPayload(std::shared_ptr<const StatusPayload> payload) && {
    payload_ = std::move(payload);
    return std::move(*this);
  }
  // The attached detail if it is a T, else nullptr.
  template <typename T>
  const T* payload() const {
    return dynamic_cast<const T*>(payload_.get());
  }

  // Compares code and message, not payloads.
  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string message_;
  std::shared_ptr<const StatusPayload> payload_;
};

// A value or the Status explaining why there is none (in the style of
// absl::StatusOr). REQUIRES: a Result is built from a non-OK Status or a value.
// For test output and logs: ToString().
std::ostream& operator<<(std::ostream& os, const Status& s);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok());
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok().
  const T& value() const& { assert(ok()); return *value_; }
  T& value() & { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace dynarock

// Propagates a non-OK Status from an expression returning Status.
#define DYNAROCK_RETURN_IF_ERROR(expr)      \
  do {                                      \
    ::dynarock::Status _st = (expr);        \
    if (!_st.ok()) return _st;              \
  } while (0)

// Evaluates `expr` (a Result<T>): on error returns its Status, else
// assigns the value to `lhs` (which may declare a variable: `auto v`).
#define DYNAROCK_ASSIGN_OR_RETURN(lhs, expr) \
  DYNAROCK_ASSIGN_OR_RETURN_IMPL_(DYNAROCK_STATUS_CONCAT_(_result_, __LINE__), lhs, expr)
#define DYNAROCK_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()
#define DYNAROCK_STATUS_CONCAT_(a, b) DYNAROCK_STATUS_CONCAT_INNER_(a, b)
#define DYNAROCK_STATUS_CONCAT_INNER_(a, b) a##b

#endif  // DYNAROCK_STATUS_H_
