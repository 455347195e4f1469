//! A `oneOf`/`anyOf` told apart by a tag property reports the branch the tag selects and
//! that branch's own errors, or the tag values the schema allows; never the instance's tag.

use serde_json::{Value, json};
use toolschema::mcp::contract::check_arguments;
use toolschema::{BranchChoice, ErrorKind, Options, Schema};

fn schema(keyword: &str) -> Schema {
    Options::new()
        .compile(&json!({
            "type": "object",
            "properties": {"op": {keyword: [
                {"type": "object", "properties": {"kind": {"const": "ping"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "listen"},
                    "port": {"type": "integer", "maximum": 65535}}, "required": ["kind", "port"]},
                {"$ref": "#/$defs/close"}
            ]}},
            "$defs": {"close": {"type": "object", "properties": {"kind": {"const": "close"},
                "code": {"type": "integer", "minimum": 1000}}, "required": ["kind"]}}
        }))
        .unwrap()
}

fn report(schema: &Schema, instance: Value) -> String {
    check_arguments(schema, "t", Some(&instance))
        .unwrap_err()
        .to_string()
}

#[test]
fn the_selected_branch_and_its_errors_are_reported() {
    for keyword in ["oneOf", "anyOf"] {
        let s = schema(keyword);
        let text = report(&s, json!({"op": {"kind": "listen", "port": 70000}}));
        assert!(
            text.contains(&format!(
                "/op: the \"kind\" property selects branch /{keyword}/1"
            )),
            "{text}"
        );
        assert!(text.contains("/op/port: must be at most 65535"), "{text}");
        assert!(
            !text.contains("exactly one") && !text.contains("at least one"),
            "{text}"
        );
        assert!(!text.contains("70000"), "{text}");
        // Through a `$ref`, too.
        let text = report(&s, json!({"op": {"kind": "close", "code": 5}}));
        assert!(text.contains("/op/code: must be at least 1000"), "{text}");

        // The error as the library gives it: the branch's errors first, at their own
        // locations, then the line that names the branch.
        let errors: Vec<_> = s.iter_errors(&json!({"op": {"kind": "listen"}})).collect();
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].message(), "missing required property \"port\"");
        assert!(matches!(
            errors[1].kind(),
            ErrorKind::ClosestBranch {
                branch: 1,
                choice: BranchChoice::Tag { .. },
                ..
            }
        ));
    }
}

#[test]
fn an_unknown_tag_lists_the_allowed_values_from_the_schema() {
    let s = schema("oneOf");
    let text = report(&s, json!({"op": {"kind": "SECRET-tag-value"}}));
    assert!(text.contains("/op/kind: must be one of"), "{text}");
    for tag in ["\"ping\"", "\"listen\"", "\"close\""] {
        assert!(text.contains(tag), "{text}");
    }
    assert!(!text.contains("SECRET"), "{text}");
    let text = report(&s, json!({"op": {"kind": 7}}));
    assert!(text.contains("/op/kind: must be one of"), "{text}");
    let text = report(&s, json!({"op": {}}));
    assert!(
        text.contains("/op: missing required property \"kind\""),
        "{text}"
    );
}

#[test]
fn unions_without_a_deciding_tag() {
    let s = Options::new()
        .compile(&json!({"oneOf": [{"type": "string"}, {"type": "integer", "maximum": 3}]}))
        .unwrap();
    // Without a tag, the one branch whose type admits the value speaks (see
    // tests/closest_branch.rs); with none, the union as before.
    let errors: Vec<_> = s.iter_errors(&json!(9)).collect();
    assert_eq!(errors[0].to_string(), "/: must be at most 3", "{errors:?}");
    let errors: Vec<_> = s.iter_errors(&json!(true)).collect();
    assert!(
        matches!(errors[0].kind(), ErrorKind::OneOf { .. }),
        "{errors:?}"
    );
    // Valid instances stay valid, two matching branches still fail oneOf.
    let s = schema("oneOf");
    assert!(s.is_valid(&json!({"op": {"kind": "listen", "port": 80}})));
    let both = Options::new()
        .compile(&json!({"oneOf": [
            {"properties": {"kind": {"const": "a"}}},
            {"properties": {"kind": {"const": "a"}}}
        ]}))
        .unwrap();
    let errors: Vec<_> = both.iter_errors(&json!({"kind": "a"})).collect();
    assert!(
        matches!(errors[0].kind(), ErrorKind::OneOf { matched: 2, .. }),
        "{errors:?}"
    );
}

mod support;

/// The code generators' numeric formats are asserted on every path and in both
/// configurations: a bare leaf, a property (object shapes), array items and a union.
#[test]
fn numeric_formats_agree_on_every_path() {
    let options = Options::new().assert_formats(true);
    let cases = [
        (
            json!({"type": "integer", "format": "uint8"}),
            json!(255),
            true,
        ),
        (
            json!({"type": "integer", "format": "uint8"}),
            json!(256),
            false,
        ),
        (
            json!({"type": "integer", "format": "uint8"}),
            json!(-1),
            false,
        ),
        (json!({"format": "int16"}), json!(-32769), false),
        (json!({"format": "int16"}), json!("not a number"), true),
        (
            json!({"type": "object", "properties": {"port": {"type": "integer", "format": "uint16"}}, "required": ["port"]}),
            json!({"port": 70000}),
            false,
        ),
        (
            json!({"type": "object", "properties": {"port": {"type": "integer", "format": "uint16"}}, "required": ["port"]}),
            json!({"port": 8080}),
            true,
        ),
        (
            json!({"type": "array", "items": {"type": "integer", "format": "int8"}}),
            json!([1, 2, 128]),
            false,
        ),
        (
            json!({"type": "array", "items": {"type": "number", "format": "float"}}),
            json!([1.5, 1e300]),
            false,
        ),
        (
            json!({"anyOf": [{"type": "string"}, {"type": "integer", "format": "uint32"}]}),
            json!(4294967296u64),
            false,
        ),
    ];
    for (schema, instance, expected) in cases {
        let both = support::compile_with(&options, &schema).unwrap();
        support::check(&both, &instance, expected);
    }
    // Without format assertion the formats annotate only.
    let both = support::compile(&json!({"type": "integer", "format": "uint8"})).unwrap();
    support::check(&both, &json!(256), true);
}
