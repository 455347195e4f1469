"""toolschema: a fast, redaction-safe JSON Schema validator (2020-12, 2019-09, draft 7,
6 and 4) for the schemas MCP tools publish, with contracts for FastMCP
(:mod:`toolschema.fastmcp`) and the MCP Python SDK (:mod:`toolschema.mcp`).

    >>> import toolschema
    >>> v = toolschema.Validator({"type": "object", "required": ["city"]})
    >>> v.is_valid({"city": "Paris"})
    True
    >>> v.is_valid_json(b'{}')
    False

Errors name locations (JSON Pointers) and keywords, never a value of the instance.
"""

from ._toolschema import (
    ENGINE_VERSION,
    MAX_INSTANCE_DEPTH,
    JsonError,
    SchemaError,
    ToolContract,
    ValidationError,
    Validator,
    is_valid,
    validate,
    validator_for,
)

__version__ = "0.1.0"

__all__ = [
    "ENGINE_VERSION",
    "MAX_INSTANCE_DEPTH",
    "JsonError",
    "SchemaError",
    "ToolContract",
    "ValidationError",
    "Validator",
    "is_valid",
    "validate",
    "validator_for",
]
