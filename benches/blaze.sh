#!/usr/bin/env bash
# bench-report with its Blaze column: installs the Sourcemeta `jsonschema` CLI (npm
# @sourcemeta/jsonschema, pinned; the package ships prebuilt binaries) where
# benches/cli_throughput.sh keeps it, then runs the report with it. A benchmark, not a test.
#
#   bash benches/blaze.sh [bench-report arguments...]     # the report on stdout
#   bash benches/blaze.sh --samples 5 --blaze-loop 100    # a short run
#
# When npm or the package cannot be had, the report still runs and says why the column
# is missing (never a failure of this script).
set -euo pipefail
cd "$(dirname "$0")/.."

SOURCEMETA_VERSION=16.11.0   # keep in step with toolschema_bench::blaze::VERSION
PREFIX="$PWD/target/bench-tools/npm"
BIN="$PREFIX/node_modules/.bin/jsonschema"

if ! "$BIN" version 2>/dev/null | grep -qx "$SOURCEMETA_VERSION"; then
  if command -v npm >/dev/null 2>&1 && mkdir -p "$PREFIX" &&
    npm install --silent --no-audit --no-fund --prefix "$PREFIX" \
      "@sourcemeta/jsonschema@$SOURCEMETA_VERSION" >&2; then
    echo "installed @sourcemeta/jsonschema@$SOURCEMETA_VERSION" >&2
  else
    echo "note: @sourcemeta/jsonschema@$SOURCEMETA_VERSION could not be installed (npm missing or unreachable); the report leaves the Blaze column out" >&2
  fi
fi
if "$BIN" version 2>/dev/null | grep -qx "$SOURCEMETA_VERSION"; then
  export TOOLSCHEMA_BENCH_BLAZE="$BIN"
else
  # A path that does not exist: the report notes it and leaves the column out, rather
  # than picking up some other version.
  export TOOLSCHEMA_BENCH_BLAZE="$BIN.missing"
fi
exec cargo run --quiet --release -p toolschema-bench --bin bench-report -- "$@"
