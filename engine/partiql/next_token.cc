#include "engine/partiql/next_token.h"

#include "engine/tokens.h"
#include "format/json.h"

namespace dynarock::partiql {

namespace {

std::string RequestDigest(const ExecuteStatementRequest& r) {
  std::string canonical = r.statement;
  canonical.push_back('\0');
  for (const auto& p : r.parameters.value_or(std::vector<AttributeValue>{})) {
    canonical += format::ToJson(p);
    canonical.push_back('\0');
  }
  const tokens::Digest d = tokens::DigestOf(canonical);
  return std::to_string(d.low) + "." + std::to_string(d.high);
}

}  // namespace

std::string EncodeNextToken(const ExecuteStatementRequest& r, const Position& p) {
  std::string json = "{\"d\":\"" + RequestDigest(r) + "\",\"q\":" + std::to_string(p.query);
  if (p.last_key) json += ",\"k\":" + format::ToJson(*p.last_key);
  json += "}";
  return format::Base64Encode(json);
}

Result<Position> DecodeNextToken(const ExecuteStatementRequest& r, const std::string& token) {
  const Status invalid = Status::Validation("Invalid NextToken");
  auto json = format::Base64Decode(token);
  if (!json.ok()) return invalid;
  rapidjson::Document doc;
  if (!format::ParseJson(*json, &doc).ok() || !doc.IsObject()) return invalid;
  if (!doc.HasMember("d") || !doc["d"].IsString() || !doc.HasMember("q") ||
      !doc["q"].IsUint64()) {
    return invalid;
  }
  const rapidjson::Value& d = doc["d"];
  if (std::string_view(d.GetString(), d.GetStringLength()) != RequestDigest(r)) {
    return Status::Validation("NextToken does not match request");
  }
  Position p;
  p.query = doc["q"].GetUint64();
  if (doc.HasMember("k")) {
    auto key = format::ItemFromJson(doc["k"]);
    if (!key.ok()) return invalid;
    p.last_key = std::move(*key);
  }
  return p;
}

}  // namespace dynarock::partiql
