#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Throughput of a farm of N daemons on one PostgreSQL queue (simulated devices whose kernels take
# KERNEL_MS each, so that the devices, not this machine's cores, bound it): JOBS jobs of 10
# partitions of the bundled 2^10 circuit through `cuzk loadgen` on the first daemon.
#   bash tests/pg/with-postgres.sh bash bench/farm-load.sh CUZK DAEMONS [JOBS] [KERNEL_MS] [CLIENTS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=$1 N=$2 JOBS=${3:-40} KMS=${4:-50} CLIENTS=${5:-8}
T=$(mktemp -d)
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
EX=$ROOT/examples/porep-bls12-381
for ((h = 0; h < N; h++)); do
  cat > "$T/$h.toml" <<TOML
[daemon]
listen = "unix://$T/$h.sock"
status_listen = ""
journal = "$T/j$h"
[devices]
list = ["sim:1"]
sim_kernel_ms = $KMS
[synthesis]
threads = 1
[queue]
backend = "postgres"
dsn = "$CUZK_PG_DSN"
host_id = "host-$h"
[[circuits]]
id = "porep"
zkey = "$EX/circuit.zkey"
TOML
  "$CUZK" daemon --config "$T/$h.toml" > "$T/$h.log" 2>&1 &
  pids+=($!)
done
for ((h = 0; h < N; h++)); do
  for _ in $(seq 100); do "$CUZK" status --daemon "unix://$T/$h.sock" > /dev/null 2>&1 && break; sleep 0.1; done
done
W=$(ls "$EX"/witness_*.wtns | sort -V | paste -sd,)
echo "farm of $N daemon(s), sim:1 each, kernels >= $KMS ms; $(nproc) cores"
"$CUZK" loadgen --daemon "unix://$T/0.sock" --circuit porep --partitions "$W" --jobs "$JOBS" --clients "$CLIENTS"
for ((h = 0; h < N; h++)); do
  "$CUZK" status --daemon "unix://$T/$h.sock" | python3 -c "import json,sys; d=json.load(sys.stdin); print('  host-$h: completed', d['farm']['completed_here'], 'partitions, device busy', round(d['devices'][0]['busy_fraction'], 2))"
done
