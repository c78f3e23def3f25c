// What the server's hand-written JSON shares (the table definition a dump
// stores, the console's API, the export and import jobs; DynamoDB's answers
// are generated: protocol/writers_gen.h): strings with their length (they may
// hold NUL). A template over the RapidJSON writer, compact or pretty.
#ifndef DYNAROCK_TOOLS_SERVER_JSON_WRITERS_H_
#define DYNAROCK_TOOLS_SERVER_JSON_WRITERS_H_

#include <rapidjson/rapidjson.h>

#include <string_view>

namespace dynarock::wire {

template <typename W>
void Str(W& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

}  // namespace dynarock::wire

#endif  // DYNAROCK_TOOLS_SERVER_JSON_WRITERS_H_
