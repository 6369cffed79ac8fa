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
#   python  the Python package (docs/python.md) on both builds, after the
#           suites: `pip install ./python` (CLSTREAM_BACKEND=CUDA) with the
#           machine's python3 (torch's and CuPy's), then
#           pytest and the Python examples against the CUDA build (CuPy) and
#           NVIDIA's OpenCL (PyOpenCL), and `python -m clstream.bench
#           --quick` beside torch and beside PyOpenCL
#
# Usage, from a fresh checkout, as root:
#   bash ci/gpu.sh [cuda] [nvidia] [pocl] [python]   (no argument: all four)
# The machine has no network: the Python wheels the venv lacks
# (scikit-build-core, pathspec, packaging, pytest, pluggy, iniconfig,
# pygments, pyopencl, pytools, platformdirs, siphash24, typing_extensions)
# come in .whl/ at the repository root, fetched beforehand for the
# machine's Python (3.12) with
#   pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_28_x86_64 \
#     --platform manylinux_2_17_x86_64 --platform any -d .whl NAME...
# (an absent .whl/ leaves out the install; the tests then skip with their
# reason where pytest is missing).  What the builds need and the machine lacks comes
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
# The two builds run at once.  Then, on the idle machine, the raw probes
# of docs/repro/ (arg_form_switch.c on NVIDIA's platform,
# pocl5_local_reduce.c, which of its variants of the sub-group reduction
# crash PoCL 5.0, on PoCL's) and the benchmark's graph rows
# (clstream-bench --quick) of each variant, one run at a time so that they
# do not disturb each other.  With a base tree in .before/ (the source of
# an earlier commit, `git archive <commit> | tar -x -C .before`, its hash
# in .before/COMMIT; CLS_GPU_BEFORE names another folder) its benchmark is
# built beside the two builds and each variant's graph rows run
# alternately, base and this tree, CLS_BENCH_PAIRS times a side (2), and
# bench/pairs.py compares them.  Then the three suites at once, each cut at
# a deadline so that the whole run (all three variants) ends within about
# 9 minutes on the H100/H200 machine (16 cores): CTest with CLS_CTEST_JOBS
# programs at a time (6), every test capped at CLS_TEST_TIMEOUT seconds
# (200), the CPU-only labels model and fault left out unless CLS_CTEST_ARGS
# says otherwise.  Each failed test is then run again with CLSTREAM_LOG=1,
# and the summary lists it with the first line clstream logged for it.
# The python variant's steps come last, each cut at the same deadline.
#
# Each variant's configure, build and CTest output goes to <variant>.log
# (the failed tests' second run to <variant>-rerun.log), the benchmark's
# JSON to bench-<variant>.json; the summary (pass counts, failures with
# their reason, device names, driver, nvcc and date) to gpu-summary.md.
# With $OUT set (the GPU machine's output folder) the summary and one
# tarball of all the logs, gpu-logs.tar.gz, go there; otherwise everything
# goes to build-gpu/out/.  A failing variant does not stop the others; the
# exit status is non-zero if any failed.
#
# Each variant also runs alone (bash ci/gpu.sh cuda).
#
# Environment:
#   CLS_PREFIX         where the packages are unpacked (/tmp/prefix)
#   CLS_CTEST_JOBS     test programs run at once in each variant (6)
#   CLS_CTEST_ARGS     ctest's label or name selection ("-LE model|fault";
#                      empty: every test), e.g. "-L example"
#   CLS_TEST_TIMEOUT   seconds one test program may take (200)
#   CLS_GPU_DEADLINE   seconds for the builds, benchmark, suites and python (520)
#   CLS_GPU_BEFORE     the base tree whose graph rows are compared (.before)
#   CLS_BENCH_PAIRS    runs a side of that comparison (2)
#   CLS_GPU_LOGS       where the logs go (see above)
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
((${#variants[@]})) || variants=(cuda nvidia pocl python)
for v in "${variants[@]}"; do
  case $v in
  cuda | nvidia | pocl | python) ;;
  *)
    echo "gpu.sh: unknown variant '$v' (cuda, nvidia, pocl or python)" >&2
    exit 2
    ;;
  esac
done

# The summary and one tarball of every log go to $OUT (the GPU machine
# brings back only a few files from there); the logs themselves to
# $CLS_GPU_LOGS (default /tmp/cls-gpu-logs, or build-gpu/out without $OUT).
if [[ -n ${OUT:-} ]]; then dest=$OUT; out=${CLS_GPU_LOGS:-/tmp/cls-gpu-logs}; else
  dest=$root/build-gpu/out
  out=${CLS_GPU_LOGS:-$dest}
fi
mkdir -p "$out" "$dest" || exit 2
summary=$dest/gpu-summary.md
prefix=${CLS_PREFIX:-/tmp/prefix}
jobs=${CLS_CTEST_JOBS:-6}
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
# The two builds run at once, then the three suites at once (each with
# $jobs programs at a time), each cut at the deadline; then the failed
# tests again with CLSTREAM_LOG=1 for their first reason, then the
# benchmark's graph rows of each build, one build at a time.
status=0
work=$out/work
mkdir -p "$work"

# build <source> <dir> <log> <target or ""> <cmake args...>: configure
# and build (every target, or the one named); 0 on success.
build() {
  local src=$1 dir=$2 log=$3 target=$4
  shift 4
  {
    echo "== configure $dir (from $src)"
    cmake -S "$src" -B "$dir" "${cmake_common[@]}" "$@" || return 1
    echo "== build $dir"
    cmake --build "$dir" -j"$ncpu" ${target:+--target "$target"}
  } >>"$log" 2>&1
}

left() { # seconds left before deadline $1 (seconds since the start), >= 10
  local s=$(($1 - ($(date +%s) - t_start)))
  ((s < 10)) && s=10
  echo "$s"
}
cap() { # the smaller of $1 seconds and what is left before deadline $2
  local s
  s=$(left "$2")
  echo $((s < $1 ? s : $1))
}
passed() { (($(date +%s) - t_start >= $1)); } # deadline $1 has passed

# suite <variant> <build dir> <CLSTREAM_DEVICE or empty>: the variant's
# CTest run into <variant>.log, its summary section into work/<variant>.md,
# its result (pass or FAIL) into work/<variant>.result.
suite() {
  local v=$1 dir=$2 dev=$3 log=$out/$1.log md=$work/$1.md t0 rc
  t0=$(date +%s)
  echo "== ctest ($v, CLSTREAM_DEVICE=${dev:-unset}, $(left "$suite_deadline") s left)" >>"$log"
  # shellcheck disable=SC2086
  (cd "$dir" && if [[ -n $dev ]]; then export CLSTREAM_DEVICE=$dev; else
    unset CLSTREAM_DEVICE; fi &&
    timeout -k 10 "$(left "$suite_deadline")" ctest --output-on-failure -V \
      -j"$jobs" --timeout "$test_timeout" $ctest_args) >>"$log" 2>&1
  rc=$?
  local secs=$(($(date +%s) - t0))
  # CTest's summary, the Check programs' totals, the device the examples used.
  local line checks fails errs device
  line=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n1)
  read -r checks fails errs < <(grep -oE 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" |
    awk -F'[:,] *' '{c += $2; f += $4; e += $6} END {print c+0, f+0, e+0}')
  device=$(grep -oE 'device [0-9]+: .*' "$log" | head -n1)
  ((rc == 124 || rc == 137)) && line="${line:-no summary}; CUT at the deadline"
  {
    echo "## $v"
    echo
    echo "- device: ${device:-(no example printed one)}"
    echo "- CTest: ${line:-no summary} (exit $rc, ${secs} s, $jobs at a time)"
    echo "- Check: $checks checks, $fails failures, $errs errors"
  } >"$md"
  # The failed tests, each with the first line CLSTREAM_LOG=1 prints for
  # it when run again alone (the reason clstream gave, if any).
  local failed=()
  mapfile -t failed < <(grep -E '^[[:space:]]+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Not Run|Exception|Child aborted)' "$log" |
    sed -E 's/^[[:space:]]*[0-9]+ - ([^ ]+) .*/\1/')
  if ((${#failed[@]})); then
    local relog=$out/$v-rerun.log t
    (cd "$dir" && if [[ -n $dev ]]; then export CLSTREAM_DEVICE=$dev; else
      unset CLSTREAM_DEVICE; fi && export CLSTREAM_LOG=1 &&
      timeout -k 5 "$(left "$rerun_deadline")" ctest -V -j"$jobs" --timeout 60 \
        -R "^($(IFS='|'; echo "${failed[*]}"))\$") >"$relog" 2>&1
    for t in "${failed[@]}"; do
      local num first
      num=$(grep -m1 -E "^ *Start +[0-9]+: $t\$" "$relog" | sed -E 's/.*Start +([0-9]+):.*/\1/')
      first=$(grep -m1 -E "^${num:-x}: clstream: " "$relog" | sed -E 's/^[0-9]+: //')
      echo "- failed: $t: ${first:-(no CLSTREAM_LOG line when run again)}" >>"$md"
    done
  fi
  echo >>"$md"
  if ((rc == 0)) && [[ -n $line ]]; then echo pass; else echo FAIL; fi >"$work/$v.result"
}

# A raw OpenCL program from docs/repro/ on platform $2, its output in the
# summary (a driver fact for docs/drivers.md; it fails no run).
probe() {
  local name=$1 platform=$2 bin=$root/build-gpu-opencl/$1
  if cc -O1 -I"$prefix/usr/include" -o "$bin" "docs/repro/$name.c" \
    -L"$libdir" -lOpenCL 2>>"$out/probes.log"; then
    local rc
    PROBE_PLATFORM=$platform timeout 120 "$bin" >"$work/$name.txt" 2>&1
    rc=$?
    say "- docs/repro/$name.c on $platform (exit $rc):"
    say '```'
    say "$(cat "$work/$name.txt")"
    say '```'
  else
    say "- docs/repro/$name.c: did not compile (probes.log)"
  fi
}

# bench_run <bin> <CLSTREAM_DEVICE or empty> <name>: one run of the graph
# rows into bench-<name>.json; its exit status.
bench_run() {
  (if [[ -n $2 ]]; then export CLSTREAM_DEVICE=$2; else unset CLSTREAM_DEVICE; fi
    timeout -k 5 "$(left "$bench_deadline")" "$1" --quick \
      --scenario graph_10,graph_100,graph_1000 --json "$out/bench-$3.json") \
    >"$work/bench-$3.txt" 2>&1
}

# bench <variant> <build dir> <CLSTREAM_DEVICE or empty> <base build dir>:
# the graph rows, alternating with the base's where it was built; the
# last run of this tree's is shown whole.
bench() {
  local v=$1 dev=$3 bin=$2/bench/clstream-bench base=$4/bench/clstream-bench
  local i rc last=$v b=() a=()
  [[ -x $bin ]] || return 0
  if [[ -x $base ]] && ((pairs > 0)); then
    for ((i = 1; i <= pairs; i++)); do
      bench_run "$base" "$dev" "$v-before$i" && b+=("$out/bench-$v-before$i.json")
      bench_run "$bin" "$dev" "$v-after$i"
      rc=$?
      ((rc == 0)) && a+=("$out/bench-$v-after$i.json")
    done
    last=$v-after$pairs
    say "- $v, base \`$before_commit\` against this tree, alternated, $pairs runs a side (${#b[@]}/${#a[@]} finished):"
    say ""
    ((${#b[@]} && ${#a[@]})) &&
      say "$(python3 "$root/bench/pairs.py" "$(IFS=,; echo "${b[*]}")" "$(IFS=,; echo "${a[*]}")" 2>&1)"
    say ""
  else
    bench_run "$bin" "$dev" "$v"
    rc=$?
  fi
  say "- $v (exit $rc):"
  say '```'
  say "$(grep -E '^device|^raw side' "$work/bench-$last.txt")"
  say "$(sed -n '/^scenario/,$p' "$work/bench-$last.txt" | head -n 20)"
  say '```'
}

# The python variant (see the top): the package installed from .whl/ into
# a venv that sees the machine's torch and CuPy, its tests against both
# builds' libraries, its bench.
python_step() {
  local log=$out/python.log py=${CLS_PYTHON:-$(command -v python3)}
  local lib rc
  say "## python"
  say ""
  [[ -d /tmp/cls-site ]] && export PYTHONPATH=/tmp/cls-site
  case $(cat "$work/python-install" 2>/dev/null) in
  ok)
    say "- pip install ./python (CLSTREAM_BACKEND=CUDA, wheels from .whl/, beside the suites): ok; the installed package's examples/python/event_synchronize.py prints: $(
      cd /tmp && PYTHONPATH=/tmp/cls-pkg:/tmp/cls-site "$py" "$root/examples/python/event_synchronize.py" 2>&1 | tail -n1)"
    ;;
  none) say "- pip install ./python: not tried (no wheels in .whl/)" ;;
  *)
    say "- pip install ./python: FAILED (python.log)"
    echo FAIL >"$work/python.result"
    ;;
  esac
  say "- interpreter: $py ($("$py" -c 'import sys; print(sys.version.split()[0])' 2>&1)); torch: $(
    "$py" -c 'import torch; print(torch.__version__, torch.cuda.is_available())' 2>&1 | tail -n1); cupy: $(
    "$py" -c 'import cupy; print(cupy.__version__)' 2>&1 | tail -n1); pyopencl: $(
    "$py" -c 'import pyopencl; print(pyopencl.VERSION_TEXT)' 2>&1 | tail -n1)"
  local v dir dev
  for v in cuda nvidia; do
    dir=${dirs[$v]} dev=${devs[$v]}
    lib=$dir/libclstream.so
    [[ -e $lib ]] || continue
    for what in "pytest" "example event_synchronize" "example stream_add" \
      "example event_query" "example timing"; do
      if passed "$deadline"; then
        say "- $v, $what: not run (the deadline had passed)"
        continue
      fi
      # shellcheck disable=SC2086
      (if [[ -n $dev ]]; then export CLSTREAM_DEVICE=$dev; fi
        timeout "$(cap 120 "$deadline")" bash "$root/python/tests/ctest_run.sh" "$py" "$lib" "$root" \
          $what) >"$work/py-$v.txt" 2>&1
      rc=$?
      cat "$work/py-$v.txt" >>"$log"
      say "- $v, $what: exit $rc: $(grep -E 'passed|failed|skipped|error' "$work/py-$v.txt" | tail -n1 ||
        tail -n1 "$work/py-$v.txt")"
      ((rc == 0 || rc == 77)) || echo FAIL >"$work/python.result"
    done
    passed "$deadline" && continue
    (if [[ -n $dev ]]; then export CLSTREAM_DEVICE=$dev; fi
      cd /tmp && CLSTREAM_LIBRARY=$lib PYTHONPATH=$root/python:/tmp/cls-site \
        timeout "$(cap 150 "$deadline")" "$py" -m clstream.bench --quick --c-bench "$dir/bench/clstream-bench" \
        --json "$out/python-bench-$v.json") >"$work/py-bench-$v.txt" 2>&1
    say "- $v: python -m clstream.bench --quick (exit $?):"
    say '```'
    say "$(tail -n 14 "$work/py-bench-$v.txt")"
    say '```'
    cat "$work/py-bench-$v.txt" >>"$log"
  done
  [[ -e $work/python.result ]] || echo pass >"$work/python.result"
  say ""
}

# The wheels of .whl/ into /tmp/cls-site and `pip install ./python`
# (CLSTREAM_BACKEND=CUDA) into /tmp/cls-pkg, with the machine's python3
# (itself a venv holding torch and CuPy, so a venv made from it would not
# see them); run beside the suites.  The result (ok, none or FAILED) in
# work/python-install.
python_install() {
  local log=$out/python.log py=${CLS_PYTHON:-$(command -v python3)}
  if ! compgen -G "$root/.whl/*.whl" >/dev/null; then
    echo none >"$work/python-install"
    return
  fi
  rm -rf /tmp/cls-site /tmp/cls-pkg
  if "$py" -m pip install -q --no-index --no-deps --no-compile --target /tmp/cls-site \
    "$root"/.whl/*.whl >>"$log" 2>&1 &&
    CLSTREAM_BACKEND=CUDA timeout "$(cap 300 "$deadline")" "$py" -m pip install --no-index --no-deps \
      --find-links "$root/.whl" --target /tmp/cls-pkg "$root/python" >>"$log" 2>&1; then
    echo ok >"$work/python-install"
  else
    echo FAILED >"$work/python-install"
  fi
}

t_start=$(date +%s)
deadline=${CLS_GPU_DEADLINE:-520} # seconds for everything below
bench_deadline=$((deadline * 45 / 100))
suite_deadline=$((deadline * 82 / 100))
rerun_deadline=$((deadline * 88 / 100))
pairs=${CLS_BENCH_PAIRS:-2}
before=${CLS_GPU_BEFORE:-$root/.before}
before_commit=$(cat "$before/COMMIT" 2>/dev/null || echo '?')
test_timeout=${CLS_TEST_TIMEOUT:-200}
ctest_args=${CLS_CTEST_ARGS--LE model|fault}

want() { [[ " ${variants[*]} " == *" $1 "* ]]; }
opencl=
want nvidia || want pocl || want python && opencl=yes
for v in "${variants[@]}"; do : >"$out/$v.log"; done
pids=()
if want cuda || want python; then
  build "$root" "$root/build-gpu-cuda" "$out/cuda.log" "" -DCLSTREAM_BACKEND=CUDA &
  pids+=("cuda:$!")
fi
if [[ -n $opencl ]]; then
  oclog=$out/$(want nvidia && echo nvidia || echo pocl).log
  build "$root" "$root/build-gpu-opencl" "$oclog" "" -DCLSTREAM_BACKEND=OpenCL \
    "${cmake_opencl[@]}" &
  pids+=("opencl:$!")
fi
# The base tree's benchmark, beside them (its failure fails nothing).
if [[ -f $before/CMakeLists.txt ]]; then
  if want cuda; then
    build "$before" "$root/build-gpu-before-cuda" "$out/before.log" clstream-bench \
      -DCLSTREAM_BACKEND=CUDA &
    pids+=("before-cuda:$!")
  fi
  if want nvidia || want pocl; then
    build "$before" "$root/build-gpu-before-opencl" "$out/before.log" clstream-bench \
      -DCLSTREAM_BACKEND=OpenCL "${cmake_opencl[@]}" &
    pids+=("before-opencl:$!")
  fi
fi
declare -A built
for p in "${pids[@]}"; do
  if wait "${p#*:}"; then built[${p%%:*}]=ok; else built[${p%%:*}]=FAILED; fi
done
say "- builds: $(for k in "${!built[@]}"; do printf '%s %s; ' "$k" "${built[$k]}"; done)($(($(date +%s) - t_start)) s)"

if [[ ${built[opencl]:-} == ok ]]; then
  want nvidia && probe arg_form_switch "${CLS_NVIDIA_DEVICE:-NVIDIA}"
  want pocl && probe pocl5_local_reduce "${CLS_POCL_DEVICE:-Portable}"
fi
say ""

declare -A dirs=([cuda]=$root/build-gpu-cuda [nvidia]=$root/build-gpu-opencl
  [pocl]=$root/build-gpu-opencl)
declare -A devs=([cuda]="" [nvidia]=${CLS_NVIDIA_DEVICE:-NVIDIA}
  [pocl]=${CLS_POCL_DEVICE:-Portable})
build_of() { [[ $1 == cuda ]] && echo cuda || echo opencl; }

say "## Graph replay (clstream-bench --quick, graph rows; before the suites)"
say ""
for v in "${variants[@]}"; do
  [[ $v == python || ${built[$(build_of "$v")]:-} != ok ]] ||
    bench "$v" "${dirs[$v]}" "${devs[$v]}" "$root/build-gpu-before-$(build_of "$v")"
done
say ""

spids=()
if want python; then
  python_install &
  spids+=("$!")
fi
for v in "${variants[@]}"; do
  [[ $v == python ]] && continue
  if [[ ${built[$(build_of "$v")]:-} == ok ]]; then
    suite "$v" "${dirs[$v]}" "${devs[$v]}" &
    spids+=("$!")
  else
    printf '## %s\n\n- build FAILED (see %s.log)\n\n' "$v" "$v" >"$work/$v.md"
    echo "build FAILED" >"$work/$v.result"
  fi
done
for p in "${spids[@]}"; do wait "$p"; done
for v in "${variants[@]}"; do
  [[ $v == python ]] || tee -a "$summary" <"$work/$v.md"
done
want python && python_step

say "## Result ($(($(date +%s) - t_start)) s after the packages)"
say ""
for v in "${variants[@]}"; do
  r=$(cat "$work/$v.result")
  say "- $v: $r"
  [[ $r == pass ]] || status=1
done
# Every log in one tarball beside the summary.
tar -C "$out" -czf /tmp/cls-gpu-logs.tar.gz --exclude gpu-summary.md . 2>/dev/null &&
  mv /tmp/cls-gpu-logs.tar.gz "$dest/gpu-logs.tar.gz"
echo "gpu.sh: summary in $summary, logs in $dest/gpu-logs.tar.gz"
exit "$status"
