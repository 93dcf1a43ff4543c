#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The bellperson C ABI end to end: for BLS12-381 fixtures, a .params and .vk from
# `cuzk setup --format bellperson`, the reference proofs from `cuzk prove --seed` (witness and
# witness2), the same circuits as bellperson's synthesis would leave them (bellperson_abi_data,
# with the r, s of that seed), then the C program (bellperson_abi_test) proves both in one call
# through the ABI and checks every refusal. The device: $CUZK_BP_DEVICE (cpu by default).
#   bash tests/bellperson_abi.sh CUZK BELLPERSON_ABI_DATA BELLPERSON_ABI_TEST
set -euo pipefail
CUZK=$1
DATA=$2
TEST=$3
HERE=$(cd "$(dirname "$0")" && pwd)
SEED=20261201
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for fix in mulchain poseidon; do
  dir=$HERE/fixtures/bls12-381/$fix
  out=$T/$fix
  mkdir -p "$out"
  "$CUZK" setup "$dir/circuit.r1cs" "$out/key" --insecure --format bellperson --seed 7 --device cpu --quiet
  for w in witness witness2; do
    "$CUZK" prove "$out/key.params" "$dir/$w.wtns" "$out/$w-proof.json" "$out/$w-public.json" \
      --r1cs "$dir/circuit.r1cs" --proof-bin "$out/$w.bin" --seed $SEED --device cpu --quiet
    "$DATA" "$dir/circuit.r1cs" "$dir/$w.wtns" $SEED "$out/$w.assign"
  done
  echo "== $fix"
  "$TEST" "$out/key.params" "$out/key.vk" "$out/witness.assign" "$out/witness2.assign" "$out/witness.bin" "$out/witness2.bin"
done
