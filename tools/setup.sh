#!/usr/bin/env bash
# Installs every Debian package Dynarock needs (idempotent: only what is missing,
# `apt-get update` at most once), then configures and builds.
#
#   tools/setup.sh            install + Release build in build/
#   tools/setup.sh --test [-DVAR=VALUE...]
#                             install + clang sanitizer (ASan+UBSan) build in build-test/
#   tools/setup.sh --no-build install only
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-dev            # libFuzzer targets
  librocksdb-dev
  libflatbuffers-dev flatbuffers-compiler
  libxxhash-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libcli11-dev rapidjson-dev libboost-dev libfmt-dev
  libsimdjson-dev                  # request parsing: checked accessors (tools/server)
  libhnswlib-dev                   # vector indexes: HNSW graphs over large collections
  zlib1g-dev libssl-dev
  libzstd-dev libcsv-dev            # dump/restore: ZSTD and CSV import inputs
  libsqlite3-dev                   # bench/ baseline
  time                             # bench/run.sh: peak memory of the load
  python3 python3-boto3 python3-pytest awscli   # wire tests with real clients
  python3-botocore                 # DynamoDB's service model: tools/codegen/gen_protocol.py
  openssl ca-certificates          # replicate's HTTPS: the CA store, and a test certificate
)
# Wire tests with the AWS SDK for JavaScript (tests/wire/js): Node.js and
# npm, unless the machine has them from elsewhere.
command -v node > /dev/null || packages+=(nodejs)
command -v npm > /dev/null || packages+=(npm)
mode="${1:-}"
# The web console's browser test (tests/wire/js/console.test.mjs) runs in
# Debian's Chromium: the test build only.
[ "$mode" = --test ] && packages+=(chromium)
# llvm-symbolizer: sanitizer reports name their frames, and the TSan
# suppressions (tests/tsan.supp) match on those names; without it a
# minimal Debian 12 (which clang alone does not give it) reports
# RocksDB's internal hand-offs as races.
[ "$mode" = --test ] && packages+=(llvm)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "setup: Debian packages ready after $SECONDS s"

top="$(cd "$(dirname "$0")/.." && pwd)"
case "$mode" in
  --no-build) exit 0 ;;
  # The test build uses clang: libFuzzer needs it, and a second compiler's
  # warnings (with -Werror) catch what gcc's miss.
  --test) dir="$top/build-test"
          cfg=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DDYNAROCK_SANITIZE=ON
               -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${@:2}") ;;
  *) dir="$top/build"; cfg=(-DCMAKE_BUILD_TYPE=Release) ;;
esac
if [ "$mode" = --test ]; then
  # The JS tests run on the machine's Node.js: Debian 12's is 18.20, and
  # tests/wire/js pins only releases whose engines accept it
  # (tests/wire/js/engines.mjs checks again before the tests run).
  echo "setup: Node.js $(node --version) at $(command -v node), npm $(npm --version)"
  js="$top/tests/wire/js"
  # The exact versions of the lockfile, installed again whenever it changed;
  # --engine-strict refuses a package whose engines exclude this Node.js.
  if ! cmp -s "$js/package-lock.json" "$js/node_modules/.dynarock-lock"; then
    (cd "$js" && npm ci --engine-strict --no-audit --no-fund --loglevel=error &&
       cp package-lock.json node_modules/.dynarock-lock)
  fi
  # dynalite, a target of the replicate tests: its own lockfile, installed
  # without --engine-strict (dynalite 4 declares Node.js >= 20, and runs on
  # 18: tests/wire/dynalite/package.json).
  dl="$top/tests/wire/dynalite"
  if ! cmp -s "$dl/package-lock.json" "$dl/node_modules/.dynarock-lock"; then
    (cd "$dl" && npm ci --no-audit --no-fund --loglevel=error &&
       cp package-lock.json node_modules/.dynarock-lock)
  fi
  echo "setup: JS packages ready after $SECONDS s"
fi
cmake -S "$top" -B "$dir" -G Ninja "${cfg[@]}"
cmake --build "$dir" -j2
