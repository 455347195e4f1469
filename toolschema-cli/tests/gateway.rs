//! The proxy as a production gateway (#47): Prometheus metrics scraped by a real
//! Prometheus after a replayed session, pinned tool definitions (`toolschema pin`,
//! `--pin`), `--allow`/`--deny` policies, the `--config` file, trace ids in the audit log;
//! against the real server-filesystem and server-everything (npm, pinned in
//! tests/proxy/package-lock.json) and Debian's Prometheus, all installed by `bash .ci/run`
//! (missing locally, those tests say so loudly and skip; with `CI=true` they fail).

mod support;

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use support::installed;
use support::stderr::Stderr;

const BIN: &str = env!("CARGO_BIN_EXE_toolschema");

fn node_dir() -> Option<PathBuf> {
    installed::proxy_packages(&["@modelcontextprotocol/server-everything/dist/index.js"])
}

fn temp_dir(name: &str) -> PathBuf {
    installed::temp_dir(&format!("gateway-{name}"))
}

fn filesystem(dir: &Path, allowed: &Path) -> Vec<String> {
    vec![
        "node".into(),
        dir.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
            .to_string_lossy()
            .into_owned(),
        allowed.to_string_lossy().into_owned(),
    ]
}

fn everything(dir: &Path) -> Vec<String> {
    vec![
        "node".into(),
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
            .to_string_lossy()
            .into_owned(),
        "stdio".into(),
    ]
}

/// `toolschema proxy ARGS` with a client on its stdio, driven message by message.
struct Session {
    child: Child,
    input: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    stderr: Stderr,
}

impl Session {
    fn start(args: &[String]) -> Session {
        let mut child = Command::new(BIN)
            .arg("proxy")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start the proxy");
        let stderr = Stderr::collect(child.stderr.take().unwrap());
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        Session {
            input: child.stdin.take(),
            child,
            lines,
            stderr,
        }
    }

    fn send(&mut self, message: &str) {
        let input = self.input.as_mut().unwrap();
        writeln!(input, "{message}").unwrap();
        input.flush().unwrap();
    }

    /// Sends a request and waits for its answer (skipping notifications).
    fn ask(&mut self, message: Value) -> Value {
        let id = message["id"].clone();
        self.send(&message.to_string());
        let since = Instant::now();
        while since.elapsed() < Duration::from_secs(30) {
            if let Ok(m) = self.lines.recv_timeout(Duration::from_millis(200))
                && m.get("method").is_none()
                && m["id"] == id
            {
                return m;
            }
        }
        panic!("no answer to {message}:\n{}", self.stderr.text());
    }

    fn handshake(&mut self) {
        let init = self.ask(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "gateway-test", "version": "1"}}}),
        );
        assert!(init["result"]["protocolVersion"].is_string(), "{init}");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    fn list(&mut self, id: i64) -> Vec<String> {
        let listed = self.ask(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}));
        listed["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    fn call(&mut self, id: i64, tool: &str, arguments: Value) -> Value {
        self.ask(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}))
    }

    /// Closes the client's side and waits for the proxy to exit.
    fn close(mut self) {
        drop(self.input.take());
        let since = Instant::now();
        while since.elapsed() < Duration::from_secs(15) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        panic!("the proxy did not exit:\n{}", self.stderr.text());
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn http_get(url: &str) -> (u16, String, String) {
    let r = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
        .get(url)
        .send()
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = r.status().as_u16();
    let ctype = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or("").to_string())
        .unwrap_or_default();
    (status, ctype, r.text().unwrap())
}

/// The value of one sample in an exposition text, by its exact name and labels.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// Debian's Prometheus, scraping `target` (HOST:PORT) every second; its query URL.
struct Prometheus {
    child: Child,
    port: u16,
}

impl Prometheus {
    fn start(work: &Path, target: &str) -> Option<Prometheus> {
        let bin = Path::new("/usr/bin/prometheus");
        if !bin.is_file() {
            return installed::missing("Prometheus (Debian package prometheus)");
        }
        let config = work.join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: proxy\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let child = Command::new(bin)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                work.join("tsdb").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(work.join("prometheus.log")).unwrap())
            .spawn()
            .expect("cannot start prometheus");
        Some(Prometheus { child, port })
    }

    /// The instant query's samples, by the labels named in `key`.
    fn query(&self, promql: &str, key: &[&str]) -> HashMap<Vec<String>, f64> {
        let url = reqwest::Url::parse_with_params(
            &format!("http://127.0.0.1:{}/api/v1/query", self.port),
            &[("query", promql)],
        )
        .unwrap();
        let Ok(r) = reqwest::blocking::get(url) else {
            return HashMap::new();
        };
        let Some(body) = r
            .text()
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        else {
            return HashMap::new();
        };
        body["data"]["result"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .map(|s| {
                        let labels = key
                            .iter()
                            .map(|k| s["metric"][k].as_str().unwrap_or("").to_string())
                            .collect();
                        let v = s["value"][1]
                            .as_str()
                            .unwrap_or("nan")
                            .parse()
                            .unwrap_or(f64::NAN);
                        (labels, v)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits until the query answers `want` (Prometheus has scraped the final counts).
    fn wait_for(&self, promql: &str, key: &[&str], want: &HashMap<Vec<String>, f64>) {
        let since = Instant::now();
        let mut got = HashMap::new();
        while since.elapsed() < Duration::from_secs(60) {
            got = self.query(promql, key);
            if &got == want {
                return;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        panic!("Prometheus answers {promql} with {got:?}, expected {want:?}");
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn want(pairs: &[(&[&str], f64)]) -> HashMap<Vec<String>, f64> {
    pairs
        .iter()
        .map(|(k, v)| (k.iter().map(|s| s.to_string()).collect(), *v))
        .collect()
}

// ---- metrics ----

/// A replayed session on stdio through the proxy in front of the real server-everything:
/// a real Prometheus scraping `--metrics` sees each method and tool with its count, the
/// refused call as an error of type `tool_error`, the violation by direction and keyword,
/// the oversized message; the audit log line of the refused call carries the client's
/// trace id.
#[test]
fn prometheus_scrapes_the_named_series_after_a_replayed_stdio_session() {
    let Some(dir) = node_dir() else { return };
    let work = temp_dir("metrics-stdio");
    let log = work.join("audit.jsonl");
    let mut a = args(&[
        "--metrics",
        "127.0.0.1:0",
        "--max-message-bytes",
        "4000",
        "--log",
        log.to_str().unwrap(),
        "--",
    ]);
    a.extend(everything(&dir));
    let mut s = Session::start(&a);
    let line = s.stderr.line("metrics on http://");
    let metrics_url = line[line.find("http://").unwrap()..].trim().to_string();
    let target = metrics_url
        .trim_start_matches("http://")
        .trim_end_matches("/metrics")
        .to_string();
    let Some(prometheus) = Prometheus::start(&work, &target) else {
        return;
    };

    s.handshake();
    let tools = s.list(1);
    assert!(tools.contains(&"get-sum".to_string()), "{tools:?}");
    for id in 2..5 {
        let r = s.call(id, "get-sum", json!({"a": id, "b": 1}));
        assert!(r["result"]["isError"] != true, "{r}");
    }
    let refused = s.ask(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "get-sum", "arguments": {"a": "two", "b": 1},
        "_meta": {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}),
    );
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let big = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"message": "x".repeat(5000)}}});
    let oversized = s.ask(big);
    assert_eq!(oversized["error"]["code"], -32600, "{oversized}");

    // The exposition itself.
    let (status, ctype, text) = http_get(&metrics_url);
    assert_eq!(status, 200);
    assert!(ctype.starts_with("application/openmetrics-text"), "{ctype}");
    let count = |labels: &str| {
        sample(
            &text,
            &format!("mcp_server_operation_duration_seconds_count{{{labels}}}"),
        )
    };
    assert_eq!(
        count(r#"mcp_method_name="initialize""#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        count(r#"mcp_method_name="tools/list""#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        count(r#"mcp_method_name="tools/call",gen_ai_tool_name="get-sum""#),
        Some(3.0),
        "{text}"
    );
    assert_eq!(
        count(r#"mcp_method_name="tools/call",gen_ai_tool_name="get-sum",error_type="tool_error""#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"toolschema_proxy_contract_violations_total{direction="arguments",keyword="type"}"#
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"toolschema_proxy_oversized_messages_total{from="client"}"#
        ),
        Some(1.0),
        "{text}"
    );
    assert!(
        text.contains("# TYPE mcp_server_operation_duration_seconds histogram"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("# EOF"), "{text}");

    // What Prometheus itself scraped.
    prometheus.wait_for(
        "mcp_server_operation_duration_seconds_count",
        &["mcp_method_name", "gen_ai_tool_name", "error_type"],
        &want(&[
            (&["initialize", "", ""], 1.0),
            (&["tools/list", "", ""], 1.0),
            (&["tools/call", "get-sum", ""], 3.0),
            (&["tools/call", "get-sum", "tool_error"], 1.0),
        ]),
    );
    prometheus.wait_for(
        "toolschema_proxy_contract_violations_total",
        &["direction", "keyword"],
        &want(&[(&["arguments", "type"], 1.0)]),
    );
    prometheus.wait_for(
        "toolschema_proxy_oversized_messages_total",
        &["from"],
        &want(&[(&["client"], 1.0)]),
    );
    prometheus.wait_for(
        "toolschema_proxy_refused_messages_total",
        &["from", "reason"],
        &want(&[(&["client", "contract"], 1.0)]),
    );
    s.close();

    let audit: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let refusal = audit
        .iter()
        .find(|r| r["direction"] == "arguments")
        .unwrap_or_else(|| panic!("{audit:?}"));
    assert_eq!(
        refusal["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736",
        "{refusal}"
    );
    let oversize = audit.iter().find(|r| r["event"] == "oversized").unwrap();
    assert!(oversize.get("trace_id").is_none(), "{oversize}");
}

/// Over `--listen` in front of the real filesystem server, the same series are served on
/// the listener's `/metrics` (with `--metrics-path`), per session children counted once.
#[test]
fn the_listeners_metrics_path_serves_the_series_of_an_http_session() {
    let Some(dir) = node_dir() else { return };
    let work = temp_dir("metrics-http");
    let files = work.join("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("a.txt"), "hello\n").unwrap();
    let mut child = Command::new(BIN)
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--metrics-path",
            "/metrics",
            "--",
        ])
        .args(filesystem(&dir, &files))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = Stderr::collect(child.stderr.take().unwrap());
    let line = stderr.line("listening on http://");
    let url = line[line.find("http://").unwrap()..].trim().to_string();
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let post = |sid: Option<&str>, body: Value| {
        let mut r = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(sid) = sid {
            r = r
                .header("mcp-session-id", sid)
                .header("mcp-protocol-version", "2025-11-25");
        }
        r.body(body.to_string()).send().unwrap()
    };
    let r = post(
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let _ = r.text();
    let _ = post(
        Some(&sid),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let _ = post(
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .text();
    let path = files.join("a.txt");
    let ok = post(
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "read_text_file", "arguments": {"path": path}}}),
    )
    .text()
    .unwrap();
    assert!(ok.contains("hello"), "{ok}");
    let refused = post(
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "read_text_file", "arguments": {}}}),
    )
    .text()
    .unwrap();
    assert!(refused.contains("\"isError\":true"), "{refused}");

    let metrics_url = url.replace("/mcp", "/metrics");
    let (status, _, text) = http_get(&metrics_url);
    assert_eq!(status, 200, "{text}");
    let count = |labels: &str| {
        sample(
            &text,
            &format!("mcp_server_operation_duration_seconds_count{{{labels}}}"),
        )
    };
    assert_eq!(
        count(r#"mcp_method_name="tools/list""#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        count(r#"mcp_method_name="tools/call",gen_ai_tool_name="read_text_file""#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        count(
            r#"mcp_method_name="tools/call",gen_ai_tool_name="read_text_file",error_type="tool_error""#
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"toolschema_proxy_contract_violations_total{direction="arguments",keyword="required"}"#
        ),
        Some(1.0),
        "{text}"
    );
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

// ---- pins ----

/// `toolschema pin` writes a digest for each of the real filesystem server's tools; a
/// proxy under `--pin` with that file lists and calls them; with one digest changed (the
/// server's definition no longer matches it), that tool is hidden from the listing, its
/// call refused with a message that says why, logged and counted, while the others work.
#[test]
fn a_tool_whose_definition_changed_is_hidden_and_refused_under_pin() {
    let Some(dir) = node_dir() else { return };
    let work = temp_dir("pin");
    let files = work.join("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("a.txt"), "pinned\n").unwrap();
    let pins = work.join("pins.json");
    let out = Command::new(BIN)
        .args(["pin", "--out", pins.to_str().unwrap(), "--"])
        .args(filesystem(&dir, &files))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&pins).unwrap()).unwrap();
    let digests = file["tools"].as_object().unwrap();
    assert!(digests.len() >= 10, "{file}");
    assert!(
        digests
            .values()
            .all(|d| d.as_str().unwrap().starts_with("sha256:") && d.as_str().unwrap().len() == 71)
    );

    // The file as written: everything matches.
    let proxy_args = |log: &Path| {
        let mut a = args(&[
            "--pin",
            pins.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--metrics",
            "127.0.0.1:0",
            "--",
        ]);
        a.extend(filesystem(&dir, &files));
        a
    };
    let log = work.join("audit-1.jsonl");
    let mut s = Session::start(&proxy_args(&log));
    s.handshake();
    let all = s.list(1);
    assert!(all.contains(&"read_text_file".to_string()), "{all:?}");
    assert_eq!(all.len(), digests.len());
    let r = s.call(2, "read_text_file", json!({"path": files.join("a.txt")}));
    assert!(r.to_string().contains("pinned"), "{r}");
    s.close();
    let before = std::fs::read_to_string(&pins).unwrap();

    // One digest changed: the server's read_text_file no longer matches its pin.
    let mut changed = file.clone();
    changed["tools"]["read_text_file"] = Value::from(format!("sha256:{}", "0".repeat(64)));
    std::fs::write(&pins, changed.to_string()).unwrap();
    let log = work.join("audit-2.jsonl");
    let mut s = Session::start(&proxy_args(&log));
    let line = s.stderr.line("metrics on http://");
    let metrics_url = line[line.find("http://").unwrap()..].trim().to_string();
    s.handshake();
    let listed = s.list(1);
    assert!(
        !listed.contains(&"read_text_file".to_string()),
        "{listed:?}"
    );
    assert_eq!(listed.len(), all.len() - 1, "{listed:?}");
    let refused = s.call(2, "read_text_file", json!({"path": files.join("a.txt")}));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("read_text_file") && message.contains("changed since it was pinned"),
        "{message}"
    );
    assert!(
        !refused.to_string().contains("pinned\\n"),
        "the file was read: {refused}"
    );
    let other = s.call(3, "list_allowed_directories", json!({}));
    assert!(other["result"]["content"].is_array(), "{other}");
    let (_, _, text) = http_get(&metrics_url);
    assert_eq!(
        sample(
            &text,
            r#"toolschema_proxy_pin_mismatches_total{gen_ai_tool_name="read_text_file"}"#
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            r#"toolschema_proxy_refused_messages_total{from="client",reason="pin"}"#
        ),
        Some(1.0),
        "{text}"
    );
    s.close();
    let audit = std::fs::read_to_string(&log).unwrap();
    let records: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        records.iter().any(|r| r["event"] == "pin_mismatch"
            && r["tool"] == "read_text_file"
            && r["pinned"] == changed["tools"]["read_text_file"]
            && r["seen"] == file["tools"]["read_text_file"]),
        "{audit}"
    );
    assert!(
        records
            .iter()
            .any(|r| r["event"] == "blocked" && r["reason"] == "pin"),
        "{audit}"
    );
    // A changed tool is not re-pinned behind the operator's back.
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&pins).unwrap()).unwrap();
    assert_eq!(after, changed);
    assert_ne!(before, std::fs::read_to_string(&pins).unwrap());
}

/// Under `--pin` with no file yet, the first listing pins every tool (trust on first use).
#[test]
fn the_first_listing_under_pin_records_every_tool() {
    let Some(dir) = node_dir() else { return };
    let work = temp_dir("pin-first");
    let pins = work.join("new-pins.json");
    let mut a = args(&["--pin", pins.to_str().unwrap(), "--"]);
    a.extend(everything(&dir));
    let mut s = Session::start(&a);
    s.handshake();
    let listed = s.list(1);
    s.close();
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&pins).unwrap()).unwrap();
    let mut pinned: Vec<&String> = file["tools"].as_object().unwrap().keys().collect();
    let mut listed: Vec<&String> = listed.iter().collect();
    pinned.sort();
    listed.sort();
    assert_eq!(pinned, listed);
}

// ---- policy and the config file ----

/// Every option from a TOML file (the server command too), so that the client's entry is
/// `proxy --config FILE`: `allow`/`deny` globs hide tools of the real filesystem server
/// and refuse their calls (no file written); a flag on the command line wins over the file.
#[test]
fn a_config_file_sets_an_allow_and_deny_policy() {
    let Some(dir) = node_dir() else { return };
    let work = temp_dir("policy");
    let files = work.join("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("a.txt"), "policy\n").unwrap();
    let log = work.join("audit.jsonl");
    let command: Vec<String> = filesystem(&dir, &files);
    let config = work.join("proxy.toml");
    std::fs::write(
        &config,
        format!(
            "allow = [\"read_*\", \"list_*\", \"write_file\"]\ndeny = [\"read_media_file\", \"write_*\"]\nlog = {:?}\non-bad-output = \"error\"\ncommand = {}\n",
            log.to_str().unwrap(),
            serde_json::to_string(&command).unwrap()
        ),
    )
    .unwrap();
    let mut s = Session::start(&args(&["--config", config.to_str().unwrap()]));
    s.handshake();
    let mut listed = s.list(1);
    listed.sort();
    assert!(
        listed
            .iter()
            .all(|t| t.starts_with("read_") || t.starts_with("list_")),
        "{listed:?}"
    );
    assert!(listed.contains(&"read_text_file".to_string()));
    assert!(
        !listed.contains(&"read_media_file".to_string()),
        "{listed:?}"
    );
    let target = files.join("new.txt");
    let refused = s.call(2, "write_file", json!({"path": target, "content": "x"}));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--allow/--deny"),
        "{refused}"
    );
    let ok = s.call(3, "read_text_file", json!({"path": files.join("a.txt")}));
    assert!(ok.to_string().contains("policy"), "{ok}");
    s.close();
    assert!(!target.exists(), "the denied call reached the server");
    let audit = std::fs::read_to_string(&log).unwrap();
    assert!(
        audit.contains(r#""event":"blocked""#) && audit.contains(r#""reason":"policy""#),
        "{audit}"
    );

    // The command line wins: --deny given here replaces the file's list.
    let mut s = Session::start(&args(&[
        "--config",
        config.to_str().unwrap(),
        "--deny",
        "read_text_file",
    ]));
    s.handshake();
    let listed = s.list(1);
    assert!(
        !listed.contains(&"read_text_file".to_string()),
        "{listed:?}"
    );
    assert!(
        listed.contains(&"read_media_file".to_string()),
        "{listed:?}"
    );
    s.close();

    // A typo in the file is an error, not ignored.
    std::fs::write(&config, "alow = [\"x\"]\ncommand = [\"true\"]\n").unwrap();
    let out = Command::new(BIN)
        .args(["proxy", "--config", config.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("alow"), "{err}");

    // Authorization keys are read from the file too, and checked as the flags are: a
    // policy without an issuer, or any of them without a listener, is refused rather than
    // leaving the endpoint open.
    let refused = |text: &str, needle: &str| {
        std::fs::write(&config, text).unwrap();
        let out = Command::new(BIN)
            .args(["proxy", "--config", config.to_str().unwrap()])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains(needle), "{text}: {err}");
    };
    refused(
        "auth-issuer = \"https://as.example\"\ncommand = [\"true\"]\n",
        "need --listen",
    );
    refused(
        "listen = \"127.0.0.1:0\"\nauth-policy = \"p.json\"\ncommand = [\"true\"]\n",
        "need --auth-issuer",
    );
    refused(
        "listen = \"127.0.0.1:0\"\nauth-isuer = \"https://as.example\"\ncommand = [\"true\"]\n",
        "auth-isuer",
    );
}

// ---- serve ----

/// `serve --http --metrics-path /metrics --metrics ADDR`: stateless 2026-07-28 requests
/// are measured by method and tool (an invalid call as a `tool_error`), on both the
/// listener's path and the separate address.
#[test]
fn serve_http_serves_its_metrics() {
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--metrics",
            "127.0.0.1:0",
            "--metrics-path",
            "/metrics",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = Stderr::collect(child.stderr.take().unwrap());
    let line = stderr.line("tool(s) on http://");
    let url = line[line.find("http://").unwrap()..].trim().to_string();
    let line = stderr.line("metrics on http://");
    let separate = line[line.find("http://").unwrap()..].trim().to_string();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let post = |method: &str, name: Option<&str>, body: Value| {
        let mut r = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if let Some(n) = name {
            r = r.header("mcp-name", n);
        }
        r.body(body.to_string()).send().unwrap().text().unwrap()
    };
    let listed = post(
        "tools/list",
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
    );
    assert!(listed.contains("\"echo\""), "{listed}");
    for (id, args) in [(2, json!({"message": "hi"})), (3, json!({"message": 7}))] {
        let answer = post(
            "tools/call",
            Some("echo"),
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": args, "_meta": meta}}),
        );
        assert!(answer.contains(&format!("\"id\":{id}")), "{answer}");
    }
    for metrics_url in [url.replace("/mcp", "/metrics"), separate] {
        let (status, _, text) = http_get(&metrics_url);
        assert_eq!(status, 200, "{text}");
        let count = |labels: &str| {
            sample(
                &text,
                &format!("mcp_server_operation_duration_seconds_count{{{labels}}}"),
            )
        };
        assert_eq!(
            count(r#"mcp_method_name="tools/list""#),
            Some(1.0),
            "{text}"
        );
        assert_eq!(
            count(r#"mcp_method_name="tools/call",gen_ai_tool_name="echo""#),
            Some(1.0),
            "{text}"
        );
        assert_eq!(
            count(
                r#"mcp_method_name="tools/call",gen_ai_tool_name="echo",error_type="tool_error""#
            ),
            Some(1.0),
            "{text}"
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

// ---- traces ----

/// A local OTLP/HTTP receiver (hyper), decoding each export with opentelemetry-proto.
struct Receiver {
    url: String,
    spans: Arc<Mutex<Vec<opentelemetry_proto::tonic::trace::v1::Span>>>,
}

impl Receiver {
    fn start() -> Receiver {
        use http_body_util::BodyExt;
        use prost::Message;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let spans: Arc<Mutex<Vec<_>>> = Arc::default();
        let kept = Arc::clone(&spans);
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let (stream, _) = listener.accept().await.unwrap();
                    let kept = Arc::clone(&kept);
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(
                            move |req: hyper::Request<hyper::body::Incoming>| {
                                let kept = Arc::clone(&kept);
                                async move {
                                    let ok = req.uri().path() == "/v1/traces"
                                        && req.headers()["content-type"] == "application/x-protobuf";
                                    let body = req.into_body().collect().await.unwrap().to_bytes();
                                    let decoded = opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest::decode(body);
                                    let status = match (ok, decoded) {
                                        (true, Ok(export)) => {
                                            let mut k = kept.lock().unwrap();
                                            for rs in export.resource_spans {
                                                for ss in rs.scope_spans {
                                                    k.extend(ss.spans);
                                                }
                                            }
                                            200
                                        }
                                        _ => 400,
                                    };
                                    let mut r = hyper::Response::new(http_body_util::Full::new(
                                        hyper::body::Bytes::new(),
                                    ));
                                    *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
                                    r.headers_mut().insert(
                                        "content-type",
                                        hyper::header::HeaderValue::from_static("application/x-protobuf"),
                                    );
                                    Ok::<_, std::convert::Infallible>(r)
                                }
                            },
                        );
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                            .await;
                    });
                }
            });
        });
        Receiver { url, spans }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// With `--otlp-endpoint`, a local OTLP receiver gets one span per request, in the trace
/// of the client's `_meta.traceparent` (its trace id, its span as parent, its tracestate),
/// named and attributed per the MCP conventions; a request without one starts a trace.
#[test]
fn spans_reach_an_otlp_receiver_in_the_clients_trace() {
    let Some(dir) = node_dir() else { return };
    let receiver = Receiver::start();
    let mut a = args(&["--otlp-endpoint", &receiver.url, "--"]);
    a.extend(everything(&dir));
    let mut s = Session::start(&a);
    s.handshake();
    s.list(1);
    let trace = "0af7651916cd43dd8448eb211c80319c";
    let parent = "b7ad6b7169203331";
    let ok = s.ask(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "get-sum", "arguments": {"a": 1, "b": 2},
        "_meta": {"traceparent": format!("00-{trace}-{parent}-01"), "tracestate": "vendor=abc"}}}),
    );
    assert!(ok["result"]["isError"] != true, "{ok}");
    let refused = s.ask(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "get-sum", "arguments": {"a": "x", "b": 2},
        "_meta": {"traceparent": format!("00-{trace}-{parent}-01")}}}),
    );
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    s.close();

    let since = Instant::now();
    while receiver.spans.lock().unwrap().len() < 4 && since.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let spans = receiver.spans.lock().unwrap().clone();
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(spans.len(), 4, "{names:?}");
    let attr = |span: &opentelemetry_proto::tonic::trace::v1::Span, key: &str| {
        span.attributes
            .iter()
            .find(|kv| kv.key == key)
            .and_then(|kv| kv.value.as_ref())
            .and_then(|v| match &v.value {
                Some(opentelemetry_proto::tonic::common::v1::any_value::Value::StringValue(s)) => {
                    Some(s.clone())
                }
                _ => None,
            })
    };
    let calls: Vec<_> = spans
        .iter()
        .filter(|s| s.name == "tools/call get-sum")
        .collect();
    assert_eq!(calls.len(), 2, "{names:?}");
    for c in &calls {
        assert_eq!(hex(&c.trace_id), trace);
        assert_eq!(hex(&c.parent_span_id), parent);
        assert_eq!(c.kind, 2, "server kind");
        assert_eq!(attr(c, "mcp.method.name").as_deref(), Some("tools/call"));
        assert_eq!(attr(c, "gen_ai.tool.name").as_deref(), Some("get-sum"));
        assert!(c.end_time_unix_nano >= c.start_time_unix_nano);
    }
    let ok_span = calls
        .iter()
        .find(|c| attr(c, "jsonrpc.request.id").as_deref() == Some("2"))
        .unwrap();
    assert_eq!(ok_span.trace_state, "vendor=abc");
    assert_eq!(attr(ok_span, "error.type"), None);
    let bad = calls
        .iter()
        .find(|c| attr(c, "jsonrpc.request.id").as_deref() == Some("3"))
        .unwrap();
    assert_eq!(attr(bad, "error.type").as_deref(), Some("tool_error"));
    assert_eq!(bad.status.as_ref().map(|s| s.code), Some(2), "error status");
    let list = spans.iter().find(|s| s.name == "tools/list").unwrap();
    assert_ne!(hex(&list.trace_id), trace);
    assert!(list.parent_span_id.is_empty());
}

/// The pooled server of stateless requests is started again after it dies, and the
/// restart is counted.
#[test]
fn a_restart_of_the_pooled_server_is_counted() {
    let mut child = Command::new(BIN)
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--metrics-path",
            "/metrics",
            "--",
            BIN,
            "serve",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = Stderr::collect(child.stderr.take().unwrap());
    let line = stderr.line("listening on http://");
    let url = line[line.find("http://").unwrap()..].trim().to_string();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let call = |id: i64| {
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
            .body(
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"message": "m"}, "_meta": meta}})
                .to_string(),
            )
            .send()
            .unwrap()
            .text()
            .unwrap()
    };
    let restarts = || {
        let (_, _, text) = http_get(&url.replace("/mcp", "/metrics"));
        sample(&text, "toolschema_proxy_upstream_restarts_total")
    };
    assert!(call(1).contains("\"text\":\"m\""));
    assert_eq!(restarts(), Some(0.0));
    // The pooled child: the proxy's one child process.
    let pooled = children(child.id());
    assert_eq!(pooled.len(), 1, "{pooled:?}");
    let _ = Command::new("kill")
        .args(["-KILL", &pooled[0].to_string()])
        .status();
    let since = Instant::now();
    let mut answered = String::new();
    // (The first request after the death may still find the dying pool: -32603.)
    while since.elapsed() < Duration::from_secs(20) {
        answered = call(2);
        if answered.contains("\"text\":\"m\"") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(answered.contains("\"text\":\"m\""), "{answered}");
    assert_eq!(restarts(), Some(1.0));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

/// The child processes of `pid` (Linux).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for task in tasks.flatten() {
            if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
                out.extend(
                    list.split_whitespace()
                        .filter_map(|p| p.parse::<u32>().ok()),
                );
            }
        }
    }
    out
}
