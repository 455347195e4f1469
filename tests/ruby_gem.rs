//! The Ruby gem (`bindings/ruby`): builds its native extension with `rake compile`, then
//! runs its minitest suite (the official suite through the Ruby API, hostile values, the
//! MCP SDK drop-in, the Python SDK client against a Ruby SDK server) and the MCP SDK's own
//! suite with and without the drop-in (`test/sdk/run.rb`).
//!
//! Needs Debian's `ruby`, `ruby-dev`, `rake`, `libclang-dev` and the packages the SDK's
//! suite needs (`bash .ci/run` installs them; the README's Ruby section lists them), and
//! `../shared/ruby`. Without them this test fails, saying what is missing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn gem_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/ruby")
}

fn run(what: &str, cmd: &mut Command) -> String {
    let out = cmd.current_dir(gem_dir()).output().unwrap_or_else(|e| {
        panic!("{what}: cannot start ({e}); is Ruby installed? see the README's Ruby section")
    });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} failed:\n{text}");
    text
}

/// `rake compile`, once for the tests of this file.
fn compiled() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        run("rake compile", Command::new("rake").arg("compile"));
    });
}

#[test]
fn gem_minitest_suite() {
    compiled();
    let out = run("rake test", Command::new("rake").arg("test"));
    assert!(out.contains(" 0 failures, 0 errors, 0 skips"), "{out}");
}

#[test]
fn mcp_sdk_suite_with_the_drop_in() {
    compiled();
    let out = run(
        "the MCP SDK's suite with and without the drop-in",
        Command::new("ruby").arg("test/sdk/run.rb"),
    );
    assert!(
        out.contains("OK: every test passing with json_schemer passes with toolschema"),
        "{out}"
    );
}
