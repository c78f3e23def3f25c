#!/usr/bin/env bash
# The 10M-item scale (not in CI: about 15 minutes on 2 cores). Loads the
# fleet into Dynarock at 1M and at 10M items, each in a process of its own,
# and measures GetItem, the window Query and the GSI Query on each (medians
# of 3) and the peak RSS of each process (load included); replaces the
# "10M scale" section of bench/RESULTS.md and prints it.
#
#   bench/run_10m.sh [VEHICLES] [READINGS]      default 20000 500 (10M items);
#                                               the small side is a tenth
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
vehicles="${1:-20000}"
readings="${2:-500}"
"$top/tools/setup.sh" > /dev/null
small="$(mktemp)" big="$(mktemp)"
run() {  # VEHICLES OUT: prints the process's peak RSS in KiB
  DYNAROCK_BENCH_VEHICLES="$1" DYNAROCK_BENCH_READINGS="$readings" /usr/bin/time -f '%M' \
    "$top/build/bench/fleet_bench" --benchmark_filter='^BM_(Get|QueryWindow|QueryDepotGsi)_Dynarock$' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.5 \
    --benchmark_format=json --benchmark_out="$2" --benchmark_out_format=json 2>&1 >/dev/null | tail -1
}
small_kb="$(run "$(( vehicles / 10 > 0 ? vehicles / 10 : 1 ))" "$small")"
big_kb="$(run "$vehicles" "$big")"
out="$(mktemp)"
python3 - "$small" "$big" "$small_kb" "$big_kb" "$vehicles" "$readings" <<'PY' > "$out"
import json, sys

def medians(path):
    return {b["run_name"]: b for b in json.load(open(path))["benchmarks"]
            if b.get("aggregate_name") == "median" and not b.get("error_occurred")}

def us(b):
    return b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]

small, big = medians(sys.argv[1]), medians(sys.argv[2])
small_mb, big_mb = int(sys.argv[3]) / 1024, int(sys.argv[4]) / 1024
n = int(sys.argv[5]) * int(sys.argv[6])
print("## 10M scale\n")
print(f"bench/run_10m.sh (not in CI): Dynarock alone, loaded by PutItem (relaxed durability) to {n // 10:,} "
      f"and to {n:,} items, each in a process of its own, then the reads of the table above (medians of 3, "
      "the tree settled first). Peak RSS is the whole process's, the load included. Configured: block cache "
      "64 MiB + write buffers 64 MiB for each of the items and indexes column families, up to 2 memtables "
      "each (256 MiB) = 320 MiB.\n")
print(f"| | {n // 10:,} items | {n:,} items | growth |")
print("|---|---:|---:|---:|")
for label, name in (("GetItem (µs)", "BM_Get_Dynarock"), ("Query window, 120 items (µs)", "BM_QueryWindow_Dynarock"),
                    ("Query ByDepot GSI, newest 100 (µs)", "BM_QueryDepotGsi_Dynarock")):
    a, b = small.get(name), big.get(name)
    if a and b:
        print(f"| {label} | {us(a):.1f} | {us(b):.1f} | {us(b) / us(a):.2f}x |")
print(f"| peak RSS (MiB) | {small_mb:,.0f} | {big_mb:,.0f} | {big_mb / small_mb:.2f}x |")
print(f"| peak RSS / configured 320 MiB | {small_mb / 320:.2f} | {big_mb / 320:.2f} | |")
PY
if grep -q '^## 10M scale' "$top/bench/RESULTS.md"; then
  python3 - "$top/bench/RESULTS.md" "$out" <<'PY'
import sys
text = open(sys.argv[1]).read()
new = open(sys.argv[2]).read()
start = text.index("## 10M scale")
end = text.find("\n## ", start + 1)
text = text[:start] + new + ("" if end < 0 else text[end:])
open(sys.argv[1], "w").write(text)
PY
else
  printf '\n' >> "$top/bench/RESULTS.md"
  cat "$out" >> "$top/bench/RESULTS.md"
fi
cat "$out"
rm -f "$small" "$big" "$out"
