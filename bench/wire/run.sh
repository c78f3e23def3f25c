#!/usr/bin/env bash
# Wire benchmark: the same PutItem and Query requests, driven by wrk (keep-alive,
# 8 connections, Lua scripts that vary the key per request), against
# `dynarock serve --data-dir` and dynalite@4 (`--path`, on disk), one after the
# other on this machine. Prints throughput and p50/p99 latency.
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
"$top/build/tools/dynarock" serve --port 8100 --data-dir "$work/dynarock-data" > "$work/dynarock.log" 2>&1 &
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

echo "| operation | server | requests/s | p50 | p99 |"
echo "|---|---|---:|---:|---:|"
for op in put query; do
  for port in 8100 8101; do
    name=$([ $port = 8100 ] && echo dynarock || echo dynalite)
    out="$(wrk -t1 -c8 -d"${seconds}s" --latency -s "$top/bench/wire/$op.lua" "http://127.0.0.1:$port/")"
    if grep -q "Non-2xx" <<< "$out"; then echo "$name $op: error responses" >&2; exit 1; fi
    rps=$(awk '/Requests\/sec/ {print $2}' <<< "$out")
    p50=$(awk '$1 == "50%" {print $2}' <<< "$out")
    p99=$(awk '$1 == "99%" {print $2}' <<< "$out")
    echo "| $op | $name | $rps | $p50 | $p99 |"
  done
done
