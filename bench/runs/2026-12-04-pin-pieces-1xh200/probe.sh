#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# pinprobe.cu (built on the development machine, carried as build-carry/pinprobe): what
# page-locking 4 GiB costs a page-locked copy running beside it.
set -u
cd "$(dirname "$0")/../../.."
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/probe-gpu.txt 2>&1
timeout 200 build-carry/pinprobe > $OUT/pinprobe.txt 2>&1
echo "rc=$?" >> $OUT/pinprobe.txt
