#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A farm's faults (run through tests/pg/with-postgres.sh, which provides CUZK_PG_DSN and
# CUZK_PG_CTL): a partition whose proving kills its daemon fails its job after max_attempts
# expired leases; a witness that fails its constraints fails the job at once, named by the
# client's partition number, its host and its device; a request_id reused at a daemon with another
# key is refused; a job no running daemon can hold shows in status and /metrics; with the database
# frozen (SIGSTOP) status, /status and /metrics answer within a second, the farm's part stale.
#   bash tests/pg/with-postgres.sh bash tests/farm/farm-faults.sh path/to/cuzk [CASE]
set -uo pipefail
CUZK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ONLY=${2:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${CUZK_PG_DSN:?run through tests/pg/with-postgres.sh}"
T=$(mktemp -d /tmp/cuzk-farm-faults.XXXXXX)
EX=$ROOT/examples/porep-bls12-381
passed=0 failed=0
declare -A PID
cleanup() {
  "$CUZK_PG_CTL" thaw 2> /dev/null
  for p in "${PID[@]}"; do kill -9 "$p" 2> /dev/null; done
  wait 2> /dev/null
  [ -n "${CUZK_KEEP_TMP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() {
  echo "FAIL - $*"
  failed=$((failed + 1))
  for f in "$T"/*.log; do [ -f "$f" ] && tail -n 5 "$f" | sed "s|^|    $(basename "$f" .log): |"; done
}
sql() { psql "$CUZK_PG_DSN" -Atqc "$1" 2> "$T/psql.err"; }
want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
W=$(ls "$EX"/witness_*.wtns | sort -V | paste -sd,)

# daemon NAME ZKEY [EXTRA_TOML]: starts it (log in $T/NAME.log); waits until it answers.
daemon() {
  local h=$1 zkey=$2 extra=${3:-} listen=""
  [ -n "${STATUS_PORT[$h]:-}" ] && listen="127.0.0.1:${STATUS_PORT[$h]}"
  cat > "$T/$h.toml" <<TOML
[daemon]
listen = "unix://$T/$h.sock"
status_listen = "$listen"
journal = "$T/journal-$h"
shutdown_grace = "1s"
[devices]
list = ["sim:1"]
workers_per_device = 1
sim_kernel_ms = ${KERNEL_MS:-20}
[synthesis]
threads = 1
[queue]
backend = "postgres"
dsn = "$CUZK_PG_DSN"
lease = "1s"
host_id = "host-$h"
max_attempts = ${MAX_ATTEMPTS:-3}
[[circuits]]
id = "porep"
zkey = "$zkey"
$extra
TOML
  "$CUZK" daemon --config "$T/$h.toml" >> "$T/$h.log" 2>&1 &
  PID[$h]=$!
  for _ in $(seq 200); do
    "$CUZK" status --daemon "unix://$T/$h.sock" > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
declare -A STATUS_PORT
stop() {
  kill -9 "${PID[$1]}" 2> /dev/null
  wait "${PID[$1]}" 2> /dev/null
  unset "PID[$1]"
  rm -f "$T/$1.sock"
}
stop_all() { for h in "${!PID[@]}"; do stop "$h"; done; }
st() { timeout 5 "$CUZK" status --daemon "unix://$T/$1.sock" 2> /dev/null; }
jv() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
job_of() { sql "SELECT job_id FROM cuzk_jobs WHERE request_id = '$1'"; }
# wait_sql SECONDS QUERY: until QUERY answers "t".
wait_sql() {
  local end=$((SECONDS + $1))
  while [ $SECONDS -lt $end ]; do
    [ "$(sql "$2")" = t ] && return 0
    sleep 0.1
  done
  return 1
}

# 1. A partition whose proving kills its daemon: each claim's lease expires; after max_attempts
#    of them the job fails, naming the partition, instead of being claimed again forever.
if want poison; then
  MAX_ATTEMPTS=2 KERNEL_MS=60000 daemon a "$EX/circuit.zkey" || bad "poison: daemon a did not start"
  "$CUZK" submit --daemon "unix://$T/a.sock" --circuit porep --partitions "$EX/witness_0.wtns" \
    --request-id poison > /dev/null 2>&1
  id=$(job_of poison)
  crashes=0
  for h in b c d e; do
    # Whoever holds the partition dies with it (as if its proving killed the daemon).
    wait_sql 20 "SELECT count(*) = 1 FROM cuzk_partitions WHERE job_id = '$id' AND state = 'claimed'
                 AND lease_until > clock_timestamp()" || break
    holder=$(sql "SELECT claimed_by FROM cuzk_partitions WHERE job_id = '$id'")
    stop "${holder#host-}"
    crashes=$((crashes + 1))
    [ "$(sql "SELECT state FROM cuzk_jobs WHERE job_id = '$id'")" = failed ] && break
    MAX_ATTEMPTS=2 KERNEL_MS=60000 daemon $h "$EX/circuit.zkey" || bad "poison: daemon $h did not start"
    wait_sql 10 "SELECT state = 'failed' FROM cuzk_jobs WHERE job_id = '$id'" && break
  done
  state=$(sql "SELECT state || ' | ' || error FROM cuzk_jobs WHERE job_id = '$id'")
  if [[ $state == "failed | partition 0: "*"lease expired"* ]] && [ "$crashes" = 2 ]; then
    ok "poison: a partition whose daemon died with it twice (max_attempts 2): '$state'"
  else
    bad "poison: after $crashes daemons died holding it the job is '$state' (want failed after 2, naming partition 0)"
  fi
  stop_all
fi

# 2. A witness that fails its constraints (bad input): the job fails at once (one attempt, no
#    retry elsewhere), its error names partition 3 as the client numbered it, the host and no
#    inner numbering.
if want bad_input; then
  mkdir -p "$T/bad"
  for i in $(seq 0 9); do cp "$EX/witness_$i.wtns" "$T/bad/witness_$i.wtns"; done
  size=$(stat -c %s "$T/bad/witness_3.wtns")
  # One witness value changed by a little (a low byte): still in the field, no longer a solution.
  printf '\x05' | dd of="$T/bad/witness_3.wtns" bs=1 seek=$((size - 32 * 7)) conv=notrunc status=none
  daemon a "$EX/circuit.zkey" "r1cs = \"$EX/circuit.r1cs\"" || bad "bad_input: daemon a did not start"
  daemon b "$EX/circuit.zkey" "r1cs = \"$EX/circuit.r1cs\"" || bad "bad_input: daemon b did not start"
  BW=$(ls "$T"/bad/witness_*.wtns | sort -V | paste -sd,)
  "$CUZK" submit --daemon "unix://$T/a.sock" --circuit porep --partitions "$BW" --request-id bad-input \
    > /dev/null 2> "$T/submit.err" || bad "bad_input: submission refused: $(cat "$T/submit.err")"
  id=$(job_of bad-input)
  wait_sql 30 "SELECT state IN ('failed', 'done') FROM cuzk_jobs WHERE job_id = '$id'"
  state=$(sql "SELECT state FROM cuzk_jobs WHERE job_id = '$id'")
  err=$(sql "SELECT error FROM cuzk_jobs WHERE job_id = '$id'")
  attempts=$(sql "SELECT attempts FROM cuzk_partitions WHERE job_id = '$id' AND idx = 3")
  if [ "$state" = failed ] && [ "$attempts" = 1 ] && [[ $err =~ ^partition\ 3:\ host-[ab]:\  ]] &&
    [[ $err != *"partition 0"* ]] && [[ $err == *constraint* ]]; then
    ok "bad_input: failed at once after $attempts attempt: '$err'"
  else
    bad "bad_input: job $state after $attempts attempt(s) of partition 3: '$err'"
  fi
  stop_all
fi

# 3. A request_id reused at a daemon whose key under the same circuit id differs: refused,
#    naming both keys, instead of answering with a job whose proofs fail under this key.
if want other_key; then
  if ! "$CUZK" setup "$EX/circuit.r1cs" "$T/other.zkey" --insecure --seed 7 --device cpu > "$T/setup.log" 2>&1; then
    bad "other_key: cuzk setup failed"
  else
    daemon a "$EX/circuit.zkey" || bad "other_key: daemon a did not start"
    daemon b "$T/other.zkey" || bad "other_key: daemon b did not start"
    "$CUZK" submit --daemon "unix://$T/a.sock" --circuit porep --partitions "$W" --request-id reused \
      > "$T/first.out" 2> /dev/null
    first=$(tail -n 1 "$T/first.out")
    if "$CUZK" submit --daemon "unix://$T/b.sock" --circuit porep --partitions "$W" --request-id reused \
      > "$T/second.out" 2> "$T/second.err"; then
      bad "other_key: the daemon with another key answered with job $(tail -n 1 "$T/second.out") (first: $first)"
    elif grep -q "FAILED_PRECONDITION" "$T/second.err" && grep -q "key" "$T/second.err"; then
      ok "other_key: refused: $(tail -n 1 "$T/second.err")"
    else
      bad "other_key: refused with the wrong reason: $(cat "$T/second.err")"
    fi
  fi
  stop_all
fi

# 4. A job that no running daemon can hold (its key's only daemon is gone) shows in status and
#    /metrics with its age.
if want unplaceable; then
  if [ ! -f "$T/other.zkey" ] &&
    ! "$CUZK" setup "$EX/circuit.r1cs" "$T/other.zkey" --insecure --seed 7 --device cpu > "$T/setup.log" 2>&1; then
    bad "unplaceable: cuzk setup failed"
  fi
  STATUS_PORT[a]=$(free_port)
  daemon a "$EX/circuit.zkey" || bad "unplaceable: daemon a did not start"
  KERNEL_MS=60000 daemon b "$T/other.zkey" || bad "unplaceable: daemon b did not start"
  "$CUZK" submit --daemon "unix://$T/b.sock" --circuit porep --partitions "$EX/witness_0.wtns" \
    --request-id orphan > /dev/null 2>&1
  stop b
  n="" age=""
  end=$((SECONDS + 30))
  while [ $SECONDS -lt $end ]; do
    n=$(st a | jv "d['farm'].get('jobs_unplaceable', 0)" 2> /dev/null)
    age=$(st a | jv "d['farm'].get('unplaceable_oldest_s', 0)" 2> /dev/null)
    [ "${n:-0}" = 1 ] && break
    sleep 0.2
  done
  metrics=$(curl -s --max-time 5 "http://127.0.0.1:${STATUS_PORT[a]}/metrics" | grep '^cuzk_farm_jobs_unplaceable')
  if [ "$n" = 1 ] && python3 -c "import sys; sys.exit(0 if float('$age') > 0 else 1)" 2> /dev/null &&
    grep -q '^cuzk_farm_jobs_unplaceable 1' <<< "$metrics" &&
    grep -q '^cuzk_farm_jobs_unplaceable_oldest_seconds [0-9]' <<< "$metrics"; then
    ok "unplaceable: status shows $n job waiting for a capable host for ${age} s; /metrics: $(echo $metrics)"
  else
    bad "unplaceable: status jobs_unplaceable '$n' oldest '$age'; /metrics: '$metrics'"
  fi
  stop_all
  unset 'STATUS_PORT[a]'
fi

# 5. The database frozen (SIGSTOP): status, /status and /metrics answer within a second, the
#    farm's part marked stale; once it thaws, fresh again.
if want frozen_db; then
  STATUS_PORT[a]=$(free_port)
  daemon a "$EX/circuit.zkey" || bad "frozen_db: daemon a did not start"
  url="http://127.0.0.1:${STATUS_PORT[a]}"
  "$CUZK_PG_CTL" freeze
  slow="" stale=""
  end=$((SECONDS + 20))
  while [ $SECONDS -lt $end ]; do
    # Each answers within a second (`cuzk status` gets one more for its own start).
    s=$(timeout 2 "$CUZK" status --daemon "unix://$T/a.sock" 2> /dev/null)
    h=$(curl -s --max-time 1 "$url/status")
    m=$(curl -s --max-time 1 "$url/metrics")
    if [ -z "$s" ] || [ -z "$h" ] || [ -z "$m" ]; then
      slow="no answer in time: status ${#s}, /status ${#h}, /metrics ${#m} bytes"
      break
    fi
    stale=$(jv "d['farm'].get('stale')" <<< "$s" 2> /dev/null)
    [ "$stale" = True ] && [ "$(jv "d['farm'].get('stale')" <<< "$h")" = True ] &&
      grep -q '^cuzk_farm_status_stale 1' <<< "$m" && break
    sleep 0.2
  done
  age=$(jv "d['farm'].get('age_s')" <<< "$s" 2> /dev/null)
  "$CUZK_PG_CTL" thaw
  fresh=""
  end=$((SECONDS + 20))
  while [ $SECONDS -lt $end ]; do
    fresh=$(st a | jv "d['farm'].get('stale')" 2> /dev/null)
    [ "$fresh" = False ] && break
    sleep 0.2
  done
  if [ -z "$slow" ] && [ "$stale" = True ] && [ "$fresh" = False ]; then
    ok "frozen_db: status, /status and /metrics answered at once with the farm stale (age_s $age); fresh after the thaw"
  else
    bad "frozen_db: slow '$slow', stale '$stale', after the thaw stale '$fresh'"
  fi
  stop_all
fi

echo "farm faults: $passed passed, $failed failed"
[ "$failed" = 0 ]
