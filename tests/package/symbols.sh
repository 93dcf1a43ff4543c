#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# libcuzk.so exports exactly the C interfaces: the functions its installed headers declare
# (include/cuzk/*.h, preprocessed as C), no fewer and nothing else (no C++ symbol, nothing of
# the static CUDA runtime); it has a SONAME, and libcuzk.so links to it.
#   bash tests/package/symbols.sh LIBCUZK_SO INCLUDE_DIR C_COMPILER
set -euo pipefail
LIB=$1
INC=$2
CC=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for h in "$INC"/cuzk/*.h; do echo "#include \"cuzk/$(basename "$h")\""; done > "$T/all.c"
"$CC" -E -P -I"$INC" "$T/all.c" | grep -oE '\b(cuzk|groth16)_[A-Za-z0-9_]+[[:space:]]*\(' | tr -d '( \t' |
  sort -u > "$T/declared"
nm -D --defined-only "$LIB" | awk '{print $NF}' | sort -u > "$T/exported"
echo "declared $(wc -l < "$T/declared"), exported $(wc -l < "$T/exported")"
if ! diff "$T/declared" "$T/exported" > "$T/diff"; then
  echo "FAIL exported symbols differ from the headers' functions (< declared only, > exported only):"
  cat "$T/diff"
  exit 1
fi
soname=$(readelf -d "$LIB" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" =~ ^libcuzk\.so\.[0-9]+(\.[0-9]+)?$ ]] || { echo "FAIL SONAME '$soname'"; exit 1; }
dir=$(dirname "$LIB")
[ "$(readlink -f "$dir/libcuzk.so")" = "$(readlink -f "$dir/$soname")" ] ||
  { echo "FAIL libcuzk.so does not lead to $soname"; exit 1; }
echo "libcuzk.so: SONAME $soname, exports: $(tr '\n' ' ' < "$T/exported")"
