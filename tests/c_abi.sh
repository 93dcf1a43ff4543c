#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk's C interfaces (include/cuzk/rapidsnark.h, include/cuzk/cuzk.h) end to end: the C program
# tests/c_abi_test.c proves the BN254 fixture mulchain (and cuzk.h the BLS12-381 one) from
# buffers and checks every refusal; then snarkjs judges the proofs it wrote (valid ones valid, a
# tampered one invalid) when node and tools/js's packages are there.
#   bash tests/c_abi.sh C_ABI_TEST
set -euo pipefail
TEST=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
FIX=$HERE/fixtures
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$TEST" "$FIX/bn254/mulchain" "$FIX/bn254/bits" "$FIX/bls12-381/mulchain" "$T"
n=$(grep -c . "$T/cases.txt")
[ "$n" -ge 8 ] || { echo "FAIL only $n proofs written for snarkjs"; exit 1; }
if command -v node > /dev/null && [ -d "$ROOT/tools/js/node_modules/snarkjs" ]; then
  node "$ROOT/tests/snarkjs/verify-many.mjs" "$T/cases.txt"
else
  echo "snarkjs: not run (node or tools/js/node_modules missing: npm ci --prefix tools/js)"
fi
