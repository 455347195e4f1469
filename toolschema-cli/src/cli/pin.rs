//! `toolschema pin`: writes the pin file `proxy --pin` checks, from a live server's listing.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use toolschema_http::proxy::pin;

/// Start COMMAND, list its tools (every page) and write each tool's digest (SHA-256 of its
/// canonical JSON, without _meta) to FILE, replacing what it held: the definitions
/// `toolschema proxy --pin FILE` then accepts.
///
/// e.g. toolschema pin --out pins.json -- npx -y @modelcontextprotocol/server-filesystem /tmp
///
/// Exit status: 0 written, 3 the server cannot be started, does not answer in time or
/// cannot list its tools, or the file cannot be written.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The pin file to write
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Seconds the server has to answer each request (default 30)
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// The server command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub fn run(args: Args) -> u8 {
    match pin_server(&args) {
        Ok(n) => {
            eprintln!(
                "toolschema pin: {n} tool(s) pinned in {}",
                args.out.display()
            );
            super::VALID
        }
        Err(why) => {
            eprintln!("toolschema pin: {why}");
            super::ERROR
        }
    }
}

fn pin_server(args: &Args) -> Result<usize, String> {
    let (program, rest) = args.command.split_first().ok_or("no server command")?;
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
    let result = (|| {
        let mut input = child.stdin.take().ok_or("no stdin")?;
        let output = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let timeout = Duration::from_secs(args.timeout);
        let ask = |input: &mut std::process::ChildStdin,
                   id: u64,
                   method: &str,
                   params: Value|
         -> Result<Value, String> {
            let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            writeln!(input, "{request}")
                .and_then(|()| input.flush())
                .map_err(|e| format!("cannot write to the server: {e}"))?;
            let deadline = Instant::now() + timeout;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                let line = rx.recv_timeout(left).map_err(|_| {
                    format!(
                        "the server did not answer {method} within {} s",
                        timeout.as_secs()
                    )
                })?;
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if message.get("id") != Some(&Value::from(id)) || message.get("method").is_some() {
                    continue;
                }
                if let Some(e) = message.get("error") {
                    return Err(format!("the server answered {method} with an error: {e}"));
                }
                return message
                    .get("result")
                    .cloned()
                    .ok_or_else(|| format!("the server's answer to {method} has no result"));
            }
        };
        ask(
            &mut input,
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "toolschema-pin", "version": env!("CARGO_PKG_VERSION")}}),
        )?;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let _ = writeln!(input, "{initialized}").and_then(|()| input.flush());
        let mut digests = BTreeMap::new();
        let mut cursor: Option<Value> = None;
        for page in 1..=1000u64 {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = ask(&mut input, page, "tools/list", params)?;
            let tools = result
                .get("tools")
                .and_then(Value::as_array)
                .ok_or("the server's tools/list result has no tools array")?;
            for t in tools {
                let name = t
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or("a listed tool has no name")?;
                digests.insert(name.to_string(), pin::digest(t));
            }
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                break;
            }
        }
        if cursor.is_some() {
            return Err("the server's listing did not end after 1000 pages".into());
        }
        drop(input);
        pin::write(&args.out, &digests)
            .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
        Ok(digests.len())
    })();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return result;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    result
}
