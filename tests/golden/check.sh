#!/usr/bin/env bash
# The proofs cuzk makes for a fixed --seed never change: every fixture (both curves, both
# witnesses, with and without --r1cs) proved with `cuzk prove` on DEVICE, and a two-partition job
# with `prove --partitions`, must give exactly the bytes recorded in tests/golden/ (proof.json,
# public.json and the compressed proof). A GPU gives the CPU's proof for the same r, s, so the
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
if [ -n "$RECORD" ]; then echo "golden: recorded $checked files"; exit 0; fi
[ "$checked" -ge 100 ] || { echo "golden: only $checked files compared"; exit 1; }
[ $fail = 0 ] || { echo "golden: proofs differ from the recorded ones"; exit 1; }
echo "golden: $checked files identical to the recorded proofs (device $DEVICE, seed $SEED)"
