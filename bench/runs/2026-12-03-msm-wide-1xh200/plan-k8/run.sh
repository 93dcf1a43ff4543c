#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The sequence run on the H200 host from the repository root (binaries carried in build-carry/).
set -u
cd "$(dirname "$0")/.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
for t in test_gpu_msm test_gpu_engine test_gpu_prover; do
  echo "== $t" >> $T; timeout 240 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 120 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
B="b/cuzk bench --device gpu:0"
M=$OUT/msm.log
{
echo "== chosen"; timeout 100 $B --curve all --log-n 20,24 --ops msm-g1 --runs 5
echo "== tables (plan)"; timeout 150 $B --curve all --log-n 20,24 --ops msm-g1 --tables 24 --runs 5
timeout 60 $B --curve all --log-n 22 --ops msm-g2 --tables 24 --runs 5
} > $M 2>&1
echo finished
