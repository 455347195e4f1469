//! The schemas of the bench corpus and the MCP tool corpus, read where `load_cases` reads
//! them, as their files hold them: shared by the build scripts that generate validators
//! for them (`benches/build/generate.rs`, `benches/jsonschema-macro/build.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Raw = Box<serde_json::value::RawValue>;

/// The entries of `dir`, sorted (none when it cannot be read).
pub fn sorted(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
}

fn dir_of(var: &str, default: &str) -> PathBuf {
    println!("cargo:rerun-if-env-changed={var}");
    match std::env::var_os(var) {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join(default),
    }
}

/// The workspace root: the first folder above the manifest directory of the crate being
/// built whose `Cargo.toml` declares the workspace.
fn workspace_root() -> PathBuf {
    let mut dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    loop {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        if manifest.lines().any(|l| l.trim() == "[workspace]") || !dir.pop() {
            return dir;
        }
    }
}

/// Every schema: (case name as `load_cases` names it, schema index in the case, text).
pub fn corpus_schemas() -> Vec<(String, usize, String)> {
    let corpus = dir_of("TOOLSCHEMA_BENCH_CORPUS", "../shared/bench/corpus");
    let tools = dir_of("TOOLSCHEMA_BENCH_MCP_TOOLS", "../shared/corpus/mcp-tools");
    let mut schemas = Vec::new();
    // (A missing corpus leaves the generated columns empty: said at build time.)
    if sorted(&corpus).is_empty() {
        println!("cargo:warning=no bench corpus at {}", corpus.display());
    }
    for dir in sorted(&corpus) {
        let path = dir.join("schema.json");
        if let Ok(text) = std::fs::read_to_string(&path) {
            println!("cargo:rerun-if-changed={}", path.display());
            let name = dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            schemas.push((name, 0, text));
        }
    }
    for dir in sorted(&tools).into_iter().filter(|d| d.is_dir()) {
        let name = format!(
            "mcp-tools/{}",
            dir.file_name().unwrap_or_default().to_string_lossy()
        );
        let mut index = 0;
        for path in sorted(&dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
        {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(tool) = serde_json::from_str::<BTreeMap<String, Raw>>(&text) else {
                continue;
            };
            for key in ["inputSchema", "outputSchema"] {
                if let Some(schema) = tool.get(key) {
                    schemas.push((name.clone(), index, schema.get().to_string()));
                    index += 1;
                }
            }
        }
    }
    schemas
}
