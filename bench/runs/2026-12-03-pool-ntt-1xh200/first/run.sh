#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The sequence run on the H200 host from the repository root (binaries carried in build-carry/):
# the GPU tests and the goldens; the NTT and H at 2^24 with each tile size of the NTT's passes
# (CUZK_NTT_TILE, 11 and 10); the NTT's pass kernels under Nsight Compute; the whole dense BN254
# 2^24 proof; one PoRep-shaped 2^27 job with the key resident.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
for t in test_cuda test_gpu_ntt test_gpu_engine test_gpu_msm test_gpu_prover; do
  echo "== $t" >> $T; timeout 240 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
M=$OUT/bench.log
for tile in 11 10; do
  echo "== tile $tile" >> $M
  CUZK_NTT_TILE=$tile timeout 60 b/cuzk bench --device gpu:0 --curve all --log-n 24 --ops ntt,h --runs 5 >> $M 2>&1
  echo "rc=$?" >> $M
  CUZK_NTT_TILE=$tile timeout 100 b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops prove --runs 3 >> $M 2>&1
  echo "rc=$?" >> $M
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for tile in 11 10; do
  CUZK_NTT_TILE=$tile timeout 100 $NCU --clock-control none -k 'regex:ntt_pass_kernel' -c 3 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
    b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops ntt --runs 1 > $OUT/ncu-tile$tile.txt 2>&1
done
mkdir -p $OUT/n27
timeout 280 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices gpu:0 --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
echo finished
