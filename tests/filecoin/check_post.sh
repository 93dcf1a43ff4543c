#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `cuzk filecoin check-post` on the WindowPoSt vectors (tests/filecoin/vectors/): the real proof
# holds (exit 0), and one flipped byte in either file fails it (exit 1, naming what failed; never a
# crash or a usage error).
#   bash tests/filecoin/check_post.sh CUZK VECTORS_DIR          (the vectors as they are)
#   bash tests/filecoin/check_post.sh CUZK VECTORS_DIR --flips  (every pub.json byte but the
#        prover's digits, and the vproof's first 128 bytes, every 211th after, its last 80, each
#        XOR 0x01; the randomness's characters XOR 0x02; a few bytes XOR 0xff)
# The prover id enters no vanilla proof: a flip that leaves it a valid number cannot be caught.
set -uo pipefail
CUZK=${1:?usage: check_post.sh CUZK VECTORS_DIR [--flips]}
DIR=${2:?usage: check_post.sh CUZK VECTORS_DIR [--flips]}
VPROOF=$DIR/windowpost-32gib.vproof
PUB=$DIR/windowpost-32gib.pub.json
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if [ "${3:-}" != "--flips" ]; then
  out=$("$CUZK" filecoin check-post "$VPROOF" "$PUB" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 0 ] || { echo "check-post: exit $rc on the unmodified vectors"; exit 1; }
  printf '%s\n' "$out" | grep -q "the vanilla proof holds" || { echo "check-post: no final line"; exit 1; }
  exit 0
fi

# flip FILE OFFSET MASK OUT: OUT = FILE with the byte at OFFSET XOR MASK.
flip() {
  cp "$1" "$4"
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ $3)))" | dd of="$4" bs=1 seek="$2" conv=notrunc status=none
}
bad=0
runs=0
try() {  # FILE-KIND OFFSET MASK
  local v=$VPROOF p=$PUB
  if [ "$1" = vproof ]; then
    flip "$VPROOF" "$2" "$3" "$T/f.vproof"
    v=$T/f.vproof
  else
    flip "$PUB" "$2" "$3" "$T/f.json"
    p=$T/f.json
  fi
  local out rc
  out=$("$CUZK" filecoin check-post "$v" "$p" 2>&1)
  rc=$?
  runs=$((runs + 1))
  if [ $rc -ne 1 ]; then
    echo "$1 byte $2 ^ $3: exit $rc (expected 1)"
    printf '%s\n' "$out" | tail -3
    bad=1
  elif ! printf '%s\n' "$out" | grep -q "FAILED:\|cuzk: error:"; then
    echo "$1 byte $2 ^ $3: exit 1 without naming what failed"
    bad=1
  fi
}
vsize=$(stat -c %s "$VPROOF")
psize=$(stat -c %s "$PUB")
# The prover's digits: "Prover":NNNN} at the end.
prover_at=$(grep -bo '"Prover":[0-9]*' "$PUB" | cut -d: -f1)
prover_len=$(grep -o '"Prover":[0-9]*' "$PUB" | wc -c)
for ((i = 0; i < psize; i++)); do
  if [ -n "$prover_at" ] && [ $i -ge $((prover_at + 9)) ] && [ $i -lt $((prover_at + prover_len - 1)) ]; then continue; fi
  try pub $i 1
done
for ((i = 0; i < vsize; i++)); do
  if [ $i -lt 128 ] || [ $((i % 211)) -eq 0 ] || [ $i -ge $((vsize - 80)) ]; then try vproof $i 1; fi
done
for i in 0 8 40 48 56 60 68 76 300 2000 12345 $((vsize - 1)); do try vproof $i 255; done
# The randomness's base64 characters XOR 0x02 stay base64 ('A' -> 'C'): other challenges.
rnd_at=$(grep -bo '"Randomness":"' "$PUB" | cut -d: -f1)
for ((i = rnd_at + 14; i < rnd_at + 14 + 44; i++)); do try pub $i 2; done
for i in 2 20 60 100 150 200; do try pub $i 255; done
echo "check-post: $runs flipped files, each refused with exit 1$([ $bad -eq 0 ] || echo ' (NOT all)')"
exit $bad
