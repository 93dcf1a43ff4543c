#!/usr/bin/env bash
# Every gadget circuit's rows are as recorded: `cuzk filecoin fingerprint` (a SHA-256 digest per
# block of 2^12 rows and of the whole circuit) against the file of each case here. A change to
# any row, its terms' order or a coefficient shows as a differing block.
#   bash tests/golden/fingerprints/check.sh CUZK            (compare)
#   bash tests/golden/fingerprints/check.sh CUZK --update   (rewrite the files)
set -uo pipefail
CUZK=${1:?usage: check.sh CUZK [--update]}
DIR=$(cd "$(dirname "$0")" && pwd)
cases=(
  "sha256-512:sha256 --bits 512"
  "sha256-compress:sha256-compress"
  "sha254-leaf:sha254-leaf"
  "create-label:create-label"
  "poseidon-2:poseidon --arity 2"
  "poseidon-4:poseidon --arity 4"
  "poseidon-8:poseidon --arity 8"
  "poseidon-11:poseidon --arity 11"
  "poseidon-4-custom-1:poseidon --arity 4 --tag custom:1"
  "por-poseidon-8:por --tree poseidon-8"
  "por-poseidon-8-8:por --tree poseidon-8-8"
  "por-poseidon-8-8-2:por --tree poseidon-8-8-2"
  "por-poseidon-2-private-root:por --tree poseidon-2 --private-root"
  "por-sha256-8:por --tree sha256-8"
  "column-hash-2:column-hash --layers 2"
  "column-hash-11:column-hash --layers 11"
  "snap-1kib:snap --sector-size 1KiB --block-log2 16"
  "snap-2kib:snap --sector-size 2KiB --block-log2 16"
  "snap-8kib:snap --sector-size 8KiB --block-log2 16"
  "snap-32kib:snap --sector-size 32KiB --block-log2 16"
  "snap-poseidon-1kib:snap --sector-size 1KiB --poseidon"
  "snap-poseidon-8kib:snap --sector-size 8KiB --poseidon"
  "fallback-post-8-0-0:fallback-post --tree 8-0-0 --base-leaves 64 --sectors 3 --challenges 5"
)
bad=0
for c in "${cases[@]}"; do
  name=${c%%:*}
  read -r -a args <<< "${c#*:}"
  got=$("$CUZK" filecoin fingerprint "${args[@]}") || { echo "fingerprint $name: cuzk failed"; bad=1; continue; }
  if [ "${2:-}" = "--update" ]; then
    printf '%s\n' "$got" > "$DIR/$name.txt"
    echo "wrote $name.txt"
  elif ! diff <(printf '%s\n' "$got") "$DIR/$name.txt" > /dev/null; then
    echo "fingerprint $name: differs from $name.txt:"
    diff <(printf '%s\n' "$got") "$DIR/$name.txt" | head -20
    bad=1
  else
    echo "fingerprint $name: as recorded ($(tail -1 "$DIR/$name.txt"))"
  fi
done
exit $bad
