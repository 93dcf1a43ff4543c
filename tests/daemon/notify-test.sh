#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The daemon under systemd's notify protocol, started as packaging/cuzk.service starts it (its
# ExecStart, with this build's binary and a test config): a listener on a NOTIFY_SOCKET receives
# STATUS=loading: ... for each step of its start, READY=1 once it answers requests, WATCHDOG=1
# every half of WATCHDOG_USEC while it runs, and STOPPING=1 on SIGTERM, after which the daemon
# exits 0. Its circuit's key is one of
# `cuzk setup --insecure`: the daemon's log must say so.
#   notify-test.sh CUZK SOURCE_DIR
set -uo pipefail
CUZK=$1 ROOT=$2
T=$(mktemp -d)
DPID= LPID=
cleanup() {
  [ -n "$DPID" ] && kill -9 "$DPID" 2> /dev/null
  [ -n "$LPID" ] && kill "$LPID" 2> /dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$T/daemon.log" ] && tail -5 "$T/daemon.log"; exit 1; }

unit=$ROOT/packaging/cuzk.service
grep -q '^Type=notify$' "$unit" || fail "$unit is not Type=notify"
grep -q '^WatchdogSec=' "$unit" || fail "$unit has no WatchdogSec"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[ -n "$exec_start" ] || fail "$unit has no ExecStart"
"$CUZK" setup "$ROOT/tests/fixtures/bn254/mulchain/circuit.r1cs" "$T/insecure.zkey" --insecure --seed 1 --device cpu \
  > "$T/setup.log" 2>&1 || fail "cuzk setup: $(tail -2 "$T/setup.log")"
cat > "$T/cuzk.toml" << EOF2
[daemon]
listen = "unix://$T/d.sock"
journal = "$T/journal"
[devices]
list = ["cpu"]
[[circuits]]
id = "mul"
zkey = "$T/insecure.zkey"
EOF2
# shellcheck disable=SC2206
cmd=(${exec_start//\/usr\/bin\/cuzk/$CUZK})
cmd=("${cmd[@]//\/etc\/cuzk\/cuzk.toml/$T/cuzk.toml}")
echo "ExecStart as run: ${cmd[*]}"

python3 - "$T/notify.sock" "$T/messages" << 'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        data = s.recv(4096).decode()
        for line in data.split("\n"):
            out.write("%.3f %s\n" % (time.monotonic(), line))
PY
LPID=$!
for _ in $(seq 50); do [ -S "$T/notify.sock" ] && break; sleep 0.1; done
[ -S "$T/notify.sock" ] || fail "the notify listener did not start"

NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=400000 "${cmd[@]}" > "$T/daemon.log" 2>&1 &
DPID=$!
for _ in $(seq 300); do grep -q ' READY=1$' "$T/messages" 2> /dev/null && break; sleep 0.1; done
grep -q ' READY=1$' "$T/messages" || fail "no READY=1 within 30 s"
"$CUZK" status --daemon "unix://$T/d.sock" > "$T/status.json" 2>&1 || fail "READY=1 sent, but the daemon does not answer"
grep -q '^[0-9.]* MAINPID='"$DPID"'$' "$T/messages" || fail "READY without MAINPID=$DPID: $(cat "$T/messages")"
echo "ok   READY=1 (MAINPID $DPID), and the daemon answers status"
loading=$(grep -n " STATUS=loading: circuit 'mul' (1 of 1): reading $T/insecure.zkey" "$T/messages" | head -n 1 | cut -d: -f1)
ready=$(grep -n ' READY=1$' "$T/messages" | head -n 1 | cut -d: -f1)
[ -n "$loading" ] && [ "$loading" -lt "$ready" ] || fail "no STATUS=loading: circuit 'mul' ... before READY=1: $(cat "$T/messages")"
echo "ok   STATUS says what is loading before READY=1: $(sed -n "${loading}p" "$T/messages" | cut -d' ' -f2- | cut -c1-100)"
grep -q "warning: circuit 'mul': .*insecure" "$T/daemon.log" || fail "no insecure-key warning in the daemon's log"
echo "ok   $(grep -m1 "insecure" "$T/daemon.log" | cut -c1-140)"
sleep 1.5
n=$(grep -c ' WATCHDOG=1$' "$T/messages")
[ "$n" -ge 3 ] || fail "$n WATCHDOG=1 in 1.5 s with WATCHDOG_USEC=400000 (every 0.2 s expected)"
echo "ok   $n WATCHDOG=1 pings"
kill -TERM "$DPID"
rc=0
wait "$DPID" || rc=$?
DPID=
[ "$rc" = 0 ] || fail "the daemon exited $rc after SIGTERM"
grep -q ' STOPPING=1$' "$T/messages" || fail "no STOPPING=1 after SIGTERM"
echo "ok   STOPPING=1 on SIGTERM, exit 0"
echo "notify: the unit's ExecStart under systemd's notify protocol: READY, WATCHDOG, STOPPING"
