#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# After the review (the double-width product's dead carry branch removed, the GPU field check
# with four distinct operands in a*b - c*d): the GPU tests, the goldens and the G1 rows over tables.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
for t in test_cuda test_gpu_msm test_gpu_ntt test_gpu_engine test_gpu_prover; do
  echo "== $t" >> $T; timeout 240 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
timeout 90 b/cuzk bench --device gpu:0 --curve all --log-n 24 --ops msm-g1 --tables 24 --runs 5 > $OUT/bench.log 2>&1
echo finished
