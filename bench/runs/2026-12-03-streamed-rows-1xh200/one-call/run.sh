#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The sequence run on the H200 host from the repository root (binaries carried in build-carry/):
# the GPU tests and the goldens, the whole dense BN254 2^24 proof, then one PoRep-shaped 2^27
# job with the key resident (A, B1 and C in one MSM call).
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
for t in test_gpu_msm test_gpu_engine test_gpu_prover; do
  echo "== $t" >> $T; timeout 240 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
M=$OUT/bench.log
timeout 150 b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops prove --runs 3 > $M 2>&1; echo "rc=$?" >> $M
mkdir -p $OUT/n27
timeout 280 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices gpu:0 --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
echo finished
