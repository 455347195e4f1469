//! The contract proxy over Streamable HTTP, on either side:
//! - **`--listen HOST:PORT`**: clients speak Streamable HTTP to the proxy, which serves
//!   them with the same endpoint as `toolschema serve --http` (allow-lists, limits, status
//!   codes, SSE and resumption). Each MCP session gets its own server (a child process, or
//!   a session of the upstream) and its own [`Contract`], from `initialize` until DELETE,
//!   the idle timeout or shutdown. Requests of the stateless 2026-07-28 era share one
//!   pooled server, their ids rewritten so that clients cannot collide.
//! - **`--upstream URL`**: the server is a remote Streamable HTTP endpoint instead of a
//!   child process (POST per message, JSON or SSE answers, the GET stream when offered,
//!   DELETE at the end).
//!
//! Either side combines with stdio on the other, or with each other.

use super::stdio::{
    AuditLog, Shared, WRITE_BUFFER, lock, open_log, raw_stdin, raw_stdout, relay_client,
    relay_server, spawn_child,
};
use super::{Event, Peer, ProxyConfig};
use crate::client::{Delivery, Upstream, UpstreamOptions, parse_url};
use crate::{Backend, Endpoint, HttpOptions};
use hyper::Uri;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, Write};
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};
use toolschema::mcp::jsonrpc::{self, Id};
use toolschema::mcp::transport::{Outgoing, Sink};

/// Where the proxy's clients are.
// (Built once per process: boxing the options would only make it harder to write.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum ClientSide {
    /// One client on this process's stdin and stdout.
    Stdio,
    /// Clients over Streamable HTTP on `addr` (`HOST:PORT`; port 0 picks a free one, and
    /// the address is printed on stderr).
    Listen {
        /// The address to bind.
        addr: String,
        /// Endpoint path, allow-lists and limits, as for `serve --http`.
        options: HttpOptions,
    },
}

/// Where the server is.
#[derive(Debug, Clone)]
pub enum ServerSide {
    /// A command started as a child process speaking stdio (one per HTTP session).
    Command(Vec<OsString>),
    /// A Streamable HTTP endpoint, `http://HOST:PORT/PATH` (no TLS).
    Upstream(String),
}

/// Runs the proxy between `client` and `server`; returns the exit code (with a child on
/// stdio, the child's; 2 when something cannot start).
///
/// ```no_run
/// use toolschema_http::HttpOptions;
/// use toolschema_http::proxy::{ClientSide, ProxyConfig, ServerSide, run};
///
/// // Streamable HTTP in front of a stdio server, one child per session.
/// let code = run(
///     &ProxyConfig::default(),
///     ClientSide::Listen { addr: "127.0.0.1:8080".into(), options: HttpOptions::new() },
///     ServerSide::Command(vec!["my-mcp-server".into()]),
/// );
/// std::process::exit(code);
/// ```
pub fn run(config: &ProxyConfig, client: ClientSide, server: ServerSide) -> i32 {
    let server = match server {
        ServerSide::Command(command) => {
            if command.is_empty() {
                eprintln!("toolschema proxy: no server command given (after `--`)");
                return 2;
            }
            Target::Command(Arc::new(command))
        }
        ServerSide::Upstream(url) => match parse_url(&url) {
            Ok(uri) => Target::Upstream(uri),
            Err(why) => {
                eprintln!("toolschema proxy: --upstream: {why}");
                return 2;
            }
        },
    };
    match (client, server) {
        (ClientSide::Stdio, Target::Command(command)) => super::run_stdio(config, &command),
        (ClientSide::Stdio, Target::Upstream(uri)) => stdio_to_upstream(config, uri),
        (ClientSide::Listen { addr, options }, target) => listen(config, &addr, options, target),
    }
}

#[derive(Clone)]
enum Target {
    Command(Arc<Vec<OsString>>),
    Upstream(Uri),
}

/// The proxy's runtime, or `None` once stderr says why it cannot start.
fn runtime() -> Option<tokio::runtime::Runtime> {
    let built = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("proxy-http")
        .build();
    built
        .map_err(|e| eprintln!("toolschema proxy: cannot start: {e}"))
        .ok()
}

fn upstream_options(config: &ProxyConfig) -> UpstreamOptions {
    UpstreamOptions {
        timeout: config.upstream_timeout,
        max_message_bytes: config.max_server_message_bytes,
    }
}

/// A writer that hands each complete line (without its newline) to `each`; a line not yet
/// complete waits for the rest (the relay writes a line and its newline apart).
struct Lines<F> {
    line: Vec<u8>,
    each: F,
}

impl<F: FnMut(Vec<u8>)> Lines<F> {
    fn new(each: F) -> Lines<F> {
        Lines {
            line: Vec::new(),
            each,
        }
    }
}

impl<F: FnMut(Vec<u8>)> Write for Lines<F> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&rest[..i]);
            rest = &rest[i + 1..];
            (self.each)(std::mem::take(&mut self.line));
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes the proxy's messages for the server to an upstream: each line one POST.
fn to_upstream(upstream: &Arc<Upstream>) -> Box<dyn Write + Send> {
    let upstream = Arc::clone(upstream);
    Box::new(Lines::new(move |line| {
        if let Ok(text) = String::from_utf8(line) {
            upstream.send(text);
        }
    }))
}

/// Connects a relay to an upstream: the upstream's messages are fed back to `relay` (set
/// once it exists), its notes reported.
fn connect_upstream(
    handle: &tokio::runtime::Handle,
    uri: Uri,
    config: &ProxyConfig,
    relay: Arc<OnceLock<Weak<Shared>>>,
) -> Arc<Upstream> {
    let notes = Arc::clone(&relay);
    Arc::new(Upstream::start(
        handle,
        uri,
        upstream_options(config),
        Delivery {
            message: Box::new(move |text| {
                if let Some(shared) = relay.get().and_then(Weak::upgrade) {
                    shared.server_message(&text);
                }
            }),
            note: Box::new(move |text| match notes.get().and_then(Weak::upgrade) {
                Some(shared) => shared.report(&Event::Note(text)),
                None => eprintln!("toolschema proxy: {text}"),
            }),
        },
    ))
}

/// A client on stdio, the server upstream.
fn stdio_to_upstream(config: &ProxyConfig, uri: Uri) -> i32 {
    let Ok(log) = open_log(config) else {
        return 2;
    };
    let Some(rt) = runtime() else {
        return 2;
    };
    let slot: Arc<OnceLock<Weak<Shared>>> = Arc::default();
    let upstream = connect_upstream(rt.handle(), uri, config, Arc::clone(&slot));
    let shared = Arc::new(Shared::new(
        config,
        raw_stdout(),
        to_upstream(&upstream),
        log,
        WRITE_BUFFER,
    ));
    let _ = slot.set(Arc::downgrade(&shared));
    relay_client(&shared, config.max_message_bytes, raw_stdin());
    shared.wait_held(config.shutdown_grace);
    shared.close_server();
    // Answers still under way reach the client before the session ends.
    upstream.wait_idle(config.shutdown_grace);
    upstream.close(config.upstream_timeout.min(Duration::from_secs(10)));
    shared.flush(Peer::Client);
    drop(rt);
    0
}

/// Clients over HTTP.
fn listen(config: &ProxyConfig, addr: &str, options: HttpOptions, target: Target) -> i32 {
    let Ok(log) = open_log(config) else {
        return 2;
    };
    let listener = match std::net::TcpListener::bind(addr).and_then(|l| {
        l.set_nonblocking(true)?;
        Ok(l)
    }) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("toolschema proxy: cannot listen on {addr}: {e}");
            return 2;
        }
    };
    let Some(rt) = runtime() else {
        return 2;
    };
    match listener.local_addr() {
        Ok(a) => eprintln!("toolschema proxy: listening on http://{a}{}", options.path),
        Err(e) => {
            eprintln!("toolschema proxy: cannot listen on {addr}: {e}");
            return 2;
        }
    }
    let endpoint = Arc::new(ProxyEndpoint {
        config: config.clone(),
        target,
        log,
        runtime: rt.handle().clone(),
        pool: Mutex::new(None),
    });
    let grace = config.shutdown_grace;
    let pool_owner = Arc::clone(&endpoint);
    let result = rt.block_on(crate::serve_endpoint(
        listener,
        endpoint,
        options,
        shutdown_signal(),
        grace,
    ));
    if let Some(pool) = lock(&pool_owner.pool).take() {
        pool.backend.finish(grace);
    }
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("toolschema proxy: {e}");
            1
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return std::future::pending().await;
        };
        let (a, b) = (int.recv(), term.recv());
        tokio::pin!(a, b);
        std::future::poll_fn(|cx| {
            use std::task::Poll;
            if a.as_mut().poll(cx).is_ready() || b.as_mut().poll(cx).is_ready() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    eprintln!("toolschema proxy: shutting down");
}

struct ProxyEndpoint {
    config: ProxyConfig,
    target: Target,
    log: AuditLog,
    runtime: tokio::runtime::Handle,
    /// The server shared by stateless (2026-07-28) requests, started at the first.
    pool: Mutex<Option<Arc<Pool>>>,
}

impl Endpoint for ProxyEndpoint {
    fn connect(&self, sink: Sink, stateless: bool) -> Result<Box<dyn Backend>, String> {
        if !stateless {
            let requests = Arc::new(Requests::new(sink));
            let gone = Arc::clone(&requests);
            let relay = self.relay(
                to_http_client(&requests),
                Box::new(move || gone.fail_all(SERVER_GONE)),
            )?;
            return Ok(Box::new(SessionBackend { relay, requests }));
        }
        let pool = {
            let mut pool = lock(&self.pool);
            match pool.as_ref() {
                Some(p) if !p.requests.is_dead() => Arc::clone(p),
                _ => {
                    let requests = Arc::new(PoolRequests::default());
                    let gone = Arc::clone(&requests);
                    let relay = self.relay(
                        to_pool(&requests),
                        Box::new(move || gone.fail_all(SERVER_GONE)),
                    )?;
                    let fresh = Arc::new(Pool {
                        backend: relay,
                        requests,
                        seq: AtomicU64::new(0),
                    });
                    if let Some(old) = pool.replace(Arc::clone(&fresh)) {
                        if let Some(m) = &self.config.metrics {
                            m.count_restart();
                        }
                        std::thread::spawn(move || old.backend.finish(Duration::ZERO));
                    }
                    fresh
                }
            }
        };
        Ok(Box::new(PooledRequest {
            pool,
            sink,
            ours: Mutex::new(None),
        }))
    }

    /// The proxy does not keep listed schemas as JSON: `Mcp-Param-*` headers are not
    /// checked against the body here (the `Mcp-Method`, `Mcp-Name` and version headers
    /// are).
    fn input_schema(&self, _tool: &str) -> Option<Cow<'_, Value>> {
        None
    }

    fn keeps_unrelated(&self) -> bool {
        true
    }

    fn metrics_at(&self, path: &str) -> Option<&crate::metrics::Metrics> {
        match &self.config.metrics_path {
            Some(p) if p == path => self.config.metrics.as_deref(),
            _ => None,
        }
    }
}

impl ProxyEndpoint {
    /// A new relay to the server (a child process, or a session of the upstream) whose
    /// messages for the client go to `to_client`.
    /// `on_gone` runs when a child's output ends.
    fn relay(
        &self,
        to_client: Box<dyn Write + Send>,
        on_gone: Box<dyn FnOnce() + Send>,
    ) -> Result<Relay, String> {
        let config = &self.config;
        match &self.target {
            Target::Command(command) => {
                let (program, args) = command.split_first().ok_or("no server command")?;
                let (child, child_in, child_out) = spawn_child(program, args)
                    .ok_or_else(|| format!("cannot start {}", program.to_string_lossy()))?;
                let shared = Arc::new(Shared::new(
                    config,
                    to_client,
                    Box::new(child_in),
                    self.log.clone(),
                    WRITE_BUFFER,
                ));
                let gone = Arc::new(AtomicBool::new(false));
                {
                    let shared = Arc::clone(&shared);
                    let gone = Arc::clone(&gone);
                    let max = config.max_server_message_bytes;
                    std::thread::Builder::new()
                        .name("proxy-server".into())
                        .spawn(move || {
                            relay_server(&shared, child_out, max);
                            gone.store(true, Ordering::SeqCst);
                            shared.close_server();
                            // Requests it never answered are answered in its place.
                            on_gone();
                        })
                        .map_err(|e| e.to_string())?;
                }
                Ok(Relay {
                    shared,
                    server: Server::Child(Mutex::new(Some(child)), gone),
                    grace: config.shutdown_grace,
                })
            }
            Target::Upstream(uri) => {
                let slot: Arc<OnceLock<Weak<Shared>>> = Arc::default();
                let upstream =
                    connect_upstream(&self.runtime, uri.clone(), config, Arc::clone(&slot));
                let shared = Arc::new(Shared::new(
                    config,
                    to_client,
                    to_upstream(&upstream),
                    self.log.clone(),
                    WRITE_BUFFER,
                ));
                let _ = slot.set(Arc::downgrade(&shared));
                Ok(Relay {
                    shared,
                    server: Server::Upstream(upstream, config.upstream_timeout),
                    grace: config.shutdown_grace,
                })
            }
        }
    }
}

enum Server {
    /// The child, and whether its output ended.
    Child(Mutex<Option<Child>>, Arc<AtomicBool>),
    Upstream(Arc<Upstream>, Duration),
}

/// One relay: a [`Shared`] and its server.
struct Relay {
    shared: Arc<Shared>,
    server: Server,
    grace: Duration,
}

impl Relay {
    fn is_gone(&self) -> bool {
        match &self.server {
            Server::Child(_, gone) => gone.load(Ordering::SeqCst),
            Server::Upstream(..) => false,
        }
    }

    /// Ends the server: its input closed (the upstream session deleted), then, for a
    /// child, killed if it has not exited after `grace`.
    fn finish(&self, grace: Duration) {
        self.shared.wait_held(grace.min(self.grace));
        self.shared.close_server();
        match &self.server {
            Server::Child(child, _) => {
                let Some(mut child) = lock(child).take() else {
                    return;
                };
                let deadline = Instant::now() + grace;
                loop {
                    match child.try_wait() {
                        Ok(Some(_)) => return,
                        Ok(None) if Instant::now() < deadline => {
                            std::thread::sleep(Duration::from_millis(20));
                        }
                        _ => break,
                    }
                }
                if !grace.is_zero() {
                    eprintln!(
                        "toolschema proxy: the server has not exited {} s after its session ended; killing it",
                        grace.as_secs_f32()
                    );
                }
                let _ = child.kill();
                let _ = child.wait();
            }
            Server::Upstream(upstream, timeout) => {
                upstream.wait_idle(grace);
                upstream.close((*timeout).min(Duration::from_secs(10)));
            }
        }
        self.shared.flush(Peer::Client);
    }
}

/// Runs `f`, which may block writing to a server's input, without stalling the other
/// tasks of the runtime worker it is called on.
fn off_worker<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// A message's envelope: id, method, and the progress token a request asks for (in
/// `_meta`) or a progress notification carries.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<HeadParams>,
}

#[derive(Deserialize)]
struct HeadParams {
    #[serde(default, rename = "progressToken")]
    progress_token: Option<Value>,
    #[serde(default, rename = "_meta")]
    meta: Option<HeadMeta>,
}

#[derive(Deserialize)]
struct HeadMeta {
    #[serde(default, rename = "progressToken")]
    progress_token: Option<Value>,
}

impl Head {
    /// The token a request asks progress for.
    fn requested_token(&self) -> Option<String> {
        let token = self
            .params
            .as_ref()?
            .meta
            .as_ref()?
            .progress_token
            .as_ref()?;
        Some(token.to_string())
    }

    /// The token of a progress notification.
    fn progress_token(&self) -> Option<String> {
        if self.method.as_deref() != Some("notifications/progress") {
            return None;
        }
        Some(self.params.as_ref()?.progress_token.as_ref()?.to_string())
    }
}

fn head(text: &str) -> Option<Head> {
    if text.trim_start().starts_with('[') {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// The requests of one HTTP session still waiting for their answer, so that a server that
/// dies does not leave them waiting for ever.
/// Their progress tokens lead the server's progress notifications to the request's own
/// stream.
struct Requests {
    sink: Sink,
    /// By serialized id: the id, and the progress token the request asked for.
    waiting: Mutex<HashMap<String, (Value, Option<String>)>>,
    /// Progress tokens of waiting requests, to their id.
    tokens: Mutex<HashMap<String, Id>>,
    dead: AtomicBool,
}

impl Requests {
    fn new(sink: Sink) -> Requests {
        Requests {
            sink,
            waiting: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            dead: AtomicBool::new(false),
        }
    }

    fn wait_for(&self, head: &Head) {
        let Some(id) = &head.id else { return };
        let token = head.requested_token();
        if let Some(t) = &token
            && let Some(rid) = serde_json::value::to_raw_value(id)
                .ok()
                .and_then(|raw| Id::parse(&raw))
        {
            lock(&self.tokens).insert(t.clone(), rid);
        }
        lock(&self.waiting).insert(id.to_string(), (id.clone(), token));
    }

    fn answered(&self, id: &Value) {
        if let Some((_, Some(token))) = lock(&self.waiting).remove(&id.to_string()) {
            lock(&self.tokens).remove(&token);
        }
    }

    /// Answers every waiting request with an error: the server is gone.
    fn fail_all(&self, why: &str) {
        self.dead.store(true, Ordering::SeqCst);
        lock(&self.tokens).clear();
        let waiting: Vec<Value> = lock(&self.waiting).drain().map(|(_, (id, _))| id).collect();
        for id in waiting {
            let answer = jsonrpc::error(&id, jsonrpc::INTERNAL_ERROR, why);
            (self.sink)(answer.to_string(), Outgoing::Answer, None);
        }
    }
}

/// The proxy's writer towards an HTTP session's client: each line goes to the session's
/// streams (the endpoint routes answers by id, other messages to the GET stream or the
/// newest open request stream).
fn to_http_client(requests: &Arc<Requests>) -> Box<dyn Write + Send> {
    let requests = Arc::clone(requests);
    Box::new(Lines::new(move |line| {
        if let Ok(text) = String::from_utf8(line) {
            route_to_session(&requests, text);
        }
    }))
}

/// Sends one line from a session's server to the session's stream it belongs on.
fn route_to_session(requests: &Requests, text: String) {
    let Some(h) = head(&text) else {
        (requests.sink)(text, Outgoing::Answer, None);
        return;
    };
    match (&h.id, &h.method) {
        (Some(id), None) => requests.answered(id),
        (None, Some(_)) => {
            // Progress goes on the stream of the request that asked for it.
            let related = h
                .progress_token()
                .and_then(|t| lock(&requests.tokens).get(&t).cloned());
            if let Some(id) = related {
                (requests.sink)(text, Outgoing::Notification, Some(&id));
                return;
            }
        }
        _ => {}
    }
    (requests.sink)(text, Outgoing::Answer, None);
}

/// An HTTP session's backend: its own relay.
struct SessionBackend {
    relay: Relay,
    requests: Arc<Requests>,
}

const SERVER_GONE: &str = "the MCP server behind the proxy has exited";

impl Backend for SessionBackend {
    fn handle(&self, message: &str) {
        let request = head(message).filter(|h| h.method.is_some() && h.id.is_some());
        if self.relay.is_gone() || self.requests.dead.load(Ordering::SeqCst) {
            if let Some(id) = request.and_then(|h| h.id) {
                let answer = jsonrpc::error(&id, jsonrpc::INTERNAL_ERROR, SERVER_GONE);
                (self.requests.sink)(answer.to_string(), Outgoing::Answer, None);
            }
            return;
        }
        if let Some(h) = &request {
            self.requests.wait_for(h);
        }
        off_worker(|| self.relay.shared.client_message(message));
    }

    fn finish(&self, grace: Duration) {
        self.relay.finish(grace);
    }
}

/// The stateless requests waiting on the pooled server, by the id the proxy gave them.
///
/// Clients of the pool never share anything that correlates: each request gets an id of
/// the proxy's own towards the child, and its progress token (when it asks for progress)
/// is replaced by that same id, so two clients using the same id or token cannot collide.
/// What the child sends is delivered by these ids alone: an answer to the request it
/// answers, progress to the request that asked for it, both with the client's own id and
/// token restored; anything that names no waiting request (log messages, other
/// notifications, the child's requests) reaches no client.
#[derive(Default)]
struct PoolRequests {
    by_id: Mutex<HashMap<String, Waiting>>,
    dead: AtomicBool,
}

struct Waiting {
    sink: Sink,
    /// The client's own id.
    id: Value,
    /// The client's own progress token, when it asked for progress.
    token: Option<Value>,
}

impl PoolRequests {
    fn is_dead(&self) -> bool {
        self.dead.load(Ordering::SeqCst)
    }

    fn fail_all(&self, why: &str) {
        self.dead.store(true, Ordering::SeqCst);
        let waiting: Vec<Waiting> = lock(&self.by_id).drain().map(|(_, w)| w).collect();
        for w in waiting {
            let answer = jsonrpc::error(&w.id, jsonrpc::INTERNAL_ERROR, why);
            (w.sink)(answer.to_string(), Outgoing::Answer, None);
        }
    }

    fn take(&self, ours: &str) -> Option<Waiting> {
        lock(&self.by_id).remove(ours)
    }
}

/// The pooled server's writer towards its clients: answers go back to the request they
/// answer, under the client's own id; progress to the request that asked for it.
fn to_pool(requests: &Arc<PoolRequests>) -> Box<dyn Write + Send> {
    let requests = Arc::clone(requests);
    Box::new(Lines::new(move |line| route_pooled(&requests, &line)))
}

/// Routes one line from the pooled server to the client request it answers or concerns.
fn route_pooled(requests: &PoolRequests, text: &[u8]) {
    let Ok(mut message) = serde_json::from_slice::<Value>(text) else {
        return;
    };
    let Some(obj) = message.as_object_mut() else {
        return;
    };
    if obj.contains_key("method") {
        if obj.contains_key("id")
            || obj.get("method") != Some(&Value::from("notifications/progress"))
        {
            // The child's requests and other notifications name no request of a client:
            // at 2026-07-28 there is no session for them to go to.
            return;
        }
        let Some(params) = obj.get_mut("params").and_then(Value::as_object_mut) else {
            return;
        };
        let Some(ours) = params.get("progressToken").and_then(Value::as_str) else {
            return;
        };
        let target = lock(&requests.by_id)
            .get(ours)
            .and_then(|w| Some((Arc::clone(&w.sink), w.token.clone()?)));
        if let Some((sink, token)) = target {
            params.insert("progressToken".into(), token);
            sink(message.to_string(), Outgoing::Notification, None);
        }
        return;
    }
    let Some(ours) = obj.get("id").and_then(Value::as_str).map(str::to_string) else {
        return;
    };
    let Some(w) = requests.take(&ours) else {
        return;
    };
    obj.insert("id".into(), w.id);
    (w.sink)(message.to_string(), Outgoing::Answer, None);
}

/// The server shared by stateless requests.
struct Pool {
    backend: Relay,
    requests: Arc<PoolRequests>,
    seq: AtomicU64,
}

/// The prefix of the ids the proxy gives stateless requests on the pooled server.
const POOL_ID_PREFIX: &str = "toolschema-proxy/http/";

/// One stateless request on the pooled server.
struct PooledRequest {
    pool: Arc<Pool>,
    sink: Sink,
    /// The id the proxy gave it.
    ours: Mutex<Option<String>>,
}

impl Backend for PooledRequest {
    fn handle(&self, message: &str) {
        let shared = &self.pool.backend.shared;
        // What the contract would refuse unread is answered here, under the client's id
        // (the pool's answers are routed by the proxy's ids alone).
        let hazard = jsonrpc::find_hazard(message.as_bytes()).map(|h| (h.code(), h.message()));
        let parsed = match hazard {
            Some(_) => None,
            None => serde_json::from_str::<Value>(message).ok(),
        };
        let Some(mut value) = parsed else {
            let (code, why) = hazard.unwrap_or((
                jsonrpc::PARSE_ERROR,
                "parse error: the message is not one valid JSON value".into(),
            ));
            for action in super::refuse_client_text(message.as_bytes(), code, &why) {
                match action {
                    super::Action::Send(Peer::Client, answer) => {
                        (self.sink)(answer.to_string(), Outgoing::Answer, None);
                    }
                    super::Action::Report(event) => shared.report(&event),
                    // Nothing else of a stateless client goes to the shared child.
                    _ => {}
                }
            }
            return;
        };
        let request = value
            .as_object()
            .is_some_and(|o| o.contains_key("method") && o.contains_key("id"));
        if !request {
            // A stateless client has no session: its notifications and answers could
            // only name (or cancel) another client's requests on the shared child.
            shared.report(&Event::Note(
                "a stateless message that is not a request was dropped".into(),
            ));
            return;
        }
        let id = value.get("id").cloned().unwrap_or(Value::Null);
        if self.pool.requests.is_dead() || self.pool.backend.is_gone() {
            let answer = jsonrpc::error(&id, jsonrpc::INTERNAL_ERROR, SERVER_GONE);
            return (self.sink)(answer.to_string(), Outgoing::Answer, None);
        }
        let n = self.pool.seq.fetch_add(1, Ordering::Relaxed);
        let ours = format!("{POOL_ID_PREFIX}{n}");
        // The progress token, too, becomes the proxy's own (the request's id on the child).
        let token = value
            .pointer_mut("/params/_meta")
            .and_then(Value::as_object_mut)
            .and_then(|meta| meta.insert("progressToken".into(), Value::from(ours.as_str())));
        if token.is_none()
            && let Some(meta) = value
                .pointer_mut("/params/_meta")
                .and_then(Value::as_object_mut)
        {
            meta.remove("progressToken");
        }
        lock(&self.pool.requests.by_id).insert(
            ours.clone(),
            Waiting {
                sink: Arc::clone(&self.sink),
                id,
                token,
            },
        );
        *lock(&self.ours) = Some(ours.clone());
        if let Some(obj) = value.as_object_mut() {
            obj.insert("id".into(), Value::from(ours));
        }
        off_worker(|| shared.client_message(&value.to_string()));
    }

    /// The client closed the stream: a request still waiting is cancelled.
    fn finish(&self, _grace: Duration) {
        let Some(ours) = lock(&self.ours).take() else {
            return;
        };
        if self.pool.requests.take(&ours).is_some() {
            let cancel = serde_json::json!({
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": ours, "reason": "the client closed the stream"},
            });
            self.pool.backend.shared.client_message(&cancel.to_string());
        }
    }
}
