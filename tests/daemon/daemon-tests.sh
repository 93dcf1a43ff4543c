#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# End-to-end checks of `cuzk daemon` over real sockets (unix and TCP), with simulated devices:
# many concurrent clients, idempotent resubmission, cancel, kill -9 and journal recovery,
# rejected requests, /metrics and /status, the TCP token rule, the socket's mode, SIGTERM.
#
# usage: bash tests/daemon/daemon-tests.sh path/to/cuzk
# Prints "ok - ..." or "FAIL - ..." per check and "daemon tests: N passed, M failed"; exits 0
# only if every check passed. CUZK_KEEP_TMP=1 keeps the work directory (logs, configs, proofs).
set -u
set -o pipefail

CUZK=${1:?usage: daemon-tests.sh path/to/cuzk}
case $CUZK in /*) ;; *) CUZK=$PWD/$CUZK ;; esac
[ -x "$CUZK" ] || { echo "daemon-tests: $CUZK is not an executable" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BLS=$ROOT/examples/porep-bls12-381
BN=$ROOT/examples/porep-bn254
OTHER_BLS=$ROOT/tests/fixtures/bls12-381/mulchain/witness.wtns   # BLS12-381, another circuit
unset CUZK_TOKEN

# A python3 with prometheus_client for check_metrics.py (Debian's lives in /usr/bin/python3).
PY=python3
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import prometheus_client' >/dev/null 2>&1; then PY=$p; break; fi
done

T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-daemon-tests.XXXXXX") || exit 2
DAEMONS=()   # daemons started in the background
CLIENTS=()   # `timeout ... cuzk CLIENT` started in the background
cleanup() {
  # only children not yet reaped: their ids cannot have been reused
  local running p
  running=" $(jobs -p | tr '\n' ' ') "
  for p in "${DAEMONS[@]}"; do [[ $running == *" $p "* ]] && kill -9 "$p" 2>/dev/null; done
  for p in "${CLIENTS[@]}"; do [[ $running == *" $p "* ]] && kill -TERM "$p" 2>/dev/null; done
  for p in "${DAEMONS[@]}" "${CLIENTS[@]}"; do [[ $running == *" $p "* ]] && wait "$p" 2>/dev/null; done
  if [ -n "${CUZK_KEEP_TMP:-}" ]; then echo "work directory kept: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

source "$HERE/checks.sh"
# listening PORT: exit 0 if something accepts connections on 127.0.0.1:PORT
listening() {
  "$PY" -c 'import socket,sys
s=socket.socket(); s.settimeout(1)
sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0 else 1)' "$1"
}

# conf FILE LISTEN JOURNAL STATUS_PORT DEVICES WORKERS KERNEL_MS [extra [daemon] lines...]
conf() {
  local file=$1 listen=$2 journal=$3 sport=$4 devs=$5 workers=$6 kms=$7; shift 7
  {
    echo "[daemon]"
    echo "listen = \"$listen\""
    echo "status_listen = \"127.0.0.1:$sport\""
    echo "journal = \"$journal\""
    local x; for x in "$@"; do echo "$x"; done
    echo "[devices]"
    echo "list = [\"$devs\"]"
    echo "workers_per_device = $workers"
    [ "$kms" = 0 ] || echo "sim_kernel_ms = $kms"
    echo "[synthesis]"
    echo "threads = 2"
    echo "[[circuits]]"
    echo "id = \"porep-bls\""
    echo "zkey = \"$BLS/circuit.zkey\""
    echo "r1cs = \"$BLS/circuit.r1cs\""
    echo "[[circuits]]"
    echo "id = \"porep-bn\""
    echo "zkey = \"$BN/circuit.zkey\""
    echo "r1cs = \"$BN/circuit.r1cs\""
  } > "$file"
}

# client ARGS...: a cuzk client command that cannot hang the run
client() { timeout 60 "$CUZK" "$@"; }

# start_daemon NAME CONFIG ADDR [TOKEN]: runs it in the background (stderr to $T/NAME.log,
# appended over restarts), sets DPID; returns 0 once `cuzk status` answers (20 s at most).
DPID=
start_daemon() {
  local name=$1 cfg=$2 addr=$3 tok=${4:-} i rc
  echo "=== start $(date +%T)" >> "$T/$name.log"
  "$CUZK" daemon --config "$cfg" >> "$T/$name.out" 2>> "$T/$name.log" &
  DPID=$!
  DAEMONS+=("$DPID")
  for ((i = 0; i < 100; i++)); do
    if timeout 10 "$CUZK" status --daemon "$addr" ${tok:+--token "$tok"} > /dev/null 2>&1; then return 0; fi
    if ! kill -0 "$DPID" 2>/dev/null; then
      wait "$DPID"; rc=$?
      note "daemon $name exited with $rc while starting"; return 1
    fi
    sleep 0.2
  done
  note "daemon $name did not answer within 20 s"
  return 1
}
# stop_daemon PID [SECONDS [already-signalled]]: SIGTERM, wait for it (kill -9 after SECONDS,
# default 40); sets STOP_RC to its exit status (or "hung").
STOP_RC=
stop_daemon() {
  local pid=$1 limit=${2:-40} i
  [ -n "${3:-}" ] || kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < limit * 10; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; STOP_RC=hung; return 1; fi
  wait "$pid"; STOP_RC=$?
}

# status ADDR FILE [TOKEN]: the status JSON into FILE (empty on failure)
status() {
  client status --daemon "$1" ${3:+--token "$3"} > "$2" 2> "$2.err" || : > "$2"
}
# jv FILE EXPR: a value of a JSON file, EXPR in python with d the document ("" if absent)
jv() {
  "$PY" -c 'import json,sys
try:
    d = json.load(open(sys.argv[1])); v = eval(sys.argv[2])
    print(json.dumps(v) if isinstance(v, (dict, list)) else v)
except Exception:
    print("")' "$1" "$2"
}
# counter ADDR NAME [TOKEN]: one of the status counters
counter() { status "$1" "$T/counter.json" "${3:-}"; jv "$T/counter.json" "d['counters']['$2']"; }
# nfiles DIR: entries of a journal (its folders included), uploads in progress aside
nfiles() { find "$1" -mindepth 1 -not -path "$1/incoming*" | wc -l; }
# injournal DIR NAME: the journal has a file NAME (in its job folders)
injournal() { [ -n "$(find "$1/jobs" -name "$2" 2>/dev/null | head -n 1)" ]; }
wlist() { local d=$1 sep='' i; shift; for i; do printf '%s%s' "$sep" "$d/witness_$i.wtns"; sep=,; done; }

# Reference public inputs of the example witnesses, proved here without the daemon: every
# proof the daemon returns must come with the public inputs of the witness it was given.
mkdir -p "$T/ref"
refs_ok=1
for c in bls bn; do
  if [ $c = bls ]; then dir=$BLS; else dir=$BN; fi
  for i in 0 1 2 3 4 5 6 7 8 9; do
    if ! "$CUZK" prove "$dir/circuit.zkey" "$dir/witness_$i.wtns" "$T/ref/proof_${c}_$i.json" \
        "$T/ref/public_${c}_$i.json" --quiet > "$T/ref.log" 2>&1; then
      refs_ok=0; note "cuzk prove of $c witness_$i failed: $(tail -n 3 "$T/ref.log")"
    fi
  done
done
if [ $refs_ok = 1 ] && cmp -s "$T/ref/public_bls_0.json" "$T/ref/public_bls_1.json"; then
  note "witness_0 and witness_1 have the same public inputs: the reference cannot tell them apart"
fi
verdict "0 reference proofs of the example witnesses made with cuzk prove" ref

# check_dir DIR CURVE WITNESS_INDEX...: DIR has proof_<k>.json/public_<k>.json for each
# witness given, public_<k> equal to the reference of that witness; echoes the
# "public proof" pairs for a batched cuzk verify.
check_dir() {
  local dir=$1 c=$2 k=0 i; shift 2
  for i; do
    if [ ! -s "$dir/proof_$k.json" ] || [ ! -s "$dir/public_$k.json" ]; then
      note "$dir: proof_$k.json or public_$k.json missing"
    elif ! cmp -s "$dir/public_$k.json" "$T/ref/public_${c}_$i.json"; then
      note "$dir/public_$k.json is not the public input of $c witness_$i"
    fi
    printf '%s\n%s\n' "$dir/public_$k.json" "$dir/proof_$k.json"
    k=$((k+1))
  done
  [ -s "$dir/proofs.bin" ] || note "$dir/proofs.bin missing"
  [ -s "$dir/summary.json" ] || note "$dir/summary.json missing"
  # The job's timeline on its own axis: from 0 (its submission), not from the daemon's start.
  local ticks
  ticks=$(grep -o 'class="tick"[^>]*>[^<]*' "$dir/timeline.svg" 2> /dev/null | sed 's/.*>//')
  [ "$(head -n 1 <<< "$ticks")" = 0 ] || note "$dir/timeline.svg: the axis starts at '$(head -n 1 <<< "$ticks")', not 0"
  awk -v t="$(tail -n 1 <<< "$ticks")" 'BEGIN { exit !(t != "" && t + 0 < 600000) }' ||
    note "$dir/timeline.svg: the axis ends at '$(tail -n 1 <<< "$ticks")' ms: not on the job's own axis"
}
# verify_pairs VK LISTFILE EXPECTED_COUNT: cuzk verify all pairs of LISTFILE, 40 pairs a call
verify_pairs() {
  local vk=$1 list=$2 want=$3 valid=0 n rc
  local -a all=() batch=()
  mapfile -t all < "$list"
  [ $(( ${#all[@]} / 2 )) = "$want" ] || note "$list: $(( ${#all[@]} / 2 )) proofs, expected $want"
  for ((n = 0; n < ${#all[@]}; n += 80)); do
    batch=("${all[@]:n:80}")
    client verify "$vk" "${batch[@]}" > "$T/verify.out" 2>&1; rc=$?
    if [ $rc != 0 ]; then
      note "cuzk verify exited $rc: $(grep -v '^OK' "$T/verify.out" | head -n 3 | tr '\n' '|')"
    else
      valid=$((valid + $(grep -c '^OK' "$T/verify.out")))
    fi
  done
  eq "$valid" "$want" "valid proofs ($list)"
}

############################################################################################
# Daemon A: unix socket, no token, two simulated devices with two workers each.
PA=$(free_port)
SA=$T/a.sock
A=unix://$SA
JA=$T/journal-a
mkdir -p "$JA"
conf "$T/a.toml" "$A" "$JA" "$PA" "sim:2" 2 0
start_daemon a "$T/a.toml" "$A"
verdict "daemon A starts on a unix socket (sim:2, 2 workers per device)" a
APID=$DPID

# 8. The socket is private to its owner.
eq "$(stat -c %a "$SA" 2>&1)" 600 "mode of $SA"
eq "$(stat -c %F "$SA" 2>&1)" socket "type of $SA"
verdict "8 unix socket $SA has mode 0600"

# 1. 4 loadgen processes at once, 4 connections each: 120 jobs of 2 partitions.
status "$A" "$T/s1-before.json"
declare -A LG_CIRCUIT=([1]=porep-bls [2]=porep-bls [3]=porep-bls [4]=porep-bn)
declare -A LG_CURVE=([1]=bls [2]=bls [3]=bls [4]=bn)
declare -A LG_W=([1]="0 1" [2]="2 3" [3]="4 5" [4]="6 7")
declare -A LG_PID=()
t0=$(date +%s.%N)
for k in 1 2 3 4; do
  if [ "${LG_CURVE[$k]}" = bls ]; then dir=$BLS; else dir=$BN; fi
  # shellcheck disable=SC2086
  timeout 60 "$CUZK" loadgen --daemon "$A" --circuit "${LG_CIRCUIT[$k]}" --partitions "$(wlist "$dir" ${LG_W[$k]})" \
    --jobs 30 --clients 4 --out "$T/lg$k" > "$T/lg$k.out" 2>&1 &
  LG_PID[$k]=$!
  CLIENTS+=("$!")
done
for k in 1 2 3 4; do
  wait "${LG_PID[$k]}"; rc=$?
  [ $rc = 0 ] || note "loadgen $k exited $rc: $(tail -n 3 "$T/lg$k.out" | tr '\n' '|')"
  has "$T/lg$k.out" "30 done, 0 failed" "loadgen $k summary"
done
t1=$(date +%s.%N)
for k in 1 2 3 4; do
  : > "$T/pairs$k"
  njobs=$(find "$T/lg$k" -mindepth 1 -maxdepth 1 -name 'job_*' 2>/dev/null | wc -l)
  eq "$njobs" 30 "job directories of loadgen $k"
  for ((j = 0; j < 30; j++)); do
    # shellcheck disable=SC2086
    check_dir "$T/lg$k/job_$j" "${LG_CURVE[$k]}" ${LG_W[$k]} >> "$T/pairs$k"
  done
  if [ "${LG_CURVE[$k]}" = bls ]; then vk=$BLS/verification_key.json; else vk=$BN/verification_key.json; fi
  verify_pairs "$vk" "$T/pairs$k" 60
done
# The verifier does refuse a proof with the public inputs of another witness.
if client verify "$BLS/verification_key.json" "$T/lg1/job_0/public_1.json" "$T/lg1/job_0/proof_0.json" > "$T/verify-neg.out" 2>&1; then
  note "cuzk verify accepted proof_0 with public_1"
fi
status "$A" "$T/s1-after.json"
for c in jobs_submitted:120 jobs_done:120 jobs_failed:0 jobs_cancelled:0 partitions_done:240; do
  name=${c%%:*} delta=${c#*:}
  b=$(jv "$T/s1-before.json" "d['counters']['$name']") a=$(jv "$T/s1-after.json" "d['counters']['$name']")
  eq "$(( ${a:-0} - ${b:-0} ))" "$delta" "status counter $name: $b before, $a after; increase"
  if [ -z "$a" ] || [ -z "$b" ]; then note "status counter $name unreadable"; fi
done
eq "$(find "$JA" -name '*.job' | wc -l)" 120 "journal entries (*.job)"
eq "$(find "$JA" -name '*.done' | wc -l)" 120 "journal results (*.done)"
secs=$(awk "BEGIN {printf \"%.1f\", $t1 - $t0}")
verdict "1 4 loadgens x 30 jobs x 2 partitions (porep-bls x3, porep-bn x1) at once in ${secs}s: 120 done, 240 proofs valid, counters +120" a

# 2. The same request id twice is one job.
status "$A" "$T/s2-before.json"
before_jobs=$(find "$JA" -name '*.job' | wc -l)
W1=$(wlist "$BLS" 8)
client submit --daemon "$A" --circuit porep-bls --partitions "$W1" --request-id same-twice > "$T/sub1.out" 2> "$T/sub1.err"; rc1=$?
client submit --daemon "$A" --circuit porep-bls --partitions "$W1" --request-id same-twice > "$T/sub2.out" 2> "$T/sub2.err"; rc2=$?
client submit --daemon "$A" --circuit porep-bls --partitions "$W1" --request-id another-one > "$T/sub3.out" 2> "$T/sub3.err"; rc3=$?
eq "$rc1/$rc2/$rc3" 0/0/0 "exit codes of the three submits"
id1=$(tail -n 1 "$T/sub1.out") id2=$(tail -n 1 "$T/sub2.out") id3=$(tail -n 1 "$T/sub3.out")
[[ $id1 =~ ^j-[0-9a-f]+$ ]] || note "first job id '$id1' is not a job id"
eq "$id2" "$id1" "job id of the second submit with request id same-twice"
[ "$id3" != "$id1" ] || note "request id another-one got the job of same-twice ($id1)"
status "$A" "$T/s2-after.json"
b=$(jv "$T/s2-before.json" "d['counters']['jobs_submitted']") a=$(jv "$T/s2-after.json" "d['counters']['jobs_submitted']")
eq "$(( ${a:-0} - ${b:-0} ))" 2 "jobs_submitted increase ($b -> $a) over 3 submits of 2 request ids"
eq "$(( $(find "$JA" -name '*.job' | wc -l) - before_jobs ))" 2 "new journal entries"
client await --daemon "$A" --request-id same-twice --out "$T/same" > "$T/same.out" 2>&1 || note "await --request-id same-twice failed: $(tail -n 2 "$T/same.out")"
client await --daemon "$A" "$id3" --out "$T/another" > "$T/another.out" 2>&1 || note "await $id3 failed: $(tail -n 2 "$T/another.out")"
check_dir "$T/same" bls 8 > "$T/pairs-same"
verify_pairs "$BLS/verification_key.json" "$T/pairs-same" 1
# The same request id for a different request is refused, naming the job it belongs to.
client submit --daemon "$A" --circuit porep-bls --partitions "$(wlist "$BLS" 9)" --request-id same-twice > "$T/sub4.out" 2> "$T/sub4.err"; rc4=$?
eq "$rc4" 1 "exit code of a submit reusing request id same-twice for another witness"
has "$T/sub4.err" "ALREADY_EXISTS: request_id 'same-twice' was used for another request (job $id1" "reused request id"
[ -s "$T/sub4.out" ] && note "the refused submit printed a job id: $(cat "$T/sub4.out")"
status "$A" "$T/s2-last.json"
eq "$(jv "$T/s2-last.json" "d['counters']['jobs_submitted']")" "$a" "jobs_submitted after the refused reuse"
verdict "2 resubmission with the same --request-id returns job $id1 again; jobs_submitted +1 per request id; reuse for another request refused" a

# 5a. Bad requests on daemon A: rejected with a reason, nothing accepted or journaled.
# reject NAME DAEMON_NAME ADDR JOURNAL STATUS_TOKEN CODE NEEDLE... -- CLIENT ARGS...
reject() {
  local name=$1 dname=$2 addr=$3 journal=$4 stok=$5 code=$6 rc; shift 6
  local -a needles=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do needles+=("$1"); shift; done
  shift
  status "$addr" "$T/r-before.json" "$stok"
  local files_before; files_before=$(nfiles "$journal")
  client "$@" > "$T/r.out" 2> "$T/r.err"; rc=$?
  status "$addr" "$T/r-after.json" "$stok"
  eq "$rc" 1 "exit code"
  has "$T/r.err" "cuzk: error: $code: " "error code"
  local n; for n in "${needles[@]}"; do has "$T/r.err" "$n" "message"; done
  [ ! -s "$T/r.out" ] || note "something on stdout: $(head -c 200 "$T/r.out")"
  local c b a
  for c in jobs_submitted:0 requests_rejected:1; do
    b=$(jv "$T/r-before.json" "d['counters']['${c%%:*}']") a=$(jv "$T/r-after.json" "d['counters']['${c%%:*}']")
    if [ -z "$a" ] || [ -z "$b" ]; then note "status counters unreadable"; fi
    eq "$(( ${a:-0} - ${b:-0} ))" "${c#*:}" "${c%%:*} increase ($b -> $a)"
  done
  eq "$(nfiles "$journal")" "$files_before" "files in the journal directory"
  verdict "5 rejected: $name ($(head -n 1 "$T/r.err"))" "$dname"
}
reject "unknown circuit" a "$A" "$JA" "" INVALID_ARGUMENT "unknown circuit 'no-such-circuit'" -- \
  submit --daemon "$A" --circuit no-such-circuit --partitions "$(wlist "$BLS" 0)"
reject "witness of another size in partition 1" a "$A" "$JA" "" INVALID_ARGUMENT "partition 1" "1003 values" "1024 wires" -- \
  submit --daemon "$A" --circuit porep-bls --partitions "$(wlist "$BLS" 0),$OTHER_BLS"
reject "bn254 witness for the bls12-381 circuit" a "$A" "$JA" "" INVALID_ARGUMENT "partition 0" "bn254" "bls12-381" -- \
  submit --daemon "$A" --circuit porep-bls --partitions "$(wlist "$BN" 0 1)"

# 6. /metrics in the Prometheus text format, its values those of /status; /status is JSON.
status "$A" "$T/s6.json"
ver=$(jv "$T/s6.json" "d['version']") commit=$(jv "$T/s6.json" "d['commit']")
[ -n "$ver" ] || note "no version in the status JSON"
expects=(--expect "cuzk_build_info{version=\"$ver\",commit=\"$commit\"}=1")
expects+=(--expect "cuzk_jobs_accepted_total=$(jv "$T/s6.json" "d['counters']['jobs_submitted']")")
expects+=(--expect "cuzk_jobs_recovered_total=$(jv "$T/s6.json" "d['counters']['jobs_recovered']")")
for c in done:jobs_done failed:jobs_failed cancelled:jobs_cancelled; do
  expects+=(--expect "cuzk_jobs_ended_total{outcome=\"${c%%:*}\"}=$(jv "$T/s6.json" "d['counters']['${c#*:}']")")
done
# The process_* families, as every Prometheus client exports them.
for f in process_resident_memory_bytes process_virtual_memory_bytes process_open_fds process_max_fds \
    process_cpu_seconds_total process_start_time_seconds; do
  expects+=(--present "$f")
done
expects+=(--expect "cuzk_partitions_total{outcome=\"done\"}=$(jv "$T/s6.json" "d['counters']['partitions_done']")")
expects+=(--expect "cuzk_requests_rejected_total=$(jv "$T/s6.json" "d['counters']['requests_rejected']")")
expects+=(--expect "cuzk_jobs_active=0")
# Every partition proved here is in each phase's histogram once.
for ph in queue synthesis stage budget_wait lock_wait kernels finish; do
  expects+=(--expect "cuzk_partition_phase_seconds_count{phase=\"$ph\"}=$(jv "$T/s6.json" "d['counters']['partitions_done']")")
done
done6=$(jv "$T/s6.json" "d['counters']['jobs_done']")
eq "$done6" 122 "status jobs_done (120 loadgen jobs and 2 of check 2)"
"$PY" "$HERE/check_metrics.py" "http://127.0.0.1:$PA/metrics" "${expects[@]}" > "$T/metrics.out" 2>&1; rc=$?
sed 's/^/    /' "$T/metrics.out"
[ $rc = 0 ] || note "check_metrics.py exited $rc (python: $PY)"
verdict "6 /metrics parses as Prometheus text 0.0.4 and agrees with the status counters" a
curl -sS -m 10 -D "$T/status.hdr" "http://127.0.0.1:$PA/status" > "$T/status-http.json" 2> "$T/status-http.err" ||
  note "GET /status failed: $(cat "$T/status-http.err")"
"$PY" -m json.tool "$T/status-http.json" > /dev/null 2> "$T/json.err" || note "/status is not JSON: $(head -c 200 "$T/json.err")"
grep -qi '^content-type: application/json' "$T/status.hdr" || note "/status Content-Type: $(grep -i '^content-type' "$T/status.hdr")"
eq "$(jv "$T/status-http.json" "d['version']")" "$ver" "version in /status"
eq "$(jv "$T/status-http.json" "d['counters']['jobs_done']")" "$done6" "jobs_done in /status"
eq "$(jv "$T/status-http.json" "len(d['devices'])")" 2 "devices in /status"
verdict "6 /status over HTTP is JSON with version $ver" a

stop_daemon "$APID"
eq "$STOP_RC" 0 "exit status of daemon A after SIGTERM"
verdict "daemon A stops with status 0 on SIGTERM" a

############################################################################################
# 7. TCP needs a token: without one the daemon refuses to start and listens on nothing.
PN=$(free_port) PNS=$(free_port)
mkdir -p "$T/journal-n"
conf "$T/n.toml" "127.0.0.1:$PN" "$T/journal-n" "$PNS" "sim:1" 1 0
t0=$(date +%s)
"$CUZK" daemon --config "$T/n.toml" > "$T/n.out" 2> "$T/n.log" &
npid=$!
DAEMONS+=("$npid")
for ((i = 0; i < 100; i++)); do kill -0 "$npid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$npid" 2>/dev/null; then
  listening "$PN" && note "the daemon without a token listens on TCP port $PN"
  kill -9 "$npid"; wait "$npid" 2>/dev/null
  note "the daemon with a TCP listen address and no token is still running after 10 s"
else
  wait "$npid"; rc=$?
  eq "$rc" 1 "exit status"
fi
has "$T/n.log" "token" "its error message"
listening "$PN" && note "something listens on TCP port $PN"
listening "$PNS" && note "something listens on the status port $PNS"
verdict "7 TCP listen address without a token: exit 1 in $(( $(date +%s) - t0 ))s ($(head -n 1 "$T/n.log" | cut -c 1-110)...)" n

# Daemon B: TCP with a token and a 64 KiB limit on requests.
PB=$(free_port) PBS=$(free_port)
TOK=tok-$RANDOM$RANDOM
B=127.0.0.1:$PB
JB=$T/journal-b
mkdir -p "$JB"
conf "$T/b.toml" "$B" "$JB" "$PBS" "sim:1" 2 0 "token = \"$TOK\"" 'max_request_bytes = "64KiB"'
start_daemon b "$T/b.toml" "$B" "$TOK"
BPID=$DPID
client submit --daemon "$B" --token "$TOK" --circuit porep-bls --partitions "$(wlist "$BLS" 3)" > "$T/tcp.out" 2> "$T/tcp.err" ||
  note "submit over TCP with the token failed: $(cat "$T/tcp.err")"
jtcp=$(tail -n 1 "$T/tcp.out")
[[ $jtcp =~ ^j-[0-9a-f]+$ ]] || note "no job id from submit: '$jtcp'"
# the token from the environment
CUZK_TOKEN=$TOK client await --daemon "$B" "$jtcp" --out "$T/tcp" > "$T/tcp-await.out" 2>&1 ||
  note "await over TCP (CUZK_TOKEN) failed: $(tail -n 2 "$T/tcp-await.out")"
check_dir "$T/tcp" bls 3 > "$T/pairs-tcp"
verify_pairs "$BLS/verification_key.json" "$T/pairs-tcp" 1
verdict "7 TCP daemon with a token on $B: submit --token and await (CUZK_TOKEN) give a valid proof" b

# 5b. Rejections of daemon B.
all10=$(wlist "$BLS" 0 1 2 3 4 5 6 7 8 9)
wbytes=$(stat -c %s "$BLS"/witness_?.wtns | awk '{s += $1} END {print s}')
if [ "${wbytes:-0}" -le 65536 ]; then
  note "the 10 witnesses are only ${wbytes} bytes, not more than max_request_bytes (65536)"
  verdict "5 rejected: oversized request (test setup)"
fi
reject "request of $wbytes witness bytes over max_request_bytes 64KiB" b "$B" "$JB" "$TOK" INVALID_ARGUMENT "max_request_bytes" "65536" -- \
  submit --daemon "$B" --token "$TOK" --circuit porep-bls --partitions "$all10"
reject "wrong token" b "$B" "$JB" "$TOK" UNAUTHENTICATED "token" -- \
  submit --daemon "$B" --token "not-$TOK" --circuit porep-bls --partitions "$(wlist "$BLS" 0)"
reject "no token" b "$B" "$JB" "$TOK" UNAUTHENTICATED "token" -- \
  submit --daemon "$B" --circuit porep-bls --partitions "$(wlist "$BLS" 0)"

# 10. The same ten witnesses in pieces (SubmitProofStream) are not bounded by max_request_bytes:
# accepted, proved, every public input that of its witness; the journal keeps them as files
# until the job ends; a bad witness in a stream is refused like in one message.
client submit --daemon "$B" --token "$TOK" --circuit porep-bls --partitions "$all10" --stream 1 --request-id streamed \
  > "$T/stream.out" 2> "$T/stream.err" || note "streamed submit failed: $(cat "$T/stream.err")"
js=$(tail -n 1 "$T/stream.out")
[[ $js =~ ^j- ]] || note "streamed submit printed no job id: $(cat "$T/stream.out")"
# The same request in pieces again, and the same request id for other witnesses.
client submit --daemon "$B" --token "$TOK" --circuit porep-bls --partitions "$all10" --stream 1 --request-id streamed \
  > "$T/stream2.out" 2> /dev/null
eq "$(tail -n 1 "$T/stream2.out")" "$js" "job id of the same streamed request again"
client submit --daemon "$B" --token "$TOK" --circuit porep-bls --partitions "$(wlist "$BLS" 3)" --stream 1 \
  --request-id streamed > /dev/null 2> "$T/stream3.err" && note "a reused request id with other witnesses was accepted"
has "$T/stream3.err" "was used for another request (job $js" "streamed request id reused for other witnesses"
CUZK_TOKEN=$TOK client await --daemon "$B" "$js" --out "$T/streamed" > "$T/stream-await.out" 2>&1 ||
  note "await of the streamed job failed: $(tail -n 2 "$T/stream-await.out")"
check_dir "$T/streamed" bls 0 1 2 3 4 5 6 7 8 9 > "$T/pairs-stream"
verify_pairs "$BLS/verification_key.json" "$T/pairs-stream" 10
left=$(find "$JB" -name "$js.p*.wtns" | wc -l)
eq "$left" 0 "witness files of the ended streamed job left in the journal"
client submit --daemon "$B" --token "$TOK" --circuit porep-bls --stream 1 \
  --partitions "$(wlist "$BLS" 0),$ROOT/tests/fixtures/bls12-381/mulchain/witness.wtns" > /dev/null 2> "$T/stream-bad.err" &&
  note "a streamed bad witness was accepted"
has "$T/stream-bad.err" "INVALID_ARGUMENT: partition 1: the witness has 1003 values" "streamed bad witness"
verdict "10 ten witnesses ($wbytes bytes > max_request_bytes) streamed in pieces: accepted, idempotent, 10 proofs valid, journal files gone after the job; a bad streamed witness refused" b
# loadgen streams too: over max_request_bytes its Prove calls are refused, in pieces its jobs run.
CUZK_TOKEN=$TOK client loadgen --daemon "$B" --circuit porep-bls --partitions "$all10" --jobs 2 --clients 2 \
  > "$T/lg-one.out" 2>&1 && note "loadgen over max_request_bytes in one message succeeded"
has "$T/lg-one.out" "0 done, 2 failed" "loadgen summary, one message over max_request_bytes"
CUZK_TOKEN=$TOK client loadgen --daemon "$B" --circuit porep-bls --partitions "$all10" --stream 1 --jobs 3 \
  --clients 2 --out "$T/lgs" > "$T/lg-stream.out" 2>&1 || note "streamed loadgen failed: $(tail -n 2 "$T/lg-stream.out")"
has "$T/lg-stream.out" "3 jobs x 10 partitions of porep-bls over 2 connections: 3 done, 0 failed" "streamed loadgen summary"
: > "$T/pairs-lgs"
for ((j = 0; j < 3; j++)); do check_dir "$T/lgs/job_$j" bls 0 1 2 3 4 5 6 7 8 9 >> "$T/pairs-lgs"; done
verify_pairs "$BLS/verification_key.json" "$T/pairs-lgs" 30
verdict "10 loadgen of ten witnesses over max_request_bytes: one message refused, in pieces 3 jobs done, 30 proofs valid" b
nb=$(nfiles "$JB")
client submit --daemon "$B" --token "$TOK" --circuit porep-bls --partitions "$(wlist "$BLS" 0)" --by-path 1 > /dev/null \
  2> "$T/bp-none.err" && note "a daemon without witness_dirs accepted a witness path"
has "$T/bp-none.err" "INVALID_ARGUMENT: this daemon takes no witness paths (daemon.witness_dirs is empty)" "by-path refusal"
eq "$(nfiles "$JB")" "$nb" "journal files of daemon B after a refused by-path submit"
verdict "5 rejected: witness paths on a daemon without witness_dirs" b
stop_daemon "$BPID"
eq "$STOP_RC" 0 "exit status of daemon B after SIGTERM"
verdict "daemon B stops with status 0 on SIGTERM" b

############################################################################################
# Daemon S: slow (one device, one worker, 300 ms of kernels a partition), 30 s shutdown grace.
PS=$(free_port)
SS=$T/s.sock
S=unix://$SS
JS=$T/journal-s
mkdir -p "$JS"
conf "$T/s.toml" "$S" "$JS" "$PS" "sim:1" 1 300 'shutdown_grace = "30s"' 'keep_results = "1h"'
start_daemon s "$T/s.toml" "$S"
SPID=$DPID
verdict "daemon S starts (sim:1, 1 worker, sim_kernel_ms 300)" s

# kernels_done ADDR: partitions whose kernels ran, summed over the devices
kernels_done() { status "$1" "$T/kd.json"; jv "$T/kd.json" "sum(x['partitions'] for x in d['devices'])"; }
# wait_running ADDR BASE: until a device has proved a partition more than BASE (10 s at most)
wait_running() {
  local i n
  for ((i = 0; i < 100; i++)); do
    n=$(kernels_done "$1")
    [ -n "$n" ] && [ "$n" -gt "$2" ] && return 0
    sleep 0.1
  done
  note "no partition proved within 10 s (devices' partitions '$n', was $2)"
  return 1
}

# 3. Cancel a running job.
status "$S" "$T/s3-before.json"
pd0=$(jv "$T/s3-before.json" "sum(x['partitions'] for x in d['devices'])")
client submit --daemon "$S" --circuit porep-bls --partitions "$all10" > "$T/c.out" 2> "$T/c.err" || note "submit failed: $(cat "$T/c.err")"
jc=$(tail -n 1 "$T/c.out")
wait_running "$S" "$pd0"
# While it runs, the device names the job by the id clients know, and partitions_done counts
# the partitions proved so far.
cur=""
for _ in $(seq 50); do  # the device's lock is held most of the time; catch it held
  status "$S" "$T/s3-running.json"
  cur=$(jv "$T/s3-running.json" "d['devices'][0]['current']")
  [ -n "$cur" ] && break
  sleep 0.02
done
[[ $cur == "job $jc partition "* ]] || note "device current '$cur' does not name job $jc"
pdr=$(jv "$T/s3-running.json" "d['counters']['partitions_done']") pd0c=$(jv "$T/s3-before.json" "d['counters']['partitions_done']")
[ "${pdr:-0}" -gt "${pd0c:-0}" ] || note "partitions_done did not grow while the job ran ($pd0c -> $pdr)"
client cancel --daemon "$S" "$jc" > "$T/cancel1.out" 2>&1
eq "$(cat "$T/cancel1.out")" cancelled "cancel output"
client cancel --daemon "$S" "$jc" > "$T/cancel2.out" 2>&1
eq "$(cat "$T/cancel2.out")" "not cancelled: already cancelled" "output of a second cancel"
client await --daemon "$S" "$jc" --out "$T/cancelled" > "$T/c-await.out" 2>&1; rc=$?
[ $rc != 0 ] || note "await of the cancelled job exited 0"
has "$T/c-await.out" "cancelled" "await output"
[ ! -e "$T/cancelled/proof_0.json" ] || note "await wrote proofs of a cancelled job"
sleep 0.5
status "$S" "$T/s3-after.json"
for c in jobs_cancelled:1 jobs_done:0 jobs_failed:0; do
  b=$(jv "$T/s3-before.json" "d['counters']['${c%%:*}']") a=$(jv "$T/s3-after.json" "d['counters']['${c%%:*}']")
  if [ -z "$a" ] || [ -z "$b" ]; then note "status counters unreadable"; fi
  eq "$(( ${a:-0} - ${b:-0} ))" "${c#*:}" "${c%%:*} increase ($b -> $a)"
done
pd1=$(jv "$T/s3-after.json" "sum(x['partitions'] for x in d['devices'])")
[ "$(( pd1 - pd0 ))" -lt 10 ] || note "all 10 partitions were proved ($pd0 -> $pd1): the cancel stopped nothing"
eq "$(jv "$T/s3-after.json" "[d['queues'][q] for q in ('synthesis','ready','running_partitions','jobs_active')]")" "[0, 0, 0, 0]" "queues 0.5 s after the cancel"
injournal "$JS" "$jc.done" || note "no $jc.done in the journal"
verdict "3 cancel of running job $jc after $(( pd1 - pd0 )) of 10 partitions: 'cancelled', await fails, jobs_cancelled +1" s

# 4. kill -9 in the middle of a job, restart on the same journal.
client submit --daemon "$S" --circuit porep-bls --partitions "$(wlist "$BLS" 9)" > "$T/k0.out" 2> "$T/k0.err" || note "submit failed: $(cat "$T/k0.err")"
jdone=$(tail -n 1 "$T/k0.out")
client await --daemon "$S" "$jdone" --out "$T/k0" > "$T/k0-await.out" 2>&1 || note "await $jdone failed: $(tail -n 2 "$T/k0-await.out")"
pd0=$(kernels_done "$S")
client submit --daemon "$S" --circuit porep-bls --partitions "$all10" --request-id killed-mid-job > "$T/k1.out" 2> "$T/k1.err" ||
  note "submit failed: $(cat "$T/k1.err")"
jkill=$(tail -n 1 "$T/k1.out")
wait_running "$S" "$pd0"
pd1=$(kernels_done "$S")
kill -9 "$SPID"; wait "$SPID" 2>/dev/null
injournal "$JS" "$jkill.job" || note "no $jkill.job in the journal after kill -9"
! injournal "$JS" "$jkill.done" || note "$jkill.done in the journal: the job ended before the kill ($pd0 -> $pd1 partitions done)"
# await while the daemon is down: it must keep trying until the restarted daemon answers
timeout 60 "$CUZK" await --daemon "$S" --request-id killed-mid-job --out "$T/k1" > "$T/k1-await.out" 2>&1 &
kpid=$!
CLIENTS+=("$kpid")
sleep 1
start_daemon s "$T/s.toml" "$S"
SPID=$DPID
wait "$kpid"; rc=$?
[ $rc = 0 ] || note "await --request-id killed-mid-job exited $rc: $(tail -n 3 "$T/k1-await.out" | tr '\n' '|')"
has "$T/k1-await.out" "$jkill" "await output naming the job"
check_dir "$T/k1" bls 0 1 2 3 4 5 6 7 8 9 > "$T/pairs-k1"
verify_pairs "$BLS/verification_key.json" "$T/pairs-k1" 10
eq "$(counter "$S" jobs_recovered)" 1 "jobs_recovered after the restart"
has "$T/s.log" "1 unfinished job(s)" "log of the restart"
client await --daemon "$S" "$jdone" --out "$T/k0-again" > "$T/k0-again.out" 2>&1 ||
  note "await of $jdone (done before the kill) failed after the restart: $(tail -n 2 "$T/k0-again.out")"
cmp -s "$T/k0/proofs.bin" "$T/k0-again/proofs.bin" || note "$jdone's proofs.bin differs after the restart"
check_dir "$T/k0-again" bls 9 > "$T/pairs-k0"
verify_pairs "$BLS/verification_key.json" "$T/pairs-k0" 1
verdict "4 kill -9 after $(( pd1 - pd0 )) of 10 partitions, restart: job $jkill recovered (10 valid proofs, jobs_recovered 1), earlier result kept" s

# 9. SIGTERM with a job in flight: the job finishes, then the daemon exits 0.
pd0=$(kernels_done "$S")
client submit --daemon "$S" --circuit porep-bls --partitions "$(wlist "$BLS" 0 1 2 3 4 5)" > "$T/t.out" 2> "$T/t.err" || note "submit failed: $(cat "$T/t.err")"
jterm=$(tail -n 1 "$T/t.out")
wait_running "$S" "$pd0"
pd1=$(kernels_done "$S")
t0=$(date +%s.%N)
kill -TERM "$SPID"
! injournal "$JS" "$jterm.done" || note "$jterm had ended before the SIGTERM ($pd0 -> $pd1 partitions proved): nothing was in flight"
sleep 0.1
# while stopping, new work is refused
client submit --daemon "$S" --circuit porep-bls --partitions "$(wlist "$BLS" 5)" > "$T/t2.out" 2> "$T/t2.err"; rc=$?
eq "$rc" 1 "exit code of a submit while the daemon stops"
has "$T/t2.err" "UNAVAILABLE" "submit while the daemon stops"
stop_daemon "$SPID" 40 already-signalled
t1=$(date +%s.%N)
eq "$STOP_RC" 0 "exit status after SIGTERM"
has "$T/s.log" "job $jterm: done" "log"
grep -q ': stopped$' "$T/s.log" || note "the log does not say the daemon stopped"
if grep -q ': stopped$' "$T/s.log" && grep -qF "job $jterm: done" "$T/s.log"; then
  [ "$(grep -nF "job $jterm: done" "$T/s.log" | cut -d: -f1)" -lt "$(grep -n ': stopped$' "$T/s.log" | tail -n 1 | cut -d: -f1)" ] ||
    note "the log says stopped before job $jterm was done"
fi
injournal "$JS" "$jterm.done" || note "no $jterm.done in the journal"
start_daemon s "$T/s.toml" "$S"
SPID=$DPID
client await --daemon "$S" "$jterm" --out "$T/term" > "$T/term.out" 2>&1 || note "await $jterm after the restart failed: $(tail -n 2 "$T/term.out")"
check_dir "$T/term" bls 0 1 2 3 4 5 > "$T/pairs-term"
verify_pairs "$BLS/verification_key.json" "$T/pairs-term" 6
eq "$(counter "$S" jobs_recovered)" 0 "jobs_recovered after a clean stop"
stop_daemon "$SPID"
eq "$STOP_RC" 0 "exit status of the idle daemon after SIGTERM"
verdict "9 SIGTERM with job $jterm in flight ($(( pd1 - pd0 )) of 6 partitions proved): it finished, exit 0 after $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}")s, result served after restart" s

############################################################################################
# 11. Witnesses named by path (daemon.witness_dirs): read in place, nothing of them journaled;
# outside the directories (also through a link), relative, or on a daemon without witness_dirs:
# refused; a file changed after acceptance fails its partition, naming it.
WD=$T/wd
mkdir -p "$WD" "$T/outside"
cp "$BLS"/witness_*.wtns "$WD/"
cp "$BLS/witness_0.wtns" "$T/outside/"
cp "$ROOT/tests/fixtures/bls12-381/mulchain/witness.wtns" "$WD/mulchain.wtns"
ln -s "$T/outside/witness_0.wtns" "$WD/link.wtns"
PP=$(free_port)
SP=$T/p.sock
P=unix://$SP
JP=$T/journal-p
mkdir -p "$JP"
# Daemon P keeps 1000 TiB free on its journal's filesystem: no disk has that, so witnesses that
# would be written there (one message or streamed) are refused, while paths still go through.
conf "$T/p.toml" "$P" "$JP" "$PP" "sim:1" 1 250 "witness_dirs = [\"$WD\"]" 'journal_reserve = "1000TiB"'
start_daemon p "$T/p.toml" "$P"
PPID_=$DPID
jsize0=$(du -sb "$JP" | cut -f1)
client submit --daemon "$P" --circuit porep-bls --partitions "$(wlist "$WD" 0 1 2 3 4 5 6 7 8 9)" --by-path 1 \
  --request-id bypath > "$T/bp.out" 2> "$T/bp.err" || note "submit --by-path failed: $(cat "$T/bp.err")"
jp=$(tail -n 1 "$T/bp.out")
has "$T/bp.err" "read in place by the daemon" "submit --by-path message"
jsize1=$(du -sb "$JP" | cut -f1)
[ $(( jsize1 - jsize0 )) -lt 65536 ] || note "the journal grew by $(( jsize1 - jsize0 )) bytes for a job of witness paths"
client submit --daemon "$P" --circuit porep-bls --partitions "$(wlist "$WD" 0 1 2 3 4 5 6 7 8 9)" --by-path 1 \
  --request-id bypath > "$T/bp2.out" 2> /dev/null
eq "$(tail -n 1 "$T/bp2.out")" "$jp" "job id of the same by-path request again"
client await --daemon "$P" "$jp" --out "$T/bypath" > "$T/bp-await.out" 2>&1 ||
  note "await of the by-path job failed: $(tail -n 2 "$T/bp-await.out")"
check_dir "$T/bypath" bls 0 1 2 3 4 5 6 7 8 9 > "$T/pairs-bypath"
verify_pairs "$BLS/verification_key.json" "$T/pairs-bypath" 10
[ "$(find "$WD" -name 'witness_*.wtns' | wc -l)" = 10 ] || note "witness files under witness_dirs went away"
jfiles() { find "$1" -type f -not -path "$1/incoming/*" | wc -l; }  # (a refused stream leaves incoming/ itself)
for mode in "" "--stream 1"; do
  before=$(jfiles "$JP")
  # shellcheck disable=SC2086
  client submit --daemon "$P" --circuit porep-bls --partitions "$(wlist "$BLS" 0 1)" $mode > /dev/null \
    2> "$T/reserve.err" && note "a submission ($mode) was accepted beyond journal_reserve"
  has "$T/reserve.err" "RESOURCE_EXHAUSTED: the journal's filesystem ($JP) has" "journal_reserve refusal ($mode)"
  has "$T/reserve.err" "(daemon.journal_reserve); retry later" "journal_reserve refusal ($mode)"
  eq "$(jfiles "$JP")" "$before" "journal files after a submission refused for space ($mode)"
  [ -z "$(ls -A "$JP/incoming" 2> /dev/null)" ] || note "pieces left in $JP/incoming after a refused stream"
done
refuse_path() {  # refuse_path EXPECTED_TEXT ADDR PATHS: the submit fails with it, nothing journaled
  local want=$1 addr=$2 paths=$3 before
  before=$(nfiles "$JP")
  client submit --daemon "$addr" --circuit porep-bls --partitions "$paths" --by-path 1 > /dev/null 2> "$T/bp-bad.err" &&
    note "by-path submit of $paths was accepted"
  has "$T/bp-bad.err" "$want" "by-path refusal"
  eq "$(nfiles "$JP")" "$before" "journal files after a refused by-path submit"
}
refuse_path "is not under the daemon's witness_dirs ($WD)" "$P" "$T/outside/witness_0.wtns"
# Outside, a missing file is refused in the same words as an existing one: nothing is probed.
refuse_path "$T/outside/none.wtns is not under the daemon's witness_dirs ($WD)" "$P" "$T/outside/none.wtns"
refuse_path "$T/outside/witness_0.wtns is not under the daemon's witness_dirs" "$P" "$WD/../outside/witness_0.wtns"
refuse_path "$WD/link.wtns leads outside the daemon's witness_dirs ($WD) through a link" "$P" "$WD/link.wtns"
grep -qF "$T/outside" "$T/bp-bad.err" && note "the refusal of a link names its target: $(cat "$T/bp-bad.err")"
refuse_path "partition 1: the witness has 1003 values" "$P" "$WD/witness_0.wtns,$WD/mulchain.wtns"
refuse_path "No such file or directory" "$P" "$WD/witness_0.wtns,$WD/nonexistent.wtns"
(cd "$WD" && "$CUZK" submit --daemon "$P" --circuit porep-bls --partitions witness_0.wtns --by-path 1 > /dev/null 2>&1) ||
  note "a relative path given to the client was not made absolute"
# Files changed after acceptance. With one simulated worker and 250 ms of kernels, partition 9
# is read seconds after the answer; by then (a) its file has been rewritten with other bytes of
# the same size and its mtime put back, or (b) its directory has been swapped for a link to a
# directory outside witness_dirs holding a file of the same name, size and mtime.
changed_job() {  # changed_job TAG LAST_PATH SWAP_COMMAND WANT: submit, swap, await; the job must fail
  local tag=$1 last=$2 swap=$3 want=$4
  client submit --daemon "$P" --circuit porep-bls --partitions "$(wlist "$WD" 0 1 2 3 4 5 6 7 8),$last" --by-path 1 \
    > "$T/bp$tag.out" 2> "$T/bp$tag.err" || note "submit --by-path ($tag) failed: $(cat "$T/bp$tag.err")"
  eval "$swap"
  client await --daemon "$P" "$(tail -n 1 "$T/bp$tag.out")" --out "$T/bp$tag" > "$T/bp$tag-await.out" 2>&1 &&
    note "the job whose witness was changed ($tag) succeeded"
  has "$T/bp$tag-await.out" "$want" "await of the job with a changed witness ($tag)"
  grep -qF "$T/outside" "$T/bp$tag-await.out" && note "the failure of job $tag tells of the file outside: $(cat "$T/bp$tag-await.out")"
}
cp "$WD/witness_9.wtns" "$WD/w9.wtns"
changed_job rewrite "$WD/w9.wtns" \
  'cp "$WD/w9.wtns" "$T/w9.keep"; cp "$BLS/witness_8.wtns" "$WD/w9.wtns"; touch -r "$T/w9.keep" "$WD/w9.wtns"' \
  "$WD/w9.wtns: changed since the job was accepted"
cmp -s "$T/w9.keep" "$WD/w9.wtns" && note "the rewrite test did not change the file"
mkdir -p "$WD/sub" "$T/outside/sub"
cp "$WD/witness_9.wtns" "$WD/sub/w.wtns"
cp "$BLS/witness_8.wtns" "$T/outside/sub/w.wtns"
touch -r "$WD/sub/w.wtns" "$T/outside/sub/w.wtns"
changed_job swap "$WD/sub/w.wtns" 'mv "$WD/sub" "$WD/sub.orig"; ln -s "$T/outside/sub" "$WD/sub"' \
  "$WD/sub/w.wtns leads outside the daemon's witness_dirs ($WD) through a link"
stop_daemon "$PPID_"
eq "$STOP_RC" 0 "exit status of daemon P after SIGTERM"
verdict "11 witnesses by path: 10 proofs valid, idempotent, journal +$(( jsize1 - jsize0 )) bytes; witness bytes refused beyond journal_reserve, in one message or streamed; outside witness_dirs (unprobed), through .. or a link, wrong wire count, missing: refused; a witness rewritten (size and mtime kept) or its directory swapped after acceptance fails its job" p

echo "daemon tests: $pass passed, $fail failed"
[ $fail = 0 ]
