"""The Python MCP SDK's client (pinned in toolschema-cli/tests/mcp_client/MCP_SDK_VERSION), driven by
tests/proxy_http.rs through `toolschema proxy` over Streamable HTTP or stdio.

usage: python_http_client.py URL CALLS_JSON
       python_http_client.py --stdio CALLS_JSON COMMAND [ARGS...]

CALLS_JSON is an array of {"name", "arguments"}. Prints one JSON line per fact: the
negotiated version, the tools listed, then each call's result (or error). Sampling
requests from the server are answered with the text "sampled-by-python".
"""
import asyncio
import json
import sys

import mcp_types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


async def sampling(context, params):
    """Answers the server's sampling requests (relayed by the proxy) with a fixed text."""
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="sampled-by-python"), model="py")


async def drive(read, write, calls):
    async with ClientSession(read, write, sampling_callback=sampling) as session:
        init = await session.initialize()
        print(json.dumps({"version": init.protocol_version}), flush=True)
        tools = await session.list_tools()
        print(json.dumps({"tools": sorted(t.name for t in tools.tools)}), flush=True)
        for call in calls:
            try:
                r = await session.call_tool(call["name"], call.get("arguments", {}))
                dump = r.model_dump(mode="json", by_alias=True, exclude_none=True)
                print(json.dumps({"call": call["name"], "result": dump}), flush=True)
            except Exception as e:  # the SDK raises on JSON-RPC errors
                print(json.dumps({"call": call["name"], "error": str(e)}), flush=True)


async def main(argv):
    if argv[0] == "--stdio":
        calls = json.loads(argv[1])
        params = StdioServerParameters(command=argv[2], args=argv[3:])
        async with stdio_client(params) as (read, write):
            await drive(read, write, calls)
    else:
        calls = json.loads(argv[1])
        async with streamable_http_client(argv[0]) as (read, write, *_):
            await drive(read, write, calls)


asyncio.run(main(sys.argv[1:]))
