#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Filecoin proofs end to end on a 2KiB test sector: `cuzk filecoin seal` (the sector, its C1 output,
# its public data, a WindowPoSt and a WinningPoSt vanilla proof, a SnapDeals update's partition
# proofs), `setup --insecure` (parameter files under their published names), then `prove` and
# `verify` of PoRep, WindowPoSt, WinningPoSt and SnapDeals; tampered public data, proofs and
# vanilla proofs are refused.
#   e2e.sh setup BIN DIR            seal and the three setups into DIR (ctest fixture); SIZE=8MiB
#                                   for another sector size (2KiB by default)
#   e2e.sh prove BIN DIR [DEVICE]   prove and verify on DEVICE (default cpu); with a GPU device the
#                                   proofs must also equal the CPU's for the same --seed
set -euo pipefail
mode=$1 bin=$2 dir=$3 device=${4:-cpu}
fail() { echo "FAIL: $*"; exit 1; }
kinds=(porep window-post winning-post snap)
size=${SIZE:-2KiB}

if [ "$mode" = setup ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  "$bin" filecoin seal --sector-size "$size" --out "$dir/s2k" --seed 5 > "$dir/seal.json"
  for k in "${kinds[@]}"; do
    "$bin" filecoin setup --insecure --kind "$k" --sector-size "$size" --params "$dir/P" --seed 7 > /dev/null
  done
  echo "e2e setup: sector sealed, $(ls "$dir/P" | wc -l) parameter files in $dir/P"
  exit 0
fi

[ "$mode" = prove ] || fail "unknown mode $mode"
s=$dir/s2k P=$dir/P w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
pub_of() { case $1 in porep) echo "$s/sector.json" ;; *) echo "$s/$1.json" ;; esac; }
inputs_of() {
  case $1 in
    porep) echo "$s/c1.json" ;;
    snap) echo "--public $s/snap.json $(ls "$s"/snap-partition-*.vproof | sort -V)" ;;
    *) echo "--public $s/$1.json $s/$1.vproof" ;;
  esac
}
prove() {  # kind device out
  # shellcheck disable=SC2046
  "$bin" filecoin prove --kind "$1" --params "$P" $(inputs_of "$1") --out "$3" --device "$2" --seed 3 --quiet > /dev/null
}
verify() { "$bin" filecoin verify --kind "$1" --params "$P" --public "$2" "$3"; }
refused() {  # what expected-text command...
  local what=$1 want=$2
  shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" = 1 ] || fail "$what: exit $rc, expected 1: $out"
  grep -q -- "$want" <<< "$out" || fail "$what: expected '$want' in: $out"
  echo "ok   $what refused: $(tail -1 <<< "$out" | cut -c1-150)"
}
# A copy of a JSON file with one member changed (python3: the file's own form kept otherwise).
edit_json() {  # in out python-expression-on-j
  python3 - "$1" "$2" "$3" << 'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"))
EOF
}

for k in "${kinds[@]}"; do
  prove "$k" "$device" "$w/$k.bin"
  size=$(stat -c %s "$w/$k.bin")  # 192 bytes per partition
  [ "$size" -gt 0 ] && [ $((size % 192)) = 0 ] || fail "$k: proof of $size bytes"
  verify "$k" "$(pub_of "$k")" "$w/$k.bin" > "$w/verify.out" || fail "$k: $(cat "$w/verify.out")"
  echo "ok   $k proved on $device and verified: $(cat "$w/verify.out" | cut -c1-90)"
  if [ "$device" != cpu ]; then
    prove "$k" cpu "$w/$k.cpu.bin"
    cmp -s "$w/$k.bin" "$w/$k.cpu.bin" || fail "$k: the $device proof differs from the CPU's for the same --seed"
    echo "ok   $k: the $device proof equals the CPU's byte for byte (--seed 3)"
  fi
  # One flipped bit of the proof (in C's x: still a valid encoding or not, refused either way).
  python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[150]^=1; open(sys.argv[2],'wb').write(b)" \
    "$w/$k.bin" "$w/$k.flip.bin"
  refused "$k proof with a flipped bit" "FAILED" verify "$k" "$(pub_of "$k")" "$w/$k.flip.bin"
done

# Tampered public inputs: each refused by verify.
edit_json "$s/sector.json" "$w/seed.json" 'j["seed"] = ("%064x" % (int(j["seed"], 16) ^ 1))'
refused "porep, another interactive seed" "does not verify" verify porep "$w/seed.json" "$w/porep.bin"
edit_json "$s/sector.json" "$w/commr.json" 'j["comm_r"] = "00" + j["comm_r"][2:]'
refused "porep, another comm_r" "does not verify" verify porep "$w/commr.json" "$w/porep.bin"
edit_json "$s/sector.json" "$w/sector.json" 'j["sector_id"] += 1'
refused "porep, another sector id" "does not verify" verify porep "$w/sector.json" "$w/porep.bin"
for k in window-post winning-post; do
  edit_json "$s/$k.json" "$w/rand.json" 'j["Randomness"] = ("B" if j["Randomness"][0] != "B" else "C") + j["Randomness"][1:]'
  refused "$k, another randomness" "does not verify" verify "$k" "$w/rand.json" "$w/$k.bin"
  edit_json "$s/$k.json" "$w/num.json" 'j["ChallengedSectors"][0]["SectorNumber"] += 1'
  refused "$k, another sector number" "does not verify" verify "$k" "$w/num.json" "$w/$k.bin"
done

for key in comm_r_old comm_d_new comm_r_new; do
  edit_json "$s/snap.json" "$w/snap.json" "j['$key'] = '00' + j['$key'][2:]"
  refused "snap, another $key" "does not verify" verify snap "$w/snap.json" "$w/snap.bin"
done

# Tampered inputs of prove: refused before any proving, naming the problem, nothing written.
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[2000]^=0x10; open(sys.argv[2],'wb').write(b)" \
  "$s/window-post.vproof" "$w/bad.vproof"
refused "window-post, a flipped byte in the vanilla proof" "vanilla_proofs\[0\]" \
  "$bin" filecoin prove --kind window-post --params "$P" --public "$s/window-post.json" "$w/bad.vproof" \
  --out "$w/none.bin" --device cpu
edit_json "$s/window-post.json" "$w/rand.json" 'j["Randomness"] = ("B" if j["Randomness"][0] != "B" else "C") + j["Randomness"][1:]'
refused "window-post, vanilla proof for another randomness" "the challenge is leaf" \
  "$bin" filecoin prove --kind window-post --params "$P" --public "$w/rand.json" "$s/window-post.vproof" \
  --out "$w/none.bin" --device cpu
edit_json "$s/c1.json" "$w/c1.json" 'j["seed"][0] ^= 1'
refused "porep, a C1 output of another seed" "c1.json" \
  "$bin" filecoin prove --kind porep --params "$P" "$w/c1.json" --out "$w/none.bin" --device cpu
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[3000]^=0x10; open(sys.argv[2],'wb').write(b)" \
  "$s/snap-partition-0.vproof" "$w/bad-snap.vproof"
others=$(ls "$s"/snap-partition-*.vproof | sort -V | tail -n +2)
# shellcheck disable=SC2086
refused "snap, a flipped byte in a partition proof" "vanilla_proofs\[0\]" \
  "$bin" filecoin prove --kind snap --params "$P" --public "$s/snap.json" "$w/bad-snap.vproof" $others \
  --out "$w/none.bin" --device cpu
edit_json "$s/snap.json" "$w/snap.json" "j['comm_r_new'] = '00' + j['comm_r_new'][2:]"
# shellcheck disable=SC2046
refused "snap, partition proofs of another comm_r_new" "comm_r_new" \
  "$bin" filecoin prove --kind snap --params "$P" --public "$w/snap.json" $(ls "$s"/snap-partition-*.vproof | sort -V) \
  --out "$w/none.bin" --device cpu
[ ! -e "$w/none.bin" ] || fail "a refused prove wrote its output"
echo "e2e: PoRep, WindowPoSt, WinningPoSt and SnapDeals proved on $device, verified, every tampering refused"
