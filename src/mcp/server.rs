//! The server: tool registry, `tools/list`, `tools/call`, and JSON-RPC over any line stream.

use super::content::CallToolResult;
use super::context::{CallContext, LogLevel, Sink};
use super::jsonrpc::{self, error, error_with_data, response};
use super::tool::{Tool, ToolError, WRAP_KEY};
use super::version::ProtocolVersion;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, mpsc};
use std::time::{Duration, Instant};

const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How many validation failures an argument report lists before summarizing the rest.
const MAX_REPORTED_ERRORS: usize = 20;

/// Builds a [`Server`]; see [`Server::builder`].
pub struct ServerBuilder {
    name: String,
    version: String,
    instructions: Option<String>,
    tools: Vec<Tool>,
    page_size: usize,
    max_message_bytes: usize,
    max_in_flight: usize,
    list_ttl_ms: u64,
    shutdown_grace: Duration,
}

impl ServerBuilder {
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

    /// Tools per `tools/list` page (default 100; at least 1).
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

    /// The most `tools/call` requests running at once on one connection (default 64); one
    /// more is answered with `-32000`.
    pub fn max_in_flight(mut self, n: usize) -> ServerBuilder {
        self.max_in_flight = n.max(1);
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
                list_ttl_ms: self.list_ttl_ms,
                shutdown_grace: self.shutdown_grace,
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
    list_ttl_ms: u64,
    shutdown_grace: Duration,
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
            list_ttl_ms: 60_000,
            shutdown_grace: Duration::from_secs(5),
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
        Connection {
            server: self.clone(),
            state: Arc::new(ConnState {
                sink: Arc::new(output),
                session: Mutex::new(Session::default()),
                in_flight: Mutex::new(HashMap::new()),
                idle: Condvar::new(),
            }),
        }
    }

    /// Serves newline-delimited JSON-RPC from `input` to `output` until `input` ends, then
    /// waits for the calls still running (cancelling them after the shutdown grace) and
    /// flushes.
    ///
    /// # Errors
    /// Only when reading `input` fails; a malformed message is answered, never fatal.
    pub fn serve<R: Read, W: Write + Send + 'static>(&self, input: R, output: W) -> io::Result<()> {
        let (tx, rx) = mpsc::channel::<Option<String>>();
        let writer = std::thread::Builder::new()
            .name("mcp-writer".into())
            .spawn(move || {
                let mut out = io::BufWriter::new(output);
                while let Ok(Some(line)) = rx.recv() {
                    let ok = out
                        .write_all(line.as_bytes())
                        .and_then(|_| out.write_all(b"\n"))
                        .and_then(|_| out.flush());
                    if let Err(e) = ok {
                        eprintln!("toolschema mcp: cannot write to the client: {e}");
                        break;
                    }
                }
                let _ = out.flush();
            })?;
        let sink_tx = Mutex::new(tx.clone());
        let conn = self.connect(move |line| {
            if let Ok(tx) = sink_tx.lock() {
                let _ = tx.send(Some(line));
            }
        });
        let mut reader = BufReader::new(input);
        let mut buf = Vec::new();
        let max = self.inner.max_message_bytes;
        let result = loop {
            match read_capped_line(&mut reader, &mut buf, max) {
                Ok(Line::Eof) => break Ok(()),
                Ok(Line::TooLong) => conn.send(error(
                    &Value::Null,
                    jsonrpc::INVALID_REQUEST,
                    &format!("message too large: the limit is {max} bytes"),
                )),
                Ok(Line::Complete) => match std::str::from_utf8(&buf) {
                    Ok(text) => conn.handle(text),
                    Err(_) => conn.send(error(
                        &Value::Null,
                        jsonrpc::PARSE_ERROR,
                        "parse error: the message is not UTF-8",
                    )),
                },
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => break Err(e),
            }
        };
        conn.finish(self.inner.shutdown_grace);
        let _ = tx.send(None);
        let _ = writer.join();
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

enum Line {
    Complete,
    TooLong,
    Eof,
}

/// Reads one line into `buf` (without the newline or a trailing `\r`), never holding more
/// than `max` bytes: a longer line is consumed and dropped.
fn read_capped_line(reader: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
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
}

struct ConnState {
    sink: Sink,
    session: Mutex<Session>,
    /// Calls running now, by serialized request id.
    in_flight: Mutex<HashMap<String, Arc<AtomicBool>>>,
    idle: Condvar,
}

/// One client's session with a [`Server`]: feed it messages with [`handle`](Self::handle).
///
/// `tools/call` runs on its own thread, so a long call never blocks `ping` or
/// `notifications/cancelled`; every other request is answered before `handle` returns.
pub struct Connection {
    server: Server,
    state: Arc<ConnState>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The facts of one request that the method needs.
struct Request {
    id: Value,
    method: String,
    params: Option<Map<String, Value>>,
    version: ProtocolVersion,
    /// True when the version came from the request's `_meta` (2026-07-28 envelope).
    modern: bool,
}

impl Connection {
    fn send(&self, message: Value) {
        (self.state.sink)(message.to_string());
    }

    /// Handles one message (a JSON-RPC request, notification, response or batch).
    pub fn handle(&self, message: &str) {
        if message.trim().is_empty() {
            return;
        }
        let value: Value = match serde_json::from_str(message) {
            Ok(v) => v,
            Err(_) => {
                return self.send(error(
                    &Value::Null,
                    jsonrpc::PARSE_ERROR,
                    "parse error: the message is not valid JSON",
                ));
            }
        };
        match value {
            Value::Array(items) => self.handle_batch(items),
            other => {
                if let Some(answer) = self.process(other, false) {
                    self.send(answer);
                }
            }
        }
    }

    /// Handles one message and returns its answer, running a `tools/call` on this thread.
    pub(crate) fn handle_inline(&self, message: &str) -> Option<Value> {
        match serde_json::from_str::<Value>(message) {
            Ok(v) => self.process(v, true),
            Err(_) => Some(error(
                &Value::Null,
                jsonrpc::PARSE_ERROR,
                "parse error: the message is not valid JSON",
            )),
        }
    }

    fn handle_batch(&self, items: Vec<Value>) {
        let version = lock(&self.state.session).negotiated;
        match version {
            Some(v) if v.allows_batches() => {}
            _ => {
                let at = version.map_or(
                    "this session (no version negotiated yet)".to_string(),
                    |v| format!("protocol version {v}"),
                );
                return self.send(error(
                    &Value::Null,
                    jsonrpc::INVALID_REQUEST,
                    &format!(
                        "JSON-RPC batches are not supported at {at}; only 2025-03-26 has them"
                    ),
                ));
            }
        }
        if items.is_empty() {
            return self.send(error(
                &Value::Null,
                jsonrpc::INVALID_REQUEST,
                "invalid request: empty batch",
            ));
        }
        // A batch counts as running until its answer is sent, so that `finish` (stdin
        // closed) waits for it like for a call.
        static BATCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let key = format!("\u{0}batch:{}", BATCHES.fetch_add(1, Ordering::Relaxed));
        lock(&self.state.in_flight).insert(key.clone(), Arc::new(AtomicBool::new(false)));
        let this = self.clone_handle();
        let done = {
            let this = self.clone_handle();
            let key = key.clone();
            move || {
                lock(&this.state.in_flight).remove(&key);
                this.state.idle.notify_all();
            }
        };
        let spawned = std::thread::Builder::new()
            .name("mcp-batch".into())
            .spawn(move || {
                let answers: Vec<Value> = items
                    .into_iter()
                    .filter_map(|m| this.process(m, true))
                    .collect();
                if !answers.is_empty() {
                    this.send(Value::Array(answers));
                }
                done();
            });
        if spawned.is_err() {
            lock(&self.state.in_flight).remove(&key);
            self.state.idle.notify_all();
            self.send(error(
                &Value::Null,
                jsonrpc::INTERNAL_ERROR,
                "internal error: cannot start the batch",
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
    fn process(&self, message: Value, inline: bool) -> Option<Value> {
        let Value::Object(mut msg) = message else {
            return Some(error(
                &Value::Null,
                jsonrpc::INVALID_REQUEST,
                "invalid request: a message must be a JSON object",
            ));
        };
        let id = match msg.remove("id") {
            None => None,
            Some(id @ (Value::String(_) | Value::Number(_))) => Some(id),
            Some(_) => {
                return Some(error(
                    &Value::Null,
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: \"id\" must be a string or a number",
                ));
            }
        };
        let reply_id = id.clone().unwrap_or(Value::Null);
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Some(error(
                &reply_id,
                jsonrpc::INVALID_REQUEST,
                "invalid request: \"jsonrpc\" must be \"2.0\"",
            ));
        }
        let method = match msg.remove("method") {
            Some(Value::String(m)) => m,
            Some(_) => {
                return Some(error(
                    &reply_id,
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: \"method\" must be a string",
                ));
            }
            None if id.is_some() && (msg.contains_key("result") || msg.contains_key("error")) => {
                // A response to a request we never send: nothing to do.
                return None;
            }
            None => {
                return Some(error(
                    &reply_id,
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: \"method\" is missing",
                ));
            }
        };
        let params = match msg.remove("params") {
            None | Some(Value::Null) => None,
            Some(Value::Object(p)) => Some(p),
            Some(Value::Array(_)) => {
                return id.map(|id| {
                    error(
                        &id,
                        jsonrpc::INVALID_PARAMS,
                        "invalid params: MCP params must be an object",
                    )
                });
            }
            Some(_) => {
                return Some(error(
                    &reply_id,
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: \"params\" must be an object",
                ));
            }
        };
        let Some(id) = id else {
            self.notification(&method, params.as_ref());
            return None;
        };
        let meta = params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object);
        let (version, modern) = match meta.and_then(|m| m.get(META_PROTOCOL_VERSION)) {
            None => {
                let negotiated = lock(&self.state.session).negotiated;
                (
                    negotiated.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE),
                    false,
                )
            }
            Some(Value::String(s)) => match ProtocolVersion::parse(s) {
                Some(v) if !v.uses_handshake() => (v, true),
                _ => {
                    let supported: Vec<&str> = ProtocolVersion::ALL
                        .iter()
                        .filter(|v| !v.uses_handshake())
                        .map(|v| v.as_str())
                        .collect();
                    return Some(error_with_data(
                        &id,
                        jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
                        "unsupported protocol version",
                        json!({"supported": supported, "requested": s}),
                    ));
                }
            },
            Some(_) => {
                return Some(error(
                    &id,
                    jsonrpc::INVALID_PARAMS,
                    "invalid params: the protocol version in _meta must be a string",
                ));
            }
        };
        let req = Request {
            id,
            method,
            params,
            version,
            modern,
        };
        let answer = match req.method.as_str() {
            "initialize" => self.initialize(&req),
            "ping" => Ok(json!({})),
            "server/discover" => Ok(self.discover()),
            "tools/list" => self.list(&req),
            "logging/setLevel" => self.set_level(&req),
            "tools/call" => return self.call(req, inline),
            _ => Err((
                jsonrpc::METHOD_NOT_FOUND,
                format!("method not found: {}", clip(&req.method)),
            )),
        };
        Some(match answer {
            Ok(result) => response(&req.id, self.finish_result(result, &req)),
            Err((code, message)) => error(&req.id, code, &message),
        })
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

    fn capabilities(&self) -> Value {
        json!({"tools": {"listChanged": false}, "logging": {}})
    }

    fn notification(&self, method: &str, params: Option<&Map<String, Value>>) {
        // Only cancellation needs work; initialized, progress, roots/list_changed and
        // unknown notifications are ignored, as JSON-RPC asks.
        if method == "notifications/cancelled"
            && let Some(id) = params.and_then(|p| p.get("requestId"))
            && let Some(flag) = lock(&self.state.in_flight).get(&id.to_string())
        {
            flag.store(true, Ordering::Relaxed);
        }
    }

    fn initialize(&self, req: &Request) -> Result<Value, (i64, String)> {
        let asked = req
            .params
            .as_ref()
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        let Some(asked) = asked else {
            return Err((
                jsonrpc::INVALID_PARAMS,
                "invalid params: \"protocolVersion\" must be a string".into(),
            ));
        };
        let version = match ProtocolVersion::parse(asked) {
            Some(v) if v.uses_handshake() => v,
            _ => ProtocolVersion::LATEST_HANDSHAKE,
        };
        {
            let mut s = lock(&self.state.session);
            s.negotiated = Some(version);
            s.client_info = req
                .params
                .as_ref()
                .and_then(|p| p.get("clientInfo"))
                .cloned();
            s.log_level = Some(LogLevel::Info);
        }
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.capabilities(),
            "serverInfo": self.server_info(),
        });
        if let (Some(text), Some(obj)) = (&self.server.inner.instructions, result.as_object_mut()) {
            obj.insert("instructions".into(), Value::from(text.as_str()));
        }
        Ok(result)
    }

    fn discover(&self) -> Value {
        let versions: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
        let mut result = json!({
            "supportedVersions": versions,
            "capabilities": self.capabilities(),
            "serverInfo": self.server_info(),
            "ttlMs": self.server.inner.list_ttl_ms,
            "cacheScope": "public",
        });
        if let (Some(text), Some(obj)) = (&self.server.inner.instructions, result.as_object_mut()) {
            obj.insert("instructions".into(), Value::from(text.as_str()));
        }
        result
    }

    fn set_level(&self, req: &Request) -> Result<Value, (i64, String)> {
        let level = req
            .params
            .as_ref()
            .and_then(|p| p.get("level"))
            .and_then(Value::as_str)
            .and_then(LogLevel::parse);
        let Some(level) = level else {
            return Err((
                jsonrpc::INVALID_PARAMS,
                "invalid params: \"level\" must be a log level name".into(),
            ));
        };
        lock(&self.state.session).log_level = Some(level);
        Ok(json!({}))
    }

    fn list(&self, req: &Request) -> Result<Value, (i64, String)> {
        let inner = &self.server.inner;
        let start = match req.params.as_ref().and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => decode_cursor(c, inner.tools.len()).ok_or((
                jsonrpc::INVALID_PARAMS,
                "invalid params: unknown cursor".to_string(),
            ))?,
            Some(_) => {
                return Err((
                    jsonrpc::INVALID_PARAMS,
                    "invalid params: \"cursor\" must be a string".into(),
                ));
            }
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

    fn call(&self, req: Request, inline: bool) -> Option<Value> {
        let id = req.id.clone();
        let fail = |code: i64, message: &str| Some(error(&id, code, message));
        let Some(params) = &req.params else {
            return fail(
                jsonrpc::INVALID_PARAMS,
                "invalid params: tools/call needs params",
            );
        };
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return fail(
                jsonrpc::INVALID_PARAMS,
                "invalid params: \"name\" must be a string",
            );
        };
        let Some(tool) = self.server.tool(name).cloned() else {
            return fail(
                jsonrpc::INVALID_PARAMS,
                &format!("unknown tool: {}", clip(name)),
            );
        };
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(a @ Value::Object(_)) => a.clone(),
            Some(_) => {
                return fail(
                    jsonrpc::INVALID_PARAMS,
                    "invalid params: \"arguments\" must be an object",
                );
            }
        };
        if !tool.input_schema().is_valid(&arguments) {
            let mut lines: Vec<String> = tool
                .input_schema()
                .iter_errors(&arguments)
                .take(MAX_REPORTED_ERRORS + 1)
                .map(|e| format!("{e}"))
                .collect();
            if lines.len() > MAX_REPORTED_ERRORS {
                lines.truncate(MAX_REPORTED_ERRORS);
                lines.push("(more errors not shown)".into());
            }
            let headline = format!("invalid arguments for tool {}", tool.name());
            if req.version.reports_argument_errors_as_results() {
                let text = format!(
                    "{headline}:\n{}",
                    lines
                        .iter()
                        .map(|l| format!("- {l}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                );
                let result = CallToolResult::error(text).render(req.version, None);
                return Some(response(&id, self.finish_result(result, &req)));
            }
            let message = format!("{headline}: {}", lines.join("; "));
            return Some(error_with_data(
                &id,
                jsonrpc::INVALID_PARAMS,
                &message,
                json!({"errors": lines}),
            ));
        }
        let meta = params.get("_meta").and_then(Value::as_object);
        let progress_token = meta
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_number())
            .cloned();
        let (log_level, client_info) = if req.modern {
            let level = meta
                .and_then(|m| m.get(META_LOG_LEVEL))
                .and_then(Value::as_str)
                .and_then(LogLevel::parse);
            (level, meta.and_then(|m| m.get(META_CLIENT_INFO)).cloned())
        } else {
            let s = lock(&self.state.session);
            (s.log_level, s.client_info.clone())
        };
        let key = id.to_string();
        let cancelled = Arc::new(AtomicBool::new(false));
        {
            let mut running = lock(&self.state.in_flight);
            if running.contains_key(&key) {
                return fail(
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: this id belongs to a call still running",
                );
            }
            if running.len() >= self.server.inner.max_in_flight {
                return fail(
                    jsonrpc::SERVER_BUSY,
                    "server busy: too many calls in flight",
                );
            }
            running.insert(key.clone(), Arc::clone(&cancelled));
        }
        let ctx = CallContext {
            version: req.version,
            cancelled,
            progress_token,
            sink: Arc::clone(&self.state.sink),
            log_level,
            client_info,
            tool: tool.name().to_string(),
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
            let mut running = lock(&this.state.in_flight);
            running.remove(&key);
            let answer = match (deliver, answer) {
                (true, Some(a)) => {
                    (this.state.sink)(a.to_string());
                    None
                }
                (_, a) => a,
            };
            this.state.idle.notify_all();
            answer
        };
        if inline {
            return run(false);
        }
        let spawned = std::thread::Builder::new()
            .name("mcp-call".into())
            .spawn(move || {
                run(true);
            });
        if spawned.is_err() {
            let mut running = lock(&self.state.in_flight);
            running.remove(&id.to_string());
            self.state.idle.notify_all();
            return fail(
                jsonrpc::INTERNAL_ERROR,
                "internal error: cannot start the call",
            );
        }
        None
    }

    fn run_call(&self, tool: &Tool, arguments: Value, ctx: &CallContext, req: &Request) -> Value {
        let id = &req.id;
        let handler = &tool.inner.handler;
        let outcome = catch_unwind(AssertUnwindSafe(|| handler(arguments, ctx)));
        let mut result = match outcome {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => {
                eprintln!("toolschema mcp: tool {}: handler error: {e}", tool.name());
                return error(
                    id,
                    jsonrpc::INTERNAL_ERROR,
                    "internal error: the tool failed",
                );
            }
            Err(_) => {
                eprintln!("toolschema mcp: tool {}: handler panicked", tool.name());
                return error(
                    id,
                    jsonrpc::INTERNAL_ERROR,
                    "internal error: the tool failed",
                );
            }
        };
        if !result.is_error()
            && let Some(schema) = tool.output_schema()
        {
            let Some(structured) = result.structured_content() else {
                eprintln!(
                    "toolschema mcp: tool {}: result has no structuredContent but the tool declares an output schema",
                    tool.name()
                );
                return error(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    "the tool's result does not match its output schema",
                );
            };
            if !schema.is_valid(structured) {
                for e in schema.iter_errors(structured).take(MAX_REPORTED_ERRORS) {
                    eprintln!(
                        "toolschema mcp: tool {}: structuredContent {e}",
                        tool.name()
                    );
                }
                return error(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    "the tool's result does not match its output schema",
                );
            }
        }
        result.mirror_structured();
        let wrap = if tool.wraps_output(req.version) {
            Some(WRAP_KEY)
        } else {
            None
        };
        response(
            id,
            self.finish_result(result.render(req.version, wrap), req),
        )
    }

    /// The number of `tools/call` requests running now.
    pub fn in_flight(&self) -> usize {
        lock(&self.state.in_flight).len()
    }

    /// Ends the session: waits up to `grace` for running calls to answer, then cancels the
    /// rest (their answers are dropped) and waits up to `grace` again for them to stop.
    pub fn finish(&self, grace: Duration) {
        let deadline = Instant::now() + grace;
        let mut running = lock(&self.state.in_flight);
        while !running.is_empty() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            running = match self.state.idle.wait_timeout(running, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        if running.is_empty() {
            return;
        }
        eprintln!(
            "toolschema mcp: cancelling {} call(s) still running at shutdown",
            running.len()
        );
        for flag in running.values() {
            flag.store(true, Ordering::Relaxed);
        }
        let deadline = Instant::now() + grace;
        while !running.is_empty() {
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

/// A tool name or method, shortened for an error message.
fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(128).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    format!("{out:?}")
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
