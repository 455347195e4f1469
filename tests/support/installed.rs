//! The installed parts the interop tests run (npm packages in tests/proxy and tests/http,
//! the Python with the pinned MCP SDK; `bash .ci/run` installs them all), and the one rule
//! for when one is missing: with `CI=true` the test fails, elsewhere it says so loudly and
//! skips.

use std::path::{Path, PathBuf};

/// The root of the crate under test (its fixtures are below it).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The repository root (the workspace's, holding `Cargo.lock`), beside which `../shared`
/// lies, whichever member's tests run.
pub fn workspace() -> &'static Path {
    root()
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or_else(|| root())
}

/// The test data in `../shared` beside the repository: `shared("corpus/mcp-tools")`.
pub fn shared(path: &str) -> std::path::PathBuf {
    workspace().join("../shared").join(path)
}

/// `what` is missing: a panic under `CI=true`, else a loud line on stderr and `None`, for
/// the test to skip.
#[track_caller]
pub fn missing<T>(what: &str) -> Option<T> {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{what} is missing: `bash .ci/run` installs it");
    }
    eprintln!("\n!!!!! SKIPPED: {what} is missing; run `bash .ci/run` to install it !!!!!\n");
    None
}

/// The folder `dir` (below the crate root) when every one of `files` (below its
/// node_modules) is there, else [`missing`] `what`.
#[track_caller]
pub fn node_packages(dir: &str, files: &[&str], what: &str) -> Option<PathBuf> {
    let dir = root().join(dir);
    let modules = dir.join("node_modules");
    if files.iter().all(|f| modules.join(f).is_file()) {
        return Some(dir);
    }
    missing(what)
}

/// tests/proxy with the npm packages every proxy test drives (the strict clients, the
/// filesystem server) and `more` installed.
#[track_caller]
pub fn proxy_packages(more: &[&str]) -> Option<PathBuf> {
    let files = [
        "client-beta5/package.json",
        "client-current/package.json",
        "@modelcontextprotocol/server-filesystem/dist/index.js",
    ];
    let files: Vec<&str> = files.iter().chain(more).copied().collect();
    node_packages(
        "tests/proxy",
        &files,
        "the npm packages of tests/proxy (npm ci --prefix toolschema-cli/tests/proxy)",
    )
}

/// A Python with the pinned MCP SDK that imports `modules` ([`super::python::find`]), else
/// [`missing`].
#[track_caller]
pub fn python(modules: &str) -> Option<PathBuf> {
    super::python::find(modules).or_else(|| missing("a Python with the pinned MCP SDK (.venv)"))
}

/// A fresh, empty `toolschema-{name}-{pid}` folder in the system's temporary folder.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolschema-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
