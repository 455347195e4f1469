"""python-jsonschema's `best_match` on the precision cases (benches/precision.sh).

usage: best_match.py OUTDIR   (reads schemas.json and cases.jsonl, writes best_match.jsonl)

For each case: whether the validator (the class its `$schema` names, formats not asserted)
refuses it, the instance location of `best_match`'s error as a JSON Pointer, and whether a
union (`anyOf`/`oneOf`) is among the failures (the case's union mark for the report).
"""

import json
import sys

from jsonschema import validators
from jsonschema.exceptions import best_match

out_dir = sys.argv[1]
schemas = json.load(open(f"{out_dir}/schemas.json"))
compiled = {}


def pointer(path):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def in_union(errors):
    stack = list(errors)
    while stack:
        e = stack.pop()
        if e.validator in ("anyOf", "oneOf"):
            return True
    return False


with open(f"{out_dir}/cases.jsonl") as cases, open(f"{out_dir}/best_match.jsonl", "w") as out:
    for line in cases:
        case = json.loads(line)
        i = case["schema"]
        if i not in compiled:
            schema = schemas[i]
            cls = validators.validator_for(schema)
            compiled[i] = cls(schema)
        v = compiled[i]
        errors = list(v.iter_errors(case["instance"]))
        result = {"refused": bool(errors), "union": in_union(errors)}
        if errors:
            result["first"] = pointer(best_match(errors).absolute_path)
        out.write(json.dumps(result) + "\n")
