//! Drives the `rmcp_weather` example with the official Python MCP SDK client at
//! 2025-06-18, 2025-11-25 and 2026-07-28 (see tests/python/weather_client.py).
//!
//! Python comes from `TOOLSCHEMA_MCP_PYTHON`, else `.venv/bin/python` at the repository
//! root; `bash .ci/run` creates that venv with the pinned SDK. Without it this test fails.

use std::path::{Path, PathBuf};
use std::process::Command;

// The root crate's helper: `cargo test --test python_client` alone builds no example.
#[path = "../../tests/support/example.rs"]
mod example;

fn python() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let candidates = std::env::var_os("TOOLSCHEMA_MCP_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join(".venv/bin/python")]);
    for python in candidates {
        let ok = Command::new(&python)
            .args(["-c", "import mcp"])
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return python;
        }
    }
    panic!(
        "no Python with the MCP SDK: set TOOLSCHEMA_MCP_PYTHON or run `bash .ci/run` \
         (it creates .venv with mcp==$(cat toolschema-cli/tests/mcp_client/MCP_SDK_VERSION))"
    );
}

#[test]
fn python_sdk_client_against_the_rmcp_weather_example() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let log = std::env::temp_dir().join(format!("rmcp-weather-calls-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let output = Command::new(python())
        .arg(dir.join("tests/python/weather_client.py"))
        .arg(example::built("rmcp_weather"))
        .arg(&log)
        .output()
        .expect("cannot run the Python client");
    let _ = std::fs::remove_file(&log);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "Python MCP client checks failed:\n{stdout}\n--- stderr ---\n{stderr}"
    );
    assert!(stdout.contains("30 passed, 0 failed"), "{stdout}");
}
