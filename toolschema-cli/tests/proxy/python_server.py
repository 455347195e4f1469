"""A real Python MCP server (the SDK's MCPServer, formerly FastMCP; pinned in
toolschema-cli/tests/mcp_client/MCP_SDK_VERSION) for tests/proxy.rs. Every call its `record` tool runs is
appended to the file named by argv[1].

usage: python_server.py CALLS_FILE
"""

import sys
from typing import Annotated

from pydantic import Field
from mcp.server.mcpserver import MCPServer

CALLS = sys.argv[1]
server = MCPServer("proxy-test-python")


@server.tool()
def record(note: Annotated[str, Field(min_length=1)], count: Annotated[int, Field(ge=1)]) -> dict:
    """Records that it ran."""
    with open(CALLS, "a") as f:
        f.write(f"{note} {count}\n")
    return {"recorded": count}


@server.tool()
def echo(text: str) -> str:
    """Answers its text."""
    return text


@server.tool()
def big(megabytes: Annotated[int, Field(ge=1, le=32)]) -> str:
    """A text of that many megabytes (a pattern the caller can check)."""
    unit = "0123456789abcdef" * 64
    return unit * (megabytes * 1024)


if __name__ == "__main__":
    server.run()
