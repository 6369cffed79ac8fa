#!/usr/bin/env bash
# Runs the suite, the multi-GPU example and the two-device benchmark rows
# on a machine with two NVIDIA GPUs (made for nvidia-h200-x2), two ways:
#
#   cuda    the CUDA build, both GPUs (CLSTREAM_DEVICE unset: devices 0, 1)
#   nvidia  the OpenCL build on NVIDIA's OpenCL platform, CLSTREAM_DEVICE=NVIDIA,
#           which names both GPUs: one context holds them
#
# Usage, from a fresh checkout, as root:  bash ci/gpu2.sh [cuda] [nvidia]
# (no argument: both).  It sets CLS_TEST_REQUIRE_TWO_DEVICES=1, so that a
# multi-device test that finds fewer than two devices named by
# CLSTREAM_DEVICE fails instead of skipping, and then runs ci/gpu.sh (read
# it for the packages, the ICDs and the environment it takes).  After each
# variant's suite it runs, from that variant's build:
#   - (nvidia) docs/repro/two_gpu_context.c, the driver alone in the same
#     context layout;
#   - examples/multi_gpu 0 1 with CLS_EXAMPLE_MIN_SPEEDUP (default 1.8) and
#     CLSTREAM_LOG=1: it fails when two GPUs are not that much faster than
#     one;
#   - clstream-bench --scenario xdev_wait,peer_copy_4k,peer_copy_16m (ours
#     and the raw API, device 0 and its peer 1), JSON in bench-<variant>.json.
# The run fails if any test printed "SKIP ...: needs two devices", if a
# bench row was skipped, or if nvidia-smi lists fewer than two GPUs.  Logs and gpu2-summary.md go to $OUT
# when it is set, else build-gpu2/out/.  A variant runs alone too (each
# fits one 10-minute command on the H200 machine with CLS_CTEST_JOBS=4).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
root=$(pwd)

variants=("$@")
((${#variants[@]})) || variants=(cuda nvidia)
for v in "${variants[@]}"; do
  [[ $v == cuda || $v == nvidia ]] || {
    echo "gpu2.sh: unknown variant '$v' (cuda or nvidia)" >&2
    exit 2
  }
done

export OUT=${OUT:-$root/build-gpu2/out}
mkdir -p "$OUT" || exit 2
summary2=$OUT/gpu2-summary.md
: >"$summary2"
say() { printf '%s\n' "$*" | tee -a "$summary2"; }

ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | grep -c .)
say "# clstream on two GPUs: ci/gpu2.sh ${variants[*]}"
say ""
say "- GPUs listed by nvidia-smi: ${ngpu:-0}"
if ((${ngpu:-0} < 2)); then
  say "- FAIL: this machine has fewer than two GPUs"
  exit 1
fi

export CLS_TEST_REQUIRE_TWO_DEVICES=1
export CLS_NVIDIA_DEVICE=${CLS_NVIDIA_DEVICE:-NVIDIA}
min=${CLS_EXAMPLE_MIN_SPEEDUP:-1.8}
status=0

CLS_GPU_LOGS=$OUT bash ci/gpu.sh "${variants[@]}" || status=1
# gpu.sh registered the ICDs; use the same folder for the runs below.
[[ -d /tmp/cls-icd-vendors && -z ${CLS_ICD_DIR:-} && ! -w /etc/OpenCL/vendors ]] &&
  export OCL_ICD_VENDORS=/tmp/cls-icd-vendors
[[ -n ${CLS_ICD_DIR:-} ]] && export OCL_ICD_VENDORS=$CLS_ICD_DIR
libdir=${CLS_PREFIX:-/tmp/prefix}/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

for v in "${variants[@]}"; do
  log=$OUT/$v.log
  if [[ $v == cuda ]]; then
    dir=$root/build-gpu-cuda
    unset CLSTREAM_DEVICE
  else
    dir=$root/build-gpu-opencl
    export CLSTREAM_DEVICE=$CLS_NVIDIA_DEVICE
  fi
  say ""
  say "## $v"
  say ""
  skips=$(grep -E '^SKIP [^:]+: needs two devices' "$log" 2>/dev/null | sort -u)
  if [[ -n $skips ]]; then
    say "- FAIL: multi-device tests skipped:"
    say "${skips//$'\n'/; }"
    status=1
  else
    say "- no multi-device test skipped"
  fi
  if [[ $v == nvidia ]]; then
    # The driver alone, in clstream's context layout (docs/repro/): it
    # tells a refusal of the driver from one of clstream.
    probe=$dir/two_gpu_context
    if cc -O1 -o "$probe" docs/repro/two_gpu_context.c -lOpenCL 2>>"$summary2"; then
      out=$(PROBE_PLATFORM=$CLS_NVIDIA_DEVICE "$probe" 2>&1)
      rc=$?
      say "- docs/repro/two_gpu_context.c, raw OpenCL (exit $rc):"
      say '```'
      say "$(grep -E 'platform|device [0-9]|failed' <<<"$out")"
      say '```'
    fi
  fi
  if [[ -x $dir/examples/multi_gpu ]]; then
    # With clstream's log: a failure names the OpenCL call and its code.
    out=$(CLSTREAM_LOG=1 CLS_EXAMPLE_MIN_SPEEDUP=$min \
      "$dir/examples/multi_gpu" 0 1 2>&1)
    rc=$?
    say "- examples/multi_gpu 0 1 (exit $rc, at least ${min}x wanted):"
    say '```'
    say "$out"
    say '```'
    ((rc == 0)) || status=1
  else
    say "- FAIL: no $dir/examples/multi_gpu (build failed?)"
    status=1
  fi
  if [[ -x $dir/bench/clstream-bench ]]; then
    out=$(CLSTREAM_DEVICE=${CLSTREAM_DEVICE:-0} "$dir/bench/clstream-bench" \
      --scenario xdev_wait,peer_copy_4k,peer_copy_16m \
      --json "$OUT/bench-$v.json" 2>&1)
    rc=$?
    say "- clstream-bench two-device rows (exit $rc):"
    say '```'
    say "$out"
    say '```'
    ((rc == 0)) || status=1
    if grep -q ' skipped: ' <<<"$out"; then
      say "- FAIL: two-device rows skipped"
      status=1
    fi
  fi
done
say ""
say "- result: $( ((status == 0)) && echo pass || echo FAIL)"
exit "$status"
