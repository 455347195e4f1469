"""A FastMCP server with toolschema's ContractMiddleware, for tests/test_fastmcp.py.

usage: fastmcp_server.py RUN_LOG [stdio | http PORT]
Each tool appends its name to RUN_LOG when it runs, so a test can tell a refused call
never reached the tool.
"""

import sys
from typing import Annotated

from fastmcp import FastMCP
from fastmcp.tools.base import ToolResult
from pydantic import Field

from toolschema.fastmcp import ContractMiddleware

RUN_LOG = sys.argv[1]
mcp = FastMCP("weather", middleware=[ContractMiddleware()])


def ran(name: str) -> None:
    with open(RUN_LOG, "a") as f:
        f.write(name + "\n")


@mcp.tool
def get_weather(city: Annotated[str, Field(min_length=1)], days: int = 1) -> dict:
    """Forecast for a city."""
    ran("get_weather")
    return {"city": city, "days": days, "temp": 21.5}


@mcp.tool(
    output_schema={
        "type": "object",
        "properties": {"temp": {"type": "number"}},
        "required": ["temp"],
    }
)
def broken_forecast(city: str) -> ToolResult:
    """Returns structuredContent that breaks its own output schema."""
    ran("broken_forecast")
    return ToolResult(
        content=[{"type": "text", "text": "n/a"}],
        structured_content={"temp": "SECRET-RESULT-VALUE"},
    )


@mcp.tool(
    output_schema={
        "type": "object",
        "properties": {"temp": {"type": "number"}},
        "required": ["temp"],
    }
)
def good_forecast(city: str) -> ToolResult:
    ran("good_forecast")
    return ToolResult(content=[{"type": "text", "text": "ok"}], structured_content={"temp": 3})


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[3]), show_banner=False)
    else:
        mcp.run(show_banner=False)
