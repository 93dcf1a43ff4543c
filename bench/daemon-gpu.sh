#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The daemon on a GPU host, in one go: a 2^LOG_N porep circuit with 10 witnesses written by
# `cuzk gen-circuit` (key made on gpu:0), a daemon serving it and the bundled example on every
# GPU, one job of each (the example's proofs checked with `cuzk verify`), then loadgen at both
# sizes. CUZK is a cuzk with the daemon, e.g. the wrapper of a bundle (scripts/bundle.sh) on a
# host without packages. Logs and the jobs' summary.json/timeline.svg go to OUT.
#   bench/daemon-gpu.sh OUT CUZK [LOG_N] [WORK_DIR]
set -uo pipefail
O=$1 C=$2 N=${3:-22} W=${4:-/tmp/cuzk-daemon-gpu}
R=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$O"
rm -rf "$W" && mkdir -p "$W"
{ "$C" --version; "$C" devices; } 2>&1 | tee "$O/machine.txt"
timeout 300 "$C" gen-circuit --shape porep --log-n "$N" --curve bls12-381 --partitions 10 --setup --device gpu:0 \
  --setup-seed 5 --out "$W/c" > "$O/gen.txt" 2>&1
echo "gen-circuit rc=$? $(tail -n 1 "$O/gen.txt")"
ex=$R/examples/porep-bls12-381
cat > "$W/cuzk.toml" << T
[daemon]
listen = "unix://$W/cuzk.sock"
status_listen = "127.0.0.1:9464"
journal = "$W/journal"
witness_dirs = ["$W/c"]
[devices]
list = ["all"]
[[circuits]]
id = "porep$N"
zkey = "$W/c/circuit.zkey"
[[circuits]]
id = "porep-bls"
zkey = "$ex/circuit.zkey"
r1cs = "$ex/circuit.r1cs"
T
A=unix://$W/cuzk.sock
"$C" daemon --config "$W/cuzk.toml" > "$O/daemon.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2> /dev/null || true' EXIT
for _ in $(seq 300); do "$C" status --daemon "$A" > /dev/null 2>&1 && break; sleep 0.2; done
p=$(ls "$ex"/witness_*.wtns | sort -V | paste -sd,)
job=$("$C" submit --daemon "$A" --circuit porep-bls --partitions "$p" | tail -n 1)
"$C" await --daemon "$A" "$job" --out "$O/ex" > "$O/await-ex.txt" 2>&1
echo "example job $job: await rc=$?"
args=()
for i in $(seq 0 9); do args+=("$O/ex/public_$i.json" "$O/ex/proof_$i.json"); done
"$C" verify "$ex/verification_key.json" "${args[@]}" | tail -n 1
"$C" preload --daemon "$A" --circuit "porep$N" 2>&1 | tail -n 1
pw=$(ls "$W"/c/witness_*.wtns | sort -V | paste -sd,)
for mode in stream by-path; do
  flag=(--stream 1)
  [ $mode = by-path ] && flag=(--by-path 1)
  s=$(date +%s.%N)
  job=$("$C" submit --daemon "$A" --circuit "porep$N" --partitions "$pw" "${flag[@]}" | tail -n 1)
  t=$(date +%s.%N)
  "$C" await --daemon "$A" "$job" --out "$O/j$N-$mode" > "$O/await-$N-$mode.txt" 2>&1
  rc=$?
  echo "2^$N job $job ($mode): submit $(awk "BEGIN {printf \"%.2f\", $t - $s}") s; await rc=$rc; $(tail -n 1 "$O/await-$N-$mode.txt")"
  rm -f "$O/j$N-$mode/proofs.bin"
  timeout 200 "$C" loadgen --daemon "$A" --circuit "porep$N" --partitions "$pw" "${flag[@]}" --jobs 12 --clients 4 \
    > "$O/loadgen-$N-$mode.txt" 2>&1
  echo "loadgen 2^$N ($mode) rc=$?: $(tail -n 1 "$O/loadgen-$N-$mode.txt")"
done
timeout 100 "$C" loadgen --daemon "$A" --circuit porep-bls --partitions "$p" --jobs 300 --clients 16 \
  > "$O/loadgen-ex.txt" 2>&1
echo "loadgen example rc=$?: $(tail -n 1 "$O/loadgen-ex.txt")"
kill -TERM $pid
wait $pid
echo "daemon exit $?"
trap - EXIT
rm -rf "$O/ex"
