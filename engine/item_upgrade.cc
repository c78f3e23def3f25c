#include "engine/item_upgrade.h"

#include "format/item_codec.h"

namespace dynarock {

rocksdb::CompactionFilter::Decision ItemUpgradeFilter::FilterV2(
    int /*level*/, const rocksdb::Slice& /*key*/, ValueType value_type,
    const rocksdb::Slice& existing_value, std::string* new_value,
    std::string* /*skip_until*/) const {
  if (value_type != ValueType::kValue) return Decision::kKeep;
  const std::string_view bytes(existing_value.data(), existing_value.size());
  if (format::IsCurrentItemEncoding(bytes)) return Decision::kKeep;
  auto upgraded = format::UpgradeStoredItem(bytes);
  if (!upgraded.ok() || !upgraded->has_value()) return Decision::kKeep;
  *new_value = std::move(**upgraded);
  return Decision::kChangeValue;
}

}  // namespace dynarock
