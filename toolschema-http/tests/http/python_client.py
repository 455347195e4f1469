"""The Python SDK's streamable HTTP client (pinned in toolschema-cli/tests/mcp_client/MCP_SDK_VERSION),
driven by tests/http.rs: python python_client.py URL

Prints one JSON line per fact: the negotiated version, the tools listed, a call with its
progress and log notifications, and a refused call."""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url):
    logs = []
    progress = []

    async def on_log(params):
        logs.append(params.level)

    async def on_progress(value, total, message):
        progress.append(value)

    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            init = await session.initialize()
            print(json.dumps({"version": init.protocol_version}))
            tools = await session.list_tools()
            print(json.dumps({"tools": [t.name for t in tools.tools]}))
            result = await session.call_tool("slow", {"seconds": 0.3}, progress_callback=on_progress)
            dump = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            print(json.dumps({"result": dump, "progress": len(progress), "logs": len(logs)}))
            refused = await session.call_tool("echo", {"message": 42})
            print(json.dumps({"refused": refused.model_dump(mode="json", by_alias=True, exclude_none=True)}))


asyncio.run(main(sys.argv[1]))
