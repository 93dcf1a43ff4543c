#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# After run.sh (whose G2 line asked for a width of 0, refused): the other calls whose chosen width
# the batched buckets changed, binaries of 2116c34 in build-carry/: G2 BLS12-381 at 2^25 (20
# bits, batched, against 19, every set held) and BN254 G1 at 2^26 and 2^27 (22 against 20).
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
Q="nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv"
M=$OUT/bench2.log
{
date
B="b/cuzk bench --device gpu:0"
echo "== g2 bls12-381 2^25 chosen"; timeout 90 $B --curve bls12-381 --ops msm-g2 --log-n 25 --runs 3
echo "== g2 bls12-381 2^25 forced 19"; timeout 90 $B --curve bls12-381 --ops msm-g2 --log-n 25 --window-bits 19 --runs 3
echo "== g1 bn254 chosen"; timeout 60 $B --curve bn254 --ops msm-g1 --log-n 26,27 --runs 3
echo "== g1 bn254 forced 20"; timeout 60 $B --curve bn254 --ops msm-g1 --log-n 26,27 --window-bits 20 --runs 3
$Q
date
} > $M 2>&1
echo finished
