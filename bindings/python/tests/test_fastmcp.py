"""ContractMiddleware in a real FastMCP server, driven by the official Python SDK client
over stdio and Streamable HTTP: a valid call runs; an invalid one is refused before the
tool runs, as the negotiated version expects; a result breaking its output schema is
caught; no value is ever quoted."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import mcp.client.session as session_module
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

SERVER = Path(__file__).parent / "servers" / "fastmcp_server.py"
SECRET = "SECRET-ARGUMENT-VALUE"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def runs(log):
    return log.read_text().split() if log.exists() else []


def texts(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def exercise(client, log, version):
    async with client as c:
        # A valid call runs the tool.
        r = await c.call_tool("get_weather", {"city": "Paris", "days": 2})
        assert not r.is_error, texts(r)
        assert runs(log) == ["get_weather"]

        # Invalid arguments: refused before the tool runs, naming the location and never
        # the value. 2025-06-18 gets a -32602 error, 2025-11-25 on an isError result.
        bad = {"city": "", "days": SECRET}
        if version == "2025-06-18":
            with pytest.raises(MCPError) as caught:
                await c.call_tool("get_weather", bad)
            assert caught.value.error.code == -32602
            text = caught.value.error.message + str(caught.value.error.data)
        else:
            r = await c.call_tool("get_weather", bad)
            assert r.is_error
            text = texts(r)
        assert "invalid arguments for tool get_weather" in text
        assert "/city" in text and "/days" in text
        assert SECRET not in text
        assert runs(log) == ["get_weather"], "the tool ran on refused arguments"

        # A result breaking its published output schema is caught (an isError result;
        # the client's own output check does not run on error results).
        r = await c.call_tool("broken_forecast", {"city": "Oslo"})
        assert r.is_error
        assert "does not match its own output schema" in texts(r)
        assert "/temp" in texts(r)
        assert "SECRET-RESULT-VALUE" not in texts(r)
        assert runs(log)[-1] == "broken_forecast"

        r = await c.call_tool("good_forecast", {"city": "Oslo"})
        assert not r.is_error and r.structured_content == {"temp": 3}


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_stdio(tmp_path, version, monkeypatch):
    log = tmp_path / "runs.log"
    monkeypatch.setattr(session_module, "LATEST_HANDSHAKE_VERSION", version)
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER), str(log)], env=dict(os.environ))
    client = Client(params, mode="legacy", cache=None, read_timeout_seconds=30)
    anyio.run(exercise, client, log, version)


def test_http(tmp_path, monkeypatch):
    log = tmp_path / "runs.log"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), str(log), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode()
                time.sleep(0.1)
        monkeypatch.setattr(session_module, "LATEST_HANDSHAKE_VERSION", "2025-11-25")
        client = Client(f"http://127.0.0.1:{port}/mcp", mode="legacy", cache=None, read_timeout_seconds=30)
        anyio.run(exercise, client, log, "2025-11-25")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
