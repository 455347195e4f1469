//! The proof of `toolschema::upgrade`: on every test of the draft-04, -06, -07 and 2019-09
//! suites (required and optional), the upgraded schema under 2020-12 answers as the
//! original does under its own draft; every corpus tool upgrades and compiles.

#[path = "../suite/runner.rs"]
mod runner;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use toolschema::upgrade::upgrade;
use toolschema::{Draft, Options};

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[derive(Default)]
struct Counts {
    agree: usize,
    /// Tests whose schema the upgrade refused, by reason.
    refused: BTreeMap<String, Vec<String>>,
    refused_tests: usize,
    /// Tests whose original schema does not compile here (nothing to compare).
    original_refused: usize,
    disagree: Vec<String>,
}

fn options(draft: Draft, optional: bool, docs: &[(String, Value)]) -> Options {
    let mut o = Options::new()
        .default_dialect(draft)
        .assert_formats(optional)
        .assert_content(optional);
    for (uri, doc) in docs {
        o = o.with_document(uri, doc.clone());
    }
    o
}

fn prove(folder: &str, draft: Draft) -> Counts {
    let docs = runner::documents();
    let root = runner::suite_dir().join("tests").join(folder);
    let files = runner::json_files_below(&root);
    let mut c = Counts::default();
    for file in files {
        let name = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let optional = name.starts_with("optional");
        let opts = options(draft, optional, &docs);
        for group in read(&file).as_array().unwrap() {
            let gdesc = group["description"].as_str().unwrap_or("");
            let schema = &group["schema"];
            let tests = group["tests"].as_array().unwrap();
            let Ok(original) = opts.compile(schema) else {
                c.original_refused += tests.len();
                continue;
            };
            let upgraded = match upgrade(schema, draft) {
                Ok(u) => u,
                Err(e) => {
                    c.refused_tests += tests.len();
                    c.refused.entry(e.reason.clone()).or_default().push(format!(
                        "{folder}/{name} :: {gdesc} ({} tests)",
                        tests.len()
                    ));
                    continue;
                }
            };
            let compiled = match opts.compile(&upgraded) {
                Ok(s) => s,
                Err(e) => {
                    c.disagree.push(format!(
                        "{folder}/{name} :: {gdesc}: the upgraded schema does not compile: {e}\n  {upgraded}"
                    ));
                    continue;
                }
            };
            for test in tests {
                let data = &test["data"];
                let (a, b) = (original.is_valid(data), compiled.is_valid(data));
                if a == b {
                    c.agree += 1;
                } else {
                    let tdesc = test["description"].as_str().unwrap_or("");
                    c.disagree.push(format!(
                        "{folder}/{name} :: {gdesc} :: {tdesc}: original {a}, upgraded {b}\n  {upgraded}"
                    ));
                }
            }
        }
    }
    println!(
        "{folder}: {} agree, {} refused ({} reasons), {} disagree, {} not compared (the original does not compile)",
        c.agree,
        c.refused_tests,
        c.refused.len(),
        c.disagree.len(),
        c.original_refused
    );
    for (reason, where_) in &c.refused {
        println!("  refused: {reason}");
        for w in where_ {
            println!("    {w}");
        }
    }
    c
}

/// Asserts no disagreement, and refusals only for the `allowed` reasons (substrings).
fn assert_equivalent(folder: &str, draft: Draft, allowed: &[&str]) {
    let c = prove(folder, draft);
    for reason in c.refused.keys() {
        assert!(
            allowed.iter().any(|a| reason.contains(a)),
            "unexpected refusal in {folder}: {reason}"
        );
    }
    assert!(
        c.disagree.is_empty(),
        "{} disagreements:\n{}",
        c.disagree.len(),
        c.disagree.join("\n")
    );
    assert!(c.agree > 0);
}

#[test]
fn draft4_suite_upgrades_equivalently() {
    assert_equivalent("draft4", Draft::Draft4, &["draft-04 \"integer\""]);
}

#[test]
fn draft6_suite_upgrades_equivalently() {
    assert_equivalent("draft6", Draft::Draft6, &[]);
}

#[test]
fn draft7_suite_upgrades_equivalently() {
    assert_equivalent("draft7", Draft::Draft7, &[]);
}

#[test]
fn draft2019_09_suite_upgrades_equivalently() {
    assert_equivalent(
        "draft2019-09",
        Draft::Draft201909,
        &["names no standard draft"],
    );
}

/// Every tool of the corpus: both schemas upgrade, and the results compile.
#[test]
fn corpus_tools_upgrade_and_compile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mcp-tools");
    let files = runner::json_files_below(&dir);
    let (mut tools, mut schemas, mut changed) = (0, 0, 0);
    let mut failures = Vec::new();
    for f in files {
        let tool = read(&f);
        if tool.get("inputSchema").is_none() {
            continue;
        }
        tools += 1;
        for key in ["inputSchema", "outputSchema"] {
            let Some(schema) = tool.get(key) else {
                continue;
            };
            schemas += 1;
            match upgrade(schema, Draft::Draft202012) {
                Ok(up) => {
                    if let Err(e) = Options::new().compile(&up) {
                        failures.push(format!("{}#{key}: does not compile: {e}", f.display()));
                    }
                    let mut plain = up.clone();
                    let mut orig = schema.clone();
                    if let (Some(a), Some(b)) = (plain.as_object_mut(), orig.as_object_mut()) {
                        a.remove("$schema");
                        b.remove("$schema");
                    }
                    changed += usize::from(plain != orig);
                }
                Err(e) => failures.push(format!("{}#{key}: {e}", f.display())),
            }
        }
    }
    println!(
        "corpus: {tools} tools, {schemas} schemas upgraded and compiled, {changed} changed beyond `$schema`, {} failed",
        failures.len()
    );
    assert_eq!(tools, 253);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rewrites_and_refusals() {
    let up = upgrade(
        &json!({"id": "http://x.example/a#top", "type": "number", "minimum": 1, "exclusiveMinimum": true,
                "dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "const": 1}),
        Draft::Draft4,
    )
    .unwrap();
    assert_eq!(
        up,
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "http://x.example/a",
               "$anchor": "top", "type": "number", "exclusiveMinimum": 1,
               "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}})
    );
    // Siblings of `$ref` that draft 7 ignores go.
    let up = upgrade(
        &json!({"$ref": "#/definitions/a", "type": "string", "definitions": {"a": {}}}),
        Draft::Draft7,
    )
    .unwrap();
    assert_eq!(
        up,
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/a", "$defs": {"a": {}}})
    );
    // $recursiveRef becomes $dynamicRef where the resource is recursive.
    let up = upgrade(
        &json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": true,
                "properties": {"next": {"$recursiveRef": "#"}}}),
        Draft::Draft201909,
    )
    .unwrap();
    assert_eq!(up["$dynamicAnchor"], "recursive");
    assert_eq!(up["properties"]["next"]["$dynamicRef"], "#recursive");
    let err = upgrade(
        &json!({"$schema": "https://example.com/custom"}),
        Draft::Draft7,
    )
    .unwrap_err();
    assert_eq!(err.location, "/$schema");
}

/// Hostile shapes: deep nesting and many references into one unknown keyword are answered
/// (no stack overflow, no quadratic work), and malformed keywords are refused clearly.
#[test]
fn hostile_schemas() {
    // (serde_json builds and drops deep values recursively: give it room; the upgrade
    // itself grows its stack as it needs.)
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let nest = |levels: usize| {
                let mut deep = json!({"type": "string"});
                for _ in 0..levels {
                    // (Moved in, not serialized again as `json!` would.)
                    let mut m = serde_json::Map::new();
                    m.insert("items".into(), Value::Array(vec![deep]));
                    m.insert("definitions".into(), json!({}));
                    deep = Value::Object(m);
                }
                deep
            };
            let deep = nest(1_000);
            let up = upgrade(&deep, Draft::Draft7).unwrap();
            assert!(up.get("prefixItems").is_some());
            let deeper = nest(20_000);
            let err = upgrade(&deeper, Draft::Draft7).unwrap_err();
            assert!(err.reason.contains("too large"), "{err}");
            std::mem::forget((up, deep, deeper));
        })
        .unwrap()
        .join()
        .unwrap();
    let mut props = serde_json::Map::new();
    for i in 0..5_000 {
        props.insert(format!("p{i}"), json!({"$ref": "#/x-lib/big"}));
    }
    let mut big = serde_json::Map::new();
    for i in 0..2_000 {
        big.insert(format!("q{i}"), json!({"type": "integer"}));
    }
    let many = json!({"properties": props, "x-lib": {"big": {"properties": big}}});
    assert!(upgrade(&many, Draft::Draft7).is_ok());
    let err = upgrade(&json!({"properties": {"a": 5}}), Draft::Draft7).unwrap_err();
    assert_eq!(err.location, "/properties/a");
    let err = upgrade(&json!({"$schema": 7}), Draft::Draft7).unwrap_err();
    assert_eq!(err.location, "/$schema");
}
