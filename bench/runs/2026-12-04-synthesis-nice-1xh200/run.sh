#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Synthesis threads 5 nicer than the rest (binaries in build-carry/): the PoRep-shaped 2^27 job,
# key resident and key streamed under a 20 GiB budget, on one H200, with the host's memory and
# CPU sampled every second (mem.txt) beside it.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
(while :; do echo "$(date +%s.%N | cut -c1-14) $(grep -E '^(MemAvailable):' /proc/meminfo | awk '{printf "%s%s ", $1, $2}') $(head -1 /proc/stat)"; sleep 1; done) > $OUT/mem.txt 2>&1 &
VM=$!
mkdir -p $OUT/n27
timeout 420 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
kill $VM
echo finished
