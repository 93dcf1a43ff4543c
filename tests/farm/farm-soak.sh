#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A bounded soak of a farm (run through tests/pg/with-postgres.sh, which provides CUZK_PG_DSN and
# CUZK_PG_CTL): two daemons on one PostgreSQL queue (sim:1 each, 40 ms of kernels a partition,
# a 1 s lease), 400 jobs of the
# smallest fixture circuit (bn254 manypub, one partition, each its own request_id) submitted to
# both from 8 processes, while one daemon or the other is killed with -9 every 3-5 s and restarted,
# and once the database is frozen with SIGSTOP for 5 s or more (longer than the lease) then resumed.
# /metrics and /status of both daemons are fetched every 0.5 s: every fetch made while its daemon
# is up, frozen database included, answers within 1 s (status while frozen says the farm part is
# stale). At the end every acknowledged request_id has exactly one job in the queue, the
# acknowledged one, delivered (awaited by request_id) with a valid proof and its witness's public
# inputs; submitted again, each gets its job back.
#   bash tests/pg/with-postgres.sh bash tests/farm/farm-soak.sh path/to/cuzk path/to/soak_client
set -uo pipefail
CUZK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SC=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${CUZK_PG_DSN:?run through tests/pg/with-postgres.sh}"
FX=$ROOT/tests/fixtures/bn254/manypub
DT=$ROOT/tests/daemon
JOBS=${CUZK_FARM_SOAK_JOBS:-400}
FREEZE_S=5
LEASE=1s
t_begin=$(date +%s)
T=$(mktemp -d /tmp/cuzk-farm-soak.XXXXXX)
passed=0 failed=0
declare -A PID SPORT
OTHERS=()
cleanup() {
  "$CUZK_PG_CTL" thaw 2> /dev/null
  touch "$T/probe.stop"
  for p in "${PID[@]}" "${OTHERS[@]}"; do kill -9 "$p" 2> /dev/null; done
  wait 2> /dev/null
  [ -n "${CUZK_KEEP_TMP:-}" ] && echo "work directory kept: $T" || rm -rf "$T"
}
trap cleanup EXIT
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() {
  echo "FAIL - $*"
  failed=$((failed + 1))
  for h in a b; do [ -f "$T/$h.log" ] && tail -n 5 "$T/$h.log" | sed "s/^/    $h: /"; done
}
sql() { psql "$CUZK_PG_DSN" -Atqc "$1" 2> "$T/psql.err"; }
now() { date +%s.%N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# daemon NAME: starts it (log appended to $T/NAME.log); once it answers, "<time> up NAME" in $T/events.
daemon() {
  local h=$1
  cat > "$T/$h.toml" <<TOML
[daemon]
listen = "unix://$T/$h.sock"
status_listen = "127.0.0.1:${SPORT[$h]}"
journal = "$T/journal-$h"
shutdown_grace = "1s"
[devices]
list = ["sim:1"]
workers_per_device = 2
sim_kernel_ms = 40
[synthesis]
threads = 1
[queue]
backend = "postgres"
dsn = "$CUZK_PG_DSN"
lease = "$LEASE"
host_id = "host-$h"
# kill -9 and the frozen database expire leases: each counts as an attempt, and the soak wants
# every job delivered, not failed for attempts
max_attempts = 50
[[circuits]]
id = "manypub"
zkey = "$FX/circuit.zkey"
TOML
  echo "=== start $(date +%T.%N)" >> "$T/$h.log"
  "$CUZK" daemon --config "$T/$h.toml" >> "$T/$h.log" 2>&1 &
  PID[$h]=$!
  for _ in $(seq 300); do
    if timeout 5 "$CUZK" status --daemon "unix://$T/$h.sock" > /dev/null 2>&1; then
      echo "$(now) up $h ${PID[$h]}" >> "$T/events"
      return 0
    fi
    kill -0 "${PID[$h]}" 2> /dev/null || return 1
    sleep 0.1
  done
  return 1
}
# kill9 NAME: "<time> down NAME" in $T/events, then kill -9 (it must still be running)
kill9() {
  local h=$1
  if ! kill -0 "${PID[$h]}" 2> /dev/null; then
    wait "${PID[$h]}"
    bad "daemon $h died by itself (exit $?)"
  fi
  echo "$(now) down $h ${PID[$h]}" >> "$T/events"
  kill -9 "${PID[$h]}" 2> /dev/null
  wait "${PID[$h]}" 2> /dev/null
  rm -f "$T/$h.sock"
}

SPORT[a]=$(free_port) SPORT[b]=$(free_port)
ADDRS="unix://$T/a.sock,unix://$T/b.sock"
: > "$T/events"
for h in a b; do daemon $h || { bad "daemon $h did not start"; exit 1; }; done
ok "two daemons on one PostgreSQL queue (host-a, host-b; sim:1 each, lease $LEASE)"
for w in witness witness2; do
  "$CUZK" prove "$FX/circuit.zkey" "$FX/$w.wtns" "$T/ref-$w.proof.json" "$T/ref-$w.public.json" --quiet \
    > "$T/ref.log" 2>&1 || bad "cuzk prove of $w failed: $(tail -n 3 "$T/ref.log")"
done

urls=()
for h in a b; do
  for p in metrics status; do urls+=("http://127.0.0.1:${SPORT[$h]}/$p"); done
done
python3 "$DT/metrics_probe.py" "$T/probes" "$T/probe.stop" 0.5 0 "${urls[@]}" 2> "$T/probe.err" &
PROBE=$!
OTHERS+=("$PROBE")

# 8 submitters, 2 connections each (one to each daemon, the other when it does not answer).
SUBS=()
n=$(( (JOBS + 7) / 8 ))
for ((k = 0; k < 8; k++)); do
  a=$(( k * n )) b=$(( (k + 1) * n ))
  [ $b -le "$JOBS" ] || b=$JOBS
  timeout 240 "$SC" submit "$ADDRS" - manypub fsoak "$a" "$b" 2 500 "$FX/witness.wtns" "$FX/witness2.wtns" \
    > "$T/sub.$k.ack" 2> "$T/sub.$k.err" &
  SUBS+=("$!")
  OTHERS+=("$!")
done
running() { local p; for p in "${SUBS[@]}"; do kill -0 "$p" 2> /dev/null && return 0; done; return 1; }

kills=0 round=0 freeze="" stale_seen="" slow=""
t0=$(date +%s)
while :; do
  round=$((round + 1))
  sleep "$(( 3 + RANDOM % 2 )).$(( RANDOM % 10 ))"
  if [ $round = 3 ]; then
    # The database frozen for longer than the lease: both daemons keep answering status at once,
    # the farm's part marked stale (the view status shows is read every 1 s, stale after 3 s: the
    # freeze lasts FREEZE_S, or longer until both said stale, 15 s at most).
    f0=$(now)
    "$CUZK_PG_CTL" freeze
    while :; do
      el=$(awk -v a="$f0" -v b="$(now)" 'BEGIN {printf "%d", b - a}')
      [[ $stale_seen == *a* && $stale_seen == *b* && $el -ge $FREEZE_S ]] && break
      [ "$el" -lt 15 ] || break
      for h in a b; do
        s=$(timeout 2 "$CUZK" status --daemon "unix://$T/$h.sock" 2> /dev/null)
        if [ -z "$s" ]; then slow="$slow status of $h gave nothing within 2 s;"; continue; fi
        [ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["farm"].get("stale"))' <<< "$s" 2> /dev/null)" = True ] &&
          stale_seen="$stale_seen $h"
      done
      sleep 0.3
    done
    "$CUZK_PG_CTL" thaw
    freeze="$f0:$(now)"
    frozen_s=$(awk -v a="$f0" -v b="$(now)" 'BEGIN {printf "%.1f", b - a}')
    echo "$(now) thawed (frozen at $f0)" >> "$T/events"
  fi
  h=a
  [ $((round % 2)) = 0 ] && h=b
  kill9 $h
  kills=$((kills + 1))
  sleep 0.5
  daemon $h || { bad "daemon $h did not restart after kill -9 number $kills"; break; }
  if ! running && [ $round -ge 6 ]; then break; fi
  [ $round -lt 40 ] || { bad "the submitters still run after 40 rounds"; break; }
done
for k in "${!SUBS[@]}"; do
  wait "${SUBS[$k]}" || bad "submitter $k exited $?: $(tail -n 2 "$T/sub.$k.err" | tr '\n' '|') $(grep '^err' "$T/sub.$k.ack" | head -n 2)"
done
[ $kills -ge 4 ] || bad "only $kills kill -9"
[ -n "$slow" ] && bad "while the database was frozen:$slow"
[[ $stale_seen == *a* && $stale_seen == *b* ]] || bad "while frozen, status of a and b never both said stale (saw:$stale_seen)"
[ -z "$slow" ] && [[ $stale_seen == *a* && $stale_seen == *b* ]] && [ $kills -ge 4 ] &&
  ok "$JOBS jobs submitted in $(( $(date +%s) - t0 )) s through $kills kill -9 and the database frozen $frozen_s s (lease $LEASE): status answered within 2 s, stale"

for h in a b; do
  if ! kill -0 "${PID[$h]}" 2> /dev/null; then
    bad "daemon $h is gone after the kills: nothing more can be checked"
    echo "farm soak: stopped early; $passed passed, $failed failed"
    exit 1
  fi
done
t_aw=$(date +%s)
cat "$T"/sub.*.ack | awk '$1 == "ack" {print $2}' | sort > "$T/acked.rids"
mkdir -p "$T/out"
timeout 200 "$SC" await "$ADDRS" - "$T/out" 8 < "$T/acked.rids" > "$T/awaits" 2> "$T/await.err" ||
  bad "soak_client await failed: $(tail -n 3 "$T/await.err")"
t_re=$(date +%s)
timeout 120 "$SC" submit "$ADDRS" - manypub fsoak 0 "$JOBS" 8 0 "$FX/witness.wtns" "$FX/witness2.wtns" \
  > "$T/resubmits" 2> "$T/resubmit.err"
sql "SELECT job_id FROM cuzk_jobs" > "$T/queue.ids" || bad "psql: $(cat "$T/psql.err")"
# Partitions claimed more than once: their lease expired under a kill -9 or the frozen database.
reclaimed=$(sql "SELECT count(*) FILTER (WHERE attempts > 1) || ' partitions (at most ' || coalesce(max(attempts), 0) || ' attempts)' FROM cuzk_partitions")
nrid=$(sql "SELECT count(DISTINCT request_id) || ' ' || count(*) FROM cuzk_jobs")
[ "$nrid" = "$JOBS $JOBS" ] || bad "cuzk_jobs: '$nrid' (distinct request ids, rows), expected '$JOBS $JOBS'"
ok "$(wc -l < "$T/acked.rids") request ids awaited in $(( t_re - t_aw )) s, submitted again in $(( $(date +%s) - t_re )) s"

touch "$T/probe.stop"
wait "$PROBE" || bad "metrics_probe.py failed: $(tail -n 3 "$T/probe.err")"
url_names=()
for h in a b; do
  for p in metrics status; do url_names+=(--url "http://127.0.0.1:${SPORT[$h]}/$p=$h"); done
done
python3 "$DT/soak_check.py" --expect "$JOBS" --prefix fsoak --acks "$T"/sub.*.ack --awaits "$T/awaits" \
  --outdir "$T/out" --refs "$T/ref-witness.public.json,$T/ref-witness2.public.json" --resubmits "$T/resubmits" \
  --pairs "$T/pairs" --journal-ids "$T/queue.ids" --probes "$T/probes" --events "$T/events" "${url_names[@]}" \
  --freeze-windows "$freeze" > "$T/check.out" 2>&1
rc=$?
sed -n '/^stats /!p' "$T/check.out"
passed=$(( passed + $(grep -c '^ok - ' "$T/check.out") )) failed=$(( failed + $(grep -c '^FAIL - ' "$T/check.out") ))
[ $rc = 0 ] || [ "$(grep -c '^FAIL - ' "$T/check.out")" != 0 ] || bad "soak_check.py exited $rc"
st() { sed -n 's/^stats //p' "$T/check.out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

mapfile -t P < "$T/pairs"
valid=0
for ((i = 0; i < ${#P[@]}; i += 1000)); do
  "$CUZK" verify "$FX/verification_key.json" "${P[@]:i:1000}" > "$T/verify.out" 2>&1 ||
    bad "cuzk verify exited $?: $(grep -v '^OK' "$T/verify.out" | head -n 3 | tr '\n' '|')"
  v=$(sed -nE 's/^([0-9]+) of [0-9]+ proofs valid.*/\1/p' "$T/verify.out" | tail -n 1)
  valid=$(( valid + ${v:-0} ))
done
if [ "$valid" = "$(st delivered)" ] && [ "$valid" -gt 0 ]; then
  ok "cuzk verify: $valid of $(( ${#P[@]} / 2 )) delivered proofs valid"
else
  bad "cuzk verify: $valid valid, $(st delivered) delivered"
fi

stored=$(st stored_jobs) acked=$(st acknowledged)
echo "farm soak: ${acked:-0} jobs acknowledged, $valid delivered with valid proofs, $(st lost) lost, $(( ${stored:-0} - ${acked:-0} )) duplicated; $kills kill -9; claimed again after a lost lease: $reclaimed; database frozen ${frozen_s:-0} s (lease $LEASE) with $(st probes_frozen) fetches then; /metrics and /status max $(st probe_max_s) s over $(st probes) fetches ($(st probes_skipped) in restart windows not counted); $(( $(date +%s) - t_begin )) s"
echo "farm soak: $passed passed, $failed failed"
[ "$failed" = 0 ]
