"""toolschema's Python package side by side with jsonschema-rs (PyPI), fastjsonschema and
python-jsonschema, in one run, on ../shared/bench/corpus: from Python objects
(`is_valid(obj)`) and from JSON text (toolschema's `is_valid_json(bytes)` against the
others' `json.loads` + `is_valid`, what their users do with a message). Then the FastMCP
middleware's cost per tool call. Prints a markdown report with ratios (other / toolschema).

usage: python benches/python.py [CASE_FILTER] [--budget SECONDS] [--max-instances N]
(run with the venv of bindings/python after `maturin develop --release`)
"""

import asyncio
import json
import math
import statistics
import sys
import time
from pathlib import Path

import fastjsonschema
import jsonschema
import jsonschema_rs

import toolschema

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "bench" / "corpus"
args = [a for a in sys.argv[1:] if not a.startswith("--")]
FILTER = args[0] if args else ""
BUDGET = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 0.03
# Every validator runs on the same first MAX_INSTANCES instances of each case (python-jsonschema
# takes seconds per pass over the larger ones).
MAX_INSTANCES = int(sys.argv[sys.argv.index("--max-instances") + 1]) if "--max-instances" in sys.argv else 300
ROUNDS = 3


def per_pass(fn, items):
    """Best time of one pass over `items` (s): ROUNDS rounds of at least BUDGET each, or,
    for a validator whose one pass takes longer than 10 budgets, the best of 3 passes."""
    start = time.perf_counter()
    for x in items:
        fn(x)
    first = time.perf_counter() - start
    rounds = 2 if first > 10 * BUDGET else ROUNDS
    best = first
    for _ in range(rounds):
        n = 0
        start = time.perf_counter()
        while True:
            for x in items:
                fn(x)
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= BUDGET:
                break
        best = min(best, elapsed / n)
    return best


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def validators(schema):
    out = {}
    # (fhir-patient has more than the default 10,000 subschemas.)
    ts = toolschema.Validator(schema, max_subschemas=1_000_000)
    out["toolschema"] = ts.is_valid
    rs = jsonschema_rs.validator_for(schema)
    out["jsonschema-rs"] = rs.is_valid
    try:
        fj = fastjsonschema.compile(schema)

        def fj_valid(x, fj=fj):
            try:
                fj(x)
                return True
            except fastjsonschema.JsonSchemaException:
                return False

        out["fastjsonschema"] = fj_valid
    except Exception:
        pass
    cls = jsonschema.validators.validator_for(schema)
    out["python-jsonschema"] = cls(schema).is_valid
    return ts, out


def bench_corpus():
    rows = []
    ratios = {"obj": {}, "text": {}}
    for case in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        if FILTER not in case.name:
            continue
        schema = json.loads((case / "schema.json").read_text())
        lines = [l for l in (case / "instances.jsonl").read_bytes().splitlines() if l.strip()][:MAX_INSTANCES]
        objs = [json.loads(l) for l in lines]
        ts, vs = validators(schema)
        expected = [ts.is_valid(o) for o in objs]
        assert expected == [ts.is_valid_json(l) for l in lines], case.name
        agree = {}
        for name, fn in vs.items():
            try:
                agree[name] = sum(fn(o) == e for o, e in zip(objs, expected))
            except Exception as e:  # a validator that cannot take this case
                agree[name] = f"error: {type(e).__name__}"
        t_obj = {}
        t_text = {}
        for name, fn in vs.items():
            if not isinstance(agree[name], int):
                continue
            t_obj[name] = per_pass(fn, objs)
            if name == "toolschema":
                t_text[name] = per_pass(ts.is_valid_json, lines)
            else:
                t_text[name] = per_pass(lambda l, fn=fn: fn(json.loads(l)), lines)
        n = len(objs)
        row = {"case": case.name, "n": n, "agree": agree, "obj": t_obj, "text": t_text}
        rows.append(row)
        for name in t_obj:
            if name != "toolschema":
                ratios["obj"].setdefault(name, []).append(t_obj[name] / t_obj["toolschema"])
                ratios["text"].setdefault(name, []).append(t_text[name] / t_text["toolschema"])
        print(f"  {case.name}: done", file=sys.stderr)
    return rows, ratios


def fmt_us(s, n):
    return f"{s / n * 1e6:.2f}"


async def bench_middleware():
    """The middleware's cost on one typical call (a FastMCP in-process client): the same
    calls with and without it, medians of per-call times."""
    from typing import Annotated

    from fastmcp import Client, FastMCP
    from pydantic import Field

    from fastmcp.server.middleware import Middleware

    from toolschema.fastmcp import ContractMiddleware

    def make(middleware):
        mcp = FastMCP("bench", middleware=middleware)

        @mcp.tool
        def get_weather(city: Annotated[str, Field(min_length=1)], units: str = "metric", days: int = 1) -> dict:
            return {"city": city, "temp": 21.5, "units": units, "days": days}

        return mcp

    args = {"city": "Paris", "units": "metric", "days": 3}
    results = {}
    for label, mw in [
        ("none", []),
        ("a no-op Middleware (FastMCP's own cost of one)", [Middleware()]),
        ("ContractMiddleware()", [ContractMiddleware()]),
        ("ContractMiddleware(static_tools=True)", [ContractMiddleware(static_tools=True)]),
    ]:
        async with Client(make(mw)) as c:
            for _ in range(200):
                await c.call_tool("get_weather", args)
            samples = []
            for _ in range(15):
                start = time.perf_counter()
                for _ in range(100):
                    await c.call_tool("get_weather", args)
                samples.append((time.perf_counter() - start) / 100)
            results[label] = min(samples)
    # The middleware's own hook, called as FastMCP calls it (a tool answering at once),
    # without the rest of FastMCP's dispatch: the per-call cost it adds.
    import mcp_types as mt
    from fastmcp.server.context import Context
    from fastmcp.server.middleware import MiddlewareContext
    from fastmcp.tools.base import ToolResult

    server = make([])
    answer = ToolResult(content=[{"type": "text", "text": "ok"}], structured_content={"temp": 21.5})

    async def call_next(context):
        return answer

    async def hook(mw, n):
        context = MiddlewareContext(
            message=mt.CallToolRequestParams(name="get_weather", arguments=args),
            fastmcp_context=Context(fastmcp=server),
            method="tools/call",
        )
        await mw.on_call_tool(context, call_next)
        start = time.perf_counter()
        for _ in range(n):
            await mw.on_call_tool(context, call_next)
        return (time.perf_counter() - start) / n

    for label, mw in [
        ("on_call_tool alone, ContractMiddleware()", ContractMiddleware()),
        ("on_call_tool alone, ContractMiddleware(static_tools=True)", ContractMiddleware(static_tools=True)),
    ]:
        results[label] = min([await hook(mw, 2000) for _ in range(5)])
    # The check itself (no FastMCP around it): what the middleware adds once it holds the contract.
    contract = toolschema.ToolContract(
        {
            "name": "get_weather",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string", "minLength": 1}, "units": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        }
    )
    n = 100_000
    start = time.perf_counter()
    for _ in range(n):
        contract.check_arguments(args, "2025-11-25")
    results["ToolContract.check_arguments alone"] = (time.perf_counter() - start) / n
    return results


def main():
    import importlib.metadata as md

    versions = {p: md.version(p) for p in ["toolschema", "jsonschema-rs", "fastjsonschema", "jsonschema", "fastmcp"]}
    print("# Python: toolschema vs jsonschema-rs, fastjsonschema, python-jsonschema\n")
    print("Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + f"; Python {sys.version.split()[0]}\n")
    rows, ratios = bench_corpus()
    names = ["jsonschema-rs", "fastjsonschema", "python-jsonschema"]
    for kind, title in [("obj", "From Python objects (`is_valid(obj)`)"), ("text", "From JSON text (toolschema `is_valid_json(bytes)`; others `is_valid(json.loads(text))`)")]:
        print(f"## {title}: µs per instance (ratio = other / toolschema)\n")
        print("| case | n | toolschema | " + " | ".join(names) + " |")
        print("|---|---:|---:|" + "---:|" * len(names))
        for r in rows:
            t = r[kind]
            n = r["n"]
            cells = []
            for name in names:
                if name in t:
                    cells.append(f"{fmt_us(t[name], n)} ({t[name] / t['toolschema']:.2f}×)")
                else:
                    cells.append(str(r["agree"].get(name, "n/a")))
            print(f"| {r['case']} | {n} | {fmt_us(t['toolschema'], n)} | " + " | ".join(cells) + " |")
        print("| **geomean ratio** | | | " + " | ".join(f"**{geomean(ratios[kind].get(name, [])):.2f}×**" for name in names) + " |\n")
    print("Verdicts agreeing with toolschema (instances): ")
    for r in rows:
        print(f"- {r['case']} ({r['n']}): " + ", ".join(f"{k} {v}" for k, v in r["agree"].items() if k != "toolschema"))
    print()
    mw = asyncio.run(bench_middleware())
    base = mw["none"]
    print("## FastMCP middleware: per call (in-process client, best of 15 × 100 calls)\n")
    print("| configuration | µs per call | added by the middleware |")
    print("|---|---:|---:|")
    for label, t in mw.items():
        if label.startswith(("ToolContract", "on_call_tool")):
            print(f"| {label} | {t * 1e6:.2f} | |")
        else:
            print(f"| {label} | {t * 1e6:.1f} | {(t - base) * 1e6:+.1f} |")


if __name__ == "__main__":
    main()
