//! `toolschema upgrade` and `toolschema lint`: output, exit codes, `--fix`, live servers.

use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolschema"))
}

fn temp(name: &str, content: &str) -> String {
    let dir = std::env::temp_dir().join(format!("toolschema-toolkit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write temp file");
    path.to_string_lossy().into_owned()
}

#[test]
fn upgrade_prints_the_2020_12_schema_or_refuses() {
    let s = temp(
        "d4.json",
        r#"{"items": [{"minimum": 1, "exclusiveMinimum": true}]}"#,
    );
    let out = bin()
        .args(["upgrade", &s, "--draft", "4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let up: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        up,
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [{"exclusiveMinimum": 1}]})
    );
    let s = temp("int4.json", r#"{"type": "integer"}"#);
    let out = bin()
        .args(["upgrade", &s, "--draft", "draft-04"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/type: draft-04"));
    let out = bin()
        .args(["upgrade", &s, "--draft", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args(["upgrade", "/nonexistent.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn lint_reports_fixes_and_exits() {
    let clean = temp(
        "clean.json",
        r#"{"name": "t", "inputSchema": {"type": "object"}}"#,
    );
    let out = bin().args(["lint", &clean]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let old = temp(
        "old.json",
        r##"{"tools": [{"name": "t", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object", "properties": {"a": {"$ref": "#/definitions/a"}}, "definitions": {"a": {"type": "string"}}}}]}"##,
    );
    let out = bin()
        .args(["lint", "--format", "json", &old])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let records: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["rule"], "dialect-not-2020-12");
    assert_eq!(records[0]["location"], "/tools/0/inputSchema/$schema");
    assert_eq!(records[0]["tool"], "t");
    let out = bin().args(["lint", "--fix", &old]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let fixed: Value = serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    assert_eq!(
        fixed["tools"][0]["inputSchema"]["properties"]["a"]["$ref"],
        "#/$defs/a"
    );
    let broken = temp("broken.json", "{");
    let out = bin().args(["lint", &broken]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let out = bin()
        .args(["lint", "--format", "xml", &clean])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn lint_a_directory() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/mcp-tools/calm");
    let out = bin()
        .args(["lint", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[unknown-format]"), "{text}");
}

/// A live stdio server (toolschema's own `serve`, serving a tool file) listed and linted.
#[test]
fn lint_a_live_server() {
    let tools = temp(
        "live.json",
        r#"[{"name": "count", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "format": "uint32"}}}}]"#,
    );
    let out = bin()
        .args([
            "lint",
            "--format",
            "json",
            "--",
            env!("CARGO_BIN_EXE_toolschema"),
            "serve",
            "--tools",
            &tools,
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["rule"], "unknown-format");
    assert_eq!(records[0]["location"], "/0/inputSchema/properties/n/format");
    let out = bin()
        .args(["lint", "--", "/nonexistent-server"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}
