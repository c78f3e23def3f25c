// SearchVectors: the exact nearest items of a vector index's collection.
// Every entry of the collection (the HASH value's, or the whole index) is
// read once, in key order, its vector scored against the search vector and
// kept if it ranks in the top K; ties go to the first in key order.
#include <rocksdb/iterator.h>

#include <unordered_map>

#include "engine/db_impl.h"
#include "engine/request_expr.h"
#include "engine/vector_index.h"
#include "format/item_codec.h"
#include "format/vector.h"

namespace dynarock {
namespace {

// SearchConditionExpression: an AND of `attribute = :value` on search
// attributes, one per attribute; the HASH one required when the index has
// it. Fills *hash and *filters (name, value).
Status BindSearchCondition(const expr::Condition* condition, const VectorIndexInfo& index,
                           std::optional<AttributeValue>* hash,
                           std::vector<std::pair<std::string, AttributeValue>>* filters) {
  std::vector<const expr::Condition*> parts;
  if (condition) CollectAnd(*condition, &parts);
  std::set<std::string> seen;
  for (const expr::Condition* c : parts) {
    const bool equality = c->kind == expr::Condition::Kind::kCompare &&
                          c->op == expr::Comparator::kEq && c->operands.size() == 2;
    if (!equality) {
      return Status::Validation(
          "Invalid SearchConditionExpression: Invalid comparator used in "
          "SearchConditionExpression");
    }
    const expr::Operand* path = &c->operands[0];
    const expr::Operand* value = &c->operands[1];
    if (path->kind == expr::Operand::Kind::kValue) std::swap(path, value);
    if (path->kind != expr::Operand::Kind::kPath || value->kind != expr::Operand::Kind::kValue) {
      return Status::Validation(
          "Invalid SearchConditionExpression: Invalid comparator used in "
          "SearchConditionExpression");
    }
    if (path->path.nested()) {
      return Status::Validation(
          "Invalid SearchConditionExpression: SearchConditionExpression cannot have conditions "
          "on nested attributes");
    }
    const std::string& name = path->path.root();
    if (!seen.insert(name).second) {
      return Status::Validation(
          "Invalid SearchConditionExpression: SearchConditionExpression must only contain one "
          "condition per attribute");
    }
    const KeyAttribute* attr = nullptr;
    if (index.hash && index.hash->name == name) attr = &*index.hash;
    for (const auto& f : index.inline_filters) {
      if (f.name == name) attr = &f;
    }
    if (attr == nullptr) {
      return Status::Validation(
          "SearchConditionExpression must not contain any attributes that is not in "
          "SearchSchema. Invalid attribute: " +
          name);
    }
    const AttrType want = format::ToAttrType(attr->type);
    if (!value->value.is(want)) {
      return Status::Validation("Type of '" + name + "' attribute in SearchConditionExpression (" +
                                std::string(AttrTypeName(value->value.type())) +
                                ") does not match type in search schema (" +
                                std::string(AttrTypeName(want)) + ")");
    }
    if (attr == &*index.hash) {
      DYNAROCK_RETURN_IF_ERROR(CheckKeyValue(value->value, name, true));
      *hash = value->value;
    } else {
      filters->emplace_back(name, value->value);
    }
  }
  if (index.hash && !*hash) {
    return Status::Validation(
        "SearchConditionExpression must be provided when SearchSchema has a HASH key");
  }
  return Status::OK();
}

}  // namespace

Result<SearchVectorsResponse> Database::Impl::SearchVectors(const SearchVectorsRequest& r) {
  if (r.top_k < 1 || r.top_k > 100) {
    return Status::Validation("Provided TopK value '" + std::to_string(r.top_k) +
                              "' is out of valid range. The value must be between 1 and 100 "
                              "inclusive");
  }
  RequestExpressions rx(r.expression_attribute_names, r.expression_attribute_values);
  rx.Expression("SearchConditionExpression", r.search_condition_expression.has_value());
  rx.Expression("ProjectionExpression", r.projection_expression.has_value());
  DYNAROCK_RETURN_IF_ERROR(rx.CheckParameters());
  DYNAROCK_ASSIGN_OR_RETURN(auto condition, rx.Condition(r.search_condition_expression,
                                                         expr::ExprKind::kSearchCondition));
  DYNAROCK_ASSIGN_OR_RETURN(auto projection, rx.Projection(r.projection_expression));
  DYNAROCK_RETURN_IF_ERROR(rx.Finish());

  DYNAROCK_ASSIGN_OR_RETURN(auto handle, AcquireTable(r.table_name));
  const TableInfo& table = handle->info();
  const VectorIndexInfo* index = nullptr;
  for (const auto& v : table.vector_indexes) {
    if (v.name == r.index_name) index = &v;
  }
  if (index == nullptr) {
    return Status::Validation("The table does not have the specified index: " + r.index_name);
  }
  if (index->backfilling) {
    return Status::Validation("Cannot search backfilling vector index: " + r.index_name);
  }
  std::optional<AttributeValue> hash;
  std::vector<std::pair<std::string, AttributeValue>> filters;
  DYNAROCK_RETURN_IF_ERROR(
      BindSearchCondition(condition ? &*condition : nullptr, *index, &hash, &filters));
  std::vector<float> query;
  DYNAROCK_RETURN_IF_ERROR(format::ToSearchVector(r.search_vector, index->dimensions, &query));

  const auto [lower, upper] = VectorSearchRange(*index, hash ? &*hash : nullptr);
  rocksdb::Slice lo(lower), hi(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lo;
  ro.iterate_upper_bound = &hi;
  ro.total_order_seek = !hash;
  ro.auto_prefix_mode = hash.has_value();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, vectors_cf_));
  const size_t vector_bytes = 4 * static_cast<size_t>(index->dimensions);
  const format::VectorDistance distance = ToVectorDistance(index->distance);
  format::TopVectors top(distance, static_cast<size_t>(r.top_k));
  // The values of the entries kept so far, by the position they were
  // offered at: at most TopK + 1 copies, whatever the collection's size.
  std::unordered_map<size_t, std::string> kept;
  size_t offered = 0;
  std::vector<float> candidate;
  std::string scratch;
  int64_t read_bytes = 0;
  for (it->Seek(lo); it->Valid(); it->Next()) {
    const std::string_view value(it->value().data(), it->value().size());
    read_bytes += static_cast<int64_t>(value.size());
    DYNAROCK_RETURN_IF_ERROR(format::GetVector(
        value.substr(0, std::min(value.size(), vector_bytes)), index->dimensions, &candidate));
    if (!filters.empty()) {  // INLINE_FILTER equalities, inside the search
      DYNAROCK_ASSIGN_OR_RETURN(ItemView view,
                                format::OpenStoredItem(value.substr(vector_bytes), &scratch));
      bool match = true;
      for (const auto& [name, want] : filters) {
        auto got = view.Find(name);
        if (!got) {
          match = false;
          break;
        }
        DYNAROCK_ASSIGN_OR_RETURN(AttributeValue decoded, got->Decode());
        if (!(decoded == want)) {
          match = false;
          break;
        }
      }
      if (!match) continue;
    }
    const size_t id = offered++;
    const std::optional<size_t> dropped =
        top.Offer(format::VectorScore(distance, query, candidate), id);
    if (dropped != id) kept.emplace(id, value);
    if (dropped && *dropped != id) kept.erase(*dropped);
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));

  SearchVectorsResponse response;
  for (const auto& hit : std::move(top).Take()) {
    const std::string_view value = kept.at(hit.id);
    DYNAROCK_ASSIGN_OR_RETURN(ItemView view,
                              format::OpenStoredItem(value.substr(vector_bytes), &scratch));
    DYNAROCK_ASSIGN_OR_RETURN(Item item, view.Decode());
    if (projection) {
      item = expr::Project(item, *projection);
    } else {
      item.erase(index->vector_attribute);  // returned only when projected by name
    }
    response.search_results.push_back({std::move(item), hit.score});
  }
  if (r.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    response.vector_search_request_bytes = std::max<int64_t>(read_bytes, 1024);
  }
  return response;
}

}  // namespace dynarock
