// Query and Scan: a key range computed from the request, one seek, and a
// bounded iteration that stops at Limit or at the page size.
#include <rocksdb/iterator.h>

#include "engine/db_impl.h"
#include "engine/validation.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

using format::AttrType;

std::string Encoded(const AttributeValue& v) {
  std::string out;
  Status st = format::PutKeyComponent(&out, v);
  assert(st.ok() && "key condition operands are checked to be key types first");
  (void)st;  // REQUIRES of the caller, asserted above.
  return out;
}

std::string Successor(const std::string& prefix) {
  // Every prefix here ends inside an encoded key component, whose last byte
  // is never 0xFF, so a successor always exists.
  return format::PrefixSuccessor(prefix).value_or(std::string());
}

// The smallest byte string greater than `key`.
std::string After(std::string key) {
  key.push_back('\0');
  return key;
}

std::string RenderOperand(const AttributeValue& v) {
  // DynamoDB's rendering: AttributeValue: {N:2}
  std::string text = v.is(AttrType::kS) ? v.s() : v.is(AttrType::kN) ? v.n().ToString() : v.b();
  return "AttributeValue: {" + std::string(format::AttrTypeName(v.type())) + ":" + text + "}";
}

bool Matches(const SortKeyCondition& c, const AttributeValue& sk) {
  auto cmp = [](const AttributeValue& a, const AttributeValue& b) {
    // Same key type (checked by the caller): compare as DynamoDB orders them,
    // which is exactly the order of their encodings.
    return Encoded(a) <=> Encoded(b);
  };
  switch (c.op) {
    case SortKeyOperator::kEq: return cmp(sk, c.value) == 0;
    case SortKeyOperator::kLt: return cmp(sk, c.value) < 0;
    case SortKeyOperator::kLe: return cmp(sk, c.value) <= 0;
    case SortKeyOperator::kGt: return cmp(sk, c.value) > 0;
    case SortKeyOperator::kGe: return cmp(sk, c.value) >= 0;
    case SortKeyOperator::kBetween: return cmp(sk, c.value) >= 0 && cmp(sk, *c.upper) <= 0;
    case SortKeyOperator::kBeginsWith: {
      const std::string& s = sk.is(AttrType::kS) ? sk.s() : sk.b();
      const std::string& p = c.value.is(AttrType::kS) ? c.value.s() : c.value.b();
      return s.compare(0, p.size(), p) == 0;
    }
  }
  return false;
}

Status CheckSelect(const std::optional<Select>& select, const char* verb) {
  if (select == Select::kAllProjectedAttributes) {
    return InvalidParameter(std::string("ALL_PROJECTED_ATTRIBUTES can be used only when ") +
                            verb + " using an IndexName");
  }
  if (select == Select::kSpecificAttributes) {
    return InvalidParameter(
        "Select type SPECIFIC_ATTRIBUTES requires a ProjectionExpression or AttributesToGet");
  }
  return Status::OK();
}

Status ConditionTypeMismatch() {
  return InvalidParameter("Condition parameter type does not match schema type");
}

// Checks the key condition against the table and returns the byte range
// [*lower, *upper) of the items it selects.
Status KeyConditionRange(const TableInfo& table, const KeyCondition& kc, std::string* lower,
                         std::string* upper) {
  if (kc.partition_key_name != table.partition_key.name) {
    return Status::Validation("Query condition missed key schema element: " +
                              table.partition_key.name);
  }
  const AttributeValue& pk = kc.partition_key_value;
  if (!pk.is(format::ToAttrType(table.partition_key.type))) return ConditionTypeMismatch();
  DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(pk, table.partition_key.name, true));

  const std::string prefix = format::CollectionPrefix(table.space_id, pk).bytes();
  *lower = prefix;
  *upper = Successor(prefix);
  if (!kc.sort) return Status::OK();

  const SortKeyCondition& c = *kc.sort;
  if (c.attribute_name == table.partition_key.name) {
    return Status::Validation("KeyConditionExpressions must only contain one condition per key");
  }
  if (!table.sort_key) return Status::Validation("Query key condition not supported");
  if (c.attribute_name != table.sort_key->name) {
    return Status::Validation("Query condition missed key schema element: " +
                              table.sort_key->name);
  }
  const AttrType sk_type = format::ToAttrType(table.sort_key->type);
  if (!c.value.is(sk_type) || (c.upper && !c.upper->is(sk_type))) return ConditionTypeMismatch();
  if (c.op == SortKeyOperator::kBetween && !c.upper) {
    return Status::Validation("Invalid KeyConditionExpression: BETWEEN requires two operands");
  }
  if (c.op == SortKeyOperator::kBeginsWith && sk_type == AttrType::kN) {
    return Status::Validation(
        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
        "operator or function: begins_with, operand type: N");
  }
  if (c.op != SortKeyOperator::kBeginsWith) {
    DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(c.value, table.sort_key->name, false));
  }
  if (c.upper) DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(*c.upper, table.sort_key->name, false));

  const std::string at = prefix + Encoded(c.value);
  switch (c.op) {
    case SortKeyOperator::kEq: *lower = at; *upper = Successor(at); break;
    case SortKeyOperator::kLt: *upper = at; break;
    case SortKeyOperator::kLe: *upper = Successor(at); break;
    case SortKeyOperator::kGt: *lower = Successor(at); break;
    case SortKeyOperator::kGe: *lower = at; break;
    case SortKeyOperator::kBetween: {
      const std::string hi = prefix + Encoded(*c.upper);
      if (hi < at) {
        return Status::Validation(
            "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be "
            "greater than or equal to lower bound; lower bound operand: " +
            RenderOperand(c.value) + ", upper bound operand: " + RenderOperand(*c.upper));
      }
      *lower = at;
      *upper = Successor(hi);
      break;
    }
    case SortKeyOperator::kBeginsWith: {
      std::string p = prefix;
      format::PutBytesPrefix(&p, c.value.is(AttrType::kS) ? c.value.s() : c.value.b());
      *lower = p;
      *upper = Successor(p);
      break;
    }
  }
  return Status::OK();
}

// Hash range [lo, hi) of parallel Scan segment `segment` of `total`, as
// 128-bit values so the last segment's end (2^64) is representable.
void SegmentHashRange(uint32_t segment, uint32_t total, format::uint128* lo,
                      format::uint128* hi) {
  const format::uint128 space = static_cast<format::uint128>(1) << 64;
  *lo = space * segment / total;
  *hi = space * (segment + 1) / total;
}

std::string HashBound(uint32_t space_id, format::uint128 hash) {
  std::string out;
  if (hash >> 64) {  // 2^64: the end of the table's key space
    format::PutFixed32BE(&out, space_id + 1);
  } else {
    format::PutFixed32BE(&out, space_id);
    format::PutFixed64BE(&out, static_cast<uint64_t>(hash));
  }
  return out;
}

}  // namespace

Result<QueryResponse> Database::Impl::RunPage(const TableInfo& table, const std::string& lower,
                                              const std::string& upper, bool forward,
                                              bool prefix_mode, std::optional<int32_t> limit,
                                              bool count_only) {
  QueryResponse response;
  if (!(lower < upper)) return response;
  rocksdb::Slice lo(lower), hi(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lo;
  ro.iterate_upper_bound = &hi;
  // A Query's range lies inside one collection prefix (table id | hash), so
  // RocksDB may use the prefix bloom filters; a Scan crosses prefixes.
  ro.auto_prefix_mode = prefix_mode;
  ro.total_order_seek = !prefix_mode;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, items_cf_));
  if (forward) {
    it->Seek(lo);
  } else {
    it->SeekForPrev(hi);
    if (it->Valid() && it->key().compare(hi) >= 0) it->Prev();
  }
  size_t page_bytes = 0;
  for (; it->Valid(); forward ? it->Next() : it->Prev()) {
    auto item = format::DecodeItem(std::string_view(it->value().data(), it->value().size()));
    if (!item.ok()) return item.status();
    page_bytes += format::ItemSize(*item);
    ++response.scanned_count;
    ++response.count;
    bool full = (limit && response.scanned_count >= *limit) || page_bytes >= options_.max_page_bytes;
    // DynamoDB does not look ahead: a page that ends on Limit or size carries
    // a LastEvaluatedKey even if nothing follows.
    if (full) response.last_evaluated_key = KeyOf(table, *item);
    if (!count_only) response.items.push_back(std::move(item).value());
    if (full) break;
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  return response;
}

Result<QueryResponse> Database::Impl::Query(const QueryRequest& r) {
  ConstraintErrors errors;
  errors.CheckTableName(r.table_name);
  DYNAROCK_RETURN_IF_ERROR(errors.ToStatus());
  if (r.limit && *r.limit < 1) {
    return Status::Validation(
        "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must "
        "have value greater than or equal to 1");
  }
  auto found = FindTable(r.table_name, false);
  if (!found.ok()) return found.status();
  TableState& state = **found;
  std::shared_lock alive(state.mu);
  if (state.deleted) return Status::ResourceNotFound();
  const TableInfo& table = state.info;

  DYNAROCK_RETURN_IF_ERROR(CheckSelect(r.select, "Querying"));
  std::string lower, upper;
  DYNAROCK_RETURN_IF_ERROR(KeyConditionRange(table, r.key_condition, &lower, &upper));

  if (r.exclusive_start_key) {
    auto esk = KeyMapPrimaryKey(table, *r.exclusive_start_key,
                                "The provided starting key is invalid: The provided key element "
                                "does not match the schema");
    if (!esk.ok()) return esk.status();
    if (!(*esk->partition == r.key_condition.partition_key_value)) {
      return Status::Validation(
          "The provided starting key is outside query boundaries based on provided conditions");
    }
    if (r.key_condition.sort && !Matches(*r.key_condition.sort, *esk->sort)) {
      return Status::Validation("The provided starting key does not match the range key predicate");
    }
    std::string key = esk->Encode(table.space_id).bytes();
    if (r.scan_index_forward) {
      lower = std::max(lower, After(key));
    } else {
      upper = std::min(upper, key);
    }
  }
  return RunPage(table, lower, upper, r.scan_index_forward, /*prefix_mode=*/true, r.limit,
                 r.select == Select::kCount);
}

Result<ScanResponse> Database::Impl::Scan(const ScanRequest& r) {
  ConstraintErrors errors;
  errors.CheckTableName(r.table_name);
  errors.CheckAtLeast(r.limit, 1, "limit");
  errors.CheckAtLeast(r.segment, 0, "segment");
  errors.CheckAtLeast(r.total_segments, 1, "totalSegments");
  if (r.segment && *r.segment > 999999) {
    errors.Add(std::to_string(*r.segment), "segment",
               "Member must have value less than or equal to 999999");
  }
  if (r.total_segments && *r.total_segments > 1000000) {
    errors.Add(std::to_string(*r.total_segments), "totalSegments",
               "Member must have value less than or equal to 1000000");
  }
  DYNAROCK_RETURN_IF_ERROR(errors.ToStatus());
  if (r.segment && !r.total_segments) {
    return Status::Validation(
        "The TotalSegments parameter is required but was not present in the request when "
        "Segment parameter is present");
  }
  if (r.total_segments && !r.segment) {
    return Status::Validation(
        "The Segment parameter is required but was not present in the request when parameter "
        "TotalSegments is present");
  }
  if (r.segment && *r.segment >= *r.total_segments) {
    return Status::Validation(
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
        "Segment: " + std::to_string(*r.segment) + " is not less than TotalSegments: " +
        std::to_string(*r.total_segments));
  }
  auto found = FindTable(r.table_name, false);
  if (!found.ok()) return found.status();
  TableState& state = **found;
  std::shared_lock alive(state.mu);
  if (state.deleted) return Status::ResourceNotFound();
  const TableInfo& table = state.info;
  DYNAROCK_RETURN_IF_ERROR(CheckSelect(r.select, "Scanning"));

  format::uint128 hash_lo = 0, hash_hi = static_cast<format::uint128>(1) << 64;
  if (r.segment) {
    SegmentHashRange(static_cast<uint32_t>(*r.segment), static_cast<uint32_t>(*r.total_segments),
                     &hash_lo, &hash_hi);
  }
  std::string lower = HashBound(table.space_id, hash_lo);
  std::string upper = HashBound(table.space_id, hash_hi);

  if (r.exclusive_start_key) {
    auto esk = KeyMapPrimaryKey(table, *r.exclusive_start_key,
                                "The provided starting key is invalid: The provided key element "
                                "does not match the schema");
    if (!esk.ok()) return esk.status();
    std::string key = esk->Encode(table.space_id).bytes();
    if (r.segment && !(lower <= key && key < upper)) {
      return Status::Validation(
          "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
          "ExclusiveStartKey with correct Segment. TotalSegments: " +
          std::to_string(*r.total_segments) + " Segment: " + std::to_string(*r.segment));
    }
    lower = std::max(lower, After(key));
  }
  return RunPage(table, lower, upper, /*forward=*/true, /*prefix_mode=*/false, r.limit,
                 r.select == Select::kCount);
}

}  // namespace dynarock
