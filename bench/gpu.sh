#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# On a GPU host (nothing but a compiler, CMake and nvcc needed): builds cuzk in bare mode, runs
# the GPU tests and the rest of the suite (SKIP_CTEST=1: the GPU's part only), proves every
# fixture on the GPU and on the CPU with the same r, s (the proofs must be identical and verify)
# and against the recorded proofs (tests/golden), then the benchmark sweep.
#   bench/gpu.sh OUT_DIR [cuzk bench options...]
# Env: CUZK_DEADLINE (epoch seconds; the bench stops in time for it), BUILD_DIR.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${1:-build-gpu/out}
shift || true
mkdir -p "$OUT"
B=${BUILD_DIR:-build-gpu}
t0=$(date +%s)
DEADLINE=${CUZK_DEADLINE:-$((t0 + 3600))}
{
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_MINIMAL=ON &&
  cmake --build "$B" -j "$(nproc)"
} > "$OUT/build.log" 2>&1 || { tail -n 60 "$OUT/build.log"; echo "gpu.sh: build failed"; exit 1; }
echo "gpu.sh: built in $(( $(date +%s) - t0 )) s"
{ "$B/cuzk" --version; "$B/cuzk" devices; nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1; } | tee "$OUT/version.txt"

failed=0
for t in test_cuda test_gpu_ntt test_gpu_msm test_gpu_fixed_base test_gpu_prover test_gpu_engine; do
  ts=$(date +%s)
  "$B/tests/$t" > "$OUT/$t.log" 2>&1 || { failed=1; echo "$t FAILED (exit $?)"; }
  echo "$t: $(tail -n 1 "$OUT/$t.log") ($(( $(date +%s) - ts )) s)"
  grep -E "FAIL" "$OUT/$t.log" | head -n 5
done

# Every fixture on the GPU and the CPU with the same seed: identical bytes, and --verify passes.
P="$OUT/proofs"; mkdir -p "$P"; same=0; differ=0
for d in tests/fixtures/bn254/* tests/fixtures/bls12-381/*; do
  [ -f "$d/circuit.zkey" ] || continue
  n=$(basename "$(dirname "$d")")-$(basename "$d")
  "$B/cuzk" prove "$d/circuit.zkey" "$d/witness.wtns" "$P/$n.cpu.json" "$P/$n.cpu.public.json" --device cpu --seed 7 --quiet
  if "$B/cuzk" prove "$d/circuit.zkey" "$d/witness.wtns" "$P/$n.gpu.json" "$P/$n.gpu.public.json" --device gpu:0 --seed 7 --verify --quiet 2> "$P/$n.err" &&
     cmp -s "$P/$n.cpu.json" "$P/$n.gpu.json"; then same=$((same+1)); else differ=$((differ+1)); echo "GPU proof differs or fails: $n"; head -n 3 "$P/$n.err"; fi
  "$B/cuzk" prove "$d/circuit.zkey" "$d/witness2.wtns" "$P/$n.gpu2.json" "$P/$n.gpu2.public.json" --device gpu:0 --quiet ||
    { differ=$((differ+1)); echo "GPU proof of witness2 fails: $n"; }
done
[ $differ = 0 ] || failed=1
echo "fixtures: GPU proof == CPU proof (same r, s) and verifies: $same passed, $differ failed"
tar -C "$OUT" -czf "$OUT/proofs.tgz" proofs && rm -rf "$P"

# The recorded proofs of every fixture (tests/golden), made on the GPU.
bash tests/golden/check.sh "$B/cuzk" gpu:0 2>&1 | tee "$OUT/golden-gpu.txt" | tail -n 3
grep -q "identical to the recorded" "$OUT/golden-gpu.txt" || failed=1

if [ "${SKIP_CTEST:-0}" != 1 ]; then
  ctest --test-dir "$B" --output-on-failure -j 8 --timeout 600 -E "test_gpu|test_cuda" > "$OUT/ctest.log" 2>&1 || failed=1
  grep -E "tests passed|tests failed|\*\*\*Failed" "$OUT/ctest.log" | tail -n 8
fi

left=$(( DEADLINE - $(date +%s) - 25 ))
if [ "$left" -gt 20 ]; then
  "$B/cuzk" bench --json "$OUT/bench.json" --max-seconds "$left" "$@" 2>&1 | tee "$OUT/bench.txt" || failed=1
else
  echo "gpu.sh: no time left for the bench"
fi
echo "gpu.sh: done in $(( $(date +%s) - t0 )) s; $([ $failed = 0 ] && echo "all checks passed" || echo "SOMETHING FAILED")"
exit $failed
