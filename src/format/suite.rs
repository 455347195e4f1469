//! Runs the official JSON-Schema-Test-Suite cases that only exercise
//! `format` or `pattern` on strings (plus `patternProperties` on objects).
//!
//! The suite is read where it lies: `$JSON_SCHEMA_TEST_SUITE`, else
//! `../shared/JSON-Schema-Test-Suite` next to the crate. Run with
//! `cargo test --lib format::suite -- --nocapture` to see per-file figures.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::pattern::{DEFAULT_PATTERN_BUDGET, MatchOutcome, Pattern};

/// Cases that cannot pass, as (file name, test description, reason). Empty.
const KNOWN_FAILURES: &[(&str, &str, &str)] = &[];

fn suite_root() -> PathBuf {
    match std::env::var_os("JSON_SCHEMA_TEST_SUITE") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/JSON-Schema-Test-Suite"),
    }
}

/// Tallies for one file.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: Vec<String>,
    skipped: usize,
}

/// Runs every case of one file that this module can judge.
fn run_file(path: &Path) -> Tally {
    let mut tally = Tally::default();
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let groups: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("bad JSON in {}: {e}", path.display()));
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    for group in groups.as_array().into_iter().flatten() {
        let Some(schema) = group.get("schema").and_then(Value::as_object) else {
            continue;
        };
        let mut schema = schema.clone();
        schema.remove("$schema");
        for case in group
            .get("tests")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (Some(data), Some(expected)) =
                (case.get("data"), case.get("valid").and_then(Value::as_bool))
            else {
                continue;
            };
            let description = case
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            let Some(actual) = judge(&schema, data) else {
                tally.skipped += 1;
                continue;
            };
            let known = KNOWN_FAILURES
                .iter()
                .any(|&(f, d, _)| f == file && d == description);
            if actual == expected || known {
                tally.passed += 1;
            } else {
                tally.failed.push(format!(
                    "{file}: {:?} / {description}: data {data}, expected {expected}",
                    group
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                ));
            }
        }
    }
    tally
}

/// The verdict for shapes this module owns; `None` for anything else.
fn judge(schema: &serde_json::Map<String, Value>, data: &Value) -> Option<bool> {
    let keys: Vec<&str> = schema.keys().map(String::as_str).collect();
    match keys.as_slice() {
        ["format"] => {
            let name = schema.get("format")?.as_str()?;
            let value = data.as_str()?;
            Some(super::check(name, value).unwrap_or(true))
        }
        ["pattern"] | ["pattern", "type"] | ["type", "pattern"] => {
            if schema.get("type").is_some_and(|t| t != "string") {
                return None;
            }
            let value = data.as_str()?;
            Some(find(schema.get("pattern")?.as_str()?, value)?)
        }
        _ if schema.contains_key("patternProperties") => pattern_properties(schema, data),
        _ => None,
    }
}

fn find(pattern: &str, subject: &str) -> Option<bool> {
    let compiled = Pattern::new(pattern, DEFAULT_PATTERN_BUDGET)
        .unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
    match compiled.find(subject) {
        MatchOutcome::Match => Some(true),
        MatchOutcome::NoMatch => Some(false),
        MatchOutcome::BudgetExceeded => None,
    }
}

/// `patternProperties` whose subschemas are `true` or `{"type": "integer"}`,
/// with optional `"type": "object"` and `"additionalProperties": false`.
fn pattern_properties(schema: &serde_json::Map<String, Value>, data: &Value) -> Option<bool> {
    for key in schema.keys() {
        if !matches!(
            key.as_str(),
            "patternProperties" | "type" | "additionalProperties"
        ) {
            return None;
        }
    }
    let object = data.as_object()?;
    let closed = match schema.get("additionalProperties") {
        None => false,
        Some(Value::Bool(false)) => true,
        Some(_) => return None,
    };
    let patterns = schema.get("patternProperties")?.as_object()?;
    for (name, value) in object {
        let mut matched = false;
        for (pattern, subschema) in patterns {
            if !find(pattern, name)? {
                continue;
            }
            matched = true;
            let ok = match subschema {
                Value::Bool(b) => *b,
                Value::Object(o)
                    if o.len() == 1 && o.get("type").is_some_and(|t| t == "integer") =>
                {
                    value.as_i64().is_some() || value.as_u64().is_some()
                }
                _ => return None,
            };
            if !ok {
                return Some(false);
            }
        }
        if closed && !matched {
            return Some(false);
        }
    }
    Some(true)
}

/// Every file the module is responsible for in one draft directory.
fn files(draft: &str) -> Vec<PathBuf> {
    let root = suite_root();
    let tests = root.join("tests").join(draft).join("optional");
    assert!(
        tests.is_dir(),
        "JSON-Schema-Test-Suite not found at {} (set JSON_SCHEMA_TEST_SUITE to its checkout)",
        root.display()
    );
    let mut out: Vec<PathBuf> = std::fs::read_dir(tests.join("format"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    for extra in ["ecmascript-regex.json", "non-bmp-regex.json"] {
        let path = tests.join(extra);
        if path.is_file() {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Runs a draft, printing figures per file, and returns the failures.
fn run_draft(draft: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let (mut passed, mut skipped) = (0, 0);
    for path in files(draft) {
        let tally = run_file(&path);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        println!(
            "{draft}/{name}: {} passed, {} failed, {} skipped",
            tally.passed,
            tally.failed.len(),
            tally.skipped
        );
        passed += tally.passed;
        skipped += tally.skipped;
        failures.extend(tally.failed.into_iter().map(|f| format!("{draft}/{f}")));
    }
    println!(
        "{draft}: {passed} passed, {} failed, {skipped} skipped (not string format/pattern cases)",
        failures.len()
    );
    failures
}

#[test]
fn draft2020_12() {
    let failures = run_draft("draft2020-12");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Older drafts share these formats' meaning; any difference is listed.
#[test]
fn older_drafts() {
    let mut failures = Vec::new();
    for draft in ["draft2019-09", "draft7", "draft6", "draft4"] {
        failures.extend(run_draft(draft));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
