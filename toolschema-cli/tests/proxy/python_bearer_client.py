"""The Python MCP SDK's client (pinned in toolschema-cli/tests/mcp_client/MCP_SDK_VERSION) with a
bearer token, over Streamable HTTP: driven by tests/auth_interop.rs against `toolschema serve
--http` and `toolschema proxy --listen` with authorization.

usage: python_bearer_client.py URL TOKEN CALLS_JSON

Prints one JSON line per fact: the tools listed, then each call's result or error.
"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(url, token, calls):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http:
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                print(json.dumps({"tools": [t.name for t in tools.tools]}), flush=True)
                for call in calls:
                    try:
                        r = await session.call_tool(call["name"], call.get("arguments", {}))
                        dump = r.model_dump(mode="json", by_alias=True, exclude_none=True)
                        print(json.dumps({"call": call["name"], "result": dump}), flush=True)
                    except Exception as e:  # a 403 reaches the caller as an error
                        print(json.dumps({"call": call["name"], "error": repr(e)}), flush=True)


asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))
