//! `Options::validate_schema`: schemas checked against their dialect's official meta-schema
//! (embedded), every violation reported with its location.

use serde_json::{Value, json};
use std::path::Path;
use toolschema::{Draft, Options, SchemaErrorKind};

fn violations(schema: &Value, draft: Draft) -> Vec<String> {
    match Options::new()
        .default_dialect(draft)
        .validate_schema(true)
        .compile(schema)
    {
        Ok(_) => Vec::new(),
        Err(e) => {
            assert_eq!(e.kind(), SchemaErrorKind::MetaSchemaViolation, "{e}");
            assert!(!e.violations().is_empty());
            e.violations().iter().map(|v| v.to_string()).collect()
        }
    }
}

#[test]
fn a_misspelt_type_is_refused_in_every_draft() {
    for draft in [
        Draft::Draft4,
        Draft::Draft6,
        Draft::Draft7,
        Draft::Draft201909,
        Draft::Draft202012,
    ] {
        let bad = json!({"type": "object", "properties": {"q": {"type": "strin"}}});
        let found = violations(&bad, draft);
        assert!(
            found.iter().all(|v| v.starts_with("/properties/q/type: ")),
            "{draft:?}: {found:?}"
        );
        assert!(!found.is_empty(), "{draft:?}");
        let good = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        assert_eq!(violations(&good, draft), Vec::<String>::new(), "{draft:?}");
    }
}

#[test]
fn every_violation_is_reported() {
    let bad = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {"a": {"type": "strin"}, "b": {"minLength": -1}},
        "required": "a",
        "$defs": {"c": {"pattern": 5}}
    });
    let found = violations(&bad, Draft::Draft202012);
    let locations: Vec<&str> = found
        .iter()
        .map(|v| v.split(": ").next().unwrap())
        .collect();
    for at in [
        "/properties/a/type",
        "/properties/b/minLength",
        "/required",
        "/$defs/c/pattern",
    ] {
        assert!(locations.contains(&at), "{at} missing from {found:?}");
    }
    // Without the option the compiler stops at its first problem.
    assert!(Options::new().compile(&bad).is_err());
}

#[test]
fn the_declared_dialect_decides() {
    // A boolean `exclusiveMinimum` is right in draft 4, wrong in draft 6 and later.
    let s = json!({"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 1, "exclusiveMinimum": true});
    assert!(violations(&s, Draft::Draft202012).is_empty());
    let s = json!({"$schema": "http://json-schema.org/draft-07/schema#", "minimum": 1, "exclusiveMinimum": true});
    assert_eq!(
        violations(&s, Draft::Draft202012)
            .iter()
            .map(|v| v.split(": ").next().unwrap())
            .collect::<Vec<_>>(),
        ["/exclusiveMinimum"]
    );
}

#[test]
fn corpus_tools_against_their_meta_schemas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mcp-tools");
    let (mut schemas, mut bad) = (0, Vec::new());
    for source in std::fs::read_dir(&dir).unwrap() {
        let source = source.unwrap().path();
        if !source.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&source).unwrap() {
            let f = f.unwrap().path();
            let tool: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
            for key in ["inputSchema", "outputSchema"] {
                if let Some(s) = tool.get(key) {
                    schemas += 1;
                    let found = violations(s, Draft::Draft202012);
                    if !found.is_empty() {
                        bad.push(format!("{}#{key}: {found:?}", f.display()));
                    }
                }
            }
        }
    }
    println!(
        "corpus: {schemas} schemas, {} with meta-schema violations",
        bad.len()
    );
    for b in &bad {
        println!("  {b}");
    }
    assert_eq!(schemas, 317);
}

/// A large schema (several thousand subschemas) is checked in full, without the evaluation
/// budget cutting the check short and reporting that as a violation.
#[test]
fn large_schemas_are_checked_in_full() {
    let mut props = serde_json::Map::new();
    for i in 0..3000 {
        props.insert(
            format!("p{i}"),
            json!({"type": "object", "properties": {"x": {"type": "string", "enum": ["a", "b"]}}}),
        );
    }
    let good = json!({"type": "object", "properties": props});
    assert!(violations(&good, Draft::Draft202012).is_empty());
    let mut bad = good.clone();
    bad["properties"]["p2999"]["properties"]["x"]["type"] = json!("strin");
    bad["properties"]["p7"]["minProperties"] = json!(-1);
    let found = violations(&bad, Draft::Draft202012);
    let at: Vec<&str> = found
        .iter()
        .map(|v| v.split(": ").next().unwrap())
        .collect();
    assert_eq!(
        at,
        [
            "/properties/p2999/properties/x/type",
            "/properties/p7/minProperties"
        ]
    );
}
