"""Drives `toolschema serve` with the official Python MCP SDK (pinned in MCP_SDK_VERSION).

usage: client_test.py BIN MOCK_TOOLS_JSON CORPUS_DIR

Checks, at protocol 2025-06-18, 2025-11-25 and 2026-07-28: paginated listing, valid calls,
version-specific refusal of invalid arguments (never quoting a value), unknown tool, a result
that breaks its output schema, non-object structuredContent, cancellation of a slow call.
Then serves the whole corpus: every tool is listed, accepts one generated valid argument
object and refuses one generated invalid object. Prints one line per check, then
"N passed, N failed"; exits 1 on any failure.
"""

import copy
import json
import os
import sys
import time

import anyio
import jsonschema
import mcp_types as types
import mcp.client.session as session_module
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

BIN, MOCK, CORPUS = sys.argv[1], sys.argv[2], sys.argv[3]
VERSIONS = ["2025-06-18", "2025-11-25", "2026-07-28"]
SECRET = "SECRET-d41d8cd98f"
RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f" -- {detail}"), flush=True)


def client(version, args, page_size=None):
    env = dict(os.environ)
    if page_size:
        env["TOOLSCHEMA_MCP_PAGE_SIZE"] = str(page_size)
    params = StdioServerParameters(command=BIN, args=args, env=env)
    if version == "2026-07-28":
        return Client(params, mode=version, cache=None, read_timeout_seconds=30)
    # The SDK offers its newest handshake version; pin the one under test.
    session_module.LATEST_HANDSHAKE_VERSION = version
    return Client(params, mode="legacy", cache=None, read_timeout_seconds=30)


def texts(result):
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


async def list_all(c):
    tools, cursor, pages = [], None, 0
    while True:
        page = await c.session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        pages += 1
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools, pages


async def expect_error(coro):
    try:
        result = await coro
    except MCPError as e:
        return e, None
    return None, result


async def demo_checks(v):
    async with client(v, ["serve"], page_size=2) as c:
        check(f"{v} negotiated", c.protocol_version == v, c.protocol_version)
        tools, pages = await list_all(c)
        names = [t.name for t in tools]
        check(f"{v} list paginates", pages == 2 and names == ["echo", "calculate_stats", "get_weather", "slow"], f"{pages} {names}")

        r = await c.call_tool("echo", {"message": "hello"})
        check(f"{v} echo", not r.is_error and texts(r) == ["hello"], r)
        r = await c.call_tool("calculate_stats", {"numbers": [4, 1, 3, 2]})
        check(f"{v} calculate_stats", r.structured_content == {"mean": 2.5, "median": 2.5, "count": 4}, r)
        r = await c.call_tool("get_weather", {"location": "Paris", "units": "fahrenheit"})
        sc = r.structured_content or {}
        check(f"{v} get_weather", set(sc) == {"temperature", "condition", "humidity"} and texts(r), r)

        err, r = await expect_error(c.call_tool("calculate_stats", {"numbers": [1, SECRET]}))
        if v == "2025-06-18":
            ok = err is not None and err.code == -32602 and "/numbers/1" in err.message and SECRET not in json.dumps(err.error.model_dump())
            check(f"{v} invalid arguments -> -32602", ok, err or r)
        else:
            body = " ".join(texts(r)) if r else ""
            ok = r is not None and r.is_error and "/numbers/1" in body and SECRET not in r.model_dump_json()
            check(f"{v} invalid arguments -> isError result", ok, err or r)

        err, r = await expect_error(c.call_tool("no_such_tool", {}))
        check(f"{v} unknown tool -> -32602", err is not None and err.code == -32602, err or r)

        # Cancellation: the slow call reports progress, is cancelled, and the server stays responsive.
        progress = []

        async def on_progress(p, total, message):
            progress.append(p)

        with anyio.move_on_after(1.0):
            await c.call_tool("slow", {"seconds": 20}, progress_callback=on_progress)
        started = time.monotonic()
        r = await c.call_tool("echo", {"message": "after cancel"})
        elapsed = time.monotonic() - started
        check(f"{v} cancel slow call", texts(r) == ["after cancel"] and elapsed < 2.0, f"{elapsed:.2f}s {r}")
        check(f"{v} progress notifications", len(progress) >= 1, progress)


async def mock_checks(v):
    async with client(v, ["serve", "--tools", MOCK]) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        # The server broke its own contract: an isError result naming the location, not
        # -32602 (which blames the request).
        err, r = await expect_error(c.call_tool("bad_output", {}))
        ok = err is None and r.is_error and "/count" in texts(r)[0] and "output schema" in texts(r)[0]
        check(f"{v} output schema violation -> isError result", ok, err or r)

        listed = tools["list_numbers"].output_schema
        r = await c.call_tool("list_numbers", {})
        if v == "2026-07-28":
            ok = listed.get("type") == "array" and r.structured_content == [1, 2, 3] and texts(r) == ["[1,2,3]"]
        else:
            ok = listed.get("type") == "object" and r.structured_content == {"result": [1, 2, 3]} and texts(r) == ["[1,2,3]"]
        check(f"{v} non-object structuredContent", ok, f"{listed} {r}")

        err, r = await expect_error(c.call_tool("store_secret", {"token": SECRET, "ttl": SECRET, "extra": SECRET}))
        wire = json.dumps(err.error.model_dump()) if err else (r.model_dump_json() if r else "")
        check(f"{v} refusal never quotes values", SECRET not in wire and ("/token" in wire), wire)


# ---- corpus: generate one valid and one invalid argument object per tool ----

def resolve(ref, root):
    node = root
    for part in ref.lstrip("#").split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def gen(schema, root, depth=0):
    if depth > 20 or schema is True or not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    if schema.get("examples"):
        return schema["examples"][0]
    if "$ref" in schema:
        return gen(resolve(schema["$ref"], root), root, depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        if schema.get(key):
            merged = {k: v for k, v in schema.items() if k != key}
            parts = schema[key] if key == "allOf" else schema[key][:1]
            for part in parts:
                part = resolve(part["$ref"], root) if "$ref" in part else part
                for k, v in part.items():
                    if k == "properties":
                        merged.setdefault("properties", {}).update(v)
                    elif k == "required":
                        merged["required"] = list(dict.fromkeys(merged.get("required", []) + v))
                    else:
                        merged.setdefault(k, v)
            return gen(merged, root, depth + 1)
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "null")
    if t is None:
        t = "object" if ("properties" in schema or "required" in schema) else "string"
    if t == "object":
        props = schema.get("properties", {})
        out = {}
        for name in schema.get("required", []):
            out[name] = gen(props.get(name, schema.get("additionalProperties", {})), root, depth + 1)
        return out
    if t == "array":
        n = schema.get("minItems", 0)
        items = schema.get("items", {})
        return [gen(items, root, depth + 1) for _ in range(n)] if n else []
    if t == "string":
        fmt = schema.get("format")
        return {"date-time": "2025-01-01T00:00:00Z", "date": "2025-01-01", "uri": "https://example.com/",
                "email": "user@example.com", "uuid": "00000000-0000-4000-8000-000000000000"}.get(
            fmt, "x" * max(1, schema.get("minLength", 1)))
    if t in ("integer", "number"):
        lo = schema.get("minimum", 0)
        if "exclusiveMinimum" in schema and isinstance(schema["exclusiveMinimum"], (int, float)):
            lo = max(lo, schema["exclusiveMinimum"] + 1)
        return int(lo) if t == "integer" else lo
    if t == "boolean":
        return True
    return None


def invalid_candidates(schema, valid):
    props = schema.get("properties", {})
    for name in schema.get("required", []):
        c = copy.deepcopy(valid)
        c.pop(name, None)
        yield c
    for name, sub in props.items():
        for bad in ([1, 2], {"k": 1}, 12345, "not-this", True):
            c = copy.deepcopy(valid)
            c[name] = bad
            yield c
    yield dict(valid, unexpected_property_zz=1)


def validator(schema):
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


async def corpus_checks(v):
    expected = 0
    for root, _, files in os.walk(CORPUS):
        expected += sum(f.endswith(".json") for f in files)
    async with client(v, ["serve", "--tools", CORPUS]) as c:
        tools, pages = await list_all(c)
        check(f"{v} corpus: all {expected} tools listed ({pages} pages)", len(tools) == expected, len(tools))
        accepted = refused = no_valid = no_invalid = task_only = 0
        failures = []
        for t in tools:
            schema = t.input_schema
            execution = getattr(t, "execution", None)
            if getattr(execution, "task_support", None) == "required":
                # A task-only tool (2025-11-25) called plainly gets -32601, as the spec says;
                # tests/tasks.rs and tests/talkback_interop.rs run it as a task.
                task_only += 1
                try:
                    await c.call_tool(t.name, {})
                    failures.append(f"{t.name}: task-only tool ran as a plain call")
                except MCPError as e:
                    if e.code != -32601:
                        failures.append(f"{t.name}: task-only tool refused with {e.code}")
                continue
            val = validator(schema)
            args = gen(schema, schema)
            if not isinstance(args, dict) or not val.is_valid(args):
                no_valid += 1
                failures.append(f"{t.name}: no valid example generated")
                continue
            r = await c.call_tool(t.name, args)
            if r.is_error:
                failures.append(f"{t.name}: refused a valid object: {texts(r)}")
            else:
                accepted += 1
            bad = next((b for b in invalid_candidates(schema, args) if not val.is_valid(b)), None)
            if bad is None:
                no_invalid += 1
                continue
            r = await c.call_tool(t.name, bad)
            if r.is_error and any("invalid arguments" in x for x in texts(r)):
                refused += 1
            else:
                failures.append(f"{t.name}: accepted an invalid object")
        print(f"corpus figures: listed={len(tools)} accepted_valid={accepted} refused_invalid={refused} "
              f"no_valid_example={no_valid} no_invalid_example={no_invalid} task_only={task_only}", flush=True)
        for f in failures[:20]:
            print("  " + f)
        check(f"{v} corpus: every generated valid object accepted", accepted == len(tools) - no_valid - task_only and no_valid == 0, failures[:5])
        check(f"{v} corpus: every generated invalid object refused", refused == len(tools) - no_valid - no_invalid - task_only, failures[:5])


async def main():
    for v in VERSIONS:
        await demo_checks(v)
        await mock_checks(v)
    await corpus_checks("2025-11-25")
    await corpus_checks("2026-07-28")


anyio.run(main)
failed = RESULTS.count(False)
print(f"{len(RESULTS) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
