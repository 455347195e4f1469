"""Drives `toolschema proxy` in front of python_server.py with the official Python MCP SDK
client, at 2025-06-18, 2025-11-25 and 2026-07-28.

usage: python_client.py TOOLSCHEMA_BIN SERVER_SCRIPT CALLS_FILE AUDIT_LOG

Checks: the listing passes; a valid call runs the tool; an invalid call is refused by the
proxy the way the version expects and never reaches the server (CALLS_FILE unchanged); a
10 MB result arrives intact; 1,000 concurrent calls each get their own answer. Prints one
line per check, then "N passed, N failed"; exits 1 on any failure.
"""

import os
import sys

import anyio
import mcp.client.session as session_module
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

BIN, SERVER, CALLS, AUDIT = sys.argv[1:5]
VERSIONS = ["2025-06-18", "2025-11-25", "2026-07-28"]
SECRET = "SECRET-5e8a1c"
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f" -- {str(detail)[:500]}"), flush=True)


def client(version):
    args = ["proxy", "--log", AUDIT, "--", sys.executable, SERVER, CALLS]
    params = StdioServerParameters(command=BIN, args=args, env=dict(os.environ))
    if version == "2026-07-28":
        return Client(params, mode=version, cache=None, read_timeout_seconds=60)
    session_module.LATEST_HANDSHAKE_VERSION = version
    return Client(params, mode="legacy", cache=None, read_timeout_seconds=60)


def calls_seen():
    try:
        with open(CALLS) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def texts(result):
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


async def run(v):
    async with client(v) as c:
        tools = {t.name for t in (await c.list_tools()).tools}
        check(f"{v} listing passes", {"record", "echo", "big"} <= tools, tools)

        before = len(calls_seen())
        r = await c.call_tool("record", {"note": "valid", "count": 2})
        check(f"{v} valid call runs the tool", not r.is_error and len(calls_seen()) == before + 1, r)

        before = calls_seen()
        try:
            r, err = await c.call_tool("record", {"note": SECRET, "count": 0}), None
        except MCPError as e:
            r, err = None, e
        if v == "2025-06-18":
            ok = err is not None and err.code == -32602 and "invalid arguments for tool record" in err.message \
                and "/count" in err.message and SECRET not in str(err.error.model_dump())
        else:
            body = " ".join(texts(r)) if r else ""
            ok = r is not None and r.is_error and "invalid arguments for tool record" in body \
                and "/count" in body and SECRET not in r.model_dump_json()
        check(f"{v} invalid call refused by the proxy", ok, err or r)
        check(f"{v} the server never saw it", calls_seen() == before, calls_seen()[len(before):])

        r = await c.call_tool("big", {"megabytes": 10})
        text = "".join(texts(r))
        unit = "0123456789abcdef" * 64
        check(f"{v} 10 MB result intact", len(text) == 10 << 20 and text == unit * 10240, len(text))

        answers = {}

        async def one(i):
            res = await c.call_tool("echo", {"text": f"call-{i}"})
            answers[i] = texts(res)

        async with anyio.create_task_group() as tg:
            for i in range(1000):
                tg.start_soon(one, i)
        wrong = [i for i in range(1000) if answers.get(i) != [f"call-{i}"]]
        check(f"{v} 1,000 concurrent calls intact", not wrong, wrong[:5])


async def main():
    for v in VERSIONS:
        try:
            await run(v)
        except Exception as e:  # a crash is a failure, with its reason
            check(f"{v} session", False, repr(e))
    passed = sum(RESULTS)
    failed = len(RESULTS) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


anyio.run(main)
