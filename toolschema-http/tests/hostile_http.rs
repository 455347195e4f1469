//! Hostile clients of the Streamable HTTP server (issue 53): requests that must each get
//! exactly one answer whatever is malformed about them, connections that try to hold every
//! slot (a body sent a byte at a time, idle connections, GET streams held open), and framing
//! a gateway could read differently (several `Host` or `Origin` fields, an absolute-form
//! target, an origin with text after its IPv6 literal). Timings are generous bounds, never
//! measurements.

use reqwest::blocking::{Client, Response};
use serde_json::json;
use serde_json::value::RawValue;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toolschema::mcp::{CallToolResult, Server, Tool};
use toolschema_http::{HttpOptions, HttpServer};

const BOTH: &str = "application/json, text/event-stream";

fn start(options: HttpOptions) -> (String, String) {
    let echo = Tool::builder("echo")
        .description("echo")
        .input_schema(
            json!({"properties": {"message": {"type": "string"}}, "required": ["message"]}),
        )
        .handler(|args, _| Ok(CallToolResult::text(args["message"].as_str().unwrap_or(""))))
        .build()
        .unwrap();
    let slow = Tool::builder("slow")
        .description("answers after 2 s")
        .input_schema(json!({"type": "object"}))
        .handler(|_, _| {
            std::thread::sleep(Duration::from_secs(2));
            Ok(CallToolResult::text("done"))
        })
        .build()
        .unwrap();
    let server = Server::builder("hostile-http", "1.0")
        .tool(echo)
        .tool(slow)
        .build()
        .unwrap();
    let http = HttpServer::bind(&server, "127.0.0.1:0", options).unwrap();
    let addr = http.local_addr().to_string();
    std::thread::spawn(move || http.run());
    (format!("http://{addr}/mcp"), addr)
}

fn client(timeout: Duration) -> Client {
    Client::builder().timeout(timeout).build().unwrap()
}

fn init_body(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string()
}

/// A session at `version`, initialized; its id. `Err` when the server did not serve the
/// handshake within `timeout`.
fn initialize(url: &str, version: &str, timeout: Duration) -> Result<String, String> {
    let c = client(timeout);
    let r = c
        .post(url)
        .header("content-type", "application/json")
        .header("accept", BOTH)
        .body(init_body(version))
        .send()
        .map_err(|e| format!("initialize: {e}"))?;
    if r.status() != 200 {
        return Err(format!("initialize: status {}", r.status()));
    }
    let sid = r
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or("no session id")?;
    let r = c
        .post(url)
        .header("content-type", "application/json")
        .header("accept", BOTH)
        .header("mcp-session-id", &sid)
        .body(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .send()
        .map_err(|e| format!("initialized: {e}"))?;
    if r.status() != 202 {
        return Err(format!("initialized: status {}", r.status()));
    }
    Ok(sid)
}

/// Sends raw bytes and returns the response's status line (empty when the connection
/// closed without one).
fn raw_status(addr: &str, request: &[u8]) -> String {
    let mut tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    tcp.write_all(request).unwrap();
    let mut line = String::new();
    let _ = BufReader::new(tcp).read_line(&mut line);
    line.trim_end().to_string()
}

fn raw_post(target: &str, fields: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut head = format!("POST {target} HTTP/1.1\r\n");
    for (k, v) in fields {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Type: application/json\r\nAccept: {BOTH}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    head.into_bytes()
}

// ---------------------------------------------------------------------------------------
// Class 3: exactly one answer per request, whatever is malformed about it.

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
}

/// One message, often malformed: members of every type, repeated at the top level and
/// below, lone surrogates, huge ids, deep nesting, in any order.
fn message(rng: &mut Rng) -> String {
    let huge_number = "9".repeat(5000);
    let huge_string = format!("\"{}\"", "i".repeat(20_000));
    let deep = nested(200 + rng.below(400));
    let ids = [
        "1",
        "\"a\"",
        "null",
        "true",
        "{}",
        "[]",
        "1.5",
        "-0",
        "1e400",
        "\"\\ud800\"",
        "\"\\u0000\"",
        huge_number.as_str(),
        huge_string.as_str(),
    ];
    let methods = [
        "\"ping\"",
        "\"tools/list\"",
        "\"tools/call\"",
        "\"nope\"",
        "\"notifications/cancelled\"",
        "7",
        "null",
        "\"\\ud800\"",
        "[\"ping\"]",
    ];
    let params = [
        "{}",
        "[]",
        "3",
        "\"x\"",
        "null",
        r#"{"name":"echo","arguments":{"message":"hi"}}"#,
        r#"{"name":"echo","arguments":{"message":"\ud800"}}"#,
        r#"{"name":"echo","name":"nope","arguments":{"message":"hi"}}"#,
        r#"{"name":"echo","arguments":{"message":"a","message":7}}"#,
        r#"{"name":"echo","arguments":{"message":"hi"},"arguments":{}}"#,
        r#"{"_meta":{"progressToken":"t"},"_meta":{"progressToken":1}}"#,
        r#"{"name":"echo","arguments":{"message":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        &format!(r#"{{"name":"echo","arguments":{{"message":{deep}}}}}"#),
        &format!(r#"{{"name":"echo","arguments":{{"message":"x"}},"x":{deep}}}"#),
    ];
    let jsonrpc = ["\"2.0\"", "\"2.0\"", "\"2.0\"", "\"1.0\"", "2", "null"];
    let mut members: Vec<String> = Vec::new();
    if rng.below(8) != 0 {
        members.push(format!("\"jsonrpc\":{}", rng.pick(&jsonrpc)));
    }
    if rng.below(5) != 0 {
        members.push(format!("\"id\":{}", rng.pick(&ids)));
    }
    if rng.below(7) != 0 {
        members.push(format!("\"method\":{}", rng.pick(&methods)));
    }
    if rng.below(3) != 0 {
        members.push(format!("\"params\":{}", rng.pick(&params)));
    }
    match rng.below(10) {
        0 => members.push("\"result\":{}".into()),
        1 => members.push("\"error\":{\"code\":1,\"message\":\"m\"}".into()),
        2 => members.push(format!("\"x\":{deep}")),
        3 => members.push("\"\\ud800\":1".into()),
        _ => {}
    }
    // A member repeated, sometimes with another value.
    if !members.is_empty() && rng.below(3) == 0 {
        let again = members[rng.below(members.len())].clone();
        members.push(again);
        if rng.below(2) == 0 {
            members.push("\"jsonrpc\":\"2.0\"".into());
        }
    }
    for i in (1..members.len()).rev() {
        let j = rng.below(i + 1);
        members.swap(i, j);
    }
    format!("{{{}}}", members.join(","))
}

/// A body: a message, a batch of them, or something that is no message at all.
fn body(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n)
                .map(|_| match rng.below(5) {
                    0 => "1".to_string(),
                    1 => "[]".to_string(),
                    2 => r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#.to_string(),
                    _ => message(rng),
                })
                .collect();
            format!("[{}]", items.join(","))
        }
        1 => {
            // Notifications only.
            let n = 1 + rng.below(3);
            let items: Vec<&str> = (0..n)
                .map(|_| r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#)
                .collect();
            format!("[{}]", items.join(","))
        }
        2 => rng
            .pick(&[
                "",
                " ",
                "{",
                "[",
                "null",
                "1",
                "\"\\ud800\"",
                "{}",
                "[{}]",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{}",
            ])
            .to_string(),
        3 => match rng.below(2) {
            0 => format!("{}{}", "[".repeat(600), "]".repeat(600)),
            _ => nested(700),
        },
        _ => message(rng),
    }
}

/// A message's members, read without building values (an id like `1e400` stays text).
#[derive(serde::Deserialize)]
struct Msg<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// True for a JSON-RPC answer: a batch's array, or an object with a result or an error
/// and no method.
fn is_answer(text: &str) -> bool {
    if text.trim_start().starts_with('[') {
        return serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
    }
    text.trim_start().starts_with('{')
        && serde_json::from_str::<Msg<'_>>(text)
            .is_ok_and(|m| m.method.is_none() && (m.result.is_some() || m.error.is_some()))
}

/// The JSON-RPC answers in a response (an SSE stream read to its end, or a JSON body), or
/// why the response is not one answer.
fn answers(r: Response) -> Result<usize, String> {
    let status = r.status().as_u16();
    let sse = r
        .headers()
        .get("content-type")
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if status == 202 {
        let text = r.text().map_err(|e| e.to_string())?;
        return if text.is_empty() {
            Ok(0)
        } else {
            Err(format!("202 with a body: {text}"))
        };
    }
    if !sse {
        let text = r
            .text()
            .map_err(|e| format!("reading a {status} body: {e}"))?;
        return if is_answer(&text) {
            Ok(1)
        } else {
            Err(format!("{status} with no answer: {text:.300}"))
        };
    }
    if status != 200 {
        return Err(format!("an SSE stream with status {status}"));
    }
    let mut data = Vec::new();
    let mut n = 0;
    for line in BufReader::new(r).lines() {
        let line = line.map_err(|e| format!("the stream broke or stalled: {e}"))?;
        if line.is_empty() {
            if is_answer(&data.join("\n")) {
                n += 1;
            }
            data.clear();
        } else if let Some(v) = line.strip_prefix("data:") {
            data.push(v.trim_start().to_string());
        }
    }
    Ok(n)
}

/// True when the body holds a request (an object with a string method and a string or
/// number id, alone or in a batch), or cannot be read at all: such a body never gets 202.
fn requests_in_body(text: &str) -> bool {
    let is_request = |m: &Msg<'_>| {
        m.method
            .is_some_and(|r| serde_json::from_str::<String>(r.get()).is_ok())
            && m.id.is_some_and(|r| {
                r.get().starts_with('"') && serde_json::from_str::<String>(r.get()).is_ok()
                    || r.get()
                        .starts_with(|c: char| c == '-' || c.is_ascii_digit())
            })
    };
    if text.trim_start().starts_with('[') {
        return match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(items) => items.iter().any(|item| {
                item.get().starts_with('{')
                    && serde_json::from_str::<Msg<'_>>(item.get()).map_or(true, |m| is_request(&m))
            }),
            Err(_) => true,
        };
    }
    !text.trim_start().starts_with('{')
        || serde_json::from_str::<Msg<'_>>(text).map_or(true, |m| is_request(&m))
}

#[test]
fn every_posted_request_gets_exactly_one_answer_in_time() {
    let (url, _) = start(HttpOptions::new());
    let bound = Duration::from_secs(15);
    let batches = initialize(&url, "2025-03-26", bound).unwrap();
    let current = initialize(&url, "2025-11-25", bound).unwrap();
    let c = client(bound);
    let mut rng = Rng(0x5eed_1234_abcd_0053);
    // The shape of the report, first: a repeated `jsonrpc` on a request read as SSE.
    let mut bodies = vec![
        (
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":5,"method":"ping"}"#.to_string(),
            1,
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","jsonrpc":"1.0"}"#.to_string(),
            1,
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"ping","result":{},"result":{}}"#.to_string(),
            1,
        ),
    ];
    for _ in 0..400 {
        bodies.push((body(&mut rng), rng.below(3)));
    }
    for (n, (text, accept)) in bodies.iter().enumerate() {
        let accept = ["application/json", "text/event-stream", BOTH][*accept];
        let session = if n % 2 == 0 { &batches } else { &current };
        let started = Instant::now();
        let r = c
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", accept)
            .header("mcp-session-id", session.as_str())
            .body(text.clone())
            .send()
            .unwrap_or_else(|e| panic!("case {n} ({accept}): no answer: {e}\nbody: {text:.300}"));
        let status = r.status().as_u16();
        let got =
            answers(r).unwrap_or_else(|e| panic!("case {n} ({accept}): {e}\nbody: {text:.300}"));
        assert!(
            started.elapsed() < bound,
            "case {n}: answered after {:?}",
            started.elapsed()
        );
        if status == 202 {
            assert!(
                !requests_in_body(text),
                "case {n}: a request got 202\nbody: {text:.300}"
            );
        } else {
            assert_eq!(
                got, 1,
                "case {n} ({accept}, {status}): answers\nbody: {text:.300}"
            );
        }
    }
}

#[test]
fn a_request_reusing_an_unanswered_id_is_refused_and_the_first_is_still_answered() {
    // Two requests of one session under one id would share one route, and one of them
    // would never be answered: the second is refused, the first keeps its answer.
    let (url, _) = start(HttpOptions::new());
    let bound = Duration::from_secs(20);
    let sid = initialize(&url, "2025-11-25", bound).unwrap();
    let post = {
        let (url, sid) = (url.clone(), sid.clone());
        move |body: &str| {
            client(bound)
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", BOTH)
                .header("mcp-session-id", sid.as_str())
                .body(body.to_string())
                .send()
                .unwrap()
        }
    };
    let first = {
        let post = post.clone();
        std::thread::spawn(move || {
            answers(post(
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#,
            ))
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let second = post(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(second.status(), 409);
    assert_eq!(first.join().unwrap(), Ok(1));
    // Once answered, the id is free again.
    assert_eq!(
        answers(post(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)),
        Ok(1)
    );
}

// ---------------------------------------------------------------------------------------
// Class 4: no client can hold every connection.

/// Opens a connection, sends complete headers for a 200-byte body, then one byte every
/// `every` until the server closes the connection or `stop` is set; the thread's result is
/// what the server sent, and when.
fn slow_body(
    addr: &str,
    every: Duration,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<(String, Duration)> {
    let mut tcp = TcpStream::connect(addr).unwrap();
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                Accept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n";
    tcp.write_all(head.as_bytes()).unwrap();
    tcp.set_read_timeout(Some(every)).unwrap();
    let started = Instant::now();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        while !stop.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(90) {
            match tcp.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if tcp.write_all(b" ").is_err() {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
        (
            String::from_utf8_lossy(&got).into_owned(),
            started.elapsed(),
        )
    })
}

#[test]
fn a_body_sent_a_byte_at_a_time_is_cut_off() {
    let (_, addr) = start(HttpOptions::new());
    let stop = Arc::new(AtomicBool::new(false));
    let slow = slow_body(&addr, Duration::from_secs(2), Arc::clone(&stop));
    let (answer, after) = slow.join().unwrap();
    // Under the default minimum rate (1 KiB/s after 2 s) the connection is cut off in
    // seconds; before, it was never timed out (the thread gives up at 90 s).
    assert!(
        answer.starts_with("HTTP/1.1 408"),
        "after {after:?}: {answer:?}"
    );
    assert!(after < Duration::from_secs(30), "cut off after {after:?}");
}

#[test]
fn a_body_within_the_rate_but_past_the_body_deadline_is_cut_off() {
    let (_, addr) = start(
        HttpOptions::new()
            .min_body_rate(0)
            .body_timeout(Duration::from_secs(3)),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let slow = slow_body(&addr, Duration::from_millis(300), Arc::clone(&stop));
    let (answer, after) = slow.join().unwrap();
    assert!(
        answer.starts_with("HTTP/1.1 408"),
        "after {after:?}: {answer:?}"
    );
    assert!(after < Duration::from_secs(30), "cut off after {after:?}");
}

#[test]
fn slow_bodies_filling_every_connection_do_not_lock_a_new_client_out() {
    // Generous deadlines (a minute) and no minimum rate: only reclaiming the slots of
    // connections doing nothing lets the new client in.
    let cap = 6;
    let (url, addr) = start(
        HttpOptions::new()
            .max_connections(cap)
            .min_body_rate(0)
            .body_timeout(Duration::from_secs(60)),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let attackers: Vec<_> = (0..cap)
        .map(|_| slow_body(&addr, Duration::from_secs(2), Arc::clone(&stop)))
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    let served = initialize(&url, "2025-11-25", Duration::from_secs(10));
    let took = started.elapsed();
    stop.store(true, Ordering::SeqCst);
    served.unwrap_or_else(|e| panic!("a new client was locked out: {e} (after {took:?})"));
    for a in attackers {
        let _ = a.join();
    }
}

/// Opens the session's GET stream on a raw connection and returns it once the stream's
/// headers are in; the stream is never read further.
fn hold_get_stream(addr: &str, sid: &str) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!(
        "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n"
    );
    tcp.write_all(req.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match tcp.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => panic!("no GET stream: {}", String::from_utf8_lossy(&head)),
        }
    }
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    tcp
}

#[test]
fn get_streams_and_idle_connections_filling_every_slot_do_not_lock_a_new_client_out() {
    let cap = 6;
    let (url, addr) = start(HttpOptions::new().max_connections(cap).max_sessions(16));
    let bound = Duration::from_secs(10);
    let mut held = Vec::new();
    for _ in 0..cap - 2 {
        let sid = initialize(&url, "2025-11-25", bound).unwrap();
        held.push(hold_get_stream(&addr, &sid));
    }
    // The other slots: connections that send nothing.
    for _ in 0..2 {
        held.push(TcpStream::connect(&addr).unwrap());
    }
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    let served = initialize(&url, "2025-11-25", bound);
    let took = started.elapsed();
    served.unwrap_or_else(|e| panic!("a new client was locked out: {e} (after {took:?})"));
    // And again, with every slot taken by GET streams alone.
    drop(held);
    let mut held = Vec::new();
    for _ in 0..cap {
        let sid = initialize(&url, "2025-11-25", bound).unwrap();
        held.push(hold_get_stream(&addr, &sid));
    }
    std::thread::sleep(Duration::from_millis(1500));
    initialize(&url, "2025-11-25", bound)
        .unwrap_or_else(|e| panic!("a new client was locked out by GET streams: {e}"));
    drop(held);
}

#[test]
fn sessions_that_only_hold_get_streams_do_not_keep_new_sessions_out() {
    // Every session taken, each with its GET stream read (so never idle by the sweep's
    // rule): a new client still gets a session once the oldest has gone without a request
    // past the reclaim delay; the session ended is gone (404) and its stream closes.
    let (url, addr) = start(
        HttpOptions::new()
            .max_sessions(2)
            .session_reclaim_after(Duration::from_secs(1)),
    );
    let bound = Duration::from_secs(10);
    let first = initialize(&url, "2025-11-25", bound).unwrap();
    let mut first_stream = hold_get_stream(&addr, &first);
    let second = initialize(&url, "2025-11-25", bound).unwrap();
    let _second_stream = hold_get_stream(&addr, &second);
    std::thread::sleep(Duration::from_millis(1500));
    initialize(&url, "2025-11-25", bound)
        .unwrap_or_else(|e| panic!("a new client got no session: {e}"));
    let ping = client(bound)
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", BOTH)
        .header("mcp-session-id", first.as_str())
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .unwrap();
    assert_eq!(ping.status(), 404, "the oldest session was the one ended");
    // The stream's chunked body ends (the connection may stay open for another request).
    let mut rest = Vec::new();
    let mut buf = [0u8; 4096];
    first_stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    while !rest.ends_with(b"0\r\n\r\n") {
        match first_stream.read(&mut buf) {
            Ok(n) if n > 0 => rest.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
    assert!(
        rest.ends_with(b"0\r\n\r\n"),
        "the ended session's stream ends: {}",
        String::from_utf8_lossy(&rest)
    );
}

#[test]
fn a_request_being_answered_keeps_its_connection_when_slots_run_out() {
    // A call waiting for its answer is never the connection given up: fill every other
    // slot with idle connections, then connect more than the cap; the call is answered.
    let cap = 3;
    let slow = Tool::builder("slow")
        .description("answers after 3 s")
        .input_schema(json!({"type": "object"}))
        .handler(|_, _| {
            std::thread::sleep(Duration::from_secs(3));
            Ok(CallToolResult::text("done"))
        })
        .build()
        .unwrap();
    let server = Server::builder("slow", "1.0").tool(slow).build().unwrap();
    let http = HttpServer::bind(
        &server,
        "127.0.0.1:0",
        HttpOptions::new().max_connections(cap),
    )
    .unwrap();
    let addr = http.local_addr().to_string();
    let url = format!("http://{addr}/mcp");
    std::thread::spawn(move || http.run());
    let sid = initialize(&url, "2025-11-25", Duration::from_secs(10)).unwrap();
    let call = {
        let url = url.clone();
        std::thread::spawn(move || {
            let r = client(Duration::from_secs(20))
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", BOTH)
                .header("mcp-session-id", sid.as_str())
                .body(
                    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#,
                )
                .send()
                .unwrap();
            answers(r)
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let idle: Vec<TcpStream> = (0..cap + 3)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    assert_eq!(call.join().unwrap(), Ok(1));
    drop(idle);
}

// ---------------------------------------------------------------------------------------
// Class 5: framing read one way only.

#[test]
fn host_fields_are_read_as_rfc_9112_says() {
    let (_, addr) = start(HttpOptions::new());
    let init = init_body("2025-11-25");
    let status =
        |target: &str, fields: &[(&str, &str)]| raw_status(&addr, &raw_post(target, fields, &init));
    let ok = "HTTP/1.1 200 OK";
    assert_eq!(status("/mcp", &[("Host", "localhost")]), ok);
    // Two Host fields, in either order: 400.
    for fields in [
        [("Host", "localhost"), ("Host", "evil.example")],
        [("Host", "evil.example"), ("Host", "localhost")],
        [("Host", "localhost"), ("Host", "localhost")],
    ] {
        assert!(
            status("/mcp", &fields).starts_with("HTTP/1.1 400"),
            "{fields:?}"
        );
    }
    // An absolute-form target: its authority is the host, the Host field is ignored.
    assert!(
        status("http://evil.example/mcp", &[("Host", "localhost")]).starts_with("HTTP/1.1 403")
    );
    assert!(
        status("http://evil.example:80/mcp", &[("Host", "127.0.0.1")]).starts_with("HTTP/1.1 403")
    );
    assert_eq!(
        status("http://localhost:9/mcp", &[("Host", "evil.example")]),
        ok
    );
    // A Host that is not `host[:port]`.
    for host in [
        "[::1].evil.example",
        "localhost.evil.example",
        "localhost:80:80",
        "localhost/x",
        "user@localhost",
        "[::1]x",
        "localhost:99999",
        "",
    ] {
        let s = status("/mcp", &[("Host", host)]);
        assert!(
            s.starts_with("HTTP/1.1 400") || s.starts_with("HTTP/1.1 403"),
            "{host}: {s}"
        );
    }
    assert_eq!(status("/mcp", &[("Host", "[::1]:8080")]), ok);
}

#[test]
fn origins_are_parsed_strictly_and_sent_once() {
    let (_, addr) = start(HttpOptions::new().allow_origin("https://app.example.com"));
    let init = init_body("2025-11-25");
    let status = |fields: &[(&str, &str)]| {
        let mut all = vec![("Host", "localhost")];
        all.extend_from_slice(fields);
        raw_status(&addr, &raw_post("/mcp", &all, &init))
    };
    let ok = "HTTP/1.1 200 OK";
    for origin in [
        "http://localhost",
        "http://localhost:3000",
        "http://[::1]",
        "http://[::1]:3000",
        "http://127.0.0.1:1",
        "https://app.example.com",
    ] {
        assert_eq!(status(&[("Origin", origin)]), ok, "{origin}");
    }
    for origin in [
        "http://[::1].evil.example",
        "http://[::1]@evil.example",
        "http://localhost@evil.example",
        "http://localhost.evil.example",
        "http://localhost:3000/path",
        "http://localhost/",
        "http://localhost:3000:1",
        "http://localhost#x",
        "localhost",
        "http:/localhost",
        "null",
        "https://app.example.com.evil",
    ] {
        assert!(
            status(&[("Origin", origin)]).starts_with("HTTP/1.1 403"),
            "{origin}"
        );
    }
    // Two Origin fields, in either order.
    for fields in [
        [
            ("Origin", "http://localhost"),
            ("Origin", "http://evil.example"),
        ],
        [
            ("Origin", "http://evil.example"),
            ("Origin", "http://localhost"),
        ],
        [
            ("Origin", "http://localhost"),
            ("Origin", "http://localhost"),
        ],
    ] {
        assert!(status(&fields).starts_with("HTTP/1.1 403"), "{fields:?}");
    }
}
