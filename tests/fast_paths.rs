//! The fail-fast path (`is_valid`) takes shortcuts the reporting path does not: hoisted
//! `type` checks, signature lookups of property names, `required` counted during the
//! properties walk, `$ref`-only nodes forwarded, typed `items` tested inline. Each case
//! here must give the same answer on both paths, and the answer written beside it.

//!
//! Every verdict goes through `support::check`: every path, under the default and the
//! reference configuration, in both directions.

mod support;

use serde_json::{Value, json};
use support::{Both, CompileBoth, check};
use toolschema::{Draft, Options};

/// The default and the reference compilation of `schema` (see `support::compile`).
struct Schema;

impl Schema {
    #[track_caller]
    fn compile(schema: &Value) -> Result<Both, toolschema::SchemaError> {
        support::compile(schema)
    }
}

#[test]
fn required_counted_by_the_properties_walk() {
    for additional in [json!(true), json!(false), json!({"type": "integer"})] {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {}, "c": {"type": "array"}},
            "required": ["a", "c"],
            "additionalProperties": additional
        }))
        .unwrap();
        check(&schema, &json!({"a": "x", "c": []}), true);
        check(&schema, &json!({"a": "x"}), false);
        check(&schema, &json!({"c": []}), false);
        check(&schema, &json!({}), false);
        check(&schema, &json!({"a": "x", "b": 1}), false);
        check(&schema, &json!({"a": 1, "c": []}), false);
        check(&schema, &json!("not an object"), false);
    }
}

#[test]
fn required_names_not_all_declared_are_still_looked_up() {
    let schema = Schema::compile(&json!({
        "properties": {"a": {}, "b": {}},
        "required": ["a", "z"]
    }))
    .unwrap();
    check(&schema, &json!({"a": 1, "z": 2}), true);
    check(&schema, &json!({"a": 1, "b": 2}), false);
    check(&schema, &json!([]), true);
}

#[test]
fn repeated_required_names_are_refused() {
    // Counting required names during the walk relies on their being distinct.
    for draft in [Draft::Draft4, Draft::Draft7, Draft::Draft202012] {
        let result = Options::new().default_dialect(draft).compile_both(&json!({
            "properties": {"a": {}, "b": {}},
            "required": ["a", "a"]
        }));
        assert!(result.is_err(), "{draft:?}");
    }
}

#[test]
fn names_that_share_a_signature_shape() {
    // Same length, same first and last eight bytes: only the middle differs.
    let long_a = "prefix__AAAA__suffix";
    let long_b = "prefix__BBBB__suffix";
    let schema = Schema::compile(&json!({
        "properties": {long_a: {"type": "string"}, long_b: {"type": "integer"}},
        "required": [long_b],
        "additionalProperties": false
    }))
    .unwrap();
    check(&schema, &json!({long_b: 1}), true);
    check(&schema, &json!({long_b: 1, long_a: "x"}), true);
    check(&schema, &json!({long_b: "x"}), false);
    check(&schema, &json!({long_a: "x"}), false);
    check(
        &schema,
        &json!({long_b: 1, "prefix__CCCC__suffix": 0}),
        false,
    );
    check(&schema, &json!({long_b: 1, "": 0}), false);
}

#[test]
fn many_declared_names_use_the_sorted_table() {
    let mut props = serde_json::Map::new();
    for i in 0..40 {
        props.insert(format!("p{i}"), json!({"type": "integer"}));
    }
    let schema = Schema::compile(&json!({
        "properties": props,
        "required": ["p0", "p39"],
        "additionalProperties": false
    }))
    .unwrap();
    check(&schema, &json!({"p0": 1, "p39": 2, "p17": 3}), true);
    check(&schema, &json!({"p0": 1, "p39": 2, "p17": "x"}), false);
    check(&schema, &json!({"p0": 1, "p39": 2, "p40": 3}), false);
    check(&schema, &json!({"p0": 1}), false);
}

#[test]
fn hoisted_types_and_draft4_integers() {
    let schema = Schema::compile(&json!({"type": ["integer", "null"], "minimum": 2})).unwrap();
    check(&schema, &json!(3), true);
    check(&schema, &json!(3.0), true);
    check(&schema, &json!(3.5), false);
    check(&schema, &json!(null), true);
    check(&schema, &json!(1), false);
    check(&schema, &json!("3"), false);
    let draft4 = Options::new()
        .default_dialect(Draft::Draft4)
        .compile_both(&json!({"type": "integer"}))
        .unwrap();
    check(&draft4, &json!(3), true);
    check(&draft4, &json!(3.0), false);
    // Sets where draft-4 integer typing cannot tell are hoisted like any other; the
    // keyword still names `3.0` a number when it reports.
    let draft4 = |schema: Value| {
        Options::new()
            .default_dialect(Draft::Draft4)
            .compile_both(&schema)
            .unwrap()
    };
    let numbers = draft4(json!({"type": "number", "maximum": 5}));
    check(&numbers, &json!(3.0), true);
    check(&numbers, &json!(5), true);
    check(&numbers, &json!(5.5), false);
    check(&numbers, &json!("3"), false);
    let both = draft4(json!({"type": ["integer", "number"]}));
    check(&both, &json!(2.5), true);
    check(&both, &json!(2.0), true);
    let no_numbers = draft4(json!({"type": ["string", "null"]}));
    check(&no_numbers, &json!("a"), true);
    check(&no_numbers, &json!(null), true);
    check(&no_numbers, &json!(3.0), false);
    let message = |schema: &Both, instance: Value| {
        schema
            .validate(&instance)
            .unwrap_err()
            .iter()
            .next()
            .unwrap()
            .to_string()
    };
    assert!(message(&no_numbers, json!(3.0)).ends_with("not number"));
    assert!(message(&no_numbers, json!(3)).ends_with("not integer"));
    let later = Schema::compile(&json!({"type": ["string", "null"]})).unwrap();
    assert!(message(&later, json!(3.0)).ends_with("not integer"));
    let integers_or_strings = draft4(json!({"type": ["integer", "string"]}));
    check(&integers_or_strings, &json!(3), true);
    check(&integers_or_strings, &json!("3"), true);
    check(&integers_or_strings, &json!(3.0), false);
}

#[test]
fn reference_only_nodes_and_typed_items() {
    let schema = Schema::compile(&json!({
        "$defs": {
            "point": {"type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "number"}},
            "alias": {"$ref": "#/$defs/point"},
            "typedAlias": {"type": "array", "$ref": "#/$defs/alias"}
        },
        "type": "array",
        "items": {"$ref": "#/$defs/typedAlias"}
    }))
    .unwrap();
    check(&schema, &json!([[1, 2], [3.5, 4, 5]]), true);
    check(&schema, &json!([[1, 2], [3.5, "4"]]), false);
    check(&schema, &json!([[1]]), false);
    check(&schema, &json!([[1, 2, 3, 4]]), false);
    check(&schema, &json!([{"0": 1, "1": 2}]), false);
}

#[test]
fn branches_fail_on_their_cheap_property_whatever_the_key_order() {
    // `args` sorts before `op`; the `not` makes `op` no assertion-only schema.
    let schema = Schema::compile(&json!({
        "$defs": {
            "expr": {"oneOf": [
                {"type": "object", "required": ["op", "args"], "properties": {
                    "op": {"not": {"enum": ["lit"]}},
                    "args": {"type": "array", "items": {"$ref": "#/$defs/expr"}}
                }},
                {"type": "object", "required": ["op", "value"], "properties": {
                    "op": {"const": "lit"}, "value": {"type": "number"}
                }}
            ]}
        },
        "$ref": "#/$defs/expr"
    }))
    .unwrap();
    let mut deep = json!({"op": "lit", "value": 1});
    for _ in 0..30 {
        deep = json!({"op": "add", "args": [deep.clone(), {"op": "lit", "value": 2}]});
    }
    check(&schema, &deep, true);
    check(
        &schema,
        &json!({"op": "add", "args": [{"op": "lit", "value": "x"}]}),
        false,
    );
}

#[test]
fn objects_with_no_declared_names_beside_ones_that_require() {
    // An `additionalProperties` with no `properties` has an empty span of names, which may
    // start where a sibling's non-empty span does.
    let schema = Schema::compile(&json!({
        "properties": {
            "area_names": {"type": "object", "additionalProperties": {"type": "string"}},
            "events": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
                    "required": ["id", "name"]
                }
            },
            "blocks": {"type": "object", "patternProperties": {"^b": {"type": "integer"}}}
        },
        "required": ["area_names", "events"]
    }))
    .unwrap();
    let good = json!({
        "area_names": {"1": "a", "2": "b"},
        "events": {"e1": {"id": 1, "name": "x"}},
        "blocks": {"b1": 1}
    });
    check(&schema, &good, true);
    check(&schema, &json!({"area_names": {}, "events": {}}), true);
    check(&schema, &json!({"area_names": {}}), false);
    check(
        &schema,
        &json!({"area_names": {}, "events": {"e1": {"id": 1}}}),
        false,
    );
    check(
        &schema,
        &json!({"area_names": {"1": 2}, "events": {}}),
        false,
    );
}

#[test]
fn other_keys_under_a_schema_that_accepts_anything() {
    // `additionalProperties` of `{}`, `true` or every type leaves the other keys unchecked;
    // one that accepts less (a type missing, a keyword) must still see each of them.
    for others in [
        json!({}),
        json!(true),
        json!({"description": "any"}),
        json!({"type": ["null", "boolean", "number", "string", "array", "object"]}),
    ] {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {"meta": {"type": "object", "additionalProperties": others}},
            "required": ["meta"]
        }))
        .unwrap();
        check(&schema, &json!({"meta": {}}), true);
        check(
            &schema,
            &json!({"meta": {"a": 1, "b": [null], "c": {"d": "e"}}}),
            true,
        );
        check(&schema, &json!({"meta": [1]}), false);
        check(&schema, &json!({}), false);
    }
    for others in [
        json!({"type": ["null", "boolean", "number", "string", "array"]}),
        json!({"type": ["null", "boolean", "integer", "string", "array", "object"]}),
        json!({"not": {"type": "number"}}),
        json!({"minProperties": 1}),
        json!(false),
    ] {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {"meta": {"type": "object", "additionalProperties": others}},
            "minProperties": 1
        }))
        .unwrap();
        check(&schema, &json!({"meta": {}}), true);
        check(&schema, &json!({"meta": {"a": {}, "b": 2.5}}), false);
    }
    // With declared names, the others still pass and the names are still checked.
    let schema = Schema::compile(&json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": {},
        "required": ["a"],
        "maxProperties": 2
    }))
    .unwrap();
    check(&schema, &json!({"a": "x", "z": [1]}), true);
    check(&schema, &json!({"a": 1, "z": [1]}), false);
    check(&schema, &json!({"z": [1]}), false);
    check(&schema, &json!({"a": "x", "y": 1, "z": 2}), false);
}

#[test]
fn property_names_read_in_place() {
    let cases = [
        (
            json!({"pattern": "^.+$"}),
            json!({"a": 1, "b\u{e9}": 2}),
            true,
        ),
        (json!({"pattern": "^.+$"}), json!({"": 1}), false),
        (json!({"pattern": "^.+$"}), json!({"a\nb": 1}), false),
        (json!({"maxLength": 2}), json!({"\u{e9}\u{e9}": 1}), true),
        (json!({"maxLength": 2}), json!({"abc": 1}), false),
        (json!({"minLength": 2}), json!({"\u{e9}": 1}), false),
        (json!({"minLength": 2}), json!({"ab": 1, "cd": 2}), true),
        (
            json!({"enum": ["a", 1, "b"]}),
            json!({"a": 1, "b": 2}),
            true,
        ),
        (
            json!({"enum": ["a", 1, "b"]}),
            json!({"a": 1, "1": 2}),
            false,
        ),
        (json!({"const": "only"}), json!({"only": 1}), true),
        (json!({"const": "only"}), json!({"other": 1}), false),
        (json!({"maximum": 1, "minItems": 3}), json!({"x": 1}), true),
        (json!({"type": "number"}), json!({"1": 1}), false),
        (json!({"type": "number"}), json!({}), true),
        (json!(false), json!({"a": 1}), false),
        (json!({"not": {"const": "x"}}), json!({"x": 1}), false),
        (json!({"not": {"const": "x"}}), json!({"y": 1}), true),
        (json!({"$ref": "#/$defs/short"}), json!({"ab": 1}), true),
        (json!({"$ref": "#/$defs/short"}), json!({"abc": 1}), false),
    ];
    for (names, instance, expected) in cases {
        let schema = Schema::compile(&json!({
            "propertyNames": names,
            "$defs": {"short": {"maxLength": 2}}
        }))
        .unwrap();
        check(&schema, &instance, expected);
    }
}

#[test]
fn unions_of_disjoint_types_pick_the_branch_by_type() {
    for union in ["anyOf", "oneOf"] {
        let schema = Schema::compile(&json!({
            "$defs": {"short": {"type": "string", "maxLength": 3}},
            "properties": {
                "optional": {union: [{"$ref": "#/$defs/short"}, {"type": "null"}]},
                "count": {union: [
                    {"type": "integer", "minimum": 1},
                    {"type": "array", "items": {"type": "integer"}, "minItems": 1},
                    {"type": "object", "required": ["n"]}
                ]},
                "typed": {
                    "type": ["string", "boolean"],
                    union: [{"type": "string", "minLength": 2}, {"type": "boolean", "const": true}]
                }
            }
        }))
        .unwrap();
        check(
            &schema,
            &json!({"optional": "abc", "count": 2, "typed": "ab"}),
            true,
        );
        check(
            &schema,
            &json!({"optional": null, "count": [1, 2], "typed": true}),
            true,
        );
        check(&schema, &json!({"optional": "abcd"}), false);
        check(&schema, &json!({"optional": 1}), false);
        check(&schema, &json!({"count": 0}), false);
        check(&schema, &json!({"count": 1.5}), false);
        check(&schema, &json!({"count": 2.0}), true);
        check(&schema, &json!({"count": []}), false);
        check(&schema, &json!({"count": ["1"]}), false);
        check(&schema, &json!({"count": {"n": 1}}), true);
        check(&schema, &json!({"count": {}}), false);
        check(&schema, &json!({"count": "1"}), false);
        check(&schema, &json!({"count": null}), false);
        check(&schema, &json!({"typed": "a"}), false);
        check(&schema, &json!({"typed": false}), false);
        check(&schema, &json!({"typed": null}), false);
    }
    // Draft 4 counts 1.0 as a number, not an integer: the branch the number picks says so.
    let schema = Options::new()
        .default_dialect(Draft::Draft4)
        .compile_both(&json!({"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 1}]}))
        .unwrap();
    check(&schema, &json!(1), true);
    check(&schema, &json!(1.0), false);
    check(&schema, &json!("x"), true);
    // Types that overlap (number and integer) are no switch: both branches are tried.
    let schema = Schema::compile(&json!({
        "oneOf": [{"type": "number", "maximum": 10}, {"type": "integer", "minimum": 5}]
    }))
    .unwrap();
    check(&schema, &json!(3), true);
    check(&schema, &json!(7), false);
    check(&schema, &json!(12), true);
    check(&schema, &json!(7.5), true);
}

#[test]
fn forwards_keep_the_dynamic_scope() {
    // A `$ref`-only node is skipped on the fail-fast path only when its target is in its
    // own resource: "strict" must stay in the dynamic scope, where its "node" anchor makes
    // the tree's children integers.
    for strict in [
        json!({"$id": "strict", "$ref": "tree", "$defs": {
            "leaf": {"$dynamicAnchor": "node", "type": "integer"}
        }}),
        // The same through an alias in strict's own resource (that forward may be taken).
        json!({"$id": "strict", "$ref": "#/$defs/alias", "$defs": {
            "alias": {"$ref": "tree"},
            "leaf": {"$dynamicAnchor": "node", "type": "integer"}
        }}),
    ] {
        let schema = Schema::compile(&json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://example.com/root",
            "$ref": "strict",
            "$defs": {
                "strict": strict,
                "tree": {
                    "$id": "tree",
                    "$dynamicAnchor": "node",
                    "type": "object",
                    "properties": {"children": {"type": "array", "items": {"$dynamicRef": "#node"}}}
                }
            }
        }))
        .unwrap();
        check(&schema, &json!({"children": [1, 2]}), true);
        check(&schema, &json!({"children": []}), true);
        check(&schema, &json!({"children": [{"children": []}]}), false);
        check(&schema, &json!({"children": ["1"]}), false);
    }
}

#[test]
fn dynamic_references_to_an_anchor_of_the_root_resolve_to_the_root() {
    // The root's resource is the outermost of every dynamic scope: when it defines the
    // anchor, it wins over "tree"'s own, whatever path led to the reference.
    let schema = Schema::compile(&json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/strict",
        "$dynamicAnchor": "node",
        "$ref": "tree",
        "unevaluatedProperties": false,
        "$defs": {
            "tree": {
                "$id": "tree",
                "$dynamicAnchor": "node",
                "type": "object",
                "properties": {
                    "children": {"type": "array", "items": {"$dynamicRef": "#node"}},
                    "name": {"type": "string"}
                }
            }
        }
    }))
    .unwrap();
    check(
        &schema,
        &json!({"children": [{"name": "a", "children": []}]}),
        true,
    );
    // Strictness reaches the children through the root's anchor.
    check(&schema, &json!({"children": [{"nmae": "a"}]}), false);
    check(
        &schema,
        &json!({"children": [{"children": [{"extra": 1}]}]}),
        false,
    );
    check(&schema, &json!({"children": [1]}), false);
    let errors: Vec<_> = schema
        .iter_errors(&json!({"children": [{"nmae": "a"}]}))
        .collect();
    assert!(!errors.is_empty());
    // Reported through the reference under its own name.
    assert!(
        errors
            .iter()
            .any(|e| e.keyword_location().contains("/items/$dynamicRef/")),
        "{:?}",
        errors
            .iter()
            .map(|e| e.keyword_location())
            .collect::<Vec<_>>()
    );

    // The same with `$recursiveRef` (2019-09), and with the root's anchor absent: there
    // "tree"'s own anchor is the outermost, and children need not be strict.
    for (root_anchor, strict) in [(true, true), (false, false)] {
        let mut root = json!({
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$id": "https://example.com/strict",
            "$ref": "tree",
            "unevaluatedProperties": false,
            "$defs": {
                "tree": {
                    "$id": "tree",
                    "$recursiveAnchor": true,
                    "type": "object",
                    "properties": {
                        "children": {"type": "array", "items": {"$recursiveRef": "#"}},
                        "name": {"type": "string"}
                    }
                }
            }
        });
        if root_anchor {
            root["$recursiveAnchor"] = json!(true);
        }
        let schema = Schema::compile(&root).unwrap();
        check(&schema, &json!({"children": [{"name": "a"}]}), true);
        check(&schema, &json!({"children": [{"nmae": "a"}]}), !strict);
        check(&schema, &json!({"nmae": "a"}), false);
    }
}

#[test]
fn arrays_of_typed_items() {
    let pairs = Schema::compile(&json!({
        "type": "array",
        "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer"}}
    }))
    .unwrap();
    check(&pairs, &json!([[1, 2], [3.0, 4]]), true);
    check(&pairs, &json!([[1, 2.5]]), false);
    check(&pairs, &json!([[1]]), false);
    check(&pairs, &json!([[1, 2, 3]]), false);
    check(&pairs, &json!([[1, null]]), false);
    check(&pairs, &json!([{"0": 1, "1": 2}]), false);
    // After `prefixItems`, `items` starts at the second item.
    let tail = Schema::compile(&json!({
        "prefixItems": [{"type": "string"}],
        "items": {"type": "number"}
    }))
    .unwrap();
    check(&tail, &json!(["a", 1, 2]), true);
    check(&tail, &json!([1, 1, 2]), false);
    check(&tail, &json!(["a", "b"]), false);
    // Draft 4: `1.0` is no integer.
    let draft4 = Options::new()
        .default_dialect(Draft::Draft4)
        .compile_both(&json!({"type": "array", "items": {"type": "integer"}}))
        .unwrap();
    check(&draft4, &json!([1, 2]), true);
    check(&draft4, &json!([1, 2.0]), false);
}

#[test]
fn plain_objects_walked_once() {
    for (additional, extra_ok) in [
        (json!(false), false),
        (json!(true), true),
        (json!({}), true),
        (json!({"type": "integer"}), true),
        (json!({"type": "string"}), false),
    ] {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "tags": {"type": "array", "items": {"type": "string"}},
                "inner": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
            },
            "required": ["name", "zzz_not_declared"],
            "minProperties": 2,
            "maxProperties": 5,
            "additionalProperties": additional
        }))
        .unwrap();
        let ok = json!({"name": "a", "zzz_not_declared": 1, "tags": ["x"], "inner": {"x": 1}});
        check(&schema, &ok, extra_ok);
        let declared_only = json!({"name": "a", "tags": ["x"], "inner": {"x": 1}});
        check(&schema, &declared_only, false);
        check(&schema, &json!({"name": "", "zzz_not_declared": 1}), false);
        check(
            &schema,
            &json!({"name": "a", "zzz_not_declared": 1, "inner": {}}),
            false,
        );
        check(
            &schema,
            &json!({"name": "a", "zzz_not_declared": 1, "tags": [1]}),
            false,
        );
        check(&schema, &json!({"name": "a"}), false);
        check(&schema, &json!([]), false);
        // Six properties, each fine: only `maxProperties` fails.
        let six = json!({"name": "a", "zzz_not_declared": 1, "tags": [], "inner": {"x": 1}, "p": 1, "q": 2});
        check(&schema, &six, false);
    }
    // Bounds alone, with the walk counting `required`.
    let schema = Schema::compile(&json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {}},
        "required": ["a"],
        "minProperties": 2,
        "maxProperties": 2
    }))
    .unwrap();
    check(&schema, &json!({"a": "x"}), false);
    check(&schema, &json!({"a": "x", "b": 1}), true);
    check(&schema, &json!({"a": "x", "c": 1}), true);
    check(&schema, &json!({"b": 1, "c": 1}), false);
    check(&schema, &json!({"a": "x", "b": 1, "c": 1}), false);
}

#[test]
fn deeply_nested_plain_objects_get_an_answer() {
    // No reference anywhere: every level is a plain object of its own, so the stack check
    // must happen on that path too. A thread with a small stack makes a missing check
    // overflow it.
    let depth = 2000;
    let mut schema = json!({"type": "object"});
    let mut instance = json!({});
    for _ in 0..depth {
        schema = json!({"type": "object", "properties": {"a": schema}, "required": ["a"]});
        instance = json!({"a": instance});
    }
    let compiled = Options::new()
        .limits(toolschema::Limits::none())
        .compile(&schema)
        .unwrap();
    let (valid, instance) = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || (compiled.is_valid(&instance), instance))
        .unwrap()
        .join()
        .unwrap();
    assert!(valid);
    drop((schema, instance));
}

#[test]
fn unions_of_types() {
    let optional = Schema::compile(&json!({
        "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}}
    }))
    .unwrap();
    check(&optional, &json!({"x": "a"}), true);
    check(&optional, &json!({"x": null}), true);
    check(&optional, &json!({"x": 1}), false);
    // `oneOf` of overlapping types: 1 is both an integer and a number.
    let overlapping =
        Schema::compile(&json!({"oneOf": [{"type": "integer"}, {"type": "number"}]})).unwrap();
    check(&overlapping, &json!(1.5), true);
    check(&overlapping, &json!(1), false);
    let disjoint =
        Schema::compile(&json!({"oneOf": [{"type": "integer"}, {"type": "string"}]})).unwrap();
    check(&disjoint, &json!(1), true);
    check(&disjoint, &json!(1.0), true);
    check(&disjoint, &json!(1.5), false);
    check(&disjoint, &json!("s"), true);
    // An empty branch admits anything; a false branch nothing.
    let anything = Schema::compile(&json!({"anyOf": [{"type": "string"}, {}]})).unwrap();
    check(&anything, &json!([]), true);
    let with_false = Schema::compile(&json!({"anyOf": [{"type": "string"}, false]})).unwrap();
    check(&with_false, &json!("s"), true);
    check(&with_false, &json!(1), false);
    // A sibling keyword keeps the general path.
    let sibling =
        Schema::compile(&json!({"anyOf": [{"type": "string"}, {"type": "null"}], "minLength": 2}))
            .unwrap();
    check(&sibling, &json!("a"), false);
    check(&sibling, &json!(null), true);
}

#[test]
fn nots_of_types_are_decided_by_the_types_left() {
    let cases = [
        (
            json!({"not": {"type": "null"}}),
            vec![(json!(null), false), (json!(0), true)],
        ),
        // `number` takes integers with it; `integer` leaves the numbers with a fraction.
        (
            json!({"not": {"type": ["number", "string"]}}),
            vec![
                (json!(1), false),
                (json!(1.5), false),
                (json!("a"), false),
                (json!([]), true),
            ],
        ),
        (
            json!({"not": {"type": "integer"}}),
            vec![
                (json!(1), false),
                (json!(1.0), false),
                (json!(1.5), true),
                (json!({}), true),
            ],
        ),
        (
            json!({"not": {"type": ["integer", "boolean"]}}),
            vec![(json!(2), false), (json!(true), false), (json!(2.5), true)],
        ),
        (
            json!({"not": {}}),
            vec![(json!(null), false), (json!({}), false)],
        ),
        // Not only a type: the keyword decides.
        (
            json!({"not": {"type": "string", "maxLength": 1}}),
            vec![(json!("a"), false), (json!("ab"), true), (json!(1), true)],
        ),
        // Beside a `type` of its own.
        (
            json!({"type": ["string", "null"], "not": {"type": "null"}}),
            vec![(json!(null), false), (json!("a"), true), (json!(1), false)],
        ),
    ];
    for (schema, instances) in cases {
        let compiled = Schema::compile(&schema).unwrap();
        for (instance, expected) in instances {
            check(&compiled, &instance, expected);
            if !expected && schema.get("type").is_none() {
                // Reported against `not`, as the keyword that failed.
                let errors: Vec<_> = compiled.iter_errors(&instance).collect();
                assert_eq!(errors.len(), 1, "{schema} {instance}");
                assert!(
                    errors[0].keyword_location().ends_with("/not"),
                    "{schema} {instance}: {}",
                    errors[0].keyword_location()
                );
            }
        }
    }
}

/// `v` where `schema` checks it: under the property `k` when the schema declares
/// properties, as it is otherwise.
fn under_k(schema: &Value, v: Value) -> Value {
    if schema.get("properties").is_some() {
        json!({ "k": v })
    } else {
        v
    }
}

#[test]
fn long_enums_are_looked_up_by_hash() {
    // Short and long strings (signatures exact below eight bytes), a non-string value
    // among them, a duplicate; as a property's schema, in a leaf, and as property names.
    let mut values: Vec<Value> = (0..40).map(|i| json!(format!("v{i}"))).collect();
    values.extend((0..40).map(|i| json!(format!("a-much-longer-value-{i}"))));
    values.extend([
        json!(7),
        json!(null),
        json!({"a": 1}),
        json!("v3"),
        json!(""),
    ]);
    let schemas = [
        json!({"enum": values}),
        json!({"type": "string", "enum": values}),
        json!({"type": "object", "properties": {"k": {"enum": values}}}),
    ];
    for schema in schemas {
        let compiled = Schema::compile(&schema).unwrap();
        let wrap = |v: Value| under_k(&schema, v);
        let string_only = schema.get("type") == Some(&json!("string"));
        for (instance, expected) in [
            (json!("v0"), true),
            (json!("v39"), true),
            (json!("v40"), false),
            (json!("a-much-longer-value-17"), true),
            (json!("a-much-longer-value-170"), false),
            (json!("a-much-longer-value-1"), true),
            (json!("b-much-longer-value-1"), false),
            // The signature of a value (length, first and last eight bytes), not the value.
            (json!("a-much-lONGER-value-1"), false),
            (json!(""), true),
            (json!("V0"), false),
            (json!(7), !string_only),
            (json!(7.0), !string_only),
            (json!(8), false),
            (json!(null), !string_only),
            (json!({"a": 1}), !string_only),
        ] {
            check(&compiled, &wrap(instance), expected);
        }
    }
    let names = Schema::compile(&json!({"propertyNames": {"enum": values}})).unwrap();
    check(&names, &json!({"v1": 0, "a-much-longer-value-2": 0}), true);
    check(&names, &json!({"v1": 0, "w1": 0}), false);
}

#[test]
fn long_enums_of_any_kind_are_looked_up_by_hash() {
    // Past sixteen values every kind is looked up in the enum's table: values equal by
    // JSON equality (`1` is `1.0`, objects in any key order) must meet there, and values
    // of one kind and length (one signature) must still be told apart.
    let mut values: Vec<Value> = (0..20).map(|i| json!(i * 3)).collect();
    values.extend((0..10).map(|i| json!({ format!("k{i}"): i })));
    values.extend([
        json!(null),
        json!(false),
        json!([1, 2]),
        json!([1, [2.0]]),
        json!([]),
        json!({}),
        json!({"a": 1, "b": [1]}),
        json!({"a": {"x": null}}),
        json!("s"),
    ]);
    let merged: Vec<Value> = values.chunks(7).map(|c| json!({ "enum": c })).collect();
    let schemas = [
        json!({"enum": values}),
        json!({"type": "object", "properties": {"k": {"enum": values}}}),
        // Branches of literals, merged into one enum for the fail-fast path.
        json!({"anyOf": merged}),
    ];
    for schema in schemas {
        let compiled = Schema::compile(&schema).unwrap();
        let wrap = |v: Value| under_k(&schema, v);
        for (instance, expected) in [
            (json!(null), true),
            (json!(false), true),
            (json!(true), false),
            (json!(57), true),
            (json!(57.0), true),
            (json!(58), false),
            (json!([1, 2]), true),
            (json!([1.0, 2]), true),
            (json!([2, 1]), false),
            (json!([1, [2]]), true),
            (json!([1, [2, 3]]), false),
            (json!([[]]), false),
            (json!([]), true),
            (json!({}), true),
            (json!({"b": [1.0], "a": 1}), true),
            (json!({"a": 1, "b": [2]}), false),
            (json!({"k7": 7}), true),
            (json!({"k7": 7.0}), true),
            (json!({"k7": 8}), false),
            (json!({"k10": 10}), false),
            (json!({"a": {"x": null}}), true),
            (json!({"a": {"x": false}}), false),
            (json!("s"), true),
            (json!("t"), false),
        ] {
            check(&compiled, &wrap(instance), expected);
        }
    }
}

#[test]
fn unevaluated_properties_known_from_unconditional_subschemas() {
    let defs = json!({
        "base": {"properties": {"id": {"type": "integer"}}, "required": ["id"]},
        "named": {"allOf": [{"$ref": "#/$defs/base"}], "properties": {"name": {}}},
        "tagged": {"patternProperties": {"^x-": {"type": "string"}}},
        "twice": {"allOf": [{"$ref": "#/$defs/base"}, {"$ref": "#/$defs/base"}]}
    });
    let cases = [
        // allOf and $ref only, followed two levels down, with a pattern.
        (
            json!({"allOf": [{"$ref": "#/$defs/named"}, {"$ref": "#/$defs/tagged"}],
                   "properties": {"own": {}}, "unevaluatedProperties": false}),
            vec![
                (json!({"id": 1, "name": "a", "own": 0, "x-a": "b"}), true),
                (json!({"id": 1, "other": 0}), false),
                (json!({"id": 1, "x-a": 1}), false),
                (json!({"id": 1, "xa": "b"}), false),
            ],
        ),
        // A conditional branch adds names only when it matches.
        (
            json!({"allOf": [{"$ref": "#/$defs/base"}],
                   "anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {"b": {}}}],
                   "if": {"required": ["kind"]}, "then": {"properties": {"kind": {}, "c": {}}},
                   "unevaluatedProperties": {"type": "boolean"}}),
            vec![
                (json!({"id": 1, "a": 0, "b": 0}), true),
                (json!({"id": 1, "b": 0}), true),
                (json!({"id": 1, "c": 0}), false),
                (json!({"id": 1, "kind": 0, "c": 0}), true),
                (json!({"id": 1, "z": true}), true),
                (json!({"id": 1, "z": 0}), false),
            ],
        ),
        // additionalProperties, or a nested unevaluatedProperties, evaluates every name.
        (
            json!({"allOf": [{"additionalProperties": {"type": "integer"}}],
                   "unevaluatedProperties": false}),
            vec![(json!({"any": 1}), true), (json!({"any": "x"}), false)],
        ),
        (
            json!({"allOf": [{"unevaluatedProperties": {"type": "integer"}}],
                   "unevaluatedProperties": false}),
            vec![(json!({"any": 1}), true), (json!({"any": "x"}), false)],
        ),
        // The same subschema reached twice.
        (
            json!({"allOf": [{"$ref": "#/$defs/twice"}, {"$ref": "#/$defs/base"}],
                   "unevaluatedProperties": false}),
            vec![
                (json!({"id": 1}), true),
                (json!({"id": 1, "other": 1}), false),
            ],
        ),
    ];
    for (mut schema, instances) in cases {
        schema["$defs"] = defs.clone();
        let compiled = Schema::compile(&schema).unwrap();
        for (instance, expected) in instances {
            check(&compiled, &instance, expected);
        }
    }
}

#[test]
fn unique_items_of_every_size_report_the_earliest_pair() {
    // Arrays of objects, of arrays and of strings, 0 to 40 items, with and without a
    // repeated item: the answer, and the pair reported (the earliest second item, then its
    // earliest equal), whichever search the size takes.
    let schema = Schema::compile(&json!({"uniqueItems": true})).unwrap();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut draw = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    for kind in 0..3 {
        let item = |i: u64| match kind {
            // (`1` and `1.0` are equal, and keys compare whatever their order.)
            0 => json!({"k": format!("key{i}"), "v": [i, {"x": 1.0}]}),
            1 => json!([i, "x", {"y": 1}]),
            _ => json!(format!("item-{i}")),
        };
        for n in 0..=40u64 {
            let mut items: Vec<Value> = (0..n).map(item).collect();
            check(&schema, &Value::Array(items.clone()), true);
            if n < 2 {
                continue;
            }
            // Two repeats: the one whose second copy comes first is reported.
            let (a, b) = (draw(n) as usize, draw(n) as usize);
            let (c, d) = (draw(n) as usize, draw(n) as usize);
            items[b] = items[a].clone();
            items[d] = items[c].clone();
            let mut expected = None;
            'scan: for j in 1..items.len() {
                for i in 0..j {
                    if items[i] == items[j] {
                        expected = Some((i, j));
                        break 'scan;
                    }
                }
            }
            let instance = Value::Array(items);
            check(&schema, &instance, expected.is_none());
            if let Some((i, j)) = expected {
                let error = schema.validate(&instance).unwrap_err();
                let message = error.iter().next().unwrap().to_string();
                assert!(
                    message.contains(&format!("items {i} and {j} are equal")),
                    "{n} items: {message}"
                );
            }
        }
    }
}

#[test]
fn conditionals_alone_or_beside_other_keywords() {
    let clause = |kind: &str, field: &str| {
        json!({"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
               "then": {"required": [field]}})
    };
    let schemas = [
        // A chain of lone conditionals in allOf, as SchemaStore schemas write them.
        json!({"allOf": [clause("a", "x"), clause("b", "y")]}),
        // The same beside other keywords in one node.
        json!({"type": "object", "minProperties": 1, "allOf": [clause("a", "x")],
               "if": {"properties": {"kind": {"const": "b"}}, "required": ["kind"]},
               "then": {"required": ["y"]}}),
    ];
    for schema in schemas {
        let compiled = Schema::compile(&schema).unwrap();
        for (instance, expected) in [
            (json!({"kind": "a", "x": 1}), true),
            (json!({"kind": "a"}), false),
            (json!({"kind": "b", "y": 1}), true),
            (json!({"kind": "b", "x": 1}), false),
            (json!({"kind": "c"}), true),
            (json!({"other": 1}), true),
        ] {
            check(&compiled, &instance, expected);
        }
    }
    // Else, and an if with neither branch (always passes).
    let compiled = Schema::compile(&json!({
        "allOf": [
            {"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "number"}},
            {"if": {"type": "string"}}
        ]
    }))
    .unwrap();
    for (instance, expected) in [
        (json!("ab"), true),
        (json!("a"), false),
        (json!(1), true),
        (json!(null), false),
    ] {
        check(&compiled, &instance, expected);
    }
}

#[test]
fn enums_of_numbers_compare_by_value() {
    let short = json!([
        1,
        2.5,
        -3,
        18446744073709551615u64,
        -9223372036854775808i64,
        1e300,
        "1",
        [1]
    ]);
    // The same values among twenty more (looked up in a table), and zero.
    let mut long = short.as_array().unwrap().clone();
    long.extend((100..120).map(|i| json!(i)));
    long.push(json!(0.0));
    long.push(json!(9223372036854775808.0));
    for values in [short, Value::Array(long)] {
        enum_of_numbers(&values);
    }
}

fn enum_of_numbers(values: &Value) {
    let long = values.as_array().unwrap().len() > 16;
    let schema = Schema::compile(&json!({"enum": values})).unwrap();
    if long {
        for (instance, expected) in [
            (json!(0), true),
            (json!(-0.0), true),
            (json!(0.0), true),
            (json!(119), true),
            (json!(119.0), true),
            (json!(120), false),
            (json!(9223372036854775808u64), true),
            (json!(9223372036854775807i64), false),
        ] {
            check(&schema, &instance, expected);
        }
    }
    for (instance, expected) in [
        (json!(1), true),
        (json!(1.0), true),
        (json!(2.5), true),
        (json!(-3), true),
        (json!(-3.0), true),
        (json!(18446744073709551615u64), true),
        (json!(18446744073709551614u64), false),
        (json!(-9223372036854775808i64), true),
        (json!(1e300), true),
        (json!(1.5), false),
        (json!(0), long),
        (json!("1"), true),
        (json!([1.0]), true),
        (json!(null), false),
    ] {
        check(&schema, &instance, expected);
    }
}

#[test]
fn few_tagged_branches_are_looked_up_by_tag() {
    // Lists of two and more branches look the tag up too: tags of eight bytes and more
    // are compared byte by byte (two here share their first and last eight bytes and
    // their length, so their signatures), shorter ones by signature alone; an enum
    // branch lists several long tags.
    let long_a = "polygon-regular-aaaa-shape";
    let long_b = "polygon-regular-bbbb-shape";
    let branch = |tag: Value| {
        json!({"type": "object", "required": ["shape", "size"], "additionalProperties": false,
               "properties": {"shape": tag, "size": {"type": "number"}}})
    };
    let mut lists = vec![vec![
        branch(json!({"const": long_a})),
        branch(json!({"const": "dot"})),
    ]];
    let mut six = vec![
        branch(json!({"const": long_b})),
        branch(json!({"const": long_a})),
        branch(json!({"enum": ["triangle-equilateral", "triangle-isosceles", "tri"]})),
    ];
    six.extend(["circle", "square", "hexagon"].map(|t| branch(json!({ "const": t }))));
    lists.push(six);
    for branches in lists {
        let six = branches.len() == 6;
        for keyword in ["oneOf", "anyOf"] {
            let schema = Schema::compile(&json!({ keyword: branches })).unwrap();
            for (tag, expected) in [
                (json!(long_a), true),
                (json!(long_b), six),
                (json!("polygon-regular-cccc-shape"), false),
                (json!("dot"), !six),
                (json!("triangle-isosceles"), six),
                (json!("triangle-equilateral"), six),
                (json!("triangle-scalene"), false),
                (json!("tri"), six),
                (json!("hexagon"), six),
                (json!("hexagons"), false),
                (json!(1), false),
            ] {
                check(&schema, &json!({"shape": tag, "size": 1}), expected);
                check(&schema, &json!({"shape": tag, "size": "1"}), false);
            }
            check(&schema, &json!({"size": 1}), false);
        }
    }
}

#[test]
fn many_tagged_branches_are_looked_up_by_tag() {
    // Nine tagged branches (indexed), one branch with a repeated tag in its enum, one
    // branch that does not pin the tag, one tagged by a number.
    let mut branches: Vec<Value> = (0..9)
        .map(|i| {
            json!({"type": "object", "properties": {"kind": {"const": format!("k{i}")}, "v": {"type": "integer"}}, "required": ["kind"]})
        })
        .collect();
    branches.push(json!({"properties": {"kind": {"enum": ["dup", "dup", "k3"]}, "v": {"type": "string"}}, "required": ["kind"]}));
    branches.push(json!({"properties": {"open": {"const": true}}, "required": ["open"]}));
    branches.push(json!({"properties": {"kind": {"const": 7}}, "required": ["kind"]}));
    for keyword in ["oneOf", "anyOf"] {
        let schema = Schema::compile(&json!({keyword: branches.clone()})).unwrap();
        let one = keyword == "oneOf";
        check(&schema, &json!({"kind": "k5", "v": 1}), true);
        check(&schema, &json!({"kind": "k5", "v": "x"}), false);
        check(&schema, &json!({"kind": "dup", "v": "x"}), true);
        check(&schema, &json!({"kind": "dup", "v": 1}), false);
        // "k3" with a string v: only the enum branch; with an integer v: only k3's.
        check(&schema, &json!({"kind": "k3", "v": "x"}), true);
        check(&schema, &json!({"kind": "k3", "v": 1}), true);
        // The branch that does not pin the tag matches too: two matches.
        check(&schema, &json!({"kind": "k1", "v": 1, "open": true}), !one);
        check(&schema, &json!({"kind": "zzz", "open": true}), true);
        check(&schema, &json!({"kind": "zzz", "v": 1}), false);
        check(&schema, &json!({"kind": 7}), true);
        check(&schema, &json!({"open": true}), true);
        check(&schema, &json!({"v": 1}), false);
        // Three branches do not insist on an object.
        check(&schema, &json!("not an object"), !one);
    }
}

#[test]
fn objects_with_pattern_properties_and_required() {
    let schema = Schema::compile(&json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "@meta": {"type": "object"}},
        "patternProperties": {"^[@$_#]": {"type": "object"}},
        "additionalProperties": {"type": "integer"},
        "required": ["name"]
    }))
    .unwrap();
    check(&schema, &json!({"name": "a", "@x": {}, "n": 1}), true);
    check(&schema, &json!({"name": "a", "@meta": {}}), true);
    // "@meta" must satisfy both its own schema and the pattern's.
    check(&schema, &json!({"name": "a", "@meta": 1}), false);
    check(&schema, &json!({"name": "a", "@x": 1}), false);
    check(&schema, &json!({"name": "a", "n": "x"}), false);
    check(&schema, &json!({"@x": {}}), false);
    // Other keys forbidden (KrakenD's shape): only declared names and the pattern's keys.
    let schema = Schema::compile(&json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
        "patternProperties": {"^[@$_#]": {}, "^x-": {"type": "string"}},
        "additionalProperties": false,
        "required": ["name"]
    }))
    .unwrap();
    check(
        &schema,
        &json!({"name": "a", "@comment": [1], "x-a": "b"}),
        true,
    );
    check(&schema, &json!({"name": "a", "port": 8080}), true);
    check(&schema, &json!({"name": "a", "other": 1}), false);
    check(&schema, &json!({"name": "a", "x-a": 1}), false);
    check(&schema, &json!({"name": 1, "@c": 1}), false);
    check(&schema, &json!({"port": 1, "@c": 1}), false);
    // A declared name some pattern matches meets the pattern's schema too, whether the
    // pattern's first bytes are known (`^x-`) or not (`e$`); one none can match does not.
    let schema = Schema::compile(&json!({
        "properties": {"x-name": {}, "name": {}, "port": {}},
        "patternProperties": {"^x-": {"type": "string"}, "e$": {"maxLength": 3}},
        "additionalProperties": false
    }))
    .unwrap();
    check(
        &schema,
        &json!({"x-name": "ab", "name": "abc", "port": 1}),
        true,
    );
    check(&schema, &json!({"x-name": 1}), false);
    check(&schema, &json!({"x-name": "abcd"}), false);
    check(&schema, &json!({"name": "abcd"}), false);
    check(&schema, &json!({"port": "abcdef"}), true);
}

#[test]
fn branches_excluding_tags_with_not_enum() {
    // A "function" branch takes any `op` but the reserved ones; the dispatch must skip it
    // for reserved ops and still try it for every other one, however it is combined.
    let function = json!({
        "type": "object",
        "required": ["op"],
        "properties": {"op": {"type": "string", "not": {"enum": ["and", "or", "like"]}}}
    });
    let open_part = json!({"properties": {"op": {"not": {"enum": ["and", "or", "like"]}}, "n": {"type": "integer"}}, "required": ["n"]});
    let and_part = json!({"properties": {"op": {"enum": ["and"]}, "n": {"type": "integer"}}, "required": ["n"]});
    for parts in [[open_part.clone(), and_part.clone()], [and_part, open_part]] {
        let mut branches = vec![
            json!({"required": ["op"], "properties": {"op": {"enum": ["and"]}, "args": {"type": "array"}}}),
            json!({"required": ["op"], "properties": {"op": {"const": "or"}, "args": {"type": "array"}}}),
            function.clone(),
            // Open except "like" and "or" (rejected by the first part; "and" is in the second).
            json!({ "anyOf": parts }),
            // A `not` that says more than its enum excludes nothing for certain.
            json!({"properties": {"op": {"not": {"enum": ["like"], "minLength": 9}}, "m": {"const": 1}}, "required": ["m"]}),
        ];
        // Enough branches for the tag index too.
        for i in 0..4 {
            branches.push(json!({"required": ["op", "k"], "properties": {"op": {"const": format!("x{i}")}, "k": {"const": i}}}));
        }
        for keyword in ["oneOf", "anyOf"] {
            let schema = Schema::compile(&json!({ keyword: branches.clone() })).unwrap();
            check(&schema, &json!({"op": "and", "args": []}), true);
            check(&schema, &json!({"op": "or", "args": []}), true);
            check(&schema, &json!({"op": "sum"}), true);
            check(&schema, &json!({"op": "like"}), false);
            check(&schema, &json!({"op": "and", "n": 1}), keyword == "anyOf");
            check(&schema, &json!({"op": "len", "n": 1}), keyword == "anyOf");
            check(&schema, &json!({"op": "like", "n": 1}), false);
            check(&schema, &json!({"op": "like", "m": 1}), true);
            check(&schema, &json!({"op": "x2", "k": 2}), keyword == "anyOf");
            check(&schema, &json!({"op": 7}), false);
        }
    }
}

#[test]
fn types_inferred_through_references_and_branches() {
    // Nodes that declare no type are turned down early when nothing they hold could
    // accept the instance's type: the answers must be the ones evaluation gives.
    let schema = Schema::compile(&json!({
        "$defs": {
            "num": {"type": "number"},
            "int": {"type": "integer"},
            "word": {"enum": ["a", "b", 1]},
            "point": {"type": "object", "required": ["x"]},
            "either": {"oneOf": [{"$ref": "#/$defs/point"}, {"$ref": "#/$defs/word"}]},
            "whole": {"allOf": [{"$ref": "#/$defs/num"}, {"$ref": "#/$defs/int"}]},
            "nothing": {"allOf": [{"type": "string"}, {"$ref": "#/$defs/num"}]},
            "loop": {"anyOf": [
                {"type": "object", "properties": {"kid": {"$ref": "#/$defs/loop"}}},
                {"const": null}
            ]}
        },
        "properties": {
            "either": {"$ref": "#/$defs/either"},
            "whole": {"$ref": "#/$defs/whole"},
            "nothing": {"$ref": "#/$defs/nothing"},
            "loop": {"$ref": "#/$defs/loop"},
            "one": {"const": 1}
        }
    }))
    .unwrap();
    let one = |name: &str, v: Value| json!({ name: v });
    check(&schema, &one("either", json!({"x": 1})), true);
    check(&schema, &one("either", json!("a")), true);
    check(&schema, &one("either", json!(1)), true);
    check(&schema, &one("either", json!(1.0)), true);
    check(&schema, &one("either", json!(2)), false);
    check(&schema, &one("either", json!([])), false);
    check(&schema, &one("whole", json!(3)), true);
    check(&schema, &one("whole", json!(3.0)), true);
    check(&schema, &one("whole", json!(3.5)), false);
    check(&schema, &one("whole", json!("3")), false);
    check(&schema, &one("nothing", json!("s")), false);
    check(&schema, &one("nothing", json!(1)), false);
    check(&schema, &one("loop", json!(null)), true);
    check(&schema, &one("loop", json!(0)), false);
    check(&schema, &one("loop", json!({"kid": {"kid": null}})), true);
    check(&schema, &one("loop", json!({"kid": {"kid": 5}})), false);
    check(&schema, &one("one", json!(1.0)), true);
    check(&schema, &one("one", json!("1")), false);

    // Draft 4: `1.0` is no integer, through a reference too.
    let draft4 = Options::new().default_dialect(Draft::Draft4);
    let schema = draft4
        .compile_both(&json!({
            "definitions": {"int": {"type": "integer"}},
            "anyOf": [{"$ref": "#/definitions/int"}, {"enum": ["x"]}]
        }))
        .unwrap();
    check(&schema, &json!(1), true);
    check(&schema, &json!(1.0), false);
    check(&schema, &json!("x"), true);
    check(&schema, &json!(null), false);
}

#[test]
fn arrays_of_any_items_with_bounds() {
    // Arrays whose body is only bounds and `items` (of any schema) skip the keyword loop;
    // arrays of typed arrays (GeoJSON rings) check their items inline.
    let schema = Schema::compile(&json!({
        "$defs": {"pair": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number"}}},
        "properties": {
            "people": {
                "type": "array",
                "maxItems": 2,
                "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
            },
            "ring": {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/pair"}},
            "rings": {"type": "array", "items": {"type": "array", "minItems": 1, "items": {"type": "integer"}}}
        }
    }))
    .unwrap();
    let one = |name: &str, v: Value| json!({ name: v });
    check(&schema, &one("people", json!([])), true);
    check(
        &schema,
        &one("people", json!([{"name": "a"}, {"name": "b"}])),
        true,
    );
    check(
        &schema,
        &one("people", json!([{"name": "a"}, {"name": 1}])),
        false,
    );
    check(&schema, &one("people", json!([{"name": "a"}, {}])), false);
    check(
        &schema,
        &one(
            "people",
            json!([{"name": "a"}, {"name": "b"}, {"name": "c"}]),
        ),
        false,
    );
    check(&schema, &one("people", json!({"name": "a"})), false);
    check(&schema, &one("ring", json!([[1, 2], [3.5, 4]])), true);
    check(&schema, &one("ring", json!([[1, 2]])), false);
    check(&schema, &one("ring", json!([[1, 2], [3]])), false);
    check(&schema, &one("ring", json!([[1, 2], [3, "4"]])), false);
    check(&schema, &one("ring", json!([[1, 2], 3])), false);
    check(&schema, &one("rings", json!([[1], [2, 3]])), true);
    check(&schema, &one("rings", json!([[1], []])), false);
    check(&schema, &one("rings", json!([[1], [2.5]])), false);
    check(&schema, &one("rings", json!([[1], [2.0]])), true);
}

#[test]
fn chains_of_forwarding_references() {
    // Nodes that only refer elsewhere are followed without `eval_node`; long chains go back
    // to the general path part of the way. Every length, short and long, typed or not.
    for len in [1usize, 2, 3, 16, 17, 18, 40, 3000] {
        let mut defs = serde_json::Map::new();
        for i in 0..len {
            let next = if i + 1 == len {
                json!({"type": "string", "maxLength": 3})
            } else {
                json!({"$ref": format!("#/$defs/d{}", i + 1)})
            };
            defs.insert(format!("d{i}"), next);
        }
        // A typed reference in the middle: its type is checked on the way.
        defs.insert(
            "typed".into(),
            json!({"type": ["string", "number"], "$ref": "#/$defs/d0"}),
        );
        let schema = Schema::compile(&json!({
            "$defs": defs,
            "properties": {
                "a": {"$ref": "#/$defs/d0"},
                "b": {"items": {"$ref": "#/$defs/typed"}},
                "c": {"anyOf": [{"$ref": "#/$defs/d0"}, {"type": "boolean"}]}
            }
        }))
        .unwrap();
        check(&schema, &json!({"a": "abc", "b": ["x"], "c": "y"}), true);
        check(&schema, &json!({"a": "abcd"}), false);
        check(&schema, &json!({"a": 1}), false);
        check(&schema, &json!({"b": ["x", 2]}), false);
        check(&schema, &json!({"b": [null]}), false);
        check(&schema, &json!({"c": true}), true);
        check(&schema, &json!({"c": "long"}), false);
    }
}

#[test]
fn forwards_that_end_on_a_type_are_decided_by_the_types_of_the_chain() {
    // `a` → `b` (typed) → `c` (a type only): `a` accepts what both types admit.
    let schema = Schema::compile(&json!({
        "$defs": {
            "a": {"$ref": "#/$defs/b"},
            "b": {"type": ["string", "number"], "$ref": "#/$defs/c"},
            "c": {"type": ["string", "null"]},
            "u": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
            "v": {"$ref": "#/$defs/u"}
        },
        "properties": {
            "x": {"$ref": "#/$defs/a"},
            "y": {"items": {"$ref": "#/$defs/v"}},
            "z": {"oneOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/v"}]}
        }
    }))
    .unwrap();
    check(
        &schema,
        &json!({"x": "s", "y": [true, null], "z": "s"}),
        true,
    );
    check(&schema, &json!({"x": null}), false);
    check(&schema, &json!({"x": 1}), false);
    check(&schema, &json!({"x": {}}), false);
    check(&schema, &json!({"y": [true, 1]}), false);
    check(&schema, &json!({"z": null}), true);
    check(&schema, &json!({"z": 2}), false);
    // A typed forward in the middle of a chain is not skipped: `b` turns down numbers
    // that `a` and `c` would take.
    let schema = Schema::compile(&json!({
        "$defs": {
            "a": {"type": ["string", "number"], "$ref": "#/$defs/b"},
            "b": {"type": "string", "$ref": "#/$defs/c"},
            "c": {"maxLength": 3}
        },
        "items": {"$ref": "#/$defs/a"}
    }))
    .unwrap();
    check(&schema, &json!(["ab"]), true);
    check(&schema, &json!([5]), false);
    check(&schema, &json!(["abcd"]), false);
    check(&schema, &json!([null]), false);
    // Draft 4 integers (1.0 is not one) keep the keyword's finer check.
    let schema = Options::new()
        .default_dialect(Draft::Draft4)
        .compile_both(&json!({
            "definitions": {"i": {"type": "integer"}, "j": {"$ref": "#/definitions/i"}},
            "items": {"$ref": "#/definitions/j"}
        }))
        .unwrap();
    check(&schema, &json!([1, 2]), true);
    check(&schema, &json!([1.0]), false);
    check(&schema, &json!(["1"]), false);
}

/// The fail-fast path's lists and specs (`oneOf`/`anyOf`/`allOf`, items, other keys,
/// declared properties, type switches) hold a forward's target in its place when the
/// forward's own type test adds nothing; a typed forward keeps its test.
#[test]
fn forwards_in_lists_and_specs_give_way_to_their_targets() {
    let defs = json!({
        "s": {"type": "string", "minLength": 2},
        "n": {"type": "number", "minimum": 0},
        "o": {"type": "object", "required": ["k"]}
    });
    let with = |body: Value| {
        let mut schema = body;
        schema["$defs"] = defs.clone();
        Schema::compile(&schema).unwrap()
    };
    let one_of = with(json!({"oneOf": [{"$ref": "#/$defs/s"}, {"$ref": "#/$defs/n"}]}));
    for (instance, expected) in [
        (json!("ab"), true),
        (json!("a"), false),
        (json!(5), true),
        (json!(-1), false),
        (json!({}), false),
    ] {
        check(&one_of, &instance, expected);
    }
    // A typed forward: its narrower type is still tested (5.5 is a number, not an integer).
    let typed = with(json!({"anyOf": [{"type": "integer", "$ref": "#/$defs/n"}]}));
    for (instance, expected) in [(json!(5), true), (json!(5.5), false), (json!(-1), false)] {
        check(&typed, &instance, expected);
    }
    let all_of = with(json!({"allOf": [{"$ref": "#/$defs/s"}, {"maxLength": 3}]}));
    for (instance, expected) in [
        (json!("ab"), true),
        (json!("a"), false),
        (json!("abcd"), false),
    ] {
        check(&all_of, &instance, expected);
    }
    let items = with(json!({"type": "array", "items": {"$ref": "#/$defs/n"}}));
    for (instance, expected) in [
        (json!([1, 2]), true),
        (json!([1, -1]), false),
        (json!([1, "a"]), false),
    ] {
        check(&items, &instance, expected);
    }
    // Items beside other keywords (the general keyword loop), typed forward included.
    for item in [
        json!({"$ref": "#/$defs/n"}),
        json!({"type": "integer", "$ref": "#/$defs/n"}),
    ] {
        let integer = item.get("type").is_some();
        let unique = with(json!({"type": "array", "uniqueItems": true, "items": item}));
        for (instance, expected) in [
            (json!([1, 2]), true),
            (json!([1, 1]), false),
            (json!([1, -1]), false),
            (json!([1, 2.5]), !integer),
        ] {
            check(&unique, &instance, expected);
        }
    }
    let object = with(json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/n"}},
        "additionalProperties": {"$ref": "#/$defs/s"}
    }));
    for (instance, expected) in [
        (json!({"a": 1, "b": "xy"}), true),
        (json!({"a": -1}), false),
        (json!({"b": "x"}), false),
        (json!({"a": "1"}), false),
    ] {
        check(&object, &instance, expected);
    }
    let switch = with(json!({"anyOf": [{"$ref": "#/$defs/s"}, {"$ref": "#/$defs/o"}]}));
    for (instance, expected) in [
        (json!("xy"), true),
        (json!("x"), false),
        (json!({"k": 1}), true),
        (json!({}), false),
        (json!(1), false),
    ] {
        check(&switch, &instance, expected);
    }
}

/// A node that is a lone `oneOf`/`anyOf` of branches its types do not tell apart is
/// evaluated without the keyword loop: `oneOf` still needs exactly one match.
#[test]
fn lone_unions_count_their_matches() {
    let one_of = Schema::compile(&json!({
        "oneOf": [{"multipleOf": 3}, {"multipleOf": 5}, {"$ref": "#/$defs/big"}],
        "$defs": {"big": {"minimum": 100}}
    }))
    .unwrap();
    for (instance, expected) in [
        (json!(9), true),
        (json!(10), true),
        (json!(15), false),
        (json!(7), false),
        (json!(101), true),
        (json!(102), false),
        (json!("x"), false),
    ] {
        check(&one_of, &instance, expected);
    }
    let any_of = Schema::compile(&json!({
        "anyOf": [{"multipleOf": 3}, {"multipleOf": 5}]
    }))
    .unwrap();
    for (instance, expected) in [(json!(15), true), (json!(7), false), (json!("x"), true)] {
        check(&any_of, &instance, expected);
    }
    let all_of = Schema::compile(&json!({
        "allOf": [{"multipleOf": 3}, {"multipleOf": 5}]
    }))
    .unwrap();
    for (instance, expected) in [(json!(15), true), (json!(9), false), (json!(10), false)] {
        check(&all_of, &instance, expected);
    }
}

/// `properties` of many names, in a branch where failing early matters and the name
/// order is not the cheapest first: the deferred values are found by rank, or past
/// sixteen of them by going through the names; each value meets its own schema.
#[test]
fn many_deferred_properties_meet_their_own_schemas() {
    let mut props = serde_json::Map::new();
    // "p00" costs most (nested), so the name order is not the cost order.
    props.insert(
        "p00".into(),
        json!({"oneOf": [
            {"properties": {"x": {"properties": {"y": {"properties": {"z": {"type": "integer"}}}}}}},
            {"required": ["never"], "patternProperties": {"^q": {"uniqueItems": true}}}
        ]}),
    );
    for i in 1..20 {
        props.insert(
            format!("p{i:02}"),
            json!({"properties": {"x": {"type": "integer", "minimum": i}}}),
        );
    }
    props.insert("leaf".into(), json!({"type": "string"}));
    let schema = Schema::compile(&json!({
        "anyOf": [
            {"properties": props, "required": ["p03", "leaf"], "propertyNames": {"maxLength": 4}},
            {"type": "null"}
        ]
    }))
    .unwrap();
    let full = |bad: Option<usize>| {
        let mut o = serde_json::Map::new();
        o.insert("p00".into(), json!({"x": {"y": {"z": 1}}}));
        for i in 1..20 {
            let x = if bad == Some(i) {
                i as i64 - 1
            } else {
                i as i64
            };
            o.insert(format!("p{i:02}"), json!({"x": x}));
        }
        o.insert("leaf".into(), json!("s"));
        Value::Object(o)
    };
    check(&schema, &full(None), true);
    for bad in [1, 3, 16, 17, 19] {
        check(&schema, &full(Some(bad)), false);
    }
    check(&schema, &json!({"p03": {"x": 3}, "leaf": "s"}), true);
    check(
        &schema,
        &json!({"p03": {"x": 3}, "p07": {"x": 6}, "leaf": "s"}),
        false,
    );
    check(
        &schema,
        &json!({"p03": {"x": 3}, "p00": {"x": {"y": {"z": "no"}}}, "leaf": "s"}),
        false,
    );
    check(&schema, &json!({"p03": {"x": 3}}), false);
    check(&schema, &json!({"p04": {"x": 4}, "leaf": "s"}), false);
    check(&schema, &json!({"p03": {"x": 3}, "leaf": 1}), false);
    check(&schema, &json!(null), true);
}

/// A node that is only a tuple (`prefixItems`, or draft-07's array form of `items`) checks
/// each item against its position's schema with no keyword loop; items past the tuple
/// and instances that are not arrays pass.
#[test]
fn lone_tuples_check_each_position() {
    let tuple = Schema::compile(&json!({
        "prefixItems": [{"type": "integer"}, {"$ref": "#/$defs/s"}, {"minimum": 3}],
        "$defs": {"s": {"type": "string", "maxLength": 2}}
    }))
    .unwrap();
    let draft7 = Options::new()
        .default_dialect(Draft::Draft7)
        .compile_both(&json!({
            "items": [{"type": "integer"}, {"$ref": "#/definitions/s"}, {"minimum": 3}],
            "definitions": {"s": {"type": "string", "maxLength": 2}}
        }))
        .unwrap();
    for schema in [&tuple, &draft7] {
        for (instance, expected) in [
            (json!([1, "ab", 3]), true),
            (json!([1, "ab", 3, "anything", null]), true),
            (json!([1]), true),
            (json!([]), true),
            (json!([1.5]), false),
            (json!([1, "abc"]), false),
            (json!([1, 2]), false),
            (json!([1, "ab", 2]), false),
            (json!({"0": "x"}), true),
        ] {
            check(schema, &instance, expected);
        }
    }
    // With bounds beside it, in either dialect.
    let bounded = |dialect: Draft, items: &str| {
        Options::new()
            .default_dialect(dialect)
            .compile_both(&json!({
                "minItems": 1,
                "maxItems": 3,
                (items): [{"type": "number"}, {"type": "string"}, {"type": "boolean"}]
            }))
            .unwrap()
    };
    for schema in [
        bounded(Draft::Draft202012, "prefixItems"),
        bounded(Draft::Draft7, "items"),
    ] {
        for (instance, expected) in [
            (json!([1, "a", true]), true),
            (json!([1]), true),
            (json!([]), false),
            (json!([1, "a", true, null]), false),
            (json!([1, "a", 2]), false),
            (json!(["a"]), false),
            (json!("not an array"), true),
        ] {
            check(&schema, &instance, expected);
        }
    }
}

/// A `oneOf` of a branch of literals and a branch of assertions stops at its first match
/// only when no literal meets the assertions (found by evaluating them at compile time);
/// otherwise an instance that is such a literal matches both, and fails.
#[test]
fn one_of_literals_beside_assertions() {
    let hex = json!({"pattern": "^#[0-9a-fA-F]{6}$"});
    let cases = [
        // No literal meets the pattern: exclusive.
        (
            json!({"type": "string", "oneOf": [{"enum": ["red", "blue", "#12345"]}, hex]}),
            vec![
                ("red", true),
                ("#12345", true),
                ("#a1b2c3", true),
                ("green", false),
                ("#a1b2cz", false),
            ],
        ),
        // One literal does: it matches both branches.
        (
            json!({"type": "string", "oneOf": [hex, {"enum": ["red", "#a1b2c3"]}]}),
            vec![("red", true), ("#a1b2c3", false), ("#000000", true)],
        ),
        // Through a `$ref`, and a const with a length bound.
        (
            json!({"oneOf": [{"$ref": "#/$defs/short"}, {"const": "toolong"}],
                   "$defs": {"short": {"type": "string", "maxLength": 3}}}),
            vec![("toolong", true), ("abc", true), ("abcd", false)],
        ),
        (
            json!({"oneOf": [{"$ref": "#/$defs/short"}, {"const": "abc"}],
                   "$defs": {"short": {"type": "string", "maxLength": 3}}}),
            vec![("abc", false), ("ab", true), ("abcd", false)],
        ),
    ];
    for (schema, instances) in cases {
        let compiled = Schema::compile(&schema).unwrap();
        for (instance, expected) in instances {
            check(&compiled, &json!(instance), expected);
        }
    }
    // Numbers: a const below a minimum, then one above it.
    let apart = Schema::compile(&json!({"oneOf": [{"const": 5}, {"minimum": 10}]})).unwrap();
    for (instance, expected) in [(json!(5), true), (json!(12), true), (json!(7), false)] {
        check(&apart, &instance, expected);
    }
    // A pattern passes what is not a string: a number literal meets it.
    let untyped =
        Schema::compile(&json!({"oneOf": [{"pattern": "^a"}, {"enum": [1, "b"]}]})).unwrap();
    for (instance, expected) in [(json!(1), false), (json!("b"), true), (json!("a"), true)] {
        check(&untyped, &instance, expected);
    }
    let within = Schema::compile(&json!({"oneOf": [{"minimum": 10}, {"enum": [12, 3]}]})).unwrap();
    for (instance, expected) in [(json!(12.0), false), (json!(3), true), (json!(11), true)] {
        check(&within, &instance, expected);
    }
}

/// A `oneOf` whose branches no instance can match two of is decided by its first match;
/// one where some instance matches two must still count them.
#[test]
fn one_of_stops_at_a_match_only_when_no_other_can_match() {
    let exclusive = Schema::compile(&json!({"oneOf": [
        {"type": "object", "required": ["kind"],
         "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}},
        {"type": "object", "required": ["kind"], "properties": {"kind": {"enum": ["b", "c"]}}},
        {"type": "object", "required": ["kind"], "properties": {"kind": {"not": {"enum": ["a", "b", "c"]}}}},
        {"type": "string"},
        {"const": 1},
        {"enum": [2, 3]}
    ]}))
    .unwrap();
    check(&exclusive, &json!({"kind": "a", "x": "s"}), true);
    check(&exclusive, &json!({"kind": "a", "x": 1}), false);
    check(&exclusive, &json!({"kind": "c"}), true);
    check(&exclusive, &json!({"kind": "d"}), true);
    check(&exclusive, &json!({}), false);
    check(&exclusive, &json!("s"), true);
    check(&exclusive, &json!(1), true);
    check(&exclusive, &json!(3), true);
    check(&exclusive, &json!(4), false);

    // Two branches match these instances: each must be turned down.
    let untagged = Schema::compile(&json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "a"}}},
        {"type": "object", "properties": {"kind": {"const": "b"}}}
    ]}))
    .unwrap();
    check(&untagged, &json!({}), false);
    check(&untagged, &json!({"kind": "a"}), true);
    let shared =
        Schema::compile(&json!({"oneOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]})).unwrap();
    check(&shared, &json!("b"), false);
    check(&shared, &json!("a"), true);
    let excluded_too_few = Schema::compile(&json!({"oneOf": [
        {"type": "object", "required": ["op"], "properties": {"op": {"not": {"enum": ["y"]}}}},
        {"type": "object", "required": ["op"], "properties": {"op": {"const": "x"}}},
        {"type": "object", "required": ["op"], "properties": {"op": {"const": "y"}}}
    ]}))
    .unwrap();
    check(&excluded_too_few, &json!({"op": "x"}), false);
    check(&excluded_too_few, &json!({"op": "z"}), true);
    let forbidden = Schema::compile(&json!({"oneOf": [
        {"type": "object", "required": ["a"]},
        {"type": "object", "properties": {"b": {}}, "additionalProperties": false}
    ]}))
    .unwrap();
    check(&forbidden, &json!({"a": 1}), true);
    check(&forbidden, &json!({"b": 1}), true);
    check(&forbidden, &json!({"a": 1, "b": 1}), true);
    let untyped = Schema::compile(&json!({"oneOf": [
        {"required": ["a"]},
        {"properties": {"b": {}}, "additionalProperties": false}
    ]}))
    .unwrap();
    check(&untyped, &json!("not an object"), false);
    let patterned = Schema::compile(&json!({"oneOf": [
        {"type": "object", "required": ["a"]},
        {"type": "object", "additionalProperties": false, "patternProperties": {"^a$": {}}}
    ]}))
    .unwrap();
    check(&patterned, &json!({"a": 1}), false);
    check(&patterned, &json!({"b": 1}), false);
}

/// An array of `items`, bounds and `uniqueItems` is checked outside the keyword loop: its
/// items must still be distinct (a short array compared pairwise, a long one by hashes)
/// and each must meet the items' schema.
#[test]
fn unique_items_beside_items_and_bounds() {
    let schema = Schema::compile(&json!({
        "type": "array",
        "minItems": 1,
        "maxItems": 100,
        "uniqueItems": true,
        "items": {"type": ["string", "object"], "maxLength": 3}
    }))
    .unwrap();
    check(&schema, &json!(["a", "b", {"x": 1}]), true);
    check(&schema, &json!(["a", "b", "a"]), false);
    check(&schema, &json!([{"x": 1}, "b", {"x": 1}]), false);
    check(&schema, &json!(["a", "long"]), false);
    check(&schema, &json!([]), false);
    let many: Vec<Value> = (0..60).map(|i| json!(format!("{i}"))).collect();
    check(&schema, &Value::Array(many.clone()), true);
    let mut repeated = many;
    repeated.push(json!("17"));
    check(&schema, &Value::Array(repeated), false);
}

#[test]
fn json_rpc_branches_dispatch_on_the_tag_that_tells_them_apart() {
    // Every branch pins `jsonrpc` alike; `method` picks the branch, and a branch whose
    // required members the object has too few keys for fails before its walk.
    let request = |method: &str, params: Value| {
        json!({"type": "object", "required": ["jsonrpc", "id", "method", "params"],
            "properties": {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]},
                "method": {"const": method}, "params": params}})
    };
    let schema = Schema::compile(&json!({"anyOf": [
        request("tools/list", json!({"type": "object"})),
        request("tools/call", json!({"type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}}})),
        request("ping", json!({"type": "object", "maxProperties": 0}))
    ]}))
    .unwrap();
    let message = |jsonrpc: Value, method: &str, params: Value| json!({"jsonrpc": jsonrpc, "id": 1, "method": method, "params": params});
    check(
        &schema,
        &message(json!("2.0"), "tools/list", json!({})),
        true,
    );
    check(
        &schema,
        &message(json!("2.0"), "tools/call", json!({"name": "x"})),
        true,
    );
    check(
        &schema,
        &message(json!("2.0"), "tools/call", json!({})),
        false,
    );
    check(&schema, &message(json!("2.0"), "ping", json!({})), true);
    check(
        &schema,
        &message(json!("2.0"), "ping", json!({"a": 1})),
        false,
    );
    check(
        &schema,
        &message(json!("2.0"), "tools/unknown", json!({})),
        false,
    );
    check(
        &schema,
        &message(json!("1.0"), "tools/list", json!({})),
        false,
    );
    check(
        &schema,
        &message(json!(2.0), "tools/list", json!({})),
        false,
    );
    check(
        &schema,
        &json!({"id": 1, "method": "tools/list", "params": {}}),
        false,
    );
    check(
        &schema,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}, "x": 1}),
        true,
    );
    check(
        &schema,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        false,
    );
}

#[test]
fn branches_told_apart_by_the_names_they_require() {
    // No tag: the branches differ in what they require, through references, nested
    // unions and `allOf`; some take no object at all.
    let schema = Schema::compile(&json!({
        "oneOf": [
            {"$ref": "#/$defs/instant"},
            {"type": "object", "required": ["interval"], "properties": {"interval": {"type": "array"}}},
            {"type": "string"},
            {"type": "object", "allOf": [{"required": ["property"]}, {"properties": {"property": {"type": "string"}}}]},
            {"anyOf": [{"type": "number"}, {"type": "object", "required": ["op", "args"]}]}
        ],
        "$defs": {"instant": {"oneOf": [
            {"type": "object", "required": ["date"], "properties": {"date": {"type": "string"}}},
            {"type": "object", "required": ["timestamp"], "properties": {"timestamp": {"type": "string"}}}
        ]}}
    }))
    .unwrap();
    check(&schema, &json!({"date": "2020-01-01"}), true);
    check(&schema, &json!({"timestamp": "t"}), true);
    check(&schema, &json!({"date": "d", "timestamp": "t"}), false);
    check(&schema, &json!({"date": 1}), false);
    check(&schema, &json!({"interval": []}), true);
    check(&schema, &json!({"interval": 1}), false);
    check(&schema, &json!({"property": "p"}), true);
    check(&schema, &json!({"property": 1}), false);
    check(&schema, &json!({"op": "x", "args": []}), true);
    check(&schema, &json!({"op": "x"}), false);
    check(
        &schema,
        &json!({"property": "p", "op": "x", "args": []}),
        false,
    );
    check(&schema, &json!({}), false);
    check(&schema, &json!({"other": 1}), false);
    check(&schema, &json!("text"), true);
    check(&schema, &json!(3), true);
    check(&schema, &json!(null), false);
    // The same names as anyOf: any branch will do.
    let any = Schema::compile(&json!({"anyOf": [
        {"required": ["a"], "properties": {"a": {"type": "integer"}}},
        {"oneOf": [{"required": ["b"]}, {"required": ["c"]}]},
        {"type": "object", "maxProperties": 0}
    ]}))
    .unwrap();
    check(&any, &json!({"a": 1}), true);
    check(&any, &json!({"a": "x"}), false);
    check(&any, &json!({"b": 1}), true);
    check(&any, &json!({"a": "x", "c": 1}), true);
    check(&any, &json!({}), true);
    check(&any, &json!({"d": 1}), false);
    check(&any, &json!([1]), true);
}

#[test]
fn unions_of_literals_decide_as_one_enum() {
    // anyOf and oneOf of enum/const branches (with titles, types, references); the
    // fail-fast path looks the value up among all of them at once.
    for keyword in ["anyOf", "oneOf"] {
        let schema = Schema::compile(&json!({
            "$defs": {"more": {"enum": ["d", 4, null]}},
            keyword: [
                {"const": "a", "title": "A"},
                {"enum": ["b", "c"], "description": "B or C"},
                {"type": "string", "enum": ["e", 5]},
                {"const": {"kind": "x", "n": [1, 2]}},
                {"$ref": "#/$defs/more"}
            ]
        }))
        .unwrap();
        for ok in [
            json!("a"),
            json!("c"),
            json!("d"),
            json!("e"),
            json!(4),
            json!(4.0),
            json!(null),
            json!({"n": [1.0, 2], "kind": "x"}),
        ] {
            check(&schema, &ok, true);
        }
        // 5 is in the branch whose type is string: no branch admits it.
        for bad in [
            json!(5),
            json!("f"),
            json!(true),
            json!([]),
            json!({"kind": "x"}),
            json!(4.5),
        ] {
            check(&schema, &bad, false);
        }
        let errors = schema.validate(&json!("f")).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|e| e.keyword_location().starts_with(&format!("/{keyword}"))),
            "{keyword}: the error path still reports the union's branches"
        );
    }
}

#[test]
fn unions_of_literals_with_shared_values() {
    // In two branches of a oneOf, a value fails it; in an anyOf, it passes.
    let one =
        Schema::compile(&json!({"oneOf": [{"enum": ["a", 1]}, {"enum": [1.0, "b"]}]})).unwrap();
    let any =
        Schema::compile(&json!({"anyOf": [{"enum": ["a", 1]}, {"enum": [1.0, "b"]}]})).unwrap();
    check(&one, &json!(1), false);
    check(&one, &json!("a"), true);
    check(&one, &json!("b"), true);
    check(&any, &json!(1), true);
    check(&any, &json!(1.0), true);
    check(&any, &json!("c"), false);
    // Under a declared type, and long enough for a hash table (more than 16 values).
    let many: Vec<Value> = (0..30).map(|i| json!({"const": format!("v{i}")})).collect();
    let mut branches = many.clone();
    branches.push(json!({"enum": [0, 1.5, [1], false]}));
    let typed = Schema::compile(&json!({"type": "string", "oneOf": branches})).unwrap();
    for i in 0..30 {
        check(&typed, &json!(format!("v{i}")), true);
    }
    check(&typed, &json!("v30"), false);
    check(&typed, &json!(0), false);
    let untyped = Schema::compile(&json!({"anyOf": branches})).unwrap();
    check(&untyped, &json!("v29"), true);
    check(&untyped, &json!(0.0), true);
    check(&untyped, &json!(1.5), true);
    check(&untyped, &json!([1.0]), true);
    check(&untyped, &json!(false), true);
    check(&untyped, &json!(true), false);
    check(&untyped, &json!(2), false);
    // Draft 4: 1.0 is no integer.
    let draft4 = Options::new()
        .default_dialect(Draft::Draft4)
        .compile_both(&json!({"anyOf": [{"type": "integer", "enum": [1.0, 2]}, {"enum": ["a"]}]}))
        .unwrap();
    check(&draft4, &json!(2), true);
    check(&draft4, &json!(1.0), false);
    check(&draft4, &json!("a"), true);
}

#[test]
fn chains_of_conditions_on_one_property() {
    // An allOf of if/then/else keyed on "kind", with branches of other forms between.
    let schema = Schema::compile(&json!({
        "properties": {"n": {"type": "number"}},
        "allOf": [
            {"if": {"properties": {"kind": {"const": "a"}}},
             "then": {"required": ["a"]}},
            {"if": {"properties": {"kind": {"enum": ["b", 2]}}, "required": ["kind"]},
             "then": {"required": ["b"]}, "else": {"not": {"required": ["b"]}}},
            {"required": ["always"]},
            {"if": {"properties": {"other": {"const": "c"}}, "required": ["other"]},
             "then": {"required": ["c"]}},
            {"if": {"properties": {"kind": {"type": "string", "enum": [3, "d"]}}},
             "then": {"required": ["d"]}},
            {"if": {"properties": {"kind": {"const": {"x": [1]}}}},
             "then": {"required": ["x"]}},
            {"if": {"required": ["kind"], "properties": {"kind": {"const": 1}}},
             "then": {"maxProperties": 3}}
        ]
    }))
    .unwrap();
    let cases = [
        (json!({"always": 0, "kind": "a", "a": 0}), true),
        (json!({"always": 0, "kind": "a"}), false),
        (json!({"kind": "a", "a": 0}), false),
        (json!({"always": 0, "kind": "b", "b": 0}), true),
        (json!({"always": 0, "kind": "b"}), false),
        (json!({"always": 0, "kind": 2.0, "b": 0}), true),
        // "b" present while kind is not b or 2: the else fails.
        (json!({"always": 0, "kind": "z", "b": 0}), false),
        (json!({"always": 0, "kind": "z"}), true),
        (json!({"always": 0, "kind": "d", "d": 0}), true),
        (json!({"always": 0, "kind": "d"}), false),
        // 3 is not a string: that condition does not hold.
        (json!({"always": 0, "kind": 3}), true),
        (json!({"always": 0, "kind": {"x": [1.0]}, "x": 0}), true),
        (json!({"always": 0, "kind": {"x": [1.0]}}), false),
        (json!({"always": 0, "kind": 1, "a": 0, "b": 0}), false),
        (json!({"always": 0, "kind": 1.0}), true),
        // The other property's condition, outside the chain.
        (json!({"always": 0, "kind": "z", "other": "c"}), false),
        (
            json!({"always": 0, "kind": "z", "other": "c", "c": 0}),
            true,
        ),
        // No "kind": the conditions without required hold.
        (json!({"always": 0, "a": 0, "d": 0, "x": 0}), true),
        (json!({"always": 0, "a": 0, "d": 0}), false),
        (json!({"always": 0, "a": 0, "d": 0, "x": 0, "b": 0}), false),
        // Not an object: every condition holds, every then is vacuous.
        (json!("text"), true),
        (json!([1, 2]), true),
    ];
    for (instance, expected) in cases {
        check(&schema, &instance, expected);
    }
    // A then with assertions on other types: a string instance meets every condition.
    let strings = Schema::compile(&json!({"allOf": [
        {"if": {"properties": {"k": {"const": "a"}}}, "then": {"maxLength": 2}},
        {"if": {"properties": {"k": {"const": "b"}}}, "then": {"minLength": 1}}
    ]}))
    .unwrap();
    check(&strings, &json!("abc"), false);
    check(&strings, &json!("ab"), true);
    check(&strings, &json!({"k": "b"}), true);
}

#[test]
fn arrays_of_one_kind_of_item_compare_tags() {
    // Items of one kind (strings, numbers with or without integers, nulls, booleans,
    // arrays, objects) against items of every kind; and sets of more than one kind.
    let samples = [
        json!(null),
        json!(true),
        json!(1),
        json!(1.5),
        json!(-0.0),
        json!("s"),
        json!([]),
        json!({}),
    ];
    for (types, accepts) in [
        (json!("string"), vec![5]),
        (json!("number"), vec![2, 3, 4]),
        (json!(["number", "integer"]), vec![2, 3, 4]),
        (json!("integer"), vec![2, 4]),
        (json!("null"), vec![0]),
        (json!("boolean"), vec![1]),
        (json!("array"), vec![6]),
        (json!("object"), vec![7]),
        (json!(["string", "null"]), vec![0, 5]),
    ] {
        let schema = Schema::compile(&json!({
            "type": "array",
            "items": {"type": types},
            "maxItems": 3
        }))
        .unwrap();
        check(&schema, &json!([]), true);
        for (i, item) in samples.iter().enumerate() {
            let ok = accepts.contains(&i);
            check(&schema, &json!([item, item]), ok);
            // The wrong kind last, after items of the right one.
            if let Some(&good) = accepts.first() {
                check(&schema, &json!([samples[good], samples[good], item]), ok);
            }
        }
        if let Some(&good) = accepts.first() {
            // Over the bound.
            check(
                &schema,
                &Value::Array(vec![samples[good].clone(); 4]),
                false,
            );
        }
    }
}

#[test]
fn consts_of_scalars() {
    for (constant, same, different) in [
        (
            json!(true),
            vec![json!(true)],
            vec![json!(false), json!(1), json!("true"), json!(null)],
        ),
        (
            json!(false),
            vec![json!(false)],
            vec![json!(true), json!(0), json!([])],
        ),
        (
            json!(2),
            vec![json!(2), json!(2.0)],
            vec![json!(3), json!("2"), json!(2.5), json!(true)],
        ),
        (json!(-0.5), vec![json!(-0.5)], vec![json!(0.5), json!(0)]),
        (
            json!(null),
            vec![json!(null)],
            vec![json!(false), json!(0), json!({})],
        ),
        (json!("x"), vec![json!("x")], vec![json!("y"), json!(["x"])]),
    ] {
        let schema = Schema::compile(&json!({"const": constant})).unwrap();
        let inside = Schema::compile(&json!({"properties": {"p": {"const": constant}}})).unwrap();
        for v in same {
            check(&schema, &v, true);
            check(&inside, &json!({"p": v}), true);
        }
        for v in different {
            check(&schema, &v, false);
            check(&inside, &json!({"p": v}), false);
        }
    }
}

/// Numeric bounds on the leaves' inline paths (one bound: `leaf_one`; two or more: the
/// leaf loop), with integer and float limits and instances at, inside and past them, as
/// typed leaves and as properties; a failure names the bound.
#[test]
fn numeric_bounds_on_leaves() {
    let cases = [
        (
            json!({"minimum": 1}),
            json!([1, 1.0, 2, 1e300]),
            json!([0, 0.5, -1e300]),
        ),
        (
            json!({"maximum": 1.5}),
            json!([1.5, 1, -3]),
            json!([1.6, 2, 1e20]),
        ),
        (
            json!({"exclusiveMinimum": 0}),
            json!([1, 0.001]),
            json!([0, 0.0, -0.5]),
        ),
        (
            json!({"exclusiveMaximum": 10}),
            json!([9, 9.99]),
            json!([10, 10.0, 11]),
        ),
        (
            json!({"type": "integer", "minimum": -5, "maximum": 5}),
            json!([-5, 0, 5, 5.0]),
            json!([-6, 6, 4.5, "1"]),
        ),
        (
            json!({"minimum": 0, "exclusiveMaximum": 18446744073709551615u64}),
            json!([0, 18446744073709551614u64]),
            json!([18446744073709551615u64, -1]),
        ),
        (
            json!({"exclusiveMinimum": -9223372036854775808i64, "maximum": 0.5}),
            json!([-9223372036854775807i64, 0]),
            json!([-9223372036854775808i64, 1]),
        ),
        // Two bounds (the leaf loop's inline comparisons): fractional limits against
        // integers, and both sides of each.
        (
            json!({"minimum": 0.5, "maximum": 2.5}),
            json!([1, 2, 0.5, 2.5]),
            json!([0, 3, 0.49, 2.51, -1]),
        ),
        (
            json!({"exclusiveMinimum": 0.5, "exclusiveMaximum": 2.5}),
            json!([1, 2, 0.51, 2.49]),
            json!([0, 3, 0.5, 2.5]),
        ),
        (
            json!({"exclusiveMinimum": -2.5, "exclusiveMaximum": -0.5}),
            json!([-2, -1, -0.51]),
            json!([-3, 0, -0.5, -2.5, 0.0]),
        ),
        // Limits no f64 holds (2^53 + 1) against floats: compared exactly, not rounded.
        (
            json!({"minimum": 9007199254740993u64, "maximum": 9007199254740995u64}),
            json!([9007199254740993u64, 9007199254740995u64]),
            json!([9007199254740992.0, 9007199254740992u64, 9007199254740996.0]),
        ),
        // Limits past every i64, against integers.
        (
            json!({"minimum": -1e300, "maximum": 1e300}),
            json!([-9223372036854775808i64, 9223372036854775807i64, 0, 1e299]),
            json!([-1e301, 1e301]),
        ),
        (
            json!({"minimum": 1e300, "maximum": 1e301}),
            json!([1e300]),
            json!([9223372036854775807i64, 18446744073709551615u64, 0]),
        ),
    ];
    for (bounds, inside, outside) in cases {
        let schema = Schema::compile(&bounds).unwrap();
        let nested = Schema::compile(&json!({"properties": {"n": bounds}})).unwrap();
        for v in inside.as_array().unwrap() {
            check(&schema, v, true);
            check(&nested, &json!({"n": v}), true);
        }
        for v in outside.as_array().unwrap() {
            check(&schema, v, false);
            check(&nested, &json!({"n": v}), false);
            let errors = schema.validate(v).unwrap_err();
            let keyword = errors.iter().next().unwrap().keyword_location().to_string();
            let named = bounds
                .as_object()
                .unwrap()
                .keys()
                .any(|k| keyword == format!("/{k}"));
            assert!(named, "{bounds} {v}: {keyword}");
        }
        // Other kinds of instance are not numbers: the bounds pass them.
        check(
            &Schema::compile(&json!({"minimum": 5})).unwrap(),
            &json!("1"),
            true,
        );
    }
}

/// Objects with no declared name, every value against `additionalProperties` (the
/// dictionary walk): with required names, bounds, nesting, and `false`.
#[test]
fn dictionaries_check_every_value() {
    let strings = Schema::compile(&json!({
        "type": "object", "additionalProperties": {"type": "string", "maxLength": 3},
        "required": ["a"], "maxProperties": 3
    }))
    .unwrap();
    check(&strings, &json!({"a": "x", "b": "yyy"}), true);
    check(&strings, &json!({"a": "x", "b": "yyyy"}), false);
    check(&strings, &json!({"a": "x", "b": 1}), false);
    check(&strings, &json!({"b": "x"}), false);
    check(
        &strings,
        &json!({"a": "x", "b": "y", "c": "z", "d": "w"}),
        false,
    );
    check(&strings, &json!([]), false);
    let nested = Schema::compile(&json!({
        "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}}
    }))
    .unwrap();
    check(&nested, &json!({}), true);
    check(
        &nested,
        &json!({"scope": {"a": 1, "b": 2}, "other": {}}),
        true,
    );
    check(&nested, &json!({"scope": {"a": 1, "b": 2.5}}), false);
    check(&nested, &json!({"scope": 1}), false);
    check(&nested, &json!("not an object"), true);
    let closed =
        Schema::compile(&json!({"type": "object", "additionalProperties": false})).unwrap();
    check(&closed, &json!({}), true);
    check(&closed, &json!({"a": null}), false);
}

/// A lone `allOf` branch is followed as a `$ref` is (the forward shape): typed or not, in
/// chains of any length (past the longest chain of forwards, nodes keep the general shape
/// and the stack check).
#[test]
fn lone_all_of_branches_are_forwarded() {
    let schema = Schema::compile(&json!({
        "type": "object",
        "allOf": [{"$ref": "#/$defs/a"}],
        "$defs": {"a": {"properties": {"x": {"type": "string"}}, "required": ["x"]}}
    }))
    .unwrap();
    check(&schema, &json!({"x": "s"}), true);
    check(&schema, &json!({"x": 1}), false);
    check(&schema, &json!({}), false);
    check(&schema, &json!([]), false);
    // (Two branches are not one: both apply.)
    let both = Schema::compile(&json!({"allOf": [{"type": "string"}, {"maxLength": 2}]})).unwrap();
    check(&both, &json!("ab"), true);
    check(&both, &json!("abc"), false);
    check(&both, &json!(1), false);
    for length in [3, 40, 2000] {
        let mut defs = serde_json::Map::new();
        for i in 0..length {
            defs.insert(
                format!("d{i}"),
                json!({"allOf": [{"$ref": format!("#/$defs/d{}", i + 1)}]}),
            );
        }
        defs.insert(
            format!("d{length}"),
            json!({"type": "string", "maxLength": 2}),
        );
        let chain = Schema::compile(&json!({"$ref": "#/$defs/d0", "$defs": defs})).unwrap();
        check(&chain, &json!("ab"), true);
        check(&chain, &json!("abc"), false);
        check(&chain, &json!(1), false);
        // Nested one inside another, each level through the whole chain.
        let nested = Schema::compile(&json!({
            "type": "array", "items": {"$ref": "#/$defs/d0"}, "$defs": defs
        }))
        .unwrap();
        check(&nested, &json!(["a", "bc"]), true);
        check(&nested, &json!(["a", 2]), false);
    }
}

/// A node of `not` alone, or `contains` alone (with its bounds), is evaluated without the
/// keyword loop: both paths agree at the bounds.
#[test]
fn lone_not_and_contains() {
    let not = Schema::compile(&json!({"type": "object", "not": {"required": ["a"]}})).unwrap();
    check(&not, &json!({"b": 1}), true);
    check(&not, &json!({"a": 1}), false);
    check(&not, &json!([]), false);
    let cases = [
        (
            json!({"contains": {"type": "number"}}),
            vec![
                (json!(["a", 1]), true),
                (json!(["a"]), false),
                (json!([]), false),
            ],
        ),
        (
            json!({"contains": {"type": "number"}, "minContains": 2, "maxContains": 3}),
            vec![
                (json!([1]), false),
                (json!([1, "a", 2]), true),
                (json!([1, 2, 3]), true),
                (json!([1, 2, 3, 4]), false),
                (json!([1, 2, "a", 3, "b", 4]), false),
            ],
        ),
        (
            // (Beside another keyword: the general loop's fail-fast count.)
            json!({"minItems": 1, "contains": {"type": "number"}, "maxContains": 2}),
            vec![
                (json!([1, "a"]), true),
                (json!([1, 2, 3]), false),
                (json!(["a"]), false),
            ],
        ),
        (
            json!({"contains": {"type": "number"}, "minContains": 0}),
            vec![(json!([]), true), (json!(["a"]), true)],
        ),
        (
            json!({"contains": {"type": "number"}, "minContains": 0, "maxContains": 1}),
            vec![
                (json!([]), true),
                (json!([1, "a"]), true),
                (json!([1, 2]), false),
            ],
        ),
    ];
    for (schema, instances) in cases {
        let compiled = Schema::compile(&schema).unwrap();
        for (instance, expected) in instances {
            check(&compiled, &instance, expected);
        }
        // Not an array: `contains` does not apply.
        check(&compiled, &json!({"a": 1}), true);
    }
}

#[test]
fn all_of_objects_walked_once() {
    // Each walk applies its own schema of a name, else its other keys' schema: the fused
    // walk must give every combination the answer of the branches one by one.
    let schema = Schema::compile(&json!({
        "type": "object",
        "properties": {"kind": {"enum": ["a", "b"]}, "shared": {"type": "string"}},
        "required": ["kind"],
        "additionalProperties": {"type": ["integer", "string", "boolean"]},
        "allOf": [
            {"$ref": "#/$defs/base"},
            {
                "properties": {"shared": {"minLength": 2}, "count": {"minimum": 0}},
                "required": ["shared"],
                "maxProperties": 4
            }
        ],
        "$defs": {
            "base": {
                "type": ["object", "null"],
                "properties": {"kind": {}, "shared": {}, "count": {}, "flag": {"type": "boolean"}},
                "additionalProperties": false,
                "minProperties": 2
            }
        }
    }))
    .unwrap();
    check(&schema, &json!({"kind": "a", "shared": "xy"}), true);
    check(
        &schema,
        &json!({"kind": "a", "shared": "xy", "count": 3, "flag": true}),
        true,
    );
    // `shared` too short for the second branch, of the wrong type for the node's own.
    check(&schema, &json!({"kind": "a", "shared": "x"}), false);
    check(&schema, &json!({"kind": "a", "shared": 12}), false);
    // A name only `base` forbids (its `additionalProperties: false`).
    check(
        &schema,
        &json!({"kind": "a", "shared": "xy", "other": 1}),
        false,
    );
    // A name `base` declares, checked by the node's own `additionalProperties`.
    check(
        &schema,
        &json!({"kind": "a", "shared": "xy", "count": 1.5}),
        false,
    );
    check(
        &schema,
        &json!({"kind": "a", "shared": "xy", "count": -1}),
        false,
    );
    check(
        &schema,
        &json!({"kind": "a", "shared": "xy", "flag": "yes"}),
        false,
    );
    // `required` of either, `maxProperties` of the second, `enum` of the node.
    check(&schema, &json!({"shared": "xy", "count": 1}), false);
    check(&schema, &json!({"kind": "a", "count": 1}), false);
    check(&schema, &json!({"kind": "c", "shared": "xy"}), false);
    check(
        &schema,
        &json!({"kind": "a", "shared": "xy", "count": 1, "flag": true, "x": 1}),
        false,
    );
    // The types of all three: only objects.
    check(&schema, &json!(null), false);
    check(&schema, &json!("text"), false);
}

#[test]
fn all_of_arrays_merge_their_items() {
    // Versioned presets: each version's array schema adds properties to the items, and
    // the list of all names closes them.
    let item =
        |props: Value| json!({"type": "array", "items": {"type": "object", "properties": props}});
    let schema = Schema::compile(&json!({
        "type": "array",
        "allOf": [
            {"$ref": "#/$defs/v1"},
            {"$ref": "#/$defs/v2"}
        ],
        "items": {
            "properties": {"name": {}, "size": {}, "tags": {}},
            "required": ["name"],
            "additionalProperties": false
        },
        "maxItems": 3,
        "$defs": {
            "v1": item(json!({"name": {"type": "string", "minLength": 1}, "size": {"type": "integer"}})),
            "v2": item(json!({"tags": {"type": "array", "items": {"type": "string"}}, "size": {"minimum": 1}}))
        }
    }))
    .unwrap();
    check(&schema, &json!([]), true);
    check(
        &schema,
        &json!([{"name": "a"}, {"name": "b", "size": 2, "tags": ["x"]}]),
        true,
    );
    check(&schema, &json!([{"name": ""}]), false);
    check(&schema, &json!([{"name": "a", "size": 0}]), false);
    check(&schema, &json!([{"name": "a", "size": 1.5}]), false);
    check(&schema, &json!([{"name": "a", "tags": [1]}]), false);
    check(&schema, &json!([{"name": "a", "other": 1}]), false);
    check(&schema, &json!([{"size": 1}]), false);
    check(&schema, &json!([1]), false);
    check(
        &schema,
        &json!([{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]),
        false,
    );
    check(&schema, &json!({"name": "a"}), false);
}

#[test]
fn all_of_branches_fused_with_keywords_of_their_own() {
    // Branches holding more than walks: kept as they are beside the fused walk.
    let schema = Schema::compile(&json!({
        "allOf": [
            {"properties": {"a": {"type": "integer"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
            {"properties": {"b": {"type": "string"}}, "not": {"required": ["c"]}},
            {"properties": {"a": {"maximum": 10}}, "propertyNames": {"maxLength": 3}},
            false
        ]
    }))
    .unwrap();
    for instance in [json!({"a": 1}), json!({}), json!(1)] {
        check(&schema, &instance, false);
    }
    let schema = Schema::compile(&json!({
        "allOf": [
            {"properties": {"a": {"type": "integer"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
            {"properties": {"b": {"type": "string"}}, "not": {"required": ["c"]}},
            {"properties": {"a": {"maximum": 10}}, "propertyNames": {"maxLength": 3}},
            {"const": {"a": 1}, "title": "only this"}
        ]
    }))
    .unwrap();
    check(&schema, &json!({"a": 1}), true);
    check(&schema, &json!({"a": 2}), false);
    let schema = Schema::compile(&json!({
        "allOf": [
            {"properties": {"a": {"type": "integer"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
            {"properties": {"b": {"type": "string"}}, "not": {"required": ["c"]}},
            {"properties": {"a": {"maximum": 10}}, "propertyNames": {"maxLength": 3}}
        ]
    }))
    .unwrap();
    check(&schema, &json!({"a": 1}), true);
    check(&schema, &json!({"b": "x", "abc": 1}), true);
    check(&schema, &json!({"a": 11}), false);
    check(&schema, &json!({"a": "1"}), false);
    check(&schema, &json!({"b": 1}), false);
    check(&schema, &json!({"a": 1, "c": 1}), false);
    check(&schema, &json!({"a": 1, "long": 1}), false);
    check(&schema, &json!({"x": 1}), false);
    // (`required` holds of a non-object, so the `not` fails it.)
    check(&schema, &json!("not an object"), false);
}

#[test]
fn all_of_that_cannot_be_fused_keeps_its_branches() {
    // Keywords that read their siblings, draft-4 integers, a dynamic scope kept: the
    // branches are evaluated one by one, and answer the same.
    let cases = [
        (
            json!({"allOf": [
                {"prefixItems": [{"type": "integer"}], "items": {"type": "string"}},
                {"items": {"maxLength": 2}}
            ]}),
            vec![
                (json!([1, "ab"]), true),
                (json!([1, "abc"]), false),
                (json!(["a"]), false),
            ],
        ),
        (
            // (A branch that may evaluate some names: what is left is not known.)
            json!({"allOf": [
                {"properties": {"a": {}}},
                {"properties": {"b": {}}, "anyOf": [{"properties": {"c": {}}}, true]}
            ], "unevaluatedProperties": false}),
            vec![
                (json!({"a": 1, "b": 2, "c": 3}), true),
                (json!({"a": 1, "d": 2}), false),
            ],
        ),
        (
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "allOf": [
                {"type": "integer", "properties": {"a": {}}},
                {"properties": {"b": {}}}
            ]}),
            vec![
                (json!(1), true),
                (json!(1.0), false),
                (json!({"a": 1}), false),
            ],
        ),
        (
            // Draft-4 sets that cannot tell `1.0` apart are fused; integer typing inside
            // the properties is kept.
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "allOf": [
                {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}},
                {"type": ["object", "null"], "properties": {"m": {"type": "number"}}}
            ]}),
            vec![
                (json!({"n": 1, "m": 1.5}), true),
                (json!({"n": 1, "m": 2.0}), true),
                (json!({"n": 1.0}), false),
                (json!({"n": 1, "m": "x"}), false),
                (json!({"m": 1}), false),
                (json!(null), false),
            ],
        ),
    ];
    for (schema, instances) in cases {
        let compiled = Schema::compile(&schema).unwrap();
        for (instance, expected) in instances {
            check(&compiled, &instance, expected);
        }
    }
}

#[test]
fn all_of_of_a_recursive_schema_is_fused_once() {
    // Each tree's children are trees with a name: the fused items meet the same schemas
    // again at every level, and compile to a finite graph.
    let schema = Schema::compile(&json!({
        "$defs": {
            "tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}},
            "named": {"properties": {"name": {"type": "string"}}, "required": ["name"]}
        },
        "allOf": [{"$ref": "#/$defs/tree"}, {"$ref": "#/$defs/named"}]
    }))
    .unwrap();
    check(
        &schema,
        &json!({"name": "r", "children": [{"name": "a", "children": []}]}),
        true,
    );
    check(
        &schema,
        &json!({"name": "r", "children": [{"children": []}]}),
        false,
    );
    check(
        &schema,
        &json!({"name": "r", "children": [{"name": "a", "children": [{"name": 1}]}]}),
        false,
    );
    check(&schema, &json!({"name": "r", "children": {}}), false);
}

#[test]
fn all_of_closed_by_unevaluated_properties() {
    // The 2020-12 way to close a composition: what the parts declare is evaluated, the
    // rest meets `unevaluatedProperties`.
    let schema = Schema::compile(&json!({
        "allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}],
        "unevaluatedProperties": {"type": "integer"},
        "$defs": {
            "a": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
            "b": {"properties": {"y": {"type": "boolean"}, "x": {"minLength": 2}}}
        }
    }))
    .unwrap();
    check(&schema, &json!({"x": "ab", "y": true}), true);
    check(&schema, &json!({"x": "ab", "z": 1}), true);
    check(&schema, &json!({"x": "ab", "z": "1"}), false);
    check(&schema, &json!({"x": "a"}), false);
    check(&schema, &json!({"x": "ab", "y": 1}), false);
    check(&schema, &json!({"y": true}), false);
    check(&schema, &json!([]), false);
    // A part with `additionalProperties` evaluates every name.
    let schema = Schema::compile(&json!({
        "allOf": [
            {"properties": {"x": {"type": "string"}}},
            {"properties": {"y": {}}, "additionalProperties": {"type": "boolean"}}
        ],
        "unevaluatedProperties": false
    }))
    .unwrap();
    check(&schema, &json!({"y": 1, "z": true}), true);
    check(&schema, &json!({"z": 1}), false);
    // (`x` is another key of the second part: a boolean there, a string in the first.)
    check(&schema, &json!({"x": "a"}), false);
    check(&schema, &json!({"x": true}), false);
    // One walk, through a reference: what it declares is evaluated.
    let schema = Schema::compile(&json!({
        "$ref": "#/$defs/a",
        "unevaluatedProperties": {"type": "boolean"},
        "$defs": {"a": {"properties": {"x": {"type": "string"}}}}
    }))
    .unwrap();
    check(&schema, &json!({"x": "a", "y": true}), true);
    check(&schema, &json!({"x": "a", "y": 1}), false);
    check(&schema, &json!({"x": true}), false);
    check(&schema, &json!({"z": false}), true);
    // Items only (no walk): every name is unevaluated.
    let schema = Schema::compile(&json!({
        "allOf": [{"items": {"type": "integer"}}, {"items": {"minimum": 0}}],
        "unevaluatedProperties": false
    }))
    .unwrap();
    check(&schema, &json!([1, 2]), true);
    check(&schema, &json!([-1]), false);
    check(&schema, &json!({}), true);
    check(&schema, &json!({"a": 1}), false);
}

#[test]
fn references_beside_walks_are_fused() {
    // 2020-12: `$ref` beside `properties` applies both; the node's own
    // `additionalProperties` sees its own names only, `unevaluatedProperties` all of them.
    let defs = json!({"base": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}});
    let open = Schema::compile(&json!({
        "$ref": "#/$defs/base",
        "properties": {"name": {"type": "string"}},
        "unevaluatedProperties": false,
        "$defs": defs
    }))
    .unwrap();
    check(&open, &json!({"id": 1, "name": "a"}), true);
    check(&open, &json!({"id": 1}), true);
    check(&open, &json!({"id": "1"}), false);
    check(&open, &json!({"name": "a"}), false);
    check(&open, &json!({"id": 1, "other": 0}), false);
    let closed = Schema::compile(&json!({
        "$ref": "#/$defs/base",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": false,
        "$defs": defs
    }))
    .unwrap();
    // `id` is another key to this node's `additionalProperties`.
    check(&closed, &json!({"id": 1, "name": "a"}), false);
    check(&closed, &json!({"name": "a"}), false);
    check(&closed, &json!({}), false);
    // Draft 7: siblings of `$ref` are ignored.
    let draft7 = Schema::compile(&json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"base": {"properties": {"id": {"type": "integer"}}}},
        "$ref": "#/definitions/base",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": false
    }))
    .unwrap();
    check(&draft7, &json!({"id": 1, "name": 2, "other": 3}), true);
    check(&draft7, &json!({"id": "1"}), false);
}

#[test]
fn fused_walks_keep_their_chains_of_conditions() {
    // Two walks (the base's and the node's) and a chain of conditions on `kind`: the
    // fused node keeps the chain whole.
    let schema = Schema::compile(&json!({
        "$ref": "#/$defs/base",
        "properties": {"kind": {"enum": ["a", "b", "c"]}, "spec": {"type": "object"}},
        "allOf": [
            {"if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
             "then": {"properties": {"spec": {"required": ["x"]}}}},
            {"if": {"properties": {"kind": {"const": "b"}}, "required": ["kind"]},
             "then": {"properties": {"spec": {"required": ["y"]}}},
             "else": {"properties": {"spec": {"maxProperties": 3}}}}
        ],
        "$defs": {"base": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}
    }))
    .unwrap();
    check(
        &schema,
        &json!({"id": 1, "kind": "a", "spec": {"x": 1}}),
        true,
    );
    check(
        &schema,
        &json!({"id": 1, "kind": "a", "spec": {"y": 1}}),
        false,
    );
    check(
        &schema,
        &json!({"id": 1, "kind": "b", "spec": {"y": 1, "a": 1, "b": 2, "c": 3}}),
        true,
    );
    check(
        &schema,
        &json!({"id": 1, "kind": "b", "spec": {"x": 1}}),
        false,
    );
    check(
        &schema,
        &json!({"id": 1, "kind": "c", "spec": {"a": 1, "b": 2, "c": 3, "d": 4}}),
        false,
    );
    check(&schema, &json!({"id": 1, "kind": "c", "spec": {}}), true);
    check(
        &schema,
        &json!({"id": 1, "spec": {"a": 1, "b": 2, "c": 3, "d": 4}}),
        false,
    );
    check(&schema, &json!({"id": "1", "kind": "c", "spec": {}}), false);
    check(&schema, &json!({"kind": "c", "spec": {}}), false);
}

#[test]
fn fused_parts_with_nothing_to_merge_apply_whole() {
    // A part that is a union (of literals, of types) keeps its own node, and its shape.
    let schema = Schema::compile(&json!({
        "allOf": [
            {"$ref": "#/$defs/base"},
            {"properties": {"mode": {"type": "string"}}},
            {"anyOf": [{"required": ["id"]}, {"required": ["mode"]}]},
            {"oneOf": [{"type": "object", "minProperties": 1}, {"type": "array"}]},
            {}
        ],
        "$defs": {"base": {"properties": {"id": {"type": "integer"}}}}
    }))
    .unwrap();
    check(&schema, &json!({"id": 1}), true);
    check(&schema, &json!({"mode": "x"}), true);
    check(&schema, &json!({"mode": 1}), false);
    check(&schema, &json!({"id": "1"}), false);
    check(&schema, &json!({"other": 1}), false);
    check(&schema, &json!({}), false);
    check(&schema, &json!([]), true);
    check(&schema, &json!("text"), false);
}

/// Both length bounds of a string, decided together on the fail-fast path (bytes first,
/// code points counted once), answer as the two keywords do one by one; errors still name
/// the bound that failed.
#[test]
fn string_length_bounds_together() {
    for (schema, typed) in [
        (
            json!({"type": "string", "minLength": 2, "maxLength": 3}),
            true,
        ),
        (json!({"maxLength": 3, "minLength": 2}), false),
    ] {
        let schema = Schema::compile(&schema).unwrap();
        for (text, expected) in [
            ("", false),
            ("a", false),
            ("ab", true),
            ("abc", true),
            ("abcd", false),
            // Two, three and four code points of two to four bytes each.
            ("é😀", true),
            ("ø字😀", true),
            ("😀😀😀", true),
            ("😀😀😀😀", false),
            ("é", false),
            ("字", false),
            ("ééé", true),
            ("éééé", false),
        ] {
            check(&schema, &json!(text), expected);
        }
        // (A number is no string: only the type can turn it down.)
        check(&schema, &json!(12), !typed);
        let short = schema.validate(&json!("é")).unwrap_err();
        assert!(
            short
                .iter()
                .any(|e| e.keyword_location().ends_with("minLength"))
        );
        let long = schema.validate(&json!("éééé")).unwrap_err();
        assert!(
            long.iter()
                .any(|e| e.keyword_location().ends_with("maxLength"))
        );
    }
}

#[test]
fn object_size_bounds_on_leaves() {
    // Both bounds together (the leaf loop checks them inline), with `type` hoisted or
    // not, and beside a `required` that the loop leaves to its call.
    for schema in [
        json!({"type": "object", "minProperties": 1, "maxProperties": 3}),
        json!({"minProperties": 1, "maxProperties": 3}),
        json!({"maxProperties": 3, "minProperties": 1, "required": []}),
    ] {
        let compiled = Schema::compile(&schema).unwrap();
        check(&compiled, &json!({}), false);
        check(&compiled, &json!({"a": 1}), true);
        check(&compiled, &json!({"a": 1, "b": 2, "c": 3}), true);
        check(&compiled, &json!({"a": 1, "b": 2, "c": 3, "d": 4}), false);
        // Not an object: only a hoisted `type` turns it down.
        let typed = schema.get("type").is_some();
        check(&compiled, &json!([1, 2, 3, 4, 5]), !typed);
        check(&compiled, &json!("abcd"), !typed);
        let few = compiled.validate(&json!({})).unwrap_err();
        assert!(few.iter().any(|e| e.keyword_location() == "/minProperties"));
        let many = compiled
            .validate(&json!({"a": 1, "b": 2, "c": 3, "d": 4}))
            .unwrap_err();
        assert!(
            many.iter()
                .any(|e| e.keyword_location() == "/maxProperties")
        );
    }
    // Bounds at the extremes of their range.
    let none = Schema::compile(&json!({"type": "object", "maxProperties": 0, "minProperties": 0}))
        .unwrap();
    check(&none, &json!({}), true);
    check(&none, &json!({"a": null}), false);
}

#[test]
fn roots_that_forward_start_at_their_target() {
    // A root `$ref` to an object, as generated schemas have it.
    let by_ref = Schema::compile(&json!({
        "$ref": "#/$defs/call",
        "$defs": {"call": {
            "type": "object",
            "properties": {"id": {"type": "integer"}},
            "required": ["id"]
        }}
    }))
    .unwrap();
    check(&by_ref, &json!({"id": 1}), true);
    check(&by_ref, &json!({"id": "1"}), false);
    check(&by_ref, &json!({}), false);
    check(&by_ref, &json!("id"), false);
    // A root `allOf` fused into one walk: a branch's `required` and another's property.
    let fused = Schema::compile(&json!({
        "$defs": {"base": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"]
        }},
        "allOf": [{"$ref": "#/$defs/base"}, {"properties": {"n": {"type": "integer"}}}]
    }))
    .unwrap();
    check(&fused, &json!({"id": "a", "n": 1}), true);
    check(&fused, &json!({"id": "a", "n": "1"}), false);
    check(&fused, &json!({"n": 1}), false);
    check(&fused, &json!(["id"]), false);
    // A root whose own type is narrower than its target's: the root's type still applies.
    for keyword in ["$ref", "allOf"] {
        let target = json!("#/$defs/any");
        let reference = if keyword == "$ref" {
            json!({"type": "object", "$ref": target})
        } else {
            json!({"type": "object", "allOf": [{"$ref": target}]})
        };
        let mut schema = reference;
        schema["$defs"] = json!({"any": {"maxLength": 3, "minProperties": 1}});
        let narrow = Schema::compile(&schema).unwrap();
        check(&narrow, &json!({"a": 1}), true);
        check(&narrow, &json!({}), false);
        check(&narrow, &json!("ab"), false);
        check(&narrow, &json!(1), false);
    }
}

#[test]
fn tuples_with_items_after_them() {
    // Draft 7: `items` as an array, `additionalItems` false or a schema.
    let closed = Options::new()
        .default_dialect(Draft::Draft7)
        .compile_both(&json!({
            "type": "array",
            "minItems": 1,
            "items": [{"type": "string"}, {"type": "integer"}],
            "additionalItems": false
        }))
        .unwrap();
    check(&closed, &json!(["a"]), true);
    check(&closed, &json!(["a", 1]), true);
    check(&closed, &json!(["a", 1, true]), false);
    check(&closed, &json!([1, 1]), false);
    check(&closed, &json!([]), false);
    check(&closed, &json!({"0": "a"}), false);
    let typed_rest = Options::new()
        .default_dialect(Draft::Draft7)
        .compile_both(&json!({
            "items": [{"type": "string"}],
            "additionalItems": {"type": "boolean"},
            "maxItems": 3
        }))
        .unwrap();
    check(&typed_rest, &json!(["a", true, false]), true);
    check(&typed_rest, &json!(["a", true, 1]), false);
    check(&typed_rest, &json!(["a", true, false, true]), false);
    check(&typed_rest, &json!([true]), false);
    check(&typed_rest, &json!("not an array"), true);
    // 2020-12: `prefixItems` and `items` after them.
    let rest = Schema::compile(&json!({
        "prefixItems": [{"const": "op"}, {"type": "number"}],
        "items": {"type": "object", "required": ["k"]},
        "minItems": 2
    }))
    .unwrap();
    check(&rest, &json!(["op", 1]), true);
    check(&rest, &json!(["op", 1, {"k": 1}, {"k": 2}]), true);
    check(&rest, &json!(["op", 1, {"k": 1}, {}]), false);
    check(&rest, &json!(["op", 1, 2]), false);
    check(&rest, &json!(["no", 1]), false);
    check(&rest, &json!(["op"]), false);
}

#[test]
fn conditions_on_one_property_are_looked_up() {
    let schema = Schema::compile(&json!({
        "type": "object",
        "if": {"properties": {"kind": {"const": "file"}}},
        "then": {"required": ["path"]},
        "else": {"required": ["url"]}
    }))
    .unwrap();
    check(&schema, &json!({"kind": "file", "path": "/a"}), true);
    check(&schema, &json!({"kind": "file", "url": "u"}), false);
    check(&schema, &json!({"kind": "link", "url": "u"}), true);
    check(&schema, &json!({"kind": "link", "path": "/a"}), false);
    check(&schema, &json!({"kind": 1, "url": "u"}), true);
    // (Absent: `properties` holds, so `then` applies.)
    check(&schema, &json!({"path": "/a"}), true);
    check(&schema, &json!({"url": "u"}), false);
    // With `required`, an enum whose `type` rules some literals out, numbers by value, and
    // objects of many keys (looked up by the map's own search).
    let schema = Schema::compile(&json!({
        "if": {
            "properties": {"v": {"type": "number", "enum": [1, "1", 2.5]}},
            "required": ["v"]
        },
        "then": {"maxProperties": 1},
        "else": {"minProperties": 2}
    }))
    .unwrap();
    check(&schema, &json!({"v": 1}), true);
    check(&schema, &json!({"v": 1.0}), true);
    check(&schema, &json!({"v": 2.5}), true);
    check(&schema, &json!({"v": 1, "w": 0}), false);
    check(&schema, &json!({"v": "1"}), false);
    check(&schema, &json!({"v": "1", "w": 0}), true);
    check(&schema, &json!({"w": 0}), false);
    check(&schema, &json!({"w": 0, "x": 0}), true);
    check(&schema, &json!("v"), true);
    let mut many = serde_json::Map::new();
    for i in 0..40 {
        many.insert(format!("k{i:02}"), json!(i));
    }
    check(&schema, &Value::Object(many.clone()), true);
    many.insert("v".into(), json!(2.5));
    check(&schema, &Value::Object(many.clone()), false);
    many.insert("v".into(), json!(3));
    check(&schema, &Value::Object(many), true);
    // The same test as a `not` and as an `anyOf` branch.
    let schema = Schema::compile(&json!({
        "anyOf": [
            {"not": {"properties": {"t": {"enum": ["a", null, {"x": [1]}]}}}},
            {"properties": {"t": {"const": "a"}}, "required": ["t"], "minProperties": 2}
        ]
    }))
    .unwrap();
    check(&schema, &json!({"t": "b"}), true);
    check(&schema, &json!({"t": null}), false);
    check(&schema, &json!({"t": {"x": [1.0]}}), false);
    check(&schema, &json!({"t": {"x": [2]}}), true);
    check(&schema, &json!({"t": "a"}), false);
    check(&schema, &json!({"t": "a", "u": 1}), true);
    check(&schema, &json!({}), false);
}

#[test]
fn property_names_checked_in_the_object_walk() {
    // A dictionary (an environment): each key's name and value.
    let env = Schema::compile(&json!({
        "type": "object",
        "additionalProperties": {"type": "string"},
        "propertyNames": {"pattern": "^[A-Z_]+$", "maxLength": 8}
    }))
    .unwrap();
    check(&env, &json!({}), true);
    check(&env, &json!({"PATH": "/bin", "HOME": "/root"}), true);
    check(&env, &json!({"PATH": "/bin", "home": "/root"}), false);
    check(&env, &json!({"PATH": 1}), false);
    check(&env, &json!({"VERY_LONG_NAME": "x"}), false);
    // Declared names, required ones, and names only (`{}` for the others' schema).
    let declared = Schema::compile(&json!({
        "type": "object",
        "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}},
        "required": ["id"],
        "additionalProperties": true,
        "propertyNames": {"enum": ["id", "tag", "note"]}
    }))
    .unwrap();
    check(&declared, &json!({"id": 1}), true);
    check(&declared, &json!({"id": 1, "note": [1]}), true);
    check(&declared, &json!({"id": 1, "other": 0}), false);
    check(&declared, &json!({"id": "1", "tag": "t"}), false);
    check(&declared, &json!({"tag": "t"}), false);
    let names_only = Schema::compile(&json!({"propertyNames": {"minLength": 2}})).unwrap();
    check(&names_only, &json!({"ab": 1}), true);
    check(&names_only, &json!({"ab": 1, "c": 2}), false);
    check(&names_only, &json!("c"), true);
    // Beside `patternProperties` (a walk of its own): still applied.
    let patterned = Schema::compile(&json!({
        "type": "object",
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": false,
        "propertyNames": {"maxLength": 4}
    }))
    .unwrap();
    check(&patterned, &json!({"x-a": "s"}), true);
    check(&patterned, &json!({"x-abc": "s"}), false);
    check(&patterned, &json!({"x-a": 1}), false);
}

#[test]
fn objects_picked_by_type_from_a_union() {
    // The object branch is the only candidate for an object: it is walked by its keys,
    // whatever the costs of its properties, and gives the union's answer.
    let window = json!({
        "type": "object",
        "properties": {
            "panes": {"type": "array", "items": {"oneOf": [
                {"type": "number"},
                {"type": "string", "minLength": 1},
                {"type": "array", "items": {"type": "string"}}
            ]}},
            "layout": {"type": "string"},
            "pre": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["layout"]
    });
    let lone = json!({"type": "array", "items": {"oneOf": [{"type": "string"}, window]}});
    // The same union as a branch of a union the types do not decide.
    let nested = json!({"type": "array", "items": {"anyOf": [
        {"oneOf": [{"type": "string"}, window]},
        {"type": "object", "required": ["name"]}
    ]}});
    for (schema, named_passes) in [(lone, false), (nested, true)] {
        let schema = Schema::compile(&schema).unwrap();
        check(&schema, &json!(["x", {"layout": "tiled"}]), true);
        check(
            &schema,
            &json!([{"layout": "a", "panes": [1, "b", ["c"]], "pre": ["d"]}]),
            true,
        );
        check(&schema, &json!([{"layout": "a", "panes": [""]}]), false);
        check(
            &schema,
            &json!([{"layout": "a", "panes": [["c", 1]]}]),
            false,
        );
        check(&schema, &json!([{"layout": "a", "pre": [1]}]), false);
        check(&schema, &json!([{"layout": 1, "panes": [1]}]), false);
        check(&schema, &json!([{"panes": [1]}]), false);
        check(
            &schema,
            &json!([{"name": "n", "panes": [true]}]),
            named_passes,
        );
        check(&schema, &json!([1]), false);
    }
}

#[test]
fn typed_roots_that_forward_to_an_object_walk() {
    // The root's types are checked, then the object is walked where the references lead.
    let base = json!({"properties": {"ignore": {"type": "string"}}, "required": ["ignore"]});
    let schema = Schema::compile(&json!({
        "type": "object",
        "allOf": [{"$ref": "#/$defs/base"}],
        "$defs": {"base": base}
    }))
    .unwrap();
    check(&schema, &json!({"ignore": "x", "rules": {}}), true);
    check(&schema, &json!({"ignore": 1}), false);
    check(&schema, &json!({"rules": {}}), false);
    check(&schema, &json!("ignore"), false);
    check(&schema, &json!([]), false);
    // Through two forwards, each typed: an instance must have a type of both.
    let schema = Schema::compile(&json!({
        "type": ["object", "string", "null"],
        "$ref": "#/$defs/middle",
        "$defs": {
            "middle": {"type": ["object", "string", "array"], "$ref": "#/$defs/base"},
            "base": base
        }
    }))
    .unwrap();
    check(&schema, &json!({"ignore": "x"}), true);
    check(&schema, &json!({}), false);
    check(&schema, &json!("text"), true);
    check(&schema, &json!(null), false);
    check(&schema, &json!([]), false);
    // Draft-4 integers (1.0 is not one) stay with the root's own check.
    let schema = Options::new()
        .default_dialect(Draft::Draft4)
        .compile_both(&json!({
            "type": ["object", "integer"],
            "allOf": [{"$ref": "#/definitions/base"}],
            "definitions": {"base": {"properties": {"a": {"type": "string"}}}}
        }))
        .unwrap();
    check(&schema, &json!({"a": "x"}), true);
    check(&schema, &json!({"a": 1}), false);
    check(&schema, &json!(1), true);
    check(&schema, &json!(1.0), false);
    check(&schema, &json!(1.5), false);
}
