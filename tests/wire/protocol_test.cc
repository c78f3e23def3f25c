// The request layer at the handler: the cases tools/codegen/gen_protocol.py
// derives from DynamoDB's model (every member of every operation given the
// wrong JSON type; required members and enum values), DynamoDB's phase order,
// and the inputs that used to crash the server.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/server/wire.h"
#include "tests/util/status_matchers.h"

namespace dynarock::wire {
namespace {

class ProtocolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dynarock-protocol-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    auto db = Database::Open(dir_, Options{});
    ASSERT_OK(db);
    db_ = std::move(*db);
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  WireResponse Call(std::string_view op, std::string_view body) {
    return Handle(db_.get(), "DynamoDB_20120810." + std::string(op), body);
  }

  // The error's short type and message ("" when the body has none).
  static std::pair<std::string, std::string> Error(const WireResponse& r) {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    EXPECT_EQ(parser.parse(r.body).get(root), simdjson::SUCCESS) << r.body;
    std::string_view type;
    EXPECT_EQ(root["__type"].get(type), simdjson::SUCCESS) << r.body;
    std::string_view message;
    if (root["message"].get(message) != simdjson::SUCCESS) {
      if (root["Message"].get(message) != simdjson::SUCCESS) message = "";
    }
    return {std::string(type.substr(type.find('#') + 1)), std::string(message)};
  }

  std::string dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(ProtocolTest, GeneratedCasesFromTheModel) {
  std::ifstream in(PROTOCOL_CASES_PATH);
  ASSERT_TRUE(in) << PROTOCOL_CASES_PATH;
  std::stringstream text;
  text << in.rdbuf();
  simdjson::dom::parser parser;
  simdjson::dom::element cases;
  ASSERT_EQ(parser.parse(text.str()).get(cases), simdjson::SUCCESS);
  size_t n = 0;
  for (simdjson::dom::element c : simdjson::dom::array(cases)) {
    std::string op{std::string_view(c["operation"])};
    std::string body = simdjson::minify(c["body"]);
    auto r = Call(op, body);
    EXPECT_EQ(r.http_status, 400) << op << " " << body;
    auto [type, message] = Error(r);
    EXPECT_EQ(type, std::string_view(c["type"])) << op << " " << body << " -> " << r.body;
    EXPECT_EQ(message, std::string_view(c["message"])) << op << " " << body;
    ++n;
  }
  EXPECT_GT(n, 500u);  // every member of 22 operations, and more
}

// Issue 22: these ended the server with SIGSEGV (unchecked RapidJSON access).
TEST_F(ProtocolTest, ScalarsWhereStructuresBelongAreSerializationErrors) {
  struct Case {
    const char* op;
    const char* body;
    const char* message;
  } cases[] = {
      {"TransactWriteItems", R"({"TransactItems":[1]})", "Unexpected value type in payload"},
      {"BatchWriteItem", R"({"RequestItems":{"t":[1,2]}})", "Unexpected value type in payload"},
      {"CreateTable", R"({"TableName":"abc","LocalSecondaryIndexes":["x"]})",
       "Unexpected value type in payload"},
      {"UpdateTable", R"({"TableName":"abc","GlobalSecondaryIndexUpdates":[true]})",
       "Unexpected value type in payload"},
      {"TagResource", R"({"ResourceArn":"a","Tags":[7]})", "Unexpected value type in payload"},
      {"UpdateItem", R"({"TableName":"abc","Key":{},"AttributeUpdates":{"a":5}})",
       "Unexpected value type in payload"},
      {"Query", R"({"TableName":"abc","KeyConditions":{"a":"x"}})",
       "Unexpected value type in payload"},
      {"BatchGetItem", R"({"RequestItems":{"t":{"Keys":[5]}}})",
       "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to "
       "class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and "
       "java.lang.Class are in module java.base of loader 'bootstrap')"},
  };
  for (const auto& c : cases) {
    auto r = Call(c.op, c.body);
    EXPECT_EQ(r.http_status, 400) << c.op;
    EXPECT_EQ(Error(r), std::make_pair(std::string("SerializationException"),
                                       std::string(c.message)))
        << c.op << " " << c.body;
  }
  // The database still answers.
  EXPECT_EQ(Call("ListTables", "{}").http_status, 200);
}

// Issue 22: a missing legacy ComparisonOperator dereferenced an empty optional.
TEST_F(ProtocolTest, MissingComparisonOperatorIsAViolation) {
  auto r = Call("Query", R"({"TableName":"abc","KeyConditions":{"pk":{"AttributeValueList":[]}}})");
  EXPECT_EQ(Error(r).second,
            "1 validation error detected: Value null at 'keyConditions.pk.member."
            "comparisonOperator' failed to satisfy constraint: Member must not be null");
}

// Found by fuzz_request_handler: a violation message that rendered a
// request's binary value put its raw bytes (not UTF-8) into the JSON answer.
TEST_F(ProtocolTest, BinaryValuesRenderAsJavaByteBuffers) {
  auto r = Call("BatchWriteItem",
                R"({"RequestItems":{"bad(name":[{"PutRequest":{"Item":{"b":{"B":"/w=="},"bs":{"BS":["/w=="]}}}}]}})");
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(r.body).get(root), simdjson::SUCCESS) << r.body;
  EXPECT_NE(Error(r).second.find("b=AttributeValue(s=null, n=null, "
                                 "b=java.nio.HeapByteBuffer[pos=0 lim=1 cap=1], sS=null"),
            std::string::npos)
      << r.body;
  EXPECT_NE(Error(r).second.find("bS=[java.nio.HeapByteBuffer[pos=0 lim=1 cap=1]]"),
            std::string::npos)
      << r.body;
}

TEST_F(ProtocolTest, PhasesComeInDynamoDBsOrder) {
  // A type error anywhere wins over every constraint violation.
  EXPECT_EQ(Error(Call("PutItem", R"({"ReturnValues":"BOGUS","Item":{"a":{"N":5}}})")),
            std::make_pair(std::string("SerializationException"),
                           std::string("NUMBER_VALUE cannot be converted to String")));
  // A wrongly typed TableName is a type error, not a missing member.
  EXPECT_EQ(Error(Call("PutItem", R"({"TableName":5})")).first, "SerializationException");
  // Item operations treat TableName as an ordinary member; table operations
  // reject it alone first.
  EXPECT_EQ(Error(Call("PutItem", R"({"Item":{}})")).second,
            "1 validation error detected: Value null at 'tableName' failed to satisfy "
            "constraint: Member must not be null");
  EXPECT_EQ(Error(Call("DescribeTable", R"({})")).second,
            "The parameter 'TableName' is required but was not present in the request");
  // A short name is a model constraint for table operations too; an empty
  // one breaks only the minimum of 1 of DynamoDB's current model (a table
  // name or ARN), checked before the name rules.
  EXPECT_EQ(Error(Call("DescribeTable", R"({"TableName":"ab"})")).second,
            "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: "
            "Member must have length greater than or equal to 3");
  EXPECT_EQ(Error(Call("GetItem", R"({"TableName":"","Key":{}})")).second,
            "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: "
            "Member must have length greater than or equal to 1");
  // Violations are collected in DynamoDB's visiting order, with list positions.
  EXPECT_EQ(
      Error(Call("CreateTable",
                 R"({"TableName":"a b c","AttributeDefinitions":[{"AttributeName":"k","AttributeType":"X"}],
                     "KeySchema":[{"AttributeName":"k","KeyType":"HASH"},{"AttributeName":"","KeyType":"R"}]})"))
          .second,
      "4 validation errors detected: Value 'X' at 'attributeDefinitions.1.member.attributeType' "
      "failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]; Value 'a b c' "
      "at 'tableName' failed to satisfy constraint: Member must satisfy regular expression "
      "pattern: [a-zA-Z0-9_.-]+; Value '' at 'keySchema.2.member.attributeName' failed to "
      "satisfy constraint: Member must have length greater than or equal to 1; Value 'R' at "
      "'keySchema.2.member.keyType' failed to satisfy constraint: Member must satisfy enum value "
      "set: [HASH, RANGE]");
  // A map's key in a path, empty or not, then list positions under it (the
  // short table names fail their own constraint, once per key).
  const std::string kKeys =
      "Value '{=[WriteRequest(putRequest=PutRequest(item=null), deleteRequest=null)], "
      "t=[WriteRequest(putRequest=null, deleteRequest=null), "
      "WriteRequest(putRequest=null, deleteRequest=DeleteRequest(key=null))]}' at "
      "'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member "
      "must have length less than or equal to 255, Member must have length greater than or "
      "equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]";
  EXPECT_EQ(Error(Call("BatchWriteItem",
                       R"({"RequestItems":{"":[{"PutRequest":{}}],"t":[{},{"DeleteRequest":{}}]}})"))
                .second,
            std::string("4 validation errors detected: ") + kKeys + "; " + kKeys +
                "; Value null at 'requestItems..member.1.member.putRequest.item' failed to "
                "satisfy constraint: Member must not be null; Value null at "
                "'requestItems.t.member.2.member.deleteRequest.key' failed to satisfy "
                "constraint: Member must not be null");
  // At most ten are reported.
  std::string body = R"({"RequestItems":{"t":[)";
  for (int i = 0; i < 12; ++i) body += std::string(i ? "," : "") + R"({"PutRequest":{}})";
  body += "]}}";
  auto [type, message] = Error(Call("BatchWriteItem", body));
  EXPECT_EQ(message.rfind("10 validation errors detected: ", 0), 0u) << message;
  // An empty list is printed as Java prints it.
  EXPECT_EQ(Error(Call("BatchWriteItem", R"({"RequestItems":{}})")).second,
            "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy "
            "constraint: Member must have length greater than or equal to 1");
}

// VALIDATION.md 5.1: the legacy/expression mixing check is the first
// semantic check; an invalid AttributeValue is reported after it, and
// without a table lookup.
TEST_F(ProtocolTest, MixingBeatsAnInvalidAttributeValue) {
  const std::string item = R"("Item":{"pk":{"S":"a"},"x":{}})";
  EXPECT_EQ(Error(Call("PutItem", R"({"TableName":"nope",)" + item +
                                      R"j(,"ConditionExpression":"attribute_exists(pk)",
                                       "Expected":{"pk":{"Exists":false}}})j"))
                .second,
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}");
  EXPECT_EQ(Error(Call("PutItem", R"({"TableName":"nope",)" + item + "}")).second,
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
  EXPECT_EQ(Error(Call("Query", R"({"TableName":"nope","KeyConditionExpression":"pk = :v",
                                    "ExpressionAttributeValues":{":v":{"S":"a","N":"1"}},
                                    "AttributesToGet":["a"]})"))
                .second.rfind("Can not use both expression and non-expression parameters", 0),
            0u);
}

TEST_F(ProtocolTest, JsonTargetAndEmptyBody) {
  EXPECT_EQ(Error(Call("ListTables", "{not json")).first, "SerializationException");
  EXPECT_EQ(Handle(db_.get(), "DynamoDB_20120810.Nope", "{}").body,
            R"({"__type":"com.amazon.coral.service#UnknownOperationException"})");
  // Bad JSON is reported before an unknown target, an empty body after it.
  EXPECT_EQ(Error(Handle(db_.get(), "DynamoDB_20120810.Nope", "{x")).first,
            "SerializationException");
  EXPECT_EQ(Error(Handle(db_.get(), "DynamoDB_20120810.Nope", "")).first,
            "UnknownOperationException");
  EXPECT_EQ(Call("ListTables", "").body,
            R"({"__type":"com.amazon.coral.service#SerializationException"})");
  // Deeper than any request DynamoDB accepts: refused, not recursed into.
  std::string deep(100000, '[');
  EXPECT_EQ(Error(Call("PutItem", deep)).first, "SerializationException");
  // Authentication runs after the target check and before the empty body.
  bool asked = false;
  auto denied = [&]() -> std::optional<WireResponse> {
    asked = true;
    return WireResponse{400, R"({"__type":"com.amazon.coral.service#MissingAuthenticationTokenException"})"};
  };
  EXPECT_EQ(Error(Handle(db_.get(), "DynamoDB_20120810.ListTables", "{x", denied)).first,
            "SerializationException");
  EXPECT_FALSE(asked);
  EXPECT_EQ(Error(Handle(db_.get(), "DynamoDB_20120810.ListTables", "", denied)).first,
            "MissingAuthenticationTokenException");
  EXPECT_TRUE(asked);
}

TEST_F(ProtocolTest, CoralScalarConversions) {
  // Booleans take these words; integers do not take strings; fractions truncate.
  ASSERT_EQ(Call("CreateTable", R"({"TableName":"fleet","BillingMode":"PAY_PER_REQUEST",
      "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
      "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]})")
                .http_status,
            200);
  EXPECT_EQ(Call("GetItem", R"({"TableName":"fleet","Key":{"pk":{"S":"a"}},"ConsistentRead":"YES"})")
                .http_status,
            200);
  EXPECT_EQ(Call("Scan", R"({"TableName":"fleet","Limit":2.9})").http_status, 200);
  EXPECT_EQ(Error(Call("Scan", R"({"TableName":"fleet","Limit":0.5})")).second,
            "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1");
  EXPECT_EQ(Error(Call("PutItem", R"({"TableName":"fleet","Item":{"pk":{"S":"a"},"b":{"B":"AB=="}}})"))
                .second,
            "Invalid last non-pad Base64 character dectected");
  EXPECT_EQ(Error(Call("PutItem", R"({"TableName":"fleet","Item":{"pk":{"S":"a"},"x":{"X":"1"}}})"))
                .second,
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
  EXPECT_EQ(Error(Call("PutItem",
                       R"({"TableName":"fleet","Item":{"pk":{"S":"a"},"x":{"S":"1","N":"2"}}})"))
                .second,
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
            "the supported datatypes");
  EXPECT_EQ(Call("PutItem", R"({"TableName":"fleet","Item":{"pk":{"S":"a"},"n":{"NULL":"yes"}}})")
                .http_status,
            200);
}

// SearchVectors' front end reads requests with serde_json: its
// deserialization errors name the JSON position (protocol/serde_errors.h),
// in document order, before any of the usual checks.
TEST_F(ProtocolTest, SearchVectorsAnswersMalformedMembersAsSerdeDoes) {
  auto error = [&](std::string_view body) { return Error(Call("SearchVectors", body)); };
  using E = std::pair<std::string, std::string>;
  // Recorded against DynamoDB: a null member, a missing one, a fractional TopK.
  EXPECT_EQ(
      error(R"({"TableName":null})"),
      E("SerializationException", "invalid type: null, expected a string at line 1 column 17"));
  EXPECT_EQ(error(R"({"TableName":"t","IndexName":"i","TopK":3.5,"SearchVector":[]})"),
            E("SerializationException",
              "invalid type: floating point `3.5`, expected i32 at line 1 column 43"));
  EXPECT_EQ(error(R"({"IndexName":"i","TopK":3,"SearchVector":[{"N":"1"}]})"),
            E("ValidationException", "missing field `TableName` at line 1 column 53"));
  // Document order: the first bad member wins, wherever it is.
  EXPECT_EQ(
      error("{\"TopK\":\"10\",\n \"TableName\":5}"),
      E("SerializationException", "invalid type: string \"10\", expected i32 at line 1 column 12"));
  EXPECT_EQ(error("{\"IndexName\":\"i\",\n  \"TableName\":true}"),
            E("SerializationException",
              "invalid type: boolean `true`, expected a string at line 2 column 18"));
  // [ and { are peeked, not consumed; numbers keep serde's forms.
  EXPECT_EQ(
      error(R"({"SearchVector":{"N":"1"}})"),
      E("SerializationException", "invalid type: map, expected a sequence at line 1 column 16"));
  EXPECT_EQ(
      error(R"({"TableName":["t"]})"),
      E("SerializationException", "invalid type: sequence, expected a string at line 1 column 13"));
  EXPECT_EQ(error(R"({"TopK":1e2})"),
            E("SerializationException",
              "invalid type: floating point `100.0`, expected i32 at line 1 column 11"));
  EXPECT_EQ(error(R"({"TopK":3000000000})"),
            E("SerializationException",
              "invalid value: integer `3000000000`, expected i32 at line 1 column 18"));
  EXPECT_EQ(error(R"({"TableName":-7})"),
            E("SerializationException",
              "invalid type: integer `-7`, expected a string at line 1 column 15"));
  EXPECT_EQ(error(R"({"TableName":"a","TableName":"b"})"),
            E("SerializationException", "duplicate field `TableName` at line 1 column 28"));
  // Optional members take null; unknown members are skipped; a request
  // serde accepts meets the usual checks (model constraints, then the
  // operation's own).
  EXPECT_EQ(error(R"({"TableName":"t","IndexName":"idx","SearchVector":[{"N":"1"}],"TopK":-1,
                     "ProjectionExpression":null,"Bogus":{"x":[1]}})")
                .second,
            "2 validation errors detected: Value 't' at 'tableName' failed to satisfy constraint: "
            "Member must have length greater than or equal to 3; Value '-1' at 'topK' failed to "
            "satisfy constraint: Member must have value greater than or equal to 1");
  EXPECT_EQ(error(R"({"TableName":"tbl","IndexName":"idx","SearchVector":[{"N":"1"}],"TopK":101,
                     "ProjectionExpression":null,"Bogus":{"x":[1]}})")
                .second,
            "Provided TopK value '101' is out of valid range. The value must be between 1 and 100 "
            "inclusive");
}

}  // namespace
}  // namespace dynarock::wire
