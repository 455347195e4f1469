//! Real MCP clients against `toolschema serve --http` (the demo tools): the TypeScript
//! SDK's StreamableHTTPClientTransport, the Python SDK's streamable HTTP client and the MCP
//! Inspector CLI (pinned in toolschema-http/tests/http/package-lock.json and
//! toolschema-cli/tests/mcp_client/MCP_SDK_VERSION; `bash .ci/run` installs them; missing locally, those
//! tests say so and skip; with `CI=true` they fail). The transport's own wire tests are
//! toolschema-http/tests/http.rs.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use support::installed::{self, root};

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_toolschema");

fn node_dir() -> Option<PathBuf> {
    installed::node_packages(
        "../toolschema-http/tests/http",
        &[
            ".bin/node",
            "@modelcontextprotocol/client/package.json",
            "@modelcontextprotocol/inspector/package.json",
        ],
        "the npm packages of tests/http (npm ci --prefix toolschema-http/tests/http)",
    )
}

fn python() -> Option<PathBuf> {
    installed::python("mcp.client.streamable_http")
}

/// `toolschema serve --http 127.0.0.1:0`, killed on drop; reads the bound address from
/// stderr.
struct Serve {
    child: Child,
    url: String,
}

impl Serve {
    fn start() -> Serve {
        let mut child = Command::new(BIN)
            .args(["serve", "--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no address in: {line}"))
            .to_string();
        // Keep draining stderr so the server never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Serve { child, url }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON lines a client script printed.
fn json_lines(out: &std::process::Output) -> Vec<Value> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn typescript_sdk_client_over_streamable_http() {
    let Some(dir) = node_dir() else { return };
    let serve = Serve::start();
    let out = Command::new(dir.join("node_modules/.bin/node"))
        .arg(dir.join("ts_client.mjs"))
        .arg(&serve.url)
        .current_dir(&dir)
        .output()
        .unwrap();
    let lines = json_lines(&out);
    assert_eq!(lines[0]["version"], "2025-11-25", "{lines:?}");
    assert_eq!(lines[0]["session"].as_str().map(str::len), Some(32));
    assert_eq!(
        lines[1]["tools"],
        json!(["echo", "calculate_stats", "get_weather", "slow"])
    );
    assert_eq!(lines[2]["result"]["content"][0]["text"], "waited 6 steps");
    assert!(lines[2]["progress"].as_u64().unwrap() >= 1, "{lines:?}");
    assert!(lines[2]["logs"].as_u64().unwrap() >= 1, "{lines:?}");
    assert_eq!(lines[3]["refused"]["isError"], true, "{lines:?}");
    // DELETE ended the session.
    assert_eq!(lines[4]["terminated"], true, "{lines:?}");
}

#[test]
fn python_sdk_client_over_streamable_http() {
    let Some(python) = python() else { return };
    let serve = Serve::start();
    let out = Command::new(python)
        .arg(root().join("../toolschema-http/tests/http/python_client.py"))
        .arg(&serve.url)
        .output()
        .unwrap();
    let lines = json_lines(&out);
    assert_eq!(lines[0]["version"], "2025-11-25", "{lines:?}");
    assert_eq!(
        lines[1]["tools"],
        json!(["echo", "calculate_stats", "get_weather", "slow"])
    );
    assert_eq!(lines[2]["result"]["content"][0]["text"], "waited 6 steps");
    assert!(lines[2]["progress"].as_u64().unwrap() >= 1, "{lines:?}");
    assert!(lines[2]["logs"].as_u64().unwrap() >= 1, "{lines:?}");
    assert_eq!(lines[3]["refused"]["isError"], true, "{lines:?}");
}

#[test]
fn mcp_inspector_cli_over_streamable_http() {
    let Some(dir) = node_dir() else { return };
    let serve = Serve::start();
    let catalog =
        std::env::temp_dir().join(format!("toolschema-inspector-{}.json", std::process::id()));
    let run = |args: &[&str]| {
        Command::new(dir.join("node_modules/.bin/node"))
            .arg(dir.join(
                "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
            ))
            .arg("--cli")
            .arg(&serve.url)
            .args(args)
            .env("MCP_CATALOG_PATH", &catalog)
            .output()
            .unwrap()
    };
    let inspector = |args: &[&str]| {
        let out = run(args);
        assert!(
            out.status.success(),
            "inspector failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let list = inspector(&["--method", "tools/list"]);
    assert_eq!(list["tools"][0]["name"], "echo");
    let called = inspector(&[
        "--method",
        "tools/call",
        "--tool-name",
        "echo",
        "--tool-arg",
        "message=hi",
    ]);
    assert_eq!(called["content"][0]["text"], "hi");
    // Refused arguments come back as an `isError` result, which the CLI reports as a failure.
    let refused = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "calculate_stats",
        "--tool-arg",
        "numbers=oops",
    ]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("tool_is_error"), "{stderr}");
    let _ = std::fs::remove_file(&catalog);
}
