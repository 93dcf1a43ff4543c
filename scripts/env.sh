# SPDX-License-Identifier: MIT OR Apache-2.0
# Sourced by the scripts: finds nvcc where the CUDA toolkit installs it, if not on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ]; then
  for c in /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
    if [ -x "$c" ]; then export CUDACXX="$c"; break; fi
  done
fi
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
