#include "engine/counters.h"

#include "format/key_codec.h"

namespace dynarock {
namespace {

void PutInt64LE(std::string* dst, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) dst->push_back(static_cast<char>(u >> (8 * i)));
}

int64_t GetInt64LE(const char* p) {
  uint64_t u = 0;
  for (int i = 7; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>(p[i]);
  return static_cast<int64_t>(u);
}

}  // namespace

std::string EncodeCounter(const Counter& c) {
  std::string out;
  out.reserve(16);
  PutInt64LE(&out, c.items);
  PutInt64LE(&out, c.bytes);
  return out;
}

bool DecodeCounter(std::string_view bytes, Counter* out) {
  if (bytes.size() != 16) return false;
  out->items = GetInt64LE(bytes.data());
  out->bytes = GetInt64LE(bytes.data() + 8);
  return true;
}

void TotalsDelta::Add(uint32_t space_id, const Counter& delta) {
  for (auto& [space, total] : spaces_) {
    if (space == space_id) {
      total.items += delta.items;
      total.bytes += delta.bytes;
      return;
    }
  }
  spaces_.emplace_back(space_id, delta);
}

void TotalsDelta::MergeInto(rocksdb::WriteBatch* batch,
                            rocksdb::ColumnFamilyHandle* stats_cf) const {
  for (const auto& [space, total] : spaces_) {
    if (total.items != 0 || total.bytes != 0) {
      batch->Merge(stats_cf, TableStatsKey(space), EncodeCounter(total));
    }
  }
}

std::string TableStatsKey(uint32_t space_id) {
  std::string key;
  format::PutFixed32BE(&key, space_id);
  key.push_back('T');
  return key;
}

bool CounterMergeOperator::Merge(const rocksdb::Slice& /*key*/,
                                 const rocksdb::Slice* existing_value,
                                 const rocksdb::Slice& value, std::string* new_value,
                                 rocksdb::Logger* /*logger*/) const {
  Counter sum, delta;
  if (existing_value != nullptr &&
      !DecodeCounter(std::string_view(existing_value->data(), existing_value->size()), &sum)) {
    return false;
  }
  if (!DecodeCounter(std::string_view(value.data(), value.size()), &delta)) return false;
  sum.items += delta.items;
  sum.bytes += delta.bytes;
  *new_value = EncodeCounter(sum);
  return true;
}

std::string CollectionStatsKey(uint32_t space_id, const AttributeValue& pk) {
  std::string key;
  CollectionStatsKeyOfPrefix(format::CollectionPrefix(space_id, pk).bytes(), &key);
  return key;
}

void CollectionStatsKeyOfPrefix(std::string_view collection_prefix, std::string* out) {
  out->assign(collection_prefix.substr(0, 4));  // space_id
  out->push_back(kCollectionStatsTag);
  out->append(collection_prefix.substr(4));  // hash | enc(pk)
}

std::string CollectionStatsPrefix(uint32_t space_id) {
  std::string key;
  format::PutFixed32BE(&key, space_id);
  key.push_back(kCollectionStatsTag);
  return key;
}

bool EmptyCounterFilter::Filter(int /*level*/, const rocksdb::Slice& key,
                                const rocksdb::Slice& value, std::string* /*new_value*/,
                                bool* /*value_changed*/) const {
  Counter c;
  return key.size() > 4 && key[4] == kCollectionStatsTag &&
         DecodeCounter(std::string_view(value.data(), value.size()), &c) && c.items == 0 &&
         c.bytes == 0;
}

}  // namespace dynarock
