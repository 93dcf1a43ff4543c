#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Where the dense proof's stage and the NTT's time go, on the H200 host from the repository root
# (binaries carried in build-carry/, probe.cu built with `nvcc -O2 -std=c++17`): host and
# transfer rates, the memory pool, the NTT's kernels under Nsight Compute (clocks left alone),
# then the NTT, H and whole-proof benchmarks as they stand.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
timeout 120 build-carry/probe > $OUT/probe.txt 2>&1; echo "rc=$?" >> $OUT/probe.txt
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" > $OUT/ncu.txt
timeout 200 $NCU --clock-control none -k 'regex:ntt_pass_kernel|bit_reverse_tiles_kernel|expand_kernel' -c 5 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy \
  --section LaunchStats b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops ntt --runs 1 >> $OUT/ncu.txt 2>&1
echo "rc=$?" >> $OUT/ncu.txt
M=$OUT/bench.log
timeout 60 b/cuzk bench --device gpu:0 --curve all --log-n 24 --ops ntt,h --runs 5 > $M 2>&1; echo "rc=$?" >> $M
timeout 100 b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops prove --runs 3 >> $M 2>&1; echo "rc=$?" >> $M
echo finished
