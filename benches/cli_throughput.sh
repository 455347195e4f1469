#!/usr/bin/env bash
# JSON Lines throughput of the `toolschema validate` binary against the two other CLIs,
# in one run on one machine: jsonschema-cli (crates.io, pinned) and the Sourcemeta
# `jsonschema validate` (npm @sourcemeta/jsonschema, pinned). A benchmark, not a test.
#
#   bash benches/cli_throughput.sh [CASE...]      # default: every case of the corpus
#
# Each case's instances.jsonl (../shared/bench/corpus) is repeated into one file of at
# least $MIN_LINES lines (default 150000) or $MAX_BYTES bytes (64 MiB), whichever comes
# first, so that reading and validating, not start-up and compiling, dominate; each tool validates it $RUNS times (default 3) and the best
# wall time counts. Every tool reports whether each line is valid and carries on past
# invalid ones: toolschema `-q` (exit status only, is_valid), jsonschema-cli `validate
# --errors-only --no-assert-format`, sourcemeta `validate --fast --continue`; formats are
# annotations in all three.
#
# jsonschema-cli 0.60 reads one JSON document per file (no JSON Lines), so it gets the same
# lines as files (the first $RS_MAX_FILES, default 5000, per case); its lines/s counts those.
set -euo pipefail
cd "$(dirname "$0")/.."

JSONSCHEMA_CLI_VERSION=0.60.2
SOURCEMETA_VERSION=16.11.0
CORPUS="${TOOLSCHEMA_BENCH_CORPUS:-../shared/bench/corpus}"
MIN_LINES="${MIN_LINES:-150000}"
MAX_BYTES="${MAX_BYTES:-67108864}"
RUNS="${RUNS:-3}"
RS_MAX_FILES="${RS_MAX_FILES:-5000}"
TOOLS="$PWD/target/bench-tools"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# --- the tools, pinned ---------------------------------------------------------------
cargo build --release --quiet --bin toolschema
TS="$PWD/target/release/toolschema"
RS="$TOOLS/cargo/bin/jsonschema-cli"
if ! "$RS" --version 2>/dev/null | grep -q "$JSONSCHEMA_CLI_VERSION"; then
  cargo install --quiet --locked --root "$TOOLS/cargo" jsonschema-cli --version "$JSONSCHEMA_CLI_VERSION"
fi
SM="$TOOLS/npm/node_modules/.bin/jsonschema"
if ! "$SM" version 2>/dev/null | grep -q "$SOURCEMETA_VERSION"; then
  mkdir -p "$TOOLS/npm"
  npm install --silent --prefix "$TOOLS/npm" "@sourcemeta/jsonschema@$SOURCEMETA_VERSION"
fi

now() { date +%s.%N; }
# best_of CMD...: the least wall time of $RUNS runs, in seconds (exit status ignored:
# invalid lines make every tool exit non-zero).
best_of() {
  local best="" t0 t1 t
  for _ in $(seq "$RUNS"); do
    t0=$(now)
    "$@" >/dev/null 2>&1 || true
    t1=$(now)
    t=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
  done
  echo "$best"
}
rate() { echo "$1 / $2" | bc -l | xargs printf '%.0f'; }

cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for d in "$CORPUS"/*/; do cases+=("$(basename "$d")"); done
fi

echo "cores: $(nproc); toolschema $("$TS" --version | cut -d' ' -f2), jsonschema-cli $JSONSCHEMA_CLI_VERSION, sourcemeta jsonschema $SOURCEMETA_VERSION"
printf '%-28s %8s %14s %14s %14s %14s %8s\n' case lines toolschema ts-1-thread jsonschema-cli sourcemeta ratio
for case in "${cases[@]}"; do
  schema="$CORPUS/$case/schema.json"
  src="$CORPUS/$case/instances.jsonl"
  [ -f "$schema" ] && [ -f "$src" ] || continue
  n=$(grep -c . "$src" || true)
  [ "$n" -gt 0 ] || continue
  size=$(stat -c %s "$src")
  reps=$(( (MIN_LINES + n - 1) / n ))
  by_size=$(( (MAX_BYTES + size - 1) / size ))
  reps=$(( reps < by_size ? reps : by_size ))
  big="$WORK/$case.jsonl"
  for _ in $(seq "$reps"); do cat "$src"; done > "$big"
  lines=$(( n * reps ))

  ts=$(best_of "$TS" validate -q -s "$schema" "$big")
  ts1=$(best_of "$TS" validate -q -j 1 -s "$schema" "$big")
  sm=$(best_of "$SM" validate "$schema" "$big" --fast --continue)

  # jsonschema-cli: the same lines, one file each.
  files=$(( lines < RS_MAX_FILES ? lines : RS_MAX_FILES ))
  mkdir -p "$WORK/$case"
  head -n "$files" "$big" | split -l 1 -a 6 --additional-suffix=.json - "$WORK/$case/i"
  rs=$(best_of "$RS" validate "$schema" --no-assert-format --errors-only -i "$WORK/$case"/i*.json)
  rm -rf "$WORK/$case"

  ts_rate=$(rate "$lines" "$ts"); ts1_rate=$(rate "$lines" "$ts1")
  rs_rate=$(rate "$files" "$rs"); sm_rate=$(rate "$lines" "$sm")
  faster=$(( rs_rate > sm_rate ? rs_rate : sm_rate ))
  ratio=$(echo "$ts_rate / $faster" | bc -l | xargs printf '%.2f')
  printf '%-28s %8d %12s/s %12s/s %12s/s %12s/s %7sx\n' \
    "$case" "$lines" "$ts_rate" "$ts1_rate" "$rs_rate" "$sm_rate" "$ratio"
done
echo "(lines per second, best of $RUNS; ratio = toolschema over the faster of the other two)"
