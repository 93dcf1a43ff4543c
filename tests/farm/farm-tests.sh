#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Daemons sharing one PostgreSQL queue (run through tests/pg/with-postgres.sh, which provides
# CUZK_PG_DSN and CUZK_PG_CTL): a stream of partitioned jobs spread over three daemons; one
# daemon killed with -9 mid-run and every job still completes (a stale result is refused: test_pg_queue); the
# killed daemon restarted with another device count rejoins and takes work; the database
# restarted mid-run loses nothing that was acknowledged.
#   bash tests/pg/with-postgres.sh bash tests/farm/farm-tests.sh path/to/cuzk
set -uo pipefail
CUZK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${CUZK_PG_DSN:?run through tests/pg/with-postgres.sh}"
T=$(mktemp -d /tmp/cuzk-farm-tests.XXXXXX)
EX=$ROOT/examples/porep-bls12-381
VK=$EX/verification_key.json
passed=0 failed=0
declare -A PID
cleanup() {
  for p in "${PID[@]}"; do kill -9 "$p" 2> /dev/null; done
  wait 2> /dev/null
  [ -n "${CUZK_KEEP_TMP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); for h in a b c; do [ -f "$T/$h.log" ] && tail -n 5 "$T/$h.log" | sed "s/^/    $h: /"; done; }
sql() { psql "$CUZK_PG_DSN" -Atqc "$1" 2> "$T/psql.err"; }
W=$(ls "$EX"/witness_*.wtns | sort -V | paste -sd,)

# daemon NAME DEVICES: starts it (appending to $T/NAME.log); waits until it answers.
daemon() {
  local h=$1 devs=$2 extra=${3:-}
  cat > "$T/$h.toml" <<TOML
[daemon]
listen = "unix://$T/$h.sock"
status_listen = ""
journal = "$T/journal-$h"
shutdown_grace = "1s"
[devices]
list = ["$devs"]
workers_per_device = 2
sim_kernel_ms = 60
[synthesis]
threads = 1
[queue]
backend = "postgres"
dsn = "$CUZK_PG_DSN"
lease = "1.5s"
host_id = "host-$h"
[[circuits]]
id = "porep"
zkey = "$EX/circuit.zkey"
$extra
TOML
  "$CUZK" daemon --config "$T/$h.toml" >> "$T/$h.log" 2>&1 &
  PID[$h]=$!
  for _ in $(seq 100); do
    "$CUZK" status --daemon "unix://$T/$h.sock" > /dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
st() { "$CUZK" status --daemon "unix://$T/$1.sock" 2> /dev/null; }
jv() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# submit_jobs N TAG: N jobs of 10 partitions, submitted to a, b, c in turn (in parallel; every
# other one streamed in pieces); ids in $T/TAG.ids
submit_jobs() {
  local n=$1 tag=$2 i hs=(a b c)
  : > "$T/$tag.ids"
  for ((i = 0; i < n; i++)); do
    local h=${hs[$((i % 3))]}
    [ -S "$T/$h.sock" ] || h=a
    local stream=()
    [ $((i % 2)) = 0 ] && stream=(--stream 1)  # every other job's witnesses in pieces
    ( "$CUZK" submit --daemon "unix://$T/$h.sock" --circuit porep --partitions "$W" --request-id "$tag-$i" "${stream[@]}" 2> /dev/null |
        tail -n 1 > "$T/$tag.$i.id" ) &
  done
  wait $(jobs -p | grep -v -w -e "${PID[a]:-x}" -e "${PID[b]:-x}" -e "${PID[c]:-x}") 2> /dev/null
  for ((i = 0; i < n; i++)); do cat "$T/$tag.$i.id" >> "$T/$tag.ids"; done
}
# await_all TAG DAEMON: awaits every job of TAG through DAEMON, verifies every proof; echoes
# "done/total valid/total" counts
await_all() {
  local tag=$1 h=$2 n=0 done=0 valid=0 id
  while read -r id; do
    n=$((n + 1))
    [[ $id =~ ^j- ]] || continue
    if timeout 120 "$CUZK" await --daemon "unix://$T/$h.sock" "$id" --out "$T/out/$id" > "$T/out-$id.log" 2>&1; then
      done=$((done + 1))
      local args=()
      for k in $(seq 0 9); do args+=("$T/out/$id/public_$k.json" "$T/out/$id/proof_$k.json"); done
      "$CUZK" verify "$VK" "${args[@]}" 2> /dev/null | grep -q "^10 of 10 proofs valid" && valid=$((valid + 1))
    else
      echo "    await $id through $h failed:" >&2
      tail -n 3 "$T/out-$id.log" | sed 's/^/      /' >&2
    fi
  done < "$T/$tag.ids"
  echo "$done/$n $valid/$n"
}

for h in a b c; do daemon $h "sim:1" || { bad "daemon $h did not start"; exit 1; }; done
ok "three daemons on one PostgreSQL queue (host-a, host-b, host-c; sim:1 each)"

# 1. A stream of 9 jobs spread over all three.
t0=$(date +%s.%N)
submit_jobs 9 s1
r=$(await_all s1 b)
t1=$(date +%s.%N)
# Where the partitions ran, from each job's summary.json.
by_host() {
  python3 - "$T"/out/*/summary.json <<'PY'
import collections, json, sys
c = collections.Counter()
for f in sys.argv[1:]:
    for p in json.load(open(f))["partitions"]:
        c[p["device"].split("/")[0]] += 1
print(" ".join(f"{h}={n}" for h, n in sorted(c.items())))
PY
}
hosts=$(by_host)
nhosts=$(echo "$hosts" | wc -w)
if [ "$r" = "9/9 9/9" ] && [ "$nhosts" = 3 ]; then
  ok "1 9 jobs x 10 partitions submitted to three daemons, awaited on one: all done, 90 proofs valid, partitions by host: $hosts ($(awk "BEGIN{printf \"%.1f\", $t1-$t0}") s)"
else
  bad "1 stream: done/valid '$r', hosts used: $nhosts ($hosts)"
fi

# 2. kill -9 one daemon while it holds claims; every job still completes.
rm -rf "$T/out"
submit_jobs 9 s2
for _ in $(seq 100); do
  c=$(sql "SELECT count(*) FROM cuzk_partitions WHERE state = 'claimed' AND claimed_by = 'host-c'")
  [ "${c:-0}" -gt 0 ] && break
  sleep 0.05
done
held=$c
kill -9 "${PID[c]}"
wait "${PID[c]}" 2> /dev/null
unset 'PID[c]'
rm -f "$T/c.sock"
r=$(await_all s2 a)
total=$(sql "SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j USING (job_id) WHERE j.request_id LIKE 's2-%'")
done_all=$(sql "SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j USING (job_id) WHERE j.request_id LIKE 's2-%' AND p.state = 'done'")
retaken=$(sql "SELECT count(*) FROM cuzk_partitions p JOIN cuzk_jobs j USING (job_id) WHERE j.request_id LIKE 's2-%' AND p.attempts > 1")
sa=$(st a | jv "d['farm']['refused_here']") sb=$(st b | jv "d['farm']['refused_here']")
if [ "$r" = "9/9 9/9" ] && [ "$total" = 90 ] && [ "$done_all" = 90 ] && [ "${held:-0}" -gt 0 ] && [ "${retaken:-0}" -ge 1 ]; then
  ok "2 kill -9 of host-c holding $held claims: 9/9 jobs done, 90 proofs valid; $retaken partitions claimed again after its leases expired; all 90 done (stale results refused: a $sa, b $sb)"
else
  bad "2 kill -9: done/valid '$r', partitions $total, done $done_all, held by c $held, claimed again $retaken"
fi

# 3. host-c comes back with three devices and takes work.
daemon c "sim:3" || bad "3 host-c did not restart"
# The farm's view in status is read every second: until it shows host-c's new heartbeat.
for _ in $(seq 50); do
  devs=$(st a | jv "[h['devices'] for h in d['farm']['hosts'] if h['host_id'] == 'host-c'][0]")
  [ "$devs" = '["sim:0","sim:1","sim:2"]' ] && break
  sleep 0.2
done
rm -rf "$T/out"
submit_jobs 6 s3
r=$(await_all s3 c)
cdone=$(st c | jv "d['farm']['completed_here']")
if [ "$r" = "6/6 6/6" ] && [ "$devs" = '["sim:0","sim:1","sim:2"]' ] && [ "${cdone:-0}" -gt 0 ]; then
  ok "3 host-c restarted with sim:3 rejoins (devices $devs) and completed $cdone of 60 partitions; 6/6 jobs valid"
else
  bad "3 rejoin: done/valid '$r', host-c devices '$devs', completed by c '$cdone'"
fi

# 4. The database crashes mid-run and comes back: nothing acknowledged is lost.
rm -rf "$T/out"
submit_jobs 6 s4
acked=$(grep -c '^j-' "$T/s4.ids")
sleep 0.3
"$CUZK_PG_CTL" kill
sleep 1
"$CUZK_PG_CTL" start
r=$(await_all s4 b)
if [ "$acked" = 6 ] && [ "$r" = "6/6 6/6" ]; then
  ok "4 database killed (immediate) and restarted mid-run: the 6 acknowledged jobs all done, 60 proofs valid"
else
  bad "4 database restart: acknowledged $acked, done/valid '$r'"
fi

# 5. host_budget bounds the witnesses a daemon holds: with room for one, one claim at a time.
rcs=""
for h in a b c; do kill -TERM "${PID[$h]}"; wait "${PID[$h]}"; rcs+="$? "; unset "PID[$h]"; done
daemon d "sim:1" $'[memory]\nhost_budget = "40KiB"' || bad "5 daemon d did not start"
id=$("$CUZK" submit --daemon "unix://$T/d.sock" --circuit porep --partitions "$W" 2> /dev/null | tail -n 1)
most=0
for _ in $(seq 40); do
  n=$(sql "SELECT count(*) FROM cuzk_partitions WHERE state = 'claimed' AND claimed_by = 'host-d'")
  [ "${n:-0}" -gt "$most" ] && most=$n
  sleep 0.02
done
if timeout 60 "$CUZK" await --daemon "unix://$T/d.sock" "$id" --out "$T/out-d" > /dev/null 2>&1 && [ "$most" = 1 ]; then
  ok "5 host_budget 40KiB (one 32 KB witness): at most $most claim held at once, the job done"
else
  bad "5 host_budget: at most $most claims held (expected 1), or the job did not finish"
fi
# 6. A farm takes no witness paths (another host may prove the partition).
if "$CUZK" submit --daemon "unix://$T/d.sock" --circuit porep --partitions "$EX/witness_0.wtns" --by-path 1 \
    > /dev/null 2> "$T/bypath.err"; then
  bad "6 a farm daemon accepted a witness path"
elif grep -qF "INVALID_ARGUMENT: a farm takes no witness paths" "$T/bypath.err"; then
  ok "6 a witness path refused by a farm daemon: $(tail -n 1 "$T/bypath.err")"
else
  bad "6 by-path refusal: $(cat "$T/bypath.err")"
fi
PID[a]=${PID[d]}
unset 'PID[d]'

# The daemons stop cleanly.
kill -TERM "${PID[a]}"
wait "${PID[a]}"
rcs+="$?"
unset 'PID[a]'
[ "$rcs" = "0 0 0 0" ] && ok "the four daemons stop with status 0 on SIGTERM" || bad "exit statuses on SIGTERM: $rcs"
echo "farm tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
