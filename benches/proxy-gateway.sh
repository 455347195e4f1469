#!/bin/sh
# proxy-cpu's TOOLSCHEMA_BIN for measuring the gateway's options (BENCHMARKS.md, #47):
# `proxy` gets --metrics, --pin (a fresh file per run) and --allow; anything else runs the
# release binary as it is.
bin="$(cd "$(dirname "$0")/.." && pwd)/target/release/toolschema"
if [ "$1" = proxy ]; then
  shift
  exec "$bin" proxy --metrics 127.0.0.1:0 --pin "${TMPDIR:-/tmp}/proxy-gateway-pins.json" --allow '*' "$@"
fi
exec "$bin" "$@"
