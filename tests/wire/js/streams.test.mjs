// The AWS SDK for JavaScript v3 against `dynarock serve`: the fleet table's
// stream read with DynamoDBStreamsClient (same port as DynamoDB), following
// shard lineage. Run by ctest (wire_js) with DYNAROCK_BIN set.
import "./engines.mjs";  // first: Node.js and the install match the lockfile
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { test, before, after } from "node:test";
import assert from "node:assert/strict";

import {
  DynamoDBClient, CreateTableCommand, PutItemCommand, UpdateItemCommand, DeleteItemCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBStreamsClient, ListStreamsCommand, DescribeStreamCommand, GetShardIteratorCommand,
  GetRecordsCommand,
} from "@aws-sdk/client-dynamodb-streams";

let server, endpoint;
const credentials = { accessKeyId: "local", secretAccessKey: "local" };

before(async () => {
  server = spawn(process.env.DYNAROCK_BIN, ["serve", "--in-memory", "--port", "0"]);
  const lines = createInterface({ input: server.stdout });
  const [line] = await once(lines, "line");  // "dynarock serving DynamoDB on http://... "
  endpoint = line.split(" ")[4];
  assert.match(endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
});

after(async () => {
  server.kill("SIGTERM");
  const [code] = await once(server, "exit");
  assert.equal(code, 0, "the server did not stop cleanly");
});

test("DynamoDBStreamsClient reads the fleet table's stream", async () => {
  const ddb = new DynamoDBClient({ endpoint, region: "eu-west-2", credentials });
  const streams = new DynamoDBStreamsClient({ endpoint, region: "eu-west-2", credentials });
  const created = await ddb.send(new CreateTableCommand({
    TableName: "Fleet",
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" },
                           { AttributeName: "SK", AttributeType: "S" }],
    BillingMode: "PAY_PER_REQUEST",
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_IMAGE" },
  }));
  const arn = created.TableDescription.LatestStreamArn;
  const pk = { S: "VEH#V-7741" };
  await ddb.send(new PutItemCommand({ TableName: "Fleet", Item: { PK: pk, SK: { S: "META" } } }));
  for (let i = 0; i < 5; i++) {
    await ddb.send(new PutItemCommand({
      TableName: "Fleet", Item: { PK: pk, SK: { S: `TS#${i}` }, speedKph: { N: String(40 + i) } },
    }));
  }
  await ddb.send(new UpdateItemCommand({
    TableName: "Fleet", Key: { PK: pk, SK: { S: "META" } },
    UpdateExpression: "SET depotCode = :d", ExpressionAttributeValues: { ":d": { S: "DEP-LON-3" } },
  }));
  await ddb.send(new DeleteItemCommand({ TableName: "Fleet", Key: { PK: pk, SK: { S: "TS#0" } } }));

  const listed = await streams.send(new ListStreamsCommand({ TableName: "Fleet" }));
  assert.deepEqual(listed.Streams.map((s) => s.StreamArn), [arn]);
  const { StreamDescription: d } = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
  assert.equal(d.StreamStatus, "ENABLED");
  const events = [];
  for (const shard of d.Shards) {
    let { ShardIterator: it } = await streams.send(new GetShardIteratorCommand({
      StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON",
    }));
    while (it) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: it, Limit: 3 }));
      for (const r of page.Records) events.push(r);
      it = page.NextShardIterator;
      if (!shard.SequenceNumberRange.EndingSequenceNumber && page.Records.length === 0) break;
    }
  }
  assert.deepEqual(events.map((r) => r.eventName),
    ["INSERT", "INSERT", "INSERT", "INSERT", "INSERT", "INSERT", "MODIFY", "REMOVE"]);
  assert.equal(events[6].dynamodb.NewImage.depotCode.S, "DEP-LON-3");
  assert.equal(events[7].dynamodb.OldImage, undefined);  // NEW_IMAGE: no old images
  assert.ok(events[0].dynamodb.ApproximateCreationDateTime instanceof Date);
  const seqs = events.map((r) => BigInt(r.dynamodb.SequenceNumber));
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i - 1] < seqs[i]);
});
