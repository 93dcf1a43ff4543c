#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Installs what cuzk's build and tests need and is missing: Debian packages through apt-get,
# and the pinned npm packages (snarkjs, circom2) of tools/js. Safe to run again.
#   install-deps.sh          everything the test command (scripts/test.sh) needs
#   install-deps.sh --demo   only what building cuzk and its daemon and proving need (the quick
#                            start, scripts/demo.sh): no PostgreSQL, clang, Go, node or snarkjs
set -euo pipefail
cd "$(dirname "$0")/.."
demo=0
case "${1:-}" in
  --demo) demo=1 ;;
  "") ;;
  *) echo "install-deps: unknown argument '$1' (--demo, or nothing)" >&2; exit 2 ;;
esac

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
have_cmd cmake || need+=(cmake)
have_cmd ninja || need+=(ninja-build)
have_cmd g++ || need+=(g++)
have_cmd git || need+=(git)
have_cmd pkg-config || need+=(pkg-config)
have_cmd ccache || need+=(ccache)
# The daemon: gRPC and protobuf, toml++, cpp-httplib; python3 with the Prometheus client's
# parser checks /metrics in the tests.
have_pkg libgrpc++-dev || need+=(libgrpc++-dev)
have_pkg protobuf-compiler-grpc || need+=(protobuf-compiler-grpc)
have_pkg libprotobuf-dev || need+=(libprotobuf-dev)
have_cmd protoc || need+=(protobuf-compiler)
have_pkg libtomlplusplus-dev || need+=(libtomlplusplus-dev)
have_pkg libcpp-httplib-dev || need+=(libcpp-httplib-dev)
have_cmd python3 || need+=(python3)
have_cmd curl || need+=(curl)
if [ "$demo" = 1 ]; then
  if [ ${#need[@]} -gt 0 ]; then
    echo "install-deps --demo: apt-get install ${need[*]}"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
  fi
  echo "install-deps --demo: done (bash scripts/install-deps.sh adds what the tests need)"
  exit 0
fi
# The tests: GMP, an independent reference in the field tests; clang for the libFuzzer targets;
# clang-format for tests/format; the Prometheus client's parser for /metrics.
have_pkg libgmp-dev || need+=(libgmp-dev)
have_cmd clang++-14 || need+=(clang-14)
have_pkg libclang-rt-14-dev || need+=(libclang-rt-14-dev)
have_cmd clang-format || have_cmd clang-format-14 || need+=(clang-format)
have_pkg python3-prometheus-client || need+=(python3-prometheus-client)
# A client generated from Curio's proving.proto at test time (grpc_tools.protoc) talks to the
# daemon's Curio service in the tests.
have_pkg python3-grpc-tools || need+=(python3-grpc-tools)
have_pkg python3-grpcio || need+=(python3-grpcio)
# The farm's shared queue: libpq, and a PostgreSQL server that the tests start on loopback.
have_pkg libpq-dev || need+=(libpq-dev)
have_pkg postgresql || need+=(postgresql)
have_cmd go || need+=(golang-go)                      # examples/go's ctest (cgo); cuzk's build needs no Go
have_cmd node || need+=(nodejs)                       # snarkjs, the independent verifier
have_cmd npm || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${need[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi

# npm packages, pinned by tools/js/package-lock.json; reinstalled when the lockfile changes.
stamp=tools/js/node_modules/.cuzk-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s tools/js/package-lock.json "$stamp"; then
  echo "install-deps: npm ci --prefix tools/js"
  npm ci --prefix tools/js --no-audit --no-fund --loglevel=error
  cp tools/js/package-lock.json "$stamp"
fi
echo "install-deps: done"
