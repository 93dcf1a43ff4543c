#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# After run.sh on the same host: the PoRep-shaped 2^27 job (10 partitions, key resident).
set -u
cd "$(dirname "$0")/../../../.."
[ -x b/cuzk ] || { mkdir -p b && (cd b && tar xJf ../build-carry/bins.tar.xz) || exit 1; }
mkdir -p $OUT/n27
timeout 400 b/cuzk bench --job porep --log-n 27 --partitions 10 --jobs 1 --devices gpu:0 --setup-device gpu:0 --out $OUT/n27 > $OUT/n27/porep27.log 2>&1
echo "rc=$?" >> $OUT/n27/porep27.log
echo finished
