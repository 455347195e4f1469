//! Every schema of the official JSON-Schema-Test-Suite (every dialect, required and
//! optional folders), and of this crate's own cases of the generated paths (`tests/cases`:
//! patterns, the walk's counted `required`, discriminated branches, a match that runs out
//! of its budget), generated into code by the build script, run on every case of its
//! group: the generated verdict must be the suite's and the reference configuration's
//! (`Options::shortcuts(false)`), the generated `validate` must agree with it both ways,
//! and the generated `is_valid` must allocate nothing. A seeded run of instances nobody
//! wrote (the cases mutated, values sampled from the schema: `tests/support/mutations.rs`,
//! shared with the fuzz target `generated`) checks the generated verdict against the
//! reference and the default configuration beyond the suite's cases. Prints how many schemas are fully
//! generated, partly delegated to the engine, or not generated (they need remote
//! documents).

#[path = "../../tests/support/alloc.rs"]
#[allow(dead_code)]
mod alloc;
#[allow(dead_code)]
mod support {
    pub mod mutations;
}

use support::mutations;

use serde_json::Value;
use std::path::{Path, PathBuf};

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

/// What the generator made of a schema (`toolschema_codegen::Coverage`, as the build
/// script wrote it).
#[allow(dead_code)]
struct Cov {
    nodes: usize,
    generated: usize,
    shared: usize,
    delegated_keywords: usize,
    delegated_nodes: usize,
    delegated_schema: bool,
}

impl Cov {
    fn fully_generated(&self) -> bool {
        self.delegated_keywords == 0 && self.delegated_nodes == 0 && !self.delegated_schema
    }
}

type IsValid = fn(&Value) -> bool;

struct Group {
    file: &'static str,
    group: usize,
    draft: u16,
    asserts: bool,
    validator: Option<(IsValid, Cov)>,
}

#[allow(clippy::all, unused)]
mod generated {
    use super::{Cov, Group};
    include!(concat!(env!("OUT_DIR"), "/suite.rs"));
}

fn suite_dir() -> PathBuf {
    match std::env::var("JSON_SCHEMA_TEST_SUITE") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/JSON-Schema-Test-Suite"),
    }
}

/// A group's file: a suite file, or `local/...`, this crate's own cases (`tests/cases`).
fn group_file(tests: &Path, file: &str) -> PathBuf {
    match file.strip_prefix("local/") {
        Some(local) => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/cases")
            .join(local),
        None => tests.join(file),
    }
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if p.is_dir() {
            files_below(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

/// The remotes and meta-schemas, for the engine (the schemas the generator cannot take).
fn documents() -> Vec<(String, Value)> {
    let mut docs = Vec::new();
    let remotes = suite_dir().join("remotes");
    let mut files = Vec::new();
    files_below(&remotes, &mut files);
    for f in files {
        let rel = f
            .strip_prefix(&remotes)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        docs.push((format!("http://localhost:1234/{rel}"), read(&f)));
    }
    let metas = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/metaschemas");
    let mut files = Vec::new();
    files_below(&metas, &mut files);
    for f in files {
        let doc = read(&f);
        if let Some(id) = doc
            .get("$id")
            .or_else(|| doc.get("id"))
            .and_then(Value::as_str)
        {
            docs.push((id.trim_end_matches('#').to_string(), doc.clone()));
        }
    }
    docs
}

/// The group file `name` (see [`group_file`]), read once while the groups of one file
/// follow each other.
fn cached<'c>(
    cache: &'c mut Option<(&'static str, Value)>,
    tests: &Path,
    name: &'static str,
) -> &'c Value {
    if cache.as_ref().is_none_or(|(f, _)| *f != name) {
        *cache = Some((name, read(&group_file(tests, name))));
    }
    &cache.as_ref().expect("read above").1
}

fn config(g: &Group) -> toolschema_codegen::Config {
    toolschema_codegen::Config {
        assert_formats: g.asserts,
        assert_content: g.asserts,
        draft: g.draft,
    }
}

#[test]
fn generated_validators_agree_with_the_suite_and_the_reference_configuration() {
    let groups = generated::GROUPS;
    assert!(
        groups.len() >= 1700,
        "the build script generated {} groups: is the suite at {}?",
        groups.len(),
        suite_dir().display()
    );
    let docs = documents();
    let tests = suite_dir().join("tests");
    let (mut cases, mut failures) = (0usize, Vec::new());
    let (mut full, mut partly, mut remote) = (0usize, 0usize, 0usize);
    let (mut full_cases, mut partly_cases) = (0usize, 0usize);
    let mut file_cache: Option<(&'static str, Value)> = None;
    for g in groups {
        let group = &cached(&mut file_cache, &tests, g.file)[g.group];
        let schema = &group["schema"];
        let Some((is_valid, cov)) = &g.validator else {
            // Not generated: only a schema that needs another document may be refused.
            let alone = config(g).reference().compile(schema);
            let mut with_docs = config(g).reference();
            for (uri, doc) in &docs {
                with_docs = with_docs.with_document(uri, doc.clone());
            }
            if alone.is_ok() || with_docs.compile(schema).is_err() {
                failures.push(format!(
                    "{} #{}: not generated, yet it {}",
                    g.file,
                    g.group,
                    if alone.is_ok() {
                        "compiles alone"
                    } else {
                        "does not compile with the documents either"
                    }
                ));
            }
            remote += 1;
            continue;
        };
        let reference = match config(g).reference().compile(schema) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!(
                    "{} #{}: generated, but the engine refuses it: {e}",
                    g.file, g.group
                ));
                continue;
            }
        };
        if cov.fully_generated() {
            full += 1;
        } else {
            partly += 1;
        }
        for test in group["tests"].as_array().into_iter().flatten() {
            let data = &test["data"];
            let expected = test["valid"].as_bool().unwrap_or(false);
            let generated = is_valid(data);
            let engine = reference.is_valid(data);
            let errors = reference.errors_unchecked(data);
            cases += 1;
            if cov.fully_generated() {
                full_cases += 1;
            } else {
                partly_cases += 1;
            }
            if generated != expected || engine != expected || errors.is_empty() != generated {
                failures.push(format!(
                    "{} :: {} :: {}: generated {generated}, reference {engine}, reference errors {}, expected {expected}",
                    g.file,
                    group["description"].as_str().unwrap_or(""),
                    test["description"].as_str().unwrap_or(""),
                    errors.len()
                ));
            }
        }
    }
    println!(
        "schemas: {full} fully generated ({full_cases} cases), {partly} partly delegated to the \
         engine ({partly_cases} cases), {remote} not generated (they need remote documents); \
         {cases} cases checked"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(cases >= 7000, "only {cases} cases ran");
}

#[test]
fn generated_is_valid_allocates_nothing() {
    let tests = suite_dir().join("tests");
    let (mut checked, mut offenders) = (0usize, Vec::new());
    let mut file_cache: Option<(&'static str, Value)> = None;
    for g in generated::GROUPS {
        // (The required folders, as the engine's own test: the optional format checks
        // build what they check, a regular expression or a decoded string; this crate's
        // optional cases end in the engine, whose backtracking matches allocate.)
        let Some((is_valid, _)) = &g.validator else {
            continue;
        };
        if g.file.contains("/optional/") {
            continue;
        }
        let group = &cached(&mut file_cache, &tests, g.file)[g.group];
        for test in group["tests"].as_array().into_iter().flatten() {
            let data = &test["data"];
            // (After a warm-up call: the first one compiles what the engine keeps.)
            let (_, _, n) = alloc::warm_then_count(|| is_valid(data));
            checked += 1;
            if n > 0 {
                offenders.push(format!(
                    "{} :: {}: {n} allocations",
                    g.file,
                    test["description"].as_str().unwrap_or("")
                ));
            }
        }
    }
    println!(
        "generated is_valid: {} of {checked} calls allocated",
        offenders.len()
    );
    assert!(checked >= 4700, "only {checked} calls checked");
    assert!(offenders.is_empty(), "allocated:\n{}", offenders.join("\n"));
}

/// Instances made per generated schema by the seeded mutation run.
const MUTATIONS_PER_SCHEMA: usize = 100;

#[test]
fn generated_validators_agree_with_the_engine_on_mutated_instances() {
    // Instances nobody wrote: the group's cases mutated (a value changed, a property added
    // or removed, an item added, dropped or repeated, a number moved past a bound...), the
    // values the schema names, values sampled from the schema. The same seeded choices as
    // the fuzz target `generated` (`fuzz/`), on stable, for a bounded number of instances.
    let tests = suite_dir().join("tests");
    let (mut schemas, mut checked, mut failures) = (0usize, 0usize, Vec::new());
    let (mut rejected, mut accepted) = (0usize, 0usize);
    let mut file: Option<(&str, Value)> = None;
    for (n, g) in generated::GROUPS.iter().enumerate() {
        let Some((is_valid, _)) = &g.validator else {
            continue;
        };
        let group = &cached(&mut file, &tests, g.file)[g.group];
        let schema = &group["schema"];
        let (Ok(reference), Ok(default)) = (
            config(g).reference().compile(schema),
            config(g).options().compile(schema),
        ) else {
            failures.push(format!(
                "{} #{}: generated, yet the engine refuses it",
                g.file, g.group
            ));
            continue;
        };
        let known: Vec<Value> = group["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| t["data"].clone())
            .collect();
        let material = mutations::Material::of(schema);
        let mut rng = mutations::Rng(n as u64);
        schemas += 1;
        for _ in 0..MUTATIONS_PER_SCHEMA {
            let instance = mutations::instance(&mut rng, schema, &material, &known);
            let generated = is_valid(&instance);
            checked += 1;
            if generated {
                accepted += 1;
            } else {
                rejected += 1;
            }
            if let Some(why) =
                mutations::disagreement(generated, None, &reference, &default, &instance)
            {
                failures.push(format!(
                    "{} #{} (draft {}, formats asserted {}): {why}\n  schema:   {schema}\n  instance: {instance}",
                    g.file, g.group, g.draft, g.asserts
                ));
            }
        }
    }
    println!(
        "mutation run: {checked} instances over {schemas} generated schemas \
         ({accepted} valid, {rejected} invalid)"
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(schemas >= 1500, "only {schemas} generated schemas");
    // Both verdicts occur often: the run is not all one answer.
    assert!(
        accepted >= checked / 10 && rejected >= checked / 10,
        "{accepted} valid, {rejected} invalid"
    );
}
