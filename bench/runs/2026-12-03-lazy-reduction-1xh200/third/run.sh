#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# BLS12-381 G1's hot kernel held to 168 registers (3 blocks an SM instead of 2): `cuzk-c` is
# 65adc11 with launch-bounds.diff applied (msm_bls12_381.cu compiled again), `cuzk` is 65adc11.
# The two alternate on the G1 rows; then the PoRep-shaped 2^27 job with cuzk-c.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
M=$OUT/bench.log
{
for bin in cuzk cuzk-c cuzk cuzk-c; do
  echo "== $bin tables"; timeout 90 b/$bin bench --device gpu:0 --curve bls12-381 --log-n 20,24 --ops msm-g1 --tables 24 --runs 5
  echo "== $bin chosen"; timeout 90 b/$bin bench --device gpu:0 --curve bls12-381 --log-n 20,24 --ops msm-g1 --runs 5
done
} > $M 2>&1
mkdir -p $OUT/n27
timeout 300 b/cuzk-c bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices gpu:0 --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
echo finished
