#!/usr/bin/env bash
# The C test against the installed library: `cmake --install` into a temporary prefix, then
# tests/c_abi_test.c compiled as C with `pkg-config --cflags --libs cuzk` alone (no path of the
# source tree) and run as ctest c_abi runs it. Exit 77 (skipped) without pkg-config.
#   bash tests/c_abi_installed.sh BUILD_DIR C_COMPILER
set -euo pipefail
BUILD=$1
CC=$2
HERE=$(cd "$(dirname "$0")" && pwd)
command -v pkg-config > /dev/null || { echo "skipped: no pkg-config"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cmake --install "$BUILD" --prefix "$T/prefix" > "$T/install.log"
pc=$(find "$T/prefix" -name cuzk.pc)
[ -n "$pc" ] || { echo "FAIL no cuzk.pc installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs cuzk)
echo "pkg-config --cflags --libs cuzk: $flags"
cp "$HERE/c_abi_test.c" "$T/prog.c"  # compiled away from the tree: only the installed headers
# shellcheck disable=SC2086
"$CC" -std=c99 -Wall -Wextra -Werror=implicit-function-declaration "$T/prog.c" -o "$T/prog" $flags
bash "$HERE/c_abi.sh" "$T/prog"
