// Multi-attribute GSI keys through the AWS SDK for JavaScript v3: a GSI
// keyed (tournamentId, region) / (round, bracket, matchId), the shape AWS
// introduced the feature with, created and backfilled by UpdateTable, then
// queried with each legal prefix (against a filter of the items written),
// refused with illegal ones, and paged with every component in
// LastEvaluatedKey. The SDK's model need not know the limit: it sends
// the KeySchema as given. Run by ctest (wire_js).
import "./engines.mjs";  // first: Node.js and the install match the lockfile
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";

import {
  DynamoDBClient, CreateTableCommand, DescribeTableCommand, PutItemCommand, QueryCommand,
  UpdateTableCommand,
} from "@aws-sdk/client-dynamodb";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };
const KEYS = [
  { AttributeName: "tournamentId", KeyType: "HASH" }, { AttributeName: "region", KeyType: "HASH" },
  { AttributeName: "round", KeyType: "RANGE" }, { AttributeName: "bracket", KeyType: "RANGE" },
  { AttributeName: "matchId", KeyType: "RANGE" },
];
const DEFS = [
  { AttributeName: "matchId", AttributeType: "S" }, { AttributeName: "tournamentId", AttributeType: "S" },
  { AttributeName: "region", AttributeType: "S" }, { AttributeName: "round", AttributeType: "N" },
  { AttributeName: "bracket", AttributeType: "S" },
];

let server, client;
const items = [];

before(async () => {
  server = spawn(process.env.DYNAROCK_BIN, ["serve", "--in-memory", "--port", "0"]);
  const [line] = await once(createInterface({ input: server.stdout }), "line");
  client = new DynamoDBClient({ endpoint: line.split(" ")[4], region: "us-east-1", credentials });
  await client.send(new CreateTableCommand({
    TableName: "Matches", KeySchema: [{ AttributeName: "matchId", KeyType: "HASH" }],
    AttributeDefinitions: DEFS.slice(0, 1), BillingMode: "PAY_PER_REQUEST",
  }));
  for (let i = 0; i < 60; i++) {
    const item = {
      matchId: { S: `m${String(i).padStart(3, "0")}` },
      tournamentId: { S: i % 2 ? "WINTER" : "SUMMER" }, region: { S: i % 3 ? "EU" : "NA" },
      round: { N: String(i % 4) }, bracket: { S: ["UPPER", "LOWER", "UP"][i % 3] },
    };
    if (i === 7) delete item.bracket;  // sparse
    items.push(item);
    await client.send(new PutItemCommand({ TableName: "Matches", Item: item }));
  }
  await client.send(new UpdateTableCommand({
    TableName: "Matches", AttributeDefinitions: DEFS,
    GlobalSecondaryIndexUpdates: [{ Create: {
      IndexName: "ByBracket", KeySchema: KEYS, Projection: { ProjectionType: "ALL" } } }],
  }));
  for (let i = 0; i < 400; i++) {
    const d = await client.send(new DescribeTableCommand({ TableName: "Matches" }));
    if (d.Table.GlobalSecondaryIndexes[0].IndexStatus === "ACTIVE") return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the backfill did not finish");
});

after(async () => {
  server.kill("SIGTERM");
  const [code] = await once(server, "exit");
  assert.equal(code, 0, "the server did not stop cleanly");
});

const order = (a, b) => (Number(a.round.N) - Number(b.round.N)) ||
  (a.bracket.S < b.bracket.S ? -1 : a.bracket.S > b.bracket.S ? 1 : 0) ||
  (a.matchId.S < b.matchId.S ? -1 : 1);

async function queryAll(input) {
  const out = [];
  let start;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    out.push(...page.Items);
    start = page.LastEvaluatedKey;
    if (start) assert.deepEqual(Object.keys(start).sort(), ["bracket", "matchId", "region", "round", "tournamentId"]);
  } while (start);
  return out;
}

test("DescribeTable echoes the KeySchema of the backfilled index", async () => {
  const d = await client.send(new DescribeTableCommand({ TableName: "Matches" }));
  assert.deepEqual(d.Table.GlobalSecondaryIndexes[0].KeySchema, KEYS);
  assert.equal(d.Table.GlobalSecondaryIndexes[0].ItemCount, 59);
});

test("every legal prefix selects what a filter of the items selects", async () => {
  const cases = [
    ["", {}, () => true],
    ["AND round = :r", { ":r": { N: "1" } }, (i) => i.round.N === "1"],
    ["AND round >= :r", { ":r": { N: "2" } }, (i) => Number(i.round.N) >= 2],
    ["AND round = :r AND begins_with(bracket, :b)", { ":r": { N: "1" }, ":b": { S: "UP" } },
      (i) => i.round.N === "1" && i.bracket.S.startsWith("UP")],
    ["AND bracket = :b AND round = :r AND matchId BETWEEN :lo AND :hi",
      { ":r": { N: "3" }, ":b": { S: "UPPER" }, ":lo": { S: "m010" }, ":hi": { S: "m050" } },
      (i) => i.round.N === "3" && i.bracket.S === "UPPER" && i.matchId.S >= "m010" && i.matchId.S <= "m050"],
  ];
  for (const [more, values, keep] of cases) {
    for (const forward of [true, false]) {
      const got = await queryAll({
        TableName: "Matches", IndexName: "ByBracket", Limit: 2, ScanIndexForward: forward,
        KeyConditionExpression: `#r = :g AND tournamentId = :t ${more}`,
        ExpressionAttributeNames: { "#r": "region" },
        ExpressionAttributeValues: { ":t": { S: "WINTER" }, ":g": { S: "EU" }, ...values },
      });
      const want = items.filter((i) => i.bracket && i.tournamentId.S === "WINTER" &&
                                       i.region.S === "EU" && keep(i)).sort(order);
      if (!forward) want.reverse();
      assert.deepEqual(got.map((i) => i.matchId.S), want.map((i) => i.matchId.S), more);
    }
  }
});

test("illegal prefixes get DynamoDB's errors", async () => {
  for (const [condition, pattern] of [
    ["tournamentId = :t", /HASH.*equality/],
    ["tournamentId = :t AND #r = :g AND bracket = :b", /RANGE.*equality/],
    ["tournamentId = :t AND #r = :g AND round > :r AND bracket = :b", /RANGE.*equality/],
  ]) {
    const values = { ":t": { S: "WINTER" }, ":g": { S: "EU" }, ":r": { N: "1" }, ":b": { S: "UP" } };
    await assert.rejects(client.send(new QueryCommand({
      TableName: "Matches", IndexName: "ByBracket", KeyConditionExpression: condition,
      ...(condition.includes("#r") ? { ExpressionAttributeNames: { "#r": "region" } } : {}),
      ExpressionAttributeValues: Object.fromEntries(Object.entries(values).filter(([k]) => condition.includes(k))),
    })), (e) => e.name === "ValidationException" && pattern.test(e.message));
  }
});
