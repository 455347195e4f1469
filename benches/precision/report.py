"""The precision report (benches/precision.sh): the share of refused single-leaf mutations
whose first error names the mutated location (for a missing member, its parent; for an added
one, it or its parent), for toolschema, python-jsonschema's `best_match` and Ajv
(`allErrors`), as markdown. Only cases that all three refuse are counted (Ajv's draft-04
cases are counted for the other two, and listed apart).

usage: report.py OUTDIR
"""

import json
import sys
from collections import defaultdict

out_dir = sys.argv[1]
cases = [json.loads(l) for l in open(f"{out_dir}/cases.jsonl")]
py = [json.loads(l) for l in open(f"{out_dir}/best_match.jsonl")]
ajv = [json.loads(l) for l in open(f"{out_dir}/ajv.jsonl") if l.strip()]
assert len(cases) == len(py) == len(ajv), (len(cases), len(py), len(ajv))

# (group) -> engine -> [hits, total]
table = defaultdict(lambda: defaultdict(lambda: [0, 0]))
skipped = defaultdict(int)
for c, p, a in zip(cases, py, ajv):
    if not p["refused"]:
        skipped["python-jsonschema accepts it"] += 1
        continue
    if a.get("unsupported"):
        ajv_first = None
    elif not a["refused"]:
        skipped["Ajv accepts it"] += 1
        continue
    else:
        ajv_first = a["first"]
    groups = ["all", f"kind: {c['kind']}", "inside a union" if p["union"] else "outside unions"]
    groups.append("mcp-tools" if c["case"].startswith("mcp-tools") else "bench corpus")
    for g in groups:
        for engine, first in (("toolschema", c["toolschema"]), ("best_match", p["first"]), ("Ajv", ajv_first)):
            if first is None:
                continue
            cell = table[g][engine]
            cell[0] += first in c["accept"]
            cell[1] += 1


def pct(cell):
    hits, total = cell
    return f"{100 * hits / total:.1f}% ({hits}/{total})" if total else "n/a"


order = ["all", "inside a union", "outside unions", "mcp-tools", "bench corpus"]
order += sorted(g for g in table if g.startswith("kind: "))
print("| mutations | toolschema | python-jsonschema best_match | Ajv allErrors |")
print("|---|---|---|---|")
for g in order:
    if g in table:
        row = table[g]
        print(f"| {g} | {pct(row['toolschema'])} | {pct(row['best_match'])} | {pct(row['Ajv'])} |")
print()
print(f"{len(cases)} mutations toolschema refuses; not counted: " +
      (", ".join(f"{n} ({why})" for why, n in skipped.items()) or "none") + ".")
