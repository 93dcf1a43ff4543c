#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The sequence run on the H200 host from the repository root (binaries carried in build-carry/):
# the engine's GPU tests, then the PoRep-shaped 2^26 job with the key resident and streamed
# under a 20 GiB budget, the streamed key page-locked at registration.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
for t in test_gpu_engine test_gpu_msm; do
  echo "== $t" >> $T; timeout 200 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
mkdir -p $OUT/n26
timeout 360 b/cuzk bench --job porep --log-n 26 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' --setup-device gpu:0 --out $OUT/n26 > $OUT/n26/porep26.log 2>&1
echo "rc=$?" >> $OUT/n26/porep26.log
echo finished
