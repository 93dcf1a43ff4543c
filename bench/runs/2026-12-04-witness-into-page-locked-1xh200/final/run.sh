#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# After review (614a166: page-locked copies take only kept buffers; a worker is given back
# before its job ends): the GPU prover and engine tests and goldens, then the PoRep-shaped 2^27
# job, key resident and key streamed under a 20 GiB budget, on one H200 (binaries in build-carry/).
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv; nproc; free -m; } > $OUT/host.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
for t in test_gpu_prover test_gpu_engine; do
  echo "== $t" >> $T; timeout 120 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 100 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
date >> $T
mkdir -p n27
timeout 250 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out n27 > n27/porep27.log 2>&1
echo "rc=$?" >> n27/porep27.log
tar cf - n27 | xz -T4 > $OUT/n27.tar.xz
cp n27/porep27.log $OUT/
echo finished
