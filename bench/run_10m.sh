#!/usr/bin/env bash
# The 10M-item scale (not in CI: about 20 minutes on 2 cores). Loads the
# fleet into Dynarock at 1M and at 10M items, each in a process of its own,
# with the default options and with Options::cache_index_and_filter_blocks;
# measures GetItem, the window Query and the GSI Query on each (medians of
# 3) and the peak RSS of each process (load included); replaces the "10M
# scale" section of bench/RESULTS.md and prints it.
#
#   bench/run_10m.sh [VEHICLES] [READINGS]      default 20000 500 (10M items);
#                                               the small side is a tenth
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
vehicles="${1:-20000}"
readings="${2:-500}"
"$top/tools/setup.sh" > /dev/null
outs=()
run() {  # VEHICLES CACHE_INDEX OUT: prints the process's peak RSS in KiB
  DYNAROCK_BENCH_VEHICLES="$1" DYNAROCK_BENCH_READINGS="$readings" DYNAROCK_BENCH_CACHE_INDEX="$2" \
    /usr/bin/time -f '%M' "$top/build/bench/fleet_bench" \
    --benchmark_filter='^BM_(Get|QueryWindow|QueryDepotGsi)_Dynarock$' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.5 \
    --benchmark_format=json --benchmark_out="$3" --benchmark_out_format=json 2>&1 >/dev/null | tail -1
}
args=()
for cache_index in 0 1; do
  for n in "$(( vehicles / 10 > 0 ? vehicles / 10 : 1 ))" "$vehicles"; do
    out="$(mktemp)"
    outs+=("$out")
    args+=("$out" "$(run "$n" "$cache_index" "$out")")
  done
done
section="$(mktemp)"
python3 - "$vehicles" "$readings" "${args[@]}" <<'PY' > "$section"
import json, sys

def medians(path):
    return {b["run_name"]: b for b in json.load(open(path))["benchmarks"]
            if b.get("aggregate_name") == "median" and not b.get("error_occurred")}

def us(b):
    return b["real_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]

n = int(sys.argv[1]) * int(sys.argv[2])
runs = [(medians(sys.argv[i]), int(sys.argv[i + 1]) / 1024) for i in range(3, len(sys.argv), 2)]
print("## 10M scale\n")
print(f"bench/run_10m.sh (not in CI): Dynarock alone, loaded by BatchWriteItem of 25 (relaxed durability) to {n // 10:,} "
      f"and to {n:,} items, each in a process of its own, then the reads of the table above (medians of 3, "
      "the tree settled first); with the default options, and with Options::cache_index_and_filter_blocks "
      "(index and filter blocks in the block cache, partitioned). Peak RSS is the whole process's, the load "
      "included. Configured: Options::MemoryBudget() = 320 MiB, a 64 MiB block cache and every column "
      "family's memtables within 4 x 64 MiB; without the option, index and filter blocks are held outside "
      "it.\n")
print(f"| | default, {n // 10:,} | default, {n:,} | growth | in cache, {n // 10:,} | in cache, {n:,} | growth |")
print("|---|---:|---:|---:|---:|---:|---:|")
for label, name in (("GetItem (µs)", "BM_Get_Dynarock"), ("Query window, 120 items (µs)", "BM_QueryWindow_Dynarock"),
                    ("Query ByDepot GSI, newest 100 (µs)", "BM_QueryDepotGsi_Dynarock")):
    cells = []
    for (a, _), (b, _) in ((runs[0], runs[1]), (runs[2], runs[3])):
        if name in a and name in b:
            cells += [f"{us(a[name]):.1f}", f"{us(b[name]):.1f}", f"{us(b[name]) / us(a[name]):.2f}x"]
        else:
            cells += ["-", "-", "-"]
    print(f"| {label} | " + " | ".join(cells) + " |")
rss = [mb for _, mb in runs]
print(f"| peak RSS (MiB) | {rss[0]:,.0f} | {rss[1]:,.0f} | {rss[1] / rss[0]:.2f}x | {rss[2]:,.0f} | {rss[3]:,.0f} | "
      f"{rss[3] / rss[2]:.2f}x |")
print(f"| peak RSS / the 320 MiB budget | {rss[0] / 320:.2f} | {rss[1] / 320:.2f} | | {rss[2] / 320:.2f} | "
      f"{rss[3] / 320:.2f} | |")
PY
python3 "$top/bench/replace_section.py" "$top/bench/RESULTS.md" "## 10M scale" "$section"
cat "$section"
rm -f "${outs[@]}" "$section"
