#!/usr/bin/env bash
# The proofs cuzk makes for a fixed --seed never change: every fixture (both curves, both
# witnesses, with and without --r1cs) proved with `cuzk prove` on DEVICE, and a two-partition job
# with `prove --partitions`, must give exactly the bytes recorded in tests/golden/ (proof.json,
# public.json and the compressed proof); so must the proofs from bellperson .params files. A GPU gives the CPU's proof for the same r, s, so the
# same files judge both.
#   bash tests/golden/check.sh CUZK [DEVICE]          (DEVICE: cpu by default, or gpu:N)
#   bash tests/golden/check.sh CUZK cpu --record      (writes the files; only for a new fixture)
set -euo pipefail
CUZK=$1
DEVICE=${2:-cpu}
RECORD=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
FIX=$HERE/../fixtures
SEED=20261201
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
checked=0
fail=0
same() {  # golden-file produced-file
  if [ -n "$RECORD" ]; then
    mkdir -p "$(dirname "$1")"
    cp "$2" "$1"
  elif ! cmp -s "$1" "$2"; then
    echo "DIFFERS: $1 (made by: $3)"
    fail=1
  fi
  checked=$((checked + 1))
}
for dir in "$FIX"/bn254/* "$FIX"/bls12-381/*; do
  [ -f "$dir/circuit.zkey" ] || continue
  name=$(basename "$(dirname "$dir")")/$(basename "$dir")
  for w in witness witness2; do
    [ -f "$dir/$w.wtns" ] || continue
    for r1cs in no yes; do
      extra=()
      [ "$r1cs" = yes ] && extra=(--r1cs "$dir/circuit.r1cs")
      out=$T/$name/$w-$r1cs
      mkdir -p "$out"
      cmd=("$CUZK" prove "$dir/circuit.zkey" "$dir/$w.wtns" "$out/proof.json" "$out/public.json" --proof-bin "$out/proof.bin" --seed $SEED --device "$DEVICE" --quiet "${extra[@]}")
      "${cmd[@]}"
      for f in proof.json public.json proof.bin; do same "$HERE/$name/$w/$f" "$out/$f" "${cmd[*]}"; done
    done
  done
  out=$T/$name/job
  cmd=("$CUZK" prove "$dir/circuit.zkey" --partitions "$dir/witness.wtns,$dir/witness2.wtns" --out "$out" --seed $SEED --devices "$DEVICE" --quiet)
  [ -f "$dir/witness2.wtns" ] || cmd=("$CUZK" prove "$dir/circuit.zkey" --partitions "$dir/witness.wtns,$dir/witness.wtns" --out "$out" --seed $SEED --devices "$DEVICE" --quiet)
  "${cmd[@]}"
  for f in proof_0.json proof_1.json public_0.json public_1.json proofs.bin; do same "$HERE/$name/job/$f" "$out/$f" "${cmd[*]}"; done
done
# bellperson's convention through its files: each BLS12-381 fixture and a PoRep-shaped synthetic
# circuit, keyed by `cuzk setup --format bellperson` (a fixed toxic-waste seed, so the .params is
# the same every time), proved from the .params with its .r1cs (one witness, and a job of two),
# and every proof accepted by the .vk.
gen=$T/porep-synthetic
"$CUZK" gen-circuit --shape porep --log-n 10 --curve bls12-381 --partitions 2 --seed 5 --out "$gen" --quiet
mv "$gen/witness_0.wtns" "$gen/witness.wtns"
mv "$gen/witness_1.wtns" "$gen/witness2.wtns"
for dir in "$FIX"/bls12-381/* "$gen"; do
  [ -f "$dir/circuit.r1cs" ] || continue
  name=bls12-381/$(basename "$dir")/bellperson
  key=$T/$name/key
  mkdir -p "$T/$name"
  "$CUZK" setup "$dir/circuit.r1cs" "$key" --insecure --format bellperson --seed 7 --device cpu --quiet
  w2=$dir/witness2.wtns
  [ -f "$w2" ] || w2=$dir/witness.wtns
  for w in witness witness2; do
    [ -f "$dir/$w.wtns" ] || continue
    out=$T/$name/$w
    mkdir -p "$out"
    cmd=("$CUZK" prove "$key.params" "$dir/$w.wtns" "$out/proof.json" "$out/public.json" --r1cs "$dir/circuit.r1cs" --proof-bin "$out/proof.bin" --seed $SEED --device "$DEVICE" --quiet)
    "${cmd[@]}"
    "$CUZK" verify "$key.vk" "$out/public.json" "$out/proof.json" --quiet || { echo "REFUSED by $key.vk: ${cmd[*]}"; fail=1; }
    for f in proof.json public.json proof.bin; do same "$HERE/$name/$w/$f" "$out/$f" "${cmd[*]}"; done
  done
  out=$T/$name/job
  cmd=("$CUZK" prove "$key.params" --partitions "$dir/witness.wtns,$w2" --r1cs "$dir/circuit.r1cs" --out "$out" --seed $SEED --devices "$DEVICE" --quiet)
  "${cmd[@]}"
  "$CUZK" verify "$key.vk" "$out/public_0.json" "$out/proof_0.json" "$out/public_1.json" "$out/proof_1.json" --quiet || { echo "REFUSED by $key.vk: ${cmd[*]}"; fail=1; }
  for f in proof_0.json proof_1.json public_0.json public_1.json proofs.bin; do same "$HERE/$name/job/$f" "$out/$f" "${cmd[*]}"; done
done
if [ -n "$RECORD" ]; then echo "golden: recorded $checked files"; exit 0; fi
[ "$checked" -ge 100 ] || { echo "golden: only $checked files compared"; exit 1; }
[ $fail = 0 ] || { echo "golden: proofs differ from the recorded ones"; exit 1; }
echo "golden: $checked files identical to the recorded proofs (device $DEVICE, seed $SEED)"
