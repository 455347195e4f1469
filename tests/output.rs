//! The suite's output-tests (`basic` output checked against the given schemas) and its
//! annotation tests, plus agreement of `is_valid`, `validate` and the flag output.

#[path = "../suite/runner.rs"]
mod runner;

use serde_json::Value;
use toolschema::{Draft, Options};

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json")
}

fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

#[test]
fn output_tests_basic_format() {
    for (folder, draft) in [
        ("draft2020-12", Draft::Draft202012),
        ("draft2019-09", Draft::Draft201909),
    ] {
        let dir = runner::suite_dir().join("output-tests").join(folder);
        let output_schema = read(&dir.join("output-schema.json"));
        let output_id = output_schema["$id"]
            .as_str()
            .expect("output schema id")
            .to_string();
        let mut checker_options = Options::new().with_document(&output_id, output_schema);
        for (uri, doc) in runner::documents() {
            checker_options = checker_options.with_document(&uri, doc);
        }
        let mut options = Options::new().default_dialect(draft);
        for (uri, doc) in runner::documents() {
            options = options.with_document(&uri, doc);
        }
        let (mut passed, mut failures) = (0, Vec::new());
        for file in files(&dir.join("content")) {
            for group in read(&file).as_array().into_iter().flatten() {
                let schema = options
                    .compile(&group["schema"])
                    .expect("output-test schema compiles");
                for test in group["tests"].as_array().into_iter().flatten() {
                    let evaluation = schema.evaluate(&test["data"]);
                    for (format, expected) in test["output"].as_object().into_iter().flatten() {
                        let produced = match format.as_str() {
                            "flag" => evaluation.flag(),
                            "basic" => evaluation.basic(),
                            "detailed" => evaluation.detailed(),
                            "verbose" => evaluation.verbose(),
                            other => panic!("unknown format {other}"),
                        };
                        let checker = checker_options
                            .compile(expected)
                            .expect("output checker compiles");
                        if checker.is_valid(&produced) {
                            passed += 1;
                        } else {
                            failures.push(format!(
                                "{folder}/{} :: {} :: {format}: {produced}",
                                file.file_name().unwrap_or_default().to_string_lossy(),
                                test["description"]
                            ));
                        }
                    }
                }
            }
        }
        println!(
            "output-tests {folder}: {passed} passed, {} failed",
            failures.len()
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(passed > 0);
    }
}

/// Whether an annotation test case applies to 2020-12 (`compatibility` field).
fn applies_to_2020(compatibility: Option<&str>) -> bool {
    let Some(c) = compatibility else { return true };
    c.split(',').all(|part| {
        let part = part.trim();
        if let Some(v) = part.strip_prefix("<=") {
            v.parse::<u32>().is_ok_and(|v| v >= 2020)
        } else if let Some(v) = part.strip_prefix('=') {
            v == "2020"
        } else {
            part.parse::<u32>()
                .is_ok_and(|v| v <= 2020 || (3..=9).contains(&v))
        }
    })
}

#[test]
fn annotation_suite() {
    let dir = runner::suite_dir().join("annotations/tests");
    let (mut passed, mut total, mut failures) = (0, 0, Vec::new());
    for file in files(&dir) {
        let doc = read(&file);
        for case in doc["suite"].as_array().into_iter().flatten() {
            if !applies_to_2020(case["compatibility"].as_str()) {
                continue;
            }
            let mut options = Options::new();
            for (uri, schema) in case["externalSchemas"].as_object().into_iter().flatten() {
                options = options.with_document(uri, schema.clone());
            }
            let schema = options
                .compile(&case["schema"])
                .expect("annotation case compiles");
            for test in case["tests"].as_array().into_iter().flatten() {
                total += 1;
                let evaluation = schema.evaluate(&test["instance"]);
                let mut ok = true;
                for assertion in test["assertions"].as_array().into_iter().flatten() {
                    let location = assertion["location"].as_str().unwrap_or("");
                    let keyword = assertion["keyword"].as_str().unwrap_or("");
                    let mut found: Vec<(String, Value)> = evaluation
                        .annotations()
                        .iter()
                        .filter(|a| a.instance_location() == location && a.keyword() == keyword)
                        .map(|a| (a.schema_location().to_string(), a.value().clone()))
                        .collect();
                    found.sort_by(|a, b| a.0.cmp(&b.0));
                    found.dedup();
                    let mut expected: Vec<(String, Value)> = assertion["expected"]
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    expected.sort_by(|a, b| a.0.cmp(&b.0));
                    if found != expected {
                        ok = false;
                        failures.push(format!(
                            "{} :: {} :: {location} {keyword}: expected {expected:?}, found {found:?}",
                            file.file_name().unwrap_or_default().to_string_lossy(),
                            case["description"]
                        ));
                    }
                }
                if ok {
                    passed += 1;
                }
            }
        }
    }
    println!("annotation tests: {passed} of {total} passed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        total >= 50,
        "expected the annotation suite's tests, ran {total}"
    );
}

#[test]
fn every_path_agrees_on_the_whole_suite() {
    let root = runner::suite_dir().join("tests/draft2020-12");
    let mut options = Options::new();
    for (uri, doc) in runner::documents() {
        options = options.with_document(&uri, doc);
    }
    let mut checked = 0;
    for file in files(&root) {
        for group in read(&file).as_array().into_iter().flatten() {
            let schema =
                runner::support::compile_with(&options, &group["schema"]).expect("compiles");
            for test in group["tests"].as_array().into_iter().flatten() {
                let data = &test["data"];
                // Every path of both configurations, both ways (see `tests/support`).
                let valid = runner::support::verdict(&schema, data);
                let evaluation = schema.evaluate(data);
                assert_eq!(
                    valid,
                    schema.validate(data).is_ok(),
                    "{file:?} {}",
                    test["description"]
                );
                assert_eq!(
                    valid,
                    evaluation.is_valid(),
                    "{file:?} {}",
                    test["description"]
                );
                assert_eq!(Value::Bool(valid), evaluation.flag()["valid"]);
                assert_eq!(valid, evaluation.basic()["valid"] == Value::Bool(true));
                assert_eq!(valid, evaluation.detailed()["valid"] == Value::Bool(true));
                checked += 1;
            }
        }
    }
    assert!(checked >= 1299);
}

/// Absolute keyword locations percent-encode what a URI fragment may not hold, and copy
/// plain pointers as they are (the location code skips the scan when it knows every
/// pointer of the schema is plain: both kinds of schema are checked here).
#[test]
fn absolute_locations_encode_fragments() {
    let absolute = |schema: Value, instance: Value| -> Vec<String> {
        let schema = toolschema::Schema::compile(&schema).unwrap();
        let mut out: Vec<String> = schema
            .iter_errors(&instance)
            .map(|e| e.absolute_keyword_location().to_string())
            .collect();
        out.sort();
        out
    };
    let plain = serde_json::json!({
        "$id": "https://example.com/s",
        "properties": {"a-b_c.d$e": {"type": "string"}, "x": {"maxLength": 1}}
    });
    assert_eq!(
        absolute(plain, serde_json::json!({"a-b_c.d$e": 1, "x": "long"})),
        [
            "https://example.com/s#/properties/a-b_c.d$e/type",
            "https://example.com/s#/properties/x/maxLength",
        ]
    );
    let encoded = serde_json::json!({
        "$id": "https://example.com/s",
        "properties": {"a b%\"": {"type": "string"}, "t~/": {"maxLength": 1}}
    });
    assert_eq!(
        absolute(encoded, serde_json::json!({"a b%\"": 1, "t~/": "long"})),
        [
            "https://example.com/s#/properties/a%20b%25%22/type",
            "https://example.com/s#/properties/t~0~1/maxLength",
        ]
    );
}

/// Every group of `detailed` output below `unit`, with the locations of the units in it:
/// (group's location, each unit's location), for the prefix check below.
fn groups(unit: &Value, out: &mut Vec<(String, Vec<String>)>) -> Vec<String> {
    let own = unit["instanceLocation"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut below = Vec::new();
    for child in unit["errors"].as_array().into_iter().flatten() {
        below.extend(groups(child, out));
    }
    if below.is_empty() {
        return vec![own];
    }
    out.push((own.clone(), below.clone()));
    below
}

/// A `detailed` group's `instanceLocation` is the common prefix of its members' (by whole
/// segments), not the shortest member's: `/a/x` and `/a/y` are grouped at `/a`.
#[test]
fn detailed_groups_sit_at_the_common_instance_prefix() {
    let schema = toolschema::Schema::compile(&serde_json::json!({
        "properties": {"a": {"properties": {
            "x": {"type": "string"},
            "xy": {"type": "string"},
            "y": {"type": "string", "minLength": 2}
        }}}
    }))
    .unwrap();
    let detailed = schema
        .evaluate(&serde_json::json!({"a": {"x": 1, "xy": 2, "y": 3}}))
        .detailed();
    let mut found = Vec::new();
    groups(&detailed, &mut found);
    // The group of the three properties' errors.
    let group = found
        .iter()
        .find(|(_, members)| members.len() == 3)
        .unwrap_or_else(|| panic!("no group of three in {detailed:#}"));
    assert_eq!(group.0, "/a", "{detailed:#}");
    for (at, members) in &found {
        for m in members {
            assert!(
                m == at || m.starts_with(&format!("{at}/")) || at.is_empty(),
                "{m} is not below its group's {at}: {detailed:#}"
            );
        }
    }
}
