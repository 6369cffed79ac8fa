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
#
# Runs that fail by chance (docs/testing.md): a test that exits
# because the sanitizer runtime itself failed (it could not map memory, or
# found the address space laid out where its shadow must go) is no
# finding, and the summary at the end lists those lines apart from the
# findings.  Nothing is retried: the one such failure seen (TSan's
# dynamic-TLS hook, exit 66 with "failed to allocate ... (errno: 12)") is
# removed at its cause, in cmake/ClsSanitize.cmake.
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

# TSan's runtime wants the top of the address space for the program's
# libraries and stacks; kernels that randomise mmap with more than 28 bits
# (vm.mmap_rnd_bits, 32 on some distributions) put them where TSan's
# shadow goes, and every test dies with "FATAL: ThreadSanitizer: unexpected
# memory mapping".  There the tests run without address randomisation
# (setarch -R, as LLVM's documentation suggests); the layout changes, the
# checks do not.
run=()
rnd_bits=$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)
if [[ $sanitize == thread ]] && ((rnd_bits > 28)); then
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    run=(setarch "$(uname -m)" -R)
    echo "== vm.mmap_rnd_bits is $rnd_bits: running the TSan tests under setarch -R"
  else
    echo "ci/sanitize.sh: vm.mmap_rnd_bits is $rnd_bits and setarch -R is refused; TSan may fail to start" >&2
  fi
fi

status=0
"${run[@]}" ctest --output-on-failure -j"$jobs" 2>&1 | tee ctest.log || status=$?
log=Testing/Temporary/LastTest.log
echo
echo "== Sanitizer findings ($sanitize)"
grep -E '^(SUMMARY: [A-Za-z]+Sanitizer|[^ ]*: runtime error:)' "$log" |
  sort | uniq -c || echo "   none"
# The runtime's own failures, which are not findings: a test that ended on
# one of these failed because the sanitizer could not run it (see
# docs/testing.md), and the test names say where.
echo "== Sanitizer runtime failures (not findings)"
runtime_re='[A-Za-z]+Sanitizer (failed to (allocate|deallocate|unmap))|ThreadSanitizer: unexpected memory mapping|Sanitizer can not mmap|Sanitizer: CHECK failed|Tracer caught signal'
if grep -qE "$runtime_re" "$log"; then
  awk -v re="$runtime_re" '/^[0-9]+\/[0-9]+ Test: / { t = $3 } $0 ~ re { print "   " t ": " $0 }' "$log" | sort | uniq -c
else
  echo "   none"
fi
exit "$status"
