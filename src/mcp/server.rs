//! The server: tool registry, `tools/list`, `tools/call`, and JSON-RPC over any line stream.

use super::context::{CallContext, LogLevel, Outgoing, Rounds, Sink, Talk, TaskLink};
use super::contract::{self, OutputPolicy, Refusal};
use super::jsonrpc::{self, Id, error_line, result_line};
use super::talkback::{Outstanding, Reply, decode_state, encode_state, read_error, state_binding};
use super::tasks::{Outcome, TaskLimits, TaskTable};
use super::tool::{TaskSupport, Tool, ToolError, WRAP_KEY};
use super::version::ProtocolVersion;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The longest `progressToken` accepted, in bytes of JSON text: every progress notification
/// echoes it, so a longer one is refused with `-32602`.
pub const MAX_PROGRESS_TOKEN_BYTES: usize = 256;

/// The most characters of a client's string (method, tool name, protocol version) echoed in
/// an error.
const MAX_ECHOED_CHARS: usize = 128;

/// Builds a [`Server`]; see [`Server::builder`].
pub struct ServerBuilder {
    name: String,
    version: String,
    instructions: Option<String>,
    tools: Vec<Tool>,
    page_size: usize,
    max_message_bytes: usize,
    max_in_flight: usize,
    max_call_memory: usize,
    max_memory_in_flight: usize,
    max_queued_bytes: usize,
    max_batch_answer_bytes: usize,
    write_timeout: Duration,
    list_ttl_ms: u64,
    shutdown_grace: Duration,
    tasks: TaskLimits,
    trust_local_user: bool,
}

impl ServerBuilder {
    /// Lets a connection with no verified token (stdio; HTTP without authorization
    /// configured) call tools whose [security schemes](super::security) need an OAuth
    /// token, as if it had every scope (default: such a call is refused with
    /// [`UNAUTHORIZED`](jsonrpc::UNAUTHORIZED)). For a server only its own user can reach,
    /// e.g. one started by a desktop client on stdio.
    pub fn trust_local_user(mut self, yes: bool) -> ServerBuilder {
        self.trust_local_user = yes;
        self
    }

    /// Adds a tool. Tools are listed in the order they are added.
    pub fn tool(mut self, tool: Tool) -> ServerBuilder {
        self.tools.push(tool);
        self
    }

    /// Adds several tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> ServerBuilder {
        self.tools.extend(tools);
        self
    }

    /// Sets the `instructions` sent in `initialize` and `server/discover`.
    pub fn instructions(mut self, text: impl Into<String>) -> ServerBuilder {
        self.instructions = Some(text.into());
        self
    }

    /// Tools per `tools/list` page, and tasks per `tasks/list` page (default 100; at
    /// least 1).
    pub fn page_size(mut self, n: usize) -> ServerBuilder {
        self.page_size = n.max(1);
        self
    }

    /// The largest message accepted, in bytes (default 4 MiB). A longer line is discarded
    /// as it streams in, and answered with `-32600`.
    pub fn max_message_bytes(mut self, n: usize) -> ServerBuilder {
        self.max_message_bytes = n.max(1);
        self
    }

    /// The most requests running at once on one connection (default 64): `tools/call`
    /// requests and the requests of 2025-03-26 batches still being answered. One more call
    /// is answered with `-32000`; a batch longer than this is refused with `-32600`.
    pub fn max_in_flight(mut self, n: usize) -> ServerBuilder {
        self.max_in_flight = n.max(1);
        self
    }

    /// The most memory one call's arguments may take once parsed, as estimated from the
    /// parsed value (default 128 MiB); a larger call is answered with `-32000`.
    pub fn max_call_memory(mut self, bytes: usize) -> ServerBuilder {
        self.max_call_memory = bytes.max(1);
        self
    }

    /// The most memory the calls and batches in flight on one connection may hold together
    /// (default 256 MiB, estimated like [`max_call_memory`](Self::max_call_memory)); a call
    /// past it is answered with `-32000`.
    pub fn max_memory_in_flight(mut self, bytes: usize) -> ServerBuilder {
        self.max_memory_in_flight = bytes.max(1);
        self
    }

    /// The most bytes [`serve`](Server::serve) queues for a client that reads slowly
    /// (default 8 MiB). Past half of it, progress and log notifications are dropped; past
    /// all of it, answers wait (and so does reading the next message) until the client reads.
    pub fn max_queued_bytes(mut self, bytes: usize) -> ServerBuilder {
        self.max_queued_bytes = bytes.max(1);
        self
    }

    /// How long [`serve`](Server::serve) waits for a client that reads nothing while its
    /// queue is full before it closes the connection, with a message on stderr (default
    /// 30 s).
    pub fn write_timeout(mut self, timeout: Duration) -> ServerBuilder {
        self.write_timeout = timeout;
        self
    }

    /// The largest answer to a 2025-03-26 batch, in bytes (default 16 MiB): answers past it
    /// are replaced by a `-32000` error asking for the request to be sent alone.
    pub fn max_batch_answer_bytes(mut self, bytes: usize) -> ServerBuilder {
        self.max_batch_answer_bytes = bytes.max(1);
        self
    }

    /// The `ttlMs` cache hint of `tools/list` and `server/discover` at 2026-07-28
    /// (default 60 s).
    pub fn list_ttl(mut self, ttl: Duration) -> ServerBuilder {
        self.list_ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        self
    }

    /// How long a closing connection waits for calls still running before it cancels them
    /// (default 5 s).
    pub fn shutdown_grace(mut self, grace: Duration) -> ServerBuilder {
        self.shutdown_grace = grace;
        self
    }

    /// The most tasks one connection keeps at once, running or finished (default 256). A
    /// finished task makes room for a new one; a task-augmented call finding only running
    /// tasks is answered with `-32000`.
    pub fn max_tasks(mut self, n: usize) -> ServerBuilder {
        self.tasks.max_tasks = n.max(1);
        self
    }

    /// The longest a finished task is kept (default 1 hour): a client asking for a longer
    /// `ttl` gets this one, and one asking for none gets it too.
    pub fn task_ttl(mut self, ttl: Duration) -> ServerBuilder {
        self.tasks.max_ttl = ttl;
        self
    }

    /// The `pollInterval` suggested to clients polling `tasks/get` (default 500 ms).
    pub fn task_poll_interval(mut self, interval: Duration) -> ServerBuilder {
        self.tasks.poll_interval = interval;
        self
    }

    /// Finishes the server.
    ///
    /// # Errors
    /// When two tools share a name.
    pub fn build(self) -> Result<Server, ToolError> {
        let mut index = HashMap::new();
        for (i, t) in self.tools.iter().enumerate() {
            if index.insert(t.name().to_string(), i).is_some() {
                return Err(ToolError::duplicate(t.name()));
            }
        }
        let offers_tasks = self.tools.iter().any(|t| {
            matches!(
                t.task_support(),
                TaskSupport::Optional | TaskSupport::Required
            )
        });
        Ok(Server {
            inner: Arc::new(ServerInner {
                name: self.name,
                version: self.version,
                instructions: self.instructions,
                tools: self.tools,
                index,
                page_size: self.page_size,
                max_message_bytes: self.max_message_bytes,
                max_in_flight: self.max_in_flight,
                max_call_memory: self.max_call_memory,
                max_memory_in_flight: self.max_memory_in_flight,
                max_queued_bytes: self.max_queued_bytes,
                max_batch_answer_bytes: self.max_batch_answer_bytes,
                write_timeout: self.write_timeout,
                list_ttl_ms: self.list_ttl_ms,
                shutdown_grace: self.shutdown_grace,
                tasks: self.tasks,
                offers_tasks,
                trust_local_user: self.trust_local_user,
            }),
        })
    }
}

/// An MCP server offering a fixed set of tools. Cheap to clone; serves any number of
/// connections.
///
/// ```
/// use toolschema::mcp::{CallToolResult, Server, Tool};
/// use serde_json::json;
///
/// let echo = Tool::builder("echo")
///     .input_schema(json!({"properties": {"message": {"type": "string"}}, "required": ["message"]}))
///     .handler(|args, _ctx| Ok(CallToolResult::text(args["message"].as_str().unwrap_or_default())))
///     .build()?;
/// let server = Server::builder("demo", "1.0").tool(echo).build()?;
/// // server.serve_stdio()?;  // newline-delimited JSON-RPC on stdin/stdout
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

struct ServerInner {
    name: String,
    version: String,
    instructions: Option<String>,
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    page_size: usize,
    max_message_bytes: usize,
    max_in_flight: usize,
    max_call_memory: usize,
    max_memory_in_flight: usize,
    max_queued_bytes: usize,
    max_batch_answer_bytes: usize,
    write_timeout: Duration,
    list_ttl_ms: u64,
    shutdown_grace: Duration,
    tasks: TaskLimits,
    /// Some tool may run as a task: the `tasks` capability is offered (2025-11-25).
    offers_tasks: bool,
    trust_local_user: bool,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.name)
            .field("tools", &self.inner.tools)
            .finish()
    }
}

impl Server {
    /// Starts a server with its `serverInfo` name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            instructions: None,
            tools: Vec::new(),
            page_size: 100,
            max_message_bytes: 4 << 20,
            max_in_flight: 64,
            max_call_memory: 128 << 20,
            max_memory_in_flight: 256 << 20,
            max_queued_bytes: 8 << 20,
            max_batch_answer_bytes: 16 << 20,
            write_timeout: Duration::from_secs(30),
            list_ttl_ms: 60_000,
            shutdown_grace: Duration::from_secs(5),
            tasks: TaskLimits {
                max_tasks: 256,
                max_ttl: Duration::from_secs(3600),
                poll_interval: Duration::from_millis(500),
            },
            trust_local_user: false,
        }
    }

    /// The tools, in listing order.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The tool of that name.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.inner
            .index
            .get(name)
            .and_then(|&i| self.inner.tools.get(i))
    }

    /// Opens a connection whose outgoing messages (responses and notifications, one JSON
    /// text each, without newline) go to `output`. Use it to put the server on any
    /// transport; [`serve`](Self::serve) is the newline-delimited one.
    pub fn connect(&self, output: impl Fn(String) + Send + Sync + 'static) -> Connection {
        self.connect_sink(Arc::new(move |line, _, _| output(line)))
    }

    pub(crate) fn connect_sink(&self, sink: Sink) -> Connection {
        self.connect_checked(sink, false)
    }

    /// A connection whose transport has verified each message's token, and each call's
    /// scopes against the tool's security schemes (`verified`), or not.
    pub(crate) fn connect_checked(&self, sink: Sink, verified: bool) -> Connection {
        Connection {
            server: self.clone(),
            state: Arc::new(ConnState {
                verified,
                sink,
                session: Mutex::new(Session::default()),
                running: Mutex::new(Running::default()),
                idle: Condvar::new(),
                outstanding: Arc::new(Outstanding::default()),
                tasks: Mutex::new(TaskTable::new(self.inner.tasks)),
            }),
        }
    }

    /// Serves newline-delimited JSON-RPC from `input` to `output` until `input` ends, then
    /// waits for the calls still running (cancelling them after the shutdown grace) and
    /// flushes.
    ///
    /// Output waits in a bounded queue ([`ServerBuilder::max_queued_bytes`]): a client that
    /// stops reading first loses its progress notifications, then stops being read, and
    /// after [`ServerBuilder::write_timeout`] without reading anything is disconnected.
    ///
    /// # Errors
    /// Only when reading `input` fails; a malformed message is answered, never fatal.
    pub fn serve<R: Read, W: Write + Send + 'static>(&self, input: R, output: W) -> io::Result<()> {
        let outbox = Arc::new(Outbox::new(
            self.inner.max_queued_bytes,
            self.inner.write_timeout,
        ));
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let writer = {
            let outbox = Arc::clone(&outbox);
            std::thread::Builder::new()
                .name("mcp-writer".into())
                .spawn(move || {
                    let mut out = io::BufWriter::new(output);
                    while let Some(line) = outbox.pop() {
                        let ok = out
                            .write_all(line.as_bytes())
                            .and_then(|_| out.write_all(b"\n"))
                            .and_then(|_| out.flush());
                        if let Err(e) = ok {
                            outbox.abort(&format!("cannot write to the client: {e}"));
                            break;
                        }
                    }
                    let _ = out.flush();
                    let _ = done_tx.send(());
                })?
        };
        let conn = {
            let outbox = Arc::clone(&outbox);
            self.connect_sink(Arc::new(move |line, kind, _| outbox.push(line, kind)))
        };
        let mut reader = BufReader::new(input);
        let mut buf = Vec::new();
        let max = self.inner.max_message_bytes;
        let result = loop {
            if outbox.aborted() {
                break Ok(());
            }
            match read_capped_line(&mut reader, &mut buf, max) {
                Ok(Line::Eof) => break Ok(()),
                Ok(Line::TooLong) => conn.send(error_line(
                    &Id::null(),
                    jsonrpc::INVALID_REQUEST,
                    &format!("message too large: the limit is {max} bytes"),
                    None,
                )),
                Ok(Line::Complete) => match std::str::from_utf8(&buf) {
                    Ok(text) => conn.handle(text),
                    Err(_) => conn.send(error_line(
                        &Id::null(),
                        jsonrpc::PARSE_ERROR,
                        "parse error: the message is not UTF-8",
                        None,
                    )),
                },
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => break Err(e),
            }
        };
        drop(buf);
        conn.finish(self.inner.shutdown_grace);
        outbox.close();
        // A client that reads nothing can keep the writer blocked in `write` for ever: wait
        // for it as long as for any stalled write, then leave it.
        if done_rx.recv_timeout(self.inner.write_timeout).is_ok() {
            let _ = writer.join();
        } else {
            eprintln!("toolschema mcp: the client is not reading; leaving its output unsent");
        }
        result
    }

    /// Serves on the process's stdin and stdout (logs go to stderr).
    ///
    /// # Errors
    /// Only when reading stdin fails.
    pub fn serve_stdio(&self) -> io::Result<()> {
        self.serve(io::stdin(), io::stdout())
    }
}

/// The lines waiting for the client, bounded in bytes.
struct Outbox {
    state: Mutex<OutboxState>,
    not_empty: Condvar,
    not_full: Condvar,
    max_bytes: usize,
    timeout: Duration,
}

struct OutboxState {
    lines: VecDeque<String>,
    bytes: usize,
    /// When the writer last took a line.
    last_pop: Instant,
    closed: bool,
    aborted: bool,
    dropped: u64,
}

impl Outbox {
    fn new(max_bytes: usize, timeout: Duration) -> Outbox {
        Outbox {
            state: Mutex::new(OutboxState {
                lines: VecDeque::new(),
                bytes: 0,
                last_pop: Instant::now(),
                closed: false,
                aborted: false,
                dropped: 0,
            }),
            not_empty: Condvar::new(),
            not_full: Condvar::new(),
            max_bytes,
            timeout,
        }
    }

    fn push(&self, line: String, kind: Outgoing) {
        let len = line.len() + 1;
        let mut q = lock(&self.state);
        if kind == Outgoing::Notification && q.bytes + len > self.max_bytes / 2 {
            // Progress and log entries are optional; answers are not.
            if q.dropped == 0 {
                eprintln!(
                    "toolschema mcp: the client reads slowly ({} bytes queued): dropping notifications",
                    q.bytes
                );
            }
            q.dropped += 1;
            return;
        }
        // One line always fits in an empty queue, however long.
        while !q.closed && q.bytes > 0 && q.bytes + len > self.max_bytes {
            let stalled = q.last_pop.elapsed();
            if stalled >= self.timeout {
                let reason = format!(
                    "the client has read nothing for {:?} with {} bytes queued: closing the connection",
                    self.timeout, q.bytes
                );
                drop(q);
                self.abort(&reason);
                return;
            }
            q = match self.not_full.wait_timeout(q, self.timeout - stalled) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        if q.closed {
            return;
        }
        q.bytes += len;
        q.lines.push_back(line);
        self.not_empty.notify_one();
    }

    fn pop(&self) -> Option<String> {
        let mut q = lock(&self.state);
        loop {
            if q.aborted {
                return None;
            }
            if let Some(line) = q.lines.pop_front() {
                q.bytes -= line.len() + 1;
                q.last_pop = Instant::now();
                self.not_full.notify_all();
                return Some(line);
            }
            if q.closed {
                return None;
            }
            q = match self.not_empty.wait(q) {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
        }
    }

    /// No more lines will come: the writer sends what is queued, then stops.
    fn close(&self) {
        lock(&self.state).closed = true;
        self.not_empty.notify_all();
        self.not_full.notify_all();
    }

    /// The client is gone or stalled: drop everything queued and every later line.
    fn abort(&self, reason: &str) {
        let mut q = lock(&self.state);
        if !q.aborted {
            eprintln!("toolschema mcp: {reason}");
        }
        q.aborted = true;
        q.closed = true;
        q.lines.clear();
        q.bytes = 0;
        drop(q);
        self.not_empty.notify_all();
        self.not_full.notify_all();
    }

    fn aborted(&self) -> bool {
        lock(&self.state).aborted
    }
}

pub(crate) enum Line {
    Complete,
    TooLong,
    Eof,
}

/// Reads one line into `buf` (without the newline or a trailing `\r`), never holding more
/// than `max` bytes: a longer line is consumed and dropped. (The proxy reads both of its
/// peers with it too.)
pub(crate) fn read_capped_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
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
        any = true;
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
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

#[derive(Default)]
struct Session {
    negotiated: Option<ProtocolVersion>,
    client_info: Option<Value>,
    log_level: Option<LogLevel>,
    /// The client's `capabilities` from `initialize`.
    capabilities: Option<Value>,
}

/// What runs now on a connection.
#[derive(Default)]
struct Running {
    /// Calls, by request id, with their cancellation flags.
    calls: HashMap<String, Arc<AtomicBool>>,
    /// Requests of batches still being answered.
    batch_slots: usize,
    /// Estimated memory the calls and batches hold.
    bytes: usize,
    /// Open `subscriptions/listen` streams (2026-07-28), by request id.
    subscriptions: HashMap<String, Id>,
}

impl Running {
    fn slots(&self) -> usize {
        self.calls.len() + self.batch_slots
    }
}

struct ConnState {
    /// The transport checked the caller's token and scopes before handing messages on.
    verified: bool,
    sink: Sink,
    session: Mutex<Session>,
    running: Mutex<Running>,
    idle: Condvar,
    /// Requests sent to the client and not yet answered.
    outstanding: Arc<Outstanding>,
    tasks: Mutex<TaskTable>,
}

/// One client's session with a [`Server`]: feed it messages with [`handle`](Self::handle).
///
/// `tools/call` runs on its own thread, arguments check included, so a long call never
/// blocks `ping` or `notifications/cancelled`; every other request is answered before
/// `handle` returns.
pub struct Connection {
    server: Server,
    state: Arc<ConnState>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A message's envelope, read without building its params: the id stays exactly as sent,
/// and params nested past the parser's depth limit still leave the id readable.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// Keeps an explicit `null` (which `Option` would read as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// How a request is run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A call runs on its own thread; its answer goes to the sink.
    Spawn,
    /// Everything runs on this thread and the answer is returned.
    Inline,
    /// Inline, as one request of a 2025-03-26 batch (its slot is already counted).
    Batch,
}

/// The facts of one request that the method needs.
struct Request {
    id: Id,
    method: String,
    params: Option<Map<String, Value>>,
    version: ProtocolVersion,
    /// True when the version came from the request's `_meta` (2026-07-28 envelope).
    modern: bool,
    /// The message's length, the base of the memory estimate of a call.
    size: usize,
    /// A `tools/call`'s `arguments`, as the client wrote them: checked from this text, and
    /// read into a `Value` for the handler only once they pass.
    arguments: Option<Box<RawValue>>,
    /// A 2026-07-28 call's `requestState`, decoded against the call's binding once its
    /// arguments are read (on the call's thread).
    state: Option<String>,
}

/// An answer, with the id it answers.
struct Answer {
    id: Id,
    line: String,
}

impl Connection {
    fn send(&self, line: String) {
        (self.state.sink)(line, Outgoing::Answer, None);
    }

    /// Handles one message (a JSON-RPC request, notification, response or batch).
    pub fn handle(&self, message: &str) {
        let trimmed = message.trim_start();
        if trimmed.is_empty() {
            return;
        }
        if trimmed.starts_with('[') {
            return self.handle_batch(message);
        }
        if let Some(answer) = self.process(message, Mode::Spawn) {
            (self.state.sink)(answer.line, Outgoing::Answer, Some(&answer.id));
        }
    }

    /// Handles one message and returns its answer, running a `tools/call` on this thread.
    pub(crate) fn handle_inline(&self, message: &str) -> Option<Value> {
        let answer = self.process(message, Mode::Inline)?;
        serde_json::from_str(&answer.line).ok()
    }

    fn handle_batch(&self, message: &str) {
        let items: Vec<&RawValue> = match serde_json::from_str(message) {
            Ok(items) => items,
            Err(e) => return self.send(unreadable(message, &e)),
        };
        let version = lock(&self.state.session).negotiated;
        match version {
            Some(v) if v.allows_batches() => {}
            _ => {
                let at = version.map_or(
                    "this session (no version negotiated yet)".to_string(),
                    |v| format!("protocol version {v}"),
                );
                return self.send(error_line(
                    &Id::null(),
                    jsonrpc::INVALID_REQUEST,
                    &format!(
                        "JSON-RPC batches are not supported at {at}; only 2025-03-26 has them"
                    ),
                    None,
                ));
            }
        }
        if items.is_empty() {
            return self.send(error_line(
                &Id::null(),
                jsonrpc::INVALID_REQUEST,
                "invalid request: empty batch",
                None,
            ));
        }
        let inner = &self.server.inner;
        if items.len() > inner.max_in_flight {
            return self.send(error_line(
                &Id::null(),
                jsonrpc::INVALID_REQUEST,
                &format!(
                    "invalid request: a batch holds at most {} messages",
                    inner.max_in_flight
                ),
                None,
            ));
        }
        // The batch holds its text, one parsed message at a time and its answer.
        let held = message.len() + inner.max_batch_answer_bytes;
        let slots = items.len();
        {
            let mut running = lock(&self.state.running);
            if running.slots() + slots > inner.max_in_flight
                || running.bytes + held > inner.max_memory_in_flight
            {
                drop(running);
                let busy: Vec<String> = items
                    .iter()
                    // Every member that would be answered is, under the id it would be
                    // answered with: the HTTP transport awaits the batch's answer by them.
                    .filter_map(|m| match expected_answer(m.get()) {
                        Expected::Answer(id) => Some(id),
                        Expected::Refused(_) => Some(Id::null()),
                        Expected::Nothing => None,
                    })
                    .map(|id| {
                        error_line(
                            &id,
                            jsonrpc::SERVER_BUSY,
                            "server busy: too many requests in flight",
                            None,
                        )
                    })
                    .collect();
                if !busy.is_empty() {
                    self.send(format!("[{}]", busy.join(",")));
                }
                return;
            }
            running.batch_slots += slots;
            running.bytes += held;
        }
        let text = message.to_string();
        let this = self.clone_handle();
        // As for calls, the answer is delivered while the table is locked: a client that has
        // its answer never finds the batch's requests still counted in flight.
        let release = {
            let this = self.clone_handle();
            move |answer: Option<String>| {
                let mut running = lock(&this.state.running);
                running.batch_slots -= slots;
                running.bytes -= held;
                if let Some(answer) = answer {
                    (this.state.sink)(answer, Outgoing::Answer, None);
                }
                drop(running);
                this.state.idle.notify_all();
            }
        };
        let cap = inner.max_batch_answer_bytes;
        let spawned = std::thread::Builder::new()
            .name("mcp-batch".into())
            .spawn(move || {
                let items: Vec<&RawValue> = serde_json::from_str(&text).unwrap_or_default();
                let mut answers: Vec<String> = Vec::new();
                let mut total = 0;
                for item in items {
                    let Some(a) = this.process(item.get(), Mode::Batch) else {
                        continue;
                    };
                    let line = if total + a.line.len() + 1 > cap {
                        error_line(
                            &a.id,
                            jsonrpc::SERVER_BUSY,
                            &format!(
                                "the batch's answer would exceed {cap} bytes: send this request alone"
                            ),
                            None,
                        )
                    } else {
                        a.line
                    };
                    total += line.len() + 1;
                    answers.push(line);
                }
                release((!answers.is_empty()).then(|| format!("[{}]", answers.join(","))));
            });
        if spawned.is_err() {
            let mut running = lock(&self.state.running);
            running.batch_slots -= slots;
            running.bytes -= held;
            drop(running);
            self.state.idle.notify_all();
            self.send(error_line(
                &Id::null(),
                jsonrpc::INTERNAL_ERROR,
                "internal error: cannot start the batch",
                None,
            ));
        }
    }

    fn clone_handle(&self) -> Connection {
        Connection {
            server: self.server.clone(),
            state: Arc::clone(&self.state),
        }
    }

    /// Validates the envelope and dispatches; `None` when nothing is to be sent now.
    fn process(&self, message: &str, mode: Mode) -> Option<Answer> {
        let fail = |id: &Id, code: i64, message: &str| {
            Some(Answer {
                id: id.clone(),
                line: error_line(id, code, message, None),
            })
        };
        let (id, method, params) = match check_envelope(message) {
            Err(refusal) => {
                if jsonrpc::find_duplicate_member(message.as_bytes()).is_some()
                    && let (Some(id), true, _) = scanned_id(message)
                {
                    // A garbled answer to a handler's request: the handler hears so now
                    // instead of waiting for its timeout.
                    self.state.outstanding.deliver(id.key(), Reply::Garbage);
                }
                return Some(refusal);
            }
            Ok(Checked::Response { id, reply }) => {
                // A response to a request of a handler: routed to it (or dropped when
                // nobody waits for it).
                self.state.outstanding.deliver(id.key(), reply);
                return None;
            }
            Ok(Checked::Message { id, method, params }) => (id, method, params),
        };
        let Some(id) = id else {
            self.notification(&method, params);
            return None;
        };
        let mut arguments = None;
        let params = match params.map(|r| r.get().trim_start()) {
            None => None,
            Some(p) if p.starts_with('{') => match read_params(p, method == "tools/call") {
                Ok(read) => {
                    arguments = read.arguments;
                    Some(read.rest)
                }
                Err(e) => {
                    // Valid JSON past the parser's limits (nesting deeper than 128, a number
                    // like 1e400): the id is known, so the caller gets its answer.
                    return fail(
                        &id,
                        jsonrpc::INVALID_PARAMS,
                        &format!("invalid params: cannot be read ({})", parse_problem(&e)),
                    );
                }
            },
            Some(p) if p.starts_with('[') => {
                return fail(
                    &id,
                    jsonrpc::INVALID_PARAMS,
                    "invalid params: MCP params must be an object",
                );
            }
            Some(_) => {
                return fail(
                    &id,
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: \"params\" must be an object",
                );
            }
        };
        match self.request(id.clone(), method, params, arguments, message.len(), mode) {
            Ok(answer) => answer.map(|line| Answer { id, line }),
            Err((code, text, data)) => Some(Answer {
                line: error_line(&id, code, &text, data.as_ref()),
                id,
            }),
        }
    }

    /// The era of a request and its dispatch.
    fn request(
        &self,
        id: Id,
        method: String,
        params: Option<Map<String, Value>>,
        arguments: Option<Box<RawValue>>,
        size: usize,
        mode: Mode,
    ) -> Result<Option<String>, Failure> {
        // (`_meta` is an object in every revision's `RequestParams`; another value is refused
        // here, once, so that nothing below reads a `_meta` it then ignores.)
        let meta = match params.as_ref().and_then(|p| p.get("_meta")) {
            None => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(invalid("\"_meta\" must be an object".into())),
        };
        let (version, modern) = match meta.and_then(|m| m.get(META_PROTOCOL_VERSION)) {
            None => (self.legacy_version(&method)?, false),
            Some(Value::String(s)) => match ProtocolVersion::parse(s) {
                Some(v) if !v.uses_handshake() => (v, true),
                _ => {
                    return Err((
                        jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
                        "unsupported protocol version".into(),
                        Some(json!({"supported": modern_versions(), "requested": clip_raw(s)})),
                    ));
                }
            },
            Some(_) => {
                return Err(invalid(format!(
                    "_meta \"{META_PROTOCOL_VERSION}\" must be a string"
                )));
            }
        };
        if modern {
            check_modern_meta(meta)?;
            if mode == Mode::Batch {
                return Err((
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: a request carrying 2026-07-28 _meta cannot be part of a batch"
                        .into(),
                    None,
                ));
            }
        }
        let req = Request {
            id,
            method,
            params,
            version,
            modern,
            size,
            arguments,
            state: None,
        };
        let result = match (req.method.as_str(), modern) {
            ("initialize", false) if mode == Mode::Batch => Err((
                jsonrpc::INVALID_REQUEST,
                "invalid request: initialize must not be part of a JSON-RPC batch".into(),
                None,
            )),
            ("initialize", false) => self.initialize(&req),
            ("ping", false) => Ok(json!({})),
            ("logging/setLevel", false) => self.set_level(&req),
            ("server/discover", true) => Ok(self.discover()),
            ("tools/list", _) => self.list(&req),
            ("tools/call", _) => return self.call(req, mode),
            ("subscriptions/listen", true) => return self.listen(&req),
            ("tasks/get" | "tasks/list" | "tasks/cancel", false) if self.tasks_at(version) => {
                self.task_request(&req)
            }
            ("tasks/result", false) if self.tasks_at(version) => return self.task_result(&req),
            (m, _) => Err((
                jsonrpc::METHOD_NOT_FOUND,
                if modern && matches!(m, "initialize" | "ping" | "logging/setLevel") {
                    format!(
                        "method not found: {} is not a method of protocol version 2026-07-28",
                        clip(m)
                    )
                } else {
                    format!("method not found: {}", clip(m))
                },
                None,
            )),
        }?;
        Ok(Some(result_line(
            &req.id,
            &self.finish_result(result, &req),
        )))
    }

    /// The version of a request without a `_meta` protocol version: the session's, or none
    /// before `initialize` (the request is then malformed at 2026-07-28).
    fn legacy_version(&self, method: &str) -> Result<ProtocolVersion, Failure> {
        let negotiated = lock(&self.state.session).negotiated;
        match (negotiated, method) {
            (_, "server/discover") | (None, _) if !matches!(method, "initialize" | "ping") => {
                Err(invalid(format!(
                    "_meta \"{META_PROTOCOL_VERSION}\" is required (2026-07-28); \
                     earlier versions start with initialize"
                )))
            }
            (Some(v), _) => Ok(v),
            (None, _) => Ok(ProtocolVersion::LATEST_HANDSHAKE),
        }
    }

    /// Adds what every 2026-07-28 result carries.
    fn finish_result(&self, mut result: Value, req: &Request) -> Value {
        if req.version >= ProtocolVersion::V2026_07_28
            && let Some(obj) = result.as_object_mut()
        {
            obj.insert("resultType".into(), Value::from("complete"));
            let meta = obj.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(META_SERVER_INFO.into(), self.server_info());
            }
        }
        result
    }

    fn server_info(&self) -> Value {
        json!({"name": self.server.inner.name, "version": self.server.inner.version})
    }

    /// What the server offers: tools, client logging before 2026-07-28 (deprecated by
    /// SEP-2577, so neither advertised nor sent at 2026-07-28), and tasks at 2025-11-25
    /// when a tool may run as one (2026-07-28 moved tasks out of the core protocol into
    /// the `io.modelcontextprotocol/tasks` extension, which this server does not offer).
    fn capabilities(&self, version: ProtocolVersion) -> Value {
        let mut caps = if version.uses_handshake() {
            json!({"tools": {"listChanged": false}, "logging": {}})
        } else {
            json!({"tools": {"listChanged": false}})
        };
        if self.tasks_at(version)
            && let Some(obj) = caps.as_object_mut()
        {
            obj.insert(
                "tasks".into(),
                json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
            );
        }
        caps
    }

    /// True when tasks are offered to a client at `version`.
    fn tasks_at(&self, version: ProtocolVersion) -> bool {
        self.server.inner.offers_tasks && version == ProtocolVersion::V2025_11_25
    }

    fn notification(&self, method: &str, params: Option<&RawValue>) {
        // Only cancellation needs work; initialized, progress, roots/list_changed and
        // unknown notifications are ignored, as JSON-RPC asks.
        #[derive(Deserialize)]
        struct Cancelled<'a> {
            #[serde(borrow, rename = "requestId")]
            request_id: &'a RawValue,
        }
        if method == "notifications/cancelled"
            && let Some(p) = params
            && let Ok(c) = serde_json::from_str::<Cancelled<'_>>(p.get())
            && let Some(id) = Id::parse(c.request_id)
        {
            let mut running = lock(&self.state.running);
            if let Some(flag) = running.calls.get(id.key()) {
                flag.store(true, Ordering::Relaxed);
            }
            // A cancelled subscription ends without an answer.
            running.subscriptions.remove(id.key());
        }
    }

    /// `subscriptions/listen`: this server's tools never change, so it honours none of the
    /// notification types; the stream is acknowledged with an empty filter and stays open
    /// until the client cancels it or the connection closes (then answered as closed).
    fn listen(&self, req: &Request) -> Result<Option<String>, Failure> {
        match req.params.as_ref().and_then(|p| p.get("notifications")) {
            Some(Value::Object(_)) => {}
            _ => return Err(invalid("\"notifications\" must be an object".into())),
        }
        {
            let mut running = lock(&self.state.running);
            if running.subscriptions.contains_key(req.id.key())
                || running.calls.contains_key(req.id.key())
            {
                return Err((
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: this id belongs to a request still running".into(),
                    None,
                ));
            }
            if running.subscriptions.len() >= self.server.inner.max_in_flight {
                return Err((
                    jsonrpc::SERVER_BUSY,
                    "server busy: too many subscriptions open".into(),
                    None,
                ));
            }
            running
                .subscriptions
                .insert(req.id.key().to_string(), req.id.clone());
        }
        (self.state.sink)(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\
                 \"params\":{{\"_meta\":{{\"io.modelcontextprotocol/subscriptionId\":{}}},\"notifications\":{{}}}}}}",
                req.id.raw()
            ),
            Outgoing::Answer,
            Some(&req.id),
        );
        Ok(None)
    }

    /// Ends the open subscriptions gracefully: each gets its `subscriptions/listen` result.
    fn close_subscriptions(&self) {
        let open: Vec<Id> = lock(&self.state.running)
            .subscriptions
            .drain()
            .map(|(_, id)| id)
            .collect();
        for id in open {
            let result = json!({
                "resultType": "complete",
                "_meta": {META_SERVER_INFO: self.server_info()},
            });
            let mut line = result_line(&id, &result);
            // The subscription id is the request id, exactly as sent.
            line = line.replacen(
                "\"_meta\":{",
                &format!(
                    "\"_meta\":{{\"io.modelcontextprotocol/subscriptionId\":{},",
                    id.raw()
                ),
                1,
            );
            self.send(line);
        }
    }

    fn initialize(&self, req: &Request) -> Result<Value, Failure> {
        let asked = req
            .params
            .as_ref()
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        let Some(asked) = asked else {
            return Err(invalid("\"protocolVersion\" must be a string".into()));
        };
        let version = match ProtocolVersion::parse(asked) {
            Some(v) if v.uses_handshake() => v,
            _ => ProtocolVersion::LATEST_HANDSHAKE,
        };
        {
            let mut s = lock(&self.state.session);
            if let Some(v) = s.negotiated {
                return Err((
                    jsonrpc::INVALID_REQUEST,
                    format!("invalid request: the session is already initialized at {v}"),
                    None,
                ));
            }
            s.negotiated = Some(version);
            s.client_info = req
                .params
                .as_ref()
                .and_then(|p| p.get("clientInfo"))
                .cloned();
            s.log_level = Some(LogLevel::Info);
            s.capabilities = req
                .params
                .as_ref()
                .and_then(|p| p.get("capabilities"))
                .filter(|c| c.is_object())
                .cloned();
        }
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.capabilities(version),
            "serverInfo": self.server_info(),
        });
        if let (Some(text), Some(obj)) = (&self.server.inner.instructions, result.as_object_mut()) {
            obj.insert("instructions".into(), Value::from(text.as_str()));
        }
        Ok(result)
    }

    fn discover(&self) -> Value {
        let mut result = json!({
            "supportedVersions": modern_versions(),
            "capabilities": self.capabilities(ProtocolVersion::V2026_07_28),
            "ttlMs": self.server.inner.list_ttl_ms,
            "cacheScope": "public",
        });
        if let (Some(text), Some(obj)) = (&self.server.inner.instructions, result.as_object_mut()) {
            obj.insert("instructions".into(), Value::from(text.as_str()));
        }
        result
    }

    fn set_level(&self, req: &Request) -> Result<Value, Failure> {
        let level = req
            .params
            .as_ref()
            .and_then(|p| p.get("level"))
            .and_then(Value::as_str)
            .and_then(LogLevel::parse);
        let Some(level) = level else {
            return Err(invalid("\"level\" must be a log level name".into()));
        };
        lock(&self.state.session).log_level = Some(level);
        Ok(json!({}))
    }

    fn list(&self, req: &Request) -> Result<Value, Failure> {
        let inner = &self.server.inner;
        let start = match req.params.as_ref().and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => decode_cursor(c, inner.tools.len())
                .ok_or_else(|| invalid("unknown cursor".into()))?,
            Some(_) => return Err(invalid("\"cursor\" must be a string".into())),
        };
        let end = start.saturating_add(inner.page_size).min(inner.tools.len());
        let tools: Vec<Value> = inner.tools[start..end]
            .iter()
            .map(|t| t.to_json(req.version))
            .collect();
        let mut result = json!({ "tools": tools });
        if let Some(obj) = result.as_object_mut() {
            if end < inner.tools.len() {
                obj.insert("nextCursor".into(), Value::from(encode_cursor(end)));
            }
            if req.version >= ProtocolVersion::V2026_07_28 {
                obj.insert("ttlMs".into(), Value::from(inner.list_ttl_ms));
                obj.insert("cacheScope".into(), Value::from("public"));
            }
        }
        Ok(result)
    }

    /// Checks what can be checked at once, then runs the call: validation included, on its
    /// own thread in [`Mode::Spawn`], so a slow argument check never holds up reading.
    fn call(&self, mut req: Request, mode: Mode) -> Result<Option<String>, Failure> {
        let inner = &self.server.inner;
        let Some(params) = req.params.as_mut() else {
            return Err(invalid("tools/call needs params".into()));
        };
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(invalid("\"name\" must be a string".into()));
        };
        let Some(tool) = self.server.tool(name).cloned() else {
            return Err((
                jsonrpc::INVALID_PARAMS,
                format!("unknown tool: {}", clip(name)),
                None,
            ));
        };
        if tool.requires_token() && !self.state.verified && !inner.trust_local_user {
            let scopes = super::SecurityScheme::challenge_scopes(tool.security_schemes());
            return Err((
                jsonrpc::UNAUTHORIZED,
                format!(
                    "unauthorized: tool {} needs an OAuth token{}, and this connection has none (serve it over HTTP with authorization, or trust the local user)",
                    clip(name),
                    if scopes.is_empty() {
                        String::new()
                    } else {
                        format!(" with scope {}", scopes.join(" "))
                    }
                ),
                Some(json!({"requiredScopes": scopes})),
            ));
        }
        // Taken, not cloned: the call holds one copy of its arguments, as text until they
        // pass the input schema.
        let arguments = match req.arguments.take() {
            None => empty_arguments(),
            Some(raw) if raw.get() == "null" => empty_arguments(),
            Some(raw) if raw.get().starts_with('{') => raw,
            Some(_) => return Err(invalid("\"arguments\" must be an object".into())),
        };
        let meta = params.get("_meta").and_then(Value::as_object);
        let progress_token = match meta.and_then(|m| m.get("progressToken")) {
            None => None,
            Some(t @ (Value::String(_) | Value::Number(_))) => {
                if t.to_string().len() > MAX_PROGRESS_TOKEN_BYTES {
                    return Err(invalid(format!(
                        "\"progressToken\" is longer than {MAX_PROGRESS_TOKEN_BYTES} bytes"
                    )));
                }
                Some(t.clone())
            }
            Some(_) => {
                return Err(invalid(
                    "\"progressToken\" must be a string or a number".into(),
                ));
            }
        };
        let (log_level, client_info, capabilities) = if req.modern {
            // Logging is deprecated at 2026-07-28 and not advertised, so nothing is sent.
            (
                None,
                meta.and_then(|m| m.get(META_CLIENT_INFO)).cloned(),
                meta.and_then(|m| m.get(META_CLIENT_CAPABILITIES)).cloned(),
            )
        } else {
            let s = lock(&self.state.session);
            (s.log_level, s.client_info.clone(), s.capabilities.clone())
        };
        // 2026-07-28: the answers of this round; those of earlier rounds (`requestState`)
        // join them once the arguments are read, since the state is bound to them
        // (`read_arguments`).
        let rounds = if req.modern {
            req.state = match params.get("requestState") {
                None | Some(Value::Null) => None,
                Some(Value::String(state)) => Some(state.clone()),
                Some(_) => return Err(invalid("\"requestState\" must be a string".into())),
            };
            let mut answers = Map::new();
            match params.get("inputResponses") {
                None | Some(Value::Null) => {}
                Some(Value::Object(m)) => answers.extend(m.clone()),
                Some(_) => return Err(invalid("\"inputResponses\" must be an object".into())),
            }
            Some(Mutex::new(Rounds {
                answers,
                ..Rounds::default()
            }))
        } else {
            None
        };
        let task = if self.tasks_at(req.version) {
            let asked = match params.get("task") {
                None | Some(Value::Null) => None,
                Some(Value::Object(t)) => match t.get("ttl") {
                    None | Some(Value::Null) => Some(None),
                    Some(v) => Some(Some(v.as_u64().ok_or_else(|| {
                        invalid("\"task.ttl\" must be a non-negative integer".into())
                    })?)),
                },
                Some(_) => return Err(invalid("\"task\" must be an object".into())),
            };
            match (asked, tool.task_support()) {
                (Some(_), TaskSupport::Forbidden) => {
                    return Err((
                        jsonrpc::METHOD_NOT_FOUND,
                        format!(
                            "tool {} cannot run as a task (execution.taskSupport is \"forbidden\")",
                            clip(tool.name())
                        ),
                        None,
                    ));
                }
                (None, TaskSupport::Required) => {
                    return Err((
                        jsonrpc::METHOD_NOT_FOUND,
                        format!(
                            "tool {} runs only as a task (execution.taskSupport is \"required\"): \
                             call it with params.task",
                            clip(tool.name())
                        ),
                        None,
                    ));
                }
                (asked, _) => asked,
            }
        } else {
            None
        };
        let held = req.size.max(estimate_text_bytes(arguments.get()));
        if held > inner.max_call_memory {
            return Err((
                jsonrpc::SERVER_BUSY,
                format!(
                    "arguments too large: about {} MiB once read, the limit is {} MiB",
                    held >> 20,
                    inner.max_call_memory >> 20
                ),
                None,
            ));
        }
        let talk = Talk {
            outstanding: Arc::clone(&self.state.outstanding),
            capabilities,
            task: None,
            rounds,
        };
        if let Some(ttl) = task {
            let ctx = CallContext {
                version: req.version,
                cancelled: Arc::new(AtomicBool::new(false)),
                progress_token,
                sink: Arc::clone(&self.state.sink),
                log_level,
                client_info,
                tool: tool.name().to_string(),
                talk: Some(talk),
                request: req.id.clone(),
            };
            return self.start_task(tool, arguments, ctx, req, ttl, mode);
        }
        let key = req.id.key().to_string();
        let cancelled = Arc::new(AtomicBool::new(false));
        {
            let mut running = lock(&self.state.running);
            if running.calls.contains_key(&key) {
                return Err((
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: this id belongs to a call still running".into(),
                    None,
                ));
            }
            if mode != Mode::Batch && running.slots() >= inner.max_in_flight {
                return Err((
                    jsonrpc::SERVER_BUSY,
                    "server busy: too many calls in flight".into(),
                    None,
                ));
            }
            if running.bytes + held > inner.max_memory_in_flight {
                return Err((
                    jsonrpc::SERVER_BUSY,
                    "server busy: the calls in flight hold too much memory".into(),
                    None,
                ));
            }
            running.calls.insert(key.clone(), Arc::clone(&cancelled));
            running.bytes += held;
        }
        let ctx = CallContext {
            version: req.version,
            cancelled,
            progress_token,
            sink: Arc::clone(&self.state.sink),
            log_level,
            client_info,
            tool: tool.name().to_string(),
            request: req.id.clone(),
            talk: Some(talk),
        };
        let undo = {
            let state = Arc::clone(&self.state);
            let key = req.id.key().to_string();
            move || {
                let mut running = lock(&state.running);
                running.calls.remove(&key);
                running.bytes -= held;
                drop(running);
                state.idle.notify_all();
            }
        };
        let this = self.clone_handle();
        // The answer is delivered while the table is locked: a closing connection waiting for
        // the table to empty never loses it, and a client reusing the id after the answer
        // never finds it still taken.
        let run = move |deliver: bool| {
            let answer = this.run_call(&tool, arguments, &ctx, &req);
            let answer = if ctx.is_cancelled() {
                None
            } else {
                Some(answer)
            };
            let mut running = lock(&this.state.running);
            running.calls.remove(&key);
            running.bytes -= held;
            let answer = match (deliver, answer) {
                (true, Some(a)) => {
                    (this.state.sink)(a, Outgoing::Answer, Some(&req.id));
                    None
                }
                (_, a) => a,
            };
            drop(running);
            this.state.idle.notify_all();
            answer
        };
        if mode != Mode::Spawn {
            return Ok(run(false));
        }
        let spawned = std::thread::Builder::new()
            .name("mcp-call".into())
            .spawn(move || {
                run(true);
            });
        if spawned.is_err() {
            undo();
            return Err((
                jsonrpc::INTERNAL_ERROR,
                "internal error: cannot start the call".into(),
                None,
            ));
        }
        Ok(None)
    }

    fn run_call(
        &self,
        tool: &Tool,
        arguments: Box<RawValue>,
        ctx: &CallContext,
        req: &Request,
    ) -> String {
        let id = &req.id;
        let arguments = match self.read_arguments(tool, &arguments, ctx, req) {
            Ok(value) => value,
            Err(answer) => return answer,
        };
        let handler = &tool.inner.handler;
        let outcome = catch_unwind(AssertUnwindSafe(|| handler(arguments, ctx)));
        if let Some(answer) = self.input_required(ctx, req) {
            return answer;
        }
        let mut result = match outcome {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => {
                eprintln!("toolschema mcp: tool {}: handler error: {e}", tool.name());
                return error_line(
                    id,
                    jsonrpc::INTERNAL_ERROR,
                    "internal error: the tool failed",
                    None,
                );
            }
            Err(_) => {
                eprintln!("toolschema mcp: tool {}: handler panicked", tool.name());
                return error_line(
                    id,
                    jsonrpc::INTERNAL_ERROR,
                    "internal error: the tool failed",
                    None,
                );
            }
        };
        // The server broke its own contract: the client is not to blame, so it gets an
        // `isError` result naming where, and stderr gets the same.
        if let Err(violations) = contract::check_result_parts(
            tool.output_schema(),
            tool.name(),
            result.is_error(),
            result.structured_content(),
        ) {
            eprintln!("toolschema mcp: {violations}");
            let refusal =
                contract::refuse_result(&violations, OutputPolicy::ErrorResult, req.version);
            if let Some(refusal) = refusal {
                return self.render_refusal(refusal, req);
            }
        }
        result.mirror_structured();
        let wrap = if tool.wraps_output(req.version) {
            Some(WRAP_KEY)
        } else {
            None
        };
        result_line(
            id,
            &self.finish_result(result.render(req.version, wrap), req),
        )
    }

    /// At 2026-07-28, when the handler asked the client for something: the
    /// `input_required` result carrying the requests and the answers so far.
    fn input_required(&self, ctx: &CallContext, req: &Request) -> Option<String> {
        let rounds = ctx.talk.as_ref()?.rounds.as_ref()?;
        let r = rounds.lock().unwrap_or_else(|p| p.into_inner());
        if r.asked.is_empty() {
            return None;
        }
        let result = json!({
            "inputRequests": Value::Object(r.asked.clone()),
            "requestState": encode_state(&r.binding, &r.answers),
        });
        let mut result = self.finish_result(result, req);
        result["resultType"] = Value::from("input_required");
        Some(result_line(&req.id, &result))
    }

    /// A task-augmented `tools/call` (2025-11-25): the task is created and answered at
    /// once (`CreateTaskResult`); the handler runs on its own thread, and its answer waits
    /// in the task table for `tasks/result`.
    fn start_task(
        &self,
        tool: Tool,
        arguments: Box<RawValue>,
        mut ctx: CallContext,
        req: Request,
        ttl: Option<u64>,
        mode: Mode,
    ) -> Result<Option<String>, Failure> {
        let created = lock(&self.state.tasks).create(ttl);
        let Some((task_id, cancel, task)) = created else {
            return Err((
                jsonrpc::SERVER_BUSY,
                "server busy: too many tasks running".into(),
                None,
            ));
        };
        ctx.cancelled = cancel;
        if let Some(talk) = ctx.talk.as_mut() {
            let state = Arc::clone(&self.state);
            let id = task_id.clone();
            talk.task = Some(TaskLink {
                id: task_id.clone(),
                set_status: Box::new(move |status| {
                    let line = lock(&state.tasks).set_running_status(&id, status);
                    if let Some(line) = line {
                        (state.sink)(line, Outgoing::Notification, None);
                    }
                }),
            });
        }
        let answer = result_line(&req.id, &self.finish_result(json!({"task": task}), &req));
        // The client learns of the task before any status notification about it.
        let answer = if mode == Mode::Spawn {
            (self.state.sink)(answer, Outgoing::Answer, Some(&req.id));
            None
        } else {
            Some(answer)
        };
        let this = self.clone_handle();
        let failed_id = task_id.clone();
        let spawned = std::thread::Builder::new()
            .name("mcp-task".into())
            .spawn(move || {
                let line = this.run_call(&tool, arguments, &ctx, &req);
                let outcome = match serde_json::from_str::<Value>(&line) {
                    Ok(mut v) => match (v.get_mut("result").map(Value::take), v.get("error")) {
                        (Some(r), _) => Outcome::Result(r),
                        (None, Some(e)) => Outcome::Error(
                            e["code"].as_i64().unwrap_or(jsonrpc::INTERNAL_ERROR),
                            e["message"]
                                .as_str()
                                .unwrap_or("internal error")
                                .to_string(),
                        ),
                        _ => Outcome::Error(jsonrpc::INTERNAL_ERROR, "internal error".into()),
                    },
                    Err(_) => Outcome::Error(jsonrpc::INTERNAL_ERROR, "internal error".into()),
                };
                let lines = lock(&this.state.tasks).finish(&task_id, outcome);
                for line in lines {
                    (this.state.sink)(line, Outgoing::Answer, None);
                }
            });
        if spawned.is_err() {
            // The task exists (and may be announced): it fails rather than vanishing.
            let lines = lock(&self.state.tasks).finish(
                &failed_id,
                Outcome::Error(
                    jsonrpc::INTERNAL_ERROR,
                    "internal error: cannot start the task".into(),
                ),
            );
            for line in lines {
                (self.state.sink)(line, Outgoing::Answer, None);
            }
        }
        Ok(answer)
    }

    /// `tasks/get`, `tasks/list`, `tasks/cancel`.
    fn task_request(&self, req: &Request) -> Result<Value, Failure> {
        let params = req.params.as_ref();
        if req.method == "tasks/list" {
            let after = match params.and_then(|p| p.get("cursor")) {
                None | Some(Value::Null) => 0,
                Some(Value::String(c)) => c
                    .strip_prefix("tk1.")
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
                    .filter(|&n| lock(&self.state.tasks).knows_position(n))
                    .ok_or_else(|| invalid("unknown cursor".into()))?,
                Some(_) => return Err(invalid("\"cursor\" must be a string".into())),
            };
            let (tasks, next) = lock(&self.state.tasks).list(after, self.server.inner.page_size);
            let mut result = json!({ "tasks": tasks });
            if let (Some(n), Some(obj)) = (next, result.as_object_mut()) {
                obj.insert("nextCursor".into(), Value::from(format!("tk1.{n:x}")));
            }
            return Ok(result);
        }
        let Some(id) = params.and_then(|p| p.get("taskId")).and_then(Value::as_str) else {
            return Err(invalid("\"taskId\" must be a string".into()));
        };
        let unknown = || invalid(format!("unknown task {}", clip(id)));
        if req.method == "tasks/get" {
            return lock(&self.state.tasks).get(id).ok_or_else(unknown);
        }
        let cancelled = lock(&self.state.tasks).cancel(id).ok_or_else(unknown)?;
        let Ok((task, lines)) = cancelled else {
            return Err(invalid(format!(
                "task {} has already finished and cannot be cancelled",
                clip(id)
            )));
        };
        for line in lines {
            (self.state.sink)(line, Outgoing::Answer, None);
        }
        Ok(task)
    }

    /// `tasks/result`: answered now for a finished task, else when it finishes.
    fn task_result(&self, req: &Request) -> Result<Option<String>, Failure> {
        let params = req.params.as_ref();
        let Some(id) = params.and_then(|p| p.get("taskId")).and_then(Value::as_str) else {
            return Err(invalid("\"taskId\" must be a string".into()));
        };
        lock(&self.state.tasks)
            .result(id, &req.id)
            .map_err(|why| invalid(format!("{why}: {}", clip(id))))
    }

    /// The arguments as the handler gets them, once they pass the input schema, or the
    /// answer to the call. They are checked from their text, so a refused call never
    /// builds a `Value` unless it is reported (the reporting path walks one), and a passing
    /// call builds one only for its handler. At 2026-07-28 a `requestState` is decoded
    /// first, as it was before arguments were checked from text (its binding hashes the
    /// arguments' `Value`).
    fn read_arguments(
        &self,
        tool: &Tool,
        text: &RawValue,
        ctx: &CallContext,
        req: &Request,
    ) -> Result<Value, String> {
        let rounds = ctx.talk.as_ref().and_then(|t| t.rounds.as_ref());
        let mut value = None;
        if let (Some(rounds), Some(state)) = (rounds, &req.state) {
            let arguments = self.arguments_value(text, req)?;
            let binding = state_binding(tool.name(), &arguments);
            let Some(mut answers) = decode_state(state, &binding) else {
                let (code, message, _) =
                    invalid("\"requestState\" is not one this server issued".into());
                return Err(error_line(&req.id, code, &message, None));
            };
            let mut r = lock(rounds);
            answers.extend(std::mem::take(&mut r.answers));
            r.answers = answers;
            r.binding = binding;
            value = Some(arguments);
        }
        // Passing text is the common case and needs no `Value` to decide. Anything else
        // takes the `Value` path, which has the last word: it reports refused arguments,
        // and gives text that cannot be read serde_json's own reason (`arguments_value`).
        let schema = tool.input_schema();
        let passed = schema.is_valid_json(text.get().as_bytes()) == Ok(true);
        let arguments = match value {
            Some(v) => v,
            None => self.arguments_value(text, req)?,
        };
        if !passed
            && let Err(violations) =
                contract::check_arguments(schema, tool.name(), Some(&arguments))
        {
            return Err(
                self.render_refusal(contract::refuse_arguments(&violations, req.version), req)
            );
        }
        if let (Some(rounds), None) = (rounds, &req.state) {
            lock(rounds).binding = state_binding(tool.name(), &arguments);
        }
        Ok(arguments)
    }

    /// The arguments' `Value`, or the `-32602` answer to text that cannot be read into one
    /// (nesting past serde_json's limit, a number beyond `f64`).
    fn arguments_value(&self, text: &RawValue, req: &Request) -> Result<Value, String> {
        serde_json::from_str(text.get()).map_err(|e| {
            error_line(
                &req.id,
                jsonrpc::INVALID_PARAMS,
                &format!("invalid params: cannot be read ({})", parse_problem(&e)),
                None,
            )
        })
    }

    fn render_refusal(&self, refusal: Refusal, req: &Request) -> String {
        match refusal {
            Refusal::Error {
                code,
                message,
                data,
            } => error_line(&req.id, code, &message, Some(&data)),
            Refusal::Result(result) => result_line(&req.id, &self.finish_result(result, req)),
        }
    }

    /// The number of requests running now: `tools/call` requests and the requests of
    /// batches being answered.
    pub fn in_flight(&self) -> usize {
        lock(&self.state.running).slots()
    }

    /// Ends the session: answers the open subscriptions as closed, waits up to `grace` for
    /// running calls to answer, then cancels the rest (their answers are dropped) and waits
    /// up to `grace` again for them to stop.
    pub fn finish(&self, grace: Duration) {
        self.close_subscriptions();
        // Handlers waiting on the client stop waiting: it will not answer any more.
        self.state.outstanding.close();
        lock(&self.state.tasks).cancel_all();
        let deadline = Instant::now() + grace;
        let mut running = lock(&self.state.running);
        while running.slots() > 0 {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            running = match self.state.idle.wait_timeout(running, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        if running.slots() == 0 {
            return;
        }
        eprintln!(
            "toolschema mcp: cancelling {} request(s) still running at shutdown",
            running.slots()
        );
        for flag in running.calls.values() {
            flag.store(true, Ordering::Relaxed);
        }
        let deadline = Instant::now() + grace;
        while running.slots() > 0 {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            running = match self.state.idle.wait_timeout(running, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}

/// An error answer: code, message, data.
type Failure = (i64, String, Option<Value>);

fn invalid(what: String) -> Failure {
    (
        jsonrpc::INVALID_PARAMS,
        format!("invalid params: {what}"),
        None,
    )
}

/// The versions a request's `_meta` may name. Earlier versions are served too, but only
/// after an `initialize` handshake, which is not a choice a 2026-07-28 client makes.
fn modern_versions() -> Vec<&'static str> {
    ProtocolVersion::ALL
        .iter()
        .filter(|v| !v.uses_handshake())
        .map(|v| v.as_str())
        .collect()
}

/// The required and checked fields of a 2026-07-28 request's `_meta`.
fn check_modern_meta(meta: Option<&Map<String, Value>>) -> Result<(), Failure> {
    let Some(meta) = meta else {
        return Ok(());
    };
    match meta.get(META_CLIENT_CAPABILITIES) {
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(invalid(format!(
                "_meta \"{META_CLIENT_CAPABILITIES}\" must be an object"
            )));
        }
        None => {
            return Err(invalid(format!(
                "_meta \"{META_CLIENT_CAPABILITIES}\" is required"
            )));
        }
    }
    if let Some(level) = meta.get(META_LOG_LEVEL)
        && level.as_str().and_then(LogLevel::parse).is_none()
    {
        return Err(invalid(format!(
            "_meta \"{META_LOG_LEVEL}\" must be a log level name (debug, info, notice, warning, error, critical, alert, emergency)"
        )));
    }
    if let Some(info) = meta.get(META_CLIENT_INFO)
        && !info.is_object()
    {
        return Err(invalid(format!(
            "_meta \"{META_CLIENT_INFO}\" must be an object"
        )));
    }
    Ok(())
}

/// A message's envelope, checked: what [`Connection::process`] acts on.
enum Checked<'a> {
    /// A request (with its id) or a notification (without).
    Message {
        id: Option<Id>,
        method: String,
        params: Option<&'a RawValue>,
    },
    /// A response to a request of a handler.
    Response { id: Id, reply: Reply },
}

/// Reads and checks a message's envelope (one message, not a batch): what it is, or the
/// refusal it is answered with (under its id when that is readable, else `null`). The one
/// reading of an envelope: `process` acts on it, and the HTTP transport asks
/// [`expected_answer`] (built on it) which answer a message will get before it opens the
/// stream that carries it.
fn check_envelope(message: &str) -> Result<Checked<'_>, Answer> {
    let fail = |id: &Id, code: i64, message: &str| Answer {
        id: id.clone(),
        line: error_line(id, code, message, None),
    };
    if !message.trim_start().starts_with('{') {
        // serde would read an array as the envelope's members in order.
        let line = if serde_json::from_str::<serde::de::IgnoredAny>(message).is_ok() {
            error_line(
                &Id::null(),
                jsonrpc::INVALID_REQUEST,
                "invalid request: a message must be a JSON object",
                None,
            )
        } else {
            error_line(
                &Id::null(),
                jsonrpc::PARSE_ERROR,
                "parse error: the message is not valid JSON",
                None,
            )
        };
        return Err(Answer {
            id: Id::null(),
            line,
        });
    }
    if let Some(at) = jsonrpc::find_duplicate_member(message.as_bytes()) {
        // One rule for every transport: what a proxy in front of this server validated
        // must be what the handler gets, whichever value of a repeated member either
        // parser would keep. Such a message is never read, so never taken for a
        // notification: it is refused, under its id when it reads as a request, else under
        // `null` (a response is not answered under its own id). `process` also tells a
        // handler waiting for a response that its answer came garbled.
        let (id, response, _) = scanned_id(message);
        let id = match id {
            Some(id) if !response => id,
            _ => Id::null(),
        };
        let hazard = jsonrpc::Hazard::DuplicateMember(at);
        return Err(fail(&id, hazard.code(), &hazard.message()));
    }
    let env: Envelope<'_> = match serde_json::from_str(message) {
        Ok(env) => env,
        Err(e) => {
            return Err(Answer {
                id: Id::null(),
                line: unreadable(message, &e),
            });
        }
    };
    let id = match env.id {
        None => None,
        Some(raw) => match Id::parse(raw) {
            Some(id) => Some(id),
            None => {
                return Err(fail(
                    &Id::null(),
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: \"id\" must be a string or a number",
                ));
            }
        },
    };
    let reply_id = id.clone().unwrap_or_else(Id::null);
    if env
        .jsonrpc
        .and_then(|r| serde_json::from_str::<String>(r.get()).ok())
        != Some("2.0".to_string())
    {
        return Err(fail(
            &reply_id,
            jsonrpc::INVALID_REQUEST,
            "invalid request: \"jsonrpc\" must be \"2.0\"",
        ));
    }
    let method = match env.method {
        Some(raw) => match serde_json::from_str::<String>(raw.get()) {
            Ok(m) => m,
            Err(_) => {
                return Err(fail(
                    &reply_id,
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: \"method\" must be a string",
                ));
            }
        },
        None => match id {
            Some(id) if env.result.is_some() || env.error.is_some() => {
                let parse = |r: &RawValue| serde_json::from_str::<Value>(r.get()).ok();
                let reply = match (env.result, env.error) {
                    (Some(r), None) => parse(r).map_or(Reply::Garbage, Reply::Result),
                    (None, Some(e)) => parse(e).map_or(Reply::Garbage, |e| read_error(&e)),
                    _ => Reply::Garbage,
                };
                return Ok(Checked::Response { id, reply });
            }
            _ => {
                return Err(fail(
                    &reply_id,
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: \"method\" is missing",
                ));
            }
        },
    };
    Ok(Checked::Message {
        id,
        method,
        params: env.params,
    })
}

/// The answer a connection gives one message (not a batch), as the HTTP transport needs to
/// know it before the message is handled.
pub enum Expected {
    /// None: a notification, or a response to a request of a handler.
    Nothing,
    /// An answer under this id (a request's, or the refusal of an envelope whose id reads).
    Answer(Id),
    /// A refusal under the `null` id, which no stream of the request can be found by: the
    /// transport sends this line itself instead of handing the message on.
    Refused(String),
}

/// What [`Connection::handle`] answers `message` (one message, not a batch) with: the
/// envelope is read by the same code, so the two cannot disagree.
pub fn expected_answer(message: &str) -> Expected {
    match check_envelope(message) {
        Err(refusal) if refusal.id.key() == Id::null().key() => Expected::Refused(refusal.line),
        Err(refusal) => Expected::Answer(refusal.id),
        Ok(Checked::Message { id: Some(id), .. }) => Expected::Answer(id),
        Ok(Checked::Message { id: None, .. } | Checked::Response { .. }) => Expected::Nothing,
    }
}

/// The answer to a message that is not a readable envelope.
/// A message's id, found by a scan (its envelope may not be readable), and whether it is
/// a response or a notification.
fn scanned_id(message: &str) -> (Option<Id>, bool, bool) {
    let mut head = super::head::MessageHead::new();
    head.feed(message.as_bytes());
    let id = head
        .id()
        .and_then(|v| serde_json::value::to_raw_value(v).ok())
        .and_then(|raw| Id::parse(&raw));
    let notification = head.id().is_none() && head.method().is_some();
    (id, head.is_response(), notification)
}

fn unreadable(message: &str, e: &serde_json::Error) -> String {
    if serde_json::from_str::<serde::de::IgnoredAny>(message).is_ok() {
        // Valid JSON: not an object, or an object repeating a member.
        error_line(
            &Id::null(),
            jsonrpc::INVALID_REQUEST,
            &format!("invalid request: {}", parse_problem(e)),
            None,
        )
    } else {
        error_line(
            &Id::null(),
            jsonrpc::PARSE_ERROR,
            "parse error: the message is not valid JSON",
            None,
        )
    }
}

/// What the parser found, without the position (which says nothing to a JSON-RPC client).
fn parse_problem(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" at line ") {
        Some(i) => &text[..i],
        None => &text,
    };
    if text.starts_with("invalid type") {
        "a message must be a JSON object".into()
    } else {
        text.to_string()
    }
}

/// A `tools/call`'s params: the arguments as text (see `Request::arguments`), every
/// other member read as usual.
struct ReadParams {
    rest: Map<String, Value>,
    arguments: Option<Box<RawValue>>,
}

/// Reads params (an object's text); with `raw_arguments`, `arguments` is kept as text.
/// A repeated member keeps its last value, as a `Map` does.
fn read_params(text: &str, raw_arguments: bool) -> Result<ReadParams, serde_json::Error> {
    if !raw_arguments {
        return serde_json::from_str(text).map(|rest| ReadParams {
            rest,
            arguments: None,
        });
    }
    struct Members;
    impl<'de> serde::de::Visitor<'de> for Members {
        type Value = ReadParams;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<ReadParams, A::Error> {
            let mut read = ReadParams {
                rest: Map::new(),
                arguments: None,
            };
            while let Some(key) = map.next_key::<String>()? {
                if key == "arguments" {
                    read.arguments = Some(map.next_value()?);
                } else {
                    let value = map.next_value()?;
                    read.rest.insert(key, value);
                }
            }
            Ok(read)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let read = serde::Deserializer::deserialize_map(&mut de, Members)?;
    de.end()?;
    Ok(read)
}

/// The arguments of a call that sent none (or `null`): `{}`.
fn empty_arguments() -> Box<RawValue> {
    RawValue::from_string("{}".into()).unwrap_or_else(|_| unreachable!("`{{}}` is JSON"))
}

/// The heap a `Value` holds per node, and per object entry (its key's `String`, its
/// `Value`, and the tree's share).
const NODE: usize = size_of::<Value>();
const ENTRY: usize = size_of::<String>() + NODE + 16;

/// The heap the `Value` read from the JSON text `text` will hold, estimated before it is
/// read, for the memory bounds of calls: what `estimate_bytes` says of that `Value`
/// (arrays grow as serde_json grows them; strings and keys counted at their length in the
/// text, which is at least their length once unescaped). Text nested deeper than a
/// `Value` can be read from is refused before one is built: its estimate is its length.
fn estimate_text_bytes(text: &str) -> usize {
    /// Deeper than serde_json reads (its recursion limit, 128).
    const TOO_DEEP: usize = 129;
    // Per open container: whether it is an object, and an array's items so far.
    let mut open: Vec<(bool, usize)> = Vec::new();
    let mut total = NODE;
    let mut expect_key = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let starts_value = matches!(
            b,
            b'"' | b'[' | b'{' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
        );
        if starts_value
            && !expect_key
            && let Some((false, items)) = open.last_mut()
        {
            *items += 1;
        }
        match b {
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let len = i.min(bytes.len()) - start;
                total += if expect_key { ENTRY + len } else { len };
                expect_key = false;
            }
            b'[' | b'{' => {
                open.push((b == b'{', 0));
                if open.len() >= TOO_DEEP {
                    return text.len();
                }
                expect_key = b == b'{';
            }
            b']' | b'}' => {
                if let Some((false, items)) = open.pop()
                    && items > 0
                {
                    // serde_json pushes items one by one: capacity 4, then doubling.
                    total += items.next_power_of_two().max(4) * NODE;
                }
            }
            b',' => expect_key = matches!(open.last(), Some((true, _))),
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                while i + 1 < bytes.len()
                    && !matches!(
                        bytes[i + 1],
                        b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    total
}

/// An estimate of the heap a parsed value holds: the reference `estimate_text_bytes` is
/// tested against.
#[cfg(test)]
fn estimate_bytes(value: &Value) -> usize {
    let mut total = NODE;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => total += s.capacity(),
            Value::Array(items) => {
                total += items.capacity() * NODE;
                stack.extend(items);
            }
            Value::Object(map) => {
                for (k, item) in map {
                    total += ENTRY + k.capacity();
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    total
}

/// A client's string for an error message: at most 128 characters, as a JSON string.
fn clip(s: &str) -> String {
    crate::error::Quoted(clip_raw(s)).to_string()
}

/// A client's string cut to 128 characters (an ellipsis marks the cut).
fn clip_raw(s: &str) -> String {
    let mut out: String = s.chars().take(MAX_ECHOED_CHARS).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn encode_cursor(offset: usize) -> String {
    format!("ts1.{offset:x}")
}

fn decode_cursor(cursor: &str, len: usize) -> Option<usize> {
    let hex = cursor.strip_prefix("ts1.")?;
    if hex.is_empty()
        || hex.len() > 16
        || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    let offset = usize::from_str_radix(hex, 16).ok()?;
    (offset > 0 && offset < len).then_some(offset)
}

#[cfg(test)]
mod argument_text_tests {
    use super::*;

    #[test]
    fn the_estimate_from_text_is_the_estimate_of_the_value() {
        let pad = format!("[{}0]", "0,".repeat(999));
        for text in [
            "{}",
            r#"{"a": 1, "b": [1, 2, 3], "c": {"d": "text", "e": [], "f": [[1], {}]}}"#,
            r#"{"s": "x", "n": -1.5e3, "t": true, "f": false, "z": null, "arr": [1,2,3,4,5]}"#,
            &format!(r#"{{"seconds": 3, "pad": {pad}}}"#),
            r#"[{"k": "v"}, ["a", "b"], "c,]}", 7]"#,
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(estimate_text_bytes(text), estimate_bytes(&value), "{text}");
        }
        // Escapes are counted at their length in the text, never less than unescaped.
        let escaped = r#"{"k\u0041": "a\"b\\c\u00e9"}"#;
        let value: Value = serde_json::from_str(escaped).unwrap();
        assert!(estimate_text_bytes(escaped) >= estimate_bytes(&value));
        // Too deep to be read: the text's length, with no walk past the bound.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(estimate_text_bytes(&deep), deep.len());
    }

    #[test]
    fn call_params_keep_the_arguments_as_text() {
        let read = read_params(
            r#"{"name": "t", "arguments": {"a": 1.0, "a": [2]}, "_meta": {"x": 1}}"#,
            true,
        )
        .unwrap();
        assert_eq!(read.arguments.unwrap().get(), r#"{"a": 1.0, "a": [2]}"#);
        assert_eq!(read.rest["name"], "t");
        assert_eq!(read.rest["_meta"]["x"], 1);
        // The last of a repeated member, as a `Map` keeps it.
        let read = read_params(r#"{"arguments": 1, "arguments": {"b": 2}}"#, true).unwrap();
        assert_eq!(read.arguments.unwrap().get(), r#"{"b": 2}"#);
        // Arguments nested past serde_json's limit are still text here (refused when read).
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        let read = read_params(&format!(r#"{{"arguments": {deep}}}"#), true).unwrap();
        assert_eq!(read.arguments.unwrap().get().len(), 1000);
        assert!(read_params(r#"{"name": "t", "x": 1e400}"#, true).is_err());
        assert!(read_params(r#"{"name": "t"} x"#, true).is_err());
        assert!(read_params(r#"{"arguments": {}}"#, false).unwrap().rest["arguments"].is_object());
    }
}
