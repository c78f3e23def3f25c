// The console's admin pages: what a person running a local DynamoDB reaches
// for dynamodb-admin to do, through DynamoDB's own API.
//
//   #/new-table            create a table: keys, GSIs and LSIs, billing,
//                          a stream, TTL; the CreateTable request shown
//                          as it will be sent
//   #/t/TABLE/scan?...     a Scan of the table or of an index, a page at a
//                          time, with filter conditions (FilterExpression)
//   #/t/TABLE/item         a new item, in DynamoDB JSON
//   #/t/TABLE/stream       the latest records of the table's stream, read
//                          shard by shard in lineage order, and followed
//   (the table page)       status: streams, TTL, every index; turning TTL
//                          and the stream on or off; deleting the table
//
// Writes are offered only when the server allows the console to write
// (serve --console-writes, or --auth): without, the server refuses them
// too. What the server says is shown as it said it: its validation
// messages are the editor's.
import {
  attributeTypes, cell, collectionHash, crumbs, dynamodb, el, errorBox, hashNames, humanBytes,
  indexesOf, itemSize, keyText, link, pkParam, plain, show, state, streams, tableHash,
  vectorIndexesOf,
} from "./core.js";

const writes = () => state.config.Writes;

// A status line under a form: an error (role=alert) or a plain message.
function statusLine(id) {
  const line = el("div", { id, class: "status" });
  return {
    line,
    error(e) { line.replaceChildren(errorBox(e)); },
    say(text) { line.replaceChildren(el("span", { class: "ok" }, text)); },
    clear() { line.replaceChildren(); },
  };
}

// ---- Items -----------------------------------------------------------------------------------

// The key of `item` under the table's key schema.
function keyOf(table, item) {
  return Object.fromEntries(table.KeySchema.map((k) => [k.AttributeName, item[k.AttributeName]]));
}

// An item typed into the editor: a JSON object, or a message saying why not.
function parseItem(text) {
  let item;
  try {
    item = JSON.parse(text);
  } catch (e) {
    throw new Error(`Not JSON: ${e.message}`);
  }
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    throw new Error('An item is a JSON object of attributes in DynamoDB JSON, e.g. ' +
                    '{"pk": {"S": "VEH#V-7741"}, "speed": {"N": "42"}}.');
  }
  return item;
}

// The JSON editor of one item: `item` null for a new one (PutItem that
// fails if the key is taken), else the item as read (PutItem replacing it,
// DeleteItem). `done(item)` is called after a write.
export function itemEditor(table, item, done = () => {}) {
  const types = attributeTypes(table);
  const skeleton = Object.fromEntries(table.KeySchema.map((k) => [k.AttributeName,
                                                                   { [types[k.AttributeName]]: "" }]));
  const editor = el("textarea", { id: "item-editor", rows: 14, cols: 80, spellcheck: "false" },
                    JSON.stringify(item || skeleton, null, 2));
  const status = statusLine("item-status");
  const put = async (request, confirmText, doneText) => {
    let edited;
    try {
      edited = parseItem(editor.value);
    } catch (e) {
      status.error(e);
      return;
    }
    if (confirmText && !confirm(confirmText(edited))) return;
    try {
      await dynamodb("PutItem", { TableName: table.TableName, Item: edited, ...request });
      status.say(doneText);
      done(edited);
    } catch (e) {
      if (e.type === "ConditionalCheckFailedException") {
        e.message += " (an item with this key exists: open it to edit it)";
      }
      status.error(e);
    }
  };
  const pk = table.KeySchema[0].AttributeName;
  const buttons = item === null
    ? [el("button", { type: "button", id: "create-item", onclick: () => put(
        { ConditionExpression: "attribute_not_exists(#pk)", ExpressionAttributeNames: { "#pk": pk } },
        null, "Created.") }, "Create item")]
    : [el("button", { type: "button", id: "put-item", onclick: () => put({}, (edited) =>
        JSON.stringify(keyOf(table, edited)) === JSON.stringify(keyOf(table, item))
          ? "Replace this item with the edited one (PutItem)?"
          : "The key changed: this puts a new item and leaves the old one. Put it (PutItem)?",
        "Saved.") }, "Put item"),
       el("button", { type: "button", class: "danger", id: "delete-item", onclick: async () => {
         if (!confirm("Delete this item (DeleteItem)? This cannot be undone.")) return;
         try {
           await dynamodb("DeleteItem", { TableName: table.TableName, Key: keyOf(table, item) });
           status.say("Deleted.");
           done(null);
         } catch (e) {
           status.error(e);
         }
       } }, "Delete item")];
  return [editor, el("div", { class: "pager" }, buttons), status.line];
}

// One item: DynamoDB JSON and the plain document; put and delete when
// the console may write. `entry` may be an index entry (some attributes):
// the item is read whole.
export async function itemDetail(table, entry, box) {
  const key = keyOf(table, entry);
  const { Item: item } = await dynamodb("GetItem", { TableName: table.TableName, Key: key,
                                                     ConsistentRead: true });
  if (!item) {
    box.replaceChildren(el("p", { class: "empty" }, "The item is gone."));
    return;
  }
  const pre = el("pre", { class: "request", id: "item-json" });
  const tabs = [["DynamoDB JSON", () => JSON.stringify(item, null, 2)],
                ["Document", () => JSON.stringify(plain({ M: item }), null, 2)]];
  const buttons = tabs.map(([label, text], i) => el("button", {
    type: "button", "aria-pressed": i === 0 ? "true" : "false", onclick: (e) => {
      for (const b of buttons) b.setAttribute("aria-pressed", "false");
      e.target.setAttribute("aria-pressed", "true");
      pre.textContent = text();
    } }, label));
  pre.textContent = tabs[0][1]();
  const parts = [el("h2", {}, `Item (${itemSize(item)} bytes)`), el("div", { class: "tabs" }, buttons), pre];
  if (writes()) parts.push(el("h3", {}, "Edit (PutItem replaces the whole item)"), itemEditor(table, item));
  box.replaceChildren(el("div", { class: "panel" }, parts));
  box.scrollIntoView({ block: "nearest" });
}

// A table row that opens its item in `detail` when clicked, one selected
// at a time.
export function openOnClick(row, table, item, detail) {
  row.addEventListener("click", () => {
    for (const s of row.parentNode.querySelectorAll("tr.selected")) s.classList.remove("selected");
    row.classList.add("selected");
    itemDetail(table, item, detail).catch((e) => detail.replaceChildren(errorBox(e)));
  });
  return row;
}

// Previous and Next over a stack of pages (the shown one on top): `next`
// is the page after it (falsy at the end); `load` shows the top page, in
// `box`.
export function pagerButtons(pages, next, load, box) {
  const go = () => load().catch((e) => box.replaceChildren(errorBox(e)));
  return [el("button", { class: "quiet", disabled: pages.length === 1,
                         onclick: () => { pages.pop(); go(); } }, "Previous page"),
          el("button", { id: "next-page", disabled: !next,
                         onclick: () => { pages.push(next); go(); } }, "Next page")];
}

export async function newItemPage(name) {
  crumbs(link("tables", "#/"), link(name, tableHash(name)), el("span", {}, "new item"));
  const { Table: t } = await dynamodb("DescribeTable", { TableName: name });
  const after = el("p", {});
  const done = (item) => {
    const pk = hashNames(t.KeySchema);
    after.replaceChildren("Open ", link("its collection", collectionHash(name, {
      pk: pkParam(pk.map((n) => item[n])) })), ", or edit the JSON to create another.");
  };
  show(el("h1", {}, `New item in ${name}`),
       el("p", {}, "The item in DynamoDB JSON: each attribute is an object naming its type ",
          el("code", {}, '{"S": "text"}, {"N": "42"}, {"BOOL": true}, {"L": [...]}, {"M": {...}}'),
          `. The key: ${keyText(t.KeySchema, attributeTypes(t))}. It is created only if no item has its key.`),
       writes() ? el("div", { class: "panel" }, itemEditor(t, null, done), after)
                : el("p", { class: "error" }, "The console is read-only: start dynarock serve " +
                                             "with --console-writes (or --auth) to write from it."));
}

// ---- Scan ------------------------------------------------------------------------------------

const FILTER_OPS = [["=", "="], ["<>", "<>"], ["<", "<"], ["<=", "<="], [">", ">"], [">=", ">="],
                    ["begins_with", "begins_with"], ["contains", "contains"],
                    ["attribute_exists", "exists"], ["attribute_not_exists", "does not exist"]];
const UNARY = new Set(["attribute_exists", "attribute_not_exists"]);

function filterValue(type, text) {
  if (type === "BOOL") return { BOOL: text.trim() === "true" };
  if (type === "NULL") return { NULL: true };
  return { [type]: text };
}

// The Scan a scan page sends, from its parameters: index, limit, and
// filter (a JSON list of [attribute, operator, type, value]), the
// conditions joined by AND.
export function scanRequest(name, p) {
  const request = { TableName: name, Limit: Number(p.limit || 50) };
  if (p.index) request.IndexName = p.index;
  const conditions = JSON.parse(p.filter || "[]");
  if (conditions.length) {
    const names = {};
    const values = {};
    request.FilterExpression = conditions.map(([attribute, op, type, text], i) => {
      names[`#f${i}`] = attribute;
      if (UNARY.has(op)) return `${op}(#f${i})`;
      values[`:f${i}`] = filterValue(type, text);
      return op === "begins_with" || op === "contains" ? `${op}(#f${i}, :f${i})` : `#f${i} ${op} :f${i}`;
    }).join(" AND ");
    request.ExpressionAttributeNames = names;
    if (Object.keys(values).length) request.ExpressionAttributeValues = values;
  }
  return request;
}

function filterRow(condition = ["", "=", "S", ""]) {
  const [attribute, op, type, text] = condition;
  const row = el("div", { class: "controls filter" },
    el("label", {}, "attribute", el("input", { class: "f-attr", value: attribute, required: true })),
    el("label", {}, "is", el("select", { class: "f-op" }, FILTER_OPS.map(([v, t]) =>
      el("option", { value: v, selected: v === op }, t)))),
    el("label", {}, "type", el("select", { class: "f-type" }, ["S", "N", "BOOL", "NULL"].map((v) =>
      el("option", { value: v, selected: v === type }, v)))),
    el("label", {}, "value", el("input", { class: "f-value", value: text })),
    el("button", { type: "button", class: "quiet", onclick: () => row.remove() }, "remove"));
  return row;
}

export async function scanPage(name, p) {
  crumbs(link("tables", "#/"), link(name, tableHash(name)), el("span", {}, "scan"));
  const { Table: t } = await dynamodb("DescribeTable", { TableName: name });
  const indexes = indexesOf(t);
  const index = indexes.find((i) => i.IndexName === p.index);
  const go = (changes) => { location.hash = tableHash(name) + "/scan?" + new URLSearchParams(
    Object.entries({ ...p, ...changes }).filter(([, v]) => v !== undefined && v !== "")).toString(); };

  const target = el("select", { id: "scan-index" },
                    el("option", { value: "" }, "the table"),
                    indexes.map((i) => el("option", { value: i.IndexName, selected: i === index },
                                          `${i.IndexName} (${i.kind})`)));
  const filters = el("div", { id: "filters" }, JSON.parse(p.filter || "[]").map(filterRow));
  const limitInput = el("input", { id: "scan-limit", type: "number", min: 1, max: 1000, value: p.limit || 50 });
  const form = el("form", { class: "panel", onsubmit: (e) => {
    e.preventDefault();
    const conditions = [...filters.querySelectorAll(".filter")].map((r) => [
      r.querySelector(".f-attr").value.trim(), r.querySelector(".f-op").value,
      r.querySelector(".f-type").value, r.querySelector(".f-value").value]);
    go({ index: target.value, limit: limitInput.value,
         filter: conditions.length ? JSON.stringify(conditions) : "" });
  } },
    el("div", { class: "controls" }, el("label", {}, "scan", target), el("label", {}, "page size", limitInput),
       el("button", { type: "button", class: "quiet", id: "add-filter",
                      onclick: () => filters.append(filterRow()) }, "+ filter condition"),
       el("button", { type: "submit", id: "run-scan" }, "Scan")),
    filters,
    el("h3", {}, "The request (Scan, as any SDK sends it)"), el("pre", { class: "request", id: "request" }));

  const itemsBox = el("div", {});
  const detail = el("div", { id: "detail" });
  show(el("h1", {}, `Scan of ${index ? `${index.IndexName} (${name})` : name}`),
       el("div", { class: "facts" },
          el("span", {}, el("b", {}, t.ItemCount.toLocaleString("en")), " items in the table"),
          el("span", {}, "filters are applied after the read: a page may hold fewer items than " +
                         "its size, or none, and still have more after it")),
       form, itemsBox, detail);

  const request = scanRequest(name, p);
  // The keys come first, then the attributes filtered on.
  const keyNames = [...t.KeySchema, ...(index ? index.KeySchema : [])].map((k) => k.AttributeName)
      .concat(JSON.parse(p.filter || "[]").map((c) => c[0]))
      .filter((n, i, all) => all.indexOf(n) === i);
  const pages = [{ start: undefined, count: 0, scanned: 0 }];
  const load = async () => {
    const page = pages[pages.length - 1];
    const sent = { ...request, ...(page.start ? { ExclusiveStartKey: page.start } : {}) };
    form.querySelector("#request").textContent = JSON.stringify(sent, null, 2);
    const r = await dynamodb("Scan", sent);
    // Columns: the keys, then the page's most common attributes.
    const seen = new Map();
    for (const item of r.Items) {
      for (const k of Object.keys(item)) if (!keyNames.includes(k)) seen.set(k, (seen.get(k) || 0) + 1);
    }
    const others = [...seen].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k]) => k);
    const columns = [...keyNames, ...others.slice(0, 8)];
    const rest = others.slice(8);
    const rows = r.Items.map((item, i) => {
      const row = el("tr", { class: "item" }, el("td", { class: "num" }, page.count + i + 1),
                     columns.map((c) => el("td", { class: keyNames.includes(c) ? "mono" : "" }, cell(item[c]))),
                     rest.length ? el("td", { class: "attrs" }, rest.filter((k) => item[k])
                       .map((k) => `${k}=${cell(item[k])}`).join("  ")) : []);
      return openOnClick(row, t, item, detail);
    });
    const next = r.LastEvaluatedKey && { start: r.LastEvaluatedKey, count: page.count + r.Count,
                                         scanned: page.scanned + r.ScannedCount };
    itemsBox.replaceChildren(
      el("div", { class: "pager" }, pagerButtons(pages, next, load, itemsBox),
         el("span", { id: "shown" }, `${r.Count} item${r.Count === 1 ? "" : "s"} of ${r.ScannedCount} read` +
            (r.LastEvaluatedKey ? " (more: LastEvaluatedKey)" : " (the end)") +
            `; ${page.count + r.Count} matched of ${page.scanned + r.ScannedCount} read so far`)),
      r.Items.length === 0 ? el("p", { class: "empty" }, "No items in this page.") :
      el("table", { id: "items" },
         el("thead", {}, el("tr", {}, el("th", { class: "num" }, "#"), columns.map((c) => el("th", {}, c)),
                            rest.length ? el("th", {}, "more attributes") : [])),
         el("tbody", {}, rows)));
  };
  await load();
}

// ---- Creating and deleting tables ------------------------------------------------------------

const KEY_TYPES = ["S", "N", "B"];

function typeSelect(cls, value = "S") {
  return el("select", { class: cls }, KEY_TYPES.map((v) => el("option", { value: v, selected: v === value }, v)));
}

function indexRow(kind, onchange) {
  const row = el("div", { class: "controls index-row", "data-kind": kind },
    el("span", { class: "mono" }, kind),
    el("label", {}, "index name", el("input", { class: "ix-name", required: true })),
    kind === "GSI" ? [el("label", {}, "partition key", el("input", { class: "ix-pk", required: true })),
                      el("label", {}, "type", typeSelect("ix-pk-type"))] : [],
    el("label", {}, kind === "LSI" ? "sort key (the partition key is the table's)" : "sort key (optional)",
       el("input", { class: "ix-sk", required: kind === "LSI" })),
    el("label", {}, "type", typeSelect("ix-sk-type")),
    el("label", {}, "projection", el("select", { class: "ix-projection" },
      ["ALL", "KEYS_ONLY", "INCLUDE"].map((v) => el("option", { value: v }, v)))),
    el("label", {}, "included attributes (INCLUDE, comma-separated)", el("input", { class: "ix-include" })),
    el("button", { type: "button", class: "quiet", onclick: () => { row.remove(); onchange(); } }, "remove"));
  row.addEventListener("input", onchange);
  return row;
}

// The CreateTable request the form describes (the server validates it).
function createRequest(form) {
  const v = (sel) => form.querySelector(sel).value.trim();
  const definitions = [];
  const define = (name, type) => {
    if (name && !definitions.some((d) => d.AttributeName === name && d.AttributeType === type)) {
      definitions.push({ AttributeName: name, AttributeType: type });
    }
  };
  const keySchema = (pk, sk) => [{ AttributeName: pk, KeyType: "HASH" },
                                 ...(sk ? [{ AttributeName: sk, KeyType: "RANGE" }] : [])];
  const request = { TableName: v("#new-name"), KeySchema: keySchema(v("#new-pk"), v("#new-sk")) };
  define(v("#new-pk"), v("#new-pk-type"));
  define(v("#new-sk"), v("#new-sk-type"));
  const provisioned = v("#new-billing") === "PROVISIONED";
  const throughput = { ReadCapacityUnits: Number(v("#new-rcu")), WriteCapacityUnits: Number(v("#new-wcu")) };
  const gsis = [];
  const lsis = [];
  for (const row of form.querySelectorAll(".index-row")) {
    const r = (sel) => row.querySelector(sel).value.trim();
    const projection = { ProjectionType: r(".ix-projection") };
    if (projection.ProjectionType === "INCLUDE") {
      projection.NonKeyAttributes = r(".ix-include").split(",").map((s) => s.trim()).filter(Boolean);
    }
    if (row.dataset.kind === "GSI") {
      define(r(".ix-pk"), r(".ix-pk-type"));
      define(r(".ix-sk"), r(".ix-sk-type"));
      gsis.push({ IndexName: r(".ix-name"), KeySchema: keySchema(r(".ix-pk"), r(".ix-sk")), Projection: projection,
                  ...(provisioned ? { ProvisionedThroughput: throughput } : {}) });
    } else {
      define(r(".ix-sk"), r(".ix-sk-type"));
      lsis.push({ IndexName: r(".ix-name"), KeySchema: keySchema(v("#new-pk"), r(".ix-sk")), Projection: projection });
    }
  }
  request.AttributeDefinitions = definitions;
  if (gsis.length) request.GlobalSecondaryIndexes = gsis;
  if (lsis.length) request.LocalSecondaryIndexes = lsis;
  request.BillingMode = provisioned ? "PROVISIONED" : "PAY_PER_REQUEST";
  if (provisioned) request.ProvisionedThroughput = throughput;
  if (v("#new-stream")) request.StreamSpecification = { StreamEnabled: true, StreamViewType: v("#new-stream") };
  return request;
}

export async function createTablePage() {
  crumbs(link("tables", "#/"), el("span", {}, "new table"));
  if (!writes()) {
    show(el("p", { class: "error" }, "The console is read-only: start dynarock serve with " +
                                     "--console-writes (or --auth) to create tables from it."));
    return;
  }
  const preview = el("pre", { class: "request", id: "create-request" });
  const status = statusLine("create-status");
  const update = () => { preview.textContent = JSON.stringify(createRequest(form), null, 2); };
  const indexes = el("div", { id: "new-indexes" });
  const provisionedOnly = el("span", { class: "controls", hidden: true },
    el("label", {}, "read capacity units", el("input", { id: "new-rcu", type: "number", min: 1, value: 5 })),
    el("label", {}, "write capacity units", el("input", { id: "new-wcu", type: "number", min: 1, value: 5 })));
  const billing = el("select", { id: "new-billing", onchange: () => {
    provisionedOnly.hidden = billing.value !== "PROVISIONED";
  } }, el("option", { value: "PAY_PER_REQUEST" }, "on-demand (PAY_PER_REQUEST)"),
     el("option", { value: "PROVISIONED" }, "provisioned"));
  const form = el("form", { class: "panel", id: "create-table", oninput: update, onchange: update,
                            onsubmit: async (e) => {
    e.preventDefault();
    const request = createRequest(form);
    const ttl = form.querySelector("#new-ttl").value.trim();
    try {
      await dynamodb("CreateTable", request);
    } catch (err) {
      status.error(err);
      return;
    }
    try {
      if (ttl) {
        await dynamodb("UpdateTimeToLive", { TableName: request.TableName,
                                             TimeToLiveSpecification: { Enabled: true, AttributeName: ttl } });
      }
    } catch (err) {
      status.error(new Error(`The table was created, but TTL was not turned on: ${err.message}`));
      return;
    }
    location.hash = tableHash(request.TableName);
  } },
    el("div", { class: "controls" },
       el("label", {}, "table name", el("input", { id: "new-name", required: true, placeholder: "Telemetry" })),
       el("label", {}, "partition key", el("input", { id: "new-pk", required: true, placeholder: "vehicleId" })),
       el("label", {}, "type", el("select", { id: "new-pk-type" }, KEY_TYPES.map((t) => el("option", { value: t }, t)))),
       el("label", {}, "sort key (optional)", el("input", { id: "new-sk", placeholder: "recordedAt" })),
       el("label", {}, "type", el("select", { id: "new-sk-type" }, KEY_TYPES.map((t) => el("option", { value: t }, t))))),
    el("div", { class: "controls" }, el("label", {}, "billing", billing), provisionedOnly,
       el("label", {}, "stream", el("select", { id: "new-stream" },
         [["", "off"], ["NEW_AND_OLD_IMAGES", "NEW_AND_OLD_IMAGES"], ["NEW_IMAGE", "NEW_IMAGE"],
          ["OLD_IMAGE", "OLD_IMAGE"], ["KEYS_ONLY", "KEYS_ONLY"]].map(([v, t]) => el("option", { value: v }, t)))),
       el("label", {}, "TTL attribute (optional: epoch seconds)", el("input", { id: "new-ttl", placeholder: "expiresAt" }))),
    el("h3", {}, "Indexes"), indexes,
    el("div", { class: "controls" },
       el("button", { type: "button", class: "quiet", id: "add-gsi",
                      onclick: () => { indexes.append(indexRow("GSI", update)); update(); } }, "+ global secondary index"),
       el("button", { type: "button", class: "quiet", id: "add-lsi",
                      onclick: () => { indexes.append(indexRow("LSI", update)); update(); } }, "+ local secondary index"),
       el("button", { type: "submit", id: "create-button" }, "Create table")),
    status.line,
    el("h3", {}, "The request (CreateTable, then UpdateTimeToLive if a TTL attribute is given)"), preview);
  show(el("h1", {}, "New table"), form);
  update();
}

// Deleting a table: only once its name is typed.
function deletePanel(t) {
  const status = statusLine("delete-status");
  const button = el("button", { type: "submit", class: "danger", id: "delete-table", disabled: true },
                    "Delete table");
  const confirmBox = el("input", { id: "delete-confirm", autocomplete: "off", placeholder: t.TableName,
                                   oninput: () => { button.disabled = confirmBox.value !== t.TableName; } });
  return el("form", { class: "panel", onsubmit: async (e) => {
    e.preventDefault();
    if (confirmBox.value !== t.TableName) return;
    try {
      await dynamodb("DeleteTable", { TableName: t.TableName });
      location.hash = "#/";
    } catch (err) {
      status.error(err);
    }
  } }, el("h3", {}, "Delete table"),
     el("p", {}, `DeleteTable removes ${t.TableName}, its ${t.ItemCount.toLocaleString("en")} items, ` +
                 "its indexes and its stream. Type the table's name to delete it."),
     el("div", { class: "controls" }, el("label", {}, "table name", confirmBox), button), status.line);
}

// ---- Status: streams, TTL, indexes -----------------------------------------------------------

function projectionText(p) {
  return p.ProjectionType + (p.NonKeyAttributes?.length ? ` (${p.NonKeyAttributes.join(", ")})` : "");
}

// The table's stream, TTL and indexes, with the switches for the first two
// when the console may write, and the delete panel.
export function statusPanel(t, reload) {
  const types = attributeTypes(t);
  const stream = t.StreamSpecification?.StreamEnabled ? t.StreamSpecification.StreamViewType : null;
  const streamStatus = statusLine("stream-status");
  const streamBox = el("div", { class: "controls", id: "stream-facts" },
    el("span", {}, "stream ", el("b", {}, stream ? `on (${stream})` : "off"),
       stream ? [" · ", link("latest records", tableHash(t.TableName) + "/stream")] : []));
  if (writes()) {
    const view = el("select", { id: "stream-view" }, ["NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE",
                                                       "KEYS_ONLY"].map((v) => el("option", { value: v }, v)));
    const change = async (spec) => {
      try {
        await dynamodb("UpdateTable", { TableName: t.TableName, StreamSpecification: spec });
        reload();
      } catch (err) {
        streamStatus.error(err);
      }
    };
    streamBox.append(...(stream
      ? [el("button", { type: "button", class: "quiet", id: "stream-off", onclick: () => {
          if (confirm("Turn the stream off (UpdateTable)? Its records stay readable for 24 hours.")) {
            change({ StreamEnabled: false });
          }
        } }, "Turn off")]
      : [view, el("button", { type: "button", class: "quiet", id: "stream-on",
                              onclick: () => change({ StreamEnabled: true, StreamViewType: view.value }) },
                  "Turn on")]));
  }

  const ttlBox = el("div", { class: "controls", id: "ttl-facts" }, el("span", {}, "TTL: reading…"));
  const ttlStatus = statusLine("ttl-status");
  dynamodb("DescribeTimeToLive", { TableName: t.TableName }).then(({ TimeToLiveDescription: d }) => {
    const on = d.TimeToLiveStatus === "ENABLED" || d.TimeToLiveStatus === "ENABLING";
    ttlBox.replaceChildren(el("span", {}, "TTL ", el("b", {}, d.TimeToLiveStatus),
                              d.AttributeName ? [" on ", el("b", { class: "mono" }, d.AttributeName),
                                                 " (epoch seconds; expired items are deleted by the server)"] : []));
    if (!writes()) return;
    const change = async (spec) => {
      try {
        await dynamodb("UpdateTimeToLive", { TableName: t.TableName, TimeToLiveSpecification: spec });
        reload();
      } catch (err) {
        ttlStatus.error(err);
      }
    };
    if (on) {
      ttlBox.append(el("button", { type: "button", class: "quiet", id: "ttl-off", onclick: () => {
        if (confirm("Turn TTL off (UpdateTimeToLive)?")) change({ Enabled: false, AttributeName: d.AttributeName });
      } }, "Turn off"));
    } else {
      const attribute = el("input", { id: "ttl-attribute", placeholder: "expiresAt" });
      ttlBox.append(el("label", {}, "attribute", attribute),
                    el("button", { type: "button", class: "quiet", id: "ttl-on",
                                   onclick: () => change({ Enabled: true, AttributeName: attribute.value.trim() }) },
                       "Turn on"));
    }
  }, (err) => ttlBox.replaceChildren(errorBox(err)));

  const indexRows = [
    ...indexesOf(t).map((i) => el("tr", {}, el("td", {}, i.IndexName), el("td", {}, i.kind),
      el("td", {}, i.kind === "LSI" ? `${t.TableStatus} (with the table)`
                                    : i.IndexStatus + (i.Backfilling ? " (backfilling)" : "")),
      el("td", { class: "mono" }, keyText(i.KeySchema, types)), el("td", {}, projectionText(i.Projection)),
      el("td", { class: "num" }, (i.ItemCount ?? 0).toLocaleString("en")),
      el("td", { class: "num" }, humanBytes(i.IndexSizeBytes ?? 0)))),
    ...vectorIndexesOf(t).map((v) => el("tr", {}, el("td", {}, v.IndexName), el("td", {}, "VECTOR"),
      el("td", {}, v.IndexStatus), el("td", { class: "mono" },
        `${v.VectorAttribute.AttributeName} (${v.Dimensions} dims, ${v.DistanceFunction})`),
      el("td", {}, projectionText(v.Projection || { ProjectionType: "ALL" })),
      el("td", { class: "num" }, (v.ItemCount ?? 0).toLocaleString("en")),
      el("td", { class: "num" }, humanBytes(v.IndexSizeBytes ?? 0)))),
  ];
  return [el("h2", {}, "Status"),
          el("div", { class: "panel", id: "status" },
             el("div", { class: "facts" }, el("span", {}, "table ", el("b", { id: "table-status" }, t.TableStatus)),
                t.CreationDateTime ? el("span", {}, "created ",
                                        new Date(t.CreationDateTime * 1000).toISOString().replace(/\.\d+Z$/, "Z")) : [],
                t.TableArn ? el("span", { class: "mono" }, t.TableArn) : []),
             streamBox, streamStatus.line, ttlBox, ttlStatus.line,
             indexRows.length === 0 ? el("p", { class: "empty" }, "No secondary or vector indexes.")
               : el("table", { id: "index-status" },
                    el("thead", {}, el("tr", {}, ["index", "kind", "status", "key", "projection", "items", "size"]
                      .map((h, n) => el("th", { class: n >= 5 ? "num" : "" }, h)))),
                    el("tbody", {}, indexRows))),
          writes() ? deletePanel(t) : []];
}

// ---- Streams ---------------------------------------------------------------------------------

// Sequence numbers are decimal strings of any length: compared as numbers.
function seqLess(a, b) {
  return a.length !== b.length ? a.length < b.length : a < b;
}

// Shards with each parent before its children (lineage order).
function lineage(shards) {
  const ids = new Set(shards.map((s) => s.ShardId));
  const children = new Map();
  for (const s of shards) {
    const parent = ids.has(s.ParentShardId) ? s.ParentShardId : "";
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(s);
  }
  const out = [];
  const visit = (parent) => {
    const list = (children.get(parent) || []).sort((a, b) =>
      seqLess(a.SequenceNumberRange.StartingSequenceNumber, b.SequenceNumberRange.StartingSequenceNumber) ? -1 : 1);
    for (const s of list) {
      out.push(s);
      visit(s.ShardId);
    }
  };
  visit("");
  return out;
}

async function describeStream(arn) {
  const shards = [];
  let start;
  let description;
  do {
    ({ StreamDescription: description } = await streams("DescribeStream", {
      StreamArn: arn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
    shards.push(...description.Shards);
    start = description.LastEvaluatedShardId;
  } while (start);
  return { ...description, Shards: lineage(shards) };
}

function imageText(image) {
  return image ? JSON.stringify(plain({ M: image })) : "";
}

export async function streamPage(name, p, isCurrent) {
  crumbs(link("tables", "#/"), link(name, tableHash(name)), el("span", {}, "stream"));
  const { Table: t } = await dynamodb("DescribeTable", { TableName: name });
  if (!t.LatestStreamArn) {
    show(el("h1", {}, `Stream of ${name}`),
         el("p", { class: "empty" }, "This table has no stream: turn one on from ",
            link("its page", tableHash(name)), " (UpdateTable StreamSpecification)."));
    return;
  }
  const limit = Number(p.limit || 100);
  const stream = await describeStream(t.LatestStreamArn);
  const shardsBox = el("div", {});
  const recordsBody = el("tbody", {});
  const counter = el("span", { id: "record-count" });
  const follow = el("input", { type: "checkbox", id: "follow", checked: true });
  const showShards = (shards) => shardsBox.replaceChildren(el("table", { id: "shards" },
    el("thead", {}, el("tr", {}, ["shard", "parent", "first sequence number", "last", "state"].map((h) => el("th", {}, h)))),
    el("tbody", {}, shards.map((s) => el("tr", {}, el("td", { class: "mono" }, s.ShardId),
      el("td", { class: "mono" }, s.ParentShardId || ""),
      el("td", { class: "mono" }, s.SequenceNumberRange.StartingSequenceNumber),
      el("td", { class: "mono" }, s.SequenceNumberRange.EndingSequenceNumber || ""),
      el("td", {}, s.SequenceNumberRange.EndingSequenceNumber ? "closed" : "open"))))));
  showShards(stream.Shards);
  show(el("h1", {}, `Stream of ${name}`),
       el("div", { class: "facts" }, el("span", {}, "view ", el("b", {}, stream.StreamViewType)),
          el("span", {}, "status ", el("b", {}, stream.StreamStatus)),
          el("span", { class: "mono" }, stream.StreamArn)),
       el("h2", {}, "Shards (in lineage order: parents before their children)"), shardsBox,
       el("h2", {}, `Latest records, newest first (up to ${limit})`),
       el("div", { class: "pager" }, el("label", {}, follow, " follow new records (reads the open shards every second)"), counter),
       el("table", { id: "records" },
          el("thead", {}, el("tr", {}, ["time", "event", "key", "sequence number", "shard", "new image", "old image"]
                                           .map((h) => el("th", {}, h)))),
          recordsBody));

  const keyNames = t.KeySchema.map((k) => k.AttributeName);
  let shown = 0;
  const add = (records, shardId) => {
    for (const r of records) {
      const d = r.dynamodb;
      recordsBody.prepend(el("tr", { class: "record", "data-seq": d.SequenceNumber },
        el("td", { class: "mono" }, new Date(d.ApproximateCreationDateTime * 1000).toISOString().replace(/\.\d+Z$/, "Z")),
        el("td", {}, r.eventName),
        el("td", { class: "mono" }, keyNames.map((k) => cell(d.Keys[k])).join(" · ")),
        el("td", { class: "mono" }, d.SequenceNumber), el("td", { class: "mono" }, shardId),
        el("td", { class: "attrs mono" }, imageText(d.NewImage)),
        el("td", { class: "attrs mono" }, imageText(d.OldImage))));
      shown++;
    }
    while (recordsBody.children.length > limit) recordsBody.lastElementChild.remove();
    counter.textContent = `${shown.toLocaleString("en")} record${shown === 1 ? "" : "s"} read`;
  };

  // Each shard read from its trim horizon; open ones keep their iterator.
  const open = new Map();  // shard id -> next iterator
  const done = new Set();
  const readShard = async (shard) => {
    let { ShardIterator: iterator } = await streams("GetShardIterator", {
      StreamArn: stream.StreamArn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" });
    for (;;) {
      const r = await streams("GetRecords", { ShardIterator: iterator, Limit: 1000 });
      add(r.Records, shard.ShardId);
      if (!r.NextShardIterator) {
        done.add(shard.ShardId);
        open.delete(shard.ShardId);
        return;
      }
      iterator = r.NextShardIterator;
      if (r.Records.length === 0) {
        open.set(shard.ShardId, iterator);
        return;
      }
    }
  };
  for (const shard of stream.Shards) await readShard(shard);
  counter.textContent = `${shown.toLocaleString("en")} record${shown === 1 ? "" : "s"} read`;

  // Following: the open shards every second; a closed one's children
  // (DescribeStream again) from their trim horizon.
  const poll = async () => {
    if (!isCurrent()) return;
    if (follow.checked) {
      try {
        let closed = false;
        for (const [shardId, iterator] of [...open]) {
          const r = await streams("GetRecords", { ShardIterator: iterator, Limit: 1000 });
          add(r.Records, shardId);
          if (r.NextShardIterator) {
            open.set(shardId, r.NextShardIterator);
          } else {
            open.delete(shardId);
            done.add(shardId);
            closed = true;
          }
        }
        if (closed || open.size === 0) {
          const now = await describeStream(stream.StreamArn);
          showShards(now.Shards);
          for (const s of now.Shards) if (!done.has(s.ShardId) && !open.has(s.ShardId)) await readShard(s);
        }
      } catch (err) {
        follow.checked = false;
        shardsBox.append(errorBox(err));
      }
    }
    setTimeout(poll, 1000);
  };
  setTimeout(poll, 1000);
}
