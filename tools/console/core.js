// The console's common parts: building the page, DynamoDB's JSON API and
// the console API (signed with AWS Signature V4 when the server checks
// signatures), DynamoDB values and sizes, and the names and addresses of
// tables, indexes and collections. The pages are in console.js (browsing)
// and admin.js (scan, tables, items, streams).
//
// Every value is put into the page as text (textContent), never as markup.
export const main = document.getElementById("main");
// What the server told the console (GET /console/api/config), set at start.
export const state = { config: { Region: "us-east-1", Auth: false, Writes: false } };
export const keys = {
  id: sessionStorage.getItem("dynarock.keyId") || "",
  secret: sessionStorage.getItem("dynarock.secret") || "",
};

// ---- DOM -------------------------------------------------------------------------------------

// An element with attributes (on* are listeners) and children (strings
// become text nodes).
export function el(tag, attrs = {}, ...children) {
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

export function show(...nodes) {
  main.replaceChildren(...nodes.flat());
}

export function crumbs(...parts) {
  const nav = document.getElementById("crumbs");
  nav.replaceChildren(...parts.flatMap((p, i) => [i ? " / " : "", p]));
}

// Decimal units, as DescribeTable's byte counts read (and as the CLI
// prints them): 1 MB = 1,000,000 bytes.
export function humanBytes(b) {
  if (b < 1000) return `${b} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let u = -1;
  while (b >= 999.5 && u < 3) {
    b /= 1000;
    u++;
  }
  return `${b.toFixed(b < 9.995 ? 2 : b < 99.95 ? 1 : 0)} ${units[u]}`;
}

export function errorBox(e) {
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
  const scope = `${day}/${state.config.Region}/dynamodb/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256Hex(canonical)].join("\n");
  let key = encoder.encode("AWS4" + keys.secret);
  for (const part of [day, state.config.Region, "dynamodb", "aws4_request"]) key = await hmac(key, part);
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

async function post(target, request) {
  const body = JSON.stringify(request);
  const headers = { "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target };
  if (state.config.Auth) Object.assign(headers, await sign("POST", "/", "", headers, body));
  return answer(await fetch("/", { method: "POST", headers, body }));
}

// A DynamoDB operation, as any SDK sends it.
export function dynamodb(operation, request) {
  return post("DynamoDB_20120810." + operation, request);
}

// A DynamoDB Streams operation (the server answers both APIs at /).
export function streams(operation, request) {
  return post("DynamoDBStreams_20120810." + operation, request);
}

// GET /console/api/ENDPOINT?params.
export async function consoleApi(endpoint, params = {}) {
  const path = "/console/api/" + endpoint;
  const query = canonicalQuery(params);
  const headers = state.config.Auth && endpoint !== "config" ? await sign("GET", path, query, {}, "") : {};
  return answer(await fetch(path + (query ? "?" + query : ""), { headers }));
}

export function askForKeys() {
  const form = document.getElementById("keys");
  form.hidden = false;
  document.getElementById("key-id").value = keys.id;
}


// ---- DynamoDB values -------------------------------------------------------------------------

export const utf8Length = (s) => encoder.encode(s).length;
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
export function itemSize(item) {
  return Object.entries(item).reduce((n, [name, v]) => n + utf8Length(name) + valueSize(v), 0);
}

// A value as a plain document value (what the SDKs' unmarshall gives).
export function plain(v) {
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
export function cell(v) {
  if (!v) return "";
  const [type, x] = Object.entries(v)[0];
  return type === "S" || type === "N" ? x : type === "BOOL" ? String(x) : JSON.stringify(plain(v));
}

// A typed key value from what a person types: S as is, N as a number, B base64.
export function typed(type, text) {
  return { [type]: text };
}

// ---- Pages -----------------------------------------------------------------------------------

export function link(text, hash) {
  return el("a", { href: hash }, text);
}

export function tableHash(table) {
  return "#/t/" + encodeURIComponent(table);
}

export function collectionHash(table, params) {
  return tableHash(table) + "/c?" + new URLSearchParams(
      Object.entries(params).filter(([, v]) => v !== undefined && v !== "")).toString();
}

export function keyText(schema, types) {
  return schema.map((k) => `${k.AttributeName} (${types[k.AttributeName] || "?"})`).join(" · ");
}

// A key schema's partition key attributes (a multi-attribute GSI has up to
// four) and its first sort key attribute, which the query builder bounds.
export function hashNames(schema) {
  return schema.filter((k) => k.KeyType === "HASH").map((k) => k.AttributeName);
}
export function firstRange(schema) {
  return schema.find((k) => k.KeyType === "RANGE")?.AttributeName;
}

// A collection's partition values as its page's `pk` parameter: one value
// as DynamoDB JSON, several as a list of them in KeySchema order.
export function pkParam(values) {
  return JSON.stringify(values.length === 1 ? values[0] : values);
}
export function pkValues(param) {
  const v = JSON.parse(param || "null");
  return v === null ? [] : Array.isArray(v) ? v : [v];
}

export function attributeTypes(table) {
  return Object.fromEntries(table.AttributeDefinitions.map((d) => [d.AttributeName, d.AttributeType]));
}

export function indexesOf(table) {
  return [...(table.LocalSecondaryIndexes || []).map((i) => ({ ...i, kind: "LSI" })),
          ...(table.GlobalSecondaryIndexes || []).map((i) => ({ ...i, kind: "GSI" }))];
}

// Vector indexes, keyed (for their collections) by their HASH search
// attribute, if any.
export function vectorIndexesOf(table) {
  return (table.VectorIndexes || []).map((v) => ({
    ...v, kind: "VECTOR",
    KeySchema: (v.SearchSchema || []).filter((e) => e.SearchSchemaElementType === "HASH")
      .map((e) => ({ AttributeName: e.AttributeName, KeyType: "HASH" })),
  }));
}
export function vectorText(v) {
  return `${v.VectorAttribute.AttributeName} · ${v.Dimensions} dims · ${v.DistanceFunction}` +
         (v.KeySchema.length ? ` · by ${v.KeySchema[0].AttributeName}` : "") +
         (v.IndexStatus === "ACTIVE" ? "" : ` · ${v.IndexStatus}`);
}
