//! A live server's tool listing over stdio, for `lint -- COMMAND` and `pin -- COMMAND`:
//! start the server, initialize as an MCP client, collect every page of `tools/list`,
//! then let the server exit (stdin closed) or stop it.

use serde_json::{Value, json};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The most pages of `tools/list` read before the listing is called endless.
const MAX_PAGES: u64 = 1000;

/// Every tool `command` lists (each page, in order), introducing itself as `client`;
/// `within` bounds each answer. `Err` says what went wrong (cannot start, no answer in
/// time, an error answer, a result without a `tools` array, an endless listing).
pub fn list_tools(
    command: &[impl AsRef<OsStr>],
    client: &str,
    within: Duration,
) -> Result<Vec<Value>, String> {
    let (program, rest) = command.split_first().ok_or("no server command")?;
    let program = program.as_ref();
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
    let result = match (child.stdin.take(), child.stdout.take()) {
        (Some(input), Some(output)) => {
            let (tx, rx) = mpsc::channel::<String>();
            std::thread::spawn(move || {
                for line in BufReader::new(output).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            let mut session = Session { input, rx, within };
            session.list(client)
            // (stdin closes here: a well-behaved server exits.)
        }
        _ => Err("the server's pipes are missing".into()),
    };
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

struct Session {
    input: ChildStdin,
    rx: mpsc::Receiver<String>,
    within: Duration,
}

impl Session {
    fn list(&mut self, client: &str) -> Result<Vec<Value>, String> {
        self.ask(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": client, "version": env!("CARGO_PKG_VERSION")}}),
        )?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        for page in 1..=MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = self.ask(page, "tools/list", params)?;
            let listed = result
                .get("tools")
                .and_then(Value::as_array)
                .ok_or("the server's tools/list result has no tools array")?;
            tools.extend(listed.iter().cloned());
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                return Ok(tools);
            }
        }
        Err(format!(
            "the server's listing did not end after {MAX_PAGES} pages"
        ))
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        writeln!(self.input, "{message}")
            .and_then(|()| self.input.flush())
            .map_err(|e| format!("cannot write to the server: {e}"))
    }

    /// The result of request `id`; the server's own requests and notifications, and
    /// lines that are not JSON, are passed over.
    fn ask(&mut self, id: u64, method: &str, params: Value) -> Result<Value, String> {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + self.within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.rx.recv_timeout(left).map_err(|_| {
                format!(
                    "the server did not answer {method} within {} s",
                    self.within.as_secs()
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
    }
}
