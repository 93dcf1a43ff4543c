#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the parser fuzzers (libFuzzer + ASan + UBSan) into $1 (default build-fuzz), seeds a
# corpus from tests/fixtures (small files) and a tiny generated valid file per format and curve,
# runs each target for $CUZK_FUZZ_SECONDS seconds (default 20) and exits non-zero on any finding.
# Compiles and fuzzers run $CUZK_FUZZ_JOBS at a time (default: the cores), each fuzzer on one.
#   fuzz/run.sh [build-dir]        env: CUZK_FUZZ_SECONDS, CXX (default clang++-14), CUZK_FUZZ_TARGETS,
#                                  CUZK_FUZZ_JOBS
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${1:-build-fuzz}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SECS=${CUZK_FUZZ_SECONDS:-20}
TARGETS=${CUZK_FUZZ_TARGETS:-"zkey wtns r1cs params proofs post"}
SEED_MAX_BYTES=${CUZK_FUZZ_SEED_MAX_BYTES:-262144}
JOBS=${CUZK_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
if [[ -z "${CXX:-}" ]]; then
  CXX=clang++-14
  command -v "$CXX" >/dev/null || CXX=clang++
fi

COMMON=(-std=c++20 -O1 -g -fno-omit-frame-pointer -I"$ROOT/src" -I"$ROOT/include"
        -fsanitize=address,undefined -fno-sanitize-recover=undefined)

# At most JOBS background jobs running: polls until one ends (its status stays for the caller's
# `wait PID`, which `wait -n` would take).
throttle() {
  while (($(jobs -rp | wc -l) >= JOBS)); do sleep 0.2; done
}

# ---- build: the parser sources once (instrumented), then one binary per target
LIB_SRCS=(src/util/error.cpp src/util/thread_pool.cpp src/util/files.cpp src/io/binfile.cpp src/ff/curve_id.cpp src/io/wtns.cpp
          src/io/zkey.cpp src/io/r1cs.cpp src/filecoin/params.cpp src/filecoin/proof_bytes.cpp
          src/filecoin/post_vproof.cpp)
OBJS=()
pids=()
mkdir -p "$OUT/obj"
for s in "${LIB_SRCS[@]}"; do
  o="$OUT/obj/${s//\//_}.o"
  if [[ ! -f "$o" || "$ROOT/$s" -nt "$o" || -n "$(find "$ROOT/src/io" "$ROOT/src/util" "$ROOT/src/filecoin" "$ROOT/src/groth16" "$ROOT/src/ec" "$ROOT/src/ff" -name '*.hpp' -newer "$o" 2>/dev/null)" ]]; then
    echo "compile $s"
    throttle
    # Into a temporary name: an interrupted compile leaves no object that looks current.
    { "$CXX" "${COMMON[@]}" -fsanitize=fuzzer-no-link -c "$ROOT/$s" -o "$o.tmp" && mv "$o.tmp" "$o"; } &
    pids+=($!)
  fi
  OBJS+=("$o")
done
for p in "${pids[@]}"; do wait "$p"; done
pids=()
for t in $TARGETS; do
  echo "link fuzz_$t"
  throttle
  "$CXX" "${COMMON[@]}" -fsanitize=fuzzer "$ROOT/fuzz/fuzz_$t.cpp" "${OBJS[@]}" -o "$OUT/fuzz_$t" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

# ---- seeds: fixtures (small ones) and tiny valid files written here
SEEDS="$OUT/seeds"
rm -rf "$SEEDS"
mkdir -p "$SEEDS"/{zkey,wtns,r1cs,params,proofs,post}
[[ -f "$ROOT/tests/filecoin/vectors/windowpost-32gib.vproof" ]] && cp "$ROOT/tests/filecoin/vectors/windowpost-32gib.vproof" "$SEEDS/post/"
if [[ -d "$ROOT/tests/fixtures" ]]; then
  for ext in zkey wtns r1cs; do
    while IFS= read -r -d '' f; do
      cp "$f" "$SEEDS/$ext/$(echo "${f#"$ROOT/tests/fixtures/"}" | tr / _)"
    done < <(find "$ROOT/tests/fixtures" -name "*.$ext" -size -"$((SEED_MAX_BYTES / 1024))"k -print0)
  done
fi
if command -v python3 >/dev/null; then
  python3 - "$SEEDS" <<'PY'
import struct, sys
out = sys.argv[1]
R = {"bn254": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
     "bls12-381": 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001}
Q = {"bn254": (21888242871839275222246405745257275088696311157297823662689037894645226208583, 32),
     "bls12-381": (0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab, 48)}
def fe(x, n=32): return x.to_bytes(n, "little")
def container(magic, version, sections):
    b = magic + struct.pack("<II", version, len(sections))
    for sid, data in sections: b += struct.pack("<IQ", sid, len(data)) + data
    return b
for curve in ("bn254", "bls12-381"):
    r = R[curve]; q, n8q = Q[curve]
    # witness: 4 wires (ONE, out, in, internal)
    w = [1, 12, 3, 4]
    wt = container(b"wtns", 2, [(1, struct.pack("<I", 32) + fe(r) + struct.pack("<I", len(w))),
                                (2, b"".join(fe(x) for x in w))])
    # r1cs: out = in * internal ; 2 constraints
    lc = lambda terms: struct.pack("<I", len(terms)) + b"".join(struct.pack("<I", wi) + fe(c) for wi, c in terms)
    cons = lc([(2, 1)]) + lc([(3, 1)]) + lc([(1, 1)]) + lc([(0, 2)]) + lc([(0, 2)]) + lc([(3, r - 1), (0, 8)])
    hdr = struct.pack("<I", 32) + fe(r) + struct.pack("<IIIIQI", 4, 1, 1, 0, 4, 2)
    rc = container(b"r1cs", 1, [(2, cons), (1, hdr), (3, b"".join(struct.pack("<Q", i) for i in range(4)))])
    # zkey: nVars 4, nPublic 2, domain 8; all points at infinity (zero bytes)
    g1, g2 = 2 * n8q, 4 * n8q
    nv, npub, dom = 4, 2, 8
    h2 = struct.pack("<I", n8q) + fe(q, n8q) + struct.pack("<I", 32) + fe(r) + struct.pack("<III", nv, npub, dom)
    h2 += bytes(3 * g1 + 3 * g2)
    coefs = [(0, 0, 2, 5), (1, 0, 3, 5), (0, 1, 0, 7), (1, 1, 0, 7)] + [(0, 2 + s, s, 9) for s in range(npub + 1)]
    s4 = struct.pack("<I", len(coefs)) + b"".join(struct.pack("<III", m, row, sig) + fe(v) for m, row, sig, v in coefs)
    zk = container(b"zkey", 1, [(1, struct.pack("<I", 1)), (2, h2), (4, s4), (3, bytes((npub + 1) * g1)),
                                (9, bytes(dom * g1)), (8, bytes((nv - npub - 1) * g1)), (5, bytes(nv * g1)),
                                (6, bytes(nv * g1)), (7, bytes(nv * g2)), (10, bytes(68))])
    for ext, data in (("wtns", wt), ("r1cs", rc), ("zkey", zk)):
        open(f"{out}/{ext}/tiny-{curve}.{ext}", "wb").write(data)
# bellperson .vk / .params (BLS12-381 generators, uncompressed big-endian; G2 c1 first); the first
# byte of a params seed picks the subgroup check.
be = lambda x: x.to_bytes(48, "big")
G1 = be(0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb) + \
     be(0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)
G2 = be(0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e) + \
     be(0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8) + \
     be(0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be) + \
     be(0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801)
vk = G1 + G1 + G2 + G2 + G1 + G2 + struct.pack(">I", 2) + G1 + G1
params = vk + struct.pack(">I", 1) + G1 + struct.pack(">I", 0) + struct.pack(">I", 1) + G1 + \
         struct.pack(">I", 1) + G1 + struct.pack(">I", 1) + G2
for name, data in (("tiny.vk", b"\0" + vk), ("tiny.params", b"\1" + params), ("tiny-unchecked.params", b"\0" + params)):
    open(f"{out}/params/{name}", "wb").write(data)
# proofs: the generators compressed (a valid proof's encoding), one and two partitions.
gc1 = bytes([G1[0] | 0x80]) + G1[1:48]
gc2 = bytes([G2[0] | 0x80]) + G2[1:96]
open(f"{out}/proofs/generators.bin", "wb").write(gc1 + gc2 + gc1)
open(f"{out}/proofs/two.bin", "wb").write((gc1 + gc2 + gc1) * 2)
PY
else
  echo "python3 not found: no generated seeds (fixture seeds only)"
fi

# ---- run: JOBS fuzzers at a time, one core each; each one's exit status into its .rc
status=0
summary=()
for t in $TARGETS; do
  corpus="$OUT/corpus/$t"
  mkdir -p "$corpus" "$OUT/artifacts/$t"
  echo "=== fuzz_$t: ${SECS}s, $(ls "$SEEDS/$t" | wc -l) seeds, corpus $corpus"
  rm -f "$OUT/fuzz_$t.rc"
  throttle
  {
    rc=0
    "$OUT/fuzz_$t" "$corpus" "$SEEDS/$t" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$OUT/artifacts/$t/" -print_final_stats=1 >"$OUT/fuzz_$t.log" 2>&1 || rc=$?
    echo "$rc" > "$OUT/fuzz_$t.rc"
  } &
done
wait
for t in $TARGETS; do
  log="$OUT/fuzz_$t.log"
  rc=$(cat "$OUT/fuzz_$t.rc" 2>/dev/null || echo "no status")
  runs=$(grep -Eo 'Done [0-9]+ runs' "$log" | tail -1 || true)
  if [[ $rc != 0 ]]; then
    status=1
    summary+=("fuzz_$t: FAILED (rc $rc), see $log and $OUT/artifacts/$t/")
    tail -40 "$log"
  else
    summary+=("fuzz_$t: ok, ${runs:-? runs} in ${SECS}s")
  fi
done
printf '%s\n' "${summary[@]}"
exit $status
