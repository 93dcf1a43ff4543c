#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The head with CUB's select and sort in one unit (msm_sort.cu), binaries in build-carry/: field
# checks, the GPU MSM, engine (its page-locked copies included) and prover tests, the goldens; the
# table rows (MSM G1 and G2 over tables, NTT, the dense BN254 proof); the G1 MSM at 2^27 without
# tables (the PoRep H's shape, for its phases); then the PoRep-shaped 2^27 job, key resident and
# streamed under a 20 GiB budget.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
Q="nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv"
{ $Q; nproc; free -m; } > $OUT/gpu.txt 2>&1
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
echo "== msm g1 tables"; timeout 90 $B --curve all --log-n 20,24 --ops msm-g1 --tables 24 --runs 5
echo "== msm g2 tables"; timeout 60 $B --curve all --log-n 22 --ops msm-g2 --tables 24 --runs 5
echo "== ntt"; timeout 60 $B --curve all --log-n 24 --ops ntt --runs 9
echo "== whole proof"; timeout 150 $B --curve bn254 --log-n 24 --ops prove --runs 5
echo "== msm g1 2^27 no tables"; timeout 100 $B --curve bls12-381 --log-n 27 --ops msm-g1 --runs 3
$Q
date
} > $M 2>&1
mkdir -p n27
timeout 300 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out n27 > n27/porep27.log 2>&1
echo "rc=$?" >> n27/porep27.log
tar cf - n27 | xz -T4 > $OUT/n27.tar.xz
cp n27/porep27.log $OUT/
echo finished
