#!/usr/bin/env bash
# Quick start: installs what is missing, builds cuzk, proves the bundled example circuits
# (a Poseidon chain on BN254 and on BLS12-381) and has snarkjs verify the proofs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/install-deps.sh
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target cuzk
"$BUILD_DIR/cuzk" --version
out=$(mktemp -d)
for curve in bn254 bls12-381; do
  ex=tests/fixtures/$curve/poseidon
  echo
  echo "== $curve: cuzk prove $ex/circuit.zkey $ex/witness.wtns"
  "$BUILD_DIR/cuzk" prove "$ex/circuit.zkey" "$ex/witness.wtns" "$out/proof-$curve.json" "$out/public-$curve.json" \
    --r1cs "$ex/circuit.r1cs" --proof-bin "$out/proof-$curve.bin"
  echo "== snarkjs groth16 verify"
  tools/js/node_modules/.bin/snarkjs groth16 verify "$ex/verification_key.json" "$out/public-$curve.json" \
    "$out/proof-$curve.json"
done
echo
echo "proofs written to $out"
