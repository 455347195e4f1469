"""A real Python MCP server (the SDK's low-level `Server`, pinned in
tests/mcp_client/MCP_SDK_VERSION) that publishes the tools of a JSON file exactly as written,
older-draft `$schema` included, as servers built on older schema libraries do; each call
answers the tool's `x-response`. For tests/dialect_interop.rs, behind `toolschema proxy`.

usage: dialect_server.py TOOLS_JSON
"""

import json
import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = json.load(open(sys.argv[1]))


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[
        types.Tool.model_validate({k: v for k, v in t.items() if k != "x-response"}) for t in TOOLS
    ])


async def call_tool(ctx, params):
    tool = next(t for t in TOOLS if t["name"] == params.name)
    return types.CallToolResult.model_validate(tool["x-response"])


server = Server("dialect-server", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
