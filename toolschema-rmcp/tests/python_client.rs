//! Drives the `rmcp_weather` example with the official Python MCP SDK client at
//! 2025-06-18, 2025-11-25 and 2026-07-28 (see tests/python/weather_client.py).
//!
//! Python comes from `TOOLSCHEMA_MCP_PYTHON`, else `.venv/bin/python` at the repository
//! root; `bash .ci/run` creates that venv with the pinned SDK. Without it this test fails.

use std::path::{Path, PathBuf};
use std::process::Command;

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
         (it creates .venv with mcp==$(cat tests/mcp_client/MCP_SDK_VERSION))"
    );
}

/// The example binary: `cargo test` builds the package's examples beside its tests.
fn weather_server() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    let server = profile_dir
        .join("examples")
        .join(format!("rmcp_weather{}", std::env::consts::EXE_SUFFIX));
    assert!(
        server.is_file(),
        "{} is missing: run this test with `cargo test`, which builds the examples",
        server.display()
    );
    server
}

#[test]
fn python_sdk_client_against_the_rmcp_weather_example() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let log = std::env::temp_dir().join(format!("rmcp-weather-calls-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let output = Command::new(python())
        .arg(dir.join("tests/python/weather_client.py"))
        .arg(weather_server())
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
