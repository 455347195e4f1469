//! Authorization with real parts: the TypeScript SDK's own authorization server and OAuth
//! client doing the whole flow against `toolschema serve --http`; the Python SDK's client
//! with a bearer token (a JWT minted here, checked against the JWKS of the stub
//! authorization server in toolschema-http/tests/auth/stub.rs); `toolschema proxy --listen`
//! applying a policy file's per-tool scopes to a Python SDK server that declares none; and
//! `serve` on stdio, which has no token. (Each bad token, on the wire:
//! toolschema-http/tests/auth.rs.) Missing npm packages or Python SDK: the tests say so and
//! skip; with `CI=true` they fail.

use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};
use support::installed::{self, root};

mod support;

#[path = "../../toolschema-http/tests/auth/stub.rs"]
mod stub;

const BIN: &str = env!("CARGO_BIN_EXE_toolschema");

fn tools_file() -> PathBuf {
    root().join("tests/auth/tools.json")
}

/// A `toolschema` child, killed on drop.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `toolschema ARGS` and waits for the line on stderr naming its URL.
fn start(args: &[&str], envs: &[(&str, &Path)]) -> (Running, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stderr: ChildStderr = child.stderr.take().unwrap();
    let mut reader = BufReader::new(stderr);
    let mut url = None;
    for _ in 0..20 {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if let Some(at) = line.find("http://127.0.0.1:") {
            url = Some(line[at..].split_whitespace().next().unwrap().to_string());
            break;
        }
    }
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let running = Running(child);
    (running, url.expect("no URL on stderr"))
}

fn node_dir() -> Option<PathBuf> {
    // The SDK (with express, its dependency) from tests/proxy; Node 22 from tests/http.
    let node = installed::node_packages(
        "../toolschema-http/tests/http",
        &[".bin/node"],
        "the npm packages of tests/http (npm ci --prefix toolschema-http/tests/http)",
    )?;
    installed::node_packages(
        "tests/proxy",
        &[
            "@modelcontextprotocol/sdk/dist/esm/examples/server/demoInMemoryOAuthProvider.js",
            "express/package.json",
        ],
        "the npm packages of tests/proxy (npm ci --prefix toolschema-cli/tests/proxy)",
    )?;
    Some(node.join("node_modules/.bin/node"))
}

#[test]
fn ts_sdk_client_completes_the_oauth_flow_and_steps_up_for_a_scoped_tool() {
    let Some(node) = node_dir() else { return };
    let mut flow = Command::new(node)
        .arg(root().join("tests/proxy/oauth_flow.mjs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(flow.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let issuer = serde_json::from_str::<Value>(&first).unwrap()["issuer"]
        .as_str()
        .unwrap()
        .to_string();
    let tools = tools_file();
    let introspect = format!("{issuer}introspect");
    let (_serve, url) = start(
        &[
            "serve",
            "--tools",
            tools.to_str().unwrap(),
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            &issuer,
            "--auth-introspection-url",
            &introspect,
            "--auth-scopes-supported",
            "mcp:tools",
        ],
        &[],
    );
    writeln!(flow.stdin.take().unwrap(), "{url}").unwrap();
    let facts: Vec<Value> = out
        .lines()
        .map_while(Result::ok)
        .map(|l| serde_json::from_str(&l).unwrap_or_else(|_| panic!("not JSON: {l}")))
        .collect();
    let status = flow.wait().unwrap();
    assert!(status.success(), "{facts:#?}");
    let expected = vec![
        json!({"registered": true}),
        json!({"authorize": {"pkce": "S256", "resource": url, "scope": "mcp:tools"}}),
        json!({"unauthorized": true}),
        json!({"token": {"scope": "mcp:tools", "type": "bearer"}}),
        json!({"tools": ["open", "write"], "schemes": {"open": null, "write": [{"type": "oauth2", "scopes": ["files:write"]}]}}),
        json!({"call": "open", "text": "opened"}),
        json!({"authorize": {"pkce": "S256", "resource": url, "scope": "files:write"}}),
        json!({"stepUp": true}),
        json!({"token": {"scope": "files:write", "type": "bearer"}}),
        json!({"call": "write", "text": "written"}),
        json!({"redirects": 2, "introspected": true}),
    ];
    assert_eq!(facts, expected);
}

fn python() -> Option<PathBuf> {
    installed::python("mcp.client.streamable_http")
}

/// The Python SDK client with `token`; its facts.
fn python_client(python: &Path, url: &str, token: &str, calls: &Value) -> Vec<Value> {
    let out = Command::new(python)
        .arg(root().join("tests/proxy/python_bearer_client.py"))
        .args([url, token, &calls.to_string()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn claims(issuer: &str, url: &str, scope: &str) -> Value {
    json!({"iss": issuer, "aud": url, "sub": "py", "exp": stub::now() + 600, "scope": scope})
}

fn text_of(fact: &Value) -> &str {
    fact["result"]["content"][0]["text"].as_str().unwrap_or("")
}

#[test]
fn python_sdk_client_with_a_bearer_token_calls_a_scoped_tool() {
    let Some(python) = python() else { return };
    let a = stub::auth_server();
    let tools = tools_file();
    let (_serve, url) = start(
        &[
            "serve",
            "--tools",
            tools.to_str().unwrap(),
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            &a.url,
        ],
        &[],
    );
    let calls = json!([{"name": "open"}, {"name": "write", "arguments": {"path": "x"}}]);
    let writer = stub::mint(
        &stub::ec(),
        Algorithm::ES256,
        "ec1",
        &claims(&a.url, &url, "files:write"),
    );
    let facts = python_client(&python, &url, &writer, &calls);
    assert_eq!(facts[0], json!({"tools": ["open", "write"]}));
    assert_eq!(text_of(&facts[1]), "opened");
    assert_eq!(text_of(&facts[2]), "written");
    // Without the scope: the call is refused (HTTP 403), the tool does not run.
    let reader = stub::mint(
        &stub::rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a.url, &url, "files:read"),
    );
    let facts = python_client(&python, &url, &reader, &calls);
    assert_eq!(text_of(&facts[1]), "opened");
    assert_eq!(facts[2]["call"], "write");
    // The Python SDK reports the 403's JSON-RPC body.
    let error = facts[2]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("-32001") && error.contains("forbidden") && error.contains("files:write"),
        "{facts:?}"
    );
}

#[test]
fn proxy_applies_a_policy_file_to_a_server_that_declares_nothing() {
    let Some(python) = python() else { return };
    let a = stub::auth_server();
    let dir = installed::temp_dir("auth-proxy");
    let calls_file = dir.join("calls.txt");
    let policy = dir.join("policy.json");
    std::fs::write(
        &policy,
        r#"{"tools": {"record": ["notes:write"]}, "default": []}"#,
    )
    .unwrap();
    let server = root().join("tests/proxy/python_server.py");
    let (_proxy, url) = start(
        &[
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--auth-issuer",
            &a.url,
            "--auth-policy",
            policy.to_str().unwrap(),
            "--auth-hide-tools",
            "--",
            python.to_str().unwrap(),
            server.to_str().unwrap(),
            calls_file.to_str().unwrap(),
        ],
        &[],
    );
    let calls = json!([{"name": "echo", "arguments": {"text": "hi"}}, {"name": "record", "arguments": {"note": "n", "count": 1}}]);
    let reader = stub::mint(
        &stub::ed(),
        Algorithm::EdDSA,
        "ed1",
        &claims(&a.url, &url, "notes:read"),
    );
    let facts = python_client(&python, &url, &reader, &calls);
    let listed = facts[0]["tools"].as_array().unwrap();
    assert!(listed.contains(&json!("echo")), "{facts:?}");
    assert!(!listed.contains(&json!("record")), "hidden: {facts:?}");
    assert_eq!(text_of(&facts[1]), "hi");
    let error = facts[2]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("forbidden") && error.contains("notes:write"),
        "{facts:?}"
    );
    assert!(
        !calls_file.exists() || std::fs::read_to_string(&calls_file).unwrap().is_empty(),
        "a refused call reached the server"
    );
    let writer = stub::mint(
        &stub::rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a.url, &url, "notes:read notes:write"),
    );
    let facts = python_client(&python, &url, &writer, &calls);
    assert!(
        facts[0]["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("record"))
    );
    assert!(facts[2].get("result").is_some(), "{facts:?}");
    assert_eq!(std::fs::read_to_string(&calls_file).unwrap(), "n 1\n");
    // No token at all: 401 before anything reaches the server.
    let r = reqwest::blocking::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .unwrap();
    assert_eq!(r.status(), 401);
}

/// `toolschema serve ARGS` on stdio: the answers to `messages`.
fn stdio(args: &[&str], messages: &[Value]) -> Vec<Value> {
    let mut child = Command::new(BIN)
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for m in messages {
        writeln!(stdin, "{m}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn stdio_refuses_a_scoped_tool_unless_the_local_user_is_trusted() {
    let tools = tools_file();
    let tools = tools.to_str().unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "write", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "open", "arguments": {}}}),
    ];
    let by_id = |answers: &[Value], id: i64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no answer {id}: {answers:?}"))
    };
    let refused = stdio(&["--tools", tools], &messages);
    let write = by_id(&refused, 2);
    assert_eq!(write["error"]["code"], -32001, "{write}");
    assert_eq!(
        write["error"]["data"]["requiredScopes"],
        json!(["files:write"])
    );
    assert_eq!(by_id(&refused, 3)["result"]["content"][0]["text"], "opened");
    let trusted = stdio(&["--tools", tools, "--trust-local-user"], &messages);
    assert_eq!(
        by_id(&trusted, 2)["result"]["content"][0]["text"],
        "written"
    );
    // And the flags that need a listener say so.
    let out = Command::new(BIN)
        .args(["serve", "--auth-issuer", "https://as.example.com"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// An upstream MCP server that records the headers of every request it gets, answers
/// `initialize`, and accepts the rest.
fn recording_upstream() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen: std::sync::Arc<std::sync::Mutex<Vec<String>>> = std::sync::Arc::default();
    let record = std::sync::Arc::clone(&seen);
    std::thread::spawn(move || {
        for tcp in listener.incoming() {
            let Ok(mut tcp) = tcp else { continue };
            let record = std::sync::Arc::clone(&record);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(tcp.try_clone().unwrap());
                loop {
                    let mut head = String::new();
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line.trim().is_empty() {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                        head.push_str(&line);
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    record.lock().unwrap().push(head.clone());
                    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let reply = if head.starts_with("POST") && msg["method"] == "initialize" {
                        let text = json!({"jsonrpc": "2.0", "id": msg["id"], "result": {
                            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                            "serverInfo": {"name": "recorder", "version": "1"}}})
                        .to_string();
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\nContent-Length: {}\r\n\r\n{text}",
                            text.len()
                        )
                    } else if head.starts_with("POST") {
                        "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_string()
                    } else {
                        "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n".to_string()
                    };
                    if tcp.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, seen)
}

#[test]
fn the_proxy_never_passes_the_clients_token_upstream() {
    let a = stub::auth_server();
    let (upstream, seen) = recording_upstream();
    let (_proxy, url) = start(
        &[
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--auth-issuer",
            &a.url,
            "--upstream",
            &upstream,
        ],
        &[],
    );
    let token = stub::mint(
        &stub::rsa(),
        Algorithm::RS256,
        "rsa1",
        &claims(&a.url, &url, "files:read"),
    );
    let r = reqwest::blocking::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{:?}", r.text());
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty(), "the upstream got nothing");
    for head in seen.iter() {
        assert!(
            !head.to_ascii_lowercase().contains("authorization") && !head.contains(&token),
            "the client's token went upstream: {head}"
        );
    }
}
