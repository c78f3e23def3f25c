#include "engine/capacity.h"

#include <cmath>

namespace dynarock {

double ReadUnits(int64_t bytes, bool strongly_consistent, bool transactional) {
  double units = std::max<double>(1, std::ceil(static_cast<double>(bytes) / 4096.0));
  if (!strongly_consistent) units /= 2;
  return transactional ? units * 2 : units;
}

double ScanReadUnits(int64_t bytes, bool strongly_consistent, uint32_t total_segments) {
  const uint32_t segments = std::max<uint32_t>(1, total_segments);
  const double partitions = std::max<double>(1, std::ceil(double{kScanPartitions} / segments));
  double units = std::max(partitions, std::ceil(static_cast<double>(bytes) / 4096.0));
  return strongly_consistent ? units : units / 2;
}

double WriteUnits(int64_t bytes, bool transactional) {
  double units = std::max<double>(1, std::ceil(static_cast<double>(bytes) / 1024.0));
  return transactional ? units * 2 : units;
}

void CapacityMeter::Add(Capacity* c, double read, double write) {
  c->read_capacity_units += read;
  c->write_capacity_units += write;
  c->capacity_units += read + write;
}

void CapacityMeter::Read(const std::string& table, const IndexInfo* index, double units) {
  Usage& u = usage_[table];
  if (index == nullptr) {
    Add(&u.table, units, 0);
  } else {
    Add(&(index->global ? u.gsi : u.lsi)[index->name], units, 0);
  }
}

void CapacityMeter::Write(const std::string& table, const IndexInfo* index, double units) {
  Usage& u = usage_[table];
  if (index == nullptr) {
    Add(&u.table, 0, units);
  } else {
    Add(&(index->global ? u.gsi : u.lsi)[index->name], 0, units);
  }
}

void CapacityMeter::VectorWrite(const std::string& table, const std::string& index, int64_t bytes) {
  usage_[table].vector_write_bytes[index] += bytes;
}

std::optional<ConsumedCapacity> CapacityMeter::For(const std::string& table) const {
  if (mode_ == ReturnConsumedCapacity::kNone) return std::nullopt;
  ConsumedCapacity c;
  c.table_name = table;
  auto it = usage_.find(table);
  if (it == usage_.end()) return c;
  const Usage& u = it->second;
  Capacity total = u.table;
  for (const auto* indexes : {&u.lsi, &u.gsi}) {
    for (const auto& [name, cap] : *indexes)
      Add(&total, cap.read_capacity_units, cap.write_capacity_units);
  }
  c.capacity_units = total.capacity_units;
  c.read_capacity_units = total.read_capacity_units;
  c.write_capacity_units = total.write_capacity_units;
  if (!u.vector_write_bytes.empty()) {
    auto& vector = c.vector_indexes.emplace();
    for (const auto& [name, bytes] : u.vector_write_bytes) {
      vector[name].vector_write_request_bytes = bytes;
    }
  }
  if (mode_ == ReturnConsumedCapacity::kIndexes) {
    c.table = u.table;
    if (!u.lsi.empty()) c.local_secondary_indexes = u.lsi;
    if (!u.gsi.empty()) c.global_secondary_indexes = u.gsi;
  }
  return c;
}

std::vector<ConsumedCapacity> CapacityMeter::All() const {
  std::vector<ConsumedCapacity> out;
  if (mode_ == ReturnConsumedCapacity::kNone) return out;
  for (const auto& [table, usage] : usage_) out.push_back(*For(table));
  return out;
}

}  // namespace dynarock
