#!/usr/bin/env bash
# The copy rate of `dynarock replicate` into a loopback `dynarock serve`,
# against the rate the same server takes BatchWriteItem at from wrk (25
# readings a request, as many connections as replicate has threads): how
# much of the target's own write rate the copy reaches. Both into a fresh
# table of the source's definition (the fleet demo's Telemetry: the BySpeed
# LSI and the ByDepot GSI), the target in relaxed durability. Then the same
# copy from a served source (URL) instead of the database directory. Writes
# "## Replicate" into bench/RESULTS.md.
#
#   bench/run_replicate.sh [VEHICLES] [READINGS]
#                                   default 1000 x 200 readings (201,000 items); wrk runs
#                                   as long as the copy from the directory took
# Needs wrk (installed from Debian if missing).
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
vehicles="${1:-1000}"
readings="${2:-200}"
threads=4
"$top/tools/setup.sh"
command -v wrk > /dev/null || apt-get install -y -qq wrk > /dev/null
bin="$top/build/tools"
work="$top/build/replicate-bench"
rm -rf "$work" && mkdir -p "$work"
pids=()
trap 'kill "${pids[@]}" 2> /dev/null || true' EXIT

serve() {  # name port [flags]: a server of its own; waits until it answers
  local name="$1" port="$2"
  shift 2
  "$bin/dynarock" serve --port "$port" "$@" > "$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q serving "$work/$name.log" && return; sleep 0.1; done
  cat "$work/$name.log" && exit 1
}

"$bin/fleet_demo" --db "$work/source.db" --vehicles "$vehicles" --readings "$readings" > /dev/null
items=$((vehicles * (readings + 1)))
"$bin/dynarock" dump "$work/source.db" Telemetry "$work/dump" > /dev/null
cp -r "$work/source.db" "$work/source-copy.db"
definition="$(ls "$work"/dump/AWSDynamoDB/*/table-definition.json)"

# One round: a fresh target, the copy from the directory, then from a
# served source, then wrk's BatchWriteItem into a fresh table of the same
# definition for as long as the first copy took (the same flushing and
# compaction). Appends "dir_seconds url_seconds wrk_items_per_second" to
# $work/rounds (not a subshell: the servers it starts are in `pids`, and
# stopped when it ends).
serve source 8213 --data-dir "$work/source.db" --durability relaxed
round() {  # n
  local port=$((8220 + $1 * 2))
  serve "target$1" "$port" --data-dir "$work/target$1.db" --durability relaxed
  copy() {  # from to_table -> seconds of the copy
    "$bin/dynarock" replicate --from "$1" --table Telemetry --to "http://127.0.0.1:$port" \
      --to-table "$2" --threads "$threads" --until-caught-up --state "$work/$2.json" |
      sed -n 's/^copied [0-9]* items in \([0-9.]*\) s.*/\1/p'
  }
  # The source is served: replicate --from DIR reads a copy of its files.
  cp -r "$work/source-copy.db" "$work/dir$1.db"
  local dir_s url_s
  dir_s="$(copy "$work/dir$1.db" "FromDirectory$1")"
  url_s="$(copy http://127.0.0.1:8213 "FromServer$1")"
  serve "wrk$1" $((port + 1)) --data-dir "$work/wrk$1.db" --durability relaxed
  python3 - "$definition" $((port + 1)) << 'EOF'
import json, sys, urllib.request
d = json.load(open(sys.argv[1]))
d.pop("TimeToLiveSpecification", None)
req = urllib.request.Request("http://127.0.0.1:%s/" % sys.argv[2], json.dumps(d).encode(),
                             headers={"Content-Type": "application/x-amz-json-1.0",
                                      "X-Amz-Target": "DynamoDB_20120810.CreateTable"})
urllib.request.urlopen(req).read()
EOF
  local out
  out="$(wrk -t2 -c"$threads" -d"$(python3 -c "import math; print(max(3, math.ceil($dir_s)))")s" \
           -s "$top/bench/wire/batch_sorted.lua" "http://127.0.0.1:$((port + 1))/")"
  [ "$(awk '/^STATS/ {print $6}' <<< "$out")" = 0 ] ||
    { echo "run_replicate.sh: wrk saw errors: $out" >&2; exit 1; }
  echo "$dir_s $url_s $(awk '/^STATS/ {print $2 * 25}' <<< "$out")" >> "$work/rounds"
}
for n in 1 2 3; do round "$n"; done
mapfile -t rounds < "$work/rounds"
verify="$("$bin/dynarock" replicate --from http://127.0.0.1:8213 --table Telemetry \
            --to http://127.0.0.1:8222 --to-table FromServer1 --state "$work/FromServer1.json" \
            --verify | tail -1)"
bytes="$(du -sb "$work/target1.db" | cut -f1)"
read -r dir_s url_s batch_items <<< "$(python3 -c "
import statistics, sys
rows = [list(map(float, r.split())) for r in sys.argv[1:]]
print(*(statistics.median(c) for c in zip(*rows)))" "${rounds[@]}")"

section="$work/section.md"
python3 - "$items" "$dir_s" "$url_s" "$batch_items" "$bytes" "$verify" "$threads" \
  > "$section" << 'EOF'
import sys
items, dir_s, url_s, batch, size, verify, threads = sys.argv[1:]
items, dir_s, url_s, batch, size = int(items), float(dir_s), float(url_s), float(batch), int(size)
d, u = items / dir_s, items / url_s
print("## Replicate\n")
print(f"bench/run_replicate.sh: `dynarock replicate` copying the fleet demo's Telemetry ({items:,} "
      f"readings, the BySpeed LSI and the ByDepot GSI) into a loopback `dynarock serve "
      f"--durability relaxed`, {threads} threads, against wrk's BatchWriteItem (25 readings of one vehicle a "
      f"request, {threads} connections, as long as the copy took) into an empty table of the "
      f"same definition on the same kind of server; each figure the median of three rounds, "
      f"each on fresh servers. Client and servers share the machine's cores.\n")
print("| | items/s | of BatchWriteItem's rate |")
print("|---|---:|---:|")
print(f"| BatchWriteItem from wrk (the target's own rate) | {batch:,.0f} | 1.00 |")
print(f"| replicate copy, source a database directory | {d:,.0f} | {d / batch:.2f} |")
print(f"| replicate copy, source a served URL | {u:,.0f} | {u / batch:.2f} |")
print(f"\nA target on disk after a round's two copies (two tables, with their index entries, "
      f"logs included): {size / (2 * items):,.0f} B per item. `--verify` after the served copy: "
      f"\"{verify}\".")
EOF
cat "$section"
python3 "$top/bench/replace_section.py" "$top/bench/RESULTS.md" "## Replicate" "$section"
