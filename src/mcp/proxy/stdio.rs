//! `toolschema proxy`: a [`Contract`] between a client on stdio and a server child process,
//! with one thread per direction and no async runtime.

use super::{Action, Contract, ContractOptions, Event, MessageHead, Peer};
use crate::mcp::jsonrpc;
use crate::mcp::server::Line;
use serde_json::{Value, json};
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How `toolschema proxy` runs.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    /// What is checked and rewritten.
    pub contract: ContractOptions,
    /// The largest message accepted from the client, in bytes (default 4 MiB, as `serve`);
    /// a longer line is discarded as it streams in and answered with `-32600`.
    pub max_message_bytes: usize,
    /// The largest message accepted from the server (default 64 MiB: results may be large);
    /// a longer line is discarded as it streams in, reported, and the request it answers is
    /// answered in its place ([`Contract::oversized_from_server`]).
    pub max_server_message_bytes: usize,
    /// Where to append the audit log: one JSON line per refused call or bad result.
    pub log: Option<PathBuf>,
    /// How long the server may take to exit once the client closed stdin before it is
    /// killed (default 5 s).
    pub shutdown_grace: Duration,
}

impl Default for ProxyConfig {
    fn default() -> ProxyConfig {
        ProxyConfig {
            contract: ContractOptions::default(),
            max_message_bytes: 4 << 20,
            max_server_message_bytes: 64 << 20,
            log: None,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Shared {
    contract: Mutex<Contract>,
    to_client: Mutex<BufWriter<io::Stdout>>,
    /// `None` once the client closed stdin (the server's stdin is closed with it).
    to_server: Mutex<Option<BufWriter<ChildStdin>>>,
    log: Option<Mutex<std::fs::File>>,
    server_write_failed: AtomicBool,
}

impl Shared {
    fn write(&self, to: Peer, line: &[u8], flush: bool) {
        match to {
            Peer::Client => {
                let mut out = lock(&self.to_client);
                let ok = out
                    .write_all(line)
                    .and_then(|_| out.write_all(b"\n"))
                    .and_then(|_| if flush { out.flush() } else { Ok(()) });
                if let Err(e) = ok {
                    eprintln!("toolschema proxy: cannot write to the client: {e}");
                }
            }
            Peer::Server => {
                let mut guard = lock(&self.to_server);
                let Some(out) = guard.as_mut() else { return };
                let ok = out
                    .write_all(line)
                    .and_then(|_| out.write_all(b"\n"))
                    .and_then(|_| if flush { out.flush() } else { Ok(()) });
                if let Err(e) = ok
                    && !self.server_write_failed.swap(true, Ordering::Relaxed)
                {
                    eprintln!("toolschema proxy: cannot write to the server: {e}");
                }
            }
        }
    }

    fn flush(&self, to: Peer) {
        match to {
            Peer::Client => {
                let _ = lock(&self.to_client).flush();
            }
            Peer::Server => {
                if let Some(out) = lock(&self.to_server).as_mut() {
                    let _ = out.flush();
                }
            }
        }
    }

    /// Carries out the actions for a message that came from `from` (its bytes in `original`).
    /// Forwarded messages are flushed only when `flush` (nothing more is waiting to be read).
    fn carry_out(&self, from: Peer, original: &[u8], actions: Vec<Action>, flush: bool) {
        let other = match from {
            Peer::Client => Peer::Server,
            Peer::Server => Peer::Client,
        };
        for action in actions {
            match action {
                Action::Forward => self.write(other, original, flush),
                Action::Send(to, message) => {
                    // Answers to the sender are flushed at once: nothing else is coming
                    // that way from this thread.
                    let now = flush || to == from;
                    self.write(to, message.to_string().as_bytes(), now);
                }
                Action::Report(event) => self.report(&event),
            }
        }
    }

    fn report(&self, event: &Event) {
        let (text, audit) = match event {
            Event::RefusedCall(v) => (format!("refused call: {v}"), Some(v.to_json())),
            Event::BadOutput(v) => (format!("bad result: {v}"), Some(v.to_json())),
            Event::BrokenSchema { problem, hidden } => (
                format!(
                    "{problem}; the tool is {}",
                    if *hidden {
                        "hidden from the client"
                    } else {
                        "passed unchecked"
                    }
                ),
                None,
            ),
            Event::Oversized {
                from,
                bytes,
                limit,
                tool,
                method,
                answered,
            } => {
                let (side, flag) = match from {
                    Peer::Client => ("client", "--max-message-bytes"),
                    Peer::Server => ("server", "--max-server-message-bytes"),
                };
                let what = match (tool, method) {
                    (Some(t), _) => format!("the result of tool {t:?}"),
                    (None, Some(m)) => format!("a {m:?} message"),
                    (None, None) => "a message".to_string(),
                };
                let fate = match answered {
                    Some(id) => format!("dropped; answered in its place for id {id}"),
                    None => "dropped; no id found to answer".to_string(),
                };
                let mut record = json!({
                    "event": "oversized", "from": side, "bytes": bytes, "limit": limit,
                });
                if let Some(obj) = record.as_object_mut() {
                    if let Some(t) = tool {
                        obj.insert("tool".into(), Value::from(t.as_str()));
                    }
                    if let Some(m) = method {
                        obj.insert("method".into(), Value::from(m.as_str()));
                    }
                }
                (
                    format!(
                        "the {side} sent {what} of {bytes} bytes, over the limit of {limit} ({flag}): {fate}"
                    ),
                    Some(record),
                )
            }
            Event::Note(n) => (n.clone(), None),
        };
        eprintln!("toolschema proxy: {text}");
        if let (Some(log), Some(mut record)) = (&self.log, audit) {
            if let Some(obj) = record.as_object_mut() {
                obj.insert("time".into(), Value::from(rfc3339_now()));
            }
            let mut f = lock(log);
            let _ = writeln!(f, "{record}");
        }
    }
}

/// Runs `toolschema proxy -- COMMAND [ARGS...]`: starts COMMAND, relays MCP between this
/// process's stdio and the child's, checking the tools' contracts; returns the exit code
/// (the child's, or 2 when it cannot start or the log cannot be opened).
///
/// The child's stderr is passed through. The proxy ends when the child exits; when the
/// client closes stdin, the child's stdin is closed too, and the child is killed if it has
/// not exited after [`ProxyConfig::shutdown_grace`].
pub fn run_stdio(config: &ProxyConfig, command: &[OsString]) -> i32 {
    let Some((program, args)) = command.split_first() else {
        eprintln!("toolschema proxy: no server command given (after `--`)");
        return 2;
    };
    let log = match &config.log {
        None => None,
        Some(path) => match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                eprintln!(
                    "toolschema proxy: cannot open the log {}: {e}",
                    path.display()
                );
                return 2;
            }
        },
    };
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "toolschema proxy: cannot start {}: {e}",
                program.to_string_lossy()
            );
            return 2;
        }
    };
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return 2;
    };
    let shared = Arc::new(Shared {
        contract: Mutex::new(Contract::new(config.contract.clone())),
        to_client: Mutex::new(BufWriter::new(io::stdout())),
        to_server: Mutex::new(Some(BufWriter::new(child_in))),
        log,
        server_write_failed: AtomicBool::new(false),
    });
    let client_closed = Arc::new(AtomicBool::new(false));

    // Client → server.
    {
        let shared = Arc::clone(&shared);
        let closed = Arc::clone(&client_closed);
        let max = config.max_message_bytes;
        let grace = config.shutdown_grace;
        let spawned = std::thread::Builder::new()
            .name("proxy-client".into())
            .spawn(move || {
                relay_client(&shared, max);
                // Calls held for the proxy's own listing still go to the server.
                let since = Instant::now();
                while lock(&shared.contract).is_holding() && since.elapsed() < grace {
                    std::thread::sleep(Duration::from_millis(2));
                }
                // Closing the server's stdin asks it to exit.
                if let Some(mut out) = lock(&shared.to_server).take() {
                    let _ = out.flush();
                }
                closed.store(true, Ordering::SeqCst);
            });
        if spawned.is_err() {
            let _ = child.kill();
            return 2;
        }
    }
    // Server → client.
    let (done_tx, done_rx) = mpsc::channel::<()>();
    {
        let shared = Arc::clone(&shared);
        let max = config.max_server_message_bytes;
        let spawned = std::thread::Builder::new()
            .name("proxy-server".into())
            .spawn(move || {
                relay_server(&shared, child_out, max);
                let _ = done_tx.send(());
            });
        if spawned.is_err() {
            let _ = child.kill();
            return 2;
        }
    }
    let code = supervise(&mut child, &client_closed, config.shutdown_grace);
    // Everything the child wrote before exiting reaches the client (a grandchild holding
    // the pipe open cannot keep the proxy alive).
    let _ = done_rx.recv_timeout(Duration::from_secs(2));
    shared.flush(Peer::Client);
    code
}

/// Waits for the child to exit; kills it once the client has been gone for `grace`.
fn supervise(child: &mut Child, client_closed: &AtomicBool, grace: Duration) -> i32 {
    let mut closed_at: Option<Instant> = None;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return exit_code(status),
            Ok(None) => {}
            Err(e) => {
                eprintln!("toolschema proxy: cannot watch the server: {e}");
                let _ = child.kill();
                return 2;
            }
        }
        if client_closed.load(Ordering::SeqCst) {
            let since = *closed_at.get_or_insert_with(Instant::now);
            if since.elapsed() >= grace {
                eprintln!(
                    "toolschema proxy: the server has not exited {} s after the client left; killing it",
                    grace.as_secs_f32()
                );
                let _ = child.kill();
                return child.wait().map(exit_code).unwrap_or(2);
            }
        }
        // (Coarse: a finer poll costs CPU on every idle session for no one's benefit.)
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return 128 + sig;
        }
    }
    1
}

fn relay_client(shared: &Shared, max: usize) {
    let stdin = io::stdin();
    let mut reader = BufReader::with_capacity(1 << 16, stdin.lock());
    let mut buf = Vec::new();
    let mut head = MessageHead::new();
    loop {
        let line = match read_line(&mut reader, &mut buf, max, &mut head) {
            Ok(l) => l,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("toolschema proxy: cannot read stdin: {e}");
                return;
            }
        };
        let more = !reader.buffer().is_empty();
        let actions = match line {
            Line::Eof => return,
            Line::TooLong => lock(&shared.contract).oversized_from_client(&head, max),
            Line::Complete if buf.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Complete => match std::str::from_utf8(&buf) {
                Ok(text) => lock(&shared.contract).from_client_text(text),
                Err(_) => vec![Action::Send(
                    Peer::Client,
                    jsonrpc::error(
                        &Value::Null,
                        jsonrpc::PARSE_ERROR,
                        "parse error: the message is not UTF-8",
                    ),
                )],
            },
        };
        shared.carry_out(Peer::Client, &buf, actions, !more);
        if !more {
            shared.flush(Peer::Server);
        }
    }
}

fn relay_server(shared: &Shared, child_out: impl io::Read, max: usize) {
    let mut reader = BufReader::with_capacity(1 << 16, child_out);
    let mut buf = Vec::new();
    let mut head = MessageHead::new();
    loop {
        let line = match read_line(&mut reader, &mut buf, max, &mut head) {
            Ok(l) => l,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let more = !reader.buffer().is_empty();
        let actions = match line {
            Line::Eof => break,
            Line::Complete if buf.iter().all(u8::is_ascii_whitespace) => continue,
            // (An oversized line left `buf` empty; it takes this path for the same locking:
            // its answer may release held calls to the server.)
            Line::TooLong | Line::Complete => match std::str::from_utf8(&buf) {
                Ok(text) => {
                    let mut contract = lock(&shared.contract);
                    let actions = if matches!(line, Line::TooLong) {
                        contract.oversized_from_server(&head, max)
                    } else {
                        contract.from_server_text(text)
                    };
                    if actions
                        .iter()
                        .any(|a| matches!(a, Action::Send(Peer::Server, _)))
                    {
                        // Held calls are written before anyone sees them released, so a
                        // client leaving now cannot close the server's input under them.
                        shared.carry_out(Peer::Server, &buf, actions, !more);
                        drop(contract);
                        if !more {
                            shared.flush(Peer::Client);
                        }
                        continue;
                    }
                    actions
                }
                Err(_) => vec![Action::Report(Event::Note(
                    "the server wrote a line that is not UTF-8; dropped".into(),
                ))],
            },
        };
        shared.carry_out(Peer::Server, &buf, actions, !more);
        if !more {
            shared.flush(Peer::Client);
        }
    }
    shared.flush(Peer::Client);
}

/// Reads one line into `buf` (without the newline or a trailing `\r`), never holding more
/// than `max` bytes: a longer line is consumed and dropped, its bytes fed to `head` as they
/// stream past (so its id can still be answered).
fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
    head: &mut MessageHead,
) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong,
                (true, false) => Line::Complete,
            });
        }
        if !any {
            any = true;
            *head = MessageHead::new();
        }
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if too_long {
            head.feed(chunk);
        } else if buf.len() + chunk.len() > max {
            too_long = true;
            head.feed(buf);
            head.feed(chunk);
            buf.clear();
        } else {
            buf.extend_from_slice(chunk);
        }
        reader.consume(used);
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

/// The current UTC time as RFC 3339 (`2026-12-03T11:38:48.123Z`).
fn rfc3339_now() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_has_the_shape() {
        let t = super::rfc3339_now();
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }
}
