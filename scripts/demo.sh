#!/usr/bin/env bash
# Quick start: installs what is missing, builds cuzk, proves the bundled example circuits
# (a Poseidon chain on BN254 and on BLS12-381) and has snarkjs verify the proofs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/install-deps.sh
# With a GPU the demo builds the CUDA backend and proves there; without one it builds the CPU
# backend only (in its own directory: the CUDA kernels take minutes to compile and would not run).
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
  cuda=AUTO
else
  cuda=OFF
  BUILD_DIR=${BUILD_DIR}-cpu
  echo "demo: no GPU visible: building the CPU backend only (scripts/test.sh builds everything)"
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=$cuda > /dev/null
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
