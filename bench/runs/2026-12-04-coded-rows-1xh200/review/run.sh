#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# After the review fixes (a coded matrix's dictionary no longer page-locked; binaries in
# build-carry/): the GPU prover and engine tests and goldens on one H200, then the NTT and H
# timings at 2^24..2^27 (BLS12-381) for the record of how they scale.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
for t in test_gpu_prover test_gpu_engine; do
  echo "== $t" >> $T; timeout 200 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
date >> $T
timeout 240 b/cuzk bench --device gpu:0 --curve bls12-381 --log-n 24,25,26,27 --ops ntt,h --runs 5 \
  --json $OUT/ntt-h.json > $OUT/ntt-h.txt 2>&1
echo "rc=$?" >> $OUT/ntt-h.txt
echo finished
