#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Right after run.sh on the same host: the BLS12-381 G2 2^22 row twice more (9 runs each), the
# GPU's clocks and throttle reasons before and after.
set -u
cd "$(dirname "$0")/../../../.."
[ -x b/cuzk ] || { mkdir -p b && (cd b && tar xJf ../build-carry/bins.tar.xz); }
Q="--query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv"
nvidia-smi $Q > $OUT/gpu2.txt 2>&1
for i in 1 2; do b/cuzk bench --device gpu:0 --curve bls12-381 --log-n 22 --ops msm-g2 --tables 24 --runs 9; done > $OUT/g2-repeat.log 2>&1
nvidia-smi $Q >> $OUT/gpu2.txt 2>&1
