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
cd ..

# The whole suite again under AddressSanitizer and UndefinedBehaviorSanitizer
# (its own build in build-asan-ci/; suppressions in tests/sanitizers/).
echo "== ASan + UBSan suite"
bash ci/sanitize.sh || status=$?

# The CUDA build (no GPU here: it is configured and built, tests included,
# and nothing is run).
if command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "== CUDA build (configure and build only)"
  cuda_root=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
  if cmake -S . -B build-ci-cuda -DCLSTREAM_BACKEND=CUDA -DCLSTREAM_WERROR=ON \
      -DCUDAToolkit_ROOT="$cuda_root" &&
    cmake --build build-ci-cuda -j"$(nproc)"; then
    echo "CUDA build: ok"
  else
    echo "CUDA build: FAILED"
    status=1
  fi
else
  echo "== CUDA build skipped: no CUDA toolkit (nvcc) on this machine"
fi

# CTest's summary again, last, where a reader of the log looks first.
echo "== CTest summary (OpenCL build, all tests)"
grep -E 'tests passed|tests failed' build-ci/ctest.log | tail -n 1 || true
exit "$status"
