#!/usr/bin/env bash
# `cuzk prove` on bad inputs: each case must exit 1 (2 for usage), print an error naming the
# problem, and leave the output paths untouched (a pre-existing file keeps its content).
set -u
CUZK=${1:?usage: cli_errors.sh path/to/cuzk}
FIX=${CUZK_FIXTURES:-$(cd "$(dirname "$0")" && pwd)/fixtures}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
BN=$FIX/bn254/mulchain BLS=$FIX/bls12-381/mulchain BN2=$FIX/bn254/poseidon

# expect NAME EXIT_CODE NEEDLE -- cuzk args (outputs must be $T/proof.json $T/public.json)
expect() {
  local name=$1 code=$2 needle=$3; shift 3
  echo OLD > "$T/proof.json"; rm -f "$T/public.json" "$T/proof.bin"
  "$CUZK" "$@" > "$T/out" 2> "$T/err"; local rc=$?
  local ok=1
  [ "$rc" = "$code" ] || { ok=0; echo "  exit code $rc, expected $code"; }
  grep -qF -- "$needle" "$T/err" || { ok=0; echo "  stderr lacks '$needle':"; sed 's/^/    /' "$T/err"; }
  [ "$(cat "$T/proof.json")" = OLD ] || { ok=0; echo "  proof.json was overwritten"; }
  [ ! -e "$T/public.json" ] || { ok=0; echo "  public.json was written"; }
  [ ! -e "$T/proof.bin" ] || { ok=0; echo "  proof.bin was written"; }
  if ls -a "$T" | grep -q cuzk-tmp; then ok=0; echo "  temporary file left behind"; fi
  if [ $ok = 1 ]; then pass=$((pass+1)); echo "ok   $name: $(head -n1 "$T/err")"; else fail=$((fail+1)); echo "FAIL $name"; fi
}

head -c 1000 "$BN/circuit.zkey" > "$T/truncated.zkey"
head -c 4000000 /dev/urandom > "$T/garbage.zkey" 2>/dev/null || head -c 40000 /dev/urandom > "$T/garbage.zkey"
cp "$BN/witness.wtns" "$T/bad.wtns"
# Flip the lowest bit of the last witness value (an internal wire): the witness no longer
# satisfies the constraints but every value stays reduced.
size=$(stat -c %s "$T/bad.wtns")
printf "$(printf '\\x%02x' $(( $(od -An -tu1 -j $((size-32)) -N1 "$T/bad.wtns") ^ 1 )))" |
  dd of="$T/bad.wtns" bs=1 seek=$((size-32)) conv=notrunc status=none

OUT=("$T/proof.json" "$T/public.json")
expect missing-zkey 1 "no-such.zkey" prove "$T/no-such.zkey" "$BN/witness.wtns" "${OUT[@]}"
expect missing-wtns 1 "no-such.wtns" prove "$BN/circuit.zkey" "$T/no-such.wtns" "${OUT[@]}"
expect truncated-zkey 1 "truncated.zkey" prove "$T/truncated.zkey" "$BN/witness.wtns" "${OUT[@]}"
expect garbage-zkey 1 "garbage.zkey" prove "$T/garbage.zkey" "$BN/witness.wtns" "${OUT[@]}"
expect wtns-as-zkey 1 "witness.wtns" prove "$BN/witness.wtns" "$BN/witness.wtns" "${OUT[@]}"
expect wrong-curve 1 "bls12-381" prove "$BN/circuit.zkey" "$BLS/witness.wtns" "${OUT[@]}"
expect wrong-circuit 1 "values but" prove "$BN2/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}"
expect unsatisfied 1 "does not satisfy constraint" prove "$BN/circuit.zkey" "$T/bad.wtns" "${OUT[@]}" --r1cs "$BN/circuit.r1cs"
expect unsatisfied-names-r1cs 1 "of $BN/circuit.r1cs" prove "$BN/circuit.zkey" "$T/bad.wtns" "${OUT[@]}" --r1cs "$BN/circuit.r1cs"
expect r1cs-other-circuit 1 "do not match" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --r1cs "$BN2/circuit.r1cs"
expect r1cs-other-curve 1 "constraint system is for" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --r1cs "$BLS/circuit.r1cs"
expect output-dir-missing 1 "cannot write" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/proof.json" "$T/nodir/public.json"
mkdir -p "$T/adir"
expect public-is-a-directory 1 "is a directory" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/proof.json" "$T/adir"
expect same-path-twice 1 "named for two outputs" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/proof.json" "$T/./proof.json"
expect empty-proof-bin 2 "non-empty value" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --proof-bin ""
expect empty-r1cs 2 "non-empty value" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --r1cs=
expect signed-threads 2 "not a number" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --threads " -1"
expect huge-device 2 "expected gpu:N" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --device gpu:4294967296
expect unverified-by-default 1 "does not verify" prove "$BN/circuit.zkey" "$T/bad.wtns" "${OUT[@]}"
expect bin-dir-missing 1 "cannot write" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --proof-bin "$T/nodir/p.bin"
expect too-few-args 2 "4 paths" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/proof.json"
expect unknown-option 2 "unknown option --bogus" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --bogus
expect bad-seed 2 "not a number" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --seed xyz
expect unknown-command 2 "unknown command" frobnicate
expect verify-catches-bad-witness 1 "does not verify" prove "$BN/circuit.zkey" "$T/bad.wtns" "${OUT[@]}" --verify
expect absent-gpu 1 "device gpu:97 is not available" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --device gpu:97
expect bad-device 2 "unknown device 'tpu:0' (gpu:N, all, auto, cpu, sim:K)" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --devices tpu:0

# And the good case writes all three files.
"$CUZK" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/proof.json" "$T/public.json" --proof-bin "$T/proof.bin" --quiet
if [ $? = 0 ] && grep -q pi_a "$T/proof.json" && [ -s "$T/public.json" ] && [ "$(stat -c %s "$T/proof.bin")" = 128 ]; then
  pass=$((pass+1)); echo "ok   good-case writes proof.json, public.json, 128-byte proof.bin"
else
  fail=$((fail+1)); echo "FAIL good-case"
fi
# cuzk verify: exit 0 only when all are valid, each invalid one named.
"$CUZK" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/p.json" "$T/pub.json" --quiet
"$CUZK" verify "$BN/verification_key.json" "$T/pub.json" "$T/p.json" > "$T/v1" 2>&1; r1=$?
"$CUZK" verify "$BN/verification_key.json" "$T/pub.json" "$T/p.json" "$BN/public2.json" "$T/p.json" > "$T/v2" 2>&1; r2=$?
"$CUZK" verify "$BLS/verification_key.json" "$T/pub.json" "$T/p.json" > "$T/v3" 2>&1; r3=$?
if [ $r1 = 0 ] && [ $r2 = 1 ] && grep -q "INVALID $BN/public2.json" "$T/v2" && grep -q "^OK " "$T/v2" && [ $r3 = 1 ]; then
  pass=$((pass+1)); echo "ok   verify: valid 0, mixed batch 1 naming the invalid pair, wrong-curve key 1 ($(head -c 120 "$T/v3"))"
else
  fail=$((fail+1)); echo "FAIL verify ($r1 $r2 $r3)"; cat "$T/v1" "$T/v2" "$T/v3"
fi
# cuzk setup / gen-circuit: refusals and bad arguments write nothing.
# expect_nothing NAME EXIT_CODE NEEDLE -- cuzk args (outputs under $T/gen)
expect_nothing() {
  local name=$1 code=$2 needle=$3; shift 3
  rm -rf "$T/gen" "$T/k.zkey"
  "$CUZK" "$@" > "$T/out" 2> "$T/err"; local rc=$?
  if [ "$rc" = "$code" ] && grep -qF -- "$needle" "$T/err" && [ ! -e "$T/gen" ] && [ ! -e "$T/k.zkey" ]; then
    pass=$((pass+1)); echo "ok   $name: $(head -n1 "$T/err")"
  else
    fail=$((fail+1)); echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$T/err"
  fi
}
expect_nothing setup-needs-insecure 2 "--insecure" setup "$BN/circuit.r1cs" "$T/k.zkey"
expect_nothing setup-missing-r1cs 1 "nope.r1cs" setup "$T/nope.r1cs" "$T/k.zkey" --insecure --device cpu
expect_nothing setup-not-an-r1cs 1 "circuit.zkey" setup "$BN/circuit.zkey" "$T/k.zkey" --insecure --device cpu
expect_nothing gen-needs-shape 2 "needs --shape" gen-circuit --log-n 10 --curve bn254 --out "$T/gen"
expect_nothing gen-bad-shape 2 "unknown circuit shape" gen-circuit --shape sha --log-n 10 --curve bn254 --out "$T/gen"
expect_nothing gen-bad-curve 2 "unknown curve" gen-circuit --shape porep --log-n 10 --curve p256 --out "$T/gen"
expect_nothing gen-out-or-memory 2 "exactly one of --out" gen-circuit --shape porep --log-n 10 --curve bn254
expect_nothing gen-too-small 1 "too small" gen-circuit --shape porep --log-n 6 --curve bn254 --out "$T/gen"

# Every command prints its usage on stdout with --help (exit 0), as `cuzk help CMD` does, and
# `cuzk help` lists it. The daemon's commands are there only in a build with the daemon.
"$CUZK" help > "$T/help" 2>&1 || { fail=$((fail+1)); echo "FAIL cuzk help exited non-zero"; }
cmds="prove verify setup gen-circuit bench devices version help"
if grep -q '^  daemon ' "$T/help"; then
  cmds="$cmds daemon submit await status cancel preload evict loadgen"
else
  "$CUZK" submit --help > "$T/out" 2> "$T/err"; rc=$?
  if [ $rc = 1 ] && grep -qF "built without the daemon" "$T/err"; then pass=$((pass+1)); echo "ok   submit in a build without the daemon: $(head -n1 "$T/err")"
  else fail=$((fail+1)); echo "FAIL submit in a build without the daemon (exit $rc)"; fi
fi
for c in $cmds; do
  "$CUZK" "$c" --help > "$T/out" 2> "$T/err"; rc=$?
  "$CUZK" help "$c" > "$T/out2" 2>&1
  if [ $rc = 0 ] && grep -q "^usage: cuzk $c" "$T/out" && grep -q -- "--help" "$T/out" && [ ! -s "$T/err" ] &&
     cmp -s "$T/out" "$T/out2" && grep -q "^  $c  " "$T/help"; then
    pass=$((pass+1)); echo "ok   $c --help: $(grep '^usage:' "$T/out")"
  else
    fail=$((fail+1)); echo "FAIL $c --help (exit $rc)"; sed 's/^/    /' "$T/out" "$T/err"
  fi
done
# --help wins over every other check; -h is the same.
for args in "prove --bogus --help" "gen-circuit -h" "verify --quiet --help extra"; do
  # shellcheck disable=SC2086
  "$CUZK" $args > "$T/out" 2> "$T/err"; rc=$?
  if [ $rc = 0 ] && grep -q "^usage: cuzk ${args%% *}" "$T/out"; then pass=$((pass+1)); echo "ok   $args: usage"
  else fail=$((fail+1)); echo "FAIL $args (exit $rc)"; sed 's/^/    /' "$T/err"; fi
done
# Usage errors of any command exit 2 and point to its --help.
expect no-command 2 "usage: cuzk <command>"
expect unknown-option-verify 2 "unknown option --bogus" verify "$BN/verification_key.json" "$T/pub.json" "$T/p.json" --bogus
expect unknown-option-setup 2 "run 'cuzk setup --help'" setup "$BN/circuit.r1cs" "$T/k.zkey" --insecure --bogus=1
expect unknown-option-bench 2 "unknown option --bogus" bench --job porep --bogus
expect unknown-option-devices 2 "unknown option --all" devices --all
expect flag-with-value 2 "--quiet takes no value" verify "$BN/verification_key.json" "$T/pub.json" "$T/p.json" --quiet=yes
expect missing-value 2 "--seed needs a value" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --seed
expect extra-argument 2 "unexpected argument" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" "$T/extra"
if grep -q '^  daemon ' "$T/help"; then
  expect unknown-option-daemon 2 "unknown option --bogus" daemon --bogus
  expect unknown-option-submit 2 "unknown option --bogus" submit --daemon unix:///nonexistent.sock --circuit c --partitions w --bogus
  expect client-needs-daemon 2 "needs --daemon" status
  expect unknown-option-status 2 "unknown option --circuit" status --daemon unix:///nonexistent.sock --circuit c
fi
echo "cli_errors: $pass passed, $fail failed"
[ $fail = 0 ]
