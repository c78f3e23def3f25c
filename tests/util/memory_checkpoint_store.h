// A replicate checkpoint store that keeps the checkpoint in memory, for the
// tests that run replicate against scripted endpoints (tests/wire/
// replicate_test.cc, tests/fuzz/replicate_answers_fuzz.cc).
#ifndef DYNAROCK_TESTS_UTIL_MEMORY_CHECKPOINT_STORE_H_
#define DYNAROCK_TESTS_UTIL_MEMORY_CHECKPOINT_STORE_H_

#include <optional>
#include <string>

#include "tools/replicate/checkpoint.h"

namespace dynarock::testing {

class MemoryCheckpointStore : public replicate::CheckpointStore {
 public:
  explicit MemoryCheckpointStore(std::optional<std::string> saved = std::nullopt)
      : saved(std::move(saved)) {}
  Result<std::optional<std::string>> Load() override { return saved; }
  Status Save(const std::string& checkpoint) override {
    saved = checkpoint;
    return Status::OK();
  }
  Status Clear() override {
    saved.reset();
    return Status::OK();
  }
  std::optional<std::string> saved;  // what Save stored last
};

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_MEMORY_CHECKPOINT_STORE_H_
