#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk as a subproject: tests/package/consumer configured with add_subdirectory(cuzk's tree), its
# two programs built (so cuzk's libraries only: no CLI, tests or daemon) and run on FIXTURE.
# The consumer is built next to BUILD_DIR (BUILD_DIR-subproject, removed afterwards), with
# BUILD_DIR's compiler and options: at the same depth, ccache finds every object of cuzk already
# compiled there, so this costs a configure and a link, not a second build.
#   bash tests/package/add_subdirectory.sh SOURCE_DIR BUILD_DIR FIXTURE_DIR
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
FIX=$3
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD-subproject
rm -rf "$OUT"
trap 'rm -rf "$OUT"' EXIT
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
args=(-DCMAKE_BUILD_TYPE="$(cache CMAKE_BUILD_TYPE)" -DCMAKE_C_COMPILER="$(cache CMAKE_C_COMPILER)"
      -DCMAKE_CXX_COMPILER="$(cache CMAKE_CXX_COMPILER)" -DCUZK_CUDA="$(cache CUZK_CUDA)"
      -DCUZK_CUDA_ARCHITECTURES="$(cache CUZK_CUDA_ARCHITECTURES)" -DCUZK_MINIMAL="$(cache CUZK_MINIMAL)")
# ccache keys relative to the common parent, as scripts/test.sh's CCACHE_BASEDIR does.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$BUILD")}
start=$(date +%s)
log=$(mktemp)
cmake -S "$HERE/consumer" -B "$OUT" -G "$(cache CMAKE_GENERATOR)" -DCUZK_FROM=subdirectory -DCUZK_SOURCE_DIR="$SRC" "${args[@]}" \
  > "$log" 2>&1 || { cat "$log"; rm -f "$log"; exit 1; }
rm -f "$log"
cmake --build "$OUT" > "$OUT/build.log" || { cat "$OUT/build.log"; exit 1; }
echo "configured and built in $(( $(date +%s) - start )) s ($(grep -c 'Building' "$OUT/build.log") compiled," \
     "$(grep -rqs --include='*.ninja' --include='*.make' ccache "$OUT" && echo "through ccache" || echo "no ccache"))"
for f in cuzk/cuzk cuzk/tests cuzk/bench cuzk/libcuzk_daemon.a; do
  [ ! -e "$OUT/$f" ] || { echo "FAIL the subproject builds more than the libraries: $f"; exit 1; }
done
for p in prove_shared prove_static; do
  echo "== $p"
  "$OUT/$p" "$FIX"
done
