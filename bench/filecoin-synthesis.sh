#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Synthesis speed of Filecoin circuits on this host's cores (no GPU needed):
#   - witness mode of 20 create_label circuits (10.6 M constraints), on 2 cores and on all;
#   - witness mode of one 32GiB PoRep partition (blank values, 130 M constraints) on 1, 2, 4, 8
#     and all cores;
#   - record mode of the same partition (every row kept, as the prover would), once (RECORD=0
#     leaves it out: about 40 s on 16 cores and 37 GB).
# Usage: bench/filecoin-synthesis.sh CUZK OUT [RUNS]   (CUZK: a cuzk binary; logs under OUT)
set -euo pipefail
cuzk=$1 out=$2 runs=${3:-3}
mkdir -p "$out"
log="$out/synthesis.log"
n=$(nproc)
{ echo "host: $n cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "memory: $(grep MemTotal /proc/meminfo)"; } | tee "$log"
cpus() { echo "0-$(( $1 - 1 ))"; }
run() {  # label, cores, args...
  local label=$1 c=$2; shift 2
  for i in $(seq "$runs"); do
    echo "$label cores=$c run=$i:" | tee -a "$log"
    taskset -c "$(cpus "$c")" "$cuzk" filecoin shape "$@" --json 2>&1 | tee -a "$log"
  done
}
run create-label-x20-witness 2 create-label --repeat 20 --witness
run create-label-x20-witness "$n" create-label --repeat 20 --witness
for c in 1 2 4 8 "$n"; do
  [ "$c" -le "$n" ] || continue
  r=$runs; [ "$c" -le 2 ] && r=1
  runs=$r run porep-32gib-witness "$c" porep --sector-size 32GiB --witness
done
[ "${RECORD:-1}" = 0 ] || runs=1 run porep-32gib-record "$n" porep --sector-size 32GiB --record
