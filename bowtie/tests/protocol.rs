//! The harness, driven the way Bowtie drives it: the `toolschema-bowtie` binary is started
//! as a child process and spoken to, one JSON line at a time, by a small client of this
//! file's own. Every command the client sends is checked against Bowtie's command schema
//! and every response against the response schema of its command (Bowtie's own schemas,
//! embedded under `schemas/` and compiled by toolschema).
//!
//! `official_suite_through_the_harness` replays every case of the official
//! JSON-Schema-Test-Suite (`$JSON_SCHEMA_TEST_SUITE` or `../shared/JSON-Schema-Test-Suite`
//! from the repository root), required and optional, for the five dialects, and the
//! annotation suite for each dialect, and prints the counts Bowtie would report
//! (`cargo test --release -p toolschema-bowtie --test protocol -- --nocapture`).

use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Cursor, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread::JoinHandle;
use std::time::Duration;
use toolschema::{Draft, Options, Schema};

const HARNESS: &str = env!("CARGO_BIN_EXE_toolschema-bowtie");

/// How long one response may take before the test fails instead of hanging (Bowtie waits
/// 2 seconds per instance by default; this machine is shared and slow).
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(120);

// ---------------------------------------------------------------------------------------
// Bowtie's schemas, compiled by toolschema.

struct Protocol {
    command: Schema,
    start: Schema,
    dialect: Schema,
    run: Schema,
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn json_files(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if recursive {
                json_files(&p, true, out);
            }
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

fn protocol() -> &'static Protocol {
    static PROTOCOL: OnceLock<Protocol> = OnceLock::new();
    PROTOCOL.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
        let mut files = Vec::new();
        json_files(&dir, true, &mut files);
        let mut options = Options::new();
        for file in &files {
            let doc = read_json(file);
            let id = doc["$id"]
                .as_str()
                .expect("every Bowtie schema has an $id")
                .to_string();
            options = options.with_document(&id, doc);
        }
        assert!(
            files.len() >= 12,
            "Bowtie's schemas are missing from {}",
            dir.display()
        );
        let compile = |reference: &str| {
            options
                .compile(&json!({"$ref": reference}))
                .unwrap_or_else(|e| panic!("Bowtie's schema {reference} does not compile: {e}"))
        };
        Protocol {
            command: compile("tag:bowtie.report,2023:ihop#/$defs/command"),
            start: compile("tag:bowtie.report,2023:ihop:command:start#response"),
            dialect: compile("tag:bowtie.report,2023:ihop:command:dialect#response"),
            run: compile("tag:bowtie.report,2023:ihop:command:run#response"),
        }
    })
}

/// Panics with every error if `value` is not valid under `schema`.
fn conforms(schema: &Schema, value: &Value, what: &str) {
    if let Err(errors) = schema.validate(value) {
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!(
            "{what} breaks Bowtie's schema:\n  {}\n{}",
            errors.join("\n  "),
            truncate(&value.to_string())
        );
    }
}

fn truncate(text: &str) -> String {
    if text.len() <= 2000 {
        return text.to_string();
    }
    let mut end = 2000;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

// ---------------------------------------------------------------------------------------
// The client.

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
}

impl Client {
    fn spawn() -> Client {
        let mut child = Command::new(HARNESS)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the harness starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Client {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
        }
    }

    /// Writes one raw line (a command or anything else).
    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).expect("the harness reads");
        stdin.write_all(b"\n").expect("the harness reads");
        stdin.flush().expect("the harness reads");
    }

    /// The next response line, as JSON.
    fn response(&mut self) -> Value {
        match self.lines.recv_timeout(RESPONSE_TIMEOUT) {
            Ok(line) => serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("the harness wrote a line that is not JSON ({e}): {line}")
            }),
            Err(RecvTimeoutError::Timeout) => panic!("no response in {RESPONSE_TIMEOUT:?}"),
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the harness closed its output: {}", self.finish_stderr())
            }
        }
    }

    /// Sends a command (checked against Bowtie's command schema first) and returns the
    /// response, checked against its command's response schema.
    fn request(&mut self, command: &Value) -> Value {
        let protocol = protocol();
        conforms(&protocol.command, command, "a command the client sends");
        self.send_line(&command.to_string());
        let response = self.response();
        let schema = match command["cmd"].as_str() {
            Some("start") => &protocol.start,
            Some("dialect") => &protocol.dialect,
            Some("run") => &protocol.run,
            other => panic!("no response expected to {other:?}"),
        };
        conforms(schema, &response, "a response");
        if command["cmd"] == "run" {
            assert_eq!(
                response["seq"], command["seq"],
                "the response echoes the seq"
            );
        }
        response
    }

    fn start(&mut self) -> Value {
        self.request(&json!({"cmd": "start", "version": 1}))
    }

    fn dialect(&mut self, uri: &str) {
        let response = self.request(&json!({"cmd": "dialect", "dialect": uri}));
        assert_eq!(response, json!({"ok": true}), "dialect {uri}");
    }

    fn finish_stderr(&mut self) -> String {
        self.stdin.take();
        let _ = self.child.wait();
        self.stderr
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default()
    }

    /// Sends `stop` and returns the exit status and what the harness wrote on stderr.
    fn stop(mut self) -> (ExitStatus, String) {
        let stop = json!({"cmd": "stop"});
        conforms(&protocol().command, &stop, "stop");
        self.send_line(&stop.to_string());
        let status = self.child.wait().expect("the harness exits");
        let stderr = self.finish_stderr();
        assert!(
            self.lines.recv_timeout(Duration::from_secs(5)).is_err(),
            "stop is not answered"
        );
        (status, stderr)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.stdin.take();
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn run_command(seq: u64, case: Value, output: &str) -> Value {
    json!({"cmd": "run", "seq": seq, "case": case, "output": output})
}

// ---------------------------------------------------------------------------------------
// The official suite.

fn suite_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("JSON_SCHEMA_TEST_SUITE") {
        return PathBuf::from(dir);
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/JSON-Schema-Test-Suite");
    assert!(
        dir.join("tests").is_dir(),
        "the JSON-Schema-Test-Suite was not found at {}: set JSON_SCHEMA_TEST_SUITE to a checkout of \
         https://github.com/json-schema-org/JSON-Schema-Test-Suite (or place it at ../shared/JSON-Schema-Test-Suite)",
        dir.display()
    );
    dir
}

/// The repository's suite skip list (`suite/skip.txt`): (file, group, test), each with a
/// reason.
fn skip_list() -> Vec<(String, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../suite/skip.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let parts: Vec<&str> = l.split(" | ").collect();
            assert!(
                parts.len() == 4 && !parts[3].trim().is_empty(),
                "skip.txt line without a reason: {l}"
            );
            (
                parts[0].to_string(),
                parts[1].to_string(),
                parts[2].to_string(),
            )
        })
        .collect()
}

struct Dialect {
    /// The suite's folder, Bowtie's short name.
    short: &'static str,
    uri: &'static str,
    draft: Draft,
    /// The dialect's number in the annotation suite's `compatibility` grammar.
    number: u32,
    boolean_schemas: bool,
}

const DIALECTS: [Dialect; 5] = [
    Dialect {
        short: "draft2020-12",
        uri: "https://json-schema.org/draft/2020-12/schema",
        draft: Draft::Draft202012,
        number: 2020,
        boolean_schemas: true,
    },
    Dialect {
        short: "draft2019-09",
        uri: "https://json-schema.org/draft/2019-09/schema",
        draft: Draft::Draft201909,
        number: 2019,
        boolean_schemas: true,
    },
    Dialect {
        short: "draft7",
        uri: "http://json-schema.org/draft-07/schema#",
        draft: Draft::Draft7,
        number: 7,
        boolean_schemas: true,
    },
    Dialect {
        short: "draft6",
        uri: "http://json-schema.org/draft-06/schema#",
        draft: Draft::Draft6,
        number: 6,
        boolean_schemas: true,
    },
    Dialect {
        short: "draft4",
        uri: "http://json-schema.org/draft-04/schema#",
        draft: Draft::Draft4,
        number: 4,
        boolean_schemas: false,
    },
];

/// Every remote under `http://localhost:1234/`, by its path below `remotes/`.
fn remotes() -> Vec<(String, Value)> {
    let dir = suite_dir().join("remotes");
    let mut files = Vec::new();
    json_files(&dir, true, &mut files);
    files
        .iter()
        .map(|f| {
            let relative = f
                .strip_prefix(&dir)
                .unwrap_or(f)
                .to_string_lossy()
                .replace('\\', "/");
            (relative, read_json(f))
        })
        .collect()
}

/// The registry Bowtie sends with the cases of one dialect (its `_suite.remotes_in`): every
/// remote as `http://localhost:1234/<path>`, except those whose `$schema` names another
/// dialect, those in another dialect's `draft...` folder, and, for dialects without boolean
/// schemas, `tree.json`.
fn bowtie_registry(dialect: &Dialect) -> Map<String, Value> {
    remotes()
        .into_iter()
        .filter(|(relative, schema)| {
            let other_schema = schema
                .get("$schema")
                .is_some_and(|s| s.as_str() != Some(dialect.uri));
            let other_folder =
                relative.starts_with("draft") && !relative.starts_with(dialect.short);
            let bad_boolean = !dialect.boolean_schemas && relative == "tree.json";
            !(other_schema || other_folder || bad_boolean)
        })
        .map(|(relative, schema)| (format!("http://localhost:1234/{relative}"), schema))
        .collect()
}

/// Every remote, for the optional cases (Bowtie has no rule for them: it runs the
/// required folder only), as the repository's own suite runner registers them.
fn every_remote() -> Map<String, Value> {
    remotes()
        .into_iter()
        .map(|(relative, schema)| (format!("http://localhost:1234/{relative}"), schema))
        .collect()
}

/// Bowtie's counts for one run, per test.
#[derive(Default, Clone, Copy)]
struct Counts {
    cases: usize,
    tests: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
    errored: usize,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.cases += other.cases;
        self.tests += other.tests;
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
        self.errored += other.errored;
    }
}

/// What one replay found besides the counts.
#[derive(Default)]
struct Findings {
    /// Unexpected results: the test fails on any.
    problems: Vec<String>,
    /// Cases the harness skipped (a by-design refusal): file, case, message.
    harness_skips: Vec<String>,
    /// Tests the skip list excuses.
    listed_skips: usize,
    /// Optional tests whose expectation needs formats or content to assert, which
    /// toolschema does not by default: the harness gives the library's default verdict
    /// (Bowtie would count them failed).
    annotation_only: Vec<String>,
}

/// The library's verdict on one test, compiled in this process the way the harness does
/// (`assert` additionally turns on format and content assertion).
fn in_process(dialect: &Dialect, case: &Value, instance: &Value, assert: bool) -> Option<bool> {
    let mut options = Options::new()
        .default_dialect(dialect.draft)
        .assert_formats(assert)
        .assert_content(assert);
    for (uri, doc) in case["registry"].as_object().into_iter().flatten() {
        options = options.with_document(uri, doc.clone());
    }
    options
        .compile(&case["schema"])
        .ok()
        .map(|s| s.is_valid(instance))
}

/// Replays the suite files of one dialect through `client`: each group becomes a case
/// with its tests (expectations removed, as Bowtie sends them) and the registry `registry`
/// gives for the file.
fn replay(
    client: &mut Client,
    dialect: &Dialect,
    files: &[PathBuf],
    optional: bool,
    registry: &dyn Fn(&Path) -> Option<Map<String, Value>>,
    seq: &mut u64,
    findings: &mut Findings,
) -> Counts {
    let tests_root = suite_dir().join("tests");
    let skips = skip_list();
    let mut counts = Counts::default();
    for file in files {
        let name = file
            .strip_prefix(&tests_root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        let registry = registry(file);
        for group in read_json(file).as_array().into_iter().flatten() {
            let description = group["description"].as_str().unwrap_or("");
            let tests = group["tests"].as_array().expect("a suite group has tests");
            let mut case = json!({
                "description": description,
                "schema": group["schema"],
                "tests": tests
                    .iter()
                    .map(|t| json!({"description": t["description"], "instance": t["data"]}))
                    .collect::<Vec<_>>(),
            });
            if let Some(comment) = group.get("comment") {
                case["comment"] = comment.clone();
            }
            if let Some(registry) = &registry {
                case["registry"] = Value::Object(registry.clone());
            }
            *seq += 1;
            let response = client.request(&run_command(*seq, case.clone(), "flag"));
            counts.cases += 1;
            counts.tests += tests.len();
            let at = |test: &Value| {
                format!(
                    "{} {name} :: {description} :: {}",
                    dialect.short,
                    test["description"].as_str().unwrap_or("")
                )
            };
            if response["skipped"] == true {
                counts.skipped += tests.len();
                let message = response["message"].as_str().unwrap_or("");
                // A refusal by design, and never of a document the case did register (so a
                // registry that went missing is a failure, not a skip).
                let names_a_registered_document = registry
                    .iter()
                    .flatten()
                    .any(|(uri, _)| message.contains(&format!("{:?}", uri.trim_end_matches('#'))));
                if names_a_registered_document
                    || !(message.starts_with("toolschema refuses")
                        || message.starts_with("toolschema never fetches"))
                {
                    findings.problems.push(format!(
                        "{} {name} :: {description}: skipped for no by-design reason: {message}",
                        dialect.short
                    ));
                }
                findings.harness_skips.push(format!(
                    "{} {name} :: {description}: {message}",
                    dialect.short
                ));
                continue;
            }
            if response["errored"] == true {
                counts.errored += tests.len();
                findings.problems.push(format!(
                    "{} {name} :: {description}: the case errored: {}",
                    dialect.short, response["context"]
                ));
                continue;
            }
            let results = response["results"]
                .as_array()
                .expect("a run response has results");
            assert_eq!(
                results.len(),
                tests.len(),
                "one result per test: {name} :: {description}"
            );
            for (test, result) in tests.iter().zip(results) {
                let expected = test["valid"].as_bool().expect("a suite test has valid");
                let listed = skips.iter().any(|(f, g, t)| {
                    *f == name
                        && g == description
                        && Some(t.as_str()) == test["description"].as_str()
                });
                if result["skipped"] == true {
                    counts.skipped += 1;
                    findings
                        .problems
                        .push(format!("{}: a test skipped alone", at(test)));
                    continue;
                }
                if result["errored"] == true {
                    counts.errored += 1;
                    findings
                        .problems
                        .push(format!("{}: errored: {}", at(test), result["context"]));
                    continue;
                }
                let got = result["valid"].as_bool().expect("a flag result has valid");
                if got == expected {
                    counts.passed += 1;
                    continue;
                }
                counts.failed += 1;
                if listed {
                    findings.listed_skips += 1;
                    continue;
                }
                // The optional folders expect formats (and draft 7's content) to assert;
                // the harness keeps toolschema's default, where they annotate. Such a
                // difference is accepted only where the library, in this process, gives
                // the harness's verdict by default and the suite's with assertion on.
                let instance = &test["data"];
                if optional
                    && in_process(dialect, &case, instance, false) == Some(got)
                    && in_process(dialect, &case, instance, true) == Some(expected)
                {
                    findings.annotation_only.push(at(test));
                    continue;
                }
                findings.problems.push(format!(
                    "{}: the harness answered {got}, the suite expects {expected}",
                    at(test)
                ));
            }
        }
    }
    counts
}

/// Bowtie's `_is_compatible`: whether an annotation case's `compatibility` admits the
/// dialect numbered `version`.
fn compatible(version: u32, compatibility: Option<&str>) -> bool {
    let Some(compatibility) = compatibility else {
        return true;
    };
    let known = |token: &str| -> Option<u32> {
        let n: u32 = token.trim().parse().ok()?;
        [1, 2, 3, 4, 6, 7, 2019, 2020, 9999]
            .contains(&n)
            .then_some(n)
    };
    compatibility.split(',').all(|constraint| {
        let constraint = constraint.trim();
        if let Some(bound) = constraint.strip_prefix("<=") {
            known(bound).is_some_and(|b| version <= b)
        } else if let Some(bound) = constraint.strip_prefix(">=") {
            known(bound).is_some_and(|b| version >= b)
        } else if let Some(bound) = constraint.strip_prefix('=') {
            known(bound).is_some_and(|b| version == b)
        } else {
            known(constraint).is_some_and(|b| version >= b)
        }
    })
}

/// Percent-decodes a schema location, as Bowtie compares them.
fn unquote(location: &str) -> String {
    let bytes = location.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            let b = (high * 16 + low) as u8;
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Replays the annotation suite under one dialect as `bowtie annotation-suite` does
/// (compatible cases only, expectations keyed by the keyword's own location) and checks
/// each result the way Bowtie does: valid, and for each asserted (instance location,
/// keyword) exactly the expected annotations by keyword location.
fn replay_annotations(
    client: &mut Client,
    dialect: &Dialect,
    seq: &mut u64,
    findings: &mut Findings,
) -> Counts {
    let dir = suite_dir().join("annotations/tests");
    let mut files = Vec::new();
    json_files(&dir, false, &mut files);
    assert!(
        !files.is_empty(),
        "no annotation tests in {}",
        dir.display()
    );
    let mut counts = Counts::default();
    for file in &files {
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let doc = read_json(file);
        for case in doc["suite"].as_array().into_iter().flatten() {
            if !compatible(dialect.number, case["compatibility"].as_str()) {
                continue;
            }
            let description = case["description"].as_str().unwrap_or("");
            let mut tests = Vec::new();
            let mut expectations = Vec::new();
            for test in case["tests"].as_array().into_iter().flatten() {
                let mut assertions = Vec::new();
                // (instance location, keyword) -> keyword location -> value
                let mut expected: BTreeMap<(String, String), BTreeMap<String, Value>> =
                    BTreeMap::new();
                for assertion in test["assertions"].as_array().into_iter().flatten() {
                    let keyword = assertion["keyword"].as_str().unwrap_or("");
                    let location = assertion["location"].as_str().unwrap_or("");
                    let by_location: Map<String, Value> = assertion["expected"]
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(at, value)| (format!("{at}/{keyword}"), value.clone()))
                        .collect();
                    let slot = expected
                        .entry((location.to_string(), keyword.to_string()))
                        .or_default();
                    for (at, value) in &by_location {
                        slot.insert(unquote(at), value.clone());
                    }
                    assertions.push(json!({"instanceLocation": location, "keyword": keyword, "expected": by_location}));
                }
                tests.push(json!({
                    "description": test.get("description").cloned().unwrap_or(json!("")),
                    "instance": test["instance"],
                }));
                expectations.push(expected);
            }
            if tests.is_empty() {
                continue;
            }
            let mut sent =
                json!({"description": description, "schema": case["schema"], "tests": tests});
            if let Some(external) = case.get("externalSchemas") {
                sent["registry"] = external.clone();
            }
            *seq += 1;
            let response = client.request(&run_command(*seq, sent, "annotations"));
            counts.cases += 1;
            counts.tests += expectations.len();
            if response["skipped"] == true || response["errored"] == true {
                let n = expectations.len();
                if response["skipped"] == true {
                    counts.skipped += n;
                } else {
                    counts.errored += n;
                }
                findings.problems.push(format!(
                    "{} annotations {name} :: {description}: {response}",
                    dialect.short
                ));
                continue;
            }
            let results = response["results"].as_array().expect("results");
            assert_eq!(results.len(), expectations.len());
            for (i, (result, expected)) in results.iter().zip(&expectations).enumerate() {
                if result["errored"] == true || result["skipped"] == true {
                    counts.errored += usize::from(result["errored"] == true);
                    counts.skipped += usize::from(result["skipped"] == true);
                    findings.problems.push(format!(
                        "{} annotations {name} :: {description} #{i}: {result}",
                        dialect.short
                    ));
                    continue;
                }
                let mut produced: BTreeMap<(String, String), BTreeMap<String, Value>> =
                    BTreeMap::new();
                for a in result["annotations"]
                    .as_array()
                    .expect("annotations output")
                {
                    produced
                        .entry((
                            a["instanceLocation"].as_str().unwrap_or("").to_string(),
                            a["keyword"].as_str().unwrap_or("").to_string(),
                        ))
                        .or_default()
                        .insert(
                            unquote(a["keywordLocation"].as_str().unwrap_or("")),
                            a["annotation"].clone(),
                        );
                }
                let empty = BTreeMap::new();
                let matches = result["valid"] == true
                    && expected
                        .iter()
                        .all(|(key, want)| produced.get(key).unwrap_or(&empty) == want);
                if matches {
                    counts.passed += 1;
                } else {
                    counts.failed += 1;
                    findings.problems.push(format!(
                        "{} annotations {name} :: {description} #{i}: expected {expected:?}, got {result}",
                        dialect.short
                    ));
                }
            }
        }
    }
    counts
}

fn row(label: &str, c: &Counts) -> String {
    format!(
        "| {label} | {} | {} | {} | {} | {} | {} |",
        c.cases, c.tests, c.passed, c.failed, c.skipped, c.errored
    )
}

const HEADER: &str = "| dialect | cases | tests | passed | failed | skipped | errored |\n|---|---:|---:|---:|---:|---:|---:|";

#[test]
fn official_suite_through_the_harness() {
    let tests_root = suite_dir().join("tests");
    let mut findings = Findings::default();
    let (mut required_table, mut optional_table, mut annotation_table) =
        (Vec::new(), Vec::new(), Vec::new());
    let mut totals = [Counts::default(); 3];
    for dialect in &DIALECTS {
        // A fresh harness per dialect, as Bowtie starts one per run.
        let mut client = Client::spawn();
        client.start();
        client.dialect(dialect.uri);
        let mut seq = 0;

        // What `bowtie suite <dialect>` runs: the dialect folder's own files (not its
        // subfolders), with the remotes as registry for refRemote, dynamicRef and
        // vocabulary.
        let mut files = Vec::new();
        json_files(&tests_root.join(dialect.short), false, &mut files);
        assert!(!files.is_empty(), "no suite files for {}", dialect.short);
        let registry = bowtie_registry(dialect);
        let bowtie_rule = |file: &Path| {
            let stem = file.file_stem().unwrap_or_default().to_string_lossy();
            ["refRemote", "dynamicRef", "vocabulary"]
                .contains(&stem.as_ref())
                .then(|| registry.clone())
        };
        let required = replay(
            &mut client,
            dialect,
            &files,
            false,
            &bowtie_rule,
            &mut seq,
            &mut findings,
        );
        required_table.push(row(dialect.short, &required));
        totals[0].add(required);
        if dialect.short == "draft2020-12" && std::env::var("JSON_SCHEMA_TEST_SUITE").is_err() {
            assert_eq!(
                required.tests, 1299,
                "the required 2020-12 suite has 1299 tests"
            );
        }

        // The optional folder, every remote registered.
        let mut files = Vec::new();
        json_files(
            &tests_root.join(dialect.short).join("optional"),
            true,
            &mut files,
        );
        assert!(
            !files.is_empty(),
            "no optional suite files for {}",
            dialect.short
        );
        let all = every_remote();
        let optional = replay(
            &mut client,
            dialect,
            &files,
            true,
            &|_: &Path| Some(all.clone()),
            &mut seq,
            &mut findings,
        );
        optional_table.push(row(dialect.short, &optional));
        totals[1].add(optional);

        // What `bowtie annotation-suite --dialect <dialect>` runs.
        let annotations = replay_annotations(&mut client, dialect, &mut seq, &mut findings);
        annotation_table.push(row(dialect.short, &annotations));
        totals[2].add(annotations);

        let (status, stderr) = client.stop();
        assert!(
            status.success(),
            "the harness exits 0 after stop: {status:?}\n{stderr}"
        );
    }
    println!("\nThe official suite through the harness, counted as Bowtie counts (per test):\n");
    println!("Required tests (what `bowtie suite <dialect>` runs):\n{HEADER}");
    for line in &required_table {
        println!("{line}");
    }
    println!("{}", row("**all**", &totals[0]));
    println!(
        "\nOptional tests (Bowtie's `suite` does not run them; formats annotate, toolschema's default):\n{HEADER}"
    );
    for line in &optional_table {
        println!("{line}");
    }
    println!("{}", row("**all**", &totals[1]));
    println!(
        "\nThe annotation suite (what `bowtie annotation-suite --dialect <dialect>` runs):\n{HEADER}"
    );
    for line in &annotation_table {
        println!("{line}");
    }
    println!("{}", row("**all**", &totals[2]));
    println!(
        "\nCases the harness skipped (refused by design): {}",
        findings.harness_skips.len()
    );
    for skip in &findings.harness_skips {
        println!("  {skip}");
    }
    println!(
        "Optional tests that need formats or content to assert (failed in Bowtie's count; the \
         library's default verdict, checked in process): {}",
        findings.annotation_only.len()
    );
    println!("Tests excused by suite/skip.txt: {}", findings.listed_skips);
    assert!(
        findings.problems.is_empty(),
        "{} unexpected results:\n{}",
        findings.problems.len(),
        findings.problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// The protocol's edges.

#[test]
fn start_reports_the_implementation() {
    let mut client = Client::spawn();
    let response = client.start();
    let implementation = &response["implementation"];
    assert_eq!(response["version"], 1);
    assert_eq!(implementation["name"], "toolschema");
    assert_eq!(implementation["language"], "rust");
    assert_eq!(implementation["version"], toolschema::VERSION);
    let dialects: Vec<&str> = implementation["dialects"]
        .as_array()
        .expect("dialects")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let expected: Vec<&str> = DIALECTS.iter().map(|d| d.uri).collect();
    assert_eq!(dialects, expected);
    for field in ["homepage", "source", "issues", "language_version", "os"] {
        assert!(
            implementation[field]
                .as_str()
                .is_some_and(|s| !s.is_empty()),
            "{field} is reported"
        );
    }
    let (status, stderr) = client.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn a_start_for_another_protocol_version_ends_the_harness_clearly() {
    let mut client = Client::spawn();
    client.send_line(r#"{"cmd": "start", "version": 2}"#);
    let status = client.child.wait().expect("the harness exits");
    let stderr = client.finish_stderr();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("protocol version 2"), "{stderr}");
}

#[test]
fn dialect_switching_changes_the_verdict_of_a_schema_without_schema() {
    let mut client = Client::spawn();
    client.start();
    // Up to draft 7, `$ref` overrides its siblings; from 2019-09 on, `maximum` applies too.
    let case = json!({
        "description": "$ref beside maximum",
        "schema": {"$ref": "#/definitions/int", "definitions": {"int": {"type": "integer"}}, "maximum": 0},
        "tests": [{"description": "5", "instance": 5}],
    });
    let explicit = json!({
        "description": "$ref beside maximum under an explicit $schema",
        "schema": {"$schema": "http://json-schema.org/draft-07/schema#",
            "$ref": "#/definitions/int", "definitions": {"int": {"type": "integer"}}, "maximum": 0},
        "tests": [{"description": "5", "instance": 5}],
    });
    let verdict = |client: &mut Client, seq: u64, case: &Value| {
        client.request(&run_command(seq, case.clone(), "flag"))["results"][0]["valid"].clone()
    };
    // Before any dialect command: 2020-12, toolschema's default.
    assert_eq!(verdict(&mut client, 1, &case), json!(false));
    client.dialect("http://json-schema.org/draft-07/schema#");
    assert_eq!(verdict(&mut client, 2, &case), json!(true));
    client.dialect("https://json-schema.org/draft/2020-12/schema");
    assert_eq!(verdict(&mut client, 3, &case), json!(false));
    // `$schema` wins over the dialect command.
    assert_eq!(verdict(&mut client, 4, &explicit), json!(true));
    client.dialect("http://json-schema.org/draft-04/schema#");
    assert_eq!(verdict(&mut client, 5, &case), json!(true));
    // A dialect it does not support is refused and changes nothing.
    let refused = client
        .request(&json!({"cmd": "dialect", "dialect": "http://json-schema.org/draft-03/schema#"}));
    assert_eq!(refused, json!({"ok": false}));
    assert_eq!(verdict(&mut client, 6, &case), json!(true));
    let (status, stderr) = client.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn malformed_lines_are_answered_or_reported_and_the_harness_goes_on() {
    let mut client = Client::spawn();
    client.start();
    let deep = format!(
        r#"{{"cmd": "run", "seq": "deep", "output": "flag", "case": {{"description": "d", "schema": {{}}, "tests": [{{"description": "t", "instance": {}{}}}]}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    // (line, the errored seq it is answered with, or None: reported on stderr only)
    let lines: Vec<(String, Option<Value>)> = vec![
        ("this is not JSON".into(), None),
        ("[1, 2]".into(), None),
        (r#"{"cmd": "bogus"}"#.into(), None),
        (r#"{"cmd": "run", "case": {"description": "d", "schema": {}, "tests": []}}"#.into(), None),
        (r#"{"cmd": "bogus", "seq": 11}"#.into(), Some(json!(11))),
        (r#"{"seq": 12}"#.into(), Some(json!(12))),
        (r#"{"cmd": "run", "seq": 13}"#.into(), Some(json!(13))),
        (r#"{"cmd": "run", "seq": 14, "output": "basic", "case": {"description": "d", "schema": {}, "tests": []}}"#.into(), Some(json!(14))),
        (r#"{"cmd": "run", "seq": 15, "case": {"description": "d", "tests": []}}"#.into(), Some(json!(15))),
        (r#"{"cmd": "run", "seq": 16, "case": {"description": "d", "schema": {}, "tests": [], "registry": 5}}"#.into(), Some(json!(16))),
        (r#"{"cmd": "run", "seq": {"opaque": [17]}, "case": {"description": "d", "schema": {"#.into(), Some(json!({"opaque": [17]}))),
        (r#"{"cmd": 5, "seq": 18}"#.into(), Some(json!(18))),
        (deep, Some(json!("deep"))),
    ];
    for (line, seq) in &lines {
        client.send_line(line);
        // A well-formed run after each: its answer must be the next line, so a malformed
        // line is answered once or not at all.
        let probe = run_command(
            1000,
            json!({"description": "probe", "schema": {"type": "integer"}, "tests": [{"description": "1", "instance": 1}]}),
            "flag",
        );
        client.send_line(&probe.to_string());
        if let Some(seq) = seq {
            let answer = client.response();
            conforms(&protocol().run, &answer, "the answer to a malformed line");
            assert_eq!(answer["seq"], *seq, "{line}");
            assert_eq!(answer["errored"], true, "{line}: {answer}");
            let message = answer["context"]["message"].as_str().unwrap_or("");
            assert!(!message.is_empty(), "{line}: {answer}");
        }
        let answer = client.response();
        assert_eq!(
            answer,
            json!({"seq": 1000, "results": [{"valid": true}]}),
            "after {line}"
        );
    }
    let (status, stderr) = client.stop();
    assert!(status.success(), "{stderr}");
    let notes = stderr
        .lines()
        .filter(|l| l.starts_with("toolschema-bowtie: ignored"))
        .count();
    assert_eq!(
        notes, 4,
        "each unanswerable line is reported once:\n{stderr}"
    );
    // Nothing of the lines' contents is echoed in the reports.
    assert!(
        !stderr.contains("this is not JSON") && !stderr.contains("bogus"),
        "{stderr}"
    );
}

#[test]
fn a_deep_line_is_answered_with_a_clear_message() {
    let mut client = Client::spawn();
    client.start();
    let line = format!(
        r#"{{"cmd": "run", "seq": 1, "case": {{"description": "d", "schema": {{}}, "tests": [{{"description": "t", "instance": {}{}}}]}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    client.send_line(&line);
    let answer = client.response();
    conforms(&protocol().run, &answer, "the answer to a deep line");
    let message = answer["context"]["message"].as_str().unwrap_or("");
    assert!(message.contains("deeper than 128 levels"), "{answer}");
    let (status, stderr) = client.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn refusals_are_skipped_and_other_compile_errors_errored() {
    let mut client = Client::spawn();
    client.start();
    let case = |schema: Value| json!({"description": "d", "schema": schema, "tests": [{"description": "t", "instance": 1}]});
    let skipped = [
        // A document nobody registered: never fetched.
        json!({"$ref": "https://example.com/elsewhere.json"}),
        // A cycle that never consumes the instance.
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        // A meta-schema that is neither a known dialect nor registered.
        json!({"$schema": "https://example.com/meta", "type": "integer"}),
    ];
    let mut seq = 0;
    for schema in skipped {
        seq += 1;
        let answer = client.request(&run_command(seq, case(schema.clone()), "flag"));
        assert_eq!(answer["skipped"], true, "{schema}: {answer}");
        assert!(
            answer["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("toolschema")),
            "{answer}"
        );
    }
    // A meta-schema that requires a vocabulary toolschema does not know, registered.
    let meta = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/strict-meta",
        "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true, "https://example.com/vocab/mystery": true}
    });
    let mut with_meta = case(json!({"$schema": "https://example.com/strict-meta"}));
    with_meta["registry"] = json!({"https://example.com/strict-meta": meta});
    seq += 1;
    let answer = client.request(&run_command(seq, with_meta, "flag"));
    assert_eq!(answer["skipped"], true, "{answer}");

    let errored = [
        // A broken schema is not a refusal by design.
        json!({"pattern": "["}),
        json!({"$ref": "#/$defs/missing"}),
        json!({"minLength": -1}),
    ];
    for schema in errored {
        seq += 1;
        let answer = client.request(&run_command(seq, case(schema.clone()), "flag"));
        assert_eq!(answer["errored"], true, "{schema}: {answer}");
        let message = answer["context"]["message"].as_str().unwrap_or("");
        assert!(message.contains("does not compile"), "{answer}");
    }
    // ... and the harness goes on.
    seq += 1;
    let answer = client.request(&run_command(seq, case(json!({"type": "integer"})), "flag"));
    assert_eq!(answer["results"], json!([{"valid": true}]));
    let (status, stderr) = client.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn the_registry_is_registered_and_only_for_its_case() {
    let mut client = Client::spawn();
    client.start();
    let mut case = json!({
        "description": "remote",
        "schema": {"$ref": "http://localhost:1234/integer.json"},
        "tests": [{"description": "1", "instance": 1}, {"description": "a", "instance": "a"}],
        "registry": {"http://localhost:1234/integer.json": {"type": "integer"}},
    });
    let answer = client.request(&run_command(1, case.clone(), "flag"));
    assert_eq!(
        answer["results"],
        json!([{"valid": true}, {"valid": false}])
    );
    case.as_object_mut().expect("object").remove("registry");
    let answer = client.request(&run_command(2, case, "flag"));
    assert_eq!(answer["skipped"], true, "{answer}");
    let (status, stderr) = client.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn annotations_output() {
    let mut client = Client::spawn();
    client.start();
    let case = json!({
        "description": "titles",
        "schema": {
            "properties": {"foo": {"title": "Foo"}},
            "patternProperties": {"^a": {"title": "Bar"}},
            "$ref": "#/$defs/x",
            "$defs": {"x": {"description": "X", "minProperties": 1}}
        },
        "tests": [
            {"description": "annotated", "instance": {"foo": 1, "apple": 2}},
            {"description": "invalid: no annotations", "instance": {}},
        ],
    });
    let answer = client.request(&run_command(1, case, "annotations"));
    let results = answer["results"].as_array().expect("results");
    assert_eq!(results[1], json!({"valid": false, "annotations": []}));
    assert_eq!(results[0]["valid"], true);
    let mut got: Vec<(String, String, String, Value)> = results[0]["annotations"]
        .as_array()
        .expect("annotations")
        .iter()
        .filter(|a| a["keyword"] != "properties" && a["keyword"] != "patternProperties")
        .map(|a| {
            (
                a["instanceLocation"].as_str().unwrap_or("").to_string(),
                a["keyword"].as_str().unwrap_or("").to_string(),
                a["keywordLocation"].as_str().unwrap_or("").to_string(),
                a["annotation"].clone(),
            )
        })
        .collect();
    got.sort_by(|a, b| a.2.cmp(&b.2));
    assert_eq!(
        got,
        vec![
            (
                "".into(),
                "description".into(),
                "#/$defs/x/description".into(),
                json!("X")
            ),
            (
                "/apple".into(),
                "title".into(),
                "#/patternProperties/%5Ea/title".into(),
                json!("Bar")
            ),
            (
                "/foo".into(),
                "title".into(),
                "#/properties/foo/title".into(),
                json!("Foo")
            ),
        ]
    );
    let (status, stderr) = client.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn end_of_input_ends_the_harness_quietly() {
    let mut client = Client::spawn();
    client.start();
    let stderr = client.finish_stderr();
    let status = client.child.wait().expect("exited");
    assert!(status.success(), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

/// A panic while validating is answered `errored` for that test, and the harness, the
/// same loop the binary runs, goes on. (No input is known to make toolschema panic: the
/// panic is injected through the harness's test hook, inside the same guard.)
#[test]
fn a_panic_is_answered_errored_and_the_harness_goes_on() {
    let mut harness = toolschema_bowtie::Harness::new().before_instance(|instance| {
        if instance == &json!("boom") {
            panic!("injected for the test");
        }
    });
    let case = json!({"description": "d", "schema": {"type": "string"},
        "tests": [{"description": "ok", "instance": "fine"}, {"description": "panics", "instance": "boom"}, {"description": "no", "instance": 1}]});
    let input = [
        json!({"cmd": "start", "version": 1}),
        run_command(1, case.clone(), "flag"),
        run_command(2, case, "annotations"),
        json!({"cmd": "stop"}),
    ]
    .iter()
    .map(|c| format!("{c}\n"))
    .collect::<String>();
    let mut output = Vec::new();
    let mut diagnostics = Vec::new();
    let status = toolschema_bowtie::serve(
        &mut harness,
        Cursor::new(input),
        &mut output,
        &mut diagnostics,
    )
    .expect("served");
    assert_eq!(status, 0);
    let responses: Vec<Value> = String::from_utf8(output)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(responses.len(), 3);
    conforms(&protocol().start, &responses[0], "start");
    for (response, seq) in responses[1..].iter().zip([1, 2]) {
        conforms(&protocol().run, response, "run");
        assert_eq!(response["seq"], seq);
        let results = response["results"].as_array().expect("results");
        assert_eq!(results[0]["valid"], true);
        assert_eq!(results[1]["errored"], true);
        assert!(
            results[1]["context"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("panic while validating: injected for the test")),
            "{response}"
        );
        assert_eq!(results[2]["valid"], false);
    }
}
