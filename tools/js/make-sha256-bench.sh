#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
#
# make-sha256-bench.sh [DIR] -- build a BN254 Groth16 benchmark input set (not run in CI):
# circomlib SHA-256 of a 256-bit message (~30k constraints, domain 2^15, 256 public outputs),
# an INSECURE test ptau of power 15 (tools/js/make-test-ptau.js), `groth16 setup` + one
# `zkey contribute`, a witness, and one timed reference `snarkjs groth16 prove`.
#
# Output (default DIR = build/bench-sha256):
#   DIR/circuit.r1cs  DIR/circuit.zkey  DIR/witness.wtns  DIR/input.json
#   DIR/verification_key.json  DIR/proof.json  DIR/public.json  DIR/pot15.ptau
#   DIR/timings.txt   (seconds per step; snarkjs prove measured with /usr/bin/time)
#
# A benchmark can then time e.g.
#   snarkjs groth16 prove DIR/circuit.zkey DIR/witness.wtns proof.json public.json
# against another prover, and check its output with
#   snarkjs groth16 verify DIR/verification_key.json public.json proof.json
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
DIR="${1:-$ROOT/build/bench-sha256}"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"

if [ ! -x "$SCRIPT_DIR/node_modules/.bin/snarkjs" ] || [ ! -x "$SCRIPT_DIR/node_modules/.bin/circom2" ]; then
    npm ci --prefix "$SCRIPT_DIR" --no-audit --no-fund
fi
SNARKJS="$SCRIPT_DIR/node_modules/.bin/snarkjs"
CIRCOM="$SCRIPT_DIR/node_modules/.bin/circom2"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

TIMINGS="$DIR/timings.txt"
: > "$TIMINGS"
step() {  # name cmd...  (runs cmd, records wall/user/sys/maxrss)
    local name="$1"; shift
    echo "== $name"
    "$TIME" -o "$DIR/.time" -f "%e %U %S %M" "$@"
    read -r e u s m < "$DIR/.time"
    printf '%-28s wall %7.2f s  user %7.2f s  sys %6.2f s  maxrss %7d KB\n' "$name" "$e" "$u" "$s" "$m" | tee -a "$TIMINGS"
    rm -f "$DIR/.time"
}

# circuit (circom2 under WASI cannot include outside its working directory: copy circomlib)
rm -rf "$DIR/circomlib"
cp -r "$SCRIPT_DIR/node_modules/circomlib/circuits" "$DIR/circomlib"
cat > "$DIR/circuit.circom" <<'EOF'
pragma circom 2.0.0;
include "circomlib/sha256/sha256.circom";
// SHA-256 of a 256-bit message; all 256 output bits are public outputs.
component main = Sha256(256);
EOF
# fixed 256-bit message: bits of sha256("cuzk")
node -e '
  const h = require("crypto").createHash("sha256").update("cuzk").digest();
  const bits = [];
  for (const byte of h) for (let i = 7; i >= 0; i--) bits.push(String((byte >> i) & 1));
  console.log(JSON.stringify({ in: bits }));' > "$DIR/input.json"

step "circom2 compile" bash -c "cd '$DIR' && '$CIRCOM' circuit.circom --r1cs --wasm -p bn128 -o . > circom.log"
grep -E "constraints|wires|outputs" "$DIR/circom.log" || true
step "make-test-ptau (p=15)" node "$SCRIPT_DIR/make-test-ptau.js" --curve bn128 --power 15 --seed cuzk-bench-v1 --out "$DIR/pot15.ptau"
step "wtns calculate" "$SNARKJS" wtns calculate "$DIR/circuit_js/circuit.wasm" "$DIR/input.json" "$DIR/witness.wtns"
step "groth16 setup" "$SNARKJS" groth16 setup "$DIR/circuit.r1cs" "$DIR/pot15.ptau" "$DIR/circuit_setup.zkey"
step "zkey contribute" "$SNARKJS" zkey contribute "$DIR/circuit_setup.zkey" "$DIR/circuit.zkey" --name="cuzk bench" -e="cuzk-bench-sha256"
rm -f "$DIR/circuit_setup.zkey"
"$SNARKJS" zkey export verificationkey "$DIR/circuit.zkey" "$DIR/verification_key.json" > /dev/null
"$SNARKJS" r1cs info "$DIR/circuit.r1cs" | sed 's/\x1b\[[0-9;]*m//g' | grep -E "Constraints|Wires|Outputs|Inputs" || true
step "snarkjs groth16 prove" "$SNARKJS" groth16 prove "$DIR/circuit.zkey" "$DIR/witness.wtns" "$DIR/proof.json" "$DIR/public.json"
step "snarkjs groth16 verify" "$SNARKJS" groth16 verify "$DIR/verification_key.json" "$DIR/public.json" "$DIR/proof.json"
echo "== done: $DIR"
cat "$TIMINGS"
