"""Drives the rmcp_weather example (an rmcp server behind ValidatedRouter) with the official
Python MCP SDK (pinned in toolschema-cli/tests/mcp_client/MCP_SDK_VERSION).

usage: weather_client.py SERVER_BIN CALL_LOG

At 2025-06-18, 2025-11-25 and 2026-07-28: valid calls to a schemars-derived tool and a
hand-written-schema tool; invalid calls refused the way each version expects, without
quoting a value, and before the handler runs (the server appends each handler run to
CALL_LOG); a result that breaks the output schema caught. Prints one line per check, then
"N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import sys

import anyio
import mcp.client.session as session_module
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

BIN, CALL_LOG = sys.argv[1], sys.argv[2]
VERSIONS = ["2025-06-18", "2025-11-25", "2026-07-28"]
SECRET = "SECRET-9b1c7e"
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f" -- {detail}"), flush=True)


def client(version):
    env = dict(os.environ)
    env["WEATHER_CALL_LOG"] = CALL_LOG
    params = StdioServerParameters(command=BIN, args=[], env=env)
    if version == "2026-07-28":
        return Client(params, mode=version, cache=None, read_timeout_seconds=30)
    session_module.LATEST_HANDSHAKE_VERSION = version
    return Client(params, mode="legacy", cache=None, read_timeout_seconds=30)


def texts(result):
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


def handler_runs():
    try:
        with open(CALL_LOG) as f:
            return [line.strip() for line in f if line.strip()]
    except FileNotFoundError:
        return []


async def expect_error(coro):
    try:
        result = await coro
    except MCPError as e:
        return e, None
    return None, result


def refused(v, err, r, location):
    """The refusal a client at `v` expects, naming `location` and never the secret."""
    if v == "2025-06-18":
        wire = json.dumps(err.error.model_dump()) if err else ""
        return err is not None and err.code == -32602 and location in err.message and SECRET not in wire
    wire = r.model_dump_json() if r else ""
    return r is not None and r.is_error and location in " ".join(texts(r)) and SECRET not in wire


async def checks(v):
    async with client(v) as c:
        check(f"{v} negotiated", c.protocol_version == v, c.protocol_version)
        tools = {t.name: t for t in (await c.list_tools()).tools}
        check(f"{v} both tools listed", set(tools) == {"get_forecast", "get_alerts"}, list(tools))

        before = len(handler_runs())
        r = await c.call_tool("get_forecast", {"city": "Paris", "days": 2, "unit": "celsius"})
        sc = r.structured_content or {}
        check(f"{v} valid schemars-derived call", not r.is_error and len(sc.get("days", [])) == 2, r)
        r = await c.call_tool("get_alerts", {"region": "FR", "severity": "severe"})
        check(f"{v} valid hand-written call", not r.is_error and (r.structured_content or {}).get("alerts"), r)
        check(f"{v} valid calls ran their handlers", handler_runs()[before:] == ["get_forecast", "get_alerts"], handler_runs())

        before = len(handler_runs())
        err, r = await expect_error(c.call_tool("get_forecast", {"city": "Paris", "days": 9, "unit": "kelvin"}))
        check(f"{v} out-of-range and unknown enum refused", refused(v, err, r, "/days") and refused(v, err, r, "/unit"), err or r)
        err, r = await expect_error(c.call_tool("get_forecast", {"city": "", "days": 1, "extra": SECRET}))
        check(f"{v} minLength and deny_unknown_fields refused", refused(v, err, r, "/city") and refused(v, err, r, "/extra"), err or r)
        err, r = await expect_error(c.call_tool("get_alerts", {"region": SECRET, "extra": 1}))
        check(f"{v} hand-written pattern and additionalProperties refused", refused(v, err, r, "/region"), err or r)
        check(f"{v} refused calls never reached a handler", handler_runs()[before:] == [], handler_runs()[before:])

        err, r = await expect_error(c.call_tool("get_forecast", {"city": "Mercury", "days": 1}))
        body = " ".join(texts(r)) if r else ""
        ok = err is None and r.is_error and "/days/0/temperature" in body and "output schema" in body and r.structured_content is None
        check(f"{v} bad output caught as isError", ok, err or r)


async def main():
    for v in VERSIONS:
        await checks(v)


anyio.run(main)
failed = RESULTS.count(False)
print(f"{len(RESULTS) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
