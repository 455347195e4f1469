//! No rendering of a validation result ever contains an instance value.
//!
//! Every invalid instance of the draft2020-12 suite, plus planted secrets under every
//! keyword that judges values: the values (strings, numbers, property names found only in
//! the instance) must not appear in `Display`, `Debug`, messages or the output formats,
//! outside the instance-location pointer.

#[path = "../suite/runner.rs"]
mod runner;

use serde_json::{Value, json};
use toolschema::{Options, Schema};

/// Scalars and keys of `instance` that the schema text does not contain.
fn secrets(instance: &Value, schema_text: &str, out: &mut Vec<String>) {
    fn consider(s: String, schema_text: &str, out: &mut Vec<String>) {
        if s.len() >= 4 && !schema_text.contains(&s) {
            out.push(s);
        }
    }
    match instance {
        Value::String(s) => consider(s.clone(), schema_text, out),
        Value::Number(n) => consider(n.to_string(), schema_text, out),
        Value::Array(items) => {
            for i in items {
                secrets(i, schema_text, out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                consider(k.clone(), schema_text, out);
                secrets(v, schema_text, out);
            }
        }
        _ => {}
    }
}

/// Removes `instanceLocation` members: the one place an instance key may appear.
fn strip_locations(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.remove("instanceLocation");
            for x in map.values_mut() {
                strip_locations(x);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_locations),
        _ => {}
    }
}

/// Every rendering of the result, with instance locations taken out.
fn renderings(schema: &Schema, instance: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let push_error = |e: &toolschema::ValidationError, out: &mut Vec<String>| {
        let loc = e.instance_location().to_string();
        let shown = e.to_string();
        out.push(
            shown
                .strip_prefix(&format!("{}: ", if loc.is_empty() { "/" } else { &loc }))
                .unwrap_or(&shown)
                .to_string(),
        );
        out.push(format!("{:?}", e.kind()));
        out.push(e.message());
        out.push(e.keyword_location().to_string());
        out.push(e.absolute_keyword_location().to_string());
    };
    for e in schema.iter_errors(instance) {
        push_error(&e, &mut out);
        for cause in e.causes() {
            push_error(cause, &mut out);
        }
    }
    if let Err(errors) = schema.validate(instance) {
        for e in errors.iter() {
            push_error(e, &mut out);
        }
    }
    let evaluation = schema.evaluate(instance);
    for mut doc in [
        evaluation.flag(),
        evaluation.basic(),
        evaluation.detailed(),
        evaluation.verbose(),
    ] {
        strip_locations(&mut doc);
        out.push(doc.to_string());
    }
    out
}

/// Every raw string and number of `v` (keys included), NUL-separated: what the schema
/// side may legitimately show.
fn schema_strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\0');
        }
        Value::Number(n) => {
            out.push_str(&n.to_string());
            out.push('\0');
        }
        Value::Array(items) => items.iter().for_each(|i| schema_strings(i, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push_str(k);
                out.push('\0');
                schema_strings(v, out);
            }
        }
        _ => {}
    }
}

fn leaks(schema_value: &Value, schema: &Schema, instance: &Value) -> Vec<String> {
    let mut schema_text = String::new();
    schema_strings(schema_value, &mut schema_text);
    // Documents the schema may reference (remotes, meta-schemas) are schema side too.
    for (uri, doc) in runner::documents() {
        schema_text.push_str(&uri);
        schema_strings(&doc, &mut schema_text);
    }
    let mut values = Vec::new();
    secrets(instance, &schema_text, &mut values);
    let shown = renderings(schema, instance);
    let mut found = Vec::new();
    for v in values {
        if shown.iter().any(|r| r.contains(&v)) {
            found.push(v);
        }
    }
    found
}

#[test]
fn suite_invalid_instances_never_leak() {
    let dir = runner::suite_dir().join("tests/draft2020-12");
    let mut options = Options::new();
    for (uri, doc) in runner::documents() {
        options = options.with_document(&uri, doc);
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("suite")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let (mut checked, mut problems) = (0, Vec::new());
    for file in files {
        let groups: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
        for group in groups.as_array().into_iter().flatten() {
            let schema = options.compile(&group["schema"]).expect("compiles");
            for test in group["tests"].as_array().into_iter().flatten() {
                if test["valid"] == json!(true) {
                    continue;
                }
                checked += 1;
                let leaked = leaks(&group["schema"], &schema, &test["data"]);
                if !leaked.is_empty() {
                    problems.push(format!("{file:?} {}: {leaked:?}", test["description"]));
                }
            }
        }
    }
    println!(
        "redaction: {checked} invalid suite instances, {} leaks",
        problems.len()
    );
    assert!(checked > 500);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn planted_secrets_never_leak() {
    const SECRET: &str = "sk-live-51HxTOPSECRETvalue";
    const NUMBER: f64 = 987654.321;
    let cases: Vec<(Value, Value)> = vec![
        (json!({"type": "integer"}), json!(SECRET)),
        (
            json!({"properties": {"k": {"maximum": 10}}}),
            json!({"k": NUMBER}),
        ),
        (
            json!({"properties": {"k": {"minimum": 1e9}}}),
            json!({"k": NUMBER}),
        ),
        (json!({"multipleOf": 7}), json!(NUMBER)),
        (json!({"additionalProperties": false}), json!({SECRET: 1})),
        (
            json!({"additionalProperties": {"type": "string"}}),
            json!({SECRET: NUMBER}),
        ),
        (
            json!({"propertyNames": {"maxLength": 3}}),
            json!({SECRET: 1}),
        ),
        (
            json!({"propertyNames": {"pattern": "^[a-z]+$"}}),
            json!({SECRET: 1}),
        ),
        (json!({"enum": ["a", "b"]}), json!(SECRET)),
        (json!({"const": "expected"}), json!(SECRET)),
        (json!({"pattern": "^[0-9]+$"}), json!(SECRET)),
        (json!({"format": "email"}), json!(SECRET)),
        (json!({"maxLength": 5}), json!(SECRET)),
        (json!({"uniqueItems": true}), json!([SECRET, SECRET])),
        (
            json!({"contains": {"type": "number"}}),
            json!([SECRET, "token-ABCDEF"]),
        ),
        (
            json!({"dependentRequired": {"a": ["b"]}}),
            json!({"a": SECRET}),
        ),
        (
            json!({"unevaluatedProperties": false}),
            json!({SECRET: SECRET}),
        ),
        (
            json!({"unevaluatedItems": false, "prefixItems": [true]}),
            json!([1, SECRET]),
        ),
        (
            json!({"oneOf": [{"type": "integer"}, {"minLength": 100}]}),
            json!(SECRET),
        ),
        (
            json!({"anyOf": [{"const": 1}, {"const": 2}]}),
            json!({"nested": [SECRET, NUMBER]}),
        ),
        (json!({"not": {"type": "string"}}), json!(SECRET)),
        (
            json!({"if": {"type": "string"}, "then": {"maxLength": 2}}),
            json!(SECRET),
        ),
        (
            json!({"items": {"type": "integer"}}),
            json!([SECRET, NUMBER, {"deep": SECRET}]),
        ),
        (
            json!({"required": ["name"], "maxProperties": 1}),
            json!({SECRET: SECRET, "x": NUMBER}),
        ),
        (
            json!({"patternProperties": {"^s": {"type": "integer"}}}),
            json!({SECRET: SECRET}),
        ),
        (
            json!({"type": "object", "properties": {"password": {"type": "integer"}}}),
            json!({"password": SECRET}),
        ),
    ];
    let mut problems = Vec::new();
    for (schema_value, instance) in &cases {
        let schema = Options::new()
            .assert_formats(true)
            .compile(schema_value)
            .expect("compiles");
        assert!(
            !schema.is_valid(instance),
            "{schema_value} should refuse {instance}"
        );
        let leaked = leaks(schema_value, &schema, instance);
        if !leaked.is_empty() {
            problems.push(format!("{schema_value}: {leaked:?}"));
        }
        // Instance-only keys may appear in the location, and only there.
        for e in schema.iter_errors(instance) {
            let rest = e.to_string().replacen(e.instance_location(), "", 1);
            assert!(!rest.contains(SECRET), "{schema_value}: {e}");
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
