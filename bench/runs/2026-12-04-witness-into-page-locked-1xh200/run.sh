#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A witness synthesized straight into page-locked memory (first/: BINS=b, 533d65f, for the partition
# that finds the device idle; second/: 23e3d74, for each that will find a worker free; binaries in
# build-carry/: b/ this tree's, b0/ the parent's cuzk, cf85c79): the GPU prover and
# engine tests and goldens, then the PoRep-shaped 2^27 job, key resident twice and key streamed
# under a 20 GiB budget, by this tree's cuzk and by its parent's, on one H200, the host's memory
# sampled every second (mem.txt) beside it. Each job's records in one archive (runs.tar.xz).
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b b0
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
(cd b0 && tar xJf ../build-carry/bins0.tar.xz) || exit 1
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv; nproc; free -m; } > $OUT/host.txt 2>&1
(while :; do echo "$(date +%s.%N | cut -c1-14) $(grep -E '^(MemFree|MemAvailable|Cached|Mlocked):' /proc/meminfo | awk '{printf "%s%s ", $1, $2}')"; sleep 1; done) > $OUT/mem.txt 2>&1 &
VM=$!
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
date > $T
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  for t in test_gpu_prover test_gpu_engine; do
    echo "== $t" >> $T; timeout 200 b/$t >> $T 2>&1; echo "rc=$?" >> $T
  done
  echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
fi
date >> $T
R=runs
mkdir -p $R
for bin in ${BINS:-b b0}; do
  mkdir -p $R/$bin
  echo "== $bin $(date +%T)" >> $OUT/mem.txt
  timeout 420 $bin/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices 'gpu:0;gpu:0;gpu:0@20GiB' \
    --setup-device gpu:0 --out $R/$bin > $R/$bin/porep27.log 2>&1
  echo "rc=$?" >> $R/$bin/porep27.log
  cp $R/$bin/porep27.log $OUT/porep27-$bin.log
done
kill $VM
tar cf - $R | xz -T4 > $OUT/runs.tar.xz
free -m >> $OUT/host.txt
echo finished
