//! `toolschema serve` against clients that misbehave on purpose: one bound per class of
//! issue #37 (server half), each exercised with inputs written for this file. Memory is the
//! child's peak resident size (`VmHWM` from `/proc`, Linux), read while it runs.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use toolschema::mcp::{CallToolResult, Server, Tool};

mod support;

use support::mcp::{Client, WAIT};

fn ping_tool() -> Tool {
    Tool::builder("noop")
        .handler(|_, _| Ok(CallToolResult::text("ok")))
        .build()
        .unwrap()
}

/// Waits `seconds` (or until cancelled), reporting progress every 10 ms.
fn waiting_tool() -> Tool {
    Tool::builder("wait")
        .input_schema(json!({"properties": {"seconds": {"type": "number"}}}))
        .handler(|args, ctx| {
            let until =
                Instant::now() + Duration::from_secs_f64(args["seconds"].as_f64().unwrap_or(1.0));
            let mut n = 0.0;
            while Instant::now() < until && !ctx.is_cancelled() {
                n += 1.0;
                ctx.progress(n, None, None);
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(CallToolResult::text("waited"))
        })
        .build()
        .unwrap()
}

fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn spawn_serve(args: &[&str], envs: &[(&str, &str)]) -> std::process::Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolschema"));
    cmd.arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawn toolschema serve")
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

/// Class: a client that never reads stdout. The output queue is bounded in bytes: the
/// server stops reading once it is full, and closes the connection after the write timeout,
/// saying why on stderr; its memory stays bounded throughout.
#[test]
fn a_client_that_never_reads_is_bounded_then_disconnected() {
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/mcp-tools");
    let mut child = spawn_serve(
        &["--tools", corpus],
        &[("TOOLSCHEMA_MCP_WRITE_TIMEOUT_MS", "3000")],
    );
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let _stdout = child.stdout.take().unwrap(); // held open, never read
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    // 10,000 listings of the whole corpus (each page well over 100 KB): gigabytes if queued.
    let writer = std::thread::spawn(move || {
        let line = format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
        );
        for _ in 0..10_000 {
            if stdin.write_all(line.as_bytes()).is_err() {
                return false;
            }
        }
        true
    });
    let start = Instant::now();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < WAIT,
            "serve never gave up on a client that reads nothing"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let wrote_everything = writer.join().unwrap();
    let errors = errors.join().unwrap();
    println!(
        "never-reading client: peak {peak} KiB, exit {status:?} after {:?}",
        start.elapsed()
    );
    assert!(
        errors.contains("has read nothing"),
        "the reason is logged: {errors}"
    );
    assert!(
        !wrote_everything,
        "the server stopped reading instead of queueing"
    );
    assert!(peak < 200 * 1024, "peak {peak} KiB");
}

/// Class: notifications queued for a slow reader. Past half of the output queue, progress
/// notifications are dropped (answers are not): with a 64 KiB queue and a writer that blocks,
/// a call sending 100 progress reports every 10 ms leaves few of them queued.
#[test]
fn notifications_for_a_slow_reader_are_dropped_not_queued() {
    struct Gate {
        open: Arc<AtomicBool>,
        out: Arc<Mutex<Vec<u8>>>,
    }
    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            while !self.open.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(5));
            }
            self.out.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let server = Server::builder("t", "1")
        .tool(waiting_tool())
        .max_queued_bytes(64 << 10)
        .build()
        .unwrap();
    let open = Arc::new(AtomicBool::new(false));
    let out = Arc::new(Mutex::new(Vec::new()));
    let gate = Gate {
        open: Arc::clone(&open),
        out: Arc::clone(&out),
    };
    let token = "t".repeat(200);
    let input = format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait",
            "arguments": {"seconds": 1.5}, "_meta": {"progressToken": token,
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    );
    let opener = {
        let open = Arc::clone(&open);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(2));
            open.store(true, Ordering::Relaxed);
        })
    };
    server.serve(input.as_bytes(), gate).unwrap();
    opener.join().unwrap();
    let out = String::from_utf8(out.lock().unwrap().clone()).unwrap();
    let progress = out
        .lines()
        .filter(|l| l.contains("notifications/progress"))
        .count();
    let answers = out.lines().filter(|l| l.contains("\"result\"")).count();
    println!("slow reader: {progress} progress notifications kept of ~150");
    assert_eq!(answers, 1, "the answer is never dropped");
    // Half of 64 KiB holds about 120 of these 270-byte notifications.
    assert!(progress <= 130, "{progress} notifications kept");
    assert!(progress > 0);
}

/// Class: progress tokens echoed four times a second. A token longer than 256 bytes of
/// JSON is refused with `-32602`; one at the limit is echoed exactly.
#[test]
fn oversized_progress_tokens_are_refused() {
    let server = Server::builder("t", "1")
        .tool(waiting_tool())
        .build()
        .unwrap();
    let c = Client::new(&server);
    let call = |id: u32, token: &Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "wait",
            "arguments": {"seconds": 0.05}, "_meta": {"progressToken": token,
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string()
    };
    let long = json!("p".repeat(255)); // 257 bytes of JSON with its quotes
    c.send_text(&call(1, &long));
    let a = c.answer();
    assert_eq!(a["error"]["code"], -32602, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("256 bytes")
    );
    assert!(
        !a.to_string().contains(&"p".repeat(255)),
        "the token is not echoed"
    );
    let fits = json!("q".repeat(254));
    c.send_text(&call(2, &fits));
    let first = c.next();
    assert_eq!(first["method"], "notifications/progress");
    assert_eq!(first["params"]["progressToken"], fits);
    let huge_number = json!(1);
    c.send_text(&call(3, &huge_number));
    assert!(c.answer()["result"].is_object());
}

/// Class: memory held by calls. A 4 MiB `tools/call` parses to tens of MB; its arguments are
/// moved, not cloned, into the call, and the calls in flight may hold 256 MiB together
/// (estimated from the parsed values), past which a call is answered `-32000`.
#[test]
fn big_calls_are_bounded_in_memory_per_call_and_in_total() {
    let mut child = spawn_serve(&[], &[]);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                let _ = tx.send(v);
            }
        }
    });
    // `slow` waits 3 s; the padding is 2 million small numbers (just under 4 MiB of text).
    let pad = format!("[{}0]", "0,".repeat(2_000_000 - 1));
    let n = 20;
    for id in 0..n {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","arguments":{{"seconds":3,"pad":{pad}}},"_meta":{}}}}}"#,
            meta()
        );
        assert!(line.len() < 4 << 20);
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    let mut busy = 0;
    let mut done = 0;
    let mut peak = 0;
    let start = Instant::now();
    while busy + done < n {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = peak.max(kib);
        }
        let Ok(a) = rx.recv_timeout(Duration::from_millis(50)) else {
            assert!(start.elapsed() < WAIT, "{busy} busy, {done} done");
            continue;
        };
        if a["error"]["code"] == -32000 {
            assert!(
                a["error"]["message"].as_str().unwrap().contains("memory"),
                "{a}"
            );
            busy += 1;
        } else if a["result"].is_object() {
            done += 1;
        }
    }
    drop(stdin);
    let _ = child.wait();
    println!("{n} calls of 4 MiB: {done} ran, {busy} refused; peak {peak} KiB");
    assert!(busy > 0 && done > 0, "{busy} busy, {done} done");
    // 20 calls held at once would be gigabytes; the bound keeps it to a few hundred MB.
    assert!(peak < 700 * 1024, "peak {peak} KiB");
}

/// Class: batches (2025-03-26). A batch holds at most `max_in_flight` messages, its requests
/// count toward that cap while it runs, its answer is bounded in bytes, and `initialize` is
/// refused inside one.
#[test]
fn batches_are_bounded_in_size_concurrency_and_answer() {
    let server = Server::builder("t", "1")
        .tools([ping_tool(), waiting_tool()])
        .max_in_flight(8)
        .max_batch_answer_bytes(600)
        .build()
        .unwrap();
    let c = Client::at(&server, "2025-03-26", json!({}));
    let ping = |id: usize| json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
    let batch = |ids: std::ops::Range<usize>| Value::Array(ids.map(ping).collect()).to_string();
    c.send_text(&batch(0..9));
    let a = c.next();
    assert_eq!(a["error"]["code"], -32600, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 8")
    );
    // An answer past 600 bytes: the pings that do not fit get -32000 with their ids.
    let list = |id: usize| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
    c.send_text(&Value::Array((0..8).map(list).collect()).to_string());
    let answers = c.next();
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 8);
    assert!(answers[0]["result"]["tools"].is_array());
    let last = &answers[7];
    assert_eq!(last["id"], 7);
    assert_eq!(last["error"]["code"], -32000, "{last}");
    // Requests in flight leave no room: six calls running, a batch of three is refused per
    // request, with each id.
    for id in 100..106 {
        c.send_text(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "wait", "arguments": {"seconds": 2}}})
            .to_string(),
        );
    }
    c.send_text(&batch(0..3));
    let busy = c.answer();
    let busy = busy
        .as_array()
        .unwrap_or_else(|| panic!("an array of errors: {busy}"));
    assert_eq!(busy.len(), 3);
    assert!(busy.iter().all(|a| a["error"]["code"] == -32000));
    assert_eq!(busy[2]["id"], 2);
    // initialize must not be part of a batch.
    let mut items = vec![json!({"jsonrpc": "2.0", "id": "i", "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {}}})];
    items.push(ping(1));
    let start = Instant::now();
    while c.conn.in_flight() > 0 {
        assert!(start.elapsed() < WAIT);
        std::thread::sleep(Duration::from_millis(20));
    }
    c.send_text(&Value::Array(items).to_string());
    let a = loop {
        let a = c.next();
        if a[0]["id"] == "i" {
            break a;
        }
    };
    assert_eq!(a[0]["error"]["code"], -32600, "{a}");
    assert_eq!(a[1]["result"], json!({}));
}

/// Class: validation on the reading thread. A call's arguments are checked on the call's own
/// thread: here the answer to invalid arguments cannot be delivered until the test allows it,
/// and `handle` (the reading side) returns at once and goes on answering `ping`.
#[test]
fn a_call_being_checked_never_blocks_reading() {
    let strict = Tool::builder("strict")
        .input_schema(json!({"properties": {"n": {"type": "integer"}}, "required": ["n"]}))
        .handler(|_, _| Ok(CallToolResult::text("ok")))
        .build()
        .unwrap();
    let server = Server::builder("t", "1").tool(strict).build().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let tx = Mutex::new(tx);
    let conn = server.connect(move |line| {
        if line.contains("\"id\":\"held\"") {
            let _ = release_rx.lock().unwrap().recv();
        }
        let _ = tx.lock().unwrap().send(line);
    });
    let handled = Arc::new(AtomicBool::new(false));
    let reader = {
        let handled = Arc::clone(&handled);
        std::thread::spawn(move || {
            conn.handle(
                &json!({"jsonrpc": "2.0", "id": "held", "method": "tools/call", "params": {
                    "name": "strict", "arguments": {"n": "not a number"}, "_meta": meta()}})
                .to_string(),
            );
            conn.handle(r#"{"jsonrpc":"2.0","id":"p","method":"ping","params":{}}"#);
            handled.store(true, Ordering::Relaxed);
            conn
        })
    };
    // `ping` at 2026-07-28 is not a method, so its answer is an error; what matters is that
    // it comes while the call's answer is held.
    let first: Value = serde_json::from_str(&rx.recv_timeout(WAIT).unwrap()).unwrap();
    assert_eq!(first["id"], "p", "{first}");
    release_tx.send(()).unwrap();
    let second: Value = serde_json::from_str(&rx.recv_timeout(WAIT).unwrap()).unwrap();
    assert_eq!(second["id"], "held");
    assert_eq!(second["result"]["isError"], true);
    let _ = reader.join().unwrap();
    assert!(handled.load(Ordering::Relaxed));
}

/// Class: JSON-RPC ids and envelopes. Ids come back exactly as sent; valid JSON past the
/// parser's limits (nesting, `1e400`) inside params is answered with the id.
#[test]
fn ids_are_echoed_as_sent_and_unreadable_params_keep_the_id() {
    let server = Server::builder("t", "1")
        .tool(waiting_tool())
        .build()
        .unwrap();
    let c = Client::at(&server, "2025-11-25", json!({}));
    for id in [
        "100000000000000000001",
        "1e2",
        "-0",
        "1.50",
        r#""ab\u0063""#,
    ] {
        c.send_text(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        let line = c.line();
        assert!(line.contains(&format!("\"id\":{id},")), "{id}: {line}");
    }
    // Two ids beyond u64 that a float would merge are two calls.
    for id in ["100000000000000000001", "100000000000000000002"] {
        c.send_text(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"wait","arguments":{{"seconds":0.2}}}}}}"#
        ));
    }
    let mut got = vec![c.line(), c.line()];
    got.retain(|l| l.contains("\"result\""));
    assert_eq!(got.len(), 2, "{got:?}");
    // Cancellation by the same id, escaped differently.
    c.send_text(r#"{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"wait","arguments":{"seconds":20}}}"#);
    c.send_text(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ab\u0063"}}"#,
    );
    c.send_text(r#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    assert!(c.line().contains("\"after\""));
    let start = Instant::now();
    while c.conn.in_flight() > 0 {
        assert!(start.elapsed() < WAIT, "the cancelled call kept running");
        std::thread::sleep(Duration::from_millis(10));
    }
    // 200 levels of nesting and a number beyond f64, inside params.
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    for (id, args) in [(7, deep.as_str()), (8, "{\"x\":1e400}")] {
        c.send_text(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"wait","arguments":{args}}}}}"#
        ));
        let a = c.next();
        assert_eq!(a["id"], id, "{a}");
        assert_eq!(a["error"]["code"], -32602, "{a}");
    }
    // Whole messages too deep to read at all keep their id too when it comes first.
    c.send_text(&format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"a":{deep}}}}}"#
    ));
    assert_eq!(c.next()["id"], 9);
    // Not JSON: -32700 with a null id; JSON that is no object: -32600.
    c.send_text("{\"id\": 10,");
    assert_eq!(c.next()["error"]["code"], -32700);
    c.send_text("\"just a string\"");
    assert_eq!(c.next()["error"]["code"], -32600);
    c.send_text(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
    let a = c.next();
    assert!(a["id"].is_null() && a["error"]["code"] == -32600, "{a}");
}

/// Class: the handshake. A second `initialize` is refused and changes nothing.
#[test]
fn a_second_initialize_is_refused() {
    let server = Server::builder("t", "1").tool(ping_tool()).build().unwrap();
    let c = Client::at(&server, "2024-11-05", json!({}));
    c.send_text(r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#);
    let a = c.next();
    assert_eq!(a["error"]["code"], -32600, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2024-11-05")
    );
    // Still 2024-11-05: a batch is refused, as that version has none.
    c.send_text(r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#);
    let a = c.next();
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2024-11-05"),
        "{a}"
    );
}

/// Class: a result breaking the tool's own output schema. The demo `calculate_stats` no
/// longer overflows on numbers near `f64::MAX`; and any such break is answered as an
/// `isError` result naming the location, the details on stderr.
#[test]
fn a_result_breaking_its_schema_is_the_servers_fault() {
    let mut child = spawn_serve(&[], &[]);
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "calculate_stats",
            "arguments": {"numbers": [1e308, 1e308]}, "_meta": meta()}})
    )
    .unwrap();
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child.wait().unwrap();
    let a: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let s = &a["result"]["structuredContent"];
    assert_eq!(s["mean"], json!(1e308), "{a}");
    assert_eq!(s["median"], json!(1e308), "{a}");
    assert_eq!(s["count"], 2);

    let liar = Tool::builder("liar")
        .output_schema(json!({"properties": {"mean": {"type": "number"}}, "required": ["mean"]}))
        .handler(|_, _| Ok(CallToolResult::structured(json!({"mean": null}))))
        .build()
        .unwrap();
    let server = Server::builder("t", "1").tool(liar).build().unwrap();
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let c = Client::at(&server, version, json!({}));
        c.send_text(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"liar"}}"#);
        let a = c.next();
        assert_eq!(a["result"]["isError"], true, "{version}: {a}");
        let text = a["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("- /mean: must be number") && text.contains("/properties/mean/type"),
            "{text}"
        );
    }
}

/// Class: client strings echoed in errors. Every one is clipped to 128 characters and
/// written with JSON escapes, never Rust's.
#[test]
fn echoed_client_strings_are_clipped_and_json_escaped() {
    let server = Server::builder("t", "1").tool(ping_tool()).build().unwrap();
    let c = Client::new(&server);
    let huge = "9".repeat(1 << 20);
    c.send_text(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": huge, "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string(),
    );
    let line = c.line();
    assert!(line.len() < 1000, "{} bytes", line.len());
    let a: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(a["error"]["code"], -32022);
    let requested = a["error"]["data"]["requested"].as_str().unwrap();
    assert_eq!(
        requested.chars().count(),
        129,
        "128 characters and an ellipsis"
    );
    let method = format!("x{}", "m".repeat(10_000));
    c.send_text(
        &json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": {"_meta": meta()}})
            .to_string(),
    );
    assert!(c.line().len() < 1000);
    c.send_text(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"_meta": meta(),
        "name": "ech\u{200b}o"}})
        .to_string(),
    );
    let a = c.next();
    let message = a["error"]["message"].as_str().unwrap();
    assert_eq!(message, r#"unknown tool: "ech\u200bo""#);
    // Validation messages too: a required property named with a zero-width space.
    let t = Tool::builder("req")
        .input_schema(json!({"required": ["a\u{200b}b"]}))
        .build()
        .unwrap();
    let server = Server::builder("t", "1").tool(t).build().unwrap();
    let c = Client::new(&server);
    c.send_text(
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"_meta": meta(), "name": "req", "arguments": {}}})
        .to_string(),
    );
    let a = c.next();
    let text = a["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(r#"missing required property "a\u200bb""#),
        "{text}"
    );
}
