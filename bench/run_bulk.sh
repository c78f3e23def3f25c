#!/usr/bin/env bash
# Dump and restore at fleet scale (bench/bulk_bench.cc), and the peak RSS of
# a process that only restores; replaces the "Dump and restore" section of
# bench/RESULTS.md and prints it.
#
#   bench/run_bulk.sh [VEHICLES] [READINGS]      default 2000 500 (1M items)
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
export DYNAROCK_BENCH_VEHICLES="${1:-2000}" DYNAROCK_BENCH_READINGS="${2:-500}"
"$top/tools/setup.sh" > /dev/null
out="$(mktemp)"
# The dump is kept in $bucket for the restore-only process below.
bucket="$(mktemp -d)"
DYNAROCK_BENCH_BUCKET="$bucket" "$top/build/bench/bulk_bench" --benchmark_format=json \
  --benchmark_out="$out" --benchmark_out_format=json > /dev/null
# Peak RSS of a process that does nothing but restore that dump (256 MB budget).
target="$(mktemp -d)"
cat > "$target/table.json" <<'JSON'
{"TableName": "Telemetry",
 "KeySchema": [{"AttributeName": "vehicleId", "KeyType": "HASH"},
               {"AttributeName": "recordedAt", "KeyType": "RANGE"}],
 "AttributeDefinitions": [{"AttributeName": "vehicleId", "AttributeType": "S"},
                          {"AttributeName": "recordedAt", "AttributeType": "S"},
                          {"AttributeName": "depotCode", "AttributeType": "S"}],
 "BillingMode": "PAY_PER_REQUEST",
 "GlobalSecondaryIndexes": [{"IndexName": "ByDepot",
   "KeySchema": [{"AttributeName": "depotCode", "KeyType": "HASH"},
                 {"AttributeName": "recordedAt", "KeyType": "RANGE"}],
   "Projection": {"ProjectionType": "ALL"}}]}
JSON
peak_kb="$(/usr/bin/time -f '%M' "$top/build/tools/dynarock" restore "$target/db" "$bucket" \
  --table-definition "$target/table.json" --memory-mb 256 2>&1 >/dev/null | tail -1)"
rm -rf "$bucket" "$target"
python3 - "$out" "$peak_kb" "$DYNAROCK_BENCH_VEHICLES" "$DYNAROCK_BENCH_READINGS" <<'PY' > "$out.md"
import json, sys
runs = {b["name"].split("/")[0]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
peak_mb = int(sys.argv[2]) / 1024
n = int(sys.argv[3]) * int(sys.argv[4])
load = runs["BM_BatchWriteLoad"]["items_per_second"]
dump = runs["BM_Dump"]["items_per_second"]
pairs = runs["BM_RestoreAndBareWriter"]
restore, bare = pairs["restore_items_per_second"], pairs["bare_items_per_second"]
print("## Dump and restore\n")
print(f"bench/run_bulk.sh: {n:,} fleet items (one GSI, ALL), one process; the load and the "
      "dump run once; restores and bare writes alternate, five of each (this machine's speed "
      "drifts by a third within minutes: a restore and its bare writes run back to back; the bare writer twice, "
      "with RocksDB's defaults and with the engine's table options), and the figures are "
      "their medians and the median of the pairs' ratios. The bare writers run on one thread, "
      "the restore on two (a thread per file read, then the item and index merges side by side). The load is BatchWriteItem of 25 "
      "with sync_writes=false; restores fsync their SST files at ingestion.\n")
print("| operation | items/s | ratio |")
print("|---|---:|---|")
print(f"| BatchWriteItem load through the engine | {load:,.0f} | 1 |")
print(f"| dump (ExportTable, DYNAMODB_JSON gzip) | {dump:,.0f} | {dump / load:.1f}x the load |")
print(f"| restore (ImportTable: parse, validate, sort, SSTs, ingest) | {restore:,.0f} | "
      f"**{restore / load:.1f}x the load** (goal 10x) |")
print(f"| bare SstFileWriter, same keys and values, sorted and encoded | {bare:,.0f} | "
      f"restore = **{pairs['restore_over_bare']:.2f}x** of it (pairs: "
      f"{pairs['restore_over_bare_min']:.2f}-{pairs['restore_over_bare_max']:.2f}; goal 0.5x); "
      f"it is {bare / load:.1f}x the load |")
ebare = pairs.get("engine_bare_items_per_second")
if ebare:
    print(f"| the same bare writer making the engine's files (10-bit bloom of keys and prefixes, LZ4) | "
          f"{ebare:,.0f} | restore = **{pairs['restore_over_engine_bare']:.2f}x** of it (pairs: "
          f"{pairs['restore_over_engine_bare_min']:.2f}-{pairs['restore_over_engine_bare_max']:.2f}); "
          f"it is {ebare / load:.1f}x the load |")
print(f"\nPeak RSS of `dynarock restore` of that dump, --memory-mb 256: **{peak_mb:,.0f} MB**.")
PY
python3 "$top/bench/replace_section.py" "$top/bench/RESULTS.md" "## Dump and restore" "$out.md"
cat "$out.md"
rm -f "$out" "$out.md"
