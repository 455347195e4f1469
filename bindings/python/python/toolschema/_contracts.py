"""The cache both MCP integrations share: one compiled ToolContract per listed tool,
recompiled when the tool's published schemas change."""

from __future__ import annotations

from typing import Any, Callable

from ._toolschema import ToolContract


class ContractCache:
    """Compiled contracts by tool name. A contract is reused while the tool's published
    `inputSchema` and `outputSchema` are the same objects (or equal ones); a changed
    schema compiles again, a tool no longer listed is dropped by `retain`."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._entries: dict[str, tuple[Any, Any, ToolContract]] = {}

    def get(self, name: str, input_schema: Any, output_schema: Any) -> ToolContract:
        entry = self._entries.get(name)
        if entry is not None:
            if entry[0] is input_schema and entry[1] is output_schema:
                return entry[2]
            if entry[0] == input_schema and entry[1] == output_schema:
                self._entries[name] = (input_schema, output_schema, entry[2])
                return entry[2]
        tool: dict[str, Any] = {"name": name, "inputSchema": input_schema}
        if output_schema is not None:
            tool["outputSchema"] = output_schema
        contract = ToolContract(tool, **self._options)
        self._entries[name] = (input_schema, output_schema, contract)
        return contract

    def cached(self, name: str) -> ToolContract | None:
        entry = self._entries.get(name)
        return entry[2] if entry is not None else None

    def retain(self, names: set[str]) -> None:
        for name in [n for n in self._entries if n not in names]:
            del self._entries[name]

    def __len__(self) -> int:
        return len(self._entries)


def refusal_text(refusal: dict[str, Any]) -> str:
    """The text of an `isError` refusal's first content block."""
    for block in refusal["result"].get("content") or []:
        if block.get("type") == "text":
            return block.get("text", "")
    return ""


Reporter = Callable[[dict[str, Any]], None]
