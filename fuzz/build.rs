//! Generates validators (`toolschema-codegen`) for the `generated` target into
//! `$OUT_DIR/generated.rs`, from schemas read in place, never copied into the repository:
//!
//! - the bench corpus (`../../shared/bench/corpus/<case>/schema.json`, with the first lines
//!   of its `instances.jsonl` as known instances);
//! - the MCP tool corpus's input schemas (`../../shared/corpus/mcp-tools/<server>/<tool>.json`);
//! - every schema of the official suite's draft 2020-12 keyword files (its cases as known
//!   instances), and of its optional format files;
//!
//! formats as annotations, and a second validator with formats (and content) asserted for
//! every corpus schema that names a `format` and for the suite's format files. Schemas the
//! generator refuses (remote references) are skipped; the counts are printed as a build
//! warning. With no `shared` folder the table is empty: the target checks nothing, and
//! the crate's test (`cargo test --lib`) fails saying so.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// (For its sorted directory listing.)
#[allow(dead_code)]
#[path = "../benches/build/corpus_schemas.rs"]
mod corpus_schemas;

use corpus_schemas::sorted;

type Raw = Box<serde_json::value::RawValue>;

/// Known instances kept per corpus schema, and the longest one kept (bytes).
const CORPUS_INSTANCES: usize = 24;
const CORPUS_INSTANCE_BYTES: usize = 32 * 1024;

struct Source {
    name: String,
    text: String,
    instances: Vec<String>,
    /// `Config::draft` (0: the schema's own `$schema`, 2020-12 when none).
    draft: u16,
    /// Formats asserted only (the suite's format files).
    asserted_only: bool,
}

fn is_json(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "json")
}

fn corpus(shared: &Path, out: &mut Vec<Source>) {
    for dir in sorted(&shared.join("bench/corpus")) {
        let Ok(text) = std::fs::read_to_string(dir.join("schema.json")) else {
            continue;
        };
        let instances = std::fs::read_to_string(dir.join("instances.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty() && l.len() <= CORPUS_INSTANCE_BYTES)
            .take(CORPUS_INSTANCES)
            .map(str::to_string)
            .collect();
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        out.push(Source {
            name: format!("bench/corpus/{name}"),
            text,
            instances,
            draft: 0,
            asserted_only: false,
        });
    }
}

fn mcp_tools(shared: &Path, out: &mut Vec<Source>) {
    for dir in sorted(&shared.join("corpus/mcp-tools")) {
        for path in sorted(&dir).into_iter().filter(|p| is_json(p)) {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(tool) = serde_json::from_str::<std::collections::BTreeMap<String, Raw>>(&text)
            else {
                continue;
            };
            if let Some(schema) = tool.get("inputSchema") {
                let rel = path.strip_prefix(shared).unwrap_or(&path);
                out.push(Source {
                    name: format!("{}#inputSchema", rel.display()),
                    text: schema.get().to_string(),
                    instances: Vec::new(),
                    draft: 0,
                    asserted_only: false,
                });
            }
        }
    }
}

fn suite_file(shared: &Path, path: &Path, asserted_only: bool, out: &mut Vec<Source>) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let Ok(groups) = serde_json::from_str::<Vec<std::collections::BTreeMap<String, Raw>>>(&text)
    else {
        return;
    };
    let rel = path
        .strip_prefix(shared)
        .unwrap_or(path)
        .display()
        .to_string();
    for (g, group) in groups.iter().enumerate() {
        let Some(schema) = group.get("schema") else {
            continue;
        };
        let tests: Vec<std::collections::BTreeMap<String, Raw>> = group
            .get("tests")
            .and_then(|t| serde_json::from_str(t.get()).ok())
            .unwrap_or_default();
        out.push(Source {
            name: format!("{rel} #{g}"),
            text: schema.get().to_string(),
            instances: tests
                .iter()
                .filter_map(|t| t.get("data").map(|d| d.get().to_string()))
                .collect(),
            draft: 2020,
            asserted_only,
        });
    }
}

fn suite(shared: &Path, out: &mut Vec<Source>) {
    let dir = shared.join("JSON-Schema-Test-Suite/tests/draft2020-12");
    for path in sorted(&dir).into_iter().filter(|p| is_json(p)) {
        suite_file(shared, &path, false, out);
    }
    for path in sorted(&dir.join("optional/format"))
        .into_iter()
        .filter(|p| is_json(p))
    {
        suite_file(shared, &path, true, out);
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let shared = manifest.join("../../shared");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../benches/build/corpus_schemas.rs");
    for dir in [
        "bench/corpus",
        "corpus/mcp-tools",
        "JSON-Schema-Test-Suite/tests/draft2020-12",
    ] {
        println!("cargo:rerun-if-changed={}", shared.join(dir).display());
    }
    let mut sources = Vec::new();
    corpus(&shared, &mut sources);
    mcp_tools(&shared, &mut sources);
    suite(&shared, &mut sources);

    let mut code = String::new();
    let mut table = String::new();
    let mut seen = BTreeSet::new();
    let (mut generated, mut refused, mut duplicates) = (0usize, 0usize, 0usize);
    let mut asserted_generated = 0usize;
    let mut refused_names = Vec::new();
    for source in &sources {
        let mut asserts = vec![source.asserted_only];
        if !source.asserted_only && source.text.contains("\"format\"") {
            asserts.push(true);
        }
        for asserted in asserts {
            if !seen.insert((source.text.clone(), source.draft, asserted)) {
                duplicates += 1;
                continue;
            }
            let config = toolschema_codegen::Config {
                assert_formats: asserted,
                assert_content: asserted,
                draft: source.draft,
            };
            let n = generated;
            let ident = proc_macro2::Ident::new(&format!("G{n}"), proc_macro2::Span::call_site());
            match toolschema_codegen::generate(&ident, &source.text, &config) {
                Ok(g) => {
                    let tokens = g.tokens;
                    let _ = writeln!(code, "pub struct G{n};\n{tokens}");
                    let _ = writeln!(
                        table,
                        "    Entry {{ name: {:?}, schema: G{n}::SCHEMA, asserts: {asserted}, draft: {}, \
                         fully_generated: {}, is_valid: G{n}::is_valid, validate: G{n}::validate, \
                         instances: &{:?} }},",
                        source.name,
                        source.draft,
                        g.coverage.fully_generated(),
                        source.instances,
                    );
                    generated += 1;
                    asserted_generated += usize::from(asserted);
                }
                Err(_) => {
                    refused += 1;
                    refused_names.push(format!(
                        "{}{}",
                        source.name,
                        if asserted { " (formats asserted)" } else { "" }
                    ));
                }
            }
        }
    }
    println!(
        "cargo:warning=generated {generated} validators ({asserted_generated} of them with formats \
         asserted) from {} schemas; {refused} (schema, configuration) pairs refused by the \
         generator, {duplicates} duplicates skipped",
        sources.len()
    );
    if !refused_names.is_empty() {
        println!("cargo:warning=refused: {}", refused_names.join(", "));
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let all = format!(
        "{code}\n/// Every generated validator, in the order the build script read the schemas.\n\
         pub static ENTRIES: &[Entry] = &[\n{table}];\n"
    );
    std::fs::write(out.join("generated.rs"), all).expect("write generated.rs");
}
