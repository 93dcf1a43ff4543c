#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# After run.sh on the same host: the BLS12-381 G2 row over tables twice more (9 runs each), with
# the clocks and throttle reasons around them.
set -u
cd "$(dirname "$0")/../../../.."
[ -x b/cuzk ] || { mkdir -p b && (cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1; }
Q="nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv"
{
$Q
for i in 1 2; do timeout 60 b/cuzk bench --device gpu:0 --curve bls12-381 --log-n 22 --ops msm-g2 --tables 24 --runs 9; $Q; done
} > $OUT/g2-repeat.log 2>&1
echo finished
