//! The `toolschema` command line: exit codes, file and line reporting, output formats.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolschema"))
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/weather")
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
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/properties/a/minLength"), "{err}");
    let broken = temp("broken.json", "{\n  \"type\": \n");
    let out = bin().args(["check", &broken]).output().expect("run");
    assert_eq!(out.status.code(), Some(3));
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
        text.contains("/units: must be one of the 2 allowed values: \"celsius\", \"fahrenheit\""),
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
        .args(["validate", "--schema", &schema, "--jsonl", "-"])
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
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-:2: malformed JSON"));
}

#[test]
fn validate_bad_schema_or_missing_file_is_exit_3() {
    let bad = temp("bad2.json", r#"{"type": 5}"#);
    let out = bin()
        .args(["validate", "--schema", &bad, &example("valid.json")])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(3));
    let out = bin()
        .args([
            "validate",
            "--schema",
            &example("input_schema.json"),
            "/nonexistent/file.json",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(3));
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
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/mcp-tools");
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

/// Runs the binary with `args` and `stdin`, answering (exit code, stdout, stderr).
fn run(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    run_env(args, stdin, &[])
}

fn run_env(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut child = bin()
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_version_and_usage_errors() {
    for args in [&["--version"][..], &["-V"], &["validate", "--version"]] {
        let (code, out, _) = run(args, b"");
        assert_eq!(code, 0, "{args:?}");
        assert!(out.contains(env!("CARGO_PKG_VERSION")), "{args:?}: {out}");
    }
    for command in ["check", "validate", "serve"] {
        let (code, out, _) = run(&[command, "--help"], b"");
        assert_eq!(code, 0, "{command} --help");
        assert!(out.contains("Usage: toolschema"), "{out}");
        assert!(out.contains("Exit status"), "{command}: {out}");
    }
    let (code, _, err) = run(&["check", "--quiet-please", "x.json"], b"");
    assert_eq!(code, 2);
    assert!(
        err.contains("unexpected argument '--quiet-please'"),
        "{err}"
    );
    let (code, _, err) = run(&["validate", "-o", "fancy", "-s", "x.json"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("possible values"), "{err}");
    let (code, _, _) = run(&["frobnicate"], b"");
    assert_eq!(code, 2);
    // --flag=value and short forms
    let schema = example("input_schema.json");
    let (code, out, _) = run(
        &[
            "validate",
            &format!("--schema={schema}"),
            "--output=verbose",
            &example("valid.json"),
        ],
        b"",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\"valid\":true"), "{out}");
    let (code, _, _) = run(
        &["validate", "-s", &schema, "-q", &example("invalid.json")],
        b"",
    );
    assert_eq!(code, 1);
}

#[test]
fn formats_assert_on_request_and_unknown_formats_can_be_refused() {
    let schema = temp("email.json", r#"{"format": "email"}"#);
    let (code, _, _) = run(&["validate", "-s", &schema], b"\"not-an-email\"");
    assert_eq!(code, 0, "formats annotate by default");
    let (code, out, _) = run(
        &["validate", "-s", &schema, "--assert-format"],
        b"\"not-an-email\"",
    );
    assert_eq!(code, 1);
    assert!(out.contains("must be a valid \"email\""), "{out}");
    let odd = temp(
        "colour.json",
        r#"{"properties": {"c": {"format": "colour"}}, "enum": [{"format": "data"}]}"#,
    );
    let (code, _, _) = run(&["check", &odd], b"");
    assert_eq!(code, 0);
    let (code, _, err) = run(&["check", "--unknown-format-error", &odd], b"");
    assert_eq!(code, 3);
    assert!(
        err.contains("/properties/c/format: unknown format \"colour\""),
        "{err}"
    );
    let (code, _, _) = run(&["check", "--unknown-format-error", &schema], b"");
    assert_eq!(code, 0);
}

#[test]
fn content_asserts_on_request_with_strict_base64() {
    let schema = temp("content.json", r#"{"contentEncoding": "base64"}"#);
    let (code, _, _) = run(&["validate", "-s", &schema], b"\"AA==AAAA\"");
    assert_eq!(code, 0, "content annotates by default");
    for (bad, why) in [
        ("\"AA==AAAA\"", "padding inside"),
        ("\"e30\"", "missing padding"),
        ("\"e3!=\"", "not the alphabet"),
    ] {
        let (code, _, _) = run(
            &["validate", "-s", &schema, "--assert-content"],
            bad.as_bytes(),
        );
        assert_eq!(code, 1, "{why}");
    }
    let (code, out, _) = run(
        &["validate", "-s", &schema, "--assert-content"],
        b"\"e30=\"",
    );
    assert_eq!(code, 0, "{out}");
    // Decoded, it must also be JSON.
    let json = temp(
        "content-json.json",
        r#"{"contentEncoding": "base64", "contentMediaType": "application/json"}"#,
    );
    for (instance, code) in [("\"e30=\"", 0), ("\"e3t9\"", 1)] {
        let (got, _, _) = run(
            &["validate", "-s", &json, "--assert-content"],
            instance.as_bytes(),
        );
        assert_eq!(got, code, "{instance}");
    }
}

#[test]
fn dialect_and_limits_switches() {
    // In draft-04, exclusiveMaximum is a boolean beside maximum.
    let schema = temp("d4.json", r#"{"maximum": 3, "exclusiveMaximum": true}"#);
    let (code, _, _) = run(&["check", &schema], b"");
    assert_eq!(code, 3, "a boolean exclusiveMaximum is invalid in 2020-12");
    let (code, _, _) = run(&["validate", "-s", &schema, "--draft", "4"], b"3");
    assert_eq!(code, 1);
    let (code, _, _) = run(&["validate", "-s", &schema, "--draft=4"], b"2");
    assert_eq!(code, 0);
    let mut deep = String::from("{}");
    for _ in 0..70 {
        deep = format!("{{\"not\": {{\"not\": {deep}}}}}");
    }
    let schema = temp("deep-schema.json", &deep);
    let (code, _, err) = run(&["check", &schema], b"");
    assert_eq!(code, 3, "{err}");
    let (code, _, err) = run(&["check", "--no-limits", &schema], b"");
    assert_eq!(code, 0, "{err}");
}

#[test]
fn relative_refs_resolve_to_files_given_as_resources() {
    let dir = std::env::temp_dir().join(format!("toolschema-cli-refs-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("defs/more")).expect("dirs");
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).expect("write");
    write(
        "main.json",
        r#"{"properties": {"p": {"$ref": "defs/point.json"}}}"#,
    );
    write(
        "defs/point.json",
        r#"{"properties": {"x": {"$ref": "more/coord.json"}}, "required": ["x"]}"#,
    );
    write("defs/more/coord.json", r#"{"type": "integer"}"#);
    let main = dir.join("main.json").to_string_lossy().into_owned();
    let (code, _, err) = run(&["check", &main], b"");
    assert_eq!(code, 3);
    assert!(err.contains("--resource"), "{err}");
    let defs = dir.join("defs").to_string_lossy().into_owned();
    let (code, out, _) = run(
        &["validate", "-s", &main, "--resource", &defs],
        br#"{"p": {"x": "one"}}"#,
    );
    assert_eq!(code, 1);
    assert!(out.contains("/p/x: must be integer"), "{out}");
    // URI=FILE: a name of one's choosing.
    let other = temp("other.json", r#"{"$ref": "urn:example:coord"}"#);
    let coord = dir
        .join("defs/more/coord.json")
        .to_string_lossy()
        .into_owned();
    let (code, _, err) = run(
        &[
            "validate",
            "-s",
            &other,
            "-r",
            &format!("urn:example:coord={coord}"),
        ],
        b"7",
    );
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdin_is_one_document_and_the_schema_may_come_from_stdin() {
    let schema = example("input_schema.json");
    let pretty = b"{\n  \"location\": \"Rome\"\n}\n";
    let (code, _, err) = run(&["validate", "-s", &schema], pretty);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&["validate", "-s", &schema, "-"], pretty);
    assert_eq!(code, 0, "{err}");
    let schema_text = std::fs::read(&schema).expect("schema");
    let (code, out, _) = run(
        &["validate", "--schema", "-", &example("invalid.json")],
        &schema_text,
    );
    assert_eq!(code, 1, "{out}");
    let (code, _, _) = run(&["validate", "--schema", "-", "-"], &schema_text);
    assert_eq!(code, 2, "stdin cannot be both");
}

#[test]
fn json_lines_go_on_past_bad_bytes_and_overlong_lines() {
    let schema = example("input_schema.json");
    let mut text = Vec::new();
    text.extend_from_slice(b"\xEF\xBB\xBF{\"location\": \"Rome\"}\n");
    text.extend_from_slice(b"{\"location\": \"\xff\xfe\"}\n");
    text.extend_from_slice(b"{\"location\": 3}\n");
    text.extend_from_slice(format!("{{\"location\": \"{}\"}}\n", "x".repeat(5000)).as_bytes());
    text.extend_from_slice(b"{\"location\": \"\"}\n");
    // A long last line without a newline is skipped as it is read, not held.
    text.extend_from_slice(format!("[{}]", "1,".repeat(1_000_000)).as_bytes());
    let path = temp("bad-lines.jsonl", "");
    std::fs::write(&path, &text).expect("write");
    let (code, out, err) = run(
        &["validate", "-s", &schema, "--max-line-bytes", "1000", &path],
        b"",
    );
    assert_eq!(code, 3);
    assert!(err.contains("bad-lines.jsonl:2: malformed JSON"), "{err}");
    assert!(
        out.contains("bad-lines.jsonl:3: /location: must be string"),
        "{out}"
    );
    assert!(
        err.contains("bad-lines.jsonl:4: line too long: 5016 bytes"),
        "{err}"
    );
    assert!(
        out.contains("bad-lines.jsonl:5: /location: must be at least"),
        "{out}"
    );
    assert!(err.contains("bad-lines.jsonl:6: line too long"), "{err}");
    assert!(
        !out.contains("bad-lines.jsonl:1:"),
        "the BOM is skipped: {out}"
    );
    assert!(
        !err.contains("bad-lines.jsonl:1:"),
        "the BOM is skipped: {err}"
    );
}

#[test]
fn documents_of_any_depth_and_with_a_bom() {
    let schema = temp(
        "array.json",
        r#"{"type": "array", "items": {"type": "array"}}"#,
    );
    let depth = 100_000;
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let (code, out, err) = run(&["validate", "-s", &schema], deep.as_bytes());
    assert_eq!(code, 0, "{out}{err}");
    let shallow_enough = format!("{}{}", "[".repeat(128), "]".repeat(128));
    let lines = temp("deep.jsonl", &format!("{shallow_enough}\n{deep}\n[1]\n"));
    let (code, out, err) = run(&["validate", "-s", &schema, &lines], b"");
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("deep.jsonl:3: /0: must be array"), "{out}");
    assert!(
        !out.contains("deep.jsonl:1:") && !out.contains("deep.jsonl:2:"),
        "{out}"
    );
    let bom_schema = temp("bom-schema.json", "\u{feff}{\"type\": \"integer\"}");
    let bom_instance = temp("bom-instance.json", "\u{feff}7");
    let (code, _, err) = run(&["validate", "-s", &bom_schema, &bom_instance], b"");
    assert_eq!(code, 0, "{err}");
}

#[test]
fn yaml_schemas_and_instances_and_directories() {
    let dir = std::env::temp_dir().join(format!("toolschema-cli-yaml-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("calls/more")).expect("dirs");
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).expect("write");
    write(
        "schema.yaml",
        "type: object\nproperties:\n  n: {type: integer}\nrequired: [n]\n",
    );
    write("calls/a.yml", "n: 1\n");
    write("calls/b.json", r#"{"n": "two"}"#);
    write("calls/more/c.jsonl", "{\"n\": 3}\n{}\n");
    write("calls/notes.txt", "not an instance");
    write("calls/more/broken.yaml", "n: [1, 2\n");
    let schema = dir.join("schema.yaml").to_string_lossy().into_owned();
    let calls = dir.join("calls").to_string_lossy().into_owned();
    let (code, out, _) = run(&["validate", "-s", &schema, "-o", "flag", &calls], b"");
    assert_eq!(code, 3, "{out}");
    let records: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    let seen: Vec<(String, Option<u64>, bool)> = records
        .iter()
        .map(|r| {
            let file = r["file"].as_str().expect("file");
            let name = file.rsplit('/').next().expect("name").to_string();
            (
                name,
                r["line"].as_u64(),
                r["valid"].as_bool().expect("valid"),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("a.yml".to_string(), None, true),
            ("b.json".to_string(), None, false),
            ("broken.yaml".to_string(), None, false),
            ("c.jsonl".to_string(), Some(1), true),
            ("c.jsonl".to_string(), Some(2), false),
        ]
    );
    assert!(
        records[2]["error"]
            .as_str()
            .expect("error")
            .starts_with("malformed YAML")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn records_name_file_and_line_and_the_summary_counts() {
    let schema = example("input_schema.json");
    let lines = temp(
        "records.jsonl",
        "{\"location\": \"Rome\"}\n{oops\n{\"location\": 5}\n",
    );
    for output in ["flag", "basic", "detailed", "verbose"] {
        let (code, out, _) = run(
            &[
                "validate",
                "-s",
                &schema,
                "-o",
                output,
                "--format",
                "json",
                &lines,
                "/nonexistent.json",
            ],
            b"",
        );
        assert_eq!(code, 3, "{output}");
        let records: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON record"))
            .collect();
        assert_eq!(records.len(), 5, "{output}: {out}");
        for (i, r) in records[..3].iter().enumerate() {
            assert!(r["file"].as_str().expect("file").ends_with("records.jsonl"));
            assert_eq!(r["line"], i + 1, "{output}");
        }
        assert_eq!(records[0]["valid"], true);
        assert_eq!(records[1]["valid"], false);
        assert!(
            records[1]["error"]
                .as_str()
                .expect("error")
                .contains("malformed JSON")
        );
        assert_eq!(records[2]["valid"], false);
        assert_eq!(records[3]["file"], "/nonexistent.json");
        assert!(
            records[3]["error"]
                .as_str()
                .expect("error")
                .contains("cannot read")
        );
        let summary = &records[4];
        assert_eq!(summary["valid"], 1);
        assert_eq!(summary["invalid"], 1);
        assert_eq!(summary["malformed"], 1);
        assert_eq!(summary["unreadable"], 1);
        assert_eq!(summary["exit"], 3);
    }
}

#[test]
fn json_lines_on_several_threads_keep_input_order() {
    // Enough lines for several chunks; every 7th is invalid.
    let mut text = String::new();
    for i in 0..30_000 {
        if i % 7 == 0 {
            text.push_str("{\"location\": 1}\n");
        } else {
            text.push_str(&format!("{{\"location\": \"c{i}\"}}\n"));
        }
    }
    let path = temp("order.jsonl", &text);
    let schema = example("input_schema.json");
    let (code, out, _) = run(
        &["validate", "-s", &schema, "-j", "4", "-o", "flag", &path],
        b"",
    );
    assert_eq!(code, 1);
    let mut count = 0;
    for (i, line) in out.lines().enumerate() {
        let r: serde_json::Value = serde_json::from_str(line).expect("record");
        assert_eq!(r["line"], i + 1);
        assert_eq!(r["valid"], i % 7 != 0, "line {}", i + 1);
        count += 1;
    }
    assert_eq!(count, 30_000);
}

#[test]
fn colour_on_request_and_never_with_no_color() {
    let schema = example("input_schema.json");
    let invalid = example("invalid.json");
    let (_, out, _) = run(
        &["validate", "-s", &schema, "--color", "always", &invalid],
        b"",
    );
    assert!(out.contains("\x1b["), "{out}");
    // Not a terminal: no colour on `auto`, whatever NO_COLOR says.
    let (_, out, _) = run_env(
        &["validate", "-s", &schema, &invalid],
        b"",
        &[("NO_COLOR", "1")],
    );
    assert!(!out.contains("\x1b["), "{out}");
    let (_, out, _) = run(&["validate", "-s", &schema, "--color=never", &invalid], b"");
    assert!(!out.contains("\x1b["), "{out}");
}
