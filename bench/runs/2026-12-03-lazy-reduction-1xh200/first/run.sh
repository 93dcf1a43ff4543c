#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The tree's binaries (carried in build-carry/): field checks on the GPU, the GPU tests of the
# MSM, the NTT, the engine and the prover, the goldens, the MSM rows over tables, the whole
# proof and the PoRep-shaped 2^27 job. `cuzk-b` is the same tree with Fp2's a*b - c*d as two
# full products (the Fp2 product still lazy), for the G2 rows only.
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
B="b/cuzk bench --device gpu:0"
BB="b/cuzk-b bench --device gpu:0"
M=$OUT/bench.log
{
date
echo "== msm g1 tables"; timeout 90 $B --curve all --log-n 20,24 --ops msm-g1 --tables 24 --runs 5
echo "== msm g2 tables"; timeout 60 $B --curve all --log-n 22 --ops msm-g2 --tables 24 --runs 5
echo "== msm g2 tables (b)"; timeout 60 $BB --curve all --log-n 22 --ops msm-g2 --tables 24 --runs 5
echo "== msm g2 tables again"; timeout 60 $B --curve all --log-n 22 --ops msm-g2 --tables 24 --runs 5
echo "== msm g1 chosen"; timeout 90 $B --curve all --log-n 20,24 --ops msm-g1 --runs 5
echo "== whole proof"; timeout 150 $B --curve bn254 --log-n 24 --ops prove --runs 3
echo "== whole proof (b)"; timeout 150 $BB --curve bn254 --log-n 24 --ops prove --runs 3
date
} > $M 2>&1
mkdir -p $OUT/n27
timeout 300 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices gpu:0 --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
echo finished
