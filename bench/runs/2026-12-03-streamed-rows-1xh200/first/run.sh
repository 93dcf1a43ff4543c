#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The sequence run on the H200 host from the repository root (binaries carried in build-carry/):
# the GPU tests and the goldens, one PoRep-shaped 2^26 job with the key resident and streamed
# under a 20 GiB budget, then window-width sweeps of the two MSM rows above their line.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
for t in test_gpu_engine test_gpu_prover test_cuda; do
  echo "== $t" >> $T; timeout 200 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 200 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
mkdir -p $OUT/n26
timeout 300 b/cuzk bench --job porep --log-n 26 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' --setup-device gpu:0 --out $OUT/n26 > $OUT/n26/porep26.log 2>&1
echo "rc=$?" >> $OUT/n26/porep26.log
B=$OUT/sweep.log
timeout 120 b/cuzk bench --device gpu:0 --curve bls12-381 --log-n 22 --ops msm-g2 --tables 24 --window-bits 19,20,21,22 >> $B 2>&1; echo "rc=$?" >> $B
timeout 120 b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops msm-g1 --tables 24 --window-bits 20,21,22,23 >> $B 2>&1; echo "rc=$?" >> $B
echo finished
