// The Dynarock console (served by `dynarock serve` at /console/): its
// browsing pages and the router. The admin pages (scan, new table, items,
// streams, status) are in admin.js; what both use is in core.js.
//
// Pages, by the address's fragment:
//   #/                          the tables: item counts, sizes, keys, indexes
//   #/t/TABLE                   a table: its status (stream, TTL, indexes),
//                               its largest and hottest collections (a vector
//                               index's by HASH value), and a vector search
//                               box (SearchVectors from a JSON array) when it
//                               has vector indexes
//   #/t/TABLE/c?pk=...&...      one item collection (of the table, or of an
//                               index with index=NAME), in sort-key order,
//                               with the Query that reads it
//   #/new-table, #/t/TABLE/scan, #/t/TABLE/item, #/t/TABLE/stream: admin.js
//
// It reads through DynamoDB's own JSON API (POST /, as any SDK) and the
// read-only /console/api/ endpoints for what that API lacks (collection
// sizes, hot collections, where a collection lies on disk). Every value is
// put into the page as text (textContent), never as markup; the server's
// Content-Security-Policy lets only the console's own scripts run. Requests
// are signed (AWS Signature V4, WebCrypto) when the server checks signatures.
import {
  askForKeys, attributeTypes, cell, collectionHash, consoleApi, crumbs, dynamodb, el, errorBox,
  firstRange, hashNames, humanBytes, indexesOf, itemSize, keys, keyText, link, pkParam, pkValues,
  show, state, tableHash, typed, vectorIndexesOf, vectorText,
} from "./core.js";
import {
  createTablePage, newItemPage, openOnClick, pagerButtons, scanPage, statusPanel, streamPage,
} from "./admin.js";

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
       state.config.Writes ? el("p", {}, link("Create a table", "#/new-table")) : [],
       names.length === 0
           ? el("p", { class: "empty" }, "No tables yet: create one with any AWS SDK or the CLI" +
                                         (state.config.Writes ? ", or here." : "."))
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
       el("nav", { class: "actions" }, link("Scan", tableHash(name) + "/scan"),
          t.LatestStreamArn ? link("Stream", tableHash(name) + "/stream") : [],
          state.config.Writes ? link("New item", tableHash(name) + "/item") : []),
       el("div", { class: "panel" }, open),
       vectors.length ? vectorSearchPanel(name, t, vectors) : [],
       el("h2", {}, "Largest collections"), largestBox,
       el("h2", {}, "Hottest collections, last 6 minutes"), hottestBox,
       statusPanel(t, () => route()));

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
      return openOnClick(row, t, item, detail);
    });
    const next = r.LastEvaluatedKey && { start: r.LastEvaluatedKey, before: total,
                                         count: page.count + r.Items.length };
    itemsBox.replaceChildren(
      el("div", { class: "pager" }, pagerButtons(pages, next, load, itemsBox),
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

// ---- Routing ---------------------------------------------------------------------------------

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

// Which render is current: a page that keeps working (the stream viewer
// following its shards) stops once another is shown.
let renders = 0;

async function route() {
  const render = ++renders;
  const isCurrent = () => render === renders;
  const hash = location.hash || "#/";
  const [path, query = ""] = hash.slice(1).split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = Object.fromEntries(new URLSearchParams(query));
  try {
    if (parts.length === 0) await tablesPage();
    else if (parts[0] === "new-table" && parts.length === 1) await createTablePage();
    else if (parts[0] === "t" && parts.length === 2) await tablePage(parts[1]);
    else if (parts[0] === "t" && parts.length === 3 && parts[2] === "c") await collectionPage(parts[1], params);
    else if (parts[0] === "t" && parts.length === 3 && parts[2] === "scan") await scanPage(parts[1], params);
    else if (parts[0] === "t" && parts.length === 3 && parts[2] === "item") await newItemPage(parts[1]);
    else if (parts[0] === "t" && parts.length === 3 && parts[2] === "stream") {
      await streamPage(parts[1], params, isCurrent);
    } else show(el("p", {}, "No such page. ", link("The tables", "#/")));
  } catch (e) {
    show(errorBox(e));
  }
  document.body.dataset.ready = hash;  // for tests: this page has rendered
}

async function start() {
  try {
    state.config = await consoleApi("config");
  } catch (e) {
    show(errorBox(e));
    return;
  }
  document.getElementById("mode").textContent =
      `${state.config.Region} · ${state.config.Writes ? "writes allowed" : "read-only"}`;
  document.getElementById("keys-button").hidden = !state.config.Auth;
  if (state.config.Auth && !keys.secret) askForKeys();
  window.addEventListener("hashchange", route);
  await route();
}

start();
