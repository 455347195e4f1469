//! Two `toolschema proxy --listen` replicas behind Debian's HAProxy on 127.0.0.1 (#47):
//! stateless 2026-07-28 requests spread over both replicas with no affinity, each answered
//! right; handshake-era sessions work with affinity on `Mcp-Session-Id` (a stick table
//! filled from the `initialize` answer's header), and break without it (the control).
//! HAProxy is installed by `bash .ci/run`; missing locally, the test says so loudly and
//! skips; with `CI=true` it fails.

mod support;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::installed;

const BIN: &str = env!("CARGO_BIN_EXE_toolschema");

/// A child process killed when dropped, its stderr kept.
struct Running {
    child: Child,
    stderr: Arc<Mutex<String>>,
}

impl Running {
    fn spawn(cmd: &mut Command) -> Running {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start");
        let stderr: Arc<Mutex<String>> = Arc::default();
        let text = Arc::clone(&stderr);
        let stream = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                let mut t = text.lock().unwrap();
                t.push_str(&line);
                t.push('\n');
            }
        });
        Running { child, stderr }
    }

    fn wait_for(&self, needle: &str) -> String {
        let since = Instant::now();
        while since.elapsed() < Duration::from_secs(30) {
            if let Some(l) = self
                .stderr
                .lock()
                .unwrap()
                .lines()
                .find(|l| l.contains(needle))
            {
                return l.to_string();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no {needle:?}:\n{}", self.stderr.lock().unwrap());
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let since = Instant::now();
        while since.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A replica: `proxy --listen 127.0.0.1:0 --metrics-path /metrics -- toolschema serve`;
/// its HOST:PORT.
fn replica() -> (Running, String) {
    let r = Running::spawn(Command::new(BIN).args([
        "proxy",
        "--listen",
        "127.0.0.1:0",
        "--metrics-path",
        "/metrics",
        "--",
        BIN,
        "serve",
    ]));
    let line = r.wait_for("listening on http://");
    let addr = line[line.find("http://").unwrap() + 7..]
        .trim()
        .trim_end_matches("/mcp")
        .to_string();
    (r, addr)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

/// HAProxy on 127.0.0.1, round robin over the replicas; with `sticky`, affinity on
/// `Mcp-Session-Id`. Its MCP endpoint URL.
fn haproxy(work: &Path, replicas: &[&str], sticky: bool) -> Option<(Running, String)> {
    let bin = Path::new("/usr/sbin/haproxy");
    if !bin.is_file() {
        return installed::missing("HAProxy (Debian package haproxy)");
    }
    let port = free_port();
    let stick = if sticky {
        "  stick-table type string len 128 size 10k expire 30m\n  stick store-response res.hdr(mcp-session-id)\n  stick match req.hdr(mcp-session-id)\n"
    } else {
        ""
    };
    let servers: String = replicas
        .iter()
        .enumerate()
        .map(|(i, a)| format!("  server r{i} {a}\n"))
        .collect();
    let config = work.join(format!("haproxy-{sticky}.cfg"));
    std::fs::write(
        &config,
        format!(
            "defaults\n  mode http\n  timeout connect 5s\n  timeout client 60s\n  timeout server 60s\nfrontend mcp\n  bind 127.0.0.1:{port}\n  default_backend replicas\nbackend replicas\n  balance roundrobin\n{stick}{servers}"
        ),
    )
    .unwrap();
    let r = Running::spawn(Command::new(bin).arg("-db").arg("-f").arg(&config));
    let url = format!("http://127.0.0.1:{port}/mcp");
    let since = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            since.elapsed() < Duration::from_secs(20),
            "haproxy did not start:\n{}",
            r.stderr.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some((r, url))
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// POSTs a message; the status, the session id header, and the JSON-RPC message (JSON or
/// the last SSE event).
fn post(
    http: &reqwest::blocking::Client,
    url: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> (u16, Option<String>, Value) {
    let mut r = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    let r = r.body(body.to_string()).send().expect("request");
    let status = r.status().as_u16();
    let sid = r
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let mut text = String::new();
    r.take(1 << 20).read_to_string(&mut text).unwrap();
    let message = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .next_back()
            .unwrap_or(Value::Null)
    });
    (status, sid, message)
}

/// How many `tools/call` operations a replica's metrics count.
fn calls_counted(addr: &str) -> f64 {
    let text = client()
        .get(format!("http://{addr}/metrics"))
        .send()
        .unwrap()
        .text()
        .unwrap();
    text.lines()
        .filter(|l| {
            l.starts_with("mcp_server_operation_duration_seconds_count{")
                && l.contains(r#"mcp_method_name="tools/call""#)
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

fn echo_text(message: &Value) -> Option<&str> {
    message["result"]["content"][0]["text"].as_str()
}

/// Stateless 2026-07-28 requests need no affinity: spread round robin over two replicas,
/// each gets its own answer under its own id, and both replicas served some.
#[test]
fn stateless_requests_spread_over_two_replicas_without_affinity() {
    let work = installed::temp_dir("lb-stateless");
    let (_a, a) = replica();
    let (_b, b) = replica();
    let Some((_lb, url)) = haproxy(&work, &[&a, &b], false) else {
        return;
    };
    let http = client();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "lb", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];
    for i in 0..20 {
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": format!("n{i}")}, "_meta": meta}});
        let (status, sid, answer) = post(&http, &url, &headers, &body);
        assert_eq!(status, 200, "{answer}");
        assert!(sid.is_none());
        assert_eq!(answer["id"], i, "{answer}");
        assert_eq!(
            echo_text(&answer),
            Some(format!("n{i}").as_str()),
            "{answer}"
        );
    }
    // Invalid arguments are refused whichever replica gets them.
    for i in 20..22 {
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": 5}, "_meta": meta}});
        let (_, _, answer) = post(&http, &url, &headers, &body);
        assert_eq!(answer["result"]["isError"], true, "{answer}");
    }
    let (ca, cb) = (calls_counted(&a), calls_counted(&b));
    assert!(
        ca >= 1.0 && cb >= 1.0,
        "one replica served nothing: {ca} / {cb}"
    );
    assert_eq!(ca + cb, 22.0);
}

/// One handshake-era session: initialize, initialized, list, call; the statuses seen.
fn session(http: &reqwest::blocking::Client, url: &str, n: usize) -> Vec<u16> {
    let (s0, sid, init) = post(
        http,
        url,
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "lb", "version": "1"}}}),
    );
    let Some(sid) = sid else {
        panic!("no session id: {s0} {init}");
    };
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (s1, _, _) = post(
        http,
        url,
        &h,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let (s2, _, listed) = post(
        http,
        url,
        &h,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let (s3, _, called) = post(
        http,
        url,
        &h,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": format!("s{n}")}}}),
    );
    if s2 == 200 {
        assert!(listed["result"]["tools"].is_array(), "{listed}");
    }
    if s3 == 200 {
        assert_eq!(
            echo_text(&called),
            Some(format!("s{n}").as_str()),
            "{called}"
        );
    }
    vec![s0, s1, s2, s3]
}

/// Handshake-era sessions live in one replica: with affinity on `Mcp-Session-Id` every
/// request of a session reaches the replica that opened it (and sessions land on both);
/// the same balancer without the stick rules sends them elsewhere, which answers 404.
#[test]
fn sessions_need_affinity_on_the_session_id() {
    let work = installed::temp_dir("lb-sessions");
    let (_a, a) = replica();
    let (_b, b) = replica();
    let Some((_lb, url)) = haproxy(&work, &[&a, &b], true) else {
        return;
    };
    let http = client();
    for n in 0..6 {
        assert_eq!(session(&http, &url, n), [200, 202, 200, 200], "session {n}");
    }
    let (ca, cb) = (calls_counted(&a), calls_counted(&b));
    assert!(
        ca >= 1.0 && cb >= 1.0,
        "sessions all on one replica: {ca} / {cb}"
    );
    assert_eq!(ca + cb, 6.0);

    // The control: no affinity, and sessions break.
    let Some((_plain, plain)) = haproxy(&work, &[&a, &b], false) else {
        return;
    };
    let statuses: Vec<u16> = (0..6).flat_map(|n| session(&http, &plain, n)).collect();
    assert!(statuses.contains(&404), "{statuses:?}");
}
