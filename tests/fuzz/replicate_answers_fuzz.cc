// `dynarock replicate` against endpoints that answer anything
// (tools/replicate/replicate.h): a target or source that is buggy, hostile
// or not what it claims. The input is a sequence of answers, each
// [kind byte][length: 2 bytes, little-endian][body], handed out in turn to
// whichever end asks (kind % 4: 0 and 1 a 200, 2 a 400, 3 a 500); once
// they run out, every request has no answer (IOError). Properties: Run,
// then Verify and ReadLag, end without a crash, a leak or undefined
// behaviour, however the answers are shaped; a checkpoint Run saved is read
// back by ReadLag.
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "tests/util/memory_checkpoint_store.h"
#include "tools/replicate/endpoint.h"
#include "tools/replicate/replicate.h"

namespace {

using dynarock::Result;
using dynarock::Status;
using dynarock::replicate::Answer;
using dynarock::replicate::Endpoint;

struct Answers {
  std::mutex mu;
  std::deque<Answer> left;
};

class Scripted : public Endpoint {
 public:
  Scripted(std::shared_ptr<Answers> answers, std::string name)
      : answers_(std::move(answers)), name_(std::move(name)) {}
  Result<Answer> Send(std::string_view, const std::string&) override {
    std::lock_guard lock(answers_->mu);
    if (answers_->left.empty()) return Status::IOError("no more answers");
    Answer a = std::move(answers_->left.front());
    answers_->left.pop_front();
    return a;
  }
  Result<std::unique_ptr<Endpoint>> Clone() const override {
    return std::unique_ptr<Endpoint>(std::make_unique<Scripted>(answers_, name_));
  }
  const std::string& name() const override { return name_; }

 private:
  std::shared_ptr<Answers> answers_;
  std::string name_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 << 10) return 0;
  auto answers = std::make_shared<Answers>();
  for (size_t i = 0; i + 3 <= size && answers->left.size() < 200;) {
    const uint8_t kind = data[i];
    const size_t length = std::min<size_t>(data[i + 1] | data[i + 2] << 8, size - i - 3);
    Answer a;
    a.status = kind % 4 < 2 ? 200 : kind % 4 == 2 ? 400 : 500;
    a.body.assign(reinterpret_cast<const char*>(data + i + 3), length);
    if (a.status != 200) {
      // As the endpoints fill them in from the body's __type and message.
      a.error = kind & 0x10 ? "ThrottlingException" : "ResourceNotFoundException";
      a.message = a.body.substr(0, 40);
    }
    answers->left.push_back(std::move(a));
    i += 3 + length;
  }
  Scripted source(answers, "source"), target(answers, "target");
  dynarock::testing::MemoryCheckpointStore store;
  dynarock::replicate::ReplicateOptions o;
  o.table = "Telemetry";
  o.to_table = "Fleet";
  o.threads = 1 + size % 2;
  o.until_caught_up = true;
  o.poll = std::chrono::milliseconds(0);
  o.retry = {
      .attempts = 2, .base = std::chrono::milliseconds(0), .cap = std::chrono::milliseconds(0)};
  (void)dynarock::replicate::Run(source, target, store, o);
  (void)dynarock::replicate::Verify(source, target, o);
  if (store.saved) (void)dynarock::replicate::ReadLag(source, store, o);
  return 0;
}
