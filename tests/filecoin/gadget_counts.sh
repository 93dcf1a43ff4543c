#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Every gadget count of rust-fil-proofs' tests that Filecoin's notes publish, as `cuzk filecoin
# shape GADGET --json` prints it: "constraints" (the circuit's own, as the Rust test counts it)
# and "inputs" (ONE included). Usage: gadget_counts.sh CUZK
set -uo pipefail
cuzk=$1
fails=0 n=0
check() {  # expected-constraints expected-inputs args...
  local want=$1 inputs=$2; shift 2
  local out got gin
  out=$("$cuzk" filecoin shape "$@" --json 2>/dev/null)
  got=$(sed -n 's/.*"constraints": \([0-9]*\).*/\1/p' <<<"$out")
  gin=$(sed -n 's/.*"inputs": \([0-9]*\),.*/\1/p' <<<"$out")
  n=$((n + 1))
  if [ "$got" = "$want" ] && [ "$gin" = "$inputs" ]; then
    echo "ok   $*: $got constraints, $gin inputs"
  else
    echo "FAIL $*: expected $want constraints and $inputs inputs, got '$got' and '$gin' ($out)"
    fails=$((fails + 1))
  fi
}
for a in "2 311" "4 377" "8 505" "11 598" "16 761" "36 1385"; do
  set -- $a
  check "$2" 1 poseidon --arity "$1"
done
check 25840 1 sha256-compress
check 44874 1 sha256 --bits 512
check 45387 1 sha254-leaf
check 532025 1 create-label
for a in "poseidon-2 1887" "poseidon-4 1164" "poseidon-8 1063" "poseidon-8-2 1377" "poseidon-8-8 1593" \
  "poseidon-8-8-2 1907" "sha256-2 272295" "sha256-8 250987"; do
  set -- $a
  check "$2" 3 por --tree "$1"
done
for a in "poseidon-2 1886" "poseidon-4 1163" "poseidon-8 1062"; do
  set -- $a
  check "$2" 2 por --tree "$1" --private-root
done
echo "gadget_counts: $((n - fails)) of $n as published"
[ "$fails" = 0 ]
