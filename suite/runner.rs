//! Runs the official JSON-Schema-Test-Suite (read in place, never copied) against toolschema.
//!
//! The suite is found at `$JSON_SCHEMA_TEST_SUITE` or `../shared/JSON-Schema-Test-Suite`.
//! Remotes are registered under `http://localhost:1234/`, the official meta-schemas (from
//! `$JSON_SCHEMA_METASCHEMAS` or `../shared/metaschemas`) under their own `$id`s. Every
//! failure is collected and reported at the end; a skip must be listed in
//! `suite/skip.txt` with its reason. `SUITE_FILTER=substring` narrows the files run.
//!
//! Every schema is compiled twice, with the compiler's shortcuts and without them
//! (`Options::shortcuts(false)`, the reference configuration), and every test checks that
//! each path of both (`is_valid`, `is_valid_json` and `validate_json` on the instance's
//! text, the reporting path in full, `validate`, `iter_errors`, `evaluate`) gives the
//! expected verdict (see `tests/support`), and that the paths from text report what the
//! `Value` paths report: `validate_json` the errors of `validate`, `evaluate_json` the
//! errors and annotations of `evaluate`, in the same order.

#![allow(dead_code)]

#[path = "../tests/support/mod.rs"]
pub mod support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use toolschema::{Draft, Options};

/// Where the suite lies, or a panic that says how to get it.
pub fn suite_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("JSON_SCHEMA_TEST_SUITE") {
        return PathBuf::from(dir);
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/JSON-Schema-Test-Suite");
    assert!(
        dir.join("tests").is_dir(),
        "the JSON-Schema-Test-Suite was not found at {}: set JSON_SCHEMA_TEST_SUITE to a checkout of \
         https://github.com/json-schema-org/JSON-Schema-Test-Suite (or place it at ../shared/JSON-Schema-Test-Suite)",
        dir.display()
    );
    dir
}

fn metaschema_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("JSON_SCHEMA_METASCHEMAS") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/metaschemas")
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

/// Every `.json` file below `dir`, at any depth, in sorted order; `dir` itself must be
/// readable (a test over a folder that is not there proves nothing).
#[allow(dead_code)] // (not every test that includes the runner lists files)
pub fn json_files_below(dir: &Path) -> Vec<PathBuf> {
    if let Err(e) = std::fs::read_dir(dir) {
        panic!("cannot read {}: {e}", dir.display());
    }
    let mut out = Vec::new();
    json_files(dir, true, &mut out);
    out
}

/// Every document the suite's schemas may reference: remotes and meta-schemas.
pub fn documents() -> Vec<(String, Value)> {
    let mut docs = Vec::new();
    let remotes = suite_dir().join("remotes");
    let mut files = Vec::new();
    json_files(&remotes, true, &mut files);
    for f in files {
        let rel = f
            .strip_prefix(&remotes)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        docs.push((format!("http://localhost:1234/{rel}"), read_json(&f)));
    }
    let mut metas = Vec::new();
    json_files(&metaschema_dir(), true, &mut metas);
    for f in metas {
        let doc = read_json(&f);
        let id = doc
            .get("$id")
            .or_else(|| doc.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(id) = id {
            docs.push((id.trim_end_matches('#').to_string(), doc));
        }
    }
    docs
}

/// One skip-list entry: `file | group | test | reason`.
struct Skip {
    file: String,
    group: String,
    test: String,
}

fn skips() -> Vec<Skip> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("suite/skip.txt");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let parts: Vec<&str> = l.split(" | ").collect();
            assert!(
                parts.len() == 4 && !parts[3].trim().is_empty(),
                "skip.txt line without a reason: {l}"
            );
            Skip {
                file: parts[0].to_string(),
                group: parts[1].to_string(),
                test: parts[2].to_string(),
            }
        })
        .collect()
}

/// How to run one folder of the suite.
pub struct Run {
    /// Folder below `tests/` (e.g. `draft2020-12`, `draft2020-12/optional/format`).
    pub folder: &'static str,
    /// The draft of schemas that declare none.
    pub draft: Draft,
    /// Register remotes and meta-schemas.
    pub with_documents: bool,
    /// Formats assert.
    pub assert_formats: bool,
    /// Include subfolders.
    pub recursive: bool,
}

/// Results per file: (passed, total).
pub struct Report {
    pub per_file: BTreeMap<String, (usize, usize)>,
    pub failures: Vec<String>,
    pub skipped: usize,
}

impl Report {
    pub fn table(&self) -> String {
        let mut out = String::from("| file | passed | total |\n|---|---:|---:|\n");
        let (mut p, mut t) = (0, 0);
        for (file, (passed, total)) in &self.per_file {
            let _ = writeln!(out, "| {file} | {passed} | {total} |");
            p += passed;
            t += total;
        }
        let _ = writeln!(out, "| **all** | {p} | {t} |");
        out
    }

    pub fn totals(&self) -> (usize, usize) {
        self.per_file
            .values()
            .fold((0, 0), |(a, b), (p, t)| (a + p, b + t))
    }
}

/// Runs one folder of the official suite and reports every unexpected result.
pub fn run(cfg: &Run) -> Report {
    let root = suite_dir().join("tests");
    run_in(&root, cfg)
}

/// Runs our own suite-format cases below `suite/` (`cfg.folder`, e.g. `extra`).
pub fn run_extra(cfg: &Run) -> Report {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("suite");
    run_in(&root, cfg)
}

fn run_in(root: &Path, cfg: &Run) -> Report {
    let root = root.to_path_buf();
    let dir = root.join(cfg.folder);
    let mut files = Vec::new();
    json_files(&dir, cfg.recursive, &mut files);
    assert!(!files.is_empty(), "no test files in {}", dir.display());
    let filter = std::env::var("SUITE_FILTER").ok();
    let skips = skips();
    // The optional folders expect formats and content (draft 7's content.json) to assert.
    let mut options = Options::new()
        .default_dialect(cfg.draft)
        .assert_formats(cfg.assert_formats)
        .assert_content(cfg.assert_formats);
    if cfg.with_documents {
        for (uri, doc) in documents() {
            options = options.with_document(&uri, doc);
        }
    }
    let mut report = Report {
        per_file: BTreeMap::new(),
        failures: Vec::new(),
        skipped: 0,
    };
    for file in files {
        let name = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let groups = read_json(&file);
        let (mut passed, mut total) = (0, 0);
        for group in groups.as_array().into_iter().flatten() {
            let gdesc = group["description"].as_str().unwrap_or("");
            let schema = &group["schema"];
            let compiled = options.compile(schema);
            // The reference configuration must accept and refuse the same schemas.
            let reference = options.clone().shortcuts(false).compile(schema);
            let compiled = match (compiled, reference) {
                (Ok(fast), Ok(reference)) => Ok(support::Both { fast, reference }),
                (Err(e), Err(_)) => Err(e),
                (fast, _) => {
                    report.failures.push(format!(
                        "{name} :: {gdesc}: only one configuration compiles the schema \
                         (with shortcuts: {})",
                        fast.is_ok()
                    ));
                    continue;
                }
            };
            for test in group["tests"].as_array().into_iter().flatten() {
                let tdesc = test["description"].as_str().unwrap_or("");
                if skips
                    .iter()
                    .any(|s| s.file == name && s.group == gdesc && s.test == tdesc)
                {
                    report.skipped += 1;
                    continue;
                }
                total += 1;
                let expected = test["valid"].as_bool().unwrap_or(false);
                let data = &test["data"];
                let outcome = match &compiled {
                    Err(e) if !cfg.with_documents => {
                        // Without documents, only schemas that need one may fail, clearly.
                        let clear = matches!(
                            e.kind(),
                            toolschema::SchemaErrorKind::UnresolvedReference
                                | toolschema::SchemaErrorKind::UnknownDialect
                        ) && (e.message().contains("no document")
                            || e.message().contains("unknown dialect"));
                        let compiles_with_docs = {
                            let mut o = Options::new()
                                .default_dialect(cfg.draft)
                                .assert_formats(cfg.assert_formats);
                            for (uri, doc) in documents() {
                                o = o.with_document(&uri, doc);
                            }
                            o.compile(schema).is_ok()
                        };
                        if clear && compiles_with_docs {
                            Ok(())
                        } else {
                            Err(format!(
                                "fails to compile without documents, unclearly or needlessly: {e}"
                            ))
                        }
                    }
                    Err(e) => Err(format!("schema does not compile: {e}")),
                    Ok(both) => match support::disagreement(both, data) {
                        Err(why) => Err(why),
                        Ok(valid) if valid != expected => {
                            Err(format!("every path gave {valid}, expected {expected}"))
                        }
                        Ok(_) => from_text(both, data, expected),
                    },
                };
                match outcome {
                    Ok(()) => passed += 1,
                    Err(why) => report
                        .failures
                        .push(format!("{name} :: {gdesc} :: {tdesc}: {why}")),
                }
            }
        }
        report.per_file.insert(name, (passed, total));
    }
    report
}

/// The bytes paths on the instance's text, in both configurations (`is_valid_json` is one
/// of the verdicts `support` compares): `validate_json` must give the expected verdict and
/// exactly the errors `validate` gives on the `Value`, in the same order, and
/// `evaluate_json` exactly what `evaluate` gives (errors, annotations, and the `basic`
/// and `verbose` outputs built from them). (serde_json writes each object's keys in the
/// `Value`'s order, so the orders must match too.)
fn from_text(both: &support::Both, data: &Value, expected: bool) -> Result<(), String> {
    let text = serde_json::to_vec(data).map_err(|e| e.to_string())?;
    for (name, schema) in [("shortcuts", &both.fast), ("reference", &both.reference)] {
        let from_bytes = match schema.validate_json(&text) {
            Err(toolschema::JsonValidationError::Malformed(e))
                if e.kind == toolschema::JsonErrorKind::TooDeep =>
            {
                continue;
            }
            Err(toolschema::JsonValidationError::Malformed(e)) => {
                return Err(format!("validate_json ({name}) refuses the text: {e}"));
            }
            Err(toolschema::JsonValidationError::Invalid(errors)) => Err(errors),
            Ok(()) => Ok(()),
        };
        if from_bytes.is_ok() != expected {
            return Err(format!(
                "validate_json ({name}) gave {}",
                from_bytes.is_ok()
            ));
        }
        let from_value = schema.validate(data);
        if from_bytes != from_value {
            return Err(format!(
                "validate_json ({name}) reports other errors than validate: {from_bytes:?} \
                 against {from_value:?}"
            ));
        }
        let evaluated = schema
            .evaluate_json(&text)
            .map_err(|e| format!("evaluate_json ({name}) refuses the text: {e}"))?;
        let reference = schema.evaluate(data);
        if evaluated.errors() != reference.errors()
            || evaluated.annotations() != reference.annotations()
            || evaluated.basic() != reference.basic()
            || evaluated.verbose() != reference.verbose()
        {
            return Err(format!(
                "evaluate_json ({name}) differs from evaluate: {} against {}",
                evaluated.basic(),
                reference.basic()
            ));
        }
    }
    Ok(())
}

/// Runs and asserts that nothing unexpected happened, printing the table.
pub fn run_and_assert(cfg: &Run) -> Report {
    let report = run(cfg);
    println!("{}", report.table());
    let (p, t) = report.totals();
    println!(
        "{}: {p} of {t} passed, {} skipped (suite/skip.txt)",
        cfg.folder, report.skipped
    );
    assert!(
        report.failures.is_empty(),
        "{} unexpected results:\n{}",
        report.failures.len(),
        report.failures.join("\n")
    );
    report
}
