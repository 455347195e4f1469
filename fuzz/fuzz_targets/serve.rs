//! `Server::serve` against clients that read slowly, stop reading, or fail: arbitrary
//! streams of heavy requests (listings, calls reporting progress with long tokens, batches,
//! ids beyond u64) while the output side accepts a few bytes at a time, nothing at all, or
//! breaks. Serving must end (within the write timeout when nobody reads), peak memory must
//! stay within a fixed bound whatever the stream, and what was written must be whole JSON
//! lines, each id answered at most once.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolschema::mcp::{CallToolResult, Server, Tool};

/// Counts live heap bytes and their peak, across threads.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const MAX_MESSAGE: usize = 64 << 10;
const MAX_QUEUED: usize = 16 << 10;
const WRITE_TIMEOUT: Duration = Duration::from_millis(150);
/// Above the memory live when serving starts: the bounds the server promises (queue, calls,
/// batch answers, one parsed message), with room for threads and the test's own buffers.
const MAX_EXTRA_HEAP: usize = 24 << 20;

#[derive(Debug, Clone, Copy)]
enum Reader {
    /// Takes up to `n` bytes per write, pausing between writes.
    Slow(u8),
    /// Never takes anything until serving is over.
    Stalled,
    /// Takes `n` KiB, then fails.
    Breaks(u8),
    /// Reads everything.
    Eager,
}

struct Input {
    version: &'static str,
    lines: Vec<String>,
    reader: Reader,
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "reader: {:?}, version {}", self.reader, self.version)?;
        for l in &self.lines {
            writeln!(f, "{}", &l[..l.len().min(300)])?;
        }
        Ok(())
    }
}

fn request(u: &mut Unstructured<'_>, n: usize, modern: bool) -> arbitrary::Result<Value> {
    // Ids are unique, so that each may be answered once at most.
    let id = match u.int_in_range(0u8..=2)? {
        0 => json!(n),
        1 => json!(format!("s{n}")),
        // An id beyond u64, as text below (a float in a Value).
        _ => json!(format!("@{n}00000000000000000000")),
    };
    let token_len = u.int_in_range(0usize..=600)?;
    let mut meta = json!({"progressToken": "t".repeat(token_len)});
    if modern {
        meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
    }
    let (method, params) = match u.int_in_range(0u8..=5)? {
        0 | 1 => ("tools/list", json!({"_meta": meta})),
        2 => (
            "tools/call",
            json!({"name": "chatty", "arguments": {"n": u.int_in_range(0u32..=400)?}, "_meta": meta}),
        ),
        3 => (
            "tools/call",
            json!({"name": "big", "arguments": {"kib": u.int_in_range(0u32..=48)?}, "_meta": meta}),
        ),
        4 => ("ping", json!({})),
        _ => (
            "tools/call",
            json!({"name": "chatty", "arguments": {"pad": "x".repeat(u.int_in_range(0usize..=60_000)?)}, "_meta": meta}),
        ),
    };
    Ok(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

/// A message's text, with `"@digits"` ids turned into bare numbers beyond u64.
fn text(v: &Value) -> String {
    let s = v.to_string();
    match s.find("\"id\":\"@") {
        Some(i) => {
            let rest = &s[i + 7..];
            let end = rest.find('"').unwrap_or(0);
            format!("{}\"id\":{}{}", &s[..i], &rest[..end], &rest[end + 1..])
        }
        None => s,
    }
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Input> {
        let version = *u.choose(&["2025-03-26", "2025-11-25", "2026-07-28"])?;
        let modern = version == "2026-07-28";
        let mut lines = Vec::new();
        if !modern {
            lines.push(
                json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                "params": {"protocolVersion": version, "capabilities": {}}})
                .to_string(),
            );
        }
        let n = u.int_in_range(1..=40)?;
        for i in 0..n {
            if version == "2025-03-26" && u.ratio(1, 4)? {
                let k = u.int_in_range(1..=12)?;
                let items: Vec<String> = (0..k)
                    .map(|j| request(u, 1000 + i * 100 + j, false).map(|r| text(&r)))
                    .collect::<Result<_, _>>()?;
                lines.push(format!("[{}]", items.join(",")));
            } else {
                lines.push(text(&request(u, i, modern)?));
            }
        }
        let reader = match u.int_in_range(0u8..=3)? {
            0 => Reader::Slow(u.int_in_range(1..=255)?),
            1 => Reader::Stalled,
            2 => Reader::Breaks(u.int_in_range(0..=64)?),
            _ => Reader::Eager,
        };
        Ok(Input {
            version,
            lines,
            reader,
        })
    }
}

struct Output {
    reader: Reader,
    over: Arc<AtomicBool>,
    taken: Arc<Mutex<Vec<u8>>>,
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = match self.reader {
            Reader::Eager => buf.len(),
            Reader::Slow(n) => {
                std::thread::sleep(Duration::from_micros(50));
                buf.len().min(usize::from(n) * 16)
            }
            Reader::Stalled => {
                while !self.over.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(2));
                }
                return Err(std::io::Error::other("gone"));
            }
            Reader::Breaks(kib) => {
                let taken = self.taken.lock().unwrap().len();
                if taken >= usize::from(kib) << 10 {
                    return Err(std::io::Error::other("broken pipe"));
                }
                buf.len()
            }
        };
        self.taken.lock().unwrap().extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn server() -> Server {
    let chatty = Tool::builder("chatty")
        .handler(|args, ctx| {
            let n = args["n"].as_u64().unwrap_or(50);
            for i in 0..n {
                if ctx.is_cancelled() {
                    break;
                }
                ctx.progress(i as f64, Some(n as f64), Some("step"));
            }
            Ok(CallToolResult::text("done"))
        })
        .build()
        .unwrap();
    let big = Tool::builder("big")
        .handler(|args, _| {
            let kib = args["kib"].as_u64().unwrap_or(1) as usize;
            Ok(CallToolResult::text("b".repeat(kib << 10)))
        })
        .build()
        .unwrap();
    let padding: Vec<Tool> = (0..30)
        .map(|i| {
            Tool::builder(format!("tool_{i}"))
                .description("d".repeat(200))
                .build()
                .unwrap()
        })
        .collect();
    Server::builder("fuzz", "0")
        .tools([chatty, big])
        .tools(padding)
        .max_message_bytes(MAX_MESSAGE)
        .max_in_flight(4)
        .max_queued_bytes(MAX_QUEUED)
        .max_batch_answer_bytes(32 << 10)
        .max_memory_in_flight(4 << 20)
        .write_timeout(WRITE_TIMEOUT)
        .shutdown_grace(Duration::from_millis(300))
        .build()
        .unwrap()
}

fuzz_target!(|input: Input| {
    let mut bytes = Vec::new();
    for line in &input.lines {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    let server = server();
    let over = Arc::new(AtomicBool::new(false));
    let taken = Arc::new(Mutex::new(Vec::new()));
    let output = Output {
        reader: input.reader,
        over: Arc::clone(&over),
        taken: Arc::clone(&taken),
    };
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let start = Instant::now();
    server
        .serve(&bytes[..], output)
        .expect("reading a slice cannot fail");
    let took = start.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    over.store(true, Ordering::Relaxed);
    // Calls end within the grace twice over, the writer within the write timeout (a slow
    // reader takes its time per byte, and libFuzzer's -timeout catches a hang there).
    if !matches!(input.reader, Reader::Slow(_)) {
        assert!(
            took < Duration::from_secs(5),
            "serving took {took:?}\n{input:?}"
        );
    }
    assert!(
        peak < MAX_EXTRA_HEAP,
        "peak heap {peak} bytes above the start\n{input:?}"
    );
    let written = taken.lock().unwrap().clone();
    let mut answers: HashMap<String, usize> = HashMap::new();
    let complete = match written.iter().rposition(|&b| b == b'\n') {
        Some(i) => &written[..i],
        None => &[][..],
    };
    for line in complete.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let text = std::str::from_utf8(line).expect("UTF-8 output");
        let value: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text}\n{input:?}"));
        let items = match value {
            Value::Array(items) => items,
            v => vec![v],
        };
        for item in items {
            if item.get("result").is_some() || item.get("error").is_some() {
                let id = item["id"].to_string();
                if id != "null" {
                    *answers.entry(id).or_default() += 1;
                }
            }
        }
    }
    // Ids that collide as floats (beyond u64) are compared as parsed here, so only the
    // exact ones are checked for duplicates.
    for (id, n) in answers {
        if id.len() < 16 {
            assert!(n <= 1, "id {id} answered {n} times\n{input:?}");
        }
    }
});
