"""The Python MCP SDK's `Client` (pinned in tests/mcp_client/MCP_SDK_VERSION) against a
server whose tools declare draft-04, draft-07 and 2020-12 schemas, for
tests/dialect_interop.rs.

usage: dialect_client.py CALLS_JSON -- COMMAND [ARGS...]    (stdio)
       dialect_client.py CALLS_JSON -- http://HOST:PORT/mcp  (Streamable HTTP)

Checks: every listed schema is a valid 2020-12 schema (`Draft202012Validator.check_schema`)
and declares no other dialect; every valid call of CALLS_JSON passes (a float-typed `1.0`
for a draft-04 integer included, as Python sends it); every invalid call is refused and the
refusal's first error names the mutated member, without the instance's values. Prints one
line per check, then "N passed, N failed"; exits 1 on any failure.
"""

import json
import sys

import anyio
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

CALLS = json.load(open(sys.argv[1]))
assert sys.argv[2] == "--"
COMMAND, ARGS = sys.argv[3], sys.argv[4:]
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f" -- {str(detail)[:600]}"), flush=True)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    http = COMMAND.startswith("http://")
    params = COMMAND if http else StdioServerParameters(command=COMMAND, args=ARGS)
    async with Client(params, cache=None, read_timeout_seconds=60) as c:
        tools = (await c.list_tools()).tools
        check("three tools listed", len(tools) == 3, [t.name for t in tools])
        for t in tools:
            for key, schema in (("input", t.input_schema), ("output", t.output_schema)):
                if schema is None:
                    continue
                try:
                    Draft202012Validator.check_schema(schema)
                    valid = True
                except Exception as e:  # noqa: BLE001 (the check names what failed)
                    valid = e
                declared = schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
                check(f"{t.name} {key} schema is 2020-12", valid is True and "2020-12" in declared,
                      (valid, declared))
        for name, args in CALLS["valid"]:
            if name == "scale" and "factor" in args:
                args = dict(args, factor=float(args["factor"]))  # what Python sends for a float
            try:
                r = await c.call_tool(name, args)
                check(f"valid {name} {json.dumps(args)} passes", not r.is_error, text_of(r))
            except MCPError as e:
                check(f"valid {name} {json.dumps(args)} passes", False, e)
        for name, args, where in CALLS["invalid"]:
            try:
                r = await c.call_tool(name, args)
                text = text_of(r) if r.is_error else None
            except MCPError as e:
                text = e.error.message
            first = None
            if text:
                # The first listed error ("- /loc: reason", or "...: /loc: reason" on one line).
                lines = [l[2:] for l in text.splitlines() if l.startswith("- ")] or [text.split(": ", 2)[-1]]
                first = lines[0].split(": ")[0]
            check(f"invalid {name} {json.dumps(args)} refused at {where}",
                  first == where and "SECRET" not in (text or ""), text)
    failed = RESULTS.count(False)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


anyio.run(main)
