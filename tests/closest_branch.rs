//! An `anyOf`/`oneOf` that no branch matches reports the errors of the branch the instance
//! most plausibly meant, at their own locations, then one line naming that branch: in
//! `iter_errors`, the standard output formats and MCP refusals alike; never a value of the
//! instance.

use serde_json::{Value, json};
use toolschema::mcp::contract::check_arguments;
use toolschema::{BranchChoice, ErrorKind, Schema};

fn compile(schema: Value) -> Schema {
    Schema::compile(&schema).unwrap()
}

/// A pydantic model with an `Optional[Address]` field, as pydantic 2 emits it.
fn pydantic_user() -> Schema {
    compile(json!({
        "$defs": {
            "Address": {"type": "object", "title": "Address",
                "properties": {"street": {"type": "string"},
                               "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                "required": ["street", "zip"]},
            "User": {"type": "object", "title": "User",
                "properties": {"name": {"type": "string"},
                               "address": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}],
                                           "default": null}},
                "required": ["name"]}
        },
        "type": "object",
        "properties": {"user": {"$ref": "#/$defs/User"}},
        "required": ["user"]
    }))
}

fn messages(schema: &Schema, instance: &Value) -> Vec<String> {
    schema
        .iter_errors(instance)
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn the_non_null_member_of_an_optional_reports_its_own_errors() {
    let s = pydantic_user();
    let bad = json!({"user": {"name": "a", "address": {"street": "s", "zip": "SECRET-zip"}}});
    let errors: Vec<_> = s.iter_errors(&bad).collect();
    assert_eq!(
        errors[0].to_string(),
        "/user/address/zip: must match the pattern \"^[0-9]{5}$\""
    );
    assert_eq!(
        errors[0].keyword_location(),
        "/properties/user/$ref/properties/address/anyOf/0/$ref/properties/zip/pattern"
    );
    assert_eq!(errors[1].instance_location(), "/user/address");
    assert!(
        matches!(
            errors[1].kind(),
            ErrorKind::ClosestBranch {
                keyword: "anyOf",
                branch: 0,
                branches: 2,
                choice: BranchChoice::Type
            }
        ),
        "{errors:?}"
    );
    assert_eq!(errors.len(), 2);
    // The refusal a model reads names the member first.
    let refusal = check_arguments(&s, "save_user", Some(&bad))
        .unwrap_err()
        .to_string();
    assert!(
        refusal.starts_with(
            "tool \"save_user\": arguments: /user/address/zip: must match the pattern"
        ),
        "{refusal}"
    );
    assert!(!refusal.contains("SECRET"), "{refusal}");
    // A missing member names its parent, inside the union.
    let missing = json!({"user": {"name": "a", "address": {"street": "s"}}});
    assert_eq!(
        messages(&s, &missing)[0],
        "/user/address: missing required property \"zip\""
    );
    // The value of the wrong type altogether: the union itself is the place.
    let wrong = json!({"user": {"name": "a", "address": 5}});
    let errors: Vec<_> = s.iter_errors(&wrong).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].instance_location(), "/user/address");
    assert!(matches!(errors[0].kind(), ErrorKind::AnyOf { branches: 2 }));
    assert_eq!(errors[0].causes().len(), 2);
}

#[test]
fn a_tag_selected_branch_names_the_failing_member() {
    let s = compile(json!({"type": "object", "properties": {"shape": {"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "circle"},
            "radius": {"type": "number", "minimum": 0}}, "required": ["kind", "radius"]},
        {"type": "object", "properties": {"kind": {"const": "square"},
            "side": {"type": "number", "minimum": 0}}, "required": ["kind", "side"]}
    ]}}}));
    let errors = messages(&s, &json!({"shape": {"kind": "square", "side": -1}}));
    assert_eq!(
        errors,
        [
            "/shape/side: must be at least 0",
            "/shape: the \"kind\" property selects branch /oneOf/1, which does not match \
             (its errors are listed above)"
        ]
    );
    let e: Vec<_> = s
        .iter_errors(&json!({"shape": {"kind": "circle"}}))
        .collect();
    assert_eq!(
        e[0].to_string(),
        "/shape: missing required property \"radius\""
    );
    assert!(matches!(
        e[1].kind(),
        ErrorKind::ClosestBranch { choice: BranchChoice::Tag { property }, branch: 0, .. }
            if &**property == "kind"
    ));
}

#[test]
fn without_a_tag_the_branch_that_got_furthest() {
    // Two object shapes, no tag: the one whose errors lie deepest.
    let s = compile(json!({"anyOf": [
        {"type": "object", "properties": {"query": {"type": "object",
            "properties": {"limit": {"type": "integer", "maximum": 100}}}},
         "required": ["query"], "additionalProperties": false},
        {"type": "object", "properties": {"id": {"type": "string"}},
         "required": ["id"], "additionalProperties": false}
    ]}));
    let errors: Vec<_> = s.iter_errors(&json!({"query": {"limit": 500}})).collect();
    assert_eq!(errors[0].to_string(), "/query/limit: must be at most 100");
    assert!(matches!(
        errors[1].kind(),
        ErrorKind::ClosestBranch {
            branch: 0,
            choice: BranchChoice::Deepest,
            ..
        }
    ));
    assert!(
        errors[1].to_string().contains("the other 1 fail sooner"),
        "{}",
        errors[1]
    );
    // An extra property: the branch that describes the rest of the object.
    let errors = messages(&s, &json!({"id": "x", "SECRET-extra": 1}));
    assert_eq!(errors[0], "/SECRET-extra: property is not allowed");
    // Two branches equally close: the union reports, every branch's errors as causes.
    let tie = compile(json!({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}));
    let errors: Vec<_> = tie.iter_errors(&json!({})).collect();
    assert!(matches!(errors[0].kind(), ErrorKind::AnyOf { .. }));
    assert_eq!(errors[0].causes().len(), 2);
}

#[test]
fn scalars_literals_and_nested_unions() {
    // `"auto" | integer >= 0`: the literal rejects the value itself, the integer branch speaks.
    let s = compile(
        json!({"properties": {"n": {"anyOf": [{"const": "auto"}, {"type": "integer", "minimum": 0}]}}}),
    );
    assert_eq!(messages(&s, &json!({"n": -1}))[0], "/n: must be at least 0");
    // A union inside a union's chosen branch: the innermost member first.
    let nested = compile(json!({"properties": {"a": {"anyOf": [
        {"type": "null"},
        {"type": "array", "items": {"oneOf": [
            {"type": "string", "maxLength": 3},
            {"type": "object", "properties": {"k": {"enum": ["x", "y"]}}}
        ]}}
    ]}}}));
    let errors = messages(&nested, &json!({"a": ["ab", {"k": "SECRET"}]}));
    assert_eq!(
        errors[0],
        "/a/1/k: must be one of the 2 allowed values: \"x\", \"y\""
    );
    assert!(errors[1].starts_with("/a/1: matches none of the 2 schemas under \"oneOf\""));
    assert!(errors[2].starts_with("/a: matches none of the 2 schemas under \"anyOf\""));
    assert!(errors.iter().all(|e| !e.contains("SECRET")), "{errors:?}");
    // Valid instances stay valid; two matches still fail `oneOf` as before.
    assert!(nested.is_valid(&json!({"a": ["ab", {"k": "x"}]})));
    let both = compile(json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]}));
    let errors: Vec<_> = both.iter_errors(&json!(3)).collect();
    assert!(matches!(
        errors[0].kind(),
        ErrorKind::OneOf { matched: 2, .. }
    ));
}

/// `evaluate` and its standard output formats report the same errors as `iter_errors`.
#[test]
fn the_output_formats_report_the_same_member() {
    let s = pydantic_user();
    let bad = json!({"user": {"name": "a", "address": {"street": "s", "zip": "1"}}});
    let evaluation = s.evaluate(&bad);
    let from_evaluate: Vec<String> = evaluation.errors().iter().map(|e| e.to_string()).collect();
    assert_eq!(from_evaluate, messages(&s, &bad));
    let basic = evaluation.basic();
    assert_eq!(basic["valid"], false);
    let first = &basic["errors"][0];
    assert_eq!(first["instanceLocation"], "/user/address/zip", "{basic}");
    // Tagged, through `evaluate`, too.
    let t = compile(json!({"oneOf": [
        {"properties": {"t": {"const": "a"}, "x": {"type": "string"}}, "required": ["t"]},
        {"properties": {"t": {"const": "b"}, "y": {"type": "string"}}, "required": ["t"]}
    ]}));
    let bad = json!({"t": "b", "y": 1});
    let from_evaluate: Vec<String> = t
        .evaluate(&bad)
        .errors()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(from_evaluate, messages(&t, &bad));
    assert_eq!(from_evaluate[0], "/y: must be string, not integer");
}
