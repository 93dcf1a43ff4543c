#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# find_package(cuzk) from an installed prefix: `cmake --install` into a temporary prefix, then the
# project tests/package/consumer (nothing of cuzk's tree but its own files) configured with
# CMAKE_PREFIX_PATH, built, and both its programs run: prove_shared (cuzk::cuzk, which must load
# the installed libcuzk.so) and prove_static (cuzk::cuzk_static) each prove and verify FIXTURE;
# then as a C project without C++, with prove_shared alone. The version file must accept this
# version and refuse another major one.
#   bash tests/package/find_package.sh BUILD_DIR FIXTURE_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
FIX=$2
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cmake --install "$BUILD" --prefix "$T/prefix" > "$T/install.log"
cp -r "$HERE/consumer" "$T/src"
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
version=$(cache CMAKE_PROJECT_VERSION)
cmake -S "$T/src" -B "$T/build" -G "$(cache CMAKE_GENERATOR)" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$T/prefix" \
  -DCUZK_WANT_VERSION="$version" > "$T/configure.log" || { cat "$T/configure.log"; exit 1; }
grep "cuzk $version from" "$T/configure.log"
cmake --build "$T/build" > "$T/build.log" || { cat "$T/build.log"; exit 1; }
lib=$(ldd "$T/build/prove_shared" | awk '/libcuzk/{print $3}')
[ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$T"/prefix/lib*/libcuzk.so)" ] ||
  { echo "FAIL prove_shared loads '$lib', not the installed libcuzk.so"; exit 1; }
if ldd "$T/build/prove_static" | grep -q libcuzk; then
  echo "FAIL prove_static needs libcuzk.so"
  exit 1
fi
for p in prove_shared prove_static; do
  echo "== $p"
  "$T/build/$p" "$FIX"
done
# A C project (no C++ enabled) links cuzk::cuzk alone.
cmake -S "$T/src" -B "$T/build-c" -G "$(cache CMAKE_GENERATOR)" -DCMAKE_PREFIX_PATH="$T/prefix" -DCONSUMER_STATIC=OFF \
  > "$T/c.log" 2>&1 && cmake --build "$T/build-c" >> "$T/c.log" 2>&1 || { cat "$T/c.log"; exit 1; }
if grep -q "CMAKE_CXX_COMPILER:" "$T/build-c/CMakeCache.txt"; then echo "FAIL C++ enabled in the C project"; exit 1; fi
"$T/build-c/prove_shared" "$FIX" | tail -n 1
# Another major version is not this one.
if cmake -S "$T/src" -B "$T/build-v" -G "$(cache CMAKE_GENERATOR)" -DCMAKE_PREFIX_PATH="$T/prefix" -DCUZK_WANT_VERSION=99.0 > "$T/v.log" 2>&1; then
  echo "FAIL find_package(cuzk 99.0) accepted cuzk $version"
  exit 1
fi
grep -q "cuzkConfig.cmake, version: $version" "$T/v.log" || { cat "$T/v.log"; exit 1; }
echo "find_package(cuzk 99.0) refused cuzk $version, as it should"
