#!/usr/bin/env python3
"""Generated benchmark cases for features the corpus lacks.

The corpus in ../shared/bench/corpus holds real schemas, but few use long enums,
unevaluatedProperties, uniqueItems over objects, multipleOf on decimals, non-ASCII
length bounds, if/then chains or $dynamicRef. This script writes one case per such
feature, in the corpus layout (schema.json, instances.jsonl), deterministically (fixed
seed), so that bench-report can run them side by side with the other validators:

    python3 benches/synthetic/generate.py /tmp/synthetic
    TOOLSCHEMA_BENCH_CORPUS=/tmp/synthetic/corpus TOOLSCHEMA_BENCH_MCP_TOOLS=/tmp/synthetic/none \\
        cargo run --release -p toolschema-bench --bin bench-report

The meta-schema case validates the MCP corpus's tool schemas against the 2020-12
meta-schema bundled into one document; it reads ../shared (or the directory given as
the second argument) and is skipped when it is not there.
"""
import glob
import json
import os
import random
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "synthetic"
SHARED = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
R = random.Random(7)
S = "https://json-schema.org/draft/2020-12/schema"
os.makedirs(os.path.join(OUT, "corpus"), exist_ok=True)
os.makedirs(os.path.join(OUT, "none"), exist_ok=True)


def case(name, schema, instances):
    d = os.path.join(OUT, "corpus", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "schema.json"), "w") as f:
        json.dump(schema, f)
    with open(os.path.join(d, "instances.jsonl"), "w") as f:
        for i in instances:
            f.write(json.dumps(i) + "\n")


def word(n=6):
    return "".join(R.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


# Long string enums: country codes, languages.
codes = sorted({word(2).upper() for _ in range(600)})[:240]
langs = sorted({word(R.randint(4, 12)) for _ in range(200)})[:150]
case("big-enum", {"$schema": S, "type": "object", "properties": {
    "country": {"enum": codes}, "lang": {"type": "string", "enum": langs},
    "tags": {"type": "array", "items": {"enum": langs}}}},
    [{"country": R.choice(codes + ["ZZZ"]), "lang": R.choice(langs), "tags": R.sample(langs, 5)}
     for _ in range(300)])

# if/then clauses keyed on a discriminating property, in an allOf.
kinds = [word(7) for _ in range(20)]
clauses = [{"if": {"properties": {"kind": {"const": k}}, "required": ["kind"]},
            "then": {"properties": {"spec": {"type": "object", "required": [f"f{j}"],
                                              "properties": {f"f{j}": {"type": "string", "maxLength": 20}}}}}}
           for j, k in enumerate(kinds)]
case("if-then-chain", {"$schema": S, "type": "object", "required": ["kind", "spec"],
                       "properties": {"kind": {"enum": kinds}, "spec": {"type": "object"}},
                       "allOf": clauses},
     [{"kind": kinds[j], "spec": {f"f{j}": word(8), "extra": 1}}
      for j in [R.randrange(20) for _ in range(200)]])

# unevaluatedProperties over allOf/$ref composition.
case("unevaluated", {"$schema": S, "$defs": {
        "base": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
                 "required": ["id"]},
        "timestamps": {"properties": {"created": {"type": "string"}, "updated": {"type": "string"}}}},
    "allOf": [{"$ref": "#/$defs/base"}, {"$ref": "#/$defs/timestamps"}],
    "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
    "unevaluatedProperties": False},
    [dict({"id": i, "name": word(), "created": "2024", "tags": [word(), word()]},
          **({"bad": 1} if i % 7 == 0 else {})) for i in range(300)])

# uniqueItems over arrays of objects.
case("unique-items", {"$schema": S, "type": "array", "uniqueItems": True,
                      "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}}},
     [[{"k": word(), "v": R.randrange(100)} for _ in range(R.randint(5, 60))] for _ in range(60)])


def tree(d):
    n = {"name": word(), "size": R.randrange(1000)}
    if d > 0:
        n["children"] = [tree(d - 1) for _ in range(R.randint(0, 3))]
    return n


# A recursive tree through $ref.
case("recursive-tree", {"$schema": S, "$ref": "#/$defs/node", "$defs": {"node": {
    "type": "object", "required": ["name"], "additionalProperties": False,
    "properties": {"name": {"type": "string", "minLength": 1}, "size": {"type": "integer", "minimum": 0},
                   "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}},
     [tree(5) for _ in range(30)])

# A dictionary: propertyNames and additionalProperties.
case("dictionary", {"$schema": S, "type": "object",
                    "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$", "maxLength": 32},
                    "additionalProperties": {"type": "object", "additionalProperties": False, "properties": {
                        "enabled": {"type": "boolean"}, "level": {"type": "integer", "maximum": 10}}}},
     [{word(R.randint(3, 12)): {"enabled": True, "level": R.randrange(11)} for _ in range(R.randint(1, 30))}
      for _ in range(150)])

# Thirty required properties and dependentRequired.
props = {f"p{i}": {"type": ["string", "null"]} for i in range(30)}
case("wide-required", {"$schema": S, "type": "object", "properties": props,
                       "required": [f"p{i}" for i in range(30)],
                       "dependentRequired": {"p1": ["p2", "p3"], "p5": ["p6"]}, "additionalProperties": False},
     [{f"p{i}": (word() if R.random() < .8 else None) for i in range(30)} for _ in range(200)])

# contains with maxContains.
case("contains", {"$schema": S, "type": "array", "maxContains": 1,
                  "contains": {"type": "object", "required": ["primary"], "properties": {"primary": {"const": True}}},
                  "items": {"type": "object", "properties": {"addr": {"type": "string"}, "primary": {"type": "boolean"}}}},
     [[{"addr": word(), "primary": (j == 3)} for j in range(R.randint(4, 20))] for _ in range(150)])

# Prices and coordinates: number bounds and multipleOf a decimal.
case("numbers", {"$schema": S, "type": "array", "items": {"type": "object", "required": ["lat", "lon"], "properties": {
    "lat": {"type": "number", "minimum": -90, "maximum": 90}, "lon": {"type": "number", "minimum": -180, "maximum": 180},
    "price": {"type": "number", "multipleOf": 0.01, "exclusiveMinimum": 0}, "qty": {"type": "integer", "minimum": 1}}}},
    [[{"lat": R.uniform(-90, 90), "lon": R.uniform(-180, 180), "price": round(R.uniform(0.01, 500), 2),
       "qty": R.randint(1, 9)} for _ in range(50)] for _ in range(40)])

# oneOf of $refs told apart by a const, additionalProperties false.
shapes = {k: {"type": "object", "required": ["shape", "size"], "additionalProperties": False,
              "properties": {"shape": {"const": k}, "size": {"type": "number"}, "color": {"type": "string"},
                             "label": {"type": "string"}}}
          for k in ["circle", "square", "triangle", "hexagon", "ellipse", "polygon"]}
case("discriminated", {"$schema": S, "type": "array", "$defs": shapes,
                       "items": {"oneOf": [{"$ref": f"#/$defs/{k}"} for k in shapes]}},
     [[{"shape": R.choice(list(shapes)), "size": R.random(), "color": word()} for _ in range(30)] for _ in range(60)])


def deep(d):
    return {"v": d, "next": deep(d - 1)} if d > 0 else {"v": 0}


# A long linked list through $ref.
case("deep-linked", {"$schema": S, "$ref": "#/$defs/n", "$defs": {"n": {
    "type": "object", "required": ["v"], "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/n"}}}}},
     [deep(R.randint(20, 80)) for _ in range(30)])

# Common string patterns.
case("patterns", {"$schema": S, "type": "array", "items": {"type": "object", "properties": {
    "email": {"type": "string", "pattern": "^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$"},
    "ip": {"type": "string", "pattern": "^(\\d{1,3}\\.){3}\\d{1,3}$"},
    "b64": {"type": "string", "pattern": "^[A-Za-z0-9+/]*={0,2}$"},
    "slug": {"type": "string", "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$"},
    "uuid": {"type": "string", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"}}}},
    [[{"email": f"{word()}.{word(4)}@{word(5)}.com",
       "ip": ".".join(str(R.randrange(256)) for _ in range(4)),
       "b64": "".join(R.choice("ABCDEFGHabcdefgh0123+/") for _ in range(R.randint(20, 200))) + "==",
       "slug": f"{word(4)}-{word(5)}-{R.randrange(99)}",
       "uuid": "%08x-%04x-%04x-%04x-%012x" % (R.getrandbits(32), R.getrandbits(16), R.getrandbits(16),
                                              R.getrandbits(16), R.getrandbits(48))}
      for _ in range(20)] for _ in range(40)])

# Ten patternProperties, additionalProperties false.
prefixes = ["int", "str", "num", "flag", "tag", "id", "ref", "opt", "env", "var"]
case("pattern-properties", {"$schema": S, "type": "object", "additionalProperties": False,
                            "patternProperties": {f"^{p}_": {"type": "integer" if i % 2 else "string"}
                                                  for i, p in enumerate(prefixes)}},
     [{f"{p}_{word(3)}": (R.randrange(9) if i % 2 else word()) for i, p in enumerate(prefixes) if R.random() < .6}
      for _ in range(200)])

# Enums of numbers and of objects, a const object.
fib = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946]
special = {"kind": "special", "flags": [1, 2, 3]}
case("enum-mixed", {"$schema": S, "type": "array", "items": {"anyOf": [
    {"enum": fib}, {"const": special}, {"enum": [{"a": 1}, {"b": 2}, [1, 2], None, True]}]}},
    [[R.choice(fib[:15] + [special, {"a": 1}, [1, 2], None, True]) for _ in range(20)] for _ in range(100)])

# Length bounds on accented, CJK and emoji text.
case("unicode-lengths", {"$schema": S, "type": "array", "items": {"type": "string", "minLength": 3, "maxLength": 40}},
     [["".join(R.choice("aé漢字🙂ßø") for _ in range(R.randint(3, 40))) for _ in range(30)] for _ in range(60)])

# Tool schemas against the 2020-12 meta-schema, its vocabularies embedded ($id kept).
meta = os.path.join(SHARED, "metaschemas", "draft2020-12")
if os.path.isdir(meta):
    root = json.load(open(os.path.join(meta, "schema.json")))
    root.setdefault("$defs", {})
    for f in sorted(glob.glob(os.path.join(meta, "meta", "*.json"))):
        root["$defs"]["meta_" + os.path.basename(f)[:-5]] = json.load(open(f))
    tool_schemas = []
    for f in sorted(glob.glob(os.path.join(SHARED, "corpus", "mcp-tools", "*", "*.json"))):
        try:
            t = json.load(open(f))
        except (OSError, ValueError):
            continue
        for tool in (t if isinstance(t, list) else t.get("tools", [t])):
            if isinstance(tool, dict):
                tool_schemas += [tool[k] for k in ("inputSchema", "outputSchema") if isinstance(tool.get(k), dict)]
    if tool_schemas:
        case("metaschema", root, tool_schemas[:400])
# A base extended by `$ref` and closed by `unevaluatedProperties` (2020-12 style). Its
# own random stream, so that the cases above stay as they were.
R2 = random.Random(11)
case("unevaluated-ref", {"$schema": S, "$ref": "#/$defs/base", "unevaluatedProperties": False,
                         "$defs": {"base": {"type": "object", "required": ["p0"], "properties": {
                             f"p{i}": {"type": ["string", "integer"]} for i in range(12)}}}},
     [dict({f"p{i}": (i if i % 2 else f"v{i}") for i in R2.sample(range(12), R2.randint(1, 12))},
           p0="x", **({"extra": 1} if n % 5 == 0 else {})) for n in range(300)])
print(f"cases written to {os.path.join(OUT, 'corpus')}")
