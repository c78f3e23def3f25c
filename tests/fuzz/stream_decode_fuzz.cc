// Fuzzes what the Streams code reads from outside: shard iterators and
// sequence numbers (from clients) and stream records (from disk). Each must
// be rejected or round-trip exactly; and nothing but an iterator signed
// with the database's secret decodes.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/streams/records.h"

using namespace dynarock;  // NOLINT: test code

namespace {

// The fuzzed database's secret (corpus/stream_decode/iterator and
// iterator-edits are signed with it: bytes 0, 1, ..., 31), and another
// database's, one bit away.
streams::IteratorSecret Secret(uint8_t flip) {
  streams::IteratorSecret s{};
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<uint8_t>(i);
  s[31] ^= flip;
  return s;
}
const streams::IteratorSecret kSecret = Secret(0);
const streams::IteratorSecret kOtherSecret = Secret(1);

bool SameState(const streams::IteratorState& a, const streams::IteratorState& b) {
  return a.stream_id == b.stream_id && a.shard_start == b.shard_start && a.position == b.position &&
         a.horizon == b.horizon && a.issued_ms == b.issued_ms;
}

uint64_t Take64(std::string_view* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8 && !in->empty(); ++i) {
    v = v << 8 | static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 4) {
    case 0: {  // a client's ShardIterator
      auto decoded = streams::DecodeIterator(in, kSecret);
      if (!decoded) break;
      // Only the encoder's own bytes decode: the same text again, which
      // another database's secret refuses.
      if (streams::EncodeIterator(decoded->stream_arn, decoded->state, kSecret) != in ||
          streams::DecodeIterator(in, kOtherSecret)) {
        std::abort();
      }
      break;
    }
    case 3: {  // a genuine iterator, then edits: only the unedited text decodes
      streams::IteratorState state;
      state.stream_id = static_cast<uint32_t>(Take64(&in));
      state.shard_start = Take64(&in);
      state.position = Take64(&in);
      state.horizon = Take64(&in) & 1;
      state.issued_ms = static_cast<int64_t>(Take64(&in));
      const size_t arn_size = std::min<size_t>(Take64(&in) & 0xFF, in.size());
      const std::string arn(in.substr(0, arn_size));
      in.remove_prefix(arn_size);
      const std::string genuine = streams::EncodeIterator(arn, state, kSecret);
      auto decoded = streams::DecodeIterator(genuine, kSecret);
      if (!decoded || decoded->stream_arn != arn || !SameState(decoded->state, state) ||
          streams::DecodeIterator(genuine, kOtherSecret)) {
        std::abort();
      }
      // Each 3 bytes: a position (2 bytes, modulo the length; past it, the
      // byte is appended) and a byte to XOR there (or append). A trailing
      // byte truncates the text to that length, modulo its size.
      std::string edited = genuine;
      for (; in.size() >= 3; in.remove_prefix(3)) {
        const size_t at =
            (static_cast<uint8_t>(in[0]) << 8 | static_cast<uint8_t>(in[1])) % (edited.size() + 1);
        if (at == edited.size()) {
          edited.push_back(in[2]);
        } else {
          edited[at] = static_cast<char>(edited[at] ^ in[2]);
        }
      }
      if (!in.empty()) edited.resize(static_cast<uint8_t>(in[0]) % (edited.size() + 1));
      const bool accepted = streams::DecodeIterator(edited, kSecret).has_value();
      if (accepted != (edited == genuine)) std::abort();
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
