#!/usr/bin/env bash
# Error precision: where the first error of a refusal points, toolschema vs python-jsonschema's
# `best_match` vs Ajv (`allErrors`), on single-leaf mutations of valid instances of
# ../shared/bench/corpus and of generated arguments of ../shared/corpus/mcp-tools.
#
#   bash benches/precision.sh OUTDIR
#
# Needs the .venv (python-jsonschema comes with the MCP SDK) and tests/proxy/node_modules
# (Ajv comes with the TypeScript SDK): `bash .ci/run` installs both. Prints a markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: benches/precision.sh OUTDIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
# (toolschema-rmcp alongside: the feature set the workspace builds the core crate with.)
cargo build --quiet --release -p toolschema-bench -p toolschema-rmcp --bin precision-cases
target/release/precision-cases "$out"
.venv/bin/python benches/precision/best_match.py "$out"
(cd tests/proxy && node ../../benches/precision/ajv.mjs "$out")
.venv/bin/python benches/precision/report.py "$out" | tee "$out/report.md"
