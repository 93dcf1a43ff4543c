#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `cuzk completion bash`: the script loads in bash, and its function, called as bash calls it
# (COMP_WORDS, COMP_CWORD), offers command names word by word, each command's own options, file
# names for paths and option values, and command names after `help`.
set -u
CUZK=${1:?usage: completion.sh path/to/cuzk}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
if ! "$CUZK" completion bash > "$T/cuzk.bash" 2> "$T/err"; then
  echo "FAIL cuzk completion bash exited non-zero"; cat "$T/err"; exit 1
fi
# shellcheck disable=SC1091
source "$T/cuzk.bash" || { echo "FAIL the script does not load in bash"; exit 1; }
complete -p cuzk > /dev/null 2>&1 || { echo "FAIL the script registers no completion for cuzk"; exit 1; }

# completions WORD... : what the function offers for the last word (the one being completed),
# sorted, one line.
completions() {
  COMP_WORDS=(cuzk "$@"); COMP_CWORD=$#; COMPREPLY=()
  _cuzk_complete
  printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'
}
# expect_exact DESCRIPTION EXPECTED -- WORDS
expect_exact() {
  local what=$1 want=$2; shift 3
  local got; got=$(completions "$@")
  if [ "$got" = "$want" ]; then pass=$((pass+1)); echo "ok   $what: cuzk $* -> $got"
  else fail=$((fail+1)); echo "FAIL $what: cuzk $*: got '$got', expected '$want'"; fi
}
# expect_has / expect_lacks DESCRIPTION WORD -- WORDS
expect_has() {
  local what=$1 word=$2; shift 3
  local got; got=" $(completions "$@") "
  if [[ "$got" == *" $word "* ]]; then pass=$((pass+1)); echo "ok   $what: cuzk $* offers $word"
  else fail=$((fail+1)); echo "FAIL $what: cuzk $* does not offer $word (got:$got)"; fi
}
expect_lacks() {
  local what=$1 word=$2; shift 3
  local got; got=" $(completions "$@") "
  if [[ "$got" != *" $word "* ]]; then pass=$((pass+1)); echo "ok   $what: cuzk $* does not offer $word"
  else fail=$((fail+1)); echo "FAIL $what: cuzk $* offers $word"; fi
}

expect_exact "command names" "prove prover" -- pro
expect_exact "the first word of a name of several" "zkey" -- zk
expect_exact "the next word" "export" -- zkey ""
expect_exact "the last word" "verificationkey" -- zkey export v
expect_has "every command" completion -- ""
expect_has "every command" zkey -- ""
expect_has "every command" gen-circuit -- ""
expect_lacks "the first word only" export -- ""
expect_exact "prover's options" "--device --devices" -- prover --dev
expect_exact "a flag of prove" "--no-verify" -- prove z.zkey --no-v
expect_lacks "no option of another command" --partitions -- prover --
expect_has "prove's options" --partitions -- prove --
expect_has "--help everywhere" --help -- zkey export verificationkey --
expect_exact "help takes command names" "prove prover" -- help pro
expect_exact "help: the words of a name of several" "export" -- help zkey e
# Paths: file names, for positional arguments and for the value of an option that takes one.
mkdir -p "$T/files"; touch "$T/files/circuit.zkey" "$T/files/witness.wtns"
expect_exact "a positional path" "$T/files/circuit.zkey" -- prove "$T/files/c"
expect_exact "an option's value" "$T/files/witness.wtns" -- prove --r1cs "$T/files/w"
expect_exact "after a whole command" "$T/files/circuit.zkey" -- zkey export verificationkey "$T/files/ci"
# The script is the command table's: a command of this build is there with its options.
if grep -q "'zkey export verificationkey')" "$T/cuzk.bash" && grep -q -- "--proof-bin" "$T/cuzk.bash"; then
  pass=$((pass+1)); echo "ok   the script holds the command table"
else
  fail=$((fail+1)); echo "FAIL the script lacks zkey export verificationkey or prove's --proof-bin"
fi
"$CUZK" completion zsh > "$T/out" 2> "$T/err"; rc=$?
if [ $rc = 2 ] && grep -qF "only bash" "$T/err"; then pass=$((pass+1)); echo "ok   completion zsh: $(head -n1 "$T/err")"
else fail=$((fail+1)); echo "FAIL completion zsh (exit $rc)"; fi

echo "completion: $pass passed, $fail failed"
[ $fail = 0 ]
