#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The same tree (af9a50e, binaries carried in build-carry/): one PoRep-shaped 2^27 job on the
# same H200 with the key resident and with the key streamed under a 20 GiB budget.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu27.txt 2>&1
mkdir -p $OUT/n27
timeout 560 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0@20GiB' \
  --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
echo finished
