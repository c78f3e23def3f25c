#!/usr/bin/env bash
# ctest's package_deb: builds the Debian packages of a build directory
# (cpack -G DEB) and checks them as apt would see them, without touching
# the machine: the runtime dependencies declared, the files where Debian
# puts them, the maintainer script sound, and the packaged binary working
# from a throw-away root (dpkg -x). As root, `apt-get install --simulate`
# also resolves the dependencies against the machine's package lists.
#   deb.sh <build dir>
# DYNAROCK_DEB_INSTALL=1 (root only; changes the machine): a real
# `apt-get install ./dynarock_<v>_amd64.deb`, then the user, the data
# directory and a served request through the installed unit's command.
set -euo pipefail
build="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cpack --config "$build/CPackConfig.cmake" -B "$work" > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; exit 1; }
deb="$(ls "$work"/dynarock_*_amd64.deb)"
dev="$(ls "$work"/dynarock-dev_*_amd64.deb)"
fail() { echo "package_deb: $*" >&2; exit 1; }

depends="$(dpkg-deb -f "$deb" Depends)"
for lib in libc6 libstdc++6 libssl3 zlib1g; do
  [[ "$depends" == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
contents="$(dpkg-deb -c "$deb")"
for f in ./usr/bin/dynarock ./usr/lib/systemd/system/dynarock.service; do
  grep -q " $f\$" <<< "$contents" || fail "no $f in $(basename "$deb")"
done
! grep -q "/usr/include/" <<< "$contents" || fail "headers belong to dynarock-dev"
dev_contents="$(dpkg-deb -c "$dev")"
grep -q " ./usr/include/dynarock/db.h$" <<< "$dev_contents" || fail "dynarock-dev lacks db.h"
grep -q "/dynarockConfig.cmake$" <<< "$dev_contents" || fail "dynarock-dev lacks dynarockConfig.cmake"
dpkg-deb -e "$deb" "$work/control"
sh -n "$work/control/postinst" || fail "postinst does not parse"
# Installed, not enabled: nothing in the package links the unit into a target.
! grep -q "wants" <<< "$contents" || fail "the unit must not be enabled by the package"

root="$work/root"
dpkg -x "$deb" "$root"
version="$("$root/usr/bin/dynarock" --version)"
[[ "$version" =~ ^dynarock\ [0-9]+\.[0-9]+\.[0-9]+\ \(storage\ format\ [0-9]+,\ RocksDB\ [0-9.]+\)$ ]] ||
  fail "unexpected --version: $version"
exec_start="$(sed -n 's/^ExecStart=//p' "$root/usr/lib/systemd/system/dynarock.service")"
[[ "$exec_start" == "/usr/bin/dynarock serve --data-dir /var/lib/dynarock/db --port 8000" ]] ||
  fail "unexpected ExecStart: $exec_start"
# The packaged server answers (its unit's command, on a free port and a
# data directory of the test's).
"$root/usr/bin/dynarock" serve --data-dir "$work/db" --port 0 > "$work/serve.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q serving "$work/serve.out" && break; sleep 0.1; done
url="$(awk '/serving/ {print $5}' "$work/serve.out")"
[ -n "$url" ] || { kill "$pid"; fail "the packaged server did not start: $(cat "$work/serve.out")"; }
answer="$(python3 -c 'import sys, urllib.request
r = urllib.request.Request(sys.argv[1], data=b"{}", headers={
    "X-Amz-Target": "DynamoDB_20120810.ListTables",
    "Content-Type": "application/x-amz-json-1.0"})
print(urllib.request.urlopen(r, timeout=10).read().decode())' "$url/")"
kill -TERM "$pid"
wait "$pid" || fail "the packaged server did not stop cleanly"
[[ "$answer" == '{"TableNames":[]}' ]] || fail "ListTables answered $answer"

if [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null; then
  apt-get install --simulate -qq "$deb" > "$work/apt.log" 2>&1 ||
    { cat "$work/apt.log"; fail "apt-get cannot resolve $(basename "$deb")'s dependencies"; }
fi
if [ "${DYNAROCK_DEB_INSTALL:-0}" = 1 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb"
  getent passwd dynarock > /dev/null || fail "no dynarock user after install"
  [ "$(stat -c %U /var/lib/dynarock)" = dynarock ] || fail "/var/lib/dynarock not dynarock's"
  ! systemctl is-enabled dynarock > /dev/null 2>&1 || fail "the unit was enabled"
  dynarock --version
fi
echo "package_deb: $(basename "$deb") ($(du -h "$deb" | cut -f1)): Depends: $depends"
