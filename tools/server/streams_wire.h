// The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.<Op>) on
// the same port as DynamoDB's: ListStreams, DescribeStream,
// GetShardIterator and GetRecords, JSON protocol 1.0, over the engine's
// stream operations (dynarock/db.h).
#ifndef DYNAROCK_TOOLS_SERVER_STREAMS_WIRE_H_
#define DYNAROCK_TOOLS_SERVER_STREAMS_WIRE_H_

#include <simdjson.h>

#include <string_view>

#include "dynarock/db.h"
#include "tools/server/wire.h"

namespace dynarock::wire::streams_wire {

inline constexpr std::string_view kTargetPrefix = "DynamoDBStreams_20120810.";

// Whether `op` (the target without its prefix) is a Streams operation.
bool IsOperation(std::string_view op);
// Runs one Streams request: the JSON's types (SerializationException as
// coral words it), the model's constraints, then the engine.
// REQUIRES: IsOperation(op). Never throws.
WireResponse Serve(Database* db, std::string_view op, simdjson::dom::element json);

}  // namespace dynarock::wire::streams_wire

#endif  // DYNAROCK_TOOLS_SERVER_STREAMS_WIRE_H_
