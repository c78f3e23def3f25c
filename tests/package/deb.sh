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
# DYNAROCK_DEB_INSTALL=fresh (root, network, the debootstrap package): the
# same in a fresh Debian 12 root made by `debootstrap --variant=minbase
# bookworm`, apt resolving the Depends from deb.debian.org; then the
# installed unit's ExecStart, run as the dynarock user, serves CreateTable
# and ListTables.
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
elif [ "${DYNAROCK_DEB_INSTALL:-0}" = fresh ]; then
  fresh="$work/fresh"
  debootstrap --variant=minbase bookworm "$fresh" http://deb.debian.org/debian > "$work/boot.log" 2>&1 ||
    { tail "$work/boot.log"; fail "debootstrap failed"; }
  cp "$deb" "$fresh/tmp/" && cp /etc/resolv.conf "$fresh/etc/resolv.conf"
  mount -t proc proc "$fresh/proc"
  trap 'umount "$work/fresh/proc" 2> /dev/null; rm -rf "$work"' EXIT
  chroot "$fresh" bash -euo pipefail -c '
    fail() { echo "package_deb (fresh root): $*" >&2; exit 1; }
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/dynarock_*_amd64.deb > /tmp/install.log
    dynarock --version
    getent passwd dynarock > /dev/null || fail "no dynarock user"
    [ "$(stat -c %U /var/lib/dynarock)" = dynarock ] || fail "/var/lib/dynarock not dynarock'"'"'s"
    [ ! -e /etc/systemd/system/multi-user.target.wants/dynarock.service ] || fail "unit enabled"
    cmd=$(sed -n "s/^ExecStart=//p" /usr/lib/systemd/system/dynarock.service)
    setpriv --reuid=dynarock --regid=dynarock --init-groups ${cmd/8000/8123} > /tmp/serve.log 2>&1 &
    for _ in $(seq 50); do (exec 3<> /dev/tcp/127.0.0.1/8123) 2> /dev/null && break; sleep 0.2; done
    call() {
      exec 3<> /dev/tcp/127.0.0.1/8123
      printf "POST / HTTP/1.1\r\nHost: 127.0.0.1:8123\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.%s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" "$1" "${#2}" "$2" >&3
      tail -n 1 <&3
      exec 3<&-
    }
    call CreateTable "{\"TableName\":\"Fleet\",\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}],\"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}" > /dev/null
    answer=$(call ListTables "{}")
    kill %1; wait || true
    [ "$answer" = "{\"TableNames\":[\"Fleet\"]}" ] || fail "ListTables answered $answer"
    echo "fresh Debian 12 root: installed, served: $answer"'
fi
echo "package_deb: $(basename "$deb") ($(du -h "$deb" | cut -f1)): Depends: $depends"
