#!/usr/bin/env bash
# Runs the fleet benchmark (3 repetitions, medians) at a chosen scale and
# writes bench/RESULTS.md with absolute figures and Dynarock/baseline ratios.
#
#   bench/run.sh [VEHICLES] [READINGS]      default 2000 500 (1M items)
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
vehicles="${1:-2000}"
readings="${2:-500}"
"$top/tools/setup.sh"
out="$(mktemp)"
DYNAROCK_BENCH_VEHICLES="$vehicles" DYNAROCK_BENCH_READINGS="$readings" \
  "$top/build/bench/fleet_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.5 --benchmark_format=json --benchmark_out="$out" --benchmark_out_format=json \
  > /dev/null
python3 "$top/bench/results.py" "$out" "$vehicles" "$readings" > "$top/bench/RESULTS.md"
rm -f "$out"
cat "$top/bench/RESULTS.md"
