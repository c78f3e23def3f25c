#include "format/attribute_names.h"

#include <algorithm>

namespace dynarock::format {

void NameDictionary::Publish(uint32_t id, std::string name) {
  names_.push_back(std::move(name));
  const std::string* stored = &names_.back();
  ids_.emplace(*stored, id);
  by_id_[id].store(stored, std::memory_order_release);
}

Status NameDictionary::Load(uint32_t id, std::string name) {
  std::unique_lock lock(mu_);
  // One name may stand under two ids: a synced write that failed after its
  // record reached the log was retried under the next id. Both resolve to
  // it; writers use the first loaded (the catalog lists ids in order), as
  // Publish keeps the first id of a name.
  if (id >= kMaxInternedNames || by_id_[id].load(std::memory_order_relaxed) != nullptr) {
    return Status::Corruption("catalog: interned name id " + std::to_string(id) +
                              " out of range or given twice");
  }
  Publish(id, std::move(name));
  next_id_ = std::max(next_id_, id + 1);
  return Status::OK();
}

std::optional<uint32_t> NameDictionary::Find(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = ids_.find(name);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint32_t> NameDictionary::Intern(std::string_view name) {
  uint32_t id;
  {
    std::shared_lock lock(mu_);
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    if (next_id_ >= kMaxInternedNames) return std::nullopt;
  }
  {
    std::unique_lock lock(mu_);
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;  // another writer added it meanwhile
    if (pending_.find(name) != pending_.end()) return std::nullopt;  // being added: inline
    if (next_id_ >= kMaxInternedNames) return std::nullopt;
    id = next_id_++;
    pending_.emplace(std::string(name), id);
  }
  // Durable first: an item may carry the id as soon as it is published. No
  // lock is held across the write.
  const Status persisted = persist_(id, name);
  std::unique_lock lock(mu_);
  pending_.erase(pending_.find(name));
  // A failed write loses the id (it is never given again) and this item
  // stores the name inline; a later write tries the name again.
  if (!persisted.ok()) return std::nullopt;
  Publish(id, std::string(name));
  return id;
}

}  // namespace dynarock::format
