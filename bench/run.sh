#!/usr/bin/env bash
# Runs the fleet benchmark (3 alternating processes per system, medians) at a chosen scale and
# writes bench/RESULTS.md with absolute figures and Dynarock/baseline ratios,
# then runs the wire benchmark (bench/wire/run.sh) and appends its table.
#
#   bench/run.sh [VEHICLES] [READINGS]      default 2000 500 (1M items)
#
# DYNAROCK_BENCH_10M=1 also runs bench/run_10m.sh (about 20 minutes more)
# and bench/run_bulk.sh, so one run refreshes every section.
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
vehicles="${1:-2000}"
readings="${2:-500}"
"$top/tools/setup.sh"
# One process per system and round, the systems taking turns: three rounds,
# each running every system once, so a row's three runs of Dynarock and of
# raw RocksDB alternate in time and a drift of the machine (another tenant,
# the page cache, thermal state) falls on both sides alike; each row reports
# the median of its three processes (bench/results.py). A system's
# background work (RocksDB compactions after a bulk load) cannot slow
# another's reads: each process loads its own database.
outs=()
# TrafficAB: the engine's GetItem and PutItem with collection traffic
# tracking switched on and off (its cost), interleaved on one open database.
# (TrafficAB runs once: its figure is already the median of 200 pairs.)
# Fresh*: the newest windows just written (in memtables) and after a flush,
# one process per side.
# Sync: PutItem and a BatchWriteItem load with an fsync per acknowledged
# write, on all three sides (their own small tables).
# RocksDBGsi: raw RocksDB keeping the ByDepot index too (load, disk, the GSI
# Query and a GSI table's PutItem).
for round in 1 2 3; do
  for system in Dynarock RocksDB RawEngineBytes RocksDBGsi SQLite FreshDynarock FreshRocksDB FreshSQLite TrafficAB Sync; do
    [ "$system" = TrafficAB ] && [ "$round" != 1 ] && continue
    out="$(mktemp)"
    outs+=("$out")
    DYNAROCK_BENCH_VEHICLES="$vehicles" DYNAROCK_BENCH_READINGS="$readings" \
      "$top/build/bench/fleet_bench" --benchmark_filter="_${system}(/.*)?\$" --benchmark_repetitions=1 \
      --benchmark_min_time=0.5 --benchmark_format=json \
      --benchmark_out="$out" --benchmark_out_format=json > /dev/null
  done
done
# The same A/B harness with tracking off on both sides (an A/A run): how far
# apart two identical sides come out on this machine.
aa="$(mktemp)"
DYNAROCK_BENCH_AB_SAME=1 DYNAROCK_BENCH_VEHICLES="$vehicles" DYNAROCK_BENCH_READINGS="$readings" \
  "$top/build/bench/fleet_bench" --benchmark_filter='_TrafficAB(/.*)?$' --benchmark_repetitions=1 \
  --benchmark_report_aggregates_only=true --benchmark_format=json \
  --benchmark_out="$aa" --benchmark_out_format=json > /dev/null
# Query latency growth: the same queries on a table a tenth of the size.
small="$(mktemp)"
DYNAROCK_BENCH_VEHICLES="$(( vehicles / 10 > 0 ? vehicles / 10 : 1 ))" DYNAROCK_BENCH_READINGS="$readings" \
  "$top/build/bench/fleet_bench" --benchmark_filter='Query.*_Dynarock|Get_Dynarock' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.5 \
  --benchmark_format=json --benchmark_out="$small" --benchmark_out_format=json > /dev/null
# The disk right after a load at that tenth of the scale too (one load each).
small_loads="$(mktemp)"
DYNAROCK_BENCH_VEHICLES="$(( vehicles / 10 > 0 ? vehicles / 10 : 1 ))" DYNAROCK_BENCH_READINGS="$readings" \
  "$top/build/bench/fleet_bench" --benchmark_filter='^BM_Load_(Dynarock|RocksDB|RocksDBGsi)/' \
  --benchmark_format=json --benchmark_out="$small_loads" --benchmark_out_format=json > /dev/null
# Peak memory of a process that does nothing but Dynarock's bulk load.
peak_kb="$(DYNAROCK_BENCH_VEHICLES="$vehicles" DYNAROCK_BENCH_READINGS="$readings" /usr/bin/time -f '%M' \
  "$top/build/bench/fleet_bench" --benchmark_filter='BM_Load_Dynarock' 2>&1 >/dev/null | tail -1)"
# The cost of collection traffic tracking in instructions too (callgrind
# counts them repeatably, where this machine's wall-clock time varies by
# more than the cost): 5,000 GetItem and PutItem calls of a small fleet,
# tracking on and off, counted inside the benchmark loop and in the thread
# that applies the counts (Traffic::DrainLocked).
command -v valgrind > /dev/null || apt-get install -y -qq valgrind > /dev/null
callgrind="$(mktemp -d)"
for system in On Off; do
  for op in Put Get; do
    DYNAROCK_BENCH_VEHICLES=100 DYNAROCK_BENCH_READINGS=50 DYNAROCK_BENCH_TRAFFIC_ITERATIONS=5000 \
      valgrind --tool=callgrind --callgrind-out-file="$callgrind/$op.$system" \
      --toggle-collect="*${op}Dynarock*" --toggle-collect='*Traffic::DrainLocked*' \
      "$top/build/bench/fleet_bench" \
      --benchmark_filter="${op}_Traffic${system}" > /dev/null 2>&1
  done
done
# The sections of bench/run_bulk.sh (dump and restore), bench/run_10m.sh
# (10M scale) and bench/profile_ops.sh (instructions per operation) are kept
# as they were: this run does not measure them.
bulk="$(mktemp)"
sed -n '/^## \(Wire\|Dump and restore\|10M scale\|Instructions per operation\)/,$p' "$top/bench/RESULTS.md" > "$bulk" 2>/dev/null || true
SMALL_LOADS_JSON="$small_loads" AA_JSON="$aa" CALLGRIND_DIR="$callgrind" python3 "$top/bench/results.py" "$(IFS=,; echo "${outs[*]}")" "$vehicles" "$readings" "$small" "$peak_kb" \
  > "$top/bench/RESULTS.md"
if [ -s "$bulk" ]; then
  printf '\n' >> "$top/bench/RESULTS.md"
  cat "$bulk" >> "$top/bench/RESULTS.md"
fi
rm -rf "$bulk" "$callgrind"
rm -f "${outs[@]}" "$small" "$small_loads" "$aa"
# The wire benchmark (dynalite from the npm registry) replaces its own
# section; DYNAROCK_BENCH_WIRE=0 skips it.
if [ "${DYNAROCK_BENCH_WIRE:-1}" != 0 ]; then
  "$top/bench/wire/run.sh" "${DYNAROCK_BENCH_WIRE_SECONDS:-10}" > /dev/null || true
fi
if [ "${DYNAROCK_BENCH_10M:-0}" = 1 ]; then
  "$top/bench/run_10m.sh" > /dev/null
  "$top/bench/run_bulk.sh" > /dev/null
fi
cat "$top/bench/RESULTS.md"
