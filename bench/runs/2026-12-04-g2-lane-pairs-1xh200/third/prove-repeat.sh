#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# After run.sh on the same host: the dense BN254 proof twice more (5 runs each), its stage (the
# witness copy) having been 32 ms in run.sh against 16-22 before.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b && (cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1
for i in 1 2; do timeout 100 b/cuzk bench --device gpu:0 --curve bn254 --log-n 24 --ops prove --runs 5 2>&1 | tail -1; done > $OUT/prove-repeat.log
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv >> $OUT/prove-repeat.log
