#!/usr/bin/env bash
# ctest's package_find_package: installs the build into a temporary prefix,
# builds tests/package against it with find_package(dynarock) and runs it,
# then compiles the same program with pkg-config's flags and runs that.
#   run.sh <build dir> <c++ compiler> <extra compile and link flags>
set -euo pipefail
build="$1" cxx="$2" flags="${3:-}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
"$work/build/fleet_embed" "$work/db-cmake"
pc="$(find "$work/prefix" -name dynarock.pc)"
export PKG_CONFIG_PATH="$(dirname "$pc")"
# shellcheck disable=SC2046,SC2086
"$cxx" $flags "$here/main.cc" -o "$work/fleet_embed_pc" $(pkg-config --cflags --libs dynarock)
"$work/fleet_embed_pc" "$work/db-pkgconfig"
