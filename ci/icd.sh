#!/usr/bin/env bash
# Sourced by the CI scripts: makes a private folder of OpenCL ICD files that
# names only the implementation under test, for OCL_ICD_VENDORS (ocl-icd
# reads that folder instead of /etc/OpenCL/vendors; it ignores
# OCL_ICD_FILENAMES).  A run that loads only its own driver is not disturbed
# by other drivers installed on the machine: Mesa's clover, for one, leaks
# at load, and LeakSanitizer would fail every test of a sanitizer run.
#
#   cls_icd_dir <name> <dir>   writes <dir>/<name>.icd naming the library of
#                              implementation <name> (pocl, rusticl or
#                              oclgrind); returns 1 if it is not installed.

# The library of implementation $1: the path an installed .icd file names,
# else the library found in the usual folders.
cls_icd_lib() {
  local name=$1 f lib d
  local sys=${CLS_SYSTEM_VENDORS:-${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}}
  for f in "$sys"/*.icd; do
    [[ -e $f ]] || continue
    lib=$(head -n1 "$f")
    case $name in
    pocl) [[ $lib == *pocl* ]] && { echo "$lib"; return 0; } ;;
    rusticl) [[ $lib == *Rusticl* || $lib == *rusticl* ]] && { echo "$lib"; return 0; } ;;
    oclgrind) [[ $lib == *oclgrind* ]] && { echo "$lib"; return 0; } ;;
    esac
  done
  local files=()
  case $name in
  pocl) files=(libpocl.so.2 libpocl.so) ;;
  rusticl) files=(libRusticlOpenCL.so.1 libRusticlOpenCL.so) ;;
  oclgrind) files=(oclgrind/liboclgrind-rt-icd.so liboclgrind-rt-icd.so) ;;
  *) return 1 ;;
  esac
  for d in /usr/lib/x86_64-linux-gnu /usr/lib /usr/lib64 /usr/local/lib; do
    for f in "${files[@]}"; do
      [[ -e $d/$f ]] && { echo "$d/$f"; return 0; }
    done
  done
  return 1
}

cls_icd_dir() {
  local name=$1 dir=$2 lib
  lib=$(cls_icd_lib "$name") || return 1
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "$lib" >"$dir/$name.icd"
}
