//! Every real MCP tool definition in `../shared/corpus/mcp-tools` compiles under the
//! dialect it declares (input and output schemas), and real bench-corpus schemas too.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use toolschema::Options;

fn shared(rel: &str) -> PathBuf {
    let base = std::env::var("TOOLSCHEMA_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let p = base.join(rel);
    assert!(
        p.exists(),
        "{} not found: set TOOLSCHEMA_SHARED to the shared data folder",
        p.display()
    );
    p
}

fn tool_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let root = shared("corpus/mcp-tools");
    for server in std::fs::read_dir(&root)
        .expect("corpus")
        .filter_map(|e| e.ok())
    {
        if server.path().is_dir() {
            for f in std::fs::read_dir(server.path())
                .expect("server")
                .filter_map(|e| e.ok())
            {
                if f.path().extension().is_some_and(|e| e == "json") {
                    out.push(f.path());
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_corpus_tool_schema_compiles_under_its_dialect() {
    let files = tool_files();
    let (mut tools, mut schemas, mut failures) = (0, 0, Vec::new());
    let mut dialects = std::collections::BTreeMap::<String, usize>::new();
    for f in &files {
        let tool: Value =
            serde_json::from_str(&std::fs::read_to_string(f).expect("read")).expect("json");
        tools += 1;
        for key in ["inputSchema", "outputSchema"] {
            let Some(schema) = tool.get(key) else {
                continue;
            };
            schemas += 1;
            let dialect = schema
                .get("$schema")
                .and_then(Value::as_str)
                .unwrap_or("(none: 2020-12)");
            *dialects.entry(dialect.to_string()).or_default() += 1;
            if let Err(e) = support::compile(schema) {
                failures.push(format!("{} {key}: {e}", f.display()));
            }
        }
    }
    println!(
        "{tools} tools, {schemas} schemas, {} failed; dialects: {dialects:?}",
        failures.len()
    );
    assert_eq!(tools, 253, "the corpus has 253 tool definitions");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The case folders of the bench corpus.
fn bench_cases() -> Vec<PathBuf> {
    std::fs::read_dir(shared("bench/corpus"))
        .expect("bench corpus")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect()
}

#[test]
fn every_bench_corpus_schema_compiles() {
    let mut failures = Vec::new();
    let mut n = 0;
    for dir in bench_cases() {
        let schema_path = dir.join("schema.json");
        if !schema_path.exists() {
            continue;
        }
        n += 1;
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(&schema_path).expect("read"))
                .expect("json");
        // Some real schemas (FHIR) exceed the default subschema cap: trusted input, no caps.
        let unlimited = Options::new().limits(toolschema::Limits::none());
        if let Err(e) = support::compile_with(&unlimited, &schema) {
            failures.push(format!("{}: {e}", schema_path.display()));
        }
        if let Err(e) = Options::new().compile(&schema) {
            assert_eq!(
                e.kind(),
                toolschema::SchemaErrorKind::TooManySubschemas,
                "{e}"
            );
        }
    }
    assert!(n >= 15);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fail-fast path (`is_valid`) takes shortcuts the reporting path does not; on every
/// real instance of the bench corpus every path of both configurations must agree
/// (`support::disagreement`), and agree with `expected.json` where
/// a case has one.
#[test]
fn every_bench_corpus_instance_gets_one_answer_on_both_paths() {
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for dir in bench_cases() {
        let (Ok(schema), Ok(instances)) = (
            std::fs::read_to_string(dir.join("schema.json")),
            std::fs::read_to_string(dir.join("instances.jsonl")),
        ) else {
            continue;
        };
        let schema: Value = serde_json::from_str(&schema).expect("schema json");
        let options = Options::new()
            .limits(toolschema::Limits::none())
            .assert_formats(false);
        let compiled = support::compile_with(&options, &schema).expect("compiles");
        let expected: Option<Vec<bool>> = std::fs::read_to_string(dir.join("expected.json"))
            .ok()
            .map(|text| serde_json::from_str(&text).expect("expected.json"));
        let lines = instances.lines().filter(|l| !l.trim().is_empty());
        for (i, line) in lines.enumerate() {
            let instance: Value = serde_json::from_str(line).expect("instance json");
            let wanted = expected.as_ref().and_then(|e| e.get(i).copied());
            match support::disagreement(&compiled, &instance) {
                Err(why) => disagreements.push(format!("{} #{i}: {why}", dir.display())),
                Ok(v) if wanted.is_some_and(|w| w != v) => disagreements.push(format!(
                    "{} #{i}: every path gave {v}, expected {wanted:?}",
                    dir.display()
                )),
                Ok(_) => {}
            }
            checked += 1;
        }
    }
    assert!(checked > 5000, "only {checked} instances found");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
