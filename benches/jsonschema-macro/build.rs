//! Generates `#[jsonschema::validator]` structs for every schema of the bench corpus and
//! the MCP tool corpus into `$OUT_DIR/generated.rs` (the macro expands when the crate
//! compiles). Schemas are embedded inline, as their files hold them.

#[path = "../build/corpus_schemas.rs"]
mod corpus_schemas;

use std::fmt::Write as _;

/// Schemas `#[jsonschema::validator]` does not take (its compile error would stop the
/// build), with the reason: (case, schema index, reason).
const SKIPS: &[(&str, usize, &str)] = &[];

/// A raw string literal holding `text` (with enough `#`s).
fn raw_literal(text: &str) -> String {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{text}\"{h}")
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../build/corpus_schemas.rs");
    let mut code = String::new();
    let mut table = String::new();
    for (n, (case, index, text)) in corpus_schemas::corpus_schemas().iter().enumerate() {
        if SKIPS.iter().any(|(c, i, _)| c == case && i == index) {
            continue;
        }
        let _ = writeln!(
            code,
            "#[jsonschema::validator(schema = {})]\npub struct J{n};",
            raw_literal(text)
        );
        let _ = writeln!(table, "    ({case:?}, {index}, J{n}::is_valid as Check),");
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let all = format!(
        "{code}\n\
         /// `#[jsonschema::validator]`'s validators: (case, schema index, is_valid).\n\
         pub static JSONSCHEMA: &[(&str, usize, Check)] = &[\n{table}];\n"
    );
    std::fs::write(out.join("generated.rs"), all).expect("write generated.rs");
}
