// The web console (`dynarock serve`, /console/) in a real browser: Debian's
// Chromium, headless, driven by playwright-core. It loads the fleet example
// (tools/fleet_demo, small), opens the console, goes to the V-7741
// collection and checks what a person sees: META first, then the readings
// by time; the item count; the newest-first toggle; item sizes equal to the
// engine's (`dynarock collection`); the depot GSI's collection; values
// shown as text, never markup; a filtered Scan, paged; the status of
// indexes and TTL; and, against a server with --auth, the console's own
// SigV4 signatures. The admin pages, with --console-writes: a table created
// with its indexes, stream and TTL; items created and edited in the JSON
// editor with the server's validation messages; the stream viewer following
// new records; the table deleted once its name is typed. Without
// --console-writes the server itself refuses the console's writes.
//
// DYNAROCK_BIN, DYNAROCK_FLEET_DEMO: the binaries; CHROMIUM: the browser
// (/usr/bin/chromium). DYNAROCK_CONSOLE_SCREENSHOTS=DIR saves a PNG of each
// page there (tools/console/screenshots/ holds the committed ones).
import "./engines.mjs";  // first: Node.js and the install match the lockfile
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const bin = process.env.DYNAROCK_BIN;
const shots = process.env.DYNAROCK_CONSOLE_SCREENSHOTS;
const work = mkdtempSync(join(tmpdir(), "dynarock-console-"));
const db = join(work, "fleet-demo.db");
let browser;
const servers = [];

async function serve(...args) {
  const server = spawn(bin, ["serve", "--port", "0", ...args]);
  servers.push(server);
  const lines = createInterface({ input: server.stdout });
  const [line] = await once(lines, "line");  // "dynarock serving DynamoDB on http://... "
  return line.split(" ")[4];
}

async function post(endpoint, operation, request) {
  const r = await fetch(endpoint, {
    method: "POST", body: JSON.stringify(request),
    headers: { "Content-Type": "application/x-amz-json-1.0",
               "X-Amz-Target": "DynamoDB_20120810." + operation } });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  return JSON.parse(text);
}

// Waits until the page at `hash` has rendered (console.js marks it).
async function ready(page, hash) {
  await page.waitForSelector(`body[data-ready="${hash}"]`);
}

async function shot(page, name, fullPage = false) {
  if (shots) await page.screenshot({ path: join(shots, name), fullPage });
}

before(async () => {
  execFileSync(process.env.DYNAROCK_FLEET_DEMO, ["--db", db, "--vehicles", "20", "--readings", "40"],
               { stdio: "ignore" });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});

after(async () => {
  await browser?.close();
  for (const s of servers) {
    s.kill("SIGTERM");
    await once(s, "exit");
  }
  rmSync(work, { recursive: true, force: true });
});

test("the fleet example: tables, a collection in order, newest first, an index collection", async () => {
  const endpoint = await serve("--data-dir", db);
  // A value with markup in it: shown as text.
  await post(endpoint, "UpdateItem", {
    TableName: "Telemetry", Key: { vehicleId: { S: "VEH#V-7741" }, recordedAt: { S: "META" } },
    UpdateExpression: "SET note = :n",
    ExpressionAttributeValues: { ":n": { S: "<img src=x onerror=alert(1)><b>bold</b>" } } });

  const response = await fetch(endpoint + "/console/");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type"), /^text\/html/);
  assert.match(response.headers.get("content-security-policy"), /script-src 'self'/);
  assert.equal((await fetch(endpoint + "/console/nope.js")).status, 404);

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("dialog", (d) => { errors.push("dialog: " + d.message()); d.dismiss(); });

  // The tables.
  await page.goto(endpoint + "/console/");
  await ready(page, "#/");
  assert.equal(await page.locator("#keys").isVisible(), false);  // no --auth: no keys asked
  assert.equal(await page.locator("#mode").innerText(), "us-east-1 · read-only");
  const tableRow = await page.locator("#tables tbody tr").first().innerText();
  assert.match(tableRow, /^Telemetry\tACTIVE\t/);
  await shot(page, "tables.png");

  // The table: largest collections, and the way into one.
  await page.click("#tables a");
  await ready(page, "#/t/Telemetry");
  await page.waitForSelector(".bars");
  await page.fill("#open-key", "VEH#V-7741");
  await page.click("#open-button");
  await page.waitForSelector("#items");
  const hash = await page.evaluate(() => location.hash);
  await ready(page, hash);

  // The collection: META, then the readings in time order.
  const keys = await page.locator("#items tr.item").evaluateAll((rows) => rows.map((r) => r.dataset.sk));
  assert.equal(keys[0], "META");
  const readings = keys.slice(1);
  assert.ok(readings.length >= 30, `${readings.length} readings`);
  assert.ok(readings.every((k) => k.startsWith("TS#")));
  assert.deepEqual(readings, [...readings].sort());
  // The count is the collection's (statistics) and every item is listed.
  const count = Number((await page.locator("#count").innerText()).replace(/,/g, ""));
  assert.equal(count, keys.length);
  // The request shown is the Query sent.
  const request = JSON.parse(await page.locator("#request").innerText());
  assert.equal(request.KeyConditionExpression, "#pk = :pk");
  assert.deepEqual(request.ExpressionAttributeValues, { ":pk": { S: "VEH#V-7741" } });
  assert.equal(request.ScanIndexForward, true);
  // Sizes as the engine counts them.
  const sizes = await page.locator("#items tr.item td:nth-child(3)").allInnerTexts();
  const cli = execFileSync(bin, ["collection", db, "Telemetry", "VEH#V-7741"], { encoding: "utf8" })
      .split("\n").filter((l) => /^(META|TS#)/.test(l)).map((l) => l.split(/\s+/));
  assert.deepEqual(cli.map((f) => f[0]), keys);
  assert.deepEqual(sizes, cli.map((f) => f[1]));
  // Markup in a value is text.
  await page.click("#items tr.item >> nth=0");
  await page.waitForSelector("#item-json");
  const meta = JSON.parse(await page.locator("#item-json").innerText());
  assert.equal(meta.note.S, "<img src=x onerror=alert(1)><b>bold</b>");
  assert.equal(await page.locator("#items img, #items b, #detail img, #detail b").count(), 0);
  assert.equal(await page.locator("text=Delete item").count(), 0);  // read-only by default
  await page.click('button:has-text("Document")');
  assert.equal(JSON.parse(await page.locator("#item-json").innerText()).recordedAt, "META");
  await shot(page, "collection.png");

  // Newest first: the newest reading on top, META last.
  await page.click("#order-toggle");
  await page.waitForFunction(() => location.hash.includes("order=desc"));
  await ready(page, await page.evaluate(() => location.hash));
  const newest = await page.locator("#items tr.item").evaluateAll((rows) => rows.map((r) => r.dataset.sk));
  assert.deepEqual(newest, [...keys].reverse());
  assert.equal(JSON.parse(await page.locator("#request").innerText()).ScanIndexForward, false);

  // A slice of the sort key, paged: BETWEEN two readings, 5 a page.
  await page.selectOption("#sk-op", "between");
  await page.fill("#sk-a", readings[2]);
  await page.fill("#sk-b", readings[13]);
  await page.fill("#page-size", "5");
  await page.click("#run-query");
  await page.waitForFunction(() => location.hash.includes("op=between"));
  await ready(page, await page.evaluate(() => location.hash));
  const sliced = [];
  for (;;) {
    const shown = await page.locator("#items tr.item").evaluateAll((rows) => rows.map((r) => r.dataset.sk));
    sliced.push(...shown);
    if (await page.locator("#next-page").isDisabled()) break;
    const first = shown[0];
    await page.click("#next-page");
    await page.waitForFunction((f) => document.querySelector("#items tr.item")?.dataset.sk !== f, first);
  }
  assert.deepEqual(sliced, readings.slice(2, 14).reverse());
  await shot(page, "collection-range.png");

  // An index collection: the ByDepot GSI's DEP-LON-3, readings of several vehicles by time.
  await page.goto(endpoint + "/console/#/t/Telemetry");
  await ready(page, "#/t/Telemetry");
  await page.selectOption("#open-index", "ByDepot");
  await page.fill("#open-key", "DEP-LON-3");
  await page.click("#open-button");
  await page.waitForSelector("#items");
  await ready(page, await page.evaluate(() => location.hash));
  const depot = await page.locator("#items tr.item").evaluateAll((rows) => rows.map((r) => r.dataset.sk));
  assert.ok(depot.length > 0);
  assert.deepEqual(depot, [...depot].sort());
  await shot(page, "index-collection.png");
  await page.goto(endpoint + "/console/#/t/Telemetry");
  await ready(page, "#/t/Telemetry");
  await page.waitForSelector(".bars .bar");
  await shot(page, "table.png", true);

  // Status: every index, and TTL as the demo set it; no write controls.
  const indexRows = await page.locator("#index-status tbody tr").allInnerTexts();
  assert.ok(indexRows.some((r) => /^ByDepot\tGSI\tACTIVE\t/.test(r)), indexRows.join("\n"));
  assert.ok(indexRows.some((r) => /\tLSI\tACTIVE \(with the table\)\t/.test(r)), indexRows.join("\n"));
  await page.waitForSelector("#ttl-facts b");
  assert.match(await page.locator("#ttl-facts").innerText(), /^TTL ENABLED on expiresAt/);
  assert.equal(await page.locator("#delete-table, #ttl-off, #stream-on, #stream-off").count(), 0);
  assert.equal(await page.locator("text=New item").count(), 0);

  // A filtered Scan, a page at a time: what the pages show is what a
  // client's own Scan with the same filter matches.
  await page.click("nav.actions >> text=Scan");
  await ready(page, "#/t/Telemetry/scan");
  await page.click("#add-filter");
  await page.fill(".f-attr", "depotCode");
  await page.fill(".f-value", "DEP-LON-3");
  await page.fill("#scan-limit", "200");
  await page.click("#run-scan");
  await page.waitForFunction(() => location.hash.includes("filter="));
  await ready(page, await page.evaluate(() => location.hash));
  const sent = JSON.parse(await page.locator("#request").innerText());
  assert.equal(sent.FilterExpression, "#f0 = :f0");
  assert.deepEqual(sent.ExpressionAttributeValues, { ":f0": { S: "DEP-LON-3" } });
  const seenKeys = [];
  for (let pages = 1; ; pages++) {
    // Columns: #, the keys, then the attribute filtered on.
    const rows = await page.locator("#items tr.item").evaluateAll((trs) => trs.map((tr) =>
      [tr.children[1].textContent, tr.children[2].textContent, tr.children[3].textContent]));
    if (rows.length) {
      assert.deepEqual((await page.locator("#items thead th").allInnerTexts()).slice(0, 4),
                       ["#", "vehicleId", "recordedAt", "depotCode"]);
    }
    assert.ok(rows.every((r) => r[2] === "DEP-LON-3"));
    if (rows.length && seenKeys.length === 0) {
      // An item opens whole, without an editor (read-only).
      await page.click("#items tr.item >> nth=0");
      await page.waitForSelector("#item-json");
      assert.equal(JSON.parse(await page.locator("#item-json").innerText()).depotCode.S, "DEP-LON-3");
      assert.equal(await page.locator("#item-editor").count(), 0);
      await shot(page, "scan.png", true);
    }
    seenKeys.push(...rows.map((r) => r[0] + " " + r[1]));
    if (await page.locator("#next-page").isDisabled()) {
      assert.ok(pages > 1, "the scan took one page");
      break;
    }
    const shownText = await page.locator("#shown").innerText();
    await page.click("#next-page");
    await page.waitForFunction((t) => document.querySelector("#shown")?.textContent !== t, shownText);
  }
  const expected = [];
  let start;
  do {
    const r = await post(endpoint, "Scan", { TableName: "Telemetry", FilterExpression: "depotCode = :d",
      ExpressionAttributeValues: { ":d": { S: "DEP-LON-3" } }, ExclusiveStartKey: start });
    expected.push(...r.Items.map((i) => i.vehicleId.S + " " + i.recordedAt.S));
    start = r.LastEvaluatedKey;
  } while (start);
  assert.ok(expected.length > 0);
  assert.deepEqual(seenKeys.sort(), expected.sort());

  // The server refuses the console's own writes, whatever its page sends.
  const refused = await page.evaluate(async () => {
    const r = await fetch("/", { method: "POST", body: JSON.stringify({ TableName: "Telemetry",
      Item: { vehicleId: { S: "VEH#X" }, recordedAt: { S: "META" } } }),
      headers: { "Content-Type": "application/x-amz-json-1.0",
                 "X-Amz-Target": "DynamoDB_20120810.PutItem" } });
    return [r.status, await r.json()];
  });
  assert.equal(refused[0], 403);
  assert.match(refused[1].__type, /AccessDeniedException$/);
  assert.match(refused[1].message, /The console is read-only: start dynarock serve with --console-writes/);
  const { Item: absent } = await post(endpoint, "GetItem", { TableName: "Telemetry",
    Key: { vehicleId: { S: "VEH#X" }, recordedAt: { S: "META" } } });
  assert.equal(absent, undefined);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the admin pages, with --console-writes: create a table, edit items, follow its stream, delete it", async () => {
  const endpoint = await serve("--in-memory", "--console-writes");
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  const dialogs = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    d.accept();
  });
  await page.goto(endpoint + "/console/");
  await ready(page, "#/");
  assert.equal(await page.locator("#mode").innerText(), "us-east-1 · writes allowed");
  await page.click("text=Create a table");
  await ready(page, "#/new-table");

  // A name DynamoDB refuses: its message, and no table.
  await page.fill("#new-name", "x");
  await page.fill("#new-pk", "vehicleId");
  await page.click("#create-button");
  await page.waitForSelector("#create-status .error");
  assert.match(await page.locator("#create-status").innerText(), /^ValidationException: .*tableName/);
  assert.deepEqual((await post(endpoint, "ListTables", {})).TableNames, []);

  // The fleet's table: keys, a GSI, an LSI, a stream and TTL.
  await page.fill("#new-name", "Fleet");
  await page.fill("#new-sk", "recordedAt");
  await page.selectOption("#new-stream", "NEW_AND_OLD_IMAGES");
  await page.fill("#new-ttl", "expiresAt");
  await page.click("#add-gsi");
  await page.fill(".index-row[data-kind=GSI] .ix-name", "ByDepot");
  await page.fill(".index-row[data-kind=GSI] .ix-pk", "depotCode");
  await page.fill(".index-row[data-kind=GSI] .ix-sk", "recordedAt");
  await page.click("#add-lsi");
  await page.fill(".index-row[data-kind=LSI] .ix-name", "ByKind");
  await page.fill(".index-row[data-kind=LSI] .ix-sk", "kind");
  await page.selectOption(".index-row[data-kind=LSI] .ix-projection", "KEYS_ONLY");
  const request = JSON.parse(await page.locator("#create-request").innerText());
  assert.deepEqual(request.AttributeDefinitions.map((d) => d.AttributeName).sort(),
                   ["depotCode", "kind", "recordedAt", "vehicleId"]);
  assert.deepEqual(request.LocalSecondaryIndexes[0].KeySchema,
                   [{ AttributeName: "vehicleId", KeyType: "HASH" }, { AttributeName: "kind", KeyType: "RANGE" }]);
  await shot(page, "create-table.png", true);
  await page.click("#create-button");
  await ready(page, "#/t/Fleet");
  const { Table } = await post(endpoint, "DescribeTable", { TableName: "Fleet" });
  assert.equal(Table.GlobalSecondaryIndexes[0].IndexName, "ByDepot");
  assert.equal(Table.LocalSecondaryIndexes[0].Projection.ProjectionType, "KEYS_ONLY");
  assert.equal(Table.StreamSpecification.StreamViewType, "NEW_AND_OLD_IMAGES");
  const ttl = await post(endpoint, "DescribeTimeToLive", { TableName: "Fleet" });
  assert.deepEqual(ttl.TimeToLiveDescription, { TimeToLiveStatus: "ENABLED", AttributeName: "expiresAt" });
  await page.waitForSelector("#ttl-off");
  assert.match(await page.locator("#stream-facts").innerText(), /stream on \(NEW_AND_OLD_IMAGES\)/);

  // A new item: the editor's own check, then the server's messages as sent.
  await page.click("nav.actions >> text=New item");
  await ready(page, "#/t/Fleet/item");
  assert.deepEqual(JSON.parse(await page.inputValue("#item-editor")),
                   { vehicleId: { S: "" }, recordedAt: { S: "" } });
  const attempt = async (text) => {
    await page.fill("#item-editor", text);
    const before = await page.locator("#item-status").innerText();
    await page.click("#create-item");
    await page.waitForFunction((b) => document.querySelector("#item-status").innerText !== b, before)
        .catch(() => {});  // the same message twice
    return page.locator("#item-status").innerText();
  };
  assert.match(await attempt("{\"vehicleId\": "), /^Not JSON: /);
  assert.match(await attempt('{"vehicleId": {"S": "VEH#V-1"}}'),
               /^ValidationException: One or more parameter values were invalid: Missing the key recordedAt in the item$/);
  assert.match(await attempt('{"vehicleId": {"S": "VEH#V-1"}, "recordedAt": {"S": "META"}, "speed": {"N": "fast"}}'),
               /^ValidationException: /);
  await shot(page, "new-item-error.png", true);
  const meta = { vehicleId: { S: "VEH#V-1" }, recordedAt: { S: "META" }, depotCode: { S: "DEP-LON-3" },
                 kind: { S: "van" } };
  assert.equal(await attempt(JSON.stringify(meta)), "Created.");
  assert.match(await attempt(JSON.stringify(meta)),
               /^ConditionalCheckFailedException: .* \(an item with this key exists: open it to edit it\)$/);
  assert.deepEqual((await post(endpoint, "GetItem", { TableName: "Fleet", Key: {
    vehicleId: meta.vehicleId, recordedAt: meta.recordedAt } })).Item, meta);

  // The stream: the INSERT, then a write made elsewhere appears by itself.
  await page.goto(endpoint + "/console/#/t/Fleet/stream");
  await ready(page, "#/t/Fleet/stream");
  await page.waitForSelector("#records tr.record");
  let records = await page.locator("#records tr.record").allInnerTexts();
  assert.equal(records.length, 1);
  assert.match(records[0], /\tINSERT\tVEH#V-1 · META\t/);
  await post(endpoint, "UpdateItem", { TableName: "Fleet", Key: { vehicleId: meta.vehicleId,
    recordedAt: meta.recordedAt }, UpdateExpression: "SET speed = :s",
    ExpressionAttributeValues: { ":s": { N: "42" } } });
  await page.waitForFunction(() => document.querySelectorAll("#records tr.record").length === 2);
  records = await page.locator("#records tr.record").allInnerTexts();
  assert.match(records[0], /\tMODIFY\tVEH#V-1 · META\t.*"speed":42/);
  assert.ok((await page.locator("#shards tbody tr").count()) >= 1);
  await shot(page, "stream.png", true);

  // Scan, open the item, edit it in place.
  await page.goto(endpoint + "/console/#/t/Fleet/scan");
  await ready(page, "#/t/Fleet/scan");
  await page.click("#items tr.item");
  await page.waitForSelector("#item-editor");
  await page.fill("#item-editor", JSON.stringify({ ...meta, speed: { N: "50" } }));
  await page.click("#put-item");
  await page.waitForSelector("#item-status >> text=Saved.");
  assert.deepEqual((await post(endpoint, "GetItem", { TableName: "Fleet", Key: {
    vehicleId: meta.vehicleId, recordedAt: meta.recordedAt } })).Item.speed, { N: "50" });

  // TTL off, from the status panel: as in DynamoDB, not within an hour of
  // turning it on; the server's message is shown and nothing changes.
  await page.goto(endpoint + "/console/#/t/Fleet");
  await ready(page, "#/t/Fleet");
  await page.click("#ttl-off");
  await page.waitForSelector("#ttl-status .error");
  assert.equal(await page.locator("#ttl-status").innerText(),
               "ValidationException: Time to live has been modified multiple times within a fixed interval");
  assert.equal((await post(endpoint, "DescribeTimeToLive", { TableName: "Fleet" }))
                   .TimeToLiveDescription.TimeToLiveStatus, "ENABLED");
  // The stream off and on again (UpdateTable).
  await page.click("#stream-off");
  await ready(page, "#/t/Fleet");
  await page.waitForSelector("#stream-on");
  assert.equal((await post(endpoint, "DescribeTable", { TableName: "Fleet" })).Table.StreamSpecification
                   ?.StreamEnabled ?? false, false);
  await page.selectOption("#stream-view", "KEYS_ONLY");
  await page.click("#stream-on");
  await page.waitForSelector("#stream-off");
  assert.equal((await post(endpoint, "DescribeTable", { TableName: "Fleet" })).Table.StreamSpecification
                   .StreamViewType, "KEYS_ONLY");

  // Delete: not until the name is typed exactly.
  await page.fill("#delete-confirm", "Flee");
  assert.equal(await page.locator("#delete-table").isDisabled(), true);
  await page.fill("#delete-confirm", "Fleet");
  await shot(page, "table-admin.png", true);
  await page.click("#delete-table");
  await ready(page, "#/");
  assert.deepEqual((await post(endpoint, "ListTables", {})).TableNames, []);
  assert.deepEqual(dialogs, ["Replace this item with the edited one (PutItem)?", "Turn TTL off (UpdateTimeToLive)?",
                             "Turn the stream off (UpdateTable)? Its records stay readable for 24 hours."]);
  assert.deepEqual(errors, []);
  await page.close();
});

test("with --console-writes, an item is put and deleted after a confirmation", async () => {
  const endpoint = await serve("--in-memory", "--console-writes");
  await post(endpoint, "CreateTable", {
    TableName: "Fleet", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" },
                           { AttributeName: "sk", AttributeType: "N" }] });
  const key = { pk: { S: "VEH#V-1" }, sk: { N: "1" } };
  await post(endpoint, "PutItem", { TableName: "Fleet", Item: { ...key, speed: { N: "30" } } });
  const page = await browser.newPage();
  const dialogs = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    d.accept();
  });
  await page.goto(endpoint + `/console/#/t/Fleet/c?pk=${encodeURIComponent('{"S":"VEH#V-1"}')}`);
  await page.waitForSelector("#items tr.item");
  assert.equal(await page.locator("#mode").innerText(), "us-east-1 · writes allowed");
  await page.click("#items tr.item");
  await page.waitForSelector("#item-editor");
  await page.fill("#item-editor", JSON.stringify({ ...key, speed: { N: "42" } }));
  await page.click("text=Put item");
  await page.waitForSelector("text=Saved.");
  let { Item } = await post(endpoint, "GetItem", { TableName: "Fleet", Key: key });
  assert.deepEqual(Item.speed, { N: "42" });
  await page.click("text=Delete item");
  await page.waitForSelector("text=Deleted.");
  ({ Item } = await post(endpoint, "GetItem", { TableName: "Fleet", Key: key }));
  assert.equal(Item, undefined);
  assert.deepEqual(dialogs, ["Replace this item with the edited one (PutItem)?",
                             "Delete this item (DeleteItem)? This cannot be undone."]);
  await page.close();
});

test("against --auth, the console signs its requests with the keys it is given", async () => {
  const endpoint = await serve("--in-memory", "--auth", "AKIDCONSOLE:s3cret");
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(endpoint + "/console/");
  await page.waitForSelector("#keys:not([hidden])");
  await page.fill("#key-id", "AKIDCONSOLE");
  await page.fill("#key-secret", "wrong");
  await page.click("text=Use these keys");
  await page.waitForSelector(".error:has-text('InvalidSignatureException')");
  await page.fill("#key-secret", "s3cret");
  await page.click("text=Use these keys");
  await page.waitForSelector("text=No tables yet");
  // Every request is signed: the console may write.
  assert.equal(await page.locator("#mode").innerText(), "us-east-1 · writes allowed");
  await page.click("text=Create a table");
  await ready(page, "#/new-table");
  await page.fill("#new-name", "Signed");
  await page.fill("#new-pk", "id");
  await page.click("#create-button");
  await ready(page, "#/t/Signed");
  assert.equal(await page.locator("h1").innerText(), "Signed");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a multi-attribute GSI's collection is opened by all its partition values", async () => {
  const endpoint = await serve("--in-memory");
  const S = (s) => ({ S: s });
  await post(endpoint, "CreateTable", {
    TableName: "Matches", KeySchema: [{ AttributeName: "matchId", KeyType: "HASH" }],
    AttributeDefinitions: [["matchId", "S"], ["tournamentId", "S"], ["region", "S"], ["round", "N"]]
      .map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    GlobalSecondaryIndexes: [{ IndexName: "ByRound", Projection: { ProjectionType: "ALL" },
      KeySchema: [{ AttributeName: "tournamentId", KeyType: "HASH" },
                  { AttributeName: "region", KeyType: "HASH" },
                  { AttributeName: "round", KeyType: "RANGE" }] }],
    BillingMode: "PAY_PER_REQUEST" });
  for (const [id, region, round] of [["m1", "EU", 3], ["m2", "EU", 1], ["m3", "NA", 2], ["m4", "EU", 2]]) {
    await post(endpoint, "PutItem", { TableName: "Matches", Item: {
      matchId: S(id), tournamentId: S("WINTER"), region: S(region), round: { N: String(round) } } });
  }
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(endpoint + "/console/#/t/Matches");
  await ready(page, "#/t/Matches");
  await page.selectOption("#open-index", "ByRound");
  await page.fill("#open-key", "WINTER");
  await page.fill("#open-key-1", "EU");
  await page.click("#open-button");
  await page.waitForSelector("#items");
  assert.equal(await page.locator("h1").innerText(), "tournamentId = WINTER, region = EU");
  assert.deepEqual(await page.locator("tr.item").evaluateAll((rows) => rows.map((r) => r.dataset.sk)),
                   ["1", "2", "3"]);
  const sent = JSON.parse(await page.locator("#request").innerText());
  assert.equal(sent.KeyConditionExpression, "#pk0 = :pk0 AND #pk1 = :pk1");
  // The largest collections link to the same page.
  await page.goto(endpoint + "/console/#/t/Matches");
  await ready(page, "#/t/Matches");
  await page.waitForSelector(".bars");
  assert.ok((await page.locator("h3").allInnerTexts()).includes("Matches.ByRound by tournamentId, region"));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a vector index: its partitions and sizes, and a search from a JSON vector", async () => {
  const endpoint = await serve("--in-memory");
  const S = (s) => ({ S: s });
  await post(endpoint, "CreateTable", {
    TableName: "Docs", KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" },
                           { AttributeName: "tenant", AttributeType: "S" }],
    BillingMode: "PAY_PER_REQUEST",
    VectorIndexes: [{ IndexName: "ByTenant", VectorAttribute: { AttributeName: "embedding" },
                      Dimensions: 3, DistanceFunction: "EUCLIDEAN",
                      Projection: { ProjectionType: "ALL" },
                      SearchSchema: [{ AttributeName: "tenant", SearchSchemaElementType: "HASH" }] }] });
  const docs = [["a", "acme", [0, 0, 0]], ["b", "acme", [1, 0, 0]], ["c", "acme", [3, 3, 3]],
                ["d", "globex", [0, 0, 1]]];
  for (const [id, tenant, v] of docs) {
    await post(endpoint, "PutItem", { TableName: "Docs", Item: {
      id: S(id), tenant: S(tenant), title: S(`<b>${id}</b>`),
      embedding: { L: v.map((x) => ({ N: String(x) })) } } });
  }
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(endpoint + "/console/#/t/Docs");
  await ready(page, "#/t/Docs");
  // The index, with its entry count, and its partitions among the largest.
  const facts = await page.locator("main > .facts").innerText();
  assert.match(facts, /VECTOR ByTenant embedding · 3 dims · EUCLIDEAN · by tenant · 4 entries/);
  await page.waitForSelector(".bars");
  assert.ok((await page.locator("h3").allInnerTexts()).includes("Docs.ByTenant by tenant"));
  const largest = await page.locator(".panel", { hasText: "Docs.ByTenant by tenant" }).innerText();
  assert.match(largest, /acme\n.* · 3 items\nglobex\n.* · 1 items/);
  // A search: the nearest of tenant acme, best first, values as text.
  await page.fill("#vector-hash", "acme");
  await page.fill("#vector-topk", "2");
  await page.fill("#vector-json", "[0.9, 0, 0]");
  await page.click("#vector-button");
  await page.waitForSelector("#vector-table");
  const rows = await page.locator("#vector-table tbody tr").allInnerTexts();
  assert.equal(rows.length, 2);
  assert.match(rows[0], /^0\.100000\t\{.*"id":\{"S":"b"\}/);
  assert.match(rows[1], /^0\.900000\t\{.*"id":\{"S":"a"\}/);
  assert.match(rows[0], /"title":\{"S":"<b>b<\/b>"\}/);  // markup shown as text
  await shot(page, "vector-search.png", true);
  // Not a JSON array of numbers: said so, nothing sent.
  await page.fill("#vector-json", "[1, \"x\"]");
  await page.click("#vector-button");
  await page.waitForSelector("#vector-results .error");
  assert.match(await page.locator("#vector-results").innerText(), /JSON array of numbers/);
  // DynamoDB's own error, shown as it came.
  await page.fill("#vector-json", "[1, 2]");
  await page.click("#vector-button");
  await page.waitForSelector("#vector-results .error");
  assert.match(await page.locator("#vector-results").innerText(),
               /Input search vector dimension 2 does not match vector index dimension 3/);
  assert.deepEqual(errors, []);
  await page.close();
});
