#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Window widths of the G1 MSM without tables at the PoRep H's sizes (BLS12-381, 2^25..2^27): the
# phases at each forced width next to the width the model chooses, then the 2^27 call's digit and
# sort kernels under Nsight Compute (durations), binaries in build-carry/ (the MSM code as
# at 0ef2c5a, unchanged since).
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
Q="nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv"
{ $Q; nproc; free -m; } > $OUT/gpu.txt 2>&1
B="b/cuzk bench --device gpu:0 --curve bls12-381 --ops msm-g1"
{
date
echo "== chosen"; timeout 120 $B --log-n 25,26,27 --runs 3
echo "== forced"; timeout 240 $B --log-n 25,26,27 --window-bits 19,20,21,22,23,24 --runs 3
$Q
date
} > $OUT/sweep.log 2>&1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" > $OUT/ncu.txt
timeout 200 $NCU --clock-control none --metrics gpu__time_duration.sum,launch__grid_size \
  -k 'regex:digits|Onesweep|Histogram|Exclusive|accumulate|bucket' --launch-skip 0 --launch-count 40 \
  $B --log-n 27 --runs 1 >> $OUT/ncu.txt 2>&1
echo rc=$? >> $OUT/ncu.txt
echo finished
