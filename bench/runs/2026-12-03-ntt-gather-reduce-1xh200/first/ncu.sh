#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Run right after run.sh on the same host: the kernels of one BLS12-381 G2 MSM of 2^22 points over
# tables under Nsight Compute (durations, active warps), CUB's radix sort for the digits.
set -u
cd "$(dirname "$0")/../../../.."
[ -x b/cuzk ] || { mkdir -p b && (cd b && tar xJf ../build-carry/bins.tar.xz); }
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
export CUZK_MSM_RADIX_SORT=1
timeout 200 $NCU --clock-control none --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size \
  -k 'regex:bucket|reduce_kernel|accumulate|digits|ones_kernel' \
  b/cuzk bench --device gpu:0 --curve bls12-381 --log-n 22 --ops msm-g2 --tables 24 --runs 1 > $OUT/ncu-g2.txt 2>&1
echo rc=$? >> $OUT/ncu-g2.txt
