//! Schemas that must be refused, and what the error must say: a data table.

use serde_json::{Value, json};
use toolschema::{Limits, Options, Schema, SchemaErrorKind};

struct Case {
    schema: Value,
    kind: SchemaErrorKind,
    location: &'static str,
    message_has: &'static str,
}

fn cases() -> Vec<Case> {
    use SchemaErrorKind::*;
    let c = |schema: Value, kind, location, message_has| Case {
        schema,
        kind,
        location,
        message_has,
    };
    vec![
        c(
            json!({"minLength": -1}),
            InvalidKeyword,
            "/minLength",
            "non-negative integer",
        ),
        c(
            json!({"maxItems": 1.5}),
            InvalidKeyword,
            "/maxItems",
            "non-negative integer",
        ),
        c(json!({"type": 5}), InvalidKeyword, "/type", "type name"),
        c(
            json!({"type": ["string", "text"]}),
            InvalidKeyword,
            "/type",
            "type name",
        ),
        c(
            json!({"required": "x"}),
            InvalidKeyword,
            "/required",
            "array of strings",
        ),
        c(
            json!({"required": [1]}),
            InvalidKeyword,
            "/required",
            "array of strings",
        ),
        c(
            json!({"required": ["a", "a"]}),
            InvalidKeyword,
            "/required",
            "twice",
        ),
        c(json!({"type": []}), InvalidKeyword, "/type", "at least one"),
        c(
            json!({"type": ["string", "string"]}),
            InvalidKeyword,
            "/type",
            "twice",
        ),
        c(
            json!({"properties": {"a": {"minimum": "3"}}}),
            InvalidKeyword,
            "/properties/a/minimum",
            "number",
        ),
        c(
            json!({"multipleOf": 0}),
            InvalidKeyword,
            "/multipleOf",
            "greater than 0",
        ),
        c(json!({"enum": {}}), InvalidKeyword, "/enum", "array"),
        c(json!({"allOf": []}), InvalidKeyword, "/allOf", "non-empty"),
        c(
            json!({"anyOf": {}}),
            InvalidKeyword,
            "/anyOf",
            "array of schemas",
        ),
        c(
            json!({"properties": {"a": 3}}),
            InvalidKeyword,
            "/properties/a",
            "object or a boolean",
        ),
        c(
            json!({"pattern": "(unclosed"}),
            InvalidPattern,
            "/pattern",
            "regular expression",
        ),
        c(
            json!({"patternProperties": {"[": {}}}),
            InvalidPattern,
            "/patternProperties/[",
            "regular expression",
        ),
        c(
            json!({"$ref": "#/defs/x"}),
            UnresolvedReference,
            "/$ref",
            "resolves to nothing",
        ),
        c(
            json!({"properties": {"a": {"$ref": "#/defs/x"}}}),
            UnresolvedReference,
            "/properties/a/$ref",
            "\"#/defs/x\"",
        ),
        c(
            json!({"$ref": "#missing"}),
            UnresolvedReference,
            "/$ref",
            "no anchor",
        ),
        c(
            json!({"$ref": "https://example.com/other.json"}),
            UnresolvedReference,
            "/$ref",
            "no document",
        ),
        c(json!({"$ref": "#"}), ReferenceCycle, "", "cycle"),
        c(
            json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}),
            ReferenceCycle,
            "",
            "cycle",
        ),
        c(json!({"not": {"$ref": "#"}}), ReferenceCycle, "", "cycle"),
        c(
            json!({"$defs": {"a": {"$id": "https://x.com/a"}, "b": {"$id": "https://x.com/a", "type": "null"}}, "properties": {"p": {"$ref": "https://x.com/a"}}}),
            DuplicateIdentifier,
            "/properties/p/$ref",
            "could reach two different subschemas",
        ),
        c(
            json!({"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x", "type": "null"}}, "$ref": "#x"}),
            DuplicateIdentifier,
            "/$ref",
            "could reach two different subschemas",
        ),
        c(
            json!({"$schema": "https://example.com/my-dialect"}),
            UnknownDialect,
            "/$schema",
            "unknown dialect",
        ),
        c(
            json!({"$anchor": "1bad"}),
            InvalidKeyword,
            "/$anchor",
            "plain name",
        ),
    ]
}

#[test]
fn malformed_schemas_are_refused_with_kind_location_and_reason() {
    for case in cases() {
        let err = match Schema::compile(&case.schema) {
            Ok(_) => panic!("{} compiled, expected {:?}", case.schema, case.kind),
            Err(e) => e,
        };
        assert_eq!(err.kind(), case.kind, "{}: {err}", case.schema);
        if !case.location.is_empty() {
            assert_eq!(err.location(), case.location, "{}: {err}", case.schema);
        }
        assert!(
            err.message().contains(case.message_has),
            "{}: {err} lacks {:?}",
            case.schema,
            case.message_has
        );
        let shown = err.to_string();
        assert!(
            shown.starts_with(if err.location().is_empty() {
                "/"
            } else {
                err.location()
            }),
            "{shown}"
        );
        assert_eq!(shown, shown.trim(), "one line");
        assert!(!shown.contains('\n'), "one line: {shown}");
    }
}

#[test]
fn unresolved_reference_error_reads_well() {
    let err = Schema::compile(&json!({"properties": {"a": {"$ref": "#/defs/x"}}})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/properties/a/$ref: \"#/defs/x\" resolves to nothing"
    );
}

fn nested(depth: usize) -> Value {
    // depth counts values: {"items": {"items": ... {}}} has 1 + depth - 1 object levels.
    let mut v = json!({});
    for _ in 1..depth {
        v = json!({ "items": v });
    }
    v
}

#[test]
fn depth_cap_counts_like_the_mcp_sdks() {
    assert!(Schema::compile(&nested(64)).is_ok());
    let err = Schema::compile(&nested(65)).unwrap_err();
    assert_eq!(err.kind(), SchemaErrorKind::DepthExceeded);
    assert!(err.to_string().contains("maximum depth of 64"), "{err}");
    assert!(err.location().starts_with("/items/items"), "{err}");
    // Scalars count: an enum member one level below the deepest allowed object.
    let mut deep = json!({"enum": [1]});
    for _ in 0..61 {
        deep = json!({ "items": deep });
    }
    // root(1) .. 62 objects, enum array at 63, its member at 64: allowed.
    assert!(Schema::compile(&deep).is_ok());
    let deeper = json!({ "items": deep });
    assert_eq!(
        Schema::compile(&deeper).unwrap_err().kind(),
        SchemaErrorKind::DepthExceeded
    );
    assert!(
        Options::new()
            .limits(Limits::none())
            .compile(&nested(500))
            .is_ok()
    );
}

#[test]
fn subschema_cap_counts_every_object() {
    let props: serde_json::Map<String, Value> =
        (0..9_999).map(|i| (format!("p{i}"), json!({}))).collect();
    // root + properties object + 9,999 = 10,001 objects.
    let schema = json!({"properties": Value::Object(props.clone())});
    let err = Schema::compile(&schema).unwrap_err();
    assert_eq!(err.kind(), SchemaErrorKind::TooManySubschemas);
    assert!(err.to_string().contains("10000"), "{err}");
    let mut fewer = props;
    fewer.remove("p0");
    assert!(Schema::compile(&json!({"properties": Value::Object(fewer)})).is_ok());
    let tight = Options::new().limits(Limits::new(64, 3));
    assert!(tight.compile(&json!({"properties": {"a": {}}})).is_ok());
    assert!(
        tight
            .compile(&json!({"properties": {"a": {}, "b": {}}}))
            .is_err()
    );
}

#[test]
fn fragment_only_policy() {
    let opts = Options::new().refs_fragment_only(true);
    assert!(
        opts.compile(&json!({"$ref": "#/$defs/a", "$defs": {"a": {}}}))
            .is_ok()
    );
    let err = opts
        .compile(&json!({"$id": "https://x.com/s", "$ref": "https://x.com/s#/$defs/a", "$defs": {"a": {}}}))
        .unwrap_err();
    assert_eq!(err.kind(), SchemaErrorKind::ForbiddenReference);
    assert_eq!(err.location(), "/$ref");
    // The default accepts any reference that resolves inside the document.
    assert!(Schema::compile(&json!({"$id": "https://x.com/s", "$ref": "https://x.com/s#/$defs/a", "$defs": {"a": {}}})).is_ok());
}

#[test]
fn registered_documents_resolve_and_nothing_is_fetched() {
    let schema = json!({"$ref": "https://example.com/point.json"});
    assert_eq!(
        Schema::compile(&schema).unwrap_err().kind(),
        SchemaErrorKind::UnresolvedReference
    );
    let s = Options::new()
        .with_document(
            "https://example.com/point.json",
            json!({"type": "object", "required": ["x"]}),
        )
        .compile(&schema)
        .unwrap();
    assert!(s.is_valid(&json!({"x": 1})));
    assert!(!s.is_valid(&json!({})));
}

/// A registered document's embedded resources, and its own `$id` when it was registered
/// under another URI, resolve though nothing names the document by its URI (Bowtie's
/// protocol schemas reference `tag:bowtie.report,2024:report:seq`, a resource embedded in
/// the report schema, and nothing else of that document).
#[test]
fn resources_of_registered_documents_resolve_before_their_document_is_loaded() {
    let options = Options::new()
        .with_document(
            "tag:example.com,2026:report",
            json!({
                "$id": "tag:example.com,2026:report",
                "$defs": {"seq": {"$id": "tag:example.com,2026:report:seq", "type": "integer"}}
            }),
        )
        .with_document(
            "https://example.com/retrieved-here.json",
            json!({"$id": "https://example.com/known-as.json", "type": "string"}),
        );
    let s = options
        .compile(&json!({
            "properties": {
                "seq": {"$ref": "tag:example.com,2026:report:seq"},
                "name": {"$ref": "https://example.com/known-as.json"}
            }
        }))
        .unwrap();
    assert!(s.is_valid(&json!({"seq": 1, "name": "n"})));
    assert!(!s.is_valid(&json!({"seq": "1"})));
    assert!(!s.is_valid(&json!({"name": 1})));
    // What no registered document holds still resolves to nothing, clearly.
    let err = options
        .compile(&json!({"$ref": "tag:example.com,2026:elsewhere"}))
        .unwrap_err();
    assert_eq!(err.kind(), SchemaErrorKind::UnresolvedReference);
    assert!(err.message().contains("no document or $id"), "{err}");
}

#[test]
fn references_through_ids_anchors_and_escapes() {
    let s = Schema::compile(&json!({
        "$id": "https://example.com/root.json",
        "$defs": {
            "a~b/c": {"type": "integer"},
            "pct%": {"type": "string"},
            "inner": {"$id": "inner.json", "$anchor": "here", "type": "boolean"},
            "urn": {"$id": "urn:example:thing", "type": "null"}
        },
        "properties": {
            "p1": {"$ref": "#/$defs/a~0b~1c"},
            "p2": {"$ref": "#/$defs/pct%25"},
            "p3": {"$ref": "inner.json"},
            "p4": {"$ref": "https://example.com/inner.json#here"},
            "p5": {"$ref": "urn:example:thing"}
        }
    }))
    .unwrap();
    assert!(s.is_valid(&json!({"p1": 1, "p2": "x", "p3": true, "p4": false, "p5": null})));
    for bad in [
        json!({"p1": "1"}),
        json!({"p2": 2}),
        json!({"p3": 1}),
        json!({"p4": 1}),
        json!({"p5": 1}),
    ] {
        assert!(!s.is_valid(&bad), "{bad}");
    }
}

/// Pointers name locations of their own document: two documents with the same
/// definitions' pointers, references into arrays, into locations compiled by the walk and
/// into locations no keyword reaches.
#[test]
fn pointers_resolve_in_their_own_document() {
    let s = Options::new()
        .with_document(
            "https://example.com/other.json",
            json!({
                "$defs": {"a": {"type": "string"}},
                "properties": {"own": {"$ref": "#/$defs/a"}}
            }),
        )
        .compile(&json!({
            "$id": "https://example.com/root.json",
            "$defs": {"a": {"type": "integer"}},
            "allOf": [{"minProperties": 1}],
            "x-extra": {"y": {"type": "null"}},
            "properties": {
                "mine": {"$ref": "#/$defs/a"},
                "theirs": {"$ref": "other.json#/$defs/a"},
                "nested": {"$ref": "other.json"},
                "first": {"$ref": "#/allOf/0"},
                "again": {"$ref": "#/properties/mine"},
                "extra": {"$ref": "#/x-extra/y"}
            }
        }))
        .unwrap();
    assert!(s.is_valid(&json!({
        "mine": 1, "theirs": "t", "nested": {"own": "o"}, "first": {"k": 0},
        "again": 2, "extra": null
    })));
    for bad in [
        json!({"mine": "1"}),
        json!({"theirs": 1}),
        json!({"nested": {"own": 1}}),
        json!({"first": {}}),
        json!({"again": "2"}),
        json!({"extra": 0}),
    ] {
        assert!(!s.is_valid(&bad), "{bad}");
    }
    for missing in [
        "#/allOf/00",
        "#/allOf/1",
        "#/$defs/b",
        "#/properties/mine/x",
    ] {
        let err = Schema::compile(&json!({
            "allOf": [{}],
            "$defs": {"a": {}},
            "properties": {"mine": {"$ref": missing}}
        }))
        .unwrap_err();
        assert_eq!(
            err.kind(),
            SchemaErrorKind::UnresolvedReference,
            "{missing}"
        );
    }
}

#[test]
fn older_drafts_are_declared_dialects() {
    // Draft 7: $ref overrides its siblings.
    let s = Schema::compile(&json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"a": {"type": "integer"}},
        "properties": {"x": {"$ref": "#/definitions/a", "maximum": 0}}
    }))
    .unwrap();
    assert!(s.is_valid(&json!({"x": 5})));
    // 2020-12: siblings apply.
    let s = Schema::compile(&json!({
        "$defs": {"a": {"type": "integer"}},
        "properties": {"x": {"$ref": "#/$defs/a", "maximum": 0}}
    }))
    .unwrap();
    assert!(!s.is_valid(&json!({"x": 5})));
}

/// Draft 2019-09 defines `$recursiveRef` for `"#"` alone and lets implementations refuse
/// other values: they are refused at their location, not read as `"#"` (which once gave an
/// error about reference cycles, or a wrong target).
#[test]
fn recursive_refs_other_than_the_root_are_refused() {
    for value in ["#/$defs/a", "#a", "other.json", "#/"] {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$defs": {"a": {"type": "integer"}},
            "properties": {"x": {"$recursiveRef": value}}
        });
        let e = Options::new().compile(&schema).unwrap_err();
        assert_eq!(e.kind(), SchemaErrorKind::InvalidKeyword, "{value}: {e}");
        assert_eq!(e.location(), "/properties/x/$recursiveRef", "{value}: {e}");
        assert!(e.message().contains("must be \"#\""), "{value}: {e}");
        assert!(!e.message().contains("cycle"), "{value}: {e}");
    }
    // `"#"` itself still compiles, and recurses.
    let schema = Options::new()
        .compile(&json!({
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "properties": {"x": {"$recursiveRef": "#"}},
            "type": "object"
        }))
        .unwrap();
    assert!(schema.is_valid(&json!({"x": {"x": {}}})));
    assert!(!schema.is_valid(&json!({"x": {"x": 1}})));
}

/// Independent compile errors come in one report, the first error first; with meta-schema
/// validation the compiler's errors join the violations (issue: a bad `type` and a bad
/// `pattern` are both reported).
#[test]
fn independent_errors_are_reported_together() {
    let bad = json!({
        "properties": {"a": {"minLength": -1}, "b": {"pattern": "["}},
        "items": {"$ref": "#/$defs/missing"},
        "required": [1]
    });
    let err = Schema::compile(&bad).unwrap_err();
    let mut at: Vec<&str> = err.violations().iter().map(|e| e.location()).collect();
    assert_eq!(at[0], err.location(), "the first error leads");
    at.sort();
    assert_eq!(
        at,
        [
            "/items/$ref",
            "/properties/a/minLength",
            "/properties/b/pattern",
            "/required"
        ]
    );
    // One error alone: no list.
    let one = Schema::compile(&json!({"minLength": -1})).unwrap_err();
    assert!(one.violations().is_empty());
    // A cap is about the whole document: reported alone.
    let mut deep = json!({});
    for _ in 0..100 {
        deep = json!({"items": deep, "minLength": -1});
    }
    let capped = Schema::compile(&deep).unwrap_err();
    assert_eq!(capped.kind(), SchemaErrorKind::DepthExceeded);
    assert!(capped.violations().is_empty());
    // Caps lifted (trusted schemas, of any depth): the first error alone, no copy made.
    let lifted = Options::new()
        .limits(Limits::none())
        .compile(&bad)
        .unwrap_err();
    assert!(lifted.violations().is_empty());
    // Meta-schema validation: `"type": "strin"` is a violation, the pattern a compile error.
    let tool = json!({"properties": {"a": {"type": "strin"}, "b": {"pattern": "("}}});
    let err = Options::new()
        .validate_schema(true)
        .compile(&tool)
        .unwrap_err();
    assert_eq!(err.kind(), SchemaErrorKind::MetaSchemaViolation);
    let at: Vec<&str> = err.violations().iter().map(|e| e.location()).collect();
    assert_eq!(at, ["/properties/a/type", "/properties/b/pattern"]);
}
