// Fuzzes what the Streams code reads from outside: shard iterators and
// sequence numbers (from clients) and stream records (from disk). Each must
// be rejected or round-trip exactly.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/streams/records.h"

using namespace dynarock;  // NOLINT: test code

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: {  // a client's ShardIterator
      auto state = streams::DecodeIterator(in);
      if (!state) break;
      auto again = streams::DecodeIterator(streams::EncodeIterator("arn", *state));
      if (!again || again->stream_id != state->stream_id ||
          again->shard_start != state->shard_start || again->position != state->position ||
          again->horizon != state->horizon || again->issued_ms != state->issued_ms) {
        std::abort();
      }
      break;
    }
    case 1: {  // a client's SequenceNumber
      auto seq = streams::ParseSequence(in);
      if (seq && streams::SequenceString(*seq) != in) std::abort();
      break;
    }
    case 2: {  // a stored record
      auto record = streams::DecodeRecord(7, 42, in, StreamViewType::kNewAndOldImages);
      if (!record.ok()) break;
      const std::string encoded =
          streams::EncodeRecord(record->event_name, record->time_to_live_deletion, record->keys,
                                record->old_image ? &*record->old_image : nullptr,
                                record->new_image ? &*record->new_image : nullptr);
      auto again = streams::DecodeRecord(7, 42, encoded, StreamViewType::kNewAndOldImages);
      if (!again.ok() || again->keys != record->keys || again->new_image != record->new_image ||
          again->old_image != record->old_image || again->size_bytes != record->size_bytes ||
          again->event_name != record->event_name) {
        std::abort();
      }
      break;
    }
  }
  return 0;
}
