#!/usr/bin/env bash
# Installs what is missing (Debian packages, as root), builds clstream in
# build-ci/ with -Werror and runs every test: the Check programs and the
# examples, on four OpenCL set-ups, each loading only its own driver
# (OCL_ICD_VENDORS, ci/icd.sh):
#
#   pocl-svm      PoCL's CPU device, device memory in coarse-grained SVM:
#                 everything (unit, examples, model, fault, install)
#   pocl-buffers  the same device with CLSTREAM_MEMORY=buffers: unit tests,
#                 examples, CUDA-name tests, tools, the model
#   rusticl       Mesa's rusticl on llvmpipe (RUSTICL_ENABLE=llvmpipe;
#                 OpenCL 3.0 without SVM): the same labels
#   pocl+rusticl  both platforms loaded together, each in turn the default
#                 device: the host-memory programs (test_hostdevs,
#                 test_hostkern, test_hostmem, zero_copy), whose memory
#                 reaches kernels of the other platform's device too.  About
#                 40 s on 2 cores
#   oclgrind      the Oclgrind simulator (OpenCL 1.2) with its API checks
#                 (OCLGRIND_CHECK_API=1) and memory checks: the tests
#                 labelled "simulator" (every test program with cases that
#                 need neither asynchronous host functions nor concurrent
#                 threads, those cases left out by their Check tags,
#                 CK_EXCLUDE_TAGS="gate threads": there host functions run
#                 on the calling thread and the runtime is not thread-safe,
#                 docs/drivers.md); PoCL is loaded too, so the run also
#                 shows that the simulator is not the default.  About 1
#                 to 2 minutes
#
# Each OpenCL run but Oclgrind's includes the Python package's tests
# (CTest label python: pytest on python/tests/ and examples/python/, on
# Debian's interpreter against the build's library; a few seconds each).
# After the OpenCL runs, `pip install ./python` into a fresh virtual
# environment and the first Python example from that install (about a
# minute; scikit-build-core comes from PyPI).
#
# then the ASan + UBSan and the TSan suites (ci/sanitize.sh, PoCL only),
# the CUDA build (configure and build, where nvcc exists) and the style
# check (ci/format.sh, report only).  Each OpenCL run prints its device
# and its CTest summary; the status is non-zero if any part failed.  On 2
# cores: about 15 minutes without the sanitizer suites, and about 35 with
# them (longer on a machine shared with other work).  A run whose driver
# is not installed is reported as skipped.  Usage, from anywhere:
# bash ci/test.sh (CLS_SKIP_SANITIZE=1 leaves out the sanitizer suites,
# for a quicker local run; CI never sets it.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=ci/setup.sh
source ci/setup.sh
# shellcheck source=ci/icd.sh
source ci/icd.sh

cmake -S . -B build-ci -DCLSTREAM_WERROR=ON
cmake --build build-ci -j"$(nproc)"
cd build-ci
root=$PWD

status=0
summary=()
: >"$root/summary-runs.txt" # the OpenCL runs' lines (written in subshells)

# run <name> <ctest args...>: one OpenCL run in its own environment (set by
# the caller in a subshell); its output in ctest-<name>.log.
run() {
  local name=$1 log=$root/ctest-$1.log rc=0
  shift
  echo
  echo "== OpenCL run: $name"
  echo "   drivers: $(cat "$OCL_ICD_VENDORS"/*.icd | tr '\n' ' ')"
  local device
  device=$("$root/tools/clstream-info" 2>/dev/null |
    awk '/^default device:/ {d = $3} $1 == "device" && $2 == d ":" {sub(/^device [0-9]+: /, ""); print; exit}')
  echo "   device: ${device:-none found}"
  ctest --output-on-failure -V "$@" >"$log" 2>&1 || rc=$?
  # ctest -V prefixes each line of a test's output with the test's number;
  # name each Check summary line after its test program.
  awk '/^[0-9]+: Test command: / { name[$1] = $NF; sub(".*/", "", name[$1]) }
       /^[0-9]+: [0-9]+%: Checks: / { n = $1; $1 = ""; print "   " name[n] ":" $0 }' \
    "$log"
  grep -E '^[[:space:]]+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Not Run|Exception)' "$log" || true
  local line
  line=$(grep -E 'tests passed|tests failed' "$log" | tail -n1)
  echo "   CTest ($name): ${line:-no summary} (exit $rc)"
  echo "$name on ${device:-?}: ${line:-no summary} (exit $rc)" >>"$root/summary-runs.txt"
  return "$rc"
}

# PoCL, SVM: the whole suite.
if cls_icd_dir pocl "$root/icd-pocl"; then
  (export OCL_ICD_VENDORS=$root/icd-pocl; unset CLSTREAM_MEMORY CLSTREAM_DEVICE
    run pocl-svm) || status=1
  (export OCL_ICD_VENDORS=$root/icd-pocl CLSTREAM_MEMORY=buffers
    unset CLSTREAM_DEVICE
    run pocl-buffers -L 'unit|example|cuda_names|tools|model|python') || status=1
else
  echo "ci/test.sh: PoCL's ICD library not found" >&2
  status=1
fi

# rusticl on llvmpipe.
if cls_icd_dir rusticl "$root/icd-rusticl"; then
  (export OCL_ICD_VENDORS=$root/icd-rusticl RUSTICL_ENABLE=llvmpipe
    unset CLSTREAM_MEMORY CLSTREAM_DEVICE
    run rusticl -L 'unit|example|cuda_names|tools|model|python') || status=1
else
  summary+=("rusticl: skipped (mesa-opencl-icd not installed)")
fi

# The Python package as a user installs it: `pip install ./python` into a
# fresh virtual environment of Debian's interpreter (which sees apt's
# PyOpenCL and NumPy; scikit-build-core comes from PyPI), then the first
# example from that install, on PoCL.  About a minute on 2 cores.
echo
echo "== Python package: pip install ./python in a fresh venv"
if (set -e
    rm -rf "$root/venv-install"
    /usr/bin/python3 -m venv --system-site-packages "$root/venv-install"
    "$root/venv-install/bin/pip" install -q ../python >"$root/pip-install.log" 2>&1
    cd "$root"
    out=$(OCL_ICD_VENDORS=$root/icd-pocl "$root/venv-install/bin/python" \
      ../examples/python/event_synchronize.py)
    echo "   installed package prints: $out"
    [[ $out == "[ 2  4  6  8 10]" ]]); then
  summary+=("python install: ok (pip install ./python, fresh venv)")
else
  echo "   failed; see $root/pip-install.log" >&2
  summary+=("python install: FAILED (pip install ./python; $root/pip-install.log)")
  status=1
fi

# PoCL and rusticl loaded together: host memory made while one device is
# current reaches kernels on the other platform's device (issue 35), with
# each device the default in turn.
if cls_icd_dir pocl "$root/icd-two" && [[ -n $(cls_icd_lib rusticl) ]]; then
  cls_icd_lib rusticl >"$root/icd-two/rusticl.icd"
  for dev in pthread llvmpipe; do
    (export OCL_ICD_VENDORS=$root/icd-two RUSTICL_ENABLE=llvmpipe
      export CLSTREAM_DEVICE=$dev
      unset CLSTREAM_MEMORY
      run "pocl+rusticl-$dev" \
        -R '^(test_hostdevs|test_hostkern|test_hostmem|cuda_names_zero_copy)$') ||
      status=1
  done
else
  summary+=("pocl+rusticl: skipped (PoCL or rusticl not installed)")
fi

# Oclgrind, with PoCL loaded too (the default must stay PoCL; the run
# selects Oclgrind by name).  Any error Oclgrind reports fails the run.
if cls_icd_dir oclgrind "$root/icd-oclgrind" && [[ -n $(cls_icd_lib pocl) ]]; then
  cls_icd_lib pocl >"$root/icd-oclgrind/pocl.icd"
  def=$(OCL_ICD_VENDORS=$root/icd-oclgrind "$root/tools/clstream-info" | grep -A1 '(default)' | head -n1)
  echo
  echo "== Oclgrind and PoCL loaded together, the default device: $def"
  if [[ $def == *Oclgrind* ]]; then
    echo "ci/test.sh: the simulator became the default device" >&2
    status=1
  fi
  (export OCL_ICD_VENDORS=$root/icd-oclgrind CLSTREAM_DEVICE=Oclgrind
    export OCLGRIND_CHECK_API=1 CK_EXCLUDE_TAGS="gate threads"
    unset CLSTREAM_MEMORY
    rc=0
    run oclgrind -L simulator || rc=$?
    # Every report fails the run but the driver's answers to inputs the
    # tests make bad on purpose (a source that does not compile, a kernel
    # name that is not in the module), which it reports as errors too.
    reports=$(awk '
      function done() {
        if (hdr != "" && !(hdr ~ /runtime error detected/ &&
            (fn err == "clBuildProgramCL_BUILD_PROGRAM_FAILURE" ||
             fn err == "clCreateKernelCL_INVALID_KERNEL_NAME")))
          print hdr " " fn " " err
        hdr = ""
      }
      /Oclgrind - / { done(); hdr = $0; sub(/^[0-9]+: /, "", hdr); fn = err = ""; n = 0; next }
      hdr != "" && /Function:/ { fn = $NF }
      hdr != "" && /Error:/ { err = $NF }
      hdr != "" && ++n > 4 { done() }
      END { done() }' "$root/ctest-oclgrind.log")
    expected=$(grep -c 'Oclgrind - ' "$root/ctest-oclgrind.log" || true)
    if [[ -n $reports ]]; then
      echo "   Oclgrind reported errors:"
      echo "$reports" | sort | uniq -c | head -n 40
      rc=1
    else
      echo "   Oclgrind: no API misuse or memory error reported" \
        "($expected reports of deliberately bad builds and kernel names)"
    fi
    exit "$rc") || status=1
else
  summary+=("oclgrind: skipped (oclgrind not installed)")
fi
mapfile -t runs <"$root/summary-runs.txt"
summary=("${runs[@]}" "${summary[@]}")
cd ..

# The whole suite again under AddressSanitizer and UndefinedBehaviorSanitizer
# (its own build in build-asan-ci/; suppressions in tests/sanitizers/; only
# PoCL's driver loaded).
echo "== ASan + UBSan suite"
if [[ ${CLS_SKIP_SANITIZE:-0} == 1 ]]; then
  summary+=("ASan + UBSan: skipped (CLS_SKIP_SANITIZE=1)")
elif bash ci/sanitize.sh; then summary+=("ASan + UBSan (PoCL): passed"); else
  summary+=("ASan + UBSan (PoCL): FAILED")
  status=1
fi

# And under ThreadSanitizer (build-tsan-ci/): every test, the 16-thread
# stress test and the host-function paths included, is checked for data
# races in the library (about 9 minutes on 2 cores).  Each summary ends
# with the lines where a sanitizer runtime itself failed, apart from the
# findings (docs/testing.md: the one seen failed a run by chance).
echo "== TSan suite"
if [[ ${CLS_SKIP_SANITIZE:-0} == 1 ]]; then
  summary+=("TSan: skipped (CLS_SKIP_SANITIZE=1)")
elif bash ci/sanitize.sh thread; then summary+=("TSan (PoCL): passed"); else
  summary+=("TSan (PoCL): FAILED")
  status=1
fi

# The CUDA build (no GPU here: it is configured and built, tests included,
# and nothing is run).
if command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "== CUDA build (configure and build only)"
  cuda_root=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
  if cmake -S . -B build-ci-cuda -DCLSTREAM_BACKEND=CUDA -DCLSTREAM_WERROR=ON \
      -DCUDAToolkit_ROOT="$cuda_root" &&
    cmake --build build-ci-cuda -j"$(nproc)"; then
    summary+=("CUDA build: ok")
  else
    summary+=("CUDA build: FAILED")
    status=1
  fi
else
  summary+=("CUDA build: skipped (no nvcc)")
fi

# The style check against .clang-format: the tree has had its reformat
# pass, so a departure fails the run (CLS_FORMAT_STRICT=0 only reports).
echo "== clang-format check"
if command -v clang-format >/dev/null 2>&1; then
  fmt=$(bash ci/format.sh --count 2>&1 | tail -n 1) && fmt_rc=0 || fmt_rc=$?
  echo "$fmt"
  if ((fmt_rc != 0)) && [[ ${CLS_FORMAT_STRICT:-1} == 1 ]]; then status=1; fi
  summary+=("clang-format: $fmt")
else
  summary+=("clang-format: skipped (not installed)")
fi

# The summaries again, last, where a reader of the log looks first.
echo
echo "== Summary"
for line in "${summary[@]}"; do echo "- $line"; done
exit "$status"
