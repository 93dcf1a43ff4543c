#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The NTT with pass 0's twiddles in shared memory (binaries carried in build-carry/): the GPU tests that
# cover the NTT, H, the engine and the prover, the goldens, then the NTT and H at 2^24 and the
# whole dense BN254 2^24 proof.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b
(cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv > $OUT/gpu.txt 2>&1
export CUZK_FIXTURES=$PWD/tests/fixtures
T=$OUT/tests.txt
for t in test_gpu_ntt test_gpu_engine test_gpu_prover; do
  echo "== $t" >> $T; timeout 240 b/$t >> $T 2>&1; echo "rc=$?" >> $T
done
echo "== golden" >> $T; timeout 150 bash tests/golden/check.sh b/cuzk gpu:0 >> $T 2>&1; echo "rc=$?" >> $T
M=$OUT/bench.log
timeout 60 b/cuzk bench --device gpu:0 --curve all --log-n 20,24 --ops ntt,h --runs 5 >> $M 2>&1; echo "rc=$?" >> $M
timeout 100 b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops prove --runs 3 >> $M 2>&1; echo "rc=$?" >> $M
echo finished
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 100 $NCU --clock-control none -k 'regex:ntt_pass_kernel' -c 3 --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section Occupancy --section LaunchStats b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops ntt --runs 1 > $OUT/ncu.txt 2>&1
echo finished-ncu
