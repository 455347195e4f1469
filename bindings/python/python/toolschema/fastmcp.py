"""Contracts for FastMCP servers: :class:`ContractMiddleware` checks every `tools/call`
against the tool's *published* schemas with toolschema.

    from fastmcp import FastMCP
    from toolschema.fastmcp import ContractMiddleware

    mcp = FastMCP("weather", middleware=[ContractMiddleware()])

Before the tool runs, the call's arguments are checked against the tool's `inputSchema`
(what clients see in `tools/list`, not only the pydantic model behind it); invalid ones
are refused as the negotiated protocol version expects: a JSON-RPC `-32602` error up to
2025-06-18, an `isError` result from 2025-11-25 on. After it, a result's
`structuredContent` is checked against the `outputSchema`; a mismatch becomes an
`isError` result (or what `output_policy` says). Refusals name locations and keywords,
never a value. These are the rules `toolschema serve` applies.
"""

from __future__ import annotations

import logging
from typing import Any

from fastmcp.exceptions import McpError
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp_types import TextContent

from ._contracts import ContractCache, Reporter, refusal_text
from ._toolschema import ToolContract

__all__ = ["ContractMiddleware"]

logger = logging.getLogger("toolschema.fastmcp")


class ContractMiddleware(Middleware):
    """FastMCP middleware holding each tool to its published input and output schemas.

    Args:
        check_results: check `structuredContent` against the output schema (default True).
        output_policy: what a result breaking its output schema becomes: "error_result"
            (an `isError` result naming the locations; default), a JSON-RPC error code
            (e.g. -32603), "log" (reported, passed on) or "pass".
        static_tools: the tool set never changes after the first call: a tool's contract
            is compiled on its first call and reused without asking FastMCP for the tool
            again (saves FastMCP's lookup, tens of µs per call). By default every call
            looks the tool up and compiles again only when its schemas changed.
        on_violation: called with the violations record (tool, direction, each location,
            keyword and reason; never a value) of every refused call or result; by default
            they are logged at WARNING on the "toolschema.fastmcp" logger.
        **options: compile options for the schemas (`assert_formats`,
            `refs_fragment_only`, `max_depth`, `max_subschemas`).
    """

    def __init__(
        self,
        *,
        check_results: bool = True,
        output_policy: str | int = "error_result",
        static_tools: bool = False,
        on_violation: Reporter | None = None,
        **options: Any,
    ) -> None:
        self.check_results = check_results
        self.output_policy = output_policy
        self.static_tools = static_tools
        self.on_violation = on_violation
        self._contracts = ContractCache(**options)

    def _report(self, refusal: dict[str, Any]) -> None:
        record = refusal["violations"]
        if self.on_violation is not None:
            self.on_violation(record)
        else:
            logger.warning("toolschema contract: %s", record)

    async def _contract(self, context: MiddlewareContext[Any], name: str) -> ToolContract | None:
        if self.static_tools:
            contract = self._contracts.cached(name)
            if contract is not None:
                return contract
        ctx = context.fastmcp_context
        if ctx is None:
            return None
        tool = await ctx.fastmcp.get_tool(name)
        if tool is None:
            return None
        return self._contracts.get(name, tool.parameters, tool.output_schema)

    async def on_list_tools(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        tools = await call_next(context)
        # Compile what was listed (the schemas clients now hold); forget what was not.
        try:
            names = set()
            for tool in tools:
                names.add(tool.name)
                self._contracts.get(tool.name, tool.parameters, tool.output_schema)
            self._contracts.retain(names)
        except Exception:  # a tool FastMCP lists is not ours to refuse here
            logger.exception("toolschema: compiling listed tools")
        return tools

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        params = context.message
        contract = await self._contract(context, params.name)
        if contract is None:
            # Unknown tool: FastMCP answers it.
            return await call_next(context)
        ctx = context.fastmcp_context
        rc = ctx.request_context if ctx is not None else None
        version = getattr(rc, "protocol_version", None) if rc is not None else None
        refusal = contract.check_arguments(params.arguments, version)
        if refusal is not None:
            self._report(refusal)
            return _answer(refusal)
        result = await call_next(context)
        if not self.check_results or not contract.has_output_schema:
            return result
        if not isinstance(result, ToolResult):
            return result
        refusal = contract.check_result(
            result.structured_content,
            is_error=bool(getattr(result, "is_error", False)),
            protocol_version=version,
            policy=self.output_policy,
        )
        if refusal is None:
            return result
        self._report(refusal)
        if "error" in refusal or "result" in refusal:
            return _answer(refusal)
        return result


def _answer(refusal: dict[str, Any]) -> ToolResult:
    if "error" in refusal:
        e = refusal["error"]
        raise McpError(e["code"], e["message"], e["data"])
    return ToolResult(content=[TextContent(type="text", text=refusal_text(refusal))], is_error=True)
