"""Drives the Ruby SDK server (server.rb, validated by toolschema) over stdio with the
official Python MCP SDK client: lists the corpus tools, makes a valid call, an invalid
call (refused with the location, never the value), and a call whose result breaks the
tool's output schema (caught by the server). Prints one line per check; exits 1 on any
failure.

usage: client.py RUBY SERVER_RB SHARED_DIR
"""

import glob
import json
import os
import sys

import anyio
import mcp.client.session as session_module
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

RUBY, SERVER, SHARED = sys.argv[1], sys.argv[2], sys.argv[3]
SECRET = "SECRET-7c4a8d09ca"
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f" -- {detail}"), flush=True)


def texts(result):
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


async def main():
    corpus = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(SHARED, "corpus/mcp-tools/*/*.json")))]
    names = sorted({t["name"] for t in corpus})
    session_module.LATEST_HANDSHAKE_VERSION = "2025-11-25"
    params = StdioServerParameters(command=RUBY, args=[SERVER, SHARED], env=dict(os.environ))
    async with Client(params, mode="legacy", cache=None, read_timeout_seconds=60) as c:
        listed = []
        cursor = None
        while True:
            page = await c.session.list_tools(params=None if cursor is None else __import__("mcp_types").PaginatedRequestParams(cursor=cursor))
            listed.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        check(f"{len(names)} distinct corpus tools listed", sorted(t.name for t in listed) == names, len(listed))

        args = {"owner": "o", "repo": "r", "path": "p", "content": "c", "message": "m", "branch": "b"}
        r = await c.call_tool("create_or_update_file", args)
        check("valid call", not r.is_error and texts(r) == ["ok"], r)

        bad = dict(args, content=42, branch=SECRET)
        try:
            r = await c.call_tool("create_or_update_file", bad)
            wire = r.model_dump_json()
            body = " ".join(texts(r))
            check("invalid call refused with its location", r.is_error and "Invalid arguments" in body and "/content" in body, body)
            check("refusal never quotes a value", SECRET not in wire and "42" not in body, wire)
        except MCPError as e:
            check("invalid call refused with its location", False, e)

        tool = next(t for t in corpus if (t.get("outputSchema") or {}).get("required"))
        required = tool["inputSchema"].get("required", [])
        sample = {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
        call_args = {n: sample.get(tool["inputSchema"]["properties"][n].get("type"), "x") for n in required}
        try:
            r = await c.call_tool(tool["name"], call_args)
            check(f"result breaking {tool['name']}'s output schema caught", False, r)
        except MCPError as e:
            check(f"result breaking {tool['name']}'s output schema caught", e.error.code == -32603, e)
        except RuntimeError as e:
            # (A client-side check would mean the server let the result through.)
            check(f"result breaking {tool['name']}'s output schema caught", False, e)

        r = await c.call_tool("create_or_update_file", args)
        check("server still answers", not r.is_error, r)

    passed = sum(RESULTS)
    print(f"{passed} passed, {len(RESULTS) - passed} failed")
    sys.exit(0 if all(RESULTS) and RESULTS else 1)


anyio.run(main)
