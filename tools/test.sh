#!/usr/bin/env bash
# The README's test command: installs what is missing, builds the sanitizer
# (ASan+UBSan) configuration with clang, and runs every test with ctest;
# then builds the concurrency tests with ThreadSanitizer (build-tsan/) and
# runs them.
#
#   tools/test.sh                      the whole suite (fuzz targets run 5 s each)
#   tools/test.sh --fuzz-seconds 600   the same with longer fuzzing
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
fuzz_seconds=5
while (($#)); do
  case "$1" in
    --fuzz-seconds) fuzz_seconds="$2"; shift 2 ;;
    *) echo "usage: tools/test.sh [--fuzz-seconds N]" >&2; exit 2 ;;
  esac
done
# The ten slowest tests of the last ctest run in the build directory $1.
slowest() {
  echo "test.sh: the ten slowest tests in $(basename "$1") (seconds)"
  awk '/^[0-9]+\/[0-9]+ Testing: /{name=$3} /^Test time =/{print "  " $4, name}' \
    "$1/Testing/Temporary/LastTest.log" | sort -rn | head -10
}
# Each phase's time, so a slow CI run says where its minutes went.
phase_start=$SECONDS
phase() {
  echo "test.sh: $1 took $((SECONDS - phase_start)) s (total $SECONDS s)"
  phase_start=$SECONDS
}
"$top/tools/setup.sh" --test "-DDYNAROCK_FUZZ_SECONDS=$fuzz_seconds"
phase "install and sanitizer build"
cd "$top/build-test"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$top/tests/ubsan.supp"
ctest --output-on-failure -j2 --timeout "$((fuzz_seconds * 4 + 600))"
phase "tests"

# ThreadSanitizer: the tests where threads meet, in a build of their own
# (TSan excludes ASan, and the whole suite under it would not fit CI's time).
cmake -S "$top" -B "$top/build-tsan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDYNAROCK_TSAN=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$top/build-tsan" -j2 --target tsan_test tsan_vector_test
phase "ThreadSanitizer build"
cd "$top/build-tsan"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$top/tests/tsan.supp"
ctest --output-on-failure -j2 -L tsan --timeout 600
phase "ThreadSanitizer tests"
slowest "$top/build-test"
slowest "$top/build-tsan"
