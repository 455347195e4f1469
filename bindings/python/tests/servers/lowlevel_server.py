"""A low-level MCP SDK server whose handlers are wrapped by toolschema.mcp.checked_handlers.

usage: lowlevel_server.py RUN_LOG
"""

import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from toolschema.mcp import checked_handlers

RUN_LOG = sys.argv[1]
TOOLS = [
    types.Tool(
        name="add",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "maximum": 100}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
        output_schema={"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]},
    )
]


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    with open(RUN_LOG, "a") as f:
        f.write(params.name + "\n")
    a, b = params.arguments["a"], params.arguments["b"]
    # A sum past 1000 is reported as a string: it breaks the output schema.
    total = a + b if a + b < 1000 else "SECRET-SUM"
    return types.CallToolResult(content=[types.TextContent(type="text", text=str(total))], structured_content={"sum": total})


on_list_tools, on_call_tool = checked_handlers(list_tools, call_tool)
server = Server("adder", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
