#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A bounded soak of `cuzk daemon` on a simulated device, one address set (gRPC on TCP with a
# token, the status server, one journal):
#   - 2,000 jobs (the smallest fixture circuit, bn254 manypub, one partition each; every job its
#     own request_id) from 8 submitting processes of 2 connections each, while the daemon is
#     killed with -9 every 2-4 s and restarted with the same configuration;
#   - one acknowledged, unfinished job's journal record corrupted while the daemon is down: after
#     the restart it answers FAILED naming its quarantined record (never NOT_FOUND);
#   - a second daemon on the same ports (another journal), and one on the same journal (other
#     ports), while the first runs: both exit non-zero naming the address / the journal's lock;
#   - a SIGHUP: the daemon keeps serving;
#   - 50 idle connections to the status server held throughout, and /metrics fetched every 0.5 s:
#     every fetch made while the daemon is up answers within 1 s;
#   - at the end every acknowledged request_id awaited: exactly one job each, the acknowledged
#     one, its proof valid (cuzk verify, all of them) with its witness's public inputs; submitted
#     again, each gets its job back; the daemon's RSS after the last incarnation's load (400 new
#     jobs, 2,000 awaits, 2,000 resubmissions) within 2x of its RSS when it had just started.
#
# usage: bash tests/daemon/soak.sh path/to/cuzk path/to/soak_client
# Prints "ok - ..." or "FAIL - ..." per check and a "soak: ..." summary; exits 0 only if every
# check passed. CUZK_KEEP_TMP=1 keeps the work directory (logs, journal, proofs).
set -u
set -o pipefail

CUZK=${1:?usage: soak.sh path/to/cuzk path/to/soak_client}
SC=${2:?usage: soak.sh path/to/cuzk path/to/soak_client}
case $CUZK in /*) ;; *) CUZK=$PWD/$CUZK ;; esac
case $SC in /*) ;; *) SC=$PWD/$SC ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FX=$ROOT/tests/fixtures/bn254/manypub   # the smallest circuit: 123 constraints, 5 KiB witnesses
unset CUZK_TOKEN
JOBS=${CUZK_SOAK_JOBS:-2000}            # in all
LAST=$(( JOBS / 5 ))                    # of them, submitted to the last incarnation only
SUBMITTERS=8                            # processes, 2 connections each
t_begin=$(date +%s)

T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-soak.XXXXXX") || exit 2
DAEMONS=() CLIENTS=()
cleanup() {
  local running p
  touch "$T/probe.stop"
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
now() { date +%s.%N; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }

# conf FILE LISTEN_PORT STATUS_PORT JOURNAL
conf() {
  cat > "$1" <<TOML
[daemon]
listen = "127.0.0.1:$2"
status_listen = "127.0.0.1:$3"
journal = "$4"
token = "$TOK"
shutdown_grace = "5s"
[devices]
list = ["sim:1"]
workers_per_device = 2
[synthesis]
threads = 1
[[circuits]]
id = "manypub"
zkey = "$FX/circuit.zkey"
r1cs = "$FX/circuit.r1cs"
TOML
}

# start_daemon: the daemon in the background (stderr appended to $T/daemon.log), DPID set; returns
# 0 once `cuzk status` answers (20 s at most), then logs "<time> up d" to $T/events.
DPID=
start_daemon() {
  local i rc
  echo "=== start $(date +%T.%N)" >> "$T/daemon.log"
  "$CUZK" daemon --config "$T/d.toml" >> "$T/daemon.out" 2>> "$T/daemon.log" &
  DPID=$!
  DAEMONS+=("$DPID")
  for ((i = 0; i < 200; i++)); do
    if timeout 10 "$CUZK" status --daemon "$ADDR" --token "$TOK" > /dev/null 2>&1; then
      echo "$(now) up d $DPID" >> "$T/events"
      return 0
    fi
    if ! kill -0 "$DPID" 2>/dev/null; then
      wait "$DPID"; rc=$?
      note "the daemon exited with $rc while starting"; return 1
    fi
    sleep 0.1
  done
  note "the daemon did not answer within 20 s"
  return 1
}
# refused NAME CONFIG NEEDLE: the daemon must exit non-zero, its error naming NEEDLE, without having
# logged "serving on" (20 s at most).
refused() {
  local name=$1 cfg=$2 needle=$3 pid i rc
  "$CUZK" daemon --config "$cfg" > "$T/$name.out" 2> "$T/$name.log" &
  pid=$!
  DAEMONS+=("$pid")
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    if grep -q "serving on" "$T/$name.log"; then
      note "daemon $name started: $(grep "serving on" "$T/$name.log" | head -n 1 | cut -c 1-160)"
      kill -9 "$pid"; wait "$pid" 2>/dev/null
      return 1
    fi
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid"; wait "$pid" 2>/dev/null; note "daemon $name neither started nor exited within 20 s"; return 1
  fi
  wait "$pid"; rc=$?
  [ "$rc" != 0 ] || note "daemon $name exited 0"
  has "$T/$name.log" "$needle" "error of daemon $name"
}
# submitters TAG FROM TO PACE_MS: $SUBMITTERS soak_client processes in the background sharing
# request ids FROM..TO-1 (in slices), acknowledgements in $T/TAG.<k>.ack; their pids in SUBS.
SUBS=()
submitters() {
  local tag=$1 from=$2 to=$3 pace=$4 k a b n
  SUBS=()
  n=$(( (to - from + SUBMITTERS - 1) / SUBMITTERS ))
  for ((k = 0; k < SUBMITTERS; k++)); do
    a=$(( from + k * n )) b=$(( from + (k + 1) * n ))
    [ $b -le $to ] || b=$to
    timeout 300 "$SC" submit "$ADDR" "$TOK" manypub soak "$a" "$b" 2 "$pace" "$FX/witness.wtns" "$FX/witness2.wtns" \
      > "$T/$tag.$k.ack" 2> "$T/$tag.$k.err" &
    SUBS+=("$!")
    CLIENTS+=("$!")
  done
}
# wait_submitters WHAT: waits for SUBS; each must exit 0
wait_submitters() {
  local k rc
  for k in "${!SUBS[@]}"; do
    wait "${SUBS[$k]}"; rc=$?
    [ $rc = 0 ] || note "$1: submitter $k exited $rc: $(tail -n 2 "$T/$1.$k.err" | tr '\n' '|') $(grep '^err' "$T/$1.$k.ack" | head -n 2)"
  done
}
any_running() { local p; for p in "$@"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
# need_daemon WHEN: the daemon must still run; if it does not, nothing after can be checked: the
# run stops here (instead of waiting on a daemon that is gone).
need_daemon() {
  kill -0 "$DPID" 2>/dev/null && return 0
  wait "$DPID"; note "the daemon is gone ($1; exit status $?)"
  verdict "the daemon runs $1" daemon
  echo "soak: stopped early: the daemon is gone ($1); $pass passed, $fail failed"
  exit 1
}
record() { find "$JD/jobs" -name "$1" 2>/dev/null | head -n 1; }

# Reference public inputs of the two witnesses (job k gets witness k mod 2), proved without the daemon.
for w in witness witness2; do
  "$CUZK" prove "$FX/circuit.zkey" "$FX/$w.wtns" "$T/ref-$w.proof.json" "$T/ref-$w.public.json" --quiet \
    > "$T/ref.log" 2>&1 || note "cuzk prove of $w failed: $(tail -n 3 "$T/ref.log")"
done
cmp -s "$T/ref-witness.public.json" "$T/ref-witness2.public.json" &&
  note "the two witnesses have the same public inputs: the check cannot tell them apart"
verdict "reference public inputs of the fixture's two witnesses (cuzk prove)"

TOK=tok-$RANDOM$RANDOM
PG=$(free_port) PS=$(free_port)
ADDR=127.0.0.1:$PG
JD=$T/journal
mkdir -p "$JD" "$T/out"
conf "$T/d.toml" "$PG" "$PS" "$JD"
: > "$T/events"
start_daemon
verdict "daemon on $ADDR (status 127.0.0.1:$PS, journal $JD), sim:1" daemon
[ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null || { echo "soak: no daemon, giving up"; exit 1; }

python3 "$HERE/metrics_probe.py" "$T/probes" "$T/probe.stop" 0.5 50 "http://127.0.0.1:$PS/metrics" \
  2> "$T/probe.err" &
PROBE=$!
CLIENTS+=("$PROBE")

# Phase 1: JOBS - LAST jobs paced over about 45 s, through kill -9 every 2-4 s.
submitters p1 0 $(( JOBS - LAST )) 350
kills=0 round=0 corrupt_rid="" corrupt_job="" rss_lines=()
t_p1=$(date +%s)
while :; do
  round=$((round + 1))
  sleep "$(( 2 + RANDOM % 2 )).$(( RANDOM % 10 ))"
  if [ $round = 1 ]; then
    # A second daemon on the same ports with another journal, then on the same journal with
    # other ports: each refused, naming what is taken, while the first keeps serving.
    mkdir -p "$T/journal2"
    conf "$T/second-ports.toml" "$PG" "$PS" "$T/journal2"
    refused second-ports "$T/second-ports.toml" "cuzk: error: cannot listen on 127.0.0.1:$PG"
    conf "$T/second-journal.toml" "$(free_port)" "$(free_port)" "$JD"
    refused second-journal "$T/second-journal.toml" "cuzk: error: journal $JD is in use by another cuzk daemon"
    timeout 10 "$CUZK" status --daemon "$ADDR" --token "$TOK" > /dev/null 2>&1 || note "the first daemon does not answer"
    verdict "a second daemon on the same ports, and one on the same journal, exit non-zero naming them ($(grep -m 1 -o 'cuzk: error: .*' "$T/second-ports.log" | cut -c 13-90) | $(grep -m 1 -o 'cuzk: error: .*' "$T/second-journal.log" | cut -c 13-90))" second-ports second-journal
  fi
  if ! kill -0 "$DPID" 2>/dev/null; then
    wait "$DPID"; note "the daemon died by itself (exit $?) in round $round"
    verdict "round $round" daemon
    break
  fi
  rss_lines+=("$(rss_kib "$DPID")")
  echo "$(now) down d $DPID" >> "$T/events"
  kill -9 "$DPID"; wait "$DPID" 2>/dev/null
  kills=$((kills + 1))
  # Once, while it is down: corrupt the record of an acknowledged job that has no result yet.
  if [ -z "$corrupt_rid" ] && [ $round -ge 3 ]; then
    while read -r rid job; do
      f=$(record "$job.job")
      if [ -n "$f" ] && [ -z "$(record "$job.done")" ]; then
        size=$(stat -c %s "$f")
        # 4 bytes of the body (the witness, at the end): its checksum fails, the ids stay readable
        printf '\xde\xad\xbe\xef' | dd of="$f" bs=1 seek=$((size - 64)) conv=notrunc status=none
        corrupt_rid=$rid corrupt_job=$job
        echo "$(now) corrupted $f ($rid)" >> "$T/events"
        break
      fi
    done < <(find "$JD/jobs" -name '*.done' -printf '%f\n' | sed 's/\.done$//' |
      awk 'NR == FNR {done[$1] = 1; next} $1 == "ack" && !($3 in done) {print $2, $3}' - "$T"/p1.*.ack)
  fi
  start_daemon || { verdict "restart after kill -9 number $kills" daemon; break; }
  if ! any_running "${SUBS[@]}" && [ $round -ge 6 ]; then break; fi
  if [ $round -ge 40 ]; then note "the submitters still run after 40 rounds"; break; fi
done
wait_submitters p1
[ -n "$corrupt_rid" ] || note "no acknowledged job without a result was found to corrupt"
[ $kills -ge 5 ] || note "only $kills kill -9"
verdict "phase 1: $(( JOBS - LAST )) jobs submitted in $(( $(date +%s) - t_p1 )) s through $kills kill -9 (every 2-4 s); record of $corrupt_rid ($corrupt_job) corrupted while down; RSS before each kill (KiB): ${rss_lines[*]}" daemon
need_daemon "after phase 1"

# The last incarnation: its RSS now, then a SIGHUP, LAST new jobs, every job awaited and submitted again.
sleep 1
rss0=$(rss_kib "$DPID")
kill -HUP "$DPID"
for ((i = 0; i < 50; i++)); do grep -q SIGHUP "$T/daemon.log" && break; sleep 0.1; done
sleep 0.5
kill -0 "$DPID" 2>/dev/null || note "SIGHUP stopped the daemon"
has "$T/daemon.log" "SIGHUP" "the log after SIGHUP"
timeout 10 "$CUZK" status --daemon "$ADDR" --token "$TOK" > "$T/status-hup.json" 2>&1 || note "no status after SIGHUP"
verdict "SIGHUP: logged ($(grep -m 1 -o 'SIGHUP.*' "$T/daemon.log" | cut -c 1-80)), the daemon keeps serving" daemon
need_daemon "after SIGHUP"

# The corrupted job: FAILED by job id and by request id, naming the quarantine; counted.
timeout 30 "$CUZK" await --daemon "$ADDR" --token "$TOK" --request-id "$corrupt_rid" --out "$T/corrupt" \
  > "$T/corrupt.out" 2>&1 && note "await of the corrupted job succeeded"
has "$T/corrupt.out" "job $corrupt_job failed: its journal record was corrupt and was quarantined" "await --request-id $corrupt_rid"
grep -q NOT_FOUND "$T/corrupt.out" && note "the corrupted job is NOT_FOUND: $(cat "$T/corrupt.out")"
[ -e "$JD/quarantine/$corrupt_job.job" ] || note "no $JD/quarantine/$corrupt_job.job"
curl -sS -m 5 "http://127.0.0.1:$PS/metrics" > "$T/metrics-q.txt" 2>&1
has "$T/metrics-q.txt" "cuzk_journal_records_quarantined 1" "/metrics"
verdict "the corrupted record's job answers FAILED: $(grep -o 'its journal record.*' "$T/corrupt.out" | cut -c 1-100)" daemon

t_p2=$(date +%s)
submitters p2 $(( JOBS - LAST )) "$JOBS" 0
wait_submitters p2
verdict "phase 2: $LAST jobs submitted to the last incarnation in $(( $(date +%s) - t_p2 )) s" daemon
need_daemon "after phase 2"

t_aw=$(date +%s)
cat "$T"/p1.*.ack "$T"/p2.*.ack | awk '$1 == "ack" {print $2}' | sort > "$T/acked.rids"
timeout 300 "$SC" await "$ADDR" "$TOK" "$T/out" 8 < "$T/acked.rids" > "$T/awaits" 2> "$T/await.err" ||
  note "soak_client await failed: $(tail -n 3 "$T/await.err")"
t_re=$(date +%s)
timeout 300 "$SC" submit "$ADDR" "$TOK" manypub soak 0 "$JOBS" 8 0 "$FX/witness.wtns" "$FX/witness2.wtns" \
  > "$T/resubmits" 2> "$T/resubmit.err"
# Every job id the journal holds (records, and the quarantined one), once each.
find "$JD/jobs" "$JD/quarantine" -maxdepth 2 -type f \( -name '*.job' -o -name '*.done' \) -printf '%f\n' |
  sed -E 's/\.(job|done)$//' | sort -u > "$T/journal.ids"
sleep 1
rss1=$(rss_kib "$DPID")
verdict "$(wc -l < "$T/acked.rids") request ids awaited in $(( t_re - t_aw )) s, all submitted again in $(( $(date +%s) - t_re )) s" daemon

touch "$T/probe.stop"
wait "$PROBE" || note "metrics_probe.py failed: $(tail -n 3 "$T/probe.err")"
python3 "$HERE/soak_check.py" --expect "$JOBS" --prefix soak --acks "$T"/p1.*.ack "$T"/p2.*.ack \
  --awaits "$T/awaits" --outdir "$T/out" --refs "$T/ref-witness.public.json,$T/ref-witness2.public.json" \
  --resubmits "$T/resubmits" --quarantined "$corrupt_rid" --pairs "$T/pairs" --journal-ids "$T/journal.ids" \
  --probes "$T/probes" --events "$T/events" --url "http://127.0.0.1:$PS/metrics=d" --idle 50 > "$T/check.out" 2>&1
rc=$?
sed -n '/^stats /!p' "$T/check.out"
pass=$(( pass + $(grep -c '^ok - ' "$T/check.out") )) fail=$(( fail + $(grep -c '^FAIL - ' "$T/check.out") ))
[ $rc = 0 ] || [ "$(grep -c '^FAIL - ' "$T/check.out")" != 0 ] || { fail=$((fail + 1)); echo "FAIL - soak_check.py exited $rc"; }
st() { sed -n 's/^stats //p' "$T/check.out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# Every delivered proof verified, 500 a call (one final exponentiation each).
mapfile -t P < "$T/pairs"
valid=0
for ((n = 0; n < ${#P[@]}; n += 1000)); do
  "$CUZK" verify "$FX/verification_key.json" "${P[@]:n:1000}" > "$T/verify.out" 2>&1 ||
    note "cuzk verify exited $?: $(grep -v '^OK' "$T/verify.out" | head -n 3 | tr '\n' '|')"
  valid=$(( valid + $(sed -nE 's/^([0-9]+) of [0-9]+ proofs valid.*/\1/p' "$T/verify.out" | tail -n 1) ))
done
eq "$valid" "$(st delivered)" "valid proofs"
[ "${valid:-0}" -gt 0 ] || note "no proof verified"
verdict "cuzk verify: $valid of $(( ${#P[@]} / 2 )) delivered proofs valid"

[ -n "$rss0" ] && [ -n "$rss1" ] || note "RSS unreadable ('$rss0', '$rss1')"
[ "${rss1:-0}" -le $(( 2 * ${rss0:-0} )) ] || note "RSS grew from $rss0 KiB to $rss1 KiB (more than 2x)"
verdict "RSS of the last incarnation: $rss0 KiB 1 s after its start, $rss1 KiB after $LAST jobs, $JOBS awaits, $JOBS resubmissions"

kill -TERM "$DPID"
for ((i = 0; i < 100; i++)); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$DPID" 2>/dev/null; then
  kill -9 "$DPID"; wait "$DPID" 2>/dev/null; note "the daemon did not stop within 10 s of SIGTERM"
else
  wait "$DPID"; eq "$?" 0 "exit status on SIGTERM"
fi
verdict "the last incarnation stops with 0 on SIGTERM" daemon

mib() { awk -v k="${1:-0}" 'BEGIN {printf "%.0f", k / 1024}'; }
# Jobs without a result at a kill -9, run again by the next incarnation (from its start lines).
recovered=$(sed -nE 's/.*: ([0-9]+) unfinished job\(s\) running again.*/\1/p' "$T/daemon.log" | awk '{s += $1} END {print s + 0}')
stored=$(st stored_jobs) acked=$(st acknowledged)
dup=$(( ${stored:-0} - ${acked:-0} ))
echo "soak: ${acked:-0} jobs acknowledged, $valid delivered with valid proofs, $(st quarantined) quarantined (FAILED), $(st lost) lost, $dup duplicated; $kills kill -9 ($recovered unfinished jobs run again after them); /metrics max $(st probe_max_s) s over $(st probes) probes beside $(st idle_min)-50 idle connections ($(st probes_skipped) in restart windows not counted); RSS $(mib "$rss0") MiB -> $(mib "$rss1") MiB; $(( $(date +%s) - t_begin )) s"
echo "soak tests: $pass passed, $fail failed"
[ $fail = 0 ]
