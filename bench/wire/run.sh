#!/usr/bin/env bash
# Wire benchmark: the same PutItem and Query requests, driven by wrk (keep-alive,
# 8 connections, Lua scripts that vary the key per request), against
# `dynarock serve --data-dir` and dynalite@4 (`--path`, on disk), one after the
# other on this machine: PutItem, GetItem, Query and BatchWriteItem. Prints a
# Markdown table of throughput and p50/p99 latency (medians of 3 runs).
#
#   bench/wire/run.sh [SECONDS]      default 15 per operation and server
#
# Installs wrk, nodejs and npm from Debian and dynalite@4 from the npm registry
# into build/wire-bench (not part of tools/setup.sh: CI does not need them).
set -euo pipefail
top="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-15}"
"$top/tools/setup.sh"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# Commands, not packages: a machine may already have Node.js and npm from elsewhere.
for c in wrk:wrk node:nodejs npm:npm curl:curl; do
  command -v "${c%%:*}" > /dev/null || $sudo apt-get install -y -qq "${c#*:}" > /dev/null
done
work="$top/build/wire-bench"
mkdir -p "$work"
[ -d "$work/node_modules/dynalite" ] || (cd "$work" && npm install --silent dynalite@4 > /dev/null)

rm -rf "$work/dynarock-data" "$work/dynalite-data"
mkdir -p "$work/dynarock-data" "$work/dynalite-data"
# relaxed durability (the log written, not fsynced), as dynalite's LevelDB
# writes: the same guarantee on both sides.
"$top/build/tools/dynarock" serve --port 8100 --data-dir "$work/dynarock-data" --durability relaxed \
  > "$work/dynarock.log" 2>&1 &
dynarock_pid=$!
node "$work/node_modules/dynalite/cli.js" --port 8101 --path "$work/dynalite-data" --createTableMs 0 \
  > "$work/dynalite.log" 2>&1 &
dynalite_pid=$!
trap 'kill $dynarock_pid $dynalite_pid 2>/dev/null || true' EXIT
sleep 2

auth='AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00'
for port in 8100 8101; do
  curl -sf -X POST "http://127.0.0.1:$port/" -H 'Content-Type: application/x-amz-json-1.0' \
    -H 'X-Amz-Target: DynamoDB_20120810.CreateTable' -H "Authorization: $auth" \
    -H 'X-Amz-Date: 20261130T000000Z' \
    -d '{"TableName":"Telemetry","KeySchema":[{"AttributeName":"vehicleId","KeyType":"HASH"},{"AttributeName":"recordedAt","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"vehicleId","AttributeType":"S"},{"AttributeName":"recordedAt","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}' \
    > /dev/null
done

# The 10,000 readings get.lua reads (keys TS#000000001..10000), 25 per request.
python3 - <<'PY'
import json, urllib.request
for port in (8100, 8101):
    for first in range(1, 10001, 25):
        puts = [{"PutRequest": {"Item": {"vehicleId": {"S": f"VEH#V-{n % 2000:04d}"},
                                         "recordedAt": {"S": f"TS#{n:09d}"},
                                         "speedKph": {"N": str(n % 130)}, "coolantC": {"N": "91"},
                                         "fuelPct": {"N": "55"}, "depotCode": {"S": f"DEP-{n % 50:02d}"}}}}
                for n in range(first, first + 25)]
        body = json.dumps({"RequestItems": {"Telemetry": puts}}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{port}/", data=body, headers={
            "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.BatchWriteItem",
            "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request, "
                             "SignedHeaders=host;x-amz-date, Signature=00", "X-Amz-Date": "20261130T000000Z"})
        out = json.load(urllib.request.urlopen(req))
        assert not out.get("UnprocessedItems"), out
PY

# Each (operation, server) runs 3 times; the run with the median throughput
# is reported. Query reads what the puts wrote.
median_run() {  # op port -> "rps p50 p99" of the median run
  for rep in 1 2 3; do
    out="$(wrk -t1 -c8 -d"${seconds}s" --latency -s "$top/bench/wire/$1.lua" "http://127.0.0.1:$2/")"
    if grep -qE "Non-2xx|GetItem miss" <<< "$out"; then echo "port $2 $1: error responses" >&2; exit 1; fi
    echo "$(awk '/Requests\/sec/ {print $2}' <<< "$out") $(awk '$1 == "50%" {print $2}' <<< "$out") $(awk '$1 == "99%" {print $2}' <<< "$out")"
  done | sort -n | sed -n 2p
}
echo "| operation | Dynarock requests/s | p50 | p99 | dynalite requests/s | p50 | p99 | Dynarock / dynalite |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for op in put get query batch; do
  read -r d_rps d_p50 d_p99 <<< "$(median_run $op 8100)"
  read -r l_rps l_p50 l_p99 <<< "$(median_run $op 8101)"
  label=$(case $op in put) echo PutItem;; get) echo GetItem;; query) echo "Query, newest 20 of a vehicle";;
                      batch) echo "BatchWriteItem, 25 puts";; esac)
  echo "| $label | $d_rps | $d_p50 | $d_p99 | $l_rps | $l_p50 | $l_p99 | $(python3 -c "print(f'{${d_rps:-0} / ${l_rps:-1}:.1f}x')") |"
done
