#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# kept/ again (the same binaries, carried in build-carry/), without the tests and with fewer
# files, so that both sets' timeline.svg come back: the PoRep-shaped 2^27 job, resident and
# with the key streamed under a 20 GiB budget on one H200; the host's memory sampled each second.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv; nproc; free -m; } > $OUT/host.txt 2>&1
(while :; do echo "$(date +%s.%N | cut -c1-14) $(grep -E '^(MemFree|MemAvailable|Cached|SwapFree|Mlocked|Dirty):' /proc/meminfo | awk '{printf "%s%s ", $1, $2}') $(head -1 /proc/stat)"; sleep 1; done) > $OUT/mem.txt 2>&1 &
VM=$!
mkdir -p $OUT/n27
timeout 420 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
kill $VM
echo finished
