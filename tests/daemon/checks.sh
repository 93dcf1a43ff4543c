# SPDX-License-Identifier: MIT OR Apache-2.0
# The checks of the daemon's test scripts (sourced after $T, the work directory, is set):
#   note MESSAGE           record a problem of the check in progress
#   verdict NAME [LOG...]  ok if nothing was noted since the last verdict, else FAIL with the
#                          problems and the last lines of each $T/LOG.log named
#   eq ACTUAL EXPECTED WHAT
#   has FILE NEEDLE WHAT       FILE contains NEEDLE (a fixed string)
#   hasnt FILE NEEDLE WHAT     FILE does not contain NEEDLE
#   has_text TEXT NEEDLE WHAT  TEXT contains NEEDLE
#   free_port              a free TCP port of 127.0.0.1 (python3, or $PY when set)
# $pass and $fail count the verdicts.
pass=0 fail=0
why=()
note() { why+=("$*"); }
verdict() {
  local name=$1 l
  shift
  if [ ${#why[@]} -eq 0 ]; then
    pass=$((pass + 1)); echo "ok - $name"
  else
    fail=$((fail + 1)); echo "FAIL - $name"
    for l in "${why[@]}"; do echo "    $l"; done
    for l in "$@"; do
      [ -s "$T/$l.log" ] || continue
      echo "    --- last lines of $l.log:"; tail -n 15 "$T/$l.log" | sed 's/^/      /'
    done
  fi
  why=()
}
eq() { [ "$1" = "$2" ] || note "$3: got '$1', expected '$2'"; }
has() { grep -qF -- "$2" "$1" 2>/dev/null || note "$3: '$2' not in: $(head -c 400 "$1" 2>/dev/null | tr '\n' '|')"; }
hasnt() { ! grep -qF -- "$2" "$1" 2>/dev/null || note "$3: '$2' in: $(head -c 400 "$1" 2>/dev/null | tr '\n' '|')"; }
has_text() { [[ $1 == *"$2"* ]] || note "$3: '$2' not in: ${1:0:400}"; }
free_port() { "${PY:-python3}" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
