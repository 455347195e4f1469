//! Arbitrary messages, as one newline-delimited stream, through `Server::serve` (the same
//! path as `toolschema serve` on stdio) with a small maximum message size. No panic, and
//! every well-formed request (an object with `"jsonrpc": "2.0"`, a string `method` and a
//! string or number `id`) gets exactly one answer carrying its id. Requests inside batches
//! and calls that a later `notifications/cancelled` names may go unanswered (a rejected
//! batch is answered once with a null id; a cancelled call's answer is dropped, as MCP
//! asks), but never answered twice.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolschema::mcp::{CallToolResult, HandlerError, Server, Tool};

const MAX_MESSAGE: usize = 1024;

const VERSIONS: &[&str] = &[
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    "1999-01-01",
    "",
];
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "tools/call",
    "tools/call",
    "logging/setLevel",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
    "nope",
];
const TOOLS: &[&str] = &["echo", "fail", "structured", "missing"];

/// The stream: each entry one line (or raw bytes, possibly not UTF-8 nor newline-free).
struct Stream(Vec<Vec<u8>>);

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.0 {
            writeln!(f, "{}", String::from_utf8_lossy(line))?;
        }
        Ok(())
    }
}

fn id(u: &mut Unstructured<'_>, n: usize) -> arbitrary::Result<Option<Value>> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => None,
        1 => Some(json!(format!("s{}", n % 3))),
        2 => Some(Value::Null),
        3 => Some(json!(1.5)),
        4 => Some(json!({"x": 1})),
        5 => Some(json!(n % 4)),
        _ => Some(json!(n)),
    })
}

fn params(u: &mut Unstructured<'_>, method: &str, sent: usize) -> arbitrary::Result<Option<Value>> {
    if u.ratio(1, 10)? {
        return Ok(Some(toolschema_fuzz::value(u, 3)?));
    }
    let mut p = Map::new();
    match method {
        "initialize" => {
            p.insert("protocolVersion".into(), json!(*u.choose(VERSIONS)?));
            p.insert("capabilities".into(), json!({}));
            p.insert("clientInfo".into(), json!({"name": "fuzz", "version": "0"}));
        }
        "tools/list" if u.arbitrary()? => {
            p.insert(
                "cursor".into(),
                json!(*u.choose(&["ts1.1", "ts1.0", "ts1.ffffffffffffffff", "x"])?),
            );
        }
        "tools/call" => {
            p.insert("name".into(), json!(*u.choose(TOOLS)?));
            let args = if u.arbitrary()? {
                json!({"text": *u.choose(&["hi", "", "a\nb"])?})
            } else {
                toolschema_fuzz::value(u, 2)?
            };
            p.insert("arguments".into(), args);
        }
        "logging/setLevel" => {
            p.insert(
                "level".into(),
                json!(*u.choose(&["debug", "info", "bogus"])?),
            );
        }
        "notifications/cancelled" => {
            let target = u.int_in_range(0..=sent.max(1))?;
            p.insert("requestId".into(), json!(target));
        }
        _ => {}
    }
    if u.ratio(1, 6)? {
        p.insert(
            "_meta".into(),
            json!({"io.modelcontextprotocol/protocolVersion": *u.choose(VERSIONS)?}),
        );
    }
    Ok(Some(Value::Object(p)))
}

fn message(u: &mut Unstructured<'_>, n: usize) -> arbitrary::Result<Value> {
    let method = *u.choose(METHODS)?;
    let mut m = Map::new();
    if !u.ratio(1, 20)? {
        m.insert(
            "jsonrpc".into(),
            json!(if u.ratio(1, 20)? { "1.0" } else { "2.0" }),
        );
    }
    if u.ratio(1, 30)? {
        m.insert("result".into(), json!({}));
    } else {
        m.insert("method".into(), json!(method));
    }
    let id = if method.starts_with("notifications/") && u.ratio(4, 5)? {
        None
    } else {
        id(u, n)?
    };
    if let Some(id) = id {
        m.insert("id".into(), id);
    }
    if let Some(p) = params(u, method, n)? {
        m.insert("params".into(), p);
    }
    Ok(Value::Object(m))
}

impl<'a> Arbitrary<'a> for Stream {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Stream> {
        let mut lines = Vec::new();
        // Usually start with a handshake, so that calls get past it.
        if u.ratio(3, 4)? {
            let v = *u.choose(VERSIONS)?;
            lines.push(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "f", "version": "0"}}})
                .to_string().into_bytes());
        }
        let n = u.int_in_range(0..=24)?;
        for i in 0..n {
            let at = lines.len() + i;
            let line = match u.int_in_range(0u8..=11)? {
                0 => u.arbitrary::<Vec<u8>>()?,
                1 => {
                    // Truncated JSON.
                    let mut text = message(u, at)?.to_string().into_bytes();
                    let keep = u.int_in_range(0..=text.len())?;
                    text.truncate(keep);
                    text
                }
                2 => {
                    let k = u.int_in_range(0..=4)?;
                    let items: Vec<Value> = (0..k)
                        .map(|j| message(u, at * 10 + j))
                        .collect::<Result<_, _>>()?;
                    Value::Array(items).to_string().into_bytes()
                }
                3 => vec![b'x'; MAX_MESSAGE + u.int_in_range(0..=2)? - 1],
                _ => message(u, 1000 + at)?.to_string().into_bytes(),
            };
            lines.push(line);
        }
        Ok(Stream(lines))
    }
}

#[derive(Clone)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn server() -> Server {
    let echo = Tool::builder("echo")
        .input_schema(json!({"properties": {"text": {"type": "string", "maxLength": 100}}, "required": ["text"]}))
        .handler(|args, _| Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default())))
        .build()
        .unwrap();
    let fail = Tool::builder("fail")
        .handler(|_, _| Err(HandlerError::from("it failed")))
        .build()
        .unwrap();
    let structured = Tool::builder("structured")
        .output_schema(json!({"properties": {"n": {"type": "integer"}}, "required": ["n"]}))
        .handler(|args, _| {
            // Breaks its own output schema when asked to.
            if args.get("a").is_some() {
                Ok(CallToolResult::structured(json!({"n": "nope"})))
            } else {
                Ok(CallToolResult::structured(json!({"n": 1})))
            }
        })
        .build()
        .unwrap();
    Server::builder("fuzz", "0")
        .tools([echo, fail, structured])
        .max_message_bytes(MAX_MESSAGE)
        .max_in_flight(4)
        .shutdown_grace(Duration::from_secs(5))
        .build()
        .unwrap()
}

/// Expected answers per id (serialized): (at least, at most).
fn expectations(stream: &[u8]) -> HashMap<String, (usize, usize)> {
    let mut expect: HashMap<String, (usize, usize)> = HashMap::new();
    let mut cancelled = Vec::new();
    let mut calls = Vec::new();
    let lines: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    for raw in lines {
        if raw.len() > MAX_MESSAGE {
            continue;
        }
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let Ok(value) = serde_json::from_slice::<Value>(raw) else {
            continue;
        };
        let (items, in_batch) = match value {
            Value::Array(items) => (items, true),
            v => (vec![v], false),
        };
        for item in items {
            let Some(obj) = item.as_object() else {
                continue;
            };
            let Some(id) = obj.get("id").filter(|i| i.is_string() || i.is_number()) else {
                if obj.get("method").and_then(Value::as_str) == Some("notifications/cancelled")
                    && let Some(target) = obj.get("params").and_then(|p| p.get("requestId"))
                {
                    cancelled.push(target.to_string());
                }
                continue;
            };
            let key = id.to_string();
            let well_formed = obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
                && obj.get("method").is_some_and(Value::is_string)
                && obj
                    .get("params")
                    .is_none_or(|p| p.is_object() || p.is_null());
            // A response (to a request the server never sends) is not answered; without
            // `"jsonrpc": "2.0"` it is malformed, and may get an error carrying its id.
            let is_response = obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
                && obj.get("method").is_none()
                && (obj.contains_key("result") || obj.contains_key("error"));
            let entry = expect.entry(key.clone()).or_default();
            if is_response {
                continue;
            }
            if well_formed && !in_batch {
                entry.0 += 1;
                if obj.get("method").and_then(Value::as_str) == Some("tools/call") {
                    calls.push(key);
                }
            }
            entry.1 += 1;
        }
    }
    // A call may be cancelled by a notification that names it, and then goes unanswered.
    for key in calls {
        if cancelled.contains(&key)
            && let Some(e) = expect.get_mut(&key)
        {
            e.0 = e.0.saturating_sub(1);
        }
    }
    expect
}

fuzz_target!(|stream: Stream| {
    let mut bytes = Vec::new();
    for line in &stream.0 {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    let out = Sink(Arc::new(Mutex::new(Vec::new())));
    server()
        .serve(&bytes[..], out.clone())
        .expect("reading a slice cannot fail");
    let written = out.0.lock().unwrap().clone();
    let mut answers: HashMap<String, usize> = HashMap::new();
    for line in written.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let value: Value = serde_json::from_slice(line).expect("the server writes JSON lines");
        let items = match value {
            Value::Array(items) => {
                assert!(!items.is_empty(), "empty batch answer");
                items
            }
            v => vec![v],
        };
        for item in items {
            if item.get("result").is_some() || item.get("error").is_some() {
                let id = &item["id"];
                if !id.is_null() {
                    *answers.entry(id.to_string()).or_default() += 1;
                }
            }
        }
    }
    let expect = expectations(&bytes);
    for (id, (min, max)) in &expect {
        let got = answers.get(id).copied().unwrap_or(0);
        assert!(
            *min <= got && got <= *max,
            "id {id}: {got} answers, expected between {min} and {max}\nstream:\n{stream:?}\nanswers:\n{}",
            String::from_utf8_lossy(&written)
        );
    }
    for (id, got) in &answers {
        assert!(
            expect.contains_key(id),
            "{got} answers to id {id}, which no message carried"
        );
    }
});
