#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Load on the daemon: small proofs (the bundled 2^10 porep circuit, 1 partition per job) from
# several connections at once, on simulated devices. Prints jobs/s and latency p50/p99.
#   bench/daemon-load.sh CUZK [JOBS] [CLIENTS] [DEVICES] [PARTITIONS]
# e.g. bench/daemon-load.sh build/cuzk 1000 16 sim:2 1
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=$1
JOBS=${2:-1000}
CLIENTS=${3:-16}
DEVICES=${4:-sim:2}
PARTS=${5:-1}
run=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$run"' EXIT
list=$(echo "$DEVICES" | sed 's/[^,][^,]*/"&"/g')
cat > "$run/cuzk.toml" <<TOML
[daemon]
listen = "unix://$run/cuzk.sock"
status_listen = ""
journal = "$run/journal"
[devices]
list = [$list]
[[circuits]]
id = "porep"
zkey = "$ROOT/examples/porep-bls12-381/circuit.zkey"
TOML
"$CUZK" daemon --config "$run/cuzk.toml" > "$run/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 100); do "$CUZK" status --daemon "unix://$run/cuzk.sock" > /dev/null 2>&1 && break; sleep 0.1; done
parts=$(ls "$ROOT"/examples/porep-bls12-381/witness_*.wtns | sort -V | head -n "$PARTS" | paste -sd,)
echo "cuzk $("$CUZK" --version | head -n 1 | cut -d' ' -f2-); $(nproc) cores; devices $DEVICES"
"$CUZK" loadgen --daemon "unix://$run/cuzk.sock" --circuit porep --partitions "$parts" --jobs "$JOBS" --clients "$CLIENTS"
