"""The package's API: the conventions of python-jsonschema and jsonschema-rs."""

import collections
import json
import threading
import types

import pytest

import toolschema

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer", "maximum": 3}, "s": {"type": "string", "minLength": 2}},
    "required": ["n"],
}


def test_is_valid_and_validate():
    v = toolschema.Validator(SCHEMA)
    assert v.is_valid({"n": 1, "s": "ab"})
    assert not v.is_valid({"n": 5})
    assert v.validate({"n": 1}) is None
    with pytest.raises(toolschema.ValidationError) as caught:
        v.validate({"n": 5, "s": "SECRET"})
    e = caught.value
    assert isinstance(e, ValueError)
    assert e.instance_location == "/n"
    assert e.keyword_location == "/properties/n/maximum"
    assert e.kind == "maximum"
    assert e.message == "must be at most 3"
    assert str(e) == "/n: must be at most 3"


def test_errors_never_quote_a_value():
    v = toolschema.Validator({"properties": {"a": {"enum": ["x"]}, "b": {"pattern": "^z"}, "c": {"type": "integer"}}})
    instance = {"a": "SECRET1", "b": "SECRET2", "c": "SECRET3"}
    errors = list(v.iter_errors(instance))
    assert {e.instance_location for e in errors} == {"/a", "/b", "/c"}
    text = " ".join(str(e) + e.message for e in errors) + json.dumps(v.evaluate(instance, output="verbose"))
    assert "SECRET" not in text


def test_module_level_one_offs_and_validator_for():
    assert toolschema.is_valid({"type": "string"}, "x")
    assert not toolschema.is_valid({"type": "string"}, 1)
    with pytest.raises(toolschema.ValidationError):
        toolschema.validate({"type": "string"}, 1)
    v = toolschema.validator_for({"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 3, "exclusiveMaximum": True})
    assert not v.is_valid(3)  # draft 4's boolean exclusiveMaximum


def test_draft_option():
    schema = {"items": [{"type": "string"}]}
    assert not toolschema.Validator(schema, draft="7").is_valid([1])
    assert not toolschema.Validator(schema, draft=7).is_valid([1])
    with pytest.raises(ValueError):
        toolschema.Validator(schema, draft="3")


def test_iter_errors_and_evaluate_formats():
    v = toolschema.Validator(SCHEMA)
    errors = list(v.iter_errors({"n": "x", "s": "y"}))
    assert [e.instance_location for e in errors] == ["/n", "/s"]
    assert list(v.iter_errors({"n": 1})) == []
    assert v.evaluate({"n": 1}, output="flag") == {"valid": True}
    basic = v.evaluate({"n": 5})
    assert basic["valid"] is False
    assert basic["errors"][0]["instanceLocation"] == "/n"
    assert v.evaluate({"n": 5}, output="detailed")["valid"] is False
    assert v.evaluate({"n": 5}, output="verbose")["valid"] is False
    with pytest.raises(ValueError):
        v.evaluate({}, output="nope")


def test_json_text_paths():
    v = toolschema.Validator(SCHEMA)
    assert v.is_valid_json('{"n": 1}')
    assert v.is_valid_json(b'{"n": 1}')
    assert v.is_valid_json(bytearray(b'{"n": 1}'))
    assert not v.is_valid_json(b'{"n": 9}')
    with pytest.raises(toolschema.JsonError) as caught:
        v.is_valid_json(b'{"n": 1')
    assert caught.value.offset == 7
    with pytest.raises(toolschema.ValidationError) as caught:
        v.validate_json(b'{"n": 9}')
    assert caught.value.instance_location == "/n"
    with pytest.raises(TypeError):
        v.is_valid_json(5)


def test_schema_error():
    with pytest.raises(toolschema.SchemaError) as caught:
        toolschema.Validator({"properties": {"a": {"minLength": -1}}})
    assert caught.value.location == "/properties/a/minLength"
    assert caught.value.kind == "InvalidKeyword"
    with pytest.raises(toolschema.SchemaError) as caught:
        toolschema.Validator({"$ref": "https://example.com/x"}, refs_fragment_only=True)
    assert caught.value.kind == "ForbiddenReference"
    with pytest.raises(toolschema.SchemaError) as caught:
        toolschema.Validator({"a": {"a": {"a": {}}}}, max_depth=2)
    assert caught.value.kind == "DepthExceeded"


def test_documents_and_formats():
    v = toolschema.Validator({"$ref": "https://example.com/point"}, documents={"https://example.com/point": {"type": "object", "required": ["x"]}})
    assert v.is_valid({"x": 1}) and not v.is_valid({})
    assert toolschema.Validator({"format": "email"}).is_valid("nope")
    assert not toolschema.Validator({"format": "email"}, assert_formats=True).is_valid("nope")


def test_python_types_read_in_place():
    v = toolschema.Validator({"type": "array", "items": {"type": "object", "properties": {"k": {"const": [1, 2]}}}})
    assert v.is_valid(({"k": (1, 2)},))  # tuples are arrays
    assert v.is_valid([collections.OrderedDict(k=[1, 2])])  # dict subclasses
    assert v.is_valid([types.MappingProxyType({"k": [1, 2]})])  # other Mappings
    assert v.is_valid([{"k": collections.UserList([1, 2])}])  # other Sequences
    assert not v.is_valid([{"k": [1, 3]}])
    assert toolschema.is_valid({"type": "integer"}, True) is False  # bool is not an integer
    assert toolschema.is_valid({"type": "integer"}, 1.0)  # 1.0 is an integer in JSON Schema
    assert toolschema.is_valid({"minimum": 10**20}, 10**21)
    assert toolschema.is_valid({"const": 18446744073709551616}, 2**64)
    assert toolschema.is_valid({"uniqueItems": True}, [1, 1.0]) is False

    class Label(str):
        pass

    assert toolschema.is_valid({"required": ["a"]}, {Label("a"): 1})
    assert toolschema.is_valid({"maxLength": 2}, Label("ab"))


@pytest.mark.parametrize(
    "value, fragment",
    [
        ({"a": {1, 2}}, "/a: a value of type set"),
        ({"a": [b"x"]}, "/a/0: a value of type bytes"),
        ({"a": float("nan")}, "/a: NaN"),
        ({"a": float("inf")}, "/a: NaN and infinities"),
        ({"a": {1: "x"}}, "/a: an object key of type int"),
        ({"a~/b": object()}, "/a~0~1b: a value of type object"),
        ({"a": "\ud800"}, "/a: a string with a lone surrogate"),
    ],
)
def test_non_json_values_name_the_location(value, fragment):
    v = toolschema.Validator({})
    for call in (v.is_valid, v.validate, v.iter_errors, v.evaluate):
        with pytest.raises(TypeError) as caught:
            call(value)
        assert fragment in str(caught.value)


def test_thread_safe_sharing():
    v = toolschema.Validator(SCHEMA)
    docs = [b'{"n": %d}' % i for i in range(200)]
    results = {}

    def work(k):
        results[k] = [v.is_valid_json(d) for d in docs] + [v.is_valid({"n": i}) for i in range(200)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = [i <= 3 for i in range(200)] * 2
    assert all(r == expected for r in results.values()) and len(results) == 4


def test_tool_contract_rules():
    tool = {
        "name": "get_weather",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}}, "required": ["city"]},
        "outputSchema": {"type": "object", "required": ["temp"]},
    }
    c = toolschema.ToolContract(tool)
    assert c.name == "get_weather" and c.has_input_schema and c.has_output_schema and c.problems == []
    assert c.check_arguments({"city": "Paris"}, "2025-11-25") is None
    old = c.check_arguments({"city": ""}, "2025-06-18")
    assert old["error"]["code"] == -32602 and "/city" in old["error"]["message"]
    new = c.check_arguments({"city": ""}, "2025-11-25")
    assert new["result"]["isError"] is True and "/city" in new["result"]["content"][0]["text"]
    assert new["violations"]["errors"][0] == {"location": "/city", "keyword": "minLength", "reason": new["violations"]["errors"][0]["reason"]}
    assert c.check_arguments(None, "2025-11-25")["violations"]["errors"][0]["keyword"] == "required"
    assert c.check_arguments([1], "2025-11-25") is not None
    assert c.check_result({"temp": 1}) is None
    assert c.check_result({}, is_error=True) is None
    assert c.check_result({})["result"]["isError"] is True
    assert c.check_result(None)["violations"]["errors"][0]["keyword"] == "outputSchema"
    assert c.check_result({}, policy=-32603)["error"]["code"] == -32603
    logged = c.check_result({}, policy="log")
    assert "result" not in logged and "error" not in logged and logged["violations"]["direction"] == "result"
    assert c.check_result({}, policy="pass") is None
    broken = toolschema.ToolContract({"name": "b", "inputSchema": {"type": 5}})
    assert broken.problems and not broken.has_input_schema
