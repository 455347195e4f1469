"""Drives the talkback example server (examples/talkback.rs) with the official Python MCP SDK
(pinned in MCP_SDK_VERSION): tools that sample and elicit through the SDK's own
sampling_callback and elicitation_callback, at 2025-06-18 and 2025-11-25 (server-to-client
requests) and 2026-07-28 (multi round-trip: input_required results the SDK retries), and
a declined elicitation, and logging with its levels.

usage: talkback_test.py SERVER_BIN

Prints one line per check, then "N passed, N failed"; exits 1 on any failure.
"""

import sys

import anyio
import mcp_types as types
import mcp.client.session as session_module
from mcp import Client
from mcp.client.stdio import StdioServerParameters

BIN = sys.argv[1]
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f" -- {detail}"), flush=True)


def client(version, sampling=None, elicitation=None, logging=None):
    params = StdioServerParameters(command=BIN, args=[])
    kwargs = dict(cache=None, read_timeout_seconds=30, sampling_callback=sampling,
                  elicitation_callback=elicitation, logging_callback=logging)
    if version == "2026-07-28":
        return Client(params, mode=version, **kwargs)
    session_module.LATEST_HANDSHAKE_VERSION = version
    return Client(params, mode="legacy", **kwargs)


def text(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def run(version):
    sampled, elicited = [], []

    async def sampling(context, params):
        sampled.append(params.messages[0].content.text)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="four"), model="py-model")

    async def elicitation(context, params):
        elicited.append(sorted(params.requested_schema["properties"]))
        return types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})

    async with client(version, sampling, elicitation) as c:
        r = await c.call_tool("test_sampling", {"prompt": "2+2?"})
        check(f"{version} sampling answered", text(r) == "LLM response: four" and not r.is_error, text(r))
        check(f"{version} sampling request seen by the SDK callback", sampled == ["2+2?"], sampled)
        r = await c.call_tool("test_elicitation", {"message": "Who?"})
        check(f"{version} elicitation answered",
              text(r) == 'User response: action=accept, content={"email":"ada@example.com","username":"ada"}',
              text(r))
        check(f"{version} elicitation form seen by the SDK callback", elicited == [["email", "username"]], elicited)

    async def bad_elicitation(context, params):
        return types.ElicitResult(action="accept", content={"username": "ada"})

    async def declined(context, params):
        return types.ElicitResult(action="decline")

    async with client(version, None, bad_elicitation) as c:
        r = await c.call_tool("test_elicitation", {"message": "Who?"})
        check(f"{version} answer missing a required field is refused",
              r.is_error and "email" in text(r) and "ada" not in text(r), text(r))
        r = await c.call_tool("test_sampling", {"prompt": "x"})
        check(f"{version} no sampling capability: error result",
              r.is_error and "sampling" in text(r), text(r))
    async with client(version, None, declined) as c:
        r = await c.call_tool("test_elicitation", {"message": "Who?"})
        check(f"{version} declined", text(r) == "User response: action=decline, content={}", text(r))
    if version != "2026-07-28":
        logs = []

        async def logging(params):
            logs.append((params.level, params.data))

        async with client(version, logging=logging) as c:
            await c.set_logging_level("warning")
            await c.call_tool("test_tool_with_logging", {})
            check(f"{version} setLevel warning hides info logs", logs == [], logs)
            await c.set_logging_level("info")
            await c.call_tool("test_tool_with_logging", {})
            await anyio.sleep(0.2)
            check(f"{version} info logs arrive", [d for _, d in logs] ==
                  ["Tool execution started", "Tool processing data", "Tool execution completed"], logs)


async def main():
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"]:
        try:
            await run(version)
        except Exception as e:  # a crash is a failure with its reason
            check(f"{version} run", False, repr(e))
    passed = sum(RESULTS)
    print(f"{passed} passed, {len(RESULTS) - passed} failed")
    sys.exit(0 if passed == len(RESULTS) and RESULTS else 1)


anyio.run(main)
