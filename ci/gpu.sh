#!/usr/bin/env bash
# Runs the whole test suite and the examples on a machine with an NVIDIA GPU
# (made for the H200 machine: CUDA 13 toolkit and driver, NVIDIA's OpenCL
# library, PoCL; nothing else installed, no network), three ways:
#
#   cuda    the CUDA build (-DCLSTREAM_BACKEND=CUDA)
#   nvidia  the OpenCL build on NVIDIA's OpenCL platform (CLSTREAM_DEVICE=NVIDIA)
#   pocl    the OpenCL build on PoCL's CPU device (CLSTREAM_DEVICE=Portable,
#           the start of PoCL's platform name)
#
# Usage, from a fresh checkout, as root:  bash ci/gpu.sh [cuda] [nvidia] [pocl]
# (no argument: all three).  What the builds need and the machine lacks comes
# as Debian packages in .deb/ at the repository root (Check, libsubunit, the
# ocl-icd loader, the OpenCL headers, pkgconf, CLBlast); they are unpacked with
# `dpkg -x` into $CLS_PREFIX (default /tmp/prefix), never installed, and
# CMake and pkg-config are pointed there.  NVIDIA's OpenCL ICD is registered
# (and PoCL's, if no ICD file names it yet).  Fetch the packages, on a Debian
# 12 machine with network:
#   mkdir -p .deb && cd .deb && apt-get download check libsubunit0 \
#     libsubunit-dev ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-c-headers \
#     pkgconf pkgconf-bin libpkgconf3 libclblast1 libclblast-dev
# (libclblast1 needs only libc, libstdc++ and an OpenCL loader; CMake finds
# CLBlast's package file under the prefix, for examples/gemm_pipeline.)
#
# Each variant's configure, build and CTest output goes to <variant>.log and
# the summary (pass counts, device names, driver, nvcc and date) to
# gpu-summary.md, in $OUT when it is set, else in build-gpu/out/; all of it
# is also printed.  A failing variant does not stop the next one; the exit
# status is non-zero if any failed.  Before its suite, the nvidia variant
# runs the raw probe docs/repro/arg_form_switch.c into the summary, and the
# pocl variant docs/repro/pocl5_local_reduce.c (which of its variants of
# issue 35's reduction crash PoCL 5.0).
#
# Each variant also runs alone (bash ci/gpu.sh cuda), for a machine that
# limits how long one command may take.
#
# Environment:
#   CLS_PREFIX         where the packages are unpacked (/tmp/prefix)
#   CLS_CTEST_JOBS     test programs run at once (1)
#   CLS_CTEST_ARGS     more ctest arguments, e.g. "-L example"
#   CLS_NVIDIA_DEVICE  CLSTREAM_DEVICE of the nvidia variant (NVIDIA)
#   CLS_POCL_DEVICE    CLSTREAM_DEVICE of the pocl variant (Portable; "cpu-"
#                      or "pthread" should a PoCL built with its CUDA driver
#                      list a GPU first under its platform)
#   CLS_ICD_DIR        register the ICDs there (OCL_ICD_VENDORS), not in
#                      /etc/OpenCL/vendors
#   CLS_WERROR         ON to build with -Werror (OFF: a newer compiler's new
#                      warning must not stop the run)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
root=$(pwd)

variants=("$@")
((${#variants[@]})) || variants=(cuda nvidia pocl)
for v in "${variants[@]}"; do
  case $v in
  cuda | nvidia | pocl) ;;
  *)
    echo "gpu.sh: unknown variant '$v' (cuda, nvidia or pocl)" >&2
    exit 2
    ;;
  esac
done

out=${OUT:-$root/build-gpu/out}
mkdir -p "$out" || exit 2
summary=$out/gpu-summary.md
prefix=${CLS_PREFIX:-/tmp/prefix}
jobs=${CLS_CTEST_JOBS:-1}
werror=${CLS_WERROR:-OFF}
ncpu=$(nproc 2>/dev/null || echo 4)

say() { printf '%s\n' "$*" | tee -a "$summary"; }
: >"$summary"

# ---- The carried packages ------------------------------------------------
mkdir -p "$prefix"
shopt -s nullglob
debs=("$root"/.deb/*.deb)
shopt -u nullglob
for f in "${debs[@]}"; do
  dpkg -x "$f" "$prefix" || echo "gpu.sh: could not unpack $f" >&2
done
multiarch=$(gcc -print-multiarch 2>/dev/null)
libdir=$prefix/usr/lib/${multiarch:-x86_64-linux-gnu}

export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Only the prefix's .pc files, their /usr paths moved under the prefix.
export PKG_CONFIG_PATH=$libdir/pkgconfig:$prefix/usr/share/pkgconfig
export PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH
export PKG_CONFIG_SYSROOT_DIR=$prefix
pkgconfig=$(command -v pkg-config || true)
[[ -n $pkgconfig ]] || pkgconfig=$prefix/usr/bin/pkgconf

cmake_common=(-DCLSTREAM_WERROR="$werror" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  -DCMAKE_PREFIX_PATH="$prefix/usr" -DPKG_CONFIG_EXECUTABLE="$pkgconfig")
cmake_opencl=()
[[ -f $prefix/usr/include/CL/cl.h ]] &&
  cmake_opencl+=(-DOpenCL_INCLUDE_DIR="$prefix/usr/include")
[[ -e $libdir/libOpenCL.so ]] &&
  cmake_opencl+=(-DOpenCL_LIBRARY="$libdir/libOpenCL.so")

# ---- OpenCL ICDs -----------------------------------------------------------
# Registered in /etc/OpenCL/vendors; with CLS_ICD_DIR set, or where that
# folder cannot be written, in a private copy named by OCL_ICD_VENDORS.
vendors=${CLS_ICD_DIR:-/etc/OpenCL/vendors}
if [[ -n ${CLS_ICD_DIR:-} ]] ||
  ! { mkdir -p "$vendors" 2>/dev/null && [[ -w $vendors ]]; }; then
  vendors=${CLS_ICD_DIR:-/tmp/cls-icd-vendors}
  mkdir -p "$vendors"
  cp /etc/OpenCL/vendors/*.icd "$vendors"/ 2>/dev/null
  export OCL_ICD_VENDORS=$vendors
fi
find_lib() { # first existing path of library $1 in the usual folders
  local d
  for d in /usr/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 \
    /usr/local/nvidia/lib /usr/local/lib /usr/local/lib64 /opt/pocl/lib; do
    [[ -e $d/$1 ]] && {
      echo "$d/$1"
      return 0
    }
  done
  return 1
}
if ! grep -qsi nvidia "$vendors"/*.icd; then
  nv=$(find_lib libnvidia-opencl.so.1) || nv=libnvidia-opencl.so.1
  echo "$nv" >"$vendors/nvidia.icd"
fi
if ! grep -qsi pocl "$vendors"/*.icd; then
  pocl=$(find_lib libpocl.so.2) || pocl=$(find_lib libpocl.so) ||
    pocl=$(find /usr /opt -name 'libpocl.so*' -print -quit 2>/dev/null)
  [[ -n ${pocl:-} ]] && echo "$pocl" >"$vendors/pocl.icd"
fi

# ---- The machine -------------------------------------------------------------
say "# clstream on $(hostname 2>/dev/null || echo '?'): ci/gpu.sh ${variants[*]}"
say ""
say "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
  git -C "$root" diff --quiet HEAD 2>/dev/null || commit+=" (with local changes)"
else
  commit="? (not a git checkout)"
fi
say "- commit: $commit"
gpus=$(nvidia-smi --query-gpu=name,driver_version,memory.total \
  --format=csv,noheader 2>/dev/null) || gpus="nvidia-smi failed"
say "- GPU (name, driver, memory): ${gpus//$'\n'/; }"
say "- CUDA driver API: $(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | head -n1)"
say "- nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || echo 'not found')"
say "- cc: $(cc --version 2>/dev/null | head -n1); cmake: $(cmake --version 2>/dev/null | head -n1); pkg-config: $pkgconfig"
say "- CPU cores: $ncpu; carried packages: ${#debs[@]} unpacked into $prefix"
for f in "$vendors"/*.icd; do
  [[ -e $f ]] && say "- OpenCL ICD $(basename "$f"): $(cat "$f")"
done
say ""

# ---- Variants -------------------------------------------------------------
declare -A result
status=0

# build <dir> <log> <cmake args...>: configure and build; 0 on success.
build() {
  local dir=$1 log=$2
  shift 2
  echo "== configure $dir" | tee -a "$log"
  cmake -S "$root" -B "$dir" "${cmake_common[@]}" "$@" 2>&1 | tee -a "$log" ||
    return 1
  echo "== build $dir" | tee -a "$log"
  cmake --build "$dir" -j"$ncpu" 2>&1 | tee -a "$log" || return 1
}

# run <variant> <build dir> <CLSTREAM_DEVICE or empty>
run() {
  local v=$1 dir=$2 dev=$3 log=$out/$1.log t0 rc
  t0=$(date +%s)
  echo "== ctest ($v, CLSTREAM_DEVICE=${dev:-unset})" | tee -a "$log"
  # shellcheck disable=SC2086
  (cd "$dir" && if [[ -n $dev ]]; then export CLSTREAM_DEVICE=$dev; else
    unset CLSTREAM_DEVICE; fi &&
    ctest --output-on-failure -V -j"$jobs" ${CLS_CTEST_ARGS:-}) 2>&1 |
    tee -a "$log"
  rc=${PIPESTATUS[0]}
  local secs=$(($(date +%s) - t0))
  # CTest's summary, the Check programs' totals, the device the examples used.
  local line checks fails errs device
  line=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n1)
  read -r checks fails errs < <(grep -oE 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" |
    awk -F'[:,] *' '{c += $2; f += $4; e += $6} END {print c+0, f+0, e+0}')
  device=$(grep -oE 'device [0-9]+: .*' "$log" | head -n1)
  say "## $v"
  say ""
  say "- device: ${device:-(no example printed one)}"
  say "- CTest: ${line:-no summary} (exit $rc, ${secs} s)"
  say "- Check: $checks checks, $fails failures, $errs errors"
  grep -E '^[[:space:]]+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Not Run|Exception)' "$log" |
    sed 's/^[[:space:]]*/- failed: /' | tee -a "$summary"
  say ""
  if ((rc == 0)) && [[ -n $line ]]; then result[$v]=pass; else
    result[$v]=FAIL
    status=1
  fi
}

# A raw OpenCL probe from docs/repro/ on one platform (NVIDIA's unless
# named: probe NAME PLATFORM LABEL LOG), its output in the summary (a driver
# fact for docs/drivers.md; it fails no run).
probe() {
  local name=$1 bin=$root/build-gpu-opencl/$1
  local plat=${2:-${CLS_NVIDIA_DEVICE:-NVIDIA}} label=${3:-NVIDIA\'s OpenCL}
  if cc -O1 -I"$prefix/usr/include" -o "$bin" "docs/repro/$name.c" \
    -L"$libdir" -lOpenCL 2>>"$out/${4:-nvidia}.log"; then
    say "- docs/repro/$name.c on $label (exit $(
      PROBE_PLATFORM=$plat timeout 150 "$bin" >"$out/$name.txt" 2>&1
      echo $?
    )):"
    say '```'
    say "$(cat "$out/$name.txt")"
    say '```'
  fi
}

opencl_built=
for v in "${variants[@]}"; do
  log=$out/$v.log
  : >"$log"
  case $v in
  cuda)
    if build "$root/build-gpu-cuda" "$log" -DCLSTREAM_BACKEND=CUDA; then
      run cuda "$root/build-gpu-cuda" ""
    else
      say "## cuda"$'\n\n'"- build FAILED (see cuda.log)"$'\n'
      result[cuda]="build FAILED"
      status=1
    fi
    ;;
  nvidia | pocl)
    if [[ -z $opencl_built ]]; then
      if build "$root/build-gpu-opencl" "$log" -DCLSTREAM_BACKEND=OpenCL \
        "${cmake_opencl[@]}"; then opencl_built=ok; else opencl_built=failed; fi
    fi
    if [[ $opencl_built == ok ]]; then
      [[ $v == nvidia ]] && probe arg_form_switch
      [[ $v == pocl ]] && probe pocl5_local_reduce Portable "PoCL's OpenCL" pocl
      if [[ $v == nvidia ]]; then dev=${CLS_NVIDIA_DEVICE:-NVIDIA}; else
        dev=${CLS_POCL_DEVICE:-Portable}
      fi
      run "$v" "$root/build-gpu-opencl" "$dev"
    else
      say "## $v"$'\n\n'"- build FAILED (see the first OpenCL variant's log)"$'\n'
      result[$v]="build FAILED"
      status=1
    fi
    ;;
  esac
done

say "## Result"
say ""
for v in "${variants[@]}"; do say "- $v: ${result[$v]}"; done
echo "gpu.sh: logs and summary in $out"
exit "$status"
