//! Dialect differences `unevaluatedItems` depends on, between 2019-09 and 2020-12.
//!
//! In 2019-09 only `items`/`additionalItems` (and in-place applicators, `unevaluatedItems`
//! of subschemas) make items evaluated; 2020-12 added `contains`, whose matching items
//! count too. So `{"contains": {"const": "a"}, "unevaluatedItems": false}` rejects `["a"]`
//! in 2019-09 and accepts it in 2020-12. Each case puts the `contains` in a different
//! place (beside the keyword, in `allOf`, behind a `$ref`, in an `anyOf`/`oneOf` branch,
//! in `if`/`then`/`else`, behind `$recursiveRef`, in a resource of the other dialect) and
//! checks the verdict written here on every path under both configurations.

mod support;

use serde_json::{Value, json};

const D2019: &str = "https://json-schema.org/draft/2019-09/schema";
const D2020: &str = "https://json-schema.org/draft/2020-12/schema";

/// `{"$schema": dialect}` merged into `schema` (an object).
fn with_dialect(dialect: &str, mut schema: Value) -> Value {
    schema
        .as_object_mut()
        .expect("an object schema")
        .insert("$schema".into(), json!(dialect));
    schema
}

/// Each schema holding `unevaluatedItems: false` with `contains: {"const": "a"}` reached
/// from it (every item matching `contains` counts as evaluated in 2020-12 only).
fn placements() -> Vec<(&'static str, Value)> {
    let c = || json!({"contains": {"const": "a"}});
    vec![
        (
            "beside",
            json!({"contains": {"const": "a"}, "unevaluatedItems": false}),
        ),
        ("allOf", json!({"allOf": [c()], "unevaluatedItems": false})),
        (
            "$ref",
            json!({"$ref": "#/$defs/c", "$defs": {"c": c()}, "unevaluatedItems": false}),
        ),
        (
            "allOf of $ref to anyOf",
            json!({
                "allOf": [{"$ref": "#/$defs/c"}],
                "$defs": {"c": {"anyOf": [c()]}},
                "unevaluatedItems": false
            }),
        ),
        (
            "anyOf",
            json!({"anyOf": [{"type": "string"}, c()], "unevaluatedItems": false}),
        ),
        (
            "oneOf",
            json!({"oneOf": [{"type": "string"}, c()], "unevaluatedItems": false}),
        ),
        (
            "if/then",
            json!({"if": {"type": "array"}, "then": c(), "unevaluatedItems": false}),
        ),
        (
            "if/else",
            json!({"if": {"type": "object"}, "else": c(), "unevaluatedItems": false}),
        ),
        (
            "if itself",
            json!({"if": c(), "then": {"minItems": 1}, "else": false, "unevaluatedItems": false}),
        ),
        (
            "$ref to a sibling with the keyword",
            json!({"$ref": "#/$defs/c", "$defs": {"c": {"contains": {"const": "a"}, "unevaluatedItems": false}}}),
        ),
    ]
}

/// The verdicts: `["a"]` depends on the dialect; the rest do not.
fn check_dialect(dialect: &str, name: &str, schema: &Value, wrap: impl Fn(Value) -> Value) {
    let both = support::compile(schema)
        .unwrap_or_else(|e| panic!("{name} ({dialect}): {schema} does not compile: {e}"));
    let contains_counts = dialect == D2020;
    let cases = [
        (json!(["a"]), contains_counts),
        (json!(["a", "a"]), contains_counts),
        (json!(["a", "b"]), false),
        (json!(["b"]), false),
        (json!([]), false),
    ];
    for (instance, expected) in cases {
        let instance = wrap(instance);
        let got = support::disagreement(&both, &instance)
            .unwrap_or_else(|why| panic!("{name} ({dialect}): {schema}: {why}"));
        assert_eq!(
            got, expected,
            "{name} ({dialect}): {schema} on {instance}: expected {expected}"
        );
    }
}

#[test]
fn contains_evaluates_items_only_from_2020_12() {
    for dialect in [D2019, D2020] {
        for (name, placement) in placements() {
            // At the root, and under a property (the keyword then is not the root's).
            let root = with_dialect(dialect, placement.clone());
            check_dialect(dialect, name, &root, |i| i);
            // (Its pointers re-rooted at the property.)
            let moved = placement
                .to_string()
                .replace("#/$defs/", "#/properties/p/$defs/");
            let moved: Value = serde_json::from_str(&moved).expect("JSON");
            let nested = with_dialect(dialect, json!({"properties": {"p": moved}}));
            check_dialect(dialect, name, &nested, |i| json!({"p": i}));
        }
    }
}

#[test]
fn contains_behind_recursive_or_dynamic_references() {
    // The item list's schema refers back to the root, whose `anyOf` branch with `contains`
    // holds for arrays; `{"list": ["a"]}`'s item is evaluated only if `contains` counts.
    let body = |r: &str| {
        json!({
            "anyOf": [{"type": "object"}, {"contains": {"const": "a"}}],
            "properties": {"list": {r: "#", "unevaluatedItems": false}}
        })
    };
    let cases = [
        (D2019, "$recursiveRef", false),
        (D2019, "$ref", false),
        (D2020, "$dynamicRef", true),
        (D2020, "$ref", true),
    ];
    for (dialect, r, expected) in cases {
        let schema = with_dialect(dialect, body(r));
        let both = support::compile(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
        support::check(&both, &json!({"list": ["a"]}), expected);
        support::check(&both, &json!({"list": ["a", "b"]}), false);
        support::check(&both, &json!({"list": []}), false);
        support::check(&both, &json!({"list": ["b"]}), false);
    }
}

#[test]
fn each_resource_keeps_its_own_dialect() {
    // A 2020-12 `unevaluatedItems` reaching a 2019-09 `contains`: that `contains`
    // evaluates nothing; and a 2019-09 one reaching a 2020-12 `contains`: it does.
    let cases = [(D2020, D2019, false), (D2019, D2020, true)];
    for (outer, inner, expected) in cases {
        let schema = json!({
            "$schema": outer,
            "$id": "https://example.com/outer",
            "allOf": [{"$ref": "https://example.com/inner"}],
            "unevaluatedItems": false,
            "$defs": {
                "inner": {
                    "$schema": inner,
                    "$id": "https://example.com/inner",
                    "contains": {"const": "a"}
                }
            }
        });
        let both = support::compile(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
        support::check(&both, &json!(["a"]), expected);
        support::check(&both, &json!(["a", "b"]), false);
    }
}

#[test]
fn older_items_forms_in_2019_09() {
    let d = D2019;
    // `items` as an array evaluates its prefix; `additionalItems` the rest.
    let prefix = with_dialect(
        d,
        json!({"items": [true], "contains": {"const": "a"}, "unevaluatedItems": false}),
    );
    let both = support::compile(&prefix).expect("compiles");
    support::check(&both, &json!(["a"]), true);
    support::check(&both, &json!(["x", "a"]), false);
    let additional = with_dialect(
        d,
        json!({"items": [true], "additionalItems": {"const": "a"}, "unevaluatedItems": false}),
    );
    let both = support::compile(&additional).expect("compiles");
    support::check(&both, &json!(["x", "a", "a"]), true);
    support::check(&both, &json!(["x", "b"]), false);
    // Without an array `items`, `additionalItems` is ignored: it evaluates nothing.
    let alone = with_dialect(
        d,
        json!({"additionalItems": {"const": "a"}, "unevaluatedItems": false}),
    );
    let both = support::compile(&alone).expect("compiles");
    support::check(&both, &json!([]), true);
    support::check(&both, &json!(["a"]), false);
    // A schema `items` evaluates everything, behind `allOf` too.
    let all = with_dialect(
        d,
        json!({"allOf": [{"items": {"type": "string"}}], "unevaluatedItems": false}),
    );
    let both = support::compile(&all).expect("compiles");
    support::check(&both, &json!(["a", "b"]), true);
    // The 2020-12 counterparts: `prefixItems`, and `contains` counting.
    let prefix = with_dialect(
        D2020,
        json!({"prefixItems": [true], "contains": {"const": "a"}, "unevaluatedItems": false}),
    );
    let both = support::compile(&prefix).expect("compiles");
    support::check(&both, &json!(["x", "a"]), true);
    support::check(&both, &json!(["x", "a", "b"]), false);
    // In 2020-12, `additionalItems` is no keyword: nothing evaluated.
    let alone = with_dialect(
        D2020,
        json!({"items": true, "additionalItems": false, "unevaluatedItems": false}),
    );
    let both = support::compile(&alone).expect("compiles");
    support::check(&both, &json!(["a"]), true);
}

#[test]
fn contains_annotation_only_from_2020_12() {
    for (dialect, expected) in [(D2019, false), (D2020, true)] {
        let schema = with_dialect(dialect, json!({"contains": {"const": "a"}}));
        let both = support::compile(&schema).expect("compiles");
        for s in [&both.fast, &both.reference] {
            let evaluation = s.evaluate(&json!(["a", "b"]));
            assert!(evaluation.is_valid());
            let annotated = evaluation
                .annotations()
                .iter()
                .any(|a| a.keyword() == "contains");
            assert_eq!(annotated, expected, "{schema}: a `contains` annotation");
        }
    }
}
