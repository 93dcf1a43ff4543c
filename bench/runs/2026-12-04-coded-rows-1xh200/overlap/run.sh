#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Streamed rows evaluated while the next piece is copied (on top of the coded values; binaries in
# build-carry/): the GPU prover and engine tests and goldens, then the PoRep-shaped 2^27 job,
# key resident and key streamed under a 20 GiB budget, on one H200, with the host's memory
# sampled every second (mem.txt) beside it.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
{ nproc; free -m; } > $OUT/host.txt 2>&1
(while :; do echo "$(date +%s.%N | cut -c1-14) $(grep -E '^(MemFree|MemAvailable|Cached|Mlocked):' /proc/meminfo | awk '{printf "%s%s ", $1, $2}')"; sleep 1; done) > $OUT/mem.txt 2>&1 &
VM=$!
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
for t in test_gpu_prover test_gpu_engine; do
  echo "== $t" >> $T; timeout 200 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
date >> $T
mkdir -p $OUT/n27
timeout 420 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
kill $VM
free -m >> $OUT/host.txt
echo finished
