//! Streamable HTTP for the MCP servers of [`toolschema`], an HTTP MCP client, and the
//! contract-checking MCP proxy ([`proxy`]), on hyper and tokio: the network half of
//! toolschema, kept out of the engine so that a library user compiles no server stack.
//! (The gateway work — metrics, traces, tool pinning — lands here too.) With
//! [`HttpOptions::auth`] the endpoint is an OAuth 2.1 resource server ([`auth`]).
//!
//! One endpoint (`/mcp` by default) serves every protocol era:
//! - **2025-03-26 to 2025-11-25** (the handshake eras): `initialize` opens a session whose id
//!   comes back in `Mcp-Session-Id`; every later request carries it (missing: 400, unknown or
//!   ended: 404). A POSTed request is answered with `application/json` when its answer is
//!   ready at once, else with a `text/event-stream` (SSE) stream carrying the progress and
//!   log notifications of that request, then its answer. Notifications and responses get
//!   202. GET opens the session's stream for server-initiated messages; DELETE ends the
//!   session. Every SSE event has an id (`STREAM-SEQ`), so a client that lost a stream
//!   resumes it with GET and `Last-Event-ID` (from a bounded replay buffer).
//! - **2026-07-28** (stateless): a request naming its version in `_meta` needs no session;
//!   the `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`) `Mcp-Name` headers must
//!   match the body (400 with `-32020` otherwise), and closing the response stream cancels
//!   the request.
//!
//! DNS-rebinding protection: the `Host` header must name an allowed host and an `Origin`
//! header, when present, an allowed origin (403 otherwise); by default only `localhost`,
//! `127.0.0.1` and `[::1]` are allowed, on any port. Bodies are capped (413), and so are
//! sessions (503), streams per session (429) and connections; wrong `Content-Type` gets 415
//! and an `Accept` that takes neither JSON nor SSE gets 406.
//!
//! ```no_run
//! use toolschema::mcp::{CallToolResult, Server, Tool};
//! use toolschema_http::{HttpOptions, HttpServer};
//! use serde_json::json;
//!
//! let echo = Tool::builder("echo")
//!     .input_schema(json!({"properties": {"message": {"type": "string"}}, "required": ["message"]}))
//!     .handler(|args, _ctx| Ok(CallToolResult::text(args["message"].as_str().unwrap_or_default())))
//!     .build()?;
//! let server = Server::builder("demo", "1.0").tool(echo).build()?;
//! // Port 0 picks a free port; `local_addr` tells which.
//! let http = HttpServer::bind(&server, "127.0.0.1:0", HttpOptions::new())?;
//! println!("MCP endpoint: http://{}/mcp", http.local_addr());
//! http.run()?; // serves until the process ends
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Or in one call, with the [`ServeHttp`] extension trait: `server.serve_http(addr, options)`.

#![deny(missing_docs)]

pub mod auth;
pub(crate) mod client;
pub mod metrics;
pub mod proxy;
mod routes;
mod service;
pub mod trace;

pub(crate) use routes::{Backend, Endpoint};

/// The README's Rust example compiles as a doctest, so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;
use toolschema::mcp::Server;

/// How long a body may take to start arriving before the minimum rate
/// ([`HttpOptions::min_body_rate`]) applies to it.
pub const BODY_GRACE: Duration = Duration::from_secs(2);

/// How long a connection holds its slot before a new connection may take it when all are
/// taken ([`HttpOptions::max_connections`]): a client that has just connected has this
/// long to send its request.
pub const RECLAIM_AFTER: Duration = Duration::from_secs(1);

/// The settings of the HTTP transport: endpoint path, allow-lists and limits.
///
/// ```
/// use toolschema_http::HttpOptions;
/// let options = HttpOptions::new()
///     .allow_host("mcp.example.internal")
///     .allow_origin("https://app.example.com")
///     .max_sessions(16);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub(crate) path: String,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_sessions: usize,
    pub(crate) max_streams: usize,
    pub(crate) max_connections: usize,
    pub(crate) replay_events: usize,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) session_reclaim_after: Duration,
    pub(crate) poll_after: Option<Duration>,
    pub(crate) retry: Duration,
    pub(crate) header_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) min_body_rate: u64,
    pub(crate) keep_alive: Duration,
    pub(crate) auth: Option<auth::AuthOptions>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions::new()
    }
}

impl HttpOptions {
    /// The defaults: endpoint `/mcp`; hosts `localhost`, `127.0.0.1`, `[::1]`; bodies up to
    /// 4 MiB, read within 30 s at 1 KiB/s at least; 64 sessions, 32 streams per session,
    /// 256 connections; 30 s to send the headers; 64 events kept per stream for
    /// resumption; sessions idle for 30 minutes end; quiet SSE streams get a comment line
    /// every 15 s.
    pub fn new() -> HttpOptions {
        HttpOptions {
            path: "/mcp".into(),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            allowed_origins: Vec::new(),
            max_body_bytes: 4 << 20,
            max_sessions: 64,
            max_streams: 32,
            max_connections: 256,
            replay_events: 64,
            session_idle_timeout: Duration::from_secs(30 * 60),
            session_reclaim_after: Duration::from_secs(60),
            poll_after: None,
            retry: Duration::from_secs(1),
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            min_body_rate: 1024,
            keep_alive: Duration::from_secs(15),
            auth: None,
        }
    }

    /// Makes the endpoint an OAuth 2.1 resource server (MCP authorization): every request
    /// needs a valid bearer token, calls need the scopes their tools require, and the
    /// Protected Resource Metadata is served. See [`auth::AuthOptions`].
    pub fn auth(mut self, auth: auth::AuthOptions) -> HttpOptions {
        self.auth = Some(auth);
        self
    }

    /// The endpoint's path (default `/mcp`); other paths get 404.
    pub fn path(mut self, path: impl Into<String>) -> HttpOptions {
        let path = path.into();
        self.path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        self
    }

    /// Allows a host name (or IP literal, IPv6 in brackets) in the `Host` header, any port;
    /// `*` allows every host (only behind something else that checks it). An `Origin` whose
    /// host is allowed is allowed too.
    pub fn allow_host(mut self, host: impl Into<String>) -> HttpOptions {
        self.allowed_hosts.push(host.into().to_ascii_lowercase());
        self
    }

    /// Allows an exact origin (`https://app.example.com`, with its port when not the
    /// scheme's default); `*` allows every origin.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> HttpOptions {
        self.allowed_origins
            .push(origin.into().trim_end_matches('/').to_ascii_lowercase());
        self
    }

    /// The largest request body, in bytes (default 4 MiB); a larger one gets 413.
    pub fn max_body_bytes(mut self, n: usize) -> HttpOptions {
        self.max_body_bytes = n.max(1);
        self
    }

    /// The most sessions open at once (default 64); one more `initialize` gets 503 once
    /// no idle session can be ended.
    pub fn max_sessions(mut self, n: usize) -> HttpOptions {
        self.max_sessions = n.max(1);
        self
    }

    /// The most SSE streams a session keeps at once, live or kept for resumption
    /// (default 32); one more gets 429.
    pub fn max_streams(mut self, n: usize) -> HttpOptions {
        self.max_streams = n.max(1);
        self
    }

    /// The most TCP connections served at once (default 256). When all are taken, a new
    /// one is accepted in place of the connection that has held its slot longest without
    /// work in progress (waiting for a request, sending a body, or holding a GET stream,
    /// for at least [`RECLAIM_AFTER`]), which is closed; a request being answered is never
    /// closed for this. With no such connection, new ones wait to be accepted.
    pub fn max_connections(mut self, n: usize) -> HttpOptions {
        self.max_connections = n.max(1);
        self
    }

    /// How many notifications each stream keeps for a client that resumes it (default 64);
    /// answers are always kept until delivered.
    pub fn replay_events(mut self, n: usize) -> HttpOptions {
        self.replay_events = n.max(1);
        self
    }

    /// How long a session may go without a request, and with none of its streams read,
    /// before it ends (default 30 minutes).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.session_idle_timeout = timeout;
        self
    }

    /// When every session is taken ([`max_sessions`](Self::max_sessions)) and none is idle
    /// past [`session_idle_timeout`](Self::session_idle_timeout), a new `initialize` ends
    /// the session that has gone longest without a request, once that is at least this long
    /// (default 60 s) and none of its requests waits for an answer, even while one of its
    /// streams is read: sessions that only hold a GET stream open cannot keep new clients
    /// out. Its client gets 404 and starts another.
    pub fn session_reclaim_after(mut self, after: Duration) -> HttpOptions {
        self.session_reclaim_after = after;
        self
    }

    /// Closes the connection of a request's SSE stream when its answer takes longer than
    /// this (SSE polling, 2025-11-25): the client reconnects with `Last-Event-ID` after the
    /// stream's `retry` delay and gets the rest. Default: streams stay open.
    pub fn poll_after(mut self, after: Duration) -> HttpOptions {
        self.poll_after = Some(after);
        self
    }

    /// The `retry` delay announced on SSE streams (default 1 s).
    pub fn retry(mut self, retry: Duration) -> HttpOptions {
        self.retry = retry;
        self
    }

    /// How often a quiet SSE stream gets a comment line, so that proxies and clients do
    /// not close it as idle (default 15 s).
    pub fn keep_alive(mut self, every: Duration) -> HttpOptions {
        self.keep_alive = every.max(Duration::from_millis(10));
        self
    }

    /// How long a client may take to send a request's headers (default 30 s).
    pub fn header_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.header_timeout = timeout;
        self
    }

    /// How long a client may take to send a request's body once its headers are in
    /// (default 30 s); past it the request gets 408 and the connection closes.
    pub fn body_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.body_timeout = timeout;
        self
    }

    /// The slowest a body may arrive, in bytes per second (default 1024; 0 for no minimum):
    /// `n` bytes in must have come by [`BODY_GRACE`] plus `n / rate` seconds after the
    /// headers, else the request gets 408 and the connection closes, so that a body sent a
    /// byte at a time holds a connection for seconds, not for the whole
    /// [`body_timeout`](Self::body_timeout).
    pub fn min_body_rate(mut self, bytes_per_second: u64) -> HttpOptions {
        self.min_body_rate = bytes_per_second;
        self
    }
}

/// A [`Server`] bound to a TCP address, ready to serve Streamable HTTP.
///
/// See the [module](self) documentation for an example.
pub struct HttpServer {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    server: Server,
    options: HttpOptions,
    metrics: Option<(Arc<metrics::Metrics>, Option<String>)>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("addr", &self.addr)
            .finish()
    }
}

impl HttpServer {
    /// Binds `addr` (use `127.0.0.1:PORT` for a local server; port 0 picks a free one).
    ///
    /// # Errors
    /// When the address cannot be bound, or an [authorization policy](auth::ToolPolicy)
    /// names a tool the server does not have (a misspelt name would leave the real tool
    /// without the scopes meant for it).
    pub fn bind(
        server: &Server,
        addr: impl ToSocketAddrs,
        options: HttpOptions,
    ) -> io::Result<HttpServer> {
        if let Some(auth) = &options.auth
            && let Some(name) = auth.policy_tools().find(|name| server.tool(name).is_none())
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the authorization policy names the tool {name:?}, which the server does not have"
                ),
            ));
        }
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        Ok(HttpServer {
            listener,
            addr,
            server: server.clone(),
            options,
            metrics: None,
        })
    }

    /// Measures every request in `metrics` ([`metrics::Metrics`]: the
    /// `mcp_server_operation_duration_seconds` histogram by method, tool and error type),
    /// and, with `path` (e.g. `/metrics`), serves them at that path of this listener too,
    /// behind the endpoint's own Host/Origin check and, with [`HttpOptions::auth`], its
    /// bearer token (for an open scrape, serve them on an address of their own with
    /// [`Metrics::serve`](metrics::Metrics::serve)).
    ///
    /// ```no_run
    /// use toolschema::mcp::Server;
    /// use toolschema_http::{HttpOptions, HttpServer, metrics::Metrics};
    ///
    /// let server = Server::builder("demo", "1.0").build()?;
    /// let http = HttpServer::bind(&server, "127.0.0.1:8080", HttpOptions::new())?
    ///     .metrics(Metrics::new(), Some("/metrics"));
    /// http.run()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn metrics(mut self, metrics: Arc<metrics::Metrics>, path: Option<&str>) -> HttpServer {
        self.metrics = Some((metrics, path.map(str::to_string)));
        self
    }

    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until the process ends, on a tokio runtime of its own.
    ///
    /// # Errors
    /// When the runtime cannot start or the listener fails for good.
    pub fn run(self) -> io::Result<()> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("mcp-http")
            .build()?;
        let endpoint: Arc<dyn Endpoint> = match self.metrics {
            Some((metrics, path)) => Arc::new(metrics::Metered {
                inner: self.server,
                metrics,
                path,
            }),
            None => Arc::new(self.server),
        };
        let shared = Arc::new(service::Shared::new(endpoint, self.options, self.addr)?);
        runtime.block_on(service::accept_loop(self.listener, shared))
    }
}

/// Serves `endpoint` (the contract proxy's sessions) on `listener` until `shutdown`
/// resolves, then ends every session, giving each `grace`.
pub(crate) async fn serve_endpoint(
    listener: std::net::TcpListener,
    endpoint: Arc<dyn Endpoint>,
    options: HttpOptions,
    shutdown: impl std::future::Future<Output = ()>,
    grace: Duration,
) -> io::Result<()> {
    let addr = listener.local_addr()?;
    let shared = Arc::new(service::Shared::new(endpoint, options, addr)?);
    let accept = tokio::spawn(service::accept_loop(listener, Arc::clone(&shared)));
    shutdown.await;
    accept.abort();
    tokio::task::spawn_blocking(move || shared.end_all(grace))
        .await
        .map_err(io::Error::other)
}

/// `serve_http` on a [`Server`]: what `serve_stdio` is to stdio (the method lived on
/// `Server` itself while the transport was a feature of the engine crate).
pub trait ServeHttp {
    /// Serves Streamable HTTP on `addr` until the process ends: [`HttpServer::bind`], then
    /// [`HttpServer::run`].
    ///
    /// ```no_run
    /// use toolschema::mcp::Server;
    /// use toolschema_http::{HttpOptions, ServeHttp};
    ///
    /// let server = Server::builder("demo", "1.0").build()?;
    /// server.serve_http("127.0.0.1:8080", HttpOptions::new())?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// When the address cannot be bound or the runtime cannot start.
    fn serve_http(&self, addr: impl ToSocketAddrs, options: HttpOptions) -> io::Result<()>;
}

impl ServeHttp for Server {
    fn serve_http(&self, addr: impl ToSocketAddrs, options: HttpOptions) -> io::Result<()> {
        HttpServer::bind(self, addr, options)?.run()
    }
}
