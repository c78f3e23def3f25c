#!/usr/bin/env bash
# Instructions per operation, Dynarock against raw RocksDB, counted by
# callgrind (repeatable where this machine's wall-clock time is not): each
# measured operation of build/bench/fleet_bench is a function of its own
# (never inlined), counted with --toggle-collect and divided by its calls
# (Scan: by the items read). Small scale, 100 vehicles x 500 readings (50k
# items), about 15 minutes. Replaces the "Instructions per operation"
# section of bench/RESULTS.md and prints it; bench/run.sh's wall-clock rows
# are the other view of the same operations.
#
#   bench/profile_ops.sh [OUT_DIR]      callgrind files kept in OUT_DIR
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
"$top/tools/setup.sh" > /dev/null
command -v valgrind > /dev/null || apt-get install -y -qq valgrind > /dev/null
count() {  # NAME BENCHMARK FUNCTION [PER]: instructions in FUNCTION per call (or per call of PER)
  DYNAROCK_BENCH_VEHICLES=100 DYNAROCK_BENCH_READINGS=500 valgrind --tool=callgrind \
    --callgrind-out-file="$out/$1.cg" --toggle-collect="*$3(*" "$top/build/bench/fleet_bench" \
    --benchmark_filter="^$2\$" --benchmark_min_time=0.3 > "$out/$1.txt" 2>&1
  local total calls
  total="$(awk '/^totals:/ {print $2}' "$out/$1.cg")"
  calls="$(callgrind_annotate --tree=calling --inclusive=yes "$out/$1.cg" 2>/dev/null |
    grep -E '^ *[0-9,]+ .*>  +[^ ]*:' | grep -F "${4:-$3}(" | head -1 | grep -o '([0-9,]*x)' | tr -d '(),x')"
  [ -n "$calls" ] || { echo "profile_ops: no calls of ${4:-$3} counted in $out/$1.cg" >&2; exit 1; }
  echo $(( total / calls ))
}
row() {  # LABEL DYNAROCK RAW
  python3 -c "import sys; l, d, r = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(f'| {l} | {d:,} | ' + (f'{int(r):,} | {int(r) / d:.2f} |' if r != '-' else '- | - |'))" "$@"
}
section="$out/section.md"
{
echo "## Instructions per operation"
echo
echo "bench/profile_ops.sh: callgrind's count of the instructions inside each measured operation of"
echo "fleet_bench (a function of its own, never inlined), divided by its calls (Scan: by the items it read),"
echo "at 100 vehicles x 500 readings (50,000 items). Both sides read every returned item into a row, as the"
echo "timed rows do (raw RocksDB from its own compact encoding, bench/compact_item.h). The ratio is raw's"
echo "count over Dynarock's: above 1, Dynarock runs fewer instructions."
echo
echo "| operation (50k items) | Dynarock instructions | raw RocksDB instructions | raw / Dynarock |"
echo "|---|---:|---:|---:|"
row "Query window newest first, 120 items" "$(count wd BM_QueryWindow_Dynarock QueryRows)" \
  "$(count wr BM_QueryWindow_RocksDB ReadWindowRaw)"
row "the same, oldest first" "$(count wf BM_QueryWindowForward_Dynarock QueryRows)" -
row "Query ByDepot GSI, newest 100 (raw: keeping the index)" "$(count gd BM_QueryDepotGsi_Dynarock QueryRows)" \
  "$(count gr BM_QueryDepotGsi_RocksDBGsi ReadDepotRaw)"
row "GetItem" "$(count getd BM_Get_Dynarock GetOneDynarock)" "$(count getr BM_Get_RocksDB GetOneRaw)"
row "Scan, per item" "$(count sd BM_Scan_Dynarock ScanDynarock ReadItemRow)" \
  "$(count sr BM_Scan_RocksDB ScanRawOnce ReadCompactRow)"
raw_put="$(count pr BM_PutReadFirst_RocksDB RocksSystem::PutRaw)"
row "PutItem, no index (raw: the old value read first)" "$(count pn BM_PutNoIndex_Dynarock PutOneDynarock)" "$raw_put"
row "PutItem, a GSI (raw: keeping the same index)" "$(count pg BM_PutGsi_Dynarock PutOneDynarock)" \
  "$(count pgr BM_PutGsi_RocksDBGsi RocksSystem::PutRawIndexed)"
row "PutItem, an LSI (raw: the old value read first, no index)" "$(count pl BM_PutLsi_Dynarock PutOneDynarock)" "$raw_put"
} > "$section"
python3 "$top/bench/replace_section.py" "$top/bench/RESULTS.md" "## Instructions per operation" "$section"
cat "$section"
