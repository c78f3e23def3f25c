"""Turns fleet_bench's JSON (medians over alternating processes) into bench/RESULTS.md."""
import json
import os
import platform
import subprocess
import sys

paths, vehicles, readings = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])  # one JSON per system
small_path = sys.argv[4] if len(sys.argv) > 4 else None  # same queries at a tenth of the scale
peak_kb = int(sys.argv[5]) if len(sys.argv) > 5 else None  # peak RSS of Dynarock's bulk load
# The loads alone at a tenth of the scale: the disk rows at that scale too.
small_loads_path = os.environ.get("SMALL_LOADS_JSON")


def load_medians(data):
    """The median of each benchmark's repetitions (the run itself if it ran once).
    A benchmark that skipped itself (too small a scale for it) is left out."""
    ran = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    out = {b["run_name"]: b for b in ran if b.get("aggregate_name") == "median"}
    for b in ran:
        if b.get("run_type") == "iteration":
            out.setdefault(b["run_name"], b)
    return out


def us(b):
    """A benchmark's wall-clock time per iteration, in microseconds."""
    return b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]


runs = [json.load(open(p)) for p in paths]
data = runs[0]


def per_item_time(b):
    return 1e6 / b["items_per_second"] if "items_per_second" in b else us(b)


def median_across(runs):
    """Each benchmark's median over the processes that ran it (bench/run.sh
    runs every system in three alternating processes), by time per item."""
    seen = {}
    for run in runs:
        for name, b in load_medians(run).items():
            seen.setdefault(name, []).append(b)
    out = {}
    for name, bs in seen.items():
        bs.sort(key=per_item_time)
        out[name] = bs[(len(bs) - 1) // 2]
    return out


medians = median_across(runs)


def per_item_us_of(b):
    if "items_per_second" in b:
        return 1e6 / b["items_per_second"]
    return us(b)


def per_item_us(name):
    return per_item_us_of(medians[name])


cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
model = next((l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name")), platform.processor())
print("# Fleet benchmark results\n")
print(f"Machine: {model}, {data['context'].get('num_cpus')} CPUs. Scale: {vehicles} vehicles x {readings} readings "
      f"= {vehicles * readings:,} items, readings 5 s apart (a ten-minute window is 120 items).")
print("Durability, stated on each row. **relaxed**: the write reaches the log before it returns, no fsync per write "
      "(Dynarock sync_writes=false, RocksDB sync=false, SQLite WAL + synchronous=NORMAL). **sync**: each acknowledged "
      "write is on disk before it returns (Dynarock sync_writes=true, RocksDB WriteOptions::sync, SQLite WAL + "
      "synchronous=FULL); one thread, so a PutItem pays one fsync and a batch of 25 shares one; each side starts from "
      "an empty table (an fsync costs the same on a big one), raw RocksDB reads the old value before each PutItem as "
      "the engine does. "
      "Medians of 3 processes per system, wall-clock time (the Load row: three bulk loads of each system, every "
      "side in batches of 25: BatchWriteItem, a WriteBatch, a SQLite transaction); "
      "the systems' processes (the same binary) take turns in three rounds, so Dynarock's and raw RocksDB's runs "
      "of a row alternate in time. Dynarock's table has the ByDepot GSI; raw RocksDB stores "
      "the same keys with no index and, as its values, **its own compact encoding** of each item's non-key attributes "
      "(bench/compact_item.h: varint count, then per attribute varint-length name, type byte, varint-length value, "
      "numbers as decimal text; the key attributes only in the key); its load reads the items it replaces first "
      "(one MultiGet per batch), as a DynamoDB engine must. **Raw with the index** also keeps the ByDepot index as "
      "the engine does (an entry keyed like the engine's, the compact value, in the item's WriteBatch; its PutItem "
      "reads the old value first and deletes the old entry): the GSI rows compare against it. "
      "**Raw RocksDB** is the best configuration found for this workload "
      "(RocksDB's defaults, a 10-bit bloom filter, the same 64 MiB block cache, LZ4, no prefix extractor), and the "
      "ratios are against it; **raw, Dynarock's bytes** is the same configuration storing Dynarock's own item bytes "
      "(the old, handicapped ceiling), shown only for what the item format costs. SQLite has the depot index. "
      "Query and Scan read every returned item into a row field by field (SQLite: its six columns; Dynarock, "
      "with ItemEncoding::kStored, through ItemView; raw RocksDB: its keys from the RocksDB key, the rest from its "
      "compact value in place, numbers parsed into DynamoDB numbers as the engine's are decoded); "
      "GetItem hands back a decoded item on the RocksDB sides.\n")
print("| operation | durability | Dynarock | raw RocksDB | raw, Dynarock's bytes | SQLite | Dynarock / raw RocksDB | Dynarock / SQLite |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
rows = [("Load, BatchWriteItem of 25 (µs per item)", "Load"), ("PutItem (µs)", "Put"), ("GetItem (µs)", "Get"),
        ("Query window newest first, 120 items (µs per item)", "QueryWindow"), ("Scan (µs per item)", "Scan"),
        ("Query ByDepot GSI, newest 100 of a depot (µs per item; raw: with the index)", "QueryDepotGsi")]
for label, op in rows:
    names = [f"BM_{op}_{x}" for x in ("Dynarock", "RocksDB", "RawEngineBytes", "SQLite")]
    if op == "QueryDepotGsi":
        names[1] = "BM_QueryDepotGsi_RocksDBGsi"
    if op == "Load":
        names = [n + "/iterations:1" for n in names]
    try:
        vd, vr, vs = per_item_us(names[0]), per_item_us(names[1]), per_item_us(names[3])
    except KeyError:
        continue
    ve = f"{per_item_us(names[2]):.2f}" if names[2] in medians else "-"
    # The ceiling is raw RocksDB with its own encoding, never Dynarock's bytes.
    ceiling = vr
    # A ratio above 1 means Dynarock is faster (throughput ratio).
    mode = "relaxed" if op in ("Load", "Put") else "(reads)"
    print(f"| {label} | {mode} | {vd:.2f} | {vr:.2f} | {ve} | {vs:.2f} | {ceiling / vd:.2f} | {vs / vd:.2f} |")
fresh_rows = False
# The newest windows just written (in the memtables; SQLite: its WAL), then
# the same windows after a flush and compaction (SQLite: a checkpoint).
for label, phase in (("Query newest window just written, in memtables (µs per item)", "Memtable"),
                     ("the same windows after a flush and compaction (µs per item)", "Flushed")):
    names = [f"BM_Query{phase}_Fresh{x}" for x in ("Dynarock", "RocksDB", "SQLite")]
    if all(n in medians for n in names):
        vd, vr, vs = (per_item_us(n) for n in names)
        print(f"| {label} | (reads) | {vd:.2f} | {vr:.2f} | - | {vs:.2f} | {vr / vd:.2f} | {vs / vd:.2f} |")
        fresh_rows = True
sync = {}
for name, b in medians.items():
    base = name.split("/")[0]
    if base.endswith("_Sync"):
        sync[base[len("BM_"):-len("_Sync")]] = b
if all(f"{op}{x}" in sync for op in ("Put", "Load") for x in ("Dynarock", "RocksDB", "SQLite")):
    for label, op in (("PutItem (µs)", "Put"), ("Load, BatchWriteItem of 25 (µs per item)", "Load")):
        vd, vr, vs = (per_item_us_of(sync[f"{op}{x}"]) for x in ("Dynarock", "RocksDB", "SQLite"))
        print(f"| {label} | **sync** | {vd:.2f} | {vr:.2f} | - | {vs:.2f} | {vr / vd:.2f} | {vs / vd:.2f} |")
if fresh_rows:
    print("\nThe two \"newest window\" rows: after each side's load settled, 200 vehicles each receive a new "
          "ten-minute window (120 readings), read newest first (`sk >= start`) while it is in the memtables "
          "(SQLite: in its WAL, up to its automatic checkpoint), then again after a flush and compaction of "
          "everything (SQLite: a checkpoint); each side in a process of its own.")
loads = {x: medians.get(f"BM_Load_{x}/iterations:1") for x in ("Dynarock", "RocksDB", "RawEngineBytes", "SQLite")}
indexed = medians.get("BM_Load_RocksDBGsi/iterations:1")


def disk_line(scale, d, r, g):
    line = (f"Disk right after the load of {scale:,} items (nothing settled): Dynarock {d['disk_mb']:.1f} MiB, "
            f"raw RocksDB {r['disk_mb']:.1f} MiB (Dynarock / raw = {d['disk_mb'] / r['disk_mb']:.2f}x the space)")
    if g:
        line += (f", raw with the index {g['disk_mb']:.1f} MiB (Dynarock / it = "
                 f"**{d['disk_mb'] / g['disk_mb']:.2f}x**)")
    return line


if all(loads.values()) and "disk_mb" in loads["Dynarock"]:
    d, r = loads["Dynarock"], loads["RocksDB"]
    print("\n" + disk_line(vehicles * readings, d, r, indexed) + f"; raw with Dynarock's bytes "
          f"{loads['RawEngineBytes']['disk_mb']:.0f} MiB, SQLite {loads['SQLite']['disk_mb']:.0f} MiB (database and WAL before a checkpoint).")
    if "value_bytes_per_item" in d:
        e = loads["RawEngineBytes"]
        print(f"Bytes per item: the stored value {d['value_bytes_per_item']:.0f} B in Dynarock against "
              f"{r['value_bytes_per_item']:.0f} B in raw's compact encoding (**{d['value_bytes_per_item'] / r['value_bytes_per_item']:.2f}x**); "
              f"once settled (compressed, keys, GSI and filters included) {d['settled_bytes_per_item']:.0f} B against "
              f"{r['settled_bytes_per_item']:.0f} B (raw with the index: "
              f"{indexed['settled_bytes_per_item'] if indexed else float('nan'):.0f} B; raw with Dynarock's bytes, no index: "
              f"{e['settled_bytes_per_item']:.0f} B; SQLite {loads['SQLite']['settled_bytes_per_item']:.0f} B).")
    if small_loads_path and os.path.getsize(small_loads_path) > 0:
        small_loads = load_medians(json.load(open(small_loads_path)))
        sd, sr, sg = (small_loads.get(f"BM_Load_{x}/iterations:1") for x in ("Dynarock", "RocksDB", "RocksDBGsi"))
        if sd and sr:
            print(disk_line(vehicles // 10 * readings, sd, sr, sg) + " (one load of each, in one process).")
    print(f"Close and reopen right after the load: Dynarock closes in {d.get('close_seconds', float('nan')):.2f} s "
          f"(a clean close flushes the memtables) and reopens in **{d['reopen_seconds']:.2f} s**; raw RocksDB closes in "
          f"{r.get('close_seconds', float('nan')):.2f} s and reopens in {r['reopen_seconds']:.2f} s (log replay).")
if indexed and loads["Dynarock"]:
    d = loads["Dynarock"]
    print(f"\nRaw RocksDB keeping the ByDepot index: load {1e6 / indexed['items_per_second']:.2f} µs per item "
          f"(Dynarock / it = **{d['items_per_second'] / indexed['items_per_second']:.2f}**, relaxed)" +
          (f"; PutItem into an empty table of its own, old value read first, {us(medians['BM_PutGsi_RocksDBGsi']):.2f} µs "
           f"(Dynarock's PutItem into a GSI table / it = **{us(medians['BM_PutGsi_RocksDBGsi']) / us(medians['BM_PutGsi_Dynarock']):.2f}**, relaxed)"
           if medians.get("BM_PutGsi_RocksDBGsi") and medians.get("BM_PutGsi_Dynarock") else "") + ".")
plain_load = medians.get("BM_LoadNoIndex_Dynarock/iterations:1")
if plain_load and loads["RocksDB"]:
    print(f"\nLike for like with raw RocksDB (which keeps no index): Dynarock loading a table without the GSI, "
          f"{1e6 / plain_load['items_per_second']:.2f} µs per item (Dynarock / raw RocksDB = "
          f"**{plain_load['items_per_second'] / loads['RocksDB']['items_per_second']:.2f}**, relaxed).")
forward, backward = medians.get("BM_QueryWindowForward_Dynarock"), medians.get("BM_QueryWindow_Dynarock")
if forward and backward:
    print(f"\nThe same windows oldest first on Dynarock: {per_item_us('BM_QueryWindowForward_Dynarock'):.2f} µs per item; "
          f"newest first / oldest first throughput = {forward['real_time'] / backward['real_time']:.2f}.")
read_first = medians.get("BM_PutReadFirst_RocksDB")
if read_first and medians.get("BM_Put_Dynarock"):
    print(f"\nRaw RocksDB put with a read of the old value first (as the engine reads before it writes): "
          f"{us(read_first):.2f} µs; Dynarock PutItem / it = {us(read_first) / us(medians['BM_Put_Dynarock']):.2f}.")
variants = [(label, medians.get(f"BM_Put{name}_Dynarock")) for label, name in
            (("no index", "NoIndex"), ("a GSI", "Gsi"), ("an LSI", "Lsi"))]
raw_put = medians.get("BM_PutReadFirst_RocksDB") or medians.get("BM_Put_RocksDB")
if raw_put and all(v for _, v in variants):
    raw_us = us(raw_put)
    print("\nPutItem by table shape (µs, and Dynarock / raw RocksDB with read-before-write): " + ", ".join(
        f"{label} {us(v):.2f} ({raw_us / us(v):.2f})"
        for label, v in variants) + ".")
plain, streamed = medians.get("BM_PutNoIndex_Dynarock"), medians.get("BM_PutStream_Dynarock")
if plain and streamed:
    print(f"\nThe cost of a stream (NEW_AND_OLD_IMAGES, no index): PutItem {us(plain):.2f} µs without, "
          f"{us(streamed):.2f} µs with; throughput with / without = {us(plain) / us(streamed):.2f}.")
ab = [(label, next((b for name, b in medians.items() if name.split("/")[0] == f"BM_{op}_TrafficAB"), None))
      for label, op in (("PutItem", "Put"), ("GetItem", "Get"))]
if all(b and "ratio" in b for _, b in ab):
    print("\nThe cost of counting each collection's capacity units (Options::track_collection_traffic, "
          "on by default; HottestCollections and `dynarock top`), measured A/B: one open database, "
          "tracking switched on and off (SetCollectionTrafficTracking) in 200 pairs of 2,000-operation "
          "rounds whose order alternates; the median round of each side, and the median of the pairs' "
          "ratios: " + ", ".join(
              f"{label} {b['on_ns'] / 1000:.2f} µs with, {b['off_ns'] / 1000:.2f} µs without "
              f"(throughput with / without = **{b['ratio']:.3f}**)" for label, b in ab) + ".")
    aa_path = os.environ.get("AA_JSON")
    if aa_path and os.path.getsize(aa_path) > 0:
        aa = load_medians(json.load(open(aa_path)))
        same = [(label, next((b for name, b in aa.items() if name.split("/")[0] == f"BM_{op}_TrafficAB"), None))
                for label, op in (("PutItem", "Put"), ("GetItem", "Get"))]
        if all(b and "ratio" in b for _, b in same):
            print("The same harness with tracking off on both sides (A/A), what this machine's noise alone "
                  "shows: " + ", ".join(f"{label} {b['ratio']:.3f}" for label, b in same) + ".")
callgrind = os.environ.get("CALLGRIND_DIR")


def instructions(path):
    """The instruction total of a callgrind output file (its `totals:` line)."""
    try:
        for line in open(path):
            if line.startswith("totals:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def inclusive(path, function):
    """The instructions counted inside `function` (callgrind_annotate --inclusive)."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if function in line:
            return int(line.split()[0].replace(",", ""))
    return None


if callgrind:
    counts = {(op, on): instructions(os.path.join(callgrind, f"{op}.{on}"))
              for op in ("Put", "Get") for on in ("On", "Off")}
    if all(counts.values()):
        # The summaries are updated on the drainer thread (Traffic::DrainLocked,
        # also counted): its instructions per record, over every record it
        # drained (the load's 5,000 puts x 2 collections, then the 5,000
        # calls x 2 for PutItem, x 1 for GetItem), are added to each call's.
        records = {"Put": 2, "Get": 1}
        parts = []
        for label, op in (("PutItem", "Put"), ("GetItem", "Get")):
            path = os.path.join(callgrind, f"{op}.On")
            drain = inclusive(path, "Traffic::DrainLocked") or 0
            drained = 5000 * 2 + 5000 * records[op]
            per_record = drain / drained
            call_on = (counts[(op, "On")] - drain) / 5000
            call_off = counts[(op, "Off")] / 5000
            total_on = call_on + per_record * records[op]
            parts.append(f"{label} {call_on:,.0f} on the calling thread with, {call_off:,.0f} without, plus "
                         f"{per_record:,.0f} per record on the drainer ({records[op]} per call): without / with = "
                         f"**{call_off / total_on:.3f}**")
        print("In instructions (callgrind, 5,000 calls on a 5,000-item fleet, counted inside the loop and in the "
              "drainer): " + "; ".join(parts) + ".")
items = medians.get("BM_QueryWindowItems_Dynarock")
if items:
    print(f"\nThe window Query handing back decoded Items (std::map per item) instead: "
          f"{1e6 / items['items_per_second']:.2f} µs per item.")
gsi = medians.get("BM_QueryDepotGsi_Dynarock")
if gsi:
    print(f"\nQuery the ByDepot GSI, newest 100 readings of a depot: {1e6 / gsi['items_per_second']:.2f} µs per item.")
scan_filter = medians.get("BM_ScanFilterWindow_Dynarock")
window = medians.get("BM_QueryWindow_Dynarock")
if scan_filter and window:
    query_us = 1e6 / window["items_per_second"] * 120
    scan_us = us(scan_filter)
    print(f"Same window by Scan + FilterExpression: {scan_us / 1000:.1f} ms vs {query_us / 1000:.3f} ms by Query: "
          f"Query is {scan_us / query_us:,.0f}x faster.")
if small_path:
    small = load_medians(json.load(open(small_path)))
    print(f"\nLatency growth from {vehicles // 10 * readings:,} to {vehicles * readings:,} items (same run, medians of 3):")
    for label, name in (("GetItem", "BM_Get_Dynarock"), ("Query window", "BM_QueryWindow_Dynarock"),
                        ("Query ByDepot GSI", "BM_QueryDepotGsi_Dynarock")):
        a, b = small.get(name), medians.get(name)
        if a and b:
            ta, tb = us(a), us(b)
            print(f"- {label}: {ta:.1f} µs -> {tb:.1f} µs ({tb / ta:.2f}x)")
if peak_kb:
    print(f"\nPeak memory (RSS) of a process doing only Dynarock's bulk load: {peak_kb / 1024:.0f} MiB; configured: "
          "Options::MemoryBudget() = 320 MiB: a 64 MiB block cache for every block read (index and "
          "filter blocks included) and every column family's memtables within 4 x 64 MiB.")
print("\nRatios are throughput ratios: above 1, Dynarock is faster.")
