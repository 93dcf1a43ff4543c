#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Long work on a terminal: `cuzk setup` and `cuzk prove` draw what they are doing with its
# elapsed time on one line of stderr (redrawn, then cleared: "\r\e[K"); off a terminal (a pipe,
# a log) they print only their own lines, without a carriage return or an escape.
#   progress.sh CUZK SOURCE_DIR
set -uo pipefail
CUZK=$1 ROOT=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
command -v script > /dev/null || { echo "skip: no script(1) to run cuzk under a terminal"; exit 77; }
fx=$ROOT/tests/fixtures/bn254/mulchain
esc=$(printf '\r\033[K')

# A terminal: script(1) gives the command one (its output, both streams, goes to the file).
run_tty() { TERM=xterm script -qfec "$1" /dev/null > "$2" 2>&1; }
run_tty "'$CUZK' setup '$fx/circuit.r1cs' '$T/k.zkey' --insecure --seed 1 --device cpu" "$T/setup.tty" ||
  bad "cuzk setup under a terminal failed: $(tail -c 300 "$T/setup.tty")"
if grep -qF "${esc}cuzk: setup of $fx/circuit.r1cs into $T/k.zkey ... " "$T/setup.tty"; then
  ok "setup on a terminal: $(grep -aoF "cuzk: setup of" "$T/setup.tty" | wc -l) redraws of 'setup of ... into ... N s'"
else
  bad "setup on a terminal drew no activity line: $(head -c 300 "$T/setup.tty" | cat -v)"
fi
grep -qF "${esc}cuzk: G1 points" "$T/setup.tty" || bad "setup's own lines are not printed above the activity line"
run_tty "'$CUZK' prove '$T/k.zkey' '$fx/witness.wtns' '$T/p.json' '$T/pub.json' --device cpu" "$T/prove.tty" ||
  bad "cuzk prove under a terminal failed: $(tail -c 300 "$T/prove.tty")"
grep -qF "${esc}cuzk: proving with $T/k.zkey (" "$T/prove.tty" && ok "prove on a terminal: 'proving with KEY (SIZE) ... N s'" ||
  bad "prove on a terminal drew no activity line: $(head -c 300 "$T/prove.tty" | cat -v)"

# Not a terminal: the same commands, stderr to a file.
"$CUZK" setup "$fx/circuit.r1cs" "$T/k2.zkey" --insecure --seed 1 --device cpu 2> "$T/setup.err" > /dev/null ||
  bad "cuzk setup failed: $(tail -n 3 "$T/setup.err")"
"$CUZK" prove "$T/k2.zkey" "$fx/witness.wtns" "$T/p2.json" "$T/pub2.json" --device cpu 2> "$T/prove.err" ||
  bad "cuzk prove failed: $(tail -n 3 "$T/prove.err")"
for f in setup prove; do
  if grep -q $'[\r\033]' "$T/$f.err"; then
    bad "$f off a terminal wrote a carriage return or an escape: $(cat -v "$T/$f.err" | head -n 3)"
  elif grep -q "setup of\|proving with" "$T/$f.err"; then
    bad "$f off a terminal printed its activity line"
  else
    ok "$f off a terminal: only its own lines ($(wc -l < "$T/$f.err") lines, no escape)"
  fi
done
[ "$fails" = 0 ] || exit 1
echo "progress: drawn on a terminal, absent off one"
