//! The Python with the pinned MCP SDK that the interop tests run (`bash .ci/run` creates
//! `.venv` with `mcp==$(cat toolschema-cli/tests/mcp_client/MCP_SDK_VERSION)`).

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The first Python that imports `modules` (a comma-separated list, as `import` takes
/// it): `$TOOLSCHEMA_MCP_PYTHON`, else `.venv/bin/python` in the repository root.
pub fn find(modules: &str) -> Option<PathBuf> {
    let root = super::installed::workspace();
    let candidates = std::env::var_os("TOOLSCHEMA_MCP_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join(".venv/bin/python")]);
    candidates.into_iter().find(|python| {
        Command::new(python)
            .args(["-c", &format!("import {modules}")])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// [`find`], or a panic that says how to get it.
#[track_caller]
pub fn require(modules: &str) -> PathBuf {
    find(modules).unwrap_or_else(|| {
        panic!(
            "no Python that imports {modules}: set TOOLSCHEMA_MCP_PYTHON or run `bash .ci/run` \
             (it creates .venv with mcp==$(cat toolschema-cli/tests/mcp_client/MCP_SDK_VERSION))"
        )
    })
}

/// Runs a Python check script (`command`, built on a Python from [`require`]), prints its
/// output, checks it succeeded and returns its standard output.
#[track_caller]
pub fn run_checks(command: &mut Command) -> String {
    let output = command.output().expect("cannot run the Python client test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "Python MCP client checks failed:\n{stdout}\n--- stderr ---\n{stderr}"
    );
    stdout.into_owned()
}
