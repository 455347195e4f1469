//! The endpoint: header checks, sessions, and the POST, GET and DELETE methods.

use super::HttpOptions;
use super::auth::{self, Grant, Guard, Refusal};
use super::routes::{Endpoint, HttpSession, Rewrite, SseBody, lock};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolschema::mcp::ProtocolVersion;
use toolschema::mcp::jsonrpc::{self, Id};
use toolschema::mcp::transport::{Expected, expected_answer};

type Reply = Response<BoxBody<Bytes, Infallible>>;

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// JSON-RPC code of a header that disagrees with the body (2026-07-28).
const HEADER_MISMATCH: i64 = -32020;

pub(crate) struct Shared {
    endpoint: Arc<dyn Endpoint>,
    options: HttpOptions,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    /// The resource server, when authorization is configured.
    guard: Option<Arc<Guard>>,
}

impl Shared {
    /// The endpoint's state; `addr` is the bound address (the default OAuth resource).
    ///
    /// # Errors
    /// The authorization options cannot work (an HTTPS client cannot be made).
    pub(crate) fn new(
        endpoint: Arc<dyn Endpoint>,
        options: HttpOptions,
        addr: std::net::SocketAddr,
    ) -> io::Result<Shared> {
        let guard = match &options.auth {
            None => None,
            Some(a) => Some(Arc::new(
                Guard::new(a, addr, &options.path).map_err(io::Error::other)?,
            )),
        };
        Ok(Shared {
            endpoint,
            options,
            sessions: Mutex::new(HashMap::new()),
            guard,
        })
    }

    /// Ends every session (their running work gets `grace`), e.g. at shutdown.
    pub(crate) fn end_all(&self, grace: Duration) {
        let all: Vec<Arc<HttpSession>> = lock(&self.sessions).drain().map(|(_, s)| s).collect();
        std::thread::scope(|scope| {
            for s in &all {
                scope.spawn(move || s.close(grace));
            }
        });
    }

    /// Ends the sessions idle past the timeout (none of whose streams is being read); true
    /// when any ended.
    fn sweep(&self) -> bool {
        let timeout = self.options.session_idle_timeout;
        let idle: Vec<Arc<HttpSession>> = {
            let mut sessions = lock(&self.sessions);
            let ids: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| s.idle_for() >= timeout && !s.has_reader())
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        let any = !idle.is_empty();
        for s in idle {
            end_session(s);
        }
        any
    }
}

impl Shared {
    /// Ends the session that has gone longest without a request, when that is at least
    /// `session_reclaim_after`, read streams or not, but none of its requests waits for an
    /// answer; true when one ended.
    fn reclaim_session(&self) -> bool {
        let after = self.options.session_reclaim_after;
        let victim = {
            let mut sessions = lock(&self.sessions);
            let oldest = sessions
                .iter()
                .filter(|(_, s)| !s.awaits_answer())
                .map(|(id, s)| (s.idle_for(), id))
                .filter(|(idle, _)| *idle >= after)
                .max()
                .map(|(_, id)| id.clone());
            oldest.and_then(|id| sessions.remove(&id))
        };
        match victim {
            Some(s) => {
                end_session(s);
                true
            }
            None => false,
        }
    }
}

fn end_session(session: Arc<HttpSession>) {
    // Waiting for running calls blocks: off the async workers.
    tokio::task::spawn_blocking(move || session.close(Duration::from_secs(5)));
}

/// What a connection is doing, for choosing the one that gives its slot up when all are
/// taken.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// Waiting for a request's headers: a new connection, or one between requests.
    Waiting,
    /// Sending a request's body.
    Body,
    /// Holding a GET stream (messages tied to no request, or one resumed): its client can
    /// come back for it with `Last-Event-ID`.
    Listening,
    /// A request being answered (its JSON answer, or its SSE stream): never reclaimed.
    Busy,
}

/// One connection: its phase since when, and how to close it.
struct Conn {
    state: Mutex<(Phase, Instant)>,
    close: tokio::sync::Notify,
}

impl Conn {
    fn set(&self, phase: Phase) {
        *lock(&self.state) = (phase, Instant::now());
    }
}

type Conns = Mutex<HashMap<u64, Arc<Conn>>>;

/// Closes the connection that has held its slot longest without work in progress (waiting
/// for headers, sending a body or holding a GET stream, for at least `RECLAIM_AFTER`), so
/// that a new client takes its place; false when there is none. Oldest first: a client that
/// holds connections open for long is reclaimed before one that has just connected, and a
/// request being answered is never cut.
fn reclaim(conns: &Conns) -> bool {
    let mut live = lock(conns);
    let victim = live
        .iter()
        .filter_map(|(no, c)| {
            let (phase, since) = *lock(&c.state);
            (phase != Phase::Busy && since.elapsed() >= super::RECLAIM_AFTER)
                .then_some((since, *no))
        })
        .min();
    let Some(conn) = victim.and_then(|(_, no)| live.remove(&no)) else {
        return false;
    };
    drop(live);
    conn.close.notify_one();
    true
}

pub(crate) async fn accept_loop(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
) -> io::Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let permits = Arc::new(tokio::sync::Semaphore::new(shared.options.max_connections));
    let conns: Arc<Conns> = Arc::default();
    {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(30));
            loop {
                tick.tick().await;
                shared.sweep();
            }
        });
    }
    let mut next: u64 = 0;
    loop {
        let (tcp, _) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of file descriptors and the like: wait, and go on.
                eprintln!("toolschema mcp http: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // A free slot, else one given up by a connection doing nothing (which closes at
        // once), else the first to be freed; meanwhile the new connection waits.
        let permit = loop {
            if let Ok(p) = Arc::clone(&permits).try_acquire_owned() {
                break p;
            }
            let wait = if reclaim(&conns) {
                Duration::from_secs(1)
            } else {
                Duration::from_millis(250)
            };
            match tokio::time::timeout(wait, Arc::clone(&permits).acquire_owned()).await {
                Ok(Ok(p)) => break p,
                Ok(Err(_)) => return Ok(()),
                Err(_) => {}
            }
        };
        let conn = Arc::new(Conn {
            state: Mutex::new((Phase::Waiting, Instant::now())),
            close: tokio::sync::Notify::new(),
        });
        let no = next;
        next += 1;
        lock(&conns).insert(no, Arc::clone(&conn));
        let shared = Arc::clone(&shared);
        let conns = Arc::clone(&conns);
        let header_timeout = shared.options.header_timeout;
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(tcp);
            let service = {
                let conn = Arc::clone(&conn);
                hyper::service::service_fn(move |req| {
                    let shared = Arc::clone(&shared);
                    let conn = Arc::clone(&conn);
                    async move { Ok::<_, Infallible>(serve(&shared, &conn, req).await) }
                })
            };
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(io, service);
            tokio::select! {
                _ = served => {}
                () = conn.close.notified() => {}
            }
            lock(&conns).remove(&no);
            drop(permit);
        });
    }
}

/// One request on a connection, its phase kept up to date.
async fn serve(shared: &Shared, conn: &Arc<Conn>, req: Request<Incoming>) -> Reply {
    conn.set(Phase::Busy);
    let get = req.method() == Method::GET;
    let reply = handle(shared, conn, req).await;
    let stream = reply
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes() == b"text/event-stream");
    conn.set(if get && stream {
        Phase::Listening
    } else {
        Phase::Busy
    });
    let conn = Arc::clone(conn);
    reply.map(|body| BoxBody::new(Tracked { body, conn }))
}

/// A response body that puts its connection back to waiting once it is sent (or dropped).
struct Tracked {
    body: BoxBody<Bytes, Infallible>,
    conn: Arc<Conn>,
}

impl hyper::body::Body for Tracked {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.conn.set(Phase::Waiting);
    }
}

/// Why a body was not read.
enum BodyError {
    TooLarge,
    /// Past the body deadline or under the minimum rate.
    Slow,
    Unreadable,
}

/// Reads a request's body under the size cap, the body deadline and the minimum rate: the
/// `n`-th byte must have come by `BODY_GRACE + n / min_body_rate` after the headers, and all
/// of it by `body_timeout`.
async fn read_body(body: Incoming, options: &HttpOptions) -> Result<Bytes, BodyError> {
    let mut body = body;
    let start = tokio::time::Instant::now();
    let total = start + options.body_timeout;
    let mut got: Vec<u8> = Vec::new();
    loop {
        let deadline = match options.min_body_rate {
            0 => total,
            rate => {
                let earned = Duration::from_secs_f64(got.len() as f64 / rate as f64);
                (start + super::BODY_GRACE + earned).min(total)
            }
        };
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return Err(BodyError::Slow),
            Ok(None) => return Ok(Bytes::from(got)),
            Ok(Some(Err(_))) => return Err(BodyError::Unreadable),
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(data) = frame.into_data() {
            if got.len() + data.len() > options.max_body_bytes {
                return Err(BodyError::TooLarge);
            }
            got.extend_from_slice(&data);
        }
    }
}

fn full(body: impl Into<Bytes>) -> BoxBody<Bytes, Infallible> {
    Full::new(body.into()).boxed()
}

fn empty(status: StatusCode) -> Reply {
    let mut r = Response::new(full(Bytes::new()));
    *r.status_mut() = status;
    r
}

/// An HTTP error carrying a JSON-RPC error without a request id.
fn rpc_error(status: StatusCode, code: i64, message: &str) -> Reply {
    json_reply(
        status,
        jsonrpc::error_line(&Id::null(), code, message, None),
    )
}

fn json_reply(status: StatusCode, body: String) -> Reply {
    let mut r = Response::new(full(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn sse_reply(body: SseBody) -> Reply {
    let mut r = Response::new(BoxBody::new(body));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

async fn handle(shared: &Shared, conn: &Conn, req: Request<Incoming>) -> Reply {
    if let Some(guard) = &shared.guard
        && guard.is_metadata_path(req.uri().path(), &shared.options.path)
    {
        if let Some(reply) = check_origin(&shared.options, req.uri(), req.headers()) {
            return reply;
        }
        return resource_metadata(guard, req.method());
    }
    let metrics = shared.endpoint.metrics_at(req.uri().path());
    if metrics.is_none() && req.uri().path() != shared.options.path {
        return empty(StatusCode::NOT_FOUND);
    }
    // The metrics path of the listener is behind the same Host/Origin check and the same
    // token as the endpoint (tool names and traffic are no one else's business); an open
    // scrape is what a separate metrics address is for.
    if let Some(reply) = check_origin(&shared.options, req.uri(), req.headers()) {
        return reply;
    }
    let grant = match &shared.guard {
        None => None,
        Some(guard) => match guard.admit(req.headers()).await {
            Ok(grant) => Some(grant),
            Err(refusal) => return refused(guard, &refusal),
        },
    };
    if let Some(metrics) = metrics {
        return metrics.reply(req.method()).map(BoxBody::new);
    }
    // A session answers only to the subject whose token opened it.
    if let Some(grant) = &grant
        && let Some(id) = header_str(req.headers(), SESSION_HEADER)
        && let Some(session) = lock(&shared.sessions).get(id.trim()).cloned()
        && session
            .owner
            .get()
            .is_some_and(|owner| *owner != grant.subject)
    {
        return session_not_found();
    }
    if let Some(v) = header_str(req.headers(), VERSION_HEADER)
        && ProtocolVersion::parse(v.trim()).is_none()
    {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            jsonrpc::INVALID_REQUEST,
            "unsupported MCP-Protocol-Version header",
        );
    }
    match *req.method() {
        Method::POST => post(shared, conn, req, grant.as_ref()).await,
        Method::GET => get(shared, req.headers()),
        Method::DELETE => delete(shared, req.headers()),
        _ => {
            let mut r = rpc_error(
                StatusCode::METHOD_NOT_ALLOWED,
                jsonrpc::INVALID_REQUEST,
                "method not allowed: the MCP endpoint takes POST, GET and DELETE",
            );
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            r
        }
    }
}

/// DNS-rebinding protection: the request's host and its `Origin` against the allow-lists.
///
/// The host is read as RFC 9112 §3.2 says: exactly one `Host` field (none, several or one
/// that is not `host[:port]` get 400), and for an absolute-form request target the target's
/// authority, the `Host` field then being ignored; that host is what the allow-list is
/// checked against. `Origin` is read strictly too (`scheme://host[:port]`, an IPv6 literal
/// in brackets, nothing after) and at most once.
fn check_origin(options: &HttpOptions, uri: &hyper::Uri, headers: &HeaderMap) -> Option<Reply> {
    let forbidden = |what: &str| {
        Some(rpc_error(
            StatusCode::FORBIDDEN,
            jsonrpc::INVALID_REQUEST,
            &format!("forbidden: {what} is not allowed"),
        ))
    };
    let bad = |what: &str| {
        Some(rpc_error(
            StatusCode::BAD_REQUEST,
            jsonrpc::INVALID_REQUEST,
            &format!("bad request: {what}"),
        ))
    };
    let host_ok = |name: &str| {
        options
            .allowed_hosts
            .iter()
            .any(|h| h == "*" || h.eq_ignore_ascii_case(name))
    };
    let mut hosts = headers.get_all(header::HOST).iter();
    let Some(host_field) = hosts.next() else {
        return bad("the Host header is required");
    };
    if hosts.next().is_some() {
        return bad("the Host header is sent more than once");
    }
    let Some(host_field) = host_field.to_str().ok().and_then(authority_host) else {
        return bad("the Host header is not a host with an optional port");
    };
    let host = match uri.authority() {
        None => host_field,
        Some(target) => match authority_host(target.as_str()) {
            Some(host) => host,
            None => {
                return bad("the request target's authority is not a host with an optional port");
            }
        },
    };
    if !host_ok(host) {
        return forbidden(if uri.authority().is_some() {
            "the request target's host"
        } else {
            "the Host header"
        });
    }
    let mut origins = headers.get_all(header::ORIGIN).iter();
    if let Some(origin) = origins.next() {
        if origins.next().is_some() {
            return forbidden("an Origin header sent more than once");
        }
        let Ok(origin) = origin.to_str() else {
            return forbidden("the Origin header");
        };
        let origin = origin.trim().to_ascii_lowercase();
        let listed = options
            .allowed_origins
            .iter()
            .any(|o| o == "*" || *o == origin);
        if !listed && !origin_host(&origin).is_some_and(host_ok) {
            return forbidden("the Origin header");
        }
    }
    None
}

/// The host of an authority `host[:port]` (a `Host` field, a request target's authority,
/// an origin's): a name of letters, digits, `-`, `.`, `_` and `~`, or an IPv6 literal in
/// brackets; the port, when there is one, digits up to 65535. `None` for anything else
/// (user information, a path, text after the bracket, an empty host).
fn authority_host(authority: &str) -> Option<&str> {
    let (host, port) = if let Some(literal) = authority.strip_prefix('[') {
        let end = literal.find(']')?;
        literal[..end].parse::<std::net::Ipv6Addr>().ok()?;
        authority.split_at(end + 2)
    } else {
        let end = authority.find(':').unwrap_or(authority.len());
        let host = &authority[..end];
        let name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        if host.is_empty() || !host.bytes().all(name) {
            return None;
        }
        authority.split_at(end)
    };
    match port.strip_prefix(':') {
        None if port.is_empty() => Some(host),
        None => None,
        Some("") => Some(host),
        Some(digits) => (digits.len() <= 5
            && digits.bytes().all(|b| b.is_ascii_digit())
            && digits.parse::<u16>().is_ok())
        .then_some(host),
    }
}

/// The host of an origin `scheme://host[:port]` (RFC 6454), nothing after; `None` when the
/// text is not one.
fn origin_host(origin: &str) -> Option<&str> {
    let (scheme, authority) = origin.split_once("://")?;
    let mut bytes = scheme.bytes();
    let scheme_ok = bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !scheme_ok {
        return None;
    }
    authority_host(authority)
}

/// What the client accepts: (JSON, SSE).
fn accepts(headers: &HeaderMap) -> (bool, bool) {
    let Some(accept) = header_str(headers, "accept") else {
        return (true, true);
    };
    let mut json = false;
    let mut sse = false;
    for item in accept.split(',') {
        let media = item
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match media.as_str() {
            "*/*" => {
                json = true;
                sse = true;
            }
            "application/json" | "application/*" => json = true,
            "text/event-stream" | "text/*" => sse = true,
            _ => {}
        }
    }
    (json, sse)
}

/// What a POSTed message is.
enum Kind {
    /// A message answered under this id key (a request, or a malformed message whose id
    /// reads); `method` when it is a string.
    Request { key: String, method: Option<String> },
    /// A notification or a response: 202.
    Other,
}

/// The members a message is routed by (whether and how it is answered is asked of the
/// dispatcher's own reading, `expected_answer`).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    method: Option<String>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct Params {
    #[serde(default)]
    name: Option<serde_json::Value>,
    #[serde(default, rename = "_meta")]
    meta: Option<serde_json::Map<String, serde_json::Value>>,
    /// Kept unparsed: read only for a tool with `x-mcp-header` annotations.
    #[serde(default)]
    arguments: Option<Box<RawValue>>,
}

async fn post(
    shared: &Shared,
    conn: &Conn,
    req: Request<Incoming>,
    grant: Option<&Grant>,
) -> Reply {
    let options = &shared.options;
    let headers = req.headers().clone();
    let content_type = header_str(&headers, "content-type").unwrap_or("");
    let media = content_type.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/json") {
        return rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            jsonrpc::INVALID_REQUEST,
            "unsupported media type: the body must be application/json",
        );
    }
    let (wants_json, wants_sse) = accepts(&headers);
    if !wants_json && !wants_sse {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            jsonrpc::INVALID_REQUEST,
            "not acceptable: the client must accept application/json or text/event-stream",
        );
    }
    let too_large = || {
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            jsonrpc::INVALID_REQUEST,
            &format!(
                "message too large: the limit is {} bytes",
                options.max_body_bytes
            ),
        )
    };
    if header_str(&headers, "content-length")
        .and_then(|n| n.trim().parse::<u64>().ok())
        .is_some_and(|n| n > options.max_body_bytes as u64)
    {
        return too_large();
    }
    conn.set(Phase::Body);
    let body = read_body(req.into_body(), options).await;
    conn.set(Phase::Busy);
    let body = match body {
        Ok(b) => b,
        Err(BodyError::TooLarge) => return too_large(),
        Err(BodyError::Slow) => {
            let mut r = rpc_error(
                StatusCode::REQUEST_TIMEOUT,
                jsonrpc::INVALID_REQUEST,
                &format!(
                    "request timeout: the body must come within {} s, at {} bytes per second at least",
                    options.body_timeout.as_secs_f64(),
                    options.min_body_rate
                ),
            );
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
        Err(BodyError::Unreadable) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                jsonrpc::INVALID_REQUEST,
                "the body could not be read",
            );
        }
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            jsonrpc::PARSE_ERROR,
            "parse error: the body is not UTF-8",
        );
    };
    if let (Some(guard), Some(grant)) = (&shared.guard, grant)
        && let Some(reply) = check_calls(shared, guard, grant, text)
    {
        return reply;
    }
    if text.trim_start().starts_with('[') {
        return post_batch(shared, &headers, text, grant, wants_json, wants_sse).await;
    }
    // Which answer the message gets is asked of the code that reads it for dispatch, so
    // that the stream opened here is the one its answer is routed to: a message refused
    // under the `null` id (unreadable, a repeated envelope member, an id that is not a
    // string or a number) is answered here, since no stream could be found by its id.
    let kind = match expected_answer(text) {
        Expected::Refused(line) => return json_reply(StatusCode::BAD_REQUEST, line),
        Expected::Nothing => Kind::Other,
        Expected::Answer(id) => Kind::Request {
            key: id.key().to_string(),
            // Read again for routing only; a request whose envelope this reading does not
            // take (a method that is not a string) is still handed on, for its answer.
            method: serde_json::from_str::<Envelope<'_>>(text)
                .ok()
                .and_then(|e| e.method),
        },
    };
    let params: Params = serde_json::from_str::<Envelope<'_>>(text)
        .ok()
        .and_then(|e| e.params)
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or_default();
    let rewrite = match (&kind, grant) {
        (
            Kind::Request {
                method: Some(m), ..
            },
            Some(grant),
        ) if m == "tools/list" => listing_filter(shared, grant),
        _ => None,
    };
    let modern = params
        .meta
        .as_ref()
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .cloned();
    if let (Kind::Request { key, method }, Some(version)) = (&kind, modern) {
        return post_stateless(
            shared,
            &headers,
            text,
            key,
            method.as_deref().unwrap_or(""),
            &params,
            &version,
            wants_json,
            wants_sse,
            rewrite,
        )
        .await;
    }
    let is_initialize =
        matches!(&kind, Kind::Request { method: Some(method), .. } if method == "initialize");
    let (session, created) = match header_str(&headers, SESSION_HEADER) {
        Some(id) => match lock(&shared.sessions).get(id.trim()) {
            Some(s) => (Arc::clone(s), false),
            None => return session_not_found(),
        },
        None if is_initialize => {
            let full = lock(&shared.sessions).len() >= options.max_sessions;
            if full && !shared.sweep() && !shared.reclaim_session() {
                return rpc_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    jsonrpc::SERVER_BUSY,
                    "server busy: too many sessions",
                );
            }
            match HttpSession::new(
                &*shared.endpoint,
                false,
                options.replay_events,
                shared.guard.is_some(),
            ) {
                Ok(s) => {
                    let _ = s.owner.set(grant.and_then(|g| g.subject.clone()));
                    (s, true)
                }
                Err(why) => return backend_failed(&why),
            }
        }
        None => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                jsonrpc::INVALID_REQUEST,
                "bad request: the Mcp-Session-Id header is required (sessions start with initialize)",
            );
        }
    };
    session.touch();
    let Kind::Request { key, .. } = kind else {
        session.conn.handle(text);
        return empty(StatusCode::ACCEPTED);
    };
    if let Some(reply) = make_room(&session, options) {
        return reply;
    }
    let Some(stream) = session.try_open_stream(vec![key.clone()]) else {
        if created {
            end_session(session);
        }
        return id_in_use();
    };
    if let Some(rewrite) = rewrite {
        session.rewrite_answer(key, rewrite);
    }
    session.conn.handle(text);
    // The session id goes in the headers of the handshake's answer, so a backend that
    // answers later (the proxy's server) is waited for, as JSON when the client takes it.
    let sse = wants_sse && !(created && wants_json);
    let mut reply = answer(shared, &session, stream, wants_json, sse, false).await;
    if created {
        let id = new_session_id();
        let negotiated = lock(&session.routes).version;
        // Only a successful handshake opens a session.
        if reply.status() == StatusCode::OK && negotiated.is_some() {
            if let Ok(v) = HeaderValue::from_str(&id) {
                reply.headers_mut().insert(SESSION_HEADER, v);
            }
            lock(&shared.sessions).insert(id, session);
        } else {
            end_session(session);
        }
    }
    reply
}

/// The Protected Resource Metadata document (RFC 9728): GET (or HEAD) without a token,
/// readable from any origin.
fn resource_metadata(guard: &Guard, method: &Method) -> Reply {
    let mut r = match *method {
        Method::GET | Method::HEAD => json_reply(StatusCode::OK, guard.metadata()),
        Method::OPTIONS => empty(StatusCode::NO_CONTENT),
        _ => {
            let mut r = empty(StatusCode::METHOD_NOT_ALLOWED);
            r.headers_mut().insert(
                header::ALLOW,
                HeaderValue::from_static("GET, HEAD, OPTIONS"),
            );
            return r;
        }
    };
    let h = r.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=3600"),
    );
    r
}

/// A request refused by the resource server: its status, `WWW-Authenticate` challenge and
/// an OAuth error body (never the token).
fn refused(guard: &Guard, refusal: &Refusal) -> Reply {
    let (status, challenge, body) = guard.challenge(refusal);
    let mut r = json_reply(
        StatusCode::from_u16(status).unwrap_or(StatusCode::UNAUTHORIZED),
        body,
    );
    if let Some(value) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
    if status == 503 {
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    }
    r
}

/// Whether `grant` may call tool `name` (its schemes: the policy's, else its own).
fn check_call(shared: &Shared, guard: &Guard, grant: &Grant, name: &str) -> Result<(), Refusal> {
    let schemes = guard.schemes(name, || shared.endpoint.security_schemes(name));
    guard.check_call(&schemes, grant)
}

/// A call the token's scopes do not allow never reaches the backend: every `tools/call` of
/// the message (alone or in a batch; request or notification) must be allowed, else the
/// message gets 403; one whose tool cannot be read gets 400.
fn check_calls(shared: &Shared, guard: &Guard, grant: &Grant, text: &str) -> Option<Reply> {
    let items: Vec<&RawValue> = if text.trim_start().starts_with('[') {
        serde_json::from_str(text).ok()?
    } else {
        vec![serde_json::from_str(text).ok()?]
    };
    for item in items {
        match call_target(item.get()) {
            Target::NotACall => {}
            Target::Unreadable => {
                return Some(rpc_error(
                    StatusCode::BAD_REQUEST,
                    jsonrpc::INVALID_PARAMS,
                    "invalid params: a tools/call names its tool in params.name, a string",
                ));
            }
            Target::Tool(name) => {
                if let Err(refusal) = check_call(shared, guard, grant, &name) {
                    return Some(refused(guard, &refusal));
                }
            }
        }
    }
    None
}

/// What a message asks to call, for the authorization check.
enum Target {
    NotACall,
    /// A `tools/call` whose `params.name` is not a string.
    Unreadable,
    Tool(String),
}

/// The tool a message calls, read as loosely as any backend might: members of any other
/// type, or unknown ones, do not hide the name (a `_meta` that is not an object once let a
/// call through unchecked), and of a member named twice the last counts, as most JSON
/// readers keep it (backends that refuse such messages refuse them anyway). Values are
/// skipped, not parsed.
fn call_target(text: &str) -> Target {
    type Members<'a> = HashMap<String, &'a RawValue>;
    let Ok(message) = serde_json::from_str::<Members<'_>>(text) else {
        return Target::NotACall;
    };
    let method = message
        .get("method")
        .and_then(|m| serde_json::from_str::<String>(m.get()).ok());
    if method.as_deref() != Some("tools/call") {
        return Target::NotACall;
    }
    let name = message
        .get("params")
        .and_then(|p| serde_json::from_str::<Members<'_>>(p.get()).ok())
        .and_then(|p| {
            p.get("name")
                .and_then(|n| serde_json::from_str::<String>(n.get()).ok())
        });
    match name {
        Some(n) => Target::Tool(n),
        None => Target::Unreadable,
    }
}

/// With [`AuthOptions::hide_unauthorized_tools`](auth::AuthOptions::hide_unauthorized_tools):
/// the rewrite that leaves out of a `tools/list` answer the tools `grant` cannot call.
fn listing_filter(shared: &Shared, grant: &Grant) -> Option<Rewrite> {
    let guard = Arc::clone(shared.guard.as_ref()?);
    if !guard.hides_tools() {
        return None;
    }
    let endpoint = Arc::clone(&shared.endpoint);
    let grant = grant.clone();
    Some(Box::new(move |line| {
        auth::filter_listing(line, &|name| {
            let schemes = guard.schemes(name, || endpoint.security_schemes(name));
            toolschema::mcp::SecurityScheme::allows_any(&schemes, Some(&grant.scopes))
        })
    }))
}

/// No backend for a new session (a server process that does not start): 500, with the
/// reason on stderr only.
fn backend_failed(why: &str) -> Reply {
    eprintln!("toolschema mcp http: cannot open a session: {why}");
    rpc_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        jsonrpc::INTERNAL_ERROR,
        "internal error: the session could not be opened",
    )
}

/// A request whose id another request of the session, still unanswered, carries: its
/// answer could not be told from the other's.
fn id_in_use() -> Reply {
    rpc_error(
        StatusCode::CONFLICT,
        jsonrpc::INVALID_REQUEST,
        "conflict: a request of this session with the same id is still unanswered",
    )
}

fn session_not_found() -> Reply {
    rpc_error(
        StatusCode::NOT_FOUND,
        jsonrpc::INVALID_REQUEST,
        "session not found: it ended or never existed; start a new one with initialize",
    )
}

/// Makes room for one more stream, or answers 429.
fn make_room(session: &HttpSession, options: &HttpOptions) -> Option<Reply> {
    while session.stream_count() >= options.max_streams {
        if !session.evict_one() {
            return Some(rpc_error(
                StatusCode::TOO_MANY_REQUESTS,
                jsonrpc::SERVER_BUSY,
                "server busy: too many streams open in this session",
            ));
        }
    }
    None
}

/// The answer to a request whose stream is `stream`: JSON when it is ready (or when the
/// client takes only JSON), else an SSE stream.
async fn answer(
    shared: &Shared,
    session: &Arc<HttpSession>,
    stream: u64,
    wants_json: bool,
    wants_sse: bool,
    stateless: bool,
) -> Reply {
    if wants_json && let Some(line) = session.take_ready_answer(stream) {
        return json_reply(status_of(&line, stateless), line);
    }
    if !wants_sse {
        let rx = session.json_answer(stream);
        // Dropped with the request when the client goes away: the stream goes too.
        let guard = StreamGuard {
            session: Arc::clone(session),
            stream,
        };
        let line = rx.await;
        drop(guard);
        return match line {
            Ok(line) => json_reply(status_of(&line, stateless), line),
            Err(_) => rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                jsonrpc::INTERNAL_ERROR,
                "the session ended before the answer",
            ),
        };
    }
    let version = lock(&session.routes).version;
    // The priming event lets a client resume; clients before 2025-11-25 do not expect it.
    let prime = version
        .filter(|v| *v >= ProtocolVersion::V2025_11_25)
        .map(|_| shared.options.retry);
    match SseBody::attach(
        Arc::clone(session),
        stream,
        0,
        prime,
        shared.options.poll_after,
        shared.options.keep_alive,
    ) {
        Some(body) => sse_reply(body),
        None => rpc_error(
            StatusCode::CONFLICT,
            jsonrpc::INVALID_REQUEST,
            "the stream is already being read",
        ),
    }
}

struct StreamGuard {
    session: Arc<HttpSession>,
    stream: u64,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.session.drop_stream(self.stream);
        if self.session.stateless {
            self.session.conn.finish(Duration::ZERO);
        }
    }
}

/// The HTTP status of a JSON answer: 200, except the errors 2026-07-28 maps to statuses.
fn status_of(line: &str, stateless: bool) -> StatusCode {
    if !stateless {
        return StatusCode::OK;
    }
    #[derive(Deserialize)]
    struct Err {
        error: Code,
    }
    #[derive(Deserialize)]
    struct Code {
        code: i64,
    }
    match serde_json::from_str::<Err>(line).map(|e| e.error.code) {
        Ok(jsonrpc::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Ok(jsonrpc::UNSUPPORTED_PROTOCOL_VERSION | HEADER_MISMATCH) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// A 2026-07-28 request: no session; the headers must mirror the body.
#[allow(clippy::too_many_arguments)]
async fn post_stateless(
    shared: &Shared,
    headers: &HeaderMap,
    text: &str,
    key: &str,
    method: &str,
    params: &Params,
    version: &serde_json::Value,
    wants_json: bool,
    wants_sse: bool,
    rewrite: Option<Rewrite>,
) -> Reply {
    let mismatch = |what: String| {
        rpc_error(
            StatusCode::BAD_REQUEST,
            HEADER_MISMATCH,
            &format!("header mismatch: {what}"),
        )
    };
    match (header_str(headers, VERSION_HEADER), version.as_str()) {
        (None, _) => return mismatch("the MCP-Protocol-Version header is required".into()),
        (Some(h), Some(v)) if h.trim() == v => {}
        (Some(_), _) => {
            return mismatch(
                "the MCP-Protocol-Version header differs from the body's _meta protocol version"
                    .into(),
            );
        }
    }
    match header_str(headers, METHOD_HEADER) {
        Some(h) if h.trim() == method => {}
        Some(_) => return mismatch("the Mcp-Method header differs from the body's method".into()),
        None => return mismatch("the Mcp-Method header is required".into()),
    }
    if method == "tools/call" {
        let body_name = params.name.as_ref().and_then(|n| n.as_str());
        match header_str(headers, NAME_HEADER).map(decode_header_value) {
            Some(Some(h)) if Some(h.as_str()) == body_name => {}
            Some(_) => {
                return mismatch("the Mcp-Name header differs from the body's name".into());
            }
            None => return mismatch("the Mcp-Name header is required for tools/call".into()),
        }
        if let Some(schema) = body_name.and_then(|n| shared.endpoint.input_schema(n))
            && let Err(what) = check_param_headers(headers, &schema, params)
        {
            return mismatch(what);
        }
    }
    let session = match HttpSession::new(
        &*shared.endpoint,
        true,
        shared.options.replay_events,
        shared.guard.is_some(),
    ) {
        Ok(s) => s,
        Err(why) => return backend_failed(&why),
    };
    lock(&session.routes).version = version.as_str().and_then(ProtocolVersion::parse);
    let Some(stream) = session.try_open_stream(vec![key.to_string()]) else {
        return id_in_use();
    };
    if let Some(rewrite) = rewrite {
        session.rewrite_answer(key.to_string(), rewrite);
    }
    session.conn.handle(text);
    answer(shared, &session, stream, wants_json, wants_sse, true).await
}

/// The `x-mcp-header` annotations of an input schema: each property reached from the root
/// through `properties` alone (the only places the draft allows them), with its path.
fn param_headers(schema: &serde_json::Value) -> Vec<(Vec<&str>, &str)> {
    let mut found = Vec::new();
    let mut todo = vec![(Vec::new(), schema)];
    while let Some((path, schema)) = todo.pop() {
        let Some(props) = schema.get("properties").and_then(|p| p.as_object()) else {
            continue;
        };
        for (key, sub) in props {
            let mut path = path.clone();
            path.push(key.as_str());
            if let Some(name) = sub.get("x-mcp-header").and_then(|h| h.as_str()) {
                found.push((path.clone(), name));
            }
            todo.push((path, sub));
        }
    }
    found
}

/// The 2026-07-28 `Mcp-Param-{Name}` headers against the call's arguments: a value in the
/// body needs its header, equal after decoding (integers and numbers compared as numbers);
/// a header whose value is absent (or null) in the body mirrors nothing and is refused too,
/// since an intermediary may have routed on it. The reason names the header, never a value.
fn check_param_headers(
    headers: &HeaderMap,
    schema: &serde_json::Value,
    params: &Params,
) -> Result<(), String> {
    let annotated = param_headers(schema);
    if annotated.is_empty() {
        return Ok(());
    }
    let arguments: serde_json::Value = match &params.arguments {
        Some(raw) => serde_json::from_str(raw.get()).unwrap_or(serde_json::Value::Null),
        None => serde_json::Value::Null,
    };
    for (path, name) in annotated {
        let header_name = format!("Mcp-Param-{name}");
        let body = path
            .iter()
            .try_fold(&arguments, |v, key| v.get(key))
            .filter(|v| !v.is_null());
        let mut sent = headers.get_all(header_name.as_str()).iter();
        let (first, second) = (sent.next(), sent.next());
        if second.is_some() {
            return Err(format!("{header_name} is sent more than once"));
        }
        let header = match first {
            None if body.is_none() => continue,
            None => {
                return Err(format!(
                    "{header_name} is required (the body has its value)"
                ));
            }
            Some(h) => h,
        };
        let Some(body) = body else {
            return Err(format!(
                "{header_name} is sent but the body has no value for it"
            ));
        };
        // Visible ASCII, space and tab only (`to_str`), then the base64 form decoded.
        let Some(value) = header.to_str().ok().and_then(decode_header_value) else {
            return Err(format!(
                "{header_name} has characters a header value may not carry"
            ));
        };
        let matches = match body {
            serde_json::Value::String(s) => *s == value,
            serde_json::Value::Bool(b) => value == if *b { "true" } else { "false" },
            serde_json::Value::Number(n) => match (n.as_i64(), value.parse::<i64>()) {
                (Some(a), Ok(b)) => a == b,
                _ => value
                    .parse::<f64>()
                    .is_ok_and(|h| n.as_f64().is_some_and(|b| h == b)),
            },
            _ => false,
        };
        if !matches {
            return Err(format!("{header_name} differs from the body's value"));
        }
    }
    Ok(())
}

/// A header value, decoding the `=?base64?...?=` form.
fn decode_header_value(value: &str) -> Option<String> {
    use base64::Engine as _;
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(value.to_string()),
    }
}

/// A JSON-RPC batch (2025-03-26): one stream for all its requests, answered as one array.
async fn post_batch(
    shared: &Shared,
    headers: &HeaderMap,
    text: &str,
    grant: Option<&Grant>,
    wants_json: bool,
    wants_sse: bool,
) -> Reply {
    let Some(id) = header_str(headers, SESSION_HEADER) else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            jsonrpc::INVALID_REQUEST,
            "bad request: the Mcp-Session-Id header is required (sessions start with initialize)",
        );
    };
    let Some(session) = lock(&shared.sessions).get(id.trim()).cloned() else {
        return session_not_found();
    };
    session.touch();
    let items: Vec<&RawValue> = match serde_json::from_str(text) {
        Ok(items) => items,
        Err(_) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                jsonrpc::PARSE_ERROR,
                "parse error: the body is not a valid JSON-RPC batch",
            );
        }
    };
    // The batch's answer is one array, routed by the id of its first member: every id the
    // members are answered under, and `null` (a member refused without one, or the batch
    // refused whole), so that whichever comes first finds this stream.
    let mut keys: Vec<String> = Vec::new();
    let mut listings: Vec<String> = Vec::new();
    let mut refused = items.is_empty();
    for item in &items {
        match expected_answer(item.get()) {
            Expected::Answer(id) => {
                let method = serde_json::from_str::<Envelope<'_>>(item.get())
                    .ok()
                    .and_then(|e| e.method);
                if method.as_deref() == Some("tools/list") {
                    listings.push(id.key().to_string());
                }
                keys.push(id.key().to_string());
            }
            Expected::Refused(_) => refused = true,
            Expected::Nothing => {}
        }
    }
    if keys.is_empty() && !refused {
        session.conn.handle(text);
        return empty(StatusCode::ACCEPTED);
    }
    keys.push(Id::null().key().to_string());
    if let Some(reply) = make_room(&session, &shared.options) {
        return reply;
    }
    // One batch at a time per session: both would be awaited under `null`.
    let Some(stream) = session.try_open_stream(keys) else {
        return id_in_use();
    };
    // (A `tools/list` in a batch hides what one sent alone hides.)
    if let Some(grant) = grant {
        for key in listings {
            if let Some(rewrite) = listing_filter(shared, grant) {
                session.rewrite_answer(key, rewrite);
            }
        }
    }
    session.conn.handle(text);
    answer(shared, &session, stream, wants_json, wants_sse, false).await
}

fn get(shared: &Shared, headers: &HeaderMap) -> Reply {
    let (_, wants_sse) = accepts(headers);
    if !wants_sse {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            jsonrpc::INVALID_REQUEST,
            "not acceptable: GET opens a text/event-stream",
        );
    }
    let session = match session_of(shared, headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    session.touch();
    let conflict = || {
        rpc_error(
            StatusCode::CONFLICT,
            jsonrpc::INVALID_REQUEST,
            "conflict: this stream is already being read",
        )
    };
    if let Some(last) = header_str(headers, "last-event-id") {
        let Some((stream, after)) = session.resume_point(last) else {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                jsonrpc::INVALID_REQUEST,
                "bad request: Last-Event-ID names no stream of this session that can be resumed",
            );
        };
        return match SseBody::attach(
            Arc::clone(&session),
            stream,
            after,
            None,
            shared.options.poll_after,
            shared.options.keep_alive,
        ) {
            Some(body) => sse_reply(body),
            None => conflict(),
        };
    }
    if lock(&session.routes).standalone.is_none()
        && let Some(reply) = make_room(&session, &shared.options)
    {
        return reply;
    }
    let stream = session.standalone_stream();
    let version = lock(&session.routes).version;
    let prime = version
        .filter(|v| *v >= ProtocolVersion::V2025_11_25)
        .map(|_| shared.options.retry);
    match SseBody::attach(
        Arc::clone(&session),
        stream,
        0,
        prime,
        None,
        shared.options.keep_alive,
    ) {
        Some(body) => sse_reply(body),
        None => conflict(),
    }
}

fn delete(shared: &Shared, headers: &HeaderMap) -> Reply {
    let session = match session_of(shared, headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Some(id) = header_str(headers, SESSION_HEADER) {
        lock(&shared.sessions).remove(id.trim());
    }
    end_session(session);
    empty(StatusCode::OK)
}

/// The session a GET or DELETE names; 405 without one at 2026-07-28, which has none.
// The error is the reply itself, built once on a rare path: boxing buys nothing.
#[allow(clippy::result_large_err)]
fn session_of(shared: &Shared, headers: &HeaderMap) -> Result<Arc<HttpSession>, Reply> {
    match header_str(headers, SESSION_HEADER) {
        Some(id) => lock(&shared.sessions)
            .get(id.trim())
            .cloned()
            .ok_or_else(session_not_found),
        None => {
            let modern = header_str(headers, VERSION_HEADER)
                .and_then(|v| ProtocolVersion::parse(v.trim()))
                .is_some_and(|v| !v.uses_handshake());
            Err(if modern {
                let mut r = rpc_error(
                    StatusCode::METHOD_NOT_ALLOWED,
                    jsonrpc::INVALID_REQUEST,
                    "method not allowed: protocol version 2026-07-28 has no sessions",
                );
                r.headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("POST"));
                r
            } else {
                rpc_error(
                    StatusCode::BAD_REQUEST,
                    jsonrpc::INVALID_REQUEST,
                    "bad request: the Mcp-Session-Id header is required",
                )
            })
        }
    }
}

/// 128 random bits, hex: a session id no one can guess.
fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No entropy source: still unique, though guessable; say so.
        eprintln!("toolschema mcp http: no random source; session ids are predictable");
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = n.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
