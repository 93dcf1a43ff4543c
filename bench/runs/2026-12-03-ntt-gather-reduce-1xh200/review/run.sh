#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# test_gpu_ntt of the tree after the review (the overlap refused on either side), carried in
# build-carry/.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p b && (cd b && tar xJf ../build-carry/bins.tar.xz) && export CUZK_FIXTURES=$PWD/tests/fixtures
timeout 200 b/test_gpu_ntt > $OUT/tests.txt 2>&1
echo rc=$? >> $OUT/tests.txt
