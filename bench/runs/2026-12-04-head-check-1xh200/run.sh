#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The head after the streamed pipeline test and the working set's slot layout (binaries
# carried in build-carry/): the GPU tests and goldens, then one PoRep-shaped
# 2^26 job on the same H200 with the key resident and with the key streamed under a 20 GiB budget.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
for t in test_gpu_engine test_gpu_prover test_cuda; do
  echo "== $t" >> $T; timeout 200 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
mkdir -p $OUT/n26
timeout 400 b/cuzk bench --job porep --log-n 26 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out $OUT/n26 > $OUT/n26/porep26.log 2>&1
echo "rc=$?" >> $OUT/n26/porep26.log
echo finished
