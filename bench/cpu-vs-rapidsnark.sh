#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk's CPU prover against rapidsnark's, side by side on this machine: the same key and
# witness, the two provers interleaved RUNS times (default 5) per circuit, each a whole process
# (`cuzk prover` and rapidsnark's `prover`, the same four paths); medians, the ratio
# cuzk / rapidsnark and the peak resident memory of each. Every proof is then checked by
# snarkjs. Circuits (BN254; inputs made once under BUILD/bench-rs, keys from an insecure setup):
#   porep14   gen-circuit --shape porep --log-n 14 (bits of hashes: mostly 0/1 values)
#   sha15     circomlib SHA-256 of 256 bits, 2^15 (tools/js/make-sha256-bench.sh)
#   dense18   gen-circuit --shape dense --log-n 18 (random values)
#   dense20   gen-circuit --shape dense --log-n 20
# Build rapidsnark yourself (README: "cuzk against rapidsnark"); nothing of it is in cuzk.
#   bench/cpu-vs-rapidsnark.sh RAPIDSNARK_PROVER BUILD [CIRCUIT...]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RS=$(realpath "${1:?usage: cpu-vs-rapidsnark.sh RAPIDSNARK_PROVER BUILD [CIRCUIT...]}")
BUILD=$(realpath "${2:?usage: cpu-vs-rapidsnark.sh RAPIDSNARK_PROVER BUILD [CIRCUIT...]}")
shift 2
CIRCUITS=("$@")
[ ${#CIRCUITS[@]} -gt 0 ] || CIRCUITS=(porep14 sha15 dense18 dense20)
RUNS=${RUNS:-5}
CUZK=$BUILD/cuzk
[ -x "$RS" ] || { echo "not executable: $RS" >&2; exit 2; }
[ -x "$CUZK" ] || { echo "no cuzk in $BUILD" >&2; exit 2; }
IN=$BUILD/bench-rs
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$IN"

# One circuit's key, witness and verification key under $IN/NAME.
prepare() {
  local name=$1 d=$IN/$1
  [ -s "$d/verification_key.json" ] && return
  case $name in
    porep* | dense*)
      local shape=${name%%[0-9]*} log=${name##*[a-z]}
      "$CUZK" gen-circuit --shape "$shape" --log-n "$log" --curve bn254 --setup --setup-seed 7 --out "$d" --quiet
      mv "$d/witness_0.wtns" "$d/witness.wtns"
      ;;
    sha15) bash "$ROOT/tools/js/make-sha256-bench.sh" "$d" > /dev/null ;;
    *) echo "unknown circuit '$name' (porepN, denseN, sha15)" >&2; exit 2 ;;
  esac
  "$CUZK" zkey export verificationkey "$d/circuit.zkey" "$d/verification_key.json"
}

# cuzk's CPU prover even where a GPU is visible (`cuzk prover` would take it).
printf '#!/bin/sh\nexec "%s" prover "$@" --device cpu\n' "$CUZK" > "$OUT/cuzk-cpu"
chmod +x "$OUT/cuzk-cpu"

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "cuzk: $("$CUZK" --version | head -n 1); rapidsnark: $RS; runs: $RUNS, interleaved"
printf '%-9s %12s %12s %8s %12s %12s\n' circuit rapidsnark_s cuzk_s ratio rs_peak_MiB cuzk_peak_MiB
for c in "${CIRCUITS[@]}"; do
  prepare "$c"
  line=$(python3 "$ROOT/bench/side_by_side.py" "$RUNS" "$OUT" "$c" "$IN/$c/circuit.zkey" "$IN/$c/witness.wtns" \
    -- rapidsnark "$RS" -- cuzk "$OUT/cuzk-cpu")
  echo "$line" >> "$OUT/results.jsonl"
  python3 - "$line" << 'PY'
import json, sys
r = json.loads(sys.argv[1])
m, p = r["median_s"], r["peak_mib"]
print("%-9s %12.3f %12.3f %8.3f %12.1f %12.1f" % (r["circuit"], m["rapidsnark"], m["cuzk"], r["ratio"],
                                                 p["rapidsnark"], p["cuzk"]))
PY
done
echo "runs (s):"
sed 's/^/  /' "$OUT/results.jsonl"
if command -v node > /dev/null && [ -d "$ROOT/tools/js/node_modules/snarkjs" ]; then
  node "$ROOT/tests/snarkjs/verify-many.mjs" "$OUT/cases" | tail -n 1
else
  echo "snarkjs: not run (no node or no tools/js/node_modules/snarkjs on this machine)"
fi
