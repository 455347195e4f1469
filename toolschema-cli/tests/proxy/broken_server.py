"""A deliberately misbehaving MCP server (Python standard library only), for tests/proxy.rs.

It stands for the servers the proxy exists for: it declares draft-07 schemas (as zod-based
servers do), validates nothing, and one of its tools breaks its own output schema. Every
tools/call it receives is appended to the file named by argv[1], to prove what reached it.

usage: broken_server.py CALLS_FILE
"""

import json
import sys

CALLS = sys.argv[1]
DRAFT7 = "http://json-schema.org/draft-07/schema#"
FORECAST_OUT = {
    "$schema": DRAFT7,
    "type": "object",
    "properties": {"celsius": {"type": "number"}, "sky": {"type": "string", "enum": ["clear", "cloudy"]}},
    "required": ["celsius", "sky"],
    "additionalProperties": False,
}
TOOLS = [
    {
        "name": "forecast",
        "description": "Keeps its output contract.",
        "inputSchema": {"$schema": DRAFT7, "type": "object",
                        "properties": {"city": {"type": "string", "minLength": 1}},
                        "required": ["city"], "additionalProperties": False},
        "outputSchema": FORECAST_OUT,
    },
    {
        "name": "broken_forecast",
        "description": "Breaks its output contract.",
        "inputSchema": {"$schema": DRAFT7, "type": "object", "properties": {"city": {"type": "string"}}},
        "outputSchema": FORECAST_OUT,
    },
]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "broken", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        with open(CALLS, "a") as f:
            f.write(json.dumps(msg["params"]) + "\n")
        if msg["params"]["name"] == "forecast":
            out = {"celsius": 21.5, "sky": "clear"}
        else:
            out = {"celsius": "warm", "sky": "raining", "wind": 3}
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "content": [{"type": "text", "text": json.dumps(out)}], "structuredContent": out}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
