#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk proves every committed fixture (both witnesses of each circuit, both curves); snarkjs, the
# independent verifier, must accept every proof and reject tampered ones; public.json must equal
# snarkjs's byte for byte. All verifications run in one node process.
# Exit 77 (skipped) when node or the npm packages are missing.
set -u
CUZK=${1:?usage: run-fixtures.sh path/to/cuzk}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FIX=${CUZK_FIXTURES:-$ROOT/tests/fixtures}
if ! command -v node >/dev/null || [ ! -d "$ROOT/tools/js/node_modules/snarkjs" ]; then
  echo "skipped: node or snarkjs missing (run: npm ci --prefix tools/js)"; exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cases=$T/cases.txt; : > "$cases"
fail=0; proofs=0
for dir in "$FIX"/bn254/* "$FIX"/bls12-381/*; do
  [ -f "$dir/circuit.zkey" ] || continue
  name=$(basename "$(dirname "$dir")")-$(basename "$dir")
  vk=$dir/verification_key.json
  for k in "" 2; do
    [ -f "$dir/witness$k.wtns" ] || continue
    p=$T/$name$k.proof.json; pub=$T/$name$k.public.json
    if ! "$CUZK" prove "$dir/circuit.zkey" "$dir/witness$k.wtns" "$p" "$pub" --proof-bin "$T/$name$k.bin" --quiet; then
      echo "FAIL cuzk prove $dir witness$k.wtns"; fail=$((fail+1)); continue
    fi
    proofs=$((proofs+1))
    if ! cmp -s "$pub" "$dir/public$k.json"; then
      echo "FAIL $pub differs from snarkjs's $dir/public$k.json"; fail=$((fail+1))
    fi
    echo "$vk $pub $p valid" >> "$cases"
  done
  # snarkjs's own proof (sanity of the fixture itself)
  echo "$vk $dir/public.json $dir/proof.json valid" >> "$cases"
  p=$T/$name.proof.json; pub=$T/$name.public.json
  [ -f "$p" ] || continue
  # Tampered: another public input vector, a changed coordinate, C swapped for A, another key.
  if [ -f "$T/${name}2.public.json" ] && ! cmp -s "$pub" "$T/${name}2.public.json"; then
    echo "$vk $T/${name}2.public.json $p invalid" >> "$cases"
  fi
  node -e '
    const fs = require("fs"); const [src, dst1, dst2, dst3] = process.argv.slice(1);
    const p = JSON.parse(fs.readFileSync(src));
    const a = JSON.parse(JSON.stringify(p)); a.pi_a[0] = (BigInt(a.pi_a[0]) + 1n).toString();
    fs.writeFileSync(dst1, JSON.stringify(a));
    const c = JSON.parse(JSON.stringify(p)); c.pi_c = p.pi_a;
    fs.writeFileSync(dst2, JSON.stringify(c));
    const b = JSON.parse(JSON.stringify(p)); [b.pi_b[0][0], b.pi_b[0][1]] = [b.pi_b[0][1], b.pi_b[0][0]];
    fs.writeFileSync(dst3, JSON.stringify(b));
    const pub = JSON.parse(fs.readFileSync(process.argv[5]));
    pub[pub.length - 1] = (BigInt(pub[pub.length - 1]) + 1n).toString();
    fs.writeFileSync(process.argv[6], JSON.stringify(pub));
    
    const q = {bn128: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
               bls12381: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn}[p.curve];
    const na = JSON.parse(JSON.stringify(p)); na.pi_a[1] = (q - BigInt(p.pi_a[1])).toString();
    fs.writeFileSync(process.argv[7], JSON.stringify(na));
    const r = {bn128: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
               bls12381: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n}[p.curve];
    const big = JSON.parse(fs.readFileSync(process.argv[5])); big[0] = (BigInt(big[0]) + r).toString();
    fs.writeFileSync(process.argv[8], JSON.stringify(big));
    const longer = JSON.parse(fs.readFileSync(process.argv[5])); longer.push("1");
    fs.writeFileSync(process.argv[9], JSON.stringify(longer));
  ' "$p" "$T/$name.bad-a.json" "$T/$name.bad-c.json" "$T/$name.bad-b.json" "$pub" "$T/$name.bad-pub.json" \
    "$T/$name.neg-a.json" "$T/$name.pub-plus-r.json" "$T/$name.pub-longer.json"
  echo "$vk $T/$name.bad-pub.json $p invalid" >> "$cases"
  echo "$vk $pub $T/$name.neg-a.json invalid" >> "$cases"
  echo "$vk $T/$name.pub-plus-r.json $p invalid" >> "$cases"    # a public input >= r
  echo "$vk $T/$name.pub-longer.json $p invalid" >> "$cases"    # one public input too many
  # The same proof under another circuit's key with as many public inputs, and under a key of
  # the other curve.
  for other in "$FIX"/bn254/* "$FIX"/bls12-381/*; do
    [ "$other" != "$dir" ] && [ -f "$other/verification_key.json" ] || continue
    if [ "$(basename "$other")" = "$(basename "$dir")" ] ||
       { [ "$(dirname "$other")" = "$(dirname "$dir")" ] &&
         [ "$(grep -o '"nPublic": [0-9]*' "$other/verification_key.json")" = "$(grep -o '"nPublic": [0-9]*' "$vk")" ]; }; then
      echo "$other/verification_key.json $pub $p invalid" >> "$cases"
    fi
  done
  echo "$vk $pub $T/$name.bad-a.json invalid" >> "$cases"
  echo "$vk $pub $T/$name.bad-c.json invalid" >> "$cases"
  echo "$vk $pub $T/$name.bad-b.json invalid" >> "$cases"
  if [ -f "$dir/verification_key_setup.json" ]; then  # same circuit, key before the contribution
    echo "$dir/verification_key_setup.json $pub $p invalid" >> "$cases"
    # and cuzk proving with the raw `groth16 setup` key (sections in non-ID order)
    if "$CUZK" prove "$dir/circuit_setup.zkey" "$dir/witness.wtns" "$T/$name.setup.proof.json" "$T/$name.setup.public.json" --quiet; then
      proofs=$((proofs+1))
      echo "$dir/verification_key_setup.json $T/$name.setup.public.json $T/$name.setup.proof.json valid" >> "$cases"
    else
      echo "FAIL cuzk prove $dir/circuit_setup.zkey"; fail=$((fail+1))
    fi
  fi
done
echo "cuzk made $proofs proofs; $(wc -l < "$cases") snarkjs cases"
node "$ROOT/tests/snarkjs/verify-many.mjs" "$cases" || fail=$((fail+1))
# cuzk verify must reach snarkjs's verdict on every case (valid and tampered).
agree=0; disagree=0
while read -r vk pub proof expect; do
  if "$CUZK" verify "$vk" "$pub" "$proof" > /dev/null 2>&1; then got=valid; else got=invalid; fi
  if [ "$got" = "$expect" ]; then agree=$((agree+1)); else disagree=$((disagree+1)); echo "FAIL cuzk verify says $got, snarkjs $expect: $vk $pub $proof"; fi
done < "$cases"
echo "cuzk verify agrees with snarkjs: $agree passed, $disagree failed"
[ $disagree = 0 ] || fail=$((fail+1))
[ $proofs -gt 0 ] || { echo "FAIL no fixture proved"; fail=$((fail+1)); }
[ $fail = 0 ]
