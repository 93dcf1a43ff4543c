#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Buckets held a batch of groups at a time when every set would not fit (22-bit windows from 2^26
# for G1), each batch's reduction on a second stream beside the next batch. Binaries in
# build-carry/: b/cuzk and the GPU tests of that change, b/cuzk-a of f3a0651 (the same batches,
# reduced on the call's stream). The GPU tests (test_gpu_prover left out for the carry's size; the
# goldens check the GPU proofs); G1 BLS12-381 at 2^26 and 2^27 at the chosen width (22, batched),
# forced to 20 (every set held, as before), and b/cuzk-a's chosen; G2 at 2^25 chosen (20,
# batched) and forced to 19 (the width before); the table rows' MSMs; then the PoRep-shaped 2^27
# job, key resident and streamed under a 20 GiB budget.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
Q="nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv"
{ $Q; nproc; free -m; } > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
for t in test_cuda test_gpu_msm test_gpu_engine; do
  echo "== $t" >> $T; timeout 240 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
date >> $T
M=$OUT/bench.log
{
date
B="b/cuzk bench --device gpu:0 --curve bls12-381"
echo "== g1 chosen"; timeout 60 $B --ops msm-g1 --log-n 26,27 --runs 3
echo "== g1 forced"; timeout 60 $B --ops msm-g1 --log-n 26,27 --window-bits 20 --runs 3
echo "== cuzk-a: g1 chosen"; timeout 60 b/cuzk-a bench --device gpu:0 --curve bls12-381 --ops msm-g1 --log-n 26,27 --runs 3
echo "== g2 2^25 chosen, forced 19"; timeout 90 $B --ops msm-g2 --log-n 25 --window-bits 0,19 --runs 3
echo "== table rows"; timeout 90 b/cuzk bench --device gpu:0 --curve all --log-n 20,24 --ops msm-g1 --tables 24 --runs 5
$Q
date
} > $M 2>&1
mkdir -p n27
timeout 300 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out n27 > n27/porep27.log 2>&1
echo "rc=$?" >> n27/porep27.log
tar cf - n27 | xz -T4 > $OUT/n27.tar.xz
echo finished
