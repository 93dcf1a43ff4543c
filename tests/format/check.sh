#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The tree follows .clang-format: every C/C++/CUDA source under src/, apps/, include/, tests/,
# fuzz/ and bench/ is as clang-format writes it. Exits 77 (skipped) without clang-format.
#   bash tests/format/check.sh [ROOT]        (fix: the same list through clang-format -i)
set -uo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
CF=$(command -v clang-format || command -v clang-format-14 || true)
[ -n "$CF" ] || { echo "format: no clang-format (apt-get install clang-format): skipped"; exit 77; }
cd "$ROOT"
mapfile -t files < <(git ls-files 'src/*' 'apps/*' 'include/*' 'tests/*' 'fuzz/*' 'bench/*' 2> /dev/null |
  grep -E '\.(c|cpp|hpp|cu|cuh|h)$' | grep -v '^tests/fixtures/')
[ "${#files[@]}" -gt 50 ] || { echo "format: only ${#files[@]} sources found under $ROOT"; exit 1; }
bad=()
for f in "${files[@]}"; do
  "$CF" --style=file --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if [ "${#bad[@]}" -gt 0 ]; then
  printf 'format: not as .clang-format writes it: %s\n' "${bad[@]}"
  echo "format: fix with: clang-format -i ${bad[*]}"
  exit 1
fi
echo "format: ${#files[@]} sources follow .clang-format ($("$CF" --version | head -n 1))"
