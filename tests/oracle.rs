//! The oracle (issue #52): the compiler's shortcuts against the reference configuration
//! (`Options::shortcuts(false)`, the general keyword loop alone) on keyword
//! *combinations*, where the older fuzzing only reached keywords one at a time.
//!
//! - `generated_combinations_agree`: schemas from `support/combos.rs` (every keyword's
//!   subschema wrapped in `$ref`, a `$ref` chain, `allOf`, `anyOf`, `oneOf`, `not`,
//!   `not`/`not`, `if`/`then`, `if`/`else`, `$dynamicRef`, a `$ref` beside keywords; five
//!   dialects; formats asserted in a third of the cases), their examples and mutations.
//! - `replayed_schemas_agree`: every schema of `../shared/bench/corpus`,
//!   `../shared/corpus/mcp-tools` and the official suite (every dialect folder, optional
//!   ones with formats asserted), on mutations of their instances (an example built from
//!   the schema for the MCP tools, which come without instances).
//!
//! Each instance must get one verdict from every path of both configurations
//! (`support::disagreement`: `is_valid`, `is_valid_json`, the reporting path in full,
//! `validate`, `iter_errors`, `evaluate`), and both configurations must compile or refuse
//! a schema alike. A disagreement is shrunk (members and items removed while it persists)
//! and printed with its dialect and the answer of each path; the test fails after
//! printing them all.
//!
//! Bounded by case counts (deterministic seeds, so CI is reproducible), scaled for long
//! local runs:
//!
//! ```sh
//! TOOLSCHEMA_ORACLE_CASES=200000 TOOLSCHEMA_ORACLE_SEED=7 TOOLSCHEMA_ORACLE_MUTATIONS=20 \
//!     cargo test --release --test oracle -- --nocapture
//! ```
//!
//! The keyword-pair coverage table is written to `target/oracle-coverage.md`.

#[path = "../suite/runner.rs"]
mod runner;

#[path = "support/combos.rs"]
mod combos;

use combos::{KEYWORDS, Rng, WRAPPERS};
use runner::support;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use toolschema::{Draft, Options};

/// Generated cases in CI: with the replay, about 40 s of CPU in release on the 2-core
/// development machine (41 s measured for the whole file, shrinking included).
const CASES: usize = 100_000;
/// Mutated instances per generated case, beside its examples.
const CASE_MUTATIONS: usize = 6;
/// Replay: mutations per real or suite instance.
const REPLAY_MUTATIONS: usize = 5;
/// Replay: instances taken from each bench-corpus case (spread over its file).
const CORPUS_INSTANCES: usize = 40;
/// Findings shrunk and printed in full (`TOOLSCHEMA_ORACLE_SHOWN`); more are counted.
const SHOWN: usize = 12;

fn env_number(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, not {v:?}")),
        Err(_) => default,
    }
}

fn seed() -> u64 {
    env_number("TOOLSCHEMA_ORACLE_SEED", 52) as u64
}

fn draft_name(draft: Draft) -> &'static str {
    match draft {
        Draft::Draft4 => "draft-04",
        Draft::Draft6 => "draft-06",
        Draft::Draft7 => "draft-07",
        Draft::Draft201909 => "2019-09",
        _ => "2020-12",
    }
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

/// Both configurations compiled, or why not (`Ok(None)`: both refuse alike).
fn compile(options: &Options, schema: &Value) -> Result<Option<support::Both>, String> {
    let run = || {
        let fast = options.compile(schema);
        let reference = options.clone().shortcuts(false).compile(schema);
        (fast, reference)
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok((Ok(fast), Ok(reference))) => Ok(Some(support::Both { fast, reference })),
        Ok((Err(_), Err(_))) => Ok(None),
        Ok((Ok(_), Err(e))) => Err(format!("only the reference configuration refuses it: {e}")),
        Ok((Err(e), Ok(_))) => Err(format!("only the default configuration refuses it: {e}")),
        Err(p) => Err(format!("compiling panics: {}", panic_text(p))),
    }
}

/// The one verdict of every path of both configurations, or the disagreement.
fn judge(both: &support::Both, instance: &Value) -> Result<bool, String> {
    match catch_unwind(AssertUnwindSafe(|| support::disagreement(both, instance))) {
        Ok(r) => r,
        Err(p) => Err(format!("validating panics: {}", panic_text(p))),
    }
}

/// Whether `schema` and `instance` still show a disagreement (for shrinking).
fn fails(options: &Options, schema: &Value, instance: &Value) -> bool {
    match compile(options, schema) {
        Err(_) => true,
        Ok(None) => false,
        Ok(Some(both)) => judge(&both, instance).is_err(),
    }
}

struct Finding {
    origin: String,
    options: Options,
    label: String,
    schema: Value,
    instance: Value,
    why: String,
}

#[derive(Default)]
struct Findings {
    shown: Vec<String>,
    seen: BTreeSet<String>,
    /// Findings shrunk so far (distinct or not): shrinking stops after 3 times as many as
    /// are shown.
    shrunk: usize,
    /// Findings shrunk into one already shown.
    repeated: usize,
    /// Findings not shrunk.
    more: usize,
}

impl Findings {
    /// Shrinks and records a finding (the first `SHOWN` distinct ones in full).
    fn add(&mut self, f: Finding, budget: usize) {
        let shown = env_number("TOOLSCHEMA_ORACLE_SHOWN", SHOWN);
        if self.shown.len() >= shown || self.shrunk >= 3 * shown {
            self.more += 1;
            return;
        }
        self.shrunk += 1;
        let mut tries = budget;
        let options = &f.options;
        let instance = f.instance.clone();
        let schema = combos::shrink(f.schema.clone(), &mut tries, &mut |s| {
            fails(options, s, &instance)
        });
        let mut tries = budget;
        let instance = combos::shrink(f.instance.clone(), &mut tries, &mut |i| {
            fails(options, &schema, i)
        });
        let why = match compile(options, &schema) {
            Err(e) => e,
            Ok(Some(both)) => judge(&both, &instance).err().unwrap_or(f.why.clone()),
            Ok(None) => f.why.clone(),
        };
        // One entry per class: the shrunk schema's keywords (names under `properties`
        // and `$defs` and every value left out) and which paths answered what.
        let answers = why
            .split_once(": shortcuts:")
            .map_or(why.as_str(), |(_, a)| a);
        let key = format!("{}|{answers}", skeleton(&schema));
        if !self.seen.insert(key) {
            self.repeated += 1;
            return;
        }
        self.shown.push(format!(
            "{} ({})\n  schema:   {schema}\n  instance: {instance}\n  {why}\n  (unshrunk: {} on {})",
            f.origin, f.label, f.schema, f.instance
        ));
    }

    fn total(&self) -> usize {
        self.shown.len() + self.repeated + self.more
    }

    fn assert_none(&self, what: &str) {
        if self.total() == 0 {
            return;
        }
        let mut text = format!(
            "{what}: {} disagreement(s) between the default configuration and the reference \
             one (shortcuts(false)); the first, shrunk:\n\n",
            self.total()
        );
        text.push_str(&self.shown.join("\n\n"));
        let _ = write!(
            text,
            "\n\n({} more shrank into one of these; {} more not shrunk)",
            self.repeated, self.more
        );
        panic!("{text}");
    }
}

/// A schema's shape: its keywords, nested, without values or the names of properties and
/// definitions (two findings of one shape are one bug, most likely).
fn skeleton(schema: &Value) -> String {
    match schema {
        Value::Object(map) => {
            let mut parts: Vec<String> =
                map.iter()
                    .map(|(k, v)| match k.as_str() {
                        "properties" | "patternProperties" | "$defs" | "definitions"
                        | "dependentSchemas" | "dependencies" => {
                            let mut inner: Vec<String> = v
                                .as_object()
                                .into_iter()
                                .flatten()
                                .map(|(_, s)| skeleton(s))
                                .collect();
                            inner.sort();
                            format!("{k}:[{}]", inner.join(","))
                        }
                        "enum" | "const" | "required" | "type" | "$ref" | "$dynamicRef"
                        | "$schema" => k.clone(),
                        _ => format!("{k}:{}", skeleton(v)),
                    })
                    .collect();
            parts.sort();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(skeleton).collect();
            format!("[{}]", inner.join(","))
        }
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

fn target_dir() -> PathBuf {
    std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

#[test]
fn generated_combinations_agree() {
    let cases = env_number("TOOLSCHEMA_ORACLE_CASES", CASES);
    let mutations = env_number("TOOLSCHEMA_ORACLE_MUTATIONS", CASE_MUTATIONS);
    let base = seed();
    let mut findings = Findings::default();
    let (mut instances, mut refused, mut valid, mut invalid) = (0usize, 0usize, 0usize, 0usize);
    let mut with_valid = BTreeSet::new();
    let mut with_invalid = BTreeSet::new();
    // The same per dialect: (dialect, wrapper, keyword).
    let mut dialect_valid = BTreeSet::new();
    let mut dialect_invalid = BTreeSet::new();
    let mut per_draft = std::collections::BTreeMap::<&str, usize>::new();
    for i in 0..cases {
        let case_seed = base.wrapping_mul(0x1000_0000_01B3).wrapping_add(i as u64);
        let case = combos::generate(case_seed, mutations);
        *per_draft.entry(draft_name(case.draft)).or_default() += 1;
        let options = Options::new()
            .default_dialect(case.draft)
            .assert_formats(case.assert_formats);
        let label = format!(
            "{}, formats {}",
            draft_name(case.draft),
            if case.assert_formats {
                "asserted"
            } else {
                "annotations"
            }
        );
        let origin = format!("generated case {i} (TOOLSCHEMA_ORACLE_SEED={base})");
        let both = match compile(&options, &case.schema) {
            Ok(Some(both)) => both,
            Ok(None) => {
                refused += 1;
                continue;
            }
            Err(why) => {
                findings.add(
                    Finding {
                        origin,
                        options,
                        label,
                        schema: case.schema.clone(),
                        instance: Value::Null,
                        why,
                    },
                    2_000,
                );
                continue;
            }
        };
        let (mut any_valid, mut any_invalid) = (false, false);
        for instance in &case.instances {
            instances += 1;
            match judge(&both, instance) {
                Ok(true) => {
                    valid += 1;
                    any_valid = true;
                }
                Ok(false) => {
                    invalid += 1;
                    any_invalid = true;
                }
                Err(why) => {
                    findings.add(
                        Finding {
                            origin: origin.clone(),
                            options: options.clone(),
                            label: label.clone(),
                            schema: case.schema.clone(),
                            instance: instance.clone(),
                            why,
                        },
                        2_000,
                    );
                }
            }
        }
        let d = combos::DRAFTS
            .iter()
            .position(|&d| d == case.draft)
            .unwrap_or(0);
        if any_valid {
            with_valid.extend(case.pairs.iter().copied());
            dialect_valid.extend(case.pairs.iter().map(|&(w, k)| (d, w, k)));
        }
        if any_invalid {
            with_invalid.extend(case.pairs.iter().copied());
            dialect_invalid.extend(case.pairs.iter().map(|&(w, k)| (d, w, k)));
        }
    }
    let possible = WRAPPERS.len() * KEYWORDS.len();
    let both: BTreeSet<_> = with_valid.intersection(&with_invalid).copied().collect();
    let mut per_dialect = Vec::new();
    for (d, &draft) in combos::DRAFTS.iter().enumerate() {
        let mut can = 0;
        let mut covered = 0;
        for w in 0..WRAPPERS.len() {
            for k in 0..KEYWORDS.len() {
                if combos::wrapper_exists(draft, w) && combos::keyword_exists(draft, k) {
                    can += 1;
                    if dialect_valid.contains(&(d, w, k)) && dialect_invalid.contains(&(d, w, k)) {
                        covered += 1;
                    }
                }
            }
        }
        per_dialect.push(format!("{} {covered}/{can}", draft_name(draft)));
    }
    let mut table = String::from(
        "# Oracle keyword-pair coverage\n\n\
         A pair (wrapper, keyword): the keyword inside the wrapped subschema or beside it in \
         the node that holds it. `x`: seen with a valid and with an invalid instance; \
         `v`/`i`: valid or invalid only; `.`: not reached.\n\n| keyword |",
    );
    for w in WRAPPERS {
        let _ = write!(table, " {w} |");
    }
    table.push_str("\n|---|");
    table.push_str(&"---|".repeat(WRAPPERS.len()));
    table.push('\n');
    for (k, name) in KEYWORDS.iter().enumerate() {
        let _ = write!(table, "| `{name}` |");
        for w in 0..WRAPPERS.len() {
            let cell = match (with_valid.contains(&(w, k)), with_invalid.contains(&(w, k))) {
                (true, true) => "x",
                (true, false) => "v",
                (false, true) => "i",
                (false, false) => ".",
            };
            let _ = write!(table, " {cell} |");
        }
        table.push('\n');
    }
    let summary = format!(
        "oracle: {cases} generated cases (seed {base}; {per_draft:?}), {refused} schemas refused \
         by both configurations, {instances} instances ({valid} valid, {invalid} invalid); \
         keyword pairs covered with a valid and an invalid instance: {} of {possible} \
         ({} reached at all); per dialect: {}; {} disagreement(s)",
        both.len(),
        with_valid.union(&with_invalid).count(),
        per_dialect.join(", "),
        findings.total()
    );
    let _ = writeln!(table, "\n{summary}");
    let path = target_dir().join("oracle-coverage.md");
    let _ = std::fs::create_dir_all(target_dir());
    if std::fs::write(&path, &table).is_ok() {
        println!("coverage table: {}", path.display());
    }
    println!("{summary}");
    findings.assert_none("generated combinations");
}

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

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// A stable seed for a name (FNV-1a), so every source replays the same mutations.
fn name_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Replay counters.
#[derive(Default)]
struct Replay {
    schemas: usize,
    refused: usize,
    instances: usize,
    findings: Findings,
}

impl Replay {
    /// Checks `instances` and `mutations` mutations of each against `schema`.
    fn run(
        &mut self,
        origin: &str,
        options: &Options,
        schema: &Value,
        instances: &[Value],
        mutations: usize,
    ) {
        self.schemas += 1;
        let label = "replay".to_string();
        let both = match compile(options, schema) {
            Ok(Some(both)) => both,
            Ok(None) => {
                self.refused += 1;
                return;
            }
            Err(why) => {
                self.findings.add(
                    Finding {
                        origin: origin.into(),
                        options: options.clone(),
                        label,
                        schema: schema.clone(),
                        instance: Value::Null,
                        why,
                    },
                    300,
                );
                return;
            }
        };
        let mut rng = Rng::new(name_seed(origin) ^ seed());
        for instance in instances {
            let mut all = vec![instance.clone()];
            for _ in 0..mutations {
                let mut m = combos::mutate(&mut rng, instance.clone());
                if rng.chance(1, 3) {
                    m = combos::mutate(&mut rng, m);
                }
                all.push(combos::as_read(m));
            }
            for i in &all {
                self.instances += 1;
                if let Err(why) = judge(&both, i) {
                    self.findings.add(
                        Finding {
                            origin: origin.into(),
                            options: options.clone(),
                            label: label.clone(),
                            schema: schema.clone(),
                            instance: i.clone(),
                            why,
                        },
                        300,
                    );
                }
            }
        }
    }
}

#[test]
fn replayed_schemas_agree() {
    let mutations = env_number("TOOLSCHEMA_ORACLE_MUTATIONS", REPLAY_MUTATIONS);
    let per_case = env_number("TOOLSCHEMA_ORACLE_CORPUS_INSTANCES", CORPUS_INSTANCES);
    let mut replay = Replay::default();

    // The bench corpus: real schemas and instances (trusted: no caps, as in corpus.rs).
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(shared("bench/corpus"))
        .expect("bench corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("schema.json").exists())
        .collect();
    dirs.sort();
    let corpus = Options::new()
        .limits(toolschema::Limits::none())
        .assert_formats(false);
    for dir in &dirs {
        let schema = read_json(&dir.join("schema.json"));
        let text = std::fs::read_to_string(dir.join("instances.jsonl")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let step = lines.len().div_ceil(per_case.max(1)).max(1);
        let instances: Vec<Value> = lines
            .iter()
            .step_by(step)
            .map(|l| serde_json::from_str(l).expect("instance json"))
            .collect();
        let name = format!("bench corpus {}", dir.display());
        replay.run(&name, &corpus, &schema, &instances, mutations);
    }
    let corpus_schemas = replay.schemas;

    // The MCP tools: input and output schemas, on examples built from them.
    let mut files = Vec::new();
    for server in std::fs::read_dir(shared("corpus/mcp-tools"))
        .expect("mcp tools")
        .filter_map(|e| e.ok())
    {
        if server.path().is_dir() {
            for f in std::fs::read_dir(server.path())
                .expect("server")
                .filter_map(|e| e.ok())
            {
                if f.path().extension().is_some_and(|e| e == "json") {
                    files.push(f.path());
                }
            }
        }
    }
    files.sort();
    for f in &files {
        let tool = read_json(f);
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(key) {
                let example = combos::example_of(schema, schema, 0);
                let name = format!("mcp tool {} {key}", f.display());
                replay.run(&name, &Options::new(), schema, &[example], mutations * 3);
            }
        }
    }
    let tool_schemas = replay.schemas - corpus_schemas;

    // The official suite, every dialect; the optional folders with formats asserted.
    let documents = runner::documents();
    let tests = runner::suite_dir().join("tests");
    for (folder, draft) in [
        ("draft4", Draft::Draft4),
        ("draft6", Draft::Draft6),
        ("draft7", Draft::Draft7),
        ("draft2019-09", Draft::Draft201909),
        ("draft2020-12", Draft::Draft202012),
    ] {
        for optional in [false, true] {
            let mut options = Options::new()
                .default_dialect(draft)
                .assert_formats(optional)
                .assert_content(optional);
            for (uri, doc) in &documents {
                options = options.with_document(uri, doc.clone());
            }
            let dir = if optional {
                tests.join(folder).join("optional")
            } else {
                tests.join(folder)
            };
            let mut files = Vec::new();
            collect_json(&dir, optional, &mut files);
            for file in files {
                for (g, group) in read_json(&file)
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    let data: Vec<Value> = group["tests"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|t| t["data"].clone())
                        .collect();
                    let name = format!("suite {} group {g}", file.display());
                    replay.run(&name, &options, &group["schema"], &data, mutations);
                }
            }
        }
    }
    println!(
        "oracle replay: {} schemas ({corpus_schemas} bench corpus, {tool_schemas} MCP tool \
         schemas, {} suite groups), {} refused by both configurations, {} instances \
         (originals and {mutations} mutations each); {} disagreement(s)",
        replay.schemas,
        replay.schemas - corpus_schemas - tool_schemas,
        replay.refused,
        replay.instances,
        replay.findings.total()
    );
    replay.findings.assert_none("replayed schemas");
}

fn collect_json(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if recursive {
                collect_json(&p, true, out);
            }
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}
