// The attribute names a table interns (format/ITEM_FORMAT.md, "Interned
// names"): the first kMaxInternedNames distinct top-level names its writes
// meet get ids, made durable by the caller's `persist` (the engine keeps
// them in its catalog), so that a table item names them in a byte or two.
#ifndef DYNAROCK_FORMAT_ATTRIBUTE_NAMES_H_
#define DYNAROCK_FORMAT_ATTRIBUTE_NAMES_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "dynarock/status.h"
#include "format/item_codec.h"

namespace dynarock::format {

// One table's dictionary. Readers (Name) take no lock: ids are published
// with release stores after their name is in place, and a name, once
// given an id, never moves or changes. Writers (Intern) share a lock to
// look names up; a new name's id is reserved under the lock alone, made
// durable through `persist` (a synced catalog write) with no lock held,
// and only then published: so an item can never reach the disk with an id
// the catalog lacks, whatever the crash, and no lock is ever held across
// I/O (a compaction thread may look names up while a writer persists one).
class NameDictionary : public AttributeNames {
 public:
  using Persist = std::function<Status(uint32_t id, std::string_view name)>;
  explicit NameDictionary(Persist persist)
      : AttributeNames(&by_id_), persist_(std::move(persist)) {}

  // At open, from the catalog. REQUIRES: before any Intern or Name.
  Status Load(uint32_t id, std::string name);

  std::optional<uint32_t> Intern(std::string_view name) override;
  // The id of a name already interned (assigning none), or nullopt.
  std::optional<uint32_t> Find(std::string_view name) const;
  // Its names by id, for a reader that interns nothing (AttributeNames).
  const IdTable* ids() const { return &by_id_; }

 private:
  void Publish(uint32_t id, std::string name);  // REQUIRES: mu_ held alone

  // Lookups by string_view, without making a string.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };

  const Persist persist_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;  // guarded by mu_
  // Names being made durable (guarded by mu_): a writer meeting one stores
  // it inline rather than wait.
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> pending_;
  std::deque<std::string> names_;  // guarded by mu_; never moves an element
  uint32_t next_id_ = 0;           // guarded by mu_; ids below it are taken (or lost to a failed write)
  IdTable by_id_{};
};

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_ATTRIBUTE_NAMES_H_
