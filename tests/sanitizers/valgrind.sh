#!/usr/bin/env bash
# Runs Check test programs under valgrind memcheck in one process each
# (CK_FORK=no, so valgrind sees every test), by default the event and
# stream tests.  Fails on any memcheck error: invalid reads or writes, uses
# of uninitialized values, bad frees, and memory definitely lost.
#
# Usage: tests/sanitizers/valgrind.sh [BUILD_DIR [TEST...]]
#   BUILD_DIR  a normal (not sanitizer) build; configured and built here if
#              it has no tests/ yet (default: build-valgrind at the root)
#   TEST       test programs in BUILD_DIR/tests (default: test_event
#              test_stream)
#
# Suppressions (tests/sanitizers/valgrind.supp) cover only frames inside
# PoCL, LLVM or the ICD loader.  "Possibly lost" blocks are listed by
# --show-leak-kinds=all runs but are not errors here: they are interior
# pointers into LLVM's metadata and the TLS of threads still alive at exit
# (PoCL's device threads and clstream's host-function workers, which live
# as long as the process), not leaks.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build-valgrind}
shift || true
tests=("$@")
((${#tests[@]})) || tests=(test_event test_stream)

command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind not found" >&2; exit 1; }
if [[ ! -d $build/tests ]]; then
  cmake -S "$root" -B "$build" -DCLSTREAM_BUILD_BENCH=OFF
fi
cmake --build "$build" -j2 --target "${tests[@]}"

# Only PoCL's OpenCL driver is loaded (ci/icd.sh says why: another
# vendor's library, such as Mesa's clover, may leak at load).
# shellcheck source=ci/icd.sh
source "$root/ci/icd.sh"
if cls_icd_dir pocl "$build/icd-pocl"; then
  export OCL_ICD_VENDORS=$build/icd-pocl
fi

# Two devices (PoCL's CPU split in two) for the cross-device tests: in one
# process the library initializes once, so set it for every test.
export CLSTREAM_SPLIT_DEVICES=2

status=0
for t in "${tests[@]}"; do
  log=$build/tests/$t.valgrind.log
  echo "== valgrind $t (log: $log)"
  rc=0
  CK_FORK=no valgrind --tool=memcheck --error-exitcode=42 \
    --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite \
    --suppressions="$root/tests/sanitizers/valgrind.supp" \
    --num-callers=40 --log-file="$log" \
    "$build/tests/$t" || rc=$?
  grep -E 'ERROR SUMMARY|definitely lost:' "$log" | sed 's/^==[0-9]*== /   /'
  if ((rc != 0)); then
    echo "== $t: FAILED (exit $rc; 42 = memcheck errors, see $log)"
    status=1
  else
    echo "== $t: passed"
  fi
done
exit "$status"
