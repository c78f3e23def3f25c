// The hand-written half of the wire's answers: what the generated writers
// (writers_gen.h/.cc, from tools/codegen/gen_writers.py) call to write an
// item, and how a failure while answering reaches wire::Handle.
#ifndef DYNAROCK_TOOLS_SERVER_PROTOCOL_WRITER_RUNTIME_H_
#define DYNAROCK_TOOLS_SERVER_PROTOCOL_WRITER_RUNTIME_H_

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>

#include "dynarock/item_view.h"
#include "dynarock/status.h"
#include "dynarock/types.h"
#include "tools/server/json_writers.h"

namespace dynarock::wire {

// A request's failure, thrown from anywhere in answering it (reading,
// the engine's Status, writing) and caught by the service's entry point,
// which answers the Status as DynamoDB's error. Exceptions stay inside the
// server's request layer: they never reach the engine or RocksDB.
struct Failure {
  Status status;
};
[[noreturn]] inline void Fail(Status s) { throw Failure{std::move(s)}; }
template <typename T>
T Check(Result<T> r) {
  if (!r.ok()) Fail(r.status());
  return std::move(r).value();
}
inline void Check(const Status& s) {
  if (!s.ok()) Fail(s);
}

}  // namespace dynarock::wire

namespace dynarock::protocol {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
using wire::Str;

// An item as DynamoDB's JSON ({"name": {"S": "..."}, ...}).
void WriteItem(JsonWriter& w, const dynarock::Item& item);
// The same from a stored item's bytes, with no Item built. Throws Failure
// (Corruption) if a stored number is malformed.
void WriteItem(JsonWriter& w, const dynarock::ItemView& item);

}  // namespace dynarock::protocol

#endif  // DYNAROCK_TOOLS_SERVER_PROTOCOL_WRITER_RUNTIME_H_
