// What is addressed by a table's ARN: tags (TagResource, UntagResource,
// ListTagsOfResource) and resource-based policies (Put, Get and
// DeleteResourcePolicy, on a table or its latest stream).
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cctype>

#include "engine/db_impl.h"
#include "engine/model/checks.h"
#include "engine/validation.h"

namespace dynarock {

namespace {

// arn:aws:dynamodb:<region>:<digits>:table/<name of 3 or more, no '/'>
bool IsTableArn(std::string_view arn) {
  const auto name = TableArnResource(arn);
  return name && name->size() >= 3 && name->find('/') == std::string_view::npos;
}

// DynamoDB's tagging restrictions: letters, numbers, white space and
// + - = . _ : / @, and no key of the reserved `aws:` prefix. Every
// character outside ASCII is taken as a letter (no Unicode tables here).
Status CheckTag(const std::string& key, const std::string& value) {
  auto allowed = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return u >= 0x80 || std::isalnum(u) || c == ' ' || c == '\t' ||
             std::string_view("+-=._:/@").find(c) != std::string_view::npos;
    });
  };
  if (!allowed(key)) return Status::Validation("Invalid Tag Key: " + key);
  if (!allowed(value)) return Status::Validation("Invalid Tag Value: " + value);
  if (key.starts_with("aws:")) {
    return Status::Validation("Invalid Tag Key: the aws: prefix is reserved for AWS use: " + key);
  }
  return Status::OK();
}

}  // namespace

Status Database::Impl::CheckTableArn(std::string_view arn) {
  // DynamoDB answers any ARN that does not name a table with a
  // ValidationException (a malformed one too, where older emulators
  // answered AccessDeniedException).
  if (arn.empty()) return Status::Validation("Invalid TableArn");
  if (!IsTableArn(arn)) {
    return Status::Validation("Invalid TableArn: Invalid ResourceArn provided as input " +
                              std::string(arn));
  }
  return Status::OK();
}

Result<std::string> Database::Impl::TableNameFromArn(std::string_view arn,
                                                     std::string_view operation) {
  // VALIDATION.md 5.8, in order. DynamoDB answers a well-formed ARN of a
  // table that does not exist (here: or of another region or account) as it
  // answers an unparseable one: the caller may not act on that resource.
  auto denied = [&] {
    return Status::AccessDenied("User: arn:aws:iam::" + options_.account_id +
                                ":root is not authorized to perform: dynamodb:" +
                                std::string(operation) + " on resource: " + std::string(arn));
  };
  DYNAROCK_RETURN_IF_ERROR(CheckTableArn(arn));
  const std::string prefix = TableArn(options_.region, options_.account_id, "");
  if (arn.substr(0, prefix.size()) != prefix) return denied();
  std::string name(arn.substr(prefix.size()));
  std::shared_lock lock(catalog_mu_);
  if (!tables_.count(name)) return denied();
  return name;
}

Status Database::Impl::ChangeTags(std::string_view arn, std::string_view operation,
                                  const std::function<Status(TableInfo*)>& change) {
  DYNAROCK_ASSIGN_OR_RETURN(std::string name, TableNameFromArn(arn, operation));
  auto locked = LockTableExclusive(name);
  if (!locked.ok()) return Status::ResourceNotFound();
  TableInfo info = locked->state->info;
  DYNAROCK_RETURN_IF_ERROR(change(&info));
  rocksdb::WriteBatch batch;
  return ReplaceTable(locked->state, std::move(info), &batch);
}

Status Database::Impl::TagResource(const TagResourceRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_RETURN_IF_ERROR(CheckTableArn(request.resource_arn));
  // An empty list is given, not missing: it has its own text (sic).
  if (request.tags.empty()) {
    return Status::Validation("Atleast one Tag needs to be provided as Input.");
  }
  for (const auto& [key, value] : request.tags) DYNAROCK_RETURN_IF_ERROR(CheckTag(key, value));
  return ChangeTags(request.resource_arn, "TagResource", [&](TableInfo* info) {
    for (const auto& [k, v] : request.tags) info->tags[k] = v;
    if (info->tags.size() > 50) {
      return Status::LimitExceeded("The number of tags exceeds the limit of 50");
    }
    return Status::OK();
  });
}

Status Database::Impl::UntagResource(const UntagResourceRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_RETURN_IF_ERROR(CheckTableArn(request.resource_arn));
  if (request.tag_keys.empty()) {
    return Status::Validation("Atleast one Tag Key needs to be provided as Input.");
  }
  return ChangeTags(request.resource_arn, "UntagResource", [&](TableInfo* info) {
    for (const auto& k : request.tag_keys) info->tags.erase(k);
    return Status::OK();
  });
}

// ---- Resource-based policies -----------------------------------------------------------------

namespace {

// A revision id: the time of the change in microseconds, as a decimal
// string, above the one it replaces (two changes in one millisecond still
// differ).
std::string NextRevision(int64_t now_us, const std::optional<AttachedPolicy>& old) {
  int64_t next = now_us;
  if (old) {
    int64_t previous = 0;
    for (char c : old->revision_id) {
      if (c < '0' || c > '9' || previous > (INT64_MAX - 9) / 10) break;
      previous = previous * 10 + (c - '0');
    }
    next = std::max(next, previous + 1);
  }
  return std::to_string(next);
}

Status RevisionMismatch(const std::optional<std::string>& expected,
                        const std::optional<AttachedPolicy>& policy, const std::string& target) {
  return Status::PolicyNotFound(
      "Resource-based policy not found for the provided ResourceArn: Requested update for "
      "policy revision id " +
      expected.value_or("") + ", but the policy associated to target " + target +
      (policy ? " has revision id " + policy->revision_id + "." : " has no policy."));
}

}  // namespace

namespace {

// What a policy ARN names: a table, or its stream of `stream_label`.
struct PolicyTarget {
  std::string table;
  std::string stream_label;  // empty: the table's own policy
};

// arn:aws:dynamodb:<region>:<account>:table/<name>[/stream/<label>]:
// ValidationException for any other shape (an index's ARN too),
// ResourceNotFoundException for another region or account (`prefix` is
// this database's table ARN prefix).
Result<PolicyTarget> ParsePolicyArn(std::string_view arn, std::string_view prefix) {
  if (arn.empty() || !TableArnResource(arn)) {
    return Status::Validation("Invalid ResourceArn provided as input " + std::string(arn));
  }
  std::string_view resource = *TableArnResource(arn);
  PolicyTarget target;
  if (auto at = resource.find("/stream/"); at != std::string_view::npos) {
    target.stream_label = resource.substr(at + 8);
    resource = resource.substr(0, at);
  }
  if (resource.find('/') != std::string_view::npos) {
    return Status::Validation(
        "Invalid ResourceArn provided as input " + std::string(arn) +
        ": resource-based policies attach to tables and streams (an index is governed by its "
        "table's)");
  }
  target.table = resource;
  if (!arn.starts_with(prefix)) {
    return Status::ResourceNotFound("Requested resource not found: Table: " + target.table +
                                    " not found");
  }
  return target;
}

// The policy slot `target` names in `info`: a stream's only for the table's
// latest stream (ResourceNotFoundException for another), and emptied if
// it held an older stream's policy.
Result<std::optional<AttachedPolicy>*> PolicyOf(TableInfo* info, const PolicyTarget& target,
                                                std::string_view arn) {
  if (target.stream_label.empty()) return &info->policy;
  if (!info->stream || info->stream->label != target.stream_label) {
    return Status::ResourceNotFound("Requested resource not found: Stream: " + std::string(arn) +
                                    " not found");
  }
  if (info->stream_policy && info->stream_policy->stream_label != target.stream_label) {
    info->stream_policy.reset();
  }
  return &info->stream_policy;
}

}  // namespace

Status Database::Impl::ChangePolicy(
    std::string_view arn,
    const std::function<Status(std::optional<AttachedPolicy>*, const std::string&)>& change) {
  DYNAROCK_ASSIGN_OR_RETURN(
      PolicyTarget target, ParsePolicyArn(arn, TableArn(options_.region, options_.account_id, "")));
  auto locked = LockTableExclusive(target.table);
  if (!locked.ok()) {
    return Status::ResourceNotFound("Requested resource not found: Table: " + target.table +
                                    " not found");
  }
  TableInfo info = locked->state->info;
  DYNAROCK_ASSIGN_OR_RETURN(std::optional<AttachedPolicy> * policy, PolicyOf(&info, target, arn));
  const std::optional<AttachedPolicy> before = *policy;
  DYNAROCK_RETURN_IF_ERROR(change(policy, target.stream_label.empty()
                                              ? "table " + target.table
                                              : "stream " + target.stream_label));
  if (*policy) (*policy)->stream_label = target.stream_label;
  if (before.has_value() == policy->has_value() &&
      (!before || (before->document == (*policy)->document &&
                   before->revision_id == (*policy)->revision_id))) {
    return Status::OK();  // nothing changed: nothing written
  }
  rocksdb::WriteBatch batch;
  return ReplaceTable(locked->state, std::move(info), &batch);
}

Result<PutResourcePolicyResponse> Database::Impl::PutResourcePolicy(
    const PutResourcePolicyRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_RETURN_IF_ERROR(CheckResourcePolicyDocument(request.policy));
  PutResourcePolicyResponse response;
  const int64_t now_us = NowMs() * 1000;
  DYNAROCK_RETURN_IF_ERROR(ChangePolicy(
      request.resource_arn, [&](std::optional<AttachedPolicy>* policy, const std::string& target) {
        if (request.expected_revision_id &&
            (!*policy || (*policy)->revision_id != *request.expected_revision_id)) {
          return RevisionMismatch(request.expected_revision_id, *policy, target);
        }
        if (!*policy || (*policy)->document != request.policy) {
          *policy = AttachedPolicy{request.policy, NextRevision(now_us, *policy), ""};
        }
        response.revision_id = (*policy)->revision_id;  // the same document: the same revision
        return Status::OK();
      }));
  return response;
}

Result<GetResourcePolicyResponse> Database::Impl::GetResourcePolicy(
    const GetResourcePolicyRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_ASSIGN_OR_RETURN(
      PolicyTarget target,
      ParsePolicyArn(request.resource_arn, TableArn(options_.region, options_.account_id, "")));
  auto table = FindTable(target.table, false);
  if (!table.ok()) {
    return Status::ResourceNotFound("Requested resource not found: Table: " + target.table +
                                    " not found");
  }
  TableInfo info = (*table)->info;
  DYNAROCK_ASSIGN_OR_RETURN(std::optional<AttachedPolicy> * policy,
                            PolicyOf(&info, target, request.resource_arn));
  if (!*policy) {
    return Status::PolicyNotFound("Resource-based policy not found for the provided ResourceArn: " +
                                  request.resource_arn);
  }
  return GetResourcePolicyResponse{(*policy)->document, (*policy)->revision_id};
}

Result<DeleteResourcePolicyResponse> Database::Impl::DeleteResourcePolicy(
    const DeleteResourcePolicyRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DeleteResourcePolicyResponse response;
  DYNAROCK_RETURN_IF_ERROR(ChangePolicy(
      request.resource_arn, [&](std::optional<AttachedPolicy>* policy, const std::string& target) {
        if (request.expected_revision_id &&
            (!*policy || (*policy)->revision_id != *request.expected_revision_id)) {
          return RevisionMismatch(request.expected_revision_id, *policy, target);
        }
        if (*policy) response.revision_id = (*policy)->revision_id;
        policy->reset();
        return Status::OK();
      }));
  return response;
}

Result<ListTagsOfResourceResponse> Database::Impl::ListTagsOfResource(
    const ListTagsOfResourceRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::CheckModel(request));
  DYNAROCK_ASSIGN_OR_RETURN(auto name,
                            TableNameFromArn(request.resource_arn, "ListTagsOfResource"));
  DYNAROCK_ASSIGN_OR_RETURN(auto table, FindTable(name, false));
  return ListTagsOfResourceResponse{table->info.tags};
}

}  // namespace dynarock
