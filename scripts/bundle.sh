#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Packs a built cuzk, with the shared libraries it needs beyond glibc (gRPC, protobuf, abseil,
# OpenSSL, libpq, ...), into one directory that runs on a host without those packages (a GPU
# host with nothing but a driver): DIR/cuzk is a wrapper that points the loader at DIR/lib.
#   scripts/bundle.sh DIR [BUILD_DIR]      e.g. scripts/bundle.sh build-carry/bundle build-fb
# Then: tar czf bundle.tgz -C DIR . ; on the host: tar xzf bundle.tgz; ./cuzk daemon ...
set -euo pipefail
DIR=$1
B=${2:-build}
[ -x "$B/cuzk" ] || { echo "bundle: $B/cuzk not built"; exit 1; }
rm -rf "$DIR"
mkdir -p "$DIR/lib" "$DIR/bin"
# cuzk-daemon (the daemon and its client commands; cuzk hands them to it) goes beside cuzk.
bins=(cuzk)
[ -x "$B/cuzk-daemon" ] && bins+=(cuzk-daemon)
for b in "${bins[@]}"; do
  cp "$B/$b" "$DIR/bin/$b"
  strip "$DIR/bin/$b" 2> /dev/null || true
done
# Everything the loader resolves, except glibc itself (the host's must be used) and the driver.
for b in "${bins[@]}"; do ldd "$B/$b"; done | awk '/=> \//{print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libcuda.so*|libnvidia*) ;;
    *) cp -L "$lib" "$DIR/lib/" ;;
  esac
done
cat > "$DIR/cuzk" <<'SH'
#!/bin/sh
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/cuzk" "$@"
SH
chmod +x "$DIR/cuzk"
echo "bundle: $DIR: $(ls "$DIR/lib" | wc -l) libraries, $(du -sh "$DIR" | cut -f1)"
