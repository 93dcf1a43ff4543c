#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# G2 accumulation on pairs of lanes (binaries in build-carry/): field checks (Fp2 held by pairs),
# the GPU MSM, engine and prover tests, the goldens; then the G2 MSM rows and the dense BN254
# proof, pairs (the default) against one thread a point (CUZK_MSM_WHOLE=1), alternating.
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
B="b/cuzk bench --device gpu:0"
M=$OUT/bench.log
{
date
for i in 1 2; do
  echo "== pairs: msm g2 tables"; timeout 60 $B --curve all --log-n 22 --ops msm-g2 --tables 24 --runs 9
  echo "== whole: msm g2 tables"; CUZK_MSM_WHOLE=1 timeout 60 $B --curve all --log-n 22 --ops msm-g2 --tables 24 --runs 9
done
echo "== pairs: msm g2 chosen"; timeout 60 $B --curve all --log-n 22 --ops msm-g2 --runs 5
echo "== whole: msm g2 chosen"; CUZK_MSM_WHOLE=1 timeout 60 $B --curve all --log-n 22 --ops msm-g2 --runs 5
echo "== pairs: whole proof"; timeout 150 $B --curve bn254 --log-n 24 --ops prove --runs 3
echo "== whole: whole proof"; CUZK_MSM_WHOLE=1 timeout 150 $B --curve bn254 --log-n 24 --ops prove --runs 3
$Q
date
} > $M 2>&1
echo finished
