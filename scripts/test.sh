#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Every test: installs what is missing, builds everything (CUDA too when nvcc exists), runs the
# fuzzers briefly, then ctest (unit tests, CLI error cases, snarkjs acceptance of every fixture
# proof on both curves). Prints the time of each stage.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
# ccache keys relative to the tree, so that clones in other folders share the cache.
export CCACHE_BASEDIR="$PWD"
t_start=$(date +%s)
stage() { echo; echo "=== $1 ($(( $(date +%s) - t_start )) s since start)"; }

stage "install dependencies"
bash scripts/install-deps.sh

stage "configure"
# Device code: where no GPU is visible it is built as PTX only (every kernel still compiled, but
# ptxas skipped: ~20% less compile time; a GPU that loads these binaries compiles them at load).
# A GPU host builds machine code too. CUZK_CUDA_ARCHITECTURES in the environment decides instead.
arch=()
if [ -n "${CUZK_CUDA_ARCHITECTURES:-}" ]; then
  arch=(-DCUZK_CUDA_ARCHITECTURES="$CUZK_CUDA_ARCHITECTURES")
elif ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  arch=(-DCUZK_CUDA_ARCHITECTURES=90-virtual)
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${arch[@]}"

stage "build"
cmake --build "$BUILD_DIR" -j "$JOBS"
"$BUILD_DIR/cuzk" --version

stage "fuzz (${CUZK_FUZZ_SECONDS:=15} s per reader)"
env -u CXX CUZK_FUZZ_SECONDS=$CUZK_FUZZ_SECONDS bash fuzz/run.sh "$BUILD_DIR-fuzz"

stage "ctest"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" --timeout 1200
echo "test.sh: all stages passed in $(( $(date +%s) - t_start )) s"
