//! The reporting paths from JSON text, `Schema::validate_json` (every error) and
//! `Schema::evaluate_json` (errors, annotations, the output formats), against their `Value`
//! counterparts `validate` and `evaluate` on serde_json's parse of the same text: on the
//! suite's output-tests and annotation tests, on every instance of the bench corpus as
//! the corpus writes it, and on the cases the flat document makes special (key order,
//! keys given twice, depth bounds, a format checker that validates JSON text itself while
//! the thread's document is in use, a spent step budget). The official suite's cases are
//! compared in `suite/runner.rs`.

#[path = "../suite/runner.rs"]
mod runner;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use toolschema::{
    Draft, ErrorKind, Evaluation, JsonErrorKind, JsonValidationError, Options, Schema,
    ValidationError,
};

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

/// The errors `validate_json` reports (empty when valid), failing on malformed text.
fn errors_from_bytes(schema: &Schema, text: &[u8]) -> Vec<ValidationError> {
    match schema.validate_json(text) {
        Ok(()) => Vec::new(),
        Err(JsonValidationError::Invalid(errors)) => errors.iter().cloned().collect(),
        Err(JsonValidationError::Malformed(e)) => panic!("refused: {e}"),
    }
}

/// The errors `validate` reports (empty when valid).
fn errors_from_value(schema: &Schema, value: &Value) -> Vec<ValidationError> {
    match schema.validate(value) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().cloned().collect(),
    }
}

/// What an evaluation shows, every part of it: errors, annotations, the four outputs.
fn shown(e: &Evaluation) -> Vec<String> {
    let mut out: Vec<String> = e.errors().iter().map(|e| format!("{e:?}")).collect();
    out.extend(e.annotations().iter().map(|a| format!("{a:?}")));
    for format in [e.flag(), e.basic(), e.detailed(), e.verbose()] {
        out.push(format.to_string());
    }
    out
}

/// Errors and annotations as a sorted list: the same items in any order.
fn items(e: &Evaluation) -> Vec<String> {
    let mut out: Vec<String> = e.errors().iter().map(|e| format!("{e:?}")).collect();
    out.extend(e.annotations().iter().map(|a| format!("{a:?}")));
    out.sort();
    out
}

fn sorted(errors: &[ValidationError]) -> Vec<String> {
    let mut out: Vec<String> = errors.iter().map(|e| format!("{e:?}")).collect();
    out.sort();
    out
}

/// Checks that the text paths report what the `Value` paths report on `value`: exactly
/// (same order) on serde_json's own writing of it, whose keys are in the `Value`'s
/// order; as the same items on `text` as written, whose keys may be in another.
fn agree(schema: &Schema, text: &[u8], value: &Value, what: &str) -> Result<(), String> {
    let canonical = serde_json::to_vec(value).expect("serializes");
    let expected = errors_from_value(schema, value);
    let got = errors_from_bytes(schema, &canonical);
    if got != expected {
        return Err(format!(
            "{what}: validate_json {got:?}\nvalidate {expected:?}"
        ));
    }
    let reference = schema.evaluate(value);
    let evaluated = schema.evaluate_json(&canonical).expect("evaluates");
    if shown(&evaluated) != shown(&reference) {
        return Err(format!(
            "{what}: evaluate_json {}\nevaluate {}",
            evaluated.verbose(),
            reference.verbose()
        ));
    }
    let got = errors_from_bytes(schema, text);
    if sorted(&got) != sorted(&expected) {
        return Err(format!(
            "{what} (as written): validate_json {got:?}\nvalidate {expected:?}"
        ));
    }
    let evaluated = schema.evaluate_json(text).expect("evaluates");
    if items(&evaluated) != items(&reference) || evaluated.is_valid() != reference.is_valid() {
        return Err(format!(
            "{what} (as written): evaluate_json {}\nevaluate {}",
            evaluated.basic(),
            reference.basic()
        ));
    }
    Ok(())
}

#[test]
fn output_tests_evaluate_alike_from_bytes() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (folder, draft) in [
        ("draft2020-12", Draft::Draft202012),
        ("draft2019-09", Draft::Draft201909),
    ] {
        let dir = runner::suite_dir().join("output-tests").join(folder);
        let mut options = Options::new().default_dialect(draft);
        for (uri, doc) in runner::documents() {
            options = options.with_document(&uri, doc);
        }
        for file in files(&dir.join("content")) {
            for group in read(&file).as_array().into_iter().flatten() {
                for shortcuts in [true, false] {
                    let schema = options
                        .clone()
                        .shortcuts(shortcuts)
                        .compile(&group["schema"])
                        .expect("output-test schema compiles");
                    for test in group["tests"].as_array().into_iter().flatten() {
                        let data = &test["data"];
                        let text = serde_json::to_vec(data).expect("serializes");
                        if let Err(why) = agree(&schema, &text, data, &file.display().to_string()) {
                            failures.push(why);
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 10, "only {checked} output tests");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn annotation_tests_evaluate_alike_from_bytes() {
    let dir = runner::suite_dir().join("annotations/tests");
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in files(&dir) {
        for case in read(&file)["suite"].as_array().into_iter().flatten() {
            let mut options = Options::new();
            for (uri, schema) in case["externalSchemas"].as_object().into_iter().flatten() {
                options = options.with_document(uri, schema.clone());
            }
            for shortcuts in [true, false] {
                let Ok(schema) = options
                    .clone()
                    .shortcuts(shortcuts)
                    .compile(&case["schema"])
                else {
                    continue;
                };
                for test in case["tests"].as_array().into_iter().flatten() {
                    let data = &test["instance"];
                    let text = serde_json::to_vec(data).expect("serializes");
                    if let Err(why) = agree(&schema, &text, data, &file.display().to_string()) {
                        failures.push(why);
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} annotation tests");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every instance of the bench corpus, as the corpus writes it (keys in the order of the
/// tools that wrote them), both configurations.
#[test]
fn bench_corpus_reports_alike_from_bytes() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/corpus");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("bench corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let (mut checked, mut invalid) = (0, 0);
    let mut failures = Vec::new();
    for dir in dirs {
        let (Ok(schema), Ok(instances)) = (
            std::fs::read_to_string(dir.join("schema.json")),
            std::fs::read(dir.join("instances.jsonl")),
        ) else {
            continue;
        };
        let schema: Value = serde_json::from_str(&schema).expect("schema json");
        for shortcuts in [true, false] {
            let compiled = Options::new()
                .limits(toolschema::Limits::none())
                .assert_formats(false)
                .shortcuts(shortcuts)
                .compile(&schema)
                .expect("compiles");
            for (i, line) in instances
                .split(|&b| b == b'\n')
                .filter(|l| !l.trim_ascii().is_empty())
                .enumerate()
            {
                let value: Value = serde_json::from_slice(line).expect("instance json");
                invalid += usize::from(!compiled.is_valid(&value));
                let what = format!("{} #{i} (shortcuts {shortcuts})", dir.display());
                if let Err(why) = agree(&compiled, line, &value, &what) {
                    failures.push(why);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "only {checked} instances");
    assert!(invalid > 100, "only {invalid} invalid instances");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Where errors follow an object's properties, the text's order is kept: the same errors
/// as the `Value` path, which lists the properties sorted by name.
#[test]
fn object_walks_report_in_the_texts_order() {
    let schema = Schema::compile(&json!({
        "properties": {"keep": {"type": "integer"}},
        "additionalProperties": false
    }))
    .expect("compiles");
    let text = br#"{"zeta": 1, "keep": "x", "alpha": 2}"#;
    let locations = |errors: &[ValidationError]| -> Vec<String> {
        errors
            .iter()
            .map(|e| e.instance_location().to_string())
            .collect()
    };
    let from_bytes = errors_from_bytes(&schema, text);
    let value: Value = serde_json::from_slice(text).expect("json");
    let from_value = errors_from_value(&schema, &value);
    assert_eq!(sorted(&from_bytes), sorted(&from_value));
    let walked: Vec<String> = locations(&from_bytes)
        .into_iter()
        .filter(|l| l != "/keep")
        .collect();
    assert_eq!(walked, ["/zeta", "/alpha"], "{from_bytes:?}");
    // A key given twice: the last value, at the first key's place, as serde_json keeps it.
    let twice = br#"{"keep": "x", "alpha": 2, "keep": 3}"#;
    assert_eq!(locations(&errors_from_bytes(&schema, twice)), ["/alpha"]);
    let twice = br#"{"keep": 3, "keep": "x"}"#;
    let errors = errors_from_bytes(&schema, twice);
    assert_eq!(locations(&errors), ["/keep"]);
    assert_eq!(errors[0].to_string(), "/keep: must be integer, not string");
}

/// Malformed text and text nested past the flat parser's bound (serde_json's, 127 arrays
/// and objects) are refused by every path from text alike, with the kind and offset;
/// a caller that must read deeper documents (the command line does) reads them into a
/// `Value` its own way and calls `validate`/`evaluate`, which take any depth.
#[test]
fn malformed_and_too_deep_text_is_refused_by_every_path_alike() {
    let schema =
        Schema::compile(&json!({"items": {"$ref": "#"}, "type": "array"})).expect("compiles");
    let nest = |depth: usize, inner: &str| {
        format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth)).into_bytes()
    };
    // 127 levels: read, and reported from the flat document.
    let deepest = nest(126, "1");
    let errors = errors_from_bytes(&schema, &deepest);
    let value: Value = serde_json::from_slice(&deepest).expect("serde_json reads 127 levels");
    assert_eq!(errors, errors_from_value(&schema, &value));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .to_string()
            .ends_with("must be array, not integer")
    );
    assert!(schema.evaluate_json(&deepest).is_ok_and(|e| !e.is_valid()));
    // 128: refused by each, as serde_json refuses it.
    let deeper = nest(128, "");
    assert!(serde_json::from_slice::<Value>(&deeper).is_err());
    let e = schema.is_valid_json(&deeper).unwrap_err();
    assert_eq!((e.kind, e.offset), (JsonErrorKind::TooDeep, 127));
    assert_eq!(
        schema.validate_json(&deeper),
        Err(JsonValidationError::Malformed(e))
    );
    assert_eq!(schema.evaluate_json(&deeper).unwrap_err(), e);
    // Malformed: where, never what.
    for (text, offset) in [(&b"[1, secret]"[..], 4), (b"[1,", 3), (b"[1] x", 4)] {
        let e = schema.evaluate_json(text).unwrap_err();
        assert_eq!(e.offset, offset, "{}", String::from_utf8_lossy(text));
        match schema.validate_json(text) {
            Err(JsonValidationError::Malformed(m)) => assert_eq!(m, e),
            other => panic!("{other:?}"),
        }
        assert!(!e.to_string().contains("secret"));
    }
}

/// The schema a format checker validates JSON text against (a checker is a plain `fn`).
fn inner_schema() -> &'static Schema {
    static INNER: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();
    INNER.get_or_init(|| {
        Schema::compile(&json!({"type": "object", "required": ["id"]})).expect("compiles")
    })
}

/// A format checker that validates the string as JSON text, by each path from text:
/// it runs while the outer call holds the thread's document.
fn json_object_with_id(s: &str) -> bool {
    let inner = inner_schema();
    let verdict = inner.is_valid_json(s.as_bytes()) == Ok(true);
    assert_eq!(inner.validate_json(s.as_bytes()).is_ok(), verdict);
    assert_eq!(
        inner
            .evaluate_json(s.as_bytes())
            .is_ok_and(|e| e.is_valid()),
        verdict
    );
    verdict
}

#[test]
fn a_format_checker_may_validate_json_text_during_a_call_from_text() {
    let schema = Options::new()
        .assert_formats(true)
        .with_format("json-with-id", json_object_with_id)
        .compile(&json!({
            "type": "array",
            "items": {"type": "string", "format": "json-with-id"},
            "maxItems": 2
        }))
        .expect("compiles");
    let text = br#"["{\"id\": 1}", "{\"x\": 1}", "[1]"]"#;
    let value: Value = serde_json::from_slice(text).expect("json");
    let errors = errors_from_bytes(&schema, text);
    assert_eq!(errors, errors_from_value(&schema, &value));
    let locations: Vec<&str> = errors.iter().map(|e| e.instance_location()).collect();
    assert_eq!(locations, ["", "/1", "/2"], "{errors:?}");
    assert_eq!(
        shown(&schema.evaluate_json(text).expect("evaluates")),
        shown(&schema.evaluate(&value))
    );
    // The outer document was intact after the nested calls: the same answers again.
    assert_eq!(errors_from_bytes(&schema, text), errors);
    assert_eq!(schema.is_valid_json(br#"["{\"id\": 2}"]"#), Ok(true));
}

/// A call that spends its step budget reports that alone from text too.
#[test]
fn a_spent_budget_is_reported_alike_from_bytes() {
    // Two subschemas that both recurse into the first item: the work doubles per level.
    let schema = Options::new()
        .step_budget(1_000, 8)
        .compile(&json!({"allOf": [
            {"prefixItems": [{"$ref": "#"}]},
            {"prefixItems": [{"$ref": "#"}], "maxItems": 5}
        ]}))
        .expect("compiles");
    let text = format!("{}{}", "[".repeat(13), "]".repeat(13));
    let text = text.as_bytes();
    let value: Value = serde_json::from_slice(text).expect("json");
    let errors = errors_from_bytes(&schema, text);
    assert_eq!(errors, errors_from_value(&schema, &value));
    assert_eq!(errors.len(), 1);
    assert_eq!(*errors[0].kind(), ErrorKind::EvaluationBudgetExceeded);
    assert_eq!(
        shown(&schema.evaluate_json(text).expect("evaluates")),
        shown(&schema.evaluate(&value))
    );
}
