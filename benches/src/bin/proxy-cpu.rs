//! The CPU `toolschema proxy` adds over the server's own, on a replay of `tools/call`
//! requests (Linux: reads `/proc`).
//!
//! The server lists its tools; every listed tool gets two valid argument objects from the
//! bench generator (required properties only, and every property); that corpus of calls
//! is replayed `--rounds` times with `--window` calls in flight, once to the server
//! directly and once through the proxy. Each run reports the CPU time (user + system,
//! from `/proc/PID/stat`) the server and the proxy spent during the replay, and the proxy's
//! CPU as a share of the server's.
//!
//! ```text
//! cargo build --release && cd benches && cargo run --release --bin proxy-cpu -- [--rounds N] [--window N] [--only TOOL,...] [-- SERVER COMMAND...]
//! ```
//!
//! `--only` replays only the named tools (for a server whose other tools have side effects
//! or wait on the client).
//!
//! The default server is `toolschema serve --tools ../shared/corpus/mcp-tools` (253 real
//! tool schemas; the fastest server there is, so the hardest case for the ratio).
//! `TOOLSCHEMA_BIN` overrides the binary (default `target/release/toolschema`).

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};
use toolschema_bench::generate::{Variant, generate};

/// Linux's `USER_HZ`: the unit of the CPU times in `/proc/PID/stat`.
const TICKS_PER_SECOND: f64 = 100.0;

fn binary() -> PathBuf {
    let path = std::env::var_os("TOOLSCHEMA_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| toolschema_bench::workspace_root().join("target/release/toolschema"));
    assert!(
        path.is_file(),
        "{} is missing: run `cargo build --release` first",
        path.display()
    );
    path
}

/// User + system CPU seconds of a process (all its threads, live and ended).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .unwrap_or_else(|e| panic!("cannot read /proc/{pid}/stat: {e}"));
    // The fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')').expect("stat has a command") + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / TICKS_PER_SECOND
}

/// The child processes of `pid`.
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

struct Session {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(server: &[String], proxied: bool) -> Session {
        let mut cmd = if proxied {
            let mut c = Command::new(binary());
            c.arg("proxy").arg("--").args(server);
            c
        } else {
            let mut c = Command::new(&server[0]);
            c.args(&server[1..]);
            c
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start the server");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut s = Session {
            child,
            input,
            output,
            next_id: 1,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "proxy-cpu", "version": "1"}}),
        );
        writeln!(
            s.input,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        s
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let m = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.input, "{m}").unwrap();
        self.input.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "the server left"
            );
            let v: Value = serde_json::from_str(&line).expect("JSON");
            if v["id"] == id {
                return v;
            }
        }
    }

    fn tools(&mut self) -> Vec<Value> {
        let mut tools = Vec::new();
        let mut cursor = Value::Null;
        loop {
            let params = if cursor.is_null() {
                json!({})
            } else {
                json!({"cursor": cursor})
            };
            let page = self.request("tools/list", params);
            tools.extend(
                page["result"]["tools"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
            );
            cursor = page["result"]["nextCursor"].clone();
            if cursor.is_null() {
                return tools;
            }
        }
    }

    /// Sends every call `rounds` times, `window` in flight; answers (results, isError
    /// results, errors).
    fn replay(&mut self, calls: &[String], rounds: usize, window: usize) -> [usize; 3] {
        let total = calls.len() * rounds;
        let (tx, rx) = std::sync::mpsc::sync_channel::<()>(window);
        for _ in 0..window {
            tx.send(()).unwrap();
        }
        let mut input = dup(&self.input);
        let base = self.next_id;
        self.next_id += total as u64;
        let calls = calls.to_vec();
        let writer = std::thread::spawn(move || {
            let mut i = 0u64;
            for _ in 0..rounds {
                for params in &calls {
                    rx.recv().unwrap();
                    let id = base + i;
                    i += 1;
                    writeln!(
                        input,
                        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{params}}}"
                    )
                    .unwrap();
                    input.flush().unwrap();
                }
            }
            input
        });
        let mut counts = [0; 3];
        let mut line = String::new();
        let mut seen = 0;
        while seen < total {
            line.clear();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "the server left"
            );
            let v: Value = serde_json::from_str(&line).expect("JSON");
            if v.get("id").is_none() || v.get("method").is_some() {
                continue;
            }
            seen += 1;
            let kind = if v.get("error").is_some() {
                2
            } else if v["result"]["isError"] == true {
                1
            } else {
                0
            };
            counts[kind] += 1;
            let _ = tx.send(());
        }
        self.input = writer.join().unwrap();
        counts
    }
}

/// A second handle on the pipe, for the writer thread.
fn dup(input: &ChildStdin) -> ChildStdin {
    use std::os::fd::AsFd;
    ChildStdin::from(input.as_fd().try_clone_to_owned().expect("dup"))
}

struct Run {
    server_cpu: f64,
    proxy_cpu: Option<f64>,
    wall: Duration,
    counts: [usize; 3],
}

fn run(server: &[String], calls: &[String], rounds: usize, window: usize, proxied: bool) -> Run {
    let mut s = Session::start(server, proxied);
    // The proxy learns the schemas as a client would, by listing.
    s.tools();
    // Warm-up: one round, not counted.
    s.replay(calls, 1, window);
    let pid = s.child.id();
    let server_pid = if proxied {
        *children(pid).first().expect("the proxy's server process")
    } else {
        pid
    };
    let (s0, p0) = (cpu_seconds(server_pid), cpu_seconds(pid));
    let start = Instant::now();
    let counts = s.replay(calls, rounds, window);
    let wall = start.elapsed();
    let (s1, p1) = (cpu_seconds(server_pid), cpu_seconds(pid));
    drop(s.input);
    let _ = s.child.wait();
    Run {
        server_cpu: s1 - s0,
        proxy_cpu: proxied.then_some(p1 - p0),
        wall,
        counts,
    }
}

fn main() {
    let mut rounds = 20;
    let mut window = 32;
    let mut only: Option<Vec<String>> = None;
    let mut server: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--rounds N")
            }
            "--window" => {
                window = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--window N")
            }
            "--only" => {
                only = args
                    .next()
                    .map(|n| n.split(',').map(str::to_string).collect())
            }
            "--" => server = args.by_ref().collect(),
            other => panic!("unknown argument {other}"),
        }
    }
    if server.is_empty() {
        let corpus = toolschema_bench::mcp_tools_dir();
        server = vec![
            binary().display().to_string(),
            "serve".into(),
            "--tools".into(),
            corpus.display().to_string(),
        ];
    }
    // The corpus of calls: two valid argument objects per listed tool.
    let tools = Session::start(&server, false).tools();
    let mut calls = Vec::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    for t in &tools {
        let Some(name) = t["name"].as_str() else {
            continue;
        };
        if only.as_ref().is_some_and(|o| !o.iter().any(|n| n == name)) {
            continue;
        }
        let schema = t.get("inputSchema").cloned().unwrap_or(json!({}));
        for variant in [Variant::Minimal, Variant::Full] {
            let args = generate(&schema, variant);
            calls.push(json!({"name": name, "arguments": args}).to_string());
            *names.entry(name.to_string()).or_default() += 1;
        }
    }
    let bytes: usize = calls.iter().map(String::len).sum();
    println!(
        "server: {}\ncorpus: {} tools, {} calls ({} bytes of params), {} rounds, {} in flight\n",
        server.join(" "),
        names.len(),
        calls.len(),
        bytes,
        rounds,
        window
    );
    let direct = run(&server, &calls, rounds, window, false);
    let proxied = run(&server, &calls, rounds, window, true);
    let total = (calls.len() * rounds) as f64;
    let us = |s: f64| s * 1e6 / total;
    println!("| | calls/s | server CPU | proxy CPU | answers (ok / isError / error) |");
    println!("| --- | ---: | ---: | ---: | --- |");
    for (label, r) in [("direct", &direct), ("through the proxy", &proxied)] {
        println!(
            "| {label} | {:.0} | {:.2} s ({:.1} µs/call) | {} | {} / {} / {} |",
            total / r.wall.as_secs_f64(),
            r.server_cpu,
            us(r.server_cpu),
            match r.proxy_cpu {
                Some(p) => format!("{p:.2} s ({:.1} µs/call)", us(p)),
                None => "-".into(),
            },
            r.counts[0],
            r.counts[1],
            r.counts[2]
        );
    }
    let p = proxied.proxy_cpu.unwrap_or_default();
    println!(
        "\nproxy CPU / server CPU (same run): {:.1}%; / server CPU direct: {:.1}%",
        100.0 * p / proxied.server_cpu,
        100.0 * p / direct.server_cpu
    );
}
