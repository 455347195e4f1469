//! The added cost of `toolschema proxy` per `tools/call`: round-trip latency and pipelined
//! throughput against `toolschema serve` directly and through the proxy, same server, same
//! run. Needs the release binary: `cargo build --release && cargo bench -p toolschema-bench
//! --bench proxy` (or set `TOOLSCHEMA_BIN`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

fn binary() -> PathBuf {
    let path = std::env::var_os("TOOLSCHEMA_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/toolschema")
        });
    assert!(
        path.is_file(),
        "{} is missing: run `cargo build --release` first",
        path.display()
    );
    path
}

struct Session {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    line: String,
}

impl Session {
    fn start(proxied: bool) -> Session {
        let bin = binary();
        let mut cmd = Command::new(&bin);
        if proxied {
            cmd.arg("proxy").arg("--").arg(&bin);
        }
        let mut child = cmd
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start toolschema");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut s = Session {
            child,
            input,
            output,
            line: String::new(),
        };
        s.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}));
        s.receive();
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        s.receive();
        s
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    fn send_raw(&mut self, text: &[u8]) {
        self.input.write_all(text).unwrap();
        self.input.flush().unwrap();
    }

    fn receive(&mut self) -> &str {
        self.line.clear();
        self.output.read_line(&mut self.line).unwrap();
        assert!(!self.line.is_empty(), "the server closed its output");
        &self.line
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A typical call: a small object checked against a schema with a required string and an
/// enum, answered with structured content checked against the output schema.
fn call(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "get_weather", "arguments": {"location": "Lisbon", "units": "celsius"}}})
    .to_string()
        + "\n"
}

fn latency(c: &mut Criterion) {
    let mut group = c.benchmark_group("proxy/round-trip");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8))
        .warm_up_time(Duration::from_secs(1));
    for (name, proxied) in [("direct", false), ("proxied", true)] {
        let mut s = Session::start(proxied);
        let mut id = 10;
        group.bench_function(name, |b| {
            b.iter(|| {
                id += 1;
                s.send_raw(call(id).as_bytes());
                let answer = s.receive();
                assert!(answer.contains("structuredContent"), "{answer}");
            })
        });
    }
    group.finish();
}

fn throughput(c: &mut Criterion) {
    const N: u64 = 1000;
    let mut group = c.benchmark_group("proxy/pipelined-1000");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .warm_up_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements(N));
    for (name, proxied) in [("direct", false), ("proxied", true)] {
        let mut s = Session::start(proxied);
        let mut id = 10_000;
        group.bench_function(name, |b| {
            b.iter(|| {
                // A window of 32 calls in flight (under the server's cap of 64): a new
                // call goes out as each answer comes back.
                const WINDOW: u64 = 32;
                let first = id;
                for _ in 0..WINDOW {
                    id += 1;
                    s.send_raw(call(id).as_bytes());
                }
                for _ in 0..N {
                    let answer = s.receive();
                    assert!(answer.contains("structuredContent"), "{answer}");
                    if id < first + N {
                        id += 1;
                        s.send_raw(call(id).as_bytes());
                    }
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, latency, throughput);
criterion_main!(benches);
