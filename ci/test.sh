#!/usr/bin/env bash
# Installs what is missing (Debian packages, as root), builds clstream in
# build-ci/ with -Werror and runs every test: the Check programs and the
# examples.  Usage, from anywhere: bash ci/test.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=ci/setup.sh
source ci/setup.sh

cmake -S . -B build-ci -DCLSTREAM_WERROR=ON
cmake --build build-ci -j"$(nproc)"
cd build-ci

# Run everything; keep going to print the summaries, then fail if ctest did.
status=0
ctest --output-on-failure -V 2>&1 | tee ctest.log || status=$?

# ctest -V prefixes each line of a test's output with the test's number;
# name each Check summary line after its test program.
echo
echo "== Check summaries"
awk '/^[0-9]+: Test command: / { name[$1] = $NF; sub(".*/", "", name[$1]) }
     /^[0-9]+: [0-9]+%: Checks: / { n = $1; $1 = ""; print name[n] ":" $0 }' \
  ctest.log
echo "== CTest summary"
grep -E 'tests passed|tests failed|^The following tests FAILED|^[[:space:]]+[0-9]+ - ' \
  ctest.log || true
exit "$status"
