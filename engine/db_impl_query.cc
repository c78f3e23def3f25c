// Query and Scan: a key range computed from the request, one seek, and a
// bounded iteration that stops at Limit or at the page size.
#include <rocksdb/iterator.h>

#include <set>

#include "engine/db_impl.h"
#include "engine/index.h"
#include "engine/request_expr.h"
#include "engine/model/checks.h"
#include "engine/validation.h"
#include "format/item_codec.h"
#include "format/item_size.h"

namespace dynarock {
namespace {

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
  return "AttributeValue: {" + std::string(AttrTypeName(v.type())) + ":" + text + "}";
}

bool Matches(const SortKeyCondition& c, const AttributeValue& sk) {
  auto cmp = [](const AttributeValue& a, const AttributeValue& b) {
    // Same key type (checked by the caller): compare as DynamoDB orders them,
    // which is exactly the order of their encodings.
    return Encoded(a) <=> Encoded(b);
  };
  switch (c.op) {
    case SortKeyOperator::kEq:
      return cmp(sk, c.value) == 0;
    case SortKeyOperator::kLt:
      return cmp(sk, c.value) < 0;
    case SortKeyOperator::kLe:
      return cmp(sk, c.value) <= 0;
    case SortKeyOperator::kGt:
      return cmp(sk, c.value) > 0;
    case SortKeyOperator::kGe:
      return cmp(sk, c.value) >= 0;
    case SortKeyOperator::kBetween:
      return cmp(sk, c.value) >= 0 && cmp(sk, *c.upper) <= 0;
    case SortKeyOperator::kBeginsWith: {
      const std::string& s = sk.is(AttrType::kS) ? sk.s() : sk.b();
      const std::string& p = c.value.is(AttrType::kS) ? c.value.s() : c.value.b();
      return s.compare(0, p.size(), p) == 0;
    }
  }
  return false;
}

const char* SelectName(Select s) {
  switch (s) {
    case Select::kAllAttributes:
      return "ALL_ATTRIBUTES";
    case Select::kAllProjectedAttributes:
      return "ALL_PROJECTED_ATTRIBUTES";
    case Select::kSpecificAttributes:
      return "SPECIFIC_ATTRIBUTES";
    case Select::kCount:
      return "COUNT";
  }
  return "?";
}

// Select against the projection parameters (`projection_param` names the one
// given, or is null).
Status CheckSelect(const std::optional<Select>& select, const char* verb,
                   const char* projection_param, const IndexInfo* index) {
  if (index && index->global && select == Select::kAllAttributes &&
      index->projection != ProjectionType::kAll) {
    return InvalidParameter(
        "Select type ALL_ATTRIBUTES is not supported for global secondary index " + index->name +
        " because its projection type is not ALL");
  }
  if (select == Select::kAllProjectedAttributes && index == nullptr) {
    return InvalidParameter(std::string("ALL_PROJECTED_ATTRIBUTES can be used only when ") + verb +
                            " using an IndexName");
  }
  if (select == Select::kSpecificAttributes && projection_param == nullptr) {
    return InvalidParameter(
        "Select type SPECIFIC_ATTRIBUTES requires a ProjectionExpression or AttributesToGet");
  }
  if (select && *select != Select::kSpecificAttributes && projection_param != nullptr) {
    // (With an index, ALL_PROJECTED_ATTRIBUTES is the default, not a choice.)
    return InvalidParameter(std::string("Cannot specify the ") + projection_param +
                            " when choosing to get " + SelectName(*select));
  }
  return Status::OK();
}

// A global secondary index cannot fetch from the table, so a projection
// may name only what it stores: the table's and its own keys, and its
// NonKeyAttributes (INCLUDE).
Status CheckProjectedOnIndex(const std::optional<std::vector<expr::Path>>& projection,
                             const TableInfo& table, const IndexInfo* index) {
  if (!projection || index == nullptr || !index->global) return Status::OK();
  for (const expr::Path& p : *projection) {
    if (!Projects(table, *index, p.root())) {
      return InvalidParameter("Global secondary index " + index->name +
                              " does not project the attribute " + p.root());
    }
  }
  return Status::OK();
}

// Filter and projection of a Query or Scan, compiled once for the request.
struct ReadExpressions {
  std::optional<expr::Condition> filter;
  std::optional<std::vector<expr::Path>> projection;
  const char* projection_param = nullptr;
};

Result<ReadExpressions> CompileRead(
    RequestExpressions* rx, const std::optional<std::string>& filter,
    const std::optional<std::map<std::string, LegacyCondition>>& legacy_filter,
    std::optional<ConditionalOperator> conditional_operator,
    const std::optional<std::string>& projection,
    const std::optional<std::vector<std::string>>& attributes_to_get) {
  ReadExpressions out;
  if (legacy_filter) {
    DYNAROCK_ASSIGN_OR_RETURN(auto f, ConditionFromFilter(*legacy_filter, conditional_operator));
    out.filter = std::move(f);
  } else {
    DYNAROCK_ASSIGN_OR_RETURN(auto f, rx->Condition(filter, expr::ExprKind::kFilter));
    out.filter = std::move(f);
  }
  if (attributes_to_get) {
    DYNAROCK_ASSIGN_OR_RETURN(out.projection, ProjectionFromAttributesToGet(*attributes_to_get));
    out.projection_param = "AttributesToGet";
  } else {
    DYNAROCK_ASSIGN_OR_RETURN(auto p, rx->Projection(projection));
    out.projection = std::move(p);
    if (out.projection) out.projection_param = "ProjectionExpression";
  }
  return out;
}

Status ConditionTypeMismatch() {
  return InvalidParameter("Condition parameter type does not match schema type");
}

// A key condition operand of key attribute `key`: of its type, and a value
// a key may hold (not empty, within the size limits).
Status CheckKeyOperand(const KeyAttribute& key, const AttributeValue& v, bool is_partition) {
  if (!v.is(format::ToAttrType(key.type))) return ConditionTypeMismatch();
  return CheckKeyValue(v, key.name, is_partition);
}

// The partition values a key condition gives, in KeySchema order: one
// equality on every partition component.
Status PartitionValues(const KeySpace& keys, const KeyCondition& kc,
                       std::vector<const AttributeValue*>* values) {
  if (!keys.multi_attribute()) {
    if (kc.partition_key_name != keys.partition[0].name) {
      return Status::Validation("Query condition missed key schema element: " +
                                keys.partition[0].name);
    }
    if (!kc.more_partition_keys.empty()) return KeyConditionNotSupported();
    values->push_back(&kc.partition_key_value);
    return CheckKeyOperand(keys.partition[0], kc.partition_key_value, true);
  }
  values->assign(keys.partition.size(), nullptr);
  auto add = [&](const std::string& name, const AttributeValue& v) -> Status {
    auto at = keys.PartitionPosition(name);
    if (!at) return name.empty() ? Status::OK() : KeyConditionNotSupported();
    if ((*values)[*at] != nullptr) return OneConditionPerKey();
    (*values)[*at] = &v;
    return Status::OK();
  };
  DYNAROCK_RETURN_IF_ERROR(add(kc.partition_key_name, kc.partition_key_value));
  for (const KeyEquality& e : kc.more_partition_keys) {
    DYNAROCK_RETURN_IF_ERROR(add(e.attribute_name, e.value));
  }
  for (size_t i = 0; i < keys.partition.size(); ++i) {
    if ((*values)[i] == nullptr) return HashNeedsEquality(keys.partition[i].name, true);
  }
  for (size_t i = 0; i < keys.partition.size(); ++i) {
    DYNAROCK_RETURN_IF_ERROR(CheckKeyOperand(keys.partition[i], *(*values)[i], true));
  }
  return Status::OK();
}

// The sort component `kc.sort` conditions, with the equalities before it
// appended to *prefix in KeySchema order: every sort component before it
// needs one, and no other may have one.
Result<const KeyAttribute*> SortComponent(const KeySpace& keys, const KeyCondition& kc,
                                          std::string* prefix) {
  const SortKeyCondition& c = *kc.sort;
  if (!keys.multi_attribute()) {
    if (c.attribute_name == keys.partition[0].name) return OneConditionPerKey();
    if (keys.sort.empty()) return KeyConditionNotSupported();
    if (c.attribute_name != keys.sort[0].name) {
      return Status::Validation("Query condition missed key schema element: " + keys.sort[0].name);
    }
    if (!kc.sort_equalities.empty()) return KeyConditionNotSupported();
    return &keys.sort[0];
  }
  if (keys.PartitionPosition(c.attribute_name)) return OneConditionPerKey();
  const auto last = keys.SortPosition(c.attribute_name);
  if (!last) return KeyConditionNotSupported();
  std::vector<const AttributeValue*> equal(*last, nullptr);
  for (const KeyEquality& e : kc.sort_equalities) {
    const auto at = keys.SortPosition(e.attribute_name);
    if (at == last) return OneConditionPerKey();
    if (!at || *at > *last) return RangeNeedsEquality(c.attribute_name, e.attribute_name);
    if (equal[*at] != nullptr) return OneConditionPerKey();
    equal[*at] = &e.value;
  }
  for (size_t i = 0; i < *last; ++i) {
    if (equal[i] == nullptr) return RangeNeedsEquality(keys.sort[i].name, c.attribute_name);
  }
  for (size_t i = 0; i < *last; ++i) {
    DYNAROCK_RETURN_IF_ERROR(CheckKeyOperand(keys.sort[i], *equal[i], false));
    prefix->append(Encoded(*equal[i]));
  }
  return &keys.sort[*last];
}

// Checks the key condition against the key schema and returns the byte
// range [*lower, *upper) of the items (or index entries) it selects, and
// the partition values it names in KeySchema order (pointers into `kc`).
Status KeyConditionRange(const KeySpace& keys, const KeyCondition& kc, std::string* lower,
                         std::string* upper, std::vector<const AttributeValue*>* partition) {
  DYNAROCK_RETURN_IF_ERROR(PartitionValues(keys, kc, partition));
  std::string prefix = format::CollectionPrefix(keys.space_id, *partition).bytes();
  *lower = prefix;
  *upper = Successor(prefix);
  if (!kc.sort) {
    if (!kc.sort_equalities.empty()) return KeyConditionNotSupported();
    return Status::OK();
  }

  const SortKeyCondition& c = *kc.sort;
  DYNAROCK_ASSIGN_OR_RETURN(const KeyAttribute* sort_key, SortComponent(keys, kc, &prefix));
  const AttrType sk_type = format::ToAttrType(sort_key->type);
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
    DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(c.value, sort_key->name, false));
  }
  if (c.upper) DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(*c.upper, sort_key->name, false));

  // Earlier sort components' equalities are in `prefix`: the range is
  // within it whatever the last condition.
  *lower = prefix;
  *upper = Successor(prefix);
  const std::string at = prefix + Encoded(c.value);
  switch (c.op) {
    case SortKeyOperator::kEq:
      *lower = at;
      *upper = Successor(at);
      break;
    case SortKeyOperator::kLt:
      *upper = at;
      break;
    case SortKeyOperator::kLe:
      *upper = Successor(at);
      break;
    case SortKeyOperator::kGt:
      *lower = Successor(at);
      break;
    case SortKeyOperator::kGe:
      *lower = at;
      break;
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

// An LSI fetches from the table what it does not project: everything for
// ALL_ATTRIBUTES, and whatever a projection names (fetching the item is the
// simple way to have every named attribute). GSIs never fetch.
bool FetchesTableItems(const IndexInfo* index, const std::optional<Select>& select,
                       bool has_projection) {
  if (index == nullptr || index->global || index->projection == ProjectionType::kAll) return false;
  return select == Select::kAllAttributes || has_projection;
}

// What a Query or Scan reads: the table, or one of its indexes. `keys` is the
// key schema (and key space) the request's key condition and start key use.
struct ReadTarget {
  const IndexInfo* index = nullptr;
  KeySpace keys;
};

// `op` names the operation (Query or Scan): a vector index is read by
// SearchVectors only.
Result<ReadTarget> ResolveTarget(const TableInfo& table,
                                 const std::optional<std::string>& index_name, bool consistent_read,
                                 std::string_view op) {
  ReadTarget t;
  if (!index_name) {
    t.keys = table.key_space();
    return t;
  }
  t.index = table.FindIndex(*index_name);
  if (t.index == nullptr && table.FindVectorIndex(*index_name)) {
    return Status::Validation(std::string(op) + " operation not supported on this index type");
  }
  if (t.index == nullptr) {
    return Status::Validation("The table does not have the specified index: " + *index_name);
  }
  if (t.index->global && consistent_read) {
    return Status::Validation("Consistent reads are not supported on global secondary indexes");
  }
  if (t.index->backfilling) {
    return Status::Validation("Cannot read from backfilling global secondary index: " +
                              *index_name);
  }
  t.keys = KeySpace::Of(*t.index);
  return t;
}

constexpr char kBadStartKey[] =
    "The provided starting key is invalid: The provided key element does not match the schema";

// The full RocksDB key an ExclusiveStartKey names: a table key, or for an
// index the index keys (every component) followed by the table keys.
Result<std::string> StartKey(const TableInfo& table, const ReadTarget& target, const Item& esk) {
  if (target.index == nullptr) {
    DYNAROCK_ASSIGN_OR_RETURN(auto key, KeyMapPrimaryKey(table, esk, kBadStartKey));
    return key.Encode(table.space_id).bytes();
  }
  const IndexInfo& index = *target.index;
  std::vector<const KeyAttribute*> attrs = {&table.partition_key};
  if (table.sort_key) attrs.push_back(&*table.sort_key);
  index.ForEachKeyAttribute([&](const KeyAttribute& k, bool) { attrs.push_back(&k); });
  std::set<std::string> names;
  for (const KeyAttribute* a : attrs) {
    names.insert(a->name);
    auto it = esk.find(a->name);
    if (it == esk.end() || !it->second.is(format::ToAttrType(a->type))) {
      return Status::Validation(kBadStartKey);
    }
  }
  if (esk.size() != names.size()) return Status::Validation(kBadStartKey);
  auto key = IndexKeyFor(table, index, esk);
  if (!key) return Status::Validation(kBadStartKey);
  return key->bytes();
}

// The key attributes of the entry at RocksDB key `key`, as LastEvaluatedKey:
// every component of the index's key, and the table's.
Result<Item> EvaluatedKey(const TableInfo& table, const IndexInfo* index, std::string_view key) {
  Item out;
  if (index == nullptr) {
    DYNAROCK_ASSIGN_OR_RETURN(auto k, format::DecodeItemKey(key, table.key_types()));
    out.emplace(table.partition_key.name, std::move(k.pk));
    if (table.sort_key) out.emplace(table.sort_key->name, std::move(*k.sk));
    return out;
  }
  DYNAROCK_ASSIGN_OR_RETURN(auto k,
                            format::DecodeIndexKey(key, index->key_types(), table.key_types()));
  out.emplace(index->partition_key.name, std::move(k.index.pk));
  for (size_t i = 0; i < k.index.more_pk.size(); ++i) {
    out.emplace(index->more_partition_keys[i].name, std::move(k.index.more_pk[i]));
  }
  if (index->sort_key) out.emplace(index->sort_key->name, std::move(*k.index.sk));
  for (size_t i = 0; i < k.index.more_sk.size(); ++i) {
    out.emplace(index->more_sort_keys[i].name, std::move(k.index.more_sk[i]));
  }
  out.emplace(table.partition_key.name, std::move(k.pk));
  if (table.sort_key) out.emplace(table.sort_key->name, std::move(*k.sk));
  return out;
}

// The entries of a page's key range in the page's order. Newest first,
// RocksDB's Prev costs about one and a half times Next (every step back
// re-merges the sorted runs and re-finds the newest version of the key), so a
// newest-first page whose whole range is small is read oldest first into a
// buffer and replayed backwards: the same entries in the same order, so the
// same page. A range too large for the buffer is read backwards as before.
class PageCursor {
 public:
  PageCursor(rocksdb::Iterator* it, bool forward) : it_(it), forward_(forward) {}

  // Positions at the first entry of [lower, upper) in the page's order.
  // `buffer_bytes` > 0 allows the buffered replay of a newest-first page
  // whose range holds at most that many value bytes.
  void Start(const rocksdb::Slice& lower, const rocksdb::Slice& upper, size_t buffer_bytes) {
    if (forward_) {
      it_->Seek(lower);
      return;
    }
    if (buffer_bytes > 0) {
      size_t bytes = 0;
      for (it_->Seek(lower); it_->Valid() && bytes <= buffer_bytes; it_->Next()) {
        keys_.push_back(bytes_.Copy(std::string_view(it_->key().data(), it_->key().size())));
        values_.push_back(
            bytes_.Copy(std::string_view(it_->value().data(), it_->value().size())));
        bytes += it_->value().size();
      }
      if (!it_->Valid()) {  // the whole range, or an error (status() reports it)
        buffered_ = true;
        next_ = keys_.size();
        return;
      }
      keys_.clear();
      values_.clear();
      bytes_ = ByteArena();
    }
    it_->SeekForPrev(upper);
    if (it_->Valid() && it_->key().compare(upper) >= 0) it_->Prev();
  }
  bool Valid() const { return buffered_ ? next_ > 0 : it_->Valid(); }
  void Advance() {
    if (buffered_) {
      --next_;
    } else if (forward_) {
      it_->Next();
    } else {
      it_->Prev();
    }
  }
  std::string_view key() const {
    return buffered_ ? keys_[next_ - 1] : std::string_view(it_->key().data(), it_->key().size());
  }
  std::string_view value() const {
    return buffered_ ? values_[next_ - 1]
                     : std::string_view(it_->value().data(), it_->value().size());
  }
  rocksdb::Status status() const { return it_->status(); }

 private:
  rocksdb::Iterator* it_;
  const bool forward_;
  bool buffered_ = false;
  ByteArena bytes_;
  std::vector<std::string_view> keys_, values_;
  size_t next_ = 0;  // buffered: entries [0, next_) are still to come
};

}  // namespace

Result<QueryResponse> Database::Impl::RunPage(const TableInfo& table, const PageSpec& spec,
                                              PageCost* cost) {
  QueryResponse response;
  *cost = {};
  if (!(spec.lower < spec.upper)) return response;
  rocksdb::Slice lo(spec.lower), hi(spec.upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lo;
  ro.iterate_upper_bound = &hi;
  // A Query's range lies inside one collection prefix (table id | hash), so
  // RocksDB may use the prefix bloom filters; a Scan crosses prefixes.
  ro.auto_prefix_mode = spec.prefix_mode;
  ro.total_order_seek = !spec.prefix_mode;
  // An LSI entry and the table item it points to are read from one snapshot,
  // so a concurrent write cannot pair an entry with another version.
  std::shared_ptr<const rocksdb::Snapshot> snapshot;
  if (spec.fetch_table_item) {
    snapshot.reset(db_->GetSnapshot(),
                   [this](const rocksdb::Snapshot* s) { db_->ReleaseSnapshot(s); });
    ro.snapshot = snapshot.get();
  }
  std::unique_ptr<rocksdb::Iterator> rocks_it(
      db_->NewIterator(ro, spec.index ? indexes_cf_ : items_cf_));
  PageCursor it(rocks_it.get(), spec.forward);
  // Buffered only when the page is bounded by its size alone: with a Limit
  // the backward read stops early, and an LSI page fetches table items from
  // its snapshot as it goes. Twice the page's bytes: a range past that is not
  // one page anyway.
  const bool may_buffer = !spec.limit && !spec.fetch_table_item;
  it.Start(lo, hi, may_buffer ? 2 * options_.max_page_bytes : 0);
  const bool stored = spec.encoding == ItemEncoding::kStored;
  // Items handed back as read are copied once, straight into the page, and
  // only if the filter keeps them.
  const bool as_read = stored && !spec.fetch_table_item && !spec.projection && !spec.count_only;
  // Reused: a table item's key attributes, encoded for its view (or an
  // item an older Dynarock stored, re-encoded).
  std::string scratch;
  const format::StoredKeySchema stored_key = StoredKey(table, spec.index);
  size_t page_bytes = 0;
  for (; it.Valid(); it.Advance()) {
    const std::string_view read = it.value();
    // Our own bytes, checksummed by RocksDB: read in place, decoded on
    // demand; the view holds the attributes the key holds beside.
    DYNAROCK_ASSIGN_OR_RETURN(ItemView view,
                              format::OpenStoredItem(it.key(), read, stored_key, &scratch));
    page_bytes += format::ItemSize(view);  // the 1 MB counts what was read
    ++response.scanned_count;
    std::optional<Item> table_item;  // an LSI entry's full item, when fetched
    if (spec.fetch_table_item) {
      auto k = EvaluatedKey(table, spec.index, it.key());
      if (!k.ok()) return k.status();
      const AttributeValue* sk = table.sort_key ? &k->at(table.sort_key->name) : nullptr;
      auto fetched =
          ReadItem(table,
                   format::EncodeItemKey(table.space_id, k->at(table.partition_key.name), sk),
                   snapshot.get());
      if (!fetched.ok()) return fetched.status();
      table_item = std::move(fetched).value();
      // DynamoDB charges each fetch as a read of the whole table item.
      cost->fetched_4k_units += (format::ItemSize(*table_item) + 4095) / 4096;
    }
    bool match =
        !spec.filter || (table_item ? expr::Evaluate(*spec.filter, expr::ItemDocument(&*table_item))
                                    : expr::Evaluate(*spec.filter, expr::ViewDocument(view)));
    if (match) ++response.count;
    if (as_read) {
      if (match) response.stored_items.push_back(view);
    } else if (match && !spec.count_only) {
      Item item;
      if (table_item) {
        item = std::move(*table_item);
      } else {
        DYNAROCK_ASSIGN_OR_RETURN(auto decoded, view.Decode());
        item = std::move(decoded);
      }
      if (spec.projection) item = expr::Project(item, *spec.projection);
      if (stored) {
        format::EncodeItem(item, &scratch);
        response.stored_items.push_back(ItemView::OpenTrusted(scratch));
      } else {
        response.items.push_back(std::move(item));
      }
    }
    // DynamoDB does not look ahead: a page that ends on Limit or size carries
    // a LastEvaluatedKey even if nothing follows.
    if ((spec.limit && response.scanned_count >= *spec.limit) ||
        page_bytes >= options_.max_page_bytes) {
      auto lek = EvaluatedKey(table, spec.index, it.key());
      if (!lek.ok()) return lek.status();
      response.last_evaluated_key = std::move(lek).value();
      break;
    }
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it.status()));
  cost->bytes = page_bytes;
  return response;
}

Result<QueryResponse> Database::Impl::Query(const QueryRequest& r) {
  DYNAROCK_ASSIGN_OR_RETURN(RequestExpressions rx, Prologue(r));

  // The wire's two forms become terms (each checks its own shape), then
  // one typed KeyCondition, which embedded callers may give directly.
  KeyCondition key_condition = r.key_condition;
  std::optional<std::vector<KeyTerm>> terms;
  if (r.key_condition_expression) {
    DYNAROCK_ASSIGN_OR_RETURN(
        auto parsed, rx.Condition(r.key_condition_expression, expr::ExprKind::kKeyCondition));
    DYNAROCK_ASSIGN_OR_RETURN(terms, KeyTermsFromExpression(*parsed));
  } else if (r.key_conditions) {
    DYNAROCK_ASSIGN_OR_RETURN(terms, KeyTermsFromLegacy(*r.key_conditions));
  }
  DYNAROCK_ASSIGN_OR_RETURN(
      auto read, CompileRead(&rx, r.filter_expression, r.query_filter, r.conditional_operator,
                             r.projection_expression, r.attributes_to_get));
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  // Only now the table (VALIDATION.md 0: checks without it come first).
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(r.table_name));
  const TableInfo& table = handle->info();
  DYNAROCK_ASSIGN_OR_RETURN(auto target,
                            ResolveTarget(table, r.index_name, r.consistent_read, "Query"));
  const KeySpace& keys = target.keys;
  if (r.key_conditions && !keys.multi_attribute() && r.key_conditions->size() > 2) {
    return LegacyConditionCount();
  }
  if (read.filter) {
    DYNAROCK_RETURN_IF_ERROR(CheckFilterAvoidsKeys(
        *read.filter, keys, r.query_filter ? "QueryFilter" : "Filter Expression"));
  }
  DYNAROCK_RETURN_IF_ERROR(CheckSelect(r.select, "Querying", read.projection_param, target.index));
  DYNAROCK_RETURN_IF_ERROR(CheckProjectedOnIndex(read.projection, table, target.index));
  if (terms) {
    DYNAROCK_ASSIGN_OR_RETURN(key_condition, BindKeyTerms(std::move(*terms), keys));
  }
  std::string lower, upper;
  std::vector<const AttributeValue*> partition;  // one value per partition component
  DYNAROCK_RETURN_IF_ERROR(KeyConditionRange(keys, key_condition, &lower, &upper, &partition));

  if (r.exclusive_start_key) {
    DYNAROCK_ASSIGN_OR_RETURN(auto key, StartKey(table, target, *r.exclusive_start_key));
    const Item& esk = *r.exclusive_start_key;
    for (size_t i = 0; i < keys.partition.size(); ++i) {
      if (!(esk.at(keys.partition[i].name) == *partition[i])) {
        return Status::Validation(
            "The provided starting key is outside query boundaries based on provided "
            "conditions");
      }
    }
    bool in_range = !key_condition.sort ||
                    Matches(*key_condition.sort, esk.at(key_condition.sort->attribute_name));
    for (const KeyEquality& e : key_condition.sort_equalities) {
      in_range = in_range && esk.at(e.attribute_name) == e.value;
    }
    if (!in_range) {
      return Status::Validation("The provided starting key does not match the range key predicate");
    }
    if (r.scan_index_forward) {
      lower = std::max(lower, After(key));
    } else {
      upper = std::min(upper, key);
    }
  }
  PageSpec spec{lower,
                upper,
                r.scan_index_forward,
                /*prefix_mode=*/true,
                r.limit,
                r.select == Select::kCount,
                read.filter ? &*read.filter : nullptr,
                read.projection ? &*read.projection : nullptr,
                target.index,
                FetchesTableItems(target.index, r.select, read.projection.has_value()),
                r.item_encoding};
  DYNAROCK_RETURN_IF_ERROR(AdmitCollection(table, target.index, partition, /*write=*/false));
  PageCost cost;
  DYNAROCK_ASSIGN_OR_RETURN(auto page, RunPage(table, spec, &cost));
  // Query: the bytes read, rounded up once; an LSI's fetches on the table.
  CapacityMeter meter(r.return_consumed_capacity);
  const double units = ReadUnits(static_cast<int64_t>(cost.bytes), r.consistent_read);
  meter.Read(table.name, target.index, units);
  if (cost.fetched_4k_units) meter.Read(table.name, nullptr, cost.FetchUnits(r.consistent_read));
  RecordCollection(table, target.index, partition, units + cost.FetchUnits(r.consistent_read), 0);
  page.consumed_capacity = meter.For(table.name);
  return page;
}

Result<ScanResponse> Database::Impl::Scan(const ScanRequest& r) {
  DYNAROCK_ASSIGN_OR_RETURN(RequestExpressions rx, Prologue(r));
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
        "Segment: " +
        std::to_string(*r.segment) +
        " is not less than TotalSegments: " + std::to_string(*r.total_segments));
  }
  DYNAROCK_ASSIGN_OR_RETURN(
      auto read, CompileRead(&rx, r.filter_expression, r.scan_filter, r.conditional_operator,
                             r.projection_expression, r.attributes_to_get));
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());
  // Only now the table (VALIDATION.md 0: checks without it come first).
  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(r.table_name));
  const TableInfo& table = handle->info();
  DYNAROCK_ASSIGN_OR_RETURN(auto target,
                            ResolveTarget(table, r.index_name, r.consistent_read, "Scan"));
  const uint32_t space_id = target.keys.space_id;
  DYNAROCK_RETURN_IF_ERROR(CheckSelect(r.select, "Scanning", read.projection_param, target.index));
  DYNAROCK_RETURN_IF_ERROR(CheckProjectedOnIndex(read.projection, table, target.index));

  Number::uint128 hash_lo = 0, hash_hi = static_cast<Number::uint128>(1) << 64;
  if (r.segment) {
    SegmentHashRange(static_cast<uint32_t>(*r.segment), static_cast<uint32_t>(*r.total_segments),
                     &hash_lo, &hash_hi);
  }
  std::string lower = HashBound(space_id, hash_lo);
  std::string upper = HashBound(space_id, hash_hi);

  if (r.exclusive_start_key) {
    DYNAROCK_ASSIGN_OR_RETURN(auto start, StartKey(table, target, *r.exclusive_start_key));
    const std::string& key = start;
    if (r.segment && !(lower <= key && key < upper)) {
      return Status::Validation(
          "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
          "ExclusiveStartKey with correct Segment. TotalSegments: " +
          std::to_string(*r.total_segments) + " Segment: " + std::to_string(*r.segment));
    }
    lower = std::max(lower, After(key));
  }
  PageSpec spec{lower,
                upper,
                /*forward=*/true,
                /*prefix_mode=*/false,
                r.limit,
                r.select == Select::kCount,
                read.filter ? &*read.filter : nullptr,
                read.projection ? &*read.projection : nullptr,
                target.index,
                FetchesTableItems(target.index, r.select, read.projection.has_value()),
                r.item_encoding};
  DYNAROCK_RETURN_IF_ERROR(AdmitMaximum(table, target.index, /*write=*/false));
  PageCost cost;
  DYNAROCK_ASSIGN_OR_RETURN(auto page, RunPage(table, spec, &cost));
  // Scan: every item evaluated, whatever the filter, rounded up once; an
  // LSI's fetches on the table.
  CapacityMeter meter(r.return_consumed_capacity);
  meter.Read(table.name, target.index,
             ScanReadUnits(static_cast<int64_t>(cost.bytes), r.consistent_read,
                           r.total_segments ? static_cast<uint32_t>(*r.total_segments) : 1));
  if (cost.fetched_4k_units) meter.Read(table.name, nullptr, cost.FetchUnits(r.consistent_read));
  ChargeMaximum(table, target.index,
                ScanReadUnits(static_cast<int64_t>(cost.bytes), r.consistent_read,
                              r.total_segments ? static_cast<uint32_t>(*r.total_segments) : 1) +
                    cost.FetchUnits(r.consistent_read),
                0);
  page.consumed_capacity = meter.For(table.name);
  return page;
}

}  // namespace dynarock
