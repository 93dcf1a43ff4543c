#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Quick start: installs what is missing, builds cuzk, starts the daemon with its embedded
# default (the bundled example circuits on every visible GPU, else on the CPU), submits the
# bundled 10-partition job, prints where each partition ran and how long each phase took,
# verifies every proof (cuzk, and snarkjs for the first), and stops the daemon.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/install-deps.sh --demo   # build tools and the daemon's libraries; no test tools
# With a GPU the demo builds the CUDA backend and proves there; without one it builds the CPU
# backend only (in its own directory: the CUDA kernels take minutes to compile and would not run).
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
  cuda=AUTO
else
  cuda=OFF
  BUILD_DIR=${BUILD_DIR}-cpu
  echo "demo: no GPU visible: building the CPU backend only (scripts/test.sh builds everything)"
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=$cuda -DCUZK_DAEMON=ON > /dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target cuzk
CUZK="$BUILD_DIR/cuzk"
"$CUZK" --version

# The embedded default puts its socket in $XDG_RUNTIME_DIR and its journal in $XDG_STATE_HOME:
# a fresh directory for both, and a free port for /metrics and /status.
run=$(mktemp -d)
export XDG_RUNTIME_DIR="$run" XDG_STATE_HOME="$run/state"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export CUZK_STATUS_LISTEN="127.0.0.1:$port"
ADDR="unix://$run/cuzk.sock"
echo
echo "== cuzk daemon (embedded default), log in $run/daemon.log"
"$CUZK" daemon > "$run/daemon.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  "$CUZK" status --daemon "$ADDR" > /dev/null 2>&1 && break
  kill -0 $pid 2>/dev/null || { cat "$run/daemon.log"; exit 1; }
  sleep 0.2
done
sed 's/^/   /' "$run/daemon.log"

ex=examples/porep-bls12-381
parts=$(ls $ex/witness_*.wtns | sort -V | paste -sd,)
echo
echo "== cuzk submit --circuit porep-bls12-381 --partitions $ex/witness_{0..9}.wtns"
job=$("$CUZK" submit --daemon "$ADDR" --circuit porep-bls12-381 --partitions "$parts" | tail -n 1)
echo "job $job"
echo "== cuzk await $job --out $run/out"
"$CUZK" await --daemon "$ADDR" "$job" --out "$run/out"

echo
echo "== cuzk verify (all 10 proofs, one batch)"
args=()
for i in $(seq 0 9); do args+=("$run/out/public_$i.json" "$run/out/proof_$i.json"); done
"$CUZK" verify "$ex/verification_key.json" "${args[@]}" | tail -n 1
snarkjs=tools/js/node_modules/.bin/snarkjs
if [ -x "$snarkjs" ] && command -v node > /dev/null 2>&1; then
  echo "== snarkjs groth16 verify (partition 0)"
  "$snarkjs" groth16 verify "$ex/verification_key.json" "$run/out/public_0.json" "$run/out/proof_0.json"
else
  echo "== snarkjs: not installed (bash scripts/install-deps.sh adds node and snarkjs); cuzk verify checked all 10"
fi

echo
echo "== status"
curl -s "http://$CUZK_STATUS_LISTEN/metrics" | grep -E '^cuzk_(jobs_accepted_total|jobs_ended_total|partitions_total|device_partitions_total)'
echo "== SIGTERM"
kill -TERM $pid
wait $pid
trap - EXIT
tail -n 2 "$run/daemon.log" | sed 's/^/   /'
echo
echo "proofs, summary.json and timeline.svg in $run/out"
