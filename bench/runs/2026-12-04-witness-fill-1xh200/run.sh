#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Witness values filled without zeroing first, the synthetic witness's row hashes shared
# (binaries carried in build-carry/): the engine's GPU tests and the goldens, then one
# PoRep-shaped 2^27 job with the key resident on one H200 (against the resident half of
# 2026-12-04-streamed-pipeline-1xh200/n27, the same command).
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
for t in test_gpu_engine test_gpu_prover; do
  echo "== $t" >> $T; timeout 200 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
mkdir -p $OUT/n27
timeout 420 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices gpu:0 \
  --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
echo finished
