"""Schemas are compiled once per listed tool and again when the tool list changes: the
shared cache, and ContractMiddleware in an in-process FastMCP server whose tool is
replaced by one with another schema."""

import anyio
import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError

from toolschema._contracts import ContractCache
from toolschema.fastmcp import ContractMiddleware


def test_cache_reuses_and_recompiles():
    cache = ContractCache()
    schema = {"type": "object", "required": ["a"]}
    first = cache.get("t", schema, None)
    assert cache.get("t", schema, None) is first
    assert cache.get("t", {"type": "object", "required": ["a"]}, None) is first  # equal schema
    changed = cache.get("t", {"type": "object", "required": ["b"]}, None)
    assert changed is not first
    assert changed.check_arguments({"a": 1}, "2025-11-25") is not None
    cache.get("u", {}, None)
    cache.retain({"u"})
    assert cache.cached("t") is None and cache.cached("u") is not None and len(cache) == 1


@pytest.mark.parametrize("static", [False, True])
def test_middleware_follows_a_replaced_tool(static):
    seen = []
    mcp = FastMCP("swap", middleware=[ContractMiddleware(static_tools=static, on_violation=seen.append)])

    def first(x: int) -> int:
        return x

    def second(y: str) -> str:
        return y

    mcp.add_tool(FastMCP("tmp").tool(first, name="t"))

    async def run():
        async with Client(mcp) as c:
            assert (await c.call_tool("t", {"x": 1})).data == 1
            with pytest.raises(ToolError):
                await c.call_tool("t", {"x": "SECRET"})
            assert seen[-1]["errors"][0]["location"] == "/x" and "SECRET" not in str(seen)
            mcp.local_provider.remove_tool("t")
            mcp.add_tool(FastMCP("tmp").tool(second, name="t"))
            await c.list_tools()  # the new list: the middleware compiles what was listed
            assert (await c.call_tool("t", {"y": "ok"})).data == "ok"
            with pytest.raises(ToolError):
                await c.call_tool("t", {"y": 5})
            assert seen[-1]["errors"][0]["location"] == "/y"

    anyio.run(run)
