#!/usr/bin/env bash
# The crash soak: starts the writer (`dynarock_soak run`, see
# tools/crash_soak.cc), kills it with SIGKILL at a random moment, verifies the
# reopened database against the expected state, and repeats. Each cycle
# resumes the database the previous one left, so later kills land in
# flushes, compactions, GSI backfills and recounts that earlier cycles
# started. Stops at the first failed verify (exit 1).
#
#   tools/crash_soak.sh [--cycles N] [--bin DIR] [--dir DIR] [--seed S]
#                       [--threads T] [--max-ms MS] [--keep] [--server]
#
# --server: the writers drive `dynarock serve` over HTTP (DynamoDB's JSON
#   protocol) and the kill lands on the server; an answered write is an
#   acknowledged one.
# --bin: the build directory holding tools/dynarock_soak (default build);
# --dir: the soak directory (default: a new temporary one, removed at the end
#   unless --keep or a failure); --max-ms: the longest a writer runs before
#   its kill (default 1500). Each cycle draws sync or relaxed durability.
set -euo pipefail

cycles=20 bin=build dir="" seed=$RANDOM threads=4 max_ms=1500 keep=0 server=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cycles) cycles=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --max-ms) max_ms=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --server) server=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
driver="$bin/tools/dynarock_soak"
[[ -x "$driver" ]] || { echo "no $driver: build first" >&2; exit 2; }
if [[ -z "$dir" ]]; then dir=$(mktemp -d /tmp/dynarock-soak-XXXXXX); fi
mkdir -p "$dir"
RANDOM=$seed
mode=embedded; (( server )) && mode="dynarock serve"
echo "crash soak: $cycles cycles in $dir (seed $seed, $threads writer threads, $mode)"
if (( server )); then "$driver" prepare "$dir"; fi

# Starts `dynarock serve` on the soak database: sets server_pid and port.
start_server() {
  local durability=$1 log="$dir/serve.out"
  "$bin/tools/dynarock" serve --data-dir "$dir/db" --port 0 --durability "$durability" \
    >"$log" 2>"$dir/serve.err" &
  server_pid=$!
  for _ in $(seq 200); do
    if grep -q "serving DynamoDB on" "$log" 2>/dev/null; then
      port=$(sed -n 's|.*http://[^:]*:\([0-9]*\).*|\1|p' "$log" | head -1)
      return 0
    fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "the server did not start:" >&2
  cat "$dir/serve.err" >&2
  return 1
}

started=$(date +%s)
last=""
for ((cycle = 1; cycle <= cycles; cycle++)); do
  durability=(); (( RANDOM % 2 )) && durability=(--sync)
  ms=$(( RANDOM % max_ms + 20 ))
  nap() { sleep "$(printf '0.%03d' $((ms % 1000)))"; (( ms >= 1000 )) && sleep $((ms / 1000)); true; }
  if (( server )); then
    start_server "$([[ ${#durability[@]} -gt 0 ]] && echo sync || echo relaxed)" || exit 1
    "$driver" run "$dir" --seed "$((seed * 1000 + cycle))" --threads "$threads" \
      --endpoint "127.0.0.1:$port" >"$dir/run.out" 2>"$dir/run.err" &
    pid=$!
    nap
    kill -9 "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    # The writers see their connections drop and stop.
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "cycle $cycle: the writers did not stop after the server died" >&2
      kill -9 "$pid"
      exit 1
    fi
    if ! wait "$pid"; then
      echo "cycle $cycle: the writer failed:" >&2
      cat "$dir/run.err" >&2
      exit 1
    fi
  else
    "$driver" run "$dir" --seed "$((seed * 1000 + cycle))" --threads "$threads" \
      "${durability[@]}" >"$dir/run.out" 2>"$dir/run.err" &
    pid=$!
    # Kill at a random moment after it opened (sometimes during Open itself).
    nap
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "cycle $cycle: the writer exited by itself:" >&2
      cat "$dir/run.err" >&2
      exit 1
    fi
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
  fi
  if ! last=$("$driver" verify "$dir" 2>"$dir/verify.err"); then
    echo "cycle $cycle: $last" >&2
    cat "$dir/verify.err" >&2
    echo "the soak directory is kept: $dir" >&2
    exit 1
  fi
  if (( cycle % 50 == 0 || cycle == cycles )); then echo "cycle $cycle: $last"; fi
done
echo "crash soak passed: $cycles cycles in $(( $(date +%s) - started )) s"
if (( ! keep )); then rm -rf "$dir"; fi
