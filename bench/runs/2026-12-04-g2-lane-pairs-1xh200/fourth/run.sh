#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The partial-sum levels and the bucket reduction's tail on pairs of lanes too (binaries in
# build-carry/; cuzk-prev is 6f782ae's, the level-0 pairs only): field checks, the GPU MSM,
# engine and prover tests, the goldens; then the G2 MSM rows, this tree against cuzk-prev,
# alternating on one host.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
Q="nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv"
$Q > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
for t in test_cuda test_gpu_msm test_gpu_engine test_gpu_prover; do
  echo "== $t" >> $T; timeout 240 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
date >> $T
M=$OUT/bench.log
{
date
for i in 1 2; do
  for c in cuzk cuzk-prev; do
    echo "== $c: msm g2 tables"; timeout 60 b/$c bench --device gpu:0 --curve all --log-n 22 --ops msm-g2 --tables 24 --runs 9
  done
done
for c in cuzk cuzk-prev; do
  echo "== $c: msm g2 chosen"; timeout 60 b/$c bench --device gpu:0 --curve bls12-381 --log-n 22 --ops msm-g2 --runs 5
done
$Q
date
} > $M 2>&1
echo finished
