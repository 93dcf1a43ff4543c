#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
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
# An output directory that is missing, not a directory, or not writable is refused before the
# proof: the error, naming the directory, is the only line on stderr (no progress line of a proof).
# As root a mode-0555 directory is still writable: /sys then serves as the unwritable one.
mkdir -p "$T/ro"; chmod 555 "$T/ro"
RO=$T/ro; if touch "$RO/probe" 2> /dev/null; then rm -f "$RO/probe"; RO=/sys; fi
echo file > "$T/afile"
# expect_early NAME NEEDLE -- cuzk args: exit 1, NEEDLE on stderr, and nothing else there.
expect_early() {
  local name=$1 needle=$2; shift 2
  local failed=$fail
  expect "$name" 1 "$needle" "$@"
  if [ $fail = "$failed" ] && [ "$(wc -l < "$T/err")" != 1 ]; then
    pass=$((pass-1)); fail=$((fail+1)); echo "FAIL $name: refused only after the work:"; sed 's/^/    /' "$T/err"
  fi
}
expect_early dir-missing-before-proof "directory $T/nodir does not exist" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/proof.json" "$T/nodir/public.json"
expect_early dir-unwritable-before-proof "directory $RO is not writable" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/proof.json" "$RO/public.json"
expect_early dir-is-a-file-before-proof "$T/afile is not a directory" prove "$BN/circuit.zkey" "$BN/witness.wtns" "$T/proof.json" "$T/afile/public.json"
expect_early bin-dir-missing-before-proof "directory $T/nodir does not exist" prove "$BN/circuit.zkey" "$BN/witness.wtns" "${OUT[@]}" --proof-bin "$T/nodir/p.bin"
expect_early out-unwritable-before-job "cannot write to --out $RO/job: directory $RO is not writable" prove "$BN/circuit.zkey" --partitions "$BN/witness.wtns" --out "$RO/job"
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
expect_nothing setup-bad-format 2 "unknown format 'foo'" setup "$BN/circuit.r1cs" "$T/k.zkey" --insecure --device cpu --format foo
expect_nothing setup-bellperson-needs-bls 1 "this key is for bls12-381" setup "$BN/circuit.r1cs" "$T/k.zkey" --insecure --device cpu --format bellperson
expect_nothing gen-needs-shape 2 "needs --shape" gen-circuit --log-n 10 --curve bn254 --out "$T/gen"
expect_nothing gen-bad-shape 2 "unknown circuit shape" gen-circuit --shape sha --log-n 10 --curve bn254 --out "$T/gen"
expect_nothing gen-bad-curve 2 "unknown curve" gen-circuit --shape porep --log-n 10 --curve p256 --out "$T/gen"
expect_nothing gen-out-or-memory 2 "exactly one of --out" gen-circuit --shape porep --log-n 10 --curve bn254
expect_nothing gen-too-small 1 "too small" gen-circuit --shape porep --log-n 6 --curve bn254 --out "$T/gen"

# Every command prints its usage on stdout with --help (exit 0), as `cuzk help CMD` does, and
# `cuzk help` lists it. The daemon's commands are there only in a build with the daemon.
"$CUZK" help > "$T/help" 2>&1 || { fail=$((fail+1)); echo "FAIL cuzk help exited non-zero"; }
cmds="prove prover verify setup gen-circuit bench params filecoin devices version completion help"
if grep -q '^  daemon ' "$T/help"; then
  cmds="$cmds daemon submit await status cancel preload evict loadgen"
  # Those commands run in cuzk-daemon beside cuzk: cuzk itself loads none of the network's
  # libraries, and a cuzk without its cuzk-daemon says where it looked.
  needed=$(readelf -d "$CUZK" | grep NEEDED)
  if echo "$needed" | grep -qiE 'grpc|protobuf|absl|libpq|httplib|toml'; then
    fail=$((fail+1)); echo "FAIL cuzk links the network's libraries:"; echo "$needed" | sed 's/^/    /'
  else pass=$((pass+1)); echo "ok   cuzk links $(echo "$needed" | wc -l) libraries, none of the network's"; fi
  mkdir "$T/solo" && cp "$CUZK" "$T/solo/cuzk"
  "$T/solo/cuzk" status --daemon unix:///nonexistent.sock > "$T/out" 2> "$T/err"; rc=$?
  if [ $rc = 1 ] && grep -qF "cannot run $T/solo/cuzk-daemon" "$T/err"; then pass=$((pass+1)); echo "ok   cuzk without cuzk-daemon: $(head -n1 "$T/err")"
  else fail=$((fail+1)); echo "FAIL cuzk without cuzk-daemon (exit $rc)"; sed 's/^/    /' "$T/err"; fi
  "$CUZK" status --daemon unix:///nonexistent.sock > "$T/out" 2> "$T/err"; rc=$?
  if [ $rc = 1 ] && grep -qF "no daemon socket at unix:///nonexistent.sock" "$T/err"; then pass=$((pass+1)); echo "ok   status handed to cuzk-daemon: $(head -n1 "$T/err")"
  else fail=$((fail+1)); echo "FAIL status handed to cuzk-daemon (exit $rc)"; sed 's/^/    /' "$T/err"; fi
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
# A command named by several words: its usage from --help and from help, and its line in the list.
"$CUZK" zkey export verificationkey --help > "$T/out" 2> "$T/err"; rc=$?
"$CUZK" help zkey export verificationkey > "$T/out2" 2>&1
if [ $rc = 0 ] && grep -q "^usage: cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>" "$T/out" &&
   [ ! -s "$T/err" ] && cmp -s "$T/out" "$T/out2" && grep -q "^  zkey export verificationkey" "$T/help"; then
  pass=$((pass+1)); echo "ok   zkey export verificationkey --help: $(grep '^usage:' "$T/out")"
else
  fail=$((fail+1)); echo "FAIL zkey export verificationkey --help (exit $rc)"; sed 's/^/    /' "$T/out" "$T/err"
fi
expect incomplete-command 2 "incomplete command 'zkey export' (zkey commands: zkey export verificationkey)" zkey export
expect unknown-subcommand 2 "unknown command 'zkey export vkey' (zkey commands: zkey export verificationkey)" zkey export vkey "$BN/circuit.zkey" "$T/vk.json"
expect help-unknown-command 2 "unknown command 'frob'" help frob
expect help-name-and-more 2 "unknown command 'prove extra'" help prove extra
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
  # Without --daemon: $CUZK_DAEMON, else the embedded default's socket, named when nothing is there.
  mkdir -p "$T/run"
  XDG_RUNTIME_DIR=$T/run expect client-default-daemon 1 "$T/run/cuzk.sock (the default" status
  CUZK_DAEMON=$T/none.sock expect client-env-daemon 1 "$T/none.sock" status
  expect unknown-option-status 2 "unknown option --circuit" status --daemon unix:///nonexistent.sock --circuit c
fi
# Filecoin's parameter files and proofs: a tiny .vk / .params of BLS12-381 generators
# (uncompressed, big-endian, G2 x.c1 first) and spoiled copies of them.
bin() { local h=$1 i out=""; for ((i = 0; i < ${#h}; i += 2)); do out+="\\x${h:i:2}"; done; printf "$out"; }
G1=17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1
G2=13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb80606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801
VK=$G1$G1$G2$G2$G1${G2}00000002$G1$G1
bin "$VK" > "$T/tiny.vk"
bin "${VK}00000001${G1}0000000000000001${G1}00000001${G1}00000001${G2}" > "$T/tiny.params"
head -c 1500 "$T/tiny.params" > "$T/truncated.params"
bin "${VK}00000001${G1%?}00000000000000001${G1}00000001${G1}00000001${G2}" > "$T/offcurve.params"
bin "${VK}00000000" > "$T/short.params"
# expect_out NAME EXIT_CODE EXACT_STDOUT_LAST_LINE -- cuzk args
expect_out() {
  local name=$1 code=$2 want=$3; shift 3
  "$CUZK" "$@" > "$T/out" 2> "$T/err"; local rc=$?
  if [ "$rc" = "$code" ] && [ "$(tail -n1 "$T/out")" = "$want" ]; then pass=$((pass+1)); echo "ok   $name: $want"
  else fail=$((fail+1)); echo "FAIL $name (exit $rc, expected $code)"; sed 's/^/    /' "$T/out" "$T/err"; fi
}
expect_out params-inspect 0 '{"kind": "params", "curve": "bls12-381", "ic": 2, "h": 1, "l": 0, "a": 1, "b_g1": 1, "b_g2": 1, "bytes": 1560}' params inspect "$T/tiny.params"
expect_out params-inspect-check 0 '{"kind": "params", "curve": "bls12-381", "ic": 2, "h": 1, "l": 0, "a": 1, "b_g1": 1, "b_g2": 1, "bytes": 1560}' params inspect "$T/tiny.params" --check
expect_out params-inspect-vk 0 '{"kind": "vk", "curve": "bls12-381", "ic": 2, "bytes": 1060}' params inspect "$T/tiny.vk"
expect params-truncated 1 "section b_g2: count 1 x 192 bytes = 192 bytes from offset" params inspect "$T/truncated.params"
expect params-off-curve 1 "section h, point 0 (offset 1064) is not on the curve" params inspect "$T/offcurve.params"
expect params-short 1 "section l: its u32 count at offset 1064 runs past the end" params inspect "$T/short.params"
cp "$T/tiny.vk" "$T/cut.params"; cp "$T/tiny.params" "$T/long.vk"
expect params-vk-named-params 1 "a .params file cut short" params inspect "$T/cut.params"
expect params-params-named-vk 1 "a .params file, not a .vk" params inspect "$T/long.vk"
expect params-missing 1 "no-such.params" params inspect "$T/no-such.params"
expect params-bad-subcommand 2 "unknown subcommand 'frob'" params frob "$T/tiny.params"
expect params-verify-no-manifest 2 "needs --manifest" params verify "$T"
expect params-check-with-verify 2 "--check belongs to 'params inspect'" params verify "$T" --manifest "$T/m.json" --check
echo '{"tiny.vk": {"cid": "Q", "digest": "00", "sector_size": 2048}, "gone.params": {"cid": "Q", "digest": "00", "sector_size": 2048}}' > "$T/m.json"
expect params-verify-mismatch 1 "params verify:" params verify "$T" --manifest "$T/m.json"
expect filecoin-bad-subcommand 2 "unknown subcommand 'frob'" filecoin frob
expect filecoin-records-needs-file 2 "records needs a records file" filecoin records
echo '{"porep_config": {"partitions": 1}, "proof": [' > "$T/bad.json"; echo '{]' >> "$T/bad.json"
expect filecoin-records-bad-json 1 "bad.json: line 1: invalid JSON" filecoin records "$T/bad.json"
A=$(bin "${G1:0:96}" | od -An -tu1 -v | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
B=$(bin "${G2:0:192}" | od -An -tu1 -v | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
# The generators, compressed (flag 0x80 on byte 0 of each point): a well-formed proof; then A's flag cleared.
Z32=$(printf '0,%.0s' $(seq 31))0
REC="\"porep_config\": {\"sector_size\": 2048, \"partitions\": 1, \"porep_id\": [5,${Z32#0,}], \"api_version\": \"V1_1_0\", \"api_features\": []}, \"comm_r\": [$Z32], \"comm_d\": [$Z32], \"prover_id\": [$Z32], \"sector_id\": 1, \"ticket\": [$Z32], \"seed\": [$Z32]"
echo "{$REC, \"proof\": [$((0x80 | 0x17)),${A#*,},$((0x80 | 0x13)),${B#*,},$((0x80 | 0x17)),${A#*,}]}" > "$T/rec.json"
echo "{$REC, \"proof\": [23,${A#*,},$((0x80 | 0x13)),${B#*,},$((0x80 | 0x17)),${A#*,}]}" >> "$T/rec.json"
echo "{${REC/\"comm_d\": \[0,/\"comm_d\": [}, \"proof\": []}" > "$T/rec31.json"
expect filecoin-records-short-field 1 "rec31.json: line 1: comm_d: expected 32 bytes, found 31" filecoin records "$T/rec31.json"
echo "{${REC/V1_1_0/V9_9_9}, \"proof\": []}" > "$T/recapi.json"
expect filecoin-records-bad-api 1 "porep_config: api_version: api version 'V9_9_9'" filecoin records "$T/recapi.json"
expect_out filecoin-records-flipped-bit 1 "2 records: 1 proofs decoded, 1 invalid, 0 aggregated; public inputs of 1 partitions" filecoin records "$T/rec.json"
expect_out filecoin-records-vk-dir 1 "2 records: 1 proofs decoded, 1 invalid, 0 aggregated; public inputs of 1 partitions; 0 verified, 0 rejected, 1 without a key" filecoin records "$T/rec.json" --vk-dir "$T"
expect filecoin-records-vk-dir-missing 1 "not a directory" filecoin records "$T/rec.json" --vk-dir "$T/nodir"
expect filecoin-parents-needs-size 2 "parents needs --sector-size SIZE" filecoin parents
expect filecoin-parents-wrong-proof 2 "--seal-proof 3: not a StackedDrg2KiB V1 or V1_1 proof (0 or 5)" filecoin parents --sector-size 2KiB --seal-proof 3
expect_out filecoin-parents-2kib 0 '{"sector_size": 2048, "seal_proof": 0, "api_version": "V1_0_0", "cache": "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899", "digest": "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"}' filecoin parents --sector-size 2KiB --seal-proof 0 --digest
# A test sector sealed and its C1 output checked; one changed label, one changed seed refused.
"$CUZK" filecoin seal --sector-size 2KiB --out "$T/sector" > /dev/null 2>&1
expect_out filecoin-check-c1 0 "ok: partition 0: 2687921 constraints satisfied, 39 public inputs as generate_public_inputs gives them" filecoin check-c1 "$T/sector/c1.json"
expect_out filecoin-check-c1-bincode 0 "ok: partition 0: 2687921 constraints satisfied, 39 public inputs as generate_public_inputs gives them" filecoin check-c1 "$T/sector/c1.bin"
head -c 1000 "$T/sector/c1.bin" > "$T/sector/cut.bin"
expect filecoin-check-c1-bincode-cut 1 "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.column.rows at offset 948: a length of 2 elements" filecoin check-c1 "$T/sector/cut.bin"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['vanilla_proofs']['StackedDrg2KiBV1'][0][1]['replica_column_proofs']['drg_parents'][2]['column']['rows'][1][0] ^= 1; json.dump(d, open(sys.argv[2], 'w'))" "$T/sector/c1.json" "$T/sector/label.json"
expect_out filecoin-check-c1-label 1 "FAILED: partition 0: row 1620658 of 2687921 unsatisfied" filecoin check-c1 "$T/sector/label.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['seed'][3] ^= 1; json.dump(d, open(sys.argv[2], 'w'))" "$T/sector/c1.json" "$T/sector/seed.json"
expect filecoin-check-c1-seed 1 "(from replica_id, seed and comm_r)" filecoin check-c1 "$T/sector/seed.json"
# Poseidon: neptune's published values (Poseidon2(1, 0); the constant-length hash of 0..3, arity 4), then refusals.
expect_out filecoin-poseidon2 0 0x042f94ffbe786bc393c003cc74a24f26ec5907b3dc3094afb339ff6079800b5e filecoin poseidon --arity 2 1 0x0
expect_out filecoin-poseidon-const 0 0x3a21a6ae86754a2939443980077d75934984de08542c99778935b00a07909d45 filecoin poseidon --arity 4 --tag const:4 0 1 2 3
expect filecoin-poseidon-count 2 "takes exactly 2 inputs, got 1" filecoin poseidon --arity 2 1
expect filecoin-poseidon-not-below-r 2 "input X1 ('0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001'): not a field element" filecoin poseidon --arity 2 1 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
expect filecoin-poseidon-not-a-number 2 "input X0 ('1e3'): not a number" filecoin poseidon --arity 2 1e3 2
expect filecoin-poseidon-needs-arity 2 "needs --arity" filecoin poseidon 1 2
expect filecoin-poseidon-bad-tag 2 "custom domain tag id 257" filecoin poseidon --arity 2 --tag custom:257 1 2
# The Poseidon gadgets of `filecoin shape`: storage-proofs-core's published PoR count, and refusals.
expect_out filecoin-shape-por-8-8 0 '{"inputs": 3, "aux": 1613, "constraints": 1593}' filecoin shape por --tree poseidon-8-8 --witness --json
# SHA-256: the count bellperson's tests assert, without the 512 input bits' booleanity rows.
expect_out filecoin-shape-sha256-compress 0 '{"inputs": 1, "aux": 26326, "constraints": 25840, "input_constraints": 1, "nnz_a": 59456, "nnz_b": 25872, "nnz_c": 56886, "density_a_aux": 26326, "density_b_inputs": 1, "density_b_aux": 6822}' filecoin shape sha256-compress --json
expect_out filecoin-shape-sha256-512 0 '{"inputs": 1, "aux": 45340, "constraints": 44874}' filecoin shape sha256 --bits 512 --witness --json
expect filecoin-shape-por-needs-tree 2 "the por gadget needs --tree" filecoin shape por
expect filecoin-shape-tree-elsewhere 2 "--tree belongs to the por gadget" filecoin shape sha256 --tree poseidon-8
expect filecoin-shape-bad-tree 2 "expected poseidon-B[-S[-T]] or sha256-B[-S[-T]]" filecoin shape por --tree blake2s-8
expect filecoin-shape-bad-leaves 2 "100 leaves per base tree, not a power of 8" filecoin shape por --tree poseidon-8 --leaves 100
expect filecoin-shape-poseidon-const 2 "only at L = the arity" filecoin fingerprint poseidon --arity 4 --tag const:3
expect filecoin-shape-column-layers 2 "2 or 11 rows" filecoin shape column-hash --layers 3
expect filecoin-poseidon-no-tree 2 "belong to 'filecoin shape' and 'fingerprint'" filecoin poseidon --arity 2 --tree poseidon-8 1 2
# The PoRep circuit: storage-proofs-porep's stacked test circuit (8-4-2: 1,346,982 rows, 22 inputs), and refusals.
expect_out filecoin-shape-porep-8-4-2 0 '{"inputs": 22, "aux": 1345810, "constraints": 1346982, "input_constraints": 22, "nnz_a": 3228935, "nnz_b": 1347477, "nnz_c": 2915976, "density_a_aux": 1339699, "density_b_inputs": 1, "density_b_aux": 345133}' filecoin shape porep --nodes 64 --layers 2 --challenges 1 --tree 8-4-2 --json
expect filecoin-shape-porep-needs-size 2 "porep needs --sector-size SIZE" filecoin shape porep
expect filecoin-shape-porep-not-both 2 "not both" filecoin shape porep --sector-size 2KiB --tree 8-0-0
expect filecoin-shape-porep-bad-size 2 "not one rust-fil-proofs supports" filecoin shape porep --sector-size 4GiB
expect filecoin-shape-porep-size-name 2 "expected a size such as 2KiB" filecoin shape porep --sector-size 2kb
expect filecoin-shape-porep-layers 2 "the column hash takes 2 or 11" filecoin shape porep --nodes 64 --layers 3 --challenges 1 --tree 8-0-0
expect filecoin-shape-porep-nodes 2 "not a power of 8" filecoin shape porep --nodes 16 --layers 2 --challenges 1 --tree 8-0-0
expect filecoin-shape-nodes-elsewhere 2 "--nodes belongs to the porep circuit" filecoin shape sha256 --nodes 8
# The SnapDeals circuit: storage-proofs-update's 1KiB test circuit (1,248,389 rows, 5 inputs), and refusals.
expect_out filecoin-shape-snap-1kib 0 '{"inputs": 5, "aux": 1247309, "constraints": 1248389, "input_constraints": 5, "nnz_a": 2968107, "nnz_b": 1249487, "nnz_c": 2644258, "density_a_aux": 1241649, "density_b_inputs": 1, "density_b_aux": 327403}' filecoin shape snap --sector-size 1KiB --json
expect_out filecoin-shape-snap-poseidon-1kib 0 '{"inputs": 5, "aux": 32454, "constraints": 32164, "input_constraints": 5, "nnz_a": 217596, "nnz_b": 32582, "nnz_c": 40063, "density_a_aux": 24600, "density_b_inputs": 1, "density_b_aux": 23667}' filecoin shape snap --sector-size 1KiB --poseidon --json
expect filecoin-shape-snap-needs-size 2 "snap needs --sector-size SIZE" filecoin shape snap
expect filecoin-shape-snap-bad-size 2 "not one storage-proofs-update allows" filecoin shape snap --sector-size 64KiB
expect filecoin-shape-snap-tree 2 "--tree does not belong to the snap circuit" filecoin shape snap --sector-size 2KiB --tree 8-0-0
expect filecoin-poseidon-flag-elsewhere 2 "--poseidon belongs to 'filecoin shape snap'" filecoin shape porep --sector-size 2KiB --poseidon
expect filecoin-sector-size-elsewhere 2 "--sector-size belongs to the porep and snap circuits" filecoin shape sha256 --sector-size 2KiB
# Proving from a .params and verifying with a .vk: the key of BLS mulchain in bellperson's layout.
"$CUZK" setup "$BLS/circuit.r1cs" "$T/m" --insecure --format bellperson --seed 3 --device cpu --quiet
expect params-prove-needs-r1cs 1 "carries no constraint rows" prove "$T/m.params" "$BLS/witness.wtns" "${OUT[@]}"
expect params-prove-other-circuit 1 "not this circuit's key" prove "$T/m.params" "$FIX/bls12-381/poseidon/witness.wtns" "${OUT[@]}" --r1cs "$FIX/bls12-381/poseidon/circuit.r1cs"
expect params-prove-bn254-r1cs 1 "is for bn254" prove "$T/m.params" "$BN/witness.wtns" "${OUT[@]}" --r1cs "$BN/circuit.r1cs"
cp "$T/m.vk" "$T/vk-as.params"
expect params-prove-with-vk 1 "has no proving sections" prove "$T/vk-as.params" "$BLS/witness.wtns" "${OUT[@]}" --r1cs "$BLS/circuit.r1cs"
head -c $(( $(stat -c %s "$T/m.params") - 7 )) "$T/m.params" > "$T/m-cut.params"
expect params-prove-truncated 1 "section b_g2: count" prove "$T/m-cut.params" "$BLS/witness.wtns" "${OUT[@]}" --r1cs "$BLS/circuit.r1cs"
# Point 1 of h moved off the curve (the last byte of its y): refused when the key is loaded.
cp "$T/m.params" "$T/m-bad.params"
hoff=$(python3 -c "import sys; b = open(sys.argv[1], 'rb').read(868); print(868 + int.from_bytes(b[864:868], 'big') * 96 + 4 + 2 * 96 - 1)" "$T/m.params")
printf '\x01' | dd of="$T/m-bad.params" bs=1 seek=$hoff conv=notrunc status=none
expect params-prove-bad-point 1 "section h, point 1 " prove "$T/m-bad.params" "$BLS/witness.wtns" "${OUT[@]}" --r1cs "$BLS/circuit.r1cs"
# A proof from the .params is accepted by the .vk; a changed proof or public input is refused.
if "$CUZK" prove "$T/m.params" "$BLS/witness.wtns" "$T/mp.json" "$T/mpub.json" --r1cs "$BLS/circuit.r1cs" --device cpu --quiet &&
   "$CUZK" verify "$T/m.vk" "$T/mpub.json" "$T/mp.json" > "$T/out"; then pass=$((pass+1)); echo "ok   params-prove-verify: $(cat "$T/out")"
else fail=$((fail+1)); echo "FAIL params-prove-verify"; fi
python3 - "$T/mp.json" "$T/mp-bad.json" "$T/mpub.json" "$T/mpub-bad.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["pi_c"], p["pi_a"] = p["pi_a"], p["pi_c"]; json.dump(p, open(sys.argv[2], "w"))
q = json.load(open(sys.argv[3])); q[0] = str(int(q[0]) + 1); json.dump(q, open(sys.argv[4], "w"))
PY
expect_out params-vk-refuses-changed-proof 1 "INVALID $T/mpub.json $T/mp-bad.json: pairing check failed: the proof does not verify against this key and these public inputs" verify "$T/m.vk" "$T/mpub.json" "$T/mp-bad.json"
expect_out params-vk-refuses-changed-input 1 "INVALID $T/mpub-bad.json $T/mp.json: pairing check failed: the proof does not verify against this key and these public inputs" verify "$T/m.vk" "$T/mpub-bad.json" "$T/mp.json"
head -c 500 "$T/m.vk" > "$T/m-cut.vk"
expect_out params-vk-truncated 1 "INVALID $T/mpub.json $T/mp.json: $T/m-cut.vk: shorter than a verifying key's fixed part (868 bytes: six points and ic's count) (file of 500 bytes)" verify "$T/m-cut.vk" "$T/mpub.json" "$T/mp.json"
if [ "$("$CUZK" filecoin param-names | wc -l)" = 22 ]; then pass=$((pass+1)); echo "ok   filecoin param-names: 22 lines"
else fail=$((fail+1)); echo "FAIL filecoin param-names"; fi
# The first words of a name of several: help lists the commands they start.
expect_out help-lists-zkey-commands 0 "    a .zkey's verification_key.json, as snarkjs exports it" help zkey
echo "cli_errors: $pass passed, $fail failed"
[ $fail = 0 ]
