//! Drives `toolschema serve` with the official Python MCP SDK (see tests/mcp_client/).
//!
//! Python comes from `TOOLSCHEMA_MCP_PYTHON`, else `.venv/bin/python` in the repository root;
//! `bash .ci/run` creates that venv with the pinned SDK. Without it this test fails.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

fn corpus() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var_os("TOOLSCHEMA_MCP_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../../shared/corpus/mcp-tools"));
    assert!(
        dir.is_dir(),
        "the MCP tool corpus is missing at {} (set TOOLSCHEMA_MCP_CORPUS)",
        dir.display()
    );
    dir
}

#[test]
fn python_sdk_client_against_toolschema_serve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stdout = support::python::run_checks(
        Command::new(support::python::require("mcp, jsonschema"))
            .arg(root.join("tests/mcp_client/client_test.py"))
            .arg(env!("CARGO_BIN_EXE_toolschema"))
            .arg(root.join("tests/mcp_client/mock_tools.json"))
            .arg(corpus()),
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
