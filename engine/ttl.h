// Time to live: which items are expired.
// The sweep that deletes them is Database::Impl::SweepTable (engine/ttl.cc).
#ifndef DYNAROCK_ENGINE_TTL_H_
#define DYNAROCK_ENGINE_TTL_H_

#include <cstdint>
#include <string_view>

#include "dynarock/attribute_value.h"
#include "dynarock/number.h"

namespace dynarock::ttl {

// DynamoDB's rule: the item has `attribute` at its top level, of type N, in
// epoch seconds (a fraction truncated), not after `now_s` and not more than
// five years before it (older values are taken as malformed and never
// expire). Millisecond timestamps look like far-future dates: never expire.
inline constexpr int64_t kMaxAgeSeconds = int64_t{5} * 365 * 24 * 3600;
bool Expired(const Item& item, std::string_view attribute, int64_t now_s);
// The same rule for the attribute's value, read in place by the sweep.
bool Expired(const Number& value, int64_t now_s);

}  // namespace dynarock::ttl

#endif  // DYNAROCK_ENGINE_TTL_H_
