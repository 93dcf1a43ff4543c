#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# No path of the machine that built cuzk is in what it installs: the binaries are moved to other
# hosts (GPU hosts, packages), where such a path means nothing or, worse, something else.
#   no_build_paths.sh SOURCE_DIR BINARY_DIR FILE...
set -uo pipefail
src=$1 bin=$2
shift 2
bad=0
for f in "$@"; do
  [ -s "$f" ] || { echo "FAIL $f: missing or empty"; bad=1; continue; }
  here=0
  for p in "$src" "$bin"; do
    if n=$(grep -c -a -F -- "$p" "$f"); then
      echo "FAIL $f holds $p (on $n line(s)):"
      strings -n 8 "$f" | grep -F -- "$p" | head -n 5 | cut -c1-160 | sed 's/^/    /'
      here=1 bad=1
    fi
  done
  [ "$here" = 0 ] && echo "ok   $f: neither $src nor $bin"
done
exit $bad
