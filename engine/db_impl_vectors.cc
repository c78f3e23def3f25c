// SearchVectors: the nearest items of a vector index's collection. Every
// entry of the collection (the HASH value's, or the whole index) is read
// once, in key order, its vector scored against the search vector and kept
// if it ranks in the top K; ties go to the first in key order. A collection
// over Options::vector_exact_limit has an HNSW graph (engine/vector_graph.h)
// once built: only the candidates it proposes are read and scored.
#include <rocksdb/iterator.h>

#include <map>
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
  // Whether an entry matches the INLINE_FILTER equalities.
  auto matches = [&](std::string_view value) -> Result<bool> {
    if (filters.empty()) return true;
    DYNAROCK_ASSIGN_OR_RETURN(ItemView view,
                              format::OpenStoredItem(value.substr(vector_bytes), &scratch));
    for (const auto& [name, want] : filters) {
      auto got = view.Find(name);
      if (!got) return false;
      DYNAROCK_ASSIGN_OR_RETURN(AttributeValue decoded, got->Decode());
      if (!(decoded == want)) return false;
    }
    return true;
  };
  // One entry of the collection: scored and offered if it matches (inside
  // the search, so that TopK matching entries are found when they exist).
  // A matching entry, scored and kept if it ranks in the top K.
  auto offer = [&](std::string_view value) -> Status {
    DYNAROCK_RETURN_IF_ERROR(format::GetVector(
        value.substr(0, std::min(value.size(), vector_bytes)), index->dimensions, &candidate));
    const size_t id = offered++;
    const std::optional<size_t> dropped =
        top.Offer(format::VectorScore(distance, query, candidate), id);
    if (dropped != id) kept.emplace(id, value);
    if (dropped && *dropped != id) kept.erase(*dropped);
    return Status::OK();
  };
  auto consider = [&](std::string_view value) -> Status {
    read_bytes += static_cast<int64_t>(value.size());
    DYNAROCK_ASSIGN_OR_RETURN(const bool match, matches(value));
    return match ? offer(value) : Status::OK();
  };

  // A collection with a graph: the candidates it proposes, read and scored
  // exactly. With filters, TopK candidates may hold fewer than TopK
  // matches: the search asks for 4 x TopK, then four times more each round
  // (reading only the new ones) until TopK match. The TopK matches nearest
  // among the c nearest entries are the TopK nearest matches (any nearer
  // match would be among the c), so a round that finds them is done. Past
  // 4 x max(TopK, ef_search) candidates (a selective filter), the search
  // is exact after all.
  const std::string bucket(VectorBucket(lower, index->hash.has_value()));
  const auto top_k = static_cast<size_t>(r.top_k);
  bool exact = true;
  if (std::shared_ptr<VectorGraph> graph = graphs_->Ready(bucket)) {
    const size_t most = 4 * std::max(top_k, options_.vector_graph_ef_search);
    // Every entry read, by key (key order: ties go to the first key); the
    // value only for those that match, each filter checked once.
    std::map<std::string, std::optional<std::string>> fetched;
    size_t matching = 0;
    size_t proposed = 0;
    for (size_t c = filters.empty() ? top_k : 4 * top_k;; c = std::min(4 * c, most)) {
      const std::vector<std::string> candidates = graph->Search(query.data(), c);
      proposed = candidates.size();
      std::vector<std::string> fresh;
      for (const std::string& key : candidates) {
        // The bucket may hold another HASH value of the same hash.
        if (key >= lower && key < upper && !fetched.contains(key)) fresh.push_back(key);
      }
      std::sort(fresh.begin(), fresh.end());
      std::vector<rocksdb::Slice> keys(fresh.begin(), fresh.end());
      std::vector<rocksdb::PinnableSlice> values(keys.size());
      std::vector<rocksdb::Status> statuses(keys.size());
      db_->MultiGet(rocksdb::ReadOptions(), vectors_cf_, keys.size(), keys.data(), values.data(),
                    statuses.data());
      for (size_t i = 0; i < keys.size(); ++i) {
        if (statuses[i].IsNotFound()) continue;  // removed since the graph proposed it
        DYNAROCK_RETURN_IF_ERROR(FromRocks(statuses[i]));
        const std::string_view value(values[i].data(), values[i].size());
        read_bytes += static_cast<int64_t>(value.size());
        DYNAROCK_ASSIGN_OR_RETURN(const bool match, matches(value));
        matching += match;
        fetched.emplace(std::move(fresh[i]),
                        match ? std::optional<std::string>(value) : std::nullopt);
      }
      if (matching >= top_k || proposed < c || c >= most) break;
    }
    for (const auto& [key, value] : fetched) {
      if (value) DYNAROCK_RETURN_IF_ERROR(offer(*value));
    }
    exact = offered < top_k && proposed < graph->size();
    if (exact) {
      top = format::TopVectors(distance, top_k);
      kept.clear();
      offered = 0;
    }
  }
  if (exact) {
    rocksdb::Slice lo(lower), hi(upper);
    rocksdb::ReadOptions ro;
    ro.iterate_lower_bound = &lo;
    ro.iterate_upper_bound = &hi;
    ro.total_order_seek = !hash;
    ro.auto_prefix_mode = hash.has_value();
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, vectors_cf_));
    size_t entries = 0;
    for (it->Seek(lo); it->Valid(); it->Next()) {
      ++entries;
      DYNAROCK_RETURN_IF_ERROR(consider(std::string_view(it->value().data(), it->value().size())));
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
    // Too large to stay exact: a graph is built for it in the background.
    const size_t limit = options_.vector_exact_limit;
    if (limit != 0 && entries > limit && !graphs_->Ready(bucket)) {
      QueueGraphJob({bucket, index->dimensions, distance});
    }
  }

  SearchVectorsResponse response;
  for (const auto& hit : std::move(top).Take()) {
    const std::string_view value = kept.at(hit.id);
    DYNAROCK_ASSIGN_OR_RETURN(ItemView view,
                              format::OpenStoredItem(value.substr(vector_bytes), &scratch));
    DYNAROCK_ASSIGN_OR_RETURN(Item item, view.Decode());
    // The vector only when projected by name, and as the index holds it:
    // f32 (an entry of storage format 18 holds the attribute as written).
    item.erase(index->vector_attribute);
    if (projection) {
      DYNAROCK_RETURN_IF_ERROR(
          format::GetVector(value.substr(0, vector_bytes), index->dimensions, &candidate));
      item.emplace(index->vector_attribute, format::VectorAttributeValue(candidate));
      item = expr::Project(item, *projection);
    }
    response.search_results.push_back({std::move(item), hit.score});
  }
  if (r.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    response.consumed_capacity =
        VectorCapacity{.vector_search_request_bytes = std::max<int64_t>(read_bytes, 1024)};
  }
  return response;
}

}  // namespace dynarock
