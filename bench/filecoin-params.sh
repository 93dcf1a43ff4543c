#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# bellperson .params on a GPU host: how fast a key file loads, and a PoRep-shaped job of 10
# partitions proved through the .params against the same job through the .zkey (same circuit,
# same witnesses, keys from the same kind of insecure setup). Run after a build (bare mode is
# enough); logs go to OUT.
#   bench/filecoin-params.sh OUT CUZK [LOG_N] [DEVICES]      e.g. bench/filecoin-params.sh "$OUT" build-gpu/cuzk 24 gpu:0
# Steps: gen-circuit (r1cs, 10 witnesses, the .zkey, fixed-base on the GPU); cuzk setup --format
# bellperson (the .params); each job twice, alternating (.zkey, .params, .zkey, .params), so that
# neither has the page cache to itself; every proof verified (self-check and cuzk verify with the
# .vk for the .params job). The figures: "GB/s" of the .params load line, "job N ms" of each run.
set -uo pipefail
OUT=$1 CUZK=$2 N=${3:-24} DEV=${4:-gpu:0}
W=${WORK_DIR:-/tmp/cuzk-params-$N}
mkdir -p "$OUT" "$W"
log() { echo "filecoin-params: $*" | tee -a "$OUT/summary.txt"; }
{ "$CUZK" --version; "$CUZK" devices; nproc; free -g | head -n 2; df -h "$W" | tail -n 1; } | tee "$OUT/machine.txt"
t=$(date +%s)
if [ ! -f "$W/circuit.zkey" ]; then
  "$CUZK" gen-circuit --shape porep --log-n "$N" --curve bls12-381 --partitions 10 --setup --setup-seed 1 \
    --device "${DEV%%,*}" --out "$W" > "$OUT/gen.txt" 2>&1 || { tail -n 20 "$OUT/gen.txt"; exit 1; }
fi
log "gen-circuit 2^$N with its .zkey: $(( $(date +%s) - t )) s"
t=$(date +%s)
if [ ! -f "$W/k.params" ]; then
  "$CUZK" setup "$W/circuit.r1cs" "$W/k" --insecure --format bellperson --seed 1 --device "${DEV%%,*}" > "$OUT/setup.txt" 2>&1 ||
    { tail -n 20 "$OUT/setup.txt"; exit 1; }
fi
log "setup --format bellperson: $(( $(date +%s) - t )) s; $("$CUZK" params inspect "$W/k.params")"
ls -l "$W" >> "$OUT/machine.txt"
parts=$(ls "$W"/witness_*.wtns | sort -V | paste -sd,)
# RUNS: KEY:CHECK items, in order; CHECK r1cs passes --r1cs (the witness checked against every
# constraint, which a .params needs for its rows anyway), none does not.
RUNS=${RUNS:-"circuit.zkey:r1cs k.params:r1cs circuit.zkey:none circuit.zkey:r1cs k.params:r1cs"}
i=0
for item in $RUNS; do
  key=${item%%:*} check=${item##*:} i=$((i + 1))
  extra=()
  [ "$check" = r1cs ] && extra=(--r1cs "$W/circuit.r1cs")
  o=$W/out-$i
  rm -rf "$o"
  t0=$(date +%s%N)
  "$CUZK" prove "$W/$key" --partitions "$parts" --out "$o" --devices "$DEV" "${extra[@]}" > "$OUT/prove-$i.txt" 2>&1 ||
    { tail -n 20 "$OUT/prove-$i.txt"; log "run $i $key ($check) FAILED"; continue; }
  t1=$(date +%s%N)
  load=$(grep -E "GB/s|key loaded" "$OUT/prove-$i.txt" | paste -sd';')
  job=$(grep -oE "proofs in [0-9.]+ ms \(job [0-9.]+ ms\)" "$OUT/prove-$i.txt")
  busy=$(grep -oE "busy [0-9.]+ ms" "$OUT/prove-$i.txt" | paste -sd,)
  log "run $i $key ($check): $job; $busy; process $(( (t1 - t0) / 1000000 )) ms; $load"
  if [ "$key" = k.params ]; then
    args=()
    for p in $(seq 0 9); do args+=("$o/public_$p.json" "$o/proof_$p.json"); done
    "$CUZK" verify "$W/k.vk" "${args[@]}" --quiet | tail -n 1 | sed 's/^/filecoin-params: k.vk: /' | tee -a "$OUT/summary.txt"
    log "proofs.bin: $(stat -c %s "$o/proofs.bin") bytes"
  fi
done
log "done"
