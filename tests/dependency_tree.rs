//! What a library user compiles: the engine's normal dependency tree with default features
//! (what `toolschema = "..."` in a user's Cargo.toml brings) holds none of the server or
//! command-line stack, and nothing of this workspace. Those live in the companion crates
//! (`toolschema-http`, `toolschema-cli`), which depend on the engine, never the reverse.

use std::collections::BTreeSet;
use std::process::Command;

/// The crates that belong to a transport or a command line, never to the engine.
const FORBIDDEN: &[&str] = &[
    "clap",
    "tokio",
    "hyper",
    "hyper-util",
    "http-body-util",
    "bytes",
    "serde-saphyr",
    "reqwest",
    "rmcp",
];

/// The crate names in `cargo tree` for the engine, with `args` added.
fn tree(args: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--package",
            "toolschema",
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .args(args)
        .output()
        .expect("cannot run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

fn check(crates: &BTreeSet<String>, features: &str) {
    // The tree was read: the engine's own dependencies are there.
    for needed in ["toolschema", "serde_json", "regex"] {
        assert!(
            crates.contains(needed),
            "{needed} missing from the tree ({features}): {crates:?}"
        );
    }
    let found: Vec<&String> = crates
        .iter()
        .filter(|c| FORBIDDEN.contains(&c.as_str()) || c.starts_with("toolschema-"))
        .collect();
    assert!(
        found.is_empty(),
        "the engine ({features}) depends on {found:?}: a library user would compile them; \
         they belong in toolschema-http or toolschema-cli"
    );
}

#[test]
fn a_library_user_compiles_no_server_and_no_command_line() {
    check(&tree(&[]), "default features");
}

#[test]
fn the_engine_alone_compiles_no_mcp_layer_either() {
    let crates = tree(&["--no-default-features"]);
    check(&crates, "no default features");
    for mcp_only in ["hmac", "sha2"] {
        assert!(
            !crates.contains(mcp_only),
            "{mcp_only} without the mcp feature: {crates:?}"
        );
    }
}
