"""Hostile inputs: a clear error, never a crash or a hang."""

import pytest

import toolschema

DEPTH = toolschema.MAX_INSTANCE_DEPTH


def nest(n, leaf=None):
    v = leaf
    for _ in range(n):
        v = [v]
    return v


def test_deep_instances_refused_clearly():
    v = toolschema.Validator({"items": {"$ref": "#"}})
    assert v.is_valid(nest(DEPTH - 1))
    with pytest.raises(ValueError, match="nesting deeper than 127"):
        v.is_valid(nest(DEPTH + 1))
    with pytest.raises(ValueError, match="nesting deeper than 127"):
        v.is_valid(nest(100_000))
    # The text path draws the same line.
    assert v.is_valid_json("[" * (DEPTH - 1) + "]" * (DEPTH - 1))
    with pytest.raises(toolschema.JsonError):
        v.is_valid_json("[" * 100_000)


def test_cycles_named_as_such():
    a = []
    a.append(a)
    with pytest.raises(TypeError, match=r"not JSON at /0: a container that contains itself"):
        toolschema.Validator({}).is_valid(a)
    d = {"x": {}}
    d["x"]["back"] = d
    with pytest.raises(TypeError, match=r"at /x/back: a container that contains itself"):
        toolschema.Validator({}).validate(d)


def test_shared_containers_are_bounded():
    # 60 levels of [x, x] are 120 list objects but 2^60 values as JSON: refused by count,
    # promptly, rather than walked.
    x = []
    for _ in range(60):
        x = [x, x]
    with pytest.raises(ValueError, match="more than 67108864 values"):
        toolschema.Validator({}).is_valid(x)
    # Shared but small is fine.
    y = {"a": 1}
    assert toolschema.Validator({"type": "array"}).is_valid([y, y, y])


def test_huge_integers():
    v = toolschema.Validator({"type": "integer", "maximum": 1e300})
    assert v.is_valid(10**200)
    assert not v.is_valid(10**301)
    with pytest.raises(ValueError, match="past the range of a JSON number"):
        v.is_valid(10**400)
    with pytest.raises(ValueError):
        v.is_valid({"a": [-(10**5000)]})


def test_large_and_wide_instances():
    v = toolschema.Validator({"type": "object", "additionalProperties": {"type": "integer"}, "required": ["k99999"]})
    big = {f"k{i}": i for i in range(100_000)}
    assert v.is_valid(big)
    big["k5"] = "x"
    assert not v.is_valid(big)
    assert v.is_valid_json(b'{"k99999": 1, "a": "' + b"x" * 10_000_000 + b'"}') is False


def test_hostile_schemas():
    # Past the instance cap the schema is refused as a value; within it, by max_depth.
    with pytest.raises(ValueError, match="nesting deeper than 127"):
        toolschema.Validator(nest(10_000, {}))
    with pytest.raises(toolschema.SchemaError):
        toolschema.Validator({"not": nest(100, {})})
    with pytest.raises(toolschema.SchemaError):
        toolschema.Validator({"pattern": "("})
    with pytest.raises(TypeError):
        toolschema.Validator({"const": {1, 2}})
    s = {}
    s["not"] = s
    with pytest.raises((TypeError, ValueError)):
        toolschema.Validator(s)
    # Exponential schemas hit the step budget, they do not hang.
    doubling = {"allOf": [{"prefixItems": [{"$ref": "#"}]}, {"prefixItems": [{"$ref": "#"}]}]}
    v = toolschema.Validator(doubling)
    assert v.is_valid(nest(60)) in (True, False)
