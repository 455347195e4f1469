//! `toolschema proxy` over Streamable HTTP: `--listen` in front of stdio servers, `--upstream`
//! to an HTTP server, and both at once, with real servers and clients (npm packages pinned
//! in tests/proxy/package-lock.json, the Python SDK in `.venv`; `bash .ci/run` installs
//! them: missing locally, those tests say so loudly and skip; with `CI=true` they fail),
//! plus hostile HTTP and broken upstreams, which need nothing but the binary.

mod support;

use reqwest::blocking::{Client, Response};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};
use support::installed::{self, root};
use support::stderr::Stderr;

const BIN: &str = env!("CARGO_BIN_EXE_toolschema");

/// tests/proxy with its npm packages installed.
fn node_dir() -> Option<PathBuf> {
    installed::proxy_packages(&["@modelcontextprotocol/server-everything/dist/index.js"])
}

fn python() -> Option<PathBuf> {
    installed::python("mcp.server.mcpserver")
}

fn temp_dir(name: &str) -> PathBuf {
    installed::temp_dir(&format!("proxy-http-{name}"))
}

/// A process that is stopped with SIGTERM (then killed) when dropped.
struct Running {
    child: Child,
    stderr: Stderr,
}

impl Running {
    fn terminate(&mut self) -> Option<std::process::ExitStatus> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let since = Instant::now();
        while since.elapsed() < Duration::from_secs(15) {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.terminate();
        }
    }
}

/// `toolschema proxy --listen 127.0.0.1:0 ARGS...`; its endpoint URL.
fn listen(args: &[&str]) -> (Running, String) {
    let mut child = Command::new(BIN)
        .args(["proxy", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the proxy");
    let stderr = Stderr::collect(child.stderr.take().unwrap());
    let line = stderr.wait_for("listening on http://", Duration::from_secs(20));
    let mut running = Running { child, stderr };
    let Some(line) = line else {
        running.terminate();
        panic!("the proxy did not listen:\n{}", running.stderr.text());
    };
    let url = line[line.find("http://").unwrap()..].trim().to_string();
    (running, url)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// server-everything in its Streamable HTTP mode; its endpoint URL.
fn everything_over_http(dir: &Path) -> (Running, String) {
    let port = free_port();
    let mut child = Command::new("node")
        .arg(dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run node");
    let stderr = Stderr::collect(child.stderr.take().unwrap());
    let up = stderr.wait_for("listening on port", Duration::from_secs(30));
    let mut running = Running { child, stderr };
    if up.is_none() {
        running.terminate();
        panic!(
            "server-everything did not start:\n{}",
            running.stderr.text()
        );
    }
    (running, format!("http://127.0.0.1:{port}/mcp"))
}

fn json_lines(out: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn outcome<'a>(lines: &'a [Value], call: &str, nth: usize) -> &'a Value {
    lines
        .iter()
        .filter(|l| l["call"] == call)
        .nth(nth)
        .unwrap_or_else(|| panic!("no outcome #{nth} for {call}: {lines:?}"))
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The strict TypeScript client over Streamable HTTP: `node http_client.mjs PACKAGE URL CALLS`.
fn ts_http_client(dir: &Path, package: &str, url: &str, calls: &Value) -> Vec<Value> {
    let out = Command::new("node")
        .current_dir(dir)
        .args(["http_client.mjs", package, url, &calls.to_string()])
        .output()
        .expect("cannot run node");
    let lines = json_lines(&out);
    assert!(
        lines.iter().any(|l| l.get("terminated").is_some()),
        "the client did not finish:\n{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    lines
}

/// The Python SDK client: over HTTP (`target` a URL) or on stdio (`target` a command).
fn python_client(python: &Path, target: &[&str], calls: &Value) -> Vec<Value> {
    let script = root().join("tests/proxy/python_http_client.py");
    let mut cmd = Command::new(python);
    cmd.arg(script);
    if target.len() == 1 {
        cmd.args([target[0], &calls.to_string()]);
    } else {
        cmd.args(["--stdio", &calls.to_string()]).args(target);
    }
    let out = cmd.output().expect("cannot run python");
    let lines = json_lines(&out);
    let calls_made = lines.iter().filter(|l| l.get("call").is_some()).count();
    assert!(
        calls_made == calls.as_array().map_or(0, Vec::len),
        "the client did not finish:\n{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    lines
}

fn filesystem_server(dir: &Path, allowed: &Path) -> Vec<String> {
    vec![
        "node".into(),
        dir.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
            .to_string_lossy()
            .into_owned(),
        allowed.to_string_lossy().into_owned(),
    ]
}

// ---- --listen in front of server-filesystem (draft-07 schemas) ----

/// The strict 2.0.0-beta.5 client (which refuses a declared draft-07 schema: see
/// tests/proxy.rs for the same client refusing the server directly) lists and calls the
/// filesystem server's tools over Streamable HTTP through the proxy; an invalid call is
/// refused and never reaches the server (no file appears); the audit log records it.
#[test]
fn strict_beta5_client_over_http_through_listen_in_front_of_filesystem() {
    let Some(dir) = node_dir() else { return };
    let work = temp_dir("fs-ts");
    std::fs::write(work.join("hello.txt"), "hello through HTTP\n").unwrap();
    let audit = work.join("audit.jsonl");
    let server = filesystem_server(&dir, &work);
    let mut args = vec!["--log", audit.to_str().unwrap(), "--"];
    args.extend(server.iter().map(String::as_str));
    let (mut proxy, url) = listen(&args);

    let calls = json!([
        {"name": "read_text_file", "arguments": {"path": work.join("hello.txt")}},
        {"name": "write_file", "arguments": {"path": work.join("refused.txt"), "content": 5}},
        {"name": "write_file", "arguments": {"path": work.join("written.txt"), "content": "ok"}},
    ]);
    let lines = ts_http_client(&dir, "client-beta5", &url, &calls);
    assert!(lines[0]["session"].is_string(), "{lines:?}");
    let tools = lines[1]["tools"].as_array().expect("tools");
    assert!(tools.len() >= 10, "{tools:?}");
    for t in tools {
        // Upgraded: no draft-07 declaration reaches the strict client.
        for side in ["input", "output"] {
            assert!(
                t[side].is_null() || t[side] == "https://json-schema.org/draft/2020-12/schema",
                "{t}"
            );
        }
    }
    let read = outcome(&lines, "read_text_file", 0);
    assert!(read.get("error").is_none(), "{read}");
    assert_eq!(
        read["result"]["structuredContent"]["content"],
        "hello through HTTP\n"
    );
    let refused = outcome(&lines, "write_file", 0);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let why = text_of(&refused["result"]);
    assert!(why.contains("/content"), "{why}");
    assert!(
        !work.join("refused.txt").exists(),
        "the refused call reached the server"
    );
    let written = outcome(&lines, "write_file", 1);
    assert!(written["result"]["isError"] != true, "{written}");
    assert_eq!(
        std::fs::read_to_string(work.join("written.txt")).unwrap(),
        "ok"
    );
    assert_eq!(lines.last().unwrap()["terminated"], true);

    // The session's child is gone with the session (DELETE); SIGTERM stops the proxy.
    let status = proxy
        .terminate()
        .expect("the proxy did not stop on SIGTERM");
    assert!(status.success(), "{status:?}\n{}", proxy.stderr.text());
    let audit: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0]["tool"], "write_file");
    assert!(!audit[0].to_string().contains("\"content\":5"));
}

/// The Python SDK over Streamable HTTP, through the proxy in front of the filesystem
/// server: the same listing, a valid call, a refused one that never reaches the server.
#[test]
fn python_sdk_over_http_through_listen_in_front_of_filesystem() {
    let (Some(dir), Some(python)) = (node_dir(), python()) else {
        return;
    };
    let work = temp_dir("fs-py");
    std::fs::write(work.join("hello.txt"), "hi from python\n").unwrap();
    let server = filesystem_server(&dir, &work);
    let mut args = vec!["--"];
    args.extend(server.iter().map(String::as_str));
    let (_proxy, url) = listen(&args);
    let calls = json!([
        {"name": "read_text_file", "arguments": {"path": work.join("hello.txt")}},
        {"name": "create_directory", "arguments": {"path": ["not", "a", "string"]}},
        {"name": "create_directory", "arguments": {"path": work.join("made")}},
    ]);
    let lines = python_client(&python, &[&url], &calls);
    let tools = lines[1]["tools"].as_array().expect("tools");
    assert!(tools.iter().any(|t| t == "read_text_file"), "{tools:?}");
    let read = outcome(&lines, "read_text_file", 0);
    assert!(
        text_of(&read["result"]).contains("hi from python"),
        "{read}"
    );
    let refused = outcome(&lines, "create_directory", 0);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(text_of(&refused["result"]).contains("/path"), "{refused}");
    let made = outcome(&lines, "create_directory", 1);
    assert!(made["result"]["isError"] != true, "{made}");
    assert!(work.join("made").is_dir());
}

/// Output checks over HTTP as over stdio: the server that breaks its own output schema
/// gets its result turned into an `isError` result; the one that keeps it passes.
#[test]
fn results_are_checked_over_http_as_over_stdio() {
    let Some(python) = python() else { return };
    let work = temp_dir("broken");
    let calls_file = work.join("calls.jsonl");
    let script = root().join("tests/proxy/broken_server.py");
    let (_proxy, url) = listen(&[
        "--",
        python.to_str().unwrap(),
        script.to_str().unwrap(),
        calls_file.to_str().unwrap(),
    ]);
    let calls = json!([
        {"name": "forecast", "arguments": {"city": "Oslo"}},
        {"name": "broken_forecast", "arguments": {"city": "Oslo"}},
        {"name": "forecast", "arguments": {"city": ""}},
    ]);
    let lines = python_client(&python, &[&url], &calls);
    let good = outcome(&lines, "forecast", 0);
    assert_eq!(
        good["result"]["structuredContent"]["sky"], "clear",
        "{good}"
    );
    let bad = outcome(&lines, "broken_forecast", 0);
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    assert!(
        !text_of(&bad["result"]).contains("raining"),
        "a value leaked: {bad}"
    );
    let refused = outcome(&lines, "forecast", 1);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let seen = std::fs::read_to_string(&calls_file).unwrap_or_default();
    assert_eq!(
        seen.lines().count(),
        2,
        "the refused call reached the server: {seen}"
    );
}

// ---- --upstream: server-everything over Streamable HTTP ----

/// The strict current TypeScript client on stdio, the proxy forwarding to server-everything
/// over Streamable HTTP: a valid call runs, an invalid one is refused by the proxy.
#[test]
fn ts_client_on_stdio_through_upstream_to_everything_over_http() {
    let Some(dir) = node_dir() else { return };
    let (_everything, url) = everything_over_http(&dir);
    let run = |tool: &str, args: Value| -> Vec<Value> {
        let out = Command::new("node")
            .current_dir(&dir)
            .arg("client.mjs")
            .args(["client-current", tool, &args.to_string(), "--"])
            .args([BIN, "proxy", "--upstream", &url])
            .output()
            .expect("cannot run node");
        let lines = json_lines(&out);
        assert_eq!(
            lines.len(),
            2,
            "{}\n--- stderr ---\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        lines
    };
    let ok = run("echo", json!({"message": "over HTTP"}));
    let tools = ok[0]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "get-sum"), "{tools:?}");
    assert_eq!(text_of(&ok[1]["result"]), "Echo: over HTTP", "{:?}", ok[1]);
    let sum = run("get-sum", json!({"a": 2, "b": 40}));
    assert!(text_of(&sum[1]["result"]).contains("42"), "{:?}", sum[1]);
    let refused = run("get-sum", json!({"a": "2", "b": 40}));
    assert_eq!(refused[1]["result"]["isError"], true, "{:?}", refused[1]);
    assert!(
        text_of(&refused[1]["result"]).contains("/a"),
        "{:?}",
        refused[1]
    );
}

/// The Python SDK on stdio through `--upstream`, over HTTP through `--listen` and
/// `--upstream` together, and over HTTP through `--listen` in front of the same server on
/// stdio: listing, calls with structured output, a refused call, and the server's
/// sampling request relayed to the client and its answer back.
#[test]
fn python_sdk_through_upstream_and_through_listen_plus_upstream() {
    let (Some(dir), Some(python)) = (node_dir(), python()) else {
        return;
    };
    let (_everything, upstream) = everything_over_http(&dir);
    let calls = json!([
        {"name": "echo", "arguments": {"message": "hi"}},
        {"name": "echo", "arguments": {"message": 5}},
        {"name": "get-structured-content", "arguments": {"location": "New York"}},
        {"name": "trigger-long-running-operation", "arguments": {"duration": 0.3, "steps": 3}},
        {"name": "trigger-sampling-request", "arguments": {"prompt": "2+2?", "maxTokens": 10}},
    ]);
    let check = |lines: &[Value]| {
        let tools = lines[1]["tools"].as_array().expect("tools");
        assert!(
            tools.iter().any(|t| t == "get-structured-content"),
            "{tools:?}"
        );
        assert_eq!(text_of(&outcome(lines, "echo", 0)["result"]), "Echo: hi");
        let refused = outcome(lines, "echo", 1);
        assert_eq!(refused["result"]["isError"], true, "{refused}");
        let structured = outcome(lines, "get-structured-content", 0);
        assert!(
            structured["result"]["structuredContent"]["temperature"].is_number(),
            "{structured}"
        );
        let long = outcome(lines, "trigger-long-running-operation", 0);
        assert!(
            long["result"]["isError"] != true && long.get("error").is_none(),
            "{long}"
        );
        let sampled = outcome(lines, "trigger-sampling-request", 0);
        assert!(
            text_of(&sampled["result"]).contains("sampled-by-python"),
            "{sampled}"
        );
    };
    let stdio = python_client(&python, &[BIN, "proxy", "--upstream", &upstream], &calls);
    check(&stdio);
    let (_proxy, url) = listen(&["--upstream", &upstream]);
    let both = python_client(&python, &[&url], &calls);
    check(&both);
    let everything = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let (_child_proxy, url) = listen(&["--", "node", everything.to_str().unwrap(), "stdio"]);
    let child = python_client(&python, &[&url], &calls);
    check(&child);
}

// ---- hostile HTTP ----

fn http() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

const ACCEPT: &str = "application/json, text/event-stream";

fn initialize_body(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string()
}

fn post(url: &str, headers: &[(&str, &str)], body: impl Into<String>) -> Response {
    let mut r = http()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", ACCEPT);
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.body(body.into()).send().expect("request")
}

/// The JSON-RPC message a response carries (JSON, or the last SSE event).
fn message_of(r: Response) -> Value {
    let sse = r
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap_or("").starts_with("text/event-stream"));
    let body = r.text().unwrap();
    if !sse {
        return serde_json::from_str(&body).unwrap_or(Value::Null);
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .next_back()
        .unwrap_or(Value::Null)
}

fn open_session(url: &str) -> String {
    let r = post(url, &[], initialize_body("2025-11-25"));
    assert_eq!(r.status(), 200);
    let sid = r
        .headers()
        .get("mcp-session-id")
        .expect("a session id")
        .to_str()
        .unwrap()
        .to_string();
    let r = post(
        url,
        &[
            ("mcp-session-id", &sid),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(r.status(), 202);
    sid
}

/// The proxy's endpoint answers hostile HTTP as `serve --http` does: 403 for a foreign
/// Host or Origin, 404 for an unknown session, 400 without one, 413 over the body limit,
/// 415 for another content type, 406 when neither JSON nor SSE is accepted, 405 for other
/// methods, 503 past the session limit; and it keeps serving.
#[test]
fn hostile_http_gets_the_spec_status_codes() {
    let (mut proxy, url) = listen(&[
        "--max-body-bytes",
        "2000",
        "--max-sessions",
        "2",
        "--",
        BIN,
        "serve",
    ]);
    let init = initialize_body("2025-11-25");
    let status = |r: Response| r.status().as_u16();
    assert_eq!(
        status(post(&url, &[("host", "evil.example")], init.clone())),
        403
    );
    assert_eq!(
        status(post(
            &url,
            &[("origin", "http://evil.example")],
            init.clone()
        )),
        403
    );
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    assert_eq!(
        status(post(&url, &[("mcp-session-id", "0123456789abcdef")], list)),
        404
    );
    assert_eq!(status(post(&url, &[], list)), 400);
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(5000)
    );
    assert_eq!(status(post(&url, &[], big)), 413);
    let r = http()
        .post(&url)
        .header("content-type", "text/plain")
        .header("accept", ACCEPT)
        .body(init.clone())
        .send()
        .unwrap();
    assert_eq!(r.status(), 415);
    let r = http()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "text/html")
        .body(init.clone())
        .send()
        .unwrap();
    assert_eq!(r.status(), 406);
    assert_eq!(http().put(&url).send().unwrap().status(), 405);
    assert_eq!(status(post(&url, &[], "{not json")), 400);

    // Two sessions, each with its own server child; a third is refused.
    let a = open_session(&url);
    let b = open_session(&url);
    assert_ne!(a, b);
    assert_eq!(children(&proxy).len(), 2);
    assert_eq!(status(post(&url, &[], init.clone())), 503);
    // Sessions keep working after all that; DELETE ends one, and its id is gone.
    let headers = [
        ("mcp-session-id", a.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let listed = message_of(post(&url, &headers, list));
    assert!(
        listed["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{listed}"
    );
    let r = http()
        .delete(&url)
        .header("mcp-session-id", &a)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(status(post(&url, &headers, list)), 404);
    // Its child is gone with it; its place is free again.
    let since = Instant::now();
    while children(&proxy).len() != 1 {
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "the session's child outlived it"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let c = open_session(&url);
    assert_ne!(c, b);
    // SIGTERM ends the sessions, and their children, before the proxy exits.
    let left = children(&proxy);
    assert_eq!(left.len(), 2);
    let status = proxy
        .terminate()
        .expect("the proxy did not stop on SIGTERM");
    assert!(status.success(), "{status:?}");
    for pid in left {
        let alive = Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(!alive, "child {pid} outlived the proxy");
    }
}

/// The live (not zombie) child processes of a proxy, from /proc.
fn children(proxy: &Running) -> Vec<u32> {
    let parent = proxy.child.id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `PID (COMM) STATE PPID ...`; COMM may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let (state, ppid) = (fields.next(), fields.next().and_then(|p| p.parse().ok()));
        if ppid == Some(parent) && state != Some("Z") {
            found.push(pid);
        }
    }
    found
}

/// `toolschema serve --http 127.0.0.1:0`; its endpoint URL.
fn serve_http() -> (Running, String) {
    let mut child = Command::new(BIN)
        .args(["serve", "--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = Stderr::collect(child.stderr.take().unwrap());
    let line = stderr.wait_for("http://", Duration::from_secs(20));
    let running = Running { child, stderr };
    let line = line.expect("serve --http did not start");
    let url = line[line.find("http://").unwrap()..].trim().to_string();
    (running, url)
}

/// A stateless 2026-07-28 request needs no session: the proxy's pooled server (a stdio
/// child, or the upstream) answers it under the client's own id, even when clients use
/// the same id at once, and invalid calls are still refused.
#[test]
fn stateless_requests_share_a_pooled_server_without_mixing_ids() {
    let (_proxy, url) = listen(&["--", BIN, "serve"]);
    stateless_checks(&url);
    let (_serve, upstream) = serve_http();
    let (_proxy, url) = listen(&["--upstream", &upstream]);
    stateless_checks(&url);
}

fn stateless_checks(url: &str) {
    let url = url.to_string();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    let list =
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": meta}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let listed = message_of(post(&url, &headers, list.to_string()));
    assert_eq!(listed["id"], 7, "{listed}");
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let echo = tools
        .iter()
        .find(|t| t["name"] == "echo")
        .expect("the demo echo tool");
    assert!(echo["inputSchema"]["properties"].is_object(), "{echo}");

    let call = |args: Value| {
        let body = json!({"jsonrpc": "2.0", "id": "same", "method": "tools/call",
            "params": {"name": "echo", "arguments": args, "_meta": meta}});
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "echo"),
        ];
        message_of(post(&url, &headers, body.to_string()))
    };
    let answers: Vec<Value> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let call = &call;
                s.spawn(move || call(json!({"message": format!("client {i}")})))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(a["id"], "same", "{a}");
        assert!(
            text_of(&a["result"]).contains(&format!("client {i}")),
            "{a}"
        );
    }
    let refused = call(json!({"message": 42}));
    assert_eq!(refused["id"], "same");
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    // A header that disagrees with the body is refused before anything runs.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "x"}, "_meta": meta}});
    let r = post(
        &url,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "other"),
        ],
        body.to_string(),
    );
    assert_eq!(r.status(), 400);
}

/// A session whose server child exits: its waiting request is answered with an error,
/// and so is the next one; nothing hangs.
#[test]
fn a_session_whose_server_dies_gets_errors_not_hangs() {
    // Answers initialize, then exits on the next request without answering it.
    let script = r#"read l; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}'; read l; read l; exit 3"#;
    let (_proxy, url) = listen(&["--", "sh", "-c", script]);
    let sid = open_session(&url);
    let headers = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let ping = r#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#;
    let since = Instant::now();
    let answer = message_of(post(&url, &headers, ping));
    assert_eq!(answer["id"], "p1", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exited"),
        "{answer}"
    );
    let again = message_of(post(
        &url,
        &headers,
        r#"{"jsonrpc":"2.0","id":"p2","method":"ping"}"#,
    ));
    assert_eq!(again["id"], "p2", "{again}");
    assert!(again.get("error").is_some(), "{again}");
    assert!(since.elapsed() < Duration::from_secs(10));
}

// ---- upstreams that misbehave ----

/// A scripted Streamable HTTP server answering each tool call in one bad way, by name;
/// the `die` tool stops it listening. One request per connection.
struct BadUpstream {
    url: String,
    stop: Arc<AtomicBool>,
}

impl Drop for BadUpstream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn bad_upstream() -> BadUpstream {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    std::thread::spawn(move || {
        while !flag.load(Ordering::SeqCst) {
            match listener.accept() {
                Ok((tcp, _)) => {
                    let flag = Arc::clone(&flag);
                    std::thread::spawn(move || serve_badly(tcp, &flag));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    BadUpstream { url, stop }
}

fn serve_badly(mut tcp: TcpStream, stop: &AtomicBool) {
    let _ = tcp.set_nonblocking(false);
    let mut reader = BufReader::new(tcp.try_clone().unwrap());
    let mut method_line = String::new();
    if reader.read_line(&mut method_line).is_err() {
        return;
    }
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let reply = |tcp: &mut TcpStream, status: &str, ctype: &str, extra: &str, body: &str| {
        let _ = write!(
            tcp,
            "HTTP/1.1 {status}\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\nconnection: close\r\n{extra}\r\n{body}",
            body.len()
        );
    };
    if !method_line.starts_with("POST") {
        return reply(&mut tcp, "405 Method Not Allowed", "text/plain", "", "");
    }
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = msg["id"].clone();
    let ok = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    match msg["method"].as_str().unwrap_or("") {
        "initialize" => reply(
            &mut tcp,
            "200 OK",
            "application/json",
            "mcp-session-id: bad-1\r\n",
            &ok(
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "bad", "version": "1"}}),
            ),
        ),
        "tools/list" => {
            let names = [
                "garbage_json",
                "status_500",
                "bad_sse",
                "cut_sse",
                "silent",
                "huge_sse",
                "html",
                "die",
            ];
            let tools: Vec<Value> = names
                .iter()
                .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
                .collect();
            reply(
                &mut tcp,
                "200 OK",
                "application/json",
                "",
                &ok(json!({"tools": tools})),
            )
        }
        "tools/call" => match msg["params"]["name"].as_str().unwrap_or("") {
            "garbage_json" => reply(&mut tcp, "200 OK", "application/json", "", "{not json"),
            "status_500" => reply(
                &mut tcp,
                "500 Internal Server Error",
                "text/plain",
                "",
                "boom",
            ),
            "bad_sse" => reply(
                &mut tcp,
                "200 OK",
                "text/event-stream",
                "",
                "data: {not json\n\n",
            ),
            "cut_sse" => reply(
                &mut tcp,
                "200 OK",
                "text/event-stream",
                "",
                "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n",
            ),
            "huge_sse" => {
                let _ = write!(
                    tcp,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: \"{}\"\n\n",
                    "x".repeat(50_000)
                );
            }
            "html" => reply(&mut tcp, "200 OK", "text/html", "", "<html></html>"),
            "die" => {
                stop.store(true, Ordering::SeqCst);
                // Dropped without a word.
            }
            _ => {
                // "silent": never answers while the client waits.
                std::thread::sleep(Duration::from_secs(8));
            }
        },
        _ if id.is_null() => reply(&mut tcp, "202 Accepted", "text/plain", "", ""),
        _ => reply(&mut tcp, "200 OK", "application/json", "", &ok(json!({}))),
    }
}

/// Drives `proxy --upstream` on stdio with raw lines; the answers by id.
struct StdioProxy {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: mpsc::Receiver<Value>,
}

impl StdioProxy {
    fn start(args: &[&str]) -> StdioProxy {
        let mut child = Command::new(BIN)
            .arg("proxy")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str(&line) {
                    let _ = tx.send(v);
                }
            }
        });
        StdioProxy {
            stdin: child.stdin.take(),
            child,
            answers,
        }
    }

    fn send(&mut self, m: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{m}").unwrap();
        stdin.flush().unwrap();
    }

    /// The answers for these ids, each within `timeout` (panics on a hang).
    fn answers_for(&self, ids: &[Value], timeout: Duration) -> Vec<Value> {
        let deadline = Instant::now() + timeout;
        let mut got: Vec<Value> = Vec::new();
        while ids.iter().any(|id| !got.iter().any(|a| a["id"] == *id)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.answers.recv_timeout(left) {
                Ok(v) if v.get("method").is_none() => got.push(v),
                Ok(_) => {}
                Err(_) => panic!("no answer in time for some of {ids:?}; got {got:?}"),
            }
        }
        ids.iter()
            .map(|id| got.iter().find(|a| a["id"] == *id).unwrap().clone())
            .collect()
    }
}

impl Drop for StdioProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call_msg(id: i64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": {}}})
}

/// Every way an upstream can fail a call (garbage JSON, a 500, malformed or cut or
/// oversized SSE, the wrong content type, silence past the timeout, and finally the
/// upstream gone) ends as a JSON-RPC error under the call's id, in bounded time; the
/// proxy neither panics nor hangs, and ends cleanly when the client leaves.
#[test]
fn a_misbehaving_or_dead_upstream_yields_errors_not_hangs() {
    let upstream = bad_upstream();
    let mut proxy = StdioProxy::start(&[
        "--upstream",
        &upstream.url,
        "--upstream-timeout",
        "2",
        "--max-server-message-bytes",
        "10000",
    ]);
    proxy.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    let init = proxy.answers_for(&[json!(0)], Duration::from_secs(10));
    assert_eq!(init[0]["result"]["serverInfo"]["name"], "bad");
    proxy.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let names = [
        "garbage_json",
        "status_500",
        "bad_sse",
        "cut_sse",
        "huge_sse",
        "html",
        "silent",
    ];
    for (i, name) in names.iter().enumerate() {
        proxy.send(&call_msg(10 + i as i64, name));
    }
    let ids: Vec<Value> = (0..names.len()).map(|i| json!(10 + i as i64)).collect();
    let answers = proxy.answers_for(&ids, Duration::from_secs(20));
    for (name, a) in names.iter().zip(&answers) {
        let message = a["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("upstream: "), "{name}: {a}");
    }
    let why = |i: usize| answers[i]["error"]["message"].as_str().unwrap().to_string();
    assert!(why(0).contains("not JSON"), "{}", why(0));
    assert!(why(1).contains("500"), "{}", why(1));
    assert!(why(2).contains("not JSON"), "{}", why(2));
    assert!(why(3).contains("without answering"), "{}", why(3));
    assert!(why(4).contains("over 10000 bytes"), "{}", why(4));
    assert!(why(5).contains("text/html"), "{}", why(5));
    assert!(why(6).contains("no answer within"), "{}", why(6));

    // The upstream dies: the call that killed it, and the next, get errors too.
    proxy.send(&call_msg(30, "die"));
    let died = proxy.answers_for(&[json!(30)], Duration::from_secs(10));
    assert!(died[0].get("error").is_some(), "{:?}", died[0]);
    std::thread::sleep(Duration::from_millis(100));
    proxy.send(&call_msg(31, "garbage_json"));
    let gone = proxy.answers_for(&[json!(31)], Duration::from_secs(10));
    let message = gone[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("cannot reach"), "{:?}", gone[0]);

    // The client leaves: the proxy ends.
    drop(proxy.stdin.take());
    let since = Instant::now();
    loop {
        if let Ok(Some(status)) = proxy.child.try_wait() {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(
            since.elapsed() < Duration::from_secs(15),
            "the proxy did not end"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(upstream);
}

/// `toolschema serve --http` as the upstream, which checks every header the spec names:
/// a handshake-era session (session id and version headers carried, DELETE at the end)
/// and stateless 2026-07-28 requests (the proxy mirrors `MCP-Protocol-Version`,
/// `Mcp-Method` and `Mcp-Name` from the body) both work, and invalid calls are refused.
#[test]
fn upstream_serve_http_in_both_eras() {
    let (_serve, url) = serve_http();

    let mut proxy = StdioProxy::start(&["--upstream", &url]);
    // 2026-07-28 first: no session.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    proxy.send(
        &json!({"jsonrpc": "2.0", "id": "m1", "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "modern"}, "_meta": meta}}),
    );
    proxy.send(
        &json!({"jsonrpc": "2.0", "id": "m2", "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": 1}, "_meta": meta}}),
    );
    let modern = proxy.answers_for(&[json!("m1"), json!("m2")], Duration::from_secs(20));
    assert_eq!(text_of(&modern[0]["result"]), "modern", "{:?}", modern[0]);
    assert_eq!(modern[1]["result"]["isError"], true, "{:?}", modern[1]);
    // Then a handshake session.
    proxy.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    let init = proxy.answers_for(&[json!(0)], Duration::from_secs(10));
    assert_eq!(init[0]["result"]["protocolVersion"], "2025-11-25");
    proxy.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    proxy.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "session"}}}));
    proxy.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}}));
    let calls = proxy.answers_for(&[json!(1), json!(2)], Duration::from_secs(20));
    assert_eq!(text_of(&calls[0]["result"]), "session", "{:?}", calls[0]);
    assert_eq!(calls[1]["result"]["isError"], true, "{:?}", calls[1]);
    drop(proxy.stdin.take());
    let status = proxy.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// A stdio server's progress reaches the client on the stream of the request that asked
/// for it (found by its token), even while a GET stream is open, through `--listen`.
#[test]
fn progress_goes_on_its_own_requests_stream_through_listen() {
    let Some(dir) = node_dir() else { return };
    let everything = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let (_proxy, url) = listen(&["--", "node", everything.to_str().unwrap(), "stdio"]);
    let sid = open_session(&url);
    let get = http()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .unwrap();
    assert_eq!(get.status(), 200);
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "trigger-long-running-operation", "arguments": {"duration": 0.4, "steps": 4},
        "_meta": {"progressToken": "tok-5"}}});
    let r = post(
        &url,
        &[
            ("mcp-session-id", &sid),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        call.to_string(),
    );
    assert_eq!(r.status(), 200);
    let body = r.text().unwrap();
    let events: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect();
    let progress = events
        .iter()
        .filter(|e| {
            e["method"] == "notifications/progress" && e["params"]["progressToken"] == "tok-5"
        })
        .count();
    assert!(progress >= 3, "{events:?}");
    assert_eq!(events.last().unwrap()["id"], 5, "{events:?}");
    assert!(
        events.last().unwrap()["result"]["isError"] != true,
        "{events:?}"
    );
    drop(get);
}
