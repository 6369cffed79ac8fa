#!/usr/bin/env bash
# Installs what building and testing clstream needs on Debian 12 (bookworm),
# as root, only when something is missing: PoCL's CPU OpenCL device, the
# OpenCL ICD loader and headers, Check, CMake, pkg-config, a C compiler and
# a C++ one (for the C++ CUDA-names test), CLBlast and Open MPI (the
# interop examples), Python 3 with PyOpenCL, NumPy and pytest (the Python
# package), and for ci/test.sh's other
# OpenCL runs Mesa's OpenCL (rusticl), Oclgrind and clang-format.
# Sourced by ci/examples.sh and ci/test.sh; also runnable on its own.
set -euo pipefail

cls_packages=(pocl-opencl-icd ocl-icd-opencl-dev opencl-headers check cmake
  pkg-config gcc g++ make libc6-dev)
# The interop examples (docs/interop.md): CLBlast for gemm_pipeline, Open MPI
# for mpi_halo.
cls_packages+=(libclblast-dev libopenmpi-dev openmpi-bin)
# The Python package (docs/python.md): its tests and examples run on
# Debian's interpreter with apt's PyOpenCL, NumPy and pytest; python3-venv
# and python3-pip for `pip install ./python` in a virtual environment.
cls_packages+=(python3 python3-numpy python3-pyopencl python3-pytest
  python3-venv python3-pip)
# The other OpenCL implementations CI runs the suite on (ci/test.sh): Mesa's
# rusticl (on llvmpipe) and the Oclgrind simulator; clang-format for the
# style check.  CLS_SETUP_MINIMAL=1 skips them.
if [[ ${CLS_SETUP_MINIMAL:-0} != 1 ]]; then
  cls_packages+=(mesa-opencl-icd oclgrind clang-format)
fi

cls_missing=()
for p in "${cls_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
    grep -q 'install ok installed'; then
    cls_missing+=("$p")
  fi
done

if ((${#cls_missing[@]})); then
  echo "ci: installing ${cls_missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "ci: missing packages (${cls_missing[*]}); run as root" >&2
    exit 1
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${cls_missing[@]}"
else
  echo "ci: all packages present"
fi
