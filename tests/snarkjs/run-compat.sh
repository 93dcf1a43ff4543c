#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk in place of rapidsnark and snarkjs:
# - `cuzk prover` (rapidsnark's prover) proves every fixture, both curves; snarkjs accepts every
#   proof; rapidsnark's exit codes and messages on a wrong number of arguments and on a missing
#   file, nothing written then;
# - `cuzk zkey export verificationkey` writes, for every fixture key, the bytes snarkjs's command
#   of that name writes; `snarkjs groth16 verify` (its command line) with cuzk's key accepts a
#   proof of `cuzk prover` on each curve and rejects one with another public input.
# Exit 77 (skipped) when node or the npm packages are missing.
set -u
CUZK=${1:?usage: run-compat.sh path/to/cuzk}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FIX=${CUZK_FIXTURES:-$ROOT/tests/fixtures}
SNARKJS_CLI=$ROOT/tools/js/node_modules/snarkjs/build/cli.cjs
if ! command -v node > /dev/null || [ ! -f "$SNARKJS_CLI" ]; then
  echo "skipped: node or snarkjs missing (run: npm ci --prefix tools/js)"; exit 77
fi
snarkjs() { node "$SNARKJS_CLI" "$@"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); echo "ok   $*"; }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
cases=$T/cases.txt; : > "$cases"

# --- cuzk prover: every fixture, judged by snarkjs in one node process.
for dir in "$FIX"/bn254/* "$FIX"/bls12-381/*; do
  [ -f "$dir/circuit.zkey" ] || continue
  name=$(basename "$(dirname "$dir")")-$(basename "$dir")
  "$CUZK" prover "$dir/circuit.zkey" "$dir/witness.wtns" "$T/$name.proof.json" "$T/$name.public.json" \
    > "$T/out" 2> "$T/err"
  rc=$?
  if [ $rc = 0 ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ] && cmp -s "$T/$name.public.json" "$dir/public.json"; then
    ok "prover $name: exit 0, silent, public.json equals snarkjs's"
    echo "$dir/verification_key.json $T/$name.public.json $T/$name.proof.json valid" >> "$cases"
  else
    bad "prover $name (exit $rc)"; sed 's/^/    /' "$T/out" "$T/err"
  fi
done
if node "$ROOT/tests/snarkjs/verify-many.mjs" "$cases" > "$T/verdicts" 2>&1; then
  ok "snarkjs accepts every proof of cuzk prover ($(tail -n1 "$T/verdicts"))"
else
  bad "snarkjs on the proofs of cuzk prover:"; sed 's/^/    /' "$T/verdicts"
fi

# --- cuzk prover: rapidsnark's answers to bad calls (exit 1; nothing written).
BN=$FIX/bn254/mulchain
# prover_fails NAME FIRST_LINE_START SECOND_LINE -- args (outputs under $T/o; "" for no second line)
prover_fails() {
  local name=$1 first=$2 second=$3; shift 4
  rm -rf "$T/o"; mkdir "$T/o"
  "$CUZK" prover "$@" > "$T/out" 2> "$T/err"; local rc=$?
  if [ $rc = 1 ] && [[ "$(sed -n 1p "$T/err")" == "$first"* ]] && [ "$(sed -n 2p "$T/err")" = "$second" ] &&
     [ -z "$(ls -A "$T/o")" ] && [ ! -s "$T/out" ]; then
    ok "prover $name: exit 1, $(head -n1 "$T/err")"
  else
    bad "prover $name (exit $rc, expected 1; or files written)"; sed 's/^/    /' "$T/err"; ls -A "$T/o"
  fi
}
USAGE="Usage: cuzk prover <circuit.zkey> <witness.wtns> <proof.json> <public.json>"
COUNT="Invalid number of parameters"
prover_fails no-arguments "$COUNT" "$USAGE" --
prover_fails three-arguments "$COUNT" "$USAGE" -- "$BN/circuit.zkey" "$BN/witness.wtns" "$T/o/proof.json"
prover_fails five-arguments "$COUNT" "$USAGE" -- "$BN/circuit.zkey" "$BN/witness.wtns" "$T/o/proof.json" "$T/o/public.json" "$T/o/x"
prover_fails missing-zkey "Error: $T/nope.zkey: cannot open: No such file or directory" "" -- \
  "$T/nope.zkey" "$BN/witness.wtns" "$T/o/proof.json" "$T/o/public.json"
prover_fails missing-witness "Error: $T/nope.wtns: cannot open: No such file or directory" "" -- \
  "$BN/circuit.zkey" "$T/nope.wtns" "$T/o/proof.json" "$T/o/public.json"
prover_fails wrong-curve-witness "Error: $FIX/bls12-381/mulchain/witness.wtns: witness is for bls12-381 but" "" -- \
  "$BN/circuit.zkey" "$FIX/bls12-381/mulchain/witness.wtns" "$T/o/proof.json" "$T/o/public.json"
prover_fails missing-output-dir "Error: cannot write $T/o/no/proof.json: directory $T/o/no does not exist" "" -- \
  "$BN/circuit.zkey" "$BN/witness.wtns" "$T/o/no/proof.json" "$T/o/public.json"
# A witness that no longer satisfies the constraints (the lowest bit of its last value flipped):
# the proof fails its check against the key and is not written.
cp "$BN/witness.wtns" "$T/bad.wtns"
size=$(stat -c %s "$T/bad.wtns")
printf "$(printf '\\x%02x' $(( $(od -An -tu1 -j $((size-32)) -N1 "$T/bad.wtns") ^ 1 )))" |
  dd of="$T/bad.wtns" bs=1 seek=$((size-32)) conv=notrunc status=none
prover_fails self-verify "Error: " "" -- "$BN/circuit.zkey" "$T/bad.wtns" "$T/o/proof.json" "$T/o/public.json"
grep -q "does not verify" "$T/err" || bad "prover self-verify: the error does not say the proof does not verify"
prover_fails unknown-option "Error: unknown option --bogus" "$USAGE" -- \
  "$BN/circuit.zkey" "$BN/witness.wtns" "$T/o/proof.json" "$T/o/public.json" --bogus

# --- cuzk zkey export verificationkey: snarkjs's bytes, on every key of both curves.
for zkey in "$FIX"/*/*/circuit.zkey "$FIX"/*/*/circuit_setup.zkey; do
  [ -f "$zkey" ] || continue
  dir=$(dirname "$zkey"); name=$(basename "$(dirname "$dir")")-$(basename "$dir")-$(basename "$zkey" .zkey)
  if ! "$CUZK" zkey export verificationkey "$zkey" "$T/$name.cuzk-vk.json" 2> "$T/err"; then
    bad "zkey export verificationkey $name"; sed 's/^/    /' "$T/err"; continue
  fi
  snarkjs zkey export verificationkey "$zkey" "$T/$name.snarkjs-vk.json" > /dev/null 2>&1
  if [ -s "$T/$name.snarkjs-vk.json" ] && cmp -s "$T/$name.cuzk-vk.json" "$T/$name.snarkjs-vk.json"; then
    ok "zkey export verificationkey $name: byte for byte snarkjs's ($(wc -c < "$T/$name.cuzk-vk.json") bytes)"
  else
    bad "zkey export verificationkey $name differs from snarkjs's"
    diff "$T/$name.cuzk-vk.json" "$T/$name.snarkjs-vk.json" | head -n 10
  fi
done
# `snarkjs groth16 verify` with cuzk's key: a proof of cuzk prover on each curve, then the same
# proof with another witness's public inputs.
for curve in bn254 bls12-381; do
  name=$curve-mulchain
  vk=$T/$name-circuit.cuzk-vk.json
  snarkjs groth16 verify "$vk" "$T/$name.public.json" "$T/$name.proof.json" > "$T/out" 2>&1; rc=$?
  if [ $rc = 0 ] && grep -q "OK" "$T/out"; then ok "snarkjs groth16 verify, cuzk's key, $curve: $(grep OK "$T/out")"
  else bad "snarkjs groth16 verify with cuzk's key, $curve (exit $rc)"; sed 's/^/    /' "$T/out"; fi
  snarkjs groth16 verify "$vk" "$FIX/$curve/mulchain/public2.json" "$T/$name.proof.json" > "$T/out" 2>&1; rc=$?
  if [ $rc != 0 ] && grep -q "Invalid proof" "$T/out"; then ok "snarkjs groth16 verify, cuzk's key, $curve, other public inputs: rejected"
  else bad "snarkjs groth16 verify accepted other public inputs, $curve (exit $rc)"; sed 's/^/    /' "$T/out"; fi
done
# And its refusals: not a .zkey, no such file, no such directory (exit 1, nothing written).
export_fails() {
  local name=$1 needle=$2; shift 2
  rm -rf "$T/o"; mkdir "$T/o"
  "$CUZK" zkey export verificationkey "$@" > "$T/out" 2> "$T/err"; local rc=$?
  if [ $rc = 1 ] && grep -qF -- "$needle" "$T/err" && [ -z "$(ls -A "$T/o")" ]; then ok "zkey export $name: $(head -n1 "$T/err")"
  else bad "zkey export $name (exit $rc)"; sed 's/^/    /' "$T/err"; fi
}
export_fails witness-as-zkey "not a .zkey file" "$BN/witness.wtns" "$T/o/vk.json"
export_fails missing-zkey "$T/nope.zkey: cannot open" "$T/nope.zkey" "$T/o/vk.json"
export_fails missing-dir "directory $T/o/no does not exist" "$BN/circuit.zkey" "$T/o/no/vk.json"
head -c 600 "$BN/circuit.zkey" > "$T/cut.zkey"
export_fails truncated-zkey "cut.zkey" "$T/cut.zkey" "$T/o/vk.json"

echo "run-compat: $pass passed, $fail failed"
[ $fail = 0 ]
