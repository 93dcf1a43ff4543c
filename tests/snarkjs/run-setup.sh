#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Keys from `cuzk setup --insecure` and circuits from `cuzk gen-circuit` judged by snarkjs:
#   - cuzk setup on the committed circom circuits (both curves): snarkjs exports the verification
#     key, proves with the key and verifies; cuzk proves with it and snarkjs verifies that too;
#   - cuzk gen-circuit (porep and dense, both curves, 2 partitions, --setup): snarkjs checks the
#     witnesses against the r1cs, proves and verifies; cuzk's proofs verify under snarkjs;
#   - a tampered public input is rejected (the check can fail).
# Exit 77 (skipped) when node or the npm packages are missing.
set -u
CUZK=${1:?usage: run-setup.sh path/to/cuzk}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FIX=${CUZK_FIXTURES:-$ROOT/tests/fixtures}
SNARKJS=$ROOT/tools/js/node_modules/.bin/snarkjs
if ! command -v node >/dev/null || [ ! -x "$SNARKJS" ]; then
  echo "skipped: node or snarkjs missing (run: npm ci --prefix tools/js)"; exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0; ok=0
pass() { ok=$((ok+1)); echo "ok   $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
sj() { "$SNARKJS" "$@" > "$T/sj.log" 2>&1; }
# $1 zkey, $2 wtns, $3 label: snarkjs exports the vk, proves, verifies; cuzk proves, snarkjs verifies;
# a changed public input must be rejected.
judge() {
  local zkey=$1 wtns=$2 label=$3 d=$T/$3
  mkdir -p "$d"
  sj zkey export verificationkey "$zkey" "$d/vk.json" || { bad "$label: snarkjs cannot export the verification key"; cat "$T/sj.log"; return; }
  if sj groth16 prove "$zkey" "$wtns" "$d/sp.json" "$d/spub.json" && sj groth16 verify "$d/vk.json" "$d/spub.json" "$d/sp.json" && grep -q "OK!" "$T/sj.log"; then
    pass "$label: snarkjs proves and verifies with the cuzk key"
  else bad "$label: snarkjs prove/verify with the cuzk key"; cat "$T/sj.log"; fi
  if "$CUZK" prove "$zkey" "$wtns" "$d/p.json" "$d/pub.json" --device cpu --quiet && sj groth16 verify "$d/vk.json" "$d/pub.json" "$d/p.json" && grep -q "OK!" "$T/sj.log"; then
    pass "$label: snarkjs verifies cuzk's proof"
  else bad "$label: cuzk proof under snarkjs"; cat "$T/sj.log"; fi
  # Tamper: the first public input + 1 (as a decimal string).
  node -e '
    const f=process.argv[1], o=process.argv[2]; const p=JSON.parse(require("fs").readFileSync(f));
    p[0]=(BigInt(p[0])+1n).toString(); require("fs").writeFileSync(o, JSON.stringify(p));' "$d/pub.json" "$d/pub_bad.json"
  if sj groth16 verify "$d/vk.json" "$d/pub_bad.json" "$d/p.json" || ! grep -q "Invalid proof" "$T/sj.log"; then
    bad "$label: snarkjs accepted a changed public input"; cat "$T/sj.log"
  else pass "$label: a changed public input is rejected"; fi
}

for c in bn254 bls12-381; do
  for circ in poseidon mulchain; do
    dir=$FIX/$c/$circ
    [ -f "$dir/circuit.r1cs" ] || continue
    if "$CUZK" setup "$dir/circuit.r1cs" "$T/$c-$circ.zkey" --insecure --seed 11 --device cpu --quiet; then
      judge "$T/$c-$circ.zkey" "$dir/witness.wtns" "setup-$c-$circ"
    else bad "cuzk setup $dir/circuit.r1cs"; fi
  done
  for shape in porep dense; do
    g=$T/gen-$c-$shape
    if ! "$CUZK" gen-circuit --shape $shape --log-n 11 --curve $c --out "$g" --partitions 2 --setup --setup-seed 5 \
         --device cpu --quiet; then bad "cuzk gen-circuit $shape $c"; continue; fi
    for i in 0 1; do
      if sj wtns check "$g/circuit.r1cs" "$g/witness_$i.wtns" && grep -q "WITNESS IS CORRECT" "$T/sj.log"; then
        pass "gen-$c-$shape: snarkjs finds witness_$i correct"
      else bad "gen-$c-$shape: snarkjs wtns check witness_$i"; cat "$T/sj.log"; fi
    done
    judge "$g/circuit.zkey" "$g/witness_1.wtns" "gen-$c-$shape"
  done
done
# The engine: a 10-partition job on two simulated devices; snarkjs verifies every proof.
g=$T/gen-bls12-381-porep
ws=$(for i in 0 1 0 1 0 1 0 1 0 1; do printf '%s,' "$g/witness_$i.wtns"; done); ws=${ws%,}
if "$CUZK" prove "$g/circuit.zkey" --partitions "$ws" --out "$T/job" --devices sim:2 --r1cs "$g/circuit.r1cs" --quiet; then
  sj zkey export verificationkey "$g/circuit.zkey" "$T/job-vk.json"
  good=0
  for i in 0 1 2 3 4 5 6 7 8 9; do
    sj groth16 verify "$T/job-vk.json" "$T/job/public_$i.json" "$T/job/proof_$i.json" && grep -q "OK!" "$T/sj.log" && good=$((good+1))
  done
  bin=$(stat -c %s "$T/job/proofs.bin")
  if [ "$good" = 10 ] && [ "$bin" = 1920 ] && grep -q '"sim:1"' "$T/job/summary.json" && grep -q '"sim:0"' "$T/job/summary.json" \
     && grep -q '</svg>' "$T/job/timeline.svg"; then
    pass "engine: 10 partitions on sim:0 and sim:1, snarkjs verifies all 10, proofs.bin 1920 bytes"
  else bad "engine job: $good of 10 verified, proofs.bin $bin bytes"; fi
else bad "cuzk prove --partitions"; fi
echo "snarkjs setup checks: $ok passed, $fail failed"
[ "$fail" -eq 0 ]
