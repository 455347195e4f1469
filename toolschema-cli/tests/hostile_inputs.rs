//! Hostile input, round three, class 6 (issue #53): work that grows faster than the input,
//! and inputs that are not regular files. Each test drives the release binary as a child
//! under an address-space and a CPU-time cap (`prlimit`), and a wall-clock deadline, so
//! that a bound that fails shows as an abort, a kill or a timeout, not as a slow machine.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use toolschema::{OUTPUT_FORMAT_DEPTH, Schema};

/// Address space the child may map: far above what a bounded run needs, far below what
/// the inputs below took unbounded (gigabytes).
const AS_CAP: &str = "--as=1073741824";

/// A fresh directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolschema-hostile-inputs-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a capped run gave: exit code (`None` when killed or past the deadline), stdout,
/// stderr.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `toolschema ARGS` under the address-space cap and `cpu` seconds of CPU time, in `dir`,
/// killed past a deadline of `cpu * 4` seconds of wall-clock time (a FIFO can block a child
/// without spending CPU).
fn capped(dir: &Path, cpu: u64, args: &[&str]) -> Run {
    let out_path = dir.join(".stdout");
    let err_path = dir.join(".stderr");
    let mut child = Command::new("prlimit")
        .arg(AS_CAP)
        .arg(format!("--cpu={cpu}"))
        .arg(env!("CARGO_BIN_EXE_toolschema"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("prlimit (util-linux) runs the binary");
    let deadline = Instant::now() + Duration::from_secs(cpu * 4);
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    Run {
        code,
        stdout: read(&out_path),
        stderr: read(&err_path),
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// A schema that applies itself to property `a`, one level of the instance per `$ref`.
fn recursive_schema(dir: &Path) {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#"}},
        "additionalProperties": false
    });
    write(dir, "schema.json", &schema.to_string());
}

/// How deep units nest in a standard output format, counted without recursion (the
/// root unit is 1).
fn unit_depth(output: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(output, 1)];
    while let Some((unit, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        for key in ["errors", "annotations"] {
            for child in unit[key].as_array().into_iter().flatten() {
                pending.push((child, depth + 1));
            }
        }
    }
    deepest
}

/// Output formats: a 120 KB instance nested 20,000 deep under a recursive schema, invalid
/// at the bottom. `detailed` and `verbose` repeated every enclosing location in each nested
/// unit (gigabytes, then an abort); now `detailed` collapses the chain into the one error,
/// and `verbose`, which cannot, says its budget is exceeded. Every format answers, under
/// 1 GiB and in seconds.
#[test]
fn nested_output_formats_are_bounded() {
    let dir = scratch("formats");
    recursive_schema(&dir);
    let depth = 20_000;
    write(
        &dir,
        "deep.json",
        &format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth)),
    );
    for format in ["basic", "detailed", "verbose"] {
        let run = capped(
            &dir,
            30,
            &["validate", "-s", "schema.json", "-o", format, "deep.json"],
        );
        assert_eq!(run.code, Some(1), "{format}: {}", run.stderr);
        let record: Value = serde_json::from_str(run.stdout.trim())
            .unwrap_or_else(|e| panic!("{format}: one JSON record: {e}: {:.300}", run.stdout));
        assert_eq!(record["valid"], false, "{format}");
        assert!(unit_depth(&record) <= OUTPUT_FORMAT_DEPTH, "{format}");
        let text = record.to_string();
        match format {
            "verbose" => assert!(text.contains("output budget exceeded"), "{text:.300}"),
            _ => {
                // The one error, whole: its location holds every level.
                let error = &record["errors"][0];
                assert_eq!(error["error"], "must be object, not integer", "{format}");
                assert_eq!(
                    error["instanceLocation"].as_str().map(str::len),
                    Some(2 * depth),
                    "{format}"
                );
            }
        }
    }
}

/// The library: the same shapes at a depth the old rendering survived, nesting one unit
/// per location segment (6,000 deep). `verbose` stays within its depth budget and says so;
/// `detailed` is the root and the error; an instance valid at every level, annotated at
/// each, gets a bounded answer from every format too.
#[test]
fn nested_formats_have_a_depth_budget() {
    let schema = Schema::compile(&json!({
        "type": "object",
        "title": "level",
        "properties": {"a": {"$ref": "#"}}
    }))
    .unwrap();
    let depth = 2_000;
    let invalid: Value = serde_json::from_str(&format!(
        "{}1{}",
        r#"{"a":"#.repeat(depth),
        "}".repeat(depth)
    ))
    .unwrap_or_else(|_| {
        // (Past serde_json's recursion limit: built by a loop.)
        let mut v = json!(1);
        for _ in 0..depth {
            v = json!({ "a": v });
        }
        v
    });
    let evaluation = schema.evaluate(&invalid);
    assert!(!evaluation.is_valid());
    let verbose = evaluation.verbose();
    assert!(unit_depth(&verbose) <= OUTPUT_FORMAT_DEPTH);
    assert!(verbose.to_string().contains("output budget exceeded"));
    let detailed = evaluation.detailed();
    assert_eq!(unit_depth(&detailed), 2, "the root and the error");
    assert_eq!(
        detailed["errors"][0]["error"],
        "must be object, not integer"
    );
    // Valid: `title` and `properties` annotate every level (1,000: within evaluation's
    // own budget). `basic` lists them; the nested formats would nest a unit per level.
    let mut valid = json!({});
    for _ in 0..1_000 {
        valid = json!({ "a": valid });
    }
    let evaluation = schema.evaluate(&valid);
    assert!(evaluation.is_valid());
    let basic = evaluation.basic();
    let listed = basic["annotations"].as_array().map_or(0, Vec::len);
    assert!(listed > 2_000, "{listed}");
    for output in [evaluation.detailed(), evaluation.verbose()] {
        assert_eq!(output["valid"], true);
        assert!(unit_depth(&output) <= OUTPUT_FORMAT_DEPTH);
        assert!(output.to_string().contains("output budget exceeded"));
    }
    // (Deep values are dropped by a loop: serde_json's drop recurses.)
    for v in [invalid, valid] {
        let mut pending = vec![v];
        while let Some(v) = pending.pop() {
            if let Value::Object(map) = v {
                pending.extend(map.into_iter().map(|(_, v)| v));
            }
        }
    }
}

/// The bytes path: refusing unclosed nesting costs time linear in the text. 1,000,000
/// levels of `{"a":` (5 MB) took a minute and most of a gigabyte, and a 1 MB JSON Lines line
/// of `[` half a minute: the deep reader recomputed the error's line at every level it
/// unwound. Both are refused within a CPU cap of 10 s; a closed document of that depth is
/// still read and judged.
#[test]
fn refusing_unclosed_nesting_is_linear() {
    let dir = scratch("nesting");
    write(&dir, "any.json", "{}");
    let depth = 1_000_000;
    write(&dir, "objects.json", &r#"{"a":"#.repeat(depth));
    write(
        &dir,
        "arrays.jsonl",
        &format!("{}\n[]\n", "[".repeat(depth)),
    );
    write(
        &dir,
        "tail.json",
        &format!("{}{}", "[".repeat(depth), "]".repeat(depth - 1)),
    );
    write(&dir, "yaml.yaml", &"[".repeat(depth));
    for file in ["objects.json", "arrays.jsonl", "tail.json", "yaml.yaml"] {
        let run = capped(
            &dir,
            10,
            &["validate", "-s", "any.json", "-o", "flag", file],
        );
        assert_eq!(run.code, Some(3), "{file}: {}", run.stderr);
        assert!(
            run.stdout.contains("malformed"),
            "{file}: {:.300}",
            run.stdout
        );
    }
    // Closed, the same depth is read and judged (the second line of arrays.jsonl too).
    write(
        &dir,
        "closed.json",
        &format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
    );
    let run = capped(&dir, 10, &["validate", "-s", "any.json", "closed.json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    write(
        &dir,
        "array.json",
        r#"{"type": "array", "items": {"type": "array"}}"#,
    );
    let run = capped(&dir, 10, &["validate", "-s", "array.json", "closed.json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

/// Inputs that are not regular files are read under the caps regular ones are, and named:
/// `--jsonl /dev/zero` (one endless line) ends at the file cap with an error about the line;
/// `/dev/zero` as one document is refused past the file cap instead of read to 2 GB.
#[test]
fn devices_are_read_under_the_caps() {
    let dir = scratch("devices");
    write(&dir, "any.json", "{}");
    let run = capped(
        &dir,
        20,
        &["validate", "-s", "any.json", "--jsonl", "/dev/zero"],
    );
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(
        run.stderr.contains("/dev/zero:1: line too long") && run.stderr.contains("not read"),
        "{}",
        run.stderr
    );
    let run = capped(&dir, 20, &["validate", "-s", "any.json", "/dev/zero"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("/dev/zero: cannot read: larger than 268435456 bytes"),
        "{}",
        run.stderr
    );
    // A lower cap, in both places; and a schema is capped too.
    let run = capped(
        &dir,
        20,
        &[
            "validate",
            "-s",
            "any.json",
            "--max-file-bytes",
            "1000",
            "/dev/zero",
        ],
    );
    assert!(
        run.stderr.contains("larger than 1000 bytes"),
        "{}",
        run.stderr
    );
    let run = capped(&dir, 20, &["validate", "-s", "/dev/zero", "any.json"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(
        run.stderr.contains("/dev/zero: cannot read: larger than"),
        "{}",
        run.stderr
    );
}

/// A FIFO named on the command line with no writer reads as empty instead of blocking the
/// open for ever; inside a directory argument it is skipped with a warning that names it,
/// and the directory's other files are judged. Directories that symbolic links lead back
/// to are walked once (two links to `.` made the walk exponential).
#[test]
fn fifos_and_link_loops_do_not_hang() {
    let dir = scratch("fifos");
    write(&dir, "any.json", "{}");
    mkfifo(&dir.join("lone.json"));
    let run = capped(&dir, 10, &["validate", "-s", "any.json", "lone.json"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(
        run.stderr.contains("lone.json: malformed JSON"),
        "{}",
        run.stderr
    );
    let run = capped(
        &dir,
        10,
        &["validate", "-s", "any.json", "--jsonl", "lone.json"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    write(&tree, "sub/ok.json", "{}");
    mkfifo(&tree.join("sub/pipe.json"));
    mkfifo(&tree.join("pipe.jsonl"));
    std::os::unix::fs::symlink(".", tree.join("sub/again")).unwrap();
    std::os::unix::fs::symlink("..", tree.join("sub/up")).unwrap();
    let run = capped(
        &dir,
        10,
        &["validate", "-s", "any.json", "-o", "flag", "tree"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("pipe.json: skipped: a FIFO"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("pipe.jsonl: skipped: a FIFO"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stdout.lines().count(),
        1,
        "ok.json once: {}",
        run.stdout
    );
    assert!(run.stdout.contains("ok.json"), "{}", run.stdout);
}

/// `evaluate`'s output budget counts annotation values too: a `default` of 50,000 values
/// under `items`, over an array of 100,000 items (a 300 KB schema, a 200 KB instance),
/// annotated every item with a copy of it (5e9 values: an abort at any cap). Now the
/// evaluation stops at its budget (`EvaluationBudgetExceeded`) and copies nothing more;
/// the verdict (from the fail-fast pass) is still valid.
#[test]
fn annotation_values_count_toward_the_output_budget() {
    let dir = scratch("annotations");
    let schema = json!({"items": {"default": vec![0; 50_000]}});
    write(&dir, "schema.json", &schema.to_string());
    write(&dir, "items.json", &json!(vec![0; 100_000]).to_string());
    for format in ["basic", "detailed", "verbose"] {
        let run = capped(
            &dir,
            20,
            &["validate", "-s", "schema.json", "-o", format, "items.json"],
        );
        assert_eq!(run.code, Some(0), "{format}: {}", run.stderr);
        assert!(
            run.stdout.contains("evaluation stopped"),
            "{format}: {:.300}",
            run.stdout
        );
    }
}
