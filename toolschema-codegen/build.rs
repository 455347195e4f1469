//! Generates a validator for every schema of the official JSON-Schema-Test-Suite (every
//! dialect, required and optional folders) into `$OUT_DIR/suite.rs`, for
//! `tests/suite.rs`. The suite is read in place from `$JSON_SCHEMA_TEST_SUITE` or
//! `../../shared/JSON-Schema-Test-Suite`; when it is absent (a published crate), an empty
//! table is written and the test says so.

#[allow(dead_code)]
#[path = "src/generate.rs"]
mod generate;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// (folder below `tests/`, draft number, recursive, formats and content assert)
const RUNS: &[(&str, u16, bool, bool)] = &[
    ("draft2020-12", 2020, false, false),
    ("draft2020-12/optional", 2020, true, true),
    ("draft2019-09", 2019, false, false),
    ("draft2019-09/optional", 2019, true, true),
    ("draft7", 7, false, false),
    ("draft7/optional", 7, true, true),
    ("draft6", 6, false, false),
    ("draft6/optional", 6, true, true),
    ("draft4", 4, false, false),
    ("draft4/optional", 4, true, true),
];

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

fn main() {
    println!("cargo:rerun-if-changed=src/generate.rs");
    println!("cargo:rerun-if-env-changed=JSON_SCHEMA_TEST_SUITE");
    let suite = match std::env::var("JSON_SCHEMA_TEST_SUITE") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/JSON-Schema-Test-Suite"),
    };
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let mut code = String::new();
    let mut table = String::new();
    let tests = suite.join("tests");
    let mut n = 0usize;
    for &(folder, draft, recursive, asserts) in RUNS {
        let dir = tests.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files = Vec::new();
        json_files(&dir, recursive, &mut files);
        let config = toolschema::codegen::Config {
            assert_formats: asserts,
            assert_content: asserts,
            draft,
        };
        for file in files {
            let name = file
                .strip_prefix(&tests)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&file).expect("a suite file");
            // (Each schema's own text, embedded as written: see `generate`.)
            let groups: Vec<std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>> =
                serde_json::from_str(&text).expect("suite JSON");
            for (g, group) in groups.iter().enumerate() {
                let schema = group.get("schema").expect("a group's schema").get();
                // (`None`: needs a remote document, or refused: the test checks which.)
                let cov =
                    validator(&mut code, n, schema, &config).unwrap_or_else(|_| "None".to_string());
                let _ = writeln!(
                    table,
                    "    Group {{ file: {name:?}, group: {g}, draft: {draft}, asserts: {asserts}, validator: {cov} }},"
                );
                n += 1;
            }
        }
    }
    // This crate's own cases of the generated paths (suite format, draft 2020-12), named
    // `local/...` for the test.
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    println!("cargo:rerun-if-changed={}", local.display());
    let mut files = Vec::new();
    // (`optional/`: cases that end in the engine, left out of the allocation test as the
    // suite's optional folders are: a backtracking match allocates.)
    json_files(&local, true, &mut files);
    let config = toolschema::codegen::Config {
        draft: 2020,
        ..Default::default()
    };
    for file in files {
        let name = format!(
            "local/{}",
            file.strip_prefix(&local)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/")
        );
        let text = std::fs::read_to_string(&file).expect("a local case file");
        let groups: Vec<std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>> =
            serde_json::from_str(&text).expect("local case JSON");
        for (g, group) in groups.iter().enumerate() {
            let schema = group.get("schema").expect("a group's schema").get();
            let cov = validator(&mut code, n, schema, &config).expect("a local case generates");
            let _ = writeln!(
                table,
                "    Group {{ file: {name:?}, group: {g}, draft: 2020, asserts: false, validator: {cov} }},"
            );
            n += 1;
        }
    }
    let all = format!(
        "{code}\n/// Every suite group, in suite order.\npub static GROUPS: &[Group] = &[\n{table}];\n"
    );
    std::fs::write(out_dir.join("suite.rs"), all).expect("write suite.rs");
}

/// Generates validator `S{n}` for `schema` into `code`; the table's entry for it (its
/// `is_valid` and coverage).
fn validator(
    code: &mut String,
    n: usize,
    schema: &str,
    config: &toolschema::codegen::Config,
) -> Result<String, generate::GenerateError> {
    let ident = proc_macro2::Ident::new(&format!("S{n}"), proc_macro2::Span::call_site());
    let generated = generate::generate(&ident, schema, config)?;
    let tokens = generated.tokens;
    let _ = writeln!(code, "pub struct S{n};\n{tokens}");
    let c = &generated.coverage;
    Ok(format!(
        "Some((S{n}::is_valid, Cov {{ nodes: {}, generated: {}, shared: {}, delegated_keywords: {}, delegated_nodes: {}, delegated_schema: {} }}))",
        c.nodes, c.generated, c.shared, c.delegated_keywords, c.delegated_nodes, c.delegated_schema
    ))
}
