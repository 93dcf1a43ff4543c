#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The 32GiB PoRep partition's rows recorded as a daemon records them when it loads the circuit
# (record mode: every row kept), and its witness synthesized, by the binary before the circuit
# changes (cuzk-prev, 0ef2c5a) and after (cuzk: combinations without allocations, the challenges'
# rows recorded in parallel waves); CPU only, on the GPU host's 16 cores and memory.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
{ nproc; free -m; grep -m1 'model name' /proc/cpuinfo; } > $OUT/host.txt 2>&1
L=$OUT/record.log
for b in cuzk-prev cuzk; do
  echo "== $b $(b/$b --version | head -1)" >> $L
  timeout 200 b/$b filecoin shape porep --sector-size 32GiB --record --json >> $L 2>&1; echo "rc=$?" >> $L
done
for b in cuzk-prev cuzk; do
  echo "== $b witness" >> $L
  timeout 60 b/$b filecoin shape porep --sector-size 32GiB --witness --json >> $L 2>&1; echo "rc=$?" >> $L
done
echo finished
