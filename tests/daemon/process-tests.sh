#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The daemon as a process and the files the commands write, one group of checks per run:
#   ports     a gRPC or status address, or a journal, held by a live daemon: a second daemon
#             refuses to start, naming it, and touches nothing; a restarted daemon rebinds at once
#   sighup    SIGHUP does not stop the daemon: it reopens daemon.log_file, else it is logged
#   http      /metrics answers within 1 s beside 50 idle connections, and right after 50 new ones
#             opened at once; status_auth needs the token
#   outputs   prove, setup and gen-circuit refuse an output that is a FIFO or a symlink, before work
#   requests  witness paths with a NUL byte, a second stream header, a daemon without circuits,
#             stream errors without journal paths, the boolean spellings of --by-path and
#             --stream, a reused request_id (ALREADY_EXISTS), await --out onto a FIFO
#
# usage: bash tests/daemon/process-tests.sh path/to/cuzk path/to/raw_client GROUP
# Prints "ok - ..." or "FAIL - ..." per check; exits 0 only if every check passed.
set -u
set -o pipefail

CUZK=${1:?usage: process-tests.sh path/to/cuzk path/to/raw_client GROUP}
RAW=${2:?usage: process-tests.sh path/to/cuzk path/to/raw_client GROUP}
GROUP=${3:?usage: process-tests.sh path/to/cuzk path/to/raw_client GROUP}
case $CUZK in /*) ;; *) CUZK=$PWD/$CUZK ;; esac
case $RAW in /*) ;; *) RAW=$PWD/$RAW ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BLS=$ROOT/examples/porep-bls12-381
unset CUZK_TOKEN CUZK_STATUS_LISTEN

T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-process-tests.XXXXXX") || exit 2
DAEMONS=()
cleanup() {
  local running p
  running=" $(jobs -p | tr '\n' ' ') "
  for p in "${DAEMONS[@]}"; do [[ $running == *" $p "* ]] && kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  if [ -n "${CUZK_KEEP_TMP:-}" ]; then echo "work directory kept: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

source "$HERE/checks.sh"

# conf FILE LISTEN JOURNAL STATUS [extra [daemon] lines...]: one circuit (porep-bls, with its
# r1cs), one simulated device; STATUS is HOST:PORT or "" (none).
conf() {
  local file=$1 listen=$2 journal=$3 st=$4 x; shift 4
  {
    echo "[daemon]"
    echo "listen = \"$listen\""
    echo "status_listen = \"$st\""
    echo "journal = \"$journal\""
    for x in "$@"; do echo "$x"; done
    echo "[devices]"
    echo "list = [\"sim:1\"]"
    echo "workers_per_device = 1"
    echo "[synthesis]"
    echo "threads = 1"
    echo "[[circuits]]"
    echo "id = \"porep-bls\""
    echo "zkey = \"$BLS/circuit.zkey\""
    echo "r1cs = \"$BLS/circuit.r1cs\""
  } > "$file"
}

client() { timeout 60 "$CUZK" "$@"; }

# start_daemon NAME CONFIG ADDR [TOKEN]: in the background (stderr to $T/NAME.log); sets DPID;
# returns 0 once `cuzk status` answers (30 s at most).
DPID=
start_daemon() {
  local name=$1 cfg=$2 addr=$3 tok=${4:-} i rc
  "$CUZK" daemon --config "$cfg" >> "$T/$name.out" 2>> "$T/$name.log" &
  DPID=$!
  DAEMONS+=("$DPID")
  for ((i = 0; i < 150; i++)); do
    if timeout 10 "$CUZK" status --daemon "$addr" ${tok:+--token "$tok"} > /dev/null 2>&1; then return 0; fi
    if ! kill -0 "$DPID" 2>/dev/null; then
      wait "$DPID"; rc=$?
      note "daemon $name exited with $rc while starting"; return 1
    fi
    sleep 0.2
  done
  note "daemon $name did not answer within 30 s"
  return 1
}
# stop_daemon PID: SIGTERM and wait (kill -9 after 30 s); STOP_RC = its exit status or "hung".
STOP_RC=
stop_daemon() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; wait "$pid" 2>/dev/null; STOP_RC=hung; return 1; fi
  wait "$pid"; STOP_RC=$?
}
# refused NAME CONFIG NEEDLE: the daemon must exit non-zero, its error naming NEEDLE, without
# having logged "serving on" (30 s at most).
refused() {
  local name=$1 cfg=$2 needle=$3 pid i rc
  "$CUZK" daemon --config "$cfg" > "$T/$name.out" 2> "$T/$name.log" &
  pid=$!
  DAEMONS+=("$pid")
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    if grep -q "serving on" "$T/$name.log"; then
      note "daemon $name started: $(grep "serving on" "$T/$name.log" | head -n 1 | cut -c 1-160)"
      kill -9 "$pid"; wait "$pid" 2>/dev/null
      return 1
    fi
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid"; wait "$pid" 2>/dev/null; note "daemon $name neither started nor exited within 30 s"; return 1
  fi
  wait "$pid"; rc=$?
  [ "$rc" != 0 ] || note "daemon $name exited 0"
  has "$T/$name.log" "$needle" "error of daemon $name"
}

group_ports() {
  local tok=tok-$RANDOM$RANDOM pa sa pb sb pc a apid
  pa=$(free_port) sa=$(free_port) pb=$(free_port) sb=$(free_port) pc=$(free_port)
  a=127.0.0.1:$pa
  mkdir -p "$T/ja" "$T/jb" "$T/jc" "$T/jd"
  conf "$T/a.toml" "$a" "$T/ja" "127.0.0.1:$sa" "token = \"$tok\""
  start_daemon a "$T/a.toml" "$a" "$tok"
  apid=$DPID
  verdict "daemon A on $a, status on 127.0.0.1:$sa" a

  conf "$T/b.toml" "$a" "$T/jb" "127.0.0.1:$sb" "token = \"$tok\""
  refused b "$T/b.toml" "$a"
  verdict "a second daemon on A's gRPC address $a refuses to start, naming it" b

  conf "$T/c.toml" "127.0.0.1:$pc" "$T/jc" "127.0.0.1:$sa" "token = \"$tok\""
  refused c "$T/c.toml" "127.0.0.1:$sa"
  verdict "a second daemon on A's status address 127.0.0.1:$sa refuses to start, naming it" c

  # The journal: a second daemon refuses before it reads, creates or removes anything there
  # (left-overs it would clean up at start stay as they are).
  mkdir -p "$T/ja/incoming/u-1"
  echo x > "$T/ja/incoming/u-1/p0.wtns"
  echo x > "$T/ja/j-0000000000000000.job.tmp"
  find "$T/ja" -printf '%p %y %s %T@\n' | sort > "$T/ja.before"
  conf "$T/d.toml" "unix://$T/d.sock" "$T/ja" "127.0.0.1:$(free_port)"
  refused d "$T/d.toml" "journal $T/ja is in use by another cuzk daemon"
  find "$T/ja" -printf '%p %y %s %T@\n' | sort > "$T/ja.after"
  cmp -s "$T/ja.before" "$T/ja.after" || note "the journal changed: $(diff "$T/ja.before" "$T/ja.after" | tr '\n' '|')"
  [ -e "$T/ja/incoming/u-1/p0.wtns" ] || note "the refused daemon removed an upload of the journal"
  [ ! -e "$T/d.sock" ] || note "the refused daemon left its socket $T/d.sock"
  rm -rf "$T/ja/incoming/u-1" "$T/ja/j-0000000000000000.job.tmp"
  verdict "a second daemon on A's journal refuses before touching it" d

  # A still serves alone; stopped, it starts again at once on the same addresses (connections
  # of the last minutes in TIME_WAIT do not hold the ports).
  client status --daemon "$a" --token "$tok" > /dev/null 2>&1 || note "daemon A does not answer any more"
  curl -sS -m 5 "http://127.0.0.1:$sa/metrics" > /dev/null 2>&1 || note "A's /metrics does not answer"
  stop_daemon "$apid"
  eq "$STOP_RC" 0 "exit status of A on SIGTERM"
  start_daemon a "$T/a.toml" "$a" "$tok" && stop_daemon "$DPID"
  verdict "daemon A restarts at once on $a and 127.0.0.1:$sa" a
}

group_sighup() {
  local s sock
  sock=$T/h1.sock
  mkdir -p "$T/jh1" "$T/jh2"
  conf "$T/h1.toml" "unix://$sock" "$T/jh1" ""
  start_daemon h1 "$T/h1.toml" "unix://$sock"
  s=$DPID
  kill -HUP "$s"
  for ((i = 0; i < 100; i++)); do grep -q SIGHUP "$T/h1.log" && break; kill -0 "$s" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$s" 2>/dev/null; then
    has "$T/h1.log" "SIGHUP" "log after SIGHUP"
    client status --daemon "unix://$sock" > /dev/null 2>&1 || note "no status after SIGHUP"
    stop_daemon "$s"
    eq "$STOP_RC" 0 "exit status on SIGTERM after SIGHUP"
  else
    wait "$s"; note "SIGHUP stopped the daemon (exit $?)"
  fi
  [ ! -e "$sock" ] || note "socket $sock left behind"
  verdict "SIGHUP without daemon.log_file: logged, the daemon keeps serving, SIGTERM then exits 0" h1

  sock=$T/h2.sock
  conf "$T/h2.toml" "unix://$sock" "$T/jh2" "" "log_file = \"$T/h2-file.log\""
  start_daemon h2 "$T/h2.toml" "unix://$sock"
  s=$DPID
  has "$T/h2-file.log" "serving on" "the log file"
  mv "$T/h2-file.log" "$T/h2-file.log.1"
  kill -HUP "$s"
  for ((i = 0; i < 100; i++)); do grep -q SIGHUP "$T/h2-file.log" 2>/dev/null && break; kill -0 "$s" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$s" 2>/dev/null; then
    has "$T/h2-file.log" "SIGHUP: reopened the log file" "the new log file"
    hasnt "$T/h2-file.log.1" "reopened" "the rotated log file"
    client status --daemon "unix://$sock" > /dev/null 2>&1 || note "no status after SIGHUP"
    stop_daemon "$s"
    eq "$STOP_RC" 0 "exit status on SIGTERM"
    has "$T/h2-file.log" "stopped" "the new log file at the end"
  else
    wait "$s"; note "SIGHUP stopped the daemon (exit $?)"
  fi
  verdict "SIGHUP with daemon.log_file: the log file is reopened (rotation), the daemon keeps serving" h2
}

# scrape_beside_idle URL [TOKEN]: 50 idle connections (25 silent, 25 stopped mid-request) are
# held open while /metrics is fetched three times; each must answer 200 within 1 s.
scrape_beside_idle() {
  python3 - "$1" "${2:-}" <<'EOF'
import socket, sys, time, urllib.request
url, token = sys.argv[1], sys.argv[2]
host, port = url.split('/')[2].split(':')
idle = []
for i in range(50):
    s = socket.create_connection((host, int(port)), timeout=5)
    if i % 2:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
    idle.append(s)
time.sleep(0.2)
worst = 0.0
for _ in range(3):
    q = urllib.request.Request(url, headers={"Authorization": "Bearer " + token} if token else {})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(q, timeout=5) as r:
            code = r.status
            r.read()
    except Exception as e:
        print("scrape failed after %.2f s: %s" % (time.monotonic() - t0, e)); sys.exit(1)
    dt = time.monotonic() - t0
    worst = max(worst, dt)
    if code != 200 or dt > 1.0:
        print("scrape: HTTP %d after %.2f s" % (code, dt)); sys.exit(1)
print("worst scrape %.3f s beside 50 idle connections" % worst)
EOF
}
# scrape_after_burst URL: 40 times, 50 connections opened at once (as a restarted daemon sees
# from clients that reconnect together), then /metrics fetched at once; each fetch must answer
# 200 within 1 s (a listen backlog shorter than the burst drops handshakes: 1 s retransmits).
scrape_after_burst() {
  python3 - "$1" <<'EOF'
import socket, sys, time, urllib.request
url = sys.argv[1]
host, port = url.split('/')[2].split(':')
worst, slow = 0.0, 0
for _ in range(40):
    burst = []
    for i in range(50):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect((host, int(port)))
        except BlockingIOError:
            pass
        burst.append(s)
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            code = r.status
            r.read()
    except Exception as e:
        print("scrape failed after %.2f s: %s" % (time.monotonic() - t0, e)); sys.exit(1)
    dt = time.monotonic() - t0
    worst = max(worst, dt)
    slow += code != 200 or dt > 1.0
    for s in burst:
        s.close()
    time.sleep(0.2)
print("worst scrape %.3f s after a burst of 50 connections, %d of 40 over 1 s" % (worst, slow))
sys.exit(1 if slow else 0)
EOF
}
# http_code URL [AUTH_HEADER]: the status code of a GET
http_code() { curl -s -o /dev/null -m 5 -w '%{http_code}' ${2:+-H "$2"} "$1"; }

group_http() {
  local tok=tok-$RANDOM$RANDOM sp s url
  mkdir -p "$T/jx" "$T/jy"
  sp=$(free_port)
  conf "$T/x.toml" "unix://$T/x.sock" "$T/jx" "127.0.0.1:$sp"
  start_daemon x "$T/x.toml" "unix://$T/x.sock"
  s=$DPID
  scrape_beside_idle "http://127.0.0.1:$sp/metrics" > "$T/idle.out" 2>&1 || note "$(cat "$T/idle.out")"
  verdict "/metrics answers within 1 s beside 50 idle connections ($(tail -n 1 "$T/idle.out"))" x
  scrape_after_burst "http://127.0.0.1:$sp/metrics" > "$T/burst.out" 2>&1 || note "$(cat "$T/burst.out")"
  stop_daemon "$s"
  eq "$STOP_RC" 0 "exit status on SIGTERM"
  verdict "/metrics answers within 1 s right after 50 connections opened at once ($(tail -n 1 "$T/burst.out"))" x

  sp=$(free_port)
  url=http://127.0.0.1:$sp
  conf "$T/y.toml" "unix://$T/y.sock" "$T/jy" "127.0.0.1:$sp" "token = \"$tok\"" "status_auth = true"
  start_daemon y "$T/y.toml" "unix://$T/y.sock" "$tok"
  s=$DPID
  for p in /metrics /status; do
    eq "$(http_code "$url$p")" 401 "GET $p without a token"
    eq "$(http_code "$url$p" "Authorization: Bearer not-$tok")" 401 "GET $p with a wrong token"
    eq "$(http_code "$url$p" "Authorization: Bearer $tok")" 200 "GET $p with the token"
  done
  scrape_beside_idle "$url/metrics" "$tok" > "$T/idle2.out" 2>&1 || note "$(cat "$T/idle2.out")"
  stop_daemon "$s"
  verdict "status_auth = true: /metrics and /status need the daemon's token" y

  conf "$T/z.toml" "unix://$T/z.sock" "$T/jy" "127.0.0.1:$(free_port)" "status_auth = true"
  refused z "$T/z.toml" "status_auth"
  verdict "status_auth = true without a token is refused" z
}

# fifo_untouched PATH: PATH is still a FIFO
fifo_untouched() { [ -p "$1" ] || note "$1 is not a FIFO any more ($(stat -c %F "$1" 2>&1))"; }
# refuses_output NAME NEEDLE -- cuzk ARGS: exit 1, stderr names NEEDLE and says why
refuses_output() {
  local name=$1 needle=$2 rc; shift 3
  "$CUZK" "$@" > "$T/$name.out" 2> "$T/$name.err"; rc=$?
  eq "$rc" 1 "exit status of cuzk $1"
  has "$T/$name.err" "$needle" "error"
  has "$T/$name.err" "not a regular file" "error"
}

group_outputs() {
  local d=$T/out
  mkdir -p "$d"
  mkfifo "$d/fifo.json"
  # The witness does not exist: the output is refused first, before anything is read or proved.
  refuses_output fifo "$d/fifo.json" -- prove "$BLS/circuit.zkey" "$T/no-such.wtns" "$d/fifo.json" "$d/public.json"
  fifo_untouched "$d/fifo.json"
  [ ! -e "$d/public.json" ] || note "public.json was written"
  verdict "prove refuses a FIFO as proof.json before proving ($(head -n 1 "$T/fifo.err"))"

  echo KEEP > "$d/target.json"
  ln -s "$d/target.json" "$d/link.json"
  refuses_output link "$d/link.json" -- prove "$BLS/circuit.zkey" "$BLS/witness_0.wtns" "$d/proof.json" "$d/link.json"
  [ -L "$d/link.json" ] || note "$d/link.json is not a symlink any more"
  eq "$(cat "$d/target.json")" KEEP "the link's target"
  [ ! -e "$d/proof.json" ] || note "proof.json was written"
  verdict "prove refuses a symlink as public.json ($(head -n 1 "$T/link.err"))"

  refuses_output bin "$d/fifo.json" -- prove "$BLS/circuit.zkey" "$BLS/witness_0.wtns" "$d/p.json" "$d/q.json" \
    --proof-bin "$d/fifo.json"
  fifo_untouched "$d/fifo.json"
  mkdir -p "$d/parts"
  mkfifo "$d/parts/summary.json"
  refuses_output parts "$d/parts/summary.json" -- prove "$BLS/circuit.zkey" --partitions "$T/no-such.wtns" \
    --out "$d/parts" --device cpu
  fifo_untouched "$d/parts/summary.json"
  verdict "prove --proof-bin and prove --partitions --out refuse a FIFO among their outputs"

  refuses_output setup "$d/fifo.json" -- setup "$BLS/circuit.r1cs" "$d/fifo.json" --insecure --device cpu --quiet
  fifo_untouched "$d/fifo.json"
  mkdir -p "$d/gen"
  ln -s "$d/target.json" "$d/gen/witness_0.wtns"
  refuses_output gen "$d/gen/witness_0.wtns" -- gen-circuit --shape porep --log-n 10 --curve bn254 --out "$d/gen" \
    --device cpu --quiet
  [ -L "$d/gen/witness_0.wtns" ] || note "$d/gen/witness_0.wtns is not a symlink any more"
  eq "$(cat "$d/target.json")" KEEP "the link's target"
  [ ! -e "$d/gen/circuit.r1cs" ] || note "gen-circuit wrote circuit.r1cs before refusing"
  verdict "setup and gen-circuit refuse a FIFO or a symlink among their outputs, before writing any"

  "$CUZK" prove "$BLS/circuit.zkey" "$BLS/witness_0.wtns" "$d/p.json" "$d/target.json" --quiet > "$T/ok.err" 2>&1 ||
    note "prove onto a regular file failed: $(cat "$T/ok.err")"
  grep -q KEEP "$d/target.json" && note "the regular file was not replaced"
  verdict "prove still replaces a regular file"
}

group_requests() {
  local r wd tok2 s
  wd=$T/wd
  mkdir -p "$wd" "$T/jr"
  cp "$BLS/witness_0.wtns" "$BLS/witness_1.wtns" "$wd/"
  r=unix://$T/r.sock
  conf "$T/r.toml" "$r" "$T/jr" "" "witness_dirs = [\"$wd\"]"
  start_daemon r "$T/r.toml" "$r"
  s=$DPID
  verdict "daemon R starts" r

  "$RAW" "$r" nul-path porep-bls "$wd/witness_0.wtns" "x" > "$T/nul.out" 2>&1
  has "$T/nul.out" "INVALID_ARGUMENT: " "a witness path with a NUL byte"
  has "$T/nul.out" "NUL" "a witness path with a NUL byte"
  verdict "a witness path with a NUL byte is refused ($(cat "$T/nul.out"))" r

  "$RAW" "$r" second-header porep-bls "$BLS/witness_0.wtns" > "$T/hdr.out" 2>&1
  has "$T/hdr.out" "INVALID_ARGUMENT: " "a stream with two headers"
  has "$T/hdr.out" "header" "a stream with two headers"
  verdict "a stream whose header comes twice is refused ($(cat "$T/hdr.out"))" r

  client submit --daemon "$r" --circuit porep-bls --partitions "$wd/witness_0.wtns" --by-path yes > "$T/by1.out" \
    2> "$T/by1.err" || note "submit --by-path yes failed: $(cat "$T/by1.err")"
  has "$T/by1.err" "read in place by the daemon" "submit --by-path yes"
  client submit --daemon "$r" --circuit porep-bls --partitions "$wd/witness_0.wtns" --by-path true > "$T/by2.out" \
    2> "$T/by2.err" || note "submit --by-path true failed: $(cat "$T/by2.err")"
  has "$T/by2.err" "read in place by the daemon" "submit --by-path true"
  client submit --daemon "$r" --circuit porep-bls --partitions "$BLS/witness_0.wtns" --stream true > "$T/st.out" \
    2> "$T/st.err" || note "submit --stream true failed: $(cat "$T/st.err")"
  has "$T/st.err" "streamed" "submit --stream true"
  client submit --daemon "$r" --circuit porep-bls --partitions "$BLS/witness_0.wtns" --stream off --by-path no \
    > "$T/off.out" 2> "$T/off.err" || note "submit --stream off --by-path no failed: $(cat "$T/off.err")"
  hasnt "$T/off.err" "streamed" "submit --stream off"
  hasnt "$T/off.err" "read in place" "submit --by-path no"
  for v in maybe 2 ""; do
    client submit --daemon "$r" --circuit porep-bls --partitions "$BLS/witness_0.wtns" --stream "$v" > /dev/null \
      2> "$T/bad.err"
    eq "$?" 2 "exit status of --stream '$v'"
    has "$T/bad.err" "--stream" "usage error of --stream '$v'"
  done
  client submit --daemon "$r" --circuit porep-bls --partitions "$BLS/witness_0.wtns" --by-path maybe > /dev/null \
    2> "$T/bad.err"
  eq "$?" 2 "exit status of --by-path maybe"
  has "$T/bad.err" "--by-path: expected" "usage error of --by-path maybe"
  verdict "--by-path and --stream take 1/0, true/false, yes/no, on/off, and refuse anything else" r

  client submit --daemon "$r" --circuit porep-bls --partitions "$BLS/witness_0.wtns" --request-id rid > /dev/null \
    2> "$T/rid1.err" || note "first submit with request id rid failed: $(cat "$T/rid1.err")"
  client submit --daemon "$r" --circuit porep-bls --partitions "$BLS/witness_1.wtns" --request-id rid > /dev/null \
    2> "$T/rid2.err" && note "a reused request id with other witnesses was accepted"
  has "$T/rid2.err" "ALREADY_EXISTS: request_id 'rid' was used for another request" "reused request id"
  verdict "a request_id reused for another request gets ALREADY_EXISTS ($(head -n 1 "$T/rid2.err"))" r

  mkdir -p "$T/aw"
  mkfifo "$T/aw/proof_0.json"
  client await --daemon "$r" --request-id rid --out "$T/aw" > "$T/aw.out" 2>&1 && note "await --out onto a FIFO exited 0"
  has "$T/aw.out" "$T/aw/proof_0.json" "await --out onto a FIFO"
  has "$T/aw.out" "not a regular file" "await --out onto a FIFO"
  fifo_untouched "$T/aw/proof_0.json"
  verdict "await --out refuses a FIFO among its files ($(tail -n 1 "$T/aw.out"))" r

  # A failed write of a streamed piece: the client is told what failed, not where.
  rm -rf "$T/jr/incoming"
  echo x > "$T/jr/incoming"
  client submit --daemon "$r" --circuit porep-bls --partitions "$BLS/witness_0.wtns" --stream 1 > /dev/null \
    2> "$T/se.err" && note "a stream was accepted while its pieces could not be stored"
  has "$T/se.err" "UNAVAILABLE: " "stream error"
  has "$T/se.err" "streamed witnesses" "stream error"
  hasnt "$T/se.err" "$T/jr" "stream error"
  rm -f "$T/jr/incoming"
  has "$T/r.log" "$T/jr/incoming" "the daemon's log of the stream error"
  verdict "a stream error tells the client what failed without the journal's paths ($(head -n 1 "$T/se.err"))" r

  # A witness that does not satisfy the constraints: the job fails naming the .r1cs checked.
  cp "$BLS/witness_0.wtns" "$T/bad.wtns"
  python3 - "$T/bad.wtns" <<'EOF'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
b[-32] ^= 1  # the last value's lowest bit: an internal wire, still a reduced value
open(p, 'wb').write(bytes(b))
EOF
  j=$(client submit --daemon "$r" --circuit porep-bls --partitions "$T/bad.wtns" 2> /dev/null | tail -n 1)
  client await --daemon "$r" "$j" --out "$T/badout" > "$T/bad-await.out" 2>&1 && note "the job of a bad witness was done"
  has "$T/bad-await.out" "does not satisfy constraint" "failure of the bad witness"
  has "$T/bad-await.out" "of $BLS/circuit.r1cs" "failure of the bad witness"
  verdict "a witness failing a constraint: the failure names the .r1cs ($(grep -o 'does not satisfy.*' "$T/bad-await.out" | head -n 1))" r
  stop_daemon "$s"

  # A configuration without circuits serves nothing: refused.
  {
    echo "[daemon]"
    echo "listen = \"unix://$T/e.sock\""
    echo "status_listen = \"\""
    echo "journal = \"$T/je\""
    echo "[devices]"
    echo "list = [\"sim:1\"]"
  } > "$T/e.toml"
  refused e "$T/e.toml" "no circuits"
  [ ! -e "$T/je" ] || note "the refused daemon created its journal $T/je"
  verdict "a configuration without circuits is refused ($(grep -m 1 error "$T/e.log" | cut -c 1-140))" e
}

case $GROUP in
  ports | sighup | http | outputs | requests) "group_$GROUP" ;;
  *) echo "unknown group '$GROUP' (ports, sighup, http, outputs, requests)" >&2; exit 2 ;;
esac
echo "process tests ($GROUP): $pass passed, $fail failed"
[ $fail = 0 ]
