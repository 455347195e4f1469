//! `toolschema serve` on stdio: the demo tools, the `--tools` mock and the message cap, as
//! a client sees them through the binary (the dispatch layer itself is tested in memory by
//! the root crate's tests/mcp_dispatch.rs and tests/tasks.rs).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn spawn_serve(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("cannot start toolschema serve")
}

#[test]
fn binary_rejects_huge_messages_and_finishes_calls_when_stdin_closes() {
    let mut child = spawn_serve(&[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"pad\":\"{}\"}}\n",
        "x".repeat(5 << 20)
    );
    stdin.write_all(huge.as_bytes()).unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}}}}}}"#).unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"slow","arguments":{{"seconds":0.3}}}}}}"#).unwrap();
    drop(stdin); // stdin closes while the slow call runs
    let mut lines = Vec::new();
    let mut line = String::new();
    while out.read_line(&mut line).unwrap() > 0 {
        let message =
            serde_json::from_str::<Value>(line.trim()).expect("stdout carries only JSON-RPC");
        if message.get("method").is_none() {
            lines.push(message); // notifications (log, progress) aside
        }
        line.clear();
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["error"]["code"], -32600);
    assert!(
        lines[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too large")
    );
    assert_eq!(lines[1]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(lines[2]["id"], 3);
    assert!(
        lines[2]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("waited")
    );
}

#[test]
fn binary_serves_a_tools_file_with_x_response() {
    let dir = std::env::temp_dir().join(format!("toolschema-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tools.json");
    std::fs::write(
        &file,
        json!({"name": "one", "inputSchema": {"type": "object"},
        "x-response": {"content": [{"type": "text", "text": "canned"}]}})
        .to_string(),
    )
    .unwrap();
    let mut child = spawn_serve(&["--tools", file.to_str().unwrap()]);
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"one","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
    .unwrap();
    drop(stdin);
    let mut out = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success() && !out.is_empty(), "{status:?} {out:?}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["result"]["content"][0]["text"], "canned");
    std::fs::write(&file, r#"{"name": "bad name", "inputSchema": {}}"#).unwrap();
    let status = spawn_serve(&["--tools", file.to_str().unwrap()])
        .wait()
        .unwrap();
    assert_eq!(status.code(), Some(3));
    let _ = std::fs::remove_dir_all(&dir);
}

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn task_call(id: u64, name: &str, arguments: Value, task: Value) -> Value {
    rpc(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments, "task": task}),
    )
}

/// The mock (`toolschema serve --tools`) over stdio: the corpus tool
/// `simulate-research-query` (taskSupport `required`) is listed as such and served as a task.
#[test]
fn the_mock_serves_the_corpus_task_tool_as_a_task() {
    let tool = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/mcp-tools/server-everything/simulate-research-query.json");
    assert!(
        tool.is_file(),
        "the corpus is missing at {}",
        tool.display()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .arg("serve")
        .arg("--tools")
        .arg(&tool)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |message: Value| -> Value {
        writeln!(stdin, "{message}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let init = ask(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
    assert_eq!(
        init["result"]["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let listed = ask(rpc(1, "tools/list", json!({})));
    assert_eq!(
        listed["result"]["tools"][0]["execution"],
        json!({"taskSupport": "required"})
    );
    let plain = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "simulate-research-query", "arguments": {"topic": "t"}}}));
    assert_eq!(plain["error"]["code"], -32601);
    let created = ask(task_call(
        3,
        "simulate-research-query",
        json!({"topic": "t"}),
        json!({"ttl": 1000}),
    ));
    assert_eq!(created["result"]["task"]["status"], "working", "{created}");
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut answer = ask(rpc(4, "tasks/result", json!({"taskId": id})));
    while answer.get("id").is_none() {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        answer = serde_json::from_str(&line).unwrap();
    }
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 4, "result": {
            "content": [{"type": "text", "text": "tool simulate-research-query was called"}],
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}}}})
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
