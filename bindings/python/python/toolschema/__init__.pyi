from collections.abc import Iterator, Mapping
from typing import Any, Literal

ENGINE_VERSION: str
MAX_INSTANCE_DEPTH: int
__version__: str

class ValidationError(ValueError):
    """An instance does not conform. Never carries a value of the instance."""

    message: str
    instance_location: str
    keyword_location: str
    absolute_keyword_location: str
    kind: str

class SchemaError(ValueError):
    """A schema does not compile."""

    message: str
    location: str
    kind: str
    violations: list[dict[str, str]]

class JsonError(ValueError):
    """JSON text is malformed (or nests deeper than 127 levels)."""

    offset: int
    line: int
    column: int

Draft = Literal["2020-12", "2019-09", "7", "6", "4", 7, 6, 4]
Output = Literal["flag", "basic", "detailed", "verbose"]

class Validator:
    """A compiled JSON Schema; immutable and safe to share between threads."""

    def __init__(
        self,
        schema: Any,
        *,
        draft: Draft | str | int | None = None,
        assert_formats: bool = False,
        assert_content: bool = False,
        refs_fragment_only: bool = False,
        max_depth: int = 64,
        max_subschemas: int = 10000,
        documents: Mapping[str, Any] | None = None,
    ) -> None: ...
    def is_valid(self, instance: Any) -> bool:
        """Whether `instance` conforms (read in place; TypeError for non-JSON values)."""
    def validate(self, instance: Any) -> None:
        """Raises ValidationError (the first error) unless `instance` conforms."""
    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        """Every error of `instance`, not raised."""
    def evaluate(self, instance: Any, output: Output = "basic") -> dict[str, Any]:
        """The standard output format of evaluating `instance`."""
    def is_valid_json(self, data: str | bytes | bytearray) -> bool:
        """Whether JSON text conforms; the GIL is released. JsonError if malformed."""
    def validate_json(self, data: str | bytes | bytearray) -> None:
        """`validate` for JSON text; the GIL is released."""

def validator_for(
    schema: Any,
    *,
    draft: Draft | str | int | None = None,
    assert_formats: bool = False,
    assert_content: bool = False,
    refs_fragment_only: bool = False,
    max_depth: int = 64,
    max_subschemas: int = 10000,
    documents: Mapping[str, Any] | None = None,
) -> Validator: ...
def is_valid(schema: Any, instance: Any, *, draft: Draft | str | int | None = None, assert_formats: bool = False) -> bool: ...
def validate(schema: Any, instance: Any, *, draft: Draft | str | int | None = None, assert_formats: bool = False) -> None: ...

class ToolContract:
    """One listed MCP tool's schemas compiled once, with `toolschema serve`'s rules."""

    def __init__(
        self,
        tool: Mapping[str, Any],
        *,
        assert_formats: bool = False,
        refs_fragment_only: bool = False,
        max_depth: int = 64,
        max_subschemas: int = 10000,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def problems(self) -> list[str]: ...
    @property
    def has_input_schema(self) -> bool: ...
    @property
    def has_output_schema(self) -> bool: ...
    def wraps_output(self, protocol_version: str | None = None) -> bool: ...
    def check_arguments(self, arguments: Any, protocol_version: str | None = None) -> dict[str, Any] | None: ...
    def check_result(
        self,
        structured_content: Any,
        *,
        is_error: bool = False,
        protocol_version: str | None = None,
        policy: str | int | None = None,
    ) -> dict[str, Any] | None: ...
