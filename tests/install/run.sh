#!/usr/bin/env bash
# The CTest test "install": installs a clstream build tree into a temporary
# prefix, then builds and runs the consumer project (this directory) against
# that prefix four ways: find_package with the shared and with the static
# library, pkg-config with the shared and with the static library.
#
# Usage: run.sh BUILD_DIR CONSUMER_DIR WORK_DIR [CMAKE [CC [GENERATOR [CONFIG
#               [--prefix-path=A|B|...] [-DVAR=VALUE...]]]]]
# --prefix-path adds to the consumer's CMAKE_PREFIX_PATH ('|' for ';') and
# -D options go to the consumer's configure: the main build passes how it
# found its own dependencies (OpenCL headers and library, CUDA), which a
# static consumer needs too.
set -eu

build=$1
consumer=$2
work=$3
cmake=${4:-cmake}
cc=${5:-cc}
generator=${6:-}
config=${7:-}
shift $(($# < 7 ? $# : 7))
extra_prefix=
extra_defs=()
for a in "$@"; do
  case $a in
  --prefix-path=*) extra_prefix=$(printf '%s' "${a#--prefix-path=}" | tr '|' ';') ;;
  -D*) extra_defs+=("$a") ;;
  *) echo "install test: unknown argument $a" >&2 && exit 2 ;;
  esac
done
# The installed tree is not under a sysroot, whatever the caller's
# pkg-config set-up says.
unset PKG_CONFIG_SYSROOT_DIR

fail() {
  echo "install test: $*" >&2
  exit 1
}
step() { echo "== $*"; }

prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

step "cmake --install into $prefix"
if [ -n "$config" ]; then
  "$cmake" --install "$build" --prefix "$prefix" --config "$config"
else
  "$cmake" --install "$build" --prefix "$prefix"
fi

# What must be in place.
[ -f "$prefix/include/clstream.h" ] || fail "include/clstream.h not installed"
[ -f "$prefix/include/clstream_cuda.h" ] || fail "include/clstream_cuda.h not installed"
for h in clstream_opencl.h clstream_cuda_interop.h; do
  [ -f "$prefix/include/$h" ] || fail "include/$h not installed"
done
pc=$(find "$prefix" -name clstream.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "clstream.pc not installed"
libdir=$(dirname "$(dirname "$pc")")
config_file=$(find "$prefix" -name clstreamConfig.cmake | head -n 1)
[ -n "$config_file" ] || fail "clstreamConfig.cmake not installed"
[ -f "$(dirname "$config_file")/clstreamConfigVersion.cmake" ] ||
  fail "clstreamConfigVersion.cmake not installed"
[ -f "$libdir/libclstream.a" ] || fail "libclstream.a not in $libdir"
[ -x "$prefix/bin/clstream-info" ] || fail "bin/clstream-info not installed"
real=$(find "$libdir" -name 'libclstream.so.*.*.*' | head -n 1)
[ -n "$real" ] || fail "no versioned libclstream.so.X.Y.Z in $libdir"
[ -L "$libdir/libclstream.so" ] || fail "libclstream.so development link missing"
if command -v readelf >/dev/null 2>&1; then
  soname=$(readelf -d "$real" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
  echo "SONAME $soname"
  case $soname in
  libclstream.so.[0-9]*) ;;
  *) fail "libclstream has no versioned SONAME (got '$soname')" ;;
  esac
  [ -e "$libdir/$soname" ] || fail "no $soname link in $libdir"
  # Only the public API is exported from the shared library.
  if readelf --dyn-syms -W "$real" | awk '$7 != "UND" {print $8}' |
    grep -E '^cls__' >/dev/null; then
    fail "the shared library exports private cls__ symbols"
  fi
fi

# Does the program at $1 load libclstream.so?  (ldd may be missing.)
uses_shared() {
  if command -v readelf >/dev/null 2>&1; then
    readelf -d "$1" | grep -q 'NEEDED.*libclstream\.so'
  else
    return 2
  fi
}

run_consumer() {
  out=$("$1") || fail "$1 failed: $out"
  echo "$out"
  echo "$out" | grep -q '^consumer: ok$' || fail "$1 did not print 'consumer: ok'"
}

for mode in shared static; do
  step "find_package(clstream CONFIG), $mode"
  dir=$work/cmake-$mode
  args=(-S "$consumer" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix${extra_prefix:+;$extra_prefix}"
    -DCMAKE_C_COMPILER="$cc" "${extra_defs[@]}")
  [ -n "$generator" ] && args+=(-G "$generator")
  [ -n "$config" ] && args+=(-DCMAKE_BUILD_TYPE="$config")
  [ "$mode" = static ] && args+=(-DCONSUMER_STATIC=ON)
  "$cmake" "${args[@]}"
  if [ -n "$config" ]; then
    "$cmake" --build "$dir" --config "$config"
  else
    "$cmake" --build "$dir"
  fi
  exe=$(find "$dir" -type f -name consumer -perm -u+x | head -n 1)
  [ -n "$exe" ] || fail "consumer not built in $dir"
  if [ "$mode" = static ]; then
    if uses_shared "$exe"; then fail "static consumer needs libclstream.so"; fi
  else
    uses_shared "$exe" || [ $? -eq 2 ] || fail "shared consumer does not load libclstream.so"
  fi
  run_consumer "$exe"
done

command -v pkg-config >/dev/null 2>&1 || fail "pkg-config not found"
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
step "pkg-config: clstream $(pkg-config --modversion clstream), $(pkg-config --variable=backend clstream) backend"
cflags=$(pkg-config --cflags clstream)
pc_libdir=$(pkg-config --variable=libdir clstream)
[ "$(cd "$pc_libdir" && pwd -P)" = "$(cd "$libdir" && pwd -P)" ] ||
  fail "clstream.pc's libdir $pc_libdir is not $libdir"

step "pkg-config, shared"
libs=$(pkg-config --libs clstream)
echo "$cc main.c $cflags $libs"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror -o "$work/pc-shared" "$consumer/main.c" \
  $cflags $libs -Wl,-rpath,"$pc_libdir"
uses_shared "$work/pc-shared" || [ $? -eq 2 ] || fail "pc-shared does not load libclstream.so"
run_consumer "$work/pc-shared"

step "pkg-config --static, static"
# -lclstream would pick the shared library; name the archive instead and
# take the rest (Libs.private) from pkg-config --static.
libs=$(pkg-config --static --libs clstream | sed 's/-lclstream\b/-l:libclstream.a/')
echo "$cc main.c $cflags $libs"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror -o "$work/pc-static" "$consumer/main.c" \
  $cflags $libs
if uses_shared "$work/pc-static"; then fail "pc-static needs libclstream.so"; fi
run_consumer "$work/pc-static"

step "bin/clstream-info"
"$prefix/bin/clstream-info" >"$work/info.txt" || fail "installed clstream-info failed"
grep -q '^device 0:' "$work/info.txt" || fail "installed clstream-info lists no device 0"

echo "install test: all passed"
