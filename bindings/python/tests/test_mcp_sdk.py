"""The MCP Python SDK helpers: a low-level server wrapped by `checked_handlers`, driven by
the SDK client over stdio; and the client's tool-result check done by toolschema
(`install`) against a FastMCP server whose tool breaks its output schema."""

import os
import sys
from pathlib import Path

import anyio
import mcp.client.session as session_module
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

import toolschema.mcp

SERVERS = Path(__file__).parent / "servers"


def texts(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_lowlevel_server(tmp_path, version, monkeypatch):
    log = tmp_path / "runs.log"
    monkeypatch.setattr(session_module, "LATEST_HANDSHAKE_VERSION", version)
    params = StdioServerParameters(command=sys.executable, args=[str(SERVERS / "lowlevel_server.py"), str(log)], env=dict(os.environ))

    async def run():
        async with Client(params, mode="legacy", cache=None, read_timeout_seconds=30) as c:
            r = await c.call_tool("add", {"a": 1, "b": 2})
            assert r.structured_content == {"sum": 3}
            bad = {"a": 1, "b": 500, "c": "SECRET-ARG"}
            if version == "2025-06-18":
                with pytest.raises(MCPError) as caught:
                    await c.call_tool("add", bad)
                assert caught.value.error.code == -32602
                text = caught.value.error.message + str(caught.value.error.data)
            else:
                r = await c.call_tool("add", bad)
                assert r.is_error
                text = texts(r)
            assert "/b" in text and "/c" in text and "SECRET" not in text
            assert log.read_text().split() == ["add"], "the handler ran on refused arguments"
            r = await c.call_tool("add", {"a": 990, "b": 20})
            assert r.is_error and "/sum" in texts(r) and "SECRET" not in texts(r)

    anyio.run(run)


def test_client_checks_results_with_toolschema(tmp_path, monkeypatch):
    # The FastMCP server's middleware is what catches broken results; here the client's
    # own check is exercised on a server without it.
    server = tmp_path / "plain_server.py"
    server.write_text(
        (SERVERS / "fastmcp_server.py").read_text().replace("middleware=[ContractMiddleware()]", "middleware=[]")
    )
    log = tmp_path / "runs.log"
    monkeypatch.setattr(session_module, "LATEST_HANDSHAKE_VERSION", "2025-11-25")
    params = StdioServerParameters(command=sys.executable, args=[str(server), str(log)], env=dict(os.environ))

    async def run():
        async with Client(params, mode="legacy", cache=None, read_timeout_seconds=30) as c:
            toolschema.mcp.install(c.session)
            r = await c.call_tool("good_forecast", {"city": "Oslo"})
            assert r.structured_content == {"temp": 3}
            with pytest.raises(RuntimeError) as caught:
                await c.call_tool("broken_forecast", {"city": "Oslo"})
            message = str(caught.value)
            assert message.startswith("Invalid structured content returned by tool broken_forecast: /temp")
            # python-jsonschema's message would quote the value.
            assert "SECRET" not in message

    anyio.run(run)
