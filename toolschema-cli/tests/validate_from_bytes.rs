//! `toolschema validate` judges JSON files and JSON Lines from their bytes
//! (`Schema::is_valid_json` / `validate_json` / `evaluate_json`): the verdicts, the errors
//! and the `basic`/`detailed`/`verbose` records are those of the `Value` path (which YAML
//! inputs and documents deeper than the bytes path reads still take), malformed text is
//! named by file, line, column and byte, never quoted, and documents deeper than the
//! bytes path reads still get an answer.

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn temp(name: &str, content: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("toolschema-bytes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, content).expect("write temp file");
    path.to_string_lossy().into_owned()
}

/// Runs the binary: exit code, stdout, stderr.
fn run(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin).expect("write stdin");
    drop(input);
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `valid` of each record of a JSON output, by line.
fn verdicts(out: &str) -> Vec<(u64, bool)> {
    out.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON record"))
        .filter(|r| r.get("summary").is_none())
        .map(|r| {
            (
                r["line"].as_u64().expect("a line"),
                r["valid"].as_bool().expect("a verdict"),
            )
        })
        .collect()
}

#[test]
fn malformed_json_is_named_by_line_column_and_byte_and_never_quoted() {
    let schema = temp("schema.json", br#"{"type": "object"}"#);
    let doc = temp("broken.json", b"{\n  \"a\": 1,\n  \"secret\": hunter2\n}\n");
    let (code, out, err) = run(&["validate", "-s", &schema, &doc], b"");
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        err.contains("broken.json: malformed JSON: expected a value at line 3 column 13 (byte 24)"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");

    // JSON Lines: the file's line, then the place within the line's text.
    let lines = temp(
        "broken.jsonl",
        b"{\"a\": 1}\n{\"a\": \"hunter2\" \"b\"}\n{\"a\": tru}\n\xEF\xBB\xBF{}\n[1,]\n{}\n",
    );
    let (code, out, err) = run(&["validate", "-s", &schema, &lines], b"");
    assert_eq!(code, 3, "{out}{err}");
    for expected in [
        "broken.jsonl:2: malformed JSON: expected `,` or `}` at line 1 column 17 (byte 16)",
        "broken.jsonl:3: malformed JSON: expected a value at line 1 column 10 (byte 9)",
        // A byte-order mark is skipped on the first line only.
        "broken.jsonl:4: malformed JSON: expected a value at line 1 column 1 (byte 0)",
        "broken.jsonl:5: malformed JSON: expected a value at line 1 column 4 (byte 3)",
    ] {
        assert!(err.contains(expected), "{expected}\n{err}");
    }
    assert!(!err.contains("hunter2"), "{err}");
    assert!(!err.contains(":1:") && !err.contains(":6:"), "{err}");

    // Every output mode words it the same way, the `Value` path included.
    for output in ["flag", "basic", "verbose"] {
        let (code, out, _) = run(&["validate", "-s", &schema, "-o", output, &lines], b"");
        assert_eq!(code, 3, "{output}");
        assert!(
            out.contains(
                r#""error":"malformed JSON: expected a value at line 1 column 10 (byte 9)""#
            ),
            "{output}: {out}"
        );
        assert!(!out.contains("hunter2"), "{output}: {out}");
    }
    // Invalid UTF-8 and trailing text.
    let bad = temp("bad-bytes.jsonl", b"\"\xFF\"\n1 2\n");
    let (_, _, err) = run(&["validate", "-s", &schema, &bad], b"");
    assert!(
        err.contains("bad-bytes.jsonl:1: malformed JSON: invalid UTF-8"),
        "{err}"
    );
    assert!(
        err.contains(
            "bad-bytes.jsonl:2: malformed JSON: trailing characters at line 1 column 3 (byte 2)"
        ),
        "{err}"
    );
}

#[test]
fn json_lines_from_bytes_agree_with_the_value_path() {
    let schema = temp(
        "numbers.json",
        br#"{"type": "object", "properties": {"n": {"type": "integer", "maximum": 1e20},
            "s": {"type": "string", "maxLength": 1}}, "additionalProperties": false}"#,
    );
    let cases: [(&str, bool); 16] = [
        (r#"{"n": 1.0}"#, true),
        (r#"{"n": 1.5}"#, false),
        (r#"{"n": 1e2}"#, true),
        (r#"{"n": -0.0}"#, true),
        (r#"{"n": "x", "n": 2}"#, true),
        (r#"{"n": 2, "n": "x"}"#, false),
        (r#"{"\u006e": 3}"#, true),
        (r#"{"\u006e\u006e": 3}"#, false),
        (r#"{"n": 100000000000000000000}"#, true),
        (r#"{"n": 200000000000000000000}"#, false),
        (r#"{"n": 12345678901234567890}"#, true),
        (r#"{"s": "\ud83d\ude00"}"#, true),
        (r#"{"s": "ab"}"#, false),
        (r#"{"s": "\u00e9"}"#, true),
        ("{}", true),
        ("[]", false),
    ];
    let text: String = cases.iter().map(|(l, _)| format!("{l}\n")).collect();
    let lines = temp("tricky.jsonl", text.as_bytes());
    let expected: Vec<(u64, bool)> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, v))| (i as u64 + 1, *v))
        .collect();
    // `flag` judges from bytes, `basic` from a `Value`; one thread and several.
    for jobs in ["1", "3"] {
        for output in ["flag", "basic"] {
            let (code, out, err) = run(
                &["validate", "-s", &schema, "-o", output, "-j", jobs, &lines],
                b"",
            );
            assert_eq!(code, 1, "{output}: {err}");
            assert_eq!(verdicts(&out), expected, "{output} -j {jobs}");
        }
    }
    // Text: the errors of each invalid line, from bytes, as the `Value` path words them.
    let (code, out, _) = run(&["validate", "-s", &schema, &lines], b"");
    assert_eq!(code, 1);
    for expected in [
        "tricky.jsonl:2: /n: must be integer, not number",
        "tricky.jsonl:6: /n: must be integer, not string",
        "tricky.jsonl:8: /nn: property is not allowed",
        "tricky.jsonl:10: /n: must be at most 1e+20",
        "tricky.jsonl:13: /s: must be at most 1 character long",
        "tricky.jsonl:16: /: must be object, not array",
    ] {
        assert!(out.contains(expected), "{expected}\n{out}");
    }
    let invalid: Vec<_> = out.lines().map(|l| l.split(": ").next()).collect();
    assert_eq!(invalid.len(), 6, "{out}");
    // Quiet: the exit status alone; stdin read as JSON Lines.
    let (code, out, _) = run(
        &["validate", "-s", &schema, "-q", "-l", "-"],
        text.as_bytes(),
    );
    assert_eq!((code, out.as_str()), (1, ""));
    let valid: String = cases
        .iter()
        .filter(|(_, v)| *v)
        .map(|(l, _)| format!("{l}\n"))
        .collect();
    let (code, _, err) = run(
        &["validate", "-s", &schema, "-q", "-l", "-"],
        valid.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    // One document per file, from bytes, with a byte-order mark.
    let one = temp("one.json", "\u{feff}{\"n\": 2.0}".as_bytes());
    assert_eq!(run(&["validate", "-s", &schema, &one], b"").0, 0);
    let one = temp("one-bad.json", b"{\"n\": 2.5}");
    let (code, out, _) = run(&["validate", "-s", &schema, &one], b"");
    assert_eq!(code, 1);
    assert!(
        out.contains("one-bad.json: /n: must be integer, not number"),
        "{out}"
    );
}

#[test]
fn documents_deeper_than_the_bytes_path_reads_take_the_value_path() {
    let schema = temp(
        "arrays.json",
        br#"{"type": "array", "items": {"type": "array"}}"#,
    );
    let nest = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    // 127 levels are read from bytes; 128 and more by the `Value` path, with no limit.
    for depth in [127, 128, 129, 5_000, 100_000] {
        let deep = nest(depth);
        let invalid = format!("[{deep}, 1]");
        let lines = temp(
            &format!("deep-{depth}.jsonl"),
            format!("{deep}\n{invalid}\n[[1], 2]\n").as_bytes(),
        );
        let (code, out, err) = run(&["validate", "-s", &schema, "-o", "flag", &lines], b"");
        assert_eq!(code, 1, "{depth}: {err}");
        assert_eq!(
            verdicts(&out),
            [(1, true), (2, false), (3, false)],
            "{depth}"
        );
        let (code, out, err) = run(&["validate", "-s", &schema, &lines], b"");
        assert_eq!(code, 1, "{depth}: {err}");
        assert!(
            out.contains(&format!("deep-{depth}.jsonl:2: /1: must be array")),
            "{out}"
        );
        assert!(
            out.contains(&format!("deep-{depth}.jsonl:3: /1: must be array")),
            "{out}"
        );
        assert!(!out.contains(".jsonl:1:"), "{out}");
        let (code, _, err) = run(&["validate", "-s", &schema, "-q", &lines], b"");
        assert_eq!(code, 1, "{depth}: {err}");
        let file = temp(&format!("deep-{depth}.json"), deep.as_bytes());
        let (code, out, err) = run(&["validate", "-s", &schema, &file, "-"], invalid.as_bytes());
        assert_eq!(code, 1, "{depth}: {out}{err}");
        assert!(out.contains("-: /1: must be array"), "{out}");
        assert!(!out.contains(".json:"), "{out}");
    }
    // Malformed deep text is still malformed, wherever the fault.
    let broken = format!("{}1", "[".repeat(1_000));
    let (code, _, err) = run(&["validate", "-s", &schema, "-l", "-"], broken.as_bytes());
    assert_eq!(code, 3);
    assert!(err.contains("-:1: malformed JSON"), "{err}");
    let broken = format!("{}{} x", "[".repeat(1_000), "]".repeat(1_000));
    let (code, out, _) = run(
        &["validate", "-s", &schema, "-o", "flag", "-"],
        broken.as_bytes(),
    );
    assert_eq!(code, 3);
    assert!(out.contains("malformed JSON: trailing characters"), "{out}");
}

/// Each JSON record of an output, without `file` and `line` (which name the input).
fn records(out: &str) -> Vec<serde_json::Value> {
    out.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON record"))
        .filter(|r| r.get("summary").is_none())
        .map(|mut r| {
            let map = r.as_object_mut().expect("an object");
            map.remove("file");
            map.remove("line");
            r
        })
        .collect()
}

/// The standard output formats from bytes (JSON files, JSON Lines on one thread and
/// several) are, record for record, what the `Value` path prints for the same documents
/// (the same texts as YAML files, which only that path reads): errors with their causes,
/// annotations, nesting. (Each object's keys are written in name order, the order a
/// `Value` keeps; `tests/errors_from_bytes.rs` covers other orders.)
#[test]
fn output_formats_from_bytes_are_the_value_paths() {
    let schema = temp(
        "annotated.json",
        br##"{"$defs": {"pos": {"type": "integer", "minimum": 0, "title": "count"}},
            "type": "object", "title": "order",
            "properties": {"n": {"$ref": "#/$defs/pos"}, "tag": {"enum": ["a", "b"]},
                "items": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/pos"}]}}},
            "patternProperties": {"^x-": {"description": "extension"}},
            "additionalProperties": {"type": "boolean"},
            "required": ["n"]}"##,
    );
    let docs = [
        r#"{"items": ["a", 2], "n": 1, "tag": "a", "x-y": null}"#,
        r#"{"items": ["a", -2, null], "n": -1, "other": 3, "tag": "c"}"#,
        r#"{"flag": true, "n": 0}"#,
        r#"{"n": 1.5}"#,
        r#"[]"#,
        r#"{"items": [], "n": 7}"#,
    ];
    let lines: String = docs.iter().map(|d| format!("{d}\n")).collect();
    let jsonl = temp("annotated.jsonl", lines.as_bytes());
    let mut yaml_files = Vec::new();
    let mut json_files = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        yaml_files.push(temp(&format!("doc-{i}.yaml"), doc.as_bytes()));
        json_files.push(temp(&format!("doc-{i}.json"), doc.as_bytes()));
    }
    for output in ["basic", "detailed", "verbose"] {
        let mut args = vec!["validate", "-s", &schema, "-o", output];
        args.extend(yaml_files.iter().map(String::as_str));
        let (code, out, err) = run(&args, b"");
        assert_eq!(code, 1, "{output}: {err}");
        let from_value = records(&out);
        assert_eq!(from_value.len(), docs.len(), "{out}");
        // Worth comparing: errors with causes, and annotations.
        assert!(
            from_value.iter().any(|r| r["valid"] == true)
                && from_value.iter().any(|r| r["valid"] == false),
            "{out}"
        );
        if output == "basic" {
            assert!(out.contains(r#""annotation":"count""#), "{out}");
            assert!(out.contains("must match at least one"), "{out}");
        }
        let mut args = vec!["validate", "-s", &schema, "-o", output];
        args.extend(json_files.iter().map(String::as_str));
        let (code, out, err) = run(&args, b"");
        assert_eq!(code, 1, "{output}: {err}");
        assert_eq!(records(&out), from_value, "{output}: JSON files");
        for jobs in ["1", "3"] {
            let (code, out, err) = run(
                &["validate", "-s", &schema, "-o", output, "-j", jobs, &jsonl],
                b"",
            );
            assert_eq!(code, 1, "{output}: {err}");
            assert_eq!(records(&out), from_value, "{output} -j {jobs}: JSON Lines");
            let lines: Vec<u64> = out
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter_map(|r| r["line"].as_u64())
                .collect();
            assert_eq!(lines, [1, 2, 3, 4, 5, 6]);
        }
    }
}

/// Documents deeper than the bytes path reads get their record from the `Value` path, in
/// every output format, between records from bytes.
#[test]
fn output_formats_of_documents_deeper_than_the_bytes_path_reads() {
    let schema = temp(
        "nested.json",
        br#"{"type": "array", "items": {"type": "array"}, "title": "nest"}"#,
    );
    let nest = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let deep = nest(200);
    let lines = temp(
        "nested.jsonl",
        format!("{}\n[{deep}, 1]\n{deep}\n[[], 2]\n", nest(3)).as_bytes(),
    );
    for output in ["basic", "detailed", "verbose"] {
        let (code, out, err) = run(&["validate", "-s", &schema, "-o", output, &lines], b"");
        assert_eq!(code, 1, "{output}: {err}");
        let got = records(&out);
        let verdicts: Vec<bool> = got.iter().map(|r| r["valid"] == true).collect();
        assert_eq!(verdicts, [true, false, true, false], "{output}: {out}");
        // The same failure, from a `Value` (line 2) and from bytes (line 4), reads alike.
        assert_eq!(got[1], got[3], "{output}");
        assert!(out.contains("must be array"), "{output}: {out}");
    }
}
