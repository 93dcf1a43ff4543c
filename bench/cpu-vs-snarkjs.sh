#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# CPU prove time of the circomlib SHA-256 (256-bit) circuit on BN254 (31,264 constraints,
# domain 2^15): `cuzk prove` against `snarkjs groth16 prove`, whole process each, median of
# RUNS runs (default 5); every proof checked by snarkjs. Builds the inputs once (insecure test
# ptau and key) with tools/js/make-sha256-bench.sh.
#   bench/cpu-vs-snarkjs.sh [build-dir]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD=${1:-build}
RUNS=${RUNS:-5}
D=$BUILD/bench-sha256
[ -f "$D/circuit.zkey" ] && [ -f "$D/witness.wtns" ] || bash tools/js/make-sha256-bench.sh "$D"
SNARKJS=tools/js/node_modules/.bin/snarkjs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_ms() {  # runs "$@" once, prints wall milliseconds
  local t0 t1
  t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}
: > "$T/cases"
for i in $(seq "$RUNS"); do
  time_ms "$BUILD/cuzk" prove "$D/circuit.zkey" "$D/witness.wtns" "$T/c$i.json" "$T/cp$i.json" >> "$T/cuzk"
  echo "$D/verification_key.json $T/cp$i.json $T/c$i.json" >> "$T/cases"
done
for i in $(seq "$RUNS"); do
  time_ms "$SNARKJS" groth16 prove "$D/circuit.zkey" "$D/witness.wtns" "$T/s$i.json" "$T/sp$i.json" >> "$T/snarkjs"
  echo "$D/verification_key.json $T/sp$i.json $T/s$i.json" >> "$T/cases"
done
"$BUILD/cuzk" prove "$D/circuit.zkey" "$D/witness.wtns" "$T/last.json" "$T/lastp.json" 2>&1 | tail -n 1
node tests/snarkjs/verify-many.mjs "$T/cases" | tail -n 1
echo "cores: $(nproc); runs: $RUNS"
echo "cuzk prove (whole process):    median $(median < "$T/cuzk") ms   [$(tr '\n' ' ' < "$T/cuzk")]"
echo "snarkjs groth16 prove:         median $(median < "$T/snarkjs") ms   [$(tr '\n' ' ' < "$T/snarkjs")]"
