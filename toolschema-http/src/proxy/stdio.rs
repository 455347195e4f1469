//! `toolschema proxy`: a [`Contract`] between a client on stdio and a server child process,
//! with one thread per direction and no async runtime.

use super::{Action, Contract, ContractOptions, Event, MessageHead, Peer};
use crate::metrics::{Metrics, Tracker};
use serde_json::{Value, json};
use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, mpsc};
use std::time::{Duration, Instant, SystemTime};
use toolschema::mcp::jsonrpc;

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
    /// With an upstream server over HTTP: how long connecting and each answer's headers
    /// (and a JSON body) may take, and how long an SSE stream may stay silent (default 60 s).
    pub upstream_timeout: Duration,
    /// Where operations, violations, refusals and restarts are counted (`--metrics`);
    /// serving them is the caller's ([`Metrics::serve`](crate::metrics::Metrics::serve)),
    /// or the `--listen` endpoint's under [`metrics_path`](Self::metrics_path).
    pub metrics: Option<Arc<crate::metrics::Metrics>>,
    /// With `--listen` and [`metrics`](Self::metrics): also serve them at this path of the
    /// listener (e.g. `/metrics`), next to the MCP endpoint.
    pub metrics_path: Option<String>,
    /// Where one span per request goes (`--otlp-endpoint`), in the trace of the client's
    /// `traceparent`.
    pub tracing: Option<Arc<crate::trace::Tracing>>,
}

impl Default for ProxyConfig {
    fn default() -> ProxyConfig {
        ProxyConfig {
            contract: ContractOptions::default(),
            max_message_bytes: 4 << 20,
            max_server_message_bytes: 64 << 20,
            log: None,
            shutdown_grace: Duration::from_secs(5),
            upstream_timeout: Duration::from_secs(60),
            metrics: None,
            metrics_path: None,
            tracing: None,
        }
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The audit log, shared by every session of a proxy.
pub(super) type AuditLog = Option<Arc<Mutex<std::fs::File>>>;

/// One client–server session of the proxy: its [`Contract`] and the two sides' writers
/// (stdio or a server process; or an HTTP session or upstream).
pub(super) struct Shared {
    pub(super) contract: Mutex<Contract>,
    to_client: Mutex<BufWriter<Box<dyn Write + Send>>>,
    /// `None` once the client is gone (the server's input is closed with it).
    to_server: Mutex<Option<BufWriter<Box<dyn Write + Send>>>>,
    log: AuditLog,
    server_write_failed: AtomicBool,
    /// Requests under way, for their durations and the trace ids of what is reported
    /// about them (kept with metrics or an audit log).
    tracker: Option<Tracker>,
}

impl Shared {
    pub(super) fn new(
        config: &ProxyConfig,
        to_client: Box<dyn Write + Send>,
        to_server: Box<dyn Write + Send>,
        log: AuditLog,
        buffer: usize,
    ) -> Shared {
        let contract = config.contract.clone();
        let tracker = (config.metrics.is_some() || config.tracing.is_some() || log.is_some())
            .then(|| Tracker::new(config.metrics.clone(), config.tracing.clone()));
        Shared {
            tracker,
            contract: Mutex::new(Contract::new(contract)),
            to_client: Mutex::new(BufWriter::with_capacity(buffer, to_client)),
            to_server: Mutex::new(Some(BufWriter::with_capacity(buffer, to_server))),
            log,
            server_write_failed: AtomicBool::new(false),
        }
    }

    /// One whole message from the client (an HTTP body): decided, carried out, flushed.
    /// (The contract's lock is not held while writing, as on stdio: a server blocked on
    /// its full output pipe must not wait for it while the proxy waits on its input.)
    pub(super) fn client_message(&self, text: &str) {
        let actions = lock(&self.contract).from_client_text(text);
        self.carry_out(Peer::Client, text.as_bytes(), actions);
        self.flush(Peer::Server);
    }

    /// One whole message from the server (an HTTP answer or SSE event): decided, carried
    /// out, flushed.
    pub(super) fn server_message(&self, text: &str) {
        let mut contract = lock(&self.contract);
        let actions = contract.from_server_text(text);
        self.carry_out(Peer::Server, text.as_bytes(), actions);
        drop(contract);
        self.flush(Peer::Client);
        self.flush(Peer::Server);
    }

    /// Closes the server's input (after flushing it): the client is gone.
    pub(super) fn close_server(&self) {
        if let Some(mut out) = lock(&self.to_server).take() {
            let _ = out.flush();
        }
    }

    /// Waits up to `grace` for calls held for the proxy's own listing to go out.
    pub(super) fn wait_held(&self, grace: Duration) {
        let since = Instant::now();
        while lock(&self.contract).is_holding() && since.elapsed() < grace {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

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

    pub(super) fn flush(&self, to: Peer) {
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

    /// Carries out the actions for a message that came from `from` (its bytes in
    /// `original`). Answers to the sender are flushed at once; whether anything waits
    /// unflushed for the other side is returned (the caller flushes before it reads again).
    pub(super) fn carry_out(&self, from: Peer, original: &[u8], actions: Vec<Action>) -> bool {
        let other = match from {
            Peer::Client => Peer::Server,
            Peer::Server => Peer::Client,
        };
        let mut unflushed = false;
        // The trace id of what is reported: the client message's own, or that of the
        // request a server message answers.
        let trace = match (&self.tracker, from) {
            (None, _) => None,
            (Some(_), _) if original.is_empty() => None,
            (Some(t), Peer::Client) => t.request_in(original),
            (Some(t), Peer::Server) => match actions.iter().any(|a| matches!(a, Action::Report(_)))
            {
                true => t.trace_of_answer(original),
                false => None,
            },
        };
        for action in actions {
            match action {
                Action::Forward => {
                    self.write(other, original, false);
                    unflushed = true;
                    if let (Some(t), Peer::Client) = (&self.tracker, other) {
                        t.to_client(original);
                    }
                }
                Action::Send(to, message) => {
                    let text = message.to_string();
                    self.write(to, text.as_bytes(), to == from);
                    unflushed |= to == other;
                    if let (Some(t), Peer::Client) = (&self.tracker, to) {
                        t.to_client(text.as_bytes());
                    }
                }
                Action::Report(event) => self.report_traced(&event, trace.as_deref()),
            }
        }
        unflushed
    }

    pub(super) fn report(&self, event: &Event) {
        self.report_traced(event, None);
    }

    /// Reports an event: stderr, the audit log (with the trace id of the request it
    /// concerns, when the client sent a W3C `traceparent` in `_meta`), the metrics.
    pub(super) fn report_traced(&self, event: &Event, trace: Option<&str>) {
        if let Some(m) = self.tracker.as_ref().and_then(Tracker::metrics) {
            count(m, event);
        }
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
            Event::Blocked {
                tool,
                reason,
                message,
            } => (
                format!("refused call: {message}"),
                Some(json!({"event": "blocked", "tool": tool, "reason": reason})),
            ),
            Event::PinChanged { tool, pinned, seen } => (
                format!(
                    "tool {tool:?} changed since it was pinned ({pinned}, now {seen}): hidden from the client, its calls refused until the pin file is updated"
                ),
                Some(
                    json!({"event": "pin_mismatch", "tool": tool, "pinned": pinned, "seen": seen}),
                ),
            ),
            Event::Note(n) => (n.clone(), None),
        };
        eprintln!("toolschema proxy: {text}");
        if let (Some(log), Some(mut record)) = (&self.log, audit) {
            if let Some(obj) = record.as_object_mut() {
                obj.insert("time".into(), Value::from(rfc3339_now()));
                if let Some(t) = trace {
                    obj.insert("trace_id".into(), Value::from(t));
                }
            }
            let mut f = lock(log);
            let _ = writeln!(f, "{record}");
        }
    }
}

/// Counts an event in the metrics.
fn count(m: &Metrics, event: &Event) {
    match event {
        Event::RefusedCall(v) | Event::BadOutput(v) => {
            let direction = v.direction().as_str();
            for item in v.violations() {
                m.count_violation(direction, &item.keyword);
            }
            if matches!(event, Event::RefusedCall(_)) {
                m.count_refused("client", "contract");
            }
        }
        Event::Oversized { from, .. } => m.count_oversized(match from {
            Peer::Client => "client",
            Peer::Server => "server",
        }),
        Event::Blocked { reason, .. } => m.count_refused("client", reason),
        Event::PinChanged { tool, .. } => m.count_pin_mismatch(tool),
        Event::BrokenSchema { .. } | Event::Note(_) => {}
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
    let Ok(log) = open_log(config) else {
        return 2;
    };
    let Some((mut child, child_in, child_out)) = spawn_child(program, args) else {
        return 2;
    };
    let shared = Arc::new(Shared::new(
        config,
        raw_stdout(),
        Box::new(child_in),
        log,
        WRITE_BUFFER,
    ));
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
                relay_client(&shared, max, raw_stdin());
                // Calls held for the proxy's own listing still go to the server.
                shared.wait_held(grace);
                // Closing the server's stdin asks it to exit.
                shared.close_server();
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

/// Opens the audit log for appending; `Err` (reported) when it cannot be.
pub(super) fn open_log(config: &ProxyConfig) -> Result<AuditLog, ()> {
    match &config.log {
        None => Ok(None),
        Some(path) => match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(f) => Ok(Some(Arc::new(Mutex::new(f)))),
            Err(e) => {
                eprintln!(
                    "toolschema proxy: cannot open the log {}: {e}",
                    path.display()
                );
                Err(())
            }
        },
    }
}

/// Starts the server command with piped stdin and stdout (stderr passed through); `None`
/// (reported) when it cannot start.
pub(super) fn spawn_child(
    program: &OsString,
    args: &[OsString],
) -> Option<(Child, ChildStdin, ChildStdout)> {
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
            return None;
        }
    };
    match (child.stdin.take(), child.stdout.take()) {
        (Some(i), Some(o)) => Some((child, i, o)),
        _ => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    }
}

/// Waits for the child to exit; kills it once the client has been gone for `grace`.
pub(super) fn supervise(child: &mut Child, client_closed: &AtomicBool, grace: Duration) -> i32 {
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

pub(super) fn exit_code(status: std::process::ExitStatus) -> i32 {
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

/// Relays the client's lines from `input` (stdin) until it ends.
pub(super) fn relay_client(shared: &Shared, max: usize, input: impl io::Read) {
    let mut reader = LineReader::new(input);
    let mut head = MessageHead::new();
    // Forwarded lines wait in the server's buffer until this thread would read again.
    let mut unflushed = false;
    loop {
        let flush = || shared.flush(Peer::Server);
        let frame = match reader.next(max, &mut head, || {
            if std::mem::take(&mut unflushed) {
                flush()
            }
        }) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("toolschema proxy: cannot read stdin: {e}");
                break;
            }
        };
        let (line, actions): (&[u8], _) = match frame {
            Frame::Eof => break,
            Frame::TooLong => (
                b"",
                lock(&shared.contract).oversized_from_client(&head, max),
            ),
            Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Frame::Line(line) => match std::str::from_utf8(line) {
                Ok(text) => (line, lock(&shared.contract).from_client_text(text)),
                Err(_) => (
                    line,
                    super::refuse_client_text(
                        line,
                        jsonrpc::PARSE_ERROR,
                        "parse error: the message is not UTF-8",
                    ),
                ),
            },
        };
        unflushed |= shared.carry_out(Peer::Client, line, actions);
    }
    if unflushed {
        shared.flush(Peer::Server);
    }
}

/// Relays the server's lines from `child_out` until it ends.
pub(super) fn relay_server(shared: &Shared, child_out: impl io::Read, max: usize) {
    let mut reader = LineReader::new(child_out);
    let mut head = MessageHead::new();
    // Forwarded lines wait in the client's buffer until this thread would read again.
    let mut unflushed = false;
    loop {
        let flush = || shared.flush(Peer::Client);
        let frame = match reader.next(max, &mut head, || {
            if std::mem::take(&mut unflushed) {
                flush()
            }
        }) {
            Ok(f) => f,
            Err(_) => break,
        };
        let (line, too_long): (&[u8], bool) = match frame {
            Frame::Eof => break,
            Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Frame::Line(line) => (line, false),
            // (An oversized line takes this path for the same locking: its answer may
            // release held calls to the server.)
            Frame::TooLong => (b"", true),
        };
        let actions = match std::str::from_utf8(line) {
            Ok(text) => {
                let mut contract = lock(&shared.contract);
                let actions = if too_long {
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
                    unflushed |= shared.carry_out(Peer::Server, line, actions);
                    drop(contract);
                    continue;
                }
                actions
            }
            Err(_) => vec![Action::Report(Event::Note(
                "the server wrote a line that is not UTF-8; dropped".into(),
            ))],
        };
        unflushed |= shared.carry_out(Peer::Server, line, actions);
    }
    shared.flush(Peer::Client);
}

/// This process's stdin and stdout as plain files (on Unix): the relay does its own
/// buffering, so the standard handles' locks and line buffering are only overhead.
pub(super) fn raw_stdin() -> Box<dyn io::Read + Send> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(io::stdin())
}

pub(super) fn raw_stdout() -> Box<dyn Write + Send> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(io::stdout())
}

/// The writers' buffer: everything forwarded between two reads goes out in one `write`.
pub(super) const WRITE_BUFFER: usize = 256 << 10;

/// What [`LineReader::next`] found.
enum Frame<'a> {
    /// A complete line (without the newline or a trailing `\r`), or the unterminated tail
    /// at end of input.
    Line(&'a [u8]),
    /// A line over the limit, consumed and dropped; its bytes went through the head scan.
    TooLong,
    Eof,
}

/// The size reads start with: one `read` takes every message a fast peer has queued.
const READ_CHUNK: usize = 128 << 10;

/// Splits lines out of one large read buffer and hands each out borrowed (no copy), never
/// holding more than `max` bytes of one line: a longer line is consumed and dropped, its
/// bytes fed to a [`MessageHead`] as they stream past (so its id can still be answered).
struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// The unread bytes are `buf[start..end]`; `buf[start..scanned]` holds no newline.
    start: usize,
    scanned: usize,
    end: usize,
    /// Inside a line over the limit: its bytes are fed to the head, not kept.
    discarding: bool,
    eof: bool,
}

impl<R: io::Read> LineReader<R> {
    fn new(inner: R) -> LineReader<R> {
        LineReader {
            inner,
            buf: vec![0; READ_CHUNK],
            start: 0,
            scanned: 0,
            end: 0,
            discarding: false,
            eof: false,
        }
    }

    /// The next line. `before_read` runs whenever no complete line is buffered and the
    /// reader is about to call `read` (which may block): the moment to flush what the
    /// lines so far produced, so a lone message is never held back.
    fn next(
        &mut self,
        max: usize,
        head: &mut MessageHead,
        mut before_read: impl FnMut(),
    ) -> io::Result<Frame<'_>> {
        loop {
            if let Some(i) = self.buf[self.scanned..self.end]
                .iter()
                .position(|&b| b == b'\n')
            {
                let (from, newline) = (self.start, self.scanned + i);
                self.start = newline + 1;
                self.scanned = self.start;
                let line = &self.buf[from..newline];
                if self.discarding {
                    self.discarding = false;
                    head.feed(line);
                    return Ok(Frame::TooLong);
                }
                if line.len() > max {
                    *head = MessageHead::new();
                    head.feed(line);
                    return Ok(Frame::TooLong);
                }
                return Ok(Frame::Line(line.strip_suffix(b"\r").unwrap_or(line)));
            }
            self.scanned = self.end;
            if self.discarding {
                head.feed(&self.buf[self.start..self.end]);
                (self.start, self.scanned, self.end) = (0, 0, 0);
            } else if self.end - self.start > max {
                self.discarding = true;
                *head = MessageHead::new();
                head.feed(&self.buf[self.start..self.end]);
                (self.start, self.scanned, self.end) = (0, 0, 0);
            }
            if self.eof {
                // The unterminated tail, then the end.
                let tail = (self.start, self.end);
                (self.start, self.scanned) = (self.end, self.end);
                if std::mem::take(&mut self.discarding) {
                    return Ok(Frame::TooLong);
                }
                return Ok(if tail.0 < tail.1 {
                    Frame::Line(&self.buf[tail.0..tail.1])
                } else {
                    Frame::Eof
                });
            }
            self.make_room(max);
            before_read();
            let n = loop {
                match self.inner.read(&mut self.buf[self.end..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other?,
                }
            };
            if n == 0 {
                self.eof = true;
            }
            self.end += n;
        }
    }

    /// Moves a partial line to the front, and grows the buffer when the line fills it
    /// (up to `max` + 1, the most one kept line and its newline take); shrinks it back
    /// after a large message.
    fn make_room(&mut self, max: usize) {
        if self.start == self.end {
            (self.start, self.scanned, self.end) = (0, 0, 0);
            if self.buf.len() > 8 * READ_CHUNK {
                self.buf.truncate(READ_CHUNK);
                self.buf.shrink_to_fit();
            }
        } else if self.start > 0 && self.buf.len() - self.end < self.buf.len() / 2 {
            self.buf.copy_within(self.start..self.end, 0);
            (self.scanned, self.end) = (self.scanned - self.start, self.end - self.start);
            self.start = 0;
        }
        if self.end == self.buf.len() {
            let grown = (self.buf.len() * 2)
                .min(max.saturating_add(2))
                .max(self.buf.len() + 1);
            self.buf.resize(grown, 0);
        }
    }
}

/// The current UTC time as RFC 3339 (`2026-12-03T11:38:48.123Z`), formatted as task
/// timestamps are.
fn rfc3339_now() -> String {
    toolschema::mcp::transport::rfc3339(SystemTime::now())
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
