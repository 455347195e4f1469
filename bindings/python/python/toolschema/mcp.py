"""Contracts for the MCP Python SDK (`mcp` 2.3.x), with toolschema in place of
python-jsonschema.

Client: the SDK's `ClientSession` checks each `CallToolResult` against the tool's
`outputSchema` with python-jsonschema. :func:`install` (or :class:`ClientSession`)
makes the same check, with the same `RuntimeError`s, through toolschema:

    from toolschema.mcp import install
    async with ClientSession(read, write) as session:
        install(session)

Low-level server: the SDK's `Server` no longer checks arguments. :func:`checked_handlers`
wraps your `on_list_tools`/`on_call_tool` so that every call is checked against the
listed tool's schemas before your handler runs, and its result after, with the rules
`toolschema serve` applies:

    from toolschema.mcp import checked_handlers
    on_list_tools, on_call_tool = checked_handlers(list_tools, call_tool)
    server = Server("demo", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable

import mcp_types as types
from mcp import ClientSession as _SdkClientSession
from mcp import MCPError

from ._contracts import ContractCache, Reporter, refusal_text
from ._toolschema import SchemaError, Validator

__all__ = ["ClientSession", "checked_handlers", "install"]

logger = logging.getLogger("toolschema.mcp")


async def _validate_tool_result(session: Any, cache: dict[str, Any], name: str, result: Any) -> None:
    # The SDK's own rules (`ClientSession.validate_tool_result`), toolschema's check.
    if name not in session._tool_output_schemas:
        await session.list_tools()
    if name not in session._tool_output_schemas:
        logger.warning(f"Tool {name} not listed by server, cannot validate any structured content")
        return
    output_schema = session._tool_output_schemas.get(name)
    if output_schema is None:
        return
    if result.structured_content is None and "structured_content" not in result.model_fields_set:
        raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
    entry = cache.get(name)
    if entry is None or entry[0] is not output_schema:
        try:
            validator = Validator(output_schema, refs_fragment_only=True)
        except SchemaError as e:
            raise RuntimeError(f"Invalid schema for tool {name}: {e}") from e
        entry = cache[name] = (output_schema, validator)
    validator = entry[1]
    if validator.is_valid(result.structured_content):
        return
    for error in validator.iter_errors(result.structured_content):
        raise RuntimeError(f"Invalid structured content returned by tool {name}: {error}") from error


def install(session: _SdkClientSession) -> _SdkClientSession:
    """Has `session` check tool results with toolschema (compiled once per listed
    output schema, recompiled when `tools/list` returns another). Returns `session`."""
    cache: dict[str, Any] = {}

    async def validate_tool_result(name: str, result: types.CallToolResult) -> None:
        await _validate_tool_result(session, cache, name, result)

    session.validate_tool_result = validate_tool_result  # type: ignore[method-assign]
    return session


class ClientSession(_SdkClientSession):
    """The SDK's `ClientSession`, checking tool results with toolschema."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._toolschema_validators: dict[str, Any] = {}

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        await _validate_tool_result(self, self._toolschema_validators, name, result)


ListTools = Callable[[Any, Any], Awaitable[types.ListToolsResult]]
CallTool = Callable[[Any, types.CallToolRequestParams], Awaitable[Any]]


def _dump(schema: Any) -> Any:
    return schema.model_dump(by_alias=True, exclude_none=True) if hasattr(schema, "model_dump") else schema


def checked_handlers(
    on_list_tools: ListTools,
    on_call_tool: CallTool,
    *,
    check_results: bool = True,
    output_policy: str | int = "error_result",
    on_violation: Reporter | None = None,
    **options: Any,
) -> tuple[ListTools, CallTool]:
    """Wraps a low-level server's tool handlers with the tools' contracts.

    Each tool returned by `on_list_tools` has its schemas compiled once (again when they
    change; a tool no longer listed is forgotten). A call to a tool not yet seen lists the
    tools first. Arguments are refused before `on_call_tool` runs (a JSON-RPC `-32602`
    error up to 2025-06-18, an `isError` result from 2025-11-25 on); a result whose
    `structuredContent` breaks the output schema becomes what `output_policy` says
    ("error_result", a JSON-RPC error code, "log" or "pass"). Violations (locations,
    keywords, reasons; never a value) go to `on_violation`, else the log.
    """
    cache = ContractCache(**options)

    def report(refusal: dict[str, Any]) -> None:
        if on_violation is not None:
            on_violation(refusal["violations"])
        else:
            logger.warning("toolschema contract: %s", refusal["violations"])

    def answer(refusal: dict[str, Any]) -> types.CallToolResult:
        if "error" in refusal:
            e = refusal["error"]
            raise MCPError(e["code"], e["message"], e["data"])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=refusal_text(refusal))], is_error=True
        )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        result = await on_list_tools(ctx, params)
        names = set()
        for tool in result.tools:
            names.add(tool.name)
            cache.get(tool.name, _dump(tool.input_schema), _dump(tool.output_schema))
        if params is None or getattr(params, "cursor", None) is None:
            if result.next_cursor is None:
                cache.retain(names)
        return result

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        contract = cache.cached(params.name)
        if contract is None:
            await list_tools(ctx, None)
            contract = cache.cached(params.name)
        if contract is None:
            return await on_call_tool(ctx, params)
        version = getattr(ctx, "protocol_version", None)
        refusal = contract.check_arguments(params.arguments, version)
        if refusal is not None:
            report(refusal)
            return answer(refusal)
        result = await on_call_tool(ctx, params)
        if not check_results or not contract.has_output_schema or not isinstance(result, types.CallToolResult):
            return result
        refusal = contract.check_result(
            result.structured_content,
            is_error=bool(result.is_error),
            protocol_version=version,
            policy=output_policy,
        )
        if refusal is None:
            return result
        report(refusal)
        if "error" in refusal or "result" in refusal:
            return answer(refusal)
        return result

    return list_tools, call_tool
