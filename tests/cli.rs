//! The `toolschema` command line: exit codes, file and line reporting, output formats.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolschema"))
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/weather")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn temp(name: &str, content: &str) -> String {
    let dir = std::env::temp_dir().join(format!("toolschema-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write temp file");
    path.to_string_lossy().into_owned()
}

#[test]
fn check_reports_good_and_bad_schemas() {
    let ok = bin()
        .args(["check", &example("input_schema.json")])
        .output()
        .expect("run");
    assert_eq!(ok.status.code(), Some(0));
    let bad = temp("bad.json", r#"{"properties": {"a": {"minLength": -1}}}"#);
    let out = bin().args(["check", &bad]).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/properties/a/minLength"), "{err}");
    let broken = temp("broken.json", "{\n  \"type\": \n");
    let out = bin().args(["check", &broken]).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("malformed JSON"));
}

#[test]
fn validate_exit_codes_and_lines() {
    let schema = example("input_schema.json");
    let ok = bin()
        .args(["validate", "--schema", &schema, &example("valid.json")])
        .output()
        .expect("run");
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );

    let out = bin()
        .args([
            "validate",
            "--schema",
            &schema,
            &example("valid.json"),
            &example("invalid.json"),
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("invalid.json: /: missing required property \"location\""),
        "{text}"
    );
    assert!(
        text.contains("/units: must be one of the 2 allowed values"),
        "{text}"
    );
    assert!(text.contains("/days: must be at most 10"), "{text}");
    assert!(
        !text.contains("sk-secret-123"),
        "values never shown: {text}"
    );
    assert!(!text.contains("kelvin"), "values never shown: {text}");

    let out = bin()
        .args(["validate", "--schema", &schema, &example("calls.jsonl")])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("calls.jsonl:3: /location: must be at least 1 character long"),
        "{text}"
    );
    assert!(text.contains("calls.jsonl:4: /units"), "{text}");
    assert!(!text.contains("calls.jsonl:1:"), "{text}");
}

#[test]
fn validate_reads_json_lines_from_stdin_and_names_bad_lines() {
    let schema = example("input_schema.json");
    let mut child = bin()
        .args(["validate", "--schema", &schema, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"{\"location\": \"Rome\"}\n{\"location\": 3\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-:2: malformed JSON"));
}

#[test]
fn validate_bad_schema_or_missing_file_is_exit_2() {
    let bad = temp("bad2.json", r#"{"type": 5}"#);
    let out = bin()
        .args(["validate", "--schema", &bad, &example("valid.json")])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args([
            "validate",
            "--schema",
            &example("input_schema.json"),
            "/nonexistent/file.json",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/file.json"));
}

#[test]
fn validate_json_output_formats() {
    let schema = example("input_schema.json");
    for format in ["flag", "basic", "detailed"] {
        let out = bin()
            .args([
                "validate",
                "--schema",
                &schema,
                "--output",
                format,
                &example("calls.jsonl"),
            ])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8_lossy(&out.stdout);
        let docs: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON document per line"))
            .collect();
        assert_eq!(docs.len(), 4, "{format}: one document per instance");
        assert_eq!(docs[0]["valid"], true);
        assert_eq!(docs[2]["valid"], false);
        if format != "flag" {
            assert!(docs[2].get("errors").is_some(), "{format}: {}", docs[2]);
        }
    }
}

#[test]
fn large_json_lines_stream() {
    // 200,000 lines: validated one at a time.
    let mut text = String::with_capacity(200_000 * 24);
    for i in 0..200_000 {
        text.push_str(&format!("{{\"location\": \"c{i}\"}}\n"));
    }
    let path = temp("many.jsonl", &text);
    let out = bin()
        .args(["validate", "--schema", &example("input_schema.json"), &path])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
}

/// Runs `toolschema serve ARGS` with `input` on stdin and returns its stdout lines as JSON.
fn serve(args: &[&str], input: &str) -> Vec<serde_json::Value> {
    let mut child = bin()
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[test]
fn serve_takes_several_tool_files_and_a_message_cap() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mcp-tools");
    let a = corpus.join("server-filesystem/read_file.json");
    let b = corpus.join("server-memory/read_graph.json");
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let answers = serve(
        &[
            "--tools",
            &a.to_string_lossy(),
            "--tools",
            &b.to_string_lossy(),
        ],
        &format!("{INIT}\n{list}\n"),
    );
    let names: Vec<&str> = answers[1]["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["read_file", "read_graph"]);

    let big = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(2_000)
    );
    let ping = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    let answers = serve(
        &["--max-message-bytes", "1000"],
        &format!("{INIT}\n{big}\n{ping}\n"),
    );
    assert_eq!(answers[1]["error"]["code"], -32600, "{:?}", answers);
    assert_eq!(answers[2]["id"], 3);
    assert!(answers[2].get("result").is_some());
    let bad = bin()
        .args(["serve", "--max-message-bytes", "lots"])
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
}
