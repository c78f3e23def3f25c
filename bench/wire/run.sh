#!/usr/bin/env bash
# Wire benchmark: `dynarock serve` against dynalite@4, the same requests from
# wrk (keep-alive connections, Lua scripts that vary the key per request),
# one server after the other on this machine, client and server sharing its
# cores. Rows: the load (BatchWriteItem of 25), GetItem, PutItem, the window
# Query, the GSI Query and Scan, each at 1, 4 and 32 connections, with
# p50/p99/p99.9 latency; then PutItem at 32 connections in sync durability,
# the server's CPU per GetItem beside the embedded GetItem's, and GetItem
# with the client pinned to one core. Prints the Markdown section and writes
# it into bench/RESULTS.md ("## Wire").
#
#   bench/wire/run.sh [SECONDS] [ITEMS]   default 10 s per run, 100,000 items
#   REPS=3 bench/wire/run.sh              the median-throughput run of three
#   SECTION="## Wire at 1M items" bench/wire/run.sh 10 1000000
#                                         into a section of its own
#
# Installs wrk, nodejs and npm from Debian and dynalite@4 from the npm registry
# into build/wire-bench (not part of tools/setup.sh: CI does not need them).
set -euo pipefail
top="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-10}"
items="${2:-100000}"
reps="${REPS:-1}"
export ITEMS="$items"
"$top/tools/setup.sh"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# Commands, not packages: a machine may already have Node.js and npm from elsewhere.
for c in wrk:wrk node:nodejs npm:npm; do
  command -v "${c%%:*}" > /dev/null || $sudo apt-get install -y -qq "${c#*:}" > /dev/null
done
work="$top/build/wire-bench"
mkdir -p "$work"
[ -d "$work/node_modules/dynalite" ] || (cd "$work" && npm install --silent dynalite@4 > /dev/null)
dynarock="$top/build/tools/dynarock"
scripts="$top/bench/wire"

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
start_dynarock() {  # port durability
  rm -rf "$work/dynarock-data-$1" && mkdir -p "$work/dynarock-data-$1"
  "$dynarock" serve --port "$1" --data-dir "$work/dynarock-data-$1" --durability "$2" \
    > "$work/dynarock-$1.log" 2>&1 &
  pids+=($!)
  dynarock_pid=$!
}
start_dynalite() {  # port
  rm -rf "$work/dynalite-data" && mkdir -p "$work/dynalite-data"
  node "$work/node_modules/dynalite/cli.js" --port "$1" --path "$work/dynalite-data" \
    --createTableMs 0 > "$work/dynalite.log" 2>&1 &
  pids+=($!)
}
load() {  # port: the table (ByDepot GSI) and ITEMS readings, 25 per request, 8 at a time
  python3 "$scripts/load.py" "$1" "$items"
}
run() {  # script connections port [wrk prefix] -> "rps p50 p99 p999" (us) of the median run
  local t=$(( $2 >= 32 ? 2 : 1 ))
  local n="${RUNS:-$reps}"
  for rep in $(seq "$n"); do
    out="$(${4:-} wrk -t"$t" -c"$2" -d"${seconds}s" -s "$scripts/$1.lua" "http://127.0.0.1:$3/")"
    if grep -q "GetItem miss" <<< "$out"; then echo "port $3 $1: GetItem misses" >&2; exit 1; fi
    read -r rps p50 p99 p999 errors <<< "$(awk '$1 == "STATS" {print $2, $3, $4, $5, $6}' <<< "$out")"
    if [ "$errors" != 0 ]; then echo "port $3 $1 c=$2: $errors errors" >&2; exit 1; fi
    echo "$rps $p50 $p99 $p999"
  done | sort -n | sed -n "$(( (n + 1) / 2 ))p"
}
ms() { python3 -c "print(f'{$1 / 1000:.2f}')"; }

start_dynarock 8100 relaxed
start_dynalite 8101
sleep 2
load 8100
load 8101
# Bytes per item on disk right after the load (nothing settled: logs and
# memtables' data included), each server's own directory.
bytes_per_item() { python3 -c "print(f'{$(du -sb "$1" | cut -f1) / $items:.0f}')"; }
d_bytes=$(bytes_per_item "$work/dynarock-data-8100")
l_bytes=$(bytes_per_item "$work/dynalite-data")

declare -A result
# Reads first, on the loaded table; then the writes, which add to it.
for op in get query gsi scan put batch; do
  for c in 1 4 32; do
    result[$op,$c,d]="$(run $op $c 8100)"
    result[$op,$c,l]="$(run $op $c 8101)"
  done
done
# The server's CPU per GetItem at 4 connections (user + system time of the
# process over a run, per request served) and the embedded GetItem's, on a
# table of the same size (fleet_bench, CPU time per call).
t0=$(awk '{print $14 + $15}' "/proc/$dynarock_pid/stat")
read -r cpu_rps _ <<< "$(RUNS=1 run get 4 8100)"
t1=$(awk '{print $14 + $15}' "/proc/$dynarock_pid/stat")
server_cpu_us=$(python3 -c "print(f'{($t1 - $t0) / $(getconf CLK_TCK) * 1e6 / ($cpu_rps * $seconds):.1f}')")
embedded_us=$(DYNAROCK_BENCH_VEHICLES=$(( items / 500 > 0 ? items / 500 : 1 )) DYNAROCK_BENCH_READINGS=500 \
  "$top/build/bench/fleet_bench" --benchmark_filter='^BM_Get_Dynarock$' --benchmark_format=json 2>/dev/null |
  python3 -c "import json,sys; b=[x for x in json.load(sys.stdin)['benchmarks'] if x['name']=='BM_Get_Dynarock'][0]; print(f\"{b['cpu_time'] / (1000 if b['time_unit']=='ns' else 1):.1f}\")")
# The client on one core of the two (the server keeps both).
pinned_d="$(run get 4 8100 'taskset -c 1')"
pinned_l="$(run get 4 8101 'taskset -c 1')"
# Sync durability: PutItem at 32 connections on a server that fsyncs each
# acknowledged write (writers waiting together share an fsync).
start_dynarock 8102 sync
sleep 2
python3 "$scripts/load.py" 8102 0
sync_put="$(run put 32 8102)"

title="${SECTION:-## Wire: \`dynarock serve\` vs dynalite}"
section="$(mktemp)"
{
  echo "$title"
  echo
  echo "bench/wire/run.sh: durability **relaxed** on both sides (one row in sync below). wrk against \`dynarock serve --data-dir --durability relaxed\` (log written, no fsync, as dynalite's LevelDB) and dynalite@4 \`--path\` (on disk), the same requests, one server after the other; wrk (one thread, two at 32 connections) shares the $(nproc) cores with the server. Table Telemetry with the ByDepot GSI (ALL), loaded with $(printf "%'d" "$items") readings (2,000 vehicles, 50 depots). Reads run first, on the loaded table; writes after. Each figure is the median-throughput run of $reps of ${seconds} s. Ratios: Dynarock over dynalite (throughput), dynalite over Dynarock (p99)."
  echo
  echo "| row | connections | Dynarock /s | p50 ms | p99 ms | p99.9 ms | dynalite /s | p50 ms | p99 ms | p99.9 ms | throughput ratio | p99 ratio |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for op in batch get put query gsi scan; do
    label=$(case $op in batch) echo "load, BatchWriteItem of 25 (items/s)";; get) echo GetItem;;
              put) echo PutItem;; query) echo "window Query, newest 20 of a vehicle";;
              gsi) echo "GSI Query, newest 20 of a depot";;
              scan) echo "Scan, 1/1,000 segments (items/s)";; esac)
    per=$(case $op in batch) echo 25;; scan) echo $(( items / 1000 ));; *) echo 1;; esac)
    for c in 1 4 32; do
      read -r d_rps d_p50 d_p99 d_p999 <<< "${result[$op,$c,d]}"
      read -r l_rps l_p50 l_p99 l_p999 <<< "${result[$op,$c,l]}"
      echo "| $label | $c | $(python3 -c "print(f'{$d_rps * $per:,.0f}')") | $(ms $d_p50) | $(ms $d_p99) | $(ms $d_p999) | $(python3 -c "print(f'{$l_rps * $per:,.0f}')") | $(ms $l_p50) | $(ms $l_p99) | $(ms $l_p999) | $(python3 -c "print(f'{$d_rps / $l_rps:.1f}x')") | $(python3 -c "print(f'{$l_p99 / $d_p99:.1f}x')") |"
    done
  done
  echo
  echo "- **bytes per item on disk** right after the load (logs included, nothing settled): Dynarock $d_bytes B, dynalite $l_bytes B."
  read -r s_rps s_p50 s_p99 s_p999 <<< "$sync_put"
  read -r r_rps _ <<< "${result[put,32,d]}"
  echo "- **sync durability**, PutItem at 32 connections: $(python3 -c "print(f'{$s_rps:,.0f}')")/s (p50 $(ms $s_p50) ms, p99 $(ms $s_p99) ms), against $(python3 -c "print(f'{$r_rps:,.0f}')")/s relaxed: **$(python3 -c "print(f'{$s_rps / $r_rps:.2f}')")x** of relaxed."
  echo "- **server CPU per GetItem** (4 connections): $server_cpu_us µs, against $embedded_us µs for the embedded GetItem on a table of the same size (fleet_bench): **$(python3 -c "print(f'{$server_cpu_us / $embedded_us:.1f}')")x**."
  read -r pd_rps _ _ pd_p999 <<< "$pinned_d"
  read -r pl_rps _ _ pl_p999 <<< "$pinned_l"
  echo "- **client on one core** (\`taskset -c 1 wrk\`, the server on both), GetItem at 4 connections: Dynarock $(python3 -c "print(f'{$pd_rps:,.0f}')")/s, dynalite $(python3 -c "print(f'{$pl_rps:,.0f}')")/s: **$(python3 -c "print(f'{$pd_rps / $pl_rps:.1f}')")x**."
} > "$section"
cat "$section"
python3 "$top/bench/replace_section.py" "$top/bench/RESULTS.md" "$title" "$section"
rm -f "$section"
