#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Curio's API (cuzk.v1.ProvingEngine) served by `cuzk daemon` beside cuzk's own
# (cuzk.groth16.v1): a Python client generated here from proto/cuzk/v1/proving.proto with Debian's
# grpc_tools (as Curio generates its Go client from the same file) against daemons started here,
# with a simulated device. GetStatus, GetMetrics, the refusals of SubmitProof (a malformed C1, a
# short randomness, an unknown kind, no [filecoin] params_dir), NOT_FOUND for unknown jobs, the
# circuit names of PreloadSRS (cuzk's and Curio's), the token over TCP, and the generic API
# proving on the same daemon.
#
# With FIXTURE (the filecoin_2kib fixture of tests/filecoin/e2e.sh: a 2KiB sector sealed by `cuzk
# filecoin seal`, its C1 output, PoSt vanilla proofs and public data, and parameter files of
# `cuzk filecoin setup --insecure` in FIXTURE/P), instead: end to end, a daemon with params_dir
# FIXTURE/P proves the C1 output (POREP_SEAL_COMMIT, registered proof 5), a WindowPoSt, a
# WinningPoSt and a SnapDeals update submitted through the generated client, and `cuzk filecoin
# verify` accepts each proof.
#
# usage: bash tests/daemon/curio-tests.sh path/to/cuzk [FIXTURE]
# Exits 77 (skipped) where python3 has no grpc_tools (Debian's python3-grpc-tools).
set -u
set -o pipefail

CUZK=${1:?usage: curio-tests.sh path/to/cuzk [FIXTURE]}
FIXTURE=${2:-}
case $FIXTURE in /* | "") ;; *) FIXTURE=$PWD/$FIXTURE ;; esac
case $CUZK in /*) ;; *) CUZK=$PWD/$CUZK ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BLS=$ROOT/examples/porep-bls12-381
unset CUZK_TOKEN

PY=
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import grpc, grpc_tools.protoc' >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "curio-tests: no python3 with grpc_tools (python3-grpc-tools): skipped"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-curio-tests.XXXXXX") || exit 2
DAEMONS=()
cleanup() {
  local running p
  running=" $(jobs -p | tr '\n' ' ') "
  for p in "${DAEMONS[@]}"; do [[ $running == *" $p "* ]] && kill -9 "$p" 2>/dev/null; done
  for p in "${DAEMONS[@]}"; do [[ $running == *" $p "* ]] && wait "$p" 2>/dev/null; done
  if [ -n "${CUZK_KEEP_TMP:-}" ]; then echo "work directory kept: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

source "$HERE/checks.sh"

# The client, generated from Curio's proto as a Curio build would.
GEN=$T/gen
mkdir -p "$GEN"
if ! "$PY" -m grpc_tools.protoc -I"$ROOT/proto" --python_out="$GEN" --grpc_python_out="$GEN" cuzk/v1/proving.proto \
    > "$T/protoc.log" 2>&1; then
  note "grpc_tools.protoc failed: $(tail -n 3 "$T/protoc.log")"
fi
verdict "a Python client generated from proto/cuzk/v1/proving.proto (grpc_tools.protoc)" protoc

# rpc ADDR RPC [k=v...]: one call; its JSON in $R; CODE, DETAILS set
R= CODE= DETAILS=
rpc() {
  local addr=$1; shift
  R=$(timeout 120 "$PY" "$HERE/curio_client.py" "$GEN" "$addr" "$@" 2> "$T/rpc.err") ||
    R='{"code": "CLIENT_FAILED", "details": "'"$(tail -n 1 "$T/rpc.err" | tr -d '"\\')"'", "response": {}}'
  CODE=$(jv 'd["code"]') DETAILS=$(jv 'd["details"]')
}
# jv EXPR: a value of $R (d: the document)
jv() {
  "$PY" -c 'import json,sys
d = json.loads(sys.argv[1])
try:
    v = eval(sys.argv[2])
    print(json.dumps(v) if isinstance(v, (dict, list)) else v)
except Exception:
    print("")' "$R" "$1"
}

# conf FILE LISTEN JOURNAL [lines appended...]
conf() {
  local file=$1 listen=$2 journal=$3 x; shift 3
  {
    echo "[daemon]"
    echo "listen = \"$listen\""
    echo "status_listen = \"127.0.0.1:$(free_port)\""
    echo "journal = \"$journal\""
    echo "[devices]"
    echo "list = [\"sim:1\"]"
    echo "[synthesis]"
    echo "threads = 2"
    echo "[[circuits]]"
    echo "id = \"porep-bls\""
    echo "zkey = \"$BLS/circuit.zkey\""
    echo "r1cs = \"$BLS/circuit.r1cs\""
    for x in "$@"; do echo "$x"; done
  } > "$file"
}
# start_daemon NAME CONFIG ADDR [TOKEN]: in the background; returns once GetStatus answers.
DPID=
start_daemon() {
  local name=$1 cfg=$2 addr=$3 tok=${4:-} i
  "$CUZK" daemon --config "$cfg" > "$T/$name.out" 2>> "$T/$name.log" &
  DPID=$!
  DAEMONS+=("$DPID")
  for ((i = 0; i < 100; i++)); do
    if timeout 10 "$CUZK" status --daemon "$addr" ${tok:+--token "$tok"} > /dev/null 2>&1; then return 0; fi
    if ! kill -0 "$DPID" 2>/dev/null; then note "daemon $name exited while starting"; return 1; fi
    sleep 0.2
  done
  note "daemon $name did not answer within 20 s"
  return 1
}
stop_daemon() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

if [ -n "$FIXTURE" ]; then
  . "$HERE/curio-e2e.sh"
  echo "curio tests: $pass passed, $fail failed"
  [ $fail = 0 ]
  exit
fi

############################################################################################
# Daemon A: a unix socket, [filecoin] params_dir an empty directory (no parameter files).
A=unix://$T/a.sock
mkdir -p "$T/params" "$T/params-winning" "$T/ja"
conf "$T/a.toml" "$A" "$T/ja" "[filecoin]" "params_dir = \"$T/params\"" \
  "winning_post_params_dir = \"$T/params-winning\""
start_daemon a "$T/a.toml" "$A"
verdict "daemon A starts with [filecoin] params_dir" a
APID=$DPID

# 1. GetStatus: the simulated device, the uptime; GetMetrics: the daemon's Prometheus text.
rpc "$A" status
eq "$CODE" OK "GetStatus"
eq "$(jv 'len(d["response"]["gpus"])')" 1 "GPUs in GetStatus"
has_text "$(jv 'd["response"]["gpus"][0]["name"]')" "sim:0" "the GPU's name"
[ "$(jv 'int(d["response"]["gpus"][0]["vram_total_bytes"])')" -gt 0 ] 2>/dev/null || note "vram_total_bytes: $R"
eq "$(jv 'd["response"]["total_proofs_completed"]')" 0 "total_proofs_completed"
rpc "$A" metrics
eq "$CODE" OK "GetMetrics"
has_text "$(jv 'd["response"]["prometheus_text"]')" "cuzk_jobs_accepted_total" "GetMetrics"
has_text "$(jv 'd["response"]["prometheus_text"]')" "cuzk_filecoin_jobs_active 0" "GetMetrics"
verdict "1 GetStatus lists the device, GetMetrics the daemon's Prometheus text" a

# 2. SubmitProof refusals, each naming what is wrong.
printf '{"registered_proof": "StackedDrg2KiBV1_1", "vanilla_proofs": ' > "$T/bad-c1.json"
rpc "$A" submit kind=POREP_SEAL_COMMIT registered_proof=5 vanilla_proof=@"$T/bad-c1.json" request_id=bad-1
eq "$CODE" INVALID_ARGUMENT "SubmitProof of a truncated C1 output"
has_text "$DETAILS" "vanilla_proof" "the refusal of a truncated C1 output"
rpc "$A" submit kind=POREP_SEAL_COMMIT registered_proof=5
eq "$CODE" INVALID_ARGUMENT "SubmitProof without a C1 output"
has_text "$DETAILS" "vanilla_proof" "the refusal of a request without its C1 output"
rpc "$A" submit kind=WINNING_POST registered_proof=3 randomness_len=5 vanilla_proofs=x
eq "$CODE" INVALID_ARGUMENT "SubmitProof of a WinningPoSt with 5 bytes of randomness"
has_text "$DETAILS" "randomness: 5 bytes, expected 32" "the refusal of a short randomness"
rpc "$A" submit kind=WINDOW_POST_PARTITION registered_proof=8 vanilla_proofs=x
eq "$CODE" INVALID_ARGUMENT "SubmitProof of a WindowPoSt without randomness"
has_text "$DETAILS" "randomness" "the refusal of a PoSt without randomness"
rpc "$A" submit kind=PROOF_KIND_UNSPECIFIED vanilla_proof=x
eq "$CODE" INVALID_ARGUMENT "SubmitProof without a proof kind"
has_text "$DETAILS" "proof_kind 0" "the refusal of an unspecified kind"
rpc "$A" submit kind=SNAP_DEALS_UPDATE registered_proof=1 vanilla_proofs=x comm_r_old_hex=00
eq "$CODE" INVALID_ARGUMENT "SubmitProof of SnapDeals with a 1-byte comm_r_old"
has_text "$DETAILS" "comm_r_old: 1 bytes, expected 32" "the refusal of a short comm_r_old"
verdict "2 SubmitProof refuses, INVALID_ARGUMENT naming the field: a truncated C1, no C1, short or missing randomness, no kind, a short commitment" a

# 3. Unknown jobs.
rpc "$A" await job_id=j-0123456789abcdef timeout_ms=10
eq "$CODE" NOT_FOUND "AwaitProof of an unknown job_id"
has_text "$DETAILS" "j-0123456789abcdef" "AwaitProof's refusal"
rpc "$A" cancel job_id=nonesuch
eq "$CODE" NOT_FOUND "CancelProof of an unknown job_id"
verdict "3 AwaitProof and CancelProof of an unknown job_id: NOT_FOUND" a

# 4. PreloadSRS / EvictSRS: cuzk's circuit names and Curio's; the missing parameter file named.
rpc "$A" preload circuit_id=porep-2KiB
eq "$CODE" INVALID_ARGUMENT "PreloadSRS porep-2KiB without its .params"
has_text "$DETAILS" "$T/params/v28-stacked-proof-of-replication" "PreloadSRS's refusal names the file"
rpc "$A" preload circuit_id=wpost-32g
eq "$CODE" INVALID_ARGUMENT "PreloadSRS wpost-32g (Curio's name) without its .params"
has_text "$DETAILS" "window-post-32GiB" "PreloadSRS wpost-32g is the 32GiB WindowPoSt circuit"
has_text "$DETAILS" "$T/params/v28-proof-of-spacetime-fallback" "PreloadSRS wpost-32g's refusal names the file"
rpc "$A" preload circuit_id=winning-32g
eq "$CODE" INVALID_ARGUMENT "PreloadSRS winning-32g without its .params"
has_text "$DETAILS" "$T/params-winning/v28-proof-of-spacetime-fallback" "PreloadSRS winning-32g looks in winning_post_params_dir"
rpc "$A" preload circuit_id=porep-3g
eq "$CODE" INVALID_ARGUMENT "PreloadSRS of an unknown circuit"
has_text "$DETAILS" "unknown circuit 'porep-3g'" "PreloadSRS's refusal of porep-3g"
rpc "$A" evict circuit_id=snap-32g
eq "$CODE" OK "EvictSRS snap-32g (not loaded)"
eq "$(jv 'd["response"]["was_loaded"]')" False "EvictSRS of a circuit not loaded: was_loaded"
verdict "4 PreloadSRS takes porep-2KiB and wpost-32g, names the missing .params under params_dir (winning-32g under winning_post_params_dir); refuses porep-3g; EvictSRS" a

# 5. The generic API on the same daemon: cuzk submit / await prove, and the proofs verify.
W="$BLS/witness_0.wtns,$BLS/witness_1.wtns"
if timeout 60 "$CUZK" submit --daemon "$A" --circuit porep-bls --partitions "$W" > "$T/gsub.out" 2> "$T/gsub.err"; then
  jid=$(tail -n 1 "$T/gsub.out")
  if timeout 120 "$CUZK" await --daemon "$A" "$jid" --out "$T/generic" > "$T/gawait.out" 2>&1; then
    timeout 60 "$CUZK" verify "$BLS/verification_key.json" "$T/generic/public_0.json" "$T/generic/proof_0.json" \
      "$T/generic/public_1.json" "$T/generic/proof_1.json" > "$T/gverify.out" 2>&1 ||
      note "cuzk verify of the generic proofs: $(tail -n 2 "$T/gverify.out")"
  else
    note "cuzk await: $(tail -n 2 "$T/gawait.out")"
  fi
else
  note "cuzk submit: $(tail -n 2 "$T/gsub.err")"
fi
rpc "$A" status
eq "$CODE" OK "GetStatus of Curio's API after the generic job"
verdict "5 cuzk.groth16.v1 beside it: cuzk submit and await prove 2 partitions on the same daemon, cuzk verify accepts" a
stop_daemon "$APID"

# 6. A daemon without [filecoin]: Filecoin requests refused, FAILED_PRECONDITION naming the setting.
B=unix://$T/b.sock
mkdir -p "$T/jb"
conf "$T/b.toml" "$B" "$T/jb"
start_daemon b "$T/b.toml" "$B"
rpc "$B" submit kind=POREP_SEAL_COMMIT registered_proof=5 vanilla_proof=@"$T/bad-c1.json"
eq "$CODE" FAILED_PRECONDITION "SubmitProof to a daemon without [filecoin]"
has_text "$DETAILS" "params_dir" "the refusal names the setting"
rpc "$B" preload circuit_id=porep-32g
eq "$CODE" FAILED_PRECONDITION "PreloadSRS on a daemon without [filecoin]"
rpc "$B" status
eq "$CODE" OK "GetStatus on a daemon without [filecoin]"
verdict "6 without [filecoin] params_dir: SubmitProof and PreloadSRS FAILED_PRECONDITION naming params_dir; GetStatus answers" b
stop_daemon "$DPID"

# 7. TCP with a token: Curio's API follows the daemon's token rule.
P=$(free_port)
C=127.0.0.1:$P
TOK=curio-test-token
mkdir -p "$T/jc"
conf "$T/c.toml" "$C" "$T/jc" "[filecoin]" "params_dir = \"$T/params\""
sed -i "s/^\[daemon\]$/[daemon]\ntoken = \"$TOK\"/" "$T/c.toml"
start_daemon c "$T/c.toml" "$C" "$TOK"
rpc "$C" status
eq "$CODE" UNAUTHENTICATED "GetStatus over TCP without the token"
rpc "$C" status --token wrong
eq "$CODE" UNAUTHENTICATED "GetStatus over TCP with a wrong token"
rpc "$C" status --token "$TOK"
eq "$CODE" OK "GetStatus over TCP with the token"
verdict "7 over TCP: Curio's API needs the daemon's token (UNAUTHENTICATED without it or with a wrong one)" c
stop_daemon "$DPID"

echo "curio tests: $pass passed, $fail failed"
[ $fail = 0 ]
