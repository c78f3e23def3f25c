// The pattern that broke the first server: an SDK v3 test run, many
// DynamoDBClient instances in one Node process, each keeping its keep-alive
// sockets open and idle. Every client must be served, also when their
// sockets outnumber the server's connection bound (the idlest are closed
// gracefully; nothing is reset mid-request). Run by ctest (wire_js).
import "./engines.mjs";  // first: Node.js and the install match the lockfile
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  DynamoDBClient, CreateTableCommand, PutItemCommand, GetItemCommand, QueryCommand,
} from "@aws-sdk/client-dynamodb";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

async function serve(args) {
  const server = spawn(process.env.DYNAROCK_BIN, ["serve", "--in-memory", "--port", "0", ...args]);
  const lines = createInterface({ input: server.stdout });
  const [line] = await once(lines, "line");
  return { server, endpoint: line.split(" ")[4] };
}

async function stop(server) {
  server.kill("SIGTERM");
  const [code] = await once(server, "exit");
  assert.equal(code, 0, "the server did not stop cleanly");
}

// `files` clients, as test files each with its own client: a table per
// file, writes and reads, interleaved, sockets left open.
async function testRun(endpoint, files) {
  const clients = Array.from({ length: files },
                             () => new DynamoDBClient({ endpoint, region: "us-east-1", credentials }));
  await Promise.all(clients.map((c, i) => c.send(new CreateTableCommand({
    TableName: `File${i}`,
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" },
                           { AttributeName: "SK", AttributeType: "S" }],
    BillingMode: "PAY_PER_REQUEST",
  }))));
  for (let round = 0; round < 3; round++) {
    await Promise.all(clients.map((c, i) => Promise.all([0, 1].map((j) => c.send(new PutItemCommand({
      TableName: `File${i}`,
      Item: { PK: { S: "VEH#V-7741" }, SK: { S: `TS#${round}-${j}` }, speedKph: { N: String(round) } },
    }))))));
  }
  const counts = await Promise.all(clients.map((c, i) => c.send(new QueryCommand({
    TableName: `File${i}`, KeyConditionExpression: "PK = :pk",
    ExpressionAttributeValues: { ":pk": { S: "VEH#V-7741" } },
  })).then((r) => r.Count)));
  assert.deepEqual(counts, Array(files).fill(6));
  const got = await clients[0].send(new GetItemCommand({
    TableName: "File0", Key: { PK: { S: "VEH#V-7741" }, SK: { S: "TS#2-1" } },
  }));
  assert.equal(got.Item.speedKph.N, "2");
  return clients;
}

test("300 SDK clients with idle keep-alive sockets are all served", async () => {
  const { server, endpoint } = await serve([]);
  const clients = await testRun(endpoint, 300);
  clients.forEach((c) => c.destroy());
  await stop(server);
});

test("past --max-connections the idlest sockets close and every request still succeeds", async () => {
  const { server, endpoint } = await serve(["--max-connections", "64"]);
  const clients = await testRun(endpoint, 150);
  clients.forEach((c) => c.destroy());
  await stop(server);
});
