//! Generates a toolschema validator (`toolschema-codegen`) for every schema of the bench
//! corpus and the MCP tool corpus into `$OUT_DIR/generated.rs`, for bench-report's
//! "generated" column (jsonschema-rs's `#[jsonschema::validator]` column is the crate
//! `benches/jsonschema-macro`). Schemas are embedded as their files hold them.

#[path = "corpus_schemas.rs"]
mod corpus_schemas;

use std::fmt::Write as _;

fn main() {
    println!("cargo:rerun-if-changed=build");
    let mut code = String::new();
    let mut table = String::new();
    for (n, (case, index, text)) in corpus_schemas::corpus_schemas().iter().enumerate() {
        let ident = proc_macro2::Ident::new(&format!("T{n}"), proc_macro2::Span::call_site());
        match toolschema_codegen::generate(&ident, text, &toolschema_codegen::Config::default()) {
            Ok(g) => {
                let tokens = g.tokens;
                let _ = writeln!(code, "pub struct T{n};\n{tokens}");
                let _ = writeln!(
                    table,
                    "    ({case:?}, {index}, T{n}::is_valid as Check, {}),",
                    g.coverage.fully_generated()
                );
            }
            // (The report shows no generated figure for the case then.)
            Err(e) => println!("cargo:warning=toolschema-codegen refuses {case} #{index}: {e}"),
        }
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let all = format!(
        "{code}\n\
         /// toolschema's generated validators: (case, schema index, is_valid, fully generated).\n\
         pub static TOOLSCHEMA: &[(&str, usize, Check, bool)] = &[\n{table}];\n"
    );
    std::fs::write(out.join("generated.rs"), all).expect("write generated.rs");
}
