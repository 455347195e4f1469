//! The client side of Streamable HTTP, for the contract proxy in front of a remote server:
//! each message is POSTed (the answer comes as JSON or as an SSE stream), the session id
//! and protocol version are carried, the GET stream is opened when the server offers one,
//! and DELETE ends the session. Plain `http://` only (no TLS).
//!
//! Nothing here waits for ever or panics on what the server sends: a network error, a
//! timeout, a non-2xx status or a malformed body becomes a JSON-RPC error under the
//! request's id (delivered as if the server had sent it) and a note for the operator.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use toolschema::mcp::jsonrpc;

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// How many times a stream that ended early is resumed with `Last-Event-ID`.
const MAX_RESUMES: u32 = 5;
/// The least delay before resuming a stream or reopening the GET stream, whatever
/// `retry` the server asks for (`retry: 0` must not make the proxy reconnect in a loop).
const MIN_RECONNECT: Duration = Duration::from_millis(500);
/// The longest delay between two attempts at the GET stream (the delay doubles after each
/// attempt that brought no message).
const MAX_RECONNECT: Duration = Duration::from_secs(30);
/// How many times in a row the GET stream is reopened without bringing a message before
/// the proxy stops listening on it.
const MAX_EMPTY_RECONNECTS: u32 = 20;

/// Where the client's findings go: each message from the server (JSON text), and notes for
/// the operator.
pub(crate) struct Delivery {
    pub(crate) message: Box<dyn Fn(String) + Send + Sync>,
    pub(crate) note: Box<dyn Fn(String) + Send + Sync>,
}

/// How the client talks to the upstream.
#[derive(Debug, Clone)]
pub(crate) struct UpstreamOptions {
    /// Connecting, and each answer's headers and JSON body; also the longest silence on
    /// an SSE stream.
    pub(crate) timeout: Duration,
    /// The largest message (a JSON body or one SSE event).
    pub(crate) max_message_bytes: usize,
}

/// A remote MCP server over Streamable HTTP. Messages are sent in order; each answer is
/// handed to [`Delivery::message`] as it arrives.
pub(crate) struct Upstream {
    tx: tokio::sync::mpsc::UnboundedSender<Command>,
    state: Arc<State>,
}

enum Command {
    Message(String),
    Close(std::sync::mpsc::Sender<()>),
}

struct State {
    client: Client<HttpConnector, Full<Bytes>>,
    uri: Uri,
    options: UpstreamOptions,
    session: Mutex<Option<HeaderValue>>,
    /// The version the handshake negotiated (for the `MCP-Protocol-Version` header).
    version: Mutex<Option<HeaderValue>>,
    get_started: AtomicBool,
    closed: AtomicBool,
    /// Messages sent whose POST has not finished.
    in_flight: std::sync::atomic::AtomicUsize,
    /// The requests sent and not yet answered, by serialized id (with how many of that
    /// id): a response is delivered only while its id waits here, and takes it out, so
    /// each request is answered exactly once: by the server, or in its place when its
    /// POST ends (or times out) without its answer.
    waiting: Mutex<std::collections::HashMap<String, usize>>,
    delivery: Delivery,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Checks an upstream URL: `http://HOST[:PORT]/PATH` (no TLS).
pub(crate) fn parse_url(url: &str) -> Result<Uri, String> {
    let uri: Uri = url.parse().map_err(|e| format!("not a URL ({e}): {url}"))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") => {
            return Err(format!(
                "https is not supported (no TLS): put a TLS-terminating proxy in between: {url}"
            ));
        }
        _ => return Err(format!("the URL must start with http://: {url}")),
    }
    if uri.host().is_none() {
        return Err(format!("the URL has no host: {url}"));
    }
    Ok(uri)
}

impl Upstream {
    /// Starts the client's sender on `runtime`.
    pub(crate) fn start(
        runtime: &tokio::runtime::Handle,
        uri: Uri,
        options: UpstreamOptions,
        delivery: Delivery,
    ) -> Upstream {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(options.timeout));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        let state = Arc::new(State {
            client,
            uri,
            options,
            session: Mutex::new(None),
            version: Mutex::new(None),
            get_started: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            in_flight: std::sync::atomic::AtomicUsize::new(0),
            waiting: Mutex::new(std::collections::HashMap::new()),
            delivery,
        });
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        runtime.spawn(sender(Arc::clone(&state), rx));
        Upstream { tx, state }
    }

    /// Sends one message (or batch) to the server.
    pub(crate) fn send(&self, message: String) {
        self.state.in_flight.fetch_add(1, Ordering::SeqCst);
        if self.tx.send(Command::Message(message)).is_err() {
            self.state.in_flight.fetch_sub(1, Ordering::SeqCst);
            (self.state.delivery.note)("the upstream client has stopped; message dropped".into());
        }
    }

    /// Waits up to `timeout` for every message sent to be answered (or to fail).
    pub(crate) fn wait_idle(&self, timeout: Duration) {
        let since = std::time::Instant::now();
        while self.state.in_flight.load(Ordering::SeqCst) > 0 && since.elapsed() < timeout {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Ends the session (DELETE, when there is one) once what was sent before went out;
    /// waits at most `timeout`. Call from a thread that is not a runtime worker.
    pub(crate) fn close(&self, timeout: Duration) {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        if self.tx.send(Command::Close(done_tx)).is_ok() {
            let _ = done_rx.recv_timeout(timeout);
        }
        self.state.closed.store(true, Ordering::SeqCst);
    }
}

/// A message's envelope, as far as the client needs it.
#[derive(Deserialize, Default)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<EnvelopeParams>,
}

#[derive(Deserialize, Default)]
struct EnvelopeParams {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default, rename = "_meta")]
    meta: Option<serde_json::Map<String, Value>>,
}

/// What a POST is for.
struct Sent {
    /// The id, for a request (JSON text), or `None`.
    id: Option<Value>,
    /// The ids of every request in the message (one, or a batch's).
    ids: Vec<Value>,
    method: Option<String>,
    /// A 2026-07-28 request: its version (the headers mirror the body).
    modern: Option<String>,
    name: Option<String>,
}

impl Sent {
    fn of(text: &str) -> Sent {
        let env: Envelope<'_> = serde_json::from_str(text).unwrap_or_default();
        let id: Option<Value> = match (&env.id, &env.method) {
            (Some(raw), Some(_)) => serde_json::from_str(raw.get()).ok(),
            _ => None,
        };
        let ids = match &id {
            Some(id) => vec![id.clone()],
            None if text.trim_start().starts_with('[') => {
                serde_json::from_str::<Vec<Envelope<'_>>>(text)
                    .unwrap_or_default()
                    .iter()
                    .filter(|e| e.method.is_some())
                    .filter_map(|e| serde_json::from_str(e.id?.get()).ok())
                    .collect()
            }
            None => Vec::new(),
        };
        let params = env.params.unwrap_or_default();
        let modern = params
            .meta
            .as_ref()
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_string);
        Sent {
            id,
            ids,
            method: env.method,
            modern,
            name: params.name.and_then(|n| n.as_str().map(str::to_string)),
        }
    }

    fn what(&self) -> String {
        match (&self.method, &self.id) {
            (Some(m), Some(id)) => format!("request {m:?} (id {id})"),
            (Some(m), None) => format!("notification {m:?}"),
            _ => "a response".to_string(),
        }
    }
}

async fn sender(state: Arc<State>, mut rx: tokio::sync::mpsc::UnboundedReceiver<Command>) {
    while let Some(cmd) = rx.recv().await {
        match cmd {
            Command::Message(text) => {
                let sent = Sent::of(&text);
                if sent.method.as_deref() == Some("initialize") {
                    // The session id comes with its answer: nothing else goes before it.
                    post(Arc::clone(&state), text, sent).await;
                } else {
                    tokio::spawn(post(Arc::clone(&state), text, sent));
                }
            }
            Command::Close(done) => {
                state.closed.store(true, Ordering::SeqCst);
                delete(&state).await;
                let _ = done.send(());
                return;
            }
        }
    }
}

impl State {
    fn base_request(&self, method: Method) -> hyper::http::request::Builder {
        let mut b = Request::builder().method(method).uri(self.uri.clone());
        if let Some(s) = lock(&self.session).clone() {
            b = b.header(SESSION_HEADER, s);
        }
        b
    }

    fn note(&self, text: String) {
        (self.delivery.note)(text);
    }

    /// Answers the requests of a POST still waiting in the server's place with an error,
    /// and tells the operator.
    fn fail(&self, sent: &Sent, why: &str) {
        self.note(format!("upstream: {}: {why}", sent.what()));
        for id in &sent.ids {
            if self.take_waiting(id) {
                let answer =
                    jsonrpc::error(id, jsonrpc::INTERNAL_ERROR, &format!("upstream: {why}"));
                (self.delivery.message)(answer.to_string());
            }
        }
    }

    /// Takes one request of that id out of the waiting ones; false when none waits.
    fn take_waiting(&self, id: &Value) -> bool {
        let key = id.to_string();
        let mut waiting = lock(&self.waiting);
        match waiting.get_mut(&key) {
            Some(n) if *n > 1 => {
                *n -= 1;
                true
            }
            Some(_) => {
                waiting.remove(&key);
                true
            }
            None => false,
        }
    }

    fn is_waiting(&self, id: &Value) -> bool {
        lock(&self.waiting).contains_key(&id.to_string())
    }

    /// Hands a message from the server on. A response (or a batch's) is delivered only
    /// for a request still waiting, which it answers; one for no waiting request (another
    /// id, a repeat, a late one) is dropped with a note, so it can neither answer a
    /// request twice nor stand in for another's answer.
    fn deliver(&self, text: String) {
        if text.trim_start().starts_with('[') {
            let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(&text) else {
                return (self.delivery.message)(text);
            };
            let kept: Vec<&str> = items
                .iter()
                .map(|i| i.get())
                .filter(|i| self.admit(i))
                .collect();
            if kept.len() == items.len() {
                return (self.delivery.message)(text);
            }
            if !kept.is_empty() {
                (self.delivery.message)(format!("[{}]", kept.join(",")));
            }
            return;
        }
        if self.admit(&text) {
            (self.delivery.message)(text);
        }
    }

    /// Whether one message from the server may go on (see [`State::deliver`]).
    fn admit(&self, text: &str) -> bool {
        match response_id(text) {
            Some(id) if self.take_waiting(&id) => true,
            Some(id) => {
                self.note(format!(
                    "upstream: the server sent an answer for id {id}, which no request waits for; dropped"
                ));
                false
            }
            None => true,
        }
    }

    async fn request(&self, req: Request<Full<Bytes>>) -> Result<Response<Incoming>, String> {
        match tokio::time::timeout(self.options.timeout, self.client.request(req)).await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(e)) => Err(format!("cannot reach the server: {}", error_chain(&e))),
            Err(_) => Err(format!(
                "no answer within {} s",
                self.options.timeout.as_secs_f32()
            )),
        }
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// One message's POST, bounded as a whole by the timeout (however the server trickles);
/// when it ends, each of its requests the server did not answer is answered in its place.
async fn post(state: Arc<State>, text: String, sent: Sent) {
    {
        let mut waiting = lock(&state.waiting);
        for id in &sent.ids {
            *waiting.entry(id.to_string()).or_insert(0) += 1;
        }
    }
    let timeout = state.options.timeout;
    let why = match tokio::time::timeout(timeout, post_message(&state, text, &sent)).await {
        Ok(()) => "the server's answer did not answer this request".to_string(),
        Err(_) => format!(
            "no answer within {} s (--upstream-timeout)",
            timeout.as_secs_f32()
        ),
    };
    if sent.ids.iter().any(|id| state.is_waiting(id)) {
        state.fail(&sent, &why);
    }
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
}

async fn post_message(state: &Arc<State>, text: String, sent: &Sent) {
    let mut b = state
        .base_request(Method::POST)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream");
    if let Some(v) = &sent.modern {
        // 2026-07-28: the headers mirror the body.
        b = b.header(VERSION_HEADER, v.as_str());
        if let Some(m) = &sent.method {
            b = b.header("mcp-method", m.as_str());
        }
        if sent.method.as_deref() == Some("tools/call")
            && let Some(n) = &sent.name
        {
            b = b.header("mcp-name", header_safe(n));
        }
    } else if let Some(v) = lock(&state.version).clone() {
        b = b.header(VERSION_HEADER, v);
    }
    let req = match b.body(Full::new(Bytes::from(text))) {
        Ok(r) => r,
        Err(e) => return state.fail(sent, &format!("cannot build the request: {e}")),
    };
    let resp = match state.request(req).await {
        Ok(r) => r,
        Err(why) => return state.fail(sent, &why),
    };
    let status = resp.status();
    if sent.method.as_deref() == Some("initialize")
        && status.is_success()
        && let Some(s) = resp.headers().get(SESSION_HEADER)
    {
        *lock(&state.session) = Some(s.clone());
    }
    if status == StatusCode::ACCEPTED {
        if sent.method.as_deref() == Some("notifications/initialized") {
            open_get_stream(state);
        }
        return;
    }
    if !status.is_success() {
        return refused(state, sent, resp).await;
    }
    if sent.ids.is_empty() {
        // A notification or response answered with a body: nothing waits for it.
        return;
    }
    match media(&resp) {
        Media::Json => match read_body(state, resp).await {
            Ok(body) => {
                if sent.method.as_deref() == Some("initialize") {
                    remember_version(state, &body);
                }
                state.deliver(body);
            }
            Err(why) => state.fail(sent, &why),
        },
        Media::Sse => {
            let initialize = sent.method.as_deref() == Some("initialize");
            read_stream(state, resp, sent, initialize).await;
        }
        Media::Other(m) => state.fail(sent, &format!("the server answered with {m:?}")),
    }
}

/// A header value: the text itself when it is visible ASCII, else its base64 form.
fn header_safe(text: &str) -> HeaderValue {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && text.trim() == text
        && let Ok(v) = HeaderValue::from_str(text)
    {
        return v;
    }
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    HeaderValue::from_str(&format!("=?base64?{encoded}?=")).unwrap_or(HeaderValue::from_static(""))
}

fn remember_version(state: &State, answer: &str) {
    let v: Option<String> = serde_json::from_str::<Value>(answer).ok().and_then(|v| {
        v.get("result")?
            .get("protocolVersion")?
            .as_str()
            .map(str::to_string)
    });
    if let Some(v) = v.and_then(|v| HeaderValue::from_str(&v).ok()) {
        *lock(&state.version) = Some(v);
    }
}

enum Media {
    Json,
    Sse,
    Other(String),
}

fn media(resp: &Response<Incoming>) -> Media {
    let ct = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let m = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match m.as_str() {
        "application/json" => Media::Json,
        "text/event-stream" => Media::Sse,
        _ => Media::Other(m),
    }
}

/// A JSON body, within the size and time limits.
async fn read_body(state: &State, resp: Response<Incoming>) -> Result<String, String> {
    let max = state.options.max_message_bytes;
    let limited = http_body_util::Limited::new(resp.into_body(), max);
    let body = match tokio::time::timeout(state.options.timeout, limited.collect()).await {
        Err(_) => return Err("the answer's body did not arrive in time".into()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return Err(format!("the answer is over {max} bytes"));
        }
        Ok(Err(e)) => return Err(format!("the answer could not be read: {e}")),
        Ok(Ok(b)) => b.to_bytes(),
    };
    let text = String::from_utf8(body.to_vec()).map_err(|_| "the answer is not UTF-8")?;
    if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_err() {
        return Err("the answer is not JSON".into());
    }
    Ok(text)
}

/// A non-2xx answer: the server's own JSON-RPC error for this request when it sent one,
/// else an error naming the status.
async fn refused(state: &State, sent: &Sent, resp: Response<Incoming>) -> () {
    let status = resp.status();
    let session_gone = status == StatusCode::NOT_FOUND && lock(&state.session).is_some();
    if let (Some(id), Media::Json) = (&sent.id, media(&resp))
        && let Ok(body) = read_body(state, resp).await
        && let Ok(v) = serde_json::from_str::<Value>(&body)
        && v.get("error").is_some()
        && v.get("id") == Some(id)
    {
        state.note(format!("upstream: {}: HTTP {status}", sent.what()));
        state.deliver(body);
        return;
    }
    let why = if session_gone {
        "the server ended the session (HTTP 404)".to_string()
    } else {
        format!("the server answered HTTP {status}")
    };
    state.fail(sent, &why);
}

/// Reads a POST's SSE stream until the request's answer; resumes it with `Last-Event-ID`
/// when it ends early and the server gave event ids.
async fn read_stream(state: &State, resp: Response<Incoming>, sent: &Sent, initialize: bool) {
    let mut parser = SseParser::new(state.options.max_message_bytes);
    let mut resp = resp;
    let mut resumes = 0;
    loop {
        let outcome = pump(state, resp, &mut parser, &sent.ids, initialize).await;
        match outcome {
            Pumped::Answered => return,
            Pumped::Broken(why) => return state.fail(sent, &why),
            Pumped::Ended => {}
        }
        let Some(last) = parser.last_id.clone() else {
            return state.fail(sent, "the server closed the stream without answering");
        };
        resumes += 1;
        if resumes > MAX_RESUMES || state.closed.load(Ordering::SeqCst) {
            return state.fail(sent, "the server closed the stream without answering");
        }
        tokio::time::sleep(parser.retry.clamp(MIN_RECONNECT, Duration::from_secs(10))).await;
        resp = match resume(state, &last).await {
            Ok(r) => r,
            Err(why) => return state.fail(sent, &why),
        };
    }
}

async fn resume(state: &State, last: &str) -> Result<Response<Incoming>, String> {
    let mut b = state
        .base_request(Method::GET)
        .header(header::ACCEPT, "text/event-stream")
        .header("last-event-id", last);
    if let Some(v) = lock(&state.version).clone() {
        b = b.header(VERSION_HEADER, v);
    }
    let req = b
        .body(Full::new(Bytes::new()))
        .map_err(|e| format!("cannot build the request: {e}"))?;
    let resp = state.request(req).await?;
    if !resp.status().is_success() {
        return Err(format!(
            "resuming the stream: the server answered HTTP {}",
            resp.status()
        ));
    }
    match media(&resp) {
        Media::Sse => Ok(resp),
        _ => Err("resuming the stream: the server did not answer with text/event-stream".into()),
    }
}

enum Pumped {
    /// The awaited answer came.
    Answered,
    /// The stream ended.
    Ended,
    /// The stream broke (malformed, too large, silent too long).
    Broken(String),
}

/// Delivers a stream's messages until it ends, or until every request of `want` is
/// answered.
async fn pump(
    state: &State,
    resp: Response<Incoming>,
    parser: &mut SseParser,
    want: &[Value],
    initialize: bool,
) -> Pumped {
    let mut body = resp.into_body();
    let mut events = Vec::new();
    loop {
        let frame = match tokio::time::timeout(state.options.timeout, body.frame()).await {
            Err(_) => {
                return Pumped::Broken(format!(
                    "the stream was silent for {} s",
                    state.options.timeout.as_secs_f32()
                ));
            }
            Ok(None) => return Pumped::Ended,
            Ok(Some(Err(e))) => return Pumped::Broken(format!("the stream broke: {e}")),
            Ok(Some(Ok(f))) => f,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if let Err(why) = parser.feed(&data, &mut events) {
            return Pumped::Broken(why);
        }
        for text in events.drain(..) {
            if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_err() {
                return Pumped::Broken("an SSE event's data is not JSON".into());
            }
            if initialize && want.iter().any(|w| is_answer_to(&text, w)) {
                remember_version(state, &text);
            }
            state.deliver(text);
        }
        if !want.is_empty() && !want.iter().any(|w| state.is_waiting(w)) {
            return Pumped::Answered;
        }
    }
}

/// The id of a response (a message with an id and no method).
fn response_id(text: &str) -> Option<Value> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(default)]
        id: Option<Value>,
        #[serde(default)]
        method: Option<serde::de::IgnoredAny>,
    }
    let h = serde_json::from_str::<Head>(text).ok()?;
    if h.method.is_some() {
        return None;
    }
    h.id.filter(|id| !id.is_null())
}

/// True when `text` is a response whose id is `want`.
fn is_answer_to(text: &str, want: &Value) -> bool {
    #[derive(Deserialize)]
    struct Head {
        #[serde(default)]
        id: Option<Value>,
        #[serde(default)]
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Head>(text)
        .is_ok_and(|h| h.method.is_none() && h.id.as_ref() == Some(want))
}

/// Opens the GET stream once, after the handshake; the server may refuse it (405).
fn open_get_stream(state: &Arc<State>) {
    if state.get_started.swap(true, Ordering::SeqCst) {
        return;
    }
    let state = Arc::clone(state);
    tokio::spawn(async move {
        let mut parser = SseParser::new(state.options.max_message_bytes);
        let mut failures = 0;
        // Attempts in a row that brought no message: each doubles the delay before the
        // next, and too many end the listening.
        let mut empty = 0u32;
        while !state.closed.load(Ordering::SeqCst) {
            let mut b = state
                .base_request(Method::GET)
                .header(header::ACCEPT, "text/event-stream");
            if let Some(v) = lock(&state.version).clone() {
                b = b.header(VERSION_HEADER, v);
            }
            if let Some(last) = &parser.last_id {
                b = b.header("last-event-id", last.as_str());
            }
            let Ok(req) = b.body(Full::new(Bytes::new())) else {
                return;
            };
            // The stream may stay quiet for long: only its headers are timed.
            let resp = match state.request(req).await {
                Ok(r) => r,
                Err(why) => {
                    failures += 1;
                    if failures >= 3 {
                        return state.note(format!("upstream: the GET stream: {why}"));
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            let status = resp.status();
            if status == StatusCode::METHOD_NOT_ALLOWED {
                return; // The server offers no GET stream: fine.
            }
            if !status.is_success() || !matches!(media(&resp), Media::Sse) {
                return state.note(format!(
                    "upstream: the GET stream was refused (HTTP {status}); server-initiated messages come only on answers' streams"
                ));
            }
            failures = 0;
            let mut body = resp.into_body();
            let mut events = Vec::new();
            let mut brought = false;
            loop {
                // Quiet for long is fine; a closed client stops listening within a second.
                let frame = match tokio::time::timeout(Duration::from_secs(1), body.frame()).await {
                    Err(_) if state.closed.load(Ordering::SeqCst) => return,
                    Err(_) => continue,
                    Ok(f) => f,
                };
                let Some(frame) = frame else { break };
                let Ok(frame) = frame else { break };
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                if let Err(why) = parser.feed(&data, &mut events) {
                    state.note(format!("upstream: the GET stream: {why}"));
                    break;
                }
                for text in events.drain(..) {
                    brought = true;
                    if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok() {
                        state.deliver(text);
                    } else {
                        state.note(
                            "upstream: the GET stream carried an event that is not JSON; dropped"
                                .into(),
                        );
                    }
                }
            }
            empty = if brought { 0 } else { empty + 1 };
            if empty > MAX_EMPTY_RECONNECTS {
                return state.note(format!(
                    "upstream: the GET stream closed {MAX_EMPTY_RECONNECTS} times in a row without a message; no longer reopened"
                ));
            }
            tokio::time::sleep(reconnect_delay(parser.retry, empty)).await;
        }
    });
}

/// The delay before reopening a stream: the server's `retry`, at least [`MIN_RECONNECT`],
/// doubled for each attempt in a row that brought nothing, at most [`MAX_RECONNECT`].
fn reconnect_delay(retry: Duration, empty: u32) -> Duration {
    let base = retry.clamp(MIN_RECONNECT, MAX_RECONNECT);
    base.saturating_mul(1u32 << empty.min(16))
        .min(MAX_RECONNECT)
}

async fn delete(state: &State) {
    if lock(&state.session).is_none() {
        return;
    }
    let mut b = state.base_request(Method::DELETE);
    if let Some(v) = lock(&state.version).clone() {
        b = b.header(VERSION_HEADER, v);
    }
    let Ok(req) = b.body(Full::new(Bytes::new())) else {
        return;
    };
    match state.request(req).await {
        Ok(r) if r.status().is_success() || r.status() == StatusCode::METHOD_NOT_ALLOWED => {}
        Ok(r) => state.note(format!(
            "upstream: ending the session: the server answered HTTP {}",
            r.status()
        )),
        Err(why) => state.note(format!("upstream: ending the session: {why}")),
    }
}

/// An incremental, bounded parser of `text/event-stream` (the WHATWG rules): lines end with
/// CRLF, LF or CR; `data` lines join with newlines; an empty line dispatches the event;
/// `id` and `retry` are remembered; comments and other fields are skipped.
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    /// The previous byte was a CR (a following LF belongs to it).
    after_cr: bool,
    event_is_message: bool,
    max: usize,
    /// The last event id the server gave.
    pub(crate) last_id: Option<String>,
    /// The reconnection delay the server asked for.
    pub(crate) retry: Duration,
}

impl SseParser {
    pub(crate) fn new(max: usize) -> SseParser {
        SseParser {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            after_cr: false,
            event_is_message: true,
            max,
            last_id: None,
            retry: Duration::from_secs(1),
        }
    }

    /// Feeds bytes; each complete event's data (UTF-8) is pushed to `out`. An error when a
    /// line or an event is over the limit or not UTF-8: the stream cannot be trusted.
    pub(crate) fn feed(&mut self, bytes: &[u8], out: &mut Vec<String>) -> Result<(), String> {
        for &b in bytes {
            if std::mem::take(&mut self.after_cr) && b == b'\n' {
                continue;
            }
            match b {
                b'\r' | b'\n' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.field(&line, out)?;
                }
                _ => {
                    if self.line.len() >= self.max {
                        return Err(format!("an SSE line is over {} bytes", self.max));
                    }
                    self.line.push(b);
                }
            }
        }
        Ok(())
    }

    fn field(&mut self, line: &[u8], out: &mut Vec<String>) -> Result<(), String> {
        if line.is_empty() {
            let data = std::mem::take(&mut self.data);
            let has = std::mem::take(&mut self.has_data);
            let message = std::mem::replace(&mut self.event_is_message, true);
            if has && message {
                let mut text =
                    String::from_utf8(data).map_err(|_| "an SSE event is not UTF-8".to_string())?;
                if text.ends_with('\n') {
                    text.pop();
                }
                if !text.trim().is_empty() {
                    out.push(text);
                }
            }
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.data.len() + value.len() + 1 > self.max {
                    return Err(format!("an SSE event is over {} bytes", self.max));
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
            b"id" if !value.contains(&0) => {
                self.last_id = std::str::from_utf8(value).ok().map(str::to_string);
            }
            b"retry" => {
                if let Some(ms) = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<u64>().ok())
                {
                    self.retry = Duration::from_millis(ms);
                }
            }
            b"event" => self.event_is_message = value == b"message" || value.is_empty(),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]], max: usize) -> Result<Vec<String>, String> {
        let mut p = SseParser::new(max);
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out)?;
        }
        Ok(out)
    }

    #[test]
    fn sse_events_split_anywhere_and_every_line_ending() {
        let whole = b"id: 1-0\nretry: 500\ndata: \n\n: comment\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 1-2\rdata: {}\r\r";
        let expected = vec!["{\"a\":\n1}".to_string(), "{}".to_string()];
        for split in 0..whole.len() {
            let (a, b) = whole.split_at(split);
            assert_eq!(events(&[a, b], 1024).unwrap(), expected, "split at {split}");
        }
        let mut p = SseParser::new(1024);
        p.feed(whole, &mut Vec::new()).unwrap();
        assert_eq!(p.last_id.as_deref(), Some("1-2"));
        assert_eq!(p.retry, Duration::from_millis(500));
    }

    #[test]
    fn sse_limits_and_other_events() {
        assert!(events(&[b"data: 0123456789\n\n"], 8).is_err());
        assert!(events(&[b"data: 0123\ndata: 4567\ndata: 89ab\n\n"], 12).is_err());
        assert!(events(&[&[b'x'; 100]], 16).is_err());
        assert_eq!(
            events(&[b"event: other\ndata: {}\n\ndata: []\n\n"], 64).unwrap(),
            ["[]"]
        );
        assert!(events(&[b"data: \xff\n\n"], 64).is_err());
    }

    #[test]
    fn reconnects_are_spaced_and_capped() {
        assert_eq!(reconnect_delay(Duration::ZERO, 0), MIN_RECONNECT);
        assert_eq!(reconnect_delay(Duration::ZERO, 1), 2 * MIN_RECONNECT);
        assert_eq!(
            reconnect_delay(Duration::from_secs(3), 0),
            Duration::from_secs(3)
        );
        assert_eq!(reconnect_delay(Duration::ZERO, 40), MAX_RECONNECT);
        assert_eq!(reconnect_delay(Duration::from_secs(3600), 0), MAX_RECONNECT);
    }

    #[test]
    fn only_http_urls() {
        assert!(parse_url("http://127.0.0.1:3001/mcp").is_ok());
        assert!(
            parse_url("https://example.com/mcp")
                .unwrap_err()
                .contains("TLS")
        );
        assert!(parse_url("ftp://x/").is_err());
        assert!(parse_url("not a url").is_err());
    }
}
