"""A scripted MCP server (Python standard library only) for tests/proxy.rs: the edge cases
real servers hit rarely and not on cue.

- `tools/list` pages: 7 tools `t0`..`t6`, two per page (the cursor is the next index);
  each takes `{"n": integer >= 0}` and answers `{"n": n}`.
- `huge` (a tool): answers with a line of `bytes` bytes, `result` first and `id` last, as
  the TypeScript SDK orders its keys.
- `test/huge` (any other request): the same, as a plain JSON-RPC result.
- `shout` (a tool): first sends an oversized notification and an oversized
  `sampling/createMessage` request, then answers with what came back for that request.
- `ask` (a tool): sends `sampling/createMessage` and `elicitation/create` to the client,
  reports progress and cancels a third request it sent; answers once both came back,
  with the answers (or errors) it got.
- `grow` (a tool): adds the tool `late` and sends `notifications/tools/list_changed`.

Every message it receives is appended to the file named by argv[1] as one JSON line
(`method` or `response`, `id`, `error` code; never params), to prove what reached it.

usage: scripted_server.py LOG_FILE
"""

import json
import sys

LOG = sys.argv[1]
TOOLS = [{"name": f"t{i}", "inputSchema": {"type": "object", "properties": {
    "n": {"type": "integer", "minimum": 0}}, "required": ["n"]}} for i in range(7)]
PAGE = 2
waiting = {}  # the server's request id -> (call id, what it waits for)
answers = {}  # call id -> {what: answer}


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def log(msg):
    entry = {"id": msg.get("id")}
    if "method" in msg:
        entry["method"] = msg["method"]
    else:
        entry["response"] = True
        if "error" in msg:
            entry["error"] = msg["error"].get("code")
    with open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def huge_line(mid, size, tool):
    text = "x" * size
    result = {"content": [{"type": "text", "text": text}]} if tool else {"blob": text}
    # `result` first and `id` last, as the TypeScript SDK writes its answers.
    return '{"result": ' + json.dumps(result) + ', "jsonrpc": "2.0", "id": ' + json.dumps(mid) + "}"


def result(mid, value):
    send({"jsonrpc": "2.0", "id": mid, "result": value})


def text_result(mid, value):
    result(mid, {"content": [{"type": "text", "text": json.dumps(value)}]})


def call(mid, name, args):
    if name == "huge":
        sys.stdout.write(huge_line(mid, args.get("bytes", 1 << 20), True) + "\n")
        sys.stdout.flush()
    elif name == "shout":
        size = args.get("bytes", 1 << 20)
        sys.stdout.write('{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "'
                         + "y" * size + '"}}\n')
        sys.stdout.write('{"jsonrpc": "2.0", "method": "sampling/createMessage", "params": {"messages": ["'
                         + "z" * size + '"]}, "id": "big-' + str(mid) + '"}\n')
        sys.stdout.flush()
        waiting["big-" + str(mid)] = (mid, "big")
        answers[mid] = {"need": 1}
    elif name == "ask":
        token = args.get("progressToken", "ask")
        for req, method in [("s", "sampling/createMessage"), ("e", "elicitation/create"), ("c", "roots/list")]:
            sid = f"{req}-{mid}"
            send({"jsonrpc": "2.0", "id": sid, "method": method, "params": {}})
            if req != "c":
                waiting[sid] = (mid, method)
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}})
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": f"c-{mid}"}})
        answers[mid] = {"need": 2}
    elif name == "grow":
        if not any(t["name"] == "late" for t in TOOLS):
            TOOLS.append({"name": "late", "inputSchema": {"type": "object", "required": ["x"]}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text_result(mid, {"tools": len(TOOLS)})
    else:
        text_result(mid, {"n": args.get("n")})


for line in sys.stdin:
    msg = json.loads(line)
    log(msg)
    method, mid = msg.get("method"), msg.get("id")
    if method is None:
        if mid in waiting:
            call_id, what = waiting.pop(mid)
            got = answers[call_id]
            got[what] = msg.get("result", {"error": msg.get("error", {}).get("code")})
            if len(got) > got["need"]:
                del got["need"]
                del answers[call_id]
                text_result(call_id, got)
        continue
    if mid is None:
        continue
    if method == "initialize":
        result(mid, {"protocolVersion": msg["params"]["protocolVersion"],
                     "capabilities": {"tools": {"listChanged": True}},
                     "serverInfo": {"name": "scripted", "version": "1"}})
    elif method == "tools/list":
        start = int((msg.get("params") or {}).get("cursor") or 0)
        page = {"tools": TOOLS[start:start + PAGE]}
        if start + PAGE < len(TOOLS):
            page["nextCursor"] = str(start + PAGE)
        result(mid, page)
    elif method == "tools/call":
        call(mid, msg["params"]["name"], msg["params"].get("arguments") or {})
    elif method == "test/huge":
        sys.stdout.write(huge_line(mid, (msg.get("params") or {}).get("bytes", 1 << 20), False) + "\n")
        sys.stdout.flush()
    else:
        result(mid, {})
