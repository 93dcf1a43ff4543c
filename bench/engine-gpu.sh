#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The engine's GPU runs in one go, for a GPU host (binaries built elsewhere and carried, or
# built here in bare mode): `cuzk bench --job porep` at 2^N on 1, 2, 4 or 8 GPUs (as many as
# are visible), a stream of jobs per set, a budget beyond the card, the small-memory (streamed)
# mode and the CPU check under full load. Logs, summary.json and
# timeline.svg of each set go to OUT (packed into OUT/engine-runs.tgz for fetching).
#   bench/engine-gpu.sh OUT CUZK [LOG_N] [JOBS]
# e.g. bench/engine-gpu.sh "$OUT" build-carry/cuzk 26 3
# Each step has its own time limit (STREAM_S, CHECKS_S seconds) and the reports are packed after
# each, so a run cut short still brings back what it finished. CHECKS=0 runs the stream only.
set -uo pipefail
OUT=$1 CUZK=$2 N=${3:-26} JOBS=${4:-3} STREAM_S=${STREAM_S:-900} CHECKS_S=${CHECKS_S:-900} CHECKS=${CHECKS:-1}
mkdir -p "$OUT/runs"
G=$(nvidia-smi -L 2> /dev/null | wc -l)
[ "$G" -ge 1 ] || { echo "engine-gpu: no GPU visible"; exit 1; }
{ "$CUZK" --version; "$CUZK" devices; nproc; free -g | head -n 2; } | tee "$OUT/machine.txt"
all=$(seq -s, 0 $((G - 1)) | sed 's/[0-9]\+/gpu:&/g')
sets="gpu:0"
for k in 2 4 8; do [ "$G" -ge "$k" ] && sets+=";$(seq -s, 0 $((k - 1)) | sed 's/[0-9]\+/gpu:&/g')"; done
# 1. Scaling: a stream of JOBS jobs of 10 partitions on 1, 2, 4, 8 GPUs (one process: one key);
#    then a budget beyond the card (1 TiB) with 16 workers on gpu:0: from N = 26 up and with
#    JOBS >= 2, more working sets than an H200 holds; each job must fail with the CUDA error and
#    the process go on.
timeout "$STREAM_S" "$CUZK" bench --job porep --log-n "$N" --partitions 10 --jobs "$JOBS" --devices "$sets;gpu:0@1TiB*16" \
  --setup-device gpu:0 --out "$OUT/runs/stream" 2>&1 | tee "$OUT/stream.txt"
tar -C "$OUT" -czf "$OUT/engine-runs.tgz" runs
# 2. One job on every GPU, then the same job with a 20 GiB budget (the key streamed), then one
#    job on every GPU with a CPU proof of partition 0 (same r, s) while they are all loaded (the
#    CPU proof of a 2^26 partition takes minutes: give CHECKS_S room).
[ "$CHECKS" = 1 ] && timeout "$CHECKS_S" "$CUZK" bench --job porep --log-n "$N" --partitions 10 --jobs 1 \
  --devices "$all;$all@20GiB;$all" --check-cpu --setup-device gpu:0 --out "$OUT/runs/checks" 2>&1 |
  tee "$OUT/checks.txt"
tar -C "$OUT" -czf "$OUT/engine-runs.tgz" runs && rm -rf "$OUT/runs"
echo "engine-gpu: done"
