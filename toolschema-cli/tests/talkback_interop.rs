//! Real clients against handlers that talk back and tools that run as tasks:
//! - the official Python MCP SDK (pinned in toolschema-cli/tests/mcp_client/MCP_SDK_VERSION) answers
//!   sampling and elicitation through its own callbacks, at 2025-06-18, 2025-11-25 and
//!   2026-07-28 (multi round-trip), against the `talkback` example server;
//! - the TypeScript SDK's client (`@modelcontextprotocol/sdk`, pinned in
//!   tests/proxy/package.json) calls the corpus tool `simulate-research-query`
//!   (taskSupport `required`) as a task on the `toolschema serve --tools` mock.
//!
//! Both are installed by `bash .ci/run`.

use serde_json::Value;
use std::process::Command;
use support::installed::{self, root};

mod support;

#[test]
fn python_sdk_answers_sampling_and_elicitation() {
    let stdout = support::python::run_checks(
        Command::new(support::python::require("mcp"))
            .arg(root().join("tests/mcp_client/talkback_test.py"))
            .arg(support::example::built("talkback")),
    );
    assert!(stdout.contains("25 passed, 0 failed"), "{stdout}");
}

#[test]
fn typescript_sdk_runs_the_corpus_task_tool_as_a_task() {
    let Some(dir) = installed::node_packages(
        "tests/proxy",
        &["@modelcontextprotocol/sdk/package.json"],
        "the npm packages of tests/proxy (npm ci --prefix toolschema-cli/tests/proxy)",
    ) else {
        return;
    };
    let tool = installed::shared("corpus/mcp-tools/server-everything/simulate-research-query.json");
    assert!(
        tool.is_file(),
        "the corpus is missing at {}",
        tool.display()
    );
    let out = Command::new("node")
        .current_dir(&dir)
        .args([
            "task_client.mjs",
            "simulate-research-query",
            r#"{"topic":"rust"}"#,
            "--",
        ])
        .arg(env!("CARGO_BIN_EXE_toolschema"))
        .arg("serve")
        .arg("--tools")
        .arg(&tool)
        .output()
        .expect("cannot run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(
        report["capability"],
        serde_json::json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    assert_eq!(
        report["execution"],
        serde_json::json!({"taskSupport": "required"})
    );
    let messages: Vec<&str> = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(messages.first(), Some(&"taskCreated"), "{report}");
    assert_eq!(messages.last(), Some(&"result"), "{report}");
    assert_eq!(
        report["result"]["content"][0]["text"],
        "tool simulate-research-query was called"
    );
    let task_id = report["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"]
        .as_str()
        .unwrap_or_default();
    assert!(!task_id.is_empty(), "{report}");
    assert_eq!(report["status"], "completed");
    assert_eq!(report["listed"], true);
    // Called without a task, the required tool gets -32601, as the spec says.
    assert_eq!(report["plain"]["code"], -32601, "{report}");
}
