//! Hostile input against `toolschema proxy` (issue 53, classes 1–3), with nothing but the
//! binary: `toolschema serve` as the server behind it, and a fake upstream written here.
//!
//! - one client's data never reaches another: concurrent stateless clients using the same
//!   id and progress token on the pooled child each get only their own call's progress;
//! - what the proxy validated is what the server receives: a member named twice, a lone
//!   surrogate, an integer beyond 64 bits, nesting past 127 levels are refused, on stdio
//!   and through `--listen`;
//! - every request gets exactly one answer, in time: generated malformed requests, an
//!   upstream answering another id, trickling, or asking `retry: 0`.

use reqwest::blocking::{Client, Response};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

mod support;
use support::stderr::Stderr;

const BIN: &str = env!("CARGO_BIN_EXE_toolschema");
const V2026: &str = "2026-07-28";

// ---- processes ----

/// A process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
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
        .unwrap();
    let stderr = Stderr::collect(child.stderr.take().unwrap());
    let running = Running(child);
    let line = stderr
        .wait_for("http://", Duration::from_secs(20))
        .expect("the proxy did not start");
    let url = line[line.find("http://").unwrap()..].trim().to_string();
    (running, url)
}

/// A client on the proxy's stdio: lines in, JSON messages out (read on a thread).
struct StdioClient {
    _proxy: Running,
    input: ChildStdin,
    out: mpsc::Receiver<String>,
}

impl StdioClient {
    fn start(args: &[&str]) -> StdioClient {
        let mut child = Command::new(BIN)
            .arg("proxy")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, out) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        StdioClient {
            _proxy: Running(child),
            input,
            out,
        }
    }

    fn send(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).unwrap();
        self.input.write_all(b"\n").unwrap();
        self.input.flush().unwrap();
    }

    /// Every message until the answer with id `until` (within `bound`), that one included.
    fn until(&mut self, until: &Value, bound: Duration) -> Vec<Value> {
        let deadline = Instant::now() + bound;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .out
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer for {until} within {bound:?}; got {got:?}"));
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|_| panic!("the proxy wrote a line that is not JSON: {line}"));
            let done = v.get("method").is_none() && v.get("id") == Some(until);
            got.push(v);
            if done {
                return got;
            }
        }
    }

    /// Handshake at 2025-11-25, and the tool list seen once.
    fn initialize(&mut self) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        );
        self.until(&json!("init"), Duration::from_secs(20));
        self.send(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
        self.send(r#"{"jsonrpc": "2.0", "id": "list", "method": "tools/list"}"#);
        self.until(&json!("list"), Duration::from_secs(20));
    }
}

fn http() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": V2026,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}})
}

/// A stateless 2026-07-28 POST with the headers its body asks for (`method`, `name`).
fn post_stateless(url: &str, method: &str, name: Option<&str>, body: String) -> Response {
    let mut r = http()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", V2026)
        .header("mcp-method", method);
    if let Some(n) = name {
        r = r.header("mcp-name", n);
    }
    r.body(body)
        .send()
        .expect("the proxy answers within the client's timeout")
}

/// Every JSON-RPC message of a response (a JSON body, or each SSE event's data).
fn messages_of(r: Response) -> Vec<Value> {
    let sse = r
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap_or("").starts_with("text/event-stream"));
    let body = r.text().unwrap();
    if !sse {
        return serde_json::from_str(&body).into_iter().collect();
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .collect()
}

/// A tiny deterministic generator (xorshift), so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ---- class 1: one client's data never reaches another ----

/// Clients that all use the same id and progress token call the pooled child at once
/// (`slow` reports progress with `total` = its own step count, which differs per client):
/// every progress notification a client receives is its own call's, under its own token,
/// and its answer is its own.
#[test]
fn pooled_child_sends_each_client_only_its_own_progress() {
    let (_proxy, url) = listen(&["--", BIN, "serve"]);
    let mut rng = Rng(0x5eed_0001);
    for round in 0..3 {
        let clients = 4 + rng.below(4) as usize;
        let results: Vec<(usize, Vec<Value>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..clients)
                .map(|i| {
                    let url = url.clone();
                    s.spawn(move || {
                        // 0.2 s per 4 steps: client i runs about 4 * (i + 1) steps.
                        let seconds = 0.2 * (i + 1) as f64;
                        let mut m = meta();
                        m["progressToken"] = json!("same");
                        let body = json!({"jsonrpc": "2.0", "id": "same", "method": "tools/call",
                            "params": {"name": "slow", "arguments": {"seconds": seconds}, "_meta": m}});
                        let r = post_stateless(&url, "tools/call", Some("slow"), body.to_string());
                        // The step count as the tool computes it.
                        let steps = ((seconds * 1000.0) / 50.0).ceil() as usize;
                        (steps, messages_of(r))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (steps, messages) in &results {
            let mut own_progress = 0;
            for m in messages {
                match m.get("method").and_then(Value::as_str) {
                    Some("notifications/progress") => {
                        assert_eq!(m["params"]["progressToken"], "same", "round {round}: {m}");
                        assert_eq!(
                            m["params"]["total"].as_f64(),
                            Some(*steps as f64),
                            "round {round}: another client's progress reached this one: {messages:?}"
                        );
                        own_progress += 1;
                    }
                    Some(other) => {
                        panic!(
                            "round {round}: a notification {other:?} with no tie to this call reached it: {m}"
                        )
                    }
                    None => {
                        assert_eq!(m["id"], "same", "{m}");
                        assert!(
                            m["result"]["content"][0]["text"]
                                .as_str()
                                .is_some_and(|t| t == format!("waited {steps} steps")),
                            "round {round}: another client's answer: {m}"
                        );
                    }
                }
            }
            assert!(
                own_progress >= 1,
                "round {round}: no progress of its own: {messages:?}"
            );
            assert!(
                messages.last().is_some_and(|m| m.get("result").is_some()),
                "{messages:?}"
            );
        }
    }
}

// ---- class 2: what the proxy validated is what the server receives ----

fn call_text(id: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc": "2.0", "id": "{id}", "method": "tools/call", "params": {{"name": "echo", "arguments": {arguments}}}}}"#
    )
}

/// On stdio: each shape two parsers read differently is answered under its id with a
/// JSON-RPC error naming the location (never the value), and never forwarded (the echo
/// tool would have answered with a result).
#[test]
fn stdio_proxy_refuses_what_parsers_read_differently() {
    let mut client = StdioClient::start(&["--", BIN, "serve"]);
    client.initialize();
    let secret = "etc-passwd-secret";
    let cases: Vec<(&str, String, i64, &str)> = vec![
        (
            "dup",
            call_text(
                "dup",
                &format!(r#"{{"message": "{secret}", "message": "safe"}}"#),
            ),
            -32600,
            "/params/arguments/message",
        ),
        (
            "dup-escaped",
            call_text(
                "dup-escaped",
                &format!(r#"{{"message": "{secret}", "\u006dessage": "safe"}}"#),
            ),
            -32600,
            "/params/arguments/message",
        ),
        (
            "dup-top",
            format!(
                r#"{{"jsonrpc": "2.0", "id": "dup-top", "method": "tools/call", "params": {{"name": "echo", "arguments": {{"message": "{secret}"}}}}, "params": {{"name": "echo", "arguments": {{"message": "x"}}}}}}"#
            ),
            -32600,
            "/params",
        ),
        (
            "surrogate",
            call_text("surrogate", r#"{"message": "\ud800"}"#),
            -32700,
            "/params/arguments/message",
        ),
        (
            "long-int",
            call_text(
                "long-int",
                r#"{"message": "x", "n": 100000000000000000001}"#,
            ),
            -32600,
            "/params/arguments/n",
        ),
        (
            "deep",
            call_text(
                "deep",
                &format!(
                    r#"{{"message": "x", "d": {}{}}}"#,
                    "[".repeat(300),
                    "]".repeat(300)
                ),
            ),
            -32700,
            "deeper than 127",
        ),
        (
            "trailing",
            format!("{} {{}}", call_text("trailing", r#"{"message": "x"}"#)),
            -32700,
            "not one valid JSON value",
        ),
    ];
    for (id, text, code, named) in &cases {
        client.send(text);
        let got = client.until(&json!(id), Duration::from_secs(20));
        let answer = got.last().unwrap();
        assert_eq!(answer["error"]["code"], *code, "{id}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(named), "{id}: {answer}");
        assert!(
            !answer.to_string().contains(secret),
            "{id}: a value in {answer}"
        );
    }
    // The session goes on.
    client.send(&call_text("fine", r#"{"message": "ok"}"#));
    let got = client.until(&json!("fine"), Duration::from_secs(20));
    assert!(got.last().unwrap().get("result").is_some(), "{got:?}");
}

/// `toolschema serve` on stdio applies the same rule: a member named twice is refused
/// with `-32600` under the request's id, even at the top level.
#[test]
fn serve_refuses_a_member_named_twice() {
    let mut child = Command::new(BIN)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let _guard = Running(child);
    let lines = [
        r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}"#,
        r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "a", "message": "b"}}}"#,
        r#"{"jsonrpc": "2.0", "jsonrpc": "2.0", "id": 3, "method": "ping"}"#,
    ];
    for l in lines {
        writeln!(input, "{l}").unwrap();
    }
    input.flush().unwrap();
    let mut answers = HashMap::new();
    while answers.len() < 3 {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "serve ended early");
        let v: Value = serde_json::from_str(&line).unwrap();
        answers.insert(v["id"].to_string(), v);
    }
    assert_eq!(answers["2"]["error"]["code"], -32600, "{:?}", answers["2"]);
    assert!(
        answers["2"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/params/arguments/message")
    );
    assert_eq!(answers["3"]["error"]["code"], -32600, "{:?}", answers["3"]);
    assert!(
        answers["3"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/jsonrpc")
    );
}

// ---- class 3: every request gets exactly one answer, in time ----

/// A generated malformed or edge request, with the id it must be answered under (when it
/// has a readable one).
fn malformed(rng: &mut Rng, n: usize) -> (String, Option<String>) {
    let id = format!("case-{n}");
    let nest = |rng: &mut Rng, inner: String| {
        let depth = rng.below(6) as usize;
        let mut v = inner;
        for d in 0..depth {
            v = if d % 2 == 0 {
                format!(r#"{{"k{d}": {v}, "z": 1}}"#)
            } else {
                format!("[0, {v}]")
            };
        }
        v
    };
    match rng.below(10) {
        0 => {
            let inner = nest(rng, r#"{"p": "/etc/passwd", "p": "/safe"}"#.into());
            (
                call_text(&id, &format!(r#"{{"message": "x", "a": {inner}}}"#)),
                Some(id),
            )
        }
        1 => {
            let inner = nest(rng, r#""\udc00""#.into());
            (
                call_text(&id, &format!(r#"{{"message": "x", "a": {inner}}}"#)),
                Some(id),
            )
        }
        2 => {
            let depth = 128 + rng.below(600) as usize;
            let inner = format!(
                "{}{}",
                "{\"a\":".repeat(depth),
                "1".to_string() + &"}".repeat(depth)
            );
            (
                call_text(&id, &format!(r#"{{"message": "x", "a": {inner}}}"#)),
                Some(id),
            )
        }
        3 => {
            let big = format!("1{}", "0".repeat(20 + rng.below(400) as usize));
            (
                call_text(&id, &format!(r#"{{"message": "x", "a": {big}}}"#)),
                Some(id),
            )
        }
        4 => (
            format!(r#"{{"jsonrpc": "2.0", "id": "{id}", "method": 42, "params": {{}}}}"#),
            Some(id),
        ),
        5 => (
            format!(
                r#"{{"jsonrpc": "2.0", "id": "{id}", "method": "tools/call", "params": "nope"}}"#
            ),
            Some(id),
        ),
        6 => (
            format!(
                r#"{{"jsonrpc": "2.0", "id": "{id}", "method": "tools/call", "params": {{"name": "echo", "arguments": {{"message": "x"}}}}}} trailing"#
            ),
            Some(id),
        ),
        7 => (
            format!(r#"{{"jsonrpc": "2.0", "id": "{id}", "jsonrpc": "2.0", "method": "ping"}}"#),
            Some(id),
        ),
        8 => {
            // Ids no request may carry: answered (under null) or not, never a hang.
            let bad = ["{}", "[1]", "true", "1e400", "NaN"][rng.below(5) as usize];
            (
                format!(r#"{{"jsonrpc": "2.0", "id": {bad}, "method": "ping"}}"#),
                None,
            )
        }
        _ => {
            let garbage =
                ["[", "{", "\u{feff}{}", "[]", "\"\\ud800\"", "{\"id\": }"][rng.below(6) as usize];
            (garbage.to_string(), None)
        }
    }
}

/// Generated malformed and edge requests on stdio: each one with a readable id is
/// answered exactly once, and a ping after them all is answered in time.
#[test]
fn stdio_proxy_answers_every_malformed_request_exactly_once() {
    let mut client = StdioClient::start(&["--", BIN, "serve"]);
    client.initialize();
    let mut rng = Rng(0x5eed_0003);
    let mut expected = Vec::new();
    for n in 0..120 {
        let (text, id) = malformed(&mut rng, n);
        client.send(&text);
        expected.extend(id);
    }
    client.send(r#"{"jsonrpc": "2.0", "id": "last", "method": "ping"}"#);
    let got = client.until(&json!("last"), Duration::from_secs(60));
    // Anything still on its way after the ping's answer shows up within a moment.
    let mut got = got;
    while let Ok(line) = client.out.recv_timeout(Duration::from_millis(500)) {
        got.push(serde_json::from_str(&line).unwrap());
    }
    let mut count: HashMap<String, usize> = HashMap::new();
    for m in &got {
        if let Some(id) = m.get("id").and_then(Value::as_str) {
            *count.entry(id.to_string()).or_default() += 1;
        }
    }
    for id in &expected {
        assert_eq!(count.get(id), Some(&1), "request {id}: answers {got:?}");
    }
}

/// The same generated requests, stateless through `--listen`: each POST is answered in
/// time, and one with a readable id under that id.
#[test]
fn listen_answers_every_malformed_stateless_request() {
    let (_proxy, url) = listen(&["--", BIN, "serve"]);
    let mut rng = Rng(0x5eed_0004);
    for n in 0..60 {
        let (text, id) = malformed(&mut rng, n);
        // The 2026-07-28 envelope, so that it takes the stateless path when readable.
        let text = text.replacen(
            r#""params": {"name": "echo","#,
            &format!(r#""params": {{"_meta": {}, "name": "echo","#, meta()),
            1,
        );
        let started = Instant::now();
        let r = post_stateless(&url, "tools/call", Some("echo"), text.clone());
        let status = r.status();
        let got = messages_of(r);
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "case {n}: {text:.200}"
        );
        if let Some(id) = id
            && text.contains("_meta")
            && status == 200
        {
            let answers: Vec<_> = got.iter().filter(|m| m.get("method").is_none()).collect();
            assert_eq!(answers.len(), 1, "case {n}: {got:?}");
            assert_eq!(answers[0]["id"], json!(id), "case {n}: {got:?}");
            assert!(answers[0].get("error").is_some(), "case {n}: {got:?}");
        }
    }
}

// ---- class 3 with --upstream: a fake upstream that misbehaves on cue ----

#[derive(Clone, Copy, PartialEq)]
enum Misbehaviour {
    /// Answers a call with another request's id.
    OtherId,
    /// Answers a call with an SSE stream of comment lines only, for ever.
    Trickle,
    /// Offers a GET stream that says `retry: 0` and closes at once.
    RetryZero,
    /// Answers a call with what JSON parsers read differently: a lone surrogate (id
    /// `"surrogate"`) or a member named twice (any other id).
    Garbled,
}

struct FakeUpstream {
    url: String,
    gets: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Drop for FakeUpstream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn fake_upstream(how: Misbehaviour) -> FakeUpstream {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let gets = Arc::new(AtomicUsize::new(0));
    let (flag, count) = (Arc::clone(&stop), Arc::clone(&gets));
    std::thread::spawn(move || {
        while !flag.load(Ordering::SeqCst) {
            match listener.accept() {
                Ok((tcp, _)) => {
                    let (flag, count) = (Arc::clone(&flag), Arc::clone(&count));
                    std::thread::spawn(move || serve_fake(tcp, how, &flag, &count));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(2)),
            }
        }
    });
    FakeUpstream { url, gets, stop }
}

fn serve_fake(mut tcp: TcpStream, how: Misbehaviour, stop: &AtomicBool, gets: &AtomicUsize) {
    let _ = tcp.set_nonblocking(false);
    let mut reader = BufReader::new(tcp.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
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
    if request_line.starts_with("GET") {
        gets.fetch_add(1, Ordering::SeqCst);
        if how == Misbehaviour::RetryZero {
            return reply(&mut tcp, "200 OK", "text/event-stream", "", "retry: 0\n\n");
        }
        return reply(&mut tcp, "405 Method Not Allowed", "text/plain", "", "");
    }
    if !request_line.starts_with("POST") {
        return reply(&mut tcp, "405 Method Not Allowed", "text/plain", "", "");
    }
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = msg["id"].clone();
    let answer = |id: &Value, result: Value| {
        json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
    };
    match msg["method"].as_str().unwrap_or("") {
        "initialize" => reply(
            &mut tcp,
            "200 OK",
            "application/json",
            "mcp-session-id: fake-1\r\n",
            &answer(
                &id,
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "fake", "version": "1"}}),
            ),
        ),
        "tools/list" => reply(
            &mut tcp,
            "200 OK",
            "application/json",
            "",
            &answer(
                &id,
                json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
            ),
        ),
        "tools/call" if how == Misbehaviour::OtherId => reply(
            &mut tcp,
            "200 OK",
            "application/json",
            "",
            &answer(&json!("someone-else"), json!({"content": []})),
        ),
        "tools/call" if how == Misbehaviour::Trickle => {
            let _ = write!(
                tcp,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
            );
            while !stop.load(Ordering::SeqCst) {
                if tcp.write_all(b": still here\n\n").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        "tools/call" if how == Misbehaviour::Garbled => {
            let result = if id == "surrogate" {
                r#"{"content": [{"type": "text", "text": "\ud800"}]}"#
            } else {
                r#"{"content": [], "structuredContent": {"ok": true, "ok": false}}"#
            };
            let body = format!(r#"{{"jsonrpc": "2.0", "id": {id}, "result": {result}}}"#);
            reply(&mut tcp, "200 OK", "application/json", "", &body)
        }
        _ if id.is_null() => reply(&mut tcp, "202 Accepted", "text/plain", "", ""),
        _ => reply(
            &mut tcp,
            "200 OK",
            "application/json",
            "",
            &answer(&id, json!({})),
        ),
    }
}

fn call(id: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "t", "arguments": {}}})
    .to_string()
}

/// An upstream answer under another id is not delivered as the answer of anything; the
/// client's own call is answered with an error.
#[test]
fn an_upstream_answer_under_another_id_does_not_leave_the_call_waiting() {
    let upstream = fake_upstream(Misbehaviour::OtherId);
    let mut client = StdioClient::start(&["--upstream", &upstream.url]);
    client.initialize();
    client.send(&call("mine"));
    let got = client.until(&json!("mine"), Duration::from_secs(20));
    let answer = got.last().unwrap();
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(
        got.iter().all(|m| m["id"] != "someone-else"),
        "another id's answer was delivered: {got:?}"
    );
}

/// A call whose answer stream carries nothing but comment lines is bounded by
/// `--upstream-timeout` as a whole.
#[test]
fn a_trickling_upstream_cannot_hold_a_call_past_the_timeout() {
    let upstream = fake_upstream(Misbehaviour::Trickle);
    let mut client = StdioClient::start(&["--upstream-timeout", "2", "--upstream", &upstream.url]);
    client.initialize();
    let started = Instant::now();
    client.send(&call("slow"));
    let got = client.until(&json!("slow"), Duration::from_secs(30));
    let answer = got.last().unwrap();
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("upstream"),
        "{answer}"
    );
    // Generous for a loaded machine; the trickle itself never ends.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

/// A GET stream that says `retry: 0` and closes is reopened with a growing delay, not in a
/// loop.
#[test]
fn a_retry_zero_get_stream_is_not_reopened_in_a_loop() {
    let upstream = fake_upstream(Misbehaviour::RetryZero);
    let mut client = StdioClient::start(&["--upstream", &upstream.url]);
    client.initialize();
    std::thread::sleep(Duration::from_secs(4));
    let gets = upstream.gets.load(Ordering::SeqCst);
    // 0.5 s, then 1 s, 2 s...: a handful in 4 s (before: thousands).
    assert!((1..=8).contains(&gets), "{gets} GETs in 4 s");
}

/// An upstream answer that JSON parsers read differently (a lone surrogate, a member named
/// twice) is not relayed, and the call is answered in its place at once.
#[test]
fn a_garbled_upstream_answer_is_answered_in_its_place() {
    let upstream = fake_upstream(Misbehaviour::Garbled);
    let mut client = StdioClient::start(&["--upstream", &upstream.url]);
    client.initialize();
    for id in ["surrogate", "dup"] {
        client.send(&call(id));
        let got = client.until(&json!(id), Duration::from_secs(20));
        let answer = got.last().unwrap();
        assert_eq!(answer["result"]["isError"], true, "{id}: {answer}");
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("");
        assert!(text.contains("could not be relayed"), "{id}: {answer}");
    }
}
