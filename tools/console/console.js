// The Dynarock console (served by `dynarock serve` at /console/).
//
// Pages, by the address's fragment:
//   #/                          the tables: item counts, sizes, keys, indexes
//   #/t/TABLE                   a table: its largest and hottest collections
//                               (a vector index's by HASH value), and a
//                               vector search box (SearchVectors from a
//                               JSON array) when it has vector indexes
//   #/t/TABLE/c?pk=...&...      one item collection (of the table, or of an
//                               index with index=NAME), in sort-key order,
//                               with the Query that reads it
//
// It reads through DynamoDB's own JSON API (POST /, as any SDK) and the
// read-only /console/api/ endpoints for what that API lacks (collection
// sizes, hot collections, where a collection lies on disk). Every value is
// put into the page as text (textContent), never as markup; the server's
// Content-Security-Policy lets only this file run. Requests are signed
// (AWS Signature V4, WebCrypto) when the server checks signatures.
"use strict";

const main = document.getElementById("main");
let config = { Region: "us-east-1", Auth: false, Writes: false };
const keys = {
  id: sessionStorage.getItem("dynarock.keyId") || "",
  secret: sessionStorage.getItem("dynarock.secret") || "",
};

// ---- DOM -------------------------------------------------------------------------------------

// An element with attributes (on* are listeners) and children (strings
// become text nodes).
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function show(...nodes) {
  main.replaceChildren(...nodes.flat());
}

function crumbs(...parts) {
  const nav = document.getElementById("crumbs");
  nav.replaceChildren(...parts.flatMap((p, i) => [i ? " / " : "", p]));
}

// Decimal units, as DescribeTable's byte counts read (and as the CLI
// prints them): 1 MB = 1,000,000 bytes.
function humanBytes(b) {
  if (b < 1000) return `${b} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let u = -1;
  while (b >= 999.5 && u < 3) {
    b /= 1000;
    u++;
  }
  return `${b.toFixed(b < 9.995 ? 2 : b < 99.95 ? 1 : 0)} ${units[u]}`;
}

function errorBox(e) {
  return el("div", { class: "error", role: "alert" }, e.message || String(e));
}

// ---- Requests --------------------------------------------------------------------------------

const encoder = new TextEncoder();

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256Hex(text) {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

async function hmac(key, text) {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false,
                                          ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, encoder.encode(text)));
}

// RFC 3986 encoding, as SigV4's canonical query has it.
function awsEncode(s) {
  return encodeURIComponent(s).replace(/[!'()*]/g,
                                       (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

function canonicalQuery(params) {
  return Object.entries(params)
      .filter(([, v]) => v !== undefined && v !== null && v !== "")
      .map(([k, v]) => [awsEncode(k), awsEncode(String(v))])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join("&");
}

// The X-Amz-Date and Authorization headers of a request, signed as the
// AWS SDKs sign: host, x-amz-date and the given headers.
async function sign(method, path, query, headers, body) {
  if (!crypto.subtle) {
    throw new Error("This server checks signatures, and this page cannot sign: the browser " +
                    "offers WebCrypto only on https:// or on localhost/127.0.0.1 addresses.");
  }
  if (!keys.id || !keys.secret) throw new Error("This server checks signatures: give your keys.");
  const amzDate = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
  const day = amzDate.slice(0, 8);
  const all = { host: location.host, "x-amz-date": amzDate };
  for (const [k, v] of Object.entries(headers)) all[k.toLowerCase()] = v;
  const names = Object.keys(all).sort();
  const canonical = [method, path, query, ...names.map((n) => `${n}:${String(all[n]).trim()}`), "",
                     names.join(";"), await sha256Hex(body)].join("\n");
  const scope = `${day}/${config.Region}/dynamodb/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256Hex(canonical)].join("\n");
  let key = encoder.encode("AWS4" + keys.secret);
  for (const part of [day, config.Region, "dynamodb", "aws4_request"]) key = await hmac(key, part);
  const signature = hex(await hmac(key, toSign));
  return {
    "X-Amz-Date": amzDate,
    Authorization: `AWS4-HMAC-SHA256 Credential=${keys.id}/${scope}, ` +
                   `SignedHeaders=${names.join(";")}, Signature=${signature}`,
  };
}

async function answer(response) {
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`HTTP ${response.status}: ${text}`);
  }
  if (!response.ok) {
    const type = String(json.__type || "Error").replace(/^.*#/, "");
    const error = new Error(`${type}: ${json.message || json.Message || ""}`);
    error.type = type;
    if (/MissingAuthenticationToken|UnrecognizedClient|InvalidSignature/.test(type)) askForKeys();
    throw error;
  }
  return json;
}

// A DynamoDB operation, as any SDK sends it.
async function dynamodb(operation, request) {
  const body = JSON.stringify(request);
  const headers = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Target": "DynamoDB_20120810." + operation,
  };
  if (config.Auth) Object.assign(headers, await sign("POST", "/", "", headers, body));
  return answer(await fetch("/", { method: "POST", headers, body }));
}

// GET /console/api/ENDPOINT?params.
async function consoleApi(endpoint, params = {}) {
  const path = "/console/api/" + endpoint;
  const query = canonicalQuery(params);
  const headers = config.Auth && endpoint !== "config" ? await sign("GET", path, query, {}, "") : {};
  return answer(await fetch(path + (query ? "?" + query : ""), { headers }));
}

function askForKeys() {
  const form = document.getElementById("keys");
  form.hidden = false;
  document.getElementById("key-id").value = keys.id;
}

document.getElementById("keys").addEventListener("submit", (event) => {
  event.preventDefault();
  keys.id = document.getElementById("key-id").value.trim();
  keys.secret = document.getElementById("key-secret").value;
  sessionStorage.setItem("dynarock.keyId", keys.id);
  sessionStorage.setItem("dynarock.secret", keys.secret);
  event.target.hidden = true;
  route();
});
document.getElementById("keys-button").addEventListener("click", askForKeys);

// ---- DynamoDB values -------------------------------------------------------------------------

const utf8Length = (s) => encoder.encode(s).length;
const base64Length = (s) => (s.length / 4) * 3 - (s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0);

// A number's size as DynamoDB counts it (format/item_size.cc): one byte,
// a byte per pair of significant digits (pairs aligned on even powers of
// ten), and one more if negative; zero is one byte.
function numberSize(text) {
  let s = String(text).trim();
  let negative = false;
  if (s[0] === "-" || s[0] === "+") {
    negative = s[0] === "-";
    s = s.slice(1);
  }
  let exponent = 0;
  const e = s.search(/[eE]/);
  if (e >= 0) {
    exponent = parseInt(s.slice(e + 1), 10);
    s = s.slice(0, e);
  }
  const [whole, fraction = ""] = s.split(".");
  let digits = whole + fraction;
  let lead = 0;
  while (lead < digits.length && digits[lead] === "0") lead++;
  if (lead === digits.length) return 1;  // zero
  const top = whole.length - 1 - lead + exponent;  // the power of ten of the first digit
  digits = digits.slice(lead).replace(/0+$/, "");
  const pairs = Math.floor((digits.length + ((((top % 2) + 2) % 2) === 0 ? 1 : 0) + 1) / 2);
  return 1 + pairs + (negative ? 1 : 0);
}

function valueSize(v) {
  const [type, x] = Object.entries(v)[0];
  switch (type) {
    case "S": return utf8Length(x);
    case "N": return numberSize(x);
    case "B": return base64Length(x);
    case "BOOL":
    case "NULL": return 1;
    case "SS": return x.reduce((n, s) => n + utf8Length(s), 0);
    case "NS": return x.reduce((n, s) => n + numberSize(s), 0);
    case "BS": return x.reduce((n, s) => n + base64Length(s), 0);
    case "L": return x.reduce((n, e) => n + 1 + valueSize(e), 3);
    case "M": return Object.entries(x).reduce((n, [k, e]) => n + 1 + utf8Length(k) + valueSize(e), 3);
    default: return 0;
  }
}

// The item's size as DynamoDB counts it (names and values).
function itemSize(item) {
  return Object.entries(item).reduce((n, [name, v]) => n + utf8Length(name) + valueSize(v), 0);
}

// A value as a plain document value (what the SDKs' unmarshall gives).
function plain(v) {
  const [type, x] = Object.entries(v)[0];
  switch (type) {
    case "N": return Number.isSafeInteger(Number(x)) || !/^-?\d+$/.test(x) ? Number(x) : x;
    case "NULL": return null;
    case "L": return x.map(plain);
    case "M": return Object.fromEntries(Object.entries(x).map(([k, e]) => [k, plain(e)]));
    case "NS": return x.map(Number);
    default: return x;  // S, B (base64), BOOL, SS, BS
  }
}

// A value in a cell: scalars as they are, the rest as compact JSON.
function cell(v) {
  if (!v) return "";
  const [type, x] = Object.entries(v)[0];
  return type === "S" || type === "N" ? x : type === "BOOL" ? String(x) : JSON.stringify(plain(v));
}

// A typed key value from what a person types: S as is, N as a number, B base64.
function typed(type, text) {
  return { [type]: text };
}

// ---- Pages -----------------------------------------------------------------------------------

function link(text, hash) {
  return el("a", { href: hash }, text);
}

function tableHash(table) {
  return "#/t/" + encodeURIComponent(table);
}

function collectionHash(table, params) {
  return tableHash(table) + "/c?" + new URLSearchParams(
      Object.entries(params).filter(([, v]) => v !== undefined && v !== "")).toString();
}

function keyText(schema, types) {
  return schema.map((k) => `${k.AttributeName} (${types[k.AttributeName] || "?"})`).join(" · ");
}

// A key schema's partition key attributes (a multi-attribute GSI has up to
// four) and its first sort key attribute, which the query builder bounds.
function hashNames(schema) {
  return schema.filter((k) => k.KeyType === "HASH").map((k) => k.AttributeName);
}
function firstRange(schema) {
  return schema.find((k) => k.KeyType === "RANGE")?.AttributeName;
}

// A collection's partition values as its page's `pk` parameter: one value
// as DynamoDB JSON, several as a list of them in KeySchema order.
function pkParam(values) {
  return JSON.stringify(values.length === 1 ? values[0] : values);
}
function pkValues(param) {
  const v = JSON.parse(param || "null");
  return v === null ? [] : Array.isArray(v) ? v : [v];
}

function attributeTypes(table) {
  return Object.fromEntries(table.AttributeDefinitions.map((d) => [d.AttributeName, d.AttributeType]));
}

function indexesOf(table) {
  return [...(table.LocalSecondaryIndexes || []).map((i) => ({ ...i, kind: "LSI" })),
          ...(table.GlobalSecondaryIndexes || []).map((i) => ({ ...i, kind: "GSI" }))];
}

// Vector indexes, keyed (for their collections) by their HASH search
// attribute, if any.
function vectorIndexesOf(table) {
  return (table.VectorIndexes || []).map((v) => ({
    ...v, kind: "VECTOR",
    KeySchema: (v.SearchSchema || []).filter((e) => e.SearchSchemaElementType === "HASH")
      .map((e) => ({ AttributeName: e.AttributeName, KeyType: "HASH" })),
  }));
}
function vectorText(v) {
  return `${v.VectorAttribute.AttributeName} · ${v.Dimensions} dims · ${v.DistanceFunction}` +
         (v.KeySchema.length ? ` · by ${v.KeySchema[0].AttributeName}` : "") +
         (v.IndexStatus === "ACTIVE" ? "" : ` · ${v.IndexStatus}`);
}

async function tablesPage() {
  crumbs(el("span", {}, "tables"));
  const names = [];
  let start;
  do {
    const r = await dynamodb("ListTables", start ? { ExclusiveStartTableName: start } : {});
    names.push(...r.TableNames);
    start = r.LastEvaluatedTableName;
  } while (start);
  const tables = await Promise.all(names.map((n) => dynamodb("DescribeTable", { TableName: n })));
  const rows = tables.map(({ Table: t }) => {
    const types = attributeTypes(t);
    return el("tr", {},
              el("td", {}, link(t.TableName, tableHash(t.TableName))),
              el("td", {}, t.TableStatus),
              el("td", { class: "num" }, t.ItemCount.toLocaleString("en")),
              el("td", { class: "num" }, humanBytes(t.TableSizeBytes)),
              el("td", { class: "mono" }, keyText(t.KeySchema, types)),
              el("td", {}, indexesOf(t).map((i, n) => [n ? ", " : "", `${i.IndexName} (${i.kind}: `,
                                                       keyText(i.KeySchema, types), ")"]),
                 vectorIndexesOf(t).map((v, n) => [n || indexesOf(t).length ? ", " : "",
                                                   `${v.IndexName} (VECTOR: ${vectorText(v)})`])));
  });
  show(el("h1", {}, "Tables"),
       names.length === 0
           ? el("p", { class: "empty" }, "No tables yet: create one with any AWS SDK or the CLI.")
           : el("table", { id: "tables" },
                el("thead", {}, el("tr", {}, ["table", "status", "items", "size", "key", "indexes"]
                                                 .map((h, i) => el("th", { class: i === 2 || i === 3 ? "num" : "" }, h)))),
                el("tbody", {}, rows)),
       el("p", { class: "empty" }, "Item counts and sizes are exact: Dynarock keeps them with every write."));
}

// Rows of labelled bars, the longest full width.
function bars(rows, valueOf, labelOf, heat) {
  const max = Math.max(...rows.map(valueOf), 1e-9);
  return el("div", { class: "bars" }, rows.map((r) => {
    const bar = el("div", { class: heat ? "bar heat" : "bar" });
    bar.style.width = `${(100 * valueOf(r)) / max}%`;
    return [r.link, el("div", {}, bar), el("span", { class: "mono" }, labelOf(r))];
  }));
}

async function tablePage(name) {
  crumbs(link("tables", "#/"), el("span", {}, name));
  const { Table: t } = await dynamodb("DescribeTable", { TableName: name });
  const types = attributeTypes(t);
  const indexes = indexesOf(t);
  const target = el("select", { id: "open-index" },
                    el("option", { value: "" }, `the table (${hashNames(t.KeySchema).join(", ")})`),
                    indexes.map((i) => el("option", { value: i.IndexName },
                                          `${i.IndexName} (${hashNames(i.KeySchema).join(", ")})`)));
  // One input per partition key attribute of what is opened.
  const schemaOf = () => {
    const index = indexes.find((i) => i.IndexName === target.value);
    return index ? index.KeySchema : t.KeySchema;
  };
  const valuesBox = el("span", {});
  const inputs = () => [...valuesBox.querySelectorAll("input")];
  const showInputs = () => valuesBox.replaceChildren(...hashNames(schemaOf()).map((n, i) =>
    el("label", {}, hashNames(schemaOf()).length === 1 ? "partition key" : n,
       el("input", { id: i === 0 ? "open-key" : `open-key-${i}`, placeholder: `${n} value`,
                     required: true }))));
  target.addEventListener("change", showInputs);
  showInputs();
  const open = el("form", { class: "controls", onsubmit: (e) => {
    e.preventDefault();
    const names = hashNames(schemaOf());
    location.hash = collectionHash(name, {
      index: target.value, pk: pkParam(inputs().map((input, i) => typed(types[names[i]], input.value))) });
  } }, el("label", {}, "collection of", target), valuesBox,
     el("button", { type: "submit", id: "open-button" }, "Open"));

  const vectors = vectorIndexesOf(t);
  const largestBox = el("div", {}, el("p", { class: "empty" }, "reading…"));
  const hottestBox = el("div", {}, el("p", { class: "empty" }, "reading…"));
  show(el("h1", {}, name),
       el("div", { class: "facts" },
          el("span", {}, el("b", {}, t.ItemCount.toLocaleString("en")), " items"),
          el("span", {}, el("b", {}, humanBytes(t.TableSizeBytes))),
          el("span", {}, "key ", el("b", { class: "mono" }, keyText(t.KeySchema, types))),
          indexes.map((i) => el("span", {}, `${i.kind} `, el("b", {}, i.IndexName), " ",
                                el("span", { class: "mono" }, keyText(i.KeySchema, types)))),
          vectors.map((v) => el("span", {}, "VECTOR ", el("b", {}, v.IndexName), " ",
                                el("span", { class: "mono" }, vectorText(v)),
                                ` · ${v.ItemCount.toLocaleString("en")} entries, ` +
                                humanBytes(v.IndexSizeBytes))),
          el("span", {}, t.BillingModeSummary?.BillingMode === "PAY_PER_REQUEST" ? "on-demand" : "provisioned")),
       el("div", { class: "panel" }, open),
       vectors.length ? vectorSearchPanel(name, t, vectors) : [],
       el("h2", {}, "Largest collections"), largestBox,
       el("h2", {}, "Hottest collections, last 6 minutes"), hottestBox);

  const label = (index) => (index ? `${name}.${index}` : name);
  const group = (collections) => {
    const parts = new Map();
    for (const c of collections) {
      const k = c.IndexName || "";
      if (!parts.has(k)) parts.set(k, []);
      const index = indexes.find((i) => i.IndexName === c.IndexName);
      const vector = vectors.find((v) => v.IndexName === c.IndexName);
      const names = hashNames(index ? index.KeySchema : vector ? vector.KeySchema : t.KeySchema);
      const values = names.map((n) => c.Key[n]);
      // A vector index's collection is searched, not queried: no page.
      c.link = vector ? el("span", { class: "mono" }, values.map(cell).join(", "))
                      : link(values.map(cell).join(", "), collectionHash(name, {
                          index: c.IndexName, pk: pkParam(values) }));
      c.keyName = names.join(", ");
      parts.get(k).push(c);
    }
    return parts;
  };
  consoleApi("largest", { table: name, limit: 10 }).then((r) => {
    const parts = group(r.Collections);
    largestBox.replaceChildren(...(parts.size === 0 ? [el("p", { class: "empty" }, "No items.")] : []),
      ...[...parts].map(([index, rows]) => el("div", { class: "panel" },
        el("h3", {}, `${label(index)} by ${rows[0].keyName}`),
        bars(rows, (r) => r.SizeBytes, (r) => `${humanBytes(r.SizeBytes)} · ${r.ItemCount} items`))));
  }, (e) => largestBox.replaceChildren(errorBox(e)));
  consoleApi("hottest", { table: name, limit: 10, window: 360 }).then((r) => {
    const parts = group(r.Tables[0].Collections);
    const seconds = r.WindowSeconds || 1;
    hottestBox.replaceChildren(
      ...(parts.size === 0 ? [el("p", { class: "empty" }, "No reads or writes of single collections in the window (Scans count on none).")] : []),
      ...[...parts].map(([index, rows]) => el("div", { class: "panel" },
        el("h3", {}, `${label(index)} by ${rows[0].keyName}`),
        bars(rows, (r) => r.Units,
             (r) => `${r.Units.toFixed(1)} units · ${(r.ReadUnits / seconds).toFixed(2)} RCU/s · ` +
                    `${(r.WriteUnits / seconds).toFixed(2)} WCU/s`,
             true))));
  }, (e) => hottestBox.replaceChildren(errorBox(e)));
}

// SearchVectors from the table page: an index, its HASH value (when it has
// one), TopK and the search vector as a JSON array of numbers; the results
// best first, each with its score and item.
function vectorSearchPanel(name, t, vectors) {
  const types = attributeTypes(t);
  const target = el("select", { id: "vector-index" },
                    vectors.map((v) => el("option", { value: v.IndexName },
                                          `${v.IndexName} (${vectorText(v)})`)));
  const hashBox = el("span", {});
  const indexOf = () => vectors.find((v) => v.IndexName === target.value);
  const showHash = () => hashBox.replaceChildren(...indexOf().KeySchema.map((k) =>
    el("label", {}, k.AttributeName, el("input", { id: "vector-hash", required: true,
                                                   placeholder: `${k.AttributeName} value` }))));
  target.addEventListener("change", showHash);
  showHash();
  const topK = el("input", { id: "vector-topk", type: "number", min: "1", max: "100", value: "10" });
  const vectorBox = el("textarea", { id: "vector-json", rows: "2", cols: "60",
                                       placeholder: "[0.12, -0.5, 0.33, ...]" });
  const results = el("div", { id: "vector-results" });
  const form = el("form", { class: "controls", onsubmit: async (e) => {
    e.preventDefault();
    const index = indexOf();
    let values;
    try {
      values = JSON.parse(vectorBox.value);
      if (!Array.isArray(values) || values.some((x) => typeof x !== "number")) throw new Error();
    } catch {
      results.replaceChildren(errorBox(new Error("The search vector must be a JSON array of numbers.")));
      return;
    }
    const request = { TableName: name, IndexName: index.IndexName, TopK: Number(topK.value),
                      SearchVector: values.map((x) => ({ N: String(x) })) };
    if (index.KeySchema.length) {
      const key = index.KeySchema[0].AttributeName;
      request.SearchConditionExpression = "#h = :h";
      request.ExpressionAttributeNames = { "#h": key };
      request.ExpressionAttributeValues = {
        ":h": typed(types[key], document.getElementById("vector-hash").value) };
    }
    results.replaceChildren(el("p", { class: "empty" }, "searching…"));
    try {
      const r = await dynamodb("SearchVectors", request);
      results.replaceChildren(r.SearchResults.length === 0
        ? el("p", { class: "empty" }, "No entries.")
        : el("table", { id: "vector-table" },
             el("thead", {}, el("tr", {}, el("th", { class: "num" }, "score"), el("th", {}, "item"))),
             el("tbody", {}, r.SearchResults.map((hit) =>
               el("tr", {}, el("td", { class: "num mono" }, hit.Score.toPrecision(6)),
                  el("td", { class: "mono" }, JSON.stringify(hit.Item)))))));
    } catch (err) {
      results.replaceChildren(errorBox(err));
    }
  } }, el("label", {}, "vector index", target), hashBox, el("label", {}, "TopK", topK),
     el("label", {}, "vector", vectorBox),
     el("button", { type: "submit", id: "vector-button" }, "Search"));
  return [el("h2", {}, "Vector search"), el("div", { class: "panel" }, form, results)];
}

// The Query a collection page sends, from its parameters.
function collectionQuery(name, schema, types, p) {
  const names = hashNames(schema);
  const values = pkValues(p.pk);
  const sk = firstRange(schema);
  const request = {
    TableName: name,
    KeyConditionExpression: names.map((n, i) => (names.length === 1 ? "#pk = :pk" : `#pk${i} = :pk${i}`))
                                 .join(" AND "),
    ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [names.length === 1 ? "#pk" : `#pk${i}`, n])),
    ExpressionAttributeValues: Object.fromEntries(values.map((v, i) => [names.length === 1 ? ":pk" : `:pk${i}`, v])),
    ScanIndexForward: p.order !== "desc",
    Limit: Number(p.limit || 50),
  };
  if (p.index) request.IndexName = p.index;
  const op = p.op || "";
  if (sk && op) {
    const skType = types[sk];
    request.ExpressionAttributeNames["#sk"] = sk;
    request.ExpressionAttributeValues[":a"] = typed(skType, p.a || "");
    if (op === "between") {
      request.ExpressionAttributeValues[":b"] = typed(skType, p.b || "");
      request.KeyConditionExpression += " AND #sk BETWEEN :a AND :b";
    } else if (op === "begins_with") {
      request.KeyConditionExpression += " AND begins_with(#sk, :a)";
    } else {
      request.KeyConditionExpression += ` AND #sk ${op} :a`;
    }
  }
  return request;
}

async function collectionPage(name, p) {
  const { Table: t } = await dynamodb("DescribeTable", { TableName: name });
  const types = attributeTypes(t);
  const index = p.index ? indexesOf(t).find((i) => i.IndexName === p.index) : null;
  if (p.index && !index) throw new Error(`${name} has no index ${p.index}`);
  const schema = index ? index.KeySchema : t.KeySchema;
  const skName = firstRange(schema);
  const pkNames = hashNames(schema);
  const pkList = pkValues(p.pk);
  if (pkList.length === 0) throw new Error("No partition key value given.");
  if (pkList.length !== pkNames.length) {
    throw new Error(`${index ? index.IndexName : name} is keyed by ${pkNames.join(", ")}: give a value for each.`);
  }
  const pkText = pkNames.map((n, i) => `${n} = ${cell(pkList[i])}`).join(", ");
  crumbs(link("tables", "#/"), link(name, tableHash(name)),
         el("span", {}, `${index ? index.IndexName + ": " : ""}${pkText}`));

  // What only the engine knows: the collection's size and where it lies.
  const about = await consoleApi("collection", { table: name, index: p.index, key: p.pk });
  const facts = el("div", { class: "facts" });
  if (about.ItemCount !== undefined) {
    facts.append(el("span", {}, el("b", { id: "count" }, about.ItemCount.toLocaleString("en")), " items"),
                 el("span", {}, el("b", {}, humanBytes(about.SizeBytes)),
                    about.SizeLimited ? " with its LSI entries (each its size + 100 B)" : ""));
    if (about.SizeLimited) {
      const share = (100 * about.SizeBytes) / (10 * 2 ** 30);
      facts.append(el("span", {}, share < 0.01 ? "under 0.01%" : `${share.toFixed(2)}%`,
                      " of the 10 GB LSI limit"));
    }
  } else {
    facts.append(el("span", {}, "an index collection: no statistics are kept for it"));
  }
  facts.append(el("span", {}, `${about.SstFiles} SST file${about.SstFiles === 1 ? "" : "s"}`,
                  about.Levels.length ? ` on level${about.Levels.length > 1 ? "s" : ""} ${about.Levels.join(", ")}` : "",
                  about.SstFiles === 0 ? " (in memtables)" : ""));

  // The query builder: what it sends is shown as sent.
  const go = (changes) => { location.hash = collectionHash(name, { ...p, ...changes }); };
  const opSelect = el("select", { id: "sk-op" }, [["", "whole collection"], ["=", "="], ["<", "<"],
    ["<=", "<="], [">", ">"], [">=", ">="], ["between", "BETWEEN"], ["begins_with", "begins_with"]]
      .map(([v, text]) => el("option", { value: v, selected: (p.op || "") === v }, text)));
  const aInput = el("input", { id: "sk-a", value: p.a || "", placeholder: skName || "" });
  const bInput = el("input", { id: "sk-b", value: p.b || "", placeholder: "and" });
  const limitInput = el("input", { id: "page-size", type: "number", min: 1, max: 1000, value: p.limit || 50 });
  const newest = p.order === "desc";
  const builder = el("form", { class: "controls", onsubmit: (e) => {
    e.preventDefault();
    go({ op: opSelect.value, a: aInput.value, b: opSelect.value === "between" ? bInput.value : "",
         limit: limitInput.value });
  } },
    el("button", { type: "button", id: "order-toggle", class: "quiet",
                   onclick: () => go({ order: newest ? "asc" : "desc" }) },
       newest ? "Newest first ↓ (show oldest first)" : "Oldest first ↑ (show newest first)"),
    skName ? [el("label", {}, `sort key ${skName}`, opSelect), el("label", {}, "value", aInput),
              el("label", {}, "and (BETWEEN)", bInput)] : el("span", { class: "empty" }, "no sort key"),
    el("label", {}, "page size", limitInput),
    el("button", { type: "submit", id: "run-query" }, "Query"));

  const request = collectionQuery(name, schema, types, p);
  const requestBox = el("pre", { class: "request", id: "request" });
  const itemsBox = el("div", {});
  const detail = el("div", { id: "detail" });
  show(el("h1", {}, pkText),
       el("div", {}, index ? `${index.kind} ${index.IndexName} of ${name}` : `table ${name}`),
       facts,
       el("div", { class: "panel" }, builder,
          el("h3", {}, "The request (Query, as any SDK sends it)"), requestBox),
       itemsBox, detail);

  // Pages: each remembers where it starts and the running total before it.
  const pages = [{ start: undefined, before: 0, count: 0 }];
  const load = async () => {
    const page = pages[pages.length - 1];
    const sent = { ...request, ...(page.start ? { ExclusiveStartKey: page.start } : {}) };
    requestBox.textContent = JSON.stringify(sent, null, 2);
    const r = await dynamodb("Query", sent);
    let total = page.before;
    const rows = r.Items.map((item, i) => {
      const size = itemSize(item);
      total += size;
      const others = Object.entries(item).filter(([k]) => !pkNames.includes(k) && k !== skName);
      const row = el("tr", { class: "item", "data-sk": skName ? cell(item[skName]) : "" },
                     el("td", { class: "num" }, page.count + i + 1),
                     el("td", { class: "mono" }, skName ? cell(item[skName]) : ""),
                     el("td", { class: "num" }, size),
                     el("td", { class: "num" }, humanBytes(total)),
                     el("td", { class: "attrs" }, others.map(([k, v]) => `${k}=${cell(v)}`).join("  ")));
      row.addEventListener("click", () => {
        for (const s of itemsBox.querySelectorAll("tr.selected")) s.classList.remove("selected");
        row.classList.add("selected");
        itemDetail(t, item, detail).catch((e) => detail.replaceChildren(errorBox(e)));
      });
      return row;
    });
    const next = el("button", { id: "next-page", disabled: !r.LastEvaluatedKey, onclick: () => {
      pages.push({ start: r.LastEvaluatedKey, before: total, count: page.count + r.Items.length });
      load().catch((e) => itemsBox.replaceChildren(errorBox(e)));
    } }, "Next page");
    const previous = el("button", { class: "quiet", disabled: pages.length === 1, onclick: () => {
      pages.pop();
      load().catch((e) => itemsBox.replaceChildren(errorBox(e)));
    } }, "Previous page");
    itemsBox.replaceChildren(
      el("div", { class: "pager" }, previous, next,
         el("span", { id: "shown" }, r.Items.length === 0 ? "no items" :
            `items ${page.count + 1}-${page.count + r.Items.length}` +
            (r.LastEvaluatedKey ? " (more: LastEvaluatedKey)" : " (the end)"))),
      r.Items.length === 0 ? el("p", { class: "empty" }, "No items match.") :
      el("table", { id: "items" },
         el("thead", {}, el("tr", {}, ["#", skName || "(no sort key)", "size (B)", "running total", "attributes"]
                                         .map((h, i) => el("th", { class: [0, 2, 3].includes(i) ? "num" : "" }, h)))),
         el("tbody", {}, rows)));
  };
  await load();
}

// One item: DynamoDB JSON and the plain document; put and delete when
// the server allows the console to write.
async function itemDetail(table, entry, box) {
  // An index entry may hold only some attributes: the item is read whole.
  const key = Object.fromEntries(table.KeySchema.map((k) => [k.AttributeName, entry[k.AttributeName]]));
  const { Item: item } = await dynamodb("GetItem", { TableName: table.TableName, Key: key, ConsistentRead: true });
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
  if (config.Writes) {
    const editor = el("textarea", { id: "item-editor", rows: 12, cols: 80 }, JSON.stringify(item, null, 2));
    const status = el("span", {});
    parts.push(el("h3", {}, "Edit (PutItem replaces the whole item)"), editor, el("div", { class: "pager" },
      el("button", { type: "button", onclick: async () => {
        let edited;
        try {
          edited = JSON.parse(editor.value);
        } catch (e) {
          status.textContent = "Not JSON: " + e.message;
          return;
        }
        if (!confirm("Replace this item with the edited one (PutItem)?")) return;
        try {
          await dynamodb("PutItem", { TableName: table.TableName, Item: edited });
          status.textContent = "Saved.";
        } catch (e) {
          status.textContent = e.message;
        }
      } }, "Put item"),
      el("button", { type: "button", class: "danger", onclick: async () => {
        if (!confirm("Delete this item (DeleteItem)? This cannot be undone.")) return;
        try {
          await dynamodb("DeleteItem", { TableName: table.TableName, Key: key });
          status.textContent = "Deleted.";
        } catch (e) {
          status.textContent = e.message;
        }
      } }, "Delete item"), status));
  }
  box.replaceChildren(el("div", { class: "panel" }, parts));
}

// ---- Routing ---------------------------------------------------------------------------------

async function route() {
  const hash = location.hash || "#/";
  const [path, query = ""] = hash.slice(1).split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (parts.length === 0) await tablesPage();
    else if (parts[0] === "t" && parts.length === 2) await tablePage(parts[1]);
    else if (parts[0] === "t" && parts[2] === "c") {
      await collectionPage(parts[1], Object.fromEntries(new URLSearchParams(query)));
    } else show(el("p", {}, "No such page. ", link("The tables", "#/")));
  } catch (e) {
    show(errorBox(e));
  }
  document.body.dataset.ready = hash;  // for tests: this page has rendered
}

async function start() {
  try {
    config = await consoleApi("config");
  } catch (e) {
    show(errorBox(e));
    return;
  }
  document.getElementById("mode").textContent =
      `${config.Region} · ${config.Writes ? "puts and deletes allowed" : "read-only"}`;
  document.getElementById("keys-button").hidden = !config.Auth;
  if (config.Auth && !keys.secret) askForKeys();
  window.addEventListener("hashchange", route);
  await route();
}

start();
