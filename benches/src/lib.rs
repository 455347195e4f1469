//! Side-by-side benchmark support for toolschema, jsonschema-rs and boon.
//!
//! Everything the criterion benches (`benches/compare.rs`), the report binary
//! (`bench-report`) and the profiling binary (`profile`) share lives here:
//!
//! - [`load_cases`] reads the benchmark corpus (`schema.json` + `instances.jsonl` per case)
//!   and the MCP tool corpus (one case per source folder, with argument objects made by
//!   [`generate`]) from where they lie; nothing is copied into the repository;
//! - [`Engine`] puts the three validators behind one static interface, each configured
//!   alike: formats are annotations, and each schema runs under the dialect its `$schema`
//!   declares (2020-12 when it declares none);
//! - [`walk`] is the floor: it visits every node of an instance and validates nothing;
//! - [`bytes`] holds the bytes → verdict pipelines and the flat parser's scratch figures;
//! - [`blaze`] runs the Sourcemeta `jsonschema` CLI (Blaze) and reads its timings.
//!
//! This is a bench crate: a broken corpus file panics with a message naming the file.

pub mod blaze;
pub mod bytes;
pub mod engines;
pub mod generate;

/// Generated validators for every schema of the two corpora, by `build/generate.rs`:
/// toolschema's (`toolschema-codegen`), and jsonschema-rs's (`#[jsonschema::validator]`, from
/// the crate `benches/jsonschema-macro`).
#[allow(missing_docs, clippy::all, clippy::pedantic, unused)]
pub mod generated {
    use serde_json::Value;

    /// A generated `is_valid`.
    pub type Check = fn(&Value) -> bool;

    include!(concat!(env!("OUT_DIR"), "/generated.rs"));

    /// toolschema's generated `is_valid` for schema `index` of `case`, and whether no
    /// subschema of it is left to the engine.
    pub fn toolschema(case: &str, index: usize) -> Option<(Check, bool)> {
        TOOLSCHEMA
            .iter()
            .find(|(c, i, _, _)| *c == case && *i == index)
            .map(|&(_, _, f, full)| (f, full))
    }

    /// `#[jsonschema::validator]`'s `is_valid` for schema `index` of `case`.
    pub fn jsonschema(case: &str, index: usize) -> Option<Check> {
        toolschema_bench_jsonschema_macro::is_valid_for(case, index)
    }
}

use serde_json::Value;
use std::path::{Path, PathBuf};

pub use engines::{Boon, Engine, JsonschemaRs, Toolschema};
pub use generate::{Variant, generate, near_miss};

/// Where a case comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A case directory of the benchmark corpus.
    Corpus,
    /// A source folder of the MCP tool corpus, with generated arguments.
    McpTools,
}

/// One instance to validate, with the schema it goes against.
#[derive(Debug, Clone)]
pub struct Instance {
    /// Index into [`Case::schemas`].
    pub schema: usize,
    /// The instance itself.
    pub value: Value,
    /// The instance as JSON text, the input of the bytes → verdict figures (the same
    /// bytes for every engine): the corpus line as read, or the generated value as
    /// `serde_json` writes it.
    pub text: Vec<u8>,
    /// The validity the corpus (or the generator) intends, when known.
    pub expected: Option<bool>,
    /// Where the instance comes from, for reports (`line 12`, `tool/inputSchema full`).
    pub label: String,
}

impl Instance {
    /// A generated instance, its text written by `serde_json`.
    fn generated(schema: usize, value: Value, expected: bool, label: String) -> Instance {
        let text = serde_json::to_vec(&value).expect("a Value always serializes");
        Instance {
            schema,
            value,
            text,
            expected: Some(expected),
            label,
        }
    }
}

/// A benchmark case: one or more schemas and the instances checked against them.
#[derive(Debug, Clone)]
pub struct Case {
    /// The case name: the corpus directory, or `mcp-tools/<source>`.
    pub name: String,
    /// Where the case comes from.
    pub origin: Origin,
    /// A short dialect label for the report (`2020-12`, `draft-07`, `mixed`, ...).
    pub dialect: String,
    /// The schemas compiled by the compile figure; every one of them is compiled.
    pub schemas: Vec<Value>,
    /// Labels of the schemas (`tool/inputSchema`), for reports.
    pub schema_labels: Vec<String>,
    /// The instances validated by the `is_valid` and error-path figures.
    pub instances: Vec<Instance>,
    /// Why the case could not be loaded (it then has no schema and no instance, and the
    /// report lists it with the reason instead of stopping).
    pub skipped: Option<String>,
}

/// The workspace root (the directory holding the root `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The benchmark corpus: `$TOOLSCHEMA_BENCH_CORPUS`, else `../shared/bench/corpus`
/// relative to the workspace root.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("TOOLSCHEMA_BENCH_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("../shared/bench/corpus"),
    }
}

/// The MCP tool corpus: `$TOOLSCHEMA_BENCH_MCP_TOOLS`, else `../shared/corpus/mcp-tools`
/// relative to the workspace root.
pub fn mcp_tools_dir() -> PathBuf {
    match std::env::var_os("TOOLSCHEMA_BENCH_MCP_TOOLS") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("../shared/corpus/mcp-tools"),
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
                .path()
        })
        .collect();
    paths.sort();
    paths
}

/// A short label for a `$schema` URI.
pub fn dialect_label(schema: &Value) -> &'static str {
    let uri = schema.get("$schema").and_then(Value::as_str).unwrap_or("");
    if uri.contains("2020-12") || uri.is_empty() {
        "2020-12"
    } else if uri.contains("2019-09") {
        "2019-09"
    } else if uri.contains("draft-07") {
        "draft-07"
    } else if uri.contains("draft-06") {
        "draft-06"
    } else if uri.contains("draft-04") {
        "draft-04"
    } else {
        "other"
    }
}

/// The per-line verdicts `manifest.json` (beside the case directories) states for a case
/// without `expected.json`: `all valid`, `valid`, or segments such as
/// `line 1 valid, line 2 invalid` and `lines 1-19 valid, lines 20-25 invalid`.
fn manifest_expectation(dir: &Path, case: &str) -> Option<Vec<bool>> {
    let manifest = dir.parent()?.join("manifest.json");
    if !manifest.exists() {
        return None;
    }
    let manifest = read_json(&manifest);
    let entry = manifest
        .get("cases")?
        .as_array()?
        .iter()
        .find(|c| c.get("case").and_then(Value::as_str) == Some(case))?;
    let count = entry.get("instances")?.as_u64()? as usize;
    let text = entry.get("expected")?.as_str()?;
    let text = text.split('(').next().unwrap_or(text).trim();
    if text == "all valid" || text == "valid" {
        return Some(vec![true; count]);
    }
    let mut flags = vec![None; count];
    for segment in text.split(',') {
        let valid = if segment.contains("invalid") {
            false
        } else if segment.contains("valid") {
            true
        } else {
            panic!("manifest.json: cannot read the expectation {text:?} of {case}");
        };
        let numbers: Vec<usize> = segment
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        let (first, last) = match numbers.as_slice() {
            [one] => (*one, *one),
            [a, b] => (*a, *b),
            _ => panic!("manifest.json: cannot read the expectation {text:?} of {case}"),
        };
        for line in first..=last {
            if let Some(slot) = flags.get_mut(line.wrapping_sub(1)) {
                *slot = Some(valid);
            }
        }
    }
    flags.into_iter().collect()
}

/// Loads one case directory of the benchmark corpus.
pub fn load_corpus_case(dir: &Path) -> Case {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let schema = read_json(&dir.join("schema.json"));
    let lines_path = dir.join("instances.jsonl");
    let text = std::fs::read_to_string(&lines_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", lines_path.display()));
    let expected_path = dir.join("expected.json");
    let expected: Option<Vec<bool>> = if expected_path.exists() {
        Some(
            serde_json::from_value(read_json(&expected_path)).unwrap_or_else(|e| {
                panic!("{} is not a list of booleans: {e}", expected_path.display())
            }),
        )
    } else {
        manifest_expectation(dir, &name)
    };
    let instances: Vec<Instance> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(|(i, line)| Instance {
            schema: 0,
            value: serde_json::from_str(line).unwrap_or_else(|e| {
                panic!("{} line {} is not JSON: {e}", lines_path.display(), i + 1)
            }),
            text: line.as_bytes().to_vec(),
            expected: expected.as_ref().and_then(|flags| flags.get(i).copied()),
            label: format!("line {}", i + 1),
        })
        .collect();
    if let Some(flags) = &expected {
        assert_eq!(
            flags.len(),
            instances.len(),
            "{}: expected.json and instances.jsonl differ in length",
            dir.display()
        );
    }
    Case {
        dialect: dialect_label(&schema).to_string(),
        name: name.clone(),
        origin: Origin::Corpus,
        schema_labels: vec![name],
        schemas: vec![schema],
        instances,
        skipped: None,
    }
}

/// Loads one source folder of the MCP tool corpus: every `inputSchema` and `outputSchema`
/// is compiled; each input schema gets a minimal valid, a full valid and a near-miss
/// invalid argument object (see [`generate`]).
pub fn load_mcp_source(dir: &Path) -> Case {
    let source = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut schemas = Vec::new();
    let mut labels = Vec::new();
    let mut instances = Vec::new();
    let mut dialects = std::collections::BTreeSet::new();
    for (tool_index, path) in sorted_entries(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .enumerate()
    {
        let tool = read_json(&path);
        let tool_name = tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        for key in ["inputSchema", "outputSchema"] {
            let Some(schema) = tool.get(key) else {
                continue;
            };
            dialects.insert(dialect_label(schema));
            let index = schemas.len();
            schemas.push(schema.clone());
            labels.push(format!("{tool_name}/{key}"));
            if key == "inputSchema" {
                for (variant, tag) in [(Variant::Minimal, "minimal"), (Variant::Full, "full")] {
                    instances.push(Instance::generated(
                        index,
                        generate(schema, variant),
                        true,
                        format!("{tool_name} args {tag}"),
                    ));
                }
                instances.push(Instance::generated(
                    index,
                    near_miss(schema, tool_index),
                    false,
                    format!("{tool_name} args near-miss"),
                ));
            }
        }
    }
    let dialect = match dialects.len() {
        1 => dialects
            .iter()
            .next()
            .copied()
            .unwrap_or("other")
            .to_string(),
        _ => dialects.into_iter().collect::<Vec<_>>().join("+"),
    };
    Case {
        name: format!("mcp-tools/{source}"),
        origin: Origin::McpTools,
        dialect,
        schemas,
        schema_labels: labels,
        instances,
        skipped: None,
    }
}

/// Every case: the benchmark corpus directories (sorted), then the MCP tool sources
/// (sorted). `filter`, when given, keeps cases whose name contains it.
pub fn load_cases(filter: Option<&str>) -> Vec<Case> {
    let keep = |name: &str| filter.is_none_or(|f| name.contains(f));
    let mut cases = Vec::new();
    let corpus = corpus_dir();
    for dir in sorted_entries(&corpus) {
        if dir.join("schema.json").exists() {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            if let Some(name) = name.filter(|n| keep(n)) {
                cases.push(load_or_skip(name, Origin::Corpus, || {
                    load_corpus_case(&dir)
                }));
            }
        }
    }
    let tools = mcp_tools_dir();
    for dir in sorted_entries(&tools) {
        if dir.is_dir() {
            let name = dir
                .file_name()
                .map(|n| format!("mcp-tools/{}", n.to_string_lossy()));
            if let Some(name) = name.filter(|n| keep(n)) {
                cases.push(load_or_skip(name, Origin::McpTools, || {
                    load_mcp_source(&dir)
                }));
            }
        }
    }
    cases
}

/// Loads a case with `load`; a case that cannot be loaded (a file missing or not JSON, an
/// expectation of the wrong length) is kept empty, with the reason, so that one bad case
/// does not stop a report on a corpus of many. (The loaders stop on the first problem
/// they meet with a message naming the file; that message is the reason.)
fn load_or_skip(
    name: String,
    origin: Origin,
    load: impl FnOnce() -> Case + std::panic::UnwindSafe,
) -> Case {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let loaded = std::panic::catch_unwind(load);
    std::panic::set_hook(hook);
    loaded.unwrap_or_else(|payload| {
        let why = match (
            payload.downcast_ref::<String>(),
            payload.downcast_ref::<&str>(),
        ) {
            (Some(s), _) => s.clone(),
            (None, Some(s)) => s.to_string(),
            (None, None) => "the case cannot be loaded".to_string(),
        };
        eprintln!("skipped {name}: {why}");
        Case {
            name,
            origin,
            dialect: "—".to_string(),
            schemas: Vec::new(),
            schema_labels: Vec::new(),
            instances: Vec::new(),
            skipped: Some(why),
        }
    })
}

/// The floor: visits every node of `value` (object keys included) without validating.
/// Scalars inside arrays and objects are read in the loop, without a call per node.
/// Returns a checksum so that the walk cannot be optimized away.
pub fn walk(value: &Value) -> usize {
    #[inline(always)]
    fn visit(value: &Value) -> usize {
        match value {
            Value::Array(_) | Value::Object(_) => walk(value),
            Value::String(s) => 1 + (s.len() & 1),
            _ => 1,
        }
    }
    match value {
        Value::Array(items) => items.iter().fold(1, |acc, item| acc + visit(item)),
        Value::Object(map) => map
            .iter()
            .fold(1, |acc, (key, item)| acc + (key.len() & 1) + visit(item)),
        other => visit(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case whose files cannot be read is kept, empty, with the loader's reason; a good
    /// one beside it loads. (`cargo test -p toolschema-bench`.)
    #[test]
    fn a_case_that_cannot_be_loaded_is_skipped_with_its_reason() {
        let root = std::env::temp_dir().join(format!("toolschema-bench-{}", std::process::id()));
        let (bad, good) = (root.join("bad"), root.join("good"));
        for dir in [&bad, &good] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("schema.json"), r#"{"type": "string"}"#).unwrap();
        }
        std::fs::write(bad.join("instances.jsonl"), "\"a\"\n{bad\n").unwrap();
        std::fs::write(good.join("instances.jsonl"), "\"a\"\n1\n").unwrap();
        let skipped = load_or_skip("bad".into(), Origin::Corpus, || load_corpus_case(&bad));
        let loaded = load_or_skip("good".into(), Origin::Corpus, || load_corpus_case(&good));
        std::fs::remove_dir_all(&root).unwrap();
        let why = skipped.skipped.unwrap_or_default();
        assert!(why.contains("line 2 is not JSON"), "{why}");
        assert!(skipped.schemas.is_empty() && skipped.instances.is_empty());
        assert_eq!(loaded.skipped, None);
        assert_eq!((loaded.schemas.len(), loaded.instances.len()), (1, 2));
    }
}
