#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Not run yet (no machine lent for the rest of the session).
# After run.sh: its PoRep job's A+B1+C call (three arrays, fewer general scalars: 20-bit windows)
# was batched by buckets sized for 22 bits' rooms, +7.5 ms. Now the buckets are also every set of
# the width a full call would take with every set held, and a plan whose sets fit is not batched.
# Binaries of that change in build-carry/. The GPU tests and the goldens; the widths run.sh timed
# and those it did not (its G2 line asked for a width of 0, refused): G2 BLS12-381 at 2^25 (20
# bits, batched, against 19), BN254 G1 at 2^26 and 2^27 (22 against 20); then the PoRep job again.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
Q="nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv"
{ $Q; nproc; free -m; } > $OUT/gpu2.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests2.txt
date > $T
for t in test_cuda test_gpu_msm test_gpu_engine; do
  echo "== $t" >> $T; timeout 240 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
date >> $T
M=$OUT/bench2.log
{
date
B="b/cuzk bench --device gpu:0"
echo "== g1 bls12-381 chosen"; timeout 60 $B --curve bls12-381 --ops msm-g1 --log-n 26,27 --runs 3
echo "== g2 bls12-381 2^25 chosen"; timeout 90 $B --curve bls12-381 --ops msm-g2 --log-n 25 --runs 3
echo "== g2 bls12-381 2^25 forced 19"; timeout 90 $B --curve bls12-381 --ops msm-g2 --log-n 25 --window-bits 19 --runs 3
echo "== g1 bn254 chosen"; timeout 60 $B --curve bn254 --ops msm-g1 --log-n 26,27 --runs 3
echo "== g1 bn254 forced 20"; timeout 60 $B --curve bn254 --ops msm-g1 --log-n 26,27 --window-bits 20 --runs 3
$Q
date
} > $M 2>&1
mkdir -p n27b
timeout 300 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out n27b > n27b/porep27.log 2>&1
echo "rc=$?" >> n27b/porep27.log
tar cf - n27b | xz -T4 > $OUT/n27b.tar.xz
echo finished
