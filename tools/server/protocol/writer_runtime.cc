#include "tools/server/protocol/writer_runtime.h"

#include "format/json.h"

namespace dynarock::protocol {

void WriteItem(JsonWriter& w, const dynarock::Item& item) { format::WriteJson(&w, item); }

void WriteItem(JsonWriter& w, const dynarock::ItemView& item) { wire::Check(format::WriteJson(&w, item)); }

}  // namespace dynarock::protocol
