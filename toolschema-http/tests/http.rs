//! The Streamable HTTP transport over the wire: status codes and headers with a real HTTP
//! client (reqwest). (Real MCP clients against `toolschema serve --http` are
//! toolschema-cli/tests/serve_http.rs.)

use reqwest::blocking::{Client, Response};
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::time::Duration;
use toolschema::mcp::{CallToolResult, LogLevel, Server, Tool};
use toolschema_http::{HttpOptions, HttpServer};

const BOTH: &str = "application/json, text/event-stream";

fn tools() -> Vec<Tool> {
    let echo = Tool::builder("echo")
        .description("echo")
        .input_schema(
            json!({"properties": {"message": {"type": "string"}}, "required": ["message"]}),
        )
        .handler(|args, _| Ok(CallToolResult::text(args["message"].as_str().unwrap_or(""))))
        .build()
        .unwrap();
    let steps = Tool::builder("steps")
        .description("reports progress and logs, then answers")
        .input_schema(json!({"properties": {"ms": {"type": "integer"}}}))
        .handler(|args, ctx| {
            let ms = args["ms"].as_u64().unwrap_or(30);
            for i in 0..3 {
                ctx.log(LogLevel::Info, &format!("step {i}"));
                ctx.progress(f64::from(i), Some(3.0), None);
                std::thread::sleep(Duration::from_millis(ms));
            }
            Ok(CallToolResult::text("all steps done"))
        })
        .build()
        .unwrap();
    let wait = Tool::builder("wait")
        .description("waits up to 10 s for its cancellation, and records it")
        .input_schema(json!({"type": "object"}))
        .handler(|_, ctx| {
            for _ in 0..200 {
                if ctx.is_cancelled() {
                    CANCELLED.store(true, std::sync::atomic::Ordering::SeqCst);
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Ok(CallToolResult::text("waited"))
        })
        .build()
        .unwrap();
    // 2026-07-28 `x-mcp-header`: three parameters mirrored into `Mcp-Param-*` headers.
    let region = Tool::builder("region")
        .description("answers with its region")
        .input_schema(json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "opts": {"properties": {"fast": {"type": "boolean", "x-mcp-header": "Fast"}}},
            "query": {"type": "string"}}}))
        .handler(|args, _| {
            Ok(CallToolResult::text(
                args["region"].as_str().unwrap_or("none"),
            ))
        })
        .build()
        .unwrap();
    vec![echo, steps, wait, region]
}

/// Set by the `wait` tool when it sees its call cancelled.
static CANCELLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A server on a free port, serving on a thread; its endpoint URL.
fn start(options: HttpOptions) -> String {
    let server = Server::builder("http-test", "1.0")
        .tools(tools())
        .build()
        .unwrap();
    let http = HttpServer::bind(&server, "127.0.0.1:0", options).unwrap();
    let url = format!("http://{}/mcp", http.local_addr());
    std::thread::spawn(move || http.run());
    url
}

fn client() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn post(url: &str, headers: &[(&str, &str)], body: &str) -> Response {
    let mut req = client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", BOTH)
        .body(body.to_string());
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().unwrap()
}

fn initialize(url: &str) -> String {
    let r = post(
        url,
        &[],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        .to_string(),
    );
    assert_eq!(r.status(), 200);
    let sid = header(r.headers(), "mcp-session-id").expect("session id");
    assert_eq!(sid.len(), 32, "128 random bits in hex: {sid}");
    let body: Value = json_body(r);
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
    let r = post(
        url,
        &[("mcp-session-id", &sid)],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(r.status(), 202);
    assert_eq!(r.text().unwrap(), "");
    sid
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn json_body(r: Response) -> Value {
    serde_json::from_str(&r.text().unwrap()).unwrap()
}

fn rpc_code(r: Response) -> i64 {
    let body: Value = json_body(r);
    body["error"]["code"].as_i64().unwrap_or(0)
}

/// SSE events (id, data) read until `stop` says so or the stream ends.
fn read_events(r: Response, stop: impl Fn(&Value) -> bool) -> Vec<(String, String)> {
    let mut events = Vec::new();
    let mut id = String::new();
    let mut data = Vec::new();
    for line in BufReader::new(r).lines() {
        let Ok(line) = line else { break };
        if line.is_empty() {
            let text = data.join("\n");
            let done = serde_json::from_str::<Value>(&text).is_ok_and(|v| stop(&v));
            events.push((std::mem::take(&mut id), text));
            data.clear();
            if done {
                break;
            }
        } else if let Some(v) = line.strip_prefix("id: ") {
            id = v.to_string();
        } else if let Some(v) = line.strip_prefix("data: ").or(line.strip_prefix("data:")) {
            data.push(v.to_string());
        }
    }
    events
}

fn call(id: u32, tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": {"progressToken": "tok"}}})
    .to_string()
}

#[test]
fn sessions_open_at_initialize_and_end_with_delete() {
    let url = start(HttpOptions::new());
    let sid = initialize(&url);
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let r = post(&url, &[("mcp-session-id", &sid)], list);
    assert_eq!(r.status(), 200);
    assert_eq!(
        header(r.headers(), "content-type").unwrap(),
        "application/json"
    );
    assert_eq!(json_body(r)["result"]["tools"][0]["name"], "echo");
    // Without a session, or with one that does not exist.
    assert_eq!(post(&url, &[], list).status(), 400);
    assert_eq!(
        post(&url, &[("mcp-session-id", "nope")], list).status(),
        404
    );
    // A second initialize makes a second session.
    let other = initialize(&url);
    assert_ne!(other, sid);
    let d = client()
        .delete(&url)
        .header("mcp-session-id", &sid)
        .send()
        .unwrap();
    assert_eq!(d.status(), 200);
    assert_eq!(post(&url, &[("mcp-session-id", &sid)], list).status(), 404);
    assert_eq!(
        post(&url, &[("mcp-session-id", &other)], list).status(),
        200
    );
    assert_eq!(client().delete(&url).send().unwrap().status(), 400);
    // A response from the client is accepted like a notification.
    let r = post(
        &url,
        &[("mcp-session-id", &other)],
        r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
    );
    assert_eq!(r.status(), 202);
}

#[test]
fn a_call_streams_its_own_progress_and_logs_then_its_answer() {
    let url = start(HttpOptions::new());
    let sid = initialize(&url);
    let r = post(
        &url,
        &[("mcp-session-id", &sid)],
        &call(7, "steps", json!({})),
    );
    assert_eq!(r.status(), 200);
    assert_eq!(
        header(r.headers(), "content-type").unwrap(),
        "text/event-stream"
    );
    let events = read_events(r, |v| v["id"] == 7);
    // The priming event (an id, empty data) comes first, then 3 logs and 3 progress
    // reports, then the answer, each with its own id.
    assert_eq!(events[0].1, "", "{events:?}");
    let messages: Vec<Value> = events[1..]
        .iter()
        .map(|(_, d)| serde_json::from_str(d).unwrap())
        .collect();
    let methods: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(
        methods
            .iter()
            .filter(|m| **m == "notifications/progress")
            .count(),
        3
    );
    assert_eq!(
        methods
            .iter()
            .filter(|m| **m == "notifications/message")
            .count(),
        3
    );
    let last = messages.last().unwrap();
    assert_eq!(last["result"]["content"][0]["text"], "all steps done");
    let mut ids: Vec<&str> = events.iter().map(|(id, _)| id.as_str()).collect();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "event ids are unique: {events:?}");
}

#[test]
fn concurrent_calls_keep_their_notifications_apart() {
    let url = start(HttpOptions::new());
    let sid = initialize(&url);
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let (url, sid) = (url.clone(), sid.clone());
            std::thread::spawn(move || {
                let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "steps", "arguments": {}, "_meta": {"progressToken": format!("tok{i}")}}})
                .to_string();
                let r = post(&url, &[("mcp-session-id", &sid)], &body);
                let events = read_events(r, |v| v["id"] == i);
                for (_, d) in &events[1..] {
                    let v: Value = serde_json::from_str(d).unwrap();
                    if v["method"] == "notifications/progress" {
                        assert_eq!(v["params"]["progressToken"], format!("tok{i}"));
                    }
                }
                assert!(events.last().unwrap().1.contains("all steps done"));
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn a_stream_closed_by_polling_resumes_with_last_event_id() {
    let url = start(HttpOptions::new().poll_after(Duration::from_millis(100)));
    let sid = initialize(&url);
    let r = post(
        &url,
        &[("mcp-session-id", &sid)],
        &call(3, "steps", json!({"ms": 150})),
    );
    let first = read_events(r, |v| v["id"] == 3);
    assert!(
        !first.iter().any(|(_, d)| d.contains("all steps done")),
        "the connection closes before the answer: {first:?}"
    );
    let last_id = first.last().unwrap().0.clone();
    std::thread::sleep(Duration::from_millis(600));
    let r = client()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", &last_id)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let rest = read_events(r, |v| v["id"] == 3);
    assert!(
        rest.last().unwrap().1.contains("all steps done"),
        "{rest:?}"
    );
    // Nothing already delivered comes again.
    assert!(
        rest.iter()
            .all(|(id, _)| !first.iter().any(|(f, _)| f == id))
    );
    // A stream that ended cannot be resumed; a stream of no session neither.
    let r = client()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", "999-1")
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
}

#[test]
fn get_opens_one_server_stream_per_session() {
    let url = start(HttpOptions::new().keep_alive(Duration::from_millis(100)));
    let sid = initialize(&url);
    let get = || {
        client()
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &sid)
            .send()
            .unwrap()
    };
    let mut first = get();
    assert_eq!(first.status(), 200);
    assert_eq!(
        header(first.headers(), "content-type").unwrap(),
        "text/event-stream"
    );
    assert_eq!(get().status(), 409);
    let no_sse = client()
        .get(&url)
        .header("accept", "application/json")
        .header("mcp-session-id", &sid)
        .send()
        .unwrap();
    assert_eq!(no_sse.status(), 406);
    // A quiet stream gets keep-alive comments: after the priming event, a `:` line.
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains("\n:\n") {
        first.read_exact(&mut byte).unwrap();
        seen.push(byte[0]);
    }
    drop(first);
}

#[test]
fn dns_rebinding_content_type_accept_size_and_version_checks() {
    let url = start(HttpOptions::new().max_body_bytes(1024));
    let port = url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let sid = initialize(&url);
    let s = ("mcp-session-id", sid.as_str());
    let evil_host = format!("evil.example.com:{port}");
    assert_eq!(post(&url, &[s, ("host", &evil_host)], ping).status(), 403);
    assert_eq!(
        post(&url, &[s, ("origin", "http://evil.example.com")], ping).status(),
        403
    );
    let local = format!("http://localhost:{port}");
    assert_eq!(post(&url, &[s, ("origin", &local)], ping).status(), 200);
    let r = client()
        .post(&url)
        .header("content-type", "text/plain")
        .header("mcp-session-id", &sid)
        .body(ping)
        .send()
        .unwrap();
    assert_eq!(r.status(), 415);
    let r = client()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "text/html")
        .header("mcp-session-id", &sid)
        .body(ping)
        .send()
        .unwrap();
    assert_eq!(r.status(), 406);
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(2000)
    );
    assert_eq!(post(&url, &[s], &big).status(), 413);
    let r = post(&url, &[s, ("mcp-protocol-version", "1999-01-01")], ping);
    assert_eq!(r.status(), 400);
    assert_eq!(
        post(&url, &[s, ("mcp-protocol-version", "2025-11-25")], ping).status(),
        200
    );
    let r = post(&url, &[s], "{not json");
    assert_eq!(r.status(), 400);
    assert_eq!(rpc_code(r), -32700);
    let r = client().put(&url).send().unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(
        client()
            .get(url.replace("/mcp", "/other"))
            .send()
            .unwrap()
            .status(),
        404
    );
}

#[test]
fn the_allow_lists_admit_configured_hosts_and_origins() {
    let url = start(
        HttpOptions::new()
            .allow_host("mcp.internal")
            .allow_origin("https://app.example.com"),
    );
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    assert_eq!(
        post(&url, &[("host", "mcp.internal:9")], &init).status(),
        200
    );
    assert_eq!(
        post(&url, &[("origin", "https://app.example.com")], &init).status(),
        200
    );
    assert_eq!(
        post(&url, &[("origin", "https://app.example.com.evil")], &init).status(),
        403
    );
}

#[test]
fn sessions_are_limited() {
    let url = start(HttpOptions::new().max_sessions(2));
    initialize(&url);
    initialize(&url);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    assert_eq!(post(&url, &[], &init).status(), 503);
}

#[test]
fn malformed_http_gets_400_and_the_server_keeps_serving() {
    let url = start(HttpOptions::new());
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    for garbage in [
        &b"GARBAGE\r\n\r\n"[..],
        b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: nope\r\n\r\n",
        b"\x00\xff\xfe\r\n\r\n",
        b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ] {
        let mut tcp = std::net::TcpStream::connect(&addr).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        tcp.write_all(garbage).unwrap();
        let mut answer = Vec::new();
        let _ = tcp.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer);
        assert!(text.is_empty() || text.starts_with("HTTP/1.1 400"), "{text}");
    }
    initialize(&url);
}

#[test]
fn the_2026_07_28_era_is_stateless_and_checks_its_headers() {
    let url = start(HttpOptions::new());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}})
            .to_string();
    let v = ("mcp-protocol-version", "2026-07-28");
    let r = post(&url, &[v, ("mcp-method", "tools/list")], &list);
    assert_eq!(r.status(), 200);
    assert!(header(r.headers(), "mcp-session-id").is_none());
    assert_eq!(json_body(r)["result"]["resultType"], "complete");
    // The headers must mirror the body.
    let r = post(&url, &[v], &list);
    assert_eq!(r.status(), 400);
    assert_eq!(rpc_code(r), -32020);
    let r = post(
        &url,
        &[
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-method", "tools/list"),
        ],
        &list,
    );
    assert_eq!((r.status().as_u16(), rpc_code(r)), (400, -32020));
    let r = post(&url, &[v, ("mcp-method", "tools/call")], &list);
    assert_eq!((r.status().as_u16(), rpc_code(r)), (400, -32020));
    let echo = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "hé"}, "_meta": meta}})
    .to_string();
    let r = post(
        &url,
        &[v, ("mcp-method", "tools/call"), ("mcp-name", "other")],
        &echo,
    );
    assert_eq!((r.status().as_u16(), rpc_code(r)), (400, -32020));
    // `=?base64?ZWNobw==?=` is "echo".
    let r = post(
        &url,
        &[
            v,
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?ZWNobw==?="),
        ],
        &echo,
    );
    assert_eq!(r.status(), 200);
    // JSON when the answer was ready at once, else SSE: both are the spec's.
    let answer = if header(r.headers(), "content-type").unwrap() == "application/json" {
        json_body(r)
    } else {
        let events = read_events(r, |m| m["id"] == 2);
        serde_json::from_str(&events.last().unwrap().1).unwrap()
    };
    assert_eq!(answer["result"]["content"][0]["text"], "hé", "{answer}");
    // Unknown methods are 404 with a JSON-RPC body; an unknown version is 400.
    let nope = json!({"jsonrpc": "2.0", "id": 3, "method": "nope/nope", "params": {"_meta": meta}})
        .to_string();
    let r = post(&url, &[v, ("mcp-method", "nope/nope")], &nope);
    assert_eq!((r.status().as_u16(), rpc_code(r)), (404, -32601));
    let future = list.replace("2026-07-28", "2099-01-01");
    let r = post(
        &url,
        &[
            ("mcp-protocol-version", "2099-01-01"),
            ("mcp-method", "tools/list"),
        ],
        &future,
    );
    assert_eq!(r.status(), 400);
    // subscriptions/listen: acknowledged, and the stream stays open.
    let listen = json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen",
        "params": {"notifications": {}, "_meta": meta}})
    .to_string();
    let r = post(&url, &[v, ("mcp-method", "subscriptions/listen")], &listen);
    assert_eq!(
        header(r.headers(), "content-type").unwrap(),
        "text/event-stream"
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let events = read_events(r, |m| m["id"] == 5);
        let _ = tx.send(events);
    });
    assert!(
        rx.recv_timeout(Duration::from_millis(500)).is_err(),
        "the listen stream stays open"
    );
    // Closing a call's stream cancels the call.
    let wait = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "wait", "arguments": {}, "_meta": meta}})
    .to_string();
    let r = post(
        &url,
        &[v, ("mcp-method", "tools/call"), ("mcp-name", "wait")],
        &wait,
    );
    assert_eq!(r.status(), 200);
    let mut first = [0u8; 8];
    let mut r = r;
    r.read_exact(&mut first).unwrap();
    drop(r);
    let mut cancelled = false;
    for _ in 0..100 {
        if CANCELLED.load(std::sync::atomic::Ordering::SeqCst) {
            cancelled = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        cancelled,
        "the call was not cancelled when its stream closed"
    );
    // No sessions, so no GET stream.
    let r = client()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .unwrap();
    assert_eq!(r.status(), 405);
}

// ---- real MCP clients against `toolschema serve --http` ----

/// The answer of a call that was let through, as JSON or as the last SSE event.
fn answer_of(r: Response, id: u32) -> Value {
    assert_eq!(r.status(), 200);
    if header(r.headers(), "content-type").unwrap() == "application/json" {
        json_body(r)
    } else {
        let events = read_events(r, |m| m["id"] == id);
        serde_json::from_str(&events.last().unwrap().1).unwrap()
    }
}

#[test]
fn mcp_param_headers_must_mirror_the_annotated_arguments() {
    let url = start(HttpOptions::new());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let body = |args: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "region", "arguments": args, "_meta": meta}})
        .to_string()
    };
    let base = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "region"),
    ];
    let send = |extra: &[(&str, &str)], args: Value| {
        let mut headers = base.to_vec();
        headers.extend_from_slice(extra);
        post(&url, &headers, &body(args))
    };
    let refused = |r: Response, why: &str| {
        assert_eq!(r.status(), 400, "{why}");
        let b = json_body(r);
        assert_eq!(b["error"]["code"], -32020, "{why}: {b}");
        assert!(!b.to_string().contains("us-west1"), "no value echoed: {b}");
    };
    let all = json!({"region": "us-west1", "n": 42, "opts": {"fast": true}, "query": "q"});
    let good: [(&str, &str); 3] = [
        ("mcp-param-region", "us-west1"),
        ("Mcp-Param-N", "42"),
        ("MCP-PARAM-FAST", "true"),
    ];
    // All three mirrored (header names in any case): the call runs.
    let answer = answer_of(send(&good, all.clone()), 1);
    assert_eq!(
        answer["result"]["content"][0]["text"], "us-west1",
        "{answer}"
    );
    // Integers compare as numbers; the base64 form is decoded.
    let answer = answer_of(
        send(
            &[
                ("mcp-param-region", "=?base64?dXMtd2VzdDE=?="),
                ("mcp-param-n", "42.0"),
                good[2],
            ],
            all.clone(),
        ),
        1,
    );
    assert_eq!(
        answer["result"]["content"][0]["text"], "us-west1",
        "{answer}"
    );
    // Nothing in the body, nothing expected; null is absent.
    let answer = answer_of(send(&[], json!({"query": "q"})), 1);
    assert_eq!(answer["result"]["content"][0]["text"], "none", "{answer}");
    // (A null passes the headers and is then refused by the schema, as a tool error.)
    let answer = answer_of(send(&[], json!({"region": null})), 1);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    // A value in the body without its header (the nested one included).
    refused(send(&good[..2], all.clone()), "Fast missing");
    refused(send(&good[1..], all.clone()), "Region missing");
    // A header that differs from the body.
    refused(
        send(
            &[("mcp-param-region", "eu-west1"), good[1], good[2]],
            all.clone(),
        ),
        "Region differs",
    );
    refused(
        send(&[good[0], ("mcp-param-n", "43"), good[2]], all.clone()),
        "N differs",
    );
    refused(
        send(&[good[0], good[1], ("mcp-param-fast", "True")], all.clone()),
        "Fast differs",
    );
    refused(
        send(
            &[
                ("mcp-param-region", "=?base64?ZXUtd2VzdDE=?="),
                good[1],
                good[2],
            ],
            all.clone(),
        ),
        "encoded Region differs",
    );
    // A header for a value the body does not have; one sent twice; bad base64.
    refused(
        send(&[good[0]], json!({"query": "q"})),
        "Region without a body value",
    );
    refused(
        send(&[good[0], good[0], good[1], good[2]], all.clone()),
        "Region twice",
    );
    refused(
        send(
            &[("mcp-param-region", "=?base64?%%%?="), good[1], good[2]],
            all.clone(),
        ),
        "bad base64",
    );
    // Headers no annotation names are ignored (intermediaries forward them).
    let mut extra = good.to_vec();
    extra.push(("mcp-param-other", "x"));
    let answer = answer_of(send(&extra, all), 1);
    assert_eq!(
        answer["result"]["content"][0]["text"], "us-west1",
        "{answer}"
    );
}
