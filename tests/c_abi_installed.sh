#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The C test against the installed library: `cmake --install` into a temporary prefix, then
# tests/c_abi_test.c compiled as C with plain `cc` and pkg-config alone (no path of the source
# tree) and run as ctest c_abi runs it:
#   shared: `pkg-config --cflags --libs cuzk` (libcuzk.so; the program must load it by its SONAME)
#   static: `pkg-config --cflags --libs cuzk-static` (libcuzk.a; the program must need no libcuzk.so),
#           then `cc -static` with `pkg-config --static --cflags --libs cuzk` (cuzk.pc's Libs.private;
#           not in a CUDA build)
# Exit 77 (skipped) without pkg-config.
#   bash tests/c_abi_installed.sh BUILD_DIR C_COMPILER [shared|static]
set -euo pipefail
BUILD=$1
CC=$2
MODE=${3:-shared}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v pkg-config > /dev/null || { echo "skipped: no pkg-config"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cmake --install "$BUILD" --prefix "$T/prefix" > "$T/install.log"
pc=$(find "$T/prefix" -name cuzk.pc)
[ -n "$pc" ] || { echo "FAIL no cuzk.pc installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir cuzk)
case $MODE in
  shared) flags="$(pkg-config --cflags --libs cuzk) -Wl,-rpath,$libdir" ;;
  static) flags=$(pkg-config --cflags --libs cuzk-static) ;;
  *) echo "unknown mode $MODE"; exit 2 ;;
esac
echo "flags ($MODE): $flags"
cp "$HERE/c_abi_test.c" "$T/prog.c"  # compiled away from the tree: only the installed headers
# shellcheck disable=SC2086
"$CC" -std=c99 -Wall -Wextra -Werror=implicit-function-declaration "$T/prog.c" -o "$T/prog" $flags
needed=$(readelf -d "$T/prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "prog needs: $needed"
soname=$(readelf -d "$libdir/libcuzk.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$MODE" = shared ]; then
  [[ " $needed " == *" $soname "* ]] || { echo "FAIL the program does not load $soname"; exit 1; }
  [ "$(ldd "$T/prog" | awk '/libcuzk/{print $3}')" -ef "$libdir/$soname" ] ||
    { echo "FAIL the program does not load the installed $soname"; exit 1; }
else
  [[ " $needed " != *libcuzk* ]] || { echo "FAIL the static program needs $needed"; exit 1; }
fi
bash "$HERE/c_abi.sh" "$T/prog"
if [ "$MODE" = static ] && pkg-config --static --libs cuzk | grep -q cudart; then
  # The CUDA runtime loads the driver with dlopen, which a fully static program cannot rely on.
  echo "cc -static: not tried (a CUDA build)"
elif [ "$MODE" = static ]; then
  flags=$(pkg-config --static --cflags --libs cuzk)
  echo "flags (cc -static): $flags"
  # shellcheck disable=SC2086
  "$CC" -static -std=c99 -Wall -Wextra "$T/prog.c" -o "$T/prog-static" $flags
  ! readelf -d "$T/prog-static" 2> /dev/null | grep -q NEEDED || { echo "FAIL cc -static gave a dynamic program"; exit 1; }
  bash "$HERE/c_abi.sh" "$T/prog-static"
fi
