#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The examples of examples/ against the installed library: `cmake --install` into a temporary
# prefix, then
#   python: examples/python/prove.py loads PREFIX/lib/libcuzk.so with ctypes;
#   go:     examples/go built with cgo and `#cgo pkg-config: cuzk` (PKG_CONFIG_PATH only), offline,
#           with its own GOPATH and GOCACHE in the temporary directory (exit 77, skipped, without go);
# each proves FIXTURE's witness, prints the proof and must verify it.
#   bash tests/package/examples.sh BUILD_DIR python|go FIXTURE_DIR [PYTHON]
set -euo pipefail
BUILD=$1
WHICH=$2
FIX=$(cd "$3" && pwd)
PY=${4:-python3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$WHICH" = go ] && ! command -v go > /dev/null; then
  echo "skipped: no go (Debian: apt-get install golang-go; scripts/install-deps.sh installs it)"
  exit 77
fi
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2> /dev/null; rm -rf "$T"' EXIT
cmake --install "$BUILD" --prefix "$T/prefix" > "$T/install.log"
pc=$(find "$T/prefix" -name cuzk.pc)
libdir=$(dirname "$(dirname "$pc")")
args=("$FIX/circuit.zkey" "$FIX/witness.wtns" "$FIX/verification_key.json")
case $WHICH in
  python)
    "$PY" "$ROOT/examples/python/prove.py" --lib "$libdir/libcuzk.so" "${args[@]}" | tee "$T/out"
    ;;
  go)
    go version
    export PKG_CONFIG_PATH=$(dirname "$pc") GOPATH=$T/gopath GOCACHE=$T/gocache GOPROXY=off GOTOOLCHAIN=local
    export CGO_ENABLED=1 CGO_LDFLAGS="-Wl,-rpath,$libdir" GOFLAGS=
    cp -r "$ROOT/examples/go" "$T/go"  # built away from the tree: nothing written there
    (cd "$T/go" && go build -o prove .)
    ldd "$T/go/prove" | grep libcuzk
    mkdir -p "$T/proofs"
    "$T/go/prove" -devices auto -out "$T/proofs" "${args[@]}" | tee "$T/out"
    ;;
  *) echo "unknown example $WHICH"; exit 2 ;;
esac
grep -q '"protocol": "groth16"' "$T/out" || { echo "FAIL no proof printed"; exit 1; }
grep -q '^verified' "$T/out" || { echo "FAIL not verified"; exit 1; }
if [ "$WHICH" = go ]; then
  grep -q 'PROVER_ERROR_SHORT_BUFFER' "$T/out" || { echo "FAIL no short-buffer refusal through rapidsnark.h"; exit 1; }
  grep -q '^verified the rapidsnark.h proof' "$T/out" || { echo "FAIL rapidsnark.h proof not verified"; exit 1; }
  # snarkjs judges both proofs (cuzk.h's and rapidsnark.h's) where node and tools/js are installed.
  cli=$ROOT/tools/js/node_modules/snarkjs/build/cli.cjs
  if command -v node > /dev/null && [ -f "$cli" ]; then
    for p in "" rapidsnark_; do
      which=${p:+rapidsnark.h}
      which=${which:-cuzk.h}
      node "$cli" groth16 verify "$FIX/verification_key.json" "$T/proofs/${p}public.json" "$T/proofs/${p}proof.json" \
        > "$T/snarkjs.out" 2>&1 || { echo "FAIL snarkjs refuses the $which proof: $(tail -2 "$T/snarkjs.out")"; exit 1; }
      grep -q 'OK' "$T/snarkjs.out" || { echo "FAIL snarkjs: $(cat "$T/snarkjs.out")"; exit 1; }
      echo "snarkjs: the $which proof is valid"
    done
  else
    echo "snarkjs: not run (node or tools/js/node_modules missing)"
  fi
fi
