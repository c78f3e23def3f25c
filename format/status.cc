#include "dynarock/status.h"

#include <ostream>

namespace dynarock {

std::string_view Status::ErrorName() const {
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kValidation: return "ValidationException";
    case Code::kSerialization: return "SerializationException";
    case Code::kConditionalCheckFailed: return "ConditionalCheckFailedException";
    case Code::kResourceNotFound: return "ResourceNotFoundException";
    case Code::kResourceInUse: return "ResourceInUseException";
    case Code::kItemCollectionSizeLimitExceeded: return "ItemCollectionSizeLimitExceededException";
    case Code::kTransactionCanceled: return "TransactionCanceledException";
    case Code::kTransactionConflict: return "TransactionConflictException";
    case Code::kIdempotentParameterMismatch: return "IdempotentParameterMismatchException";
    case Code::kLimitExceeded: return "LimitExceededException";
    case Code::kTransactionInProgress: return "TransactionInProgressException";
    case Code::kExpiredIterator:
      return "ExpiredIteratorException";
    case Code::kTrimmedDataAccess:
      return "TrimmedDataAccessException";
    case Code::kAccessDenied:
      return "AccessDeniedException";
    case Code::kTableNotFound: return "TableNotFoundException";
    case Code::kContinuousBackupsUnavailable: return "ContinuousBackupsUnavailableException";
    case Code::kPointInTimeRecoveryUnavailable: return "PointInTimeRecoveryUnavailableException";
    case Code::kInvalidExportTime: return "InvalidExportTimeException";
    case Code::kExportConflict: return "ExportConflictException";
    case Code::kExportNotFound: return "ExportNotFoundException";
    case Code::kImportConflict: return "ImportConflictException";
    case Code::kImportNotFound: return "ImportNotFoundException";
    case Code::kProvisionedThroughputExceeded:
      return "ProvisionedThroughputExceededException";
    case Code::kThrottling:
      return "ThrottlingException";
    case Code::kDuplicateItem:
      return "DuplicateItemException";
    case Code::kPolicyNotFound:
      return "PolicyNotFoundException";
    case Code::kInternal:
    case Code::kCorruption:
    case Code::kIOError:
    case Code::kInvalidArgument:
    case Code::kNotSupported: return "InternalServerError";
  }
  return "InternalServerError";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(ErrorName());
  if (code_ == Code::kCorruption) out += " (corruption)";
  if (code_ == Code::kIOError) out += " (I/O error)";
  if (code_ == Code::kInvalidArgument) out += " (invalid argument)";
  if (code_ == Code::kNotSupported) out += " (not supported)";
  out += ": ";
  out += message_;
  return out;
}

std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

}  // namespace dynarock
