#!/usr/bin/env bash
# Builds clstream with sanitizers and -Werror and runs every test under
# them (issue 3).  Installs what is missing first (Debian packages, as
# root; see ci/setup.sh).
#
# Usage, from anywhere:
#   bash ci/sanitize.sh            ASan + UBSan (and LSan) in build-asan-ci/
#   bash ci/sanitize.sh thread     TSan in build-tsan-ci/
#
# The runtime options and suppressions (tests/sanitizers/) come from
# cmake/ClsSanitize.cmake through ctest.  The install test is disabled in
# sanitizer builds (it links a plain consumer); the bench is not built.
# On 2 cores: about 3 minutes to build either kind; ASan + UBSan 3-4 to
# test, TSan about 9 (the fault matrix most of it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=ci/setup.sh
source ci/setup.sh

sanitize=${1:-address;undefined}
case $sanitize in
  thread) dir=build-tsan-ci ;;
  "address;undefined" | address | undefined) dir=build-asan-ci ;;
  *) echo "ci/sanitize.sh: use 'address;undefined' or 'thread', not '$sanitize'" >&2; exit 2 ;;
esac
jobs=$(nproc)

cmake -S . -B "$dir" -DCLSTREAM_SANITIZE="$sanitize" -DCLSTREAM_WERROR=ON \
  -DCLSTREAM_BUILD_BENCH=OFF
cmake --build "$dir" -j"$jobs"
cd "$dir"

# Only PoCL's driver is loaded (ci/icd.sh says why).
# shellcheck source=ci/icd.sh
source ../ci/icd.sh
if cls_icd_dir pocl "$PWD/icd-pocl"; then
  export OCL_ICD_VENDORS=$PWD/icd-pocl
  echo "== OpenCL drivers loaded: $(cat icd-pocl/*.icd)"
else
  echo "ci/sanitize.sh: PoCL's ICD library not found; using the system's drivers" >&2
fi

status=0
ctest --output-on-failure -j"$jobs" 2>&1 | tee ctest.log || status=$?
echo
echo "== Sanitizer findings ($sanitize)"
grep -E '^(SUMMARY: [A-Za-z]+Sanitizer|[^ ]*: runtime error:)' \
  Testing/Temporary/LastTest.log | sort | uniq -c || echo "   none"
exit "$status"
